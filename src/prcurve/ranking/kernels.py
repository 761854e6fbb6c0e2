"""Every ranking measure as a function of the ranking state, per query, and the summaries.

Definitions follow trec_eval (docs/ranking.md gives each formula and the
trec_eval source file it was checked against). Per-document terms are added
in trec_eval's order, and logarithms and exponentials come from the C library
(:mod:`math`, as trec_eval's), so that printed values agree to the last digit.
The graded measures (nDCG, G, RBP) are in :mod:`prcurve.ranking.graded`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import ratio
from prcurve.ranking import graded
from prcurve.ranking.measures import (
    GEOMETRIC_MEASURES,
    SUMMED_MEASURES,
    TEXT_MEASURES,
    Measure,
)
from prcurve.ranking.state import JUDGED, UNJUDGED, Rankings, sequential_sums

__all__ = [
    "MIN_GEO_MEAN",
    "TREC_NAN",
    "average_precision",
    "compute",
    "geometric_terms",
    "mean_over_levels",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    "relstrings",
    "summarize",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


# 0.0 / 0.0 in trec_eval's C on x86-64: the default NaN, sign bit set (printed "-nan").
TREC_NAN = math.copysign(math.nan, -1.0)

MIN_GEO_MEAN = 0.00001  # trec_eval.h MIN_GEO_MEAN: gm_map's and gm_bpref's floor
_INFAP_EPSILON = 0.00001  # trec_eval.h INFAP_EPSILON


def _libm(function: Callable[[float], float], values: F64) -> F64:
    """A C-library function element by element (per query, so few calls)."""
    return np.fromiter(map(function, values.tolist()), dtype=np.float64,
                       count=values.shape[0])


def average_precision(r: Rankings, k: int | None, denominator: str) -> F64:
    count = r.n_relevant_retrieved if k is None else r.relevant_in_top(k)
    total = r.hit_sum(r.hit_precision, count)
    if denominator == "relevant":
        return ratio(total, r.n_relevant.astype(np.float64), "AP (no relevant documents)")
    if k is None:  # unreachable through the public API
        raise TypeError("min_k_relevant needs a cutoff k")
    return ratio(
        total, np.minimum(r.n_relevant, k).astype(np.float64),
        "AP_min_k_relevant (no relevant documents)",
    )


# The cutoff functions here take one cutoff or a column of them, (cutoffs x 1): then they
# give a (cutoffs x queries) matrix, each row what the cutoff alone gives (ranking.cutoffs).


def precision(r: Rankings, k: int | I64) -> F64:
    return r.relevant_in_top(k) / np.asarray(k, dtype=np.float64)


def recall(r: Rankings, k: int | I64) -> F64:
    return ratio(r.relevant_in_top(k).astype(np.float64), r.n_relevant.astype(np.float64),
                 "R@k (no relevant documents)")


def r_precision(r: Rankings) -> F64:
    found = r.relevant_in_top(np.minimum(r.lengths, r.n_relevant)).astype(np.float64)
    return ratio(found, r.n_relevant.astype(np.float64), "R-prec (no relevant documents)")


def reciprocal_rank(r: Rankings) -> F64:
    out = np.zeros(r.n_queries)
    hit = r.n_relevant_retrieved > 0
    out[hit] = 1.0 / r.hit_rank[r.first_hit[hit]].astype(np.float64)
    return out


def _recall_cutoffs(r: Rankings, levels: F64, convention: str) -> I64:
    """(queries, levels): the number of relevant documents each recall level needs."""
    exact = levels[None, :] * r.n_relevant[:, None].astype(np.float64)
    if convention == "trec_eval_9":
        return np.trunc(exact + 0.9).astype(np.int64)  # (long) (r * R + 0.9)
    whole = np.trunc(exact)  # lround: halves away from zero (exact >= 0 here)
    return (whole + (exact - whole >= 0.5)).astype(np.int64)


def _interpolated_precision(
    r: Rankings, levels: F64, convention: str, trec_raw: bool = False
) -> F64:
    """(queries, levels) interpolated precision, trec_eval's iprec_at_recall.

    A ranking left empty by ``judged_only`` has no precision at cutoff 0:
    trec_eval computes 0/0 there (``trec_raw``), prcurve applies the
    undefined-value policy.
    """
    cutoff = _recall_cutoffs(r, levels, convention)
    found = r.n_relevant_retrieved[:, None]
    reached = (cutoff <= found) & (found > 0)
    # Level 0 (cutoff 0) takes the value at the first hit, like cutoff 1.
    hit = r.first_hit[:, None] + np.maximum(cutoff, 1) - 1
    out = np.zeros(cutoff.shape)
    if r.hit_interpolated_precision.shape[0]:
        out[reached] = r.hit_interpolated_precision[hit[reached]]
    empty = ((r.lengths == 0) & (r.has_results | r.judged_only))[:, None] & (cutoff <= 0)
    if empty.any():
        out[empty] = TREC_NAN if trec_raw else ratio(
            np.zeros(1), np.zeros(1), "iprec (no document retrieved)")[0]
    return out


_ELEVEN_LEVELS = np.arange(11) / 10.0  # 0.0, 0.1, ..., 1.0 as trec_eval's literals


def _mean_interpolated_precision(
    r: Rankings, levels: F64, convention: str, trec_raw: bool = False
) -> F64:
    """Mean of iprec over ascending ``levels`` (trec_eval's 11pt_avg.levels)."""
    values = _interpolated_precision(r, levels, convention, trec_raw)
    return mean_over_levels([values[:, j] for j in range(values.shape[1])])


def mean_over_levels(columns: Sequence[F64]) -> F64:
    """Element-wise mean of per-level values, added from the last (highest) level
    down as trec_eval's m_11pt_avg.c does, so the float sums agree bit for bit."""
    total = np.zeros_like(columns[0])
    for column in reversed(columns):
        total += column
    return total / len(columns)


def _judged_nonrelevant_above(r: Rankings) -> I64:
    """For each hit, the judged non-relevant documents ranked above it."""
    nonrelevant = r.selection("judged_nonrelevant", lambda: r.judged_nonrelevant)
    query = r.hit_query
    rows = r.hits.rows
    return np.searchsorted(nonrelevant.matching, rows) - nonrelevant.first_match[query]


def _bpref(r: Rankings) -> F64:
    """trec_eval's bpref (m_bpref.c): for each relevant retrieved document,
    1 - min(judged non-relevant above it, R) / min(N, R), summed and divided by R."""
    above = _judged_nonrelevant_above(r)
    R = r.n_relevant[r.hit_query]
    N = r.n_judged_nonrelevant[r.hit_query]
    term = np.ones(above.shape[0])
    some = above > 0  # then N >= 1 and R >= 1: no 0/0
    term[some] = 1.0 - np.minimum(above[some], R[some]) / np.minimum(N[some], R[some])
    total = r.hit_sum(term, r.n_relevant_retrieved)
    return ratio(total, r.n_relevant.astype(np.float64), "bpref (no relevant documents)")


def _inferred_ap(r: Rankings) -> F64:
    """trec_eval's infAP (m_infap.c; Yilmaz and Aslam, "Estimating average precision
    with incomplete and imperfect judgments", CIKM 2006): at the relevant document
    of rank j + 1, 1/(j+1) + j/(j+1) * (c-1+N+U)/j * (c-1+e)/(c-1+N+2e), where c
    counts the relevant documents so far, N and U the judged non-relevant and the
    unjudged in-pool documents above; 1 at rank 1. Summed, divided by R."""
    unjudged = r.selection("unjudged", lambda: r.code == UNJUDGED)
    query = r.hit_query
    rows = r.hits.rows
    N = _judged_nonrelevant_above(r)
    U = np.searchsorted(unjudged.matching, rows) - unjudged.first_match[query]
    c = r.hits.ordinal
    j = r.hits.position
    fj = np.maximum(j, 1).astype(np.float64)
    # The same operations in the same order as the C expression.
    seen = (c - 1 + N + U).astype(np.float64)
    term = (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (seen / fj)
            * (((c - 1).astype(np.float64) + _INFAP_EPSILON)
               / ((c - 1 + N).astype(np.float64) + 2 * _INFAP_EPSILON)))
    term[j == 0] = 1.0
    total = r.hit_sum(term, r.n_relevant_retrieved)
    return ratio(total, r.n_relevant.astype(np.float64), "infAP (no relevant documents)")


def _bin_g(r: Rankings) -> F64:
    """trec_eval's binG (m_binG.c): sum over relevant retrieved documents of
    1 / log2(2 + non-relevant ranked above it), divided by R."""
    nonrelevant_above = r.hits.position - (r.hits.ordinal - 1)
    term = 1.0 / graded.log2_of(nonrelevant_above + 2)
    total = r.hit_sum(term, r.n_relevant_retrieved)
    return ratio(total, r.n_relevant.astype(np.float64), "binG (no relevant documents)")


def _rprec_mult(r: Rankings, multiple: float | F64) -> F64:
    """trec_eval's Rprec_mult.m (m_Rprec_mult.c): precision at the cutoff
    (long) (m * R + 0.9)."""
    cutoff = np.trunc(multiple * r.n_relevant.astype(np.float64) + 0.9).astype(np.int64)
    cutoff = np.maximum(cutoff, 0)
    found = r.relevant_in_top(cutoff).astype(np.float64)
    return ratio(found, cutoff.astype(np.float64), "Rprec_mult (cutoff 0)")


def _relative_precision(r: Rankings, k: int | I64) -> F64:
    """trec_eval's relative_P.k (m_rel_P.c): relevant in the top k / min(k, R)."""
    return ratio(r.relevant_in_top(k).astype(np.float64),
                 np.minimum(r.n_relevant, k).astype(np.float64),
                 "relative_P (no relevant documents)")


def _success(r: Rankings, k: int | I64) -> F64:
    return (r.relevant_in_top(k) > 0).astype(np.float64)


def _set_precision(r: Rankings) -> F64:
    out = np.zeros(r.n_queries)
    some = r.lengths > 0
    out[some] = r.n_relevant_retrieved[some] / r.lengths[some]
    return out


def _set_recall(r: Rankings) -> F64:
    return ratio(r.n_relevant_retrieved.astype(np.float64), r.n_relevant.astype(np.float64),
                 "set_R (no relevant documents)")


def _set_f(r: Rankings, x: float = 1.0) -> F64:
    """trec_eval's set_F: (x + 1) P R / (x P + R), 0 when nothing relevant was retrieved."""
    out = np.zeros(r.n_queries)
    hit = r.n_relevant_retrieved > 0
    found = r.n_relevant_retrieved[hit].astype(np.float64)
    P = found / r.lengths[hit]
    R = found / r.n_relevant[hit]
    out[hit] = (x + 1.0) * P * R / (x * P + R)
    return out


def _set_map(r: Rankings) -> F64:
    """trec_eval's set_map (m_set_map.c): relevant retrieved^2 / (retrieved * R)."""
    found = r.n_relevant_retrieved.astype(np.float64)
    retrieved = np.maximum(r.lengths, 1).astype(np.float64)  # none retrieved: 0 / R
    return ratio(found * found, retrieved * r.n_relevant.astype(np.float64),
                 "set_map (no relevant documents)")


def _set_relative_precision(r: Rankings) -> F64:
    """trec_eval's set_relative_P: relevant retrieved / min(retrieved, R)."""
    size = np.where(r.lengths == 0, r.n_relevant, np.minimum(r.lengths, r.n_relevant))
    return ratio(r.n_relevant_retrieved.astype(np.float64), size.astype(np.float64),
                 "set_relative_P (no relevant documents)")


def _judged_in_top(r: Rankings, k: I64 | int) -> I64:
    judged = r.selection("judged", lambda: r.code >= JUDGED)
    return r.count_in_top(judged, k)


def _num_nonrel_judged_ret(r: Rankings) -> F64:
    """Judged non-relevant documents retrieved (m_num_nonrel_judged_ret.c)."""
    return (_judged_in_top(r, r.lengths) - r.n_relevant_retrieved).astype(np.float64)


def _unjudged(r: Rankings, k: int | I64) -> F64:
    """trec_eval's unj.k (m_unjudged.c): documents in the top k not judged with a
    grade >= 0, over k."""
    top = np.minimum(r.lengths, k)
    return (top - _judged_in_top(r, k)) / np.asarray(k, dtype=np.float64)


def _utility(r: Rankings, measure: Measure) -> F64:
    """trec_eval's utility (m_utility.c): p1 a + p2 b + p3 c + p4 d over the
    contingency table of relevant/non-relevant and retrieved/not; 0 for a judged
    query absent from the run (trec_eval 10 resets it)."""
    a = r.n_relevant_retrieved.astype(np.float64)
    n = r.lengths.astype(np.float64)
    R = r.n_relevant.astype(np.float64)
    size = float(measure.param("collection_size"))
    out: F64 = (measure.param("rel_ret") * a + measure.param("nonrel_ret") * (n - a)
                + measure.param("rel_unret") * (R - a)
                + measure.param("nonrel_unret") * (size + a - n - R))
    out[~r.has_results] = 0.0
    return out


def _yaap(r: Rankings) -> F64:
    """trec_eval's yaap (m_yaap.c): log((1 + S) / (1 + R - S)), S the sum of the
    precisions at the relevant retrieved documents."""
    total = r.hit_sum(r.hit_precision, r.n_relevant_retrieved)
    return _libm(math.log, (1.0 + total) / ((1.0 + r.n_relevant.astype(np.float64)) - total))


_POWERS: dict[float, F64] = {}


def _powers(p: float, n: int) -> F64:
    """p^0, p^1, ... by repeated multiplication (trec_eval's cur_p = cur_p * p)."""
    table = _POWERS.get(p)
    if table is None or table.shape[0] < n + 1:
        size = max(n + 1, 1024)
        table = np.empty(size)
        table[0] = 1.0
        np.multiply.accumulate(np.full(size - 1, p), out=table[1:])
        _POWERS[p] = table
    return table


def _rbp_residual(r: Rankings, p: float) -> F64:
    """trec_eval's rbp_resid (m_rbp_resid.c): p^n + (1 - p) * the sum of p^(i-1)
    over the documents of rank i not judged with a grade >= 0; 0 if there are none.

    Those are most documents of a typical run, so every rank's term is taken
    (0.0 for a judged document, which leaves a sum unchanged) and each query's
    terms are summed in rank order, as trec_eval adds them: when the lengths are even
    enough, ``np.add.accumulate`` along the rows of (queries x ranks) blocks, each
    block's terms made in place (the padding adds 0.0); else every row's term in one
    array, summed by :func:`~prcurve.ranking.state.sequential_sums`. (For terms
    already in an array, sequential_sums' step loop is the faster of the two.)
    """
    n = r.lengths
    longest = int(n.max(initial=0))
    powers = _powers(p, longest)
    total = np.zeros(n.shape[0])
    missing = np.zeros(n.shape[0], dtype=np.int64)
    if 0 < n.shape[0] * longest <= 2 * int(n.sum()) + 4096:
        columns = np.arange(longest)
        step = max((1 << 20) // longest, 1)
        for begin in range(0, n.shape[0], step):
            rows = slice(begin, begin + step)
            valid = columns < n[rows, None]
            index = np.where(valid, r.starts[rows, None] + columns, 0)
            unjudged = (r.code[index] < JUDGED) & valid
            terms = np.where(unjudged, powers[:longest], 0.0)
            total[rows] = np.add.accumulate(terms, axis=1)[:, -1]  # sequential, by rank
            missing[rows] = np.count_nonzero(unjudged, axis=1)
    elif longest:
        query = np.repeat(np.arange(n.shape[0]), n)
        rank = np.arange(query.shape[0]) - np.repeat(np.cumsum(n) - n, n)
        row = r.starts[query] + rank
        unjudged = r.code[row] < JUDGED
        terms = np.zeros(r.code.shape[0])
        terms[row] = np.where(unjudged, powers[rank], 0.0)
        total = sequential_sums(terms, r.starts, n)
        missing = np.bincount(query, weights=unjudged, minlength=n.shape[0]).astype(np.int64)
    out = powers[n] + (1.0 - p) * total
    out[missing == 0] = 0.0
    out[~r.has_results] = 0.0
    return out


def relstrings(r: Rankings, n: int) -> NDArray[np.str_]:
    """trec_eval's relstring.n (m_relstring.c): the grades of the top n documents
    as text, '-' not in the judgments, '.' unjudged, '>' a grade above 9."""
    symbols = np.frombuffer(b"-.0123456789>", dtype=np.uint8)
    chars = np.full(JUDGED + r.grades.shape[0], ord(">"), dtype=np.uint8)
    chars[:2] = symbols[:2]
    small = r.grades <= 9
    chars[JUDGED:][small] = symbols[2 + r.grades[small]]
    width = max(n, 1)
    matrix = np.zeros((r.n_queries, width), dtype=np.uint8)
    top = np.minimum(r.lengths, n)
    query = np.repeat(np.arange(r.n_queries), top)
    column = np.arange(int(top.sum())) - np.repeat(np.cumsum(top) - top, top)
    matrix[query, column] = chars[r.code[r.starts[query] + column]]
    text: NDArray[np.str_] = matrix.view(f"S{width}").ravel().astype(str)
    return text


def compute(measure: Measure, r: Rankings, convention: str, *, trec_raw: bool = False) -> Any:
    """Per-query values of one measure (float64; text for relstring).

    ``trec_raw``: where trec_eval's own arithmetic divides 0 by 0 (Rndcg with no
    positive ideal gain), give NaN as it does instead of the undefined policy.
    """
    name, k = measure.name, measure.cutoff
    table: dict[str, Callable[[], Any]] = {
        "AP": lambda: average_precision(r, None if k is None else int(k), "relevant"),
        "gm_AP": lambda: average_precision(r, None, "relevant"),
        "AP_min_k_relevant": lambda: average_precision(r, int(k or 0), "min_k_relevant"),
        "P": lambda: precision(r, int(k or 0)),
        "R": lambda: recall(r, int(k or 0)),
        "R-prec": lambda: r_precision(r),
        "RR": lambda: reciprocal_rank(r),
        "iprec": lambda: _interpolated_precision(
            r, np.array([float(k or 0)]), convention, trec_raw)[:, 0],
        "11pt": lambda: _mean_interpolated_precision(r, _ELEVEN_LEVELS, convention, trec_raw),
        "bpref": lambda: _bpref(r),
        "gm_bpref": lambda: _bpref(r),
        "num_ret": lambda: r.lengths.astype(np.float64),
        "num_rel": lambda: r.n_relevant.astype(np.float64),
        "num_rel_ret": lambda: r.n_relevant_retrieved.astype(np.float64),
        "set_P": lambda: _set_precision(r),
        "set_R": lambda: _set_recall(r),
        "set_F": lambda: _set_f(r, 1.0 if k is None else float(k)),
        "relstring": lambda: relstrings(r, int(k or 0)),
        "infAP": lambda: _inferred_ap(r),
        "Rprec_mult": lambda: _rprec_mult(r, float(k or 0)),
        "utility": lambda: _utility(r, measure),
        "binG": lambda: _bin_g(r),
        "G": lambda: _g(r, measure),
        "dcg": lambda: graded.dcg(_gains(r, measure)),
        "ideal_dcg": lambda: graded.ideal_dcg(_gains(r, measure)),
        "ndcg": lambda: _ndcg(r, measure),
        "ndcg_rel": lambda: _ndcg_rel(r, measure, trec_raw),
        "Rndcg": lambda: _rndcg(r, measure, trec_raw),
        "ndcg_cut": lambda: _ndcg_cut(r, int(k or 0)),
        "relative_P": lambda: _relative_precision(r, int(k or 0)),
        "success": lambda: _success(r, int(k or 0)),
        "set_relative_P": lambda: _set_relative_precision(r),
        "set_map": lambda: _set_map(r),
        "num_nonrel_judged_ret": lambda: _num_nonrel_judged_ret(r),
        "yaap": lambda: _yaap(r),
        "rbp": lambda: graded.rbp(_gains(r, measure), measure.param("p"),
                                  _powers(measure.param("p"), int(r.lengths.max(initial=0)))),
        "rbp_resid": lambda: _rbp_residual(r, measure.param("p")),
        "unj": lambda: _unjudged(r, int(k or 0)),
    }
    return table[name]()


def _gains(r: Rankings, measure: Measure) -> graded.Gains:
    return _gains_of(r, measure.param("gains"))


def _gains_of(r: Rankings, given: tuple[tuple[int, float], ...]) -> graded.Gains:
    """The gains of these rankings for one ``gains`` parameter, made once per rankings
    (their running sums are shared by ndcg, ndcg_cut at every cutoff, G, ...)."""
    cache: dict[Any, graded.Gains] = r.__dict__.setdefault("_gains_cache", {})
    if given not in cache:
        cache[given] = graded.Gains(r, given)
    return cache[given]


def _ndcg(r: Rankings, measure: Measure) -> F64:
    total, ideal = graded.ndcg(_gains(r, measure))
    return ratio(total, ideal, "ndcg (no positive ideal gain)")


def _ndcg_cut(r: Rankings, k: int) -> F64:
    total, ideal = graded.ndcg_cut(_gains_of(r, ()), k)  # the grades as gains
    return ratio(total, ideal, "ndcg_cut (no positive ideal gain)")


def _g(r: Rankings, measure: Measure) -> F64:
    total, ideal = graded.g_measure(_gains(r, measure))
    return ratio(total, ideal, "G (no positive ideal gain)")


def _ndcg_rel(r: Rankings, measure: Measure, trec_raw: bool) -> F64:
    g = _gains(r, measure)
    values = graded.ndcg_rel(g)
    none = g.ideal_extent[1] == 0
    if trec_raw or not none.any():
        return values
    values[none] = ratio(np.zeros(1), np.zeros(1), "ndcg_rel (no positive ideal gain)")[0]
    return values


def _undefined_without_relevant(r: Rankings, values: F64, name: str) -> F64:
    """Values of a measure that trec_eval sets to 0 without relevant documents:
    the undefined-value policy decides there instead."""
    mask = r.n_relevant == 0
    if mask.any():
        values = values.copy()
        values[mask] = ratio(np.zeros(1), np.zeros(1), f"{name} (no relevant documents)")[0]
    return values


def _rndcg(r: Rankings, measure: Measure, trec_raw: bool) -> F64:
    """trec_eval's Rndcg: 0 without relevant documents; the mean of nDCG at the
    ranks where the ideal gain changes (0/0 when the ideal has no positive gain)."""
    total, count = graded.rndcg(_gains(r, measure))
    none = r.n_relevant == 0
    if trec_raw:
        out = np.full(r.n_queries, TREC_NAN)
        np.divide(total, count, out=out, where=count > 0)
        out[none] = 0.0
        return out
    out = ratio(total, count, "Rndcg (no positive ideal gain)")
    return _undefined_without_relevant(r, np.where(none, 0.0, out), "Rndcg")


def geometric_terms(values: F64) -> F64:
    """log(max(value, 1e-5)) per query, as trec_eval accumulates gm_map and gm_bpref."""
    return _libm(math.log, np.maximum(values, MIN_GEO_MEAN))


def _sequential_sum(values: F64) -> float:
    """The sum in index order, one addition at a time, as trec_eval accumulates."""
    return float(np.cumsum(values)[-1]) if values.shape[0] else 0.0


def summarize(
    measure: Measure, values: Any, has_results: NDArray[np.bool_], convention: str
) -> float:
    """trec_eval's summary of per-query values: the mean, the sum for counts, the
    geometric mean for gm_AP and gm_bpref (NaN for relstring, which has none).

    With trec_eval 9 (``convention``), gm_* adds log(1e-5) for the queries
    without results (only present with ``queries_without_results="zero"``) in
    one product, as its meas_avg.c does.
    """
    n = values.shape[0]
    if measure.name in TEXT_MEASURES:
        return math.nan
    if measure.name in SUMMED_MEASURES:
        return _sequential_sum(values)
    if measure.name in GEOMETRIC_MEASURES:
        counted = has_results if convention == "trec_eval_9" else np.ones(n, dtype=bool)
        total = _sequential_sum(geometric_terms(values[counted]))
        total += (n - int(np.count_nonzero(counted))) * math.log(MIN_GEO_MEAN)
        return float(math.exp(total / n))
    return float(_sequential_sum(values) / n)

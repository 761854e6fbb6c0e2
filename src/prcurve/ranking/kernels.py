"""Every ranking measure as a function of the ranking state, per query, and the summaries.

Definitions follow trec_eval (docs/ranking.md gives each formula and the
trec_eval source file it was checked against). Per-document terms are added
in trec_eval's order so that printed values agree to the last digit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import ratio
from prcurve.ranking.measures import SUMMED_MEASURES, Measure
from prcurve.ranking.state import Rankings

__all__ = [
    "average_precision",
    "compute",
    "mean_over_levels",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    "summarize",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


_MIN_GEO_MEAN = 0.00001  # trec_eval.h MIN_GEO_MEAN: gm_map's floor on AP


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


def precision(r: Rankings, k: int) -> F64:
    return r.relevant_in_top(k) / float(k)


def recall(r: Rankings, k: int) -> F64:
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


def _interpolated_precision(r: Rankings, levels: F64, convention: str) -> F64:
    """(queries, levels) interpolated precision, trec_eval's iprec_at_recall."""
    cutoff = _recall_cutoffs(r, levels, convention)
    found = r.n_relevant_retrieved[:, None]
    reached = (cutoff <= found) & (found > 0)
    # Level 0 (cutoff 0) takes the value at the first hit, like cutoff 1.
    hit = r.first_hit[:, None] + np.maximum(cutoff, 1) - 1
    out = np.zeros(cutoff.shape)
    if r.hit_interpolated_precision.shape[0]:
        out[reached] = r.hit_interpolated_precision[hit[reached]]
    return out


_ELEVEN_LEVELS = np.arange(11) / 10.0  # 0.0, 0.1, ..., 1.0 as trec_eval's literals


def _mean_interpolated_precision(r: Rankings, levels: F64, convention: str) -> F64:
    """Mean of iprec over ascending ``levels`` (trec_eval's 11pt_avg.levels)."""
    values = _interpolated_precision(r, levels, convention)
    return mean_over_levels([values[:, j] for j in range(values.shape[1])])


def mean_over_levels(columns: Sequence[F64]) -> F64:
    """Element-wise mean of per-level values, added from the last (highest) level
    down as trec_eval's m_11pt_avg.c does, so the float sums agree bit for bit."""
    total = np.zeros_like(columns[0])
    for column in reversed(columns):
        total += column
    return total / len(columns)


def _bpref(r: Rankings) -> F64:
    """trec_eval's bpref (m_bpref.c): for each relevant retrieved document,
    1 - min(judged non-relevant above it, R) / min(N, R), summed and divided by R."""
    nonrel_before = np.concatenate(([0], np.cumsum(r.judged_nonrelevant, dtype=np.int64)))
    rows = r.starts[r.hit_query] + r.hit_rank - 1
    above = nonrel_before[rows] - nonrel_before[r.starts[r.hit_query]]
    R = r.n_relevant[r.hit_query]
    N = r.n_judged_nonrelevant[r.hit_query]
    term = np.ones(above.shape[0])
    some = above > 0  # then N >= 1 and R >= 1: no 0/0
    term[some] = 1.0 - np.minimum(above[some], R[some]) / np.minimum(N[some], R[some])
    total = r.hit_sum(term, r.n_relevant_retrieved)
    return ratio(total, r.n_relevant.astype(np.float64), "bpref (no relevant documents)")


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


def compute(measure: Measure, r: Rankings, convention: str) -> F64:
    name, k = measure.name, measure.cutoff
    table: dict[str, Callable[[], F64]] = {
        "AP": lambda: average_precision(r, None if k is None else int(k), "relevant"),
        "gm_AP": lambda: average_precision(r, None, "relevant"),
        "AP_min_k_relevant": lambda: average_precision(r, int(k or 0), "min_k_relevant"),
        "P": lambda: precision(r, int(k or 0)),
        "R": lambda: recall(r, int(k or 0)),
        "R-prec": lambda: r_precision(r),
        "RR": lambda: reciprocal_rank(r),
        "iprec": lambda: _interpolated_precision(r, np.array([float(k or 0)]), convention)[:, 0],
        "11pt": lambda: _mean_interpolated_precision(r, _ELEVEN_LEVELS, convention),
        "bpref": lambda: _bpref(r),
        "num_ret": lambda: r.lengths.astype(np.float64),
        "num_rel": lambda: r.n_relevant.astype(np.float64),
        "num_rel_ret": lambda: r.n_relevant_retrieved.astype(np.float64),
        "set_P": lambda: _set_precision(r),
        "set_R": lambda: _set_recall(r),
        "set_F": lambda: _set_f(r, 1.0 if k is None else float(k)),
    }
    return table[name]()


def _sequential_sum(values: F64) -> float:
    """The sum in index order, one addition at a time, as trec_eval accumulates."""
    return float(np.cumsum(values)[-1]) if values.shape[0] else 0.0


def summarize(
    measure: Measure, values: F64, has_results: NDArray[np.bool_], convention: str
) -> float:

    n = values.shape[0]
    if measure.name in SUMMED_MEASURES:
        return _sequential_sum(values)
    if measure.name == "gm_AP":
        logs = np.log(np.maximum(values, _MIN_GEO_MEAN))
        if convention == "trec_eval_9":
            # trec_eval 9 sums the queries with results, then adds the missing
            # ones' log(MIN_GEO_MEAN) in one product (meas_avg.c).
            total = _sequential_sum(logs[has_results])
            total += (n - int(np.count_nonzero(has_results))) * math.log(_MIN_GEO_MEAN)
        else:
            total = _sequential_sum(logs)
        return float(math.exp(total / n))
    return float(_sequential_sum(values) / n)

"""Ranked retrieval (prcurve.ranking): seeds, a slow readable oracle, properties, inputs, errors.

The oracle below follows the definitions in docs/ranking.md one query and one
rank at a time, with plain Python lists; the vectorised segment code must agree
with it exactly (integers) or to 1e-12 (sums of fractions).
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from prcurve import InvalidInputError, UndefinedMetricWarning
from prcurve.core.average_precision import ap_from_counts
from prcurve.ranking import (
    MEASURE_NAMES,
    Measure,
    Qrels,
    Run,
    average_precision_at_k,
    evaluate,
    precision_at_k,
    r_precision,
    ranking_counts,
    recall_at_k,
    reciprocal_rank,
)

Judgments = dict[str, dict[str, int]]
Scores = dict[str, dict[str, float]]

# -- the oracle -------------------------------------------------------------------------


def recall_cutoff(level: float, n_rel: int, convention: str) -> int:
    x = level * n_rel
    if convention == "trec_eval_9":
        return int(x + 0.9)  # C's (long) truncates toward zero; x >= 0
    return math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)  # lround, x >= 0


def oracle_query(
    judged: dict[str, int], scores: dict[str, float], level: int, depth: int | None,
    convention: str,
) -> dict[str, float]:
    """Every measure for one query, straight from the definitions."""
    ranked = sorted(scores, key=lambda d: (scores[d], d.encode()), reverse=True)
    if depth is not None:
        ranked = ranked[:depth]
    grade = [judged.get(d) for d in ranked]
    rel = [g is not None and g >= level for g in grade]
    R = sum(1 for g in judged.values() if g >= level)
    N = sum(1 for g in judged.values() if 0 <= g < level)
    n = len(ranked)
    found = sum(rel)

    def prec(i: int) -> float:  # precision at rank i (1-based)
        return sum(rel[:i]) / i

    def div(a: float, b: float) -> float:
        return a / b if b else 0.0

    hits = [i + 1 for i in range(n) if rel[i]]  # ranks of relevant documents
    out: dict[str, float] = {
        "num_ret": n, "num_rel": R, "num_rel_ret": found,
        "AP": div(sum(prec(i) for i in hits), R),
        "R-prec": div(sum(rel[: min(n, R)]), R),
        "RR": 1.0 / hits[0] if hits else 0.0,
        "set_P": div(found, n),
        "set_R": div(found, R),
    }
    P, Rc = div(found, n), div(found, R)
    out["set_F"] = 2 * P * Rc / (P + Rc) if found else 0.0
    for k in (1, 2, 3, 5, 10, 20):
        out[f"P@{k}"] = sum(rel[:k]) / k
        out[f"R@{k}"] = div(sum(rel[:k]), R)
        out[f"AP@{k}"] = div(sum(prec(i) for i in hits if i <= k), R)
        out[f"AP_min_k_relevant@{k}"] = div(sum(prec(i) for i in hits if i <= k), min(k, R))
    levels = [i / 10 for i in range(11)]
    iprec = []
    for r in levels:
        c = recall_cutoff(r, R, convention)
        if found == 0 or c > found:
            iprec.append(0.0)
        else:
            start = hits[max(c, 1) - 1]
            iprec.append(max(prec(j) for j in range(start, n + 1)))
        out[f"iprec@{r!r}"] = iprec[-1]
    out["11pt"] = sum(iprec) / 11
    # bpref: each relevant retrieved document loses the share of judged
    # non-relevant documents ranked above it (at most R of them).
    total = 0.0
    for i in hits:
        above = sum(1 for g in grade[: i - 1] if g is not None and 0 <= g < level)
        total += 1.0 - (min(above, R) / min(N, R) if above else 0.0)
    out["bpref"] = div(total, R)
    return out


def oracle(
    qrels: Judgments, run: Scores, *, level: int = 1, depth: int | None = None,
    complete: bool = False, convention: str = "trec_eval_10",
) -> dict[str, dict[str, float]]:
    queries = sorted(  # a query with no judgment rows is not a judged query
        (q for q in qrels if qrels[q] and (complete or q in run)), key=lambda q: q.encode()
    )
    return {q: oracle_query(qrels[q], run.get(q, {}), level, depth, convention) for q in queries}


ORACLE_MEASURES = [
    "AP", "R-prec", "RR", "bpref", "11pt", "num_ret", "num_rel", "num_rel_ret",
    "set_P", "set_R", "set_F",
    *(f"{m}@{k}" for m in ("P", "R", "AP", "AP_min_k_relevant") for k in (1, 2, 3, 5, 10, 20)),
    *(f"iprec@{i / 10!r}" for i in range(11)),
]

# -- strategies: many queries with ties, grades, unjudged documents, empty queries ------

DOCS = ["d1", "d10", "d2", "D2", "d#3", "a", "ab", "b", "zz", "d-9", "x1", "x2"]
SCORES = [0.0, 0.25, 0.5, 0.75, 1.0, -1.0, 2.5]


@st.composite
def collections(draw: Any) -> tuple[Judgments, Scores]:
    n_queries = draw(st.integers(1, 5))
    qrels: Judgments = {}
    run: Scores = {}
    for q in range(n_queries):
        qid = draw(st.sampled_from(["1", "2", "10", "q", "Q", "301", "302"]))
        judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=10))
        retrieved = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES),
                                         max_size=12))
        if draw(st.booleans()) or q == 0:
            qrels[qid] = judged
        if retrieved and (draw(st.booleans()) or q == 0):
            run[qid] = retrieved
    if not any(q in run and qrels[q] for q in qrels):  # something to evaluate
        qrels["only"] = {"d1": 1}
        run["only"] = {"d1": 0.5, "d2": 0.5}
    return dict(qrels.items()), run


def assert_matches_oracle(result: Any, expected: dict[str, dict[str, float]]) -> None:
    assert result.query_ids.tolist() == list(expected)
    for name in ORACLE_MEASURES:
        want = np.array([expected[q][name] for q in expected])
        np.testing.assert_allclose(result.per_query[name], want, rtol=0, atol=1e-12,
                                   err_msg=name)


@settings(max_examples=150, deadline=None)
@given(
    data=collections(),
    level=st.integers(0, 3),
    depth=st.one_of(st.none(), st.integers(1, 8)),
    complete=st.booleans(),
    convention=st.sampled_from(["trec_eval_10", "trec_eval_9"]),
)
def test_evaluate_matches_oracle(
    data: tuple[Judgments, Scores], level: int, depth: int | None, complete: bool,
    convention: str,
) -> None:
    qrels, run = data
    expected = oracle(qrels, run, level=level, depth=depth, complete=complete,
                      convention=convention)
    if not expected:
        return
    result = evaluate(
        qrels, run, ORACLE_MEASURES, relevance_level=level, depth=depth,
        queries_without_results="zero" if complete else "skip", convention=convention,
    )
    assert_matches_oracle(result, expected)
    assert result.n_queries == len(expected)
    for name in ORACLE_MEASURES:
        values = [expected[q][name] for q in expected]
        want = sum(values) if name.startswith("num_") else sum(values) / len(values)
        assert result.summary[name] == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=collections(), seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(data: tuple[Judgments, Scores], seed: int) -> None:
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    order = np.random.default_rng(seed).permutation(len(rows))
    shuffled = [rows[i] for i in order]
    a = evaluate(qrels, run, ORACLE_MEASURES)
    b = evaluate(qrels, tuple(zip(*shuffled, strict=True)), ORACLE_MEASURES)
    for name in ORACLE_MEASURES:
        np.testing.assert_array_equal(a.per_query[name], b.per_query[name])


@settings(max_examples=60, deadline=None)
@given(data=collections())
def test_queries_are_independent(data: tuple[Judgments, Scores]) -> None:
    # Evaluating each query alone gives the same per-query values as all together.
    qrels, run = data
    together = evaluate(qrels, run, ORACLE_MEASURES)
    for i, q in enumerate(together.query_ids.tolist()):
        alone = evaluate({q: qrels[q]}, {q: run[q]}, ORACLE_MEASURES)
        for name in ORACLE_MEASURES:
            assert alone.per_query[name][0] == together.per_query[name][i], name


@settings(max_examples=60, deadline=None)
@given(data=collections())
def test_monotone_in_the_cutoff(data: tuple[Judgments, Scores]) -> None:
    qrels, run = data
    ks = [1, 2, 3, 5, 10, 20]
    result = evaluate(qrels, run, [f"{m}@{k}" for m in ("R", "AP") for k in ks]
                      + ["AP"] + [f"iprec@{i / 10!r}" for i in range(11)])
    v = result.per_query
    for a, b in itertools.pairwise(ks):
        assert (v[f"R@{a}"] <= v[f"R@{b}"]).all()
        assert (v[f"AP@{a}"] <= v[f"AP@{b}"] + 1e-15).all()
    assert (v["AP@20"] <= v["AP"] + 1e-15).all()
    iprec = np.stack([v[f"iprec@{i / 10!r}"] for i in range(11)])
    assert (np.diff(iprec, axis=0) <= 0).all()  # interpolated precision never rises
    assert ((v["AP"] >= 0) & (v["AP"] <= 1)).all()


# -- the trec_eval-only measures: a second oracle, one document at a time ----------------
#
# Each measure below follows its definition in docs/ranking.md (trec_eval's m_*.c)
# rank by rank, with plain Python lists. A document's relevance value is its
# grade, -1 when it is not in the judgments, -2 when judged with a negative grade.


def _gains_list(given: dict[int, float], n_levels: int) -> list[tuple[int, float]]:
    """The given gains, then grades 0..n_levels-1 not given at their grade, by gain
    (stable; the strategy draws gains at least 1 apart, where trec_eval's truncated
    comparison sorts the same way)."""
    listed = list(given.items()) + [(g, float(g)) for g in range(n_levels) if g not in given]
    return sorted(listed, key=lambda pair: pair[1])


def _ideal_gains(listed: list[tuple[int, float]], counts: dict[int, int]) -> list[float]:
    """The ideal ranking's gains: from the best listed gain down, each grade as many
    times as judged, until a gain <= 0."""
    out: list[float] = []
    if not listed or listed[-1][1] <= 0:
        return out
    for level, gain in reversed(listed):
        if counts.get(level, 0) == 0:
            continue
        if gain <= 0:
            break
        out += [gain] * counts[level]
    return out


def trec_oracle_query(
    judged: dict[str, int], scores: dict[str, float], level: int, depth: int | None,
    judged_only: bool, gains: dict[int, float], p: float,
) -> dict[str, Any]:
    ranked = sorted(scores, key=lambda d: (scores[d], d.encode()), reverse=True)
    if depth is not None:
        ranked = ranked[:depth]
    values = [-1 if d not in judged else (judged[d] if judged[d] >= 0 else -2) for d in ranked]
    if judged_only:
        values = [v for v in values if v >= 0]
    n = len(values)
    counts: dict[int, int] = {}
    for g in judged.values():
        if g >= 0:
            counts[g] = counts.get(g, 0) + 1
    R = sum(c for g, c in counts.items() if g >= level)
    n_levels = max(counts) + 1 if counts else 0
    relevant = [v >= level for v in values]
    found = sum(relevant)
    out: dict[str, Any] = {}

    def div(a: float, b: float) -> float:  # IEEE division, as trec_eval's C
        return a / b if b else (math.copysign(math.inf, a) if a else math.nan)

    def log2(x: float) -> float:  # libm's log2, -inf at 0, NaN below
        return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)

    def gain_of(v: int, listed: list[tuple[int, float]]) -> float:
        return next((gain for lv, gain in listed if lv == v), 0.0)

    listed = _gains_list(gains, n_levels)
    ideal = _ideal_gains(listed, counts)
    dcg_terms = [(i, gain_of(v, listed)) for i, v in enumerate(values)]
    dcg = 0.0
    running_dcg = []
    for i, g in dcg_terms:
        if g != 0:
            dcg += g / log2(i + 2)
        running_dcg.append(dcg)  # DCG of the top i + 1
    ideal_running = []
    idcg = 0.0
    for i, g in enumerate(ideal):
        idcg += g / log2(i + 2)
        ideal_running.append(idcg)
    out["dcg"], out["ideal_dcg"] = dcg, idcg
    out["ndcg"] = dcg / idcg if idcg > 0 else 0.0

    def ideal_at(k: int) -> float:  # ideal DCG of the first min(k, L) positions
        return ideal_running[min(k, len(ideal)) - 1] if min(k, len(ideal)) > 0 else 0.0

    def dcg_at(k: int) -> float:  # DCG of the top min(k, n)
        return running_dcg[min(k, n) - 1] if min(k, n) > 0 else 0.0

    # ndcg_rel: nDCG at each retrieved document of positive gain, then the rest.
    total, retrieved_positive = 0.0, 0
    for i, g in dcg_terms:
        if g > 0:
            total += div(running_dcg[i], ideal_at(i + 1))
            retrieved_positive += 1
    total += div((len(ideal) - retrieved_positive) * dcg, idcg)
    out["ndcg_rel"] = div(total, len(ideal)) if total > 0 else 0.0
    out["ideal_length"] = len(ideal)  # documents of positive ideal gain
    # Rndcg: nDCG where the ideal gain changes (and at the end of the ideal, and at
    # the end of the run when the ideal ends two or more ranks before it).
    points = []
    previous = listed[-1][1] if listed else 0.0
    for i in range(len(ideal) + 1):
        now = ideal[i] if i < len(ideal) else 0.0
        if now != previous:
            points.append(i)
            previous = now
    values_at = [dcg_at(i) / ideal_at(i) for i in points if ideal_at(i) > 0]
    if len(ideal) + 1 < n and idcg > 0:
        values_at.append(dcg / idcg)
    out["Rndcg"] = (0.0 if R == 0 else sum(values_at) / len(values_at) if values_at
                    else math.nan)
    # G: gain / log2(2 + cost so far - gain so far), cost max(ideal gain, 1) per rank.
    cost = gained = 0.0
    g_sum = 0.0
    for i, g in dcg_terms:
        gained += g
        cost += max(ideal[i], 1.0) if i < len(ideal) else 1.0
        if g != 0:
            g_sum += div(g, log2(2 + cost - gained))
    out["G"] = g_sum / sum(ideal) if ideal else 0.0
    for k in (1, 2, 3, 5, 10):
        default = _ideal_gains(_gains_list({}, n_levels), counts)
        top = sum(v / log2(i + 2) for i, v in enumerate(values[:k]) if v > 0)
        best = sum(v / log2(i + 2) for i, v in enumerate(default[:k]))
        out[f"ndcg_cut@{k}"] = top / best if best > 0 else 0.0
        rel_k = sum(relevant[:k])
        out[f"relative_P@{k}"] = rel_k / min(k, R) if R else 0.0
        out[f"success@{k}"] = float(rel_k > 0)
        out[f"unj@{k}"] = sum(1 for v in values[:k] if v < 0) / k
    # binG: 1 / log2(2 + documents above that are not relevant), over R.
    out["binG"] = sum(1 / log2(2 + i - sum(relevant[:i]))
                      for i in range(n) if relevant[i]) / R if R else 0.0
    # infAP.
    inf_ap = 0.0
    rel_seen = nonrel_seen = unjudged_seen = 0
    for j, v in enumerate(values):
        if v == -1:
            continue
        if v == -2:
            unjudged_seen += 1
        elif v < level:
            nonrel_seen += 1
        else:
            rel_seen += 1
            e = 0.00001
            inf_ap += 1.0 if j == 0 else (
                1 / (j + 1) + (j / (j + 1)) * ((rel_seen - 1 + nonrel_seen + unjudged_seen) / j)
                * ((rel_seen - 1 + e) / (rel_seen - 1 + nonrel_seen + 2 * e)))
    out["infAP"] = inf_ap / R if R else 0.0
    for m in (0.2, 0.5, 1.0, 2.0):
        c = int(m * R + 0.9)
        out[f"Rprec_mult@{m!r}"] = sum(relevant[:c]) / c if c > 0 else 0.0
    out["set_map"] = found * found / (n * R) if n and R else 0.0
    out["set_relative_P"] = found / min(n, R) if n and R else 0.0
    out["num_nonrel_judged_ret"] = float(sum(1 for v in values if 0 <= v < level))
    s = sum(sum(relevant[: i + 1]) / (i + 1) for i in range(n) if relevant[i])
    out["yaap"] = math.log((1 + s) / (1 + R - s))
    out["utility"] = 1.0 * found - 1.0 * (n - found) + 0.0 * (R - found)
    # rbp: gains rescaled to [0, 1] over the query's gain list when outside it.
    low = min((gain for _, gain in listed), default=0.0)
    high = max((gain for _, gain in listed), default=0.0)

    def scale(g: float) -> float:  # one listed gain: 0/0, NaN, as in C
        if not (low < 0 or high > 1):
            return g
        return (g - low) / (high - low) if high != low else math.nan

    out["rbp"] = (1 - p) * sum(
        scale(gain_of(v, listed)) * p**i for i, v in enumerate(values)
        if any(lv == v for lv, _ in listed) and scale(gain_of(v, listed)) != 0)
    unjudged = [i for i, v in enumerate(values) if v < 0]
    out["rbp_resid"] = p**n + (1 - p) * sum(p**i for i in unjudged) if unjudged else 0.0
    out["relstring@4"] = "".join(
        "-" if v == -1 else "." if v == -2 else ">" if v > 9 else str(v) for v in values[:4])
    out["num_ret"] = float(n)
    return out


TREC_ORACLE_MEASURES = [
    "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "G", "binG", "infAP", "set_map",
    "set_relative_P", "num_nonrel_judged_ret", "yaap", "utility", "rbp", "rbp_resid",
    "relstring@4", "num_ret",
    *(f"{m}@{k}" for m in ("ndcg_cut", "relative_P", "success", "unj") for k in (1, 2, 3, 5, 10)),
    *(f"Rprec_mult@{m!r}" for m in (0.2, 0.5, 1.0, 2.0)),
]


@settings(max_examples=120, deadline=None)
@given(
    data=collections(),
    level=st.integers(0, 3),
    depth=st.one_of(st.none(), st.integers(1, 8)),
    judged_only=st.booleans(),
    gains=st.dictionaries(st.integers(-2, 4), st.integers(-3, 8).map(float), max_size=3),
    p=st.sampled_from([0.9, 0.5, 0.8]),
)
# A run's -2 document (judged with a negative grade) given a positive gain, where no
# judged grade has one: trec_eval's ndcg_rel divides by a zero ideal DCG (inf).
@example(data=({"1": {"d1": 1, "d10": -1}}, {"1": {"d1": 0.0, "d10": 0.0}}), level=0,
         depth=None, judged_only=False, gains={-2: 1.0, 1: -2.0}, p=0.9)
def test_trec_eval_measures_match_oracle(
    data: tuple[Judgments, Scores], level: int, depth: int | None, judged_only: bool,
    gains: dict[int, float], p: float,
) -> None:
    qrels, run = data
    queries = sorted((q for q in qrels if q in run and any(g >= 0 for g in qrels[q].values())),
                     key=lambda q: q.encode())
    if not queries:
        return
    qrels = {q: qrels[q] for q in queries}
    run = {q: run[q] for q in queries}
    # Gains at least 1 apart (the oracle's stable sort is then trec_eval's order).
    given = dict(sorted({}.items()))
    for lv, g in gains.items():
        if all(abs(g - other) >= 1 for other in given.values()):
            given[lv] = g
    text = "{" + ", ".join(f"{lv}: {g!r}" for lv, g in given.items()) + "}"
    gain_measures = {"dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "G"}
    names = [f"{m}(gains={text})" if m in gain_measures and given else m
             for m in TREC_ORACLE_MEASURES]
    names = [f"rbp(p={p!r}, gains={text})" if m == "rbp" else
             f"rbp_resid(p={p!r})" if m == "rbp_resid" else m for m in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN where a value is undefined (0/0)
        result = evaluate(qrels, run, names, relevance_level=level, depth=depth,
                          judged_only=judged_only, zero_division=0)
    assert result.query_ids.tolist() == queries
    for i, q in enumerate(queries):
        expected = trec_oracle_query(qrels[q], run[q], level, depth, judged_only, given, p)
        for name, key in zip(names, TREC_ORACLE_MEASURES, strict=True):
            got = result.per_query[str(Measure.parse(name))][i]
            want = expected[key]
            if key == "ndcg_rel" and expected["ideal_length"] == 0:
                # No positive ideal gain: trec_eval divides by 0 (0, or inf when a
                # -1/-2 document was given a positive gain); the API's undefined-value
                # policy decides instead (zero_division=0; `prcurve trec` keeps C's).
                assert got == 0.0, (name, q, want)
            elif isinstance(want, str) or math.isinf(want):
                assert got == want, (name, q)
            elif math.isnan(want) and key == "Rndcg":  # 0/0: the undefined-value policy
                assert got == 0.0, (name, q)
            elif math.isnan(want):  # e.g. rbp with one gain rescaled: 0/0, as trec_eval
                assert math.isnan(got), (name, q)
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (name, q)


# -- one ranking: seeds and edge cases -------------------------------------------------------

MOVIES_SCORE = [0.94, 0.91, 0.90, 0.66, 0.63, 0.57, 0.37, 0.27, 0.21, 0.20, 0.18, 0.06]
MOVIES_TRUTH = [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0]
AP3_SCORE = [0.840, -0.085, -0.264, -0.463, -0.551, -0.579, -0.708, -1.108, -1.170, -1.593]
AP3_TRUTH = [1, 1, 0, 1, 1, 0, 0, 0, 0, 0]


def test_balanced_precision_at_5() -> None:
    assert precision_at_k(MOVIES_TRUTH, MOVIES_SCORE, 5) == 0.6


def test_balanced_average_precision_at_3() -> None:
    value = average_precision_at_k(AP3_TRUTH, AP3_SCORE, 3)
    assert value == 2 / 3
    assert round(value, 2) == 0.67
    assert average_precision_at_k(AP3_TRUTH, AP3_SCORE, 3, denominator="relevant") == 0.5


def test_balanced_fewer_than_k_relevant() -> None:
    # Two relevant documents in all: P@5 is at most 2/5, and this ranking reaches it.
    assert precision_at_k([1, 1, 0, 0, 0, 0], [6, 5, 4, 3, 2, 1], 5) == 0.4


def test_balanced_fewer_than_k_retrieved() -> None:
    # Three retrieved; ranks 4 and 5 count as non-relevant.
    assert precision_at_k([1, 1, 1], [3, 2, 1], 5) == 0.6
    assert recall_at_k([1, 1, 1], [3, 2, 1], 5, n_relevant=6) == 0.5
    assert average_precision_at_k([1, 1, 1], [3, 2, 1], 5) == 1.0  # 3 / min(5, 3)
    assert average_precision_at_k([1, 1, 1], [3, 2, 1], 5, n_relevant=4) == 0.75


def test_seed003_geese_and_airplanes() -> None:
    # Airplanes at ranks 1, 2, 4, 6, 10 of ten: the cutoff table and AP 0.782.
    truth = [1, 1, 0, 1, 0, 1, 0, 0, 0, 1]
    score = np.arange(10, 0, -1)
    assert [precision_at_k(truth, score, k) for k in (1, 2, 3, 4)] == [1.0, 1.0, 2 / 3, 0.75]
    assert [recall_at_k(truth, score, k) for k in (1, 4, 10)] == [0.2, 0.6, 1.0]
    ap = average_precision_at_k(truth, score)
    assert ap == pytest.approx((1 + 1 + 0.75 + 4 / 6 + 0.5) / 5, abs=1e-15)
    assert round(ap, 3) == 0.783  # the seed rounds 2/3 down to 0.66 and prints 0.782


def test_single_functions_agree_with_evaluate() -> None:
    truth = [1, 0, 1, 0, 0, 1]
    score = [0.3, 0.9, 0.3, 0.1, 0.5, 0.2]
    ids = ["a", "b", "c", "d", "e", "f"]
    result = evaluate(
        {"q": dict(zip(ids, truth, strict=True))},
        {"q": dict(zip(ids, score, strict=True))},
        ["P@3", "R@3", "AP@3", "AP_min_k_relevant@3", "AP", "R-prec", "RR"],
    )
    got = {
        "P@3": precision_at_k(truth, score, 3, doc_ids=ids),
        "R@3": recall_at_k(truth, score, 3, doc_ids=ids),
        "AP@3": average_precision_at_k(truth, score, 3, denominator="relevant", doc_ids=ids),
        "AP_min_k_relevant@3": average_precision_at_k(truth, score, 3, doc_ids=ids),
        "AP": average_precision_at_k(truth, score, doc_ids=ids),
        "R-prec": r_precision(truth, score, doc_ids=ids),
        "RR": reciprocal_rank(truth, score, doc_ids=ids),
    }
    for name, value in got.items():
        assert value == result.per_query[name][0], name


def test_ties_follow_input_order_or_document_ids() -> None:
    truth = [0, 1]
    score = [0.5, 0.5]
    assert reciprocal_rank(truth, score) == 0.5  # input order: the non-relevant first
    assert reciprocal_rank(truth, score, doc_ids=["a", "b"]) == 1.0  # "b" > "a": first
    assert reciprocal_rank(truth, score, doc_ids=["b", "a"]) == 0.5


@settings(max_examples=80, deadline=None)
@given(
    truth=st.lists(st.booleans(), min_size=1, max_size=30),
    extra=st.integers(0, 5),
    data=st.data(),
)
def test_ranking_counts_is_the_core_state(truth: list[bool], extra: int, data: Any) -> None:
    # AP over the whole ranking is the step AP of the core state with rank as threshold.
    score = data.draw(st.permutations(list(range(len(truth)))))
    n_rel = sum(truth) + extra
    counts = ranking_counts(truth, score, n_relevant=n_rel)
    if n_rel == 0:
        return
    ap = average_precision_at_k(truth, score, n_relevant=n_rel)
    assert ap == pytest.approx(ap_from_counts(counts, "step"), abs=1e-12)
    if extra == 0 and 0 < sum(truth) < len(truth):
        assert ap == pytest.approx(average_precision_score(truth, score), abs=1e-12)


def test_undefined_when_nothing_is_relevant() -> None:
    with pytest.warns(UndefinedMetricWarning, match="no relevant"):
        assert math.isnan(average_precision_at_k([0, 0], [1, 2], 2))
    assert recall_at_k([0, 0], [1, 2], 1, zero_division=0) == 0.0
    assert r_precision([0, 0], [1, 2], zero_division=1) == 1.0
    assert reciprocal_rank([0, 0], [1, 2]) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert precision_at_k([0, 0], [1, 2], 2) == 0.0


def test_empty_ranking_scores_zero() -> None:
    assert precision_at_k([], [], 3) == 0.0
    assert recall_at_k([], [], 3, n_relevant=2) == 0.0
    assert average_precision_at_k([], [], 3, n_relevant=2) == 0.0


# -- many queries: trec_eval's conventions ------------------------------------------------


def test_queries_without_relevant_documents_score_zero_and_count() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 0}}
    run = {"1": {"a": 1.0}, "2": {"b": 1.0}}
    result = evaluate(qrels, run, ["AP", "P@1", "bpref", "R-prec", "iprec@0.0"])
    assert result.per_query["AP"].tolist() == [1.0, 0.0]
    assert result["AP"] == 0.5
    assert result.n_queries == 2
    assert result.per_query["iprec@0.0"].tolist() == [1.0, 0.0]
    with pytest.warns(UndefinedMetricWarning):
        nan = evaluate(qrels, run, ["AP"], zero_division="nan")
    assert math.isnan(nan.per_query["AP"][1])


def test_unjudged_documents_are_not_relevant_and_bpref_skips_them() -> None:
    qrels = {"1": {"rel": 1, "non": 0, "neg": -1}}
    run = {"1": {"x": 4.0, "neg": 3.0, "non": 2.0, "rel": 1.0}}
    result = evaluate(qrels, run, ["AP", "bpref", "P@4", "num_rel"])
    assert result.per_query["AP"][0] == 0.25
    assert result.per_query["bpref"][0] == 0.0  # one judged non-relevant above, min(N, R) = 1
    assert result.per_query["num_rel"][0] == 1


def test_queries_without_results() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "3": {"z": 1.0}}
    skip = evaluate(qrels, run, ["AP", "gm_AP"])
    assert skip.query_ids.tolist() == ["1"]
    assert skip["AP"] == 1.0
    zero = evaluate(qrels, run, ["AP", "gm_AP", "num_ret"], queries_without_results="zero")
    assert zero.query_ids.tolist() == ["1", "2"]
    assert zero.has_results.tolist() == [True, False]
    assert zero["AP"] == 0.5
    assert zero["num_ret"] == 1
    assert zero["gm_AP"] == pytest.approx(math.sqrt(1e-5), rel=1e-12)


def test_depth_cuts_each_ranking() -> None:
    qrels = {"1": {"a": 1, "b": 1}}
    run = {"1": {"x": 3.0, "a": 2.0, "b": 1.0}}
    result = evaluate(qrels, run, ["AP", "num_ret", "P@3"], depth=2)
    assert result.per_query["num_ret"][0] == 2
    assert result.per_query["AP"][0] == 0.25
    assert result.per_query["P@3"][0] == 1 / 3


def test_ties_break_by_document_id_descending_bytes() -> None:
    qrels = {"1": {"B": 1}}
    run = {"1": {"a": 1.0, "B": 1.0}}  # b"a" > b"B": "a" ranks first
    assert evaluate(qrels, run, ["RR"])["RR"] == 0.5


def test_float32_scores_tie_like_trec_eval_9() -> None:
    qrels = {"1": {"b": 1}}
    run = {"1": {"a": 1.0 + 2**-30, "b": 1.0}}  # equal as float32: "b" > "a" wins the tie
    assert evaluate(qrels, run, ["RR"])["RR"] == 0.5
    assert evaluate(qrels, run, ["RR"], score_precision="float32")["RR"] == 1.0


def test_recall_cutoff_conventions() -> None:
    # R = 5: level 0.1 needs lround(0.5) = 1 relevant (10) or (long)(1.4) = 1 (9);
    # level 0.3 needs lround(1.5) = 2 (10) or (long)(2.4) = 2 (9); level 0.5: 3 vs (long)3.4 = 3;
    # level 0.7 needs lround(3.5) = 4 (10) or (long)(4.4) = 4; level 0.2: 1 vs (long)1.9 = 1.
    # R = 10, level 0.15 (not a default): lround(1.5) = 2, (long)(2.4) = 2; level 0.05: 1 vs 1.
    # The difference: R = 3, level 0.1: lround(0.3) = 0 but (long)(1.2) = 1.
    qrels = {"1": {"a": 1, "b": 1, "c": 1}}
    run = {"1": {"x": 3.0, "a": 2.0, "b": 1.0, "c": 0.5}}
    v10 = evaluate(qrels, run, ["iprec@0.1", "iprec@0.0"])
    v9 = evaluate(qrels, run, ["iprec@0.1"], convention="trec_eval_9")
    assert v10["iprec@0.1"] == v10["iprec@0.0"] == 0.75  # cutoff 0: best precision at a hit
    assert v9["iprec@0.1"] == 0.75


def test_input_forms_agree(tmp_path: Any) -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.1, "b": 0.9}, "q2": {"c": 0.5, "d": 0.7}}
    measures = ["AP", "P@1", "RR"]
    reference = evaluate(qrels, run, measures).summary
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    judged = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    arrays = evaluate(tuple(zip(*judged, strict=True)), tuple(zip(*rows, strict=True)), measures)
    objects = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), measures)
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in judged))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 1 {s} run\n" for q, d, s in rows))
    files = evaluate(tmp_path / "q", str(tmp_path / "r"), measures)
    for other in (arrays, objects, files):
        assert other.summary == reference
    assert files.query_ids.tolist() == [b"q1", b"q2"]
    integers = evaluate(([1, 1, 2], [10, 11, 12], [1, 0, 2]), ([1, 1, 2, 2], [10, 11, 12, 13],
                                                               [0.1, 0.9, 0.5, 0.7]), measures)
    assert integers.summary == reference


def test_dataframes_are_accepted() -> None:
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [0.1, 0.9]})
    assert evaluate(qrels, run, ["AP"])["AP"] == 0.5


def test_pyarrow_tables_are_accepted() -> None:
    pa = pytest.importorskip("pyarrow")  # in the test extra: never skipped in CI
    qrels = pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pa.table({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [0.1, 0.9]})
    assert evaluate(qrels, run, ["AP"])["AP"] == 0.5


def test_result_to_dict() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AP", "num_ret"])
    assert result.to_dict() == {"q": {"AP": 1.0, "num_ret": 1.0}, "all": {"AP": 1.0,
                                                                         "num_ret": 1.0}}


# -- measures as values ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("AP", Measure("AP")),
        ("AP@10", Measure("AP", 10)),
        ("AP_min_k_relevant@5", Measure("AP_min_k_relevant", 5)),
        ("P@10", Measure("P", 10)),
        ("R@100", Measure("R", 100)),
        ("R-prec", Measure("R-prec")),
        ("RR", Measure("RR")),
        ("iprec@0.5", Measure("iprec", 0.5)),
        ("iprec@0.0", Measure("iprec", 0.0)),
        ("11pt", Measure("11pt")),
        ("bpref", Measure("bpref")),
        ("gm_AP", Measure("gm_AP")),
        ("set_F", Measure("set_F")),
        ("set_F@0.5", Measure("set_F", 0.5)),
        ("num_rel_ret", Measure("num_rel_ret")),
    ],
)
def test_measure_round_trip(text: str, measure: Measure) -> None:
    assert Measure.parse(text) == measure
    assert str(measure) == text
    assert Measure.parse(str(measure)) == measure
    assert eval(repr(measure), {"Measure": Measure.parse}) == measure


def test_every_measure_name_evaluates() -> None:
    forms = {"k": "@3", "r": "@0.5", "m": "@0.5", "n": "@3"}
    from prcurve.ranking.measures import _PARAMETERS, TEXT_MEASURES

    names = [n + forms.get(_PARAMETERS[n] or "", "") for n in MEASURE_NAMES]
    result = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 0.2, "b": 0.4}}, names)
    assert set(result.per_query) == set(names)
    assert set(result.summary) == {n for n in names if n.split("@")[0] not in TEXT_MEASURES}
    assert result.per_query["relstring@3"].tolist() == ["01"]


@pytest.mark.parametrize(
    ("measures", "match"),
    [
        ("nDCG@10", "unknown measure 'nDCG@10'.*P@k"),
        ("P", "'P': missing its parameter"),
        ("P@0", "rank cutoff >= 1"),
        ("P@x", "cannot read the parameter 'x'"),
        ("RR@3", "RR takes no parameter"),
        ("iprec@1.5", r"\[0, 1\]"),
        ([], "no measures given"),
        ([3], "unknown measure 3"),
    ],
)
def test_bad_measures(measures: Any, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as error:
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, measures)
    assert error.value.argument == "measures"


@pytest.mark.parametrize(
    ("kwargs", "argument", "match"),
    [
        ({"relevance_level": -1}, "relevance_level", "integer >= 0"),
        ({"depth": 0}, "depth", "cutoff >= 1"),
        ({"queries_without_results": "drop"}, "queries_without_results", "'skip', 'zero'"),
        ({"convention": "trec_eval_8"}, "convention", "trec_eval_10"),
        ({"score_precision": "half"}, "score_precision", "float32"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], argument: str, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as error:
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", **kwargs)
    assert error.value.argument == argument


@pytest.mark.parametrize(
    ("qrels", "run", "argument", "match"),
    [
        ({"q": {"a": 1}}, {"x": {"a": 1.0}}, "run", "no query has both results and relevance"),
        ({"q": {"a": 1}}, (["q"], ["a"], [math.nan]), "score", "1 NaN"),
        ({"q": {"a": 1.5}}, {"q": {"a": 1.0}}, "relevance", "integer grades"),
        ((["q", "q"], ["a", "a"], [1, 0]), {"q": {"a": 1.0}}, "qrels", "'a' appears twice"),
        ({"q": {"a": 1}}, (["q", "q"], ["a", "a"], [1.0, 2.0]), "run", "'a' appears twice"),
        ({"q": {"a": 1}}, (["q"], ["a", "b"], [1.0, 2.0]), "doc_id", "length mismatch"),
        ({"q": {"a": 1}}, 42, "run", "cannot read a int"),
        ({"q": {"a": 1}}, {"q": [1.0]}, "run", "a dict of documents for 'q'"),
        ({"q": {"a": 1}}, ([1.5], ["a"], [1.0]), "query_id", "string or integer ids"),
    ],
)
def test_bad_tables(qrels: Any, run: Any, argument: str, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as error:
        evaluate(qrels, run, "AP")
    assert error.value.argument == argument


def test_missing_dataframe_columns_are_named() -> None:
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query_id": ["q"], "doc": ["a"], "score": [1.0]})
    with pytest.raises(InvalidInputError, match=r"missing columns: 'doc_id' or 'docno' \(found"):
        evaluate({"q": {"a": 1}}, run, "AP")


@pytest.mark.parametrize(
    ("call", "argument", "match"),
    [
        (lambda: precision_at_k([1], [1.0], 0), "k", "cutoff >= 1"),
        (lambda: precision_at_k([1], [1.0], 2.5), "k", "integer rank cutoff"),
        (lambda: precision_at_k([1], [1.0], True), "k", "integer rank cutoff"),
        (lambda: precision_at_k([1, 2, 3], [1.0, 2.0, 3.0], 1), "y_true", "not binary"),
        (lambda: precision_at_k([1, 0], [1.0], 1), "y_score", "length mismatch"),
        (lambda: recall_at_k([1, 1], [1.0, 2.0], 1, n_relevant=1), "n_relevant", "below the 2"),
        (lambda: reciprocal_rank([1, 0], [1.0, 2.0], doc_ids=["a", "a"]), "doc_ids", "'a'"),
        (lambda: average_precision_at_k([1], [1.0], 1, denominator="k"), "denominator",
         "min_k_relevant"),
    ],
)
def test_single_ranking_errors(call: Any, argument: str, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as error:
        call()
    assert error.value.argument == argument


# -- the fast paths are exact ----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(data=collections())
def test_hash_collisions_fall_back_to_exact_codes(data: tuple[Judgments, Scores]) -> None:
    # With every id hashing alike, the result must not change.
    from prcurve.ranking import keys as _keys

    qrels, run = data
    expected = evaluate(qrels, run, ORACLE_MEASURES)
    original = _keys.id_keys
    _keys.id_keys = lambda ids: np.zeros(ids.shape[0], dtype=np.uint64)
    try:
        collided = evaluate(qrels, run, ORACLE_MEASURES)
        with pytest.raises(InvalidInputError, match="appears twice"):
            evaluate(qrels, (["1", "1"], ["a", "a"], [1.0, 2.0]), "AP")
    finally:
        _keys.id_keys = original
    np.testing.assert_array_equal(collided.query_ids, expected.query_ids)
    for name in ORACLE_MEASURES:
        np.testing.assert_array_equal(collided.per_query[name], expected.per_query[name])


@settings(max_examples=80, deadline=None)
@given(data=collections(), seed=st.integers(0, 2**16), dense=st.booleans(),
       depth=st.one_of(st.none(), st.integers(1, 8)), complete=st.booleans(),
       threads=st.integers(1, 3))
def test_row_orders_and_join_paths_match_oracle(
    data: tuple[Judgments, Scores], seed: int, dense: bool, depth: int | None, complete: bool,
    threads: int,
) -> None:
    # Rows shuffled, reversed or grouped with queries out of id order; the
    # dense join table (its lookups in groups of queries on ``threads`` threads)
    # or the sorted search of judged cells: one answer.
    import prcurve.core.sorting as sorting
    import prcurve.ranking.join as ranking

    qrels, run = data
    expected = oracle(qrels, run, depth=depth, complete=complete)
    if not expected:
        return
    rows = [(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    order = np.random.default_rng(seed).permutation(len(rows))
    if seed % 3 == 1:
        order = np.arange(len(rows))[::-1]
    columns = [np.array([rows[i][c] for i in order]) for c in range(3)]
    original, parallel = ranking._dense_cells_limit, sorting.MIN_PARALLEL
    ranking._dense_cells_limit = (lambda n: original(n)) if dense else (lambda n: 0)
    sorting.MIN_PARALLEL = 1 if threads > 1 else parallel
    sorting.set_sort_threads(threads)
    try:
        result = evaluate(qrels, tuple(columns), ORACLE_MEASURES, depth=depth,
                          queries_without_results="zero" if complete else "skip")
    finally:
        ranking._dense_cells_limit, sorting.MIN_PARALLEL = original, parallel
        sorting.set_sort_threads(None)
    assert_matches_oracle(result, expected)


def test_join_lookups_in_threads_equal_one_thread() -> None:
    """The dense join's lookups by groups of queries on 3 threads (computed first, into
    memory no earlier result left behind) equal one thread's, query by query."""
    import prcurve.core.sorting as sorting

    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 80, 300)
    q = np.repeat(np.arange(300), lengths)
    d = np.concatenate([rng.permutation(200)[:k] for k in lengths])
    s = rng.random(q.shape[0])
    judged = rng.random(q.shape[0]) < 0.5
    qrels = (q[judged], d[judged], rng.integers(0, 3, int(judged.sum())))
    measures = ["AP", "P@5", "ndcg", "bpref", "num_rel_ret"]
    parallel = sorting.MIN_PARALLEL
    sorting.MIN_PARALLEL = 1
    sorting.set_sort_threads(3)
    try:
        threaded = evaluate(qrels, (q, d, s), measures)
    finally:
        sorting.MIN_PARALLEL = parallel
        sorting.set_sort_threads(None)
    sorting.set_sort_threads(1)
    try:
        single = evaluate(qrels, (q, d, s), measures)
    finally:
        sorting.set_sort_threads(None)
    for name in measures:
        np.testing.assert_array_equal(threaded.per_query[name], single.per_query[name])


def test_large_and_negative_integer_ids() -> None:
    docs = np.array([-(2**62), 2**62, 7, -3])
    qrels = (np.array([5, 5, 9, 9]), docs, np.array([1, 0, 1, 1]))
    run = (np.array([5, 5, 9, 9, 9]), np.array([-(2**62), 2**62, 7, -3, 8]),
           np.array([0.1, 0.9, 0.5, 0.5, 0.7]))
    result = evaluate(qrels, run, ["AP", "RR"])
    assert result.query_ids.tolist() == [5, 9]
    assert result.per_query["AP"].tolist() == [0.5, (1 / 2 + 2 / 3) / 2]  # 9: 8, then 7 > -3
    with pytest.raises(InvalidInputError, match="appears twice"):
        evaluate(qrels, (np.array([5, 5]), np.array([2**62, 2**62]), np.array([1.0, 2.0])), "AP")


def test_unsorted_ragged_and_presorted_runs_agree() -> None:
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 60, 40)
    q = np.repeat(np.arange(40), lengths)
    d = np.concatenate([rng.permutation(80)[:k] for k in lengths])
    s = rng.integers(0, 6, q.shape[0]) / 2.0  # many ties
    qrels = (q[::3], d[::3], rng.integers(0, 3, q[::3].shape[0]))
    measures = ["AP", "P@5", "11pt", "bpref", "RR"]
    base = evaluate(qrels, (q, d, s), measures)
    ranked = np.lexsort((-d, -s, q))
    shuffled = rng.permutation(q.shape[0])
    for order in (ranked, shuffled, ranked[::-1]):
        other = evaluate(qrels, (q[order], d[order], s[order]), measures)
        for name in measures:
            np.testing.assert_array_equal(other.per_query[name], base.per_query[name])
    # Very ragged (100 one-document queries and one of 5000): the global-sort path.
    q = np.concatenate((np.arange(100), np.full(5000, 100)))
    d = np.arange(q.shape[0])
    s = rng.random(q.shape[0])
    qrels = (q[::7], d[::7], np.ones(q[::7].shape[0], dtype=int))
    ranked = np.lexsort((-d, -s, q))
    a = evaluate(qrels, (q, d, s), measures)
    b = evaluate(qrels, (q[ranked], d[ranked], s[ranked]), measures)
    for name in measures:
        np.testing.assert_array_equal(a.per_query[name], b.per_query[name])


def test_argsort_of_distinct_keys_packed_or_not() -> None:
    from prcurve.ranking.join import _argsort_distinct

    rng = np.random.default_rng(3)
    small = rng.permutation(1000).astype(np.int64) * 7
    large = np.array([2**62, 5, 2**61, 0])  # too wide to pack with a position
    for key in (small, large, np.zeros(0, dtype=np.int64)):
        assert _argsort_distinct(key).tolist() == np.argsort(key).tolist()

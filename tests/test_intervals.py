"""Confidence intervals: the resampled states against explicit states and a raw-data
bootstrap oracle, determinism, the Boyd–Eng–Page formulas, the paired comparison, and a
coverage simulation on a binormal model (marked slow)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats
from tests.strategies import FAST, scored

import prcurve
from prcurve import InvalidInputError, ThresholdCounts, UndefinedMetricWarning
from prcurve.core.average_precision import ap_batch, ap_from_counts
from prcurve.space.intervals import (
    _Cells,
    _draw_cells,
    _sample_cells,
    aucpr_interval,
    bootstrap_average_precision,
    bootstrap_curve,
    bootstrap_threshold,
    compare_average_precision,
    compare_pairs,
)


def explicit_state(state: _Cells, pos: np.ndarray, neg: np.ndarray) -> ThresholdCounts:
    """A real count state with the resampled cell counts: group k at score 3(G − k), the
    negatives between groups at 3(G − k) + 1, the tail at −1 (a slow, readable oracle)."""
    g = state.n_groups
    full = np.zeros(2 * g + 1, dtype=np.int64)
    kept = np.flatnonzero(np.diff(np.concatenate(([0], state.neg_through))))
    full[kept] = neg
    scores, pos_w, neg_w = [], [], []
    for k in range(g):
        scores += [3.0 * (g - k) + 1, 3.0 * (g - k)]
        pos_w += [0.0, float(pos[k])]
        neg_w += [float(full[2 * k]), float(full[2 * k + 1])]
    scores.append(-1.0)
    pos_w.append(0.0)
    neg_w.append(float(full[2 * g]))
    values = np.array(scores)[::-1]
    counts = ThresholdCounts._from_ascending(values, np.array(pos_w)[::-1], np.array(neg_w)[::-1])
    return ThresholdCounts(counts.thresholds, counts.tp, counts.fp,
                           float(state.n_pos), float(state.n_neg))


@FAST
@given(data=scored(labels="hard", weights="none", min_size=2), seed=st.integers(0, 2**32))
def test_batch_ap_equals_ap_of_the_explicit_resampled_state(data, seed: int) -> None:  # type: ignore[no-untyped-def]
    counts = ThresholdCounts.from_scores(data.y_true, data.y_score)
    if counts.n_pos == 0:
        return
    state = _Cells.from_counts(counts)
    rng = np.random.default_rng(seed)
    for lookup_pos, lookup_neg in ((None, None),
                                   (state.positive_lookup(5), state.negative_lookup(5))):
        pos = _draw_cells(rng, state.pos_counts, state.n_pos, 5, lookup_pos)
        neg = _draw_cells(rng, state.neg_counts, state.n_neg, 5, lookup_neg)
        assert (pos.sum(axis=1) == state.n_pos).all()
        assert (neg.sum(axis=1) == state.n_neg).all()
        for method in prcurve.AP_METHODS:
            batch = ap_batch(method, *state.batch(pos, neg), float(state.n_pos))
            for row in range(5):
                expected = ap_from_counts(explicit_state(state, pos[row], neg[row]), method)
                assert batch[row] == pytest.approx(expected, rel=1e-12, abs=1e-15), method
    # The identity "resample" (every sample once) is the original AP.
    for method in prcurve.AP_METHODS:
        same = ap_batch(method, *state.batch(state.pos_counts[None], state.neg_counts[None]),
                        float(state.n_pos))[0]
        assert same == pytest.approx(ap_from_counts(counts, method), rel=1e-12, abs=1e-15)


def test_sample_cells_map_every_sample_to_its_cell() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.3
    s = np.round(rng.normal(size=300) + y, 1)  # many ties, shared by both classes
    counts = ThresholdCounts.from_scores(y, s)
    state = _Cells.from_counts(counts)
    pos_cell, neg_cell = _sample_cells(counts, s, y)
    np.testing.assert_array_equal(np.bincount(pos_cell, minlength=state.pos_counts.shape[0]),
                                  state.pos_counts)
    np.testing.assert_array_equal(np.bincount(neg_cell, minlength=state.neg_counts.shape[0]),
                                  state.neg_counts)


def raw_bootstrap(y: np.ndarray, s: np.ndarray, method: str, n: int, seed: int) -> np.ndarray:
    """The textbook stratified bootstrap: resample the raw samples of each class, sort anew."""
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    out = np.empty(n)
    for b in range(n):
        pick = np.concatenate((rng.choice(pos, pos.size), rng.choice(neg, neg.size)))
        out[b] = prcurve.average_precision(y[pick], s[pick], method=method)
    return out


@pytest.mark.parametrize("method", ["step", "davis_goadrich", "11point"])
@pytest.mark.parametrize("tied", [False, True])
def test_bootstrap_distribution_matches_raw_resampling(method: str, tied: bool) -> None:
    rng = np.random.default_rng(5)
    y = rng.random(150) < 0.3
    s = rng.normal(size=150) + y
    if tied:
        s = np.round(s * 2) / 2
    curve = prcurve.pr_curve(y, s)
    state = _Cells.from_counts(curve.counts)
    draws = np.random.default_rng(1)
    ours = np.concatenate([
        ap_batch(method, *state.batch(
            _draw_cells(draws, state.pos_counts, state.n_pos, 100, state.positive_lookup(100)),
            _draw_cells(draws, state.neg_counts, state.n_neg, 100, state.negative_lookup(100))),
            float(state.n_pos))
        for _ in range(20)
    ])
    oracle = raw_bootstrap(y, s, method, 2000, seed=2)
    # Same distribution: means within 4 standard errors, standard deviations within 10%.
    se = oracle.std() / math.sqrt(2000) * math.sqrt(2)
    assert abs(ours.mean() - oracle.mean()) < 4 * se
    assert ours.std() == pytest.approx(oracle.std(), rel=0.1)
    assert stats.ks_2samp(ours, oracle).pvalue > 0.001


def test_multinomial_and_index_draws_agree_in_distribution() -> None:
    counts = np.array([5, 1, 30, 2, 12], dtype=np.int64)
    total = int(counts.sum())
    rng = np.random.default_rng(3)
    lookup = np.repeat(np.arange(5, dtype=np.int32), counts)
    by_index = _draw_cells(rng, counts, total, 20000, lookup)
    by_multinomial = _draw_cells(rng, counts, total, 20000, None)
    np.testing.assert_allclose(by_index.mean(axis=0), counts, rtol=0.02)
    np.testing.assert_allclose(by_multinomial.mean(axis=0), counts, rtol=0.02)
    # Multinomial variance n p (1 − p).
    p = counts / total
    np.testing.assert_allclose(by_index.var(axis=0), total * p * (1 - p), rtol=0.06)
    np.testing.assert_allclose(by_multinomial.var(axis=0), total * p * (1 - p), rtol=0.06)


def _curve(n: int = 3000, seed: int = 0, tied: bool = False) -> prcurve.PRCurve:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    s = rng.normal(size=n) + 1.5 * y
    return prcurve.pr_curve(y, np.round(s, 1) if tied else s)


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_bootstrap_interval_reports_and_contains(method: str) -> None:
    curve = _curve(tied=method == "interpolated")
    ci = bootstrap_average_precision(curve, method=method, n_resamples=300, level=0.9, seed=7)
    assert (ci.method, ci.level, ci.n_resamples) == ("percentile bootstrap (stratified)", 0.9, 300)
    assert ci.statistic == f"average_precision[{method}]"
    assert ci.estimate == curve.average_precision(method)
    assert ci.lower < ci.estimate < ci.upper
    assert ci.upper - ci.lower < 0.1


def test_bootstrap_is_seeded_and_thread_independent() -> None:
    curve = _curve()
    a = bootstrap_average_precision(curve, n_resamples=200, seed=11, n_threads=1)
    b = bootstrap_average_precision(curve, n_resamples=200, seed=11, n_threads=2)
    c = bootstrap_average_precision(curve, n_resamples=200, seed=np.random.SeedSequence(11))
    assert a == b
    assert (a.lower, a.upper) != (c.lower, c.upper) or a == c  # a SeedSequence is accepted
    d = bootstrap_average_precision(curve, n_resamples=200, seed=12)
    assert (a.lower, a.upper) != (d.lower, d.upper)
    large = _curve(n=1_200_000, seed=1)  # one resample per chunk: many chunks, many threads
    e = bootstrap_average_precision(large, n_resamples=6, seed=3, n_threads=1)
    f = bootstrap_average_precision(large, n_resamples=6, seed=3, n_threads=3)
    assert e == f


def whole_chunk_resamples(curve: prcurve.PRCurve, method: str, n: int, seed: int) -> np.ndarray:
    """Every resample's AP with each chunk's draws counted and measured whole (the way
    before issue 26's blocks of rows): the same seeds, draws and statistic."""
    from prcurve.space import intervals

    state = _Cells.from_counts(curve.counts)
    rng = np.random.default_rng(seed)
    sizes = intervals._chunk_plan(state, n)
    seeds = rng.integers(0, 2**63 - 1, size=len(sizes), dtype=np.int64)
    lookups = [None if intervals._use_multinomial(c.shape[0], t) else intervals._lookup(
        c, sizes[0]) for c, t in ((state.pos_counts, state.n_pos),
                                  (state.neg_counts, state.n_neg))]
    values = []
    for size, chunk_seed in zip(sizes, seeds, strict=True):
        chunk = np.random.default_rng(int(chunk_seed))
        pos = _draw_cells(chunk, state.pos_counts, state.n_pos, size, lookups[0])
        neg = _draw_cells(chunk, state.neg_counts, state.n_neg, size, lookups[1])
        values.append(ap_batch(method, *state.batch(pos, neg), float(state.n_pos)))
    return np.concatenate(values)


@FAST
@given(data=scored(labels="hard", weights="none", min_size=2), seed=st.integers(0, 2**32),
       block=st.sampled_from([1, 3, 1 << 12, 1 << 40]),
       method=st.sampled_from(["step", "davis_goadrich", "interpolated"]))
def test_blocks_of_rows_give_the_numbers_of_whole_chunks(  # type: ignore[no-untyped-def]
        data, seed: int, block: int, method: str) -> None:
    from unittest import mock

    from prcurve.space import intervals

    curve = prcurve.pr_curve(data.y_true, data.y_score)
    state = _Cells.from_counts(curve.counts)
    if state.n_pos == 0:
        return
    expected = whole_chunk_resamples(curve, method, 40, seed)
    with mock.patch.object(intervals, "_BLOCK_CELLS", block):
        got = intervals._map_resamples(
            state, 40, np.random.default_rng(seed),
            lambda pos, neg: ap_batch(method, *state.batch(pos, neg), float(state.n_pos)), 1)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("rows", "decimals"), [(12_000, 6), (12_000, 1), (5_000, 3)])
def test_report_bootstrap_keeps_the_numbers_of_whole_chunks(rows: int, decimals: int) -> None:
    # Several chunks of many rows each (the 10^4-row report's case), distinct or tied
    # scores: the interval is the percentile interval of the whole-chunk resamples.
    from prcurve.space.intervals import _percentiles

    rng = np.random.default_rng(rows + decimals)
    y = rng.random(rows) < 0.3
    curve = prcurve.pr_curve(y, np.round(rng.normal(y * 1.0, 1.0), decimals))
    ci = bootstrap_average_precision(curve, n_resamples=300, seed=0, n_threads=2)
    assert (ci.lower, ci.upper) == _percentiles(whole_chunk_resamples(curve, "step", 300, 0),
                                                0.95)


def test_bootstrap_accepts_counts_and_binned_curves() -> None:
    curve = _curve(tied=True)
    from_counts = bootstrap_average_precision(curve.counts, n_resamples=50, seed=0)
    from_curve = bootstrap_average_precision(curve, n_resamples=50, seed=0)
    assert from_counts == from_curve
    rng = np.random.default_rng(2)
    y = rng.random(500) < 0.4
    binned = prcurve.pr_curve(y, rng.random(500) + y, bins=10)
    ci = bootstrap_average_precision(binned, n_resamples=100, seed=0)
    assert ci.lower <= ci.estimate <= ci.upper


def test_bootstrap_threshold_matches_binomial_oracle() -> None:
    curve = _curve(tied=True)
    t = 1.0
    point = curve.at_threshold(t)
    ci = bootstrap_threshold(curve, t, n_resamples=4000, seed=0)
    assert ci.precision.estimate == point.precision
    assert ci.recall.estimate == point.recall
    # Recall's resampled count is Binomial(P, r): its percentile interval is the binomial one.
    lo, hi = stats.binom.ppf([0.025, 0.975], curve.n_pos, point.recall) / curve.n_pos
    assert ci.recall.lower == pytest.approx(lo, abs=2 / curve.n_pos)
    assert ci.recall.upper == pytest.approx(hi, abs=2 / curve.n_pos)
    assert ci.precision.lower < point.precision < ci.precision.upper


def test_bootstrap_threshold_above_every_score_is_undefined() -> None:
    curve = _curve(n=200)
    with pytest.warns(UndefinedMetricWarning):
        ci = bootstrap_threshold(curve, 100.0, n_resamples=20, seed=0)
    assert math.isnan(ci.precision.estimate)
    assert ci.recall.estimate == 0.0


def test_bootstrap_curve_band() -> None:
    curve = _curve(tied=True)
    band = bootstrap_curve(curve, n_resamples=200, seed=0)
    np.testing.assert_array_equal(band.estimate, curve.interpolated_precision(band.recall))
    assert band.recall.shape == (101,)
    assert (band.lower <= band.upper).all()
    inside = (band.lower <= band.estimate) & (band.estimate <= band.upper)
    assert inside.mean() > 0.95
    assert band.n_resamples == 200


def test_aucpr_intervals_formulas() -> None:
    curve = _curve()
    theta = curve.average_precision("davis_goadrich")
    n = curve.n_pos
    z = stats.norm.ppf(0.975)
    binomial = aucpr_interval(curve, interval="binomial")
    assert (binomial.method, binomial.n_resamples, binomial.level) == ("binomial", 0, 0.95)
    half = z * math.sqrt(theta * (1 - theta) / n)
    assert binomial.lower == pytest.approx(theta - half, rel=1e-12)
    assert binomial.upper == pytest.approx(theta + half, rel=1e-12)
    logit = aucpr_interval(curve, level=0.9)
    eta = math.log(theta / (1 - theta))
    tau = (n * theta * (1 - theta)) ** -0.5
    z90 = stats.norm.ppf(0.95)
    assert logit.lower == pytest.approx(stats.logistic.cdf(eta - z90 * tau), rel=1e-12)
    assert logit.upper == pytest.approx(stats.logistic.cdf(eta + z90 * tau), rel=1e-12)
    assert logit.method == "logit"
    # The logit interval is asymmetric and inside (0, 1).
    assert 0 < logit.lower < theta < logit.upper < 1


def test_aucpr_interval_degenerate_estimates() -> None:
    perfect = prcurve.pr_curve([1, 1, 0], [3, 2, 1])
    binomial = aucpr_interval(perfect, interval="binomial")
    assert (binomial.lower, binomial.upper) == (1.0, 1.0)
    with pytest.warns(UndefinedMetricWarning):
        logit = aucpr_interval(perfect)
    assert math.isnan(logit.lower)


def test_paired_comparison() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(800) < 0.25
    good = rng.normal(size=800) + 2 * y
    weak = rng.normal(size=800) + 0.3 * y
    ab = compare_average_precision(y, good, weak, n_resamples=400, seed=3)
    ba = compare_average_precision(y, weak, good, n_resamples=400, seed=3)
    assert ab.estimate_a == prcurve.average_precision(y, good)
    assert ab.difference.estimate == pytest.approx(ab.estimate_a - ab.estimate_b)
    assert ab.difference.lower > 0
    assert ab.p_value < 0.01
    assert ab.difference.method == "paired percentile bootstrap (stratified)"
    # Same draws, models swapped: the differences change sign exactly.
    assert ba.difference.lower == pytest.approx(-ab.difference.upper, abs=1e-12)
    assert ba.p_value == ab.p_value
    same = compare_average_precision(y, good, good, n_resamples=100, seed=0)
    assert (same.difference.lower, same.difference.upper, same.p_value) == (0.0, 0.0, 1.0)
    # A monotone transform of the scores changes no AP: a difference of exactly 0.
    transformed = compare_average_precision(y, good, np.exp(good), n_resamples=50, seed=0)
    assert transformed.difference.upper == 0.0


def test_paired_comparison_matches_raw_paired_bootstrap() -> None:
    rng = np.random.default_rng(1)
    y = rng.random(120) < 0.4
    a = np.round(rng.normal(size=120) + y, 1)
    b = np.round(rng.normal(size=120) + 0.5 * y, 1)
    ours = compare_average_precision(y, a, b, n_resamples=3000, seed=0)
    draws = np.random.default_rng(9)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    deltas = []
    for _ in range(1500):
        pick = np.concatenate((draws.choice(pos, pos.size), draws.choice(neg, neg.size)))
        deltas.append(prcurve.average_precision(y[pick], a[pick])
                      - prcurve.average_precision(y[pick], b[pick]))
    low, high = np.quantile(deltas, [0.025, 0.975])
    assert ours.difference.lower == pytest.approx(low, abs=0.02)
    assert ours.difference.upper == pytest.approx(high, abs=0.02)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda c: bootstrap_average_precision(c, n_resamples=0), "n_resamples"),
        (lambda c: bootstrap_average_precision(c, level=1.0), "level"),
        (lambda c: bootstrap_average_precision(c, seed=-1), "seed"),
        (lambda c: bootstrap_average_precision(c, seed="x"), "seed"),
        (lambda c: bootstrap_average_precision(c, method="auc"), "method"),
        (lambda c: bootstrap_average_precision(c, n_threads=0), "n_threads"),
        (lambda c: bootstrap_average_precision([1, 2]), "source"),
        (lambda c: bootstrap_curve(c, [0.5, 0.2]), "recall"),
        (lambda c: bootstrap_threshold(c, float("nan")), "threshold"),
        (lambda c: aucpr_interval(c, interval="wald"), "interval"),
        (lambda c: bootstrap_average_precision(
            prcurve.pr_curve([1, 0, 1], [3, 2, 1], sample_weight=[0.5, 1, 1])), "counts"),
        (lambda c: compare_average_precision([0.5, 1, 0], [1, 2, 3], [3, 2, 1]), "y_true"),
        (lambda c: compare_average_precision([0, 1, 0], [1, 2, 3], [3, 2]), "y_score_b"),
    ],
)
def test_bad_input(call, argument: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError) as info:
        call(_curve(n=100))
    assert info.value.argument == argument


# -- coverage on a known model --------------------------------------------------------------------


def binormal_aucpr(mu: float, prevalence: float) -> float:
    """True area under the PR curve of negatives N(0, 1) and positives N(mu, 1)."""

    def precision_density(t: float) -> float:
        tpr, fpr = stats.norm.sf(t - mu), stats.norm.sf(t)
        precision = prevalence * tpr / (prevalence * tpr + (1 - prevalence) * fpr)
        return float(precision * stats.norm.pdf(t - mu))

    value, _ = integrate.quad(precision_density, -12.0, 12.0 + mu, limit=500, epsabs=1e-13)
    return float(value)


@pytest.mark.slow
def test_coverage_of_95_percent_intervals_on_a_binormal_model() -> None:
    # 500 positives N(1.5, 1) and 2000 negatives N(0, 1); 300 repetitions, fixed seed.
    mu, n_pos, n_neg, repetitions = 1.5, 500, 2000, 300
    truth = binormal_aucpr(mu, n_pos / (n_pos + n_neg))
    rng = np.random.default_rng(2024)
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    covered = {"bootstrap step": 0, "bootstrap davis_goadrich": 0, "logit": 0, "binomial": 0}
    for r in range(repetitions):
        curve = prcurve.pr_curve(y, np.r_[rng.normal(mu, 1, n_pos), rng.normal(0, 1, n_neg)])
        intervals = {
            "bootstrap step": bootstrap_average_precision(curve, n_resamples=200, seed=r),
            "bootstrap davis_goadrich": bootstrap_average_precision(
                curve, method="davis_goadrich", n_resamples=200, seed=r),
            "logit": aucpr_interval(curve, method="step"),
            "binomial": aucpr_interval(curve, interval="binomial", method="step"),
        }
        for name, ci in intervals.items():
            covered[name] += ci.lower <= truth <= ci.upper
    rates = {name: count / repetitions for name, count in covered.items()}
    for name, rate in rates.items():
        assert 0.90 <= rate <= 0.99, (name, rate)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compare_pairs_equals_the_paired_bootstrap_redone_sample_by_sample(seed: int) -> None:
    """compare_pairs (one set of draws for every pair and method) against an oracle that
    redraws the same sample indices (the same generator calls, in the same order) and
    computes each resample's APs from the resampled samples by prcurve.average_precision,
    a path that shares nothing with the resampled cells."""
    rng = np.random.default_rng(seed)
    n, b = 90, 40
    y = rng.random(n) < 0.35
    scores = {m: np.round(rng.normal(size=n) + k * y, 1) for k, m in enumerate("abc")}
    pairs = [("a", "b"), ("c", "a"), ("b", "c")]
    methods = ("step", "davis_goadrich")
    rows = compare_pairs(y, scores, pairs, methods=methods, n_resamples=b, seed=seed)
    draws = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    pick = np.concatenate((pos[draws.integers(0, pos.size, size=(b, pos.size))],
                           neg[draws.integers(0, neg.size, size=(b, neg.size))]), axis=1)
    for row, (method, (a, c)) in zip(rows, [(m, p) for m in methods for p in pairs],
                                      strict=True):
        delta = np.array([prcurve.average_precision(y[k], scores[a][k], method=method)
                          - prcurve.average_precision(y[k], scores[c][k], method=method)
                          for k in pick])
        low, high = np.quantile(delta, [0.025, 0.975])
        assert row.estimate_a == prcurve.average_precision(y, scores[a], method=method)
        assert (row.difference.lower, row.difference.upper) == pytest.approx((low, high),
                                                                             abs=1e-12)
        below, above = (delta <= 1e-12).sum() + 1, (delta >= -1e-12).sum() + 1
        assert row.p_value == min(1.0, 2 * min(below, above) / (b + 1))
        alone = compare_average_precision(y, scores[a], scores[c], method=method,
                                          n_resamples=b, seed=seed)
        assert row == alone

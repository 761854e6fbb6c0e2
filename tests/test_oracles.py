"""prcurve against the slow reference implementations of tests/oracles.py.

The oracles are first checked on small examples worked by hand, then every
count state and AP method of prcurve is compared with them on
Hypothesis-generated data: hard and soft labels, tied and continuous scores,
no weights, integer weights and float weights (zeros included).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from numpy.testing import assert_allclose, assert_array_equal
from tests import oracles
from tests.strategies import SLOW, CountState, Scored, bin_edges, count_states, scored

import prcurve

# Davis–Goadrich is compared with a numerical integral: quadrature and the closed
# form (log1p) agree to about 1e-14; the rest are sums of the same terms in another order.
AP_TOL = {name: {"rtol": 1e-12, "atol": 1e-12} for name in prcurve.AP_METHODS}
AP_TOL["davis_goadrich"] = {"rtol": 1e-9, "atol": 1e-9}


def assert_counts_equal(actual: list[float] | np.ndarray, expected: list[float],
                        exact: bool, total: float) -> None:
    """Equal bit for bit when the data's sums are exact, else to float64 rounding."""
    if exact:
        assert_array_equal(actual, expected)
    else:
        assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * max(total, 1.0))


# -- the oracles on hand-worked examples ------------------------------------------------------


def test_oracle_counts_by_hand() -> None:
    counts = oracles.threshold_counts([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    assert counts.thresholds == [0.9, 0.8, 0.1]
    assert counts.tp == [1.0, 2.0, 2.0]
    assert counts.fp == [0.0, 1.0, 2.0]
    assert (counts.n_pos, counts.n_neg) == (2.0, 2.0)
    # Soft labels: 4 * 0.25 + 1 * 1 positive, 4 * 0.75 negative; zero weight drops 0.1.
    soft = oracles.threshold_counts([0.25, 1.0, 1.0], [0.5, 0.5, 0.1], [4.0, 1.0, 0.0])
    assert (soft.thresholds, soft.tp, soft.fp) == ([0.5], [2.0], [3.0])


def test_oracle_binning_by_hand() -> None:
    pos, neg = oracles.binned_counts(
        [1, 1, 1, 1, 0], [-3.0, 0.0, 0.5, 1.0, 9.0], [0.0, 0.5, 1.0]
    )
    assert pos == [2.0, 2.0]  # -3 and 0 in bin 0; 0.5 and the closed upper edge 1.0 in bin 1
    assert neg == [0.0, 1.0]  # 9 is above the last edge: last bin


def test_oracle_ap_by_hand_seed_003() -> None:
    # Seed 003's ranking: airplane (1) or goose (0) from the top; P = 5.
    ranking = [1, 1, 0, 1, 0, 1, 0, 0, 0, 1]
    points = [(float(sum(ranking[:k])), float(k - sum(ranking[:k]))) for k in range(1, 11)]
    step = 0.2 * (1 + 1 + 3 / 4 + 4 / 6 + 5 / 10)
    assert_allclose(oracles.ap_step(points, 5.0), step, rtol=1e-15)
    # The precisions at the recall steps decrease, so interpolation changes nothing.
    assert_allclose(oracles.ap_interpolated(points, 5.0), step, rtol=1e-15)
    # Levels 0..0.4 -> 1, 0.5 and 0.6 -> 3/4, 0.7 and 0.8 -> 2/3, 0.9 and 1 -> 1/2.
    eleven = (5 * 1 + 2 * 3 / 4 + 2 * 2 / 3 + 2 * 1 / 2) / 11
    assert_allclose(oracles.ap_11point(points, 5.0), eleven, rtol=1e-15)


def test_oracle_ap_by_hand_small() -> None:
    # (tp, fp): a positive, a negative, a positive. P = 2.
    points = [(1.0, 0.0), (1.0, 1.0), (2.0, 1.0)]
    # Curve (r, p): start (0, 1), (1/2, 1), (1/2, 1/2), (1, 2/3).
    assert_allclose(oracles.ap_step(points, 2.0), 0.5 + 0.5 * 2 / 3, rtol=1e-15)
    assert_allclose(oracles.ap_interpolated(points, 2.0), 0.5 + 0.5 * 2 / 3, rtol=1e-15)
    assert_allclose(oracles.ap_trapezoid(points, 2.0), 0.5 + 0.5 * (1 / 2 + 2 / 3) / 2,
                    rtol=1e-15)
    assert_allclose(oracles.ap_11point(points, 2.0), (6 * 1 + 5 * 2 / 3) / 11, rtol=1e-15)
    assert_allclose(oracles.ap_101point(points, 2.0), (51 * 1 + 50 * 2 / 3) / 101, rtol=1e-15)
    # Davis–Goadrich: the second segment runs from (1, 1) to (2, 1): precision
    # (1 + x) / (2 + x), whose integral over [0, 1] is 1 - ln(3/2).
    assert_allclose(oracles.ap_davis_goadrich(points, 2.0), (1 + 1 - math.log(1.5)) / 2,
                    rtol=1e-14)


def test_oracle_davis_goadrich_by_hand() -> None:
    # From (1, 0) to (2, 1): integral of (1 + x) / (1 + 2x) over [0, 1] = 1/2 + ln(3)/4.
    points = [(1.0, 0.0), (2.0, 1.0)]
    assert_allclose(oracles.ap_davis_goadrich(points, 2.0), (1 + 0.5 + math.log(3) / 4) / 2,
                    rtol=1e-14)
    # A pole close to the segment: from (1, 0) to (101, 10000), precision
    # (1 + x) / (1 + 101 x), whose integral over [0, 100] is (100 + 100/101 ln(10101)) / 101.
    points = [(1.0, 0.0), (101.0, 10000.0)]
    expected = (1.0 + (100 + 100 / 101 * math.log(10101)) / 101) / 101
    assert_allclose(oracles.ap_davis_goadrich(points, 101.0), expected, rtol=1e-13)
    # A first threshold holding only negatives adds no area; precision 0 there.
    points = [(0.0, 2.0), (1.0, 2.0)]
    # (x) / (2 + x) over [0, 1]: 1 - 2 ln(3/2).
    assert_allclose(oracles.ap_davis_goadrich(points, 1.0), 1 - 2 * math.log(1.5), rtol=1e-14)


# -- counts ----------------------------------------------------------------------------------


@SLOW
@given(data=scored())
def test_threshold_counts_match_oracle(data: Scored) -> None:
    counts = prcurve.ThresholdCounts.from_scores(
        data.y_true, data.y_score, sample_weight=data.sample_weight
    )
    expected = oracles.threshold_counts(data.y_true, data.y_score, data.sample_weight)
    total = expected.n_pos + expected.n_neg
    assert_array_equal(counts.thresholds, expected.thresholds)
    assert_counts_equal(counts.tp, expected.tp, data.exact, total)
    assert_counts_equal(counts.fp, expected.fp, data.exact, total)
    assert_counts_equal([counts.n_pos, counts.n_neg], [expected.n_pos, expected.n_neg],
                        data.exact, total)


@SLOW
@given(data=scored(), edges=bin_edges())
def test_binned_counts_match_oracle(data: Scored, edges: np.ndarray) -> None:
    binned = prcurve.BinnedCounts.from_scores(
        data.y_true, data.y_score, edges, sample_weight=data.sample_weight
    )
    pos, neg = oracles.binned_counts(data.y_true, data.y_score, edges, data.sample_weight)
    total = math.fsum(pos) + math.fsum(neg)
    assert_array_equal(binned.edges, edges)
    assert_counts_equal(binned.pos, pos, data.exact, total)
    assert_counts_equal(binned.neg, neg, data.exact, total)


@SLOW
@given(data=scored(scores="tied"), edges=bin_edges())
def test_binned_curve_is_exact_curve_at_inner_edges(data: Scored, edges: np.ndarray) -> None:
    """Each binned threshold e_j (j >= 1) has the exact counts of score >= e_j;
    the lowest bin's threshold counts everything."""
    binned = prcurve.BinnedCounts.from_scores(
        data.y_true, data.y_score, edges, sample_weight=data.sample_weight
    )
    curve = prcurve.PRCurve.from_counts(binned)
    assert curve.is_binned
    labels, scores, weights = data.y_true.astype(float), data.y_score, data.weights
    total = float(weights.sum())
    for threshold, tp, fp in zip(curve.thresholds, curve.tp, curve.fp, strict=True):
        assert threshold in edges[:-1]
        # The lowest bin also holds the scores below its lower edge.
        at_or_above = np.full(data.n, True) if threshold == edges[0] else scores >= threshold
        expected_tp = math.fsum(weights[at_or_above] * labels[at_or_above])
        expected_fp = math.fsum(weights[at_or_above] * (1.0 - labels[at_or_above]))
        assert_counts_equal([tp, fp], [expected_tp, expected_fp], data.exact, total)


# -- average precision ----------------------------------------------------------------------


def _oracle_ap(data: Scored, method: str) -> float:
    """The oracle AP of the data.

    On exact data the operating points come from the counting oracle, so the whole
    chain is independent of prcurve. On float-weighted data they come from prcurve's
    counts (checked against the oracle above): a recall level such as 1/10 can sit
    one rounding error away from a recall, and the recall-level methods jump there.
    """
    if data.exact:
        counts = oracles.threshold_counts(data.y_true, data.y_score, data.sample_weight)
        return oracles.AP_ORACLES[method](oracles.operating_points(counts), counts.n_pos)
    state = prcurve.ThresholdCounts.from_scores(
        data.y_true, data.y_score, sample_weight=data.sample_weight
    )
    points = list(zip(state.tp.tolist(), state.fp.tolist(), strict=True))
    return oracles.AP_ORACLES[method](points, state.n_pos)


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
@SLOW
@given(data=scored())
def test_average_precision_matches_oracle(method: str, data: Scored) -> None:
    kwargs = {"method": method, "sample_weight": data.sample_weight}
    if data.positive_weight == 0:
        with pytest.warns(prcurve.UndefinedMetricWarning):
            value = prcurve.average_precision(data.y_true, data.y_score, **kwargs)
        assert np.isnan(value)
        return
    expected = _oracle_ap(data, method)
    value = prcurve.average_precision(data.y_true, data.y_score, **kwargs)
    assert_allclose(value, expected, **AP_TOL[method])
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight)
    assert_allclose(curve.average_precision(method), expected, **AP_TOL[method])


@pytest.mark.parametrize(("tiny", "reaches_one"), [(1e-11, True), (1e-8, False)])
def test_recall_levels_are_reached_within_the_documented_tolerance(
    tiny: float, reaches_one: bool,
) -> None:
    """A positive share below 1e-10 of the positive weight (docs/definitions.md, "Sums of
    weights") leaves the recall = 1 level reached; above it, the level is missed. Found by
    the oracle test above with a soft label of 1e-10."""
    y_true = np.zeros(40)
    y_true[1], y_true[30] = 1.0, tiny
    y_score = np.zeros(40)
    y_score[1] = 1.0
    state = prcurve.ThresholdCounts.from_scores(y_true, y_score)
    points = list(zip(state.tp.tolist(), state.fp.tolist(), strict=True))
    for method in ("11point", "101point"):
        value = prcurve.average_precision(y_true, y_score, method=method)
        assert value == pytest.approx(oracles.AP_ORACLES[method](points, state.n_pos), abs=1e-15)
        assert (value == 1.0) == reaches_one


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
@SLOW
@given(data=scored(labels="hard", weights="none"))
def test_fast_path_equals_weighted_path(method: str, data: Scored) -> None:
    """Hard unweighted labels take a path that never builds the full state; unit
    weights force the general one. Both count integers, so they agree exactly."""
    ones = np.ones(data.n)
    if data.positive_weight == 0:
        for weights in (None, ones):
            with pytest.warns(prcurve.UndefinedMetricWarning):
                value = prcurve.average_precision(
                    data.y_true, data.y_score, method=method, sample_weight=weights
                )
            assert np.isnan(value)
        return
    fast = prcurve.average_precision(data.y_true, data.y_score, method=method)
    weighted = prcurve.average_precision(
        data.y_true, data.y_score, method=method, sample_weight=ones
    )
    assert fast == weighted
    assert_allclose(fast, _oracle_ap(data, method), **AP_TOL[method])


# -- count states built directly (truncated rankings) ----------------------------------------


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
@SLOW
@given(state=count_states())
def test_average_precision_of_a_built_state_matches_oracle(method: str, state: CountState) -> None:
    """A state built from counts, possibly with positive weight below every threshold
    (recall never reaches 1), gets every AP method from its operating points."""
    counts = prcurve.ThresholdCounts(state.thresholds, state.tp, state.fp, state.n_pos,
                                     state.n_neg)
    curve = prcurve.PRCurve.from_counts(counts)
    if state.n_pos == 0:
        with pytest.warns(prcurve.UndefinedMetricWarning):
            assert np.isnan(curve.average_precision(method))
        return
    points = list(zip(state.tp.tolist(), state.fp.tolist(), strict=True))
    expected = oracles.AP_ORACLES[method](points, state.n_pos) if points else 0.0
    assert_allclose(curve.average_precision(method), expected, **AP_TOL[method])


@SLOW
@given(state=count_states(), edges=bin_edges())
def test_to_binned_of_a_built_state_matches_oracle(state: CountState, edges: np.ndarray) -> None:
    """Each row's weight is binned at its threshold; weight below every threshold
    goes to the lowest bin."""
    counts = prcurve.ThresholdCounts(state.thresholds, state.tp, state.fp, state.n_pos,
                                     state.n_neg)
    below = min([float(edges[0]), *state.thresholds.tolist()]) - 1.0
    scores = [*state.thresholds.tolist(), *state.thresholds.tolist(), below, below]
    labels = [1.0] * len(state.thresholds) + [0.0] * len(state.thresholds) + [1.0, 0.0]
    weights = [*state.pos.tolist(), *state.neg.tolist(), state.pos_below, state.neg_below]
    pos, neg = oracles.binned_counts(labels, scores, edges, weights)
    binned = counts.to_binned(edges)
    assert_array_equal(binned.pos, pos)
    assert_array_equal(binned.neg, neg)

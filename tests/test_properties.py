"""Hypothesis properties of the count states, the curve and every AP method.

Invariances: sample order, merging (commutative, associative, with an
identity), binning after or before counting, streaming in batches, integer
weights as repeated samples, zero weights as removed samples, and strictly
increasing transforms of the scores. Bounds: AP in [0, 1], interpolated AP at
least the step AP, and AP 1 for a perfect ranking.

Where the data's weighted sums are exact in float64 (``Scored.exact``: integer
weights, dyadic labels) the results must agree bit for bit; with float weights,
to float64 rounding (1e-12 relative).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from tests.strategies import FAST, Scored, bin_edges, scored

import prcurve
from prcurve import BinnedCounts, ThresholdCounts


def assert_same(
    actual: object, expected: object, exact: bool, scale: float = 1.0, err_msg: str = ""
) -> None:
    """Bit for bit when ``exact``, else to 1e-12 relative to ``scale`` (the total weight)."""
    if exact:
        assert_array_equal(actual, expected, err_msg=err_msg)
    else:
        assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * max(scale, 1.0),
                        err_msg=err_msg)


def assert_same_counts(a: ThresholdCounts, b: ThresholdCounts, exact: bool) -> None:
    scale = max(a.n_pos + a.n_neg, b.n_pos + b.n_neg)
    assert_array_equal(a.thresholds, b.thresholds)
    assert_same(a.tp, b.tp, exact, scale)
    assert_same(a.fp, b.fp, exact, scale)
    assert_same([a.n_pos, a.n_neg], [b.n_pos, b.n_neg], exact, scale)


def counts_of(data: Scored) -> ThresholdCounts:
    return ThresholdCounts.from_scores(data.y_true, data.y_score, sample_weight=data.sample_weight)


def all_aps(data: Scored) -> dict[str, float]:
    """Every AP method; 0 when there is no positive weight (checked elsewhere)."""
    return {
        method: prcurve.average_precision(
            data.y_true, data.y_score, method=method, sample_weight=data.sample_weight,
            zero_division=0,
        )
        for method in prcurve.AP_METHODS
    }


def assert_same_aps(a: dict[str, float], b: dict[str, float], exact: bool) -> None:
    for method in prcurve.AP_METHODS:
        assert_same(a[method], b[method], exact, err_msg=method)


def concat(*parts: Scored) -> Scored:
    def weights(part: Scored) -> np.ndarray:
        return np.ones(part.n) if part.sample_weight is None else part.sample_weight

    weighted = any(part.sample_weight is not None for part in parts)
    return Scored(
        np.concatenate([part.y_true.astype(np.float64) for part in parts]),
        np.concatenate([part.y_score for part in parts]),
        np.concatenate([weights(part) for part in parts]) if weighted else None,
        all(part.exact for part in parts),
    )


# -- sample order ---------------------------------------------------------------------------


@FAST
@given(data=scored(), draw=st.data())
def test_sample_order_changes_nothing(data: Scored, draw: st.DataObject) -> None:
    permutation = np.array(draw.draw(st.permutations(range(data.n))), dtype=np.intp)
    shuffled = data.take(permutation)
    assert_same_counts(counts_of(shuffled), counts_of(data), data.exact)
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    shuffled_curve = prcurve.pr_curve(shuffled.y_true, shuffled.y_score,
                                      sample_weight=shuffled.sample_weight, zero_division=0)
    assert_same(shuffled_curve.precision, curve.precision, data.exact)
    assert_same(shuffled_curve.recall, curve.recall, data.exact)
    assert_same_aps(all_aps(shuffled), all_aps(data), data.exact)


# -- merging exact counts -------------------------------------------------------------------


@FAST
@given(a=scored(), b=scored())
def test_merge_equals_counting_the_concatenation(a: Scored, b: Scored) -> None:
    both = concat(a, b)
    assert_same_counts(counts_of(a).merge(counts_of(b)), counts_of(both), both.exact)


@FAST
@given(a=scored(), b=scored(), c=scored())
def test_merge_is_commutative_and_associative(a: Scored, b: Scored, c: Scored) -> None:
    exact = a.exact and b.exact and c.exact
    ca, cb, cc = counts_of(a), counts_of(b), counts_of(c)
    assert_same_counts(ca.merge(cb), cb.merge(ca), exact)
    assert_same_counts(ca.merge(cb).merge(cc), ca.merge(cb.merge(cc)), exact)


@FAST
@given(data=scored())
def test_empty_counts_are_the_identity_of_merge(data: Scored) -> None:
    counts = counts_of(data)
    empty = ThresholdCounts.empty()
    assert len(empty) == 0
    assert (empty.n_pos, empty.n_neg) == (0.0, 0.0)
    assert_same_counts(counts.merge(empty), counts, data.exact)
    assert_same_counts(empty.merge(counts), counts, data.exact)
    assert_same_counts(empty.merge(empty), empty, exact=True)


# -- binned counts -------------------------------------------------------------------------


@FAST
@given(data=scored(), edges=bin_edges())
def test_to_binned_equals_binning_the_data(data: Scored, edges: np.ndarray) -> None:
    binned = counts_of(data).to_binned(edges)
    direct = BinnedCounts.from_scores(data.y_true, data.y_score, edges,
                                      sample_weight=data.sample_weight)
    scale = data.positive_weight + data.negative_weight
    assert_array_equal(binned.edges, direct.edges)
    assert_same(binned.pos, direct.pos, data.exact, scale)
    assert_same(binned.neg, direct.neg, data.exact, scale)


@FAST
@given(data=scored(), edges=bin_edges(), draw=st.data())
def test_binned_update_in_batches_equals_one_update(
    data: Scored, edges: np.ndarray, draw: st.DataObject
) -> None:
    cuts = sorted(draw.draw(st.lists(st.integers(1, max(data.n - 1, 1)), max_size=4)))
    bounds = [0, *[c for c in cuts if c < data.n], data.n]
    streamed = BinnedCounts(edges)
    for start, stop in itertools.pairwise(bounds):
        if stop > start:
            part = data.take(np.arange(start, stop))
            assert streamed.update(part.y_true, part.y_score, part.sample_weight) is streamed
    once = BinnedCounts(edges).update(data.y_true, data.y_score, data.sample_weight)
    scale = data.positive_weight + data.negative_weight
    assert_same(streamed.pos, once.pos, data.exact, scale)
    assert_same(streamed.neg, once.neg, data.exact, scale)


@FAST
@given(a=scored(), b=scored(), edges=bin_edges())
def test_binned_merge_is_addition(a: Scored, b: Scored, edges: np.ndarray) -> None:
    ba = BinnedCounts.from_scores(a.y_true, a.y_score, edges, sample_weight=a.sample_weight)
    bb = BinnedCounts.from_scores(b.y_true, b.y_score, edges, sample_weight=b.sample_weight)
    pos_a, pos_b = ba.pos, bb.pos
    merged = ba.merge(bb)
    assert_array_equal(merged.pos, pos_a + pos_b)
    assert_array_equal(merged.neg, ba.neg + bb.neg)
    assert_array_equal(ba.pos, pos_a)  # merge builds a new state
    both = concat(a, b)
    direct = BinnedCounts.from_scores(both.y_true, both.y_score, edges,
                                      sample_weight=both.sample_weight)
    scale = both.positive_weight + both.negative_weight
    assert_same(merged.pos, direct.pos, both.exact, scale)
    assert_same(merged.neg, direct.neg, both.exact, scale)


# -- weights --------------------------------------------------------------------------------


@FAST
@given(data=scored(weights="integer"))
def test_integer_weights_equal_repeated_samples(data: Scored) -> None:
    repeats = data.weights.astype(np.intp)
    if repeats.sum() == 0:
        counts = counts_of(data)
        assert len(counts) == 0
        assert (counts.n_pos, counts.n_neg) == (0.0, 0.0)
        return
    repeated = Scored(np.repeat(data.y_true, repeats), np.repeat(data.y_score, repeats),
                      None, data.exact)
    assert_same_counts(counts_of(data), counts_of(repeated), data.exact)
    assert_same_aps(all_aps(data), all_aps(repeated), data.exact)


@FAST
@given(data=st.one_of(scored(weights="integer"), scored(weights="float")))
def test_zero_weight_equals_removing_the_sample(data: Scored) -> None:
    kept = data.take(data.weights > 0)
    if kept.n == 0:
        counts = counts_of(data)
        assert len(counts) == 0
        assert (counts.n_pos, counts.n_neg) == (0.0, 0.0)
        return
    # numpy sums in blocks, so zeros may regroup float terms: exact only on exact data.
    assert_same_counts(counts_of(data), counts_of(kept), data.exact)
    assert_same_aps(all_aps(data), all_aps(kept), data.exact)
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    kept_curve = prcurve.pr_curve(kept.y_true, kept.y_score, sample_weight=kept.sample_weight,
                                  zero_division=0)
    assert_same(curve.precision, kept_curve.precision, data.exact)
    assert_same(curve.recall, kept_curve.recall, data.exact)


# -- strictly increasing transforms ----------------------------------------------------------

TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "3x+1": lambda x: 3.0 * x + 1.0,
    "cube": lambda x: x**3,
    "arctan": np.arctan,
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
@FAST
@given(data=scored(scores="tied"))
def test_increasing_transform_changes_no_exact_result(name: str, data: Scored) -> None:
    transform = TRANSFORMS[name]
    moved = Scored(data.y_true, transform(data.y_score), data.sample_weight, data.exact)
    assert np.unique(moved.y_score).shape == np.unique(data.y_score).shape  # still distinct
    counts, moved_counts = counts_of(data), counts_of(moved)
    assert_array_equal(moved_counts.thresholds, transform(counts.thresholds))
    assert_array_equal(moved_counts.tp, counts.tp)
    assert_array_equal(moved_counts.fp, counts.fp)
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    moved_curve = prcurve.pr_curve(moved.y_true, moved.y_score,
                                   sample_weight=moved.sample_weight, zero_division=0)
    assert_array_equal(moved_curve.precision, curve.precision)
    assert_array_equal(moved_curve.recall, curve.recall)
    assert_same_aps(all_aps(moved), all_aps(data), exact=True)


# -- bounds ---------------------------------------------------------------------------------


@FAST
@given(data=scored())
def test_average_precision_bounds(data: Scored) -> None:
    if data.positive_weight == 0:
        for method in prcurve.AP_METHODS:
            with pytest.warns(prcurve.UndefinedMetricWarning):
                value = prcurve.average_precision(
                    data.y_true, data.y_score, method=method, sample_weight=data.sample_weight
                )
            assert np.isnan(value)
        return
    aps = all_aps(data)
    for method, value in aps.items():
        assert 0.0 <= value <= 1.0, (method, value)
    assert aps["interpolated"] >= aps["step"]
    # Every method averages precisions read off the curve (Davis–Goadrich's precision
    # is monotone along each segment), so none exceeds the curve's largest precision.
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight)
    best = float(np.max(curve.precision))
    for method in prcurve.AP_METHODS:
        assert aps[method] <= best * (1 + 1e-12), method


@st.composite
def perfect_rankings(draw: st.DrawFn) -> Scored:
    """At least one positive and one negative with weight; every positive scores
    strictly above every negative."""
    data = draw(scored(labels="hard", scores="any", min_size=2))
    y = data.y_true.copy()
    y[0], y[1] = 1, 0
    weights = data.weights.copy()
    weights[:2] = np.maximum(weights[:2], 1.0)
    # Positives move above the highest score (scores lie in [-1000, 1000]).
    s = np.where(y == 1, data.y_score + float(np.ptp(data.y_score)) + 1.0, data.y_score)
    sample_weight = None if data.sample_weight is None else weights
    return Scored(y, s, sample_weight, data.exact)


@FAST
@given(data=perfect_rankings())
def test_perfect_ranking_gives_one_for_every_method(data: Scored) -> None:
    positives, negatives = data.y_score[data.y_true == 1], data.y_score[data.y_true == 0]
    assert positives.min() > negatives.max()
    for method, value in all_aps(data).items():
        assert_allclose(value, 1.0, rtol=1e-12, err_msg=method)

"""The weighted exact state from one integer sort (issue 26, item 6, session 36).

- ``prcurve.core.stable_order.stable_order`` against ``np.argsort(kind="stable")``, element
  for element, on scores that tie, ``-0.0`` beside ``0.0``, subnormals, narrow and very
  wide ranges (the packed words then keep a prefix of the key and the blocks are
  re-sorted), float32; with the blocks and the group scan made tiny.
- The weighted state (hard and soft labels, weights of 0, tied scores) against the
  formulas the general path used before session 36, written out here (a stable argsort,
  ``w * y`` gathered, ``np.add.reduceat``, reversed cumulative sums), bit for bit; and
  against scikit-learn's counts with ``sample_weight`` (float64, float32 and integer
  weights).
- The traced peak of building the state at 2^21 rows (5% positives, float64 weights):
  distinct scores 40 bytes a row on main, 25 now; 2-decimal scores 40 -> 17; 5-decimal
  44 -> 21; float32 scores 84 -> 36.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from tests.traced import traced

import prcurve
from prcurve import ThresholdCounts
from prcurve.core import stable_order as module


@contextmanager
def _tiny(block: int, scan: int) -> Iterator[None]:
    """The packed path for any length, with blocks of ``block`` positions."""
    saved = module.MIN_PACKED, module._BLOCK, module._GROUP_SCAN
    module.MIN_PACKED, module._BLOCK, module._GROUP_SCAN = 0, block, scan
    try:
        yield
    finally:
        module.MIN_PACKED, module._BLOCK, module._GROUP_SCAN = saved


_POOLS = {
    "ties": st.sampled_from([-1.5, -0.0, 0.0, 0.25, 0.25000000000000006, 3.0]),
    "any": st.floats(allow_nan=False, allow_infinity=False),
    "narrow": st.floats(1.0, 1.0 + 1e-12),
    "near_zero": st.sampled_from([-5e-324, 0.0, -0.0, 5e-324, 1e-310, -1e-310, 2.2e-308]),
    "unit": st.floats(0.0, 1.0),
}


@st.composite
def score_arrays(draw: st.DrawFn) -> np.ndarray:
    pools = draw(st.lists(st.sampled_from(sorted(_POOLS)), min_size=1, max_size=3))
    values = draw(st.lists(st.one_of(*(_POOLS[p] for p in pools)), min_size=0, max_size=80))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    with np.errstate(over="ignore"):
        scores = np.array(values, dtype=np.float64).astype(dtype)
    return scores[np.isfinite(scores)]


@settings(max_examples=150)
@given(score_arrays(), st.sampled_from([1, 3, 64]), st.sampled_from([1, 2, 4096]))
def test_stable_order_is_numpys(scores: np.ndarray, block: int, scan: int) -> None:
    with _tiny(block, scan):
        order, ordered = module.stable_order(scores)
    expected = np.argsort(scores, kind="stable")
    assert order.dtype == np.intp
    assert order.tolist() == expected.tolist()
    assert ordered.dtype == scores.dtype
    assert ordered.tobytes() == scores[expected].tobytes()


def test_stable_order_of_a_large_wide_range() -> None:
    # Normal scores spanning both signs: the keys keep a prefix (shift > 0), many groups
    # hold scores that differ, and their blocks are re-sorted.
    rng = np.random.default_rng(3)
    scores = np.concatenate([rng.standard_normal(300_000), np.round(rng.random(50_000), 3),
                             [1e300, -1e300, -0.0, 0.0]])
    rng.shuffle(scores)
    order, ordered = module.stable_order(scores)
    expected = np.argsort(scores, kind="stable")
    assert np.array_equal(order, expected)
    assert ordered.tobytes() == scores[expected].tobytes()


def _before(y: np.ndarray, scores: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """The general path's formulas before session 36 (``ThresholdCounts._from_checked``
    and ``_from_ascending``), step by step."""
    fraction = y.astype(np.float64)
    order = np.argsort(scores, kind="stable")
    ordered = scores[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    pos = np.add.reduceat((w * fraction)[order], starts)
    neg = np.add.reduceat((w * (1.0 - fraction))[order], starts)
    keep = (pos + neg) > 0
    values, pos, neg = ordered[starts][keep], pos[keep], neg[keep]
    thresholds = (values[::-1] + 0.0).astype(np.float64)
    return thresholds, np.cumsum(pos[::-1]), np.cumsum(neg[::-1])


@st.composite
def weighted_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 70))
    scores = draw(score_arrays().filter(lambda s: s.shape[0] >= 1))
    scores = np.resize(scores, n)  # repeats: ties across the whole array
    soft = draw(st.booleans())
    labels = np.array(draw(st.lists(
        st.floats(0.0, 1.0) if soft else st.booleans(), min_size=n, max_size=n)))
    weights = np.array(draw(st.lists(
        st.one_of(st.just(0.0), st.floats(1e-3, 1e3), st.integers(1, 5).map(float)),
        min_size=n, max_size=n)))
    return labels, scores, weights


@settings(max_examples=150)
@given(weighted_rows(), st.sampled_from([1, 3, 64]))
def test_weighted_state_is_the_formulas_before(
        data: tuple[np.ndarray, np.ndarray, np.ndarray], block: int) -> None:
    labels, scores, weights = data
    with _tiny(block, 2):
        state = ThresholdCounts.from_scores(labels, scores, sample_weight=weights)
    expected = _before(labels, scores, weights)
    for got, want in zip((state.thresholds, state.tp, state.fp), expected, strict=True):
        assert got.dtype == np.float64
        assert got.tobytes() == want.tobytes()
    if labels.dtype == bool and weights.sum() > 0:  # scikit-learn: hard labels only
        if hasattr(skm, "confusion_matrix_at_thresholds"):
            _, fp, _, tp, thresholds = skm.confusion_matrix_at_thresholds(
                labels, scores, sample_weight=weights)
        else:
            from sklearn.metrics._ranking import _binary_clf_curve

            fp, tp, thresholds = _binary_clf_curve(labels, scores, sample_weight=weights)
        # scikit-learn drops zero-weight rows before it finds the thresholds (as here)
        assert_allclose(state.thresholds, thresholds)
        assert_allclose(state.tp, tp, rtol=1e-12, atol=1e-9)
        assert_allclose(state.fp, fp, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("rounding", [None, 2])
def test_weights_of_any_dtype_against_sklearn(dtype: type, rounding: int | None) -> None:
    rng = np.random.default_rng(7)
    n = 20_000  # above MIN_PACKED: the packed words
    y = rng.random(n) < 0.3
    scores = rng.standard_normal(n) + y
    if rounding is not None:
        scores = np.round(scores, rounding)
    raw = rng.integers(0, 4, n) if np.dtype(dtype).kind == "i" else rng.random(n) * 3
    raw[rng.random(n) < 0.1] = 0  # weights of 0 remove their rows
    weights = raw.astype(dtype)
    curve = prcurve.pr_curve(y, scores, sample_weight=weights)
    precision, recall, thresholds = skm.precision_recall_curve(y, scores, sample_weight=weights)
    kept = weights > 0
    assert_allclose(curve.thresholds, np.unique(scores[kept])[::-1])
    assert_allclose(curve.thresholds, thresholds[::-1])
    assert_allclose(curve.precision, precision[:-1][::-1], rtol=1e-12)
    assert_allclose(curve.recall, recall[:-1][::-1], rtol=1e-12)
    assert prcurve.average_precision(y, scores, sample_weight=weights) == pytest.approx(
        skm.average_precision_score(y, scores, sample_weight=weights), rel=1e-12)


@pytest.mark.parametrize(("decimals", "bound"), [(None, 27), (2, 20), (5, 24), ("f32", 38)])
def test_weighted_state_peak(decimals: int | str | None, bound: int) -> None:
    n = 1 << 21
    rng = np.random.default_rng(0)
    labels, scores, weights = rng.random(n) < 0.05, rng.standard_normal(n), 0.5 + rng.random(n)
    if decimals == "f32":  # float32: nearly every score distinct, some ties
        scores = scores.astype(np.float32)
    elif isinstance(decimals, int):
        scores = np.round(scores, decimals)
    state, _, peak = traced(
        lambda: ThresholdCounts.from_scores(labels, scores, sample_weight=weights))
    assert len(state) == (n if decimals is None else len(np.unique(scores)))
    # main (before session 36), measured: 40, 40, 44.3 and 84.2 bytes a row; now 25, 17.1,
    # 21.2 and 35.7
    assert peak <= bound * n


def test_tied_groups_past_float64_name_the_largest_group() -> None:
    # Reachable only below validation (a total that overflows is refused there); the
    # message names the largest group's weight, as the general path did.
    from prcurve.errors import InvalidInputError
    from prcurve.validation.labels import BinaryLabels

    scores = np.array([0.1, 0.1, 0.2, 0.3])
    positive = np.array([True, True, False, True])
    weights = np.array([1e308, 1e308, 1e308, 0.0])
    with pytest.warns(RuntimeWarning, match="overflow"), pytest.raises(
            InvalidInputError, match="largest weight inf"):
        ThresholdCounts._from_checked(scores, BinaryLabels(positive=positive, soft=None),
                                      weights)
    distinct = np.array([0.1, 0.4, 0.2])
    with pytest.raises(InvalidInputError, match=r"largest weight 1\.5e\+308"):
        ThresholdCounts._from_checked(
            distinct, BinaryLabels(positive=np.array([True, True, False]), soft=None),
            np.array([1.5e308, 1.5e308, 1.0]))

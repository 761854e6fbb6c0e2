"""The exact state of weighted rows (or soft labels) with distinct scores, without the
general path's full-length copies (issue 26, item 6, session 35).

Checked against the general path's own formulas written out here (one group a row:
``np.add.reduceat`` over the rows in ascending order, reversed cumulative sums), bit
for bit, and against the slow oracle of tests/oracles.py (``math.fsum``) to 1e-9; and
the traced peak (89 bytes a row on main, measured at 2^21 rows).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.oracles import threshold_counts
from tests.traced import traced

from prcurve import ThresholdCounts
from prcurve.core import distinct_rows


def _general(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> tuple:
    """The general path before session 35, step by step."""
    fraction = labels.astype(np.float64)
    order = np.argsort(scores, kind="stable")
    values = scores[order]
    starts = np.arange(values.shape[0])
    pos = np.add.reduceat((weights * fraction)[order], starts)
    neg = np.add.reduceat((weights * (1.0 - fraction))[order], starts)
    keep = (pos + neg) > 0
    values, pos, neg = values[keep], pos[keep], neg[keep]
    return values[::-1] + 0.0, np.cumsum(pos[::-1]), np.cumsum(neg[::-1])


@st.composite
def weighted_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 60))
    scores = np.array(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n,
                                    max_size=n, unique=True)), dtype=np.float64)
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    weights = np.array(draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 1e3)),
                                     min_size=n, max_size=n)))
    return labels, scores, weights


@settings(max_examples=80)
@given(weighted_rows(), st.sampled_from([1, 3, 1 << 16]))
def test_distinct_weighted_state_is_the_general_path(
        data: tuple[np.ndarray, np.ndarray, np.ndarray], block: int) -> None:
    labels, scores, weights = data
    saved = distinct_rows._KEEP_BLOCK
    distinct_rows._KEEP_BLOCK = block
    try:
        state = ThresholdCounts.from_scores(labels, scores, sample_weight=weights)
    finally:
        distinct_rows._KEEP_BLOCK = saved
    thresholds, tp, fp = _general(labels, scores, weights)
    for got, expected in ((state.thresholds, thresholds), (state.tp, tp), (state.fp, fp)):
        assert got.tobytes() == expected.tobytes()
    oracle = threshold_counts(labels.astype(float), scores, weights)
    assert state.thresholds.tolist() == oracle.thresholds
    np.testing.assert_allclose(state.tp, oracle.tp, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(state.fp, oracle.fp, rtol=1e-9, atol=1e-9)


def test_overflowing_weights_still_name_the_weight() -> None:
    from prcurve.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="sample_weight"):
        ThresholdCounts.from_scores([1, 1], [0.1, 0.2], sample_weight=[1e308, 1e308])


def test_distinct_weighted_state_peak() -> None:
    n = 1 << 21
    rng = np.random.default_rng(0)
    labels, scores, weights = rng.random(n) < 0.05, rng.standard_normal(n), 0.5 + rng.random(n)
    state, kept, peak = traced(
        lambda: ThresholdCounts.from_scores(labels, scores, sample_weight=weights))
    assert len(state) == n
    assert kept <= 24 * n + (1 << 16)
    assert peak <= 44 * n  # 89 bytes a row on main (measured)

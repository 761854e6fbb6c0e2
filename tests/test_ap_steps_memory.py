"""Average precision from the recall steps with one array of the steps' length (issue 26,
item 6, session 36: 50% positives at 3*10^7 rows have 1.5*10^7 steps, 120 MB an array).

The step and interpolated AP multiply the gained weight in a block at a time, the
trapezoid and Davis-Goadrich areas take the previous step's tp a block at a time, and the
11- and 101-point AP search the recall levels without the recall array: the same numbers,
bit for bit, as the formulas before (written out here), and a traced peak of one array of
the steps' length plus the blocks' temporaries (main: two, 16 bytes a step for the step
and interpolated AP, 23-26 for the areas; measured at 2^21 rows of 50% positives).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.traced import traced

from prcurve import ThresholdCounts
from prcurve.core import average_precision as ap
from prcurve.core import step_select
from prcurve.core.counts import RecallSteps, first_reaching, sum_of_products


def _before(steps: RecallSteps, method: str) -> float:
    """The formulas before session 36, whole arrays at a time."""
    gained = np.diff(steps.tp, prepend=0.0)
    precision = steps.tp / (steps.tp + steps.fp)
    if method == "step":
        return sum_of_products(gained, precision) / steps.n_pos
    if method == "interpolated":
        envelope = np.maximum.accumulate(precision[::-1])[::-1]
        return sum_of_products(gained, envelope) / steps.n_pos
    areas = ap.segment_areas(steps.tp_above, steps.fp_above, steps.tp, steps.fp,
                             steps.n_pos, method, 0.0, 1.0)
    return float(areas.sum())


@st.composite
def states(draw: st.DrawFn) -> ThresholdCounts:
    n = draw(st.integers(1, 80))
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    labels[0] = True
    scores = np.array(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)), dtype=float)
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 1.0, 3.0, 1e-7]),
                                         min_size=n, max_size=n)))
        weights[0] = 1.0
        return ThresholdCounts.from_scores(labels, scores, sample_weight=weights)
    return ThresholdCounts.from_scores(labels, scores)


@settings(max_examples=150)
@given(states(), st.sampled_from([1, 3, 1 << 16]))
def test_ap_is_the_formulas_before(state: ThresholdCounts, block: int) -> None:
    steps = RecallSteps.from_counts(state)
    saved = ap._GAIN_BLOCK, ap._AREA_BLOCK
    ap._GAIN_BLOCK = ap._AREA_BLOCK = block
    try:
        for method in ("step", "interpolated", "trapezoid", "davis_goadrich"):
            got = ap._METHODS[method](steps)
            assert np.float64(got).tobytes() == np.float64(_before(steps, method)).tobytes()
        levels = ap.recall_levels(100)
        assert ap._first_reaching_recall(steps, levels).tolist() == first_reaching(
            steps.tp / steps.n_pos, levels).tolist()
    finally:
        ap._GAIN_BLOCK, ap._AREA_BLOCK = saved


def test_first_reaching_recall_at_the_tolerance() -> None:
    # Recall within SUM_TOLERANCE below a level reaches it, as counts.first_reaching says.
    steps = RecallSteps(np.array([0.3 - 5e-11, 0.5, 1.0]), np.zeros(3), np.zeros(3), 1.0, 0.0)
    levels = np.array([0.0, 0.3, 0.31, 1.0, 1.0 + 1e-9])
    assert ap._first_reaching_recall(steps, levels).tolist() == first_reaching(
        steps.tp / steps.n_pos, levels).tolist() == [0, 0, 1, 2, 3]


@pytest.mark.parametrize(("method", "blocks"), [
    ("step", 2), ("interpolated", 2), ("trapezoid", 12), ("davis_goadrich", 12),
    ("11point", 2), ("101point", 2)])
def test_ap_peak(method: str, blocks: int) -> None:
    n = 1 << 21
    rng = np.random.default_rng(0)
    state = ThresholdCounts.from_scores(rng.random(n) < 0.5, rng.standard_normal(n))
    steps = RecallSteps.from_counts(state)
    s = steps.tp.shape[0]
    _, _, peak = traced(lambda: ap.ap_from_steps(steps, method))
    # One array of the steps' length (8 bytes a step), plus a block's temporaries
    # (``blocks`` MiB: the areas' formulas make a dozen arrays of 2^16 values). main, at
    # these 10^6 steps: 16 bytes a step (step, interpolated), 23 (trapezoid), 26
    # (davis_goadrich); 8 for the 11- and 101-point AP (session 35), kept here.
    assert peak <= 8 * s + (blocks << 20)


def _steps_before(state: ThresholdCounts) -> tuple[np.ndarray, ...]:
    """``RecallSteps.from_counts`` before session 36: by an index array."""
    tp, fp = state._tp, state._fp
    enters = np.concatenate(([tp[0] > 0], tp[1:] > tp[:-1])) if tp.shape[0] else tp > 0
    at = np.flatnonzero(enters)
    previous = fp[at - 1].astype(np.float64)
    if at.shape[0] and at[0] == 0:
        previous[0] = 0.0
    return tp[at].astype(np.float64), fp[at].astype(np.float64), previous


@settings(max_examples=100)
@given(states(), st.sampled_from([1, 3, 1 << 20]))
def test_recall_steps_are_the_index_arrays(state: ThresholdCounts, block: int) -> None:
    saved = step_select._BLOCK
    step_select._BLOCK = block
    try:
        steps = RecallSteps.from_counts(state)
    finally:
        step_select._BLOCK = saved
    for got, want in zip((steps.tp, steps.fp, steps.fp_above), _steps_before(state),
                         strict=True):
        assert got.dtype == np.float64
        assert got.tobytes() == want.tobytes()


def test_recall_steps_of_extreme_weights_are_scaled() -> None:
    state = ThresholdCounts.from_scores([1, 0, 1], [0.9, 0.5, 0.1],
                                        sample_weight=[1e300, 1e300, 1e300])
    steps = RecallSteps.from_counts(state)
    assert steps.n_pos == 2 * steps.tp[0]
    assert steps.fp_above.tolist() == [0.0, steps.fp[1]]
    assert ap.ap_from_steps(steps, "step") == pytest.approx(0.5 * (1 + 2 / 3))


def test_recall_steps_peak() -> None:
    n = 1 << 21
    rng = np.random.default_rng(0)
    state = ThresholdCounts.from_scores(rng.random(n) < 0.5, rng.standard_normal(n))
    saved = step_select._BLOCK
    step_select._BLOCK = 1 << 16  # the blocks' temporaries small beside 10^6 steps
    try:
        steps, _, peak = traced(lambda: RecallSteps.from_counts(state))
    finally:
        step_select._BLOCK = saved
    s = steps.tp.shape[0]
    # The three arrays (24 bytes a step), a flag a threshold and one block's indices and
    # gathered counts (8 MB with the blocks of 2^20 thresholds); main: 40 bytes a step
    # (the index array and its shifted copy).
    assert peak <= 24 * s + n + (1 << 20)

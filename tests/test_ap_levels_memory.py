"""11-point and 101-point AP from the envelope at the levels' steps only (issue 26, item
6, session 35): the same numbers, bit for bit, as the full envelope's formula written
out here, and a traced peak of about one array of the steps' length (three on main).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.traced import traced

from prcurve import ThresholdCounts
from prcurve.core import average_precision
from prcurve.core.counts import RecallSteps, first_reaching


def _full_envelope(steps: RecallSteps, n_intervals: int) -> float:
    """The formula before session 35: the whole envelope, then its values at the steps."""
    recall = steps.tp / steps.n_pos
    first = first_reaching(recall, average_precision.recall_levels(n_intervals))
    precision = steps.tp / (steps.tp + steps.fp)
    envelope = np.append(np.maximum.accumulate(precision[::-1])[::-1], 0.0)
    return float(envelope[first].mean())


@settings(max_examples=80)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 12), st.sampled_from([0.5, 1.0, 3.0])),
                min_size=1, max_size=60),
       st.sampled_from([10, 100]))
def test_levels_are_the_full_envelopes(rows: list[tuple[bool, int, float]],
                                       n_intervals: int) -> None:
    labels = np.array([r[0] for r in rows])
    if not labels.any():
        labels[0] = True
    scores = np.array([r[1] for r in rows], dtype=np.float64)
    weights = np.array([r[2] for r in rows])
    for state in (ThresholdCounts.from_scores(labels, scores),
                  ThresholdCounts.from_scores(labels, scores, sample_weight=weights)):
        steps = RecallSteps.from_counts(state)
        got = average_precision._at_recall_levels(steps, n_intervals)
        assert np.float64(got).tobytes() == np.float64(_full_envelope(steps, n_intervals)).tobytes()


def test_levels_peak() -> None:
    n = 1 << 21
    rng = np.random.default_rng(0)
    state = ThresholdCounts.from_scores(rng.random(n) < 0.5, rng.standard_normal(n))
    steps = RecallSteps.from_counts(state)
    s = steps.tp.shape[0]
    _, _, peak = traced(lambda: average_precision._at_recall_levels(steps, 100))
    assert peak <= 9 * s  # main: 24 bytes a step (the envelope, its copy, precision)


def test_envelope_in_place() -> None:
    n = 1 << 20
    rng = np.random.default_rng(1)
    state = ThresholdCounts.from_scores(rng.random(n) < 0.5, rng.standard_normal(n))
    steps = RecallSteps.from_counts(state)
    precision = steps.tp / (steps.tp + steps.fp)
    expected = np.maximum.accumulate(precision[::-1])[::-1]
    s = precision.shape[0]
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        envelope = average_precision._interpolated_envelope(steps)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert envelope.tobytes() == expected.tobytes()
    assert peak <= 9 * s  # main: 16 bytes a step (precision, then the envelope)

"""The exact state of hard labels in 16 bytes a threshold (issue 26, item 6).

``ThresholdCounts`` of hard, unweighted labels keeps its cumulative counts as uint32
(its documented invariant); ``tp`` and ``fp`` are float64 always, and every view turns
each block or gather of the compact counts into float64 before any arithmetic. Checked
here against the definitions (tests/oracles.py), scikit-learn, and the float64 state of
the same data (the weighted path, or the validated constructor) bit for bit, with the
sort's threads and the views' blocks made small so that every blocked path runs on
small inputs; and the traced memory of the state and of the full-range AP areas.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score
from tests.oracles import AP_ORACLES, operating_points, threshold_counts
from tests.traced import traced

from prcurve import PRCurve, ThresholdCounts
from prcurve.core import average_precision, curve, curve_blocks, hard_labels, sorting
from prcurve.core.average_precision import AP_METHODS, segment_areas
from prcurve.core.counts import RecallSteps
from prcurve.core.heap import give_back_freed_memory
from prcurve.errors import UndefinedMetricWarning
from prcurve.io.parquet_memory import RELEASE_ROWS, release_freed_memory


@contextlib.contextmanager
def small_blocks(threads: int, block: int) -> Iterator[None]:
    """Sorts on ``threads`` threads whatever the size; views, AP areas and the sort's
    neighbour checks ``block`` values at a time."""
    saved = (sorting.MIN_PARALLEL, sorting._NEIGHBOUR_BLOCK, curve.VIEW_BLOCK,
             curve_blocks.VIEW_BLOCK, average_precision._AREA_BLOCK)
    sorting.MIN_PARALLEL = 1 if threads > 1 else saved[0]
    sorting.set_sort_threads(threads)
    sorting._NEIGHBOUR_BLOCK = block
    curve.VIEW_BLOCK = curve_blocks.VIEW_BLOCK = block
    average_precision._AREA_BLOCK = block
    try:
        yield
    finally:
        (sorting.MIN_PARALLEL, sorting._NEIGHBOUR_BLOCK, curve.VIEW_BLOCK,
         curve_blocks.VIEW_BLOCK, average_precision._AREA_BLOCK) = saved
        sorting.set_sort_threads(None)


@st.composite
def hard_data(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Hard labels with distinct scores, or scores from a few values (ties)."""
    n = draw(st.integers(1, 60))
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if draw(st.booleans()):
        scores = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)),
                          dtype=np.float64) / 2
    else:
        scores = np.array(draw(st.lists(
            st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
            min_size=n, max_size=n, unique=True)))
    return labels, scores


def _bits(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype=np.float64).tobytes()


@settings(max_examples=40)
@given(hard_data(), st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 5]))
def test_compact_state_is_the_float64_state(data: tuple[np.ndarray, np.ndarray],
                                            threads: int, block: int) -> None:
    labels, scores = data
    with small_blocks(threads, block):
        compact = ThresholdCounts.from_scores(labels, scores)
    weighted = ThresholdCounts.from_scores(labels, scores, sample_weight=np.ones(len(labels)))
    oracle = threshold_counts(labels.astype(float), scores)
    assert compact._tp.dtype == np.uint32
    assert compact._fp.dtype == np.uint32
    assert weighted._tp.dtype == np.float64  # weights: float64 counts
    for public in (compact.tp, compact.fp):
        assert public.dtype == np.float64
        assert not public.flags.writeable
    assert compact.thresholds.tolist() == oracle.thresholds
    assert compact.tp.tolist() == oracle.tp
    assert compact.fp.tolist() == oracle.fp
    for a, b in ((compact.thresholds, weighted.thresholds), (compact.tp, weighted.tp),
                 (compact.fp, weighted.fp)):
        assert _bits(a) == _bits(b)
    assert (compact.n_pos, compact.n_neg) == (oracle.n_pos, oracle.n_neg)
    assert _bits(compact.pos_weight()) == _bits(weighted.pos_weight())


@settings(max_examples=30)
@given(hard_data(), st.sampled_from([1, 2, 3]))
def test_float64_counts_past_the_uint32_limit(data: tuple[np.ndarray, np.ndarray],
                                              threads: int) -> None:
    # More rows than uint32 holds (4.3*10^9) keep float64 counts: the limit made 0.
    labels, scores = data
    saved = hard_labels.COUNTS_LIMIT
    hard_labels.COUNTS_LIMIT = 0
    try:
        with small_blocks(threads, 2):
            wide = ThresholdCounts.from_scores(labels, scores)
    finally:
        hard_labels.COUNTS_LIMIT = saved
    compact = ThresholdCounts.from_scores(labels, scores)
    assert wide._tp.dtype == np.float64
    for a, b in ((wide.thresholds, compact.thresholds), (wide.tp, compact.tp),
                 (wide.fp, compact.fp)):
        assert _bits(a) == _bits(b)


def _views(c: PRCurve) -> list[float]:
    values = [c.average_precision(method) for method in AP_METHODS]
    with warnings.catch_warnings():  # a level no threshold reaches: NaN, on both sides
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        points = (c.best_f(), c.best_f(2.0), c.precision_at_recall(0.5),
                  c.recall_at_precision(0.5), c.recall_at_precision(0.99))
    for point in points:
        values += [point.value, point.threshold, point.precision, point.recall]
    values.append(c.roc().auc())
    cells = c.at_threshold(float(np.median(c.thresholds)))
    values += [cells.tp, cells.fp, cells.fn, cells.tn]
    return values


@settings(max_examples=40)
@given(hard_data(), st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 5]))
def test_views_of_the_compact_state_are_bit_for_bit(data: tuple[np.ndarray, np.ndarray],
                                                    threads: int, block: int) -> None:
    labels, scores = data
    if labels.all() or not labels.any():
        return  # AP and the ROC area need both classes (their undefined cases: elsewhere)
    with small_blocks(threads, block):
        compact = ThresholdCounts.from_scores(labels, scores)
        twin = ThresholdCounts(compact.thresholds, compact.tp, compact.fp, compact.n_pos,
                               compact.n_neg)  # validated: float64 counts
        assert twin._tp.dtype == np.float64
        got = _views(PRCurve.from_counts(compact))
        want = _views(PRCurve.from_counts(twin))
    assert np.array_equal(np.array(got), np.array(want), equal_nan=True)
    points = operating_points(threshold_counts(labels.astype(float), scores))
    for method, value in zip(AP_METHODS, got[:len(AP_METHODS)], strict=True):
        assert value == pytest.approx(AP_ORACLES[method](points, float(labels.sum())),
                                      rel=1e-12, abs=1e-15)
    assert got[0] == pytest.approx(average_precision_score(labels, scores), rel=1e-12)
    assert got[-5] == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)


@settings(max_examples=40)
@given(hard_data(), st.sampled_from([1, 2, 7]))
def test_full_range_areas_by_blocks_are_one_sum(data: tuple[np.ndarray, np.ndarray],
                                               block: int) -> None:
    labels, scores = data
    if not labels.any():
        return
    steps = RecallSteps.from_counts(ThresholdCounts.from_scores(labels, scores))
    for method in ("trapezoid", "davis_goadrich"):
        whole = float(segment_areas(steps.tp_above, steps.fp_above, steps.tp, steps.fp,
                                    steps.n_pos, method, 0.0, 1.0).sum())
        with small_blocks(1, block):
            blocked = average_precision._full_range_area(steps, method)
        assert _bits(np.array(blocked)) == _bits(np.array(whole))


def test_state_of_hard_labels_takes_16_bytes_a_threshold() -> None:
    # Distinct float64 scores with 5% positives, as issue 15's files: the state is the
    # sorted copy (the thresholds) and one array of the scores' size holding both counts
    # as uint32. With float64 counts it was 24 bytes a threshold and its peak as much.
    n = 1 << 21
    rng = np.random.default_rng(0)
    scores, positive = rng.standard_normal(n), rng.random(n) < 0.05
    counts, kept, peak = traced(lambda: ThresholdCounts.from_scores(positive, scores))
    assert isinstance(counts, ThresholdCounts)
    assert len(counts) == n
    assert kept <= 16 * n + (1 << 16)
    assert peak <= 20 * n  # 26.8 bytes a row with float64 counts (main, measured)


def test_full_length_counts_of_a_compact_state_are_held_once() -> None:
    # ``tp`` and ``fp`` of a uint32 state: converted on the first access and kept in the
    # integers' place (the same array at every access; the uint32 buffer freed), so a
    # state asked for its full-length counts keeps 24 bytes a threshold, as a float64
    # state does. A float64 copy kept beside the uint32 counts (32 bytes) fails, and so
    # does a new copy at each access.
    n = 1 << 20
    rng = np.random.default_rng(2)
    scores, positive = rng.standard_normal(n), rng.random(n) < 0.3

    def state_and_counts() -> tuple[ThresholdCounts, np.ndarray, np.ndarray]:
        counts = ThresholdCounts.from_scores(positive, scores)
        assert counts._tp.dtype == np.uint32
        return counts, counts.tp, counts.fp

    (counts, tp, fp), kept, _ = traced(state_and_counts)
    assert tp.dtype == fp.dtype == np.float64
    assert tp.shape == fp.shape == (n,)
    assert counts.tp is tp
    assert counts.fp is fp
    assert kept <= 24 * n + (1 << 16)
    np.testing.assert_array_equal(tp + fp, np.arange(1, n + 1))  # distinct scores
    curve = PRCurve(counts)
    assert curve.tp is tp
    assert curve.precision.dtype == np.float64


def test_full_range_areas_need_no_temporaries_of_full_length() -> None:
    # 2^20 recall steps: the areas (8 bytes a step), the steps' tp_above (8) and the
    # fancy-indexed block's copies; one call over every segment made 15 to 21 arrays of
    # the steps' length (measured on main).
    m = 1 << 20
    rng = np.random.default_rng(1)
    tp = np.arange(1, m + 1, dtype=np.float64)
    fp = np.cumsum(rng.integers(0, 3, m)).astype(np.float64)
    fp_above = np.concatenate(([0.0], fp[:-1]))
    steps = RecallSteps(tp, fp, fp_above, float(m), float(fp[-1]))
    for method in ("trapezoid", "davis_goadrich"):
        area, _, peak = traced(lambda: average_precision._full_range_area(steps, method))  # noqa: B023
        assert 0.0 < float(area) <= 1.0
        assert peak <= 4 * 8 * m  # main, one call: 15 (trapezoid) and 21 arrays of m


def test_freed_memory_is_given_back_only_after_large_inputs() -> None:
    assert release_freed_memory(RELEASE_ROWS - 1) is False
    assert release_freed_memory(RELEASE_ROWS) is True
    assert give_back_freed_memory() in (True, False)  # False: not glibc

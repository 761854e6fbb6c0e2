"""Sorting on several cores (issue 15, item 6): the segment sort and the split sort equal
``np.sort`` element for element, with or without a mask, on ties, signed zeros, tiny and
lopsided inputs; ``count_below`` equals ``np.searchsorted``; the exact states and recall
steps of the hard-label fast paths equal the general (weighted) path's to the last bit on
any number of threads, just below and above the thread threshold; and NaN or infinity,
left by validation to the fast paths' sorts, is still an error naming ``y_score``."""

from __future__ import annotations

import concurrent.futures
import contextlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal
from tests.strategies import FAST

from prcurve import ThresholdCounts, average_precision, pr_curve
from prcurve.core import sorting
from prcurve.core.counts import RecallSteps
from prcurve.core.sorting import (
    count_below,
    set_sort_threads,
    sort_segments,
    sort_threads,
    split_sort,
)
from prcurve.errors import InvalidInputError

FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)


def sorted_copy(values, *, where=None, threads=None, min_parallel=None):
    """``np.sort(values[where])`` by :func:`sort_segments` on a copy, as the exact states
    use it (``packed``): the parts come from :func:`sorting.parts_for`."""
    out = values.copy() if where is None else values[where]
    parts = sorting.parts_for(out.shape[0], threads, min_parallel)
    if parts == 1:
        out.sort()
        return out
    with concurrent.futures.ThreadPoolExecutor(max_workers=parts) as pool:
        sort_segments(out, parts, pool)
    return out


@FAST
@given(values=arrays(np.float64, st.integers(0, 300), elements=FINITE | st.sampled_from(
    [0.0, -0.0, 1.0, np.inf, -np.inf])), threads=st.integers(1, 7),
    masked=st.booleans(), data=st.data())
def test_segment_sort_equals_np_sort(values, threads, masked, data) -> None:
    where = None
    if masked:
        where = data.draw(arrays(np.bool_, values.shape[0]))
    got = sorted_copy(values, where=where, threads=threads, min_parallel=2)
    want = np.sort(values if where is None else values[where])
    assert got.dtype == values.dtype
    # Equal as numbers; -0.0 and 0.0 may trade places, as within np.sort itself.
    assert_array_equal(got, want)
    assert_array_equal(got + 0.0, want + 0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_segment_sort_of_large_arrays_with_ties(dtype) -> None:
    rng = np.random.default_rng(3)
    values = (rng.integers(0, 50, 300_000) * rng.random(300_000)).astype(dtype)
    values[:1000] = values[0]  # a long run of one value: a splitter repeats
    where = rng.random(values.shape[0]) < 0.1
    for threads in (2, 3, 8):
        assert_array_equal(sorted_copy(values, threads=threads, min_parallel=1000),
                           np.sort(values))
        assert_array_equal(sorted_copy(values, where=where, threads=threads,
                                       min_parallel=1000), np.sort(values[where]))


def test_one_value_repeated_takes_one_bucket() -> None:
    values = np.full(5000, 0.5)
    assert_array_equal(sorted_copy(values, threads=4, min_parallel=100), values)


SCORES = st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, -3.0]) | FINITE


@st.composite
def hard_data(draw, max_size=200):
    """Hard labels and scores: ties within and across classes, -0.0 and 0.0, one class
    only, a single row; float64 or float32 scores."""
    n = draw(st.integers(1, max_size))
    scores = draw(arrays(np.float64, n, elements=SCORES))
    kind = draw(st.sampled_from(["mixed", "all positive", "all negative"]))
    y = draw(arrays(np.bool_, n)) if kind == "mixed" else np.full(n, kind == "all positive")
    if draw(st.booleans()):
        scores = scores.astype(np.float32)
    return y, scores


def _general_state(y, scores):
    """The general path: weights (of 1) take the argsort path, not the hard-label one."""
    return ThresholdCounts.from_scores(y, scores, sample_weight=np.ones(y.shape[0]))


def _assert_same_bits(got, want) -> None:
    for name in ("thresholds", "tp", "fp"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype == np.float64
        assert_array_equal(a.view(np.uint64), b.view(np.uint64))  # -0.0 != 0.0 here
    assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)


@FAST
@given(data=hard_data(), threads=st.integers(1, 5), min_parallel=st.integers(1, 80))
def test_hard_label_state_and_steps_equal_the_general_path(data, threads, min_parallel,
                                                            ) -> None:
    y, scores = data
    want = _general_state(y, scores)
    want_steps = RecallSteps.from_counts(want)
    with _threads(threads, min_parallel):
        got = ThresholdCounts.from_scores(y, scores)
        steps = RecallSteps.from_hard_scores(y, scores)
        ap = average_precision(y, scores, zero_division=0)
    _assert_same_bits(got, want)
    for name in ("tp", "fp", "fp_above"):
        assert_array_equal(getattr(steps, name), getattr(want_steps, name))
    assert (steps.n_pos, steps.n_neg) == (want_steps.n_pos, want_steps.n_neg)
    assert ap == average_precision(y, scores, sample_weight=np.ones(y.shape[0]),
                                   zero_division=0)


@pytest.mark.parametrize("n", [63, 64, 65, 127, 128, 129, 255, 256, 257])
def test_just_below_and_above_the_thread_threshold(n) -> None:
    rng = np.random.default_rng(n)
    y = rng.random(n) < 0.3
    scores = np.round(rng.random(n), 1) - 0.5  # many ties, -0.0 and 0.0 among them
    scores[::7] = -0.0
    want = _general_state(y, scores)
    for threads in (1, 2, 3):
        with _threads(threads, 128):
            assert sorting.parts_for(n) == (1 if n < 128 else min(threads, 2 * n // 128))
            _assert_same_bits(ThresholdCounts.from_scores(y, scores), want)
            assert average_precision(y, scores) == average_precision(
                y, scores, sample_weight=np.ones(n))


def test_states_and_ap_are_the_same_to_the_last_bit_on_any_number_of_threads() -> None:
    rng = np.random.default_rng(11)
    n = 200_000
    y = rng.random(n) < 0.3
    scores = np.round(rng.random(n) + y * 0.3, 4)  # ties within and across classes
    distinct = rng.random(n)  # no ties: the path without runs
    for values in (scores, distinct, distinct.astype(np.float32)):
        with _threads(1, 1 << 20):
            one = ThresholdCounts.from_scores(y, values)
            ap_one = average_precision(y, values)
        _assert_same_bits(one, _general_state(y, values))
        for threads in (2, 3, 8):
            with _threads(threads, 1000):
                many = ThresholdCounts.from_scores(y, values)
                ap_many = average_precision(y, values)
            _assert_same_bits(many, one)
            assert ap_many == ap_one


@contextlib.contextmanager
def _threads(threads: int, min_parallel: int):
    """Sort on ``threads`` threads from ``min_parallel`` values (the tests' arrays are
    small)."""
    saved = sorting.MIN_PARALLEL
    set_sort_threads(threads)
    sorting.MIN_PARALLEL = min_parallel
    try:
        yield
    finally:
        sorting.MIN_PARALLEL = saved
        set_sort_threads(None)


@FAST
@given(data=st.data(), size=st.integers(0, 20_000), queries=st.integers(0, 300),
       ties=st.booleans(), window=st.sampled_from([1, 2, 7, 64]))
def test_count_below_equals_searchsorted(data, size, queries, ties, window) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    values = np.sort(rng.integers(0, 50, size) if ties else rng.random(size))
    q = rng.integers(-1, 52, queries) if ties else rng.random(queries) * 1.2 - 0.1
    q = q.astype(values.dtype)
    if size:
        q[: queries // 3] = values[rng.integers(0, size, queries // 3)]  # exact hits
    if data.draw(st.booleans()):  # ascending queries: searched a window at a time
        q = np.sort(q)
    saved = sorting._WINDOW
    sorting._WINDOW = window
    try:
        got = count_below(values, q)
    finally:
        sorting._WINDOW = saved
    assert_array_equal(got, np.searchsorted(values, q, side="left"))


@FAST
@given(values=arrays(np.float64, st.integers(0, 400), elements=SCORES | st.sampled_from(
    [np.inf, -np.inf])), parts=st.integers(1, 6), negate=st.booleans(), data=st.data())
def test_split_sort_equals_np_sort_and_cuts_between_ranges(values, parts, negate,
                                                           data) -> None:
    where = data.draw(arrays(np.bool_, values.shape[0])) if data.draw(st.booleans()) else None
    before = values.copy()
    with ThreadPoolExecutor(max_workers=2) as pool:
        split = split_sort(values, parts, pool, negate=negate, where=where, each=np.copy)
    assert_array_equal(values, before)  # the input is left alone
    # each: called on every sorted range, in order.
    assert len(split.each) == len(split.cuts) - 1
    for b, got in enumerate(split.each):
        assert_array_equal(got, split.sorted[split.cuts[b]:split.cuts[b + 1]])
    keys = -values if negate else values
    assert_array_equal(split.sorted, np.sort(keys))
    assert split.spare.shape == values.shape
    assert split.cuts[0] == 0
    assert split.cuts[-1] == values.shape[0]
    assert split.cuts == sorted(split.cuts)
    if where is None:
        assert split.chosen is None
    else:
        assert_array_equal(split.chosen, np.sort(keys[where]))
        assert len(split.chosen_cuts) == len(split.cuts)
    # Ranges of values: every value of a range is below every value of the next, and
    # the chosen values of range b lie in range b's span.
    for b in range(len(split.cuts) - 1):
        low, high = split.cuts[b], split.cuts[b + 1]
        later = split.sorted[high:]
        if high > low and later.shape[0]:
            assert split.sorted[high - 1] < later[0]
        if where is not None:
            chosen = split.chosen[split.chosen_cuts[b]:split.chosen_cuts[b + 1]]
            if chosen.shape[0]:
                assert low < high
                assert split.sorted[low] <= chosen[0]
                assert chosen[-1] <= split.sorted[high - 1]


def test_split_sort_puts_nan_last() -> None:
    values = np.array([np.nan, 0.5, np.nan, -1.0, np.nan, 2.0, np.nan, np.nan] * 50)
    for parts in (2, 3, 8):
        split = split_sort(values, parts, negate=True, where=values > 0)
        assert_array_equal(split.sorted, np.sort(-values))
        assert_array_equal(split.chosen, np.sort(-values[values > 0]))


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nan_and_infinity_are_errors_on_the_fast_paths(threads, bad, dtype) -> None:
    rng = np.random.default_rng(2)
    y = rng.random(600) < 0.3
    for at in (0, 299, 300, 599):  # in either half, at either end
        scores = rng.random(600).astype(dtype)
        scores[at] = bad
        with _threads(threads, 100):
            for compute in (average_precision, pr_curve):
                with pytest.raises(InvalidInputError,
                                   match=rf"y_score.*\(first at index {at}\)"):
                    compute(y, scores)


@pytest.mark.parametrize("threads", [2, 3])
def test_a_negative_tied_with_a_positive_in_another_part_or_the_same(threads) -> None:
    # Part boundaries at 1/2 (and 1/3, 2/3) of the rows: ties across parts, within a
    # part, and with several positives at one score.
    n = 3000
    scores = np.linspace(0.0, 1.0, n)
    y = np.zeros(n, dtype=bool)
    y[::10] = True
    scores[n - 1] = scores[0]  # a positive (row 0) and a negative in the last part
    scores[11] = scores[10]  # a positive (row 10) and a negative in the same part
    scores[[20, 1500, 2990]] = scores[20]  # three positives, three parts
    scores[[31, 1501]] = scores[30]  # a positive with negatives in two parts
    want = _general_state(y, scores)
    want_steps = RecallSteps.from_counts(want)
    with _threads(threads, 100):
        _assert_same_bits(ThresholdCounts.from_scores(y, scores), want)
        steps = RecallSteps.from_hard_scores(y, scores)
    for name in ("tp", "fp", "fp_above"):
        assert_array_equal(getattr(steps, name), getattr(want_steps, name))


@pytest.mark.parametrize("positive", [True, False])
def test_one_class_only_on_several_threads(positive) -> None:
    rng = np.random.default_rng(4)
    scores = np.round(rng.random(5000), 2)
    y = np.full(5000, positive)
    want = _general_state(y, scores)
    for threads in (1, 2, 3):
        with _threads(threads, 100):
            _assert_same_bits(ThresholdCounts.from_scores(y, scores), want)
            assert_array_equal(RecallSteps.from_hard_scores(y, scores).fp,
                               RecallSteps.from_counts(want).fp)


@FAST
@given(values=arrays(np.float64, st.integers(0, 400), elements=SCORES),
       parts=st.integers(1, 6))
def test_segments_are_sorted_and_cut_at_the_start_of_runs(values, parts) -> None:
    want = np.sort(values)
    got = values.copy()
    with ThreadPoolExecutor(max_workers=2) as pool:
        cuts = sort_segments(got, parts, pool)
    assert_array_equal(got, want)
    assert cuts[0] == 0
    assert cuts[-1] == values.shape[0]
    assert cuts == sorted(cuts)
    for c in cuts[1:-1]:
        assert c == 0 or c == values.shape[0] or got[c - 1] != got[c]


def test_thread_setting(monkeypatch) -> None:
    monkeypatch.setenv("PRCURVE_SORT_THREADS", "3")
    assert sort_threads() == 3
    set_sort_threads(1)
    assert sort_threads() == 1
    set_sort_threads(None)
    monkeypatch.delenv("PRCURVE_SORT_THREADS")
    assert 1 <= sort_threads() <= 8
    for bad in (0, -1, 2.0, True, "2"):
        with pytest.raises(ValueError, match="positive integer"):
            set_sort_threads(bad)  # type: ignore[arg-type]


def test_small_inputs_use_one_core(monkeypatch) -> None:
    calls = []
    # prcurve.core.sorting and hard_labels import ThreadPoolExecutor where threads start
    # (issue 26: small runs never load concurrent.futures): patched at its source.
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor",
                        lambda **kw: calls.append(kw) or pytest.fail("threads started"))
    values = np.random.default_rng(0).random(1000)
    y = values > 0.7
    set_sort_threads(8)
    try:
        assert_array_equal(sorted_copy(values, threads=8), np.sort(values))
        _assert_same_bits(ThresholdCounts.from_scores(y, values), _general_state(y, values))
        assert average_precision(y, values) == average_precision(
            y, values, sample_weight=np.ones(1000))
    finally:
        set_sort_threads(None)
    assert calls == []


def test_the_input_is_left_alone() -> None:
    values = np.random.default_rng(5).random(10_000)
    before = values.copy()
    sorted_copy(values, threads=3, min_parallel=100)
    sorted_copy(values, where=values > 0.3, threads=3, min_parallel=100)
    assert_array_equal(values, before)


@given(values=st.lists(st.floats(-3, 3, width=16), max_size=40),
       queries=st.lists(st.floats(-4, 4, width=16), max_size=9000))
def test_locate_is_searchsorted_and_membership(values, queries) -> None:
    """locate: the left insertion place of each ascending query (count_below, windowed
    past 2 * 4096 queries) and whether the query equals the value there (-0.0 finds 0.0)."""
    from prcurve.core.sorting import locate

    sorted_values = np.unique(np.array(values, dtype=np.float64))
    ascending = np.sort(np.array(queries, dtype=np.float64))
    place, found = locate(sorted_values, ascending)
    assert place.tolist() == np.searchsorted(sorted_values, ascending).tolist()
    members = set(sorted_values.tolist())
    assert found.tolist() == [q in members for q in ascending.tolist()]

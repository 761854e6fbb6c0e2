"""Sorting on several cores (issue 15, item 6): the sample sort equals ``np.sort`` element
for element, with or without a mask, on ties, signed zeros, tiny and lopsided inputs; and
the exact states and AP built on it equal those of one-core sorts to the last bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal
from tests.strategies import FAST

from prcurve import ThresholdCounts, average_precision
from prcurve.core import sorting
from prcurve.core.sorting import set_sort_threads, sort_threads, sorted_copy

FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)


@FAST
@given(values=arrays(np.float64, st.integers(0, 300), elements=FINITE | st.sampled_from(
    [0.0, -0.0, 1.0, np.inf, -np.inf])), threads=st.integers(1, 7),
    masked=st.booleans(), data=st.data())
def test_sample_sort_equals_np_sort(values, threads, masked, data) -> None:
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
def test_sample_sort_of_large_arrays_with_ties(dtype) -> None:
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


def test_states_and_ap_are_the_same_to_the_last_bit_on_any_number_of_threads(
        monkeypatch) -> None:
    rng = np.random.default_rng(11)
    n = 200_000
    y = rng.random(n) < 0.3
    scores = np.round(rng.random(n) + y * 0.3, 4)  # ties within and across classes
    monkeypatch.setattr(sorting, "MIN_PARALLEL", 1 << 20)
    set_sort_threads(1)
    try:
        one = ThresholdCounts.from_scores(y, scores)
        ap_one = average_precision(y, scores)
        for threads in (2, 3):
            set_sort_threads(threads)
            with monkeypatch.context() as m:
                m.setattr(sorting, "sorted_copy", _forced(sorting.sorted_copy))
                m.setattr("prcurve.core.counts.sorted_copy", _forced(sorting.sorted_copy))
                many = ThresholdCounts.from_scores(y, scores)
                ap_many = average_precision(y, scores)
            for name in ("thresholds", "tp", "fp"):
                assert_array_equal(getattr(many, name), getattr(one, name))
            assert ap_many == ap_one
    finally:
        set_sort_threads(None)


def _forced(sort):
    """The sort with threads even for small arrays (the tests' arrays are small)."""
    def forced(values, *, where=None, threads=None, min_parallel=None):
        return sort(values, where=where, threads=threads, min_parallel=1000)
    return forced


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
    monkeypatch.setattr(sorting, "ThreadPoolExecutor",
                        lambda **kw: calls.append(kw) or pytest.fail("threads started"))
    values = np.random.default_rng(0).random(1000)
    assert_array_equal(sorted_copy(values, threads=8), np.sort(values))
    assert calls == []


def test_the_input_is_left_alone() -> None:
    values = np.random.default_rng(5).random(10_000)
    before = values.copy()
    sorted_copy(values, threads=3, min_parallel=100)
    sorted_copy(values, where=values > 0.3, threads=3, min_parallel=100)
    assert_array_equal(values, before)

"""Sequential sums within segments (prcurve.ranking.state): the same floats as adding each
segment's terms one at a time in a Python loop (trec_eval's ``sum += ...``), whether the
segments are stepped through together or each finished by its own ``cumsum`` (session 33:
one query of 10^6 documents made 10^5 numpy calls a measure)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import state

FLOATS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def _loop_sums(values: list[float], begin: list[int], count: list[int]) -> tuple[
        list[float], list[float]]:
    """The oracle: totals and running sums, one Python addition at a time."""
    totals, running = [], [0.0] * len(values)
    for b, c in zip(begin, count, strict=True):
        total = 0.0
        for i in range(b, b + c):
            total += values[i]
            running[i] = total
        totals.append(total)
    return totals, running


@st.composite
def segments(draw: st.DrawFn) -> tuple[list[float], list[int], list[int]]:
    lengths = draw(st.lists(st.integers(0, 40), min_size=1, max_size=30))
    gaps = draw(st.lists(st.integers(0, 2), min_size=len(lengths), max_size=len(lengths)))
    begin, at = [], 0
    for length, gap in zip(lengths, gaps, strict=True):
        at += gap
        begin.append(at)
        at += length
    values = draw(st.lists(st.one_of(FLOATS, st.sampled_from([0.1, 1 / 3, 0.7, 1e-17])),
                           min_size=at + 1, max_size=at + 1))
    order = draw(st.permutations(range(len(lengths))))
    return values, [begin[k] for k in order], [lengths[k] for k in order]


@pytest.mark.parametrize("few", [0, 3, 1 << 30])
@settings(max_examples=60, deadline=None)
@given(case=segments())
def test_sums_equal_a_python_loop_on_every_path(few: int, case: tuple[
        list[float], list[int], list[int]]) -> None:
    values, begin, count = case
    totals, running = _loop_sums(values, begin, count)
    original = state.FEW_SEGMENTS
    state.FEW_SEGMENTS = few  # 0: every segment by cumsum; 2^30: every step vectorised
    try:
        array, b, c = np.array(values), np.array(begin), np.array(count)
        got = state.sequential_sums(array, b, c)
        # Non-integers force segmented_cumsum's stepped path (integers take a global cumsum).
        got_running = state.segmented_cumsum(array, b, c)
    finally:
        state.FEW_SEGMENTS = original
    assert got.tolist() == totals
    inside = np.zeros(len(values), dtype=bool)
    for start, length in zip(begin, count, strict=True):
        inside[start:start + length] = True
    assert got_running[inside].tolist() == np.array(running)[inside].tolist()
    assert not got_running[~inside].any()


def test_one_long_segment_takes_few_numpy_calls() -> None:
    """10^6 terms in one segment: a cumsum, not 10^6 steps (seconds before session 33)."""
    import time

    rng = np.random.default_rng(0)
    values = rng.random(1_000_000)
    start = time.process_time()
    total = state.sequential_sums(values, np.array([0]), np.array([1_000_000]))
    running = state.segmented_cumsum(values, np.array([0]), np.array([1_000_000]))
    elapsed = time.process_time() - start
    assert total[0] == running[-1] == float(np.cumsum(values)[-1])
    assert elapsed < 0.5  # the stepped loop took about 2 s here


def test_log2_table_is_libms_log2_as_it_grows() -> None:
    """The table of log2 of ranks (DCG's discounts) holds math.log2 of every rank, filled
    again as larger ranks come (session 33: filled by ``map`` instead of a list)."""
    import math

    from prcurve.ranking.graded import log2_of

    for largest in (5, 3000, 70_001):
        ranks = np.arange(1, largest + 1)
        assert log2_of(ranks).tolist() == [math.log2(r) for r in range(1, largest + 1)]

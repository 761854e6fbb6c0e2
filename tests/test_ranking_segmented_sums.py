"""Running sums within segments, added one term at a time from 0.0 (trec_eval's loops):
``state.segmented_cumsum`` and ``state.sequential_sums`` bit for bit against a Python
loop, on both routes of ``state._steps`` (the padded matrix of about equal segments,
issue 26 item 5 session 37, and the steps of ragged ones)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_ranking_sums import _loop_sums

from prcurve.ranking import state


@settings(max_examples=80, deadline=None)
@given(data=st.data(), ragged=st.booleans(), stepped=st.booleans())
def test_segmented_sums_are_the_loops(data: st.DataObject, ragged: bool,
                                      stepped: bool) -> None:
    floats = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)
    lengths = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=30))
    if ragged:  # one long segment among 8+ short: the padding past the limit, the steps
        lengths += [1] * 8 + [5000 + data.draw(st.integers(0, 100))]
    elif stepped:  # 300 short among 20 longer: steps over every segment, then the
        # longer ones finished one by one (fewer segments than steps left)
        lengths += [5 + k % 8 for k in range(300)] + [60 + data.draw(st.integers(0, 20))
                                                      for _ in range(20)]
        ragged = True
    gaps = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths),
                              max_size=len(lengths)))
    begin, at = [], 0
    for length, gap in zip(lengths, gaps, strict=True):
        at += gap
        begin.append(at)
        at += length
    values = np.array(data.draw(st.lists(floats, min_size=at, max_size=at)) if at < 200
                      else np.random.default_rng(at).normal(size=at) * 10.0 ** (at % 7))
    order = data.draw(st.permutations(range(len(begin))))  # segments in any order
    b = np.array(begin, dtype=np.int64)[list(order)]
    c = np.array(lengths, dtype=np.int64)[list(order)]
    want_totals, want_out = _loop_sums(values.tolist(), b.tolist(), c.tolist())
    got = state.segmented_cumsum(values, b, c)
    assert got.tolist() == want_out
    assert state.sequential_sums(values, b, c).tolist() == want_totals
    assert (state._padded_steps(values, b, c, None) is None) == ragged

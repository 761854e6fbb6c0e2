"""The stable ascending order of float scores by one integer sort (issue 26, item 6,
session 36): ``np.argsort(scores, kind="stable")``, element for element, at about the
cost of ``np.sort`` of the scores.

NumPy's stable argsort of float64 is a single-threaded merge sort, about 15 times
slower than ``np.sort`` (which uses the vectorized quicksort of x86-simd-sort or
Highway): 2.1 s against 0.15 s of CPU for 10^7 normal values on the project's machine
(AVX2). The weighted exact state needs the rows' order, not only the sorted scores,
because each row carries its weight. Here each row becomes one ``int64`` word, sorted
by ``np.sort``'s fast path:

- the score as an order-preserving integer key: the IEEE bits of ``score + 0.0`` (which
  turns ``-0.0`` into ``0.0``: the two compare equal, as the stable argsort treats
  them) as a signed integer, with every bit but the sign flipped for negative values;
  that integer orders as the float does (finite values; NaN is refused before);
- minus the smallest key, so that the key spans ``b`` bits (the range of the scores:
  scores in a narrow range need few), shifted right by ``s = max(0, b + m - 63)`` bits,
  where ``m`` bits hold a row number;
- shifted left by ``m`` bits, the row number in the low ``m`` bits.

Words are distinct (the row numbers differ), so the unstable sort's order is the order
of (key prefix, row): where ``s = 0`` that is (score, row), the stable order itself.
Where ``s > 0``, rows whose keys share a prefix (a *group*) stay in row order even where
their scores differ; across groups the scores are already ordered (the prefix is a
non-decreasing function of the score). The sorted words are then read a block of
positions at a time, each block extended to the end of its last group: where a block's
scores descend somewhere, a stable argsort of that block (nearly sorted, so NumPy's
merge sort is fast: 0.08 s for 10^7 values) puts it in (score, row) order, rows of
equal score keeping their row order, since they share a group. Every position is read
once, and the scores are gathered in sorted order on the way.

Memory: the words (8 bytes a row, which become the order in place) and the sorted
scores; a block's temporaries.

Examples
--------
>>> import numpy as np
>>> from prcurve.core.stable_order import stable_order
>>> scores = np.array([0.5, -0.0, 2.0, 0.0, 0.5])
>>> order, ordered = stable_order(scores)
>>> order.tolist(), ordered.tolist()
([1, 3, 0, 4, 2], [-0.0, 0.0, 0.5, 0.5, 2.0])
>>> bool(np.array_equal(order, np.argsort(scores, kind="stable")))
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["stable_order"]

MIN_PACKED = 1 << 12
"""Fewer scores than this are ordered by ``np.argsort(kind="stable")`` itself (read at
each call: tests lower it)."""

_BLOCK = 1 << 16  # positions read (and, where their scores descend, re-sorted) at a time
_GROUP_SCAN = 1 << 12  # positions looked at at a time for the end of a block's last group
_LOW_63 = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def stable_order(scores: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[Any]]:
    """``(order, scores[order])`` with ``order`` equal to ``np.argsort(scores,
    kind="stable")``: finite float scores (NaN and infinity are checked by the caller;
    other dtypes take NumPy's stable argsort)."""
    n = scores.shape[0]
    if n < max(MIN_PACKED, 2) or scores.dtype.kind != "f":
        order = np.argsort(scores, kind="stable")
        return order, scores[order]
    words = np.empty(n, dtype=np.int64)
    low = high = 0
    for start in range(0, n, _BLOCK):  # keys: order-preserving integers, in blocks
        part = words[start:start + _BLOCK]
        np.add(scores[start:start + _BLOCK], 0.0, out=part.view(np.float64))  # -0.0 -> 0.0
        sign = part >> 63  # -1 for negative values, else 0
        sign &= _LOW_63
        part ^= sign  # negative values: every bit but the sign flipped
        low = min(low, int(part.min())) if start else int(part.min())
        high = max(high, int(part.max())) if start else int(part.max())
    row_bits = (n - 1).bit_length()
    shift = max(0, (high - low).bit_length() + row_bits - 63)
    offset = np.uint64(low % (1 << 64))  # the smallest key, as the unsigned words see it
    unsigned = words.view(np.uint64)
    for start in range(0, n, _BLOCK):  # (key - smallest) >> shift, then the row number
        word = unsigned[start:start + _BLOCK]
        word -= offset  # modulo 2^64: the difference itself, in [0, high - low]
        word >>= np.uint64(shift)
        word <<= np.uint64(row_bits)
        word |= np.arange(start, start + word.shape[0], dtype=np.uint64)
    words.sort()  # distinct words: the unstable (vectorized) sort's order is unique
    ordered = np.empty_like(scores)
    rows = np.int64((1 << row_bits) - 1)
    start = 0
    while start < n:
        end = min(start + _BLOCK, n)
        if shift:
            end = _group_end(words, end, row_bits)
        part = words[start:end]
        order = part & rows
        values = scores[order]
        if shift and bool(np.any(values[1:] < values[:-1])):
            fix = np.argsort(values, kind="stable")  # within whole groups: see above
            order, values = order[fix], values[fix]
        part[...] = order
        ordered[start:end] = values
        start = end
    return words.view(np.intp), ordered


def _group_end(words: NDArray[np.int64], end: int, row_bits: int) -> int:
    """The first position at or after ``end`` whose key prefix differs from that of
    position ``end - 1`` (the end of the group that position ``end - 1`` is in)."""
    n: int = words.shape[0]
    if end >= n:
        return n
    prefix = words[end - 1] >> row_bits
    while end < n:
        differs = np.flatnonzero((words[end:end + _GROUP_SCAN] >> row_bits) != prefix)
        if differs.shape[0]:
            return end + int(differs[0])
        end = min(end + _GROUP_SCAN, n)
    return n

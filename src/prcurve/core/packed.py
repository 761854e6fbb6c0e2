"""The packed runs of float32 scores without weights, the fast path of
:class:`prcurve.core.merge.ExactAccumulator` (issue 15, item 2).

Each class keeps its own run of ``uint64`` words, the score's order-preserving 32-bit
key above its count, so a merge is one stable ``np.sort`` of two concatenated runs
(timsort: linear) and the sum of adjacent words with one key -- no gathers of separate
arrays. The two classes' keys are joined once, straight into the decreasing thresholds
and cumulative counts of a :class:`~prcurve.ThresholdCounts`. Every count is an integer:
the state equals the general path's bit for bit.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import ThresholdCounts
from prcurve.core.sorting import _NoPool, locate, parts_for, run_parts, sort_segments

__all__ = ["PACKED_PIECE", "Packed"]

_UINT32_LIMIT = (1 << 32) - 1

PACKED_PIECE = 1 << 18
"""Words handled at a time when runs are counted, compacted and joined (temporaries
stay in cache)."""

Packed = NDArray[np.uint64]
"""A run of one class: ascending ``key << 32 | count`` words, one per distinct score."""

_LOW = np.uint64(_UINT32_LIMIT)
_HIGH = 1 if sys.byteorder == "little" else 0
"""Which 32-bit half of a uint64 word holds its upper bits, in memory order."""
_SHIFT = np.uint64(32)


def _float32_keys(scores: NDArray[np.float32]) -> NDArray[np.uint32]:
    """Order-preserving unsigned keys of float32 scores (no NaN; -0.0 as 0.0)."""
    bits = (scores + np.float32(0.0)).view(np.uint32)  # -0.0 + 0.0 is 0.0
    negative = bits >= np.uint32(1 << 31)
    # Positive floats: set the sign bit; negative ones: flip every bit (IEEE 754 order).
    keys: NDArray[np.uint32] = np.where(negative, ~bits, bits | np.uint32(1 << 31))
    return keys


def _key_floats(keys: NDArray[np.unsignedinteger[Any]]) -> NDArray[np.float32]:
    """The float32 scores of keys (the inverse of :func:`_float32_keys`)."""
    k = keys.astype(np.uint32)
    positive = k >= np.uint32(1 << 31)
    return np.where(positive, k & np.uint32((1 << 31) - 1), ~k).view(np.float32)


def _packed_run(scores: NDArray[np.float32]) -> Packed:
    """One class's rows of a run counted: distinct scores' keys above their counts.
    ``scores`` is this accumulator's own copy: sorted in place (on several threads when
    large, :func:`~prcurve.core.sorting.sort_segments`)."""
    parts = parts_for(scores.shape[0])
    with ThreadPoolExecutor(max_workers=parts) if parts > 1 else _NoPool() as pool:
        sort_segments(scores, parts, pool)
    n = scores.shape[0]
    # The sorted scores become their keys in place (their own memory): ascending, the
    # negative ones (every bit flipped) first; -0.0 and 0.0 both get 0.0's key.
    negative = int(np.searchsorted(scores, np.float32(0.0), side="left"))
    keys = scores.view(np.uint32)
    np.invert(keys[:negative], out=keys[:negative])
    np.bitwise_or(keys[negative:], np.uint32(1 << 31), out=keys[negative:])
    # Runs of equal keys counted a piece at a time (temporaries stay in cache): one
    # pass counts the distinct keys, one writes each word as its two 32-bit halves.
    pieces = range(0, n, PACKED_PIECE)
    size = 1 + sum(int(np.count_nonzero(keys[start + 1:stop + 1] != keys[start:stop]))
                   for start in pieces
                   for stop in [min(start + PACKED_PIECE, n - 1)]) if n else 0
    words = np.empty(size, dtype=np.uint64)
    halves = words.view(np.uint32)
    word_keys, word_counts = halves[_HIGH::2], halves[1 - _HIGH::2]
    written = 0
    for start in pieces:
        piece = keys[start:start + PACKED_PIECE]
        first = np.empty(piece.shape[0], dtype=bool)  # where a run starts
        first[0] = start == 0 or keys[start] != keys[start - 1]
        np.not_equal(piece[1:], piece[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        if not first[0]:  # the last run of the previous piece goes on
            word_counts[written - 1] += starts[0] if starts.shape[0] else piece.shape[0]
        found = starts.shape[0]
        word_keys[written:written + found] = piece[starts]
        counts = word_counts[written:written + found]
        np.subtract(starts[1:], starts[:-1], out=counts[:-1], casting="unsafe")
        if found:
            counts[-1] = piece.shape[0] - starts[-1]
        written += found
    return words


def _merge_packed(a: Packed, b: Packed) -> Packed:
    """Two runs of one class merged: one stable sort of the two ascending runs (timsort
    merges them in linear time), the counts of a key in both added (counts fit 32 bits:
    the packed path holds fewer than 2^32 rows)."""
    n = a.shape[0] + b.shape[0]
    parts = parts_for(n)
    if parts == 1:
        both = np.concatenate((a, b))
        both.sort(kind="stable")
        both.resize(_add_shared(both), refcheck=False)
        return both
    # Several threads: the keys cut into ranges at keys of the longer run; a range of
    # each run is copied to its place, merged and compacted in its thread, then the
    # ranges are moved together. A key in both runs falls in one range.
    longer = a if a.shape[0] >= b.shape[0] else b
    cut_words = np.array([(int(longer[longer.shape[0] * k // parts]) >> 32) << 32
                          for k in range(1, parts)], dtype=np.uint64)
    cuts_a = [0, *np.searchsorted(a, cut_words).tolist(), a.shape[0]]
    cuts_b = [0, *np.searchsorted(b, cut_words).tolist(), b.shape[0]]
    both = np.empty(n, dtype=np.uint64)

    def merge(k: int) -> int:
        start = cuts_a[k] + cuts_b[k]
        length_a = cuts_a[k + 1] - cuts_a[k]
        part = both[start:cuts_a[k + 1] + cuts_b[k + 1]]
        part[:length_a] = a[cuts_a[k]:cuts_a[k + 1]]
        part[length_a:] = b[cuts_b[k]:cuts_b[k + 1]]
        part.sort(kind="stable")
        return _add_shared(part)

    with ThreadPoolExecutor(max_workers=parts) as pool:
        kept = run_parts(merge, parts, pool)
    written = kept[0]
    for k in range(1, parts):
        start = cuts_a[k] + cuts_b[k]
        both[written:written + kept[k]] = both[start:start + kept[k]]  # moved down
        written += kept[k]
    both.resize(written, refcheck=False)
    return both


def _add_shared(both: Packed) -> int:
    """Compact ascending words of two strictly increasing runs in place: the count of a
    key in both added to one word, the other dropped; return the words kept."""
    # Each run is strictly increasing, so a key in both runs is a pair of neighbours:
    # add the first's count to the second and drop the first. Piece by piece (the
    # temporaries stay in cache), compacting in place: writes never pass the reads.
    n, written = both.shape[0], 0
    high = both.view(np.uint32)[_HIGH::2]
    for start in range(0, n, PACKED_PIECE):
        stop = min(start + PACKED_PIECE, n)
        keys = high[start:min(stop + 1, n)]  # the words' upper halves: their keys
        shared = np.flatnonzero(keys[1:] == keys[:-1])
        piece = both[start:stop]
        if shared.shape[0] == 0:
            both[written:written + piece.shape[0]] = piece
            written += piece.shape[0]
            continue
        both[start + shared + 1] += both[start + shared] & _LOW  # may reach the next piece
        keep = np.ones(piece.shape[0], dtype=bool)
        keep[shared] = False
        kept = piece[keep]
        both[written:written + kept.shape[0]] = kept
        written += kept.shape[0]
    return written


def _unpack(pos_run: Packed | None, neg_run: Packed | None,
            ) -> tuple[NDArray[np.float32], NDArray[np.uint32], NDArray[np.uint32]]:
    """The two classes' runs joined: ascending float32 scores, uint32 counts of each."""
    empty = np.zeros(0, dtype=np.uint64)
    keys, pos, neg = _join_keys(empty if pos_run is None else pos_run,
                                empty if neg_run is None else neg_run)
    return _key_floats(keys), pos, neg


def _join_keys(pos_run: Packed, neg_run: Packed,
               ) -> tuple[NDArray[np.uint32], NDArray[np.uint32], NDArray[np.uint32]]:
    """The two classes' runs joined: the ascending keys of both and each class's count
    at each key (0 where the class has no such key)."""
    pos_halves = pos_run.view(np.uint32)
    neg_halves = neg_run.view(np.uint32)
    pos_keys, neg_keys = pos_halves[_HIGH::2], neg_halves[_HIGH::2]
    # Both key lists are strictly increasing: a positive key's place among the
    # negative keys, whether it is one of them, and so its place in the union.
    place, shared = locate(neg_keys, pos_keys)
    new = np.logical_not(shared)
    before = np.cumsum(new, dtype=np.intp)  # new positive keys up to each, inclusive
    before -= new
    place += before  # now the place in the union
    size = neg_keys.shape[0] + pos_keys.shape[0] - int(np.count_nonzero(shared))
    from_neg = np.ones(size, dtype=bool)
    from_neg[place[new]] = False
    keys = np.empty(size, dtype=np.uint32)
    keys[from_neg] = neg_keys
    keys[place] = pos_keys
    pos = np.zeros(size, dtype=np.uint32)
    pos[place] = pos_halves[1 - _HIGH::2]
    neg = np.zeros(size, dtype=np.uint32)
    neg[from_neg] = neg_halves[1 - _HIGH::2]
    return keys, pos, neg


def _packed_state(pos_run: Packed | None, neg_run: Packed | None) -> ThresholdCounts:
    """The state of the two classes' packed runs, joined a range of keys at a time from
    the top (about :data:`PACKED_PIECE` keys of each run): each range's keys are written
    as decreasing thresholds with the counts at or above them, so memory is the runs and
    the state, never a joined run beside them. Counts are integers (exact)."""
    empty = np.zeros(0, dtype=np.uint64)
    pos_run = empty if pos_run is None else pos_run
    neg_run = empty if neg_run is None else neg_run
    size = pos_run.shape[0] + neg_run.shape[0]  # at least the distinct scores
    thresholds, tp, fp = np.empty(size), np.empty(size), np.empty(size)
    written, tp_above, fp_above = 0, 0, 0
    pos_high, neg_high = pos_run.shape[0], neg_run.shape[0]
    while pos_high > 0 or neg_high > 0:
        # The range: keys at or above the higher of the two runs' PACKED_PIECE-th key
        # from the top (all that is left once both runs are shorter).
        low = max((int(run[high - PACKED_PIECE]) >> 32 for run, high in (
            (pos_run, pos_high), (neg_run, neg_high)) if high > PACKED_PIECE), default=None)
        if low is None:
            pos_low = neg_low = 0
        else:  # a word's count is at least 1: key << 32 is below every word of that key
            word = np.uint64(low << 32)
            pos_low = int(np.searchsorted(pos_run[:pos_high], word))
            neg_low = int(np.searchsorted(neg_run[:neg_high], word))
        keys, pos, neg = _join_keys(pos_run[pos_low:pos_high], neg_run[neg_low:neg_high])
        out = slice(written, written + keys.shape[0])
        thresholds[out] = _key_floats(keys[::-1])  # float32 to float64: exact
        above = np.cumsum(pos[::-1], dtype=np.int64)
        above += tp_above
        tp[out] = above
        tp_above = int(above[-1])
        np.cumsum(neg[::-1], dtype=np.int64, out=above)
        above += fp_above
        fp[out] = above
        fp_above = int(above[-1])
        written += keys.shape[0]
        pos_high, neg_high = pos_low, neg_low
    for array in (thresholds, tp, fp):
        array.resize(written, refcheck=False)  # keys in both runs counted once
    return ThresholdCounts._trusted(thresholds, tp, fp, float(tp_above), float(fp_above))

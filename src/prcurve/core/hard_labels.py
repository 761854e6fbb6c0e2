"""The exact state and the average-precision ranks of hard, unweighted labels, on
several cores: the fast paths of ``ThresholdCounts.from_scores`` and
``RecallSteps.from_hard_scores`` (issue 15, item 6).

Both start from the sorts of :mod:`prcurve.core.sorting` and keep every count an exact
integer, so the result is the same on any number of threads and equal, bit for bit, to
the general (weighted) path's. Fresh arrays are few: on this kind of machine each one
costs its page faults, about as much as a pass over it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.sorting import (
    _equal_neighbours,
    _NoPool,
    _run_lengths,
    _run_starts,
    count_below,
    part_bounds,
    parts_for,
    run_parts,
    split_sort,
)
from prcurve.validation.arrays import check_finite

__all__ = ["COUNTS_LIMIT", "hard_label_counts", "hard_label_ranks"]

F64 = NDArray[np.float64]

COUNTS_LIMIT = (1 << 32) - 1
"""States of at most this many rows keep their counts as uint32 (every count is at most
the rows); more rows: float64."""


def _pool(parts: int) -> Any:
    """A pool of ``parts`` threads, or a stand-in running in this thread for one part:
    ``concurrent.futures`` (with ``logging``, about 5 ms) is imported only where threads
    start (issue 26: a small report counts on one thread)."""
    if parts <= 1:
        return _NoPool()
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=parts)


def hard_label_counts(
    scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_], *,
    unchecked: str | None = None,
) -> tuple[F64, NDArray[Any], NDArray[Any], float, float]:
    """The exact state (thresholds, tp, fp, n_pos, n_neg) of hard, unweighted labels
    (``ThresholdCounts.from_scores`` without weights); ``tp`` and ``fp`` are uint32 for
    up to :data:`COUNTS_LIMIT` rows (exact integers: the invariant of
    ``ThresholdCounts``'s counts), float64 above.

    The scores are negated and sorted (ascending ``-score`` is decreasing score: no
    reversed copy) by ranges of values, one range per thread, and so are the positives'
    (:func:`split_sort`); every later step works on one range in the same thread,
    writing its slice of the outputs (in chunks that stay in cache). Without ties the
    sorted copy becomes the thresholds and the copy that the threads partitioned (8
    bytes a row) holds ``tp`` and ``fp`` side by side (4 bytes each, uint32): two fresh
    arrays of the scores' size in all, the state's 16 bytes a threshold (issue 26, item
    6; it was 24 with float64 counts). With ties, or float32 scores, the thresholds are
    written first (into the spare where nearly every score differs), and the sorted copy
    and the spare let go before the counts are made (session 35). At each distinct score of a
    range, the cumulative count of all rows is the end of its run of ties plus the rows
    of the ranges above; the positives' (``tp``) is a step function that rises at the
    positive scores, found by searching the sorted positive scores in the range; and
    ``fp`` is the difference. All counts are integers, exact in float64: the state is
    the same on any number of threads, and equal to the general (weighted) path's.
    """
    n = scores.shape[0]
    parts = parts_for(n)
    with _pool(parts) as pool:
        # Ascending -score: decreasing score (copies, sorted by ranges of values); the
        # positives' too, in the same ranges: range k's are
        # pos_sorted[pos_cuts[k]:pos_cuts[k + 1]].
        split = split_sort(scores, parts, pool, negate=True, where=positive,
                           each=_compact_run_starts)
        neg_sorted, cuts, spare = split.sorted, split.cuts, split.spare
        pos_cuts = split.chosen_cuts
        pos_sorted = neg_sorted[:0].copy() if split.chosen is None else split.chosen
        starts: list[NDArray[Any] | None] = split.each  # runs of ties, per range
        del split  # the spare and the sorted copy are ours alone: freed when let go
        if unchecked is not None:
            _check_ends(unchecked, scores, neg_sorted)
        parts = len(cuts) - 1  # fewer ranges than threads for very few values
        n_pos = pos_cuts[-1]

        sizes = [cuts[k + 1] - cuts[k] if s is None else s.shape[0]
                 for k, s in enumerate(starts)]
        offsets = np.concatenate(([0], np.cumsum(sizes))).tolist()
        m = offsets[-1]
        kind = np.dtype(np.uint32) if n <= COUNTS_LIMIT else np.dtype(np.float64)
        # Without ties anywhere the sorted float64 copy becomes the thresholds in place,
        # and the spare (free now) holds the counts.
        if neg_sorted.dtype == np.float64 and all(t is None for t in starts):
            thresholds: F64 = neg_sorted
            if spare.nbytes >= 2 * m * kind.itemsize:
                words = spare.reshape(-1).view(kind)
                tp, fp = words[:m], words[m:2 * m]
            elif spare.dtype == kind:  # float64 counts: the spare holds fp
                tp, fp = np.empty(m, dtype=kind), spare
            else:
                tp, fp = np.empty(m, dtype=kind), np.empty(m, dtype=kind)
            del spare
            levels = run_parts(partial(_place, neg_sorted=neg_sorted, thresholds=None, cuts=cuts,
                                       starts=starts, offsets=offsets, pos_sorted=pos_sorted,
                                       pos_cuts=pos_cuts), parts, pool)
            run_parts(partial(_count, tp=tp, fp=fp, cuts=cuts, starts=starts, offsets=offsets,
                              levels=levels), parts, pool)
            return thresholds, tp, fp, float(n_pos), float(n - n_pos)
        # With ties (or float32 scores) the thresholds are a new array: written first,
        # then the sorted copy and the spare are let go before the counts are made, so
        # that at most three arrays of the rows' size live at once (issue 26, item 6,
        # session 35: a single tie took the peak from 18 to 42 bytes a row).
        # Nearly every score distinct: the spare holds them (a view: the state keeps the
        # spare's size, at most 8/7 of the thresholds'); else a new array of their size.
        reuse = spare.dtype == np.float64 and 8 * m >= 7 * spare.nbytes // 8
        thresholds = spare.reshape(-1)[:m] if reuse else np.empty(m)
        del spare
        levels = run_parts(partial(_place, neg_sorted=neg_sorted, thresholds=thresholds,
                                   cuts=cuts, starts=starts, offsets=offsets,
                                   pos_sorted=pos_sorted, pos_cuts=pos_cuts), parts, pool)
        del neg_sorted, pos_sorted
        tp, fp = np.empty(m, dtype=kind), np.empty(m, dtype=kind)
        run_parts(partial(_count, tp=tp, fp=fp, cuts=cuts, starts=starts, offsets=offsets,
                          levels=levels), parts, pool)
    return thresholds, tp, fp, float(n_pos), float(n - n_pos)


def _compact_run_starts(sorted_values: NDArray[Any]) -> NDArray[Any] | None:
    """Where each run of equal values starts in an ascending array (as
    :func:`~prcurve.core.sorting._run_starts`; None if all differ), as int32 where the
    array is shorter than 2^31, found a block at a time: no flag per value and no
    full-length intp temporaries in the sort's threads (issue 26, item 6)."""
    n = sorted_values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    if not _equal_neighbours(sorted_values):
        return None
    block = _STARTS_BLOCK
    last = n - 1
    changes = [int(np.count_nonzero(sorted_values[low + 1:min(low + block, last) + 1]
                                    != sorted_values[low:min(low + block, last)]))
               for low in range(0, last, block)]
    out = np.empty(1 + sum(changes), dtype=np.int32 if n < (1 << 31) else np.intp)
    out[0] = 0
    at = 1
    for low, count in zip(range(0, last, block), changes, strict=True):
        if count:
            high = min(low + block, last)
            where = np.flatnonzero(sorted_values[low + 1:high + 1] != sorted_values[low:high])
            where += low + 1
            out[at:at + count] = where
            at += count
    return out


def _place(k: int, neg_sorted: NDArray[Any], thresholds: F64 | None, cuts: list[int],
           starts: list[NDArray[Any] | None], offsets: list[int], pos_sorted: NDArray[Any],
           pos_cuts: list[int]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Range ``k``'s thresholds (into ``thresholds``, or in place of the sorted copy when
    None) and where ``tp`` rises: ``(at, level)``."""
    low, high = cuts[k], cuts[k + 1]
    ties = starts[k]
    segment = neg_sorted[low:high]
    pos_low, pos_high = pos_cuts[k], pos_cuts[k + 1]
    # tp rises at each distinct positive score (at[j], strictly increasing) to
    # the positives at or above it: level[j + 1]; level[0] above the first.
    pos_values = pos_sorted[pos_low:pos_high]
    pos_starts = _run_starts(pos_values)
    # Counts as integers (intp); written into tp and fp (uint32 or float64: exact).
    if pos_starts is None:  # no ties among the positives
        level = np.arange(pos_low, pos_high + 1, dtype=np.intp)
    else:
        pos_values = pos_values[pos_starts]
        level = np.empty(pos_values.shape[0] + 1, dtype=np.intp)
        level[0] = pos_low
        level[1:-1] = pos_starts[1:]
        level[1:-1] += pos_low
        level[-1] = pos_high
    # 0.0 - (-0.0) is 0.0: every threshold of 0 is +0.0.
    if ties is None:
        at = count_below(segment, pos_values)
        np.subtract(0.0, segment,
                    out=segment if thresholds is None else thresholds[offsets[k]:offsets[k + 1]])
        return at, level
    # The distinct values below v are the runs that start below v's place in the
    # segment (no gathered copy of the distinct values); the thresholds gathered a
    # chunk at a time.
    below = count_below(segment, pos_values).astype(ties.dtype, copy=False)
    at = count_below(ties, below)
    out = thresholds[offsets[k]:offsets[k + 1]] if thresholds is not None else segment
    for first in range(0, ties.shape[0], _FILL_CHUNK):
        chunk = ties[first:first + _FILL_CHUNK]
        np.subtract(0.0, segment[chunk], out=out[first:first + chunk.shape[0]])
    return at, level


def _count(k: int, tp: NDArray[Any], fp: NDArray[Any], cuts: list[int],
           starts: list[NDArray[Any] | None], offsets: list[int],
           levels: list[tuple[NDArray[np.intp], NDArray[np.intp]]]) -> None:
    """Range ``k``'s ``tp`` and ``fp``, in chunks (the temporaries stay in cache): tp,
    the step function; all rows at or above each distinct score, its run's end plus the
    ranges above; fp, their difference."""
    low, high = cuts[k], cuts[k + 1]
    ties = starts[k]
    at, level = levels[k]
    out = slice(offsets[k], offsets[k + 1])
    tp_k, fp_k = tp[out], fp[out]
    m = offsets[k + 1] - offsets[k]
    for first in range(0, m, _FILL_CHUNK):
        last = min(first + _FILL_CHUNK, m)
        rise_first, rise_last = np.searchsorted(at, (first, last), side="right")
        edges = np.concatenate(((first,), at[rise_first:rise_last], (last,)))
        steps = np.repeat(level[rise_first:rise_last + 1], np.diff(edges))
        tp_k[first:last] = steps
        if ties is None:
            ends = np.arange(low + first + 1, low + last + 1, dtype=np.intp)
        else:
            ends = np.empty(last - first, dtype=np.intp)
            stop = min(last + 1, ties.shape[0])
            ends[:stop - first - 1] = ties[first + 1:stop]
            if stop - first - 1 < last - first:
                ends[-1] = high - low
            ends += low
        np.subtract(ends, steps, out=fp_k[first:last], casting="unsafe")


_FILL_CHUNK = 1 << 16

_STARTS_BLOCK = 1 << 16
"""Values compared at once when the runs of ties are found (:func:`_compact_run_starts`)."""


def _check_ends(name: str, scores: NDArray[Any], sorted_part: NDArray[Any]) -> None:
    """For scores not yet checked for NaN and infinity (``unchecked``, the argument's
    name): a sorted copy of some of them holds neither when its ends are finite (NaN
    sorts last, infinities at the ends); else the error names ``name``
    (:func:`~prcurve.validation.arrays.check_finite`)."""
    if sorted_part.shape[0] and not (np.isfinite(sorted_part[0])
                                     and np.isfinite(sorted_part[-1])):
        check_finite(name, scores)


def hard_label_ranks(
    scores: NDArray[Any], positive: NDArray[np.bool_], *, unchecked: str | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp] | None, int, int]:
    """What average precision needs of hard, unweighted labels, without the full state:
    for each distinct positive score (ascending), where its run starts among the sorted
    positive scores, the negatives below it, and the negatives at or below it (None when
    no negative shares a positive score); and the two totals.

    Each thread sorts a copy of one contiguous part of the input, positives and
    negatives together (no mask, no selection, no merge), and gathers the part's
    positive scores, which are few and sorted once. Below a positive score ``v``, the
    rows of every part are counted by a binary search (exact integers, added over the
    parts: the same on any number of threads), and the negatives below ``v`` are those
    rows less the positives below ``v``, its run's start among the sorted positives.
    Ties need a second count only where a part holds ``v`` twice, or several parts hold
    it, or ``v`` is shared by several positives. Memory is one copy of the scores plus
    O(positive rows).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.hard_labels import hard_label_ranks
    >>> starts, below, at_or_below, n_pos, n_neg = hard_label_ranks(
    ...     np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False]))
    >>> starts.tolist(), below.tolist(), at_or_below.tolist(), n_pos, n_neg
    ([0, 1], [1, 2], [2, 2], 2, 2)
    """
    n = scores.shape[0]
    parts = parts_for(n)
    bounds = part_bounds(n, parts)
    with _pool(parts) as pool:
        def gather(k: int) -> tuple[NDArray[Any], NDArray[Any]]:
            part = scores[bounds[k]]
            rows = part.copy()  # never sort the caller's array
            rows.sort()
            return part[positive[bounds[k]]], rows

        gathered = run_parts(gather, parts, pool)
        pos_scores = gathered[0][0] if parts == 1 else np.concatenate(
            [g[0] for g in gathered])
        rows = [g[1] for g in gathered]
        del gathered
        if unchecked is not None:
            for part in rows:
                _check_ends(unchecked, scores, part)
        pos_scores.sort()
        n_pos = pos_scores.shape[0]
        pos_values, pos_starts = _run_lengths(pos_scores)
        del pos_scores

        def search(k: int) -> tuple[NDArray[np.intp], NDArray[np.bool_], NDArray[np.bool_]]:
            # The rows of part k below each positive score; whether the part holds it
            # (once at least) and whether it holds it twice.
            part = rows[k]
            below = count_below(part, pos_values)
            m = part.shape[0]
            if m == 0:
                return below, np.zeros(below.shape[0], dtype=bool), np.zeros(
                    below.shape[0], dtype=bool)
            # Few fresh arrays (each costs its page faults): one buffer for both looks.
            looked = np.take(part, below, mode="clip")
            held = looked == pos_values
            held &= below < m
            below += 1
            np.take(part, below, mode="clip", out=looked)
            twice = looked == pos_values
            twice &= below < m
            below -= 1
            return below, held, twice

        found = run_parts(search, parts, pool)
        neg_below = found[0][0]  # the rows below, summed in place, less the positives
        seen = found[0][1]  # some part holds v
        twice = found[0][2]  # one part holds v twice, or two parts hold it
        for below, held, again in found[1:]:
            neg_below += below
            twice |= again
            np.logical_and(seen, held, out=again)  # an earlier part holds v too
            twice |= again
            seen |= held
        del found
        # Positives at each distinct positive score (runs of the sorted positives).
        shared = np.empty_like(pos_starts)
        np.subtract(pos_starts[1:], pos_starts[:-1], out=shared[:-1])
        shared[-1:] = n_pos - pos_starts[-1:]
        neg_below -= pos_starts
        # A negative can share v only where more than one row holds it.
        maybe = shared > 1
        maybe |= twice
        del seen, twice
        neg_at_or_below = None
        if maybe.any():
            queries = pos_values[maybe]

            def search_right(k: int) -> NDArray[np.intp]:
                at_or_below: NDArray[np.intp] = np.searchsorted(rows[k], queries, side="right")
                return at_or_below

            rows_at_or_below = sum(run_parts(search_right, parts, pool))
            neg_at = rows_at_or_below - (pos_starts[maybe] + shared[maybe])
            if (neg_at != neg_below[maybe]).any():
                neg_at_or_below = neg_below.copy()
                neg_at_or_below[maybe] = neg_at
    return pos_starts, neg_below, neg_at_or_below, n_pos, n - n_pos

"""The exact state and the average-precision ranks of hard, unweighted labels, on
several cores: the fast paths of ``ThresholdCounts.from_scores`` and
``RecallSteps.from_hard_scores`` (issue 15, item 6).

Both start from the sorts of :mod:`prcurve.core.sorting` and keep every count an exact
integer, so the result is the same on any number of threads and equal, bit for bit, to
the general (weighted) path's. Fresh arrays are few: on this kind of machine each one
costs its page faults, about as much as a pass over it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.sorting import (
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
    6; it was 24 with float64 counts). At each distinct score of a
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
                           each=_run_starts)
        neg_sorted, cuts, spare = split.sorted, split.cuts, split.spare
        pos_cuts = split.chosen_cuts
        pos_sorted = neg_sorted[:0] if split.chosen is None else split.chosen
        if unchecked is not None:
            _check_ends(unchecked, scores, neg_sorted)
        parts = len(cuts) - 1  # fewer ranges than threads for very few values
        n_pos = pos_cuts[-1]

        starts: list[NDArray[np.intp] | None] = split.each  # runs of ties, per range
        sizes = [cuts[k + 1] - cuts[k] if s is None else s.shape[0]
                 for k, s in enumerate(starts)]
        offsets = np.concatenate(([0], np.cumsum(sizes))).tolist()
        # Without ties anywhere the sorted float64 copy becomes the thresholds in place.
        in_place = neg_sorted.dtype == np.float64 and all(t is None for t in starts)
        thresholds: F64 = neg_sorted if in_place else np.empty(offsets[-1])
        m = offsets[-1]
        kind = np.dtype(np.uint32) if n <= COUNTS_LIMIT else np.dtype(np.float64)
        if in_place and spare.nbytes >= 2 * m * kind.itemsize:
            # The spare copy of the scores, free now, holds both (m == n here).
            words = spare.reshape(-1).view(kind)
            tp, fp = words[:m], words[m:2 * m]
        elif in_place and spare.dtype == kind:  # float64 counts: the spare holds fp
            tp, fp = np.empty(m, dtype=kind), spare
        else:
            tp, fp = np.empty(m, dtype=kind), np.empty(m, dtype=kind)
        del spare

        def fill(k: int) -> None:
            low, high = cuts[k], cuts[k + 1]
            out = slice(offsets[k], offsets[k + 1])
            ties = starts[k]
            segment = neg_sorted[low:high]
            distinct = segment if ties is None else segment[ties]
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
            at = count_below(distinct, pos_values)
            # 0.0 - (-0.0) is 0.0: every threshold of 0 is +0.0.
            np.subtract(0.0, distinct, out=segment if in_place else thresholds[out])
            # In chunks (the temporaries stay in cache): tp, the step function; all rows
            # at or above each distinct score, its run's end plus the ranges above; fp,
            # their difference.
            tp_k, fp_k = tp[out], fp[out]
            m = distinct.shape[0]
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

        run_parts(fill, parts, pool)
    n_neg = n - n_pos
    return thresholds, tp, fp, float(n_pos), float(n_neg)


_FILL_CHUNK = 1 << 16


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

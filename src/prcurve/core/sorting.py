"""Sorting scores on several cores: the one sort every exact state starts from.

``np.sort`` runs on one core, but it releases the GIL, so threads can sort parts of an
array at once. Two ways are used, chosen by what follows the sort:

- :func:`sort_segments` sorts an array in place by ranges of values: ``ndarray.partition``
  (one linear-time selection) puts the values of each range together, then each range is
  sorted in its own thread. The ranges hold disjoint values in order, so the array ends
  up ascending, equal to ``np.sort`` element for element (the sorted order of a set of
  numbers is unique; only ``-0.0`` and ``0.0`` may trade places, as they may within
  ``np.sort`` itself, and every state turns ``-0.0`` into ``0.0``). Each range's later
  work (runs of ties, cumulative counts) can then run in its thread too: the cuts
  returned fall at the start of a run of equal values. :func:`sorted_copy` is this on a
  copy.
- The caller cuts the input into contiguous parts (:func:`part_bounds`) and each thread
  sorts its part: no selection, no merge, for work that only needs to count, for each
  query value, the values of every part below it (:func:`count_below`) and add the
  counts (exact integers: the sum does not depend on the cut).

The number of threads is :func:`sort_threads`: by default the cores this process may
run on (at most 8), or the environment variable ``PRCURVE_SORT_THREADS``, or what
:func:`set_sort_threads` set. Arrays under :data:`MIN_PARALLEL` values (2^20) are
sorted on one core (:func:`parts_for`): below that, starting threads costs more than it
saves.

Examples
--------
>>> import numpy as np
>>> from prcurve.core.sorting import sorted_copy
>>> values = np.random.default_rng(0).random(1000)
>>> bool(np.array_equal(sorted_copy(values, threads=3, min_parallel=10), np.sort(values)))
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["MIN_PARALLEL", "count_below", "hard_label_counts", "hard_label_ranks",
           "part_bounds", "parts_for", "run_parts", "set_sort_threads", "sort_segments",
           "sort_threads", "sorted_copy"]

MIN_PARALLEL = 1 << 20
"""Arrays with fewer values are sorted on one core (read at each call: tests may lower it)."""

_MAX_DEFAULT = 8
_BLOCK = 64  # count_below: a binary search within blocks of this many sorted values
_threads: int | None = None

S = TypeVar("S", bound=np.generic)
F64 = NDArray[np.float64]
T = TypeVar("T")


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def sort_threads() -> int:
    """The number of threads a large sort uses (1: no threads).

    Examples
    --------
    >>> from prcurve.core.sorting import set_sort_threads, sort_threads
    >>> set_sort_threads(2)
    >>> sort_threads()
    2
    >>> set_sort_threads(None)  # back to the default
    """
    if _threads is not None:
        return _threads
    setting = os.environ.get("PRCURVE_SORT_THREADS", "").strip()
    if setting.isdigit() and int(setting) >= 1:
        return int(setting)
    return max(1, min(_available_cores(), _MAX_DEFAULT))


def set_sort_threads(threads: int | None) -> None:
    """Set the threads of large sorts for this process; ``None`` restores the default
    (``PRCURVE_SORT_THREADS``, else the available cores, at most 8); ``1`` turns them off.

    Raises
    ------
    ValueError
        If ``threads`` is not a positive integer or None.
    """
    global _threads
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    _threads = threads


def parts_for(n: int, threads: int | None = None, min_parallel: int | None = None) -> int:
    """How many threads sort ``n`` values: 1 under ``min_parallel`` (by default
    :data:`MIN_PARALLEL`), else :func:`sort_threads` (or ``threads``), at most one per
    ``min_parallel / 2`` values.

    Examples
    --------
    >>> from prcurve.core.sorting import parts_for
    >>> parts_for(1000, threads=4), parts_for(1000, threads=4, min_parallel=500)
    (1, 4)
    """
    threads = sort_threads() if threads is None else threads
    floor = max(1, MIN_PARALLEL if min_parallel is None else min_parallel)
    if n < floor:
        return 1
    return max(1, min(threads, 2 * n // floor))


def part_bounds(n: int, parts: int) -> list[slice]:
    """``parts`` contiguous slices of ``range(n)``, as equal as can be."""
    return [slice(n * k // parts, n * (k + 1) // parts) for k in range(parts)]


def run_parts(fn: Callable[[int], T], parts: int | Iterable[int],
              pool: ThreadPoolExecutor | None = None) -> list[T]:
    """``[fn(k) for k in range(parts)]``, in ``pool``'s threads when there are several
    (numpy's sorts, searches and ufuncs release the GIL)."""
    ks = list(range(parts) if isinstance(parts, int) else parts)
    if pool is None or len(ks) <= 1:
        return [fn(k) for k in ks]
    return list(pool.map(fn, ks))


def sort_segments(values: NDArray[Any], parts: int,
                  pool: ThreadPoolExecutor | None = None) -> list[int]:
    """Sort ``values`` in place, ``parts`` ranges of values at once in ``pool``'s threads;
    return the cuts ``[0, ..., n]`` that split it into ``parts`` ranges, each cut at the
    first of a run of equal values (a run never straddles a cut; ranges may be empty).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import sort_segments
    >>> values = np.array([3.0, 1.0, 2.0, 2.0, 0.0, 2.0])
    >>> sort_segments(values, 2), values.tolist()
    ([0, 2, 6], [0.0, 1.0, 2.0, 2.0, 2.0, 3.0])
    """
    n = values.shape[0]
    if parts <= 1 or n < 2 * parts:
        values.sort()
        return [0, n]
    kths = [n * k // parts for k in range(1, parts)]
    # After the selection, values[kth] is in its sorted place, and the values between two
    # kths lie between theirs: sorting each range sorts the whole.
    values.partition(kths)
    bounds = [0, *kths, n]

    def sort(k: int) -> None:
        values[bounds[k]:bounds[k + 1]].sort()

    run_parts(sort, parts, pool)
    # The value at a kth may also end the range below: cut at its first occurrence.
    return [0, *(int(np.searchsorted(values[:kth + 1], values[kth], side="left"))
                 for kth in kths), n]


def sorted_copy(values: NDArray[S], *, where: NDArray[np.bool_] | None = None,
                threads: int | None = None, min_parallel: int | None = None) -> NDArray[S]:
    """``np.sort(values[where])`` of a 1-d array without NaN, on ``threads`` cores.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Numbers without NaN (scores that passed validation).
    where : ndarray of bool, shape (n,), optional
        The values to sort (by default all).
    threads : int, optional
        Threads to use; by default :func:`sort_threads`.
    min_parallel : int, optional
        Arrays with fewer values are sorted on one core; by default :data:`MIN_PARALLEL`.
    """
    out = values.copy() if where is None else values[where]  # never sort the caller's array
    parts = parts_for(out.shape[0], threads, min_parallel)
    if parts == 1:
        out.sort()
        return out
    with ThreadPoolExecutor(max_workers=parts) as pool:
        sort_segments(out, parts, pool)
    return out


def count_below(sorted_values: NDArray[Any], queries: NDArray[Any]) -> NDArray[np.intp]:
    """How many of ``sorted_values`` (ascending) are below each query:
    ``np.searchsorted(sorted_values, queries, side="left")``, at lower cost for many
    queries into a large array.

    ``np.searchsorted`` of ascending queries restarts each binary search from the whole
    upper range, so every search touches memory out of cache. Here the queries are
    searched in every 64th value first (a sample 64 times smaller, in cache), then by 6
    halving steps, vectorized over the queries, within the one block of 64 that holds
    the answer.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import count_below
    >>> count_below(np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 2.0, 3.0, 9.0])).tolist()
    [0, 1, 3, 4]
    """
    m = sorted_values.shape[0]
    if m < 64 * _BLOCK or queries.shape[0] < _BLOCK:
        return np.searchsorted(sorted_values, queries, side="left")
    # Blocks whose last value is below a query lie wholly below it; the next block (or
    # the short tail) holds between 0 and _BLOCK - 1 more values below it.
    found = np.searchsorted(sorted_values[_BLOCK - 1::_BLOCK], queries, side="left")
    found *= _BLOCK
    step = _BLOCK >> 1
    while step:
        probe = found + (step - 1)
        below = np.take(sorted_values, probe, mode="clip") < queries
        below &= probe < m
        found += below * step
        step >>= 1
    return found


def _run_starts(sorted_values: NDArray[Any]) -> NDArray[np.intp] | None:
    """Where each run of equal values starts in an ascending array; None if all differ."""
    n = sorted_values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    change = sorted_values[1:] != sorted_values[:-1]
    if change.all():
        return None
    where = np.flatnonzero(change)
    del change
    starts = np.empty(where.shape[0] + 1, dtype=np.intp)
    starts[0] = 0
    np.add(where, 1, out=starts[1:])
    return starts


def _run_lengths(sorted_values: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """Distinct values of an ascending array and the index where each run starts."""
    starts = _run_starts(sorted_values)
    if starts is None:
        return sorted_values, np.arange(sorted_values.shape[0])
    return sorted_values[starts], starts


class _NoPool:
    """A stand-in for a thread pool when one thread does the work."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def hard_label_counts(
    scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_],
) -> tuple[F64, F64, F64, float, float]:
    """The exact state (thresholds, tp, fp, n_pos, n_neg) of hard, unweighted labels
    (``ThresholdCounts.from_scores`` without weights).

    The scores are negated and sorted (ascending ``-score`` is decreasing score: no
    reversed copy) by ranges of values, one range per thread
    (:func:`~prcurve.core.sorting.sort_segments`); every later step works on one range
    in the same thread, writing its slice of the outputs. At each distinct score of a
    range, the cumulative count of all rows is the end of its run of ties plus the rows
    of the ranges above; the positives' (``tp``) is a step function that rises at the
    positive scores, found by searching the sorted positive scores in the range; and
    ``fp`` is the difference. All counts are integers, exact in float64: the state is
    the same on any number of threads, and equal to the general (weighted) path's.
    """
    n = scores.shape[0]
    parts = parts_for(n)
    with ThreadPoolExecutor(max_workers=parts) if parts > 1 else _NoPool() as pool:
        pos_job = None if pool is None else pool.submit(_negated_sorted, scores, positive)
        neg_sorted = np.negative(scores)  # a copy; ascending -score: decreasing score
        cuts = sort_segments(neg_sorted, parts, pool)
        parts = len(cuts) - 1  # fewer ranges than threads for very few values
        pos_sorted = _negated_sorted(scores, positive) if pos_job is None else (
            pos_job.result())
        n_pos = pos_sorted.shape[0]
        # The positives of range k: pos_sorted[pos_cuts[k]:pos_cuts[k + 1]].
        pos_cuts = [0, *(int(np.searchsorted(pos_sorted, neg_sorted[c], side="left"))
                         for c in cuts[1:-1]), n_pos]

        def runs(k: int) -> NDArray[np.intp] | None:
            return _run_starts(neg_sorted[cuts[k]:cuts[k + 1]])

        starts = run_parts(runs, parts, pool)
        sizes = [cuts[k + 1] - cuts[k] if s is None else s.shape[0]
                 for k, s in enumerate(starts)]
        offsets = np.concatenate(([0], np.cumsum(sizes))).tolist()
        # Without ties anywhere the sorted float64 copy becomes the thresholds in place.
        in_place = neg_sorted.dtype == np.float64 and all(t is None for t in starts)
        thresholds = neg_sorted if in_place else np.empty(offsets[-1])
        fp = np.empty(offsets[-1])
        tp_parts: list[F64] = [fp[:0]] * parts

        def fill(k: int) -> None:
            low, high = cuts[k], cuts[k + 1]
            out = slice(offsets[k], offsets[k + 1])
            ties = starts[k]
            segment = neg_sorted[low:high]
            distinct = segment if ties is None else segment[ties]
            pos_low, pos_high = pos_cuts[k], pos_cuts[k + 1]
            pos_values, pos_starts = _run_lengths(pos_sorted[pos_low:pos_high])
            # tp jumps at each distinct positive score to the positives at or above it.
            at = count_below(distinct, pos_values)
            level = np.empty(pos_values.shape[0] + 1)
            level[0] = pos_low
            level[1:-1] = pos_starts[1:]
            level[1:-1] += pos_low
            level[-1] = pos_high
            lengths = np.diff(at, prepend=0, append=distinct.shape[0])
            del at
            # 0.0 - (-0.0) is 0.0: every threshold of 0 is +0.0.
            np.subtract(0.0, distinct, out=segment if in_place else thresholds[out])
            tp_k = np.repeat(level, lengths)
            tp_parts[k] = tp_k
            del level, lengths
            # All rows at or above each distinct score: its run's end, plus the ranges
            # above. fp is that minus tp, in chunks (the ends stay in cache).
            fp_k = fp[out]
            for first in range(0, distinct.shape[0], _FILL_CHUNK):
                last = min(first + _FILL_CHUNK, distinct.shape[0])
                if ties is None:
                    ends = np.arange(low + first + 1, low + last + 1, dtype=np.float64)
                else:
                    ends = np.empty(last - first)
                    stop = min(last + 1, ties.shape[0])
                    ends[:stop - first - 1] = ties[first + 1:stop]
                    if stop - first - 1 < last - first:
                        ends[-1] = high - low
                    ends += low
                np.subtract(ends, tp_k[first:last], out=fp_k[first:last])

        run_parts(fill, parts, pool)
        # One range: its tp is the whole. Several: joined, a copy in each thread.
        tp = tp_parts[0] if parts == 1 else np.empty(offsets[-1])
        if parts > 1:
            def join(k: int) -> None:
                tp[offsets[k]:offsets[k + 1]] = tp_parts[k]
                tp_parts[k] = fp[:0]  # freed as soon as copied

            run_parts(join, parts, pool)
    n_neg = n - n_pos
    return thresholds, tp, fp, float(n_pos), float(n_neg)


_FILL_CHUNK = 1 << 16


def _negated_sorted(scores: NDArray[Any], positive: NDArray[np.bool_]) -> NDArray[Any]:
    """The positives' scores negated, ascending."""
    chosen = scores[positive]
    np.negative(chosen, out=chosen)
    chosen.sort()
    return chosen


def hard_label_ranks(
    scores: NDArray[Any], positive: NDArray[np.bool_],
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp] | None, int, int]:
    """What average precision needs of hard, unweighted labels, without the full state:
    for each distinct positive score (ascending), where its run starts among the sorted
    positive scores, the negatives below it, and the negatives at or below it (None when
    no negative shares a positive score); and the two totals.

    Each thread sorts the negatives of one contiguous part of the input (no selection,
    no merge); the positives' scores are few and sorted once. The counts below a score
    are added over the parts: exact integers, the same on any number of threads. Memory
    is one copy of the scores plus O(distinct positive scores).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import hard_label_ranks
    >>> starts, below, at_or_below, n_pos, n_neg = hard_label_ranks(
    ...     np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False]))
    >>> starts.tolist(), below.tolist(), at_or_below.tolist(), n_pos, n_neg
    ([0, 1], [1, 2], [2, 2], 2, 2)
    """
    n = scores.shape[0]
    parts = parts_for(n)
    bounds = part_bounds(n, parts)
    with ThreadPoolExecutor(max_workers=parts) if parts > 1 else _NoPool() as pool:
        def gather(k: int) -> tuple[NDArray[Any], NDArray[Any]]:
            part = bounds[k]
            chosen = scores[part]
            mask = positive[part]
            pos_part = chosen[mask]
            neg_part = chosen[~mask]
            neg_part.sort()
            return pos_part, neg_part

        gathered = run_parts(gather, parts, pool)
        pos_scores = gathered[0][0] if parts == 1 else np.concatenate(
            [g[0] for g in gathered])
        negs = [g[1] for g in gathered]
        del gathered
        pos_scores.sort()
        n_pos = pos_scores.shape[0]
        n_neg = n - n_pos
        pos_values, pos_starts = _run_lengths(pos_scores)
        del pos_scores

        def search(k: int) -> tuple[NDArray[np.intp], NDArray[np.intp] | None]:
            # Ascending order: negatives below pos_values[i], and at or below it
            # (None: no positive score of this part is shared by a negative).
            neg = negs[k]
            below = count_below(neg, pos_values)
            if neg.shape[0] == 0:
                return below, None
            tie = np.take(neg, below, mode="clip") == pos_values
            tie &= below < neg.shape[0]
            if not tie.any():
                return below, None
            at_or_below = below.copy()
            at_or_below[tie] = np.searchsorted(neg, pos_values[tie], side="right")
            return below, at_or_below

        found = run_parts(search, parts, pool)
    neg_below = found[0][0]
    for below, _ in found[1:]:
        neg_below = neg_below + below
    neg_at_or_below = None
    if any(at is not None for _, at in found):
        neg_at_or_below = np.zeros_like(neg_below)
        for below, at in found:
            neg_at_or_below += below if at is None else at
    return pos_starts, neg_below, neg_at_or_below, n_pos, n_neg

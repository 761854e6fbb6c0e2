"""Sorting scores on several cores: the one sort every exact state starts from.

``np.sort`` runs on one core, but it releases the GIL, so threads can sort parts of an
array at once. Three ways are used, chosen by what follows the sort:

- :func:`sort_segments` sorts an array in place by ranges of values: ``ndarray.partition``
  (one linear-time selection, on one core) puts the values of each range together, then
  each range is sorted in its own thread. The ranges hold disjoint values in order, so
  the array ends up ascending, equal to ``np.sort`` element for element (the sorted
  order of a set of numbers is unique; only ``-0.0`` and ``0.0`` may trade places, as
  they may within ``np.sort`` itself, and every state turns ``-0.0`` into ``0.0``).
  :func:`sorted_copy` is this on a copy.
- :func:`split_sort` makes a sorted copy by ranges of values with every step in the
  threads: each thread copies (negated, for decreasing scores) and partitions one
  contiguous part of the input by splitters drawn from a sample, then gathers and
  sorts one range. Each range's later work (runs of ties, cumulative counts) can then
  run in its thread too: the cuts fall at the start of a run of equal values. The
  exact state of hard labels (:func:`hard_label_counts`) is built this way.
- The caller cuts the input into contiguous parts (:func:`part_bounds`) and each thread
  sorts its part: no selection, no merge, for work that only needs to count, for each
  query value, the values of every part below it (:func:`count_below`) and add the
  counts (exact integers: the sum does not depend on the cut). Average precision of
  hard labels (:func:`hard_label_ranks`) is computed this way.

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
from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.arrays import check_finite

__all__ = ["MIN_PARALLEL", "count_below", "hard_label_counts", "hard_label_ranks",
           "part_bounds", "parts_for", "run_parts", "set_sort_threads", "sort_segments",
           "sort_threads", "sorted_copy", "split_sort"]

MIN_PARALLEL = 1 << 20
"""Arrays with fewer values are sorted on one core (read at each call: tests may lower it)."""

_MAX_DEFAULT = 8
_SAMPLE = 1024  # split_sort: sampled values per range, to choose the splitters
_WINDOW = 4096  # count_below: ascending queries searched this many at a time
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


class Split(NamedTuple):
    """What :func:`split_sort` returns."""

    sorted: NDArray[Any]
    """The values (negated if asked) ascending."""
    cuts: list[int]
    """``[0, ..., n]``: range ``b`` is ``sorted[cuts[b]:cuts[b + 1]]``."""
    spare: NDArray[Any]
    """An array of the values' size and type, free for the caller (its content is garbage)."""
    chosen: NDArray[Any] | None
    """The values where ``where`` is true (negated if asked) ascending, or None."""
    chosen_cuts: list[int]
    """The same ranges of values in ``chosen``."""
    each: list[Any]
    """``each(range)`` of every sorted range, in its thread (``each`` given), or []."""


def split_sort(values: NDArray[Any], parts: int, pool: ThreadPoolExecutor | None = None, *,
               negate: bool = False, where: NDArray[np.bool_] | None = None,
               each: Callable[[NDArray[Any]], Any] | None = None) -> Split:
    """A sorted copy of ``values`` (of ``-values`` if ``negate``) made on ``parts``
    threads, cut into ranges of values (a run of equal values never straddles a cut;
    ranges may be empty); with ``where``, also the chosen values sorted, cut into the
    same ranges; with ``each``, its result on every sorted range (in the range's thread).

    Every step runs in the threads; the caller's array is read once and never written:

    1. Splitters ``u_1 <= ... <= u_{parts-1}`` are drawn from a fixed pseudo-random
       sample of the values (they only balance the ranges; any splitters give the same
       result). Range ``b`` holds the values ``v`` with ``u_b <= v < u_{b+1}``.
    2. Each thread copies one contiguous part of the input into the spare array, counts
       its values below each splitter and partitions the part there
       (``ndarray.partition``, linear time): its values of each range lie together.
       Likewise the part's chosen values.
    3. Each thread gathers one range from every part into the output and sorts it.

    The ranges hold disjoint values in order, so the output is ascending: equal to
    ``np.sort`` element for element (only ``-0.0`` and ``0.0`` may trade places, as
    they may within ``np.sort`` itself). NaN, never less than a splitter, ends the last
    range, as in ``np.sort``.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import split_sort
    >>> values = np.array([3.0, 1.0, 2.0, 2.0, 0.0, 2.0])
    >>> split = split_sort(values, 2, negate=True, where=values > 1.5)
    >>> split.sorted.tolist(), split.chosen.tolist()
    ([-3.0, -2.0, -2.0, -2.0, -1.0, -0.0], [-3.0, -2.0, -2.0, -2.0])
    """
    n = values.shape[0]
    spare = np.empty_like(values)
    if parts <= 1 or n < 2 * parts:
        out = np.negative(values) if negate else values.copy()
        out.sort()
        chosen = None if where is None else _sorted_choice(values, where, negate)
        return Split(out, [0, n], spare, chosen, [0, 0 if chosen is None else len(chosen)],
                     [] if each is None else [each(out)])
    sample = values[np.random.default_rng(n).integers(0, n, _SAMPLE * parts)]
    if negate:
        np.negative(sample, out=sample)
    sample.sort()
    splitters = sample[[_SAMPLE * b for b in range(1, parts)]]
    bounds = part_bounds(n, parts)

    def split(k: int) -> tuple[list[int], NDArray[Any], list[int]]:
        part = spare[bounds[k]]
        if negate:
            np.negative(values[bounds[k]], out=part)
        else:
            part[...] = values[bounds[k]]
        if where is None:
            return _partition_at(part, splitters), part[:0], [0] * (parts + 1)
        chosen = _sorted_choice(values[bounds[k]], where[bounds[k]], negate, sort=False)
        return _partition_at(part, splitters), chosen, _partition_at(chosen, splitters)

    done = run_parts(split, parts, pool)  # done[k][0][b]: where range b starts in part k
    out = np.empty_like(values)
    cuts = _gathered_cuts([d[0] for d in done])
    chosen_cuts = _gathered_cuts([d[2] for d in done])
    chosen_out = None if where is None else np.empty(chosen_cuts[-1], dtype=values.dtype)

    def gather(b: int) -> Any:
        _gather_range(out, cuts, [(spare[bounds[k]], d[0]) for k, d in enumerate(done)], b)
        if chosen_out is not None:
            _gather_range(chosen_out, chosen_cuts, [(d[1], d[2]) for d in done], b)
        return None if each is None else each(out[cuts[b]:cuts[b + 1]])

    results = run_parts(gather, parts, pool)
    return Split(out, cuts, spare, chosen_out, chosen_cuts, [] if each is None else results)


def _sorted_choice(values: NDArray[Any], where: NDArray[np.bool_], negate: bool, *,
                   sort: bool = True) -> NDArray[Any]:
    """``values[where]`` (negated if ``negate``), sorted if ``sort``: a new array."""
    chosen = values[where]
    if negate:
        np.negative(chosen, out=chosen)
    if sort:
        chosen.sort()
    return chosen


def _partition_at(part: NDArray[Any], splitters: NDArray[Any]) -> list[int]:
    """Partition ``part`` in place by ascending ``splitters``; return where each range of
    values starts, ``[0, ..., len(part)]``."""
    below = [int(np.count_nonzero(part < u)) for u in splitters]
    for b in range(1, len(below)):  # a NaN splitter (last, if any) counts nothing
        below[b] = max(below[b], below[b - 1])
    kths = sorted({c for c in below if 0 < c < part.shape[0]})
    if kths:
        part.partition(kths)
    return [0, *below, part.shape[0]]


def _gathered_cuts(ends: list[list[int]]) -> list[int]:
    """Where each range starts once the ranges of every part (``ends[k]``) are gathered."""
    sizes = [sum(e[b + 1] - e[b] for e in ends) for b in range(len(ends[0]) - 1)]
    return [0, *np.cumsum(sizes).tolist()]


def _gather_range(out: NDArray[Any], cuts: list[int],
                  parts: list[tuple[NDArray[Any], list[int]]], b: int) -> None:
    """Copy range ``b`` of every partitioned part to its place in ``out`` and sort it."""
    at = cuts[b]
    for part, ends in parts:
        size = ends[b + 1] - ends[b]
        out[at:at + size] = part[ends[b]:ends[b + 1]]
        at += size
    out[cuts[b]:cuts[b + 1]].sort()


def count_below(sorted_values: NDArray[Any], queries: NDArray[Any]) -> NDArray[np.intp]:
    """How many of ``sorted_values`` (ascending) are below each query:
    ``np.searchsorted(sorted_values, queries, side="left")``, at lower cost for many
    ascending queries into a large array.

    For ascending queries ``np.searchsorted`` searches each from the previous answer to
    the end of the array. Here the queries are searched in windows of
    :data:`_WINDOW` at a time: the answers of a window lie between the answers of its
    first query and of the next window's first, so each search spans only that range
    (a few times shorter, and in cache). Queries that are not ascending are searched
    by ``np.searchsorted`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import count_below
    >>> count_below(np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 2.0, 3.0, 9.0])).tolist()
    [0, 1, 3, 4]
    """
    q = queries.shape[0]
    if q <= 2 * _WINDOW or not bool((queries[1:] >= queries[:-1]).all()):
        return np.searchsorted(sorted_values, queries, side="left")
    heads = np.searchsorted(sorted_values, queries[::_WINDOW], side="left").tolist()
    heads.append(sorted_values.shape[0])
    found = np.empty(q, dtype=np.intp)
    for w in range(len(heads) - 1):
        window = slice(w * _WINDOW, (w + 1) * _WINDOW)
        low = heads[w]
        np.add(np.searchsorted(sorted_values[low:heads[w + 1]], queries[window], side="left"),
               low, out=found[window])
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
    scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_], *,
    unchecked: str | None = None,
) -> tuple[F64, F64, F64, float, float]:
    """The exact state (thresholds, tp, fp, n_pos, n_neg) of hard, unweighted labels
    (``ThresholdCounts.from_scores`` without weights).

    The scores are negated and sorted (ascending ``-score`` is decreasing score: no
    reversed copy) by ranges of values, one range per thread, and so are the positives'
    (:func:`split_sort`); every later step works on one range in the same thread,
    writing its slice of the outputs (in chunks that stay in cache). The copy that the
    threads partitioned becomes ``fp``, and without ties the sorted copy becomes the
    thresholds: three fresh arrays in all, the three outputs. At each distinct score of a
    range, the cumulative count of all rows is the end of its run of ties plus the rows
    of the ranges above; the positives' (``tp``) is a step function that rises at the
    positive scores, found by searching the sorted positive scores in the range; and
    ``fp`` is the difference. All counts are integers, exact in float64: the state is
    the same on any number of threads, and equal to the general (weighted) path's.
    """
    n = scores.shape[0]
    parts = parts_for(n)
    with ThreadPoolExecutor(max_workers=parts) if parts > 1 else _NoPool() as pool:
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
        # The spare copy of the scores, free now, holds fp when it has the right size.
        fp: F64 = spare if in_place else np.empty(offsets[-1])
        del spare
        tp = np.empty(offsets[-1])

        def fill(k: int) -> None:
            low, high = cuts[k], cuts[k + 1]
            out = slice(offsets[k], offsets[k + 1])
            ties = starts[k]
            segment = neg_sorted[low:high]
            distinct = segment if ties is None else segment[ties]
            pos_low, pos_high = pos_cuts[k], pos_cuts[k + 1]
            pos_values, pos_starts = _run_lengths(pos_sorted[pos_low:pos_high])
            # tp rises at each distinct positive score (at[j], strictly increasing) to
            # the positives at or above it: level[j + 1]; level[0] above the first.
            at = count_below(distinct, pos_values)
            level = np.empty(pos_values.shape[0] + 1)
            level[0] = pos_low
            level[1:-1] = pos_starts[1:]
            level[1:-1] += pos_low
            level[-1] = pos_high
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
                    ends = np.arange(low + first + 1, low + last + 1, dtype=np.float64)
                else:
                    ends = np.empty(last - first)
                    stop = min(last + 1, ties.shape[0])
                    ends[:stop - first - 1] = ties[first + 1:stop]
                    if stop - first - 1 < last - first:
                        ends[-1] = high - low
                    ends += low
                np.subtract(ends, steps, out=fp_k[first:last])

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

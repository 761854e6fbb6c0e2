"""Sorting scores on several cores: the one sort every exact state starts from.

``np.sort`` runs on one core, but it releases the GIL, so threads can sort parts of an
array at once. Three ways are used, chosen by what follows the sort:

- :func:`sort_segments` sorts an array in place by ranges of values: ``ndarray.partition``
  (one linear-time selection, on one core) puts the values of each range together, then
  each range is sorted in its own thread. The ranges hold disjoint values in order, so
  the array ends up ascending, equal to ``np.sort`` element for element (the sorted
  order of a set of numbers is unique; only ``-0.0`` and ``0.0`` may trade places, as
  they may within ``np.sort`` itself, and every state turns ``-0.0`` into ``0.0``).
- :func:`split_sort` makes a sorted copy by ranges of values with every step in the
  threads: each thread copies (negated, for decreasing scores) and partitions one
  contiguous part of the input by splitters drawn from a sample, then gathers and
  sorts one range. Each range's later work (runs of ties, cumulative counts) can then
  run in its thread too: the cuts fall at the start of a run of equal values. The
  exact state of hard labels (:func:`prcurve.core.hard_labels.hard_label_counts`) is
  built this way.
- The caller cuts the input into contiguous parts (:func:`part_bounds`) and each thread
  sorts its part: no selection, no merge, for work that only needs to count, for each
  query value, the values of every part below it (:func:`count_below`) and add the
  counts (exact integers: the sum does not depend on the cut). Average precision of
  hard labels (:func:`prcurve.core.hard_labels.hard_label_ranks`) is computed this way.

The number of threads is :func:`sort_threads`: by default the cores this process may
run on (at most 8), or the environment variable ``PRCURVE_SORT_THREADS``, or what
:func:`set_sort_threads` set. Arrays under :data:`MIN_PARALLEL` values (2^20) are
sorted on one core (:func:`parts_for`): below that, starting threads costs more than it
saves.

Examples
--------
>>> import numpy as np
>>> from prcurve.core.sorting import sort_segments
>>> values = np.random.default_rng(0).random(1000)
>>> want = np.sort(values)
>>> bounds = sort_segments(values, 3)
>>> bool(np.array_equal(values, want))
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # imported where threads start: small inputs never load it (issue 26)
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["MIN_PARALLEL", "Split", "count_below", "locate", "part_bounds", "parts_for",
           "run_parts", "set_sort_threads", "sort_segments", "sort_threads", "split_sort"]

MIN_PARALLEL = 1 << 20
"""Arrays with fewer values are sorted on one core (read at each call: tests may lower it)."""

_MAX_DEFAULT = 8
_SAMPLE = 1024  # split_sort: sampled values per range, to choose the splitters
_WINDOW = 4096  # count_below: ascending queries searched this many at a time
_threads: int | None = None

S = TypeVar("S", bound=np.generic)
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
    floor = max(1, MIN_PARALLEL if min_parallel is None else min_parallel)
    if n < floor:  # before the setting is read (an environment look-up and a system call)
        return 1
    threads = sort_threads() if threads is None else threads
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


class Split:
    """What :func:`split_sort` returns.

    ``sorted``: the values (negated if asked) ascending; ``cuts``: ``[0, ..., n]``,
    range ``b`` is ``sorted[cuts[b]:cuts[b + 1]]``; ``spare``: an array of the values'
    size and type, free for the caller (its content is garbage); ``chosen``: the values
    where ``where`` is true (negated if asked) ascending, or None; ``chosen_cuts``: the
    same ranges of values in ``chosen``; ``each``: ``each(range)`` of every sorted
    range, in its thread (``each`` given), or [].

    A class with slots, not a NamedTuple: this module loads with every small ``prcurve
    trec``, and a NamedTuple compiles each field's annotation and its ``__new__``
    (issue 26).
    """

    __slots__ = ("chosen", "chosen_cuts", "cuts", "each", "sorted", "spare")

    def __init__(self, sorted: NDArray[Any], cuts: list[int], spare: NDArray[Any],
                 chosen: NDArray[Any] | None, chosen_cuts: list[int], each: list[Any]) -> None:
        self.sorted, self.cuts, self.spare = sorted, cuts, spare
        self.chosen, self.chosen_cuts, self.each = chosen, chosen_cuts, each


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
    below = [_count_less(part, u) for u in splitters]
    for b in range(1, len(below)):  # a NaN splitter (last, if any) counts nothing
        below[b] = max(below[b], below[b - 1])
    kths = sorted({c for c in below if 0 < c < part.shape[0]})
    if kths:
        part.partition(kths)
    return [0, *below, part.shape[0]]


def _count_less(values: NDArray[Any], bound: Any) -> int:
    """``np.count_nonzero(values < bound)``, a block at a time (no flag per value: see
    :func:`_equal_neighbours`)."""
    return sum(int(np.count_nonzero(values[low:low + _NEIGHBOUR_BLOCK] < bound))
               for low in range(0, values.shape[0], _NEIGHBOUR_BLOCK))


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


def locate(sorted_values: NDArray[Any], queries: NDArray[Any],
           ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Where each query is, or would go, among ascending ``sorted_values``
    (:func:`count_below`), and whether it is one of them (``==``: -0.0 finds 0.0).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.sorting import locate
    >>> place, found = locate(np.array([1.0, 2.0, 5.0]), np.array([2.0, 3.0, 9.0]))
    >>> place.tolist(), found.tolist()
    ([1, 2, 3], [True, False, False])
    """
    place = count_below(sorted_values, queries)
    if sorted_values.shape[0] == 0:
        return place, np.zeros(queries.shape[0], dtype=bool)
    found = np.take(sorted_values, place, mode="clip") == queries
    found &= place < sorted_values.shape[0]  # past the end: clipped onto the last value
    return place, found


def _run_starts(sorted_values: NDArray[Any]) -> NDArray[np.intp] | None:
    """Where each run of equal values starts in an ascending array; None if all differ."""
    n = sorted_values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    if not _equal_neighbours(sorted_values):
        return None
    change = sorted_values[1:] != sorted_values[:-1]
    where = np.flatnonzero(change)
    del change
    starts = np.empty(where.shape[0] + 1, dtype=np.intp)
    starts[0] = 0
    np.add(where, 1, out=starts[1:])
    return starts


_NEIGHBOUR_BLOCK = 1 << 16


def _equal_neighbours(values: NDArray[Any]) -> bool:
    """Whether two neighbours of ``values`` are equal (``==``: NaN never is), looked at a
    block at a time: no flag per value, which the sort's threads would allocate (a range
    of 1.5*10^7 values: 15 MB each) and their arenas of the C library's heap then keep
    (issue 26, item 6)."""
    last = values.shape[0] - 1
    for low in range(0, last, _NEIGHBOUR_BLOCK):
        high = min(low + _NEIGHBOUR_BLOCK, last)
        if bool(np.any(values[low:high] == values[low + 1:high + 1])):
            return True
    return False


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

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

__all__ = ["MIN_PARALLEL", "count_below", "part_bounds", "parts_for", "run_parts",
           "set_sort_threads", "sort_segments", "sort_threads", "sorted_copy"]

MIN_PARALLEL = 1 << 20
"""Arrays with fewer values are sorted on one core (read at each call: tests may lower it)."""

_MAX_DEFAULT = 8
_BLOCK = 64  # count_below: a binary search within blocks of this many sorted values
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

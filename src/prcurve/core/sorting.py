"""Sorting scores on several cores: the one sort every exact state starts from.

``np.sort`` runs on one core, but it releases the GIL, so threads can sort parts of an
array at once. :func:`sorted_copy` is a sample sort: splitters drawn from an evenly
spaced sample cut the range of the values into one bucket per thread; each thread
gathers its bucket (``np.compress`` straight into its slice of the output) and sorts it
in place. The buckets hold disjoint ranges of values in order, so the output is the
ascending array, equal to ``np.sort`` element for element (the sorted order of a set of
numbers is unique; only ``-0.0`` and ``0.0`` may trade places, as they may within
``np.sort`` itself, and every state turns ``-0.0`` into ``0.0``). Memory is the output
and one boolean mask per thread, as ``np.sort`` needs the output.

The number of threads is :func:`sort_threads`: by default the cores this process may
run on (at most 8), or the environment variable ``PRCURVE_SORT_THREADS``, or what
:func:`set_sort_threads` set. Arrays under :data:`MIN_PARALLEL` values (2^20) are
sorted on one core: below that, starting threads costs more than it saves.

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
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["MIN_PARALLEL", "set_sort_threads", "sort_threads", "sorted_copy"]

MIN_PARALLEL = 1 << 20
"""Arrays with fewer values are sorted on one core."""

_MAX_DEFAULT = 8
_SAMPLE_PER_BUCKET = 1024
_CHUNK = 1 << 18
_threads: int | None = None

S = TypeVar("S", bound=np.generic)


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


def sorted_copy(values: NDArray[S], *, where: NDArray[np.bool_] | None = None,
                threads: int | None = None, min_parallel: int = MIN_PARALLEL) -> NDArray[S]:
    """``np.sort(values[where])`` of a 1-d array without NaN, on ``threads`` cores.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Numbers without NaN (scores that passed validation).
    where : ndarray of bool, shape (n,), optional
        The values to sort (by default all): gathered straight into the output, so
        memory is the output, not a copy and then the output.
    threads : int, optional
        Threads to use; by default :func:`sort_threads`.
    min_parallel : int, default :data:`MIN_PARALLEL`
        Arrays with fewer values are sorted on one core.
    """
    n = values.shape[0] if where is None else int(np.count_nonzero(where))
    threads = sort_threads() if threads is None else threads
    if n < min_parallel:
        threads = 1
    threads = min(threads, max(1, 2 * n // max(1, min_parallel)))
    if threads <= 1:
        if where is None:
            return np.sort(values)
        chosen = values[where]  # a copy already: sorted in place
        chosen.sort()
        return chosen
    step = max(1, values.shape[0] // (threads * _SAMPLE_PER_BUCKET))
    # A copy (never sort a view of the caller's array in place).
    sample = np.sort(values[::step] if where is None else values[::step][where[::step]])
    if sample.shape[0] == 0:
        return np.sort(values[where])
    splitters = np.unique(sample[(np.arange(1, threads) * sample.shape[0]) // threads])
    # Bucket k holds splitters[k - 1] <= v < splitters[k]; its offset in the output is
    # the number of chosen values below splitters[k - 1]. Masks are made a chunk at a
    # time (they stay in cache; memory is the output alone).
    chunks = range(0, values.shape[0], _CHUNK)
    below = [0]
    for splitter in splitters:
        below.append(sum(int(np.count_nonzero(_chosen(values, where, c, None, splitter)))
                         for c in chunks))
    below.append(n)
    bounds = [None, *splitters.tolist(), None]
    out = np.empty(n, dtype=values.dtype)

    def fill(k: int) -> None:
        at, stop = below[k], below[k + 1]
        if stop == at:
            return
        for c in chunks:
            picked = values[c:c + _CHUNK][_chosen(values, where, c, bounds[k], bounds[k + 1])]
            out[at:at + picked.shape[0]] = picked
            at += picked.shape[0]
        out[below[k]:stop].sort()

    with ThreadPoolExecutor(max_workers=len(below) - 1) as pool:
        list(pool.map(fill, range(len(below) - 1)))
    return out


def _chosen(values: NDArray[Any], where: NDArray[np.bool_] | None, start: int,
            low: Any, high: Any) -> NDArray[np.bool_]:
    """Which values of the chunk at ``start`` are chosen and in ``[low, high)`` (None: no
    bound)."""
    chunk = values[start:start + _CHUNK]
    mask = np.ones(chunk.shape[0], dtype=bool) if where is None else where[
        start:start + _CHUNK].copy()
    if low is not None:
        mask &= chunk >= low
    if high is not None:
        mask &= chunk < high
    return mask

"""Sorting by several keys with one ``np.sort`` of packed int64 keys.

``np.lexsort`` sorts once per key with a stable (merge/radix) sort; packing
the keys into one int64 and calling ``np.sort`` (vectorized quicksort) is
several times faster, and the permutation is read back from the packed values.
Every function falls back to ``np.lexsort`` when the packed key would not fit
in 62 bits; the order is the same either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["dense_rank", "descending_rank", "sorted_distinct", "stable_order", "unique_order"]

I64 = NDArray[np.int64]
_LIMIT = 1 << 62


def dense_rank(values: NDArray[Any]) -> tuple[I64, int]:
    """Each value's rank among the distinct values (0 = smallest) and how many there are.

    One unstable argsort (ties may come in any order: they get the same rank)
    and a scatter; no binary search, whose random access is slow.
    """
    n = values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    order = np.argsort(values)
    ordered = values[order]
    step = np.empty(n, dtype=np.int64)
    step[0] = 0
    np.not_equal(ordered[1:], ordered[:-1], out=step[1:])
    np.cumsum(step, out=step)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = step
    return rank, int(step[-1]) + 1


def descending_rank(values: NDArray[np.float64]) -> tuple[I64, int]:
    """Each value's rank among the distinct values, 0 = largest (equal values share one)."""
    rank, size = dense_rank(values)
    return (size - 1) - rank, size


def stable_order(keys: Sequence[tuple[I64, int]]) -> NDArray[np.intp]:
    """The stable permutation sorting by ``keys`` (most significant first; ties by index).

    Each key is non-negative integers below its given size.
    """
    n = int(keys[0][0].shape[0]) if keys else 0
    total = max(n, 1)
    for _, size in keys:
        total *= max(size, 1)
    if total >= _LIMIT:
        return np.lexsort([np.arange(n)] + [k for k, _ in reversed(keys)])
    packed = np.zeros(n, dtype=np.int64)
    for key, size in keys:
        packed *= max(size, 1)
        packed += key
    packed *= max(n, 1)
    packed += np.arange(n)
    packed.sort()
    order: NDArray[np.intp] = (packed % max(n, 1)).astype(np.intp)
    return order


def unique_order(keys: Sequence[tuple[I64, int]]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The permutation sorting rows whose combined keys are all distinct, and its inverse.

    Without the row index in the packed key, more keys fit in 62 bits.
    """
    n = int(keys[0][0].shape[0]) if keys else 0
    total = 1
    for _, size in keys:
        total *= max(size, 1)
    if total >= _LIMIT:
        order = np.lexsort([k for k, _ in reversed(keys)])
        inverse = np.empty(n, dtype=np.intp)
        inverse[order] = np.arange(n)
        return order, inverse
    packed = np.zeros(n, dtype=np.int64)
    for key, size in keys:
        packed *= max(size, 1)
        packed += key
    order = np.argsort(packed).astype(np.intp)  # distinct keys: any sort is stable
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.arange(n)
    return order, inverse


def sorted_distinct(values: NDArray[Any]) -> NDArray[Any]:
    """``np.unique(values)`` of ids (integers or text): one sort and a comparison of
    neighbours. np.unique itself imports numpy.ma on its first call (numpy 2's check
    for masked arrays), a third of ``import numpy``'s time: too much for a small run."""
    ordered = np.sort(np.asarray(values).ravel())
    if ordered.shape[0] < 2:
        return ordered
    keep = np.empty(ordered.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]

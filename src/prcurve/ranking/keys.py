"""64-bit keys of identifiers and a vectorised hash index over them.

Ranking evaluation joins a run (query, document, score) with judgments
(query, document, grade). Comparing string ids row by row, or sorting them,
costs far more than the measures; hashing each id once to a ``uint64`` and
looking the keys up in an open-addressing table costs a few passes over
integer arrays. Everything here is exact: integer ids map to keys
bijectively, and every caller compares the ids themselves wherever two string
keys are equal (a collision is then detected, never trusted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
_Int = TypeVar("_Int", bound=np.integer[Any])

_MULTIPLIER = np.uint64(0x100000001B3)  # FNV-1's 64-bit prime


def _finalize(values: U64) -> U64:
    """Murmur3's 64-bit finalizer, in place: a bijection that spreads every bit."""
    values ^= values >> np.uint64(33)
    values *= np.uint64(0xFF51AFD7ED558CCD)
    values ^= values >> np.uint64(33)
    values *= np.uint64(0xC4CEB9FE1A85EC53)
    values ^= values >> np.uint64(33)
    return values


def id_keys(ids: NDArray[Any]) -> U64:
    """One ``uint64`` per id: equal ids give equal keys.

    Integer ids: a bijection of the value (equal keys mean equal ids).
    Strings (``U`` or ``S``): a polynomial hash of the code units taken from
    the last to the first, so the NUL padding of a wider array adds nothing
    ("d1" hashes alike as U2 and U3); a ``U`` and an ``S`` array of the same
    ASCII ids give the same keys. Different strings may collide.
    """
    with np.errstate(over="ignore"):
        if ids.dtype.kind in "iu":
            return _finalize(ids.astype(np.int64).view(np.uint64))
        ids = np.ascontiguousarray(ids)
        unit = 4 if ids.dtype.kind == "U" else 1
        width = ids.dtype.itemsize // unit
        columns = ids.view(np.uint32 if unit == 4 else np.uint8).reshape(-1, max(width, 1))
        while width > 1 and not columns[:, width - 1].any():  # padding every id leaves alone
            width -= 1
        out = np.zeros(ids.shape[0], dtype=np.uint64)
        for column in range(width - 1, -1, -1):
            out *= _MULTIPLIER
            out += columns[:, column]
        return _finalize(out)


def blocks(values: NDArray[Any]) -> tuple[I64, I64]:
    """Start and length of each run of equal neighbouring values."""
    n = values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    start = np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))
    return start, np.diff(np.append(start, n))


def distinct(keys: NDArray[_Int]) -> NDArray[_Int]:
    """The distinct values, sorted: ``np.sort`` and a neighbour test (no argsort,
    and faster than ``np.unique``'s hashing for the integers met here)."""
    ordered = np.sort(keys)
    if ordered.shape[0] < 2:
        return ordered
    first = np.empty(ordered.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


class KeyTable:
    """Where each of n distinct keys is: an open-addressing hash table with linear probing.

    The table has at least ``4 n`` slots (a power of two; load at most 1/4,
    so a lookup probes about 1.2 slots), small enough to stay in cache for the
    vocabularies it serves (the distinct ids of a column). :meth:`find` is
    vectorised: one round of array operations per probe, each round over the
    rows still unresolved.
    """

    def __init__(self, keys: U64) -> None:
        size = 1 << max(int(4 * keys.shape[0] - 1).bit_length(), 4)
        self._mask = np.uint64(size - 1)
        self._index = np.full(size, -1, dtype=np.int64)
        self._key = np.zeros(size, dtype=np.uint64)
        slot = (keys & self._mask).astype(np.int64)
        pending = np.arange(keys.shape[0])
        while pending.shape[0]:
            free = self._index[slot] == -1
            candidates, wanted = pending[free], slot[free]
            self._index[wanted] = candidates  # of several candidates for one slot, one stays
            won = self._index[wanted] == candidates
            self._key[wanted[won]] = keys[candidates[won]]
            pending = np.concatenate((pending[~free], candidates[~won]))
            slot = (np.concatenate((slot[~free], wanted[~won])) + 1) & (size - 1)

    def find(self, keys: U64) -> I64:
        """The index of each key among the table's keys, or -1 where absent."""
        size_mask = int(self._mask)
        slot = (keys & self._mask).astype(np.int64)
        found: I64 = self._index[slot]
        # found >= 0 is an occupied slot; its key may still be another one.
        other = self._key[slot] != keys
        other &= found >= 0
        rows = np.flatnonzero(other)
        found[rows] = -1
        slot = slot[rows]
        while rows.shape[0]:
            slot = (slot + 1) & size_mask
            index = self._index[slot]
            hit = (index >= 0) & (self._key[slot] == keys[rows])
            found[rows[hit]] = index[hit]
            go_on = (index >= 0) & ~hit
            rows, slot = rows[go_on], slot[go_on]
        return found


@dataclass(frozen=True)
class Encoded:
    """A column of ids as distinct ``labels`` and each row's index into them."""

    labels: NDArray[Any]
    codes: I64


def encode(ids: NDArray[Any], *, grouped: bool = False, sort_labels: bool = False) -> Encoded:
    """Dictionary-encode a column of ids (exact, about four passes over the rows).

    ``grouped``: rows usually come in blocks of one id (a run's query column),
    then only the blocks' ids are encoded. ``sort_labels``: labels in id
    order (byte order for strings), so codes compare as the ids do.
    """
    n = ids.shape[0]
    if grouped and n:
        starts, lengths = blocks(ids)
        if 4 * starts.shape[0] <= n:
            block_ids = encode(ids[starts], sort_labels=sort_labels)
            return Encoded(block_ids.labels, np.repeat(block_ids.codes, lengths))
    keys = id_keys(ids)
    table_keys = distinct(keys)
    codes = KeyTable(table_keys).find(keys)
    some_row = np.empty(table_keys.shape[0], dtype=np.int64)
    some_row[codes] = np.arange(n)
    labels = ids[some_row]
    if ids.dtype.kind not in "iu" and not np.array_equal(labels[codes], ids):
        labels, inverse = np.unique(ids, return_inverse=True)  # a hash collision: exact
        return Encoded(labels, inverse.astype(np.int64))
    if sort_labels:
        by_id = np.argsort(labels, kind="stable")
        rank = np.empty_like(by_id)
        rank[by_id] = np.arange(by_id.shape[0])
        return Encoded(labels[by_id], rank[codes])
    return Encoded(labels, codes)


def match(ids: NDArray[Any], targets: NDArray[Any]) -> I64:
    """For each id, its index among the distinct ``targets``, or -1 (exact).

    Both arrays must have one kind of id (see ``_common_id_dtype``).
    """
    target_keys = id_keys(targets)
    if targets.dtype.kind in "iu" or distinct(target_keys).shape[0] == targets.shape[0]:
        found = KeyTable(target_keys).find(id_keys(ids))
        if targets.dtype.kind in "iu":
            return found
        rows = np.flatnonzero(found >= 0)
        found[rows[targets[found[rows]] != ids[rows]]] = -1  # equal keys, other ids
        return found
    by_id = np.argsort(targets, kind="stable")  # colliding keys among targets: exact search
    position = np.minimum(np.searchsorted(targets[by_id], ids), targets.shape[0] - 1)
    return np.where(targets[by_id][position] == ids, by_id[position], -1)

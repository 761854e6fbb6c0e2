"""Where each of n distinct 64-bit keys is: a vectorised open-addressing hash table
(:class:`KeyTable`), which :mod:`prcurve.ranking.keys` uses to look ids up by their keys."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SMALL_ROWS", "KeyTable", "sorted_codes"]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio: multiply-shift hashing


class KeyTable:
    """Where each of n distinct keys is: an open-addressing hash table with linear probing.

    The table has at least ``4 n`` slots (a power of two; load at most 1/4,
    so a lookup probes about 1.2 slots), small enough to stay in cache for the
    vocabularies it serves (the distinct ids of a column). A key's slot is
    the top bits of key * 0x9E3779B97F4A7C15 (Knuth's multiplicative hashing),
    so keys that differ only in their high bytes (packed short strings)
    spread as well as hashes do. :meth:`find` is vectorised: one round of
    array operations per probe, each round over the rows still unresolved.

    Examples
    --------
    >>> table = KeyTable(np.array([7, 2**63, 3], dtype=np.uint64))
    >>> table.find(np.array([3, 5, 7, 2**63], dtype=np.uint64)).tolist()
    [2, -1, 0, 1]
    """

    def __init__(self, keys: U64) -> None:
        bits = max(int(4 * keys.shape[0] - 1).bit_length(), 4)
        self._shift = np.uint64(64 - bits)
        self._size = 1 << bits
        self._index = np.full(self._size, -1, dtype=np.int64)
        self._key = np.zeros(self._size, dtype=np.uint64)
        self._n = keys.shape[0]
        self._filter: tuple[NDArray[np.uint8], np.uint64] | None = None  # built when needed
        slot = self._slots(keys)
        pending = np.arange(keys.shape[0])
        while pending.shape[0]:
            free = self._index[slot] == -1
            candidates, wanted = pending[free], slot[free]
            self._index[wanted] = candidates  # of several candidates for one slot, one stays
            won = self._index[wanted] == candidates
            self._key[wanted[won]] = keys[candidates[won]]
            pending = np.concatenate((pending[~free], candidates[~won]))
            slot = (np.concatenate((slot[~free], wanted[~won])) + 1) & (self._size - 1)

    def _slots(self, keys: U64) -> NDArray[np.intp]:
        with np.errstate(over="ignore"):
            product = keys * _FIBONACCI
        product >>= self._shift
        slots: NDArray[np.intp] = product.view(np.intp)  # < 2^bits: the same value
        return slots

    def find(self, keys: U64) -> I64:
        """The index of each key among the table's keys, or -1 where absent
        (in blocks of 2^22 keys: small temporaries).

        Many more keys than the table holds (a run's documents looked up among the
        judged ones, most of them absent) are screened first by a bit filter of 16
        bits per table key (2 MiB for 10^6 keys: it stays in cache, where the
        table does not): a key whose bit is clear is absent; the others (the
        present ones and about 6% of the absent) are looked up in the table. Half
        the time of looking every key up, for 9 x 10^6 keys among 10^6."""
        look_up = self._find_screened if self._n and keys.shape[0] >= 8 * self._n else self._find
        block = 1 << 22
        if keys.shape[0] <= block:
            return look_up(keys)
        out = np.empty(keys.shape[0], dtype=np.int64)
        for begin in range(0, keys.shape[0], block):
            out[begin:begin + block] = look_up(keys[begin:begin + block])
        return out

    def _screen(self) -> tuple[NDArray[np.uint8], np.uint64]:
        """The bit filter (bit ``p`` set when a table key's top bits of key *
        0x9E3779B97F4A7C15 are ``p``, bits little-endian in bytes) and its shift."""
        if self._filter is None:
            bits = max(int(16 * self._n - 1).bit_length(), 6)
            shift = np.uint64(64 - bits)
            with np.errstate(over="ignore"):
                position = self._key[self._index >= 0] * _FIBONACCI
            position >>= shift
            mask = np.zeros(1 << bits, dtype=bool)
            mask[position.view(np.intp)] = True
            self._filter = (np.packbits(mask, bitorder="little"), shift)
        return self._filter

    def _find_screened(self, keys: U64) -> I64:
        bit_filter, shift = self._screen()
        with np.errstate(over="ignore"):
            position = keys * _FIBONACCI
        position >>= shift
        byte = bit_filter[(position >> np.uint64(3)).view(np.intp)]
        np.right_shift(byte, (position & np.uint64(7)).astype(np.uint8), out=byte)
        candidates = np.flatnonzero(byte & 1)
        out = np.full(keys.shape[0], -1, dtype=np.int64)
        out[candidates] = self._find(keys[candidates])
        return out

    def _find(self, keys: U64) -> I64:
        slot = self._slots(keys)
        found: I64 = self._index[slot]
        # A free slot ends the search (-1); an occupied one may hold another key.
        rows = np.flatnonzero(self._key[slot] != keys)
        rows = rows[found[rows] >= 0]
        found[rows] = -1
        slot = slot[rows]
        while rows.shape[0]:
            occupied = self._index[slot] >= 0
            rows, slot = rows[occupied], slot[occupied]
            slot = (slot + 1) & (self._size - 1)
            hit = (self._key[slot] == keys[rows]) & (self._index[slot] >= 0)
            found[rows[hit]] = self._index[slot[hit]]
            rows, slot = rows[~hit], slot[~hit]
        return found


SMALL_ROWS = 512
"""Columns of ids up to this long are encoded by :func:`sorted_codes` (read at each
call: tests change it). Measured (issue 26, item 5, session 37; CPU us, best of 200 x
20 calls, ``U9`` ids): ``keys.encode`` against the sort, mostly distinct ids 131/12
(100 rows), 139/25 (256), 156/60 (512), 163/139 (768), 199/209 (1000); sorted query
ids 213/12 (100), 283/55 (512), 451/168 (1000): the words, sample and groups of the
general path are some 30 NumPy calls, a fixed 0.13-0.2 ms a column."""


def sorted_codes(ids: NDArray[Any]) -> tuple[NDArray[Any], I64]:
    """The distinct ``ids`` in order (byte order for text, as ``np.sort``) and each
    row's index among them: one sort, a neighbour test and a binary search, exact for
    any dtype numpy orders totally (text, bytes, integers; no NaN).

    Examples
    --------
    >>> labels, codes = sorted_codes(np.array(["q2", "q1", "q2"]))
    >>> labels.tolist(), codes.tolist()
    (['q1', 'q2'], [1, 0, 1])
    """
    ordered = np.sort(ids)
    first = np.empty(ordered.shape[0], dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    labels = ordered[first]
    return labels, np.searchsorted(labels, ids).astype(np.int64, copy=False)

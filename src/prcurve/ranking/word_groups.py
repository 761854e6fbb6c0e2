"""Rows of mostly distinct 64-bit keys grouped by one sort: the distinct keys, each
row's index among them, each group's first row and the pairs of rows that share a
key (issue 26, item 5). Which columns are mostly distinct is
:mod:`~prcurve.ranking.distinct_keys`'s call.

The encoding of text ids as words (:func:`~prcurve.ranking.keys.encode_words`) needs
the distinct keys and each row's index among them, and also to know that rows sharing
a key (a hash of several words) share their words, and some row of each label to take
its words from. All come out of the sort here: in sorted order a row equal in key to
the row before it is compared with that row only (equality is then a chain through
each group), and each group's first row stands for its label. Before, the check
counted every code's rows (a scatter of every row) and gathered the stand-in's words
for each shared row, and every label's words were gathered at once (0.45 s and
0.2-0.4 s of CPU at 10^7 rows, 9·10^6 distinct ids).

The sort: each key's top ``64 - b`` bits and its row number (``b`` bits, ``2^b >=
n``) packed into one ``uint64`` and sorted by ``np.sort`` (no argsort); the row
numbers then read back give the order of the rows by their keys' top bits. Rows whose
top bits equal their neighbour's are the only ones whose full keys are read (the
others are distinct); keys equal in their top bits but not in full are put in order
by sorting just their groups by the full key, so the groups are exact. Those are few
when the keys are spread (hashes). A key that is a word
itself (ids of up to 8 bytes, exact) is not spread: "1234567" and "1234568" share
their top 5 bytes, and a run of 10^7 such ids would have nearly every row in a group
of equal top bits (the second sort of those groups took 2.4 s for 10^7 seven-digit
ids, against 0.5 s for their hashes). ``spread`` sorts a bijection of the key instead
(Murmur3's finalizer): the same groups, exactly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "BLOCK_ROWS",
    "Groups",
    "finalize",
    "found_in_sorted",
    "same_words",
    "sorted_groups",
]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

BLOCK_ROWS = 1 << 16
"""Rows hashed and packed at a time: every step of a block stays in cache (512 KiB),
where a step over a whole column of 10^7 rows is a pass through memory, and its
temporaries reuse the heap (a fresh 80 MiB one is mapped, and faulted in, each time)."""


class Groups(NamedTuple):
    """The rows of a key column grouped by key (:func:`sorted_groups`)."""

    known: U64
    """The distinct keys, one per group (in the order of the sorted keys)."""
    codes: I64
    """Each row's group: ``known[codes[i]] == key[i]``."""
    first_row: I64
    """A row of each group (its first in sorted order): ``codes[first_row[g]] == g``."""
    repeat: I64
    """Every row that shares its key with ``previous`` (the row before it in its group):
    the groups' rows are these chains, so rows equal along them are equal in a group."""
    previous: I64


def finalize(values: U64, scratch: U64 | None = None) -> U64:
    """Murmur3's 64-bit finalizer, in place: a bijection that spreads every bit.
    The shifts go through ``scratch`` (an array like ``values``; one is made when
    None): a fresh temporary per step costs its page faults at 10^7 rows.

    Examples
    --------
    >>> finalize(np.array([0, 1], dtype=np.uint64)).tolist()
    [0, 12994781566227106604]
    """
    scratch = np.empty_like(values) if scratch is None else scratch
    shift = np.uint64(33)
    with np.errstate(over="ignore"):
        for multiplier in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
            np.right_shift(values, shift, out=scratch)
            values ^= scratch
            values *= np.uint64(multiplier)
        np.right_shift(values, shift, out=scratch)
        values ^= scratch
    return values


def sorted_groups(key: U64, *, spread: bool = False) -> Groups:
    """The rows grouped by key (exact), from one sort of the packed keys.

    ``spread``: sort by :func:`finalize` of the keys (keys that are not hashes, whose
    top bits many rows share); the groups are the same.

    Examples
    --------
    >>> groups = sorted_groups(np.array([7, 3, 7, 2**63 + 5, 7], dtype=np.uint64))
    >>> groups.known.tolist(), groups.codes.tolist(), groups.first_row.tolist()
    ([3, 7, 9223372036854775813], [1, 0, 1, 2, 1], [1, 0, 3])
    >>> groups.repeat.tolist(), groups.previous.tolist()
    ([2, 4], [0, 2])
    """
    n = key.shape[0]
    if n == 0:
        none = np.zeros(0, dtype=np.int64)
        return Groups(key.copy(), none, none, none, none)
    bits = np.uint64(max(n - 1, 1).bit_length())
    packed = np.empty(n, dtype=np.uint64)
    scratch = np.empty(min(n, BLOCK_ROWS), dtype=np.uint64) if spread else None
    for begin in range(0, n, BLOCK_ROWS):  # in blocks that stay in cache
        block = packed[begin:begin + BLOCK_ROWS]
        block[...] = key[begin:begin + BLOCK_ROWS]
        if scratch is not None:
            finalize(block, scratch[:block.shape[0]])  # the sort key: a bijection of the key
        block >>= bits
        block <<= bits
        block |= np.arange(begin, begin + block.shape[0], dtype=np.uint64)
    packed.sort()
    # The row numbers and the top bits in blocks as well: ``packed & mask`` over the
    # whole column is a fresh 80 MiB temporary at 10^7 rows.
    mask = np.uint64((1 << int(bits)) - 1)
    order = np.empty(n, dtype=np.int64)  # rows by top bits
    for begin in range(0, n, BLOCK_ROWS):
        block = packed[begin:begin + BLOCK_ROWS]
        np.bitwise_and(block, mask, out=order[begin:begin + BLOCK_ROWS].view(np.uint64))
        block >>= bits  # in place: the sorted keys' top bits
    high = packed
    # Positions whose top bits equal the previous position's: the only ones whose
    # full keys may equal their neighbour's (real document ids: a tenth of the rows).
    tied = np.flatnonzero(high[1:] == high[:-1])
    tied += 1
    same = key[order[tied]] == key[order[tied - 1]]  # (spread: equal just as the keys)
    if not same.all():  # equal top bits, other keys: those groups sorted by full key
        _order_by_full_key(key, spread, high, order, tied[~same])
        same = key[order[tied]] == key[order[tied - 1]]
    repeat = tied[same]
    change = np.ones(n, dtype=bool)
    change[repeat] = False
    group = _group_numbers(change, high.view(np.int64))  # high is done
    codes = np.empty(n, dtype=np.int64)
    codes[order] = group
    # The outputs written into the arrays done with (packed, then order), not fresh
    # ones: each fresh 80 MiB array is faulted in, page by page (system time that
    # varied from 0.06 to 0.7 s a call at 10^7 rows on the loaded machine).
    first = _compress_into(change, order, packed.view(np.int64)[:n - repeat.shape[0]])
    repeat, previous = order[repeat], order[repeat - 1]
    known = np.take(key, first, out=order.view(np.uint64)[:first.shape[0]], mode="clip")
    return Groups(known, codes, first, repeat, previous)


def _group_numbers(change: NDArray[np.bool_], out: I64) -> I64:
    """Each position's group, ``cumsum(change) - 1``, written into ``out`` in blocks of
    :data:`BLOCK_ROWS`: ``np.cumsum(change, dtype=np.int64)`` over the whole column
    casts the booleans into a fresh 80 MiB temporary at 10^7 rows (measured: 0.2 s of
    system time a call on a machine whose memory had to be compacted for huge pages).

    Examples
    --------
    >>> _group_numbers(np.array([True, False, True, True]), np.empty(4, np.int64)).tolist()
    [0, 0, 1, 2]
    """
    carry = -1
    for begin in range(0, change.shape[0], BLOCK_ROWS):
        block = out[begin:begin + BLOCK_ROWS]
        np.cumsum(change[begin:begin + BLOCK_ROWS], dtype=np.int64, out=block)
        block += carry
        carry = int(block[-1])
    return out


def _compress_into(change: NDArray[np.bool_], values: I64, out: I64) -> I64:
    """``values[change]`` written into ``out`` (as long as the true entries), in blocks
    of :data:`BLOCK_ROWS`: ``np.compress(change, values, out=out)`` over the whole
    column makes two fresh temporaries of that size (the positions, and a copy of
    ``out``, which its bounds-checking mode takes), 0.1-0.4 s of system time a call at
    10^7 rows. ``out`` may share memory with neither input.

    Examples
    --------
    >>> _compress_into(np.array([True, False, True]), np.array([4, 5, 6]),
    ...                np.empty(2, np.int64)).tolist()
    [4, 6]
    """
    at = 0
    for begin in range(0, change.shape[0], BLOCK_ROWS):
        keep = change[begin:begin + BLOCK_ROWS]
        count = int(np.count_nonzero(keep))
        np.compress(keep, values[begin:begin + BLOCK_ROWS], out=out[at:at + count])
        at += count
    return out


def _order_by_full_key(key: U64, spread: bool, high: U64, order: I64, unequal: I64) -> None:
    """Put in order, by the full sort key (the key, or :func:`finalize` of it with
    ``spread``), each group of positions of equal top bits (``high``, sorted) that
    holds the unequal neighbours at ``unequal``: the sort by top bits left them in
    row order (rare for spread keys: about n^2 / 2^(65 - b) pairs, some 40 among 10^7
    random keys). ``order`` is changed in place."""
    values = high[unequal]  # ascending: each group once, so the ranges are disjoint
    values = values[np.concatenate(([True], values[1:] != values[:-1]))]
    begin = np.searchsorted(high, values, side="left")
    length = np.searchsorted(high, values, side="right") - begin
    positions = np.repeat(begin - np.cumsum(length) + length, length)
    positions += np.arange(positions.shape[0])
    full = key[order[positions]]
    if spread:
        finalize(full)
    within = np.lexsort((full, high[positions]))
    order[positions] = order[positions[within]]


def same_words(words: list[U64], groups: Groups) -> bool:
    """Whether the rows of each group have equal words (no two ids share a hash):
    each row that shares its key is compared with the row before it in its group.

    Examples
    --------
    >>> key = np.array([5, 5, 9], dtype=np.uint64)
    >>> same_words([np.array([1, 1, 2], dtype=np.uint64)], sorted_groups(key))
    True
    >>> same_words([np.array([1, 3, 2], dtype=np.uint64)], sorted_groups(key))
    False
    """
    return all(np.array_equal(word[groups.repeat], word[groups.previous]) for word in words)


def found_in_sorted(sorted_keys: U64, keys: U64) -> I64:
    """For each of the distinct ascending ``sorted_keys``, the index of the entry of
    ``keys`` (distinct) equal to it, or -1: :meth:`~prcurve.ranking.key_table.KeyTable.find`
    of ``sorted_keys`` in a table of ``keys``, by one sort of ``keys`` and a binary
    search of each among the sorted keys (numpy's search narrows each range by the
    previous needle's when needles ascend). A run's 9·10^6 label keys against 10^6
    judged ones: the searches touch 10^6 places instead of probing 9·10^6 times.

    Examples
    --------
    >>> found_in_sorted(np.array([2, 5, 9], dtype=np.uint64),
    ...                 np.array([9, 4, 2], dtype=np.uint64)).tolist()
    [2, -1, 0]
    """
    found = np.full(sorted_keys.shape[0], -1, dtype=np.int64)
    if sorted_keys.shape[0] == 0 or keys.shape[0] == 0:
        return found
    by_key = np.argsort(keys)
    needles = keys[by_key]
    position = np.searchsorted(sorted_keys, needles)
    np.minimum(position, sorted_keys.shape[0] - 1, out=position)
    hit = sorted_keys[position] == needles
    found[position[hit]] = by_key[hit]
    return found

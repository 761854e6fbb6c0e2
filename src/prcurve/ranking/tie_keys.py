"""trec_eval's order of tied rows by one stable sort of a 64-bit key per row (issue 26,
item 5): shared by the general path (:mod:`prcurve.ranking.join`, ids encoded) and the
dict join (:mod:`prcurve.ranking.dict_join`, ``str`` ids walked).

trec_eval ranks a query's documents by score descending, ties broken by document id
descending in byte order (``form_res_rels.c``: ``strcmp``; UTF-8's byte order is code
point order; integer ids as the decimal text a file holds). Only the tied rows need an
order, and only among the rows of their own tie. Each id is given as *words*: unsigned
64-bit integers that compare, taken in turn, exactly as the ids do (text: 8 bytes a word,
big-endian, NUL-padded; integers: :func:`~prcurve.ranking.text_numbers.decimal_text_keys`;
other text: its rank among the tied ids). :func:`leading_key` makes one key per id from
its words, the 64 bits that follow the leading bits every id shares (a prefix such as
``clueweb09-`` orders nothing), so that the key never falls as the id rises;
:func:`tied_order` sorts (tie number in the top bits, the key's complement below) by one
stable sort and puts the rows whose keys still agree in order by their full words, a
sort of those rows only.

Before (session 35) the general path ranked every label, one argsort of 10^7 random keys
(0.9 s at 10^7 rows, 2-decimal scores), then sorted the ties again by those ranks; the
dict join's one stable sort of nearly sorted keys took 0.16 s (numpy's argsort of
``uint64`` is a timsort here, which finds the ties' ascending runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking import keys as _keys
from prcurve.ranking.text_numbers import decimal_text_keys

__all__ = ["id_words", "leading_key", "tied_order"]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


def leading_key(words: list[U64]) -> U64:
    """One 64-bit key per id that never falls as the id rises (the words compared in
    turn): the first word in which the ids differ, its leading bits that every id
    shares shifted out and the next word's leading bits shifted in. Ids whose keys are
    equal may still differ (:func:`tied_order` compares their words then); ids whose
    keys differ compare as their keys do. It may be one of ``words`` (not a copy).

    Examples
    --------
    >>> first = np.array([0x6431000000000000, 0x6439000000000000], dtype=np.uint64)
    >>> second = np.array([0x3100000000000000, 0], dtype=np.uint64)
    >>> [hex(int(k)) for k in leading_key([first, second])]
    ['0x1000000000000310', '0x9000000000000000']
    """
    n = words[0].shape[0] if words else 0
    for k, word in enumerate(words if n else []):
        low, high = int(word.min()), int(word.max())
        if low == high:  # shared by every id: no order in it
            continue
        shared = 64 - (low ^ high).bit_length()  # 0-63 leading bits every id shares
        if shared == 0 or k + 1 == len(words):
            return word
        key: U64 = word << np.uint64(shared)
        key |= words[k + 1] >> np.uint64(64 - shared)
        return key
    return np.zeros(n, dtype=np.uint64)  # every id the same (or none)


def tied_order(group: I64, key: U64, index: NDArray[np.intp] | None,
               words_of: Callable[[NDArray[np.intp]], list[U64]]) -> NDArray[np.intp]:
    """The permutation putting tied rows in order of tie, then id descending.

    ``group[i]``: row i's tie, numbered from 0, ascending along the rows (each tie's
    rows together); ``group``'s array is used for temporaries (its values are lost).
    ``key``: :func:`leading_key` of the ids (read, never written); row i's is
    ``key[index[i]]`` (``index`` None: ``key[i]``). ``words_of(rows)``: words that order
    those rows' ids exactly (their full words, or any others that compare as the ids
    do among those rows), asked for only where keys agree within a tie. A tie lists an id
    once (a query lists a document once), so the order is exact.

    Examples
    --------
    >>> words = [np.array([5, 9, 7, 1], dtype=np.uint64)]
    >>> group = np.array([0, 0, 0, 1])
    >>> tied_order(group, leading_key(words), None, lambda at: [w[at] for w in words]).tolist()
    [1, 2, 0, 3]
    """
    m = group.shape[0]
    # In place where it can be: at 10^7 tied rows each fresh array is 80 MB, faulted in.
    sort_key = key.copy() if index is None else np.take(key, index)
    np.invert(sort_key, out=sort_key)  # descending ids
    group_bits = int(group[-1]).bit_length() if m else 0
    high = group.view(np.uint64)  # (the group numbers are not needed after: reused)
    if group_bits:  # (a shift by 64 is undefined)
        sort_key >>= np.uint64(group_bits)
        high <<= np.uint64(64 - group_bits)
        sort_key |= high
    # A stable sort (timsort on uint64): the ties ascend, so runs are found.
    order: NDArray[np.intp] = np.argsort(sort_key, kind="stable")
    sorted_key = np.take(sort_key, order, out=high)
    del sort_key
    same = sorted_key[1:] == sorted_key[:-1]
    del sorted_key, high
    if same.any():  # keys that agree (one tie): their rows by the ids' full words
        involved = np.zeros(m, dtype=bool)
        involved[1:] = same
        involved[:-1] |= same
        at = np.flatnonzero(involved)
        first = np.ones(at.shape[0], dtype=bool)
        first[1:] = ~same[at[1:] - 1]
        run = np.cumsum(first)  # each run of agreeing keys (consecutive positions)
        moved = order[at]
        # np.lexsort: the last key first; each run in place, its rows by words descending.
        words = words_of(moved)
        order[at] = moved[np.lexsort([~word for word in reversed(words)] + [run])]
    return order


def id_words(ids: NDArray[Any]) -> list[U64]:
    """Words that compare, taken in turn, as trec_eval orders the ids (byte order):
    integers by their decimal text (one word when every id has fewer than 18 digits),
    text of up to 32 code points below 256 as its bytes (Latin-1: the code points; code
    point order is UTF-8's byte order), any other text (longer, wider, empty) by its rank
    in a stable sort of the ids (one word: equal ids, equal ranks only where they sort
    together; a tie lists an id once, so its rows' order is exact).

    Examples
    --------
    >>> ids = np.array([9, 10, 100, 2, -5])
    >>> words = id_words(ids)
    >>> ids[np.lexsort(words[::-1])].tolist()
    [-5, 10, 100, 2, 9]
    >>> text = np.array(["b", "ab", "a", "é"])
    >>> text[np.lexsort(id_words(text)[::-1])].tolist()
    ['a', 'ab', 'b', 'é']
    """
    if ids.dtype.kind in "iu":
        numbers = ids.astype(np.int64, copy=False)
        aligned = decimal_text_keys(numbers)  # non-negative, below 2^62
        if aligned is not None:
            return [aligned.view(np.uint64)]
        text = numbers.astype("S20")  # int64's decimal text, at most 20 bytes
        ids = text
    words = _keys.text_words(ids) if ids.shape[0] else None
    if words is not None:
        return words
    rank = np.empty(ids.shape[0], dtype=np.uint64)
    rank[np.argsort(ids, kind="stable")] = np.arange(ids.shape[0], dtype=np.uint64)
    return [rank]

"""The distinct values of a column of 64-bit keys and each row's index among them,
by one sort, for columns whose keys are nearly all distinct (real document ids).

A hash table (pyarrow's ``dictionary_encode``) finds a column's distinct keys in
one pass, a few ns a row while the table stays in cache: a run of 10^7 rows that
draws its documents from a pool of 10^4 ids. Real runs name about as many
documents as they have rows (MS MARCO: 8.8 x 10^6 passages); the table then grows
to 10^7 entries, every row misses the cache and the pass took 3.1-3.6 s of CPU
for 10^7 keys on the issue's machine, against 0.75 s for the sort below.

The sort: each key's top ``64 - b`` bits and its row number (``b`` bits, ``2^b >=
n``) packed into one ``uint64`` and sorted by ``np.sort`` (no argsort); the row
numbers then read back give the order of the rows by their keys' top bits. Keys
equal in their top bits but not in full (rare: about n^2 / 2^(65 - b) pairs,
some 40 among 10^7 random keys) are put in order by sorting just their
groups by the full key, so the result is exact: equal keys, and only they, get
one index. The distinct keys come out in ascending order.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "SAMPLE_ROWS",
    "SORT_ROWS",
    "mostly_distinct",
    "mostly_distinct_count",
    "sample_rows",
    "sorted_codes",
]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

SAMPLE_ROWS = 1 << 16  # rows whose keys tell whether a column is mostly distinct
SORT_ROWS = 1 << 16
"""Columns at least this long are tried for the sort (read at each call: tests lower it)."""


def sample_rows(n: int) -> NDArray[np.intp]:
    """:data:`SAMPLE_ROWS` rows spread evenly over a column of ``n`` (all when fewer):
    a run's first rows are its first queries, whose documents are distinct even
    when the run's are few (a pool of 5 x 10^4 ids, 10^4 per query)."""
    step = max(n // SAMPLE_ROWS, 1)
    return np.arange(0, n, step)[:SAMPLE_ROWS]


def mostly_distinct_count(distinct_in_sample: int, sample: int) -> bool:
    """Whether a sample of ``sample`` rows with ``distinct_in_sample`` distinct ids
    comes from a column of mostly distinct ids: more than 90% of them distinct.
    Drawn from D distinct ids, a sample of m rows holds about D (1 - exp(-m / D)):
    90% of m when D is about 5 m (3.3 x 10^5 for m = 2^16); a pool of 5 x 10^4 ids
    gives 56%, 9 x 10^6 ids of 10^7 rows 99.6%."""
    return 10 * distinct_in_sample > 9 * sample


def mostly_distinct(key: U64) -> bool:
    """Whether the column's keys are mostly distinct, from :func:`sample_rows`
    (:func:`mostly_distinct_count`): then :func:`sorted_codes` beats a hash table
    (whose cost grows with the distinct keys); else the hash table is faster (0.12 s
    against 1.5 s of CPU for 10^7 keys of 10^4 distinct values).

    Examples
    --------
    >>> mostly_distinct(np.arange(10, dtype=np.uint64))
    True
    >>> mostly_distinct(np.arange(10, dtype=np.uint64) % 7)
    False
    """
    sample = np.sort(key[sample_rows(key.shape[0])])
    if sample.shape[0] < 2:
        return True
    distinct = int(np.count_nonzero(sample[1:] != sample[:-1])) + 1
    return mostly_distinct_count(distinct, sample.shape[0])


def sorted_codes(key: U64) -> tuple[U64, I64]:
    """The distinct keys, ascending, and each row's index among them (exact).

    Examples
    --------
    >>> known, codes = sorted_codes(np.array([7, 3, 7, 2**63 + 5], dtype=np.uint64))
    >>> known.tolist(), codes.tolist()
    ([3, 7, 9223372036854775813], [1, 0, 1, 2])
    """
    n = key.shape[0]
    if n == 0:
        return key.copy(), np.zeros(0, dtype=np.int64)
    bits = np.uint64(max(n - 1, 1).bit_length())
    row_mask = np.uint64((1 << int(bits)) - 1)
    # Arrays of n words alive at once: key, packed (then high, then group), order,
    # ordered, codes (no more: at 3 x 10^6 rows each is 23 MiB).
    packed = key >> bits
    packed <<= bits
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    order = packed & row_mask  # the rows by their keys' top bits
    order_rows = order.view(np.int64)
    high = packed
    high >>= bits  # in place: the sorted keys' top bits
    ordered = key[order_rows]
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    # Keys equal in their top bits, different in full: their group is in row order,
    # not key order. Each such group is sorted by the full key (few, small).
    unsorted = np.flatnonzero(change[1:] & (high[1:] == high[:-1]))
    if unsorted.shape[0]:
        values = high[unsorted]  # ascending: each group once, so the ranges are disjoint
        values = values[np.concatenate(([True], values[1:] != values[:-1]))]
        begin = np.searchsorted(high, values, side="left")
        length = np.searchsorted(high, values, side="right") - begin
        # The groups' positions, ascending: begin of each group plus 0 .. length - 1.
        positions = np.repeat(begin - np.cumsum(length) + length, length)
        positions += np.arange(positions.shape[0])
        within = np.lexsort((ordered[positions], high[positions]))
        order_rows[positions] = order_rows[positions[within]]
        ordered[positions] = key[order_rows[positions]]
        change[positions] = True
        inner = positions[positions > 0]
        change[inner] = ordered[inner] != ordered[inner - 1]
    group = np.cumsum(change, dtype=np.int64, out=high.view(np.int64))  # high is done
    group -= 1
    codes = np.empty(n, dtype=np.int64)
    codes[order_rows] = group
    del group, high, packed
    return ordered[change], codes

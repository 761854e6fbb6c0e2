"""Whether a column of 64-bit keys is mostly distinct (real document ids), told from
a sample of its rows: such a column is grouped by one sort
(:func:`~prcurve.ranking.word_groups.sorted_groups`), another by a hash table.

A hash table (pyarrow's ``dictionary_encode``) finds a column's distinct keys in
one pass, a few ns a row while the table stays in cache: a run of 10^7 rows that
draws its documents from a pool of 10^4 ids. Real runs name about as many
documents as they have rows (MS MARCO: 8.8 x 10^6 passages); the table then grows
to 10^7 entries, every row misses the cache and the pass took 3.1-3.6 s of CPU
for 10^7 keys on the issue's machine, against 0.75 s for the sort.
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
]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

SAMPLE_ROWS = 1 << 16  # rows whose keys tell whether a column is mostly distinct
SORT_ROWS = 1 << 6
"""Columns at least this long are tried for the sort (read at each call: tests change
it). Measured (issue 26, item 5, session 36; ``keys.encode_words``, CPU ms, best of 15,
sort against table): mostly distinct ids are encoded faster by the sort at every size
from 64 rows (1 word: 0.080 against 0.102 at 64 rows, 0.108 against 0.187 at 2^10, 3.5
against 6.3 at 10^5; 2 words: 0.105 against 0.149, 0.140 against 0.274, 3.9 against
7.8), where a column of repeated ids pays the sample's check before its table (8% at
2^10 rows, 27-44% at 2^16: 3.2 against 2.2 ms). Was 2^16 (session 35): a run of 10^4 rows
built a hash table for each of its id columns (tests/test_distinct_keys.py,
``test_the_switches_pick_the_faster_path``)."""


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
    (:func:`mostly_distinct_count`): then the sort
    (:func:`~prcurve.ranking.word_groups.sorted_groups`) beats a hash table
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

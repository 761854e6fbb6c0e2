"""``prcurve trec``'s qrels as the block reader of a large run looks them up (issue 26,
items 4 and 5; split from :mod:`prcurve.ranking.trec_stream` in session 35).

:func:`read_exact_qrels` reads a qrels file by the exact reader of
:mod:`prcurve.ranking.trec_format` (without pyarrow) when it is not large;
:class:`Judged` is the lookup of the judged (query, document) pairs that
:mod:`prcurve.ranking.trec_blocks` makes of each block's rows: exact, by the ids'
bytes after their 64-bit keys agree.
"""

from __future__ import annotations

import os

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.key_table import KeyTable
from prcurve.ranking.keys import distinct, text_words, word_key
from prcurve.ranking.tables import Qrels, read_qrels
from prcurve.ranking.trec_format import exact_columns_of, read_bytes

__all__ = ["DEEP_JUDGMENTS", "GOLDEN", "MAX_ID", "QRELS_EXACT_BYTES", "Judged",
           "read_exact_qrels"]

QRELS_EXACT_BYTES = 1 << 26
"""A qrels file up to this size is read by the exact reader (no pyarrow import)."""

DEEP_JUDGMENTS = 1 << 16
"""A query with this many judgments or more is looked up by its own sorted keys
(:meth:`Judged.rows`); tests lower it."""

MAX_ID = 64
"""Longer ids (or scores) send the run to read_run."""

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""The multiplier mixing a query's code into a document's key (Fibonacci hashing)."""

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


def read_exact_qrels(path: str | os.PathLike[str]) -> Qrels:
    r"""A qrels file by the exact reader when it is not large (pyarrow's import alone
    is 40 MiB of memory), else by :func:`read_qrels`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\nq1 0 d2 0\n")
    >>> qrels = read_exact_qrels(path)
    >>> judged = Judged.build(qrels)
    >>> words = [np.array([int.from_bytes(b"d2".ljust(8, b"\0"), "big")], dtype=np.uint64)]
    >>> judged.rows(np.array([0]), np.array([0]), words).tolist()  # the row judging d2
    [1]
    """
    try:
        large = os.path.getsize(path) > QRELS_EXACT_BYTES
    except (OSError, TypeError, ValueError):
        large = True  # read_qrels names the problem
    if large:
        return read_qrels(path)
    data, source = read_bytes(path, "qrels")
    holder = [np.frombuffer(data, dtype=np.uint8)]
    del data  # the bytes freed once split (trec_format.exact_columns_of)
    with numpy_only():
        columns = exact_columns_of(holder, source, "qrels")
        return Qrels(columns.queries, columns.docs, columns.values, columns.source, columns.line,
                     consecutive_lines=columns.line is None)


class Judged:
    """The qrels as the run's blocks look them up: the judged documents' words and keys
    (keys.word_key), each query's code, and the qrels rows in (query, document) order:
    query q's are ``pair_row[bounds[q]:bounds[q + 1]]``, their documents' words at
    ``pair_doc[...]`` in ``doc_words``.

    The words are the qrels' own where it keeps them (each label's at the row
    ``word_rows`` names: no copy, no labels made), else read from its labels: at 1.5·10^6
    distinct judged documents, 36 MiB less at the peak of reading the run (issue 26)."""

    def __init__(self, qrels: Qrels, doc_words: list[U64], query_code: dict[bytes, int],
                 pairs: I64, n_docs: int, word_rows: I64 | None = None) -> None:
        self.qrels, self.doc_words, self.query_code = qrels, doc_words, query_code
        self.doc_keys = word_key(doc_words)
        # Rows fit int32 (a qrels file read here is at most QRELS_EXACT_BYTES).
        self.pair_row = np.argsort(pairs).astype(np.int32)
        ordered = pairs[self.pair_row]
        self.bounds = np.searchsorted(ordered, np.arange(len(query_code) + 1) * n_docs)
        label = ordered % max(n_docs, 1)
        del ordered
        self.pair_doc = (label if word_rows is None else word_rows[label]).astype(np.int32)
        self._deep: tuple[int, U64, NDArray[np.int32]] | None = None  # (_deep_rows)

    @classmethod
    def build(cls, qrels: Qrels) -> Judged | None:
        docs, queries = qrels._docs, qrels._queries
        if docs.label_kind != "S" or queries.label_kind != "S" or docs.n_labels == 0:
            return None
        words, word_rows = docs.stored_words() if docs.has_words else ([], None)
        if not words or len(words) > MAX_ID // 8:
            found = text_words(docs.labels, max_words=MAX_ID // 8)
            if found is None:
                return None
            words, word_rows = found, None
        query_code = {label: k for k, label in enumerate(queries.labels.tolist())}
        return cls(qrels, words, query_code, queries.codes * docs.n_labels + docs.codes,
                   docs.n_labels, word_rows)

    def rows(self, codes: I64, topic: I64, words: list[U64]) -> NDArray[np.int32] | None:
        """The qrels row judging each row's (query, document), or -1 (exact); None
        when two judged pairs of the block share a key (read_run's path then).

        ``topic``: each row's query among the block's, whose qrels codes are ``codes``
        (-1: not judged); ``words``: the documents'. The judged pairs of the block's
        queries go into a small hash table (in cache) keyed by their document's key
        mixed with their query; each row is looked up there and checked byte for byte.
        """
        n = words[0].shape[0]
        out = np.full(n, -1, dtype=np.int32)
        judged = np.flatnonzero(codes >= 0)
        low, high = self.bounds[codes[judged]], self.bounds[codes[judged] + 1]
        counts = high - low
        k_judged = len(self.doc_words)
        padded = words[:k_judged] + [np.zeros(n, dtype=np.uint64)] * (k_judged - len(words))
        deep = counts >= DEEP_JUDGMENTS
        for j in judged[deep].tolist():  # (a deep query: its own lookup, kept for its parts)
            of_query = np.flatnonzero(topic == j)
            deep_rows = self._deep_rows(int(codes[j]), [w[of_query] for w in padded],
                                        [w[of_query] for w in words[k_judged:]])
            if deep_rows is None:
                return None
            out[of_query] = deep_rows
        if deep.any():
            judged, low, high, counts = judged[~deep], low[~deep], high[~deep], counts[~deep]
        total = int(counts.sum())
        if total == 0:
            return out
        # The block's judged pairs: entry i is sorted pair ``entry[i]``, of block query
        # ``entry_topic[i]``.
        entry_topic = np.repeat(judged, counts)
        entry = np.repeat(low - (np.cumsum(counts) - counts), counts) + np.arange(total)
        entry_doc = self.pair_doc[entry]
        with np.errstate(over="ignore"):
            table_keys = self.doc_keys[entry_doc] ^ (entry_topic.astype(np.uint64) * GOLDEN)
        if distinct(table_keys).shape[0] != total:
            return None
        with np.errstate(over="ignore"):
            keys = word_key(padded) ^ (topic.view(np.uint64) * GOLDEN)
        found = KeyTable(table_keys).find(keys)
        for word in words[k_judged:]:  # a word past the judged ids': judged nowhere
            found[word != 0] = -1
        hit = np.flatnonzero(found >= 0)
        at = found[hit]
        same = entry_topic[at] == topic[hit]
        for mine, theirs in zip(padded, self.doc_words, strict=True):
            same &= mine[hit] == theirs[entry_doc[at]]  # equal keys, equal bytes
        out[hit[same]] = self.pair_row[entry[at[same]]]
        return out

    def _deep_rows(self, code: int, padded: list[U64], past: list[U64]
                   ) -> NDArray[np.int32] | None:
        """:meth:`rows` of one query with :data:`DEEP_JUDGMENTS` judgments or more: its
        judged documents' keys sorted once (12 bytes a judgment, kept while its parts
        are read: trec_stream reads a deep query in parts) and each row found by a
        binary search, instead of a hash table of 16 slots a judgment made for every
        block (one topic of 5·10^5 judgments: 32 MiB a block); None when two of its
        judged documents share a key. ``padded``: the rows' words, as many as the
        judged ids'; ``past``: their words after those (judged nowhere unless zero)."""
        if self._deep is None or self._deep[0] != code:
            self._deep = None
            low, high = int(self.bounds[code]), int(self.bounds[code + 1])
            judged_keys = self.doc_keys[self.pair_doc[low:high]]
            order = np.argsort(judged_keys)
            ordered = judged_keys[order]
            if (ordered[1:] == ordered[:-1]).any():
                return None
            self._deep = (code, ordered, (order + low).astype(np.int32))
        _, ordered, entries = self._deep
        with np.errstate(over="ignore"):
            row_keys = word_key(padded)
        place = np.searchsorted(ordered, row_keys)
        place[place == ordered.shape[0]] = 0
        hit = np.flatnonzero(ordered[place] == row_keys)
        entry = entries[place[hit]]
        same = np.ones(hit.shape[0], dtype=bool)
        for mine, theirs in zip(padded, self.doc_words, strict=True):
            same &= mine[hit] == theirs[self.pair_doc[entry]]  # equal keys, equal bytes
        for word in past:
            same &= word[hit] == 0
        out = np.full(row_keys.shape[0], -1, dtype=np.int32)
        out[hit[same]] = self.pair_row[entry[same]]
        return out

"""``prcurve trec``'s qrels read against its run: the judgments of the retrieved
documents kept, the others counted (issue 26, item 4; session 36).

A qrels file of 10^6 judgments with a run of 10^4 lines held every judgment's
columns (about 56 bytes a judgment and the exact reader's temporaries on top):
142-150 MiB, where the C trec_eval takes 57. Every measure of ``-R qrels`` needs
of a judgment that no retrieved document has only its query and its grade: the
rankings (:func:`prcurve.ranking.join.prepare`) count, per query, the relevant
documents (``num_rel``, recall, ...), the judged nonrelevant ones (bpref), and the
judged documents of each grade (``JudgedLevels``: nDCG's ideal gains, infAP,
Rprec_mult, ...); ``-c``'s summary counts the judgments of grade > 0. So after the
run is read, :func:`read_against` streams the qrels file in blocks of
:data:`BLOCK_BYTES` and keeps

- each judgment of a (query, document) pair the run lists, as it is (``-M`` and
  ``-J`` select among the retrieved rows only; a document below ``-M``'s depth is
  kept, as the run lists it);
- for the other judgments, one row per (query, grade) that stands for all of them:
  its document id is ``"\\n"`` and the grade (no id in a TREC file holds a newline,
  so it matches no retrieved document) and :attr:`CountedQrels.judgment_counts`
  says how many judgments it stands for, which ``prepare`` counts instead of 1.

Whatever is not plain sends the caller to the whole-file reader
(:func:`prcurve.ranking.trec_judged.read_exact_qrels`), which reads everything and
names every error as before: None is returned for a compressed file or one with a
byte-order mark, any block the exact reader refuses (the whole-file reader then
names the line), a query whose judgments are not all together (a document judged
twice could then only be found by keeping every judgment's id), a document judged
twice for a query (the whole-file reader names it), or a run whose ids are not
bytes.
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.ranking import keys as _keys
from prcurve.ranking.byte_words import byte_words
from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.key_table import KeyTable
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.trec_format import (
    LAYOUT,
    line_blocks,
    open_plain,
    parse_numbers,
    split_fields,
)
from prcurve.ranking.trec_judged import GOLDEN
from prcurve.ranking.trec_run_keys import RunKeys, word_hash

__all__ = ["BLOCK_BYTES", "MAX_ID_WORDS", "CountedQrels", "read_against",
           "read_against_keys"]

BLOCK_BYTES = 1 << 19
"""The qrels are read this much at a time (the exact reader's temporaries are some
ten times a block); tests lower it to put block boundaries everywhere."""

MAX_ID_WORDS = 8
"""A run with longer document ids (words of 8 bytes) has its qrels read whole."""

I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]


class CountedQrels(Qrels):
    """Qrels whose row i stands for ``judgment_counts[i]`` judgments of its query with
    its grade (:func:`read_against`); the rankings count it so many times.

    Examples
    --------
    >>> from prcurve.ranking.keys import Encoded
    >>> queries = Encoded(np.array([b"q1"]), np.array([0, 0]))
    >>> docs = Encoded(np.array([b"d1", b"\\n0"]), np.array([0, 1]))
    >>> qrels = CountedQrels(queries, docs, np.array([1, 0]), np.array([1, 999]))
    >>> qrels.relevance.tolist(), qrels.judgment_counts.tolist()
    ([1, 0], [1, 999])
    """

    def __init__(self, query_id: _keys.Encoded, doc_id: _keys.Encoded, relevance: I64,
                 judgment_counts: I64, source: str | None = None) -> None:
        super().__init__(query_id, doc_id, relevance, source)
        self.judgment_counts = judgment_counts

    def _summary(self) -> str:
        positive = int(self.judgment_counts[self.relevance > 0].sum())
        return (f", {positive} with grade > 0; {int(self.judgment_counts.sum())} "
                "judgments, those of unlisted documents counted per grade")


class _Lookup(Protocol):
    """What the blocks ask of a run: whether it (may) list each row's (query,
    document); never False for a pair it lists (:class:`_RunPairs`, exact;
    :class:`~prcurve.ranking.trec_run_keys.RunKeys`, by keys)."""

    def listed(self, query_labels: list[bytes], query: I64, doc_words: list[U64],
               doc_hash: U64) -> NDArray[np.bool_]: ...


class _RunPairs:
    """The run's (query, document) pairs, looked up exactly: its query ids by a dict;
    its document ids by their 64-bit keys (:func:`~prcurve.ranking.keys.word_key`:
    the word itself for ids of up to 8 bytes) sorted, found by a hash table
    (:class:`~prcurve.ranking.key_table.KeyTable`), a key found then checked word
    for word; each pair as one integer (query code x documents + the
    document's place among the sorted keys) in a sorted array. Not made (``ready``
    False) where two of the run's documents share a key or an id is longer than
    :data:`MAX_ID_WORDS` words."""

    def __init__(self, run: Run) -> None:
        queries, docs = run._queries, run._docs
        self.query_code = {label: k for k, label in enumerate(queries.labels.tolist())}
        words = docs.label_words() if docs.has_words else _keys.text_words(
            docs.labels, max_words=MAX_ID_WORDS)
        self.ready = bool(words) and len(words or []) <= MAX_ID_WORDS
        if not words or not self.ready:
            return
        order = np.argsort(_keys.word_key(words), kind="stable")
        self.words = [w[order] for w in words]
        self.keys = _keys.word_key(self.words)
        self.ready = not bool((self.keys[1:] == self.keys[:-1]).any())
        self.table = KeyTable(self.keys)
        place = np.empty(order.shape[0], dtype=np.int64)
        place[order] = np.arange(order.shape[0])
        self.n_docs = max(order.shape[0], 1)
        self.pairs = np.sort(queries.codes.astype(np.int64) * self.n_docs + place[docs.codes])

    def listed(self, query_labels: list[bytes], query: I64, doc_words: list[U64],
               doc_hash: U64) -> NDArray[np.bool_]:
        """Whether the run lists each row's (query, document): ``query`` holds the rows'
        codes among the distinct ``query_labels``, ``doc_words`` their documents'
        words (``doc_hash``: their word_hash, unused here)."""
        query_code = np.array([self.query_code.get(q, -1) for q in query_labels],
                              dtype=np.int64)
        k = len(self.words)
        n_rows = doc_words[0].shape[0]
        padded = doc_words[:k] + [np.zeros(n_rows, dtype=np.uint64)] * (k - len(doc_words))
        place = self.table.find(_keys.word_key(padded))  # (-1: no such key)
        same = place >= 0
        place[~same] = 0
        for mine, theirs in zip(padded, self.words, strict=True):
            same &= mine == theirs[place]  # equal keys, equal bytes
        for word in doc_words[k:]:  # longer than every document of the run
            same &= word == 0
        row_query, row_doc = query_code[query], np.where(same, place, -1)
        candidate = np.flatnonzero((row_query >= 0) & (row_doc >= 0))
        pair = row_query[candidate] * self.n_docs + row_doc[candidate]
        at = np.searchsorted(self.pairs, pair)
        at[at == self.pairs.shape[0]] = 0
        out = np.zeros(query.shape[0], dtype=bool)
        out[candidate[self.pairs[at] == pair]] = True
        return out


class _Kept:
    """What the blocks keep: the retrieved judgments' ids and grades, the other
    judgments' count per (query, grade), and the query whose judgments the last block
    ended in (``open``: its label; ``open_docs``: its documents' keys so far (64 bits:
    :func:`~prcurve.ranking.trec_run_keys.word_hash`, the same whatever a block's
    width; two equal, a document judged twice or, once
    in 2^64, two sharing a key: either way the whole-file reader reads the file), to find one
    judged twice across blocks), with the queries already ended."""

    def __init__(self) -> None:
        self.query_index: dict[bytes, int] = {}  # each query's code, in order of first sight
        self.queries: list[NDArray[np.int32]] = []  # the kept rows' query codes
        self.docs: list[list[U64]] = []  # the kept rows' document words
        self.grades: list[I64] = []
        self.counts: dict[tuple[bytes, int], int] = {}
        self.ended: set[bytes] = set()
        self.open: bytes | None = None
        self.open_docs: list[U64] = []
        self.rows = 0

    def end_open(self) -> bool:
        """End the open query: False if it judges a document twice."""
        if self.open is not None:
            self.ended.add(self.open)
            if len(self.open_docs) > 1:
                docs = np.sort(np.concatenate(self.open_docs))
                if (docs[1:] == docs[:-1]).any():
                    return False
        self.open, self.open_docs = None, []
        return True

    def take(self, data: bytes, source: str, run: _Lookup) -> bool:
        """Take in one block of whole lines: False where the whole-file reader must
        read the file. The lines are split and their grades read as the exact reader
        does (:mod:`~prcurve.ranking.trec_format`); the documents are not encoded (the
        rows' words are looked up among the run's), the queries are (few)."""
        n_fields, exact, layout, value_field, dtype, what = LAYOUT["qrels"]
        try:
            with numpy_only():
                fields = split_fields(data, source, "qrels", n_fields, exact, layout,
                                      allow_empty=True)
                if fields.first.shape[0] == 0:
                    return True  # comments and blank lines only
                grades = parse_numbers(fields, value_field, dtype, source, "qrels", what)
                s0, e0 = fields.bounds(0)
                queries = _keys.encode_words(byte_words(fields.buffer, s0, e0 - s0), grouped=True)
                s2, e2 = fields.bounds(2)
                doc_words = byte_words(fields.buffer, s2, e2 - s2)
        except InvalidInputError:
            return False
        del fields
        grades = grades.astype(np.int64, copy=False)
        query = queries.codes
        query_labels: list[bytes] = queries.labels.tolist()
        n_rows = query.shape[0]
        # Each query's judgments together (blocks of one code, and no query of an
        # earlier block again but the one the last block ended in, first).
        if 1 + int(np.count_nonzero(query[1:] != query[:-1])) != len(query_labels):
            return False
        first, last = query_labels[int(query[0])], query_labels[int(query[-1])]
        if any(q in self.ended or (q == self.open and q != first) for q in query_labels):
            return False
        doc_hash = word_hash(doc_words)  # (the same whatever the block's width)
        with np.errstate(over="ignore"):  # a document judged twice in the block: keys
            pair_keys = doc_hash ^ (query.astype(np.uint64) * GOLDEN)
        if _keys.distinct(pair_keys).shape[0] != n_rows:  # (equal for equal pairs) agree
            return False
        del pair_keys
        rows = np.arange(n_rows)
        if first != self.open:  # the open query ended with the last block
            if not self.end_open():
                return False
            self.open = first
        for q in query_labels:
            if q != first and q != last:
                self.ended.add(q)
        if first != last:  # the first query (begun in an earlier block or not) ends here
            self.open_docs.append(doc_hash[rows[query == query[0]]])
            if not self.end_open():
                return False
            self.open = last
        self.open_docs.append(doc_hash[rows[query == query[-1]]])
        listed = run.listed(query_labels, query, doc_words, doc_hash)
        index = self.query_index
        codes = np.array([index.setdefault(q, len(index)) for q in query_labels],
                         dtype=np.int32)
        self.queries.append(codes[query[listed]])
        self.docs.append([w[listed] for w in doc_words])
        self.grades.append(grades[listed])
        other = ~listed
        for (code, g), c in _counted(query[other], grades[other], len(query_labels)):
            key = (query_labels[code], g)
            self.counts[key] = self.counts.get(key, 0) + c
        self.rows += n_rows
        return True

    def qrels(self, source: str) -> CountedQrels | None:
        """The kept rows, then one row per (query, grade) counted. The documents are
        encoded from their words (kept as read: 8 bytes a word and row, no ``S``
        labels nor a sort of them; :func:`~prcurve.ranking.keys.encode_words`), so the
        run's block reader finds them as stored (``Encoded.stored_words``)."""
        if self.rows == 0 or not self.end_open():
            return None
        placeholders = list(self.counts.items())
        index = self.query_index
        query_codes = np.concatenate([*self.queries, np.array(
            [index[q] for (q, _), _ in placeholders], dtype=np.int32)]).astype(np.int64)
        self.queries = []
        query_labels = np.array(list(index), dtype=bytes)
        doc_words = _joined_words(self.docs, [b"\n%d" % g for (_, g), _ in placeholders])
        self.docs = []
        grades = np.concatenate([*self.grades,
                                 np.array([g for (_, g), _ in placeholders], dtype=np.int64)])
        counts = np.ones(grades.shape[0], dtype=np.int64)
        counts[grades.shape[0] - len(placeholders):] = [c for _, c in placeholders]
        return CountedQrels(_keys.Encoded(query_labels, query_codes),
                            _keys.encode_words(doc_words),
                            grades.astype(np.int64, copy=False), counts, source)


def _joined_words(blocks: list[list[U64]], tail: list[bytes]) -> list[U64]:
    """The words of the blocks' rows and then of the ids ``tail``, word by word (a
    block of fewer words padded with zeros: the words of a shorter id)."""
    width = max([len(words) for words in blocks] + [(len(t) + 7) // 8 for t in tail])
    matrix = np.frombuffer(b"".join(t.ljust(8 * width, b"\0") for t in tail),
                           dtype=">u8").reshape(len(tail), width)
    out = []
    for k in range(width):
        column = [words[k] if k < len(words) else np.zeros(words[0].shape[0], np.uint64)
                  for words in blocks]
        out.append(np.concatenate([*column, matrix[:, k].astype(np.uint64)]))
    return out


def _counted(query: I64, grades: I64, n_queries: int) -> list[tuple[tuple[int, int], int]]:
    """How many rows each (query code, grade) has: by one count where the grades span
    at most 64 values (as they do), else by a sort."""
    if grades.shape[0] == 0:
        return []
    low, high = int(grades.min()), int(grades.max())
    if high - low < 64:
        span = high - low + 1
        count = np.bincount(query * span + (grades - low), minlength=n_queries * span)
        at = np.flatnonzero(count)
        return [((p // span, p % span + low), c)
                for p, c in zip(at.tolist(), count[at].tolist(), strict=True)]
    grade, grade_code = np.unique(grades, return_inverse=True)
    n_grades = grade.shape[0]
    pair, count = np.unique(query * n_grades + grade_code, return_counts=True)
    return [((p // n_grades, int(grade[p % n_grades])), c)
            for p, c in zip(pair.tolist(), count.tolist(), strict=True)]


def read_against(path: str | os.PathLike[str], run: Run) -> CountedQrels | None:
    r"""A plain qrels file read against ``run`` (module docstring): the judgments
    the run's documents have, and per (query, grade) a count of the others; None where
    :func:`~prcurve.ranking.trec_judged.read_exact_qrels` must read it (a file this
    reader does not take). ``prcurve trec`` reads only qrels of
    :data:`prcurve.ranking.trec_stream.AGAINST_RUN_BYTES` or more so.

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.ranking import read_run
    >>> folder = tempfile.mkdtemp()
    >>> qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq1 0 d4 1\n")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 r\n")
    >>> qrels = read_against(qrels_path, read_run(run_path))
    >>> qrels.doc_id.tolist(), qrels.relevance.tolist(), qrels.judgment_counts.tolist()
    ([b'd1', b'\n0', b'\n1'], [1, 0, 1], [1, 1, 2])
    """
    if run._queries.label_kind != "S" or run._docs.label_kind != "S":
        return None
    try:
        pairs = _RunPairs(run)
    except (TypeError, ValueError):
        return None
    return _read(path, pairs) if pairs.ready else None


def read_against_keys(path: str | os.PathLike[str], keys: U64) -> CountedQrels | None:
    r""":func:`read_against` a run given by the sorted keys of its (query, document)
    pairs (:func:`prcurve.ranking.trec_run_keys.run_pair_keys`: the run read once
    for them, in blocks, never whole; session 37): a judgment whose pair has one of
    the keys is kept (every judgment of a pair the run lists, and those few whose
    keys collide with one), the others counted per (query, grade).

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.ranking.trec_run_keys import run_pair_keys
    >>> folder = tempfile.mkdtemp()
    >>> qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq1 0 d4 1\n")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 r\n")
    >>> qrels = read_against_keys(qrels_path, run_pair_keys(run_path))
    >>> qrels.doc_id.tolist(), qrels.relevance.tolist(), qrels.judgment_counts.tolist()
    ([b'd1', b'\n0', b'\n1'], [1, 0, 1], [1, 1, 2])
    """
    return _read(path, RunKeys(keys))


def _read(path: str | os.PathLike[str], pairs: _Lookup) -> CountedQrels | None:
    """The qrels file read in blocks, each row looked up by ``pairs``."""
    try:
        source = os.fspath(path)
        handle = open_plain(source)  # None: compressed, a byte-order mark...: read whole
        if handle is None:
            return None
        with handle:
            kept = _Kept()
            for block in line_blocks(handle, BLOCK_BYTES):
                if not kept.take(block, source, pairs):
                    return None
            return kept.qrels(source)
    except (OSError, TypeError, ValueError):
        return None

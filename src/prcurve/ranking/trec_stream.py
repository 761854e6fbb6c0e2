"""A large TREC run read in bounded blocks and joined with its qrels as it is read
(issue 26, items 4 and 5: ``prcurve trec`` in no more memory than the C trec_eval).

:func:`read_judged` reads the qrels (the exact reader of
:mod:`prcurve.ranking.trec_format`, without pyarrow) and then the run, a block of
whole queries at a time (:data:`BLOCK_BYTES` of the file, more when one query
needs more), with numpy alone. Of each line it keeps 16 bytes: the score (float64),
the row of the qrels judging its (query, document) or -1 (int32), and, for a row
whose score ties with another of its query, the rank of its document id among the
tied rows in byte order (int32; trec_eval breaks ties by document id, descending).
No dictionary of the documents is built: only the judged ones are looked up (the
issue's floor), so a run with as many distinct document ids as lines costs what a
run of pooled ids costs. The document column is a
:class:`~prcurve.ranking.row_docs.RowDocs`; :func:`prcurve.ranking.join.prepare`
takes the judgments and tie ranks from it.

Everything stays exact: a document is matched to a judged one by its bytes (its
words, compared after their keys agree); a query listing a document twice is found
by a sort of 64-bit keys of (query, document) and then the bytes of the rows whose
keys agree; ties are ranked by all the bytes of the tied ids. Whatever this reader
does not take -- a file that is not plain (one delimiter, exactly six fields, ``\\n``
or ``\\r\\n`` line ends, no comment or blank line), a query whose lines are not
together, a score that is not a finite number, ids longer than 64 bytes, a document
listed twice, two judged pairs of a block with one key -- returns None, and the
caller reads the file with :func:`~prcurve.ranking.read_run`, which takes everything
and names every error as before.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.ranking import trec_reader
from prcurve.ranking.byte_words import loaded_words
from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.key_table import KeyTable
from prcurve.ranking.keys import (
    distinct,
    encode_words,
    text_words,
    word_key,
)
from prcurve.ranking.row_docs import BlockQueries, RowDocs
from prcurve.ranking.state import c_float_scores
from prcurve.ranking.tables import Qrels, Run, read_qrels, read_run
from prcurve.ranking.text_numbers import general_numbers, plain_decimals, word_matrix
from prcurve.ranking.trec_format import (
    COMPRESSED_STARTS,
    SPECIAL_STARTS,
    exact_columns_of,
    joined,
    read_bytes,
)

__all__ = ["BLOCK_BYTES", "MAX_BLOCK_BYTES", "QRELS_EXACT_BYTES", "read_judged",
           "read_judged_run"]

BLOCK_BYTES = 1 << 21
"""The run is read this much at a time (more when one query's lines need more);
tests lower it to put block boundaries everywhere."""

MAX_BLOCK_BYTES = 1 << 26
"""A query whose lines need a larger block than this (about 2·10^6 lines) sends the run
to read_run: a block's temporaries are some 10 times its size."""

QRELS_EXACT_BYTES = 1 << 26
"""A qrels file up to this size is read by the exact reader (no pyarrow import)."""

_SLACK = 1 << 12  # room after a block: 8-byte loads past a field's end stay in the buffer
_MAX_ID = 64  # longer ids (or scores) go to read_run
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_GZIP = COMPRESSED_STARTS[0]
U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


def read_judged(qrels_path: str | os.PathLike[str],
                run_path: str | os.PathLike[str]) -> tuple[Qrels, Run]:
    """The qrels and run files of ``prcurve trec``: the run read by
    :func:`read_judged_run` when it applies, else by :func:`read_run`. Errors are
    those of :func:`read_run` and :func:`read_qrels`, the run's first.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\n")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 r\\nq1 Q0 d2 2 1.5 r\\n")
    >>> qrels, run = read_judged(qrels_path, run_path)  # a small run: read_run reads it
    >>> run.doc_id.tolist(), run.score.tolist(), qrels.relevance.tolist()
    ([b'd1', b'd2'], [2.5, 1.5], [1])
    """
    if not _large(run_path):  # as before: the run, then the qrels (without pyarrow
        run = read_run(run_path)  # up to QRELS_EXACT_BYTES: 40 MiB less, issue 26)
        return _read_qrels(qrels_path), run
    try:
        qrels = _read_qrels(qrels_path)
    except InvalidInputError:
        read_run(run_path)  # the run's own error first, as when the run is read first
        raise
    found = read_judged_run(run_path, qrels)
    return qrels, (read_run(run_path) if found is None else found)


def _large(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file whose text (decompressed: :func:`_text_size`)
    is at least ``SMALL_FILE_BYTES`` (smaller files are read whole, by the exact reader,
    without pyarrow either)."""
    size = _text_size(path)
    return size is not None and size >= trec_reader.SMALL_FILE_BYTES


def _text_size(path: str | os.PathLike[str]) -> int | None:
    """The size of a regular file's text, or None (not a regular file). A gzip file's
    is its trailer's ISIZE (RFC 1952: the size of its last member modulo 2^32) or
    its own size, whichever is larger; a bzip2 or xz file's, its own size (a lower
    bound). Only a hint: the block reader grows its arrays past it."""
    try:
        source = os.fspath(path)
        if not os.path.isfile(source):
            return None
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size >= 18 and handle.read(2) == _GZIP:  # a header and trailer at least
                handle.seek(-4, os.SEEK_END)
                return max(size, int.from_bytes(handle.read(4), "little"))
            return size
    except (OSError, TypeError, ValueError):
        return None


def _read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """A qrels file by the exact reader when it is not large (pyarrow's import alone
    is 40 MiB of memory), else by :func:`read_qrels`."""
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


class _Judged:
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

    @classmethod
    def build(cls, qrels: Qrels) -> _Judged | None:
        docs, queries = qrels._docs, qrels._queries
        if docs.label_kind != "S" or queries.label_kind != "S" or docs.n_labels == 0:
            return None
        words, word_rows = docs.stored_words() if docs.has_words else ([], None)
        if not words or len(words) > _MAX_ID // 8:
            found = text_words(docs.labels, max_words=_MAX_ID // 8)
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
        total = int(counts.sum())
        if total == 0:
            return out
        # The block's judged pairs: entry i is sorted pair ``entry[i]``, of block query
        # ``entry_topic[i]``.
        entry_topic = np.repeat(judged, counts)
        entry = np.repeat(low - (np.cumsum(counts) - counts), counts) + np.arange(total)
        entry_doc = self.pair_doc[entry]
        with np.errstate(over="ignore"):
            table_keys = self.doc_keys[entry_doc] ^ (entry_topic.astype(np.uint64) * _GOLDEN)
        if distinct(table_keys).shape[0] != total:
            return None
        k_judged = len(self.doc_words)
        padded = words[:k_judged] + [np.zeros(n, dtype=np.uint64)] * (k_judged - len(words))
        with np.errstate(over="ignore"):
            keys = word_key(padded) ^ (topic.view(np.uint64) * _GOLDEN)
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


def read_judged_run(path: str | os.PathLike[str], qrels: Qrels) -> Run | None:
    """A large plain run file read in blocks and joined with ``qrels`` while read
    (module docstring), or None where :func:`read_run` must read it."""
    source = os.fspath(path)
    if not _large(source):
        return None
    try:
        judged = _Judged.build(qrels)
        if judged is None:
            return None
        with open(source, "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            compressed = handle.read(6).startswith(COMPRESSED_STARTS)
            handle.seek(0)
            parts = (_read_compressed(handle, judged, _text_size(source) or size) if compressed
                     else _read_blocks(handle, judged, size))
    except OSError:
        return None
    if parts is None:
        return None
    return parts.run(source, qrels)


def _read_compressed(raw: Any, judged: _Judged, size: int) -> _Parts | None:
    """:func:`_read_blocks` of a gzip, bzip2 or xz file's text, decompressed block by
    block as read (never the whole text in memory: issue 26, a gzip run cost 2.3x the
    memory of the plain file read whole); None on a damaged file (read_run then names
    the problem)."""
    import bz2  # the codecs only for compressed files (issue 26: small runs start fast)
    import gzip
    import lzma
    import zlib

    magic = raw.read(6)
    raw.seek(0)
    opener: Any = (gzip.open if magic.startswith(_GZIP)
                   else bz2.open if magic.startswith(b"BZh") else lzma.open)
    try:
        with opener(raw, "rb") as handle:
            return _read_blocks(handle, judged, size, exact_size=False)
    except (EOFError, ValueError, zlib.error, lzma.LZMAError):  # OSError: the caller's
        return None


def _mapped(rows: int, dtype: type[np.generic]) -> NDArray[Any]:
    """An array in its own anonymous map, not malloc's heap: its pages never written are
    not resident, nor handed to later arrays as free heap (a deep topic: 18 MiB less)."""
    return np.frombuffer(mmap.mmap(-1, max(rows, 1) * np.dtype(dtype).itemsize), dtype)


class _Parts:
    """What the blocks keep: per row the score, the judging qrels row and the tie rank,
    in arrays allocated once for the most lines the file can hold (12 bytes a line),
    mapped (:func:`_mapped`); each query's first row and words."""

    def __init__(self, size: int) -> None:
        most = (size + 1) // 12 + 1  # six fields of one byte, five gaps and a newline
        self.score = _mapped(most, np.float64)
        self.judged = _mapped(most, np.int32)
        self.rank = _mapped(most, np.int32)
        self.query_words: list[list[U64]] = []
        self.query_starts: list[I64] = []
        self.n = 0
        self.run_id: str | None = None

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` rows (the first ``n`` kept): twice the room, or more."""
        if rows <= self.score.shape[0]:
            return
        most = max(rows, 2 * self.score.shape[0])
        for name in ("score", "judged", "rank"):
            old = getattr(self, name)
            grown = _mapped(most, old.dtype.type)
            grown[:self.n] = old[:self.n]
            setattr(self, name, grown)

    def run(self, source: str, qrels: Qrels) -> Run | None:
        n = self.n
        if n == 0:
            return None
        first = encode_words(joined(self.query_words))
        if distinct(first.codes).shape[0] != first.codes.shape[0]:
            return None  # a query's lines are not all together: read_run's path
        starts = np.concatenate(self.query_starts)
        queries = BlockQueries(first.labels, first.codes, starts, n)
        docs = RowDocs(n, self.judged[:n], self.rank[:n], qrels, _labels_reader(source))
        return Run(queries, docs, self.score[:n], self.run_id, source, None,
                   consecutive_lines=True)


def _labels_reader(source: str) -> Callable[[], NDArray[Any]]:
    def labels() -> NDArray[Any]:  # each row's document id: the file read again
        docs = trec_reader.read_columns(source, "run").docs
        return docs.labels[docs.codes]
    return labels


def _read_blocks(handle: Any, judged: _Judged, size: int,
                 exact_size: bool = True) -> _Parts | None:
    """Read the file a block of whole queries at a time; None where read_run must.
    ``size``: the file's bytes (``exact_size``) or a hint (a compressed file's text).

    Each block is read into one buffer, its lines split (:func:`_lines`) and taken in
    (:func:`_fill`: scores, documents, judgments and ties); its last query's lines
    move to the buffer's start for the next block. (Two buffers taking turns, a thread
    taking in one block while the next was read, saved no time at 3·10^6 lines on 2
    cores and were removed: docs/benchmarks.md, session 32.)"""
    parts = _Parts(size)
    buffer = bytearray(-(-BLOCK_BYTES // 8) * 8 + _SLACK)  # whole words (_words)
    held = 0  # bytes carried to the buffer's start (its last query)
    taken = 0  # bytes read so far
    separator: int | None = None
    while True:
        if held >= len(buffer) - _SLACK:  # one query's lines fill it: a larger one
            if len(buffer) > MAX_BLOCK_BYTES:
                return None
            more = len(buffer)  # twice the room, or what is left of the file (whole
            if exact_size:  # words; one query of a 38 MB file: 38, not 64 MiB)
                more = min(more, -(-(size - taken + 1) // 8) * 8)
            buffer.extend(bytes(more))
        got = handle.readinto(memoryview(buffer)[held:len(buffer) - _SLACK])
        taken += got or 0
        end = held + (got or 0)
        last = not got
        if end == 0:
            return parts
        if separator is None and buffer.startswith(SPECIAL_STARTS):  # the file's start:
            return None  # compressed, a byte-order mark, UTF-16
        if last and buffer[end - 1] != 10:  # the last line without its newline
            buffer[end] = 10
            end += 1
        cut = buffer.rfind(b"\n", 0, end) + 1
        if cut == 0:  # no whole line yet: read on into a larger buffer
            held = end
            continue
        if separator is None:  # the first line's: a tab or a space, not both
            line = bytes(buffer[:buffer.find(b"\n")])
            if (b"\t" in line) == (b" " in line):
                return None
            separator = 9 if b"\t" in line else 32
        if not last and _one_query(buffer, cut, separator):
            held = end  # the block holds one query so far: read on (no split redone)
            continue
        lines = _lines(buffer, cut, separator, last, judged)
        if lines is None:
            return None
        if lines.rows == 0:  # one query so far: read on (the same buffer, larger)
            held = end
            continue
        at = parts.n
        parts.reserve(at + lines.rows)  # (past a compressed file's size hint)
        parts.query_words.append(lines.query_words)
        parts.query_starts.append(lines.first + at)
        parts.n += lines.rows
        if not _fill(buffer, lines, judged, parts, at):
            return None
        if last:
            parts.run_id = lines.run_id
            return parts
        # The last query's lines (and any partial line) start the next block.
        held = end - lines.kept
        buffer[:held] = buffer[lines.kept:end]


def _one_query(buffer: bytearray, cut: int, separator: int) -> bool:
    """Whether the first and the last whole line of ``buffer[:cut]`` start with the
    same query id: then (a query's lines being together) the block is one query's so
    far, and splitting it would take no line. Only a shortcut: a file whose lines are
    not together is still found, by the split of the larger block read next."""
    first_end = buffer.find(bytes((separator,)), 0, cut)
    start = buffer.rfind(b"\n", 0, cut - 1) + 1
    width = first_end + 1
    return (first_end > 0 and start > 0
            and buffer[start:start + width] == buffer[:width])


class _Lines:
    """A block's lines split (:func:`_lines`): the fields' bounds of the ``rows``
    lines taken, each query's first row, words and qrels code, each row's query;
    ``kept``: the offset of the first byte not taken. (A class with slots, not a
    NamedTuple: this module loads with every ``prcurve trec``, and a NamedTuple's
    class costs about 0.3 ms to make; docs/architecture.md.)"""

    __slots__ = ("codes", "first", "gap", "kept", "lengths", "query_words", "rows", "run_id",
                 "topic")

    def __init__(self, gap: NDArray[np.intp], lengths: list[NDArray[np.intp]], rows: int,
                 first: I64, query_words: list[U64], codes: I64, topic: I64, kept: int,
                 run_id: str | None) -> None:
        self.gap, self.lengths, self.rows, self.first = gap, lengths, rows, first
        self.query_words, self.codes, self.topic = query_words, codes, topic
        self.kept, self.run_id = kept, run_id


def _lines(buffer: bytearray, cut: int, separator: int, last: bool,
           judged: _Judged) -> _Lines | None:
    """Split the whole lines ``buffer[:cut]``, taking all but (unless ``last``) those
    of their last query; None where read_run must read the file."""
    view = np.frombuffer(buffer, dtype=np.uint8, count=cut)
    # The bytes below 33 (white space and control bytes): in a plain file exactly five
    # separators and a newline a line, never two side by side nor first (an empty
    # field or line). One pass over the block finds them all.
    found = np.flatnonzero(view < 33)
    # \r\n line ends (Windows): their \r dropped; one memchr when there is none.
    kept = _without_line_end_returns(view, found) if buffer.find(b"\r", 0, cut) >= 0 else found
    if kept is None:
        return None
    low = kept
    n = low.shape[0] // 6
    if 6 * n != low.shape[0] or n == 0 or low[0] == 0 or (low[1:] == low[:-1] + 1).any():
        return None
    kinds = view[low].reshape(n, 6)
    if not ((kinds[:, 5] == 10).all() and (kinds[:, :5] == separator).all()):
        return None  # not six fields a line, or other white space or control bytes
    positions = low.reshape(n, 6)
    gap, newline = positions[:, :5], positions[:, 5]
    start = np.empty(n, dtype=np.intp)
    start[0] = 0
    start[1:] = newline[:-1] + 1
    if (view[start] == 35).any():
        return None  # a comment (or a query id starting with "#")
    lengths = [gap[:, 0] - start, gap[:, 2] - gap[:, 1] - 1, gap[:, 4] - gap[:, 3] - 1]
    if max(int(x.max()) for x in lengths) > _MAX_ID:
        return None
    words = _words(buffer)
    query = loaded_words(words, start, lengths[0], (int(lengths[0].max()) + 7) // 8)
    del words
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for word in query:
        change[1:] |= word[1:] != word[:-1]
    first = np.flatnonzero(change)
    rows = n
    if not last:
        rows = int(first[-1])  # the last query waits for the next block
        first = first[:-1]
    codes = np.array([judged.query_code.get(bytes(buffer[s:e]), -1) for s, e in
                      zip(start[first].tolist(), gap[first, 0].tolist(), strict=True)],
                     dtype=np.int64)
    topic = np.cumsum(change[:rows], dtype=np.int64) - 1  # each row's query in the block
    run_id = (bytes(buffer[int(gap[-1, 4]) + 1:int(newline[-1])]).rstrip(b"\r").decode(
        "utf-8", "surrogateescape") if last else None)  # (one \r at most: checked above)
    return _Lines(gap[:rows], [x[:rows] for x in lengths], rows, first.astype(np.int64),
                  [w[first] for w in query], codes, topic,
                  cut if last else (int(start[rows]) if rows < n else cut), run_id)


def _without_line_end_returns(view: NDArray[np.uint8],
                              low: NDArray[np.intp]) -> NDArray[np.intp] | None:
    """``low`` (the offsets of the block's bytes below 33) without the \\r of each
    \\r\\n line end, or None when a \\r is anywhere else.

    trec_eval splits at ``isspace`` bytes and ends lines at \\n
    (get_trec_results.c, ``parse_results_line``), so a \\r right after a line's last
    field and before its \\n ends that field (the run id) and is nothing else: such
    a line is the same line with a \\n end. Only that \\r is dropped here; a \\r after
    white space (an empty last field: trec_eval's error), at a line's start (a blank
    line), doubled, or not before a \\n sends the file to read_run, which names the
    line as before."""
    returns = view[low] == 13
    at = low[returns]
    if at[0] == 0:  # (the block ends with \n, so at + 1 is inside it)
        return None
    if not ((view[at + 1] == 10).all() and (view[at - 1] >= 33).all()):
        return None
    kept: NDArray[np.intp] = low[~returns]
    return kept


def _words(buffer: bytearray) -> U64:
    """The buffer as aligned 64-bit words (a view; its length is whole words, and the
    slack after a block holds the loads past a field's end:
    text_numbers.load_words)."""
    words: U64 = np.frombuffer(buffer, dtype=np.uint64)
    return words


def _fill(buffer: bytearray, lines: _Lines, judged: _Judged, parts: _Parts, at: int) -> bool:
    """Take in a block's lines (:func:`_lines`) from ``buffer``: their scores, the
    qrels rows judging them and their tie ranks, at rows ``at`` onwards of ``parts``;
    False where read_run must read the file (a document twice in a query, a score
    that is not a finite number)."""
    gap, rows, topic = lines.gap, lines.rows, lines.topic
    words = _words(buffer)
    # The scores: plain decimals exactly (text_numbers), any other text by numpy.
    score_length = lines.lengths[2]
    matrix = word_matrix(words, gap[:, 3] + 1, score_length,
                         max(int(score_length.max(initial=0)), 1))
    score, read = plain_decimals(matrix, score_length)
    if not read.all():
        other = np.flatnonzero(~read)
        text = matrix[other].view(f"S{matrix.shape[1]}").ravel()  # (a copy: contiguous)
        values = general_numbers(text, np.float64)
        if values is None:
            return False
        score[other] = values
    del matrix
    doc_length = lines.lengths[1]
    doc = loaded_words(words, gap[:, 1] + 1, doc_length, (int(doc_length.max()) + 7) // 8)
    del words
    if _repeats(topic, doc):
        return False  # a document twice in a query: read_run names the line
    judged_rows = judged.rows(lines.codes, topic, doc)
    if judged_rows is None:
        return False
    parts.score[at:at + rows] = score
    parts.judged[at:at + rows] = judged_rows
    parts.rank[at:at + rows] = _tie_ranks(topic, score, doc)
    return True


def _group_order(topic: I64, words: list[U64], rows: NDArray[np.intp]) -> NDArray[np.intp]:
    """``rows`` sorted by (topic, the words): the byte order of their ids in a query."""
    order = np.lexsort([w[rows] for w in reversed(words)] + [topic[rows]])
    return rows[order]


def _repeats(topic: I64, words: list[U64]) -> bool:
    """Whether some query lists a document twice (exact): 64-bit keys of (query,
    document) sorted; the rows whose keys agree are compared byte for byte."""
    with np.errstate(over="ignore"):
        key = word_key(words) ^ (topic.view(np.uint64) * _GOLDEN)
    rows = _sharing(key)
    if rows.shape[0] == 0:
        return False
    rows = _group_order(topic, words, rows)
    same = topic[rows[1:]] == topic[rows[:-1]]
    for word in words:
        same &= word[rows[1:]] == word[rows[:-1]]
    return bool(same.any())


def _sharing(key: U64) -> NDArray[np.intp]:
    """The rows whose key another row has too (a sort; usually none)."""
    ordered = np.sort(key)
    equal = ordered[1:] == ordered[:-1]
    if not equal.any():
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(np.isin(key, ordered[1:][equal]))


def _tie_ranks(topic: I64, score: NDArray[np.float64], words: list[U64]) -> NDArray[np.int32]:
    """Each row's rank in byte order among the rows whose score (as float32, with -0
    as 0) ties another row's of its query; 0 for the others. float32 ties include
    float64 ties, so the ranks serve trec_eval 9 and 10 alike."""
    narrow = c_float_scores(score)  # beyond float32: inf, ties with any other such
    narrow += np.float32(0.0)  # -0.0 + 0.0 is 0.0: equal scores, equal bits
    same_topic = topic[1:] == topic[:-1]
    if not (same_topic & (narrow[1:] > narrow[:-1])).any():
        # Scores descending in each query (as runs are written): ties are neighbours.
        equal = same_topic & (narrow[1:] == narrow[:-1])
        tied = np.zeros(score.shape[0], dtype=bool)
        tied[1:] = equal
        tied[:-1] |= equal
        rows = np.flatnonzero(tied)
    else:
        key = (topic.view(np.uint64) << np.uint64(32)) | narrow.view(np.uint32).astype(np.uint64)
        rows = _sharing(key)
    rank = np.zeros(score.shape[0], dtype=np.int32)
    if rows.shape[0]:
        rank[_group_order(topic, words, rows)] = np.arange(rows.shape[0], dtype=np.int32)
    return rank

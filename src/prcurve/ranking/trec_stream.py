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

This module reads the blocks and keeps what they give; a block's lines are split and
taken in by :mod:`prcurve.ranking.trec_blocks`, and looked up among the judged pairs
of :mod:`prcurve.ranking.trec_judged` (three modules by responsibility since session
35: one was at the 600-line limit).
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
from prcurve.ranking.keys import distinct, encode_words
from prcurve.ranking.row_docs import BlockQueries, RowDocs
from prcurve.ranking.state import c_float_scores
from prcurve.ranking.tables import Qrels, Run, read_run
from prcurve.ranking.trec_blocks import Lines, part_keys, split_lines, take_in
from prcurve.ranking.trec_format import COMPRESSED_STARTS, SPECIAL_STARTS, joined
from prcurve.ranking.trec_judged import QRELS_EXACT_BYTES, Judged, read_exact_qrels

__all__ = ["AGAINST_RUN_BYTES", "AGAINST_RUN_TIMES", "BLOCK_BYTES", "KEYS_RUN_BYTES",
           "KEYS_RUN_SHARE", "MAX_BLOCK_BYTES",
           "QRELS_EXACT_BYTES", "read_judged", "read_judged_run"]

BLOCK_BYTES = 1 << 21
"""The run is read this much at a time (more when one query's lines need more);
tests lower it to put block boundaries everywhere."""

MAX_BLOCK_BYTES = 1 << 26
"""A query whose lines need a larger block than this (about 2·10^6 lines) sends the run
to read_run: a block's temporaries are some 10 times its size."""

AGAINST_RUN_BYTES = 1 << 20
"""Qrels of at least this many bytes, and twice the run's, are read against a run read
whole (:func:`read_judged`); others whole, as before (little to save, and the module
of :func:`~prcurve.ranking.trec_retrieved.read_against` not imported; with qrels half
the run's size, 1.7 MB of them, the blocks cost 7 MiB more: docs/benchmarks.md,
session 36). Tests lower it."""

AGAINST_RUN_TIMES = 2
"""How many times the run's size the qrels' must be, at least, to be read against it
(:data:`AGAINST_RUN_BYTES`); tests set 0."""

KEYS_RUN_BYTES = 1 << 20
"""A run of this size or more (and qrels as :func:`_keys_first` says) has its qrels
read against its pairs' keys, the run never read whole (session 37: a run of 10^5
lines, 3.5 MB, read whole was 20 MiB of a 69 MiB peak); smaller runs are read whole
and their qrels against them as in session 36. Tests lower it."""

KEYS_RUN_SHARE = 3
"""Qrels of at least the run's size over this are read against the run's keys (the
keys cost 8 bytes a run line and a third reading of the run, about 0.2 s of CPU per
10^6 lines; the qrels read whole some 100 bytes a judgment). A heuristic from the
shapes of docs/benchmarks.md, session 37: 3·10^6 judgments with a 3·10^6-line run
(qrels half its size) 433 MiB read whole, 287 against the keys at the same CPU;
bench_shapes' A (1.5·10^6 judgments, 3·10^6 lines, qrels 0.26 of the run) 234 MiB
read whole, under the C trec_eval's 291 already, 198 against the keys but 0.4-0.6 s
more CPU. Tests set it high."""

_SLACK = 1 << 12  # room after a block: 8-byte loads past a field's end stay in the buffer
_GZIP = COMPRESSED_STARTS[0]
U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


def read_judged(qrels_path: str | os.PathLike[str], run_path: str | os.PathLike[str],
                *, against_run: bool = False) -> tuple[Qrels, Run]:
    """The qrels and run files of ``prcurve trec``: the run read by
    :func:`read_judged_run` when it applies, else by :func:`read_run`. Errors are
    those of :func:`read_run` and :func:`read_qrels`, the run's first.

    ``against_run`` (the qrels serve this run only): qrels of :data:`AGAINST_RUN_BYTES`
    or more, and :data:`AGAINST_RUN_TIMES` the size of a run read whole or more, are
    read against it, keeping only what its measures need of the judgments
    (:func:`prcurve.ranking.trec_retrieved.read_against`; issue 26, item 4).

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
    if against_run and _keys_first(qrels_path, run_path):
        by_keys = _read_by_keys(qrels_path, run_path)
        if by_keys is not None:
            return by_keys
    if not _large(run_path):  # as before: the run, then the qrels (without pyarrow
        run = read_run(run_path)  # up to QRELS_EXACT_BYTES: 40 MiB less, issue 26)
        if against_run and (_text_size(qrels_path) or 0) >= max(
                AGAINST_RUN_BYTES, AGAINST_RUN_TIMES * (_text_size(run_path) or 0)):
            from prcurve.ranking.trec_retrieved import read_against  # (large qrels only)

            against = read_against(qrels_path, run)
            if against is not None:
                return against, run
        return read_exact_qrels(qrels_path), run
    try:
        qrels = read_exact_qrels(qrels_path)
    except InvalidInputError:
        read_run(run_path)  # the run's own error first, as when the run is read first
        raise
    found = read_judged_run(run_path, qrels)
    return qrels, (read_run(run_path) if found is None else found)


def _keys_first(qrels_path: str | os.PathLike[str], run_path: str | os.PathLike[str]
                ) -> bool:
    """Whether the qrels are read against the run's keys (:func:`_read_by_keys`): qrels
    of :data:`AGAINST_RUN_BYTES` or more, and at least the run's size over
    :data:`KEYS_RUN_SHARE`, with a run of :data:`KEYS_RUN_BYTES` or more."""
    qrels_size, run_size = _text_size(qrels_path) or 0, _text_size(run_path) or 0
    return (run_size >= KEYS_RUN_BYTES and qrels_size >= AGAINST_RUN_BYTES
            and KEYS_RUN_SHARE * qrels_size >= run_size)


def _read_by_keys(qrels_path: str | os.PathLike[str], run_path: str | os.PathLike[str]
                  ) -> tuple[Qrels, Run] | None:
    """The run read three times, never whole (issue 26, item 4; session 37): for its
    (query, document) pairs' keys (:func:`~prcurve.ranking.trec_run_keys.run_pair_keys`),
    then the qrels against them
    (:func:`~prcurve.ranking.trec_retrieved.read_against_keys`: the judgments of the
    pairs the run lists kept, the others counted), then the run in blocks joined with
    those (:func:`read_judged_run`; a run it does not take, by :func:`read_run`). None
    where a file is not plain: the caller reads as before, naming every error."""
    from prcurve.ranking.trec_retrieved import read_against_keys  # (large qrels only)
    from prcurve.ranking.trec_run_keys import run_pair_keys

    keys = run_pair_keys(run_path)
    if keys is None:
        return None
    qrels = read_against_keys(qrels_path, keys)
    del keys  # (its own map: returned to the system)
    if qrels is None:
        return None
    found = read_judged_run(run_path, qrels, any_size=True)
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


def read_judged_run(path: str | os.PathLike[str], qrels: Qrels, *,
                    any_size: bool = False) -> Run | None:
    """A large plain run file (``any_size``: or a smaller one) read in blocks and joined
    with ``qrels`` while read (module docstring), or None where :func:`read_run` must
    read it."""
    source = os.fspath(path)
    if not (any_size or _large(source)):
        return None
    try:
        judged = Judged.build(qrels)
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


def _read_compressed(raw: Any, judged: Judged, size: int) -> _Parts | None:
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


def _read_blocks(handle: Any, judged: Judged, size: int,
                 exact_size: bool = True) -> _Parts | None:
    """Read the file a block of whole queries at a time; None where read_run must.
    ``size``: the file's bytes (``exact_size``) or a hint (a compressed file's text).

    Each block is read into one buffer, its lines split
    (:func:`~prcurve.ranking.trec_blocks.split_lines`) and taken in
    (:func:`~prcurve.ranking.trec_blocks.take_in`: scores, documents, judgments and
    ties); its last query's lines move to the buffer's start for the next block. (Two
    buffers taking turns, a thread taking in one block while the next was read, saved
    no time at 3·10^6 lines on 2 cores and were removed: docs/benchmarks.md, session 32.)"""
    parts = _Parts(size)
    buffer = bytearray(-(-BLOCK_BYTES // 8) * 8 + _SLACK)  # whole words (trec_blocks.block_words)
    held = 0  # bytes carried to the buffer's start (its last query)
    taken = 0  # bytes read so far
    separator: int | None = None
    deep = _Deep()
    while True:
        if held >= len(buffer) - _SLACK:  # one query's lines fill it: take a part of
            kept = _part_of_query(buffer, held, separator, judged, parts, deep,
                                  taken - held)  # them, or else read on into a larger buffer
            if kept is None:
                return None
            if kept < 0:  # its scores rose after a part was kept: read it again, whole
                taken, held = _rewind(handle, parts, deep), 0
                continue
            if kept:
                held -= kept
                buffer[:held] = buffer[kept:kept + held]
                continue
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
        lines = split_lines(buffer, cut, separator, last, judged)
        if lines is None:
            return None
        if lines.rows == 0:  # one query so far: read on (the same buffer, larger)
            held = end
            continue
        taken_in = take_in(buffer, lines, judged)
        if taken_in is None:
            return None
        query_words, first = lines.query_words, lines.first
        if deep.words is not None:  # the block's first query was begun in parts
            closed = deep.closed_by(lines, taken_in[0], taken_in[3])  # (the words)
            if closed < 0:
                taken, held = _rewind(handle, parts, deep), 0
                continue
            if not closed:
                return None
            query_words, first = [w[1:] for w in query_words], first[1:]
        deep.whole = False
        at = parts.n
        parts.reserve(at + lines.rows)  # (past a compressed file's size hint)
        parts.query_words.append(query_words)
        parts.query_starts.append(first + at)
        parts.n += lines.rows
        parts.score[at:parts.n], parts.judged[at:parts.n], parts.rank[at:parts.n] = taken_in[:3]
        del taken_in
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


class _Deep:
    """A query too deep for one block (its lines fill :data:`BLOCK_BYTES`), read in
    parts (issue 26, item 4: one topic of 10^6 documents held its 38 MB of lines and
    some ten times that in temporaries at once).

    A part ends where the query's scores (as float32, trec_eval 9's ties, which
    include trec_eval 10's) strictly decrease, so that no tie group is split: each
    part's tie ranks are those of the whole query. Parts are taken only while the
    query's scores never increase (runs are written so); otherwise the query is read
    whole as before (``whole``), from its first line again (:func:`_rewind`) if parts
    of it were kept. ``words``: the query's id (None: no query open); ``keys``: its
    documents' 64-bit keys so far, checked distinct when it ends (equal keys:
    read_run, which names a document listed twice); ``last``: its last kept row's
    float32 score; ``offset``, ``row``, ``entry``: where its first line is in the
    file, its first row, its entry in the parts' lists of queries."""

    __slots__ = ("entry", "keys", "last", "offset", "row", "whole", "words")
    words: list[U64] | None
    keys: list[U64]
    last: np.float32
    whole: bool
    offset: int
    row: int
    entry: int

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.words, self.keys, self.last, self.whole = None, [], np.float32(0), False
        self.offset = self.row = self.entry = 0

    def follows(self, narrow: NDArray[np.float32]) -> bool:
        """Whether rows of these float32 scores may follow the kept part: never
        increasing, and below its last score."""
        return not ((narrow[1:] > narrow[:-1]).any()
                    or (self.words is not None and not self.last > narrow[0]))

    def closed_by(self, lines: Lines, score: NDArray[np.float64], doc: list[U64]) -> int:
        """End the query with a block's first query's rows (whole lines split; ``doc``:
        the block's document words): 1; 0 where read_run must read the file; -1 where
        it must be read again, whole (its scores rose)."""
        if self.words is None or not _same_query(self.words, lines.query_words):
            return 0
        rows = int(lines.first[1]) if lines.first.shape[0] > 1 else lines.rows
        if not self.follows(_narrow(score[:rows])):
            return -1
        keys = np.sort(np.concatenate([*self.keys, part_keys([w[:rows] for w in doc])]))
        self.words, self.keys = None, []
        return int(not (keys[1:] == keys[:-1]).any())


def _narrow(score: NDArray[np.float64]) -> NDArray[np.float32]:
    narrow = c_float_scores(score)  # as trec_blocks._tie_ranks: -0.0 as 0.0
    narrow += np.float32(0.0)
    return narrow


def _same_query(words: list[U64], block: list[U64]) -> bool:
    """Whether the first query of a block (its words ``block``) is ``words``'s (one
    query's); a list's missing words are zero."""
    for k in range(max(len(words), len(block))):
        mine = int(words[k][0]) if k < len(words) else 0
        theirs = int(block[k][0]) if k < len(block) else 0
        if mine != theirs:
            return False
    return True


def _part_of_query(buffer: bytearray, held: int, separator: int | None, judged: Judged,
                   parts: _Parts, deep: _Deep, offset: int) -> int | None:
    """Take the first part of the lines ``buffer[:held]`` of one deep query (class
    :class:`_Deep`; ``offset``: where they are in the file): the bytes taken, 0 where
    the buffer must grow instead (not one query, one tie group so far, scores not in
    order), -1 where the query must be read again whole (its scores rose after a part
    was kept), None where read_run must read the file."""
    cut = buffer.rfind(b"\n", 0, held) + 1
    if deep.whole or separator is None or cut == 0 or not _one_query(buffer, cut, separator):
        return 0
    lines = split_lines(buffer, cut, separator, True, judged)
    if lines is None:
        return None
    if lines.first.shape[0] != 1:
        return 0
    taken_in = take_in(buffer, lines, judged)
    if taken_in is None:
        return None
    score, judged_rows, rank, doc = taken_in
    narrow = _narrow(score)
    if not deep.follows(narrow):
        if deep.words is not None:
            return -1
        deep.whole = True
        return 0
    change = np.flatnonzero(narrow[1:] != narrow[:-1])
    if change.shape[0] == 0:
        return 0
    rows = int(change[-1]) + 1
    if deep.words is None:
        deep.offset, deep.row, deep.entry = offset, parts.n, len(parts.query_words)
        deep.words = [w[:1].copy() for w in lines.query_words]
        parts.query_words.append(deep.words)
        parts.query_starts.append(np.array([parts.n], dtype=np.int64))
    elif not _same_query(deep.words, lines.query_words):
        return None
    at = parts.n
    parts.reserve(at + rows)
    parts.n += rows
    parts.score[at:parts.n] = score[:rows]
    parts.judged[at:parts.n] = judged_rows[:rows]
    parts.rank[at:parts.n] = rank[:rows]
    deep.keys.append(part_keys([w[:rows] for w in doc]))  # keys of any block's width
    deep.last = narrow[rows - 1]
    return int(lines.gap[rows, 0] - lines.lengths[0][rows])


def _rewind(handle: Any, parts: _Parts, deep: _Deep) -> int:
    """Drop the parts kept of a deep query and seek back to its first line, to read it
    whole (``deep.whole``); the file's offset now. (A compressed file seeks by
    decompressing again from its start: only for a deep query whose scores rise.)"""
    parts.n = deep.row
    del parts.query_words[deep.entry:]
    del parts.query_starts[deep.entry:]
    offset = deep.offset
    handle.seek(offset)
    deep.reset()
    deep.whole = True
    return offset

"""Which reader reads a TREC qrels or run file, and pyarrow's.

:func:`read_columns` (a path) and :func:`parse_columns` (bytes) first check,
chunk by chunk (a regular file through a memory map of one chunk at a time, no
copy), that a file is plain (:class:`_Sniffer`: one delimiter, a
space or a tab, between non-empty fields, ``\\n`` or ``\\r\\n`` line ends, no
other white-space byte). A plain file goes through pyarrow's multi-threaded
streaming CSV reader, batch by batch into arrays allocated once (the next
batches parsed in another thread meanwhile, :func:`_ahead`), the ids'
bytes turned into words (:func:`prcurve.ranking.keys.byte_words`) and
dictionary-encoded: no Python object per line. Every other file, and any
file that reader refuses, goes to the exact reader of
:mod:`prcurve.ranking.trec_format`, which names the first bad line; the two
give the same columns.

A small file (below :data:`SMALL_FILE_BYTES`; a typical run of 50 topics x
1,000 documents is 1.5 MB) goes to the exact reader directly: one vectorised
pass over its bytes in memory costs less than importing pyarrow (about 0.1 s),
starting its threads and mapping the file (issue 26; the crossover, about 4 MB,
in docs/benchmarks.md, "Everyday sizes"); once ``pyarrow.csv`` is loaded, from
:data:`ARROW_LOADED_SMALL_FILE_BYTES` up. A job that reads several files
(:func:`prepare_job`: ``compare_runs``, ``prcurve trec --compare``) loads
``pyarrow.csv`` before its first file when the job loads pyarrow anyway and a run
of long scores (:func:`long_scores`) is among its files (docs/ranking.md, "TREC
files"; docs/benchmarks.md, issue 26, session 34).
"""

from __future__ import annotations

import importlib
import mmap
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import arrow_values, numpy_to_arrow
from prcurve.ranking.hashing import ARROW_ROWS, arrow_module
from prcurve.ranking.keys import Encoded, arrow_words, encode_words, rows_of_blocks
from prcurve.ranking.trec_format import (
    LAYOUT,
    SPECIAL_STARTS,
    Columns,
    exact_columns,
    joined,
    last_line_field,
    read_bytes,
)
from prcurve.validation.ranking import unreadable_file

__all__ = ["ARROW_LOADED_SMALL_FILE_BYTES", "LONG_SCORE_BYTES", "SMALL_FILE_BYTES",
           "long_scores", "parse_columns", "plain_delimiter", "prepare_job", "read_columns"]

SMALL_FILE_BYTES = 4 << 20
"""Files (after decompression, for bytes in memory) smaller than this are read by
the exact reader alone: no pyarrow import, no thread, no memory map. Measured
crossover in docs/benchmarks.md ("Everyday sizes"); tests set it to 0 to reach
pyarrow's reader with small files."""

ARROW_LOADED_SMALL_FILE_BYTES = 128 << 10
"""The same once ``pyarrow.csv`` is imported (an earlier large file, :func:`prepare_job`,
or the caller's own use): its import no longer costs anything, and from about this
size its reader and encoding beat the exact reader (``compare_runs`` of ten 3.8 MiB
runs read 1.8x faster; docs/benchmarks.md, session 32)."""

LONG_SCORE_BYTES = 15
"""A run's scores are long when the median score of its first lines
(:func:`long_scores`) has at least this many bytes: ``repr``'s 17 significant digits
(``0.12345678901234567``), where pyarrow's reader takes 0.6-0.9x the exact reader's
CPU; not 4 decimals (``19.9682``), where it takes 1.1-1.3x, nor 10 (docs/benchmarks.md,
issue 26, session 34)."""

_HEAD_BYTES = 1 << 14  # the first bytes of a file that prepare_job looks at
_HEAD_LINES = 64  # of which at most this many lines (about 40 µs of Python)


def _small_file_bytes() -> int:
    """The size under which a file is read by the exact reader, now."""
    if "pyarrow.csv" in sys.modules:
        return min(SMALL_FILE_BYTES, ARROW_LOADED_SMALL_FILE_BYTES)
    return SMALL_FILE_BYTES


def long_scores(head: bytes) -> bool:
    """Whether a run's scores are long: the median length of the score (the fifth
    field) over the data lines among the first bytes ``head`` of the file is at least
    :data:`LONG_SCORE_BYTES`. False when no line has five fields (a compressed or
    malformed file).

    Examples
    --------
    >>> long_scores(b"q1 Q0 d1 1 0.12345678901234567 r\\nq1 Q0 d2 2 0.1 r\\n"
    ...             b"q1 Q0 d3 3 0.098765432109876543 r\\n")
    True
    >>> long_scores(b"301 Q0 d1 1 19.9682 bench\\n301 Q0 d2 2 19.9662 bench\\n")
    False
    """
    lengths = sorted(len(fields[4]) for line in head.split(b"\n", _HEAD_LINES)[:_HEAD_LINES]
                     if not line.startswith(b"#") and len(fields := line.split()) >= 5)
    return bool(lengths) and lengths[len(lengths) // 2] >= LONG_SCORE_BYTES


def _head(source: str) -> bytes:
    try:
        with open(source, "rb") as handle:
            return handle.read(_HEAD_BYTES)
    except OSError:
        return b""  # open() in the reader names the problem


def prepare_job(files: Iterable[tuple[Any, str]]) -> bool:
    """Before a job reads several TREC files: import ``pyarrow.csv`` first when the job
    loads pyarrow anyway and one of its runs has long scores.

    ``files`` holds ``(source, kind)`` pairs, ``kind`` ``"qrels"`` or ``"run"``;
    sources that are no path of a regular file are passed over. The job loads pyarrow
    anyway when a file is a large one (:data:`SMALL_FILE_BYTES`: pyarrow's reader
    reads it) or, by the rows its first lines promise, has a column of
    :data:`~prcurve.ranking.hashing.ARROW_ROWS` rows (the exact reader's encoding
    imports ``pyarrow`` and ``pyarrow.compute`` for it, unless
    :class:`~prcurve.ranking.hashing.numpy_only`; ``pyarrow.csv`` then adds about
    1.5 ms). With ``pyarrow.csv`` loaded, every file of the job from
    :data:`ARROW_LOADED_SMALL_FILE_BYTES` up, the first too, takes pyarrow's reader,
    which reads a run of long scores (:func:`long_scores`) in 0.6-0.9x the exact
    reader's CPU. Without such a run nothing is loaded (runs of short scores: the
    exact reader is as fast or faster); nor where the job would not load pyarrow
    (30 runs of 5·10^4 lines of 17-digit scores, 68 MB, read no faster with its
    import: docs/benchmarks.md, issue 26, session 34). Returns whether
    ``pyarrow.csv`` is loaded.

    Examples
    --------
    >>> from prcurve.ranking.trec_reader import prepare_job
    >>> loaded = prepare_job([("no-such-qrels", "qrels"), ("no-such-run", "run")])
    >>> type(loaded).__name__  # no file to read: nothing loaded for them
    'bool'
    """
    if "pyarrow.csv" in sys.modules:
        return True
    large = many_rows = long_run = False
    for source, kind in files:
        try:
            path = os.fspath(source)
            size = os.path.getsize(path) if os.path.isfile(path) else -1
        except (TypeError, ValueError, OSError):
            continue
        if size < 0:
            continue
        if size >= SMALL_FILE_BYTES:
            large = True
            continue
        head = _head(path)
        if head.startswith(SPECIAL_STARTS):  # compressed: the exact reader's, by its text
            continue
        if kind == "run" and size >= ARROW_LOADED_SMALL_FILE_BYTES and long_scores(head):
            long_run = True
        lines = head.count(b"\n")
        rows = lines if size <= len(head) else size * lines // max(len(head), 1)
        many_rows = many_rows or rows >= ARROW_ROWS
    # arrow_module: pyarrow where the exact reader's encoding would import it (None
    # within numpy_only, or without pyarrow).
    if long_run and (large or (many_rows and arrow_module(ARROW_ROWS) is not None)):
        try:
            importlib.import_module("pyarrow.csv")
        except ImportError:
            return False
    return "pyarrow.csv" in sys.modules


def read_columns(path: str | os.PathLike[str], kind: str) -> Columns:
    """The columns of a qrels (``kind="qrels"``) or run file.

    A plain file (one delimiter, see :func:`plain_delimiter`) is read by
    pyarrow's multi-threaded CSV reader from the path, without ever holding the
    whole file in memory; any other file, or one that reader refuses, is read
    into memory (decompressed, byte-order mark dropped) and split exactly, as is
    every file smaller than :data:`SMALL_FILE_BYTES`.
    """
    source = os.fspath(path)
    if os.path.isdir(source):
        raise unreadable_file(kind, source, "it is a directory, not a file")
    try:
        small = os.path.getsize(source) < _small_file_bytes()
    except OSError:
        small = False  # open() below names the problem
    if small:  # one plain pass in memory (decompressed: parse_columns decides again)
        data, source = read_bytes(path, kind)
        return parse_columns(data, source, kind)
    try:
        with open(source, "rb") as handle:
            magic = handle.read(6)
            sniffer = None if magic.startswith(SPECIAL_STARTS) else _stream_sniff(handle)
    except OSError as error:
        raise unreadable_file(kind, source, error.strerror or str(error)) from None
    if sniffer is not None and sniffer.delimiter() is not None:
        fast = _arrow_columns(source, kind, sniffer, source)
        if fast is not None:
            return fast
    data, source = read_bytes(path, kind)
    return parse_columns(data, source, kind)


def parse_columns(data: bytes, source: str, kind: str) -> Columns:
    """The columns of a qrels or run file held in memory (decompressed)."""
    if len(data) < _small_file_bytes():
        return exact_columns(np.frombuffer(data, dtype=np.uint8), source, kind)
    sniffer = _sniff(data)
    if sniffer.delimiter() is not None:
        fast = _arrow_columns(data, kind, sniffer, source)
        if fast is not None:
            return fast
    return exact_columns(np.frombuffer(data, dtype=np.uint8), source, kind)


_CHUNK = 1 << 24  # the plain-file check reads this much at a time


class _Sniffer:
    """Decides, chunk by chunk, whether a file is plain: one delimiter (a space or
    a tab, whichever the first line uses) between non-empty fields, \\n or
    \\r\\n line ends, and no byte pyarrow would read differently from trec_eval
    (\\v, \\f, a \\r not before \\n, the other delimiter, NUL). A line starting
    with ``#`` is caught later (a query id starting with ``#``).

    Absent bytes cost one memchr each; empty fields (two delimiters, a
    delimiter at a line's start or end, a blank line) one vectorised pass.
    """

    def __init__(self) -> None:
        self.plain = True
        self.separator: int | None = None
        self.previous = 10  # the file starts a line
        self.size = 0
        self.lines = 0  # line ends seen
        self.carriage = False  # \r\n line ends seen
        self._work: NDArray[np.bool_] | None = None

    def feed(self, chunk: bytes | bytearray | mmap.mmap, begin: int, end: int) -> bool:
        """Take ``chunk[begin:end]``."""
        size = end - begin
        if not self.plain or size == 0:
            return self.plain
        if self.separator is None:
            first = bytes(chunk[begin:begin + min(size, 1 << 16)]).split(b"\n", 1)[0]
            first = first.rstrip(b"\r")
            has_tab, has_space = b"\t" in first, b" " in first
            if has_tab == has_space:
                self.plain = False
                return False
            self.separator = 9 if has_tab else 32
        self.size += size
        other = b" " if self.separator == 9 else b"\t"
        if any(chunk.find(byte, begin, end) >= 0 for byte in (b"\x0b", b"\x0c", b"\x00", other)):
            self.plain = False
            return False
        view = np.frombuffer(chunk, dtype=np.uint8, count=size, offset=begin)
        cr = chunk.find(b"\r", begin, end) >= 0
        if not cr:  # the usual case: two passes into buffers kept from chunk to chunk
            if self._work is None or self._work.shape[1] < size:
                self._work = np.empty((2, size), dtype=bool)
            pairs, gap = self._work[0, :size - 1], self._work[1, :size]
            np.equal(view, 10, out=gap)
            self.lines += int(np.count_nonzero(gap))
            # Bytes below 33: the delimiter and \n (the other white space is absent),
            # or a control byte inside an id, which then refuses the file (the exact
            # reader takes it): two of them side by side never pass.
            np.less(view, 33, out=gap)
            start_gap = bool(view[0] in (10, self.separator))
            np.logical_and(gap[1:], gap[:-1], out=pairs)
            if pairs.any() or (start_gap and self.previous in (10, self.separator)):
                self.plain = False
            self.previous = int(view[-1])
            return self.plain
        ends = view == 10
        self.lines += int(np.count_nonzero(ends))
        if cr:
            self.carriage = True
            returns = view == 13
            if returns[-1] or (returns[:-1] & ~ends[1:]).any():  # a \r not before \n
                self.plain = False
                return False
            ends |= returns
        gap = view == self.separator
        gap |= ends
        pairs = gap[1:] & gap[:-1]
        if cr:
            pairs &= ~(view[:-1] == 13)  # \r\n is one line end
        if pairs.any() or (gap[0] and self.previous in (10, self.separator)):
            self.plain = False
        self.previous = int(view[-1])
        return self.plain

    def delimiter(self) -> str | None:
        if not self.plain or self.size == 0 or self.separator is None:
            return None
        return chr(self.separator)

    def rows(self) -> int:
        """Data lines of a plain file (the last may lack its newline)."""
        return self.lines + (self.previous != 10)


def _stream_sniff(handle: Any) -> _Sniffer:
    """Sniff a file from its start in chunks (little memory): a regular file through
    read-only memory maps of one chunk at a time (the page cache's own pages, no
    copy: each map is closed before the next, so at most one chunk is resident),
    anything else read into a buffer."""
    try:
        size = os.fstat(handle.fileno()).st_size
        windows = (size > 0 and os.path.isfile(handle.name)
                   and _CHUNK % mmap.ALLOCATIONGRANULARITY == 0)  # maps start there
    except (OSError, AttributeError, TypeError, ValueError):
        windows = False
    if windows:
        sniffer = _Sniffer()
        try:
            for begin in range(0, size, _CHUNK):
                length = min(_CHUNK, size - begin)
                with mmap.mmap(handle.fileno(), length, offset=begin,
                               access=mmap.ACCESS_READ) as window:
                    if not sniffer.feed(window, 0, length):
                        break
            return sniffer
        except (OSError, ValueError, BufferError):  # not mappable after all: read it
            pass
    handle.seek(0)
    sniffer = _Sniffer()
    buffer = bytearray(_CHUNK)
    while True:
        size = handle.readinto(buffer)
        if not size or not sniffer.feed(buffer, 0, size):
            break
    return sniffer


def plain_delimiter(data: bytes) -> str | None:
    """The one delimiter of a plain file held in memory, or None (see _Sniffer)."""
    return _sniff(data).delimiter()


def _sniff(data: bytes) -> _Sniffer:
    sniffer = _Sniffer()
    for begin in range(0, len(data), _CHUNK):
        if not sniffer.feed(data, begin, min(begin + _CHUNK, len(data))):
            break
    return sniffer


def _arrow_columns(source_data: Any, kind: str, sniffer: _Sniffer, source: str) -> Columns | None:
    """Read a plain file (a path, or bytes) with pyarrow's streaming CSV reader,
    batch by batch into arrays allocated once (the sniffer counted the rows), or
    None when pyarrow is missing or refuses the file (a malformed line, a number
    it cannot read: the exact reader then names it)."""
    try:  # optional (the report extra); typed as Any
        pa: Any = importlib.import_module("pyarrow")
        pacsv: Any = importlib.import_module("pyarrow.csv")
        pc: Any = importlib.import_module("pyarrow.compute")
    except ImportError:
        return None
    _, _, _, _, dtype, _ = LAYOUT[kind]
    names = ["q", "i", "d", "r"] if kind == "qrels" else ["q", "z", "d", "k", "s", "t"]
    value = names[3] if kind == "qrels" else "s"
    text = pa.binary()
    n = sniffer.rows()
    values = np.empty(n, dtype=dtype)
    doc_words = [np.zeros(n, dtype=np.uint64)]
    query_firsts: list[list[NDArray[np.uint64]]] = []
    query_starts: list[NDArray[np.int64]] = []
    previous: bytes | None = None
    at = 0
    try:
        reader = pacsv.open_csv(
            source_data if isinstance(source_data, str) else pa.py_buffer(source_data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True,
                                           block_size=1 << 20),
            parse_options=pacsv.ParseOptions(
                delimiter=chr(sniffer.separator or 32), quote_char=False, double_quote=False,
                escape_char=False, newlines_in_values=False, ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={"q": text, "d": text,
                              value: pa.int64() if dtype is np.int64 else pa.float64()},
                include_columns=["q", "d", value], null_values=[],
                strings_can_be_null=False, check_utf8=False,
            ),
        )
        for batch in _ahead(reader):
            rows = batch.num_rows
            if not rows:
                continue
            if at + rows > n:
                return None
            column = batch.column(2)
            if column.null_count:  # none with null_values=[]; the exact reader if so
                return None
            values[at:at + rows] = arrow_values(column, np.dtype(dtype))
            words = arrow_words(batch.column(1))
            while len(doc_words) < len(words):  # a longer id: more words, zero so far
                doc_words.append(np.zeros(n, dtype=np.uint64))
            for k, word in enumerate(words):
                doc_words[k][at:at + rows] = word
            # The query column: neighbours compared by pyarrow (C), words made for
            # the first row of each block of one query only.
            queries = batch.column(0)
            first_row = queries[0].as_py()
            changed = pc.indices_nonzero(pc.not_equal(queries[1:], queries[:-1]))
            where = arrow_values(changed, np.dtype(np.uint64)).astype(np.int64) + 1
            if first_row != previous:
                where = np.concatenate(([0], where))
            query_firsts.append(arrow_words(queries.take(numpy_to_arrow(pa, where))))
            query_starts.append(where + at)
            previous = queries[rows - 1].as_py()
            at += rows
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError):
        return None
    if at != n or n == 0:
        return None
    if dtype is np.float64 and not np.isfinite(values).all():
        return None
    first = encode_words(joined(query_firsts))
    queries = Encoded(first.labels,
                      rows_of_blocks(first.codes, np.concatenate(query_starts), n))
    docs = encode_words(doc_words)
    del doc_words
    if (queries.labels.astype("S1") == b"#").any():
        return None  # a comment line with as many fields as a data line: the exact reader
    run_id = None if kind == "qrels" else (
        _tail_field(source_data, 5) if isinstance(source_data, str)
        else last_line_field(source_data, 5))
    return Columns(queries, docs, values, None, run_id, source)


_AHEAD = 4  # batches parsed ahead of the one being taken in


def _ahead(reader: Any) -> Iterator[Any]:
    """The batches of a pyarrow reader, parsed in another thread while this one takes
    in the previous ones (pyarrow parses without the GIL; the words and values
    are made here): a queue of at most :data:`_AHEAD` batches. The reader's error
    is raised here, in order; leaving early stops the other thread."""
    import queue  # for large files only (issue 26)
    import threading

    ready: queue.Queue[Any] = queue.Queue(maxsize=_AHEAD)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def pull() -> None:
        try:
            for batch in reader:
                if not put(batch):
                    return
        except BaseException as error:  # handed to the caller, raised there
            put(error)
            return
        put(done)

    thread = threading.Thread(target=pull, name="prcurve-trec-reader", daemon=True)
    thread.start()
    try:
        while True:
            item = ready.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


def _tail_field(path: str, j: int) -> str | None:
    """Field j of the last line of a file, read from its end."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        step = 1 << 16
        while True:
            handle.seek(max(size - step, 0))
            tail = handle.read()
            field = last_line_field(tail, j) if (b"\n" in tail.rstrip(b"\r\n")
                                                or step >= size) else None
            if field is not None or step >= size:
                return field
            step *= 4

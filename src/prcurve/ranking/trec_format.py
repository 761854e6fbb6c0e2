"""The bytes of TREC qrels and run files, split into fields as trec_eval does.

Fields are separated by white space (trec_eval's ``isspace``: space, tab,
\\v, \\f, carriage return; lines end at \\n).
Blank lines and lines whose first non-blank character is ``#`` are skipped
(``#`` inside a document id is part of it). A UTF-8 byte-order mark at the
start is dropped; gzip, bzip2 and xz files are decompressed (by their first
bytes, whatever their name).

Two readers give the same columns (:mod:`prcurve.ranking.trec_reader` picks one;
a file under 4 MiB always goes to the second, the exact reader):

- with pyarrow installed, pyarrow's streaming CSV reader takes files that use one
  delimiter throughout (a single space or a single tab between fields, plain
  ``\\n`` or ``\\r\\n`` line ends, no comments, no blank lines, exactly the
  expected number of fields) with pyarrow's multi-threaded CSV reader,
  dictionary-encoding the ids while reading: no Python object per line;
- every other file, and any file that reader refuses (a malformed line, a
  number it cannot read), goes through :func:`split_fields`, vectorised over
  the bytes of the file (:func:`exact_columns`), which also gives the line of
  every error.

:mod:`prcurve.ranking.tables` builds :class:`~prcurve.ranking.Qrels` and
:class:`~prcurve.ranking.Run` from the columns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.keys import Encoded, byte_words, encode_words
from prcurve.ranking.text_numbers import byte_matrix, general_numbers, plain_decimals
from prcurve.validation.ranking import (
    bad_zscores,
    empty_trec_file,
    malformed_line,
    unreadable_file,
)

__all__ = [
    "COMPRESSED_STARTS",
    "LAYOUT",
    "SPECIAL_STARTS",
    "Columns",
    "Fields",
    "exact_columns",
    "exact_columns_of",
    "first_line_fields",
    "joined",
    "last_line_field",
    "line_blocks",
    "open_plain",
    "parse_numbers",
    "read_bytes",
    "read_zscores",
    "split_fields",
]


# The records here are plain classes with slots, neither dataclasses nor NamedTuples:
# making a frozen dataclass compiles its methods from source when the module loads
# (about 0.4 ms of a process's start-up), a NamedTuple compiles each field's annotation
# (a string, under `from __future__ import annotations`) and its __new__: 0.2-0.5 ms
# for six fields, against a few microseconds for a class (issue 26).
class Fields:
    """The data lines of a file: ``field(j)`` is the j-th field of each line.

    ``first``: the index of each data line's first token; ``line``: the 1-based line
    number of each data line; ``per_line``: the tokens of every line when all lines
    have as many, else 0."""

    __slots__ = ("buffer", "ends", "first", "line", "per_line", "starts")

    def __init__(self, buffer: NDArray[np.uint8], starts: NDArray[np.intp],
                 ends: NDArray[np.intp], first: NDArray[np.intp], line: NDArray[np.int64],
                 per_line: int = 0) -> None:
        self.buffer, self.starts, self.ends = buffer, starts, ends
        self.first, self.line, self.per_line = first, line, per_line

    def bounds(self, j: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        if self.per_line:  # line i's tokens are per_line * i + j: views, no gather
            return self.starts[j::self.per_line], self.ends[j::self.per_line]
        token = self.first + j
        return self.starts[token], self.ends[token]

    def strings(self, j: int) -> NDArray[np.bytes_]:
        """Field j of every line as a fixed-width bytes array (no copy of Python objects)."""
        starts, ends = self.bounds(j)
        return _as_strings(byte_matrix(self.buffer, starts, ends - starts))


def _as_strings(matrix: NDArray[np.uint8]) -> NDArray[np.bytes_]:
    """The rows of a byte matrix as one ``S`` array (a view of a C-contiguous one)."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel()


def split_fields(
    data: bytes | NDArray[np.uint8], source: str, argument: str, n_fields: int, exact: bool,
    layout: str, *, first_line: int = 1, allow_empty: bool = False,
) -> Fields:
    """The data lines of ``data`` (whole lines; the first is line ``first_line``)
    split at white space; a line with the wrong number of fields is an error."""
    buffer = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    n = buffer.shape[0]
    # Separators: trec_eval's isspace (C locale): space, \t, \n, \v, \f, \r.
    # Few, large temporaries: first touches of fresh memory dominate here.
    space = np.ones(n + 2, dtype=bool)  # padded with a separator at both ends
    np.less_equal(buffer - np.uint8(9), 4, out=space[1:-1])  # 9..13 (uint8 wraps below 9)
    space[1:-1] |= buffer == 32
    # Where padded[k] != padded[k + 1], a token starts or ends at byte k; they alternate.
    edges = np.flatnonzero(space[1:] != space[:-1])
    del space
    starts, ends = edges[0::2], edges[1::2]
    regular = _regular_lines(buffer, starts, ends, n_fields)
    if regular:
        first = np.arange(0, starts.shape[0], n_fields)
        line = np.arange(first_line, first_line + first.shape[0], dtype=np.int64)
        return Fields(buffer, starts, ends, first, line, n_fields)
    # Tokens per line from the tokens before each newline: one search per line.
    newlines = np.flatnonzero(buffer == 10)
    before = np.searchsorted(starts, newlines)
    first_all = np.concatenate(([0], before))  # index of each line's first token
    count_all = np.diff(np.append(first_all, starts.shape[0]))
    nonblank = np.flatnonzero(count_all > 0)
    first, count = first_all[nonblank], count_all[nonblank]
    data_line = buffer[starts[first]] != ord("#")
    first, count = first[data_line], count[data_line]
    line = nonblank[data_line].astype(np.int64) + first_line
    bad = count != n_fields if exact else count < n_fields
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise malformed_line(
            argument, source, int(line[i]),
            f"expected {'' if exact else 'at least '}{n_fields} fields ({layout}), "
            f"found {int(count[i])}",
            f"fix the line, or check that this is a {argument} file",
        )
    if first.shape[0] == 0 and not allow_empty:
        raise empty_trec_file(argument, source, "no data lines (only blank lines or comments)"
                              if n else "the file is empty")
    return Fields(buffer, starts, ends, first, line)


def _regular_lines(buffer: NDArray[np.uint8], starts: NDArray[np.intp],
                   ends: NDArray[np.intp], n_fields: int) -> bool:
    """Whether every line holds exactly ``n_fields`` tokens, the first not starting
    with ``#``, and ends right after its last token (``\\n``, or the end of the
    file; or a ``\\r`` and then ``\\n``): no blank line, comment or other blank
    before a line's end, as most files are. Then line i's tokens are
    ``n_fields * i`` to ``n_fields * i + n_fields - 1`` (no search of each line's
    tokens).

    Why this suffices: the byte after each ``n_fields``-th token is a newline, and
    there are no other newlines, so every line holds those tokens and no others."""
    n_tokens = starts.shape[0]
    if n_tokens == 0 or n_tokens % n_fields:
        return False
    last = ends[n_fields - 1::n_fields]  # where each line's last token ends
    # No newline after the last line (a \r there, as a \r\n file cut short, is blank).
    ends_file = int(last[-1]) == buffer.shape[0] - int(buffer[-1] == 13)
    if np.count_nonzero(buffer == 10) != last.shape[0] - ends_file:
        return False
    after = last[:-1] if ends_file else last  # the byte after each line's last token
    end_bytes = buffer[after]
    if not bool((end_bytes == 10).all()):
        # \r\n line ends: the \r is white space to trec_eval (isspace), so a line
        # "tokens\r\n" holds the same tokens as "tokens\n" (every \n is still
        # accounted for: the next byte after such a \r is the line's \n).
        returns = after[end_bytes == 13]
        if returns.shape[0] != after.shape[0] - np.count_nonzero(end_bytes == 10):
            return False
        if int(returns[-1]) + 1 >= buffer.shape[0] or not bool(
                (buffer[returns + 1] == 10).all()):
            return False
    return not bool((buffer[starts[0::n_fields]] == ord("#")).any())


def parse_numbers(
    fields: Fields, j: int, dtype: type[np.generic], source: str, argument: str, what: str
) -> NDArray[Any]:
    """Field j as numbers; an error names the line of the first one that is not.

    Decimals are read as Python's :func:`float` (and C's ``strtod``) reads them:
    plain ones (``-12.25``) exactly by
    :func:`~prcurve.ranking.text_numbers.plain_decimals`, the rest by numpy."""
    starts, ends = fields.bounds(j)
    lengths = ends - starts
    matrix = byte_matrix(fields.buffer, starts, lengths)
    if dtype is not np.float64:
        if matrix.shape[1] == 1:  # one byte each (qrels' grades, as a rule): a digit's
            digit = matrix[:, 0] - np.uint8(48)  # value is its byte less "0" (uint8 wraps)
            if bool((digit <= 9).all()):  # (0.1 s less at 10^6 grades than numpy's parse)
                grades: NDArray[Any] = digit.astype(dtype)
                return grades
        return _general_numbers(_as_strings(matrix), fields.line, dtype, source, argument, what)
    values, read = plain_decimals(matrix, lengths)
    rest = np.flatnonzero(~read)
    if rest.shape[0]:
        values[rest] = _general_numbers(_as_strings(matrix[rest]), fields.line[rest], dtype,
                                        source, argument, what)
    return values


def _general_numbers(
    text: NDArray[np.bytes_], line: NDArray[np.int64], dtype: type[np.generic], source: str,
    argument: str, what: str,
) -> NDArray[Any]:
    """Byte strings as numbers by numpy's parser (Python's rules, but no ``_``); an
    error names the line (``line[i]`` is text i's) of the first that is not one."""
    values = general_numbers(text, dtype)
    if values is not None:
        return values
    is_float = dtype is np.float64
    for i, item in enumerate(text.tolist()):
        problem = None
        fix = f"write the {what} as {'a decimal number' if is_float else 'an integer'}"
        try:
            value = dtype(item) if b"_" not in item else None
            if value is None:
                problem = "is not a number"
            elif is_float and not np.isfinite(value):
                problem = "is not a finite number"
        except ValueError:
            problem = f"is not {'a finite number' if is_float else 'an integer'}"
        except OverflowError:
            problem = "is out of range (grades are 64-bit integers)"
            fix = f"write a grade between {-2**63} and {2**63 - 1}"
        if problem is not None:
            raise malformed_line(
                argument, source, int(line[i]),
                f"{what} {item.decode('utf-8', 'replace')!r} {problem}", fix,
            )
    return text.astype(dtype)  # unreachable: some element failed above


# -- whole files ---------------------------------------------------------------------------

_GZIP, _BZIP2, _XZ, _ZSTD = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"
_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | os.PathLike[str], argument: str) -> tuple[bytes, str]:
    """A file's bytes, decompressed, without a UTF-8 byte-order mark."""
    source = os.fspath(path)
    if os.path.isdir(source):
        raise unreadable_file(argument, source, "it is a directory, not a file")
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise unreadable_file(argument, source, error.strerror or str(error)) from None
    return decoded(data, source, argument), source


def decoded(data: bytes, source: str, argument: str) -> bytes:
    """Decompress (gzip, bzip2, xz by their magic bytes), drop a UTF-8 byte-order
    mark, and refuse text that is not bytes of ASCII or UTF-8 (UTF-16, NUL bytes)."""
    if data.startswith((_GZIP, _BZIP2, _XZ)):
        data = _decompressed(data, source, argument)
    if data.startswith(_ZSTD):
        raise unreadable_file(argument, source,
                              "zstd-compressed; decompress it first (zstd -d)")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise unreadable_file(argument, source,
                              "UTF-16 text; save it as UTF-8 or ASCII")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise unreadable_file(
            argument, source,
            f"a NUL byte at offset {nul}: a binary file, or UTF-16 text without a byte-order "
            "mark; save it as UTF-8 or ASCII",
        )
    if data.startswith(_BOM):  # a UTF-8 byte-order mark is no part of the first query id
        return data[len(_BOM):]
    return data


def _decompressed(data: bytes, source: str, argument: str) -> bytes:
    """A gzip, bzip2 or xz file's content (by its magic bytes)."""
    import bz2  # the codecs only for compressed files (issue 26: small runs start fast)
    import gzip
    import lzma
    import zlib

    try:
        if data.startswith(_GZIP):
            return gzip.decompress(data)
        if data.startswith(_BZIP2):
            return bz2.decompress(data)
        return lzma.decompress(data)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as error:
        raise unreadable_file(argument, source, f"a damaged compressed file: {error}") from None


def _head(path: str, size: int = 1 << 16) -> bytes:
    """The first ``size`` bytes of a file, decompressed; a damaged compressed file
    raises OSError, EOFError or ValueError."""
    with open(path, "rb") as raw:
        magic = raw.read(6)
    if magic.startswith((_GZIP, _BZIP2, _XZ)):
        import bz2  # the codecs only for compressed files
        import gzip
        import lzma

        opener: Any = (gzip.open if magic.startswith(_GZIP)
                       else bz2.open if magic.startswith(_BZIP2) else lzma.open)
        try:
            with opener(path, "rb") as handle:
                head: bytes = handle.read(size)
        except lzma.LZMAError as error:
            raise ValueError(str(error)) from None
    else:
        with open(path, "rb") as handle:
            head = handle.read(size)
    return head[len(_BOM):] if head.startswith(_BOM) else head


def first_line_fields(path: str | os.PathLike[str]) -> int | None:
    """The number of fields of a file's first data line (None if unreadable)."""
    try:
        head = _head(os.fspath(path))
    except (OSError, EOFError, ValueError):
        return None
    for line in head.split(b"\n")[:-1] or [head]:
        words = line.split()
        if words and not words[0].startswith(b"#"):
            return len(words)
    return None


def last_line_field(data: bytes, j: int) -> str | None:
    """Field j of the last data line (the run id, as trec_eval reads it: from the
    last line of the file), or None."""
    end = len(data)
    while end > 0:
        newline = data.rfind(b"\n", 0, end)
        words = data[newline + 1:end].split()
        if words and not words[0].startswith(b"#"):
            return words[j].decode("utf-8", "surrogateescape") if len(words) > j else None
        end = newline
    return None


# -- the columns of a TREC file -------------------------------------------------------------

LAYOUT: dict[str, tuple[int, bool, str, int, type[np.int64] | type[np.float64], str]] = {
    "qrels": (4, True, "query iter docno relevance", 3, np.int64, "relevance"),
    "run": (6, False, "query Q0 docno rank score run_id", 4, np.float64, "score"),
}


class Columns:
    """What a qrels or run file holds: the two id columns dictionary-encoded, the
    values (grades or scores), each row's line (None: row i is line i + 1) and,
    for a run, the run id of its last line."""

    __slots__ = ("docs", "line", "queries", "run_id", "source", "values")

    def __init__(self, queries: Encoded, docs: Encoded, values: NDArray[Any],
                 line: NDArray[np.int64] | None, run_id: str | None, source: str) -> None:
        self.queries, self.docs, self.values = queries, docs, values
        self.line, self.run_id, self.source = line, run_id, source


# A file starting so is decompressed or decoded first: never read by pyarrow.
SPECIAL_STARTS = (_GZIP, _BZIP2, _XZ, _ZSTD, _BOM, b"\xff\xfe", b"\xfe\xff")
COMPRESSED_STARTS = (_GZIP, _BZIP2, _XZ)
"""The magic bytes of the compressed files read (gzip first)."""


def open_plain(source: str) -> BinaryIO | None:
    """A regular file opened to read its bytes, at its start; None for anything else
    (not a regular file, compressed, a byte-order mark, UTF-16), which the readers of
    whole files take."""
    if not os.path.isfile(source):
        return None
    handle = open(source, "rb")  # noqa: SIM115 - given to the caller, who closes it
    if handle.read(8).startswith(SPECIAL_STARTS):
        handle.close()
        return None
    handle.seek(0)
    return handle


def line_blocks(handle: BinaryIO, size: int) -> Iterator[bytes]:
    r"""The rest of a file in blocks of whole lines, each about ``size`` bytes: a
    block ends after its last newline and what follows starts the next one (the
    file's last line, if it has no newline, is the last block's end).

    Examples
    --------
    >>> import io
    >>> list(line_blocks(io.BytesIO(b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1"), 12))
    [b'q1 0 d1 1\n', b'q1 0 d2 0\n', b'q2 0 d1 1']
    """
    held = b""
    while True:
        data = handle.read(size)
        block = held + data
        if data:
            cut = block.rfind(b"\n") + 1
            block, held = block[:cut], block[cut:]
        if block:
            yield block
        if not data:
            return
_CHUNK = 1 << 21  # the exact reader's chunk: its temporaries are about 10x a chunk
# (16 MiB chunks: 10.4x a 6.8 MB file at the peak, 2 MiB: 5.6x and 20% less CPU in cache;
# issue 26, docs/benchmarks.md session 33)


def joined(pieces: list[list[NDArray[np.uint64]]]) -> list[NDArray[np.uint64]]:
    """Concatenate words per position; a piece with fewer words gets zero words."""
    n_words = max(len(p) for p in pieces)
    return [np.concatenate([p[k] if k < len(p) else np.zeros(p[0].shape[0], np.uint64)
                            for p in pieces]) for k in range(n_words)]


def exact_columns(buffer: NDArray[np.uint8], source: str, kind: str) -> Columns:
    """Split the file at white space, in chunks of whole lines (bounded temporaries),
    and encode the ids from their bytes; errors name the first bad line."""
    return exact_columns_of([buffer], source, kind)


def exact_columns_of(holder: list[NDArray[np.uint8]], source: str, kind: str) -> Columns:
    """:func:`exact_columns` of the buffer in ``holder``, a one-item list emptied once
    the lines are split: a caller that keeps no other reference to the file's bytes
    (``prcurve trec``'s qrels) has them freed before the ids are encoded, where the
    reader's memory peaks (issue 26: 27 MB of qrels, 26 MiB less at the peak)."""
    n_fields, exact, layout, value_field, dtype, what = LAYOUT[kind]
    query_words, doc_words, values = [], [], []
    # Each chunk's line numbers, or (first, rows) where they are first .. first + rows
    # - 1 (data lines back to back: no array of 8 bytes a row held while reading).
    lines: list[NDArray[np.int64] | tuple[int, int]] = []
    buffer = holder.pop()
    chunk: NDArray[np.uint8] | None = None
    fields: Fields | None = None
    first_line, begin, end = 1, 0, buffer.shape[0]
    run_id = None
    while begin < end:
        stop = min(begin + _CHUNK, end)
        if stop < end:
            newline = np.flatnonzero(buffer[stop - 1:stop + (1 << 20)] == 10)
            stop = stop + int(newline[0]) if newline.shape[0] else min(stop + (1 << 20), end)
            while stop < end and buffer[stop - 1] != 10:  # a line longer than 1 MiB
                more = np.flatnonzero(buffer[stop:stop + _CHUNK] == 10)
                stop = stop + int(more[0]) + 1 if more.shape[0] else min(stop + _CHUNK, end)
        chunk = buffer[begin:stop]
        fields = split_fields(chunk, source, kind, n_fields, exact, layout,
                              first_line=first_line, allow_empty=True)
        if fields.first.shape[0]:
            s0, e0 = fields.bounds(0)
            s2, e2 = fields.bounds(2)
            query_words.append(byte_words(chunk, s0, e0 - s0))
            doc_words.append(byte_words(chunk, s2, e2 - s2))
            values.append(parse_numbers(fields, value_field, dtype, source, kind, what))
            line = fields.line  # increasing: back to back when last - first = rows - 1
            rows = line.shape[0]
            lines.append((int(line[0]), rows) if int(line[-1]) - int(line[0]) == rows - 1
                         else line)
            if kind == "run":
                s5, e5 = fields.bounds(5)
                run_id = bytes(chunk[s5[-1]:e5[-1]]).decode("utf-8", "surrogateescape")
        if stop < end:  # the next chunk's first line
            first_line += int(np.count_nonzero(chunk == 10))
        begin = stop
    del buffer  # the file's bytes (and the last chunk's views), unless the caller keeps them
    chunk = fields = None
    if not values:
        raise empty_trec_file(kind, source, "no data lines (only blank lines or comments)"
                              if end else "the file is empty")
    # Increasing line numbers from 1 ending at the row count are 1..n: row i is line
    # i + 1, and no array is kept (8 bytes a row).
    last = lines[-1]
    n_rows = sum(p[1] if isinstance(p, tuple) else p.shape[0] for p in lines)
    consecutive = (last[0] + last[1] - 1 if isinstance(last, tuple) else int(last[-1])) == n_rows
    line_numbers = None if consecutive else _joined(
        [np.arange(p[0], p[0] + p[1], dtype=np.int64) if isinstance(p, tuple) else p
         for p in lines])
    del lines
    # Each column's pieces dropped once joined (a lower peak: issue 26, item 3).
    number = _joined(values).astype(dtype, copy=False)
    del values
    word_columns = joined(query_words)
    del query_words
    queries = encode_words(word_columns, grouped=True)
    word_columns = joined(doc_words)
    del doc_words
    docs = encode_words(word_columns)
    del word_columns
    return Columns(queries, docs, number, line_numbers, run_id, source)


def _joined(pieces: list[NDArray[Any]]) -> NDArray[Any]:
    """One array of the chunks' (no copy of a single chunk's)."""
    return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)


def read_zscores(path: str | os.PathLike[str]) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's -Z file: ``query measure mean stddev`` per line (get_zscores.c),
    as ``{(query, measure): (mean, stddev)}``."""
    data, source = read_bytes(path, "zscores")
    fields = split_fields(data, source, "zscores", 4, True, "query measure mean stddev")
    mean = parse_numbers(fields, 2, np.float64, source, "zscores", "mean")
    stddev = parse_numbers(fields, 3, np.float64, source, "zscores", "stddev")
    out: dict[tuple[str, str], tuple[float, float]] = {}
    queries = fields.strings(0).tolist()
    names = fields.strings(1).tolist()
    for i, (query, name) in enumerate(zip(queries, names, strict=True)):
        key = (query.decode("utf-8", "surrogateescape"), name.decode("utf-8", "surrogateescape"))
        if key in out:
            raise bad_zscores(source, int(fields.line[i]),
                              f"query {key[0]!r} and measure {key[1]!r} appear twice",
                              "give one mean and standard deviation per query and measure")
        out[key] = (float(mean[i]), float(stddev[i]))
    return out

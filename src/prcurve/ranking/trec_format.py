"""The bytes of TREC qrels and run files, split into fields as trec_eval does.

Fields are separated by white space (any byte up to 0x20: space, tab,
carriage return and the other ASCII control characters; lines end at \\n).
Blank lines and lines whose first non-blank character is ``#`` are skipped
(``#`` inside a document id is part of it). A UTF-8 byte-order mark at the
start is dropped; gzip, bzip2 and xz files are decompressed (by their first
bytes, whatever their name).

Two readers give the same columns:

- with pyarrow installed, :func:`arrow_columns` reads files that use one
  delimiter throughout (a single space or a single tab between fields, plain
  ``\\n`` or ``\\r\\n`` line ends, no comments, no blank lines, exactly the
  expected number of fields) with pyarrow's multi-threaded CSV reader,
  dictionary-encoding the ids while reading: no Python object per line;
- every other file, and any file that reader refuses (a malformed line, a
  number it cannot read), goes through :func:`split_fields`, vectorised over
  the bytes of the file, which also gives the line of every error.

:mod:`prcurve.ranking.tables` builds :class:`~prcurve.ranking.Qrels` and
:class:`~prcurve.ranking.Run` from the columns.
"""

from __future__ import annotations

import bz2
import gzip
import importlib
import lzma
import os
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.keys import Encoded
from prcurve.validation.ranking import (
    bad_zscores,
    empty_trec_file,
    malformed_line,
    unreadable_file,
)

__all__ = [
    "ArrowColumns",
    "Fields",
    "arrow_columns",
    "first_line_fields",
    "last_line_field",
    "parse_numbers",
    "read_bytes",
    "read_zscores",
    "split_fields",
]


@dataclass(frozen=True)
class Fields:
    """The data lines of a file: ``field(j)`` is the j-th field of each line."""

    buffer: NDArray[np.uint8]
    starts: NDArray[np.intp]
    ends: NDArray[np.intp]
    first: NDArray[np.intp]  # index of each data line's first token
    line: NDArray[np.int64]  # 1-based line number of each data line

    def bounds(self, j: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        token = self.first + j
        return self.starts[token], self.ends[token]

    def strings(self, j: int) -> NDArray[np.bytes_]:
        """Field j of every line as a fixed-width bytes array (no copy of Python objects)."""
        starts, ends = self.bounds(j)
        return _gather_strings(self.buffer, starts, ends - starts)


def _gather_strings(
    buffer: NDArray[np.uint8], starts: NDArray[Any], lengths: NDArray[Any]
) -> NDArray[np.bytes_]:
    """Byte strings ``buffer[starts[i] : starts[i] + lengths[i]]`` as one ``S`` array."""
    width = int(lengths.max(initial=1))
    matrix = np.zeros((starts.shape[0], max(width, 1)), dtype=np.uint8)
    shortest = int(lengths.min(initial=0))
    for column in range(width):
        if column < shortest:
            matrix[:, column] = buffer[starts + column]
        else:
            has = lengths > column
            matrix[has, column] = buffer[starts[has] + column]
    return matrix.view(f"S{max(width, 1)}").ravel()


def split_fields(
    data: bytes, source: str, argument: str, n_fields: int, exact: bool, layout: str
) -> Fields:
    buffer = np.frombuffer(data, dtype=np.uint8)
    n = buffer.shape[0]
    # Separators: space, tab, newline, carriage return and the other ASCII
    # control characters (trec_eval's isspace, plus controls no id contains).
    # Few, large temporaries: first touches of fresh memory dominate here.
    space = np.ones(n + 2, dtype=bool)  # padded with a separator at both ends
    np.less_equal(buffer, 32, out=space[1:-1])
    # Where padded[k] != padded[k + 1], a token starts or ends at byte k; they alternate.
    edges = np.flatnonzero(space[1:] != space[:-1])
    del space
    starts, ends = edges[0::2], edges[1::2]
    # Tokens per line from the tokens before each newline: one search per line.
    newlines = np.flatnonzero(buffer == 10)
    before = np.searchsorted(starts, newlines)
    first_all = np.concatenate(([0], before))  # index of each line's first token
    count_all = np.diff(np.append(first_all, starts.shape[0]))
    nonblank = np.flatnonzero(count_all > 0)
    first, count = first_all[nonblank], count_all[nonblank]
    data_line = buffer[starts[first]] != ord("#")
    first, count = first[data_line], count[data_line]
    line = nonblank[data_line].astype(np.int64) + 1
    bad = count != n_fields if exact else count < n_fields
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise malformed_line(
            argument, source, int(line[i]),
            f"expected {'' if exact else 'at least '}{n_fields} fields ({layout}), "
            f"found {int(count[i])}",
            f"fix the line, or check that this is a {argument} file",
        )
    if first.shape[0] == 0:
        raise empty_trec_file(argument, source, "no data lines (only blank lines or comments)"
                              if n else "the file is empty")
    return Fields(buffer, starts, ends, first, line)


def parse_numbers(
    fields: Fields, j: int, dtype: type[np.generic], source: str, argument: str, what: str
) -> NDArray[Any]:
    """Field j as numbers; an error names the line of the first one that is not."""
    text = fields.strings(j)
    try:
        values = None if b"_" in text.tobytes() else text.astype(dtype)  # "1_0" is no number
    except (ValueError, OverflowError):
        values = None
    if values is not None and (dtype is not np.float64 or np.isfinite(values).all()):
        return values
    is_float = dtype is np.float64
    for i, item in enumerate(text.tolist()):
        problem = None
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
        if problem is not None:
            raise malformed_line(
                argument, source, int(fields.line[i]),
                f"{what} {item.decode('utf-8', 'replace')!r} {problem}",
                f"write the {what} as {'a decimal number' if is_float else 'an integer'}",
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
    try:
        if data.startswith(_GZIP):
            data = gzip.decompress(data)
        elif data.startswith(_BZIP2):
            data = bz2.decompress(data)
        elif data.startswith(_XZ):
            data = lzma.decompress(data)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as error:
        raise unreadable_file(argument, source, f"a damaged compressed file: {error}") from None
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


def _head(path: str, size: int = 1 << 16) -> bytes:
    with open(path, "rb") as raw:
        magic = raw.read(6)
    opener: Any = (gzip.open if magic.startswith(_GZIP) else bz2.open if magic.startswith(_BZIP2)
                   else lzma.open if magic.startswith(_XZ) else open)
    with opener(path, "rb") as handle:
        head: bytes = handle.read(size)
    return head[len(_BOM):] if head.startswith(_BOM) else head


def first_line_fields(path: str | os.PathLike[str]) -> int | None:
    """The number of fields of a file's first data line (None if unreadable)."""
    try:
        head = _head(os.fspath(path))
    except (OSError, EOFError, ValueError, lzma.LZMAError):
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


# -- pyarrow's multi-threaded reader ------------------------------------------------------


@dataclass(frozen=True)
class ArrowColumns:
    """Three columns read by pyarrow: the two id columns dictionary-encoded, and the
    values; row i is line i + 1 of the file."""

    queries: Encoded
    docs: Encoded
    values: NDArray[Any]


def arrow_columns(data: bytes, kind: str) -> ArrowColumns | None:
    """Read a file with pyarrow's CSV reader when it can take the file exactly,
    else None (the caller then uses :func:`split_fields`).

    ``kind``: "qrels" (4 fields: query iter docno relevance) or "run" (6: query
    Q0 docno rank score run_id).
    """
    try:  # optional (the report extra); typed as Any
        pa: Any = importlib.import_module("pyarrow")
        pacsv: Any = importlib.import_module("pyarrow.csv")
    except ImportError:
        return None
    delimiter = _plain_delimiter(data)
    if delimiter is None:
        return None
    names = ["q", "i", "d", "r"] if kind == "qrels" else ["q", "z", "d", "k", "s", "t"]
    value = "r" if kind == "qrels" else "s"
    ids = pa.dictionary(pa.int32(), pa.binary())
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False,
                newlines_in_values=False, ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={"q": ids, "d": ids,
                              value: pa.int64() if kind == "qrels" else pa.float64()},
                include_columns=["q", "d", value], null_values=[],
                strings_can_be_null=False, check_utf8=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None  # a line or a number the exact reader will name
    if table.num_rows == 0:
        return None
    table = table.unify_dictionaries()
    values = table.column(value).to_numpy()
    if kind == "run" and not np.isfinite(values).all():
        return None
    return ArrowColumns(_encoded(table.column("q")), _encoded(table.column("d")), values)


def _plain_delimiter(data: bytes) -> str | None:
    """The one delimiter of a plain file (" " or "\\t"), or None when the file has
    anything pyarrow would read differently from trec_eval: both delimiters, other
    control characters, a carriage return not before a newline, comments."""
    raw = data
    first = data[:4096].split(b"\n", 1)[0]
    if b"\t" in first:
        if b" " in first:
            return None
        delimiter, other = b"\t", b" "
    elif b" " in first:
        delimiter, other = b" ", b"\t"
    else:
        return None
    if other in raw or raw.startswith(b"#") or b"\n#" in raw:
        return None
    carriage = raw.count(b"\r")
    if carriage and carriage != raw.count(b"\r\n"):
        return None
    # No other byte below 0x20: trec_eval splits fields at \v and \f too.
    buffer = np.frombuffer(data, dtype=np.uint8)
    controls = 0
    for begin in range(0, buffer.shape[0], 1 << 24):
        controls += int(np.count_nonzero(buffer[begin:begin + (1 << 24)] < 32))
    expected = raw.count(b"\n") + carriage + (raw.count(b"\t") if delimiter == b"\t" else 0)
    if controls != expected:
        return None
    return delimiter.decode()


def _encoded(column: Any) -> Encoded:
    """A dictionary-encoded pyarrow column (one dictionary) as labels and codes."""
    chunks = column.chunks
    dictionary: Any = chunks[0].dictionary
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks])
    offsets = np.frombuffer(dictionary.buffers()[1], dtype=np.int32)[
        dictionary.offset:dictionary.offset + len(dictionary) + 1]
    body = dictionary.buffers()[2]
    buffer = np.frombuffer(body, dtype=np.uint8) if body is not None else np.zeros(0, np.uint8)
    labels = _gather_strings(buffer, offsets[:-1].astype(np.int64),
                             np.diff(offsets).astype(np.int64))
    return Encoded(labels, codes.astype(np.int64))


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

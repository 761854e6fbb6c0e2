"""Small CSV and TSV files read by a plain pass in memory, without pyarrow.

A file smaller than :data:`SMALL_CSV_BYTES` (512 KiB) whose text is unambiguous is split by
the standard library and typed column by column, as pyarrow's CSV reader types it
(:func:`prcurve.io.readers.read_table`): integers ``int64``, decimal numbers
``float64``, ``true``/``false`` ``bool``, anything else text (``str`` objects).
Importing pyarrow and starting its threads costs more than reading such a file
(issue 26; docs/benchmarks.md, "Everyday sizes").

Only what both readers read the same way is taken here; every other file returns
``None`` and goes to pyarrow's reader, which decides and names any problem: a
quote character other than a plain quoted field (``"pos"``: a field wholly in quotes,
with no quote, delimiter or line break inside, which pyarrow reads and types as the
same text unquoted; R's ``write.csv`` quotes every text field so), a missing value
(an empty field or one of pyarrow's null spellings), a line with another number of
fields, text that is not UTF-8, a file compressed otherwise than
by gzip or bzip2 (``.zst``, ``.lz4``), a value pyarrow might read as another type (a
number outside the plain grammar below, ``inf``, a date or a time), a column name
given twice, or a header without rows.

Examples
--------
>>> import os, tempfile
>>> from prcurve.io.small_csv import read_small_delimited
>>> path = os.path.join(tempfile.mkdtemp(), "s.csv")
>>> with open(path, "w") as f:
...     _ = f.write("label,score,model\\n1,0.5,a\\n0,2e-1,b\\n")
>>> columns = read_small_delimited(path, ",")
>>> columns["label"].dtype, columns["score"].tolist(), columns["model"].tolist()
(dtype('int64'), [0.5, 0.2], ['a', 'b'])
"""

from __future__ import annotations

import os
import re
import zlib
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SMALL_CSV_BYTES", "read_delimited_by_size", "read_small_delimited",
           "small_file_bytes"]

SMALL_CSV_BYTES = 1 << 19
"""Files smaller than this (on disk, and once decompressed) are tried by the plain pass
first: 512 KiB, under the crossover with pyarrow's reader and its import, measured in
fresh processes at 0.55-0.65 MiB of two columns (docs/benchmarks.md, session 34: the
plain pass took 0.21 s of CPU for 0.48 MiB against pyarrow's 0.23 s, 0.29 s for 1.08
MiB against 0.24 s, and 2.1x the CPU and 2.5x the memory at 3.2 MiB)."""

# pyarrow.csv.ConvertOptions' default null spellings (any of them: pyarrow's reader).
_NULLS = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                    "1.#IND", "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"})
_BOOLS = {"true": True, "True": True, "TRUE": True,
          "false": False, "False": False, "FALSE": False}
# Whole columns, each value followed by \n: integers within int64 (18 digits at most),
# integers of any length, plain decimal numbers.
_INTS = re.compile(r"(?:-?[0-9]{1,18}\n)+")
_ALL_DIGITS = re.compile(r"(?:-?[0-9]+\n)+")
_FLOATS = re.compile(r"(?:-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\n)+")
# Values pyarrow may type otherwise than as text (numbers in other spellings,
# infinities, dates, times, timestamps: a value starting with a sign, a dot or a
# digit), and values with white space around them: such a column goes to pyarrow.
_AMBIGUOUS = re.compile(r"(?:^|\n)(?:[-+.0-9]|[-+]?inf(?:inity)?\n|\s)|\s\n",
                        re.IGNORECASE)
_COMPRESSED = (".zst", ".lz4")  # codecs the standard library lacks: pyarrow's
_STDLIB_CODECS = {".gz": "gzip", ".bz2": "bz2"}  # zlib's gzip and the bz2 module's


def small_file_bytes(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of a file smaller than ``limit`` bytes, decompressed when its name ends
    in ``.gz`` or ``.bz2`` (as pyarrow's readers decompress by the name, in lower case; the codec
    imported only then) and then also smaller than ``limit``; None for a larger file,
    one compressed otherwise (``.zst``, ``.lz4``), or one that cannot be read or
    decompressed (the large-file reader names the problem).

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.csv.gz")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(gzip.compress(b"label,score\\n1,0.5\\n"))
    >>> small_file_bytes(path, 1 << 20), small_file_bytes(path, 10)
    (b'label,score\\n1,0.5\\n', None)
    """
    file = Path(path)
    suffix = file.suffix  # matched as pyarrow matches it, case and all (io.pxi)
    if suffix in _COMPRESSED:
        return None
    try:
        if file.stat().st_size >= limit:
            return None
        codec = _STDLIB_CODECS.get(suffix)
        data = file.read_bytes()
        return data if codec is None else _decompressed(data, codec, limit)
    except (OSError, EOFError, ValueError, zlib.error):  # the large reader names it
        return None


def _decompressed(data: bytes, codec: str, limit: int) -> bytes | None:
    """The members of a gzip or bzip2 archive, one after another, decompressed; None
    when the output reaches ``limit`` or anything but whole members is found (a
    truncated member, trailing bytes, zero padding: the standard library's ``gzip`` and
    ``bz2`` modules skip such bytes where pyarrow's codecs refuse them, so they are left
    to pyarrow). Raises ``zlib.error`` or ``OSError`` on a broken member."""
    parts = []
    size = 0
    while True:
        if codec == "gzip":
            engine: Any = zlib.decompressobj(wbits=31)  # 16 + 15: a gzip header
        else:
            import bz2

            engine = bz2.BZ2Decompressor()
        part = engine.decompress(data, limit - size)
        parts.append(part)
        size += len(part)
        if size >= limit or not engine.eof:  # too large, or the member is cut short
            return None
        data = engine.unused_data
        if not data:
            return b"".join(parts)


def read_small_delimited(path: str | os.PathLike[str], delimiter: str,
                         ) -> dict[str, NDArray[Any]] | None:
    """The columns of a small, unambiguous delimited file, or None (pyarrow's reader).

    Parameters
    ----------
    path : str or PathLike
        The file.
    delimiter : str
        One character: ``","`` (CSV) or ``"\\t"`` (TSV).

    Returns
    -------
    dict of str to ndarray, or None
        Each column by name, in the file's order: ``int64``, ``float64``, ``bool`` or
        objects (``str``); None when the file is large or needs pyarrow's reader
        (see the module's docstring).
    """
    data = small_file_bytes(path, SMALL_CSV_BYTES)
    if data is None:
        return None  # large, or pyarrow's reader names the problem
    if b"\x00" in data:
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark, skipped as pyarrow
    # skips it (Excel's "CSV UTF-8" begins with one)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text.replace("\r\n", "\n")
    if "\r" in text:  # a line ending in \r alone
        return None
    if '"' in text:
        text = _without_plain_quotes(text, delimiter)
        if '"' in text:  # a quote inside a field, an escaped quote, a quoted delimiter
            return None
    lines = list(filter(None, text.split("\n")))  # pyarrow skips empty lines
    if len(lines) < 2:
        return None
    names = lines[0].split(delimiter)
    if len(set(names)) != len(names):
        return None
    width = len(names)
    if set(map(str.count, lines[1:], repeat(delimiter))) != {width - 1}:  # a ragged line
        return None
    cells = delimiter.join(lines[1:]).split(delimiter)  # row-major: row i, column j at i*w+j
    columns: dict[str, NDArray[Any]] = {}
    for j, name in enumerate(names):
        typed = _typed(cells[j::width])
        if typed is None:
            return None
        columns[name] = typed
    return columns


def _without_plain_quotes(text: str, delimiter: str) -> str:
    """``text`` with the quotes around plain quoted fields taken off (``"pos"`` ->
    ``pos``): a field that is a whole cell, not empty, with no quote, delimiter or line
    break inside. Any other quote (``""``, a null to pyarrow, is kept too: a line of it
    alone is not an empty line) is left where it is, and the caller then leaves the file
    to pyarrow's reader."""
    d = re.escape(delimiter)
    plain = re.compile(rf'(?:^|(?<={d})|(?<=\n))"([^"{d}\n]+)"(?={d}|\n|$)')
    return plain.sub(r"\1", text)


def _typed(values: list[str]) -> NDArray[Any] | None:
    """One column typed as pyarrow types it, or None where that is not certain (each
    grammar matched once over the joined column: one pass in C)."""
    if not _NULLS.isdisjoint(values):
        return None
    joined = "\n".join(values) + "\n"
    if _INTS.fullmatch(joined):
        return np.array(list(map(int, values)), dtype=np.int64)
    if _ALL_DIGITS.fullmatch(joined):  # 19 digits or more: int64 or not, pyarrow decides
        return None
    if _FLOATS.fullmatch(joined):
        return np.array(list(map(float, values)), dtype=np.float64)
    if _BOOLS.keys() >= set(values):
        return np.array([_BOOLS[v] for v in values], dtype=bool)
    if _AMBIGUOUS.search(joined):
        return None
    return np.fromiter(values, dtype=object, count=len(values))


def read_delimited_by_size(
    path: Path, delimiter: str, on_rows: Any, large: Any,
) -> dict[str, NDArray[Any]]:
    """The plain pass for a small file, else ``large(path, delimiter, on_rows)``
    (pyarrow's reader, :func:`prcurve.io.readers.read_table`'s; passed in, since that
    module imports this one). ``on_rows`` hears the rows read, as from pyarrow's."""
    columns = read_small_delimited(path, delimiter)
    if columns is None:
        out: dict[str, NDArray[Any]] = large(path, delimiter, on_rows)
        return out
    if on_rows is not None:
        on_rows(len(next(iter(columns.values()))))
    return columns

"""CSV text from any locale: the delimiter (given or sniffed), the decimal mark, and text
read as numbers.

pyarrow's CSV reader does the parsing (``ParseOptions(delimiter=...)``,
``ConvertOptions(decimal_point=...)``); this module only decides what to hand it.
A :class:`CsvDialect` names the delimiter (None: sniffed from the file's first
lines, :func:`sniff_delimiter`) and the decimal mark. The Python conversions
below are for columns pyarrow left as text (a later word in a column of numbers).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.csv_text import check_decimal, check_delimiter

__all__ = [
    "PLAIN",
    "CsvDialect",
    "decimal_numbers",
    "is_numeric",
    "mostly_numbers",
    "parse_numbers",
    "sniff_delimiter",
    "type_text_column",
]

F64 = NDArray[np.float64]

_SNIFF_BYTES = 1 << 16  # the first 64 KiB
_SNIFF_LINES = 20
_CANDIDATES = (",", ";", "\t", "|")


@dataclass(frozen=True)
class CsvDialect:
    """How a CSV or TSV file is written: ``delimiter`` (None: sniffed) and ``decimal``.

    Examples
    --------
    >>> from prcurve.io.text import CsvDialect
    >>> CsvDialect.of("tab", ",")
    CsvDialect(delimiter='\\t', decimal=',')
    """

    delimiter: str | None = None
    decimal: str = "."

    @classmethod
    def of(cls, delimiter: str | None = None, decimal: str = ".") -> CsvDialect:
        """The dialect of the user's ``delimiter`` and ``decimal``, checked."""
        character = check_delimiter(delimiter)
        return cls(character, check_decimal(decimal, character))

    def delimiter_for(self, path: str, fmt: str) -> str:
        """The delimiter of ``path`` (a ``fmt`` file): the given one, else sniffed."""
        if self.delimiter is not None:
            return self.delimiter
        return sniff_delimiter(path, "\t" if fmt == "tsv" else ",", self.decimal)

    def parse_options(self, pacsv: Any, path: str, fmt: str) -> Any:
        return pacsv.ParseOptions(delimiter=self.delimiter_for(path, fmt))


PLAIN = CsvDialect()
"""The default: the delimiter sniffed (the format's own when it fits), decimal point."""


def sniff_delimiter(path: str, default: str, decimal: str = ".") -> str:
    """The character between fields in the first lines of ``path``.

    ``default`` (``,`` for CSV, tab for TSV) when its fields are as many on every
    sampled line and more than one; else the first of ``;``, tab, ``,``, ``|`` that
    does so (Python's csv module splits the lines, quotes respected); else
    ``default``. With ``decimal=","`` a comma is tried last (``1;0,5`` has as many
    commas on every line as it has fields).

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.io.text import sniff_delimiter
    >>> path = os.path.join(tempfile.mkdtemp(), "s.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("label;score\\n1;0,9\\n0;0,25\\n")
    >>> sniff_delimiter(path, ",")
    ';'
    """
    lines = _first_lines(path)
    if len(lines) == 0:
        return default
    order = [default, *(c for c in _CANDIDATES if c != default)]
    if decimal == ",":
        order = [c for c in order if c != ","] + [","]
    for candidate in order:
        widths = {len(row) for row in csv.reader(lines, delimiter=candidate)}
        if len(widths) == 1 and widths.pop() > 1:
            return candidate
    return default


def _first_lines(path: str) -> list[str]:
    """The first complete lines of a (possibly compressed) text file, decoded leniently."""
    # Compression by the name, as pyarrow's reader detects it; the standard library reads
    # the first bytes (a small file is then read without importing pyarrow at all). Only
    # the codec the name asks for is imported (about 2 ms for the three; issue 26).
    suffix = Path(path).suffix.lower()
    opener: Any = open
    errors: tuple[type[Exception], ...] = (OSError, ValueError, EOFError)
    if suffix == ".gz":
        import gzip

        opener = gzip.open
    elif suffix == ".bz2":
        import bz2

        opener = bz2.open
    elif suffix in (".xz", ".lzma"):
        import lzma

        opener, errors = lzma.open, (*errors, lzma.LZMAError)
    try:
        if suffix in (".zst", ".zstd", ".lz4", ".br"):  # only pyarrow reads these
            import importlib

            pa: Any = importlib.import_module("pyarrow")
            with pa.input_stream(path, compression="detect") as stream:
                head = stream.read(_SNIFF_BYTES)
        else:
            with opener(path, "rb") as stream:
                head = stream.read(_SNIFF_BYTES)
    except errors:  # the reader that follows says why
        return []
    text = head.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.splitlines()
    if len(head) == _SNIFF_BYTES and len(lines) > 1:
        lines.pop()  # cut by the sample
    return [line for line in lines[:_SNIFF_LINES] if line.strip()]


def decimal_numbers(values: NDArray[Any], decimal: str) -> NDArray[Any]:
    """Text that reads as a number with the ``decimal`` mark, as that number.

    Other values are kept (an integer's text, a word, None). For a text column
    pyarrow left untyped (a word after numbers), so that ``0,93`` counts as a
    number under ``--decimal ,``; a text with a ``.`` is not converted there.
    """
    if decimal == ".":
        return values
    out: NDArray[Any] = values.copy()
    for i, value in enumerate(values.tolist()):
        if isinstance(value, str) and decimal in value and "." not in value:
            try:
                out[i] = float(value.replace(decimal, "."))
            except ValueError:
                continue
    return out


def type_text_column(values: NDArray[Any], decimal: str = ".") -> NDArray[Any]:
    """A column read as text, typed as a whole: integers, numbers, booleans or text.

    With a decimal comma, its numbers are converted first (:func:`decimal_numbers`);
    a column of numbers among words stays objects, its numbers as floats.
    """
    values = decimal_numbers(values, decimal)
    present = [v for v in values.tolist() if v is not None]
    if any(isinstance(v, float) for v in present) and all(
            isinstance(v, (str, float)) for v in present):
        try:
            return np.array([math.nan if v is None else float(v) for v in values.tolist()],
                            dtype=np.float64)
        except ValueError:
            return values
    if not present or not all(isinstance(v, str) for v in present):
        return values
    for convert, dtype in ((int, np.int64), (float, np.float64)):
        try:
            converted = [math.nan if v is None else convert(v) for v in values.tolist()]
            if dtype is np.int64 and len(present) < len(values):
                dtype = np.float64
            return np.array(converted, dtype=dtype)
        except (ValueError, OverflowError):
            continue
    lowered = {v.lower() for v in present}
    if lowered <= {"true", "false"}:
        flags = [None if v is None else v.lower() == "true" for v in values.tolist()]
        if len(present) == len(values):
            return np.array(flags, dtype=bool)
        return np.fromiter(flags, dtype=object, count=len(flags))
    return values


def is_numeric(values: NDArray[Any]) -> bool:
    return values.dtype.kind in "iuf"


def mostly_numbers(values: NDArray[Any]) -> bool:
    """A column of objects in which more than half the present values read as numbers."""
    if values.dtype.kind != "O":
        return False
    present = values[np.array([v is not None for v in values.tolist()], dtype=bool)]
    n = int(present.shape[0])
    return n > 0 and int(np.count_nonzero(parse_numbers(present)[1])) * 2 < n


def parse_numbers(values: NDArray[Any]) -> tuple[F64, NDArray[np.bool_]]:
    """Object values as float64 and a mask of the ones that are not numbers.

    None is missing (NaN, not "non-numeric"); booleans, lists, objects and
    bytes that are not UTF-8 are not numbers.
    """
    out = np.empty(values.shape[0], dtype=np.float64)
    bad = np.zeros(values.shape[0], dtype=bool)
    for i, value in enumerate(values.tolist()):
        if value is None:
            out[i] = math.nan
            continue
        if isinstance(value, (bool, list, dict, tuple)):
            bad[i] = True
            out[i] = math.nan
            continue
        try:
            out[i] = float(value)
        except (TypeError, ValueError, OverflowError):
            bad[i] = True
            out[i] = math.nan
    return out, bad

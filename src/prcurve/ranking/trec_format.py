"""The bytes of TREC qrels and run files, split into fields as trec_eval does.

Fields are separated by white space (any byte up to 0x20: space, tab,
carriage return and the other ASCII control characters; lines end at \\n).
Blank lines and lines whose first non-blank character is ``#`` are skipped
(``#`` inside a document id is part of it). Parsing is vectorised over the
bytes of the file (no Python loop per line): ten million lines take a few
seconds. :mod:`prcurve.ranking.tables` builds :class:`~prcurve.ranking.Qrels`
and :class:`~prcurve.ranking.Run` from the fields.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.ranking import malformed_line, unreadable_file

__all__ = [
    "Fields",
    "parse_numbers",
    "read_bytes",
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
        lengths = ends - starts
        width = int(lengths.max(initial=1))
        matrix = np.zeros((starts.shape[0], width), dtype=np.uint8)
        shortest = int(lengths.min(initial=0))
        for column in range(width):
            if column < shortest:
                matrix[:, column] = self.buffer[starts + column]
            else:
                has = lengths > column
                matrix[has, column] = self.buffer[starts[has] + column]
        return matrix.view(f"S{width}").ravel()


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
    return Fields(buffer, starts, ends, first, line)


def parse_numbers(
    fields: Fields, j: int, dtype: type[np.generic], source: str, argument: str, what: str
) -> NDArray[Any]:

    text = fields.strings(j)
    try:
        values = text.astype(dtype)
    except ValueError:
        values = None
    if values is not None and (dtype is not np.float64 or np.isfinite(values).all()):
        return values
    for i, item in enumerate(text.tolist()):
        try:
            value = dtype(item)
        except ValueError:
            value = None
        if value is None or (dtype is np.float64 and not np.isfinite(value)):
            raise malformed_line(
                argument, source, int(fields.line[i]),
                f"{what} {item.decode('utf-8', 'replace')!r} is not "
                f"{'a finite number' if dtype is np.float64 else 'an integer'}",
                f"write the {what} as "
                f"{'a decimal number' if dtype is np.float64 else 'an integer'}",
            )
    return text.astype(dtype)  # unreachable: some element failed above


def read_bytes(path: str | os.PathLike[str], argument: str) -> tuple[bytes, str]:
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            return handle.read(), source
    except OSError as error:
        raise unreadable_file(argument, source, error.strerror or str(error)) from None

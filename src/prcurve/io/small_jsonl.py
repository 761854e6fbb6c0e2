"""Small JSON Lines files read by Python's ``json`` module, without pyarrow.

A file smaller than :data:`SMALL_JSONL_BYTES` (on disk, and once decompressed:
``.gz`` and ``.bz2`` by the standard library) whose records are flat and
unambiguous is parsed by the standard library and typed column by column as
pyarrow's JSON reader and :func:`prcurve.io.readers.arrow_to_numpy` type it
(:func:`prcurve.io.readers.read_table`): integers ``int64`` (``float64`` with NaN
where a row lacks the value), numbers with a fraction or an exponent ``float64``,
``true``/``false`` ``bool`` (objects with None where missing), strings ``str``
objects, a column of nulls only None. Importing pyarrow and its compute
functions costs more than parsing such a file (issue 26, item 3; docs/benchmarks.md).

Only what both readers read the same way is taken here; every other file returns
``None`` and goes to the pyarrow reader (and its fall-back to Python's json), which
decides and names any problem: a line that is not one JSON object (malformed, a
list, several objects on a line, an empty object), a key given twice, a nested
value (a list or an object), a value NaN or Infinity, an integer beyond int64, a
column mixing kinds (a string among numbers, a boolean among numbers), a string
that pyarrow may read as a timestamp (any string starting with a digit or a sign),
a string that is not valid Unicode (a lone surrogate), text that is not UTF-8, a
byte-order mark, or a file compressed by ``.zst`` or ``.lz4``.

Examples
--------
>>> import os, tempfile
>>> from prcurve.io.small_jsonl import read_small_jsonl
>>> path = os.path.join(tempfile.mkdtemp(), "s.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write('{"label": 1, "score": 0.5}\\n{"label": 0, "score": 2e-1}\\n')
>>> columns = read_small_jsonl(path)
>>> columns["label"].dtype, columns["score"].tolist()
(dtype('int64'), [0.5, 0.2])
>>> read_small_jsonl(path.replace("s.jsonl", "missing.jsonl")) is None
True
"""

from __future__ import annotations

import json
import math
import os
from itertools import chain, repeat
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.small_csv import small_file_bytes

__all__ = ["SMALL_JSONL_BYTES", "read_small_jsonl"]

SMALL_JSONL_BYTES = 1 << 20
"""Files smaller than this (on disk, and once decompressed) are tried by Python's json
first: 1 MiB, under the crossover with pyarrow's reader and its import, measured in
fresh processes at 1.2-1.4 MiB of two columns (docs/benchmarks.md, session 34: 0.22 s
of CPU against pyarrow's 0.24 s at 1.02 MiB, 0.26 s against 0.24 s at 1.54 MiB)."""

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# A string pyarrow's JSON reader may infer as a timestamp starts with a digit (ISO 8601);
# a sign is declined as well (an extended year).
_NUMBER_START = frozenset("-+0123456789")
_NONE = type(None)
_FLOAT_EXACT = 1 << 53  # integers of at most this magnitude are exact in float64


class _DeclinedError(Exception):
    """Raised inside the parse to leave the file to the pyarrow reader."""


def _decline(_: str) -> Any:
    raise _DeclinedError  # NaN, Infinity, -Infinity: pyarrow rejects them (Python's json not)


def read_small_jsonl(path: str | os.PathLike[str]) -> dict[str, NDArray[Any]] | None:
    """The columns of a small, flat, unambiguous JSON Lines file, or None.

    Parameters
    ----------
    path : str or PathLike
        The file.

    Returns
    -------
    dict of str to ndarray, or None
        Each column by name, in the order of first appearance: ``int64``, ``float64``,
        ``bool`` or objects; None when the file is large or needs the pyarrow reader
        (see the module's docstring).
    """
    data = small_file_bytes(path, SMALL_JSONL_BYTES)
    if data is None or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = list(filter(None, map(str.strip, text.split("\n"), repeat(" \t\r"))))
    # One record a line: each line opens and closes an object (so no record can span
    # lines: a comma joining two lines is valid JSON only inside a list, which is
    # declined as a nested value, or before a key, which no line starts with), and
    # the parse yields as many records as lines. Every newline of ``joined`` ends a line.
    joined = "\n".join(lines)
    if not lines or not (joined.startswith("{") and joined.endswith("}") and
                         joined.count("}\n{") == len(lines) - 1):
        return None
    try:  # objects as tuples of (key, value) pairs: keys given twice are seen
        records = json.loads("[" + joined.replace("\n", ",") + "]",
                             object_pairs_hook=tuple, parse_constant=_decline)
    except (ValueError, RecursionError, _DeclinedError):
        return None
    if len(records) != len(lines):
        return None
    raw = _columns_of(records)
    if raw is None:
        return None
    columns: dict[str, NDArray[Any]] = {}
    for name, values in raw.items():
        typed = _typed(values)
        if typed is None:
            return None
        columns[name] = typed
    return columns


def _columns_of(records: list[Any]) -> dict[str, list[Any]] | None:
    """Each key's values, None where a record lacks the key; None when a record is not a
    non-empty object or holds a key twice."""
    if set(map(type, records)) != {tuple} or not all(records):
        return None
    n = len(records)
    width = len(records[0])
    if set(map(len, records)) == {width}:  # the usual file: every record alike
        keys, values = zip(*chain.from_iterable(records), strict=True)
        names = keys[:width]
        if len(set(names)) == width and all(
                keys[j::width].count(names[j]) == n for j in range(width)):
            return {name: list(values[j::width]) for j, name in enumerate(names)}
    dicts = list(map(dict, records))
    if sum(map(len, dicts)) != sum(map(len, records)):  # a key given twice
        return None
    order = dict.fromkeys(chain.from_iterable(dicts))  # pyarrow's: first appearance
    return {name: [d.get(name) for d in dicts] for name in order}


def _typed(values: list[Any]) -> NDArray[Any] | None:
    """One column as the pyarrow reader gives it, or None where that is not certain."""
    kinds = set(map(type, values))
    missing = _NONE in kinds
    kinds.discard(_NONE)
    if not kinds:  # nulls only: pyarrow's null type, read as None
        return _objects(values)
    if kinds == {bool}:
        return _objects(values) if missing else np.array(values, dtype=bool)
    if kinds == {str}:
        present = [v for v in values if v is not None] if missing else values
        if not _NUMBER_START.isdisjoint({v[:1] for v in present}):
            return None
        try:
            "".join(present).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (\\ud800)
            return None
        return _objects(values)
    if kinds <= {int, float}:
        numbers = [v for v in values if v is not None] if missing else values
        if int in kinds:
            ints = numbers if float not in kinds else [v for v in numbers if type(v) is int]
            if min(ints) < _INT64_MIN or max(ints) > _INT64_MAX:
                return None
            if kinds == {int} and not missing:
                return np.array(values, dtype=np.int64)
            if kinds == {int} and (min(ints) < -_FLOAT_EXACT or max(ints) > _FLOAT_EXACT):
                # int64 with a null, beyond 2^53: pyarrow's cast to float64 refuses to
                # round it, and its reader's fall-back decides (objects, exact)
                return None
        return np.array([math.nan if v is None else float(v) for v in values],
                        dtype=np.float64)
    return None  # nested values, or kinds mixed: the pyarrow reader decides


def _objects(values: list[Any]) -> NDArray[np.object_]:
    return np.fromiter(values, dtype=object, count=len(values))

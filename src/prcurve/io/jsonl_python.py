"""JSON Lines read by Python's ``json``, line by line: the reader of files pyarrow's
JSON reader cannot read (a value whose kind changes, a malformed line, a first value that
is not an object), which names the line of a problem (:func:`diagnose_jsonl`, for the
streamed reader). Used by :mod:`prcurve.io.readers`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.gc_pause import no_cycle_collection
from prcurve.io.arrow_columns import need, object_array
from prcurve.validation.files import (
    changed_type,
    duplicate_column,
    empty_input,
    not_single_values,
    unreadable_input,
)

__all__ = ["diagnose_jsonl", "from_python_values", "read_jsonl_python"]

RowsCallback = Callable[[int], None]


def _json_lines(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a bad line is a one-line error."""
    pa = need("pyarrow", "JSON Lines files")
    with pa.input_stream(path, compression="detect") as stream:
        number = 0
        pending = b""
        while True:
            try:
                chunk = stream.read(1 << 20)
            except (OSError, ValueError) as error:  # a broken compressed file, say
                raise unreadable_input(path, "jsonl", str(error) or type(error).__name__
                                       ) from None
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop() if chunk else b""
            for raw in lines:
                number += 1
                record = _json_record(path, number, raw)
                if record is not None:
                    yield number, record
            if not chunk:
                break


def _json_record(path: str, number: int, raw: bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as error:
        raise unreadable_input(
            path, "jsonl", f"line {number}: byte {raw[error.start:error.start + 1]!r} at "
            f"position {error.start + 1} is not UTF-8 text") from None
    try:
        record = json.loads(line, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise unreadable_input(path, "jsonl", f"line {number}: {error.msg}") from None
    except _DuplicateKeyError as error:
        raise duplicate_column(path, error.args[0], f" (line {number} has the key twice)"
                               ) from None
    except RecursionError:
        raise unreadable_input(path, "jsonl", f"line {number}: nested too deeply") from None
    if not isinstance(record, dict):
        found = "null" if record is None else _JSON_KINDS.get(type(record), "a value")
        raise unreadable_input(
            path, "jsonl", f"line {number}: expected a JSON object {{...}}, found {found}")
    return record


class _DuplicateKeyError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


_JSON_KINDS = {bool: "boolean", int: "number", float: "number", str: "string",
               list: "list", dict: "object"}


def diagnose_jsonl(path: str) -> None:
    """Find what stopped pyarrow in a JSON Lines file, line by line, and say it.

    Raises the one-line error of the first malformed line, or of the first
    value whose kind (number, string, boolean, list, object) differs from the
    earlier values of its key, which pyarrow cannot read in batches. Memory
    is one line; returns if nothing is found.
    """
    kinds: dict[str, tuple[str, int]] = {}
    for number, record in _json_lines(path):
        for key, value in record.items():
            if value is None:
                continue
            kind = _JSON_KINDS.get(type(value), type(value).__name__)
            if kind in ("list", "object"):
                raise not_single_values("INPUT", key, path, 1, [], kind, where=f"line {number}")
            first = kinds.setdefault(key, (kind, number))
            if first[0] != kind:
                raise changed_type(path, key, f"line {number}", f"the {kind} {_short(value)}",
                                   f"{first[0]}s (from line {first[1]})", streamed=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_jsonl_python(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    with no_cycle_collection():  # the records hold no cycles (prcurve.core.gc_pause)
        records = [record for _, record in _json_lines(str(path))]
    if on_rows is not None:
        on_rows(len(records))
    if not records:
        raise empty_input(str(path), "no JSON objects")
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    return {name: from_python_values([r.get(name) for r in records]) for name in names}


_INT64 = np.iinfo(np.int64)


def from_python_values(values: list[Any]) -> NDArray[Any]:
    """A column parsed by Python's json: numbers, bools or objects (None if missing)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        if len(present) == len(values):
            return np.array(values, dtype=bool)
        return object_array(values)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if len(present) == len(values) and all(
            isinstance(v, int) and _INT64.min <= v <= _INT64.max for v in present
        ):
            return np.array(values, dtype=np.int64)
        if any(isinstance(v, int) and abs(v) > _INT64.max for v in present):
            return object_array(values)  # beyond int64, kept exact (as float64 2^64 + 1 = 2^64)
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    return object_array(values)

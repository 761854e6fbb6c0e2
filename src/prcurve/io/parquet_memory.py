"""A Parquet file read whole into NumPy columns, each column's memory written once.

The in-memory reader of ``prcurve report FILE`` (issue 26, item 6). Reading a file's
batches into a list and concatenating them holds every column twice (the batches and
the joined column: 960 MB for 3*10^7 rows of int64 labels and float64 scores). Here a
column of numbers or booleans that has no missing value (by the file's row-group
statistics) is written, row group by row group, into one NumPy array allocated once:
the peak is the columns plus one row group. Any other column (text, nested, missing
values, a row group without statistics) is collected as Arrow chunks and converted
whole by :func:`prcurve.io.arrow_columns.arrow_column`, as before; the values and types
are the same either way (signed integers as int64, other numbers as float64,
unsigned integers kept, booleans as bool).

Examples
--------
>>> import os, tempfile
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> from prcurve.io.parquet_memory import read_parquet_columns
>>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
>>> pq.write_table(pa.table({"label": [1, 0, 1], "score": pa.array([0.5, 0.25, 1.0],
...                          type=pa.float32())}), path, row_group_size=2)
>>> from prcurve.io.readers import arrow_to_numpy
>>> columns = read_parquet_columns(path, None, convert=arrow_to_numpy)
>>> columns["label"].dtype, columns["score"].tolist()
(dtype('int64'), [0.5, 0.25, 1.0])
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import primitive_numpy
from prcurve.io.arrow_columns import Column

__all__ = ["RELEASE_ROWS", "NullsFoundError", "read_parquet_columns", "release_freed_memory"]

RowsCallback = Callable[[int], None]

RELEASE_ROWS = 1 << 20
"""Inputs of at least this many rows give the memory freed by their reading back to the
system (:func:`release_freed_memory`); smaller ones leave too little to matter."""


def _direct_dtype(pa: Any, kind: Any) -> np.dtype[Any] | None:
    """The NumPy type a column without missing values has in memory, when it can be
    written straight into a preallocated array; None for any other column."""
    if pa.types.is_boolean(kind):
        return np.dtype(bool)
    if pa.types.is_signed_integer(kind):
        return np.dtype(np.int64)
    if pa.types.is_unsigned_integer(kind):
        return np.dtype(f"u{kind.bit_width // 8}")
    if pa.types.is_floating(kind):
        return np.dtype(np.float64)
    return None


def _is_text(pa: Any, kind: Any) -> bool:
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _without_nulls(metadata: Any, index: int) -> bool:
    """Whether every row group's statistics say column ``index`` has no missing value."""
    for group in range(metadata.num_row_groups):
        column = metadata.row_group(group).column(index)
        stats = column.statistics
        if stats is None or not stats.has_null_count or stats.null_count != 0:
            return False
    return True


def read_parquet_columns(
    path: str | Path, on_rows: RowsCallback | None, *,
    convert: Callable[[Any, Any], Column],
    check_names: Callable[[str, list[str]], None] = lambda path, names: None,
) -> dict[str, Column]:
    """Every column of a Parquet file as NumPy arrays, text as codes (see the module's
    docstring).

    ``convert(pa, chunked_array)`` converts the columns not written directly (the
    reader's :func:`~prcurve.io.arrow_columns.arrow_column`); ``check_names(path, names)``
    checks the column names before anything is read.

    Raises what pyarrow raises on a file it cannot read (the caller names the file), and
    :class:`NullsFoundError` when a row group holds missing values its statistics do not count
    (the caller reads the file again by Arrow batches).
    """
    import importlib

    from prcurve.io.parquet_open import open_parquet

    pa: Any = importlib.import_module("pyarrow")
    file = open_parquet(path)  # without pyarrow.parquet's import (parquet_open)
    try:
        schema = file.schema_arrow
        check_names(str(path), list(schema.names))
        # Text columns as dictionary arrays: codes in C, not a str a row (io.text_codes).
        text = [name for name in schema.names if _is_text(pa, schema.field(name).type)]
        if text:
            file.close()
            file = open_parquet(path, text)
            schema = file.schema_arrow
        metadata = file.metadata
        n_rows = int(metadata.num_rows)
        leaves = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
        direct: dict[str, NDArray[Any]] = {}
        for name in schema.names:
            dtype = _direct_dtype(pa, schema.field(name).type)
            # A top-level column is one leaf of the Parquet schema, named as the field.
            if dtype is not None and name in leaves and _without_nulls(
                    metadata, leaves.index(name)):
                direct[name] = np.empty(n_rows, dtype=dtype)
        chunks: dict[str, list[Any]] = {n: [] for n in schema.names if n not in direct}
        at = 0
        for group in range(metadata.num_row_groups):
            table = file.read_row_group(group)
            n = table.num_rows
            for name, out in direct.items():
                column = table.column(name)
                if column.null_count:  # statistics that were wrong: never trusted blindly
                    raise NullsFoundError(name)
                if column.type != pa.bool_() and column.type.bit_width != 8 * out.itemsize:
                    column = column.cast(pa.from_numpy_dtype(out.dtype))
                out[at:at + n] = primitive_numpy(pa, column)
            for name, parts in chunks.items():
                parts.extend(table.column(name).chunks)
            at += n
            if on_rows is not None:
                on_rows(n)
            del table
    finally:
        file.close()
    if at != n_rows:
        raise ValueError(f"the file's row groups hold {at} rows, its footer says {n_rows}")
    columns: dict[str, Column] = {}
    for name in schema.names:
        if name in direct:
            columns[name] = direct[name]
        else:
            kind = schema.field(name).type
            columns[name] = convert(pa, pa.chunked_array(chunks.pop(name), type=kind))
    return columns


class NullsFoundError(ValueError):
    """A row group held missing values its statistics did not count."""

    def __init__(self, column: str) -> None:
        super().__init__(f"column {column!r} has missing values that the file's statistics "
                         "do not count")


def release_freed_memory(rows: int) -> bool:
    """Give back to the system the memory that reading ``rows`` rows used and freed, when
    they are at least :data:`RELEASE_ROWS`; return whether it was asked for.

    Both allocators keep freed memory for reuse, where it still counts in the process's
    resident size (issue 26, item 6: 3*10^7 rows of Parquet, measured): pyarrow's pool
    (mimalloc here) kept 57 MB of its decoded row groups, and the C library's heap
    (glibc) 59 MB of the validation's temporaries (arrays under its mmap threshold, which
    rises to 32 MiB after larger arrays are freed). ``release_unused`` and glibc's
    ``malloc_trim(0)`` (:func:`prcurve.core.heap.give_back_freed_memory`) return them.
    Elsewhere (no pyarrow loaded, a C library other than glibc) that step is skipped.

    Examples
    --------
    >>> from prcurve.io.parquet_memory import release_freed_memory
    >>> release_freed_memory(10)
    False
    """
    if rows < RELEASE_ROWS:
        return False
    import sys

    from prcurve.core.heap import give_back_freed_memory

    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()
    give_back_freed_memory()
    return True

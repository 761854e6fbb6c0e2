"""A local Parquet file opened without importing ``pyarrow.parquet``.

``import pyarrow.parquet`` imports ``pyarrow.fs`` with it (to resolve a path to a
filesystem: ``ssl``, the S3, GCS, Azure and HDFS bindings), about 15-25 ms of a
100 ms ``import numpy``, which a small ``prcurve report FILE.parquet`` paid in full
(issue 26, item 3; docs/benchmarks.md). A path on the local disk needs none of it:
:func:`open_parquet` opens the file with pyarrow's own Parquet reader class, the one
``pyarrow.parquet.ParquetFile`` wraps, with ``ParquetFile``'s defaults, and gives the
part of ``ParquetFile`` that :mod:`prcurve.io.parquet_memory` uses (its schema, its
metadata, a row group read, closing). The class lives in the private module
``pyarrow._parquet``; where it is missing or takes other arguments (another pyarrow),
``pyarrow.parquet.ParquetFile`` itself is returned: the same reader and values.

Examples
--------
>>> import os, tempfile
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> from prcurve.io.parquet_open import open_parquet
>>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
>>> pq.write_table(pa.table({"label": [1, 0], "score": [0.5, 0.25]}), path)
>>> with open_parquet(path) as file:
...     names, rows = file.schema_arrow.names, file.read_row_group(0).num_rows
>>> names, rows, file.metadata.num_row_groups
(['label', 'score'], 2, 1)
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["ParquetSource", "open_parquet"]

# pyarrow.parquet.ParquetFile's defaults (pyarrow 17-26), passed to the reader it wraps:
# arrow_extensions_enabled differs between the two (True in ParquetFile).
_OPEN_OPTIONS: dict[str, Any] = {
    "use_memory_map": False, "buffer_size": 0, "pre_buffer": True,
    "read_dictionary": None, "metadata": None, "binary_type": None, "list_type": None,
    "coerce_int96_timestamp_unit": None, "decryption_properties": None,
    "thrift_string_size_limit": None, "thrift_container_size_limit": None,
    "schema_depth_limit": None, "page_checksum_verification": False,
    "arrow_extensions_enabled": True,
}


class ParquetSource:
    """An open Parquet file: ``schema_arrow``, ``metadata``, ``read_row_group(i)``
    (every column, on pyarrow's threads, as ``ParquetFile.read_row_group``), and
    ``close()`` (also on leaving a ``with`` block)."""

    __slots__ = ("_reader",)

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    @property
    def schema_arrow(self) -> Any:
        return self._reader.schema_arrow

    @property
    def metadata(self) -> Any:
        return self._reader.metadata

    def read_row_group(self, i: int) -> Any:
        return self._reader.read_row_group(i, column_indices=None, use_threads=True)

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> ParquetSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def open_parquet(path: str | Path, read_dictionary: list[str] | None = None) -> Any:
    """The Parquet file at ``path`` (a local file) opened for reading: a
    :class:`ParquetSource`, or a ``pyarrow.parquet.ParquetFile`` where pyarrow's reader
    class cannot be used directly (see the module's docstring). ``read_dictionary``
    names the columns read as dictionary arrays (``ParquetFile``'s option).

    Raises what pyarrow raises on a file it cannot read (the caller names the file).
    """
    try:
        reader = importlib.import_module("pyarrow._parquet").ParquetReader()
    except (ImportError, AttributeError):
        reader = None
    if reader is not None:
        try:
            reader.open(str(path), **{**_OPEN_OPTIONS, "read_dictionary": read_dictionary})
        except TypeError:  # another pyarrow's arguments: its ParquetFile below
            pass
        else:
            return ParquetSource(reader)
    return importlib.import_module("pyarrow.parquet").ParquetFile(
        path, read_dictionary=read_dictionary)

"""Reading files of labels and scores into named columns: CSV, TSV, Parquet, JSON Lines, .npz.

:func:`read_table` reads a file into named NumPy columns. The tabular formats
are parsed by pyarrow (``pyarrow.csv``, ``pyarrow.json``, ``pyarrow.parquet``),
imported only when a file is read; ``.npz`` by NumPy without pickle. Choosing
and checking the label, score and weight columns is
:mod:`prcurve.io.columns`' job.

The format comes from the file name: ``.csv``, ``.tsv``/``.tab``,
``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` (each of the text formats also
compressed: ``.gz``, ``.bz2``, ``.zst``, ``.lz4``) and ``.npz``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import check_choice
from prcurve.validation.files import (
    empty_input,
    missing_file,
    not_a_file,
    ragged_npz,
    unknown_file_format,
    unreadable_input,
)

__all__ = [
    "FORMATS",
    "RawTable",
    "RowsCallback",
    "arrow_to_numpy",
    "detect_format",
    "need",
    "read_table",
]

F64 = NDArray[np.float64]


FORMATS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".npz": "npz",
}


_COMPRESSION = (".gz", ".bz2", ".zst", ".lz4")


_TEXT_FORMATS = ("csv", "tsv", "jsonl")


RowsCallback = Callable[[int], None]


@dataclass(frozen=True)
class RawTable:
    """A file read into columns.

    ``columns`` maps each column name to a 1-D array of ``n_rows`` values:
    float64 with NaN for a missing number, int64, bool, or object (strings,
    with None for a missing value).
    """

    path: str
    format: str
    columns: dict[str, NDArray[Any]]
    n_rows: int


def detect_format(path: str | Path, input_format: str | None = None) -> str:
    """The format of ``path``: ``input_format`` if given, else from its name.

    Examples
    --------
    >>> from prcurve.io import detect_format
    >>> detect_format("runs/scores.tsv.gz"), detect_format("x.PARQUET"), detect_format("x", "csv")
    ('tsv', 'parquet', 'csv')
    """
    known = sorted(set(FORMATS.values()))
    if input_format is not None:
        return check_choice("--input-format", input_format, known)
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
        fmt = FORMATS.get(suffixes[-1]) if suffixes else None
        if fmt in _TEXT_FORMATS:
            return fmt
    elif suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    raise unknown_file_format(str(path), list(FORMATS))


def need(module: str, what: str) -> Any:
    """Import an optional dependency, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = module.split(".")[0]
        raise ImportError(
            f"reading {what} needs {package}, which is not installed: "
            f"pip install 'prcurve[report]'"
        ) from error


def read_table(
    path: str | Path, *, input_format: str | None = None, on_rows: RowsCallback | None = None
) -> RawTable:
    """Read a file of columns into NumPy arrays.

    Parameters
    ----------
    path : str or Path
        The file.
    input_format : {"csv", "tsv", "parquet", "jsonl", "npz"}, optional
        Overrides the format given by the file name.
    on_rows : callable, optional
        Called with the number of rows read after each batch (for a progress
        bar), or with -1 when a reader starts over.

    Returns
    -------
    RawTable

    Raises
    ------
    InvalidInputError
        The file is missing, a folder, of unknown format, unreadable in its
        format, or has no rows.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from prcurve.io import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "s.npz")
    >>> np.savez(path, label=np.array([1, 0]), score=np.array([0.5, 0.25]))
    >>> table = read_table(path)
    >>> table.format, table.n_rows, table.columns["score"].tolist()
    ('npz', 2, [0.5, 0.25])
    """
    name = str(path)
    file = Path(path)
    if not file.exists():
        raise missing_file(name)
    if file.is_dir():
        raise not_a_file(name)
    fmt = detect_format(file, input_format)
    readers: dict[str, Callable[[], dict[str, NDArray[Any]]]] = {
        "csv": lambda: _read_delimited(file, ",", on_rows),
        "tsv": lambda: _read_delimited(file, "\t", on_rows),
        "parquet": lambda: _read_parquet(file, on_rows),
        "jsonl": lambda: _read_jsonl(file, on_rows),
        "npz": lambda: _read_npz(file),
    }
    try:
        columns = readers[fmt]()
    except InvalidInputError:
        raise
    except ImportError:
        raise
    except (OSError, ValueError, TypeError, KeyError) as error:  # pyarrow's errors included
        raise unreadable_input(name, fmt, str(error) or type(error).__name__) from None
    n_rows = len(next(iter(columns.values()))) if columns else 0
    if not columns:
        raise empty_input(name, "no columns")
    if n_rows == 0:
        raise empty_input(name, "a header but no rows")
    return RawTable(path=name, format=fmt, columns=columns, n_rows=n_rows)


def _is_empty_file_error(error: Exception) -> bool:
    return str(error).startswith(("Empty CSV file", "Empty JSON file"))


def _read_delimited(path: Path, delimiter: str, on_rows: RowsCallback | None) -> dict[
    str, NDArray[Any]
]:
    pa = need("pyarrow", "CSV and TSV files")
    pacsv = need("pyarrow.csv", "CSV and TSV files")
    parse = pacsv.ParseOptions(delimiter=delimiter)
    try:
        reader = pacsv.open_csv(path, parse_options=parse)
    except pa.ArrowInvalid as error:
        if _is_empty_file_error(error):
            raise empty_input(str(path), "an empty file") from None
        raise
    names = reader.schema.names
    try:
        return _arrow_columns(pa, _drain(reader, on_rows), reader.schema)
    except pa.ArrowInvalid as error:
        if "conversion error" not in str(error):
            raise
    # The types pyarrow inferred from the first block do not fit a later row (a
    # word in a column of numbers): read every column as text and type it whole.
    convert = pacsv.ConvertOptions(
        column_types={n: pa.string() for n in names}, strings_can_be_null=True
    )
    reader = pacsv.open_csv(path, parse_options=parse, convert_options=convert)
    if on_rows is not None:
        on_rows(-1)
    columns = _arrow_columns(pa, _drain(reader, on_rows), reader.schema)
    return {name: _type_text_column(values) for name, values in columns.items()}


def _drain(reader: Iterable[Any], on_rows: RowsCallback | None) -> list[Any]:
    batches = []
    for batch in reader:
        batches.append(batch)
        if on_rows is not None:
            on_rows(batch.num_rows)
    return batches


def _read_parquet(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = need("pyarrow", "Parquet files")
    pq = need("pyarrow.parquet", "Parquet files")
    file = pq.ParquetFile(path)
    schema = file.schema_arrow
    return _arrow_columns(pa, _drain(file.iter_batches(batch_size=1 << 16), on_rows), schema)


def _read_jsonl(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = need("pyarrow", "JSON Lines files")
    pajson = need("pyarrow.json", "JSON Lines files")
    try:
        if hasattr(pajson, "open_json"):
            reader = pajson.open_json(path)
            return _arrow_columns(pa, _drain(reader, on_rows), reader.schema)
        table = pajson.read_json(path)
        if on_rows is not None:
            on_rows(table.num_rows)
        return _arrow_columns(pa, table.to_batches(), table.schema)
    except pa.ArrowInvalid as error:
        if _is_empty_file_error(error):
            raise empty_input(str(path), "an empty file") from None
    # pyarrow fixes a column's type from the first rows and stops at a row that
    # differs (a string among numbers) or is malformed: parse line by line, which
    # also gives the line number of a malformed line.
    if on_rows is not None:
        on_rows(-1)
    return _read_jsonl_python(path, on_rows)


def _read_jsonl_python(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = need("pyarrow", "JSON Lines files")
    records: list[dict[str, Any]] = []
    with pa.input_stream(str(path), compression="detect") as stream:
        text = stream.read().decode("utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise unreadable_input(
                str(path), "jsonl", f"line {number}: {error.msg}"
            ) from None
        if not isinstance(record, dict):
            raise unreadable_input(
                str(path), "jsonl", f"line {number}: expected a JSON object, found "
                f"{type(record).__name__}"
            )
        records.append(record)
    if on_rows is not None:
        on_rows(len(records))
    if not records:
        raise empty_input(str(path), "no JSON objects")
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    return {name: _from_python_values([r.get(name) for r in records]) for name in names}


def _read_npz(path: Path) -> dict[str, NDArray[Any]]:
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    shapes = {name: a.shape for name, a in arrays.items()}
    if any(len(s) != 1 for s in shapes.values()) or len({s[0] for s in shapes.values()}) > 1:
        raise ragged_npz(str(path), shapes)
    out: dict[str, NDArray[Any]] = {}
    for name, array in arrays.items():
        if array.dtype.kind in "US":
            values = array.astype(object)
            values[array == array.dtype.type()] = None  # an empty string is missing
            out[name] = values
        else:
            out[name] = array
    return out


def _arrow_columns(pa: Any, batches: list[Any], schema: Any) -> dict[str, NDArray[Any]]:
    table = pa.Table.from_batches(batches, schema=schema)
    return {name: arrow_to_numpy(pa, table.column(i)) for i, name in enumerate(table.column_names)}


def arrow_to_numpy(pa: Any, column: Any) -> NDArray[Any]:
    """One pyarrow column as NumPy: numbers (NaN if missing), bools, or objects."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = column.type
    has_nulls = column.null_count > 0
    if pa.types.is_integer(kind) and not has_nulls:
        return np.asarray(column.to_numpy(), dtype=np.int64)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return np.asarray(column.cast(pa.float64()).to_numpy(zero_copy_only=False),
                          dtype=np.float64)
    if pa.types.is_boolean(kind) and not has_nulls:
        return np.asarray(column.to_numpy(zero_copy_only=False), dtype=bool)
    return np.array(column.to_pylist(), dtype=object)


def _from_python_values(values: list[Any]) -> NDArray[Any]:
    """A column parsed by Python's json: numbers, bools or objects (None if missing)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        if len(present) == len(values):
            return np.array(values, dtype=bool)
        return np.array(values, dtype=object)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if len(present) == len(values) and all(isinstance(v, int) for v in present):
            return np.array(values, dtype=np.int64)
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    return np.array(values, dtype=object)


def _type_text_column(values: NDArray[Any]) -> NDArray[Any]:
    """A column read as text, typed as a whole: integers, numbers, booleans or text."""
    present = [v for v in values.tolist() if v is not None]
    if not present:
        return values
    for convert, dtype in ((int, np.int64), (float, np.float64)):
        try:
            converted = [math.nan if v is None else convert(v) for v in values.tolist()]
        except ValueError:
            continue
        if dtype is np.int64 and len(present) < len(values):
            dtype = np.float64
        return np.array(converted, dtype=dtype)
    lowered = {v.lower() for v in present}
    if lowered <= {"true", "false"}:
        flags = [None if v is None else v.lower() == "true" for v in values.tolist()]
        return np.array(flags, dtype=bool if len(present) == len(values) else object)
    return values


def is_numeric(values: NDArray[Any]) -> bool:
    return values.dtype.kind in "iuf"


def mostly_numbers(values: NDArray[Any]) -> bool:
    """A text column in which more than half the present values read as numbers."""
    if values.dtype.kind != "O":
        return False
    present = [v for v in values.tolist() if v is not None]
    if not present or not all(isinstance(v, (str, int, float)) for v in present):
        return False
    return int(np.count_nonzero(parse_numbers(np.array(present, dtype=object))[1])) * 2 < len(
        present
    )


def parse_numbers(values: NDArray[Any]) -> tuple[F64, NDArray[np.bool_]]:
    """Object values as float64 and a mask of the ones that are not numbers.

    None is missing (NaN, not "non-numeric"); booleans are not numbers.
    """
    out = np.empty(values.shape[0], dtype=np.float64)
    bad = np.zeros(values.shape[0], dtype=bool)
    for i, value in enumerate(values.tolist()):
        if value is None:
            out[i] = math.nan
            continue
        if isinstance(value, bool):
            bad[i] = True
            out[i] = math.nan
            continue
        try:
            out[i] = float(value)
        except (TypeError, ValueError):
            bad[i] = True
            out[i] = math.nan
    return out, bad

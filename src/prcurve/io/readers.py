"""Reading files of labels and scores into named columns: CSV, TSV, Parquet, JSON Lines, .npz.

:func:`read_table` reads a file into named NumPy columns: tabular formats by pyarrow
(imported only when a file is read), ``.npz`` by NumPy without pickle. Choosing and
checking the label, score and weight columns is :mod:`prcurve.io.columns`' job.

The format comes from the file name: ``.csv``, ``.tsv``/``.tab``,
``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` (each of the text formats also
compressed: ``.gz``, ``.bz2``, ``.zst``, ``.lz4``) and ``.npz``.
"""

from __future__ import annotations

import contextlib
import json
import math
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import primitive_numpy
from prcurve.core.gc_pause import no_cycle_collection
from prcurve.errors import InvalidInputError
from prcurve.io.shared_text import shared_text
from prcurve.io.small_csv import read_delimited_by_size
from prcurve.io.small_jsonl import read_small_jsonl
from prcurve.io.text import PLAIN, CsvDialect, type_text_column
from prcurve.io.text_codes import dictionary_text
from prcurve.io.wide_integers import exact_integers, exact_json_integers
from prcurve.validation.arrays import check_choice
from prcurve.validation.files import (
    changed_type,
    duplicate_column,
    empty_input,
    missing_file,
    not_a_file,
    not_single_values,
    ragged_npz,
    unknown_file_format,
    unreadable_input,
)

__all__ = [
    "FORMATS",
    "RawTable",
    "RowsCallback",
    "arrow_numbers",
    "arrow_to_numpy",
    "check_unique_names",
    "detect_format",
    "diagnose_jsonl",
    "json_starts_with_object",
    "need",
    "object_array",
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


READ_ERRORS: tuple[type[Exception], ...] = (
    OSError, ValueError, TypeError, KeyError, IndexError, OverflowError, EOFError,
    RecursionError, NotImplementedError, zlib.error,
)
"""What a reader raises on a file it cannot read: each becomes a one-line message."""


@dataclass(frozen=True)
class RawTable:
    """A file read into columns: ``columns`` maps each name to a 1-D array of ``n_rows``
    values: float64 (NaN for a missing number), int64, bool, or object (strings, None if
    missing; text read as a dictionary also has its codes: :mod:`prcurve.io.text_codes`)."""

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
    path: str | Path, *, input_format: str | None = None, on_rows: RowsCallback | None = None,
    delimiter: str | None = None, decimal: str = ".",
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
    delimiter : str, optional
        CSV and TSV: the character between fields; by default sniffed from the first
        lines (the format's own ``,`` or tab when it fits, else ``;``, tab or ``|``).
    decimal : {".", ","}, default "."
        CSV and TSV: the decimal mark of the numbers (``","`` for ``0,93``).

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
    if file.stat().st_size == 0:  # every format alike: no data, as a header alone
        raise empty_input(name, "an empty file")
    dialect = CsvDialect.of(delimiter, decimal)
    readers: dict[str, Callable[[], dict[str, NDArray[Any]]]] = {
        "csv": lambda: _read_text_table(file, "csv", dialect, on_rows),
        "tsv": lambda: _read_text_table(file, "tsv", dialect, on_rows),
        "parquet": lambda: _read_parquet(file, on_rows),
        "jsonl": lambda: _read_jsonl(file, on_rows),
        "npz": lambda: _read_npz(file),
    }
    try:
        columns = readers[fmt]()
    except (InvalidInputError, ImportError):
        raise
    except READ_ERRORS as error:  # pyarrow's errors included (ArrowInvalid is a ValueError)
        raise unreadable_input(name, fmt, str(error) or type(error).__name__) from None
    except MemoryError:
        raise unreadable_input(name, fmt, "not enough memory to read it whole; --stream reads "
                               "CSV, TSV, Parquet and JSON Lines in batches") from None
    except Exception as error:
        if type(error).__module__.startswith("pyarrow"):  # any other ArrowException
            raise unreadable_input(name, fmt, str(error) or type(error).__name__) from None
        raise
    n_rows = len(next(iter(columns.values()))) if columns else 0
    if not columns:
        raise empty_input(name, "no columns")
    if n_rows == 0:
        raise empty_input(name, "a header but no rows")
    return RawTable(path=name, format=fmt, columns=columns, n_rows=n_rows)


def _is_empty_file_error(error: Exception) -> bool:
    return str(error).startswith(("Empty CSV file", "Empty JSON file"))


def check_unique_names(path: str, names: Sequence[str]) -> None:
    """Refuse a file with two columns of one name (which would be chosen is a guess)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise duplicate_column(path, name)
        seen.add(name)


def csv_convert_options(pacsv: Any, dialect: CsvDialect = PLAIN, **options: Any) -> Any:
    """How CSV and TSV text becomes values, the same in memory and streamed.

    The empty field and pyarrow's null spellings (``NA``, ``N/A``, ``NULL``,
    ``null``, ``NaN``, ``nan``, ...) are missing in every column, text columns
    included, so that a missing label is never read as a label value. Numbers
    have the ``dialect``'s decimal mark (pyarrow's ``decimal_point``).
    """
    return pacsv.ConvertOptions(strings_can_be_null=True, decimal_point=dialect.decimal,
                                **options)


def _read_text_table(path: Path, fmt: str, dialect: CsvDialect,
                     on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    """A CSV or TSV file: a small one with a decimal point by a plain pass
    (:mod:`prcurve.io.small_csv`), others (and anything it declines) by pyarrow."""
    if dialect.decimal != ".":
        return _read_delimited(path, fmt, dialect, on_rows)
    delimiter = dialect.delimiter_for(str(path), fmt)
    return read_delimited_by_size(
        path, delimiter, on_rows,
        lambda file, sep, rows: _read_delimited(file, fmt, CsvDialect.of(sep, "."), rows))


def _read_delimited(path: Path, fmt: str, dialect: CsvDialect,
                    on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = need("pyarrow", "CSV and TSV files")
    pacsv = need("pyarrow.csv", "CSV and TSV files")
    parse = dialect.parse_options(pacsv, str(path), fmt)
    try:
        reader = pacsv.open_csv(path, parse_options=parse,
                                convert_options=csv_convert_options(pacsv, dialect))
    except pa.ArrowInvalid as error:
        if _is_empty_file_error(error):
            raise empty_input(str(path), "an empty file") from None
        raise
    try:
        names = reader.schema.names
    except UnicodeDecodeError as error:
        raise ValueError(f"a column name is not UTF-8 text ({error})") from None
    check_unique_names(str(path), names)
    try:  # integers beyond int64, read as float64, read again as text (exact_integers)
        return exact_integers(_arrow_columns(pa, _drain(reader, on_rows), reader.schema),
                              path, parse)
    except pa.ArrowInvalid:
        pass
    # The types pyarrow inferred from the first block do not fit a later row (a word in
    # a column of numbers, a byte that is not UTF-8 in a text column): read every column
    # as bytes and type it whole.
    convert = csv_convert_options(pacsv, dialect, column_types={n: pa.binary() for n in names})
    reader = pacsv.open_csv(path, parse_options=parse, convert_options=convert)
    if on_rows is not None:
        on_rows(-1)
    columns = _arrow_columns(pa, _drain(reader, on_rows), reader.schema)
    return {name: type_text_column(_decoded(values), dialect.decimal)
            for name, values in columns.items()}


def _decoded(values: NDArray[Any]) -> NDArray[Any]:
    """Bytes as text where they are UTF-8; other bytes are kept (and named when used)."""
    out: NDArray[Any] = values.copy()
    for i, value in enumerate(values.tolist()):
        if isinstance(value, bytes):
            with contextlib.suppress(UnicodeDecodeError):
                out[i] = value.decode("utf-8")
    return out


def _drain(reader: Iterable[Any], on_rows: RowsCallback | None) -> list[Any]:
    batches = []
    for batch in reader:
        batches.append(batch)
        if on_rows is not None:
            on_rows(batch.num_rows)
    return batches


def _read_parquet(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = need("pyarrow", "Parquet files")
    from prcurve.io.parquet_memory import NullsFoundError, read_parquet_columns

    try:  # numeric columns written once into their arrays (issue 26, item 6)
        return read_parquet_columns(path, on_rows, convert=arrow_to_numpy,
                                    check_names=check_unique_names)
    except NullsFoundError:  # statistics that miss a null: read again by batches
        if on_rows is not None:
            on_rows(-1)
    pq = need("pyarrow.parquet", "Parquet files")  # imported only here (io.parquet_open)
    with pq.ParquetFile(path) as file:
        schema = file.schema_arrow
        check_unique_names(str(path), schema.names)
        batches = _drain(file.iter_batches(batch_size=1 << 16), on_rows)
    return _arrow_columns(pa, batches, schema)


def json_starts_with_object(path: str | Path) -> bool:
    """Whether the first value of a JSON Lines file opens an object (``{``).

    pyarrow's JSON reader (26.0) crashes the process on a file whose first
    value is ``null``; such a file, or any whose first value is not an object,
    is left to Python's json, which names the line. Reads at most 64 KiB.
    """
    pa = need("pyarrow", "JSON Lines files")
    try:
        with pa.input_stream(str(path), compression="detect") as stream:
            head = stream.read(1 << 16)
    except (OSError, ValueError) as error:  # a broken compressed file, say
        raise unreadable_input(str(path), "jsonl", str(error) or type(error).__name__) from None
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return head.startswith(b"{") or not head


def _read_jsonl(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    small = read_small_jsonl(path)  # a small, flat file: Python's json, no pyarrow
    if small is not None:
        if on_rows is not None:
            on_rows(len(next(iter(small.values()))))
        return small
    pa = need("pyarrow", "JSON Lines files")
    pajson = need("pyarrow.json", "JSON Lines files")
    if not json_starts_with_object(path):
        return _read_jsonl_python(path, on_rows)
    try:
        if hasattr(pajson, "open_json"):  # integers beyond int64: Python's json (exact)
            reader = pajson.open_json(path)
            return exact_json_integers(_arrow_columns(pa, _drain(reader, on_rows),
                                                      reader.schema),
                                       lambda: _read_jsonl_python(path, None))
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


def _read_jsonl_python(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    with no_cycle_collection():  # the records hold no cycles (prcurve.core.gc_pause)
        records = [record for _, record in _json_lines(str(path))]
    if on_rows is not None:
        on_rows(len(records))
    if not records:
        raise empty_input(str(path), "no JSON objects")
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    return {name: _from_python_values([r.get(name) for r in records]) for name in names}


def _read_npz(path: Path) -> dict[str, NDArray[Any]]:
    with path.open("rb") as handle:
        if handle.read(4) != b"PK\x03\x04":
            what = "an empty file" if handle.tell() == 0 else "it is not a zip archive"
            raise ValueError(f"not a NumPy .npz archive: {what}; write it with np.savez")
        handle.seek(0)
        import zipfile  # here, not at the top: 10 ms of a small report's imports (issue 26)

        try:
            archive = np.load(handle, allow_pickle=False)
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ValueError("not a NumPy .npz archive")
            with archive:
                check_unique_names(str(path), archive.files)
                arrays = {name: archive[name] for name in archive.files}
        except zipfile.BadZipFile as error:  # read_table's message, as for READ_ERRORS
            raise ValueError(str(error) or type(error).__name__) from None
    for name, array in arrays.items():
        if not isinstance(array, np.ndarray):  # a zip member that is not a .npy file
            raise ValueError(f"the member {name!r} is not a NumPy array")
    shapes = {name: a.shape for name, a in arrays.items()}
    if any(len(s) != 1 for s in shapes.values()) or len({s[0] for s in shapes.values()}) > 1:
        raise ragged_npz(str(path), shapes)
    out: dict[str, NDArray[Any]] = {}
    for name, array in arrays.items():
        if array.dtype.kind in "US":
            values = array.astype(object)
            values[array == array.dtype.type()] = None  # an empty string is missing
            out[name] = values
        elif array.dtype.kind in "biuf":
            out[name] = array
        else:  # complex, dates, structured: Python objects, named if used
            out[name] = object_array(array.tolist())
    return out


def _arrow_columns(pa: Any, batches: list[Any], schema: Any) -> dict[str, NDArray[Any]]:
    table = pa.Table.from_batches(batches, schema=schema)
    return {name: arrow_to_numpy(pa, table.column(i)) for i, name in enumerate(table.column_names)}


def object_array(values: Sequence[Any]) -> NDArray[np.object_]:
    """A 1-D object array of ``values``, each kept whole (a list stays one element)."""
    return np.fromiter(values, dtype=object, count=len(values))


def arrow_to_numpy(pa: Any, column: Any) -> NDArray[Any]:
    """One pyarrow column as NumPy: numbers (NaN if missing), bools, or objects.

    Signed integers become int64 and unsigned ones keep their type (a uint64
    above 2**63 is not wrapped around); with a missing value, float64. Text is
    ``str``, bytes ``bytes``, a missing value None, and any other value (a
    list, a struct, a date) a Python object, kept whole.
    """
    kind = column.type
    if pa.types.is_dictionary(kind):  # text: coded by NumPy (io.text_codes), else cast
        coded = dictionary_text(pa, column)
        if coded is not None:
            return coded
        column = column.cast(kind.value_type)
        kind = column.type
    has_nulls = column.null_count > 0
    if pa.types.is_integer(kind) and not has_nulls:
        values = primitive_numpy(pa, column)
        return values if pa.types.is_unsigned_integer(kind) else values.astype(np.int64,
                                                                             copy=False)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        floats = column.cast(pa.float64())
        if has_nulls:  # a missing number is NaN
            floats = need("pyarrow.compute", "files").fill_null(floats, math.nan)
        return primitive_numpy(pa, floats)
    if pa.types.is_boolean(kind) and not has_nulls:
        return primitive_numpy(pa, column)
    if pa.types.is_nested(kind):
        # Never a label, score or weight: each row is an empty list or object (named as
        # such if the column is used), and the values are not read. pyarrow 26's JSON
        # reader can build a list of strings whose values cannot be read back.
        marker: Any = {} if pa.types.is_struct(kind) or pa.types.is_map(kind) else []
        valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return object_array([marker if v else None for v in valid.tolist()])
    if pa.types.is_temporal(kind):  # shown as text: Python's datetime has a smaller range
        column = column.cast(pa.string())
    try:
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        shared = shared_text(pa, column) if text else None  # one str per equal text
        return object_array(column.to_pylist()) if shared is None else shared
    except UnicodeDecodeError:  # pyarrow's JSON reader does not check UTF-8: keep the bytes
        raw = column.cast(pa.large_binary() if pa.types.is_large_string(kind) else pa.binary())
        return _decoded(object_array(raw.to_pylist()))


def arrow_numbers(pa: Any, column: Any) -> NDArray[Any]:
    """:func:`arrow_to_numpy`, except that a floating column without missing values keeps
    its type (float32 stays float32) and is not copied: the columns of labels, scores and
    weights that the streamed and Parquet-task readers check
    (:func:`prcurve.io.rows.check_block`)."""
    if pa.types.is_floating(column.type) and column.null_count == 0:
        return primitive_numpy(pa, column)
    return arrow_to_numpy(pa, column)


_INT64 = np.iinfo(np.int64)


def _from_python_values(values: list[Any]) -> NDArray[Any]:
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

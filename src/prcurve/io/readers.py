"""Reading files of labels and scores into named columns: CSV, TSV, Parquet, JSON Lines, .npz.

:func:`read_table` reads a file into named NumPy columns: tabular formats by pyarrow
(imported only when a file is read), ``.npz`` by NumPy without pickle. Choosing and
checking the label, score and weight columns is :mod:`prcurve.io.columns`' job.

The format comes from the file name: ``.csv``, ``.tsv``/``.tab``,
``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` (each of the text formats also
compressed: ``.gz``, ``.bz2``, ``.zst``, ``.lz4``) and ``.npz``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.io.arrow_columns import (
    Column,
    arrow_column,
    arrow_numbers,
    arrow_to_numpy,
    decoded,
    need,
    object_array,
)
from prcurve.io.jsonl_python import diagnose_jsonl, read_jsonl_python
from prcurve.io.small_csv import read_delimited_by_size
from prcurve.io.small_jsonl import read_small_jsonl
from prcurve.io.text import PLAIN, CsvDialect, type_text_column
from prcurve.io.text_codes import CodedText, repeated_text
from prcurve.io.wide_integers import exact_integers, exact_json_integers
from prcurve.validation.arrays import check_choice
from prcurve.validation.files import (
    duplicate_column,
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
    "TableColumns",
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


class TableColumns(Mapping[str, NDArray[Any]]):
    """A table's columns by name, each a 1-D NumPy array; a text column the reader read as
    codes (:class:`~prcurve.io.text_codes.CodedText`) is kept so, its array of objects made
    when first asked for (:meth:`coded` gives the codes)."""

    __slots__ = ("_arrays", "_read")

    def __init__(self, read: Mapping[str, Column]) -> None:
        self._read = dict(read)
        self._arrays: dict[str, NDArray[Any]] = {}

    def __getitem__(self, name: str) -> NDArray[Any]:
        found = self._arrays.get(name)
        if found is None:
            value = self._read[name]
            found = self._arrays[name] = (value.values() if isinstance(value, CodedText)
                                          else value)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._read)

    def __len__(self) -> int:
        return len(self._read)

    def coded(self, name: str) -> Column:
        """The column ``name`` as read: text as codes where the reader has them."""
        return self._read[name]


@dataclass(frozen=True)
class RawTable:
    """A file read into columns: ``columns`` maps each name to a 1-D array of ``n_rows``
    values: float64 (NaN for a missing number), int64, bool, or object (strings, None if
    missing). :meth:`labels` gives a text column as codes where the reader has them."""

    path: str
    format: str
    columns: Mapping[str, NDArray[Any]]
    n_rows: int

    def labels(self, name: str) -> Column:
        """The column ``name`` for the label rules (:mod:`prcurve.io.label_rows`): text as
        codes (:class:`~prcurve.io.text_codes.CodedText`) where the reader read it so,
        else the array of ``columns``."""
        columns = self.columns
        return columns.coded(name) if isinstance(columns, TableColumns) else columns[name]


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
    readers: dict[str, Callable[[], Mapping[str, Column]]] = {
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
    return RawTable(path=name, format=fmt, columns=TableColumns(columns), n_rows=n_rows)


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
                     on_rows: RowsCallback | None) -> Mapping[str, Column]:
    """A CSV or TSV file: a small one with a decimal point by a plain pass
    (:mod:`prcurve.io.small_csv`), others (and anything it declines) by pyarrow."""
    if dialect.decimal != ".":
        return _read_delimited(path, fmt, dialect, on_rows)
    delimiter = dialect.delimiter_for(str(path), fmt)
    return read_delimited_by_size(
        path, delimiter, on_rows,
        lambda file, sep, rows: _read_delimited(file, fmt, CsvDialect.of(sep, "."), rows))


def _read_delimited(path: Path, fmt: str, dialect: CsvDialect,
                    on_rows: RowsCallback | None) -> Mapping[str, Column]:
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
    try:
        # Text whose first block repeats its values (labels) read again as dictionaries:
        # coded by pyarrow as it reads, not looked up a row at a time (io.text_codes).
        # A file of one block (pyarrow's 1 MiB) is not read twice: its text is coded by
        # the label rules as before.
        first = next(iter(reader), None)
        coded = (repeated_text(pa, first) if first is not None
                 and path.stat().st_size > _CSV_BLOCK else [])
        if coded:
            types = {n: pa.dictionary(pa.int32(), reader.schema.field(n).type) for n in coded}
            reader.close()  # its blocks read ahead, freed before the second reader's
            reader = pacsv.open_csv(path, parse_options=parse, convert_options=csv_convert_options(
                pacsv, dialect, column_types=types))
        batches = _drain(reader if coded or first is None else [first, *reader], on_rows)
        del first
        table = pa.Table.from_batches(batches, schema=reader.schema)
        del batches
        for name in coded:  # pyarrow checks the UTF-8 of text, not of a dictionary's
            for chunk in table.column(name).chunks:
                chunk.dictionary.validate(full=True)
        # integers beyond int64, read as float64, read again as text (exact_integers)
        return exact_integers(_table_columns(pa, table), path, parse)
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
    return {name: type_text_column(decoded(_plain(values)), dialect.decimal)
            for name, values in columns.items()}


_CSV_BLOCK = 1 << 20
"""pyarrow's CSV reader's block (``ReadOptions.block_size``'s default): a file no larger
on disk is read in one block."""


def _plain(values: Column) -> NDArray[Any]:
    return values.values() if isinstance(values, CodedText) else values


def _drain(reader: Iterable[Any], on_rows: RowsCallback | None) -> list[Any]:
    batches = []
    for batch in reader:
        batches.append(batch)
        if on_rows is not None:
            on_rows(batch.num_rows)
    return batches


def _read_parquet(path: Path, on_rows: RowsCallback | None) -> Mapping[str, Column]:
    pa = need("pyarrow", "Parquet files")
    from prcurve.io.parquet_memory import NullsFoundError, read_parquet_columns

    try:  # numeric columns written once into their arrays (issue 26, item 6)
        return read_parquet_columns(path, on_rows, convert=arrow_column,
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


def _read_jsonl(path: Path, on_rows: RowsCallback | None) -> Mapping[str, Column]:
    small = read_small_jsonl(path)  # a small, flat file: Python's json, no pyarrow
    if small is not None:
        if on_rows is not None:
            on_rows(len(next(iter(small.values()))))
        return small
    pa = need("pyarrow", "JSON Lines files")
    pajson = need("pyarrow.json", "JSON Lines files")
    if not json_starts_with_object(path):
        return read_jsonl_python(path, on_rows)
    try:
        if hasattr(pajson, "open_json"):  # integers beyond int64: Python's json (exact)
            reader = pajson.open_json(path)
            return exact_json_integers(_arrow_columns(pa, _drain(reader, on_rows),
                                                      reader.schema),
                                       lambda: read_jsonl_python(path, None))
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
    return read_jsonl_python(path, on_rows)


def _read_npz(path: Path) -> Mapping[str, Column]:
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
    out: dict[str, Column] = {}
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


def _arrow_columns(pa: Any, batches: list[Any], schema: Any) -> Mapping[str, Column]:
    return _table_columns(pa, pa.Table.from_batches(batches, schema=schema))


def _table_columns(pa: Any, table: Any) -> Mapping[str, Column]:
    return {name: arrow_column(pa, table.column(i)) for i, name in enumerate(table.column_names)}

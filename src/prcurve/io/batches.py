"""Reading files larger than memory in batches: CSV and TSV with pyarrow's streaming CSV
reader, JSON Lines with ``pyarrow.dataset``, Parquet a row group at a time with
``pyarrow.parquet``.

:func:`input_files` finds the files of an input (one file, several, or a folder
of one format), :func:`choose_columns` picks the label, score and weight
columns from the schema, and :class:`BatchReader` yields checked batches: the
scores of each column, which rows are positive, the weights, and the rows
dropped with ``drop_invalid``. Every row rule is
:func:`prcurve.io.columns.check_block`, the one used for a whole file in memory
and for a Dask partition; each problem is reported with the file and its row.
:mod:`prcurve.io.stream` folds the batches into count states.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.io.arrow_columns import arrow_labels
from prcurve.io.columns import check_roles, choose_label, refuse_decimal_commas
from prcurve.io.readers import (
    FORMATS,
    RowsCallback,
    arrow_numbers,
    arrow_to_numpy,
    check_unique_names,
    csv_convert_options,
    detect_format,
    diagnose_jsonl,
    json_starts_with_object,
    need,
)
from prcurve.io.rows import (
    CheckedBlock,
    LabelRule,
    RowProblem,
    check_block,
    refuse_rounded_integers,
)
from prcurve.io.text import PLAIN, CsvDialect
from prcurve.validation.files import (
    cannot_stream,
    changed_type,
    empty_input,
    missing_column,
    missing_file,
    mixed_formats,
    no_input_files,
    no_score_columns,
    unreadable_input,
)
from prcurve.validation.paths import check_distinct_files, no_files_given

__all__ = [
    "STREAM_FORMATS",
    "Batch",
    "BatchReader",
    "Columns",
    "LabelRule",
    "check_decimal_commas",
    "choose_columns",
    "input_files",
    "open_dataset",
    "parquet_statistics_range",
    "score_range",
]

F64 = NDArray[np.float64]

Batch = CheckedBlock
"""A checked batch: :class:`prcurve.io.columns.CheckedBlock`."""


_READAHEAD = 2  # batches read ahead of the one being counted (pyarrow's default is 16)


STREAM_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "jsonl")


def input_files(source: str | Path | Sequence[str | Path], input_format: str | None,
                *, distinct: bool = True) -> tuple[list[str], str, str]:
    """The files of ``source``, their one format, and a name for messages; a file listed
    twice (a folder's files included) is refused unless ``distinct`` is False."""
    if isinstance(source, (str, Path)):
        sources = [source]
        name = str(source)
    else:
        sources = list(source)
        name = ", ".join(map(str, sources[:3])) + (", ..." if len(sources) > 3 else "")
        if not sources:
            raise no_files_given()
    files: list[str] = []
    for one in sources:
        path = Path(one)
        if not path.exists():
            raise missing_file(str(one))
        if path.is_dir():
            found = sorted(
                str(p) for p in path.rglob("*")
                if p.is_file() and not p.name.startswith((".", "_"))
                and (input_format is not None or _known(p, FORMATS))
            )
            if not found:
                raise no_input_files(str(one), list(FORMATS))
            files.extend(found)
        else:
            files.append(str(path))
    if distinct:
        check_distinct_files(files)  # one file twice would count its rows twice
    for one in files:  # 0 bytes: no data in every format (a Parquet reader says "invalid")
        if os.path.getsize(one) == 0:
            raise empty_input(one, "an empty file")
    formats = [detect_format(f, input_format) for f in files]
    if len(set(formats)) > 1:
        raise mixed_formats(formats)
    fmt = formats[0]
    if fmt not in STREAM_FORMATS:
        raise cannot_stream(files[0], fmt)
    return files, fmt, name


def _known(path: Path, formats: dict[str, str]) -> bool:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".lz4"):
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] in formats


def _file_format(fmt: str) -> Any:
    """The ``pyarrow.dataset`` format of JSON Lines files (the one text format read
    through a dataset: pyarrow's streaming JSON reader is newer than pyarrow 14)."""
    ds = need("pyarrow.dataset", f"{fmt} files in batches")
    return ds.JsonFileFormat()


def open_dataset(files: list[str], fmt: str, promote: Sequence[str] = (),
                 dialect: CsvDialect = PLAIN) -> Any:
    """The files as one ``pyarrow.dataset`` (JSON Lines), or only their schema (CSV,
    TSV and Parquet, read file by file), its schema from the first file.

    Text formats: pyarrow infers each column's type from the first block of
    the first file. A number with a fraction in a later block of an integer
    column would stop the read, so integer score and weight columns
    (``promote``) are read as float64; text columns of CSV and TSV are read as
    bytes, so that a byte that is not UTF-8 is named with its row rather than
    stopping the read. A file pyarrow cannot open is a one-line error. CSV and TSV
    are read in the ``dialect`` (delimiter, decimal mark; :mod:`prcurve.io.text`).
    """
    pa = need("pyarrow", "files in batches")
    if fmt == "parquet":
        # The schema alone, from the first file's footer (what the dataset would take):
        # pyarrow.dataset is not imported (it imports pandas, almost a second). The
        # files are read by row groups (_parquet_records).
        pq = need("pyarrow.parquet", "Parquet files")
        try:
            schema = pq.read_schema(files[0])
        except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
            raise _diagnosed(files, fmt, error) from None
        check_unique_names(files[0], schema.names)
        return _Schema(schema)
    if fmt in ("csv", "tsv"):
        # pyarrow's streaming CSV reader, file by file (_csv_records): pyarrow.dataset
        # is not imported (it imports pandas, almost a second).
        with _open_csv(files[0], fmt, dialect=dialect) as first:
            inferred = first.schema
        try:
            names = inferred.names
        except UnicodeDecodeError as error:  # a header that is not UTF-8
            raise unreadable_input(files[0], fmt,
                                   f"a column name is not UTF-8 text ({error})") from None
        check_unique_names(files[0], names)
        return _Schema(_stream_schema(pa, inferred, promote, text=True))
    ds = need("pyarrow.dataset", f"{fmt} files in batches")
    file_format = _file_format(fmt)
    if fmt == "jsonl":
        for path in files:
            if not json_starts_with_object(path):  # pyarrow would crash or stop: say why
                diagnose_jsonl(path)
                raise unreadable_input(path, fmt, "no JSON object found")
    try:
        dataset = ds.dataset(files, format=file_format)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
        raise _diagnosed(files, fmt, error) from None
    try:
        names = dataset.schema.names
    except UnicodeDecodeError as error:  # a header that is not UTF-8
        raise unreadable_input(files[0], fmt, f"a column name is not UTF-8 text ({error})"
                               ) from None
    check_unique_names(files[0], names)
    return ds.dataset(files, format=file_format,
                      schema=_stream_schema(pa, dataset.schema, promote, text=False))


def _stream_schema(pa: Any, inferred: Any, promote: Sequence[str], *, text: bool) -> Any:
    """The first file's inferred schema with integer ``promote`` columns as float64 and,
    for CSV and TSV (``text``), text columns as bytes (:func:`open_dataset`)."""
    fields, promoted = [], []
    for f in inferred:
        if f.name in promote and pa.types.is_integer(f.type):
            f = pa.field(f.name, pa.float64())
            promoted.append(f.name)
        elif text and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type)):
            f = pa.field(f.name, pa.binary())
        fields.append(f)
    # The promoted columns are named in the metadata: their values beyond 2^53 are
    # refused (BatchReader._check), since float64 rounds such integers.
    return pa.schema(fields, metadata={_PROMOTED: "\n".join(promoted)})


_PROMOTED = "prcurve.integer_columns"


def _open_csv(path: str, fmt: str, types: Any = None, columns: Sequence[str] = (), *,
              threads: bool = True, dialect: CsvDialect = PLAIN) -> Any:
    """pyarrow's streaming reader of one CSV or TSV file (compressed files by their
    extension), the ``columns`` only when given, with the ``types`` of a schema; a file
    pyarrow cannot open is a one-line error."""
    pa = need("pyarrow", "files in batches")
    options: dict[str, Any] = {}
    if columns:
        options["include_columns"] = list(columns)
        options["include_missing_columns"] = True  # as a dataset: a column a file lacks is null
        options["column_types"] = {name: types.field(name).type for name in columns}
    try:
        return _csv_reader(path, fmt, threads, dialect, **options)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
        if threads and _unplaced(error):
            _name_the_row(path, fmt, types, columns, dialect)
        raise _diagnosed([path], fmt, error, dialect) from None


def _csv_reader(path: str, fmt: str, threads: bool = True, dialect: CsvDialect = PLAIN,
                **convert: Any) -> Any:
    """``pyarrow.csv.open_csv`` of a CSV or TSV file in its ``dialect`` (the delimiter
    given or sniffed, the decimal mark) with prcurve's conversion rules
    (:func:`~prcurve.io.readers.csv_convert_options`)."""
    pacsv = need("pyarrow.csv", "CSV and TSV files")
    return pacsv.open_csv(
        path, parse_options=dialect.parse_options(pacsv, path, fmt),
        read_options=pacsv.ReadOptions(use_threads=threads),
        convert_options=csv_convert_options(pacsv, dialect, **convert))


def _unplaced(error: Exception) -> bool:
    """A conversion error without its row: pyarrow's CSV reader on its threads does not
    say which row held the value; on one thread it does (read again to name it: an error
    path only)."""
    text = str(error)
    return "conversion error" in text and "Row #" not in text


def _name_the_row(path: str, fmt: str, types: Any, columns: Sequence[str],
                  dialect: CsvDialect) -> None:
    """Read a file again on one thread after an :func:`_unplaced` error: the reader then
    raises the error with its row (an error path only)."""
    with _open_csv(path, fmt, types, columns, threads=False, dialect=dialect) as reader:
        for _ in reader:
            pass


def _csv_records(path: str, fmt: str, schema: Any, wanted: list[str], batch_rows: int,
                 dialect: CsvDialect = PLAIN) -> Iterator[Any]:
    """The record batches of the ``wanted`` columns of one CSV or TSV file, typed as
    ``schema`` (the first file's, :func:`open_dataset`), at most ``batch_rows`` rows each
    (slices of the reader's blocks, no copy)."""
    pa = need("pyarrow", "files in batches")
    try:
        with _open_csv(path, fmt, schema, wanted, dialect=dialect) as reader:
            for block in reader:
                for first in range(0, block.num_rows, batch_rows):
                    yield block.slice(first, batch_rows)
    except pa.ArrowInvalid as error:
        if _unplaced(error):
            _name_the_row(path, fmt, schema, wanted, dialect)
        raise


@dataclass(frozen=True)
class _Schema:
    """What :func:`open_dataset` gives for Parquet files: their schema."""

    schema: Any


def _diagnosed(files: Sequence[str], fmt: str, error: Exception,
               dialect: CsvDialect = PLAIN) -> InvalidInputError:
    """The one-line error of a file pyarrow could not open or read in batches."""
    text = str(error) or type(error).__name__
    path = next((f for f in files if f in text), files[0])
    if "Empty JSON" in text or "Empty CSV" in text:
        return empty_input(path, "an empty file")
    duplicated = re.search(r"multiple columns named (.+?)\s*$", text, re.MULTILINE)
    if duplicated:
        check_unique_names(path, [duplicated.group(1)] * 2)
    if fmt == "jsonl":
        for one in files if path not in text else [path]:
            diagnose_jsonl(one)
    if fmt == "parquet":
        pq = need("pyarrow.parquet", "Parquet files")
        for one in files:
            try:
                names = pq.read_schema(one).names
            except Exception:  # only for a message; the error being reported is the real one
                continue
            check_unique_names(one, names)
    converted = re.search(r"In CSV column #(\d+): Row #(\d+): CSV conversion error to "
                          r"(\w+): invalid value '(.*)'", text)
    if converted:
        column, line, kind, value = converted.groups()
        names = _csv_header(path, fmt, dialect)
        name = names[int(column)] if int(column) < len(names) else f"#{column}"
        return changed_type(path, name, f"row {int(line) - 1}", repr(value),
                            f"{kind} values", streamed=True)
    reason = text.split(": Invalid: ")[-1] if ": Invalid: " in text else text
    return unreadable_input(path, fmt, reason)


def check_decimal_commas(path: str, fmt: str, dialect: CsvDialect,
                         exclude: Sequence[str | None]) -> None:
    """Refuse, saying so, a file whose text columns (but ``exclude``) hold numbers written
    with a decimal comma (its first block, read as text); an error path only."""
    pa = need("pyarrow", "files in batches")
    try:
        with _csv_reader(path, fmt, dialect=dialect) as reader:
            text = [f.name for f in reader.schema if pa.types.is_string(f.type)]
        if not text:
            return
        with _csv_reader(path, fmt, dialect=dialect, include_columns=text,
                         column_types=dict.fromkeys(text, pa.string())) as reader:
            block = reader.read_next_batch()
    except (pa.ArrowInvalid, StopIteration, UnicodeDecodeError):
        return
    refuse_decimal_commas(path, {name: arrow_to_numpy(pa, block.column(name))
                                 for name in text if name not in exclude})


def _csv_header(path: str, fmt: str, dialect: CsvDialect) -> list[str]:
    try:
        with _csv_reader(path, fmt, dialect=dialect) as reader:
            return list(reader.schema.names)
    except Exception:  # only for a message; the error being reported is the real one
        return []


@dataclass
class Columns:
    label: str
    label_chosen: str
    scores: list[str]
    scores_chosen: str
    weight: str | None
    skipped: list[str]


def choose_columns(schema: Any, name: str, label: str | None, scores: Sequence[str],
                    weight: str | None) -> Columns:
    """Label, score and weight columns from the schema, as :func:`prcurve.io.load_scores`."""
    pa = need("pyarrow", "files in batches")

    names = list(schema.names)
    check_unique_names(name, names)
    label, label_chosen = choose_label(name, names, label)
    if weight is not None and weight not in names:
        raise missing_column("--weight", weight, name, names)
    used = {label} | ({weight} if weight is not None else set())
    if scores:
        check_roles(label, label_chosen, weight, scores, "option")
        for column in scores:
            if column not in names:
                raise missing_column("--score", column, name, names)
        chosen, how = list(scores), "option"
    else:
        def numeric(t: Any) -> bool:
            if pa.types.is_dictionary(t):
                t = t.value_type
            return bool(pa.types.is_integer(t) or pa.types.is_floating(t)
                        or pa.types.is_decimal(t))

        chosen = [n for n in names if n not in used and numeric(schema.field(n).type)]
        how = "auto"
        if not chosen and names and all(pa.types.is_null(schema.field(n).type)
                                        for n in names):
            # A header alone (pyarrow types its columns null): no data, as a 0-byte file.
            raise empty_input(name, "a header but no values")
        if not chosen:
            raise no_score_columns(name, names)
    check_roles(label, label_chosen, weight, chosen, how)
    skipped = [n for n in names if n not in used and n not in chosen]
    return Columns(label, label_chosen, chosen, how, weight, skipped)


class BatchReader:
    """The batches of the input, checked: one place for every row-level rule."""

    def __init__(self, files: list[str], fmt: str, name: str, columns: Columns,
                 labels: LabelRule, drop_invalid: bool, batch_rows: int,
                 dialect: CsvDialect = PLAIN) -> None:
        self.files, self.fmt, self.name, self.dialect = files, fmt, name, dialect
        self.columns, self.labels = columns, labels
        self.drop_invalid, self.batch_rows = drop_invalid, batch_rows
        self.promoted: set[str] = set()  # integer score columns read as float64

    def batches(self, scores: Sequence[str], on_rows: RowsCallback | None = None
                ) -> Iterator[tuple[int, Batch]]:
        """(rows read so far, checked batch) for each batch, file by file."""
        pa = need("pyarrow", "files in batches")

        c = self.columns
        wanted = [c.label, *([c.weight] if c.weight else []),
                  *[s for s in scores if s not in (c.label, c.weight)]]
        rows = 0
        for where, stream in self._record_streams(pa, wanted):
            first_row = 1
            try:
                for record in stream:
                    n = record.num_rows
                    if n == 0:
                        continue
                    try:
                        batch = self._check(pa, record, scores)
                    except RowProblem as problem:
                        raise problem.error(where, first_row) from None
                    first_row += n
                    rows += n
                    if on_rows is not None:
                        on_rows(n)
                    yield rows, batch
            except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
                raise _diagnosed([where], self.fmt, error, self.dialect) from None

    def _record_streams(self, pa: Any, wanted: list[str]) -> Iterator[tuple[str, Iterator[Any]]]:
        """(file, its record batches of the ``wanted`` columns) for each file."""
        if self.fmt == "parquet":
            c = self.columns
            options = {c.label: "--label", **({c.weight: "--weight"} if c.weight else {})}
            for path in self.files:
                yield path, _parquet_records(path, wanted, options, self.batch_rows)
            return
        c = self.columns
        dataset = open_dataset(self.files, self.fmt, [*c.scores, *([c.weight] if c.weight else [])],
                               self.dialect)
        metadata = dataset.schema.metadata or {}
        self.promoted = set(metadata.get(_PROMOTED.encode(), b"").decode().split("\n"))
        if self.fmt in ("csv", "tsv"):
            for path in self.files:
                yield path, _csv_records(path, self.fmt, dataset.schema, wanted,
                                          self.batch_rows, self.dialect)
            return
        for fragment, path in zip(dataset.get_fragments(), self.files, strict=False):
            # A few batches decoded ahead: overlap without holding a file in memory.
            yield str(fragment.path or path), fragment.to_batches(
                schema=dataset.schema, columns=wanted, batch_size=self.batch_rows,
                batch_readahead=_READAHEAD, use_threads=True)

    def _check(self, pa: Any, record: Any, scores: Sequence[str]) -> Batch:
        c = self.columns
        weights = None if c.weight is None else arrow_numbers(pa, record.column(c.weight))
        for column in self.promoted.intersection(scores):
            refuse_rounded_integers(column, arrow_numbers(pa, record.column(column)))
        return check_block(arrow_labels(pa, record.column(c.label)), self.labels, weights,
                           c.weight,
                           {column: arrow_numbers(pa, record.column(column)) for column in scores},
                           self.drop_invalid)


def _parquet_records(path: str, wanted: list[str], options: dict[str, str], batch_rows: int
                     ) -> Iterator[Any]:
    """The record batches of the ``wanted`` columns of one Parquet file, a row group at a time.

    Each row group is read whole (only the wanted columns, decoded on pyarrow's threads)
    while the one before it is being counted: one row group ahead in a background thread,
    so reading and counting overlap and memory is two row groups, never the column
    whole. A row group of more than ``4 * batch_rows`` rows is read in batches of
    ``batch_rows`` instead. (``ParquetFile.iter_batches`` over the whole file keeps far
    more decoded data alive: about 0.8 GB for 10^8 rows, docs/benchmarks.md.)
    """
    from concurrent.futures import ThreadPoolExecutor

    pq = need("pyarrow.parquet", "Parquet files")
    parquet = pq.ParquetFile(path)
    try:
        names = parquet.schema_arrow.names
        for column in wanted:
            if column not in names:
                raise missing_column(options.get(column, "--score"), column, path, names)
        metadata = parquet.metadata
        groups = [g for g in range(metadata.num_row_groups) if metadata.row_group(g).num_rows]
        small = [g for g in groups if metadata.row_group(g).num_rows <= 4 * batch_rows]

        def read(group: int) -> Any:
            return parquet.read_row_group(group, columns=wanted, use_threads=True)

        with ThreadPoolExecutor(max_workers=1) as ahead:
            pending = None
            for k, group in enumerate(groups):
                if group not in small:
                    pending = None
                    yield from parquet.iter_batches(batch_size=batch_rows, row_groups=[group],
                                                    columns=wanted, use_threads=True)
                    continue
                table = pending.result() if pending is not None else read(group)
                following = groups[k + 1] if k + 1 < len(groups) else None
                pending = (ahead.submit(read, following)
                           if following is not None and following in small else None)
                yield from table.combine_chunks().to_batches()
    finally:
        parquet.close()


def _parquet_range(reader: BatchReader, column: str) -> tuple[float, float] | None:
    """The score range from Parquet's row-group statistics, without reading the data.

    Only when every row is kept (no ``drop_invalid``: a NaN or infinite score
    stops the main pass anyway) and every row group of every file has them.
    """
    if reader.fmt != "parquet" or reader.drop_invalid:
        return None
    return parquet_statistics_range(reader.files, column)


def parquet_statistics_range(files: Sequence[str], column: str) -> tuple[float, float] | None:
    """The smallest and largest value of ``column`` in Parquet ``files``, from their
    row-group statistics; None when a row group lacks them or has nulls."""
    pq = need("pyarrow.parquet", "Parquet files")
    low, high = math.inf, -math.inf
    for path in files:
        metadata = pq.ParquetFile(path).metadata
        names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
        if column not in names:
            return None
        where = names.index(column)
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            if group.num_rows == 0:
                continue
            stats = group.column(where).statistics
            if stats is None or not stats.has_min_max or stats.null_count:
                return None
            lo, hi = stats.min, stats.max
            if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
                return None
            low, high = min(low, float(lo)), max(high, float(hi))
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return low + 0.0, high + 0.0  # + 0.0: Parquet writes a minimum 0 as -0.0


def score_range(reader: BatchReader, column: str) -> tuple[float, float]:
    """The smallest and largest kept score of ``column``: from Parquet statistics, or
    one pass over that column."""
    from_statistics = _parquet_range(reader, column)
    if from_statistics is not None:
        return from_statistics
    low, high = math.inf, -math.inf
    for _, batch in reader.batches([column]):
        scores = batch.scores[column]
        keep = batch.keep[column]
        if keep is not None:
            scores = scores[keep]
        if scores.shape[0]:
            low = min(low, float(scores.min()))
            high = max(high, float(scores.max()))
    return low, high

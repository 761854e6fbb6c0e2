"""Reading files larger than memory in batches with ``pyarrow.dataset``.

:func:`input_files` finds the files of an input (one file, several, or a folder
of one format), :func:`choose_columns` picks the label, score and weight
columns from the schema, and :class:`BatchReader` yields checked batches: the
scores of each column, which rows are positive, the weights, and the rows
dropped with ``drop_invalid`` (each problem reported with the file and row, as
:mod:`prcurve.io.columns` does for a whole file). :mod:`prcurve.io.stream`
folds the batches into count states.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.columns import (
    LABEL_CANDIDATES,
    checked_scores,
    first_rows,
    missing_values,
    positive_value,
)
from prcurve.io.readers import FORMATS, RowsCallback, arrow_to_numpy, detect_format, need
from prcurve.validation.files import (
    cannot_stream,
    inconsistent_labels,
    invalid_scores,
    invalid_weights,
    labels_not_binary,
    missing_column,
    missing_file,
    missing_labels,
    mixed_formats,
    no_input_files,
    no_label_column,
    no_score_columns,
    unreadable_input,
)

__all__ = [
    "STREAM_FORMATS",
    "Batch",
    "BatchReader",
    "Columns",
    "LabelReader",
    "choose_columns",
    "input_files",
    "open_dataset",
    "parquet_statistics_range",
    "score_range",
]

F64 = NDArray[np.float64]



_READAHEAD = 2  # batches read ahead of the one being counted (pyarrow's default is 16)


STREAM_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "jsonl")


def input_files(source: str | Path | Sequence[str | Path], input_format: str | None
           ) -> tuple[list[str], str, str]:
    """The files of ``source``, their one format, and a name for messages."""
    if isinstance(source, (str, Path)):
        sources = [source]
        name = str(source)
    else:
        sources = list(source)
        name = ", ".join(map(str, sources[:3])) + (", ..." if len(sources) > 3 else "")
        if not sources:
            raise missing_file("")
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


def open_dataset(files: list[str], fmt: str, promote: Sequence[str] = ()) -> Any:
    ds = need("pyarrow.dataset", f"{fmt} files in batches")
    if fmt == "parquet":
        file_format: Any = ds.ParquetFileFormat()
    elif fmt in ("csv", "tsv"):
        pacsv = need("pyarrow.csv", "CSV and TSV files")
        file_format = ds.CsvFileFormat(
            parse_options=pacsv.ParseOptions(delimiter="," if fmt == "csv" else "\t"))
    else:
        file_format = ds.JsonFileFormat()
    dataset = ds.dataset(files, format=file_format)
    if fmt == "parquet" or not promote:
        return dataset
    # Text formats: pyarrow infers each column's type from the first block of the first
    # file; a number with a fraction in a later block of an integer column would stop
    # the read. Integer score and weight columns (``promote``) are read as float64.
    pa = need("pyarrow", "files in batches")
    schema = pa.schema([
        pa.field(f.name, pa.float64()) if f.name in promote and pa.types.is_integer(f.type)
        else f for f in dataset.schema])
    return ds.dataset(files, format=file_format, schema=schema)


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
    if label is not None:
        if label not in names:
            raise missing_column("--label", label, name, names)
        label_chosen = "option"
    else:
        lowered = {n.lower(): n for n in names}
        found = [c for c in LABEL_CANDIDATES if c in names] or [
            lowered[c] for c in LABEL_CANDIDATES if c in lowered]
        if not found:
            raise no_label_column(name, LABEL_CANDIDATES, names)
        label, label_chosen = found[0], "auto"
    if weight is not None and weight not in names:
        raise missing_column("--weight", weight, name, names)
    used = {label} | ({weight} if weight is not None else set())
    if scores:
        for column in scores:
            if column not in names:
                raise missing_column("--score", column, name, names)
        chosen, how = list(scores), "option"
    else:
        def numeric(t: Any) -> bool:
            return bool(pa.types.is_integer(t) or pa.types.is_floating(t)
                        or pa.types.is_decimal(t))

        chosen = [n for n in names if n not in used and numeric(schema.field(n).type)]
        how = "auto"
        if not chosen:
            raise no_score_columns(name, names)
    skipped = [n for n in names if n not in used and n not in chosen]
    return Columns(label, label_chosen, chosen, how, weight, skipped)


class LabelReader:
    """Positive masks of label batches, consistent across batches."""

    def __init__(self, column: str, name: str, positive: str | None) -> None:
        self.column, self.name, self.positive = column, name, positive
        self.target: Any = None
        self.resolved = False
        self.seen_zero = self.seen_minus_one = False
        self.value: Any = None  # the positive value, for the report

    def mask(self, values: NDArray[Any]) -> NDArray[np.bool_]:
        if self.positive is not None:
            if not self.resolved:
                self.target = positive_value(self.positive, values, self.column)
                self.value, self.resolved = self.target, True
            target = self.target
            if values.dtype.kind == "O":
                return np.array([v == target or (isinstance(v, str) and v == str(target))
                                 for v in values.tolist()], dtype=bool)
            return np.asarray(values == target, dtype=bool)
        kind = values.dtype.kind
        if kind == "O" and all(isinstance(v, bool) for v in values.tolist()):
            values, kind = values.astype(bool), "b"
        if kind == "b":
            self.value = True if self.value is None else self.value
            return np.asarray(values, dtype=bool)
        if kind not in "iuf":
            raise labels_not_binary(self.column, self.name, values.astype(str))
        one = values == 1
        zero = values == 0
        if (zero | one).all():
            self.seen_zero = self.seen_zero or bool(zero.any())
        elif ((values == -1) | one).all():
            self.seen_minus_one = True
        else:
            raise labels_not_binary(self.column, self.name, values)
        if self.seen_zero and self.seen_minus_one:
            raise inconsistent_labels(self.column, self.name)
        self.value = 1
        return np.asarray(one, dtype=bool)


@dataclass
class Batch:
    positive: NDArray[np.bool_]
    weights: F64 | None
    scores: dict[str, NDArray[np.floating[Any]]]
    keep: dict[str, NDArray[np.bool_] | None]
    dropped: dict[str, dict[str, int]]


def _numbers(pa: Any, column: Any) -> NDArray[Any]:
    """A numeric column as NumPy without a copy when it has no nulls (float32 kept)."""
    if pa.types.is_floating(column.type) and column.null_count == 0:
        return np.asarray(column.to_numpy(zero_copy_only=False))
    return arrow_to_numpy(pa, column)


class BatchReader:
    """The batches of the input, checked: one place for every row-level rule."""

    def __init__(self, files: list[str], fmt: str, name: str, columns: Columns,
                 labels: LabelReader, drop_invalid: bool, batch_rows: int) -> None:
        self.files, self.fmt, self.name = files, fmt, name
        self.columns, self.labels = columns, labels
        self.drop_invalid, self.batch_rows = drop_invalid, batch_rows

    def batches(self, scores: Sequence[str], on_rows: RowsCallback | None = None
                ) -> Iterator[tuple[int, Batch]]:
        """(rows read so far, checked batch) for each batch, file by file."""
        pa = need("pyarrow", "files in batches")

        c = self.columns
        wanted = [c.label, *([c.weight] if c.weight else []),
                  *[s for s in scores if s not in (c.label, c.weight)]]
        dataset = open_dataset(self.files, self.fmt, [*c.scores, *([c.weight] if c.weight else [])])
        rows = 0
        for fragment, path in zip(dataset.get_fragments(), self.files, strict=False):
            first_row = 1
            try:
                # A few batches decoded ahead: overlap without holding a file in memory.
                stream = fragment.to_batches(schema=dataset.schema, columns=wanted,
                                             batch_size=self.batch_rows,
                                             batch_readahead=_READAHEAD, use_threads=True)
                for record in stream:
                    n = record.num_rows
                    if n == 0:
                        continue
                    batch = self._check(pa, record, scores, fragment.path or path, first_row)
                    first_row += n
                    rows += n
                    if on_rows is not None:
                        on_rows(n)
                    yield rows, batch
            except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
                raise unreadable_input(str(fragment.path or path), self.fmt,
                                                   str(error) or type(error).__name__
                                                   ) from None

    def _check(self, pa: Any, record: Any, scores: Sequence[str], path: str,
               first_row: int) -> Batch:
        c = self.columns
        n = record.num_rows

        def rows_of(mask: NDArray[np.bool_]) -> list[int]:
            return [r + first_row - 1 for r in first_rows(mask)]

        label_values = _numbers(pa, record.column(c.label))
        label_missing = missing_values(label_values)
        if label_missing.any():
            if not self.drop_invalid:
                raise missing_labels(c.label, path, int(label_missing.sum()),
                                                 rows_of(label_missing))
            positive = np.zeros(n, dtype=bool)
            positive[~label_missing] = self.labels.mask(label_values[~label_missing])
        else:
            positive = self.labels.mask(label_values)
        weights: F64 | None = None
        weight_missing = None
        if c.weight is not None:
            weights, bad = checked_scores(_numbers(pa, record.column(c.weight)))
            for reason, found in (("score_non_numeric", "non-numeric"),
                                  ("score_infinite", "infinite")):
                if bad[reason].any():
                    raise invalid_weights(c.weight, path, found,
                                                      rows_of(bad[reason]),
                                                      int(bad[reason].sum()))
            negative = weights < 0
            if negative.any():
                raise invalid_weights(c.weight, path, "negative",
                                                  rows_of(negative), int(negative.sum()))
            weight_missing = bad["score_missing_or_nan"]
            if weight_missing.any() and not self.drop_invalid:
                raise invalid_weights(c.weight, path, "missing or NaN",
                                                  rows_of(weight_missing),
                                                  int(weight_missing.sum()))
        out = Batch(positive, weights, {}, {}, {})
        for column in scores:
            values = _numbers(pa, record.column(column))
            if values.dtype.kind == "f":
                finite = np.isfinite(values)
                clean = bool(finite.all())
                floats: NDArray[np.floating[Any]] = values
                if not clean:
                    floats, bad = checked_scores(values)
            else:
                floats, bad = checked_scores(values)
                clean = not any(m.any() for m in bad.values())
            drop = None
            if not clean:
                invalid = (bad["score_missing_or_nan"] | bad["score_non_numeric"]
                           | bad["score_infinite"])
                if not self.drop_invalid:
                    raise invalid_scores(
                        column, path, int(bad["score_missing_or_nan"].sum()),
                        int(bad["score_non_numeric"].sum()), int(bad["score_infinite"].sum()),
                        rows_of(invalid))
                drop = invalid
                out.dropped[column] = {k: int(m.sum()) for k, m in bad.items() if m.any()}
            for reason, mask in (("label_missing", label_missing),
                                 ("weight_missing_or_nan", weight_missing)):
                if mask is not None and mask.any():
                    drop = mask if drop is None else drop | mask
                    out.dropped.setdefault(column, {})[reason] = int(mask.sum())
            out.scores[column] = floats
            out.keep[column] = None if drop is None else ~drop
        return out


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

"""Reading labels and scores from files: CSV, TSV, Parquet, JSON Lines and NumPy .npz.

Two stages, both pure input handling (no metric is computed here):

- :func:`read_table` reads a file into named NumPy columns. The tabular formats
  are parsed by pyarrow (``pyarrow.csv``, ``pyarrow.json``, ``pyarrow.parquet``),
  imported only when a file is read; ``.npz`` by NumPy without pickle.
- :func:`load_scores` picks the label, score and weight columns and checks
  them, so that every problem is reported with the file, the column, a count
  and the first row numbers (rows count from 1 at the first data row).

The format comes from the file name: ``.csv``, ``.tsv``/``.tab``,
``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` (each of the text formats also
compressed: ``.gz``, ``.bz2``, ``.zst``, ``.lz4``) and ``.npz``.

Examples
--------
>>> import os, tempfile
>>> from prcurve.io import load_scores
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "scores.csv")
>>> with open(path, "w") as f:
...     _ = f.write("y,model_a,model_b\\n1,0.9,0.2\\n0,0.4,0.7\\n1,0.6,0.1\\n")
>>> loaded = load_scores(path)
>>> loaded.label_column, loaded.label_chosen, [m.column for m in loaded.models]
('y', 'auto', ['model_a', 'model_b'])
>>> loaded.models[0].scores.tolist(), loaded.models[0].positive.tolist()
([0.9, 0.4, 0.6], [True, False, True])
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import check_choice
from prcurve.validation.files import (
    empty_input,
    invalid_scores,
    invalid_weights,
    labels_not_binary,
    missing_column,
    missing_file,
    missing_labels,
    no_label_column,
    no_positives,
    no_rows_left,
    no_score_columns,
    not_a_file,
    positive_not_found,
    ragged_npz,
    unknown_file_format,
    unreadable_input,
)
from prcurve.validation.labels import check_labels

__all__ = [
    "FORMATS",
    "LABEL_CANDIDATES",
    "LoadedInput",
    "RawTable",
    "ScoredColumn",
    "detect_format",
    "load_scores",
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
"""File name endings and the format each means."""

_COMPRESSION = (".gz", ".bz2", ".zst", ".lz4")
_TEXT_FORMATS = ("csv", "tsv", "jsonl")

LABEL_CANDIDATES: tuple[str, ...] = ("label", "y", "y_true", "target", "truth")
"""Label column names tried, in order, when none is given."""

RowsCallback = Callable[[int], None]
"""Called with the number of rows just read, or with -1 when a reader starts over."""

_FIRST_ROWS = 5  # how many row numbers an error message lists


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


@dataclass(frozen=True)
class ScoredColumn:
    """One model's checked data: the rows of one score column that are kept.

    ``scores`` are finite float64, ``positive`` marks the positive rows,
    ``weights`` is None or finite, non-negative float64. ``dropped`` counts
    the rows skipped by ``drop_invalid`` by reason (a row can have several
    reasons; ``rows_dropped`` counts each row once).
    """

    column: str
    scores: F64
    positive: NDArray[np.bool_]
    weights: F64 | None
    rows_dropped: int = 0
    dropped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadedInput:
    """One input file with its columns chosen and checked.

    ``label_chosen`` and ``scores_chosen`` are ``"option"`` when the user
    named the columns and ``"auto"`` when prcurve picked them (see
    :func:`load_scores`). ``skipped_columns`` are the columns neither used nor
    scored (not numeric).
    """

    path: str
    format: str
    n_rows: int
    label_column: str
    label_chosen: str
    positive_label: Any
    weight_column: str | None
    scores_chosen: str
    models: list[ScoredColumn]
    skipped_columns: list[str]


# -- formats ---------------------------------------------------------------------------


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


def _need(module: str, what: str) -> Any:
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


# -- reading ---------------------------------------------------------------------------


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
    pa = _need("pyarrow", "CSV and TSV files")
    pacsv = _need("pyarrow.csv", "CSV and TSV files")
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
    pa = _need("pyarrow", "Parquet files")
    pq = _need("pyarrow.parquet", "Parquet files")
    file = pq.ParquetFile(path)
    schema = file.schema_arrow
    return _arrow_columns(pa, _drain(file.iter_batches(batch_size=1 << 16), on_rows), schema)


def _read_jsonl(path: Path, on_rows: RowsCallback | None) -> dict[str, NDArray[Any]]:
    pa = _need("pyarrow", "JSON Lines files")
    pajson = _need("pyarrow.json", "JSON Lines files")
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
    pa = _need("pyarrow", "JSON Lines files")
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
    return {name: _arrow_to_numpy(pa, table.column(i)) for i, name in enumerate(table.column_names)}


def _arrow_to_numpy(pa: Any, column: Any) -> NDArray[Any]:
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


# -- choosing and checking columns ------------------------------------------------------


def _is_numeric(values: NDArray[Any]) -> bool:
    return values.dtype.kind in "iuf"


def _mostly_numbers(values: NDArray[Any]) -> bool:
    """A text column in which more than half the present values read as numbers."""
    if values.dtype.kind != "O":
        return False
    present = [v for v in values.tolist() if v is not None]
    if not present or not all(isinstance(v, (str, int, float)) for v in present):
        return False
    return int(np.count_nonzero(_parse_numbers(np.array(present, dtype=object))[1])) * 2 < len(
        present
    )


def _parse_numbers(values: NDArray[Any]) -> tuple[F64, NDArray[np.bool_]]:
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


def _missing(values: NDArray[Any]) -> NDArray[np.bool_]:
    if values.dtype.kind == "f":
        return np.asarray(np.isnan(values), dtype=bool)
    if values.dtype.kind == "O":
        return np.array(
            [v is None or (isinstance(v, float) and math.isnan(v)) for v in values.tolist()],
            dtype=bool,
        )
    return np.zeros(values.shape[0], dtype=bool)


def _first_rows(mask: NDArray[np.bool_]) -> list[int]:
    return [int(i) + 1 for i in np.flatnonzero(mask)[:_FIRST_ROWS]]


def _check_scores(values: NDArray[Any]) -> tuple[F64, dict[str, NDArray[np.bool_]]]:
    """Scores as float64 and the masks of missing/NaN, non-numeric and infinite rows."""
    if values.dtype.kind in "iufb":
        floats = values.astype(np.float64)
        non_numeric = np.zeros(values.shape[0], dtype=bool)
    else:
        floats, non_numeric = _parse_numbers(values.astype(object))
    missing = np.isnan(floats) & ~non_numeric
    infinite = np.isinf(floats)
    return floats, {
        "score_missing_or_nan": missing,
        "score_non_numeric": non_numeric,
        "score_infinite": infinite,
    }


def _positive_value(text: str, values: NDArray[Any], column: str) -> Any:
    """``--positive`` read in the type of the label column."""
    present = values[~_missing(values)]
    kind = values.dtype.kind
    try:
        if kind == "b" or (kind == "O" and all(isinstance(v, bool) for v in present.tolist())):
            lowered = text.strip().lower()
            if lowered not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return lowered in ("true", "1")
        if kind in "iu":
            number = float(text)
            return int(number) if number.is_integer() else number
        if kind == "f":
            return float(text)
    except ValueError:
        raise positive_not_found(text, column, present) from None
    return text


def _binarize(
    values: NDArray[Any], column: str, path: str, positive: str | None
) -> tuple[NDArray[np.bool_], Any]:
    """The positive mask of the present labels and the positive value (for the report)."""
    if positive is not None:
        target = _positive_value(positive, values, column)
        if values.dtype.kind == "O":
            mask = np.array([v == target or (isinstance(v, str) and v == str(target))
                             for v in values.tolist()], dtype=bool)
        else:
            mask = np.asarray(values == target, dtype=bool)
        if not mask.any():
            raise positive_not_found(positive, column, values)
        return mask, target
    kind = values.dtype.kind
    if kind == "O":  # text labels need --positive, unless they are all booleans
        if all(isinstance(v, bool) for v in values.tolist()):
            values = values.astype(bool)
        else:
            raise labels_not_binary(column, path, values.astype(str))
    try:
        labels = check_labels("--label", values, None, allow_soft=False)
    except InvalidInputError:
        raise labels_not_binary(column, path, values) from None
    if labels.positive is None:  # allow_soft=False: hard labels only
        raise TypeError("check_labels returned soft labels with allow_soft=False")
    return labels.positive, True if kind == "b" else 1


def _choose_label(table: RawTable, label: str | None) -> tuple[str, str]:
    names = list(table.columns)
    if label is not None:
        if label not in table.columns:
            raise missing_column("--label", label, table.path, names)
        return label, "option"
    for candidate in LABEL_CANDIDATES:
        if candidate in table.columns:
            return candidate, "auto"
    lowered = {n.lower(): n for n in names}
    for candidate in LABEL_CANDIDATES:
        if candidate in lowered:
            return lowered[candidate], "auto"
    raise no_label_column(table.path, LABEL_CANDIDATES, names)


def _choose_scores(
    table: RawTable, scores: Sequence[str], used: set[str]
) -> tuple[list[str], str, list[str]]:
    names = list(table.columns)
    if scores:
        for column in scores:
            if column not in table.columns:
                raise missing_column("--score", column, table.path, names)
        return list(scores), "option", [n for n in names if n not in used and n not in scores]
    chosen = [
        n for n in names
        if n not in used and (_is_numeric(table.columns[n]) or _mostly_numbers(table.columns[n]))
    ]
    if not chosen:
        raise no_score_columns(table.path, names)
    return chosen, "auto", [n for n in names if n not in used and n not in chosen]


def load_scores(
    path: str | Path,
    *,
    label: str | None = None,
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    drop_invalid: bool = False,
    input_format: str | None = None,
    on_rows: RowsCallback | None = None,
) -> LoadedInput:
    """Read a file and check its label, score and weight columns.

    Parameters
    ----------
    path : str or Path
        A CSV, TSV, Parquet, JSON Lines or .npz file, one row per sample.
    label : str, optional
        The label column. If None, the first of ``LABEL_CANDIDATES``
        (label, y, y_true, target, truth) that exists, matched exactly and
        then ignoring case.
    scores : sequence of str
        The score columns, one per model. If empty, every other numeric
        column (and every text column most of whose values are numbers, so
        that a stray word is reported rather than the column skipped).
    weight : str, optional
        A column of non-negative sample weights.
    positive : str, optional
        The label value of the positive class, as text; it is read in the
        column's type. Needed unless the labels are booleans, {0, 1} or
        {-1, 1}.
    drop_invalid : bool, default False
        Skip rows with a missing, NaN, non-numeric or infinite score, a
        missing label or a missing weight (per model: each score column keeps
        its own valid rows) and count them, instead of failing.
    input_format : str, optional
        Overrides the format given by the file name.
    on_rows : callable, optional
        Progress callback, see :func:`read_table`.

    Returns
    -------
    LoadedInput

    Raises
    ------
    InvalidInputError
        With the file, the column, the problem and the fix: see
        docs/cli.md for every case.
    """
    table = read_table(path, input_format=input_format, on_rows=on_rows)
    names = list(table.columns)
    label_column, label_chosen = _choose_label(table, label)
    if weight is not None and weight not in table.columns:
        raise missing_column("--weight", weight, table.path, names)
    used = {label_column} | ({weight} if weight is not None else set())
    score_columns, scores_chosen, skipped = _choose_scores(table, scores, used)

    label_values = table.columns[label_column]
    label_missing = _missing(label_values)
    if label_missing.any() and not drop_invalid:
        raise missing_labels(label_column, table.path, int(label_missing.sum()),
                                         _first_rows(label_missing))
    present_labels = label_values[~label_missing]
    if present_labels.dtype.kind == "O" and all(
        isinstance(v, bool) for v in present_labels.tolist()
    ):
        present_labels = present_labels.astype(bool)
    positive_mask = np.zeros(table.n_rows, dtype=bool)
    mask, positive_label = _binarize(present_labels, label_column, table.path, positive)
    positive_mask[~label_missing] = mask
    if not mask.any():
        raise no_positives(label_column, table.path, present_labels)

    weights: F64 | None = None
    weight_missing = np.zeros(table.n_rows, dtype=bool)
    if weight is not None:
        weights, weight_bad = _check_scores(table.columns[weight])
        weight_missing = weight_bad["score_missing_or_nan"]
        for reason, found in (("score_non_numeric", "non-numeric"),
                              ("score_infinite", "infinite")):
            wrong = weight_bad[reason]
            if wrong.any():
                raise invalid_weights(weight, table.path, found, _first_rows(wrong),
                                                  int(wrong.sum()))
        negative = weights < 0
        if negative.any():
            raise invalid_weights(weight, table.path, "negative",
                                              _first_rows(negative), int(negative.sum()))
        if weight_missing.any() and not drop_invalid:
            raise invalid_weights(weight, table.path, "missing or NaN",
                                              _first_rows(weight_missing),
                                              int(weight_missing.sum()))

    models = []
    for column in score_columns:
        floats, bad = _check_scores(table.columns[column])
        invalid = bad["score_missing_or_nan"] | bad["score_non_numeric"] | bad["score_infinite"]
        if invalid.any() and not drop_invalid:
            raise invalid_scores(
                column, table.path, int(bad["score_missing_or_nan"].sum()),
                int(bad["score_non_numeric"].sum()), int(bad["score_infinite"].sum()),
                _first_rows(invalid),
            )
        reasons = {**bad, "label_missing": label_missing, "weight_missing_or_nan": weight_missing}
        drop = invalid | label_missing | weight_missing
        keep = ~drop
        if not keep.any():
            raise no_rows_left(column, table.path, table.n_rows)
        if not positive_mask[keep].any():
            raise no_positives(label_column, table.path, present_labels)
        models.append(
            ScoredColumn(
                column=column,
                scores=floats[keep],
                positive=positive_mask[keep],
                weights=None if weights is None else weights[keep],
                rows_dropped=int(drop.sum()),
                dropped={reason: int(m.sum()) for reason, m in reasons.items() if m.any()},
            )
        )
    return LoadedInput(
        path=table.path,
        format=table.format,
        n_rows=table.n_rows,
        label_column=label_column,
        label_chosen=label_chosen,
        positive_label=positive_label,
        weight_column=weight,
        scores_chosen=scores_chosen,
        models=models,
        skipped_columns=skipped,
    )

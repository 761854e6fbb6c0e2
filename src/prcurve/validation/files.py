"""Messages about input files, columns, output folders and command-line options,
and the checks of the streaming and Dask options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import describe_values


def _rows_text(rows: Sequence[int], total: int) -> str:
    shown = ", ".join(str(r) for r in rows)
    return f"row {shown}" if total == 1 else f"first at rows {shown}"


def _columns_text(found: Sequence[str]) -> str:
    return "[" + ", ".join(repr(c) for c in found) + "]"


def missing_file(path: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"no such file {path!r}",
        "check the path; a relative path starts at the current folder",
    )


def not_a_file(path: str) -> InvalidInputError:
    return InvalidInputError("INPUT", f"{path!r} is a folder, not a file",
                             "pass the file of scores inside it")


def unknown_file_format(path: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT",
        f"cannot tell the format of {path!r} from its name",
        f"use a file ending in {', '.join(known)}, or pass --input-format "
        "csv|tsv|parquet|jsonl|npz",
    )


def unreadable_input(path: str, file_format: str, reason: str) -> InvalidInputError:
    first_line = reason.strip().splitlines()[0] if reason.strip() else "unknown reason"
    return InvalidInputError(
        "INPUT", f"cannot read {path!r} as {file_format} ({first_line})",
        f"check that the file is valid {file_format}, or pass --input-format",
    )


def empty_input(path: str, detail: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} has no data ({detail})",
        "pass a file with at least one row of labels and scores",
    )


def ragged_npz(path: str, shapes: dict[str, tuple[int, ...]]) -> InvalidInputError:
    found = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
    return InvalidInputError(
        "INPUT", f"the arrays of {path!r} are not columns of one length ({found})",
        "save one 1-D array per column, all of the same length (np.savez(path, label=y, "
        "score=s))",
    )


def missing_column(option: str, column: str, path: str, found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        option, f"no column {column!r} in {path!r} (found {_columns_text(found)})",
        f"pass {option} with one of the columns found",
    )


def no_label_column(
    path: str, candidates: Sequence[str], found: Sequence[str]
) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"{path!r} has none of the usual label columns {', '.join(candidates)} "
        f"(found {_columns_text(found)})",
        "pass --label COL naming the column of true labels",
    )


def no_score_columns(path: str, found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "--score",
        f"{path!r} has no numeric column left to score once the label and weight are set "
        f"aside (found {_columns_text(found)})",
        "pass --score COL naming a column of model scores",
    )


def labels_not_binary(column: str, path: str, values: NDArray[Any]) -> InvalidInputError:
    desc = describe_values(values)
    shown = np.unique(values)
    example = str(shown[-1].item() if hasattr(shown[-1], "item") else shown[-1])
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} is not a 0/1 or boolean label: values {desc}",
        f"pass --positive VALUE naming the positive class (e.g. --positive {example}); "
        "every other value is negative",
    )


def positive_not_found(value: str, column: str, values: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "--positive",
        f"{value!r} does not occur in label column {column!r}, whose values are "
        f"{describe_values(values)}",
        "pass one of those values",
    )


def no_positives(column: str, path: str, values: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} has no positive sample (values "
        f"{describe_values(values)}), so recall and every AP are undefined",
        "check --label and --positive; the positive class must occur",
    )


def missing_labels(column: str, path: str, count: int, rows: Sequence[int]) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} has {count} missing label(s) "
        f"({_rows_text(rows, count)})",
        "fill them in, or pass --drop-invalid to skip those rows (the report counts them)",
    )


def invalid_scores(
    column: str, path: str, n_missing: int, n_non_numeric: int, n_infinite: int,
    rows: Sequence[int],
) -> InvalidInputError:
    parts = [
        f"{n_missing} NaN or missing" if n_missing else "",
        f"{n_non_numeric} non-numeric" if n_non_numeric else "",
        f"{n_infinite} infinite" if n_infinite else "",
    ]
    found = " and ".join(p for p in parts if p)
    total = n_missing + n_non_numeric + n_infinite
    return InvalidInputError(
        "--score",
        f"column {column!r} of {path!r} has {found} score(s) ({_rows_text(rows, total)})",
        "fix or remove those rows, or pass --drop-invalid to skip them (the report counts them)",
    )


def invalid_weights(column: str, path: str, found: str, rows: Sequence[int],
                    count: int) -> InvalidInputError:
    return InvalidInputError(
        "--weight",
        f"column {column!r} of {path!r} has {count} {found} weight(s) ({_rows_text(rows, count)})",
        "weights must be finite numbers >= 0; a missing weight is skipped with --drop-invalid",
    )


def no_rows_left(column: str, path: str, dropped: int) -> InvalidInputError:
    return InvalidInputError(
        "--drop-invalid",
        f"all {dropped} rows of {path!r} were invalid for column {column!r}, none is left",
        "fix the input; the messages without --drop-invalid list the bad rows",
    )


def unwritable_output(path: str, reason: str) -> InvalidInputError:
    return InvalidInputError("--out", f"cannot write to {path!r} ({reason})",
                             "choose a folder you can write to")


def bad_option(option: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(option, f"expected {expected}, found {value!r}",
                             f"pass {option} with {expected}")


def bad_fail_under(text: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "--fail-under",
        f"cannot read {text!r}",
        f"write METRIC=VALUE with VALUE a number and METRIC one of {', '.join(known)}",
    )


def metric_not_available(option: str, metric: str, why: str) -> InvalidInputError:
    return InvalidInputError(option, f"{metric} is not available ({why})",
                             "choose another metric or install the module it needs")


def check_max_distinct(name: str, value: Any) -> int | None:
    """The exact-state budget: an integer >= 1, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(
            name, f"expected an integer >= 1 or None, found {value!r}",
            "pass the largest number of distinct scores to keep exactly, e.g. 16777216",
        )
    return int(value)


def check_batch_rows(name: str, value: Any) -> int:
    """Rows per streamed batch: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(name, f"expected an integer >= 1, found {value!r}",
                                "pass the number of rows to read at a time, e.g. 1048576")
    return int(value)


def no_input_files(path: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} is a folder, not a file, and holds no file ending in "
        f"{', '.join(known)}",
        "pass a folder of CSV, TSV, Parquet or JSON Lines files, or the files themselves",
    )


def mixed_formats(formats: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"the files have different formats ({', '.join(sorted(set(formats)))})",
        "stream files of one format at a time",
    )


def cannot_stream(path: str, file_format: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} is {file_format}, which cannot be read in batches",
        "stream CSV, TSV, Parquet or JSON Lines files (an .npz file is read whole)",
    )


def inconsistent_labels(column: str, path: str) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} holds 1 with both 0 and -1 across its batches, "
        "so it is not one binary labelling",
        "pass --positive VALUE naming the positive class; every other value is negative",
    )


def not_a_dask_input(value: Any) -> InvalidInputError:
    return InvalidInputError(
        "data", f"expected a Dask DataFrame or the path of Parquet data, found "
        f"{type(value).__name__}",
        "pass dask.dataframe.read_parquet(...) or a path to Parquet files",
    )


def dask_missing_columns(missing: Sequence[str], found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "data", f"no column(s) {list(missing)} (found {list(found)})",
        "pass label=, score= and weight= naming columns of the data",
    )


def dask_options_conflict() -> InvalidInputError:
    return InvalidInputError("--dask", "given together with --workers",
                             "pass --dask ADDRESS for an existing cluster or --workers N "
                             "for a local one, not both")


def check_workers(value: Any) -> int:
    """Local Dask workers for ``--workers``: an integer >= 1."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(number) != str(value).strip():
        raise InvalidInputError("--workers", f"expected an integer >= 1, found {value!r}",
                                "pass the number of local worker processes, e.g. 2")
    return number


def unsupported_with_dask(option: str) -> InvalidInputError:
    return InvalidInputError(option, "is not supported with --dask or --workers",
                             f"clean the data first, or run without --dask/--workers to use "
                             f"{option} (streaming on one machine supports it)")


def dask_needs_parquet(path: str, file_format: str) -> InvalidInputError:
    return InvalidInputError("INPUT", f"{path!r} is {file_format}; --dask and --workers read "
                             "Parquet", "convert the data to Parquet, or run without --dask "
                             "to stream it on this machine")


def not_a_spark_frame(value: Any) -> InvalidInputError:
    return InvalidInputError(
        "frame", f"expected a Spark DataFrame, found {type(value).__name__}",
        "pass spark.read.parquet(...), spark.table(...) or another pyspark.sql.DataFrame",
    )


def error_in_partition(argument: str, message: str) -> InvalidInputError:
    """An input error raised while a Spark task read its partition, with its message
    (argument, what was found and the fix, and the partition) kept as it was."""
    error = InvalidInputError(argument, "x", "x")
    error.args = (message,)
    return error

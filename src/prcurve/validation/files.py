"""Messages about input files, columns, output folders and command-line options,
and the checks of the streaming and Dask options."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
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


def several_label_columns(path: str, found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"{path!r} has more than one of the usual label columns ({_columns_text(found)})",
        "pass --label COL naming the column of true labels (the others are then scored as "
        "models unless --score names the score columns)",
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
    try:
        shown = np.unique(values)
    except TypeError:  # mixed, unorderable values (numbers and text)
        shown = np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    last = shown[-1] if shown.shape[0] else "VALUE"
    example = str(last.item() if hasattr(last, "item") else last)
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} is not a 0/1 or boolean label: values {desc}",
        f"pass --positive VALUE naming the positive class (e.g. --positive {example}); "
        "every other value is negative (or give one score column per class, named after "
        "it, for a report per class: docs/cli.md, multi-class inputs)",
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


def duplicate_column(path: str, column: str, where: str = "") -> InvalidInputError:
    """Two columns of one name; ``where`` says where (a JSON Lines line)."""
    return InvalidInputError(
        "INPUT", f"{path!r} has more than one column named {column!r}{where}",
        "rename the columns so that each name occurs once; prcurve does not guess which "
        "one is meant",
    )


def column_in_two_roles(column: str, first: str, second: str) -> InvalidInputError:
    """A column named for two roles: ``first`` and ``second`` are option names (--label ...)."""
    if first == second:
        return InvalidInputError(second, f"column {column!r} is given twice",
                                 f"name each column once with {second}")
    return InvalidInputError(
        second, f"column {column!r} is given as both {first} and {second}",
        f"a column can have one role: choose another column for {second} (or for {first})",
    )


def check_distinct_labels(labels: Sequence[str]) -> None:
    """Refuse a label column given twice (``--label y --label y``), as docs/cli.md says."""
    seen: set[str] = set()
    for column in labels:
        if column in seen:
            raise column_in_two_roles(column, "--label", "--label")
        seen.add(column)


def label_column_in_two_roles(column: str, chosen: str, option: str) -> InvalidInputError:
    """The label column, found automatically (``chosen == "auto"``), named again by ``option``."""
    if chosen == "auto":
        return InvalidInputError(
            option, f"column {column!r} is the label column (found automatically) and is also "
            f"given with {option}",
            f"name another column with {option}, or pass --label naming another label column",
        )
    return column_in_two_roles(column, "--label", option)


def labels_not_text(column: str, path: str, count: int, rows: Sequence[int],
                    example: bytes) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} has {count} label(s) that are not UTF-8 text "
        f"({_rows_text(rows, count)}: {example[:20]!r})",
        "save the file as UTF-8 (for example iconv -f latin1 -t utf-8 IN > OUT)",
    )


def not_single_values(option: str, column: str, path: str, count: int, rows: Sequence[int],
                      found: str, where: str = "") -> InvalidInputError:
    """List or object values where one value per row is expected (``where``: "line 5")."""
    what = {"--label": "label", "--weight": "weight", "--score": "score"}.get(option, "value")
    at = where or _rows_text(rows, count)
    kinds = {"label": "a number, a boolean or a string", "value": "a number, a boolean or a "
             "string"}.get(what, "a number")
    return InvalidInputError(
        option,
        f"column {column!r} of {path!r} holds {count} {found} value(s) ({at}) where one "
        f"{what} per row is expected",
        f"write one {what} per row, as {kinds}",
    )


def zero_total_weight(column: str, path: str, positives_only: bool) -> InvalidInputError:
    if positives_only:
        return InvalidInputError(
            "--weight",
            f"every positive row of {path!r} has weight 0 in column {column!r} (the positive "
            "weights sum to 0), so recall and every AP are undefined",
            "check --weight and --positive; some positive row needs a weight > 0",
        )
    return InvalidInputError(
        "--weight", f"the weights in column {column!r} of {path!r} sum to 0 (every kept row has "
        "weight 0), so no rate is defined",
        "check --weight; some rows need a weight > 0",
    )


def out_overlaps_input(out: str, source: str, how: str) -> InvalidInputError:
    """``--out`` that ``how`` ("is", "holds", "is inside") the input ``source``."""
    return InvalidInputError(
        "--out", f"the output folder {out!r} {how} the input {source!r}",
        "choose an output folder that neither holds nor is inside an input, so that no input "
        "is written into or over",
    )


def out_replaces_input(target: str, source: str) -> InvalidInputError:
    return InvalidInputError(
        "--out", f"writing {target!r} would replace the input {source!r} (the same file)",
        "choose an output folder that holds no input or link to one",
    )


def check_out_folder(out: str | Path, inputs: Sequence[str | Path]) -> None:
    """Refuse an output folder that is, holds or is inside an input file or folder.

    Paths are compared resolved (links followed) and, for what exists, by
    ``os.path.samefile``, so that no output can be written into or over an input.
    """
    folder = Path(out).resolve()
    for source in inputs:
        path = Path(source)
        if not path.exists():
            continue
        real = path.resolve()
        same = real == folder or (folder.exists() and os.path.samefile(folder, real))
        if same:
            raise out_overlaps_input(str(out), str(source), "is")
        if real.is_dir() and folder.is_relative_to(real):
            raise out_overlaps_input(str(out), str(source), "is inside")
        if real.is_relative_to(folder):
            raise out_overlaps_input(str(out), str(source), "holds")


def check_not_an_input(target: str | Path, inputs: Sequence[str | Path]) -> None:
    """Refuse to write ``target`` when it is (or links to, or lies inside) an input."""
    path = Path(target)
    if not (path.exists() or path.is_symlink()):
        return
    real = path.resolve()
    for source in inputs:
        input_path = Path(source)
        if not input_path.exists():
            continue
        input_real = input_path.resolve()
        if (real == input_real or (input_real.is_dir() and real.is_relative_to(input_real))
                or (path.exists() and os.path.samefile(path, input_real))):
            raise out_replaces_input(str(target), str(source))


def dask_unreachable(address: str, reason: str) -> InvalidInputError:
    return InvalidInputError(
        "--dask", f"cannot reach a Dask scheduler at {address!r} ({reason})",
        "check the address (tcp://HOST:PORT, as `dask scheduler` prints it) and that the "
        "scheduler is running, or pass --workers N to start a local cluster",
    )


def gate_out_of_range(text: str, metric: str, low: float, high: float) -> InvalidInputError:
    return InvalidInputError(
        "--fail-under",
        f"{text!r} can never be met or never fail: {metric} lies in [{low:g}, {high:g}]",
        f"pass a VALUE in [{low:g}, {high:g}]",
    )


def changed_type(path: str, column: str, where: str, value: str, expected: str,
                 streamed: bool) -> InvalidInputError:
    """A value of another type than the column's earlier values (``where``: "row 5", "line 5")."""
    fix = ("fix that value, or read the file without --stream (in memory a column's type comes "
           "from all its rows)" if streamed else "fix that value")
    return InvalidInputError(
        "INPUT", f"column {column!r} of {path!r} holds {value} at {where}, where the values "
        f"before it are {expected}", fix,
    )


def no_positives_left(column: str, path: str) -> InvalidInputError:
    return InvalidInputError(
        "--drop-invalid",
        f"every positive row of {path!r} was skipped for column {column!r} (an invalid value), "
        "so recall and every AP are undefined for it",
        "fix the input; the messages without --drop-invalid list the bad rows",
    )


def unwritable_output(path: str, reason: str, argument: str = "--out") -> InvalidInputError:
    return InvalidInputError(argument, f"cannot write to {path!r} ({reason})",
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


def inexact_scores(column: str, path: str, count: int, rows: list[int],
                   example: str) -> InvalidInputError:
    """Integer scores beyond 2^53 that float64 would round (and might tie)."""
    where = ", ".join(map(str, rows))
    return InvalidInputError(
        "--score", f"column {column!r} of {path!r} has {count} integer score(s) beyond 2^53 "
        f"that float64, in which prcurve computes, cannot hold exactly (first at rows "
        f"{where}: {example}), so distinct scores could tie",
        "subtract a common offset from the scores (exact while their range is below 2^53) "
        "or store their ranks; neither changes the curve or the AP",
    )


def positive_rounded(value: str, column: str, path: str) -> InvalidInputError:
    """``--positive`` an integer that float64 cannot hold, against a column of float64
    labels (a CSV read in batches types integers beyond int64 as float64): comparing
    it would match every label rounded to the same float."""
    return InvalidInputError(
        "--positive", f"{value} is an integer beyond float64's exact range (2^53), but "
        f"label column {column!r} of {path!r} was read as float64 numbers, so labels that "
        "differ from it would compare equal",
        "run without --stream (CSV and JSON Lines labels beyond int64 are then read "
        "exactly), or store the labels as text (e.g. a Parquet string column)",
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


def workers_lost(option: str, what: str) -> InvalidInputError:
    """Worker processes that ended before returning their results (killed for memory, or
    a Dask cluster that lost its workers): one line, never a wait for ever."""
    return InvalidInputError(
        option, what,
        "a worker may have run out of memory: check the machine's free memory (and the "
        "cluster's worker logs), or run with fewer workers, or without them",
    )


def dask_partition_error(partition: int, first_row: int, message: str) -> InvalidInputError:
    """A library error met in one partition; its row numbers count within the partition."""
    return InvalidInputError(
        "data", f"in partition {partition}, which starts at row {first_row} of the data: "
        f"{message.rstrip('.')}",
        "fix those rows (an index in the message counts from 0 within the partition)",
    )


def dask_needs_parquet(path: str, file_format: str) -> InvalidInputError:
    return InvalidInputError("INPUT", f"{path!r} is {file_format}; --dask and --workers read "
                             "Parquet", "convert the data to Parquet, or run without --dask "
                             "to stream it on this machine")


def no_class_average(option: str, metric: str) -> InvalidInputError:
    """A class-average gate (``macro_ap`` ...) on a report with no multi-class model."""
    return InvalidInputError(
        option, f"{metric} is an average over the classes of a multi-class or multi-label "
        "input, and this report has none",
        "gate a binary model's AP with ap=VALUE, or give a label column with more than two "
        "classes and one score column per class")


def no_class_columns(column: str, path: str, classes: Sequence[str],
                     found: Sequence[str]) -> InvalidInputError:
    """A multi-class label column whose classes have no score column each."""
    shown = ", ".join(classes[:12]) + (", ..." if len(classes) > 12 else "")
    example = " ".join(f"--score p_{c}" for c in classes[:2]) + " ..."
    return InvalidInputError(
        "--score",
        f"column {column!r} of {path!r} holds {len(classes)} classes ({shown}) and no score "
        f"column is named after each class (found {_columns_text(found)})",
        "name one score column after each class (e.g. p_<class>), or pass --score once per "
        f"class in the classes' sorted order ({example}); or pass --positive VALUE to score "
        "one class against the rest",
    )


def no_label_score_pairs(labels: Sequence[str], path: str,
                         found: Sequence[str]) -> InvalidInputError:
    """Several label columns (multi-label) that no score columns pair with."""
    return InvalidInputError(
        "--score",
        f"{len(labels)} label columns ({', '.join(labels)}) of {path!r} and no score column "
        f"named like each of them (found {_columns_text(found)})",
        "pass --score once per --label, in the same order, or name the score columns like "
        "the label columns (y_cat and p_cat)",
    )


def classes_in_memory_only(option: str, value: str) -> InvalidInputError:
    """A multi-class or multi-label option with --stream, --dask or --workers."""
    return InvalidInputError(
        option, f"{value} is a multi-class or multi-label input, which is read in memory",
        "leave out --stream, --dask and --workers (streamed and Dask inputs are binary)")


def classes_need_exact(option: str) -> InvalidInputError:
    """--bins with a multi-class or multi-label input."""
    return InvalidInputError(
        option, "is not supported for a multi-class or multi-label input",
        "leave out --bins: each class's curve is exact, as prcurve.pr_curve gives it for a "
        "score matrix")


def frame_only_options(argument: str) -> InvalidInputError:
    """``prcurve.report`` options that name columns, given with arrays."""
    if argument == "pos_label":
        return InvalidInputError(
            argument, "is for a data frame's label column here, and y_true is an array",
            "pass labels of 1/True for the positive class (e.g. y_true == 'cat'), or a data "
            "frame with its label column")
    return InvalidInputError(
        argument, "names a column or a row rule of a data frame, and y_true is not one",
        f"pass y_true as a pandas or polars DataFrame (or a pyarrow Table) to use {argument}, "
        "or leave it out for arrays")


def frame_column_names(argument: str, value: Any) -> InvalidInputError:
    """With a data frame, ``y_score`` and ``sample_weight`` name columns."""
    return InvalidInputError(
        argument, f"with a data frame, expected a column name or a list of them, found "
        f"{type(value).__name__}", f"pass {argument}='column' (or a list of column names)")
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

"""Choosing and checking the label, score and weight columns of an input file.

:func:`load_scores` reads a file (:func:`prcurve.io.readers.read_table`), picks
the label, score and weight columns and checks them, so that every problem is
reported with the file, the column, a count and the first row numbers (rows
count from 1 at the first data row). No metric is computed here.

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

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.io.readers import (
    RawTable,
    RowsCallback,
    is_numeric,
    mostly_numbers,
    parse_numbers,
    read_table,
)
from prcurve.validation.files import (
    invalid_scores,
    invalid_weights,
    labels_not_binary,
    missing_column,
    missing_labels,
    no_label_column,
    no_positives,
    no_rows_left,
    no_score_columns,
    positive_not_found,
)
from prcurve.validation.labels import check_labels

__all__ = [
    "LABEL_CANDIDATES",
    "LoadedInput",
    "ScoredColumn",
    "checked_scores",
    "first_rows",
    "load_scores",
    "missing_values",
    "positive_value",
]

F64 = NDArray[np.float64]

LABEL_CANDIDATES: tuple[str, ...] = ("label", "y", "y_true", "target", "truth")


_FIRST_ROWS = 5  # how many row numbers an error message lists


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


def missing_values(values: NDArray[Any]) -> NDArray[np.bool_]:
    if values.dtype.kind == "f":
        return np.asarray(np.isnan(values), dtype=bool)
    if values.dtype.kind == "O":
        return np.array(
            [v is None or (isinstance(v, float) and math.isnan(v)) for v in values.tolist()],
            dtype=bool,
        )
    return np.zeros(values.shape[0], dtype=bool)


def first_rows(mask: NDArray[np.bool_]) -> list[int]:
    return [int(i) + 1 for i in np.flatnonzero(mask)[:_FIRST_ROWS]]


def checked_scores(values: NDArray[Any]) -> tuple[F64, dict[str, NDArray[np.bool_]]]:
    """Scores as float64 and the masks of missing/NaN, non-numeric and infinite rows."""
    if values.dtype.kind in "iufb":
        floats = values.astype(np.float64)
        non_numeric = np.zeros(values.shape[0], dtype=bool)
    else:
        floats, non_numeric = parse_numbers(values.astype(object))
    missing = np.isnan(floats) & ~non_numeric
    infinite = np.isinf(floats)
    return floats, {
        "score_missing_or_nan": missing,
        "score_non_numeric": non_numeric,
        "score_infinite": infinite,
    }


def positive_value(text: str, values: NDArray[Any], column: str) -> Any:
    """``--positive`` read in the type of the label column."""
    present = values[~missing_values(values)]
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
        target = positive_value(positive, values, column)
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
        if n not in used and (is_numeric(table.columns[n]) or mostly_numbers(table.columns[n]))
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
    label_missing = missing_values(label_values)
    if label_missing.any() and not drop_invalid:
        raise missing_labels(label_column, table.path, int(label_missing.sum()),
                                         first_rows(label_missing))
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
        weights, weight_bad = checked_scores(table.columns[weight])
        weight_missing = weight_bad["score_missing_or_nan"]
        for reason, found in (("score_non_numeric", "non-numeric"),
                              ("score_infinite", "infinite")):
            wrong = weight_bad[reason]
            if wrong.any():
                raise invalid_weights(weight, table.path, found, first_rows(wrong),
                                                  int(wrong.sum()))
        negative = weights < 0
        if negative.any():
            raise invalid_weights(weight, table.path, "negative",
                                              first_rows(negative), int(negative.sum()))
        if weight_missing.any() and not drop_invalid:
            raise invalid_weights(weight, table.path, "missing or NaN",
                                              first_rows(weight_missing),
                                              int(weight_missing.sum()))

    models = []
    for column in score_columns:
        floats, bad = checked_scores(table.columns[column])
        invalid = bad["score_missing_or_nan"] | bad["score_non_numeric"] | bad["score_infinite"]
        if invalid.any() and not drop_invalid:
            raise invalid_scores(
                column, table.path, int(bad["score_missing_or_nan"].sum()),
                int(bad["score_non_numeric"].sum()), int(bad["score_infinite"].sum()),
                first_rows(invalid),
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

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

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.readers import RawTable, RowsCallback, read_table
from prcurve.io.rows import (
    LabelRule,
    RowProblem,
    check_block,
    check_weight_totals,
    normalize_labels,
)
from prcurve.io.text import is_numeric, mostly_numbers
from prcurve.validation.csv_text import decimal_comma_columns, looks_like_decimal_commas
from prcurve.validation.files import (
    column_in_two_roles,
    label_column_in_two_roles,
    missing_column,
    no_label_column,
    no_positives,
    no_positives_left,
    no_rows_left,
    no_score_columns,
    positive_not_found,
    several_label_columns,
)

__all__ = [
    "LABEL_CANDIDATES",
    "LoadedInput",
    "ScoredColumn",
    "check_roles",
    "choose_label",
    "choose_scores",
    "load_scores",
    "scores_of_table",
]

F64 = NDArray[np.float64]

LABEL_CANDIDATES: tuple[str, ...] = ("label", "y", "y_true", "target", "truth")




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

# -- choosing the columns ----------------------------------------------------------------------


def check_roles(label: str, label_chosen: str, weight: str | None, scores: Sequence[str],
                scores_chosen: str) -> None:
    """Each column has one role: the label is not a score or the weight, no score is named
    twice (scoring the labels would report AP = 1 silently)."""
    if weight is not None and weight == label:
        raise label_column_in_two_roles(label, label_chosen, "--weight")
    seen: set[str] = set()
    for column in scores:
        if column == label:
            raise label_column_in_two_roles(label, label_chosen, "--score")
        if column == weight:
            raise column_in_two_roles(column, "--weight", "--score")
        if column in seen and scores_chosen == "option":
            raise column_in_two_roles(column, "--score", "--score")
        seen.add(column)


def choose_label(path: str, names: Sequence[str], label: str | None) -> tuple[str, str]:
    """The label column and how it was chosen ("option" or "auto")."""
    if label is not None:
        if label not in names:
            raise missing_column("--label", label, path, names)
        return label, "option"
    found = [n for n in names if n.lower() in LABEL_CANDIDATES]
    if len(found) > 1:  # which holds the labels is a guess, and the other would be scored
        raise several_label_columns(path, found)
    if found:
        return found[0], "auto"
    raise no_label_column(path, LABEL_CANDIDATES, names)


def choose_scores(
    table: RawTable, scores: Sequence[str], used: set[str]
) -> tuple[list[str], str, list[str]]:
    """The score columns, how they were chosen ("option" or "auto") and the columns skipped.

    ``scores`` named by the user, or every column not in ``used`` that holds
    numbers (or mostly numbers, so that a stray word is reported, not skipped).
    """
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
        refuse_decimal_commas(table.path, {n: table.columns[n] for n in names if n not in used})
        raise no_score_columns(table.path, names)
    return chosen, "auto", [n for n in names if n not in used and n not in chosen]


def refuse_decimal_commas(path: str, columns: dict[str, NDArray[Any]]) -> None:
    """No numeric score column: say so if some text columns hold decimal-comma numbers."""
    found = {}
    for name, values in columns.items():
        if values.dtype.kind == "O":
            first = [v for v in values[:1000].tolist() if v is not None][:20]
            if looks_like_decimal_commas(first):
                found[name] = first
    if found:
        raise decimal_comma_columns(path, list(found), next(iter(found.values())))


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
    delimiter: str | None = None,
    decimal: str = ".",
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
        {-1, 1} (as numbers or as their text).
    drop_invalid : bool, default False
        Skip rows with a missing, NaN, non-numeric or infinite score, a
        missing label or a missing weight (per model: each score column keeps
        its own valid rows) and count them, instead of failing.
    input_format : str, optional
        Overrides the format given by the file name.
    on_rows : callable, optional
        Progress callback, see :func:`read_table`.
    delimiter, decimal : str, optional
        CSV and TSV from other locales: the character between fields (by default
        sniffed: ``,`` or tab, else ``;``, tab or ``|``) and the decimal mark
        (``","`` for ``0,93``); see :func:`read_table`.

    Returns
    -------
    LoadedInput

    Raises
    ------
    InvalidInputError
        With the file, the column, the problem and the fix: see
        docs/cli.md for every case. Without ``label``, a file with more than one
        of the usual label columns is refused (which one holds the labels would
        be a guess, and the other would be scored as a model). A missing
        label (an empty field, null, NA, blank text) is never read as a label
        value; a column named for two roles (``scores=["label"]``) and weights
        that sum to 0 are refused.
    """
    table = read_table(path, input_format=input_format, on_rows=on_rows, delimiter=delimiter,
                       decimal=decimal)
    return scores_of_table(table, label=label, scores=scores, weight=weight, positive=positive,
                           drop_invalid=drop_invalid)


def scores_of_table(
    table: RawTable,
    *,
    label: str | None = None,
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    drop_invalid: bool = False,
) -> LoadedInput:
    """:func:`load_scores` of a table already read (the same parameters)."""
    names = list(table.columns)
    label_column, label_chosen = choose_label(table.path, names, label)
    if weight is not None and weight not in table.columns:
        raise missing_column("--weight", weight, table.path, names)
    used = {label_column} | ({weight} if weight is not None else set())
    if scores:
        check_roles(label_column, label_chosen, weight, scores, "option")
    score_columns, scores_chosen, skipped = choose_scores(table, scores, used)
    check_roles(label_column, label_chosen, weight, score_columns, scores_chosen)

    rule = LabelRule(label_column, positive)
    try:
        block = check_block(
            table.labels(label_column), rule,
            None if weight is None else table.columns[weight], weight,
            {column: table.columns[column] for column in score_columns}, drop_invalid)
    except RowProblem as problem:
        raise problem.error(table.path) from None
    if not block.positive.any():
        present = normalize_labels(table.labels(label_column), label_column)[0]
        if positive is not None:
            raise positive_not_found(positive, label_column, present)
        raise no_positives(label_column, table.path, present)

    models = []
    for column in score_columns:
        keep = block.keep[column]
        kept = slice(None) if keep is None else keep
        if keep is not None and not keep.any():
            raise no_rows_left(column, table.path, table.n_rows)
        scores_kept = np.asarray(block.scores[column], dtype=np.float64)[kept]
        positive_kept = block.positive[kept]
        weights_kept = None if block.weights is None else block.weights[kept]
        if not positive_kept.any():  # every positive row dropped for this column
            raise no_positives_left(column, table.path)
        if weights_kept is not None:
            check_weight_totals(weight, table.path, float(weights_kept[positive_kept].sum()),
                                float(weights_kept.sum()))
        dropped = block.dropped.get(column, {})
        models.append(
            ScoredColumn(
                column=column,
                scores=scores_kept,
                positive=positive_kept,
                weights=weights_kept,
                rows_dropped=0 if keep is None else int(np.count_nonzero(~keep)),
                dropped=dict(dropped),
            )
        )
    return LoadedInput(
        path=table.path,
        format=table.format,
        n_rows=table.n_rows,
        label_column=label_column,
        label_chosen=label_chosen,
        positive_label=rule.value,
        weight_column=weight,
        scores_chosen=scores_chosen,
        models=models,
        skipped_columns=skipped,
    )

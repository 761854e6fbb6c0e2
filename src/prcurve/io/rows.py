"""Every row rule, for a block of rows: one place for the in-memory, streamed and Dask paths.

A block is a whole file read in memory (:func:`prcurve.io.load_scores`), a
streamed batch (:mod:`prcurve.io.batches`) or a Dask partition
(:mod:`prcurve.io.dask`). :func:`check_block` checks its label, weight and
score columns with the same rules everywhere:

- a missing label (NaN, null, an empty or blank text) is never read as a label
  value: it is a problem, or dropped and counted with ``drop_invalid``;
- labels are booleans, {0, 1} or {-1, 1} (as numbers or as the text of
  integers), or compared with ``--positive`` read in the column's type;
  :class:`LabelRule` keeps this one rule across blocks;
- a list or object where one value is expected, or bytes that are not UTF-8,
  are named with their rows;
- scores must be finite numbers, weights finite numbers >= 0.

A problem is a :class:`RowProblem` with the block's own row indices; its
:meth:`~RowProblem.error` is the one-line message with the file and the row
numbers. No metric is computed here.

Examples
--------
>>> import numpy as np
>>> from prcurve.io.rows import LabelRule, RowProblem, check_block
>>> labels = np.array(["a", "b", None, "a"], dtype=object)
>>> scores = {"s": np.array([0.9, 0.8, 0.7, 0.1])}
>>> try:
...     check_block(labels, LabelRule("label", "a"), None, None, scores, drop_invalid=False)
... except RowProblem as problem:
...     print(str(problem.error("s.csv")).split(". ")[0])
--label: column 'label' of 's.csv' has 1 missing label(s) (row 3)
>>> block = check_block(labels, LabelRule("label", "a"), None, None, scores, drop_invalid=True)
>>> block.positive.tolist(), block.keep["s"].tolist(), block.dropped
([True, False, False, True], [True, True, False, True], {'s': {'label_missing': 1}})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.label_rows import (
    LabelRule,
    Labels,
    coded_labels,
    label_kind,
    normalize_labels,
    positive_value,
)
from prcurve.io.row_problems import RowProblem, first_rows, kind_name, missing_values
from prcurve.io.text import parse_numbers
from prcurve.validation.arrays import inexact_integers
from prcurve.validation.csv_text import looks_like_decimal_commas
from prcurve.validation.files import zero_total_weight

__all__ = ["CheckedBlock", "LabelRule", "RowProblem", "check_block", "check_weight_totals",
           "checked_scores", "coded_labels", "first_rows", "label_kind", "missing_values",
           "normalize_labels", "positive_value"]

F64 = NDArray[np.float64]


# -- scores and weights ----------------------------------------------------------------------


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


@dataclass
class CheckedBlock:
    """A block of rows, checked: which rows are positive, the weights, each column's scores.

    ``keep[column]`` is None when every row is kept, else the mask of the rows
    kept for that column (``drop_invalid``); ``dropped[column]`` counts the
    dropped rows by reason (a row may have several).
    """

    positive: NDArray[np.bool_]
    weights: F64 | None
    scores: dict[str, NDArray[np.floating[Any]]]
    keep: dict[str, NDArray[np.bool_] | None]
    dropped: dict[str, dict[str, int]]


def refuse_rounded_integers(column: str, floats: NDArray[Any]) -> None:
    """Integer scores that a CSV read in batches took as float64 (its type comes from the
    first block): beyond 2^53 they may already be rounded, and are refused."""
    with np.errstate(invalid="ignore"):
        beyond = np.abs(floats) > 2.0**53
    if beyond.any():
        value = float(floats[int(np.flatnonzero(beyond)[0])])
        raise RowProblem.of("scores_inexact", column, beyond, detail=(
            f"read as {value:.17g}: a CSV read in batches takes integer scores as float64; "
            "read it without --stream for an exact check"))


def check_block(labels: Labels, rule: LabelRule, weights: NDArray[Any] | None,
                weight_column: str | None, scores: Mapping[str, NDArray[Any]],
                drop_invalid: bool) -> CheckedBlock:
    """Every row rule, for a block of rows: one place for the in-memory, streamed and Dask paths.

    Missing labels, missing weights and missing, NaN, non-numeric or infinite
    scores are a :class:`RowProblem`, or (``drop_invalid``) dropped and
    counted; bad label values, and non-numeric, infinite or negative weights,
    are always a problem.
    """
    n = labels.shape[0]
    present, label_missing = coded_labels(labels, rule.column)  # text as codes
    if label_missing.any() and not drop_invalid:
        raise RowProblem.of("label_missing", rule.column, label_missing)
    if label_missing.any():
        positive = np.zeros(n, dtype=bool)
        positive[~label_missing] = rule.mask(present)
    else:
        positive = rule.mask(present)
    checked_weights: F64 | None = None
    weight_missing = None
    if weights is not None and weight_column is not None:
        if weights.dtype.kind == "O":
            _refuse_lists(weights, "--weight", weight_column)
        checked_weights, bad = checked_scores(weights)
        for reason, found in (("score_non_numeric", "non-numeric"),
                              ("score_infinite", "infinite")):
            if bad[reason].any():
                raise RowProblem.of("weights", weight_column, bad[reason], detail=found)
        negative = checked_weights < 0
        if negative.any():
            raise RowProblem.of("weights", weight_column, negative, detail="negative")
        weight_missing = bad["score_missing_or_nan"]
        if weight_missing.any() and not drop_invalid:
            raise RowProblem.of("weights", weight_column, weight_missing,
                                detail="missing or NaN")
    out = CheckedBlock(positive, checked_weights, {}, {}, {})
    for column, values in scores.items():
        if values.dtype.kind == "f":
            clean = bool(np.isfinite(values).all())
            floats: NDArray[np.floating[Any]] = values
            if not clean:
                floats, bad = checked_scores(values)
        else:
            inexact = inexact_integers(values)  # 64-bit integers that float64 would round
            if inexact is not None and inexact.any():
                value = int(values[int(np.flatnonzero(inexact)[0])])
                raise RowProblem.of("scores_inexact", column, inexact,
                                    detail=f"{value}, which float64 rounds to {int(float(value))}")
            floats, bad = checked_scores(values)
            clean = not any(m.any() for m in bad.values())
        drop = None
        if not clean:
            invalid = (bad["score_missing_or_nan"] | bad["score_non_numeric"]
                       | bad["score_infinite"])
            # Decimal commas read with a decimal point are text: said so (--decimal ,), also
            # under drop_invalid when they are the whole block (dropping would leave nothing).
            examples = _decimal_commas(values, bad["score_non_numeric"])
            if not drop_invalid or (examples and bool(invalid.all())):
                raise RowProblem.of(
                    "scores", column, bad["score_non_numeric"] if examples else invalid,
                    int(bad["score_missing_or_nan"].sum()),
                    int(bad["score_non_numeric"].sum()), int(bad["score_infinite"].sum()),
                    detail=examples)
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


def _decimal_commas(values: NDArray[Any], non_numeric: NDArray[np.bool_]) -> tuple[Any, ...]:
    """The first non-numeric values if they read as numbers with a decimal comma, else ()."""
    first = tuple(values[np.flatnonzero(non_numeric)[:3]].tolist())
    return first if looks_like_decimal_commas(first) else ()


def _refuse_lists(values: NDArray[Any], option: str, column: str) -> None:
    nested = np.array([isinstance(v, (list, tuple, dict)) for v in values.tolist()], dtype=bool)
    if nested.any():
        first = values[int(np.flatnonzero(nested)[0])]
        raise RowProblem.of("not_single", column, nested, detail=(option, kind_name(first)))


def check_weight_totals(column: str | None, path: str, positive_weight: float,
                        total_weight: float) -> None:
    """Refuse weights that leave no rate defined: all 0, or 0 on every positive row."""
    if column is None:
        return
    if total_weight == 0:
        raise zero_total_weight(column, path, positives_only=False)
    if positive_weight == 0:
        raise zero_total_weight(column, path, positives_only=True)

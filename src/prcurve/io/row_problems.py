"""One problem in a block of rows (:class:`RowProblem`), found by the row rules of
:mod:`prcurve.io.rows` and :mod:`prcurve.io.label_rows` with the block's own row
indices, and its one-line message with the file and the row numbers; what a missing
value is.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.csv_text import decimal_comma_scores, looks_like_decimal_commas
from prcurve.validation.files import (
    inconsistent_labels,
    inexact_scores,
    invalid_scores,
    invalid_weights,
    labels_not_binary,
    labels_not_text,
    missing_labels,
    not_single_values,
    positive_not_found,
    positive_rounded,
)

__all__ = ["RowProblem", "first_rows", "kind_name", "missing_values"]


_FIRST_ROWS = 5  # how many row numbers an error message lists


def missing_values(values: NDArray[Any]) -> NDArray[np.bool_]:
    """Missing values: NaN, None, and (in a column of objects) empty or blank text."""
    if values.dtype.kind == "f":
        return np.asarray(np.isnan(values), dtype=bool)
    if values.dtype.kind == "O":
        return np.array([_is_missing(v) for v in values.tolist()], dtype=bool)
    return np.zeros(values.shape[0], dtype=bool)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (str, bytes)):
        return not value.strip()
    return False


def first_rows(mask: NDArray[np.bool_]) -> list[int]:
    return [int(i) + 1 for i in np.flatnonzero(mask)[:_FIRST_ROWS]]


# -- one problem in a block of rows -----------------------------------------------------------


class RowProblem(Exception):  # noqa: N818  (not an error itself: it becomes one)
    """A problem found in a block of rows, not yet placed in its file.

    The checks of a block (a whole file in memory, a streamed batch, a Dask
    partition) raise it with the block's own row indices (from 0);
    :meth:`error` turns it into the :class:`~prcurve.errors.InvalidInputError`
    the user sees, with the file and the row numbers in it. It holds plain data
    only, so that a Dask worker can return it instead of raising (a raised
    error would print the worker's traceback).
    """

    def __init__(self, kind: str, column: str, rows: tuple[int, ...] = (),
                 counts: tuple[int, ...] = (), detail: Any = None) -> None:
        super().__init__(kind, column, rows, counts, detail)
        self.kind, self.column, self.rows = kind, column, rows
        self.counts, self.detail = counts, detail

    @classmethod
    def of(cls, kind: str, column: str, mask: NDArray[np.bool_], *counts: int,
           detail: Any = None) -> RowProblem:
        """The problem at the rows of ``mask`` (its count first unless ``counts`` given)."""
        rows = tuple(int(i) for i in np.flatnonzero(mask)[:_FIRST_ROWS])
        return cls(kind, column, rows, counts or (int(np.count_nonzero(mask)),), detail)

    def error(self, path: str, first_row: int = 1) -> InvalidInputError:
        """The user's message, with ``first_row`` the number of the block's first row."""
        rows = [first_row + r for r in self.rows]
        kind, column, counts, detail = self.kind, self.column, self.counts, self.detail
        if kind == "label_missing":
            return missing_labels(column, path, counts[0], rows)
        if kind == "label_not_text":
            return labels_not_text(column, path, counts[0], rows, detail)
        if kind == "not_single":
            option, found = detail
            return not_single_values(option, column, path, counts[0], rows, found)
        if kind == "labels_not_binary":
            return labels_not_binary(column, path, detail)
        if kind == "labels_inconsistent":
            return inconsistent_labels(column, path)
        if kind == "scores_inexact":
            return inexact_scores(column, path, counts[0], rows, detail)
        if kind == "positive_rounded":
            return positive_rounded(detail, column, path)
        if kind == "positive_not_found":
            return positive_not_found(detail[0], column, detail[1])
        if kind == "weights":
            return invalid_weights(column, path, detail, rows, counts[0])
        if kind == "scores":
            n_missing, n_non_numeric, n_infinite = counts
            if looks_like_decimal_commas(detail or ()):
                return decimal_comma_scores(column, path, n_non_numeric, rows, detail)
            return invalid_scores(column, path, n_missing, n_non_numeric, n_infinite, rows)
        raise ValueError(f"unknown row problem {kind!r}")


def kind_name(value: Any) -> str:
    """How a value that is not one label, score or weight is named: list, object, or its
    type."""
    if isinstance(value, (list, tuple)):
        return "list"
    return "object" if isinstance(value, dict) else type(value).__name__

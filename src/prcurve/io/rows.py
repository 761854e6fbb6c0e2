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

import contextlib
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.io.readers import object_array
from prcurve.io.text import parse_numbers
from prcurve.io.text_codes import codes_of, equal_rows, record_codes, rows_where
from prcurve.validation.arrays import inexact_integers
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
    zero_total_weight,
)

__all__ = ["CheckedBlock", "LabelRule", "RowProblem", "check_block", "check_weight_totals",
           "checked_scores", "first_rows", "missing_values", "normalize_labels",
           "positive_value"]

F64 = NDArray[np.float64]


_FIRST_ROWS = 5  # how many row numbers an error message lists

_SEEN_LIMIT = 10  # label values kept for a "does not occur" message


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


# -- labels --------------------------------------------------------------------------------


def _kind_name(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "list"
    return "object" if isinstance(value, dict) else type(value).__name__


def normalize_labels(values: NDArray[Any], column: str
                     ) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """The present labels in one type, and the mask of the missing ones.

    Numbers and booleans stay as they are. A column of objects becomes
    booleans if every present value is one; numbers (int64, else float64) if
    every present value is a number or the text of an integer (``"0"``,
    ``"1"``: labels 0/1 held as text are binary); else text (``str``). Bytes
    are decoded as UTF-8. A value that is none of these (a list, an object)
    or bytes that are not UTF-8 is a :class:`RowProblem`.

    A column of objects is encoded first (one code per distinct value), so
    each distinct value is examined once, not each row.
    """
    if values.dtype.kind != "O":
        missing = missing_values(values)
        return (values[~missing] if missing.any() else values), missing
    # Keys carry the type beside the value: True, 1 and 1.0 are equal, not the same text.
    index: dict[Any, int] = {}
    originals: list[Any] = []

    def code(value: Any) -> int:
        key = value if value.__class__ is str else (value.__class__, value)
        found = index.get(key)
        if found is None:
            found = index[key] = len(originals)
            originals.append(value)
        return found

    coded = codes_of(values)
    if coded is not None:  # text read as a dictionary: coded by the reader (io.text_codes)
        return _coded_labels(coded[0], coded[1], column, values)
    items = values.tolist()
    try:
        if set(map(type, items)) <= {str, type(None)}:
            # Text and missing values only (a text column): the values are their own
            # keys, found by C-level lookups; the same codes as code() gives (issue 26,
            # item 6, session 35: 0.5 us a row in code() at 10^7 rows).
            found = {value: code(value) for value in dict.fromkeys(items)}
            codes = np.fromiter(map(found.__getitem__, items), dtype=np.int64,
                                count=values.shape[0])
        else:
            codes = np.fromiter(map(code, items), dtype=np.int64, count=values.shape[0])
    except TypeError:  # an unhashable value (a list, a dict): examined row by row
        return _normalize(values, column, lambda bad: bad)
    del items
    return _coded_labels(codes, object_array(originals), column)


def _coded_labels(codes: NDArray[Any], distinct: NDArray[Any], column: str,
                  same: NDArray[Any] | None = None) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """:func:`normalize_labels` of ``distinct[codes]``, text keeping its codes (text_codes)."""
    def rows_of(bad: NDArray[np.bool_]) -> NDArray[np.bool_]:
        return np.asarray(bad[codes], dtype=bool)

    normal, missing_distinct = _normalize(distinct, column, rows_of)
    missing, position = rows_where(missing_distinct, codes), np.cumsum(~missing_distinct) - 1
    if same is not None and not missing.any() and normal.dtype == object and all(
            map(operator.is_, normal.tolist(), distinct.tolist())):
        return same, missing  # `same` is distinct[codes], these objects: no copy
    kept = position.astype(codes.dtype)[codes[~missing] if missing.any() else codes]
    present = normal[kept]  # position: each present distinct value's place in `normal`
    if present.dtype == object:
        record_codes(present, kept, normal)
    return present, missing


def _normalize(values: NDArray[Any], column: str,
               rows_of: Callable[[NDArray[np.bool_]], NDArray[np.bool_]]
               ) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """:func:`normalize_labels` of objects; ``rows_of`` maps a mask over ``values`` to the
    block's rows (for a problem's row numbers)."""
    missing = missing_values(values)
    present = values[~missing] if missing.any() else values
    where = np.flatnonzero(~missing)
    items = present.tolist()
    not_text = np.zeros(len(items), dtype=bool)
    not_single = np.zeros(len(items), dtype=bool)
    for i, value in enumerate(items):
        if isinstance(value, bytes):
            try:
                items[i] = value.decode("utf-8")
            except UnicodeDecodeError:
                not_text[i] = True
        elif isinstance(value, np.generic):
            items[i] = value.item()
        elif not isinstance(value, (bool, int, float, str)):
            not_single[i] = True
    for bad, kind in ((not_text, "label_not_text"), (not_single, "not_single")):
        if bad.any():
            full = np.zeros(values.shape[0], dtype=bool)
            full[where[bad]] = True
            first = items[int(np.flatnonzero(bad)[0])]
            detail = first if kind == "label_not_text" else ("--label", _kind_name(first))
            raise RowProblem.of(kind, column, rows_of(full), detail=detail)
    if all(isinstance(v, bool) for v in items):
        return np.array(items, dtype=bool), missing
    numbers = _as_integers(items)
    if numbers is not None:
        return numbers, missing
    if all(isinstance(v, (int, float)) for v in items):
        return np.array([float(v) for v in items], dtype=np.float64), missing
    return object_array([v if isinstance(v, str) else str(v) for v in items]), missing


_INT64 = np.iinfo(np.int64)


def _as_integers(items: list[Any]) -> NDArray[Any] | None:
    """Integers, booleans and the text of integers as int64, or as Python ints (exact,
    in an object array) when one is beyond int64; None if any is not an integer."""
    out: list[int] = []
    for value in items:
        if isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                return None
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            return None
        out.append(value)
    if all(_INT64.min <= v <= _INT64.max for v in out):
        return np.array(out, dtype=np.int64)
    # Beyond int64 (e.g. 2^64 + 1): float64 would round distinct labels into one.
    return object_array([int(v) for v in out])


def label_kind(values: NDArray[Any]) -> str:
    """The dtype kind a ``--positive`` is read in: ``"i"`` for an object column of
    Python integers (labels beyond int64, kept exact), else the array's own kind."""
    kind = values.dtype.kind
    if kind == "O" and values.shape[0] and all(
            isinstance(v, int) and not isinstance(v, bool) for v in values.tolist()):
        return "i"
    return kind


def positive_value(text: str, values: NDArray[Any], column: str) -> Any:
    """``--positive`` read in the type of the label column (its present, normalized values).

    Booleans: ``true``/``false``/``1``/``0``; integers: the number (an integer
    if it is one); floats: the number; text: the text itself.
    """
    kind = label_kind(values)
    if kind == "O" and values.shape[0] and all(isinstance(v, bool) for v in values.tolist()):
        kind = "b"
    try:
        return _parse_positive(text, kind)
    except RowProblem:
        raise positive_rounded(text, column, "the input") from None
    except (ValueError, OverflowError):
        raise positive_not_found(text, column, values[~missing_values(values)]) from None


def _parse_positive(text: str, kind: str) -> Any:
    if kind == "b":
        lowered = text.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise ValueError(text)
        return lowered in ("true", "1")
    if kind in "iu":
        # The text of an integer is read exactly (int64 and uint64 labels beyond 2^53:
        # float() would round 9223372036854775807 to 2^63); else a number, as it was.
        with contextlib.suppress(ValueError):
            return int(text.strip())
        number = float(text)
        return int(number) if number.is_integer() else number
    if kind == "f":
        with contextlib.suppress(ValueError):
            exact = int(text.strip())
            if float(exact) != exact:  # 2^64 + 1 among float64 labels: a rounded match
                raise RowProblem("positive_rounded", "", detail=text)
        return float(text)
    return text


@dataclass
class LabelRule:
    """How a label column's values become positive: one rule for every block of rows.

    With ``positive`` (``--positive``, as text) a row is positive when its
    label equals that value, read in the column's type on the first block.
    Without it, labels must be booleans, {0, 1} or {-1, 1} (1 is positive),
    across all blocks together: a column holding 1 with both 0 and -1 is not
    one binary labelling even when no single block holds all three.
    """

    column: str
    positive: str | None = None
    target: Any = None
    resolved: bool = False
    seen_zero: bool = False
    seen_minus_one: bool = False
    boolean: bool = False
    found: bool = False  # with ``positive``: whether it occurred yet
    seen: dict[Any, None] = field(default_factory=dict)

    def values_seen(self) -> NDArray[Any]:
        """Some label values seen (at most about ten), for a message."""
        return object_array(list(self.seen))

    @property
    def value(self) -> Any:
        """The positive label, for the report."""
        if self.positive is not None:
            return self.target
        return True if self.boolean else 1

    def mask(self, values: NDArray[Any]) -> NDArray[np.bool_]:
        """The positive rows among present, normalized labels (see :func:`normalize_labels`)."""
        if self.positive is not None:
            # Read in this block's type: a block of text "0"/"1" labels is numbers, another
            # block of the same column may be text; the first reading is the one reported.
            try:
                target = _parse_positive(self.positive, label_kind(values))
            except RowProblem as problem:
                problem.column = self.column
                raise
            except (ValueError, OverflowError):
                raise RowProblem("positive_not_found", self.column,
                                 detail=(self.positive, _distinct(values))) from None
            if not self.resolved:
                self.target, self.resolved = target, True
            mask = equal_rows(values, target)  # once per distinct text where coded
            if not self.found:  # the values seen, for the message if the target never occurs
                self.found = bool(mask.any())
                if not self.found and len(self.seen) <= _SEEN_LIMIT:
                    self.seen.update(dict.fromkeys(_distinct(values)[:_SEEN_LIMIT + 1].tolist()))
            return mask
        kind = values.dtype.kind
        if kind == "b":
            self.boolean = True
            return np.asarray(values, dtype=bool)
        if kind not in "iuf":
            raise RowProblem("labels_not_binary", self.column, detail=_distinct(values))
        if kind in "iu" and values.shape[0] and bool(
                np.less_equal(values.view(values.dtype.str.replace("i", "u")), 1).all()):
            # Integers all 0 or 1 (as unsigned, -1 is the largest value): two passes.
            self.seen_zero = self.seen_zero or not bool(values.all())
            self.check()
            return np.asarray(values, dtype=bool)
        one = values == 1
        zero = values == 0
        if (zero | one).all():
            self.seen_zero = self.seen_zero or bool(zero.any())
        elif ((values == -1) | one).all():
            self.seen_minus_one = True
        else:
            raise RowProblem("labels_not_binary", self.column, detail=_distinct(values))
        self.check()
        return np.asarray(one, dtype=bool)

    def check(self) -> None:
        if self.seen_zero and self.seen_minus_one:
            raise RowProblem("labels_inconsistent", self.column)

    def merge(self, other: LabelRule) -> None:
        """Add what ``other`` saw (a Dask partition's rule) and check the union."""
        if other.resolved and not self.resolved:
            self.target, self.resolved = other.target, True
        self.found = self.found or other.found
        if len(self.seen) <= _SEEN_LIMIT:
            self.seen.update(other.seen)
        self.seen_zero = self.seen_zero or other.seen_zero
        self.seen_minus_one = self.seen_minus_one or other.seen_minus_one
        self.boolean = self.boolean or other.boolean
        self.check()


def _distinct(values: NDArray[Any]) -> NDArray[Any]:
    coded = codes_of(values)  # every distinct value is used: the same set, k not n values
    values = values if coded is None else coded[1]
    try:
        return np.unique(values)
    except TypeError:
        return object_array(list(dict.fromkeys(values.tolist())))


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


def check_block(labels: NDArray[Any], rule: LabelRule, weights: NDArray[Any] | None,
                weight_column: str | None, scores: Mapping[str, NDArray[Any]],
                drop_invalid: bool) -> CheckedBlock:
    """Every row rule, for a block of rows: one place for the in-memory, streamed and Dask paths.

    Missing labels, missing weights and missing, NaN, non-numeric or infinite
    scores are a :class:`RowProblem`, or (``drop_invalid``) dropped and
    counted; bad label values, and non-numeric, infinite or negative weights,
    are always a problem.
    """
    n = labels.shape[0]
    present, label_missing = normalize_labels(labels, rule.column)
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
        raise RowProblem.of("not_single", column, nested, detail=(option, _kind_name(first)))


def check_weight_totals(column: str | None, path: str, positive_weight: float,
                        total_weight: float) -> None:
    """Refuse weights that leave no rate defined: all 0, or 0 on every positive row."""
    if column is None:
        return
    if total_weight == 0:
        raise zero_total_weight(column, path, positives_only=False)
    if positive_weight == 0:
        raise zero_total_weight(column, path, positives_only=True)

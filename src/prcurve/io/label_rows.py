"""The label rules of a block of rows: labels normalized to one type
(:func:`normalize_labels`), ``--positive`` read in the column's type
(:func:`positive_value`), and :class:`LabelRule`, one rule across the blocks of a file.
Part of the row rules of :mod:`prcurve.io.rows`.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.arrow_columns import object_array
from prcurve.io.row_problems import RowProblem, kind_name, missing_values
from prcurve.io.text_codes import CodedText, rows_where
from prcurve.validation.files import positive_not_found, positive_rounded

__all__ = ["LabelRule", "Labels", "coded_labels", "label_kind", "normalize_labels",
           "positive_value"]

Labels = NDArray[Any] | CodedText
"""A label column: an array, or objects as codes (:class:`~prcurve.io.text_codes.CodedText`)."""

_SEEN_LIMIT = 10  # label values kept for a "does not occur" message


def normalize_labels(values: Labels, column: str) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """The present labels in one type, and the mask of the missing ones.

    Numbers and booleans stay as they are. A column of objects becomes
    booleans if every present value is one; numbers (int64, else float64) if
    every present value is a number or the text of an integer (``"0"``,
    ``"1"``: labels 0/1 held as text are binary); else text (``str``). Bytes
    are decoded as UTF-8. A value that is none of these (a list, an object)
    or bytes that are not UTF-8 is a :class:`RowProblem`.

    A column of objects is encoded first (one code per distinct value), so
    each distinct value is examined once, not each row; text read as codes
    (:class:`~prcurve.io.text_codes.CodedText`) is examined by its codes.
    """
    present, missing = coded_labels(values, column)
    return (present.values() if isinstance(present, CodedText) else present), missing


def coded_labels(values: Labels, column: str) -> tuple[Labels, NDArray[np.bool_]]:
    """:func:`normalize_labels`, objects (text) kept as codes: what :class:`LabelRule`
    and the row rules (:func:`prcurve.io.rows.check_block`) work on."""
    if isinstance(values, CodedText):  # coded by the reader (io.text_codes)
        return _coded_labels(values.codes, values.categories, column, values)
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
                  same: CodedText | None = None) -> tuple[Labels, NDArray[np.bool_]]:
    """:func:`coded_labels` of ``distinct[codes]`` (``same``, when given, is that column
    as read): objects keep their codes, other kinds are arrays."""
    def rows_of(bad: NDArray[np.bool_]) -> NDArray[np.bool_]:
        return np.asarray(bad[codes], dtype=bool)

    normal, missing_distinct = _normalize(distinct, column, rows_of)
    missing, position = rows_where(missing_distinct, codes), np.cumsum(~missing_distinct) - 1
    if same is not None and not missing.any() and normal.dtype == object and all(
            map(operator.is_, normal.tolist(), distinct.tolist())):
        return same, missing  # `same` is distinct[codes], these objects: no copy
    # position: each present distinct value's place in `normal`, which holds every
    # present distinct value once, so that each of its values is used by some row.
    kept = position.astype(codes.dtype)[codes[~missing] if missing.any() else codes]
    if normal.dtype == object:
        return CodedText(kept, normal), missing
    return normal[kept], missing


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
            detail = first if kind == "label_not_text" else ("--label", kind_name(first))
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


def _objects(values: Labels) -> NDArray[Any]:
    """The distinct objects of coded labels (each used by some row), else the array: what
    a check of the values' kinds or a message about them needs."""
    return values.categories if isinstance(values, CodedText) else values


def label_kind(values: Labels) -> str:
    """The dtype kind a ``--positive`` is read in: ``"i"`` for an object column of
    Python integers (labels beyond int64, kept exact), else the array's own kind."""
    kind = values.dtype.kind
    objects = _objects(values)
    if kind == "O" and objects.shape[0] and all(
            isinstance(v, int) and not isinstance(v, bool) for v in objects.tolist()):
        return "i"
    return kind


def positive_value(text: str, values: Labels, column: str) -> Any:
    """``--positive`` read in the type of the label column (its present, normalized values).

    Booleans: ``true``/``false``/``1``/``0``; integers: the number (an integer
    if it is one); floats: the number; text: the text itself.
    """
    kind = label_kind(values)
    objects = _objects(values)
    if kind == "O" and objects.shape[0] and all(isinstance(v, bool) for v in objects.tolist()):
        kind = "b"
    try:
        return _parse_positive(text, kind)
    except RowProblem:
        raise positive_rounded(text, column, "the input") from None
    except (ValueError, OverflowError):
        raise positive_not_found(text, column, objects[~missing_values(objects)]) from None


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

    def mask(self, values: Labels) -> NDArray[np.bool_]:
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
            # Once per distinct text where coded (io.text_codes), else row by row.
            mask = (values.equal_rows(target) if isinstance(values, CodedText)
                    else np.asarray(values == target, dtype=bool))
            if not self.found:  # the values seen, for the message if the target never occurs
                self.found = bool(mask.any())
                if not self.found and len(self.seen) <= _SEEN_LIMIT:
                    self.seen.update(dict.fromkeys(_distinct(values)[:_SEEN_LIMIT + 1].tolist()))
            return mask
        kind = values.dtype.kind
        if kind == "b":
            self.boolean = True
            return np.asarray(values, dtype=bool)
        if kind not in "iuf" or isinstance(values, CodedText):  # text: coded objects
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


def _distinct(values: Labels) -> NDArray[Any]:
    values = _objects(values)  # coded: every category is used, the same set in k not n
    try:
        return np.unique(values)
    except TypeError:
        return object_array(list(dict.fromkeys(values.tolist())))

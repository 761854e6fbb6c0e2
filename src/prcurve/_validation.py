"""Every check of user input, and every message about bad input.

This module is the only place in prcurve that raises
:class:`~prcurve.errors.InvalidInputError`. Each message names the argument,
says what was found and how to fix it. Nothing here modifies its input: arrays
are converted with ``np.asarray`` (no copy when the dtype already fits) and
only read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError

_MAX_LISTED = 10


def _first_indices(mask: NDArray[np.bool_], limit: int = 5) -> str:
    where = np.flatnonzero(mask)[:limit]
    return ", ".join(str(int(i)) for i in where)


def _describe_values(values: NDArray[Any]) -> str:
    """The distinct values of an array, at most ``_MAX_LISTED`` of them."""
    try:
        distinct = np.unique(values)
    except TypeError:  # mixed, unorderable objects
        distinct = np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in distinct[:_MAX_LISTED])
    more = f" and {len(distinct) - _MAX_LISTED} more" if len(distinct) > _MAX_LISTED else ""
    return f"{{{shown}{more}}} ({len(distinct)} distinct)"


def as_1d(name: str, values: ArrayLike) -> NDArray[Any]:
    """``values`` as a 1-D array, or an error naming ``name``."""
    array = np.asarray(values)
    if array.ndim != 1:
        hint = (
            "pass a flat sequence of one value per sample"
            if array.ndim == 0
            else "pass one value per sample as a 1-D array (for a column vector use .ravel())"
        )
        raise InvalidInputError(name, f"expected a 1-D array, found shape {array.shape}", hint)
    return array


def check_not_empty(name: str, array: NDArray[Any]) -> None:
    if array.shape[0] == 0:
        raise InvalidInputError(
            name, "is empty (0 samples)", "pass at least one sample; metrics need data"
        )


def check_same_length(**arrays: NDArray[Any] | None) -> None:
    """All given arrays have the same first dimension."""
    present = {name: a for name, a in arrays.items() if a is not None}
    lengths = {name: a.shape[0] for name, a in present.items()}
    if len(set(lengths.values())) > 1:
        found = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        names = list(lengths)
        raise InvalidInputError(
            names[-1],
            f"length mismatch: {found} samples",
            "pass arrays with one entry per sample, all of the same length",
        )


def check_finite_numbers(name: str, values: NDArray[Any]) -> NDArray[np.floating[Any]]:
    """``values`` as a floating array with no NaN or infinity.

    float32 and float64 are kept as they are (every float32 is exactly a
    float64, so no threshold changes); integers and booleans become float64.
    """
    if values.dtype.kind not in "biuf":
        raise InvalidInputError(
            name,
            f"expected numbers, found dtype {values.dtype} (e.g. {values[:3].tolist()!r})",
            "convert the scores to a numeric array (float) first",
        )
    floats: NDArray[np.floating[Any]]
    if values.dtype.kind == "f" and values.dtype.itemsize >= 4:
        floats = values
    else:
        floats = values.astype(np.float64)
    finite = np.isfinite(floats)
    if not finite.all():
        bad = ~finite
        n_nan = int(np.isnan(floats).sum())
        n_inf = int(bad.sum()) - n_nan
        parts = [f"{n_nan} NaN" if n_nan else "", f"{n_inf} infinite" if n_inf else ""]
        found = " and ".join(p for p in parts if p)
        raise InvalidInputError(
            name,
            f"found {found} value(s) (first at index {_first_indices(bad)})",
            "remove those samples or replace them with finite numbers",
        )
    return floats


def check_scores(name: str, values: ArrayLike) -> NDArray[np.floating[Any]]:
    """A non-empty 1-D array of finite scores (float32 or float64)."""
    array = as_1d(name, values)
    check_not_empty(name, array)
    return check_finite_numbers(name, array)


@dataclass(frozen=True)
class BinaryLabels:
    """Validated labels: hard (a boolean mask of positives) or soft (floats in [0, 1]).

    Exactly one of ``positive`` and ``soft`` is set.
    """

    positive: NDArray[np.bool_] | None
    soft: NDArray[np.float64] | None

    @property
    def n(self) -> int:
        array = self.positive if self.positive is not None else self.soft
        return 0 if array is None else int(array.shape[0])

    def positive_fraction(self) -> NDArray[np.float64]:
        """Each sample's share of positive weight: 1/0 for hard labels, y for soft."""
        if self.soft is not None:
            return self.soft
        if self.positive is None:  # unreachable by construction
            raise TypeError("BinaryLabels holds neither hard nor soft labels")
        return self.positive.astype(np.float64)


def check_labels(
    name: str, values: ArrayLike, pos_label: Any = None, *, allow_soft: bool = True
) -> BinaryLabels:
    """Validate binary labels.

    Accepted without ``pos_label``: booleans; numbers in {0, 1} or {-1, 1}
    (1 is positive); and, if ``allow_soft``, floats in [0, 1] as soft labels.
    With ``pos_label``, a sample is positive exactly when it equals ``pos_label``.
    """
    array = as_1d(name, values)
    if pos_label is not None:
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise InvalidInputError(
                name,
                f"found NaN labels (first at index {_first_indices(np.isnan(array))})",
                "remove those samples or give them a label",
            )
        positive = np.asarray(array == pos_label)
        if positive.shape != array.shape:
            raise InvalidInputError(
                "pos_label", f"cannot be compared with {name} ({pos_label!r})", "pass a scalar"
            )
        if array.shape[0] and not positive.any():
            raise InvalidInputError(
                "pos_label",
                f"{pos_label!r} does not occur in {name}, whose values are "
                f"{_describe_values(array)}",
                "pass one of those values as pos_label",
            )
        return BinaryLabels(positive=positive.astype(bool, copy=False), soft=None)

    kind = array.dtype.kind
    if kind == "b":
        return BinaryLabels(positive=array, soft=None)
    if kind not in "iuf":
        raise InvalidInputError(
            name,
            f"labels are not binary: values {_describe_values(array)} and no pos_label",
            "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
        )
    if kind == "f" and np.isnan(array).any():
        raise InvalidInputError(
            name,
            f"found NaN labels (first at index {_first_indices(np.isnan(array))})",
            "remove those samples or give them a label in {0, 1}",
        )
    is_zero = array == 0
    is_one = array == 1
    if (is_zero | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if ((array == -1) | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if kind == "f" and allow_soft:
        outside = (array < 0) | (array > 1)
        if outside.any():
            raise InvalidInputError(
                name,
                f"soft labels must lie in [0, 1], found {int(outside.sum())} outside "
                f"(first at index {_first_indices(outside)}; values {_describe_values(array)})",
                "pass probabilities of the positive class in [0, 1], hard labels in {0, 1}, "
                "or pos_label=<the value of the positive class>",
            )
        return BinaryLabels(positive=None, soft=array.astype(np.float64, copy=False))
    raise InvalidInputError(
        name,
        f"labels are not binary: values {_describe_values(array)} and no pos_label",
        "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
    )


def check_weights(
    name: str, values: ArrayLike | None, n_samples: int
) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 weights, one per sample, or None."""
    if values is None:
        return None
    array = as_1d(name, values)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(
            name, f"expected numbers, found dtype {array.dtype}", "pass numeric weights"
        )
    weights = array.astype(np.float64, copy=False)
    if weights.shape[0] != n_samples:
        raise InvalidInputError(
            name,
            f"length mismatch: {weights.shape[0]} weights for {n_samples} samples",
            "pass one weight per sample",
        )
    bad = ~np.isfinite(weights)
    if bad.any():
        raise InvalidInputError(
            name,
            f"found {int(bad.sum())} NaN or infinite weight(s) (first at index "
            f"{_first_indices(bad)})",
            "pass finite, non-negative weights",
        )
    negative = weights < 0
    if negative.any():
        raise InvalidInputError(
            name,
            f"found {int(negative.sum())} negative weight(s) (first at index "
            f"{_first_indices(negative)})",
            "pass non-negative weights; a weight of 0 removes a sample",
        )
    return weights


def check_edges(name: str, edges: ArrayLike) -> NDArray[np.float64]:
    """At least two finite, strictly increasing bin edges as float64."""
    array = as_1d(name, edges)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(
            name, f"expected numbers, found dtype {array.dtype}", "pass numeric bin edges"
        )
    floats = array.astype(np.float64)
    if floats.shape[0] < 2:
        raise InvalidInputError(
            name,
            f"found {floats.shape[0]} edge(s)",
            "pass at least two edges (n bins need n + 1 edges)",
        )
    if not np.isfinite(floats).all():
        raise InvalidInputError(name, "found NaN or infinite edges", "pass finite edges")
    steps = np.diff(floats)
    if (steps <= 0).any():
        i = int(np.flatnonzero(steps <= 0)[0])
        raise InvalidInputError(
            name,
            f"edges are not strictly increasing (edge {i} = {float(floats[i])!r}, "
            f"edge {i + 1} = {float(floats[i + 1])!r})",
            "pass sorted, distinct edges (e.g. np.linspace(low, high, n + 1))",
        )
    return floats


def check_n_bins(name: str, n_bins: Any) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise InvalidInputError(
            name, f"expected a positive integer number of bins, found {n_bins!r}",
            "pass an int >= 1 or an array of edges",
        )
    return int(n_bins)


def check_range(name: str, low: float, high: float) -> tuple[float, float]:
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise InvalidInputError(
            name, f"expected finite low < high, found ({low!r}, {high!r})", "pass (low, high)"
        )
    return lo, hi


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise InvalidInputError(
            name, f"unknown value {value!r}", f"use one of {', '.join(map(repr, choices))}"
        )
    return value


def check_positive_number(name: str, value: Any) -> float:
    """A finite number > 0 (e.g. F-beta's beta)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number, found {value!r}", "pass a float > 0")
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise InvalidInputError(name, f"expected a finite number > 0, found {value!r}",
                                "pass a float > 0")
    return number


def check_fraction(name: str, value: Any) -> float:
    """A number in [0, 1] (a recall, a precision, van Rijsbergen's alpha)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number in [0, 1], found {value!r}",
                                "pass a float in [0, 1]")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(name, f"expected a number in [0, 1], found {value!r}",
                                "pass a float in [0, 1]")
    return number


def check_finite_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number, found {value!r}", "pass a float")
    number = float(value)
    if math.isnan(number):
        raise InvalidInputError(name, "found NaN", "pass a number")
    return number


def check_zero_division(value: Any) -> None:
    """``zero_division`` is "nan", NaN, 0, 1 or "raise"."""
    if isinstance(value, str):
        if value in ("nan", "raise"):
            return
    elif (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and (math.isnan(float(value)) or float(value) in (0.0, 1.0))
    ):
        return
    raise InvalidInputError(
        "zero_division",
        f"unknown policy {value!r}",
        'use "nan" (default), 0, 1 or "raise"',
    )


def check_count(name: str, value: Any) -> float:
    """A finite, non-negative (weighted) count."""
    number = check_finite_number(name, value)
    if not math.isfinite(number) or number < 0:
        raise InvalidInputError(
            name, f"expected a finite count >= 0, found {value!r}", "pass a non-negative number"
        )
    return number


def check_scored_labels(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    pos_label: Any,
    *,
    true_name: str = "y_true",
    score_name: str = "y_score",
) -> tuple[NDArray[np.floating[Any]], BinaryLabels, NDArray[np.float64] | None]:
    """The common checks of (y_true, y_score, sample_weight, pos_label)."""
    scores = check_scores(score_name, y_score)
    labels_array = as_1d(true_name, y_true)
    check_same_length(**{true_name: labels_array, score_name: scores})
    labels = check_labels(true_name, labels_array, pos_label)
    weights = check_weights("sample_weight", sample_weight, scores.shape[0])
    return scores, labels, weights


def check_threshold_counts(
    thresholds: ArrayLike, tp: ArrayLike, fp: ArrayLike, n_pos: Any, n_neg: Any
) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float, float
]:
    """The invariants of a count state built outside ``from_scores``.

    Returns fresh float64 copies that the state may own.
    """
    arrays = {}
    for name, values in (("thresholds", thresholds), ("tp", tp), ("fp", fp)):
        array = as_1d(name, values)
        if array.dtype.kind not in "biuf":
            raise InvalidInputError(name, f"expected numbers, found dtype {array.dtype}",
                                    "pass a numeric array")
        arrays[name] = np.array(array, dtype=np.float64)
    check_same_length(**arrays)
    t, p, f = arrays["thresholds"], arrays["tp"], arrays["fp"]
    if not np.isfinite(t).all():
        raise InvalidInputError("thresholds", "found NaN or infinite thresholds",
                                "pass finite thresholds")
    if (np.diff(t) >= 0).any():
        raise InvalidInputError("thresholds", "thresholds are not strictly decreasing",
                                "sort distinct thresholds from high to low")
    for name, array in (("tp", p), ("fp", f)):
        if not np.isfinite(array).all() or (array < 0).any():
            raise InvalidInputError(name, "found negative, NaN or infinite counts",
                                    "pass finite cumulative weights >= 0")
        if (np.diff(array) < 0).any():
            raise InvalidInputError(
                name, "counts decrease as the threshold falls",
                "pass cumulative counts (weight with score >= threshold), e.g. np.cumsum",
            )
    total_pos = check_count("n_pos", n_pos)
    total_neg = check_count("n_neg", n_neg)
    for name, total, array in (("n_pos", total_pos, p), ("n_neg", total_neg, f)):
        last = float(array[-1]) if array.shape[0] else 0.0
        if last > total * (1 + 1e-12) + 1e-12:
            raise InvalidInputError(
                name, f"total {total!r} is below the cumulative count {last!r}",
                "pass the total weight of the class, at least the last cumulative count",
            )
    return t, p, f, total_pos, total_neg


def wrong_type(name: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(
        name, f"expected {expected}, found {type(value).__name__}", f"pass a {expected}"
    )

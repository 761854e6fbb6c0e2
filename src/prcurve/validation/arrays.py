"""Checks of arrays, numbers and options shared by every domain.

The validation package is the only place in prcurve that raises
:class:`~prcurve.errors.InvalidInputError`; each message names the argument, says
what was found and how to fix it. Nothing here modifies its input: arrays are
converted with ``np.asarray`` (no copy when the dtype already fits) and only read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError

MAX_LISTED = 10


def first_indices(mask: NDArray[np.bool_], limit: int = 5) -> str:
    where = np.flatnonzero(mask)[:limit]
    return ", ".join(str(int(i)) for i in where)


def distinct_values(values: NDArray[Any]) -> NDArray[Any]:
    """The distinct values of an array: sorted, or in order of first appearance when they
    cannot be sorted (mixed, unorderable objects)."""
    try:
        return np.unique(values)
    except TypeError:  # mixed, unorderable objects
        return np.array(list(dict.fromkeys(values.tolist())), dtype=object)


def describe_values(values: NDArray[Any]) -> str:
    """The distinct values of an array, at most ``MAX_LISTED`` of them."""
    distinct = distinct_values(values)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in distinct[:MAX_LISTED])
    more = f" and {len(distinct) - MAX_LISTED} more" if len(distinct) > MAX_LISTED else ""
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
    floats = as_floats(name, values)
    check_finite(name, floats)
    return floats


def as_floats(name: str, values: NDArray[Any]) -> NDArray[np.floating[Any]]:
    """``values`` as a floating array (:func:`check_finite_numbers` without the check for
    NaN and infinity; integers and booleans, always finite, become float64)."""
    if values.dtype.kind not in "biuf":
        raise InvalidInputError(
            name,
            f"expected numbers, found dtype {values.dtype} (e.g. {values[:3].tolist()!r})",
            "convert the scores to a numeric array (float) first",
        )
    if values.dtype.kind == "f" and values.dtype.itemsize >= 4:
        return values
    return values.astype(np.float64)


def check_finite(name: str, floats: NDArray[np.floating[Any]]) -> None:
    """An error naming ``name`` if ``floats`` holds NaN or infinity."""
    finite = np.isfinite(floats)
    if not finite.all():
        bad = ~finite
        n_nan = int(np.isnan(floats).sum())
        n_inf = int(bad.sum()) - n_nan
        parts = [f"{n_nan} NaN" if n_nan else "", f"{n_inf} infinite" if n_inf else ""]
        found = " and ".join(p for p in parts if p)
        raise InvalidInputError(
            name,
            f"found {found} value(s) (first at index {first_indices(bad)})",
            "remove those samples or replace them with finite numbers",
        )


_EXACT_LIMIT = 2**53  # every integer up to it in magnitude is a float64


def inexact_integers(values: NDArray[Any]) -> NDArray[np.bool_] | None:
    """Which of 64-bit integer ``values`` float64 cannot hold (it would round them), or
    None when it holds all (any other dtype, or every magnitude within 2^53).

    An integer is a float64 when its bits below the leading 53 are zero; the leading
    bit's place comes from ``frexp`` of the rounded value (one place high when the
    value rounds up to a power of two, which only an inexact value does).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.validation.arrays import inexact_integers
    >>> inexact_integers(np.array([2**60, 2**60 + 1, -(2**63)])).tolist()
    [False, True, False]
    >>> inexact_integers(np.array([1, 2, 3])) is None
    True
    """
    if values.dtype.kind not in "iu" or values.dtype.itemsize < 8 or values.shape[0] == 0:
        return None
    if int(values.max()) <= _EXACT_LIMIT and int(values.min()) >= -_EXACT_LIMIT:
        return None
    # |v| as uint64 (abs of int64's minimum wraps to itself: 2^63 as unsigned).
    magnitude = (np.abs(values) if values.dtype.kind == "i" else values).view(np.uint64)
    shift = np.maximum(np.frexp(magnitude.astype(np.float64))[1] - 53, 0).astype(np.uint64)
    return np.asarray(((magnitude >> shift) << shift) != magnitude)


def check_exact_integers(name: str, values: NDArray[Any], *, keep: bool = False
                         ) -> NDArray[np.int64] | None:
    """An error naming ``name`` if integer scores hold a value float64 would round.

    prcurve computes scores in float64; two integers beyond 2^53 that round to one
    float64 (nanosecond timestamps 2^60 and 2^60 + 1) would become one tied score,
    where scikit-learn, which sorts the integers, keeps them apart (docs/definitions.md,
    "Scores"). With ``keep`` (the exact, unbinned state, which orders integers as
    integers) such scores are returned as int64 instead, unless uint64 beyond int64.
    """
    inexact = inexact_integers(values)
    if inexact is None or not inexact.any():
        return None
    if keep and (values.dtype.kind == "i" or int(values.max()) <= _INT64_MAX):
        return values.astype(np.int64, copy=False)
    i = int(np.flatnonzero(inexact)[0])
    value = int(values[i])
    raise InvalidInputError(
        name, f"holds {int(inexact.sum())} integer(s) beyond 2^53 that float64, in which "
        f"this computation runs, cannot hold exactly (e.g. {value} at index {i}, rounded to "
        f"{int(float(value))}), so distinct scores could tie",
        "subtract a common offset first (e.g. y_score - y_score.min(), exact while the "
        "range is below 2^53) or pass their ranks (scipy.stats.rankdata(y_score, "
        "method='dense')); neither changes the curve or the AP",
    )


_INT64_MAX = int(np.iinfo(np.int64).max)


def check_scores(name: str, values: ArrayLike, *, finite: bool = True,
                 integers: bool = False) -> NDArray[np.floating[Any]]:
    """A non-empty 1-D array of finite scores (float32 or float64).

    With ``finite=False`` NaN and infinity are left for the caller to check
    (:func:`check_finite`, or the ends of a sorted copy: a sort's first and last values
    are finite only when all are). 64-bit integers that float64 would round are refused
    (:func:`check_exact_integers`), or with ``integers`` (the exact state, which orders
    them as integers) returned as int64.
    """
    array = as_1d(name, values)
    check_not_empty(name, array)
    kept = check_exact_integers(name, array, keep=integers)
    if kept is not None:
        return kept  # type: ignore[return-value]  # int64: see ThresholdCounts._from_integers
    return check_finite_numbers(name, array) if finite else as_floats(name, array)


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


_Choice = TypeVar("_Choice")


def check_choice(name: str, value: Any, choices: Sequence[_Choice]) -> _Choice:
    """``value`` is one of ``choices`` (strings, numbers or None; compared with ==).

    ``True``/``False`` never match (they would equal 1/0)."""
    try:
        found = not isinstance(value, bool) and value in choices
    except (TypeError, ValueError):  # e.g. an array: its == is element-wise
        found = False
    if not found:
        raise InvalidInputError(
            name, f"unknown value {value!r}", f"use one of {', '.join(map(repr, choices))}"
        )
    chosen: _Choice = value
    return chosen


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


def wrong_type(name: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(
        name, f"expected {expected}, found {type(value).__name__}", f"pass a {expected}"
    )


def check_n_threads(value: Any) -> int:
    """Worker threads: None (every CPU) or an integer >= 1."""
    if value is None:
        import os

        return max(1, os.cpu_count() or 1)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError("n_threads", f"expected an integer >= 1 or None, found {value!r}",
                                "pass the number of threads, e.g. 2, or None for every CPU")
    return int(value)


def mixed_integer_thresholds(name: str) -> InvalidInputError:
    """A state of integer thresholds beyond 2^53 met a state of float thresholds (a merge,
    bins): float64 cannot compare them exactly."""
    return InvalidInputError(
        name, "one state has integer thresholds beyond 2^53 (scores float64 cannot hold) "
        "and the other float thresholds (or bin edges), which float64 cannot compare "
        "with them exactly", "build both states from integer scores, or subtract a common "
        "offset from the integer scores first (exact while their range is below 2^53)")


def check_bin_width(edges: NDArray[np.float64], low: float, high: float, n_bins: int) -> None:
    """Equal-width edges computed over the score range ``[low, high]`` that do not
    increase: the bins are narrower than float64 can tell apart there."""
    if n_bins >= 2 and not bool(np.all(edges[1:] > edges[:-1])):
        raise InvalidInputError(
            "bins", f"{n_bins} equal-width bins over the score range [{low!r}, {high!r}] "
            "are narrower than float64 can tell apart there (the bin edges would repeat)",
            "use fewer bins, the exact state (no bins), or scores of a smaller magnitude "
            "(subtract a common offset)")

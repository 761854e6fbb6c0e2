"""Checks of the arguments of PR-space functions: bounds, aggregation, intervals."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import (
    as_1d,
    check_count,
    check_fraction,
    check_not_empty,
    first_indices,
)


def check_fractions(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Numbers in [0, 1] of any shape (a recall, precision or prevalence), as float64."""
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(name, f"expected numbers in [0, 1], found dtype {array.dtype}",
                                "pass floats in [0, 1]")
    floats = array.astype(np.float64)
    bad = np.isnan(floats) | (floats < 0) | (floats > 1)
    if bad.any():
        flat = np.ravel(bad)
        shown = np.ravel(floats)[flat][:3].tolist()
        raise InvalidInputError(
            name, f"expected numbers in [0, 1], found {shown!r} (first at flat index "
            f"{first_indices(flat)})", "pass floats in [0, 1]",
        )
    return floats


def check_recall_range(value: Any) -> tuple[float, float]:
    """A recall range ``(a, b)`` with ``0 <= a < b <= 1``."""
    try:
        low, high = value
    except (TypeError, ValueError):
        raise InvalidInputError(
            "recall_range", f"expected a pair (a, b), found {value!r}",
            "pass two recalls such as (0.0, 1.0) or (0.8, 1.0)",
        ) from None
    a = check_fraction("recall_range", low)
    b = check_fraction("recall_range", high)
    if not a < b:
        raise InvalidInputError(
            "recall_range", f"expected a < b, found ({a!r}, {b!r})",
            "pass the lower recall first, e.g. (0.8, 1.0)",
        )
    return a, b


def check_class_total(name: str, value: Any, *, integer: bool, purpose: str = "") -> float:
    """A class total (``n_pos``, ``n_neg``): finite and >= 0; an integer when ``integer``."""
    number = check_count(name, value)
    if integer and number != math.floor(number):
        raise InvalidInputError(
            name, f"expected a whole number of samples, found {value!r}{purpose}",
            "pass integer class counts (unweighted samples), or use method='davis_goadrich' "
            "or 'interpolated', whose minimum depends only on the prevalence",
        )
    return number


def check_class_totals_sum(n_pos: float, n_neg: float) -> None:
    """``n_pos + n_neg`` is a finite float64 (the prevalence divides by it)."""
    if not math.isfinite(n_pos + n_neg):
        raise InvalidInputError(
            "n_neg", f"n_pos + n_neg overflows float64 ({n_pos!r} + {n_neg!r})",
            "pass class totals in a common smaller unit (every bound depends on their ratio, "
            "and the step minimum on whole numbers of samples)",
        )


def too_many_points(name: str, size: int, fix: str) -> InvalidInputError:
    """A discrete curve or state of ``size`` points does not fit in memory."""
    return InvalidInputError(name, f"the result would have {size:,} points, more than memory "
                             "holds", fix)


def method_without_recall_range(method: str) -> InvalidInputError:
    return InvalidInputError(
        "recall_range", f"method {method!r} averages precision at fixed recall levels and has "
        "no area over a restricted recall range",
        "use recall_range=(0.0, 1.0) with this method, or a method with an area: 'step', "
        "'trapezoid', 'interpolated' or 'davis_goadrich'",
    )


def check_integer_state(name: str, pos: NDArray[np.float64], neg: NDArray[np.float64],
                        purpose: str) -> None:
    """Every tie group holds a whole number of positives and negatives (unweighted data)."""
    for kind, array in (("positive", pos), ("negative", neg)):
        fractional = array != np.floor(array)
        if fractional.any():
            raise InvalidInputError(
                name, f"found a fractional {kind} count in {int(fractional.sum())} tie group(s) "
                f"(e.g. {float(array[fractional][0])!r}); {purpose} resamples whole samples",
                "build the counts from unweighted hard labels (integer weights count as "
                "repeated samples); weighted or soft-labelled data cannot be resampled from "
                "its counts",
            )


RESAMPLE_MEMORY = 1 << 30
"""Bytes the arrays that grow with the number of resamples may take: 1 GiB. A count of
resamples past it is refused before anything is drawn (never an out-of-memory kill)."""

MAX_RESAMPLES = RESAMPLE_MEMORY // 8
"""The most resamples of any interval: one float64 each (2^27 = 134217728)."""


def check_n_resamples(value: Any, *, name: str = "n_resamples", bytes_each: int = 8,
                      held: str = "one float64 statistic") -> int:
    """An integer >= 1 whose resamples fit in :data:`RESAMPLE_MEMORY`, each holding
    ``bytes_each`` bytes (``held`` says what, for the message).

    Examples
    --------
    >>> from prcurve.errors import InvalidInputError
    >>> from prcurve.validation.space import check_n_resamples
    >>> check_n_resamples(1000)
    1000
    >>> try:
    ...     check_n_resamples(10**12)
    ... except InvalidInputError as error:
    ...     print(str(error)[:64])
    n_resamples: 1000000000000 resamples need 8 TB (one float64 stat
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(
            name, f"expected an integer >= 1, found {value!r}",
            "pass the number of bootstrap resamples, e.g. 1000",
        )
    limit = max(RESAMPLE_MEMORY // max(bytes_each, 1), 0)
    if value > limit:
        raise InvalidInputError(
            name, f"{int(value)} resamples need {_size(int(value) * bytes_each)} ({held}, "
            f"{bytes_each} bytes, per resample), more than the 1 GiB prcurve gives resampling",
            f"pass at most {limit} resamples (1000 to 10000 give stable intervals)",
        )
    return int(value)


def _size(n_bytes: int) -> str:
    """A byte count in the largest decimal unit (kB to YB) that keeps it >= 1, or above."""
    units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    power = min(max((len(str(n_bytes)) - 1) // 3, 0), len(units) - 1)
    return f"{n_bytes / 1000 ** power:.3g} {units[power]}"


def check_level(value: Any) -> float:
    """A confidence level strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError("level", f"expected a number in (0, 1), found {value!r}",
                                "pass a confidence level such as 0.95")
    number = float(value)
    if not 0.0 < number < 1.0:
        raise InvalidInputError("level", f"expected a number in (0, 1), found {value!r}",
                                "pass a confidence level such as 0.95")
    return number


def check_seed(value: Any) -> Any:
    """None, a non-negative int, a numpy SeedSequence or Generator."""
    if value is None or isinstance(value, (np.random.SeedSequence, np.random.Generator)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise InvalidInputError(
        "seed", f"expected None, an int >= 0, a numpy SeedSequence or Generator, found {value!r}",
        "pass an integer seed such as 0 for reproducible resamples",
    )


def check_state_source(name: str, value: Any, allowed: str) -> None:
    raise InvalidInputError(
        name, f"expected {allowed}, found {type(value).__name__}", f"pass {allowed}"
    )


def check_parts(name: str, parts: Any) -> list[Any]:
    """A non-empty sequence (the curves or count states to aggregate)."""
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise InvalidInputError(name, f"expected a list, found {type(parts).__name__}",
                                "pass a list of PRCurve or ThresholdCounts")
    items = list(parts)
    if not items:
        raise InvalidInputError(name, "is empty", "pass at least one curve or count state")
    return items


def check_recall_grid(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Recall levels: a non-empty 1-D, strictly increasing array in [0, 1]."""
    array = as_1d(name, values)
    check_not_empty(name, array)
    levels = check_fractions(name, array)
    if (np.diff(levels) <= 0).any():
        raise InvalidInputError(name, "recall levels are not strictly increasing",
                                "pass sorted, distinct levels such as np.linspace(0, 1, 101)")
    return levels


def unsupported_with_score_matrix(argument: str) -> InvalidInputError:
    return InvalidInputError(
        argument, "is not supported with an (n_samples, n_classes) score matrix",
        f"leave {argument} unset: the classes come from y_true (or labels=), one score "
        "column per class, exact counts per class",
    )


def check_min_curve_arguments(prevalence: Any, recall: Any, n_pos: Any, n_neg: Any) -> None:
    """``min_pr_curve`` takes a prevalence (and recall levels) or (n_pos, n_neg)."""
    if prevalence is not None and (n_pos is not None or n_neg is not None):
        raise InvalidInputError(
            "prevalence", "given together with n_pos/n_neg",
            "pass either a prevalence (continuous curve) or n_pos and n_neg (discrete)",
        )
    if prevalence is None and (n_pos is None or n_neg is None):
        raise InvalidInputError(
            "prevalence", "no prevalence and no (n_pos, n_neg)",
            "pass a prevalence for the continuous curve or n_pos and n_neg for the discrete one",
        )
    if prevalence is None and recall is not None:
        raise InvalidInputError(
            "recall", "recall levels given for the discrete curve",
            "the discrete curve has its own recalls i / n_pos; omit recall",
        )
    if prevalence is None and isinstance(n_pos, (int, float, np.integer, np.floating)) and (
        not isinstance(n_pos, bool) and float(n_pos) == 0
    ):
        raise InvalidInputError("n_pos", "found 0 positives",
                                "the minimum curve needs at least one positive")

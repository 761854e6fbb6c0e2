"""One policy for undefined values (0/0), shared by every metric in prcurve.

Every public function that can meet a 0/0 takes ``zero_division``:

- ``"nan"`` (default): the value is NaN, and the call emits exactly one
  :class:`~prcurve.errors.UndefinedMetricWarning` naming every metric that was
  undefined during the call;
- ``0`` or ``1``: the value is that number, silently (the caller chose it);
- ``"raise"``: :class:`~prcurve.errors.UndefinedMetricError` is raised.

"One warning per call" holds across nested calls: :func:`undefined_scope`
opens a scope at the outermost public call and inner calls report into it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import UndefinedMetricError, UndefinedMetricWarning
from prcurve.validation.arrays import check_zero_division

ZeroDivision = Literal["nan", "raise"] | float
"""The type of every ``zero_division`` argument: ``"nan"``, ``0``, ``1`` or ``"raise"``."""

# Frames that are not the caller's: prcurve's own, and the standard library's context
# managers and cached properties that prcurve's code runs through.
_INTERNAL = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
    *(os.path.splitext(str(module.__file__))[0] for module in (contextlib, functools)),
)


def warn_caller(message: str, category: type[Warning]) -> None:
    """Warn at the caller's line: the first frame outside prcurve (its stacklevel).

    Public functions nest to different depths, so no fixed ``stacklevel`` points at the
    user's code from all of them; every prcurve warning goes through here.
    """
    frame = sys._getframe(1)  # the caller of this function: stacklevel 2
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)


_HINT = (
    "pass zero_division=0 or zero_division=1 to choose the value, "
    'or zero_division="raise" to make it an error'
)


class _Scope:
    """The undefined metrics met during one public call."""

    def __init__(self, policy: ZeroDivision) -> None:
        self.policy = policy
        self.names: list[str] = []

    def note(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)


_current: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar(
    "prcurve_undefined_scope", default=None
)


@contextmanager
def undefined_scope(zero_division: ZeroDivision) -> Iterator[None]:
    """Collect undefined values for one public call and warn once at its end.

    Nested scopes (a public function calling another) report into the
    outermost one, whose policy wins.
    """
    check_zero_division(zero_division)
    outer = _current.get()
    if outer is not None:
        yield
        return
    scope = _Scope(zero_division)
    token = _current.set(scope)
    try:
        yield
    finally:
        _current.reset(token)
    if scope.names and _is_nan_policy(scope.policy):
        warn_caller(
            f"undefined (0/0) value set to NaN for: {', '.join(scope.names)}; {_HINT}",
            UndefinedMetricWarning,
        )


def _is_nan_policy(policy: ZeroDivision) -> bool:
    return policy == "nan" or (isinstance(policy, float) and math.isnan(policy))


def _fill_value(name: str) -> float:
    scope = _current.get()
    policy: ZeroDivision = "nan" if scope is None else scope.policy
    if policy == "raise":
        raise UndefinedMetricError(
            f"{name} is undefined (0/0) for this input; pass zero_division=0, 1 or "
            '"nan" to get a value instead of this error'
        )
    if scope is not None:
        scope.note(name)
    elif _is_nan_policy(policy):  # called outside any scope: warn now, once
        warn_caller(f"undefined (0/0) value set to NaN for: {name}; {_HINT}",
                    UndefinedMetricWarning)
    return math.nan if _is_nan_policy(policy) else float(policy)


Number = float | NDArray[np.float64]
"""A weighted count or rate: a float, or float64 array for element-wise use."""


def ratio(numerator: Number, denominator: Number, name: str) -> NDArray[np.float64]:
    """Element-wise ``numerator / denominator`` under the active policy.

    Elements whose denominator is 0 are undefined and take the policy's value.
    The inputs are never modified.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    undefined = den == 0
    if not undefined.any():
        return num / den
    out = np.empty(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=~undefined)
    out[np.broadcast_to(undefined, out.shape)] = _fill_value(name)
    return out


def undefined(name: str) -> float:
    """The value of a scalar metric that is undefined, under the active policy."""
    return _fill_value(name)


def scalar_ratio(numerator: float, denominator: float, name: str) -> float:
    """``numerator / denominator`` for Python floats under the active policy."""
    if denominator == 0:
        return _fill_value(name)
    return float(numerator) / float(denominator)

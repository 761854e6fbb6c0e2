"""Equal-width bin edges over any finite score range, computed without overflow.

``np.linspace(low, high, n + 1)`` computes the width ``high - low``, which overflows to
infinity when the range spans more than the largest float64 (``low = -1e308``,
``high = 1e308``): its edges are then NaN and numpy warns. :func:`equal_width_edges`
gives np.linspace's edges, bit for bit, for a width below half the largest float64
(np.linspace may overflow above it: ``j * (width / n)`` rounds up), and otherwise
interpolates ``low * (1 - t) + high * t`` with ``t = j / n``, whose terms are each at
most ``max(|low|, |high|)`` in magnitude: finite, no warning (docs/definitions.md,
"Equal-width bins").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.arrays import check_bin_width

__all__ = ["equal_width_edges", "range_around", "width_overflows"]


def width_overflows(low: float, high: float) -> bool:
    """Whether the width ``high - low`` of finite ends, or np.linspace's products of its
    steps (``j * width / n`` may round above the width), can overflow: a width
    above half the largest float64.

    Examples
    --------
    >>> from prcurve.core.bin_edges import width_overflows
    >>> width_overflows(-1e308, 1e308), width_overflows(0.0, 1e307)
    (True, False)
    """
    width = float(high) - float(low)  # Python floats: no numpy warning
    return not width < _HALF_MAX  # inf (and NaN) too


_HALF_MAX = float(np.finfo(np.float64).max) / 2


def range_around(value: float) -> tuple[float, float]:
    """A range of nonzero width around one finite ``value``: half a unit each side, or
    the neighbouring float64 values where half a unit is below float64's spacing (from
    2^53, where ``value - 0.5`` rounds back to ``value``).

    Examples
    --------
    >>> from prcurve.core.bin_edges import range_around
    >>> range_around(2.0)
    (1.5, 2.5)
    >>> range_around(7e15)
    (6999999999999999.0, 7000000000000001.0)
    """
    low, high = value - 0.5, value + 0.5
    if low == value:
        low = math.nextafter(value, -math.inf)
    if high == value:
        high = math.nextafter(value, math.inf)
    return low, high


def equal_width_edges(low: float, high: float, n_bins: int) -> NDArray[np.float64]:
    """``n_bins + 1`` equal-width edges from ``low`` to ``high`` (finite, ``low < high``).

    The ends are exactly ``low`` and ``high``; the edges increase strictly, or, when the
    bins are narrower than the spacing of float64 there (2^20 bins over [1e18, 1e18 +
    5]), the error says so (:func:`~prcurve.validation.arrays.check_bin_width`).

    Examples
    --------
    >>> from prcurve.core.bin_edges import equal_width_edges
    >>> equal_width_edges(0.0, 1.0, 4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> equal_width_edges(-1e308, 1e308, 2).tolist()
    [-1e+308, 0.0, 1e+308]
    """
    low, high = float(low), float(high)
    edges: NDArray[np.float64]
    if not width_overflows(low, high):
        edges = np.linspace(low, high, n_bins + 1)
    else:
        t: NDArray[Any] = np.arange(n_bins + 1, dtype=np.float64) / n_bins
        # Each product is at most max(|low|, |high|); their sum, of opposite signs where
        # the range straddles 0, cannot overflow either.
        edges = low * (1.0 - t) + high * t
        edges[0], edges[-1] = low, high
    check_bin_width(edges, low, high, n_bins)  # bins narrower than float64's spacing
    return edges

"""Integer scores beyond 2^53 in the exact state: its thresholds compared exactly.

``ThresholdCounts.from_scores`` (and ``pr_curve``, ``average_precision``, ``roc_curve``
without bins) keeps int64 scores that float64 cannot hold as int64 thresholds, ordered
as integers, as scikit-learn orders them (docs/definitions.md, "Scores"). The two
places where such thresholds meet another number live here: a threshold asked for
(:func:`thresholds_at_or_above`) and another state's thresholds in a merge
(:func:`as_integers_with`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.arrays import mixed_integer_thresholds

__all__ = ["as_integers_with", "thresholds_at_or_above"]


def thresholds_at_or_above(thresholds: NDArray[Any], threshold: Any, t: float) -> int:
    """How many of the strictly decreasing ``thresholds`` are ``>= threshold`` (``t``:
    the checked float of it). Integer thresholds (scores beyond 2^53, kept as int64)
    are compared with the integer ``ceil(threshold)``, exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.integer_scores import thresholds_at_or_above
    >>> thresholds_at_or_above(np.array([2**60 + 2, 2**60 + 1, 2**60]), 2**60 + 1, 2.0**60)
    2
    >>> thresholds_at_or_above(np.array([0.9, 0.5, 0.1]), 0.5, 0.5)
    2
    """
    if thresholds.dtype.kind == "i":
        exact = int(threshold) if float(t).is_integer() and isinstance(
            threshold, (int, np.integer)) else math.ceil(t)
        return int(thresholds.shape[0] - np.searchsorted(thresholds[::-1], exact, side="left"))
    return int(np.searchsorted(-thresholds, -t, side="right"))


def as_integers_with(a: NDArray[Any], b: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Two states' thresholds, compared exactly: when one is int64 (integer scores beyond
    2^53, ThresholdCounts._from_integers), float thresholds that are whole numbers in
    int64's range become int64 too (exactly: each float is that integer), as a part of
    the same integer scores that float64 happened to hold gives; other floats are
    refused."""
    if (a.dtype.kind == "i") == (b.dtype.kind == "i"):
        return a, b
    floats = b if a.dtype.kind == "i" else a
    inside = floats.shape[0] == 0 or (float(floats.max()) < 2.0**63
                                       and float(floats.min()) >= -(2.0**63))
    if not (inside and bool(np.all(np.floor(floats) == floats))):
        raise mixed_integer_thresholds("other")
    if a.dtype.kind == "i":
        return a, b.astype(np.int64)
    return a.astype(np.int64), b

"""The exact state of rows whose scores all differ, weighted or with soft labels: one
row a threshold, built without the general path's full-length copies (issue 26, item 6,
session 35). Used by ``ThresholdCounts.from_scores`` (:mod:`prcurve.core.counts`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.sorting import _run_starts

__all__ = ["distinct_rows_state", "sorted_rows"]

F64 = NDArray[np.float64]
State = tuple[F64, F64, F64, float, float]

_KEEP_BLOCK = 1 << 16


def sorted_rows(scores: NDArray[Any], w: F64, fraction: F64) -> tuple[
        NDArray[np.intp], NDArray[Any], NDArray[np.intp], State | None]:
    """The rows in ascending order of score for the general path: ``(order, values,
    starts, None)``, the distinct scores and where each run of equal scores starts;
    or, where every score differs, ``(order, values, starts, state)`` with the state
    of :func:`distinct_rows_state` (the first three then empty)."""
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    starts = _run_starts(sorted_scores)
    if starts is None:
        held = [order]  # the state's builder lets the order go once it has gathered
        del order
        state = distinct_rows_state(sorted_scores, held, w, fraction)
        if state is not None:
            empty = np.zeros(0, dtype=np.intp)
            return empty, sorted_scores[:0], empty, state
        order = np.argsort(scores, kind="stable")  # zero weights or overflow: rare
        starts = np.arange(sorted_scores.shape[0])
    return order, sorted_scores[starts], starts, None


def distinct_rows_state(sorted_scores: NDArray[Any], held: list[NDArray[np.intp]],
                        w: F64, fraction: F64) -> State | None:
    """The state of rows whose scores all differ (weighted or soft labels), or None where
    the general path must run (a row of zero weight, or sums past float64: it drops the
    row, or names the error).

    The same values bit for bit as the general path (``ThresholdCounts._from_ascending``
    of one group a row: each row's weights are its own sums), without its full-length
    copies: the rows gathered in decreasing order of score, so that the cumulative sums
    run in place; the gather order freed first (issue 26, item 6, session 35: 89 bytes a
    row at peak before, 40 now, traced at 2^21 rows).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.distinct_rows import distinct_rows_state
    >>> scores = np.array([0.2, 0.9, 0.5])
    >>> order = np.argsort(scores, kind="stable")
    >>> thresholds, tp, fp, n_pos, n_neg = distinct_rows_state(
    ...     scores[order], [order], np.array([1.0, 2.0, 1.0]), np.array([0.0, 1.0, 1.0]))
    >>> thresholds.tolist(), tp.tolist(), fp.tolist(), n_pos, n_neg
    ([0.9, 0.5, 0.2], [2.0, 3.0, 3.0], [0.0, 0.0, 1.0], 3.0, 1.0)
    """
    descending = held.pop()[::-1]  # the order, let go after the gathers
    ws = w[descending]
    pos = fraction[descending]
    del descending
    neg = np.subtract(1.0, pos)
    np.multiply(ws, pos, out=pos)  # w * fraction, as the general path's (w * fraction)[order]
    np.multiply(ws, neg, out=neg)  # w * (1 - fraction)
    del ws
    n = pos.shape[0]
    for low in range(0, n, _KEEP_BLOCK):  # a zero-weight row is no operating point
        if not bool(np.all(pos[low:low + _KEEP_BLOCK] + neg[low:low + _KEEP_BLOCK] > 0)):
            return None
    thresholds = sorted_scores[::-1] + 0.0  # + 0.0 turns -0.0 into 0.0; also a copy
    with np.errstate(over="ignore"):
        np.cumsum(pos, out=pos)
        np.cumsum(neg, out=neg)
    n_pos = float(pos[-1]) if n else 0.0
    n_neg = float(neg[-1]) if n else 0.0
    if not math.isfinite(n_pos + n_neg):  # the general path names the weight
        return None
    return thresholds.astype(np.float64, copy=False), pos, neg, n_pos, n_neg

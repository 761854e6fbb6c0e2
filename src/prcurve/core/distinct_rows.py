"""The exact state of weighted rows (or soft labels): the rows in the stable order of
their scores (:mod:`prcurve.core.stable_order`, one integer sort), their weights
gathered in that order, and, where every score differs, one row a threshold with the
cumulative sums in place; where scores tie, each tie group's weights summed by
``np.add.reduceat`` in that order (issue 26, item 6, sessions 35 and 36). Used by
``ThresholdCounts.from_scores`` (:mod:`prcurve.core.counts`).

The numbers are those of the formulas the general path used before, bit for bit: the
rows in ``np.argsort(scores, kind="stable")`` order, each row's ``w * y`` and ``w * (1 -
y)`` (``y`` the positive fraction: 1.0 or 0.0 for hard labels, where ``w * True`` is
``w * 1.0``), summed per distinct score by ``np.add.reduceat`` over that order, and the
cumulative sums from the highest score down. Only the full-length copies are gone: no
float64 copy of hard labels, no ``w * y`` before the gather, the order let go as soon as
the gathers are done (session 35: 89 bytes a row at peak; session 36: about 25 bytes a
row beside the inputs, traced at 2^21 rows: tests/test_weighted_state_memory.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.sorting import _run_starts
from prcurve.core.stable_order import stable_order
from prcurve.validation.labels import weight_overflow

__all__ = ["distinct_rows_state", "weighted_state"]

F64 = NDArray[np.float64]
State = tuple[F64, F64, F64, float, float]

_KEEP_BLOCK = 1 << 16


def weighted_state(scores: NDArray[Any], positive: NDArray[np.bool_] | None,
                   fraction: F64 | None, w: F64) -> State:
    """The state of weighted rows (hard labels ``positive``, or soft labels
    ``fraction``): one row a threshold where every score differs, else each tie group's
    weights summed by ``np.add.reduceat`` in the stable order, the sums stored highest
    score first (``out=`` a reversed view: the same sums) so that the cumulative sums
    run in place; groups of zero weight dropped (no operating point).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.distinct_rows import weighted_state
    >>> state = weighted_state(np.array([0.2, 0.9, 0.5]), np.array([False, True, True]),
    ...                        None, np.array([1.0, 2.0, 1.0]))
    >>> [a.tolist() for a in state[:3]], state[3:]
    ([[0.9, 0.5, 0.2], [2.0, 3.0, 3.0], [0.0, 0.0, 1.0]], (3.0, 1.0))
    >>> state = weighted_state(np.array([0.5, 0.5, 0.1]), np.array([True, False, True]),
    ...                        None, np.array([1.0, 2.0, 4.0]))
    >>> [a.tolist() for a in state[:3]], state[3:]
    ([[0.5, 0.1], [1.0, 5.0], [2.0, 2.0]], (5.0, 2.0))
    """
    order, ordered = stable_order(scores)
    starts = _run_starts(ordered)
    if starts is None:  # one row a threshold: gathered in decreasing order of score
        thresholds = ordered[::-1] + 0.0  # + 0.0 turns -0.0 into 0.0; also a copy
        del ordered
        held = [order]
        del order
        return distinct_rows_state(thresholds, held, w, positive, fraction)
    thresholds = ordered[starts][::-1] + 0.0
    del ordered
    held = [order]
    del order
    pos, neg = _gathered_parts(held, w, positive, fraction)
    groups = starts.shape[0]
    tp = np.empty(groups)
    np.add.reduceat(pos, starts, out=tp[::-1])  # each group in row order, highest first
    del pos
    fp = np.empty(groups)
    np.add.reduceat(neg, starts, out=fp[::-1])
    del neg, starts
    arrays = [thresholds, tp, fp]
    del thresholds, tp, fp
    return _cumulative(arrays, lambda: _largest_group(scores, w, positive, fraction))


def _gathered_parts(held: list[NDArray[np.intp]], w: F64, positive: NDArray[np.bool_] | None,
                    fraction: F64 | None) -> tuple[F64, F64]:
    """Each row's ``w * y`` and ``w * (1 - y)`` in the order ``held`` holds (gathered
    first, then multiplied: the same products, element for element); the order let go
    once gathered, before the products' arrays are made."""
    order = held.pop()
    weights = w[order]
    if positive is not None:
        hard = positive[order]
        del order
        pos = np.multiply(weights, hard)  # w * 1.0 or w * 0.0, as w * y
        np.logical_not(hard, out=hard)
        np.multiply(weights, hard, out=weights)  # w * (1 - y)
        return pos, weights
    if fraction is None:  # unreachable by construction (BinaryLabels holds one)
        raise TypeError("weighted_state needs hard or soft labels")
    pos = fraction[order]
    del order
    neg = np.subtract(1.0, pos)
    np.multiply(weights, pos, out=pos)
    np.multiply(weights, neg, out=neg)
    return pos, neg


def distinct_rows_state(thresholds: NDArray[Any], held: list[NDArray[np.intp]], w: F64,
                        positive: NDArray[np.bool_] | None, fraction: F64 | None) -> State:
    """The state of rows whose scores all differ (weighted or soft labels), from the
    decreasing ``thresholds`` and the ascending stable order (in ``held``, let go after
    the gathers): the rows gathered in decreasing order of score, so that the cumulative
    sums run in place; rows of zero weight dropped (no operating point).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.distinct_rows import distinct_rows_state
    >>> scores = np.array([0.2, 0.9, 0.5])
    >>> order = np.argsort(scores, kind="stable")
    >>> thresholds, tp, fp, n_pos, n_neg = distinct_rows_state(
    ...     scores[order][::-1], [order], np.array([1.0, 2.0, 1.0]), None,
    ...     np.array([0.0, 1.0, 1.0]))
    >>> thresholds.tolist(), tp.tolist(), fp.tolist(), n_pos, n_neg
    ([0.9, 0.5, 0.2], [2.0, 3.0, 3.0], [0.0, 0.0, 1.0], 3.0, 1.0)
    """
    held.append(held.pop()[::-1])  # decreasing order of score
    arrays = [thresholds, *_gathered_parts(held, w, positive, fraction)]
    del thresholds
    # The largest row's part, as the general path names its largest group's (a row
    # here): the same products, from the rows in any order (a maximum is exact).
    return _cumulative(arrays, lambda: _largest_part(w, positive, fraction))


def _cumulative(arrays: list[NDArray[Any]], largest: Callable[[], float]) -> State:
    """The state from ``arrays``: decreasing thresholds and each one's own positive and
    negative weight (fresh arrays, taken from the list so that each is freed when
    replaced, and made cumulative in place); thresholds of zero weight dropped; the total
    past float64 an error naming ``largest()``, a group's weight."""
    neg = arrays.pop()
    pos = arrays.pop()
    thresholds = arrays.pop()
    n = pos.shape[0]
    for low in range(0, n, _KEEP_BLOCK):  # a zero-weight row is no operating point
        if not bool(np.all(pos[low:low + _KEEP_BLOCK] + neg[low:low + _KEEP_BLOCK] > 0)):
            keep = (pos + neg) > 0
            pos = pos[keep]  # one at a time: each old array freed as the next is made
            neg = neg[keep]
            thresholds = thresholds[keep]
            break
    with np.errstate(over="ignore"):
        np.cumsum(pos, out=pos)
        np.cumsum(neg, out=neg)
    n_pos = float(pos[-1]) if pos.shape[0] else 0.0
    n_neg = float(neg[-1]) if neg.shape[0] else 0.0
    if not math.isfinite(n_pos + n_neg):  # weights summing past float64 (issue 10)
        raise weight_overflow("sample_weight", largest())
    return thresholds.astype(np.float64, copy=False), pos, neg, n_pos, n_neg


def _largest_part(w: F64, positive: NDArray[np.bool_] | None, fraction: F64 | None) -> float:
    """The largest ``w * y`` or ``w * (1 - y)`` of any row (for the overflow's message)."""
    pos, neg = _gathered_parts([np.arange(w.shape[0])], w, positive, fraction)
    return max(float(np.max(pos, initial=0.0)), float(np.max(neg, initial=0.0)))


def _largest_group(scores: NDArray[Any], w: F64, positive: NDArray[np.bool_] | None,
                   fraction: F64 | None) -> float:
    """The largest positive or negative weight of a tie group (for the overflow's
    message, as the general path named it): the groups summed again."""
    order, ordered = stable_order(scores)
    starts = _run_starts(ordered)
    if starts is None:
        starts = np.arange(ordered.shape[0])
    pos, neg = _gathered_parts([order], w, positive, fraction)
    if not starts.shape[0]:
        return 0.0
    with np.errstate(over="ignore"):  # the first summing warned already, as before
        return max(float(np.max(np.add.reduceat(part, starts))) for part in (pos, neg))

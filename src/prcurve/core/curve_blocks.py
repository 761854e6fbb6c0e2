"""Views of a large exact curve read a block of thresholds at a time (issue 26, item 6).

A curve of 3*10^7 distinct thresholds holds 720 MB of state; each full-length view
(precision, recall, F, FN) is another 240 MB. The scalar views the report reads (the
best F-beta point, the ROC area) need no full-length array: they are computed here
from slices of the state, :data:`VIEW_BLOCK` thresholds at a time, with the same
element-wise formulas as the full arrays (:func:`prcurve.core.confusion._f_beta`), so
the values are the same bit for bit. They read the state's own counts, which may be
uint32 (``ThresholdCounts``' invariant): each block is turned into float64 first
(:func:`block`), so no arithmetic runs in an integer type. :class:`prcurve.PRCurve`
uses these functions only for curves longer than one block; shorter curves keep their
array path (and its warnings, once per view).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.confusion import _f_beta, _precision
from prcurve.core.counts import SUM_TOLERANCE, scale_exponent
from prcurve.core.undefined import ratio

__all__ = ["VIEW_BLOCK", "best_f_index", "block", "f_betas", "precisions", "recalls",
           "select_index"]

F64 = NDArray[np.float64]
Counts = NDArray[Any]
"""A state's cumulative counts: float64, or uint32 for hard labels."""

VIEW_BLOCK = 1 << 20
"""Thresholds whose views are computed together (8 MiB per float64 array)."""


def block(counts: Counts, start: int, size: int | None = None) -> F64:
    """``counts[start:start + size]`` (``size``: :data:`VIEW_BLOCK` by default) as float64
    (integer counts converted: exact).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.curve_blocks import block
    >>> block(np.array([1, 2, 3], dtype=np.uint32), 1).tolist()
    [2.0, 3.0]
    """
    stop = start + (VIEW_BLOCK if size is None else size)
    return counts[start:stop].astype(np.float64, copy=False)


def f_betas(tp: F64, fp: F64, fn: F64, k: int, beta: float) -> F64:
    """F-beta at each of these thresholds, the counts taken in units of ``2**-k``
    (:func:`~prcurve.core.counts.scale_exponent`: counts of extreme size, weights like
    1e300): :meth:`prcurve.PRCurve.f_beta`, whole or a block at a time."""
    if k:
        tp, fp, fn = (np.ldexp(c, k) for c in (tp, fp, fn))
    return _f_beta(tp, fp, fn, beta)


def _f_block(tp: Counts, fp: Counts, n_pos: float, k: int, beta: float, start: int) -> F64:
    tp_b = block(tp, start)
    return f_betas(tp_b, block(fp, start), n_pos - tp_b, k, beta)


def best_f_index(tp: Counts, fp: Counts, n_pos: float, n_neg: float, beta: float
                 ) -> tuple[int, float] | None:
    """The first threshold (the highest) whose F-beta ties the largest within
    ``SUM_TOLERANCE``, and its F-beta; None when every F-beta is undefined (NaN).

    Two passes over the blocks: the largest defined F-beta, then the first block that
    holds a value near it (only blocks whose own largest value is near are computed
    again). Call it inside the curve's ``undefined_scope``.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.curve_blocks import best_f_index
    >>> best_f_index(np.array([1.0, 1.0, 2.0, 2.0]), np.array([0.0, 1.0, 1.0, 2.0]),
    ...              2.0, 2.0, 1.0)
    (2, 0.8)
    """
    k = scale_exponent(n_pos + n_neg)
    starts = range(0, tp.shape[0], VIEW_BLOCK)
    block_best = []
    for start in starts:
        f = _f_block(tp, fp, n_pos, k, beta, start)
        defined = f[~np.isnan(f)]
        block_best.append(float(np.max(defined)) if defined.shape[0] else -np.inf)
    best = max(block_best, default=-np.inf)
    if best == -np.inf:
        return None
    for start, top in zip(starts, block_best, strict=True):
        if top >= best - SUM_TOLERANCE:
            f = _f_block(tp, fp, n_pos, k, beta, start)
            with np.errstate(invalid="ignore"):
                index = int(np.flatnonzero(f >= best - SUM_TOLERANCE)[0])
            return start + index, float(f[index])
    return None  # not reached: the block holding the best holds a value near it


def precisions(tp: F64, fp: F64) -> F64:
    """TP / (TP + FP) at each of these thresholds: :attr:`prcurve.PRCurve.precision`, whole
    or a block at a time (FN and TN do not enter PPV)."""
    return _precision(tp, fp, 0.0, 0.0)


def recalls(tp: F64, n_pos: float) -> F64:
    """TP / n_pos at each of these thresholds (undefined without positives):
    :attr:`prcurve.PRCurve.recall`, whole or a block at a time."""
    return ratio(tp, np.full_like(tp, n_pos), "recall")


def _rates(tp: Counts, fp: Counts, n_pos: float, start: int) -> tuple[F64, F64]:
    """Precision and recall of one block."""
    tp_b = block(tp, start)
    return precisions(tp_b, block(fp, start)), recalls(tp_b, n_pos)


def _largest(values: F64) -> float:
    defined = values[~np.isnan(values)]
    return float(np.max(defined)) if defined.shape[0] else -np.inf


def select_index(tp: Counts, fp: Counts, n_pos: float, level: float, by: str
                 ) -> tuple[int, float] | None:
    """``PRCurve.precision_at_recall`` (``by="recall"``) or ``recall_at_precision``
    (``by="precision"``) a block at a time: among the thresholds whose ``by`` rate
    reaches ``level`` (within ``SUM_TOLERANCE``), the largest other rate, then the
    largest ``by`` rate, then the highest threshold; ties within ``SUM_TOLERANCE``.

    Returns (index, value), or None when no threshold reaches the level. Raises
    ``LookupError`` when no candidate's rate is defined (the caller then uses its
    arrays, whose rule for that case is "every candidate ties"). Call it inside the
    curve's ``undefined_scope``.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.curve_blocks import select_index
    >>> tp, fp = np.array([1.0, 1.0, 2.0, 2.0]), np.array([0.0, 1.0, 1.0, 2.0])
    >>> select_index(tp, fp, 2.0, 0.6, "recall")
    (2, 0.6666666666666666)
    >>> select_index(tp, fp, 2.0, 0.6, "precision")
    (2, 1.0)
    """
    starts = list(range(0, tp.shape[0], VIEW_BLOCK))

    def roles(start: int) -> tuple[F64, F64, NDArray[np.bool_]]:
        precision, recall = _rates(tp, fp, n_pos, start)
        primary, secondary = (precision, recall) if by == "recall" else (recall, precision)
        with np.errstate(invalid="ignore"):
            return primary, secondary, np.asarray(secondary >= level - SUM_TOLERANCE)

    # 1: the largest primary rate among the candidates (each block's own, kept).
    tops, found = [], False
    for start in starts:
        primary, _, candidate = roles(start)
        found = found or bool(candidate.any())
        tops.append(_largest(primary[candidate]))
    if not found:
        return None
    best = max(tops)
    if best == -np.inf:
        raise LookupError("no candidate's rate is defined")
    # 2: the largest secondary rate among the candidates tied on the primary.
    near = [start for start, top in zip(starts, tops, strict=True)
            if top >= best - SUM_TOLERANCE]
    seconds = []
    for start in near:
        primary, secondary, candidate = roles(start)
        with np.errstate(invalid="ignore"):
            tied = candidate & (primary >= best - SUM_TOLERANCE)
        seconds.append(_largest(secondary[tied]))
    second = max(seconds)
    # 3: the first (highest) threshold tied on both.
    for start, top in zip(near, seconds, strict=True):
        if top >= second - SUM_TOLERANCE or second == -np.inf:
            primary, secondary, candidate = roles(start)
            with np.errstate(invalid="ignore"):
                tied = candidate & (primary >= best - SUM_TOLERANCE)
                if second != -np.inf:
                    tied &= secondary >= second - SUM_TOLERANCE
            hits = np.flatnonzero(tied)
            if hits.shape[0]:
                return start + int(hits[0]), float(primary[hits[0]])
    raise LookupError("no tied candidate")  # not reached: the best one is tied

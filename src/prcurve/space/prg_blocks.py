"""A long precision-recall-gain curve's area, hull and drawn line, a block at a time.

A curve of 10^7 thresholds makes every full-length PRG array (TP, FP, both gains, the
curve with its crossings inserted) 80 MB, and :class:`~prcurve.space.prg.PRGCurve`'s
array path holds a dozen of them at once (2.4 GB at 10^7 in ``prcurve report --out``,
issue 26, item 6). Here the same values are computed from blocks of
:data:`~prcurve.core.curve_blocks.VIEW_BLOCK` thresholds (:meth:`prcurve.PRCurve.count_block`)
with the same element-wise formulas (``PRGCurve._gains``), so they are the same bit for bit:

- :func:`auprg`: the trapezoid sum of the recall-gain >= 0 part, added in the order
  numpy's ``np.sum`` adds a contiguous float64 array (pairwise summation: halves split at
  a multiple of 8, down to blocks of 128, numpy's ``pairwise_sum``), the leaves of that tree
  summed by ``np.sum`` itself. A vertical segment (equal TP) adds a 0 to that sum, but it
  is still one of its terms: dropping it would change the rounding;
- :func:`reduced_points`: the points of the recall-gain >= 0 part that a drawing or the
  hull can need. Along a run of equal TP the recall gain is constant and the precision gain
  ``1 − (π/(1 − π))·FP/TP`` does not increase (FP does not decrease and every operation is
  monotone in IEEE arithmetic). So the upper hull's vertices are run starts (the highest
  point at one recall gain; Flach and Kull 2015: a vertical segment adds no hull vertex),
  and M4 (:mod:`prcurve.present.lines`), whose pixel columns depend on the recall gain only,
  keeps from a run at most its start (the run's maximum, first), its end (last), and the
  first point equal to its end (the first place of its minimum). The points on each side
  of a change of sign of the precision gain are kept too, so that the x-axis crossings
  (``PRGCurve._with_x_axis_crossings``) are found between the same pairs: between two kept
  points every dropped point has their sign, so no new pair appears.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray

from prcurve.core.curve_blocks import VIEW_BLOCK
from prcurve.space.prg_hull import chain, near_hull, spread

if TYPE_CHECKING:
    from prcurve.space.prg import PRGCurve

__all__ = ["auprg", "chain", "line_blocks", "unit_ends", "upper_hull"]

F64 = NDArray[np.float64]

_LEAF = 1 << 17
"""Subtrees of the pairwise sum at most this long are summed by one ``np.sum`` call."""


class _Unit(NamedTuple):
    """The recall-gain >= 0 part ``U`` of the curve: an optional head (the y-axis crossing,
    with its interpolated counts and gains) and curve points ``start`` onwards."""

    head: tuple[float, float, float, float] | None  # tp, fp, recall gain, precision gain
    start: int  # the curve index of U's first non-head point
    length: int  # points of U, the head included


def _unit(prg: PRGCurve) -> _Unit:
    """Find where the recall gain becomes >= 0 and the y-axis crossing's point there."""
    curve = prg.curve
    n = len(curve)
    first = n - 1  # the last point has recall gain 1
    for lo in range(0, n, VIEW_BLOCK):
        tp, fp = curve.count_block(lo, VIEW_BLOCK)
        at = np.flatnonzero(prg._gains(tp, fp)[0] >= 0)
        if at.shape[0]:
            first = lo + int(at[0])
            break
    # PRGCurve._with_y_axis_crossing on the points before and at that index: the same
    # arithmetic as on the whole sequence (the empty prediction has TP = FP = 0).
    tp1, fp1 = curve.count_block(first, 1)
    if first:
        tp0, fp0 = curve.count_block(first - 1, 1)
    else:
        tp0, fp0 = np.zeros(1), np.zeros(1)
    thresholds = np.array([np.nan, np.nan])
    _, tp, fp, crossing, x, y = prg._with_y_axis_crossing(
        thresholds, np.concatenate([tp0, tp1]), np.concatenate([fp0, fp1]))
    if crossing.any():
        head = (float(tp[1]), float(fp[1]), float(x[1]), float(y[1]))
        return _Unit(head, first, n - first + 1)
    return _Unit(None, first, n - first)


def _points(prg: PRGCurve, unit: _Unit, lo: int, hi: int) -> tuple[F64, F64, F64, F64]:
    """TP, FP, recall gain and precision gain of ``U[lo:hi]``."""
    h = 1 if unit.head is not None else 0
    first = max(lo, h)
    tp, fp = prg.curve.count_block(unit.start + first - h, max(hi - first, 0))
    x, y = prg._gains(tp, fp)
    if lo < h and unit.head is not None:
        head = [np.array([value]) for value in unit.head]
        tp, fp = np.concatenate([head[0], tp]), np.concatenate([head[1], fp])
        x, y = np.concatenate([head[2], x]), np.concatenate([head[3], y])
    return tp, fp, x, y


def auprg(prg: PRGCurve) -> float:
    """``PRGCurve.auprg()`` of a non-degenerate curve, a block at a time (module docstring).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.prg_blocks import auprg
    >>> prg = pr_curve([1, 1, 0, 0, 1, 0], [0.8, 0.8, 0.6, 0.4, 0.4, 0.2]).prg()
    >>> auprg(prg) == prg.auprg()
    True
    """
    unit = _unit(prg)

    def terms(lo: int, hi: int) -> F64:  # the trapezoids of U[lo:hi + 1], as auprg's
        _, _, x, y = _points(prg, unit, lo, hi + 1)
        return np.asarray(np.diff(x) * (y[1:] + y[:-1]) / 2.0, dtype=np.float64)

    def pairwise(lo: int, n: int) -> np.float64:
        # numpy's pairwise_sum: a subtree of at most _LEAF terms is np.sum of its terms
        # (that sum starts with the same splits); a larger one is its halves' sum.
        if n <= _LEAF:
            return np.sum(terms(lo, lo + n))
        half = n // 2
        half -= half % 8
        return pairwise(lo, half) + pairwise(lo + half, n - half)

    return float(pairwise(0, max(unit.length - 1, 0)))


def unit_ends(prg: PRGCurve) -> tuple[float, float, int]:
    """Recall gains of the first and last points of ``prg``'s recall-gain >= 0 part (the
    y-axis crossing or the first point there; the always-positive point) and its length."""
    unit = _unit(prg)
    _, _, x, _ = _points(prg, unit, 0, 1)
    _, _, last, _ = _points(prg, unit, unit.length - 1, unit.length)
    return float(x[0]), float(last[0]), unit.length


def line_blocks(prg: PRGCurve) -> Iterator[tuple[F64, F64, NDArray[np.bool_]]]:
    """The rows of ``prg.points()`` with recall gain >= 0, a block at a time, in order:
    recall gain, precision gain, and whether each is an operating point in the unit square
    (not a crossing; ``in_unit_square``). Each block's x-axis crossings are found among
    its points and the next block's first (``PRGCurve._with_x_axis_crossings``: the same
    pairs, the same arithmetic).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.prg_blocks import line_blocks
    >>> prg = pr_curve([1, 1, 0, 0, 1, 0], [0.8, 0.8, 0.6, 0.4, 0.4, 0.2]).prg()
    >>> [x.tolist() for x, _, _ in line_blocks(prg)]
    [[0.0, 0.5, 0.5, 1.0, 1.0]]
    """
    unit = _unit(prg)
    n = unit.length
    for lo in range(0, n, VIEW_BLOCK):
        hi = min(lo + VIEW_BLOCK, n)
        tp, fp, x, y = _points(prg, unit, lo, min(hi + 1, n))
        crossing = np.zeros(tp.shape, dtype=bool)
        if lo == 0 and unit.head is not None:
            crossing[0] = True
        _, _, _, crossing, x, y = prg._with_x_axis_crossings(
            np.full(tp.shape, np.nan), tp, fp, crossing, x, y)
        if hi < n:  # the next block's first point: it is drawn with that block
            x, y, crossing = x[:-1], y[:-1], crossing[:-1]
        with np.errstate(invalid="ignore"):
            rows = x >= 0  # as the drawing keeps them (a crossing's may be NaN)
            x, y, crossing = x[rows], y[rows], crossing[rows]
            real = ~crossing & (y >= 0)
        yield x, y, real


_START = (-np.inf, np.nan, -np.inf)
""":func:`_as_high`'s state before the first point."""


def _as_high(x: F64, y: F64, state: tuple[float, float, float],
             ) -> tuple[NDArray[np.bool_], tuple[float, float, float]]:
    """Which points of a block (in a pass's order, x never decreasing or never increasing)
    are as high as every point of a recall gain before theirs in that order, and the state
    carried to the next block: the highest point of the recall gains strictly before the
    current one, the current recall gain and its highest point."""
    best, group_x, group_max = state
    m = x.shape[0]
    new = np.r_[x[0] != group_x, x[1:] != x[:-1]]  # a recall gain begins
    above = np.maximum.accumulate(np.r_[max(best, group_max), y[:-1]])  # before i
    begins = np.maximum.accumulate(np.where(new, np.arange(m), -1))
    limit = np.where(begins >= 0, above[np.maximum(begins, 0)], best)
    good = y >= limit
    if begins[-1] >= 0:
        g = int(begins[-1])
        best, group_max = float(above[g]), float(np.max(y[g:]))
    else:
        group_max = max(group_max, float(np.max(y)))
    return good, (best, float(x[-1]), group_max)


def upper_hull(prg: PRGCurve) -> tuple[F64, F64]:
    """``_upper_hull`` of ``prg``'s recall-gain >= 0 part (``PRGCurve.convex_hull``'s
    points: the y-axis crossing included, the x-axis ones not), a block at a time: the
    same points fed to the same chain in the same order, so the same hull.

    ``_upper_hull`` sorts the points by recall gain, then by decreasing precision gain,
    and lets into its chain the points as high as every point before them in that order,
    or as every point after: in the curve's order (the recall gain never decreases along
    it), the highest points of their recall gain that are as high as every point of
    smaller recall gain, and the points as high as every point of larger recall gain.
    Those two maxima are found in a pass backwards (a running maximum carried between
    blocks, a boolean per point kept) and in the pass forwards that feeds the chain (the
    gains of each block made twice, not three times): each block, with the points of its
    last recall gain moved to the next block (so that one recall gain is sorted whole), is
    sorted as ``_upper_hull`` sorts and its candidates near the hull
    (:func:`prcurve.space.prg_hull.near_hull`, with the scale of every block's candidates:
    their precision gains lie between the first or last point's and the highest) fed to
    the chain.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.prg_blocks import upper_hull
    >>> prg = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg()
    >>> [v.tolist() for v in upper_hull(prg)]
    [[0.0, 1.0], [1.0, 0.5]]
    """
    unit = _unit(prg)
    n = unit.length
    starts = list(range(0, n, VIEW_BLOCK))
    # Per block, packed 8 to a byte (np.packbits): the flags of 3*10^7 thresholds would
    # otherwise hold 60 MB through the chain (issue 26, item 6).
    after: dict[int, NDArray[np.uint8]] = {}  # as high as every point of larger x
    state = _START
    for lo in starts[::-1]:  # backwards, then forwards with the chain (gains made twice)
        _, _, x, y = _points(prg, unit, lo, min(lo + VIEW_BLOCK, n))
        good, state = _as_high(x[::-1], y[::-1], state)
        after[lo] = np.packbits(good[::-1])
    peak = max(state[0], state[2])  # the highest point of all
    # The candidates' precision gains lie in [min(first, last), peak] (prg_hull.spread).
    ends = (_points(prg, unit, 0, 1)[3], _points(prg, unit, n - 1, n)[3])
    scale = spread(float(min(ends[0][0], ends[1][0])), peak)
    hull: list[tuple[float, float]] = []
    carried = (np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
    state = _START
    for lo in starts:
        _, _, bx, by = _points(prg, unit, lo, min(lo + VIEW_BLOCK, n))
        before, state = _as_high(bx, by, state)  # as high as every point of smaller x
        x, y = np.concatenate([carried[0], bx]), np.concatenate([carried[1], by])
        m = bx.shape[0]
        pre = np.concatenate([carried[2], before])
        suf = np.concatenate([carried[3], np.unpackbits(after.pop(lo), count=m).view(bool)])
        if lo + VIEW_BLOCK < n:  # the last recall gain may go on in the next block
            cut = int(np.searchsorted(x, x[-1], side="left"))
            if cut > 0:
                carried = (x[cut:], y[cut:], pre[cut:], suf[cut:])
                x, y, pre, suf = x[:cut], y[:cut], pre[:cut], suf[:cut]
            else:  # one recall gain so far: carried whole
                carried = (x, y, pre, suf)
                continue
        order = np.lexsort((-y, x))  # _upper_hull's order (x already sorted)
        x, y, pre, suf = x[order], y[order], pre[order], suf[order]
        first = np.r_[True, x[1:] != x[:-1]]
        highest = np.repeat(y[first], np.diff(np.r_[np.flatnonzero(first), x.shape[0]]))
        candidate = (pre & (y >= highest)) | suf
        chain(hull, *near_hull(x[candidate], y[candidate], scale))
    return np.array([h[0] for h in hull]), np.array([h[1] for h in hull])

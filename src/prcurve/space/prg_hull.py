"""The upper convex hull of PRG points: numpy prunes, the monotone chain decides.

``PRGCurve.convex_hull`` is Andrew's monotone chain (upper half) in floating point over
the points sorted by recall gain, then by decreasing precision gain, after a numpy
pre-filter (``prg._upper_hull``'s candidates: the points as high as every point before
them or every point after them). Along a curve's falling tail nearly every point is
such a candidate (7.8 million of 10^7 thresholds), and a Python loop over them cost
1.7 s of CPU (issue 26, item 3). The chain's answer near a hull edge depends on its
rounding (three points in a run of positives are collinear in the reals, a rounded cross
product decides whether the middle one stays), so a different algorithm would not give
the same vertices. Instead :func:`near_hull` drops, with numpy alone, the points that
lie far below the hull, and the chain runs unchanged over the rest, in the same order:

1. A polygon through some of the points (its vertices are points, so each edge is a chord
   under the hull): QuickHull (Barber, Dobkin and Huhdanpaa 1996), all the edges of a
   round at once over the x-sorted points (each edge's points are the contiguous run
   between its two ends; each round adds the point of largest cross product above each
   edge and drops the points on or below it), for at most :data:`_ROUNDS` rounds and
   :data:`_WORK` points looked at per point.
2. A point more than ``margin`` below that polygon is more than ``margin`` below the
   hull, and is dropped; every other point (above the polygon, on it, or within
   ``margin`` under it) goes to the chain.

Why the chain's vertices do not change: the chain's only decision is the sign of the
cross product ``(a - o) x (p - o)`` of three points in x order; a rounded sign can be
wrong only when ``|exact|`` is within the error bound of that formula, about
``3.3e-16 * (|t1| + |t2|)`` (Shewchuk 1997, ``orient2d``'s ``ccwerrboundA``), which for
``a`` between ``o`` and ``p`` is a vertical distance of ``a`` from the line ``o p`` of at most
``6.7e-16 * S``, ``S`` the spread of the points' precision gains (recall gains lie in [0, 1]).
The margin is ``2^-30 * S`` (about 10^-9 of it), a million times that bound: a dropped point
is so far below every line through two points near the hull that every decision it takes
part in (popping it, or it popping a point near the hull) has the exact sign, the one the
exact hull implies: it never stays, and it never removes a point that would otherwise
stay. So the points near the hull meet the chain in the same order with the same
neighbours at each decision that matters. tests/test_prg_hull.py checks the whole path
against the unpruned chain, kept there as the slow oracle, with Hypothesis (collinear
runs, duplicates, ties, soft weights, extreme gains) and on long curves.

Spreads beyond ``1e150`` (or not finite: a precision gain of -inf from a tiny soft label)
and recall gains closer than ``1e-250`` skip the pruning, so no product overflows or
underflows: the chain then sees every candidate (one per recall gain), as before.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["chain", "near_hull"]

F64 = NDArray[np.float64]

_CHAIN_CHUNK = 1 << 16
"""Candidates turned into Python floats at once by :func:`chain` (a block's 2^20 would be
64 MB of float objects and lists)."""

_ROUNDS = 48
"""QuickHull rounds at most (each round splits every edge; 48 suffice for any curve
whose hull splits its points evenly; an unfinished polygon only keeps more points)."""

_WORK = 10
"""QuickHull stops once its rounds have looked at this many points per point: a curve
whose points are nearly all vertices (a smooth concave run) would otherwise take ~20
rounds over nearly every point, only to keep them all. Typical curves finish within
about 7 (issue 15's shape at 2*10^6 rows: 11 rounds, 7.1 points per point)."""

_MARGIN = 2.0 ** -30
"""The drop margin relative to the spread of the precision gains (module docstring)."""

_LARGEST = 1e150
"""Spreads at or above this skip the pruning (their products could overflow)."""

_SMALLEST_GAP = 1e-250
"""Recall gains closer than this skip the pruning: products of such gaps can underflow to
subnormal numbers, whose rounding error is absolute, outside the bound above."""


def spread(y_low: float, y_high: float) -> float:
    """The scale ``S`` of :func:`near_hull`'s margin for candidates whose precision gains
    lie in ``[y_low, y_high]`` (at least 1: recall gains lie in [0, 1]; infinite when
    either is not finite, which turns the pruning off)."""
    if not (np.isfinite(y_low) and np.isfinite(y_high)):
        return float("inf")
    return max(abs(y_low), abs(y_high), abs(y_high - y_low), 1.0)


def near_hull(x: F64, y: F64, scale: float) -> tuple[F64, F64]:
    """The points of ``(x, y)`` (sorted by x, then by decreasing y) that the chain needs:
    the first of each x (the chain skips the others) that is not more than the margin
    below a polygon through the points (module docstring); in their order.

    Parameters
    ----------
    x, y : ndarray of float64
        Recall and precision gains sorted as ``prg._upper_hull`` sorts them.
    scale : float
        :func:`spread` of every point the chain will see (this call's and others').

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.space.prg_hull import near_hull
    >>> x = np.array([0.0, 0.25, 0.5, 0.5, 0.75, 1.0])
    >>> y = np.array([0.0, 0.2, 1.0, 0.1, 0.3, 0.0])
    >>> [v.tolist() for v in near_hull(x, y, 1.0)]
    [[0.0, 0.5, 1.0], [0.0, 1.0, 0.0]]
    """
    if x.shape[0]:
        first = np.empty(x.shape[0], dtype=bool)
        first[0] = True
        np.not_equal(x[1:], x[:-1], out=first[1:])
        x, y = x[first], y[first]
    n = x.shape[0]
    if (n <= 2 or not scale < _LARGEST  # a NaN scale too
            or not np.isfinite(y).all() or np.min(np.diff(x)) < _SMALLEST_GAP):
        return x, y
    vertices = _polygon(x, y)
    # Each point's edge of the polygon: the vertices around it (a vertex is its own left end).
    right = np.searchsorted(vertices, np.arange(n), side="right")
    right = np.minimum(right, vertices.shape[0] - 1)
    left_x, left_y = x[vertices[right - 1]], y[vertices[right - 1]]
    dx = x[vertices[right]] - left_x
    cross = dx * (y - left_y) - (y[vertices[right]] - left_y) * (x - left_x)
    # cross = dx * (height above the edge's line); dx > 0 (one point per x).
    keep = cross >= -(_MARGIN * scale) * dx
    return x[keep], y[keep]


def _polygon(x: F64, y: F64) -> NDArray[np.intp]:
    """Indices of a polygon's vertices (sorted; the first and last point among them)
    through the points: QuickHull's rounds, every edge at once (module docstring)."""
    n = x.shape[0]
    vertices = np.array([0, n - 1], dtype=np.intp)
    alive = np.arange(1, n - 1, dtype=np.intp)  # points above some edge, in x order
    work = 0
    for _ in range(_ROUNDS):
        work += alive.shape[0]
        if not alive.shape[0] or work > _WORK * n:
            break
        edge = np.searchsorted(vertices, alive) - 1
        lo, hi = vertices[edge], vertices[edge + 1]
        cross = ((x[hi] - x[lo]) * (y[alive] - y[lo])
                 - (y[hi] - y[lo]) * (x[alive] - x[lo]))
        above = cross > 0
        alive, edge, cross = alive[above], edge[above], cross[above]
        if not alive.shape[0]:
            break
        starts = np.flatnonzero(np.r_[True, edge[1:] != edge[:-1]])
        sizes = np.diff(np.r_[starts, edge.shape[0]])
        peak = np.repeat(np.maximum.reduceat(cross, starts), sizes)
        top = cross == peak
        # The first point of each edge's largest cross product joins the vertices.
        group = np.repeat(np.arange(starts.shape[0]), sizes)
        first_top = np.flatnonzero(top)
        first_top = first_top[np.r_[True, group[first_top][1:] != group[first_top][:-1]]]
        vertices = np.sort(np.concatenate([vertices, alive[first_top]]))
        rest = np.ones(alive.shape[0], dtype=bool)
        rest[first_top] = False
        alive = alive[rest]
    return vertices


def chain(hull: list[tuple[float, float]], xs: F64, ys: F64) -> None:
    """Andrew's monotone chain, upper half: extend ``hull`` by these points, sorted by x
    then by decreasing y (``prg._upper_hull`` feeds it its points near the hull at once,
    ``prg_blocks.upper_hull`` a block at a time).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.space.prg_hull import chain
    >>> hull: list[tuple[float, float]] = []
    >>> chain(hull, np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.5, 1.0]))  # collinear
    >>> hull
    [(0.0, 0.0), (1.0, 1.0)]
    """
    for start in range(0, xs.shape[0], _CHAIN_CHUNK):  # the same points, in the same order
        stop = start + _CHAIN_CHUNK
        for px, py in zip(xs[start:stop].tolist(), ys[start:stop].tolist(), strict=True):
            if hull and hull[-1][0] == px:  # the higher of two points at one x came first
                continue
            while len(hull) >= 2:
                (ox, oy), (ax_, ay) = hull[-2], hull[-1]
                if (ax_ - ox) * (py - oy) - (ay - oy) * (px - ox) >= 0:  # not a right turn
                    hull.pop()
                else:
                    break
            hull.append((px, py))

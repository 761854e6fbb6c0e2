"""Drawn lines reduced to what their pixels show: a curve of millions of points draws fast.

A PR curve of 10^7 thresholds drawn point by point costs seconds in matplotlib and
megabytes in a page, though at the plotted size most points fall on the same pixel.
:func:`m4_reduce` keeps, in each pixel column, the first, last, lowest and highest point
(M4 aggregation, Jugel et al. 2014, "M4: a visualization-oriented time series data
aggregation"): drawn at that width, the line through the kept points stays within one
pixel of the line through all of them. :func:`drawn_points` applies it to a line about to
be drawn when it has more points than its pixels can show, so small curves are drawn
exactly as given. The page (:mod:`prcurve.present.html`) and the static plots
(:mod:`prcurve.present.plot`, :mod:`prcurve.present.threshold_plot`) use it; the
numbers of the report never do.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

__all__ = ["drawn_blocks", "drawn_points", "m4_columns", "m4_reduce"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def m4_reduce(x: F64, y: F64, columns: int) -> I64:
    """Indices of the points a line chart of ``columns`` pixel columns needs (M4).

    ``x`` must be non-decreasing. Each column of equal width over
    ``[x[0], x[-1]]`` keeps its first, last, lowest and highest point, in
    their original order (Jugel et al. 2014): drawn at that width, the line
    through the kept points stays within one pixel of the line through all.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.lines import m4_reduce
    >>> x = np.linspace(0, 1, 1001); y = np.sin(40 * x)
    >>> kept = m4_reduce(x, y, 10)
    >>> len(kept) <= 40, int(kept[0]), int(kept[-1])
    (True, 0, 1000)
    """
    n = x.shape[0]
    if n <= 4 * columns:
        return np.arange(n, dtype=np.int64)
    return m4_columns(x, y, columns)


def m4_columns(x: F64, y: F64, columns: int, *, first: float | None = None,
               last: float | None = None) -> I64:
    """:func:`m4_reduce` however few the points: each column's first, last, lowest and
    highest point (its first place), for a line already reduced elsewhere to a subset that
    holds every point M4 keeps: that subset's M4 points are the whole line's, as each
    point's column depends on ``x[0]``, ``x[-1]`` and its own ``x`` only.

    ``first`` and ``last``: the whole line's ``x[0]`` and ``x[-1]`` when ``x`` is one block
    of it. A line reduced block by block with the whole line's columns, then reduced again,
    keeps the same points as reduced whole: each column's first, last, and first lowest
    and highest points are each their block's too (a block holding part of a column keeps
    that part's first, last, lowest and highest), and the second reduction finds each
    among the kept points, where nothing before it matches it.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.lines import m4_columns
    >>> m4_columns(np.array([0.0, 0.0, 0.0, 1.0]), np.array([3.0, 1.0, 2.0, 5.0]), 1).tolist()
    [0, 1, 3]
    """
    n = x.shape[0]
    start = x[0] if first is None else np.float64(first)
    span = float((x[-1] if last is None else np.float64(last)) - start)
    if span <= 0:
        column = np.zeros(n, dtype=np.int64)
    else:
        column = np.minimum(((x - start) / span * columns).astype(np.int64), columns - 1)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    ends = np.r_[starts[1:], n] - 1
    # Lowest and highest per column: reduceat over the column's slice.
    low = np.minimum.reduceat(y, starts)
    high = np.maximum.reduceat(y, starts)
    segment = np.repeat(np.arange(starts.shape[0]), np.diff(np.r_[starts, n]))
    kept = [starts, ends]
    for extreme in (low, high):
        # The first position of each column's extreme: positions are in order, so the
        # first match of each column is where the column number changes.
        at = np.flatnonzero(y == extreme[segment])
        of = segment[at]
        kept.append(at[np.r_[True, of[1:] != of[:-1]]] if at.shape[0] else at)
    return np.unique(np.concatenate(kept)).astype(np.int64)


def drawn_points(x: F64, y: F64, columns: int) -> tuple[F64, F64]:
    """The points of the line ``(x, y)`` to draw at ``columns`` pixel columns.

    All of them when there are at most ``4 * columns``; otherwise those
    :func:`m4_reduce` keeps (undefined values, NaN, are kept where they fall: the
    reduction compares them as 0). ``x`` must be non-decreasing.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.lines import drawn_points
    >>> x = np.linspace(0, 1, 100_001); y = np.cos(x)
    >>> len(drawn_points(x, y, 500)[0]) <= 2000, len(drawn_points(x[:50], y[:50], 500)[0])
    (True, 50)
    """
    if x.shape[0] <= 4 * columns:
        return x, y
    keep = m4_reduce(x, np.nan_to_num(y, nan=0.0), columns)
    return x[keep], y[keep]


def drawn_blocks(parts: Iterable[tuple[F64, F64]], n: int, first: float, last: float,
                 columns: int) -> tuple[F64, F64]:
    """:func:`drawn_points` of a line given a block at a time: ``parts`` yields its ``(x,
    y)`` blocks in order, ``n`` points in all, ``x`` from ``first`` to ``last``. Each block
    is reduced with the whole line's columns, then the kept points again
    (:func:`m4_columns`): the same points, and no array as long as the line.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.lines import drawn_blocks, drawn_points
    >>> x = np.linspace(0, 1, 10_001); y = np.sin(30 * x)
    >>> parts = ((x[i:i + 999], y[i:i + 999]) for i in range(0, 10_001, 999))
    >>> got = drawn_blocks(parts, 10_001, 0.0, 1.0, 50)
    >>> want = drawn_points(x, y, 50)
    >>> got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    True
    """
    keep_all = n <= 4 * columns
    xs: list[F64] = []
    ys: list[F64] = []
    for x, y in parts:
        if not keep_all:
            keep = m4_columns(x, np.nan_to_num(y, nan=0.0), columns, first=first, last=last)
            x, y = x[keep], y[keep]
        xs.append(x)
        ys.append(y)
    x_all = np.concatenate(xs) if xs else np.zeros(0)
    y_all = np.concatenate(ys) if ys else np.zeros(0)
    if keep_all:
        return x_all, y_all
    keep = m4_columns(x_all, np.nan_to_num(y_all, nan=0.0), columns)
    return x_all[keep], y_all[keep]

"""Precision-recall-gain curves drawn with matplotlib (imported when a plot is drawn).

:func:`plot_prg_curves` draws each curve in PRG space as Flach and Kull (2015) and their
reference ``prg`` package draw it: the unit square [0, 1]², the straight segments between
the operating points (with the points where the curve enters the square), the points as
dots, and the upper convex hull dashed; the legend carries each AUPRG to four significant
digits, as report.html's summary line does (a report's files hold no other AUPRG: three
digits could show two different models' areas as one number). The always-positive
classifier is the point (1, 0) and the random baseline is the whole x-axis, at any
prevalence. Nothing here computes a metric: the values are views of
:class:`~prcurve.space.prg.PRGCurve`.

Examples
--------
>>> from matplotlib.figure import Figure
>>> from prcurve import pr_curve
>>> from prcurve.present.prg_plot import plot_prg_curves
>>> curve = pr_curve([1, 1, 0, 0, 1, 0], [0.8, 0.8, 0.6, 0.4, 0.4, 0.2])
>>> drawn = plot_prg_curves({"model": curve}, Figure().add_subplot())
>>> drawn.curves["model"].get_label()
'model: AUPRG = 0.7083'
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.curve import PRCurve
from prcurve.core.table import Table
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.lines import drawn_points, m4_columns
from prcurve.present.plot_setup import pixel_columns
from prcurve.space.prg import PRGCurve
from prcurve.space.prg_blocks import line_blocks, unit_ends

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

__all__ = ["PRGPlot", "plot_prg_curve", "plot_prg_curves", "prg_details_html", "prg_figure"]

F64 = NDArray[np.float64]

PRG_FIGSIZE = (7.5, 6.0)

MAX_MARKERS = 200
"""Operating points are marked as dots up to this many per curve (beyond, the line alone)."""


@dataclass
class PRGPlot:
    """What :func:`plot_prg_curves` drew: the figure, the axes, each curve's line and hull."""

    figure: Figure
    ax: Axes
    curves: dict[str, Line2D] = field(default_factory=dict)
    hulls: dict[str, Line2D] = field(default_factory=dict)


def plot_prg_curves(
    curves: Mapping[str, PRCurve | PRGCurve],
    ax: Axes | None = None,
    *,
    show_hull: bool = True,
    title: str | None = "Precision–recall–gain",
) -> PRGPlot:
    """Draw several PRG curves on one axes (a new figure if ``ax`` is None)."""
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=PRG_FIGSIZE, layout="constrained").add_subplot()
    figure = ax.get_figure()
    drawn = PRGPlot(figure, ax)  # type: ignore[arg-type]
    ax.plot([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], color="0.3", linewidth=0.8)
    for name, item in curves.items():
        prg = item.prg() if isinstance(item, PRCurve) else item
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            area = prg.auprg()
            hull = prg.convex_hull()
            if prg._long() and not prg._degenerate():  # a block at a time, same points
                x, y, markers = _long_line(prg, pixel_columns(ax))
            else:
                x, y, markers = _line(prg.points(), pixel_columns(ax))
        (line,) = ax.plot(x, y, linewidth=1.8, label=f"{name}: AUPRG = {area:.4g}")
        if markers is not None:
            ax.plot(markers[0], markers[1], "o", color=line.get_color(), markersize=3.5)
        drawn.curves[name] = line
        if show_hull and len(hull):
            (dashed,) = ax.plot(hull["recall_gain"], hull["precision_gain"], "--",
                                color=line.get_color(), linewidth=1.0, alpha=0.8)
            drawn.hulls[name] = dashed
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel("recall gain")
    ax.set_ylabel("precision gain")
    ax.set_xticks(np.linspace(0, 1, 5))
    ax.set_yticks(np.linspace(0, 1, 5))
    ax.grid(True, linewidth=0.3)
    if title:
        ax.set_title(title)
    if drawn.hulls:  # one entry says what the dashes are, in whatever colour
        ax.plot([], [], "--", color="0.35", linewidth=1.0, label="convex hull (dashed)")
    if curves:
        ax.legend(loc="lower left", fontsize="small")
    return drawn


def _line(points: Table, columns: int) -> tuple[F64, F64, tuple[F64, F64] | None]:
    """The drawn line of a curve's PRG points and its markers (None: too many to mark)."""
    rows = points["recall_gain"] >= 0  # the part the area measures
    # recall gain never decreases along the curve: a long line is drawn from its M4
    # reduction, within a pixel of the whole (present/lines.py)
    x, y = drawn_points(points["recall_gain"][rows], points["precision_gain"][rows], columns)
    real = rows & (points["is_crossing"] == 0) & (points["in_unit_square"] == 1)
    if real.sum() <= MAX_MARKERS:
        return x, y, (points["recall_gain"][real], points["precision_gain"][real])
    return x, y, None


def _long_line(prg: PRGCurve, columns: int) -> tuple[F64, F64, tuple[F64, F64] | None]:
    """:func:`_line` of a long curve, read a block at a time
    (:func:`prcurve.space.prg_blocks.line_blocks`): each block reduced by M4 with the whole
    line's pixel columns, then the kept points reduced again (the same points:
    :func:`prcurve.present.lines.m4_columns`); no full-length array."""
    first, last, length = unit_ends(prg)
    keep_all = length <= 4 * columns  # then the rows may be as few: drawn_points decides
    xs: list[F64] = []
    ys: list[F64] = []
    marks: list[tuple[F64, F64]] = []
    real_count = 0
    for x, y, real in line_blocks(prg):
        real_count += int(np.count_nonzero(real))
        if real_count <= MAX_MARKERS:
            marks.append((x[real], y[real]))
        if not keep_all:
            keep = m4_columns(x, np.nan_to_num(y, nan=0.0), columns, first=first, last=last)
            x, y = x[keep], y[keep]
        xs.append(x)
        ys.append(y)
    x, y = np.concatenate(xs), np.concatenate(ys)
    if keep_all:
        x, y = drawn_points(x, y, columns)
    else:  # the whole line has more than 4 * columns rows: drawn_points would reduce it
        keep = m4_columns(x, np.nan_to_num(y, nan=0.0), columns)
        x, y = x[keep], y[keep]
    if real_count > MAX_MARKERS:
        return x, y, None
    return x, y, (np.concatenate([m[0] for m in marks]), np.concatenate([m[1] for m in marks]))


def plot_prg_curve(prg: PRGCurve, ax: Axes | None = None, *, label: str = "model",
                   **kwargs: Any) -> PRGPlot:
    """Draw one PRG curve (what ``PRGCurve.plot`` calls); keywords of :func:`plot_prg_curves`."""
    return plot_prg_curves({label: prg}, ax, **kwargs)


def prg_figure(curves: Mapping[str, PRCurve]) -> Figure:
    """The report's PRG figure (prg_curve.png, and report.html's however the page is made):
    every model's PRG curve on one axes, built in matplotlib's defaults
    (:func:`prcurve.present.style.drawing_style`; save it inside that too)."""
    from matplotlib.figure import Figure

    from prcurve.present.style import drawing_style

    with drawing_style():  # prcurve's own figure: not in the user's global settings
        figure = Figure(figsize=PRG_FIGSIZE, layout="constrained")
        plot_prg_curves(curves, figure.add_subplot())
    return figure


def prg_details_html(curves: Mapping[str, PRCurve], *, svg: str | None = None) -> str:
    """The PRG figure as a collapsed ``<details>`` section of inline SVG for the HTML report:
    one click opens it; no script, no request to any network. ``svg``: the curves'
    :func:`prg_figure` as SVG text, when that is made already (for prg_curve.png:
    :func:`prcurve.present.report_figures.draw_pictures`); else drawn here.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.prg_plot import prg_details_html
    >>> text = prg_details_html({"m": pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])})
    >>> text.startswith("<details"), "<svg" in text, "<?xml" in text
    (True, True, False)
    """
    import html

    from prcurve.present.plot_setup import svg_text

    if svg is None:
        svg = svg_text(prg_figure(curves))
    svg = svg[svg.index("<svg"):]  # inline: without the XML declaration and doctype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        areas = ", ".join(f"{html.escape(name)} {c.prg().auprg():.4g}"
                          for name, c in curves.items())
    return ("<details id='prg' style='margin:1em 0.5em'><summary><b>Precision–recall–gain "
            f"curves</b> (Flach and Kull 2015; AUPRG: {areas})</summary>"
            "<p class='prc-meta'>Precision and recall as gains over the always-positive "
            "classifier: the x-axis is the random baseline at any prevalence, segments are "
            "straight, and the dashed line is the convex hull (docs/pr_space.md).</p>"
            f"{svg}</details>")

"""Plots of precision–recall curves with matplotlib (imported when a plot is drawn).

- :func:`plot_pr_curve` / :func:`plot_pr_curves`: each curve drawn as the step
  function that the step AP measures (the area under the drawn line is
  ``average_precision(method="step")``), the unachievable region of Boyd et al. (2012)
  shaded under the minimum PR curve ``p_min(r) = rπ / (1 − π + rπ)``
  (Theorem 1), the random classifier's precision at the prevalence π, iso-F
  contours, and each curve's best-F point marked with its threshold. Legend
  entries carry the AP and its method.
- precision, recall and F-beta against the threshold are in
  :mod:`prcurve.present.threshold_plot`.

Each returns the matplotlib objects it drew, so that they can be restyled or
inspected. Nothing here computes a metric: the values are views of the
:class:`~prcurve.PRCurve`.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from prcurve import pr_curve
>>> from prcurve.present.plot import plot_pr_curve
>>> curve = pr_curve([1, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.4, 0.2])
>>> drawn = plot_pr_curve(curve, label="model")
>>> drawn.curves["model"].get_label()
'model: AP (step) = 0.806'
>>> drawn.baselines[0].get_ydata().tolist()
[0.6, 0.6]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from prcurve.core.average_precision import APMethod
from prcurve.core.curve import PRCurve
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.labels import legend_entry, place_labels
from prcurve.present.lines import drawn_blocks, drawn_points
from prcurve.present.plot_setup import (
    DPI,
    PR_FIGSIZE,
    _format_threshold,
    _pyplot,
    _setup_pr_axes,
    close,
    pixel_columns,
    svg_text,
)
from prcurve.present.pr_geometry import drawn_by_blocks, rates_block, step_blocks
from prcurve.present.pr_geometry import iso_f_ends as _iso_f_ends
from prcurve.present.pr_geometry import iso_f_line as _iso_f_line
from prcurve.present.pr_geometry import min_precision_at as _min_precision
from prcurve.present.pr_geometry import step_xy as _step_xy
from prcurve.present.pr_inset import LOW_PREVALENCE, _low_prevalence_inset, _write_minimum_ap
from prcurve.present.pr_panels import group_by_prevalence, panel_titles, pr_grid_size

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.text import Annotation, Text

__all__ = [
    "DPI",
    "LOW_PREVALENCE",
    "PR_FIGSIZE",
    "PRPlot",
    "close",
    "group_by_prevalence",
    "panel_titles",
    "place_labels",
    "plot_pr_curve",
    "plot_pr_curves",
    "plot_pr_curves_grid",
    "pr_grid_size",
    "svg_text",
]


_ISO_F = (0.2, 0.4, 0.6, 0.8)

_LEGEND_SHIFT = 0.45  # inches right of the axes: past the iso-F names


@dataclass
class PRPlot:
    """What :func:`plot_pr_curves` drew.

    Attributes
    ----------
    figure, ax
        The figure and the axes drawn on.
    curves : dict of str to Line2D
        Each curve's step line, by name. Its data are the curve's points:
        x = (0, recall...), y = (precision[0], precision...), drawn with
        ``drawstyle="steps-pre"``.
    unachievable : list of PolyCollection
        One shaded region per distinct prevalence, under its p_min(r) and above
        the next smaller prevalence's (the regions nest; shaded so, they never stack).
    baselines : list of Line2D
        One horizontal line per distinct prevalence, at the prevalence.
    iso_f : list of Line2D
        The iso-F contours.
    best_points : dict of str to Line2D
        Each curve's best-F marker.
    best_labels : dict of str to Annotation
        Each best point's label, placed where it overlaps no other label, marker,
        note or the legend (with a leader line when it had to move away).
    notes : list of Text
        The minimum AP written on the plot, one per prevalence.
    inset : Axes or None
        At low prevalence, a zoom on the bottom of the plot where the
        unachievable region and the random baseline lie.
    """

    figure: Figure
    ax: Axes
    curves: dict[str, Line2D] = field(default_factory=dict)
    unachievable: list[PolyCollection] = field(default_factory=list)
    baselines: list[Line2D] = field(default_factory=list)
    iso_f: list[Line2D] = field(default_factory=list)
    best_points: dict[str, Line2D] = field(default_factory=dict)
    best_labels: dict[str, Annotation] = field(default_factory=dict)
    notes: list[Text] = field(default_factory=list)
    inset: Axes | None = None



def plot_pr_curves(
    curves: Mapping[str, PRCurve] | Sequence[PRCurve],
    ax: Axes | None = None,
    *,
    ap_method: APMethod = "step",
    beta: float = 1.0,
    show_unachievable: bool = True,
    show_baseline: bool = True,
    iso_f: Sequence[float] = _ISO_F,
    mark_best: bool = True,
    legend: str | None = "outside",
    title: str | None = "Precision–recall",
    colors: Sequence[Any] | Mapping[str, Any] | None = None,
) -> PRPlot:
    """Draw several PR curves on one axes, with the unachievable region and baselines.

    Parameters
    ----------
    curves : mapping of name to PRCurve, or sequence of PRCurve
        The curves; a sequence is named "curve 1", "curve 2", ...
    ax : matplotlib Axes, optional
        Where to draw; a new figure of :data:`PR_FIGSIZE` inches if None.
    ap_method : str, default "step"
        The AP method named in each legend entry.
    beta : float, default 1.0
        The F-beta of the iso-F contours and of the best point.
    show_unachievable : bool, default True
        Shade the unachievable region under p_min(r) = rπ / (1 − π + rπ),
        once per distinct prevalence π (Boyd et al. 2012 recommends always showing it).
    show_baseline : bool, default True
        Draw the random classifier's precision, a horizontal line at π.
    iso_f : sequence of float, default (0.2, 0.4, 0.6, 0.8)
        Levels of the iso-F-beta contours; empty for none.
    mark_best : bool, default True
        Mark each curve's best-F-beta point and its threshold.
    legend : str or None, default "outside"
        "outside" puts the legend right of the axes and "below" under it, so
        that it never covers a curve; any other string is a matplotlib ``loc``
        inside the axes; None draws no legend.
    title : str or None
        The axes title.
    colors : sequence or mapping of name to color, optional
        One matplotlib color per curve, in order or by name (the report gives
        each model its colour, :mod:`prcurve.present.style`); the default cycle
        otherwise.

    Returns
    -------
    PRPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve import pr_curve
    >>> from prcurve.present.plot import plot_pr_curves
    >>> a = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> b = pr_curve([1, 0, 1, 0], [0.6, 0.9, 0.8, 0.7])
    >>> drawn = plot_pr_curves({"a": a, "b": b}, ap_method="interpolated")
    >>> sorted(drawn.curves), len(drawn.unachievable), len(drawn.iso_f)
    (['a', 'b'], 1, 4)
    >>> drawn.curves["a"].get_label()
    'a: AP (interpolated) = 0.833'
    """
    named: dict[str, PRCurve] = (
        dict(curves) if isinstance(curves, Mapping)
        else {f"curve {i + 1}": c for i, c in enumerate(curves)}
    )
    if ax is None:
        figure = _pyplot().figure(figsize=PR_FIGSIZE, layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.get_figure()
    drawn = PRPlot(figure=figure, ax=ax)
    _setup_pr_axes(ax)
    if title:
        ax.set_title(title)

    prevalences: list[float] = []
    for curve in named.values():
        pi = curve.prevalence
        if math.isfinite(pi) and not any(math.isclose(pi, q, rel_tol=1e-12) for q in prevalences):
            prevalences.append(pi)
    prevalences.sort(reverse=True)

    r = np.linspace(0.0, 1.0, 401)
    # Regions nest (p_min grows with π): each is shaded only down to the next smaller
    # one's boundary, so they never stack into a dark block; the smaller are darker.
    shades = ("0.6", "0.35", "0.2")
    dashes: tuple[Any, ...] = ((0, (5, 3)), (0, (1.5, 1.5)), (0, (8, 2, 2, 2)))
    for k, pi in enumerate(prevalences):
        suffix = f" (π = {pi:.3g})"
        if show_unachievable:
            below = (_min_precision(r, prevalences[k + 1]) if k + 1 < len(prevalences)
                     else np.zeros_like(r))
            region = ax.fill_between(
                r, below, _min_precision(r, pi), facecolor=shades[k % 3], alpha=0.3,
                edgecolor="0.35", linewidth=0.8,
                label=f"unachievable region{suffix}", zorder=1,
            )
            region.set_gid(f"unachievable-{k}")
            drawn.unachievable.append(region)
        if show_baseline:
            (line,) = ax.plot([0.0, 1.0], [pi, pi], linestyle=dashes[k % 3], color="0.25",
                              linewidth=1.0, label=f"random classifier{suffix}", zorder=2)
            line.set_gid(f"baseline-{k}")
            drawn.baselines.append(line)

    name_f = f"F{beta:g}"
    for f, end in _iso_f_ends(iso_f, beta):
        rr, pp = _iso_f_line(f, beta)
        (line,) = ax.plot(rr, pp, color="0.75", linewidth=0.8, linestyle=":", zorder=1)
        line.set_gid(f"iso-f-{f:g}")
        if end is not None:
            # Named right of the frame where the line meets recall 1: no curve, inset or
            # legend can cross or hide the name there (the legend sits further right).
            ax.annotate(f"{name_f}={f:g}", xy=(1.0, end), xytext=(3, 0),
                        textcoords="offset points", ha="left", va="center", fontsize=7,
                        color="0.5", annotation_clip=False).set_gid(f"iso-f-label-{f:g}")
        drawn.iso_f.append(line)

    import matplotlib  # its rcParams, without pyplot (not needed to draw on a Figure)

    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (name, curve) in enumerate(named.items()):
        if isinstance(colors, Mapping):
            color = colors.get(name, cycle[i % len(cycle)])
        else:
            color = (colors or cycle)[i % len(colors or cycle)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            ap = curve.average_precision(ap_method)
            best = curve.best_f(beta)
        if drawn_by_blocks(curve):  # the same points, no full-length array (lines.py)
            last = float(rates_block(curve, len(curve) - 1, 1)[3][0])
            x, y = drawn_blocks(step_blocks(curve), len(curve) + 1, 0.0, last,
                                pixel_columns(ax))
        else:
            x, y = drawn_points(*_step_xy(curve), pixel_columns(ax))
        # clip_on=False: every point lies in [0, 1]^2, and a line at precision 1 or
        # recall 1 would otherwise be half hidden by the frame.
        (line,) = ax.plot(x, y, drawstyle="steps-pre", color=color, linewidth=1.6,
                          label=f"{name}: AP ({ap_method}) = {ap:.3f}", zorder=3, clip_on=False)
        line.set_gid(f"curve-{i}")
        drawn.curves[name] = line
        if mark_best and math.isfinite(best.value):
            (point,) = ax.plot([best.recall], [best.precision], marker="o", markersize=6,
                               markerfacecolor=color, markeredgecolor="black",
                               markeredgewidth=0.8, linestyle="none", zorder=4,
                               label=f"_best {name}", clip_on=False)
            point.set_gid(f"best-{i}")
            label = ax.annotate(
                f"best {name_f} {best.value:.2f}\nt = {_format_threshold(best.threshold)}",
                xy=(best.recall, best.precision), xytext=(-8, -8), textcoords="offset points",
                ha="right", va="top", fontsize=7, color=color,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.85,
                      "edgecolor": "none"},
                zorder=5, annotation_clip=False,
            )
            label.set_in_layout(False)  # placed after the layout, outside of it
            label.set_gid(f"best-label-{i}")
            drawn.best_points[name] = point
            drawn.best_labels[name] = label

    if show_unachievable:
        if prevalences and min(prevalences) < LOW_PREVALENCE:
            drawn.inset = _low_prevalence_inset(drawn, named, min(prevalences))
        _write_minimum_ap(drawn, named, prevalences, ap_method)
    if legend == "outside":
        # Right of the axes and of the iso-F names (0.45 inch: "F1=0.8" at 7 points).
        from matplotlib.transforms import ScaledTranslation

        shift = ScaledTranslation(_LEGEND_SHIFT, 0.0, figure.dpi_scale_trans)
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, [legend_entry(label) for label in labels], loc="upper left",
                  bbox_to_anchor=(1.0, 1.0), bbox_transform=ax.transAxes + shift,
                  borderaxespad=0.0, fontsize=8, frameon=False)
    elif legend == "below":
        ax.set_anchor("N")  # the square axes at the top of its slot, the legend under it
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), borderaxespad=0.0,
                  fontsize=8, frameon=False)
    elif legend is not None:
        ax.legend(loc=cast(Any, legend), fontsize=8)
    place_labels([drawn])
    return drawn


def plot_pr_curves_grid(
    groups: Sequence[Mapping[str, PRCurve]],
    *,
    titles: Sequence[str] | None = None,
    ncols: int = 2,
    figure: Figure | None = None,
    extra: Sequence[Callable[[Axes], object]] = (),
    **kwargs: Any,
) -> list[PRPlot]:
    """One :func:`plot_pr_curves` panel per group of curves, legends below the panels.

    Use it with :func:`group_by_prevalence`, so that each panel shows one
    unachievable region and one baseline. Each of ``extra`` draws one more
    panel after them (the report's macro-average curves), before the labels
    are placed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve import pr_curve
    >>> from prcurve.present.plot import group_by_prevalence, plot_pr_curves_grid
    >>> curves = {"a": pr_curve([1, 0], [0.9, 0.1]), "b": pr_curve([1, 0, 0], [0.9, 0.5, 0.1])}
    >>> panels = plot_pr_curves_grid(group_by_prevalence(curves))
    >>> [len(p.unachievable) for p in panels], panels[0].figure is panels[1].figure
    ([1, 1], True)
    """
    n = max(len(groups) + len(extra), 1)
    cols = min(ncols, n)
    rows = math.ceil(n / cols)
    size = pr_grid_size(len(groups) + len(extra), ncols)
    if figure is None:
        figure = _pyplot().figure(figsize=size, layout="constrained")
    else:
        figure.set_size_inches(size)
    axes = figure.subplots(rows, cols, squeeze=False)
    kwargs.setdefault("legend", "below")
    default_title = kwargs.pop("title", None)
    drawn = []
    for k, group in enumerate(groups):
        title = titles[k] if titles is not None else default_title
        drawn.append(plot_pr_curves(group, axes[k // cols][k % cols], title=title, **kwargs))
    for k, draw in enumerate(extra, start=len(groups)):
        draw(axes[k // cols][k % cols])
    for k in range(len(groups) + len(extra), rows * cols):
        figure.delaxes(axes[k // cols][k % cols])
    place_labels(drawn)  # again, now that every panel and legend is laid out
    return drawn


def plot_pr_curve(
    curve: PRCurve,
    ax: Axes | None = None,
    *,
    label: str = "model",
    **kwargs: Any,
) -> PRPlot:
    """Draw one PR curve; the keywords are those of :func:`plot_pr_curves`.

    This is what ``PRCurve.plot(ax=None, ...)`` calls.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve import pr_curve
    >>> from prcurve.present.plot import plot_pr_curve
    >>> drawn = plot_pr_curve(pr_curve([1, 0, 1], [0.9, 0.5, 0.1]), label="m")
    >>> drawn.curves["m"].get_xdata().tolist(), drawn.curves["m"].get_ydata().tolist()
    ([0.0, 0.5, 0.5, 1.0], [1.0, 1.0, 0.5, 0.6666666666666666])
    """
    return plot_pr_curves({label: curve}, ax, **kwargs)

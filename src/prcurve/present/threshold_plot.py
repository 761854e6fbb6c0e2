"""Precision, recall and F-beta against the decision threshold (matplotlib, imported when
a plot is drawn).

:func:`plot_thresholds` draws one curve's precision, recall and F-beta against
the threshold (predict positive when ``score >= threshold``) with the best
threshold marked; :func:`plot_thresholds_grid` one panel per curve (the
report's threshold.png). Nothing here computes a metric.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from prcurve.core.bin_edges import range_around
from prcurve.core.counts import scale_exponent
from prcurve.core.curve import PRCurve
from prcurve.core.curve_blocks import VIEW_BLOCK, f_betas
from prcurve.core.undefined import undefined_scope
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.lines import drawn_blocks, drawn_points
from prcurve.present.plot_setup import _format_threshold, _pyplot, pixel_columns
from prcurve.present.pr_geometry import drawn_by_blocks, rates_block

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

__all__ = ["ThresholdPlot", "plot_thresholds", "plot_thresholds_grid", "threshold_grid_size"]

_LARGEST_DRAWN = 1e300
"""Thresholds larger in magnitude are drawn in units of a power of ten (see plot_thresholds)."""

F64 = NDArray[np.float64]


@dataclass
class ThresholdPlot:
    """What :func:`plot_thresholds` drew: one line per quantity and the best threshold."""

    figure: Figure
    ax: Axes
    precision: Line2D
    recall: Line2D
    f_beta: Line2D
    best: Line2D | None



def _step_against_threshold(thresholds: F64, values: F64) -> tuple[F64, F64]:
    """x ascending; the value at a threshold holds down to the next lower threshold."""
    return thresholds[::-1], values[::-1]


def _reversed_blocks(curve: PRCurve, t: F64, which: int, beta: float, unit: float = 1.0
                     ) -> Iterator[tuple[F64, F64]]:
    """:func:`_step_against_threshold` of precision (``which`` 0), recall (1) or F-beta (2)
    a block of thresholds at a time, from the lowest threshold: the values of
    ``curve.precision``, ``curve.recall`` and ``curve.f_beta(beta)`` (the same formulas,
    element-wise: core/curve_blocks.py), with the thresholds ``t`` divided by ``unit``."""
    k = scale_exponent(curve.n_pos + curve.n_neg)  # as PRCurve.f_beta
    for stop in range(len(curve), 0, -VIEW_BLOCK):
        start = max(stop - VIEW_BLOCK, 0)
        tp, fp, precision, recall = rates_block(curve, start, stop - start)
        if which == 2:
            with warnings.catch_warnings(), undefined_scope(curve.zero_division):
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                values = f_betas(tp, fp, curve.n_pos - tp, k, beta)
        else:
            values = (precision, recall)[which]
        x = t[start:stop] / unit if unit != 1.0 else t[start:stop]
        yield x[::-1], values[::-1]


def plot_thresholds(
    curve: PRCurve,
    ax: Axes | None = None,
    *,
    beta: float = 1.0,
    title: str | None = None,
    mark_best: bool = True,
    legend: str | None = "outside",
    color: Any | None = None,
) -> ThresholdPlot:
    """Draw precision, recall and F-beta against the decision threshold.

    At threshold ``t`` the classifier predicts positive every score ``>= t``;
    between two adjacent thresholds of the curve nothing changes, so each line
    is a step function (McCann's threshold post: everything depends on the threshold).

    Parameters
    ----------
    curve : PRCurve
    ax : matplotlib Axes, optional
        Where to draw; a new figure if None.
    beta : float, default 1.0
        The F-beta drawn and maximised.
    title : str, optional
    mark_best : bool, default True
        A vertical line at the best F-beta threshold.
    legend : str or None, default "outside"
        "outside" puts the legend right of the axes, so that it covers no
        line; any other string is a matplotlib ``loc``; None draws none.
    color : matplotlib color, optional
        Draw the three lines in this colour (the model's, as the report does),
        told apart by their dashes: precision solid, recall dashed, F-beta
        dash-dotted (report.html's styles). By default one colour per quantity.

    Returns
    -------
    ThresholdPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve import pr_curve
    >>> from prcurve.present.threshold_plot import plot_thresholds
    >>> drawn = plot_thresholds(pr_curve([1, 0, 1], [0.9, 0.5, 0.1]))
    >>> drawn.recall.get_xdata().tolist(), drawn.recall.get_ydata().tolist()
    ([0.1, 0.5, 0.9], [1.0, 0.5, 0.5])
    """
    if ax is None:
        figure = _pyplot().figure(figsize=(7.0, 4.5), layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.get_figure()
    long = drawn_by_blocks(curve)  # lines from blocks of thresholds: no full-length views
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if not long:
            precision = curve.precision
            recall = curve.recall
            f = curve.f_beta(beta)
        best = curve.best_f(beta)
    # Thresholds near the float64 limit (+-1e308) are drawn divided by a power of ten:
    # matplotlib's transforms subtract the axis limits, which would overflow.
    # The largest |threshold| from the two ends (no full-length |t|: issue 26, item 6);
    # a long curve's thresholds are divided by the unit a block at a time (element-wise:
    # the same values), a short one's whole.
    ends = np.abs([curve.thresholds.min(), curve.thresholds.max()]) if len(curve) else [0.0]
    largest = float(np.max(ends))
    unit = 10.0 ** math.floor(math.log10(largest)) if largest > _LARGEST_DRAWN else 1.0
    t = curve.thresholds
    short_t = t / unit if unit != 1.0 and not long else t
    name_f = f"F{beta:g}"
    lines = []
    for which, label, own, dash in ((0, "precision", "tab:blue", "-"),
                                    (1, "recall", "tab:orange", "--"),
                                    (2, name_f, "tab:green", "-.")):
        if long:
            x, y = drawn_blocks(_reversed_blocks(curve, t, which, beta, unit), len(curve),
                                float(t[-1] / unit), float(t[0] / unit), pixel_columns(ax))
        else:
            values = (precision, recall, f)[which]
            x, y = drawn_points(*_step_against_threshold(short_t, values), pixel_columns(ax))
        (line,) = ax.plot(x, y, drawstyle="steps-pre", label=label,
                          color=own if color is None else color,
                          linestyle="-" if color is None else dash, linewidth=1.5,
                          clip_on=False)  # values lie in [0, 1], x in the limits
        lines.append(line)
    best_line = None
    if mark_best and math.isfinite(best.threshold):
        best_line = ax.axvline(best.threshold / unit, color="black", linestyle=":", linewidth=1.2,
                               label=f"best {name_f} = {best.value:.3f} at t = "
                               f"{_format_threshold(best.threshold)}")
    # (Division by a positive unit is monotone: the quotients' ends are the ends' quotients.)
    low, high = (float(t.min() / unit), float(t.max() / unit)) if t.shape[0] else (0.0, 1.0)
    if low == high:
        low, high = range_around(low)
    pad = 0.02 * (high - low)
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("Threshold (predict positive when score ≥ threshold)"
                  + (f", in units of {unit:g}" if unit != 1.0 else ""))
    ax.set_ylabel("Value")
    ax.grid(True, color="0.9", linewidth=0.6)
    if title:
        ax.set_title(title)
    if legend == "outside":
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                  fontsize=8, frameon=False)
    elif legend is not None:
        ax.legend(loc=cast(Any, legend), fontsize=8, framealpha=0.85)
    return ThresholdPlot(figure=figure, ax=ax, precision=lines[0], recall=lines[1],
                         f_beta=lines[2], best=best_line)


def threshold_grid_size(n_curves: int, ncols: int = 2) -> tuple[float, float]:
    """The size in inches of :func:`plot_thresholds_grid`'s figure for ``n_curves`` panels."""
    n = max(n_curves, 1)
    cols = min(ncols, n)
    return (6.0 * cols, 4.2 * math.ceil(n / cols))


def plot_thresholds_grid(
    curves: Mapping[str, PRCurve], *, beta: float = 1.0, ncols: int = 2,
    figure: Figure | None = None, colors: Mapping[str, Any] | None = None,
) -> Figure:
    """One :func:`plot_thresholds` panel per curve, in a grid (the report's threshold.png).

    With ``colors`` (by curve name, the report's model colours) each panel's lines and
    title are in its model's colour, told apart by their dashes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve import pr_curve
    >>> from prcurve.present.threshold_plot import plot_thresholds_grid
    >>> fig = plot_thresholds_grid({"a": pr_curve([1, 0], [0.9, 0.1]),
    ...                             "b": pr_curve([1, 0], [0.1, 0.9])})
    >>> [ax.get_title() for ax in fig.axes]
    ['a   (best F1 = 1.000 at t = 0.9)', 'b   (best F1 = 0.667 at t = 0.1)']
    """
    n = max(len(curves), 1)
    cols = min(ncols, n)
    rows = math.ceil(n / cols)
    size = threshold_grid_size(len(curves), ncols)
    if figure is None:
        figure = _pyplot().figure(figsize=size, layout="constrained")
    else:
        figure.set_size_inches(size)
    axes = figure.subplots(rows, cols, squeeze=False)
    drawn = None
    for k, (name, curve) in enumerate(curves.items()):
        color = None if colors is None else colors.get(name)
        drawn = plot_thresholds(curve, axes[k // cols][k % cols], beta=beta, legend=None,
                                color=color)
        title = name
        if drawn.best is not None:
            title += f"   ({drawn.best.get_label()})"
        drawn.ax.set_title(title, fontsize=10, color="black" if color is None else color)
    if drawn is not None:  # one legend for all panels: the lines are the same in each
        handles: list[Any] = [drawn.precision, drawn.recall, drawn.f_beta]
        if colors is not None:  # the styles alone, in grey: the colour is each model's
            from matplotlib.lines import Line2D

            handles = [Line2D([], [], color="0.3", linestyle=h.get_linestyle(), linewidth=1.5)
                       for h in handles]
        if drawn.best is not None:
            handles.append(drawn.best)
        figure.legend(handles, ["precision", "recall", f"F{beta:g}", "best threshold"][
            : len(handles)], loc="outside upper center", ncols=len(handles), fontsize=9,
            frameon=False)
    for k in range(len(curves), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
        figure.delaxes(axes[k // cols][k % cols])
    return figure

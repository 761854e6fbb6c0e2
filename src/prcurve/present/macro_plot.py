"""The macro-average PR curve of a multi-class input, with its band (matplotlib).

For each multi-class or multi-label model of a report, pr_curve.png gets one
more panel: the mean over classes of their interpolated precision at recall 0,
0.01, ..., 1 (:func:`prcurve.space.aggregate.macro_average_curve`), with its
pointwise bootstrap band when the report has intervals. The classes'
prevalences differ, so the panel has no single unachievable region or random
baseline: each class's are in its own panel. Nothing here computes a number;
the curve and band come from :class:`~prcurve.present.report.ClassAverages`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from prcurve.present.report import ClassAverages
    from prcurve.space.intervals import CurveInterval

__all__ = ["MACRO_COLOR", "macro_panels", "plot_macro_curve"]

MACRO_COLOR = "black"
"""The macro-average curve's colour, in the pictures and in report.html: no model has it."""


def macro_label(band: CurveInterval) -> str:
    """The legend text of a macro-average band, or '' when it has none."""
    if not np.isfinite(band.lower).any():
        return ""
    return f"{band.level:.0%} pointwise bootstrap band ({band.n_resamples} resamples)"


def plot_macro_curve(band: CurveInterval, ax: Axes, *, name: str) -> None:
    """Draw one macro-average curve and, when it has one, its band on ``ax``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> from prcurve import pr_curve
    >>> from prcurve.present.macro_plot import plot_macro_curve
    >>> from prcurve.space.aggregate import macro_average_curve
    >>> a = pr_curve([1, 0, 1, 1, 0, 0, 1, 0] * 20, [8, 7, 6, 5, 4, 3, 2, 1] * 20)
    >>> ax = Figure().add_subplot()
    >>> plot_macro_curve(macro_average_curve([a, a], n_resamples=50, seed=0), ax, name="m")
    >>> [line.get_label() for line in ax.lines]
    ['m[macro]: mean interpolated precision over classes']
    """
    from prcurve.present.plot_setup import _setup_pr_axes

    _setup_pr_axes(ax)
    shown = macro_label(band)
    if shown:
        ax.fill_between(band.recall, band.lower, band.upper, color=MACRO_COLOR, alpha=0.15,
                        linewidth=0, label=shown, zorder=2)
    ax.plot(band.recall, band.estimate, color=MACRO_COLOR, linewidth=1.8, zorder=3,
            label=f"{name}[macro]: mean interpolated precision over classes", clip_on=False)
    ax.set_title(f"{name}[macro] (each class's π and region: its own panel)")
    ax.set_anchor("N")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), borderaxespad=0.0, fontsize=8,
              frameon=False)


def macro_panels(groups: Sequence[ClassAverages]) -> list[Callable[[Axes], None]]:
    """One drawing function per class group with a macro-average curve (for the grid)."""

    def drawer(group: ClassAverages, band: CurveInterval) -> Callable[[Axes], None]:
        return lambda ax: plot_macro_curve(band, ax, name=group.model)

    return [drawer(g, g.macro_curve) for g in groups if g.macro_curve is not None]

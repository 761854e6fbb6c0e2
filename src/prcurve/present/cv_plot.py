"""The folds of a cross-validation drawn together (``Aggregate.from_cv_results(...).plot()``).

What scikit-learn's ``PrecisionRecallDisplay.from_cv_results`` draws — each fold's
PR curve as a step line with its AP in the legend — plus, for each fold, the
unachievable region under its own minimum PR curve ``p_min(r) = rπ / (1 − π + rπ)``
(Boyd et al. 2012, Theorem 1; folds of different skew have different regions), the band
between the smallest and largest fold's interpolated precision, and the aggregate
(the vertically averaged curve, or the pooled curve for ``how="merge"``). Nothing here
computes a metric.

Examples
--------
>>> from matplotlib.figure import Figure
>>> from prcurve import aggregate, pr_curve
>>> from prcurve.present.cv_plot import plot_folds
>>> folds = [pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), pr_curve([1, 0, 0], [3, 2, 1])]
>>> drawn = plot_folds(aggregate(folds, "vertical"), Figure().add_subplot(), curves=folds)
>>> [line.get_label() for line in drawn.folds]
['fold 0: AP (step) = 0.833', 'fold 1: AP (step) = 1']
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from prcurve.core.curve import PRCurve
from prcurve.errors import UndefinedMetricWarning
from prcurve.space.aggregate import Aggregate
from prcurve.space.bounds import min_precision
from prcurve.validation.arrays import wrong_type

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

__all__ = ["FoldsPlot", "plot_folds"]


@dataclass
class FoldsPlot:
    """What :func:`plot_folds` drew."""

    figure: Figure
    ax: Axes
    folds: list[Line2D] = field(default_factory=list)
    regions: list[Any] = field(default_factory=list)
    band: Any = None
    aggregate: Line2D | None = None


def plot_folds(result: Aggregate, ax: Axes | None = None, *,
               curves: Sequence[PRCurve] | None = None,
               show_unachievable: bool = True, title: str | None = "Cross-validation folds",
               ) -> FoldsPlot:
    """Draw each fold's curve and unachievable region, the band across folds and the
    aggregate of ``result`` (its ``curves``, or ``curves``)."""
    if not isinstance(result, Aggregate):
        raise wrong_type("result", result, "Aggregate")
    folds = list(curves if curves is not None else (result.curves or ()))
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(9.0, 6.0), layout="constrained").add_subplot()
    drawn = FoldsPlot(ax.get_figure(), ax)  # type: ignore[arg-type]
    grid = np.linspace(0.0, 1.0, 201)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for k, curve in enumerate(folds):
            ap = curve.average_precision(result.method)  # type: ignore[arg-type]
            (line,) = ax.plot(np.concatenate([[0.0], curve.recall]),
                              np.concatenate([curve.precision[:1], curve.precision]),
                              drawstyle="steps-pre", linewidth=1.0, alpha=0.8,
                              label=f"fold {k}: AP ({result.method}) = {ap:.3g}")
            drawn.folds.append(line)
            pi = curve.prevalence
            if show_unachievable and 0 < pi < 1:
                drawn.regions.append(ax.fill_between(
                    grid, 0.0, min_precision(grid, pi), color=line.get_color(), alpha=0.08,
                    linewidth=0))
    if (result.band_recall is not None and result.band_low is not None
            and result.band_high is not None):
        drawn.band = ax.fill_between(result.band_recall, result.band_low, result.band_high,
                                     color="0.5", alpha=0.2, label="band across folds",
                                     linewidth=0)
    if result.recall is not None and result.precision is not None:
        (drawn.aggregate,) = ax.plot(result.recall, result.precision, color="black",
                                     linewidth=2.0,
                                     label=f"{result.how}: {result.value:.3g}")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    if title:
        ax.set_title(title)
    ax.legend(loc="lower left", fontsize="small")
    return drawn

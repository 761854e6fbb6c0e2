"""What a PR plot (:func:`prcurve.present.plot.plot_pr_curves`) adds about the
unachievable region of Boyd et al. (2012), "Unachievable region in precision-recall
space and its effect on empirical evaluation": each prevalence's minimum AP written on
the plot and, below :data:`LOW_PREVALENCE`, a zoomed inset where the region, a sliver at
full scale, can be read.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from prcurve.core.average_precision import APMethod
from prcurve.core.curve import PRCurve
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.pr_geometry import min_precision_at as _min_precision
from prcurve.present.pr_geometry import step_points_inside as _points_inside

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from prcurve.present.plot import PRPlot

__all__ = ["LOW_PREVALENCE"]

LOW_PREVALENCE = 0.05
"""Below this prevalence the unachievable region is a sliver: a zoomed inset shows it."""


def _write_minimum_ap(drawn: PRPlot, curves: Mapping[str, PRCurve], prevalences: list[float],
                      ap_method: APMethod) -> None:
    """Write each prevalence's minimum AP on the plot (Boyd et al.: the region's size).

    In the lower right corner, inside the unachievable region where no curve can
    pass; for the prevalence of a low-prevalence inset, in the inset's title.
    """
    from prcurve.space.bounds import min_average_precision

    lines = []
    for pi in prevalences:
        curve = next(c for c in curves.values() if math.isclose(c.prevalence, pi, rel_tol=1e-12))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                minimum = float(min_average_precision(curve.n_pos, curve.n_neg, ap_method))
        except ValueError:  # e.g. the step minimum of non-integer weights
            continue
        text = f"min AP ({ap_method}) at π = {pi:.3g}: {minimum:.3g}"
        if drawn.inset is not None and pi == min(prevalences):
            title = drawn.inset.get_title()
            drawn.inset.set_title(f"{title}\n{text}", fontsize=7, pad=2)
            drawn.notes.append(drawn.inset.title)
        else:
            lines.append(text)
    if lines:
        note = drawn.ax.text(0.985, 0.015, "\n".join(lines), transform=drawn.ax.transAxes,
                             ha="right", va="bottom", fontsize=7, color="0.3", zorder=6,
                             bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                                   "alpha": 0.85, "edgecolor": "0.8"})
        note.set_gid("minimum-ap")
        drawn.notes.append(note)



_INSET_SIZE = 0.36  # of the axes, each side
_CORNERS = ((0.62, 0.58), (0.04, 0.06), (0.62, 0.2), (0.3, 0.58))  # lower-left (x0, y0)


def _low_prevalence_inset(drawn: PRPlot, curves: Mapping[str, PRCurve], pi: float) -> Axes:
    """A zoom on precision in [0, 6π]: the unachievable region and the baseline, readable.

    Placed where the curves leave the most room (the fewest curve points inside).
    """
    ax = drawn.ax
    top = min(1.0, 6.0 * pi)
    # Each corner's box with its margins; the curves' step points in it counted a block of
    # thresholds at a time (no full-length step line: issue 26, item 6).
    boxes = [(x0 - 0.03, x0 + _INSET_SIZE + 0.03, y0 - 0.03, y0 + _INSET_SIZE + 0.1)
             for x0, y0 in _CORNERS]
    every = np.zeros(len(boxes), dtype=np.int64)
    for c in curves.values():
        if len(c):
            every += _points_inside(c, boxes)
    marked = np.array([np.asarray(p.get_xydata())[0] for p in drawn.best_points.values()]
                      ).reshape(-1, 2)

    def crowding(k: int) -> tuple[int, int]:
        """(best points covered, curve points covered): never hide a marked point."""
        x0, x1, y0, y1 = boxes[k]
        inside = (marked[:, 0] >= x0) & (marked[:, 0] <= x1) & (marked[:, 1] >= y0) & (
            marked[:, 1] <= y1)
        return int(np.count_nonzero(inside)), int(every[k])

    x0, y0 = _CORNERS[min(range(len(_CORNERS)), key=crowding)]
    inset = ax.inset_axes((x0, y0, _INSET_SIZE, _INSET_SIZE))
    inset.set_gid("low-prevalence-inset")
    r = np.linspace(0.0, 1.0, 401)
    inset.fill_between(r, 0.0, _min_precision(r, pi), facecolor="0.6", alpha=0.3,
                       edgecolor="0.35", linewidth=0.8)
    inset.plot([0.0, 1.0], [pi, pi], linestyle=(0, (5, 3)), color="0.25", linewidth=1.0)
    for line in drawn.curves.values():
        inset.plot(line.get_xdata(), line.get_ydata(), drawstyle="steps-pre",
                   color=line.get_color(), linewidth=1.0)
    inset.set_xlim(0.0, 1.0)
    inset.set_ylim(0.0, top)
    inset.tick_params(labelsize=6, length=2, pad=1)
    inset.set_title(f"zoom: precision ≤ {top:.2g}", fontsize=7, pad=2)
    # A curve behind the title never crosses its words: the title has a white ground.
    inset.title.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 1.0})
    inset.set_facecolor("white")
    inset.set_zorder(5)
    return inset

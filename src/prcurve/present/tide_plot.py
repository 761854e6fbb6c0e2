"""TIDE's error breakdown as bars (matplotlib, imported when drawn).

Left: the AP points gained by fixing each main error type (Cls, Loc, Both,
Dupe, Bkg, Miss), each bar labelled with its value and the number of errors;
right: the FalsePos and FalseNeg oracles. Presentation only: every number
comes from :class:`prcurve.detection.tide.TIDEErrors`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from prcurve.detection.protocol import similarity_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from prcurve.detection.tide import TIDEErrors

__all__ = ["plot_errors"]

_DESCRIPTIONS = {"Cls": "classification", "Loc": "localization", "Both": "cls and loc",
                 "Dupe": "duplicate", "Bkg": "background", "Miss": "missed"}


def plot_errors(errors: TIDEErrors) -> Figure:
    """Two bar panels: the main errors' dAP (with counts) and the special errors' dAP.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve.detection import Detections, GroundTruth
    >>> from prcurve.detection.tide import tide_errors
    >>> gt = GroundTruth([1, 1], [1, 2], [[0, 0, 10, 10], [50, 50, 10, 10]])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [50, 50, 10, 10]], [0.9, 0.8])
    >>> fig = plot_errors(tide_errors([(gt, dt)]))
    >>> fig.axes[0].get_xlabel()
    'dAP (AP points gained by fixing)'
    """
    import matplotlib.pyplot as plt

    fig: Any
    fig, (main_ax, special_ax) = plt.subplots(
        1, 2, figsize=(10.0, 4.0), gridspec_kw={"width_ratios": [3, 2]})
    names = list(errors.main)
    values = [0.0 if math.isnan(v) else v for v in errors.main.values()]
    colors = [plt.get_cmap("tab10")(i) for i in range(len(names))]
    y = range(len(names))
    main_ax.barh(y, values, color=colors)
    main_ax.set_yticks(list(y), [f"{n} ({_DESCRIPTIONS[n]})" for n in names])
    main_ax.invert_yaxis()
    top = max([*values, 1.0])
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        shown = "n/a" if math.isnan(errors.main[name]) else f"{value:.2f}"
        main_ax.text(value + 0.01 * top, i, f"{shown}  ({errors.counts[name]} errors)",
                     va="center", fontsize=8)
    main_ax.set_xlim(0, top * 1.35)
    main_ax.set_xlabel("dAP (AP points gained by fixing)")
    main_ax.set_title(f"Main errors; AP @ {similarity_name(errors.iou_type)} "
                      f"{errors.pos_threshold:g} = {errors.ap:.2f}")
    special = list(errors.special)
    special_values = [0.0 if math.isnan(v) else v for v in errors.special.values()]
    special_ax.bar(range(len(special)), special_values, color=["#d62728", "#1f77b4"])
    special_ax.set_xticks(range(len(special)), special)
    for i, value in enumerate(special_values):
        special_ax.text(i, value, f"{value:.2f}", ha="center", va="bottom", fontsize=8)
    special_ax.set_ylabel("dAP")
    special_ax.set_title("Special errors")
    fig.tight_layout()
    return fig  # type: ignore[no-any-return]

"""Plots of a detection evaluation (matplotlib, imported when a plot is drawn).

- :func:`plot_iou_curves`: COCO's interpolated precision at its recall
  thresholds, averaged over categories, one curve per IoU threshold, each
  labelled with its AP (the curves behind COCO's AP@[.5:.95]).
- :func:`plot_class_curves`: one panel per category, its PR curve at one IoU
  threshold (prcurve's step curve, ties grouped) with the best-F point and
  its score threshold; for a COCO or a VOC evaluation.

Presentation only: every number comes from the evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prcurve.detection.protocol import VOCProtocol, similarity_name
from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from prcurve.detection.coco import COCOEvaluation
    from prcurve.detection.voc import VOCEvaluation

__all__ = ["plot_class_curves", "plot_iou_curves"]


def _pyplot() -> Any:
    import matplotlib.pyplot as plt

    return plt


def plot_iou_curves(
    evaluation: COCOEvaluation,
    *,
    iou_thresholds: Sequence[float] | None = None,
    area: str = "all",
    max_dets: int | None = None,
    category: Any = None,
    ax: Axes | None = None,
) -> Figure:
    """COCO's precision at each recall threshold, one curve per IoU threshold.

    Each curve is ``precision[t, :, k, a, m]`` averaged over the categories
    with ground truth (or one ``category``); its legend gives the AP (the
    mean of the curve: COCO's 101-point AP).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
    >>> from prcurve.present.detection_plot import plot_iou_curves
    >>> gt = GroundTruth([1, 1], [1, 1], [[0, 0, 10, 10], [20, 0, 10, 10]])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 9], [20, 0, 10, 10]], [0.9, 0.8])
    >>> figure = plot_iou_curves(evaluation=evaluate_coco(gt, dt), iou_thresholds=[0.5, 0.95])
    >>> [line.get_label() for line in figure.axes[0].get_lines()]
    ['IoU=0.50: AP 1.000', 'IoU=0.95: AP 0.252']
    """
    protocol = evaluation.protocol
    chosen = protocol.iou_thresholds if iou_thresholds is None else iou_thresholds
    a = evaluation._a(area)
    m = evaluation._m(max_dets)
    recall = np.asarray(protocol.recall_thresholds)
    if ax is None:
        figure = _pyplot().figure(figsize=(9.0, 5.5), layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.figure
    colors = _pyplot().get_cmap("viridis")
    iou_type = getattr(protocol, "iou_type", "bbox")
    kind = similarity_name(iou_type)
    short = "OKS" if iou_type == "keypoints" else "IoU"
    for i, threshold in enumerate(chosen):
        t = evaluation._t(threshold)
        block = evaluation.precision[t, :, :, a, m]  # (R, K)
        if category is not None:
            block = block[:, [evaluation._k(category)]]
        valid = (block > -1).all(axis=0)
        if not valid.any():
            continue
        mean = block[:, valid].mean(axis=1)
        color = colors(i / max(len(chosen) - 1, 1))
        ax.plot(recall, mean, color=color, drawstyle="steps-post",
                label=f"{short}={protocol.iou_thresholds[t]:.2f}: AP {mean.mean():.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    what = "mean over categories" if category is None else f"category {category}"
    ax.set_title(f"{protocol.name.upper()} interpolated precision at {recall.shape[0]} recall "
                 f"thresholds ({kind})\n"
                 f"{what}, area {area}, maxDets {protocol.max_dets[m]}", fontsize="medium")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small",
              title="101-point AP")
    ax.grid(alpha=0.3)
    return figure  # type: ignore[no-any-return]


def plot_class_curves(
    evaluation: COCOEvaluation | VOCEvaluation,
    categories: Sequence[Any] | None = None,
    *,
    iou_threshold: float = 0.5,
    beta: float = 1.0,
    ncols: int = 8,
    max_panels: int = 200,
) -> Figure:
    """One small PR curve per category at one IoU threshold, with its best-F point.

    Each panel draws the category's step curve (prcurve's curve: tied scores
    are one point, the area under the steps is its ``step`` AP) over recall
    of all its objects that count, marks the best-F-beta point with its score
    threshold, and gives in its title the protocol's AP for that category
    (COCO's 101-point AP at this IoU threshold, or VOC's AP). ``categories``
    picks and orders the panels (ids or names; default every category with
    ground truth, at most ``max_panels``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
    >>> from prcurve.present.detection_plot import plot_class_curves
    >>> gt = GroundTruth([1, 1], ["cat", "dog"], [[0, 0, 10, 10], [20, 0, 10, 10]])
    >>> dt = Detections([1, 1], ["cat", "dog"], [[0, 0, 10, 9], [20, 0, 10, 10]], [0.9, 0.8])
    >>> figure = plot_class_curves(evaluate_coco(gt, dt))
    >>> [ax.get_title() for ax in figure.axes]
    ['cat: AP50 1.000 (101point)', 'dog: AP50 1.000 (101point)']
    """
    from prcurve.present.lines import drawn_points
    from prcurve.present.plot_setup import pixel_columns
    from prcurve.present.pr_geometry import step_xy as _step_xy

    b = _checks.check_positive_number("beta", beta)
    n_pos = evaluation.n_pos if evaluation.n_pos.ndim == 1 else evaluation.n_pos[:, 0]
    if categories is None:
        ks = [k for k in range(evaluation.categories.shape[0]) if n_pos[k] > 0][:max_panels]
    else:
        ks = [evaluation._k(c) for c in categories]
    coco = not isinstance(evaluation.protocol, VOCProtocol)  # COCO's or LVIS's 101 points
    method = "101point" if coco else evaluation.protocol.ap_method  # type: ignore[union-attr]
    label = f"AP{round(iou_threshold * 100):d}"
    n = max(len(ks), 1)
    cols = min(ncols, n)
    rows = math.ceil(n / cols)
    # A fixed layout: matplotlib's constrained layout takes seconds for 80 panels.
    import textwrap

    kind = similarity_name(getattr(evaluation.protocol, "iou_type", "bbox"))
    # The figure's title (which similarity, which threshold), wrapped to the figure's
    # width (about 12 characters an inch at this size), with room above the panels.
    # Panels 2.4 inches wide; a figure of one category is 4.8 inches wide, not a 2.4-inch
    # thumbnail (360 pixels at 150 dpi, its title wrapped over two lines).
    panel = max(2.4, 4.8 / cols)
    width = panel * cols
    title = textwrap.wrap(f"Precision-recall per category at {kind} >= {iou_threshold:g}",
                          max(18, int(12 * width)))
    extra = 0.2 + 0.2 * len(title)
    height = 2.2 * panel / 2.4 * rows + 0.6 + extra
    figure = _pyplot().figure(figsize=(width, height))
    axes = figure.subplots(rows, cols, squeeze=False)
    figure.subplots_adjust(left=0.6 / width, right=1 - 0.1 / width,
                           bottom=0.5 / height, top=1 - (0.3 + extra) / height,
                           wspace=0.3, hspace=0.55)
    for panel, k in enumerate(ks):
        ax = axes[panel // cols][panel % cols]
        category = evaluation.categories[k].item()
        curve = evaluation.curve(category, iou_threshold=iou_threshold, zero_division=0)
        if coco:
            value = evaluation.average_precision(  # type: ignore[union-attr]
                category, iou_threshold=iou_threshold)
        else:
            value = float(evaluation.ap[evaluation._t(iou_threshold), k])  # type: ignore[union-attr]
        shown = "n/a" if math.isnan(value) else f"{value:.3f}"
        ax.set_title(f"{evaluation._name(k)}: {label} {shown} ({method})", fontsize="small")
        if len(curve) and curve.n_pos > 0:
            x, y = drawn_points(*_step_xy(curve), pixel_columns(ax))
            ax.plot(x, y, drawstyle="steps-pre", linewidth=1.0)
            best = curve.best_f(b)
            ax.plot([best.recall], [best.precision], "o", markersize=3, color="black")
            left = best.recall > 0.55  # keep the label inside the panel
            ax.annotate(f"F{b:g} {best.value:.2f}\nscore ≥ {best.threshold:.3g}",
                        (best.recall, best.precision), fontsize="x-small",
                        xytext=(-4 if left else 4, 4), textcoords="offset points",
                        ha="right" if left else "left")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.05)
        ax.tick_params(labelsize="x-small")
        ax.grid(alpha=0.3)
    for panel in range(len(ks), rows * cols):
        figure.delaxes(axes[panel // cols][panel % cols])
    figure.suptitle("\n".join(title), fontsize="small", y=1 - 0.08 / height, va="top")
    figure.supxlabel("recall (of all objects that count)", fontsize="small")
    figure.supylabel("precision", fontsize="small")
    return figure  # type: ignore[no-any-return]

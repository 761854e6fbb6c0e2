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

from prcurve.detection import _checks

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
    >>> from prcurve.plot_detection import plot_iou_curves
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
                label=f"IoU={protocol.iou_thresholds[t]:.2f}: AP {mean.mean():.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    what = "mean over categories" if category is None else f"category {category}"
    ax.set_title(f"COCO interpolated precision at {recall.shape[0]} recall thresholds\n"
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
    ncols: int = 6,
    max_panels: int = 100,
) -> Figure:
    """One PR curve per category at one IoU threshold, with its best-F threshold.

    ``categories`` picks and orders the panels (ids or names; default every
    category with ground truth, at most ``max_panels``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
    >>> from prcurve.plot_detection import plot_class_curves
    >>> gt = GroundTruth([1, 1], ["cat", "dog"], [[0, 0, 10, 10], [20, 0, 10, 10]])
    >>> dt = Detections([1, 1], ["cat", "dog"], [[0, 0, 10, 9], [20, 0, 10, 10]], [0.9, 0.8])
    >>> figure = plot_class_curves(evaluate_coco(gt, dt))
    >>> [ax.get_title() for ax in figure.axes]
    ['cat: AP50 1.000 (101point)', 'dog: AP50 1.000 (101point)']
    """
    from prcurve.plot import plot_pr_curves_grid

    b = _checks.check_positive_number("beta", beta)
    if categories is None:
        ks = [k for k in range(evaluation.categories.shape[0]) if evaluation.n_pos[k] > 0] \
            if evaluation.n_pos.ndim == 1 else [
                k for k in range(evaluation.categories.shape[0]) if evaluation.n_pos[k, 0] > 0]
        ks = ks[:max_panels]
    else:
        ks = [evaluation._k(c) for c in categories]
    method = "101point" if evaluation.protocol.name == "coco" else (
        evaluation.protocol.ap_method)  # type: ignore[union-attr]
    groups = []
    titles = []
    label = f"AP{round(iou_threshold * 100):d}"
    for k in ks:
        category = evaluation.categories[k].item()
        name = evaluation._name(k)
        curve = evaluation.curve(category, iou_threshold=iou_threshold, zero_division=0)
        groups.append({name: curve})
        if evaluation.protocol.name == "coco":
            value = evaluation.average_precision(  # type: ignore[union-attr]
                category, iou_threshold=iou_threshold)
        else:
            value = float(evaluation.ap[evaluation._t(iou_threshold), k])  # type: ignore[union-attr]
        shown = "n/a" if math.isnan(value) else f"{value:.3f}"
        titles.append(f"{name}: {label} {shown} ({method})")
    figure = _pyplot().figure(layout="constrained")
    plot_pr_curves_grid(groups, titles=titles, ncols=ncols, figure=figure, beta=b,
                        show_unachievable=False, show_baseline=False, iso_f=(), legend=None,
                        ap_method="interpolated" if method == "101point" else method)
    for ax in figure.axes:
        ax.title.set_fontsize("small")
    return figure  # type: ignore[no-any-return]

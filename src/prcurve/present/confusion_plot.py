"""A detection confusion matrix as a heat map (matplotlib, imported when drawn).

Rows are ground truth, columns detections, the last of each the background
(:mod:`prcurve.detection.confusion`). With ``normalize="true"`` each row is
divided by its total (the share of a class's objects that went to each
column), ``"pred"`` each column (the share of a class's detections that came
from each row); the cells always print the counts. Presentation only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from prcurve.detection.protocol import similarity_name
from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from prcurve.detection.confusion import ConfusionMatrix

__all__ = ["plot_confusion_matrix"]


def plot_confusion_matrix(matrix: ConfusionMatrix, *, ax: Axes | None = None,
                          normalize: str | None = "true", cmap: str = "Blues") -> Figure:
    """Heat map of ``matrix`` with each cell's count written in it.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from prcurve.detection import Detections, GroundTruth
    >>> from prcurve.detection.confusion import confusion_matrix
    >>> gt = GroundTruth([1, 1], [1, 2], [[0, 0, 10, 10], [50, 50, 10, 10]])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [50, 50, 10, 10]], [0.9, 0.8])
    >>> fig = plot_confusion_matrix(confusion_matrix([(gt, dt)]))
    >>> fig.axes[0].get_ylabel()
    'ground truth'
    """
    how = _checks.check_choice("normalize", normalize, ("true", "pred", None))
    import matplotlib.pyplot as plt

    counts = np.asarray(matrix.matrix, dtype=np.float64)
    shown = counts
    if how is not None:
        totals = counts.sum(axis=1 if how == "true" else 0, keepdims=True)
        shown = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    labels = [*matrix.names, "background"]
    n = len(labels)
    fig: Any
    if ax is None:
        size = max(4.0, 0.55 * n + 2.5)
        fig, ax = plt.subplots(figsize=(size + 1.0, size))
    else:
        fig = ax.figure
    image = ax.imshow(shown, cmap=cmap, vmin=0, vmax=1 if how is not None else None)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04,
                 label={"true": "share of the row (ground truth)",
                        "pred": "share of the column (detections)"}.get(str(how), "count"))
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("detections")
    ax.set_ylabel("ground truth")
    ax.set_title(f"{similarity_name(matrix.iou_type)} >= {matrix.iou_threshold:g}, "
                 f"score >= {matrix.score_threshold:g}")
    top = float(shown.max()) if shown.size else 0.0
    if n <= 40:  # counts stay legible up to about 40 classes
        for i in range(n):
            for j in range(n):
                if counts[i, j]:
                    dark = top > 0 and shown[i, j] > 0.5 * top
                    ax.text(j, i, f"{int(counts[i, j])}", ha="center", va="center",
                            fontsize=8, color="white" if dark else "black")
    fig.tight_layout()
    return fig  # type: ignore[no-any-return]

"""A detector's per-class confusion matrix, with a background row and column.

The assignment rule (one IoU threshold t, one score threshold s):

1. Detections scored >= s are kept (all of them: no per-image limit).
2. Per image, in decreasing score (a stable sort: ties keep input order), each
   detection takes the unmatched non-crowd ground truth *of any class* with
   the highest IoU >= t (the first in input order on equal IoU). It counts in
   cell ``[ground truth's class, detection's class]``: on the diagonal when the
   classes agree, off it when the detector named the wrong class.
3. An unmatched detection whose IoU with a crowd region of its own class
   (intersection over the detection's area, COCO's crowd IoU) is >= t is left
   out; any other unmatched detection counts in the background row:
   ``[background, detection's class]`` (a false positive on background).
4. Unmatched non-crowd ground truth counts in the background column:
   ``[ground truth's class, background]`` (a missed object).

Rows are ground truth, columns detections; the last row and column are the
background; ``[background, background]`` is always 0. IoU is COCO's (boxes or
masks, as the evaluation's ``iou_type``). Categories: those the ground truth
declares, else every category a box or a detection names, increasing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection.inputs import Detections, GroundTruth
from prcurve.detection.protocol import similarity_name
from prcurve.detection.tide_pairs import concat_ids, greedy_match, image_pairs
from prcurve.validation import arrays as _arrays
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ConfusionMatrix", "confusion_matrix"]

I64 = NDArray[np.int64]


@dataclass(frozen=True, eq=False)  # an array field: no element-wise ==
class ConfusionMatrix:
    """Counts ``matrix[i, j]``: ground truth of class i (row) taken by a detection of
    class j (column); index K (the last) is the background.

    Attributes
    ----------
    matrix : ndarray of int64, shape (K + 1, K + 1)
    categories : ndarray, shape (K,)
        Category ids of rows and columns 0 .. K-1.
    names : list of str
        Their names (the id as text where the ground truth names none).
    iou_threshold, score_threshold : float
    """

    matrix: I64
    categories: NDArray[Any]
    names: list[str]
    iou_threshold: float
    score_threshold: float
    iou_type: str = field(default="bbox")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``labels`` (names, then ``"background"``), ``matrix`` (rows: ground
        truth, columns: detections), ``categories`` and the thresholds."""
        return {"categories": self.categories.tolist(),
                "labels": [*self.names, "background"],
                "matrix": self.matrix.tolist(),
                "rows": "ground truth", "columns": "detections",
                "iou_threshold": self.iou_threshold, "score_threshold": self.score_threshold,
                "iou_type": self.iou_type}

    def text(self) -> str:
        """The matrix as an aligned table (rows: ground truth; columns: detections)."""
        labels = [*self.names, "background"]
        corner = "truth \\ detected"
        width = max([len(corner)] + [len(x) for x in labels])
        cells = [max(len(x), len(str(int(self.matrix.max(initial=0))))) for x in labels]
        head = f"{corner:<{width}}  " + "  ".join(
            f"{x:>{w}}" for x, w in zip(labels, cells, strict=True))
        rows = [f"{label:<{width}}  " + "  ".join(
            f"{int(v):>{w}}" for v, w in zip(row, cells, strict=True))
            for label, row in zip(labels, self.matrix, strict=True)]
        title = (f"Confusion matrix ({similarity_name(self.iou_type)} >= {self.iou_threshold:g}, "
                 f"score >= {self.score_threshold:g})")
        return "\n".join([title, head, *rows])

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Figure:
        """:func:`prcurve.present.confusion_plot.plot_confusion_matrix` (matplotlib loads
        then)."""
        from prcurve.present.confusion_plot import plot_confusion_matrix

        return plot_confusion_matrix(self, ax=ax, **kwargs)


def confusion_matrix(sources: Sequence[tuple[GroundTruth, Detections]], *,
                     iou_type: str = "bbox", iou_threshold: Any = 0.5,
                     score_threshold: Any = 0.5,
                     category_names: Mapping[Any, str] | None = None) -> ConfusionMatrix:
    """The confusion matrix of (ground truth, detections) batches (module docstring's rule).

    Examples
    --------
    >>> from prcurve.detection import Detections, GroundTruth
    >>> gt = GroundTruth([1, 1, 1], [1, 2, 2],
    ...                  [[0, 0, 10, 10], [50, 50, 10, 10], [80, 0, 10, 10]])
    >>> dt = Detections([1, 1, 1], [1, 1, 2],
    ...                 [[0, 0, 10, 10], [50, 50, 10, 10], [30, 30, 5, 5]], [0.9, 0.8, 0.7])
    >>> confusion_matrix([(gt, dt)]).matrix.tolist()
    [[1, 0, 0], [1, 0, 1], [0, 1, 0]]
    """
    t = _checks.check_fraction("iou_threshold", iou_threshold)
    s = _arrays.check_finite_number("score_threshold", score_threshold)
    _keypoint_checks.check_not_keypoints("iou_type", iou_type)
    kind = _checks.check_choice("iou_type", iou_type, ("bbox", "segm"))
    declared = [gt.categories for gt, _ in sources if gt.categories is not None]
    named = [a for gt, dt in sources for a in (gt.category_id, dt.category_id)]
    categories = np.unique(concat_ids(*declared)) if declared else np.unique(
        concat_ids(*named))
    k = int(categories.shape[0])
    matrix = np.zeros((k + 1, k + 1), dtype=np.int64)
    for gt, dt in sources:
        p = image_pairs(gt, dt, kind, None, min_score=s)
        n_dt, n_gt = p.dt_category.shape[0], p.gt_category.shape[0]
        objects = ~p.pair_crowd
        matched_to, used = greedy_match(p.pair_dt, p.pair_gt, p.pair_iou,
                                        objects & (p.pair_iou >= t), p.dt_rank, n_dt, n_gt)
        d_code = _codes(categories, p.dt_category)
        g_code = _codes(categories, p.gt_category)
        hit = matched_to >= 0
        np.add.at(matrix, (g_code[matched_to[hit]], d_code[hit]), 1)
        inside = p.pair_crowd & (p.pair_dt_category == p.pair_gt_category) & (p.pair_iou >= t)
        crowded = np.zeros(n_dt, dtype=bool)
        crowded[p.pair_dt[inside]] = True
        background = ~hit & ~crowded
        np.add.at(matrix, (np.full(int(background.sum()), k), d_code[background]), 1)
        missed = ~used & ~p.gt_crowd
        np.add.at(matrix, (g_code[missed], np.full(int(missed.sum()), k)), 1)
    names = dict(category_names or {})
    return ConfusionMatrix(matrix=matrix, categories=categories,
                           names=[str(names.get(c, c)) for c in categories.tolist()],
                           iou_threshold=t, score_threshold=s, iou_type=kind)


def _codes(categories: NDArray[Any], values: NDArray[Any]) -> I64:
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.searchsorted(categories, values).astype(np.int64)

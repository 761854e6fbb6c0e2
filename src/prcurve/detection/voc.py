"""PASCAL VOC's evaluation on the matched state: per-class AP and mAP, and their views.

For each class (the devkit's ``VOCevaldet.m`` after matching): detections
in decreasing score; a true positive adds to TP, a false positive (no
overlap >= the threshold, or a duplicate) to FP, a detection on a difficult
object to neither; recall is TP over the class's non-difficult ground truth.
AP is a named prcurve method on that count state: ``"interpolated"`` is VOC
2010+'s all-point AP (the area under the interpolated precision),
``"11point"`` VOC 2007's mean interpolated precision at recall 0, 0.1, ...,
1. mAP is the mean over classes with ground truth (a class without any has
AP NaN and is left out, as COCO leaves out its -1).

Tied scores are one operating point (prcurve's convention, ``ties="grouped"``, the
default). The devkit instead walks tied detections one by one in its sort order:
``[sc, si] = sort(-confidence)`` in ``VOCevaldet.m``, MATLAB's stable sort, so tied
detections come in the order of the results file. ``ties="file-order"`` reproduces
that walk for the AP and mAP (one point per detection, ties in the order of the
detections' input rows); the curves, thresholds and best-F views stay grouped (a
threshold cannot separate tied detections). With distinct scores both agree.
The devkit's 11 levels are ``0:0.1:1`` in floating point (0.30000000000000004,
...); prcurve's are k / 10 exactly, which matters only for a recall of
exactly 0.3, 0.6 or 0.7.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import ThresholdCounts
from prcurve.core.curve import PRCurve
from prcurve.core.table import Table
from prcurve.core.undefined import ZeroDivision
from prcurve.detection.coco import SortedRecords, _tie_grouped_counts
from prcurve.detection.protocol import VOCProtocol
from prcurve.detection.views import CategoryViews, json_value
from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from prcurve.detection.state import DetectionState

__all__ = ["VOC_TIES", "VOCEvaluation"]

VOC_TIES = ("grouped", "file-order")
"""How VOC's AP walks tied scores: one point per score (prcurve's convention) or one
point per detection in the order of the input, as the devkit does (module docstring)."""

F64 = NDArray[np.float64]


class VOCEvaluation(CategoryViews):
    """PASCAL VOC's evaluation of a detector (module docstring).

    Attributes
    ----------
    protocol : VOCProtocol
    categories : ndarray, shape (K,)
    images : ndarray
    ap : ndarray, shape (T, K)
        AP of each class at each IoU threshold by ``protocol.ap_method``
        (NaN for a class without non-difficult ground truth).
    mean_ap : ndarray, shape (T,)
        mAP at each IoU threshold.
    n_pos : ndarray, shape (K,)
        Non-difficult ground truth per class.

    Examples
    --------
    >>> from prcurve.detection import evaluate_voc, GroundTruth, Detections
    >>> gt = GroundTruth([1, 1], ["cat", "cat"], [[0, 0, 10, 10], [20, 0, 10, 10]])
    >>> dt = Detections([1, 1], ["cat", "cat"], [[0, 0, 10, 10], [40, 0, 10, 10]], [0.9, 0.8])
    >>> result = evaluate_voc(gt, dt)
    >>> result.mean_ap.tolist(), result.ap.tolist()
    ([0.5], [[0.5]])
    """

    def __init__(self, state: DetectionState, records: SortedRecords,
                 ties: str = "grouped") -> None:
        protocol = state.protocol
        if not isinstance(protocol, VOCProtocol):
            raise _checks.wrong_type("state", state, "a state under the VOC protocol")
        self.protocol: VOCProtocol = protocol
        self.ties: str = _checks.check_choice("ties", ties, VOC_TIES)
        if self.ties == "file-order" and records.row is None:
            raise _checks.no_file_order()
        self._adopt(state, records)
        self.n_pos = records.n_pos[:, 0]
        n_t = len(protocol.iou_thresholds)
        self.ap = np.full((n_t, self.categories.shape[0]), math.nan)
        for t in range(n_t):
            for k in range(self.categories.shape[0]):
                if self.n_pos[k] > 0:
                    curve = PRCurve(self._counts(k, t) if self.ties == "grouped"
                                    else self._walk(k, t))
                    self.ap[t, k] = curve.average_precision(protocol.ap_method)  # type: ignore[arg-type]
        with_gt = self.n_pos > 0
        self.mean_ap = (self.ap[:, with_gt].mean(axis=1) if with_gt.any()
                        else np.full(n_t, math.nan))

    @classmethod
    def from_state(cls, state: DetectionState, ties: str = "grouped") -> VOCEvaluation:
        return cls(state, SortedRecords.from_state(state), ties)

    @property
    def n_images(self) -> int:
        return int(self.images.shape[0])

    def __repr__(self) -> str:
        return (f"VOCEvaluation({self.n_images} images, {self.categories.shape[0]} classes, "
                f"mAP={self.mean_ap[0]:.4f})")

    def _t(self, iou_threshold: float | None) -> int:
        return 0 if iou_threshold is None else super()._t(iou_threshold)

    def _counts(self, k: int, t: int) -> ThresholdCounts:
        r = self._records
        lo, hi = int(r.start[k]), int(r.start[k + 1])
        tp, ignored = r.flags(0, t, lo, hi)
        return _tie_grouped_counts(r.score[lo:hi][~ignored], tp[~ignored], int(r.n_pos[k, 0]))

    def _walk(self, k: int, t: int) -> ThresholdCounts:
        """The devkit's walk of class k (``ties="file-order"``): one point per detection in
        decreasing score, tied ones in the order of their input rows (MATLAB's stable
        ``sort(-confidence)``). Thresholds are the positions (n, ..., 1): only the
        sequence of (recall, precision) points matters to the AP."""
        r = self._records
        lo, hi = int(r.start[k]), int(r.start[k + 1])
        tp, ignored = r.flags(0, t, lo, hi)
        rows: NDArray[np.int64] = r.row[lo:hi][~ignored]  # type: ignore[index]  # checked
        order = np.lexsort((rows, -r.score[lo:hi][~ignored]))
        hits = tp[~ignored][order]
        n = hits.shape[0]
        return ThresholdCounts(np.arange(n, 0, -1, dtype=np.float64), np.cumsum(hits),
                               np.cumsum(~hits), int(r.n_pos[k, 0]), n - int(hits.sum()))

    def counts(self, category: Any, *, iou_threshold: float | None = None) -> ThresholdCounts:
        """The count state of one class (difficult detections left out)."""
        return self._counts(self._k(category), self._t(iou_threshold))

    def curve(self, category: Any, *, iou_threshold: float | None = None,
              zero_division: ZeroDivision = "nan") -> PRCurve:
        """The precision–recall curve of one class (every AP method, best F, plots).

        Examples
        --------
        >>> from prcurve.detection import evaluate_voc, GroundTruth, Detections
        >>> gt = GroundTruth([1], [1], [[0, 0, 10, 10]])
        >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [0, 0, 10, 10]], [0.9, 0.8])
        >>> evaluate_voc(gt, dt).curve(1).precision.tolist()  # the duplicate is an FP
        [1.0, 0.5]
        """
        return PRCurve(self.counts(category, iou_threshold=iou_threshold),
                       zero_division=zero_division)

    def per_category(self) -> Table:
        """One row per class: AP at each IoU threshold, ground truth and detections."""
        n_k = self.categories.shape[0]
        columns: dict[str, Any] = {"category_id": np.asarray(self.categories.tolist()),
                                   "name": np.asarray([self._name(k) for k in range(n_k)],
                                                      dtype=object)}
        for t, threshold in enumerate(self.protocol.iou_thresholds):
            columns[f"AP{round(threshold * 100):d}"] = self.ap[t]
        columns["n_gt"] = self.n_pos
        columns["n_detections"] = np.diff(self._records.start)
        return Table(columns)

    def best_f(self, *, iou_threshold: float | None = None, beta: float = 1.0) -> Table:
        """Per class, the score threshold of maximal F-beta (as
        :meth:`COCOEvaluation.best_f`)."""
        t = self._t(iou_threshold)
        return self._best_f_table(lambda k: PRCurve(self._counts(k, t), zero_division=0), beta)

    def summary(self) -> str:
        """mAP at each IoU threshold, then each class's AP, 3 decimals, method named."""
        method = self.protocol.ap_method
        lines = [f" mAP[{method}] @ IoU>={t:0.2f} = {m:0.3f}"
                 for t, m in zip(self.protocol.iou_thresholds, self.mean_ap, strict=True)]
        width = max([len(self._name(k)) for k in range(self.categories.shape[0])] + [5])
        for k in range(self.categories.shape[0]):
            values = "  ".join("  nan" if math.isnan(v) else f"{v:0.3f}" for v in self.ap[:, k])
            lines.append(f"   {self._name(k):<{width}}  {values}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (NaN as null)."""
        return {
            "protocol": "voc",
            "parameters": {"iou_thresholds": list(self.protocol.iou_thresholds),
                           "ap_method": self.protocol.ap_method,
                           "inclusive_pixels": self.protocol.inclusive_pixels,
                           "ties": self.ties},
            "n_images": self.n_images,
            "mean_ap": {f"{t:g}": json_value(float(m)) for t, m in
                        zip(self.protocol.iou_thresholds, self.mean_ap, strict=True)},
            "per_category": self._category_rows(self.per_category(), self.best_f()),
        }

    def plot_class_curves(self, categories: Sequence[Any] | None = None,
                          **kwargs: Any) -> Figure:
        """:func:`prcurve.present.detection_plot.plot_class_curves` (matplotlib loads then)."""
        from prcurve.present.detection_plot import plot_class_curves

        return plot_class_curves(self, categories, **kwargs)

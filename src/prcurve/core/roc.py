"""The ROC curve: another view of the same count state.

At threshold ``t`` the true positive rate is ``TPR = tp(t) / P`` and the false
positive rate ``FPR = fp(t) / N``; the curve runs from (0, 0), the threshold
above every score, through every distinct score in decreasing order to (1, 1).
It is built from the very counts a :class:`~prcurve.PRCurve` views, so the two
curves correspond point by point (Davis & Goadrich 2006, "The relationship
between precision-recall and ROC curves"): for fixed class totals P and N,

    recall = TPR,    precision = TPR P / (TPR P + FPR N),

so a curve dominates another in ROC space exactly when it dominates in PR
space. Areas do not correspond: AUC-ROC is unchanged by the class skew, while
AP and the unachievable region of PR space move with it (docs/definitions.md).

``auc`` is the trapezoidal area (scikit-learn's ``roc_auc_score``); ties are
one operating point, so a tie group is a straight segment, the probability of
ranking a random positive above a random negative with ties counted half.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import BinnedCounts, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.core.undefined import ZeroDivision, ratio, undefined, undefined_scope
from prcurve.validation.arrays import check_zero_division, wrong_type
from prcurve.validation.labels import check_scored_labels

__all__ = ["ROCCurve", "binary_roc_auc", "roc_curve"]

F64 = NDArray[np.float64]

_AUC_BLOCK = 1 << 20
"""Points of the curve whose trapezoids are summed together by :meth:`ROCCurve.auc`."""


class ROCCurve:
    """The ROC curve of a count state: false and true positive rates at each threshold.

    Element ``i`` of ``fpr`` (``tpr``) is the rate of predicting positive every
    sample with score ``>= thresholds[i]``. ``thresholds[0]`` is ``+inf`` (the
    point (0, 0): nothing predicted positive), then the distinct scores in
    decreasing order, as scikit-learn's ``roc_curve`` returns them.

    Parameters
    ----------
    counts : ThresholdCounts
        The count state (``PRCurve.counts`` or ``ThresholdCounts.from_scores``).
    drop_intermediate : bool, default False
        Drop the points that lie on a straight line between their neighbours
        in count space, as scikit-learn's ``roc_curve(drop_intermediate=True)``
        does; the area is unchanged.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        A rate without positives (TPR) or negatives (FPR) is 0/0.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> roc = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).roc()
    >>> roc.fpr.tolist(), roc.tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    >>> roc.auc()
    0.75
    """

    def __init__(
        self,
        counts: ThresholdCounts,
        *,
        drop_intermediate: bool = False,
        zero_division: ZeroDivision = "nan",
    ) -> None:
        if not isinstance(counts, ThresholdCounts):
            raise wrong_type("counts", counts, "ThresholdCounts")
        check_zero_division(zero_division)
        self._counts = counts
        self.zero_division: ZeroDivision = zero_division
        # The state's own counts (uint32 for hard labels: ThresholdCounts' invariant):
        # the area reads them a block at a time as float64, the arrays below convert.
        tp, fp, thresholds = counts._tp, counts._fp, counts.thresholds
        if drop_intermediate and tp.shape[0] > 2:
            tp, fp = counts.tp, counts.fp
            # scikit-learn's rule: keep the ends and every point where either count's
            # second difference is non-zero (a bend of the curve).
            keep = np.r_[True, np.logical_or(np.diff(fp, 2), np.diff(tp, 2)), True]
            tp, fp, thresholds = tp[keep], fp[keep], thresholds[keep]
        # The state's own arrays (no copy); the point (0, 0) is put in front only when
        # the arrays are asked for: the area needs no copy (issue 26, item 6).
        self._state_tp, self._state_fp, self._state_thresholds = tp, fp, thresholds

    @cached_property
    def _tp(self) -> F64:
        return np.concatenate((np.zeros(1), self._state_tp))

    @cached_property
    def _fp(self) -> F64:
        return np.concatenate((np.zeros(1), self._state_fp))

    @cached_property
    def _thresholds(self) -> F64:
        thresholds: F64 = np.r_[np.inf, self._state_thresholds]  # int thresholds too
        return thresholds

    @classmethod
    def from_counts(
        cls, counts: ThresholdCounts | BinnedCounts, *, drop_intermediate: bool = False,
        zero_division: ZeroDivision = "nan",
    ) -> ROCCurve:
        """The ROC view of an exact or binned count state."""
        if isinstance(counts, BinnedCounts):
            counts = counts.to_threshold_counts()
        return cls(counts, drop_intermediate=drop_intermediate, zero_division=zero_division)

    @property
    def counts(self) -> ThresholdCounts:
        """The count state this curve views."""
        return self._counts

    @property
    def thresholds(self) -> F64:
        """``+inf``, then the distinct scores, decreasing."""
        return self._thresholds

    @property
    def tp(self) -> F64:
        return self._tp

    @property
    def fp(self) -> F64:
        return self._fp

    @property
    def n_pos(self) -> float:
        return self._counts.n_pos

    @property
    def n_neg(self) -> float:
        return self._counts.n_neg

    @property
    def tpr(self) -> F64:
        """TP / P at each threshold (recall, sensitivity)."""
        with undefined_scope(self.zero_division):
            return ratio(self._tp, np.full_like(self._tp, self.n_pos), "TPR")

    @property
    def fpr(self) -> F64:
        """FP / N at each threshold (1 − specificity)."""
        with undefined_scope(self.zero_division):
            return ratio(self._fp, np.full_like(self._fp, self.n_neg), "FPR")

    def __len__(self) -> int:
        return int(self._state_thresholds.shape[0]) + 1

    def __repr__(self) -> str:
        return f"ROCCurve({len(self)} points, n_pos={self.n_pos:g}, n_neg={self.n_neg:g})"

    def auc(self) -> float:
        """The area under the curve by the trapezoidal rule (scikit-learn's ``roc_auc_score``).

        Equal to the probability that a random positive scores above a random
        negative, ties counting one half (weighted by sample weight). Undefined
        (``zero_division``) without positives or without negatives.
        """
        with undefined_scope(self.zero_division):
            if self.n_pos == 0 or self.n_neg == 0:
                return undefined("roc_auc (one class only)")
            tp, fp = self._state_tp, self._state_fp
            # The trapezoids from (0, 0) through every point, a block of points at a time
            # (no copy of the state: 3*10^7 thresholds are 480 MB of counts).
            twice, x0, y0 = 0.0, 0.0, 0.0
            for start in range(0, tp.shape[0], _AUC_BLOCK):
                x = fp[start:start + _AUC_BLOCK].astype(np.float64, copy=False) / self.n_neg
                y = tp[start:start + _AUC_BLOCK].astype(np.float64, copy=False) / self.n_pos
                previous = np.empty_like(y)
                previous[0], previous[1:] = y0, y[:-1]
                twice += float(np.sum(np.diff(x, prepend=x0) * (y + previous)))
                x0, y0 = float(x[-1]), float(y[-1])
            # Weight below every threshold (a truncated state) joins (1, 1) in a straight line.
            if x0 < 1.0 or y0 < 1.0:
                twice += (1.0 - x0) * (1.0 + y0)
            return min(max(twice / 2.0, 0.0), 1.0)


def roc_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    drop_intermediate: bool = False,
    zero_division: ZeroDivision = "nan",
) -> ROCCurve:
    """The ROC curve of 1-D scores against binary (or soft) labels.

    Parameters are those of :func:`prcurve.pr_curve` (``bins`` for a binned
    state) plus ``drop_intermediate`` (see :class:`ROCCurve`).

    Examples
    --------
    >>> from prcurve import roc_curve
    >>> roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).thresholds.tolist()
    [inf, 0.9, 0.8, 0.7, 0.6]
    """
    check_zero_division(zero_division)
    scores, binary, weights = check_scored_labels(y_true, y_score, sample_weight, pos_label,
                                                  integers=bins is None)
    if bins is None:
        counts = ThresholdCounts._from_checked(scores, binary, weights)
    else:
        binned = BinnedCounts(resolve_edges(bins, scores))
        binned._add_checked(scores, binary, weights)
        counts = binned.to_threshold_counts()
    return ROCCurve(counts, drop_intermediate=drop_intermediate, zero_division=zero_division)


def binary_roc_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """The area under the ROC curve of 1-D scores (the binary core of :func:`prcurve.roc_auc`).

    Examples
    --------
    >>> from prcurve.core.roc import binary_roc_auc
    >>> binary_roc_auc([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    0.75
    """
    return roc_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                     zero_division=zero_division).auc()

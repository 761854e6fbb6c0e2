"""Multi-class and multi-label problems: one binary count state per class, and the
public :func:`average_precision` and :func:`pr_curve` that accept score matrices.

:func:`one_vs_rest` turns an (n_samples, n_classes) score matrix into one binary
count state per class (multi-class labels or a multi-label indicator matrix).
:func:`average_precision` and :func:`pr_curve` take 1-D scores to the binary core
(:func:`prcurve.core.average_precision.binary_average_precision`,
:func:`prcurve.core.curve.binary_pr_curve`) and score matrices here, for
``average="macro" | "micro" | "weighted" | None``, which match scikit-learn's
``average_precision_score`` for the ``step`` method. This dispatch lives above
the binary core, which knows nothing of classes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.average_precision import (
    APMethod,
    ap_from_counts,
    binary_average_precision,
    check_method,
)
from prcurve.core.counts import ThresholdCounts, sum_of_products
from prcurve.core.curve import PRCurve, binary_pr_curve
from prcurve.core.roc import ROCCurve, binary_roc_auc
from prcurve.core.undefined import ZeroDivision, undefined, undefined_scope
from prcurve.validation.arrays import check_choice, check_zero_division
from prcurve.validation.labels import BinaryLabels, check_score_matrix
from prcurve.validation.space import unsupported_with_score_matrix

__all__ = [
    "AVERAGES",
    "Average",
    "OneVsRest",
    "average_precision",
    "one_vs_rest",
    "pr_curve",
    "roc_auc",
]

F64 = NDArray[np.float64]

Average = Literal["macro", "micro", "weighted"]
AVERAGES: tuple[Any, ...] = ("macro", "micro", "weighted", None)


@dataclass(frozen=True)
class OneVsRest:
    """One binary count state per class of a multi-class or multi-label problem.

    ``counts[j]`` is the state of column ``j`` of the score matrix with class
    ``classes[j]`` as the positive class; ``support[j]`` its positive weight.

    Examples
    --------
    >>> from prcurve import one_vs_rest
    >>> ovr = one_vs_rest(["a", "b", "a"], [[0.9, 0.1], [0.4, 0.6], [0.3, 0.7]])
    >>> ovr.classes.tolist(), ovr.support.tolist()
    (['a', 'b'], [2.0, 1.0])
    >>> ovr.average_precision(average=None).round(4).tolist()
    [0.8333, 0.5]
    """

    classes: NDArray[Any]
    counts: tuple[ThresholdCounts, ...]

    @property
    def support(self) -> F64:
        """Positive weight of each class."""
        return np.array([c.n_pos for c in self.counts])

    def micro_counts(self) -> ThresholdCounts:
        """Every (sample, class) cell pooled: the merge of the per-class states, equal to the
        state of the flattened indicator and score matrices (scikit-learn's ``micro``)."""
        return reduce(ThresholdCounts.merge, self.counts)

    def curves(self, *, zero_division: ZeroDivision = "nan") -> list[PRCurve]:
        """One :class:`~prcurve.PRCurve` per class, in the order of :attr:`classes`."""
        return [PRCurve(c, zero_division=zero_division) for c in self.counts]

    def average_precision(
        self, method: APMethod = "step", average: Average | None = "macro",
        *, zero_division: ZeroDivision = "nan",
    ) -> Any:
        """AP by ``method``, averaged over classes.

        ``None``: one value per class (an array); ``"macro"``: their mean;
        ``"weighted"``: their mean weighted by support (classes without
        positives have weight 0 and are not computed); ``"micro"``: the AP of
        the pooled state. A class without positives is undefined
        (``zero_division``); scikit-learn gives it 0, as ``zero_division=0`` does.
        """
        name = check_method(method)
        avg = check_choice("average", average, AVERAGES)
        with undefined_scope(zero_division):
            return self._average_precision(name, avg)

    def roc_auc(self, average: Average | None = "macro", *,
                zero_division: ZeroDivision = "nan") -> Any:
        """Area under each class's ROC curve, averaged as :meth:`average_precision` is.

        ``"micro"`` is the area of the pooled state (every (sample, class) cell),
        ``"weighted"`` weights each class by its positive weight.
        """
        avg = check_choice("average", average, AVERAGES)
        with undefined_scope(zero_division):
            return self._average(lambda c: ROCCurve(c).auc(), avg, "roc_auc")

    def _average_precision(self, method: str, average: str | None) -> Any:
        return self._average(lambda c: ap_from_counts(c, method), average,
                             f"average_precision[{method}]")

    def _average(self, value: Callable[[ThresholdCounts], float], average: str | None,
                 what: str) -> Any:
        """One value per class from its state, then the average over classes."""
        if average == "micro":
            return value(self.micro_counts())
        if average == "weighted":
            support = self.support
            total = float(support.sum())
            if total == 0:
                return undefined(f"{what} (no positives in any class)")
            present = np.flatnonzero(support > 0)
            values = np.array([value(self.counts[j]) for j in present])
            return sum_of_products(values, support[present]) / total
        values = np.array([value(c) for c in self.counts])
        if average is None:
            return values
        return float(values.mean())


def one_vs_rest(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> OneVsRest:
    """The one-vs-rest count states of an (n_samples, n_classes) score matrix.

    Parameters
    ----------
    y_true : array_like, shape (n,) or (n, k)
        Class labels (column ``j`` of ``y_score`` scores class ``labels[j]``,
        by default the sorted distinct labels, as scikit-learn's
        ``label_binarize``), or an indicator matrix (multi-label; each column
        binary, or soft in [0, 1]).
    y_score : array_like, shape (n, k)
        Finite scores, one column per class.
    labels : array_like, shape (k,), optional
        The class of each column; lets a fold miss a class.
    sample_weight : array_like, shape (n,), optional

    Returns
    -------
    OneVsRest
    """
    return _one_vs_rest(y_true, y_score, labels, sample_weight, scale_free=False)


def _one_vs_rest(
    y_true: ArrayLike, y_score: ArrayLike, labels: ArrayLike | None,
    sample_weight: ArrayLike | None, *, scale_free: bool,
) -> OneVsRest:
    """:func:`one_vs_rest`; ``scale_free`` for callers that return AP only (weights whose
    total overflows may then be rescaled, see ``prcurve.validation.labels.check_weights``)."""
    share, scores, classes, weights = check_score_matrix(
        y_true, y_score, sample_weight, labels, scale_free=scale_free
    )
    states = []
    for j in range(scores.shape[1]):
        column = share[:, j]
        hard = bool(((column == 0) | (column == 1)).all())
        binary = (BinaryLabels(positive=column == 1, soft=None) if hard
                  else BinaryLabels(positive=None, soft=column))
        states.append(ThresholdCounts._from_checked(
            np.ascontiguousarray(scores[:, j]), binary, weights))
    return OneVsRest(classes=classes, counts=tuple(states))


@overload
def average_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    method: APMethod = ...,
    sample_weight: ArrayLike | None = ...,
    pos_label: Any = ...,
    bins: int | ArrayLike | None = ...,
    average: Average = ...,
    labels: ArrayLike | None = ...,
    zero_division: ZeroDivision = ...,
) -> float: ...
@overload
def average_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    method: APMethod = ...,
    sample_weight: ArrayLike | None = ...,
    pos_label: Any = ...,
    bins: int | ArrayLike | None = ...,
    average: None,
    labels: ArrayLike | None = ...,
    zero_division: ZeroDivision = ...,
) -> F64: ...
def average_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    method: APMethod = "step",
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    average: Average | None = "macro",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """Average precision of scores against binary (or soft) labels, by a named method.

    Parameters
    ----------
    y_true : array_like, shape (n,) or (n, k)
        Binary labels, or soft labels in [0, 1]. With a score matrix: class
        labels, or a multi-label indicator matrix.
    y_score : array_like, shape (n,) or (n, k)
        Finite scores, higher for more likely positive. An (n, k) matrix is
        scored one-vs-rest, column ``j`` for class ``labels[j]`` (default: the
        sorted distinct labels of ``y_true``), see :mod:`prcurve.space.aggregate`.
    method : {"step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich"}
        The convention (module docstring, docs/definitions.md). Default
        ``"step"`` equals scikit-learn's ``average_precision_score``.
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a positive.
    bins : int or array_like, optional
        Compute from binned counts: an int gives that many equal bins over
        the observed score range, an array gives the edges. Exact if None.
    average : {"macro", "micro", "weighted"} or None, default "macro"
        For a score matrix (ignored for 1-D scores, as in scikit-learn):
        the mean over classes, the AP of all (sample, class) cells pooled, the
        mean weighted by each class's positive weight, or (None) one value per
        class. With ``method="step"`` these equal scikit-learn's
        ``average_precision_score(..., average=...)``; a class without
        positives is undefined here (``zero_division``; scikit-learn uses 0).
        For 1-D scores ``None`` gives a one-element array.
    labels : array_like, shape (k,), optional
        The class of each score column (classes absent from ``y_true`` allowed).
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when AP is undefined (no positive weight).

    Returns
    -------
    float or ndarray
        AP in [0, 1]; an array of one AP per class when ``average=None``.

    Examples
    --------
    The Precision And Recall tutorial's models A and B: (1 + 1 + 0.6 + 0.67) / 4 and
    (0.33 + 0.5 + 0.43 + 0.5) / 4.

    >>> from prcurve import average_precision
    >>> truth = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> round(average_precision(truth, [0.95, 0.85, 0.73, 0.62, 0.48, 0.39, 0.12, 0.04]), 2)
    0.82
    >>> round(average_precision(truth, [0.55, 0.59, 0.88, 0.97, 0.20, 0.09, 0.43, 0.32]), 2)
    0.44
    >>> round(average_precision([1, 0, 1], [0.9, 0.8, 0.3], method="11point"), 4)
    0.8485

    Three classes, one score column each (one-vs-rest):

    >>> scores = [[0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.6, 0.3, 0.1]]
    >>> average_precision([0, 1, 2, 1], scores, average=None).round(4).tolist()
    [0.5, 0.8333, 1.0]
    >>> round(average_precision([0, 1, 2, 1], scores, average="weighted"), 4)
    0.7917
    """
    name = check_method(method)
    avg = check_choice("average", average, AVERAGES)
    if np.ndim(y_score) == 2:
        with undefined_scope(zero_division):
            ovr = _one_vs_rest(y_true, y_score, labels, sample_weight, scale_free=True)
            if pos_label is not None or bins is not None:
                raise unsupported_with_score_matrix(
                    "pos_label" if pos_label is not None else "bins")
            return ovr._average_precision(name, avg)
    value = binary_average_precision(y_true, y_score, method=method, sample_weight=sample_weight,
                                     pos_label=pos_label, bins=bins, zero_division=zero_division)
    return np.array([value]) if avg is None else value


@overload
def pr_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = ...,
    pos_label: Any = ...,
    bins: int | ArrayLike | None = ...,
    average: Literal["micro"] = ...,
    labels: ArrayLike | None = ...,
    zero_division: ZeroDivision = ...,
) -> PRCurve: ...
@overload
def pr_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = ...,
    pos_label: Any = ...,
    bins: int | ArrayLike | None = ...,
    average: None,
    labels: ArrayLike | None = ...,
    zero_division: ZeroDivision = ...,
) -> list[PRCurve]: ...
def pr_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    average: Literal["micro"] | None = "micro",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> PRCurve | list[PRCurve]:
    """The precision–recall curve of scores against binary (or soft) labels.

    Parameters
    ----------
    y_true : array_like, shape (n,) or (n, k)
        Binary labels, or soft labels in [0, 1]. With a score matrix: class
        labels or a multi-label indicator matrix.
    y_score : array_like, shape (n,) or (n, k)
        Finite scores, higher for more likely positive; never rescaled. An
        (n, k) matrix is scored one-vs-rest (:func:`prcurve.space.aggregate.one_vs_rest`).
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a positive.
    bins : int or array_like, optional
        None for the exact curve; an int for that many equal bins over the
        observed score range; an array for explicit edges.
    average : {"micro"} or None, default "micro"
        For a score matrix: ``"micro"`` gives the curve of every (sample,
        class) cell pooled (scikit-learn's micro-averaged curve), None one
        curve per class (a list). A macro curve is a vertical average:
        ``prcurve.space.aggregate.aggregate(curves, "vertical")``. For 1-D scores
        None gives a one-element list.
    labels : array_like, shape (k,), optional
        The class of each score column.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        Policy for undefined values, kept by the curve.

    Returns
    -------
    PRCurve, or list of PRCurve when ``average=None``

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], bins=[0.0, 0.75, 1.0])
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist()
    ([0.75, 0.0], [1.0, 2.0], [1.0, 2.0])
    >>> scores = [[0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.6, 0.3, 0.1]]
    >>> pr_curve([0, 1, 2, 1], scores).n_pos, len(pr_curve([0, 1, 2, 1], scores, average=None))
    (4.0, 3)
    """
    avg = check_choice("average", average, ("micro", None))
    if np.ndim(y_score) == 2:
        check_zero_division(zero_division)
        ovr = one_vs_rest(y_true, y_score, labels=labels, sample_weight=sample_weight)
        if pos_label is not None or bins is not None:
            raise unsupported_with_score_matrix(
                "pos_label" if pos_label is not None else "bins")
        if avg is None:
            return ovr.curves(zero_division=zero_division)
        return PRCurve(ovr.micro_counts(), zero_division=zero_division)
    curve = binary_pr_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                            bins=bins, zero_division=zero_division)
    return [curve] if avg is None else curve


def roc_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: Average | None = "macro",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """Area under the ROC curve: scikit-learn's ``roc_auc_score``, from the same counts.

    1-D scores give the binary area (trapezoidal; ties count one half). An
    (n, k) score matrix is scored one-vs-rest (:func:`one_vs_rest`) and
    averaged: ``"macro"`` (scikit-learn's ``multi_class="ovr"``), ``"weighted"``
    by each class's positive weight, ``"micro"`` the area of every (sample,
    class) cell pooled (scikit-learn's micro for indicator matrices), or None
    for one value per class. Without positives or negatives the area is
    undefined (``zero_division``; scikit-learn raises).

    Examples
    --------
    >>> from prcurve import roc_auc
    >>> roc_auc([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    0.75
    >>> scores = [[0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.6, 0.3, 0.1]]
    >>> roc_auc([0, 1, 2, 1], scores, average=None).round(4).tolist()
    [0.6667, 0.875, 1.0]
    """
    avg = check_choice("average", average, AVERAGES)
    if np.ndim(y_score) == 2:
        with undefined_scope(zero_division):
            ovr = one_vs_rest(y_true, y_score, labels=labels, sample_weight=sample_weight)
            if pos_label is not None:
                raise unsupported_with_score_matrix("pos_label")
            return ovr._average(lambda c: ROCCurve(c).auc(), avg, "roc_auc")
    value = binary_roc_auc(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                           zero_division=zero_division)
    return np.array([value]) if avg is None else value

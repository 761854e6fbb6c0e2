"""Metrics of predicted labels: precision, recall, F-beta and every confusion rate,
binary or averaged over the classes of a multi-class problem.

Every function here counts once and reads rates off the counts. Labels are
checked without copies and counted in one chunked pass (:mod:`prcurve.core.label_counts`):
booleans and {0, 1} or {-1, 1} numbers need no ``np.unique``, and neither do
multi-class labels that are booleans or small non-negative integers.

**Several metrics of the same predictions**: each function call checks and counts
the labels again. Build the counts once and read every rate off them —
:func:`prcurve.confusion_matrix` (binary) or :func:`class_confusion` (classes) —
which checks nothing more:

>>> import prcurve
>>> cm = prcurve.confusion_matrix([1, 0, 1, 1], [1, 1, 0, 1])
>>> cm.precision, cm.recall, round(cm.f1, 4)
(0.6666666666666666, 0.6666666666666666, 0.6667)

Averages over classes follow scikit-learn's ``precision_recall_fscore_support``:
``"micro"`` pools the cells of the classes, ``"macro"`` is the mean of the
per-class values, ``"weighted"`` their mean weighted by support (true weight),
``None`` gives one value per class. A class whose rate is 0/0 follows
``zero_division``; scikit-learn's default equals ``zero_division=0``.

Sources: Wikipedia's PR article (the rates), the Precision And Recall tutorial (F-beta).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.confusion import RATES, ConfusionMatrix, _confusion_matrix, rate_of_cells
from prcurve.core.counts import sum_of_products
from prcurve.core.label_counts import class_matrix
from prcurve.core.undefined import ZeroDivision, undefined, undefined_scope
from prcurve.validation.arrays import check_choice, check_positive_number, check_zero_division
from prcurve.validation.label_codes import check_average_options, encode_classes, report_codes
from prcurve.validation.labels import check_weights

__all__ = [
    "LABEL_AVERAGES",
    "ClassConfusion",
    "LabelAverage",
    "class_confusion",
    "f1",
    "f_beta",
    "precision",
    "recall",
]

F64 = NDArray[np.float64]
LabelAverage = Literal["binary", "micro", "macro", "weighted"]
LABEL_AVERAGES: tuple[Any, ...] = ("binary", "micro", "macro", "weighted", None)
_CLASS_AVERAGES: tuple[Any, ...] = ("micro", "macro", "weighted", None)


@dataclass(frozen=True)
class ClassConfusion:
    """One-vs-rest confusion counts of every class of a multi-class problem.

    ``tp[j]``, ``fp[j]``, ``fn[j]``, ``tn[j]`` are the (weighted) counts with
    ``classes[j]`` as the positive class; ``matrix[i, j]`` the weight of samples of
    true class ``classes[i]`` predicted ``classes[j]``. Samples of classes not
    listed still count (as a false negative of their predicted class's column, or a
    false positive), as in scikit-learn.

    Examples
    --------
    >>> from prcurve import class_confusion
    >>> cc = class_confusion(["cat", "dog", "dog", "eel"], ["cat", "dog", "eel", "eel"])
    >>> cc.classes.tolist(), cc.tp.tolist(), cc.fn.tolist()
    (['cat', 'dog', 'eel'], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0])
    >>> cc.precision(average=None).tolist(), round(cc.f1("macro"), 4)
    ([1.0, 1.0, 0.5], 0.7778)
    """

    classes: NDArray[Any]
    matrix: F64
    tp: F64
    fp: F64
    fn: F64
    tn: F64
    zero_division: ZeroDivision = field(default="nan", repr=False)

    @property
    def support(self) -> F64:
        """The true weight of each class (TP + FN)."""
        return self.tp + self.fn

    def per_class(self) -> list[ConfusionMatrix]:
        """One :class:`~prcurve.ConfusionMatrix` per class, in the order of ``classes``."""
        return [ConfusionMatrix(float(a), float(b), float(c), float(d),
                                zero_division=self.zero_division)
                for a, b, c, d in zip(self.tp, self.fp, self.fn, self.tn, strict=True)]

    def rate(self, name: str, average: Any = "macro", *, beta: float = 1.0) -> Any:
        """The rate ``name`` (a :meth:`prcurve.ConfusionMatrix.metrics` name without a
        parameter, or ``"f_beta"``) averaged over classes: ``"micro"``, ``"macro"``,
        ``"weighted"``, or None for one value per class."""
        check_choice("name", name, (*RATES, "f1", "f_beta"))
        avg = check_choice("average", average, _CLASS_AVERAGES)
        b = check_positive_number("beta", beta)
        with undefined_scope(self.zero_division):
            return self._averaged(name, avg, b)

    def _averaged(self, name: str, average: str | None, beta: float) -> Any:
        if average == "micro":
            cells = (self.tp.sum(), self.fp.sum(), self.fn.sum(), self.tn.sum())
            return float(rate_of_cells(name, *cells, beta=beta))
        if average == "weighted":
            support = self.support
            total = float(support.sum())
            if total == 0:
                return undefined(f"{name} (no true samples in any class)")
            present = support > 0  # a class without support weighs 0: not computed
            values = rate_of_cells(name, self.tp[present], self.fp[present],
                                   self.fn[present], self.tn[present], beta=beta)
            return sum_of_products(values, support[present]) / total
        values = rate_of_cells(name, self.tp, self.fp, self.fn, self.tn, beta=beta)
        return values if average is None else float(values.mean())

    def precision(self, average: Any = "macro") -> Any:
        """Precision TP / (TP + FP), averaged over classes."""
        return self.rate("precision", average)

    def recall(self, average: Any = "macro") -> Any:
        """Recall TP / (TP + FN), averaged over classes."""
        return self.rate("recall", average)

    def f_beta(self, beta: float = 1.0, average: Any = "macro") -> Any:
        """F-beta, averaged over classes (``"macro"``: the mean of the per-class F)."""
        return self.rate("f_beta", average, beta=beta)

    def f1(self, average: Any = "macro") -> Any:
        """F1, averaged over classes."""
        return self.rate("f_beta", average, beta=1.0)


def class_confusion(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> ClassConfusion:
    """The per-class confusion counts of multi-class predictions, in one counting pass.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (n,)
        True and predicted class labels (any values that sort; booleans and integers
        in [0, 1024) are counted without ``np.unique``).
    labels : array_like, optional
        The classes to report, in order (classes absent from the data allowed). By
        default every class in ``y_true`` or ``y_pred``, sorted.
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        Policy for rates that are 0/0, kept by the result.

    Returns
    -------
    ClassConfusion
    """
    check_zero_division(zero_division)
    return _class_confusion(y_true, y_pred, labels, sample_weight, zero_division,
                            scale_free=False)


def _class_confusion(
    y_true: ArrayLike, y_pred: ArrayLike, labels: ArrayLike | None,
    sample_weight: ArrayLike | None, zero_division: ZeroDivision, *, scale_free: bool,
) -> ClassConfusion:
    codes = encode_classes(y_true, y_pred)
    weights = check_weights("sample_weight", sample_weight, int(codes.true_codes.shape[0]),
                            scale_free=scale_free)
    full, present = class_matrix(codes, weights)
    chosen = report_codes(codes, labels, present)
    padded = np.zeros((full.shape[0] + 1, full.shape[1] + 1))  # code -1: an absent class
    padded[:-1, :-1] = full
    tp = padded[chosen, chosen]
    off = padded.copy()
    np.fill_diagonal(off, 0.0)  # each cell off the diagonal summed directly: exact sums
    fp = off[:, chosen].sum(axis=0)
    fn = off[chosen, :].sum(axis=1)
    # TN: the weight outside row and column of the class.
    tn = np.maximum(float(full.sum()) - padded[chosen, :].sum(axis=1)
                    - padded[:, chosen].sum(axis=0) + tp, 0.0)
    classes = (np.asarray(labels) if labels is not None
               else codes.classes[chosen])
    return ClassConfusion(classes, padded[np.ix_(chosen, chosen)], tp, fp, fn, tn,
                          zero_division=zero_division)


def _label_rate(
    name: str, y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None,
    pos_label: Any, average: Any, labels: ArrayLike | None, zero_division: ZeroDivision,
    beta: float = 1.0,
) -> Any:
    avg = check_choice("average", average, LABEL_AVERAGES)
    check_average_options(avg, pos_label, labels)
    b = check_positive_number("beta", beta)
    check_zero_division(zero_division)
    with undefined_scope(zero_division):
        if avg == "binary":
            cm = _confusion_matrix(y_true, y_pred, sample_weight, pos_label, zero_division,
                                   scale_free=True)
            return float(rate_of_cells(name, cm.tp, cm.fp, cm.fn, cm.tn, beta=b))
        cc = _class_confusion(y_true, y_pred, labels, sample_weight, zero_division,
                              scale_free=True)
        return cc._averaged(name, avg, b)


def precision(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: LabelAverage | None = "binary",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """Precision TP / (TP + FP) of predicted labels.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (n,)
        True labels (binary, or soft in [0, 1] for ``average="binary"``) and
        predicted labels.
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    pos_label : scalar, optional
        The positive class, for ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted"} or None, default "binary"
        ``"binary"``: the positive class only. Otherwise the classes of a
        multi-class problem (module docstring); None gives one value per class.
    labels : array_like, optional
        The classes to average over, for the class averages.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value of a 0/0.

    Returns
    -------
    float, or ndarray of one value per class when ``average=None``

    Examples
    --------
    >>> from prcurve import precision
    >>> round(precision([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]), 2)
    0.67
    >>> precision([0, 1, 2, 2], [0, 2, 2, 2], average=None, zero_division=0).tolist()
    [1.0, 0.0, 0.6666666666666666]
    """
    return _label_rate("precision", y_true, y_pred, sample_weight, pos_label, average, labels,
                       zero_division)


def recall(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: LabelAverage | None = "binary",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """Recall TP / (TP + FN) of predicted labels (parameters as :func:`precision`).

    Examples
    --------
    >>> from prcurve import recall
    >>> recall([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0])
    0.5
    >>> recall(["a", "b", "b"], ["a", "a", "b"], average="macro")
    0.75
    """
    return _label_rate("recall", y_true, y_pred, sample_weight, pos_label, average, labels,
                       zero_division)


def f_beta(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: LabelAverage | None = "binary",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """F-beta of predicted labels, for any ``beta > 0`` (parameters as :func:`precision`).

    A class average of F is the average of the per-class F values (``"micro"``: the F
    of the pooled cells), as in scikit-learn.

    Examples
    --------
    The Precision And Recall tutorial's F0.5, F1 and F2 (0.63, 0.57, 0.53 there, from
    rounded inputs):

    >>> from prcurve import f_beta
    >>> y_true, y_pred = [1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]
    >>> [round(f_beta(y_true, y_pred, beta=b), 2) for b in (0.5, 1.0, 2.0)]
    [0.62, 0.57, 0.53]
    """
    return _label_rate("f_beta", y_true, y_pred, sample_weight, pos_label, average, labels,
                       zero_division, beta)


def f1(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: LabelAverage | None = "binary",
    labels: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """F1 = 2 TP / (2 TP + FP + FN) of predicted labels (parameters as :func:`precision`).

    Examples
    --------
    >>> from prcurve import f1
    >>> round(f1([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]), 4)
    0.5714
    >>> round(f1([0, 1, 2, 2], [0, 2, 2, 1], average="weighted"), 4)
    0.5
    """
    return _label_rate("f_beta", y_true, y_pred, sample_weight, pos_label, average, labels,
                       zero_division, 1.0)

"""The confusion matrix and every rate in seed 001's table, plus Cohen's kappa.

The rate formulas live here once, as functions of the four (weighted) counts
that work element-wise on arrays; :class:`ConfusionMatrix` and the curve views
(:class:`prcurve.PRCurve`) both call them. Undefined values (0/0) follow the
package-wide ``zero_division`` policy (docs/definitions.md, "Undefined values").

Sources: seed 001 (the table of Fawcett 2006 and Powers 2011; van Rijsbergen's
E), seed 000 (F-beta).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.counts import scale_exponent
from prcurve.core.table import Table
from prcurve.core.undefined import Number, ZeroDivision, ratio, undefined_scope
from prcurve.errors import UndefinedMetricWarning
from prcurve.validation.arrays import (
    check_count,
    check_fraction,
    check_positive_number,
    check_zero_division,
)
from prcurve.validation.labels import check_label_pair, check_weights

__all__ = ["ConfusionMatrix", "confusion_matrix", "f1", "f_beta", "precision", "recall"]

F64 = NDArray[np.float64]


# -- rate formulas (element-wise on counts or arrays of counts; one definition each) --


def _recall(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """TPR = TP / (TP + FN) = TP / P."""
    return ratio(tp, tp + fn, "recall")


def _specificity(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """TNR = TN / (TN + FP) = TN / N."""
    return ratio(tn, tn + fp, "specificity")


def _precision(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """PPV = TP / (TP + FP)."""
    return ratio(tp, tp + fp, "precision")


def _npv(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """NPV = TN / (TN + FN)."""
    return ratio(tn, tn + fn, "npv")


def _fpr(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """FPR = FP / (FP + TN) = 1 - TNR."""
    return ratio(fp, fp + tn, "fpr")


def _fnr(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """FNR = FN / (FN + TP) = 1 - TPR."""
    return ratio(fn, fn + tp, "fnr")


def _fdr(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """FDR = FP / (FP + TP) = 1 - PPV."""
    return ratio(fp, fp + tp, "fdr")


def _false_omission_rate(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """FOR = FN / (FN + TN) = 1 - NPV."""
    return ratio(fn, fn + tn, "false_omission_rate")


def _accuracy(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """ACC = (TP + TN) / (P + N)."""
    return ratio(tp + tn, tp + fp + fn + tn, "accuracy")


def _balanced_accuracy(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """(TPR + TNR) / 2."""
    return np.add(_recall(tp, fp, fn, tn), _specificity(tp, fp, fn, tn)) / 2.0


def _alpha_harmonic(tp: Number, fp: Number, fn: Number, alpha: float, name: str) -> F64:
    """1 / (alpha/P + (1 - alpha)/R), written with counts: TP / (TP + alpha FP + (1-alpha) FN).

    F-beta is this with alpha = 1 / (1 + beta^2) (van Rijsbergen 1979, seed 001);
    it is 0 when TP = 0 and some FP or FN exists, undefined only when
    TP = FP = FN = 0.
    """
    return ratio(tp, tp + alpha * fp + (1.0 - alpha) * fn, name)


def _f_beta(tp: Number, fp: Number, fn: Number, beta: float) -> F64:
    """F_beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP) (seed 000)."""
    return _alpha_harmonic(tp, fp, fn, 1.0 / (1.0 + beta * beta), f"F{beta:g}")


def _mcc(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """(TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))."""
    denominator = np.sqrt(np.multiply(np.multiply(tp + fp, tp + fn), np.multiply(tn + fp, tn + fn)))
    return ratio(np.subtract(np.multiply(tp, tn), np.multiply(fp, fn)), denominator, "mcc")


def _informedness(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """Bookmaker informedness = TPR + TNR - 1 (Powers 2011)."""
    return np.add(_recall(tp, fp, fn, tn), _specificity(tp, fp, fn, tn)) - 1.0


def _markedness(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """Markedness = PPV + NPV - 1 (Powers 2011)."""
    return np.add(_precision(tp, fp, fn, tn), _npv(tp, fp, fn, tn)) - 1.0


def _prevalence(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """P / (P + N)."""
    return ratio(tp + fn, tp + fp + fn + tn, "prevalence")


def _cohen_kappa(tp: Number, fp: Number, fn: Number, tn: Number) -> F64:
    """(p_o - p_e) / (1 - p_e) = 2 (TP TN - FN FP) / ((TP + FP)(FP + TN) + (TP + FN)(FN + TN))."""
    agreement = np.subtract(np.multiply(tp, tn), np.multiply(fn, fp))
    denominator = np.add(np.multiply(tp + fp, fp + tn), np.multiply(tp + fn, fn + tn))
    return ratio(2.0 * agreement, denominator, "cohen_kappa")


# -- the matrix -----------------------------------------------------------------------


@dataclass(frozen=True)
class ConfusionMatrix:
    """The 2x2 confusion matrix of weighted counts and every rate derived from it.

    Parameters
    ----------
    tp, fp, fn, tn : float
        Weighted counts of true positives, false positives, false negatives
        and true negatives (finite, non-negative).
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value of a rate that is 0/0 (see docs/definitions.md). With
        ``"nan"`` each access that meets one emits one
        :class:`~prcurve.UndefinedMetricWarning`.

    Examples
    --------
    Seed 001: 7 dogs identified in a scene of 9 dogs, 4 of them correctly.

    >>> from prcurve import ConfusionMatrix
    >>> cm = ConfusionMatrix(tp=4, fp=3, fn=5, tn=0)
    >>> cm.precision, cm.recall
    (0.5714285714285714, 0.4444444444444444)
    >>> round(cm.f_beta(2.0), 4), round(cm.e_measure(alpha=0.5), 4)
    (0.4651, 0.5)
    """

    tp: float
    fp: float
    fn: float
    tn: float
    zero_division: ZeroDivision = field(default="nan", repr=False)

    def __post_init__(self) -> None:
        for name in ("tp", "fp", "fn", "tn"):
            object.__setattr__(self, name, check_count(name, getattr(self, name)))
        check_zero_division(self.zero_division)

    # totals
    @property
    def n_pos(self) -> float:
        """P = TP + FN, the positive weight."""
        return self.tp + self.fn

    @property
    def n_neg(self) -> float:
        """N = FP + TN, the negative weight."""
        return self.fp + self.tn

    @property
    def n(self) -> float:
        """P + N."""
        return self.n_pos + self.n_neg

    # rates
    def _rate(self, formula: Callable[[float, float, float, float], F64]) -> float:
        # Every rate is a ratio of forms of one degree in the counts, so a common power of
        # two leaves it unchanged (and bit-identical); MCC's product of four sums and the
        # F and E weights need counts of moderate size (docs/definitions.md, "Weights").
        k = scale_exponent(max(self.tp, self.fp, self.fn, self.tn))
        counts = [math.ldexp(c, k) for c in (self.tp, self.fp, self.fn, self.tn)]
        with undefined_scope(self.zero_division):
            return float(formula(*counts))

    @property
    def recall(self) -> float:
        """Recall = sensitivity = TPR = hit rate = TP / (TP + FN)."""
        return self._rate(_recall)

    sensitivity = tpr = hit_rate = recall

    @property
    def specificity(self) -> float:
        """Specificity = selectivity = TNR = TN / (TN + FP)."""
        return self._rate(_specificity)

    tnr = selectivity = specificity

    @property
    def precision(self) -> float:
        """Precision = PPV = TP / (TP + FP)."""
        return self._rate(_precision)

    ppv = precision

    @property
    def npv(self) -> float:
        """Negative predictive value = TN / (TN + FN)."""
        return self._rate(_npv)

    @property
    def fpr(self) -> float:
        """False positive rate = fall-out = FP / (FP + TN)."""
        return self._rate(_fpr)

    fall_out = fpr

    @property
    def fnr(self) -> float:
        """False negative rate = miss rate = FN / (FN + TP) = 1 - TPR."""
        return self._rate(_fnr)

    miss_rate = fnr

    @property
    def fdr(self) -> float:
        """False discovery rate = FP / (FP + TP) = 1 - PPV."""
        return self._rate(_fdr)

    @property
    def false_omission_rate(self) -> float:
        """False omission rate = FN / (FN + TN) = 1 - NPV."""
        return self._rate(_false_omission_rate)

    @property
    def accuracy(self) -> float:
        """Accuracy = (TP + TN) / (P + N)."""
        return self._rate(_accuracy)

    @property
    def balanced_accuracy(self) -> float:
        """(TPR + TNR) / 2."""
        return self._rate(_balanced_accuracy)

    @property
    def f1(self) -> float:
        """F1 = 2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall."""
        return self.f_beta(1.0)

    def f_beta(self, beta: float = 1.0) -> float:
        """F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP), for any beta > 0.

        Recall counts ``beta`` times as much as precision (seed 000).
        """
        b = check_positive_number("beta", beta)
        return self._rate(lambda tp, fp, fn, tn: _f_beta(tp, fp, fn, b))

    def e_measure(self, alpha: float = 0.5) -> float:
        """Van Rijsbergen's effectiveness E = 1 - 1 / (alpha/P + (1 - alpha)/R).

        ``alpha`` in [0, 1]; E = 1 - F_beta with alpha = 1 / (1 + beta^2) (seed 001).
        """
        a = check_fraction("alpha", alpha)
        return self._rate(lambda tp, fp, fn, tn: 1.0 - _alpha_harmonic(tp, fp, fn, a, "E"))

    @property
    def mcc(self) -> float:
        """Matthews correlation (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))."""
        return self._rate(_mcc)

    @property
    def informedness(self) -> float:
        """Bookmaker informedness = TPR + TNR - 1 (Powers 2011)."""
        return self._rate(_informedness)

    @property
    def markedness(self) -> float:
        """Markedness = PPV + NPV - 1 (Powers 2011)."""
        return self._rate(_markedness)

    @property
    def prevalence(self) -> float:
        """Prevalence = P / (P + N)."""
        return self._rate(_prevalence)

    @property
    def cohen_kappa(self) -> float:
        """Cohen's kappa = (p_o - p_e) / (1 - p_e), p_o the accuracy, p_e chance agreement."""
        return self._rate(_cohen_kappa)

    def _repr_html_(self) -> str:
        """Notebook display: the 2x2 matrix and every rate of :meth:`metrics`."""
        matrix = Table({
            "": np.array(["predicted +", "predicted −"], dtype=object),
            "actual +": np.array([self.tp, self.fn]),
            "actual −": np.array([self.fp, self.tn]),
        })
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            rates = self.metrics()
        table = Table({"rate": np.array(list(rates), dtype=object),
                       "value": np.array(list(rates.values()))})
        return matrix.to_html(caption="ConfusionMatrix") + table.to_html()

    def metrics(self, beta: float = 1.0) -> dict[str, float]:
        """Every rate by name, with at most one warning for all of them.

        Examples
        --------
        >>> from prcurve import ConfusionMatrix
        >>> ConfusionMatrix(2, 1, 2, 3).metrics()["accuracy"]
        0.625
        """
        names = [
            "recall", "specificity", "precision", "npv", "fpr", "fnr", "fdr",
            "false_omission_rate", "accuracy", "balanced_accuracy", "f1", "mcc",
            "informedness", "markedness", "prevalence", "cohen_kappa",
        ]
        with undefined_scope(self.zero_division):
            values = {name: getattr(self, name) for name in names}
            values[f"f_beta({beta:g})"] = self.f_beta(beta)
            values["e_measure(0.5)"] = self.e_measure(0.5)
        return values


# -- functional shortcuts on label arrays --------------------------------------------------


def confusion_matrix(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> ConfusionMatrix:
    """The weighted confusion matrix of binary predictions.

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary labels, or soft labels in [0, 1] (a sample adds ``w*y`` to the
        positives and ``w*(1-y)`` to the negatives).
    y_pred : array_like, shape (n,)
        Binary predictions (booleans, {0, 1}, {-1, 1}, or values compared to
        ``pos_label``).
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    pos_label : scalar, optional
        The value that marks the positive class in ``y_true`` and ``y_pred``.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        Policy for rates that are 0/0, kept by the returned matrix.

    Examples
    --------
    Seed 000: precision 2/3, recall 1/2.

    >>> from prcurve import confusion_matrix
    >>> cm = confusion_matrix([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0])
    >>> cm
    ConfusionMatrix(tp=2.0, fp=1.0, fn=2.0, tn=3.0)
    """
    return _confusion_matrix(y_true, y_pred, sample_weight, pos_label, zero_division,
                             scale_free=False)


def _confusion_matrix(
    y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None, pos_label: Any,
    zero_division: ZeroDivision, *, scale_free: bool,
) -> ConfusionMatrix:
    """:func:`confusion_matrix`; ``scale_free`` for callers that return a rate only (the
    weights may then be rescaled, see :func:`prcurve.validation.labels.check_weights`)."""
    truth, predicted = check_label_pair(y_true, y_pred, pos_label)
    weights = check_weights("sample_weight", sample_weight, truth.n, scale_free=scale_free)
    fraction = truth.positive_fraction()
    if predicted.positive is None:  # unreachable: allow_soft=False
        raise TypeError("predictions must be hard labels")
    pred = predicted.positive
    w = np.ones(truth.n) if weights is None else weights
    pos_w = w * fraction
    neg_w = w - pos_w if truth.soft is None else w * (1.0 - fraction)
    tp = float(pos_w[pred].sum())
    fn = float(pos_w[~pred].sum())
    fp = float(neg_w[pred].sum())
    tn = float(neg_w[~pred].sum())
    return ConfusionMatrix(tp, fp, fn, tn, zero_division=zero_division)


def precision(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Precision TP / (TP + FP) of binary predictions.

    Examples
    --------
    >>> from prcurve import precision
    >>> round(precision([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]), 2)
    0.67
    """
    return _confusion_matrix(y_true, y_pred, sample_weight, pos_label, zero_division,
                             scale_free=True).precision


def recall(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Recall TP / (TP + FN) of binary predictions.

    Examples
    --------
    >>> from prcurve import recall
    >>> recall([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0])
    0.5
    """
    return _confusion_matrix(y_true, y_pred, sample_weight, pos_label, zero_division,
                             scale_free=True).recall


def f_beta(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """F-beta of binary predictions, for any ``beta > 0``.

    Examples
    --------
    Seed 000's F0.5, F1 and F2 (0.63, 0.57, 0.53 there, from rounded inputs):

    >>> from prcurve import f_beta
    >>> y_true, y_pred = [1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]
    >>> [round(f_beta(y_true, y_pred, beta=b), 2) for b in (0.5, 1.0, 2.0)]
    [0.62, 0.57, 0.53]
    """
    return _confusion_matrix(y_true, y_pred, sample_weight, pos_label, zero_division,
                             scale_free=True).f_beta(beta)


def f1(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """F1 = 2 TP / (2 TP + FP + FN) of binary predictions.

    Examples
    --------
    >>> from prcurve import f1
    >>> round(f1([1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1, 0, 0]), 4)
    0.5714
    """
    return f_beta(
        y_true, y_pred, beta=1.0, sample_weight=sample_weight, pos_label=pos_label,
        zero_division=zero_division,
    )

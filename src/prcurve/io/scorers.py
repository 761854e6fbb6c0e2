"""prcurve's measures as scikit-learn scorers, for model selection.

:func:`scorer` returns ``sklearn.metrics.make_scorer(function, response_method=...)``
(scikit-learn is imported when it is called), usable wherever scikit-learn takes a
``scoring``: ``cross_val_score``, ``cross_validate``, ``GridSearchCV``,
``TunedThresholdClassifierCV``. Each scorer's value is exactly :func:`score_function`'s
on the same fold (tests/test_sklearn.py checks it inside ``GridSearchCV``).

Two kinds of names:

- measures of the ranking, computed from the positive class's scores
  (``predict_proba``'s column, else ``decision_function``): ``ap``, ``ap:<method>``,
  ``aucpr[:<method>]`` (default davis_goadrich), ``aucnpr[:<method>]`` (Boyd et al.'s
  normalized area, default davis_goadrich), ``normalized_ap[:<method>]`` (default step),
  ``precision_at_recall:<r>``, ``recall_at_precision:<p>``, ``best_f1``,
  ``best_f:<beta>``, ``auprg`` (Flach and Kull's area under the PRG curve), ``roc_auc``;
- measures of predicted labels (``predict``, or the thresholded scores that
  ``TunedThresholdClassifierCV`` tries): ``f1``, ``f_beta:<beta>``, ``precision``,
  ``recall``, ``modified_f1``, ``modified_f_beta:<beta>`` (Boyd et al.'s modified F,
  0 below the prevalence's precision).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numpy.typing import ArrayLike

from prcurve.core.average_precision import AP_METHODS
from prcurve.core.confusion import confusion_matrix
from prcurve.core.curve import binary_pr_curve
from prcurve.core.label_metrics import f_beta, precision, recall
from prcurve.core.undefined import ZeroDivision, ratio, undefined_scope
from prcurve.space.bounds import modified_f_beta
from prcurve.validation.adapters import LABEL_SCORERS, check_scorer_name
from prcurve.validation.arrays import check_zero_division

__all__ = ["score_function", "scorer"]

ScoreFunction = Callable[..., float]


def _ranking_value(measure: str, parameter: Any, zero_division: ZeroDivision) -> ScoreFunction:
    def value(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None,
              pos_label: Any = None) -> float:
        curve = binary_pr_curve(y_true, y_score, sample_weight=sample_weight,
                                pos_label=pos_label, zero_division=zero_division)
        with undefined_scope(zero_division):
            if measure == "ap":
                return curve.average_precision(parameter or "step")
            if measure == "aucpr":
                return curve.aucpr(parameter or "davis_goadrich")
            if measure == "aucnpr":
                return curve.aucnpr(parameter or "davis_goadrich")
            if measure == "normalized_ap":
                return curve.normalized_average_precision(parameter or "step")
            if measure == "precision_at_recall":
                return curve.precision_at_recall(parameter).value
            if measure == "recall_at_precision":
                return curve.recall_at_precision(parameter).value
            if measure in ("best_f1", "best_f"):
                return curve.best_f(parameter or 1.0).value
            if measure == "auprg":
                return curve.prg().auprg()
            return curve.roc().auc()

    return value


def _label_value(measure: str, parameter: Any, zero_division: ZeroDivision) -> ScoreFunction:
    def value(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
              pos_label: Any = None) -> float:
        common: dict[str, Any] = {"sample_weight": sample_weight, "pos_label": pos_label,
                                  "zero_division": zero_division}
        if measure in ("f1", "f_beta"):
            return float(f_beta(y_true, y_pred, beta=parameter or 1.0, **common))
        if measure == "precision":
            return float(precision(y_true, y_pred, **common))
        if measure == "recall":
            return float(recall(y_true, y_pred, **common))
        # modified F (Boyd et al. 2012 §4.4) of the fold's precision, recall and prevalence
        cm = confusion_matrix(y_true, y_pred, **common)
        with undefined_scope(zero_division):
            total = cm.tp + cm.fp + cm.fn + cm.tn
            return float(modified_f_beta(
                ratio(cm.tp, cm.tp + cm.fn, "recall"), ratio(cm.tp, cm.tp + cm.fp, "precision"),
                ratio(cm.tp + cm.fn, total, "prevalence"), parameter or 1.0,
                zero_division=zero_division))

    return value


def score_function(name: str, *, zero_division: ZeroDivision = "nan") -> ScoreFunction:
    """The plain function a scorer wraps: ``f(y_true, y_score_or_pred, *, sample_weight=None,
    pos_label=None) -> float``.

    Examples
    --------
    >>> from prcurve.io.scorers import score_function
    >>> round(score_function("aucnpr")([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), 4)
    0.7075
    >>> score_function("f1")([1, 0, 1, 0], [1, 1, 1, 0])
    0.8
    """
    check_zero_division(zero_division)
    measure, parameter = check_scorer_name(name, AP_METHODS)
    if measure in LABEL_SCORERS:
        return _label_value(measure, parameter, zero_division)
    return _ranking_value(measure, parameter, zero_division)


def scorer(name: str, *, pos_label: Any = None, zero_division: ZeroDivision = "nan") -> Any:
    """A scikit-learn scorer of a prcurve measure (``sklearn.metrics.make_scorer``).

    Parameters
    ----------
    name : str
        The measure (module docstring): ``"aucnpr"``, ``"normalized_ap"``,
        ``"ap:interpolated"``, ``"precision_at_recall:0.9"``, ``"auprg"``, ``"f1"``, ...
    pos_label : optional
        The positive class; by default the estimator's ``classes_[1]`` (scikit-learn's
        rule) and, in ``y_true``, prcurve's label rules (1, True).
    zero_division : {"nan", 0, 1, "raise"}
        The value of a fold where the measure is 0/0 (no positives, say).

    Returns
    -------
    sklearn scorer
        Greater is better for every name.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> import prcurve
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + rng.normal(size=200) > 1).astype(int)
    >>> scores = cross_val_score(LogisticRegression(), X, y, cv=3,
    ...                          scoring=prcurve.scorer("aucnpr"))
    >>> scores.shape, bool((scores > 0).all())
    ((3,), True)
    """
    function = score_function(name, zero_division=zero_division)
    from sklearn.metrics import make_scorer  # type: ignore[import-untyped]

    measure = name.partition(":")[0].strip()
    # scikit-learn's own ranking scorers (average_precision, roc_auc) try
    # decision_function first; so do these.
    response: Any = ("predict" if measure in LABEL_SCORERS
                     else ("decision_function", "predict_proba"))
    extra = {} if pos_label is None else {"pos_label": pos_label}
    return make_scorer(function, response_method=response, **extra)

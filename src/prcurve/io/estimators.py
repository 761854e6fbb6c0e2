"""Scores of fitted scikit-learn classifiers, read as scikit-learn's displays read them.

scikit-learn stays optional: nothing here imports it (an estimator is any object with
``classes_`` and ``predict_proba`` or ``decision_function``). The rules are those of
``PrecisionRecallDisplay.from_estimator`` (scikit-learn 1.9,
``sklearn/utils/_response.py``): ``response_method="auto"`` tries ``predict_proba``
and then ``decision_function``; the positive class is ``pos_label``, by default
``classes_[1]``; with ``predict_proba`` its column is taken; ``decision_function``
scores ``classes_[1]``, so it is negated when the positive class is ``classes_[0]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.curve import PRCurve, binary_pr_curve
from prcurve.core.undefined import ZeroDivision
from prcurve.validation.adapters import (
    check_cv_results,
    check_fitted_binary,
    check_pos_label_of,
    check_response_method,
    no_response_method,
)

__all__ = ["EstimatorScores", "curve_from_estimator", "curves_from_cv_results",
           "estimator_scores"]


@dataclass(frozen=True)
class EstimatorScores:
    """What a classifier scored: the positive class's scores, the positive class and the
    method that gave them (``predict_proba`` or ``decision_function``)."""

    scores: NDArray[np.float64]
    pos_label: Any
    response_method: str


def estimator_scores(estimator: Any, X: Any, *, pos_label: Any = None,
                     response_method: str = "auto") -> EstimatorScores:
    """The positive class's scores of a fitted binary classifier on ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from prcurve.io.estimators import estimator_scores
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array(["a", "a", "b", "b"])
    >>> s = estimator_scores(LogisticRegression().fit(X, y), X, pos_label="a")
    >>> s.response_method, s.pos_label, bool(s.scores[0] > s.scores[-1])
    ('predict_proba', 'a', True)
    """
    wanted = check_response_method(response_method)
    classes = check_fitted_binary(estimator)
    positive = check_pos_label_of(pos_label, classes, "estimator")
    order = ("predict_proba", "decision_function") if wanted == "auto" else (wanted,)
    for method in order:
        function = getattr(estimator, method, None)
        if function is None:
            continue
        values = np.asarray(function(X), dtype=np.float64)
        if method == "predict_proba":
            column = classes.tolist().index(positive)
            return EstimatorScores(values[:, column], positive, method)
        sign = -1.0 if positive == classes[0] else 1.0  # decision_function scores classes_[1]
        return EstimatorScores(sign * values.reshape(-1), positive, method)
    raise no_response_method(estimator, wanted)


def curve_from_estimator(estimator: Any, X: Any, y: ArrayLike, *, pos_label: Any = None,
                         sample_weight: ArrayLike | None = None,
                         response_method: str = "auto", bins: Any = None,
                         zero_division: ZeroDivision = "nan") -> PRCurve:
    """The PR curve of a fitted binary classifier's scores on ``(X, y)``
    (:meth:`prcurve.PRCurve.from_estimator`)."""
    scored = estimator_scores(estimator, X, pos_label=pos_label,
                              response_method=response_method)
    curve = binary_pr_curve(y, scored.scores, sample_weight=sample_weight,
                            pos_label=scored.pos_label, bins=bins, zero_division=zero_division)
    curve.response_method = scored.response_method
    return curve


def curves_from_cv_results(cv_results: Any, X: Any, y: ArrayLike, *, pos_label: Any = None,
                           sample_weight: ArrayLike | None = None,
                           response_method: str = "auto",
                           zero_division: ZeroDivision = "nan") -> list[PRCurve]:
    """One curve per fold: each fold's fitted estimator scored on its own test samples."""
    estimators, tests = check_cv_results(cv_results)
    labels = np.asarray(y)
    weights = None if sample_weight is None else np.asarray(sample_weight)
    curves = []
    for estimator, test in zip(estimators, tests, strict=True):
        rows = _take(X, test)
        curves.append(curve_from_estimator(
            estimator, rows, labels[test], pos_label=pos_label,
            sample_weight=None if weights is None else weights[test],
            response_method=response_method, zero_division=zero_division))
    return curves


def _take(X: Any, rows: NDArray[Any]) -> Any:
    """Rows of an array, a pandas DataFrame (by position) or a sparse matrix."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if hasattr(X, "tocsr"):
        return X.tocsr()[rows]
    return np.asarray(X)[rows]

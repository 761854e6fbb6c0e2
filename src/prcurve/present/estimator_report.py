"""The report of several fitted scikit-learn classifiers on the same samples.

:func:`report_from_estimators` scores ``X`` with each estimator as
:meth:`prcurve.PRCurve.from_estimator` does (:mod:`prcurve.io.estimators`) and hands
the scores to :func:`prcurve.report`, so the report is the one of those arrays: every
number, the plots, the HTML page and the files. The note of each model says which
response method gave its scores.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from prcurve.io.estimators import estimator_scores
from prcurve.present.report import Report
from prcurve.present.report_build import report
from prcurve.validation.adapters import check_estimators

__all__ = ["report_from_estimators"]


def report_from_estimators(estimators: Any, X: Any, y: ArrayLike, *, pos_label: Any = None,
                           sample_weight: ArrayLike | None = None,
                           response_method: str = "auto", **options: Any) -> Report:
    """The report of fitted binary classifiers scored on ``(X, y)``.

    Parameters
    ----------
    estimators : dict of name to estimator, a sequence of estimators, or one estimator
        Fitted binary classifiers; a sequence is named by class (``LogisticRegression``,
        ``LogisticRegression_2``, ...).
    X, y
        The samples and their labels (the same for every model).
    pos_label, sample_weight, response_method
        As :meth:`prcurve.PRCurve.from_estimator`; ``pos_label`` defaults to the
        first estimator's ``classes_[1]``.
    **options
        Any option of :func:`prcurve.report` (``ap_method``, ``ci``, ``bins``, ...).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> import prcurve
    >>> X, y = [[0.0], [1.0], [2.0], [3.0], [1.5]], [0, 0, 1, 1, 1]
    >>> models = {"lr": LogisticRegression().fit(X, y), "nb": GaussianNB().fit(X, y)}
    >>> r = prcurve.report_from_estimators(models, X, y, ci=None)
    >>> [m.name for m in r.models]
    ['lr', 'nb']
    """
    named = check_estimators(estimators)
    scores: dict[str, Any] = {}
    notes = []
    positive = pos_label
    for name, estimator in named.items():
        scored = estimator_scores(estimator, X, pos_label=positive,
                                  response_method=response_method)
        positive = scored.pos_label
        scores[name] = scored.scores
        notes.append(f"{name}: scores from {scored.response_method} "
                     f"(positive class {scored.pos_label!r})")
    # The report takes arrays of positives marked 1/True: the classifier's positive class.
    labels = np.asarray(y) == positive
    result = report(labels, scores, sample_weight=sample_weight, **options)
    return replace(result, notes=[*result.notes, *notes])

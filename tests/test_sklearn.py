"""scikit-learn entry points and scorers, against scikit-learn itself.

- ``PRCurve.from_estimator`` and ``Aggregate.from_cv_results`` equal
  ``PrecisionRecallDisplay.from_estimator`` / ``.from_cv_results`` (curves reversed without
  scikit-learn's extra final point, as in test_reference_sklearn.py; AP to 1e-12) on
  scikit-learn's example data: load_breast_cancer, make_classification, imbalanced variants,
  string labels, pos_label the first class, weights, decision_function-only estimators;
- ``prcurve.scorer`` equals the function it wraps inside cross_val_score and GridSearchCV,
  and TunedThresholdClassifierCV picks the threshold scikit-learn's own scorer picks.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import PrecisionRecallDisplay, f1_score, make_scorer
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    TunedThresholdClassifierCV,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import prcurve
from prcurve import Aggregate, InvalidInputError, PRCurve
from prcurve.io.scorers import score_function

matplotlib.use("Agg")
import matplotlib.pyplot  # closed by the display tests (after the backend is set)


def _data(kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return X, y
    if kind == "imbalanced":
        X, y = make_classification(2000, n_features=8, weights=[0.97], flip_y=0.01,
                                   random_state=3)
        return X, y
    X, y = make_classification(600, n_features=6, random_state=0)
    return X, y


def _model(kind: str) -> object:
    if kind == "svc":  # decision_function only
        return make_pipeline(StandardScaler(), LinearSVC())
    if kind == "tree":  # tied scores
        return DecisionTreeClassifier(max_depth=3, random_state=0)
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _same_as_display(curve: PRCurve, precision: np.ndarray, recall: np.ndarray,
                     ap: float) -> None:
    # scikit-learn: thresholds increasing with one extra final point (1, 0)
    assert_allclose(curve.precision, precision[:-1][::-1], rtol=1e-12, atol=1e-12)
    assert_allclose(curve.recall, recall[:-1][::-1], rtol=1e-12, atol=1e-12)
    assert curve.average_precision() == pytest.approx(ap, abs=1e-12)


@pytest.mark.parametrize("data", ["breast_cancer", "classification", "imbalanced"])
@pytest.mark.parametrize("model", ["logistic", "svc", "tree"])
def test_from_estimator_equals_scikit_learns_display(data: str, model: str) -> None:
    X, y = _data(data)
    half = len(y) // 2
    estimator = _model(model).fit(X[:half], y[:half])  # type: ignore[attr-defined]
    curve = PRCurve.from_estimator(estimator, X[half:], y[half:])
    display = PrecisionRecallDisplay.from_estimator(estimator, X[half:], y[half:])
    _same_as_display(curve, display.precision, display.recall, display.average_precision)
    assert curve.response_method == ("decision_function" if model == "svc" else "predict_proba")
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize("response_method", ["predict_proba", "decision_function"])
def test_from_estimator_string_labels_first_class_positive_and_weights(
        response_method: str) -> None:
    X, y01 = _data("classification")
    y = np.where(y01 == 1, "spam", "ham")  # classes_ = ["ham", "spam"]
    w = np.random.default_rng(1).uniform(0.1, 3.0, len(y))
    estimator = LogisticRegression().fit(X[:300], y[:300])
    for pos_label in ("ham", "spam"):
        curve = PRCurve.from_estimator(estimator, X[300:], y[300:], pos_label=pos_label,
                                       sample_weight=w[300:], response_method=response_method)
        display = PrecisionRecallDisplay.from_estimator(
            estimator, X[300:], y[300:], pos_label=pos_label, sample_weight=w[300:],
            response_method=response_method)
        _same_as_display(curve, display.precision, display.recall, display.average_precision)
        assert curve.response_method == response_method
    matplotlib.pyplot.close("all")


def test_from_estimator_refuses_what_it_cannot_score() -> None:
    X, y = _data("classification")
    with pytest.raises(InvalidInputError, match="estimator: LogisticRegression is not a fitted"):
        PRCurve.from_estimator(LogisticRegression(), X, y)
    three = LogisticRegression().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(InvalidInputError, match="binary classifier, found 3 classes"):
        PRCurve.from_estimator(three, X, y)
    fitted = LogisticRegression().fit(X, y)
    with pytest.raises(InvalidInputError, match="pos_label: 7 is not a class"):
        PRCurve.from_estimator(fitted, X, y, pos_label=7)
    with pytest.raises(InvalidInputError, match="response_method"):
        PRCurve.from_estimator(fitted, X, y, response_method="predict")
    with pytest.raises(InvalidInputError, match="has no predict_proba"):
        PRCurve.from_estimator(make_pipeline(LinearSVC()).fit(X, y), X, y,
                               response_method="predict_proba")


@pytest.mark.parametrize("data", ["breast_cancer", "imbalanced"])
def test_from_cv_results_equals_scikit_learns_display(data: str) -> None:
    X, y = _data(data)
    cv = cross_validate(_model("logistic"), X, y, cv=StratifiedKFold(4, shuffle=True,
                                                                       random_state=0),
                        return_estimator=True, return_indices=True)
    result = Aggregate.from_cv_results(cv, X, y)
    display = PrecisionRecallDisplay.from_cv_results(cv, X, y, drop_intermediate=False)
    assert result.curves is not None
    assert len(result.curves) == 4
    for curve, p, r, ap in zip(result.curves, display.precision, display.recall,
                               display.average_precision, strict=True):
        _same_as_display(curve, p, r, ap)
    # the vertical average and its band: the folds' interpolated precision on the grid
    assert result.band_recall is not None
    assert result.band_low is not None
    folds = np.array([c.interpolated_precision(result.band_recall) for c in result.curves])
    assert_allclose(result.precision, folds.mean(axis=0), rtol=1e-12)  # type: ignore[arg-type]
    assert (result.band_low == folds.min(axis=0)).all()
    assert (result.band_high == folds.max(axis=0)).all()
    merged = Aggregate.from_cv_results(cv, X, y, how="merge")
    assert merged.counts is not None
    assert merged.counts.n_pos == y.sum()
    drawn = result.plot()
    assert len(drawn.folds) == 4
    assert len(drawn.regions) == 4
    assert drawn.folds[0].get_label() == f"fold 0: AP (step) = {ap_text(result.curves[0])}"
    matplotlib.pyplot.close("all")


def ap_text(curve: PRCurve) -> str:
    return f"{curve.average_precision():.3g}"


def test_from_cv_results_refuses_other_dicts() -> None:
    X, y = _data("classification")
    cv = cross_validate(LogisticRegression(), X, y, cv=3)
    with pytest.raises(InvalidInputError, match=r"missing keys \['estimator', 'indices'\]"):
        Aggregate.from_cv_results(cv, X, y)


def test_report_from_estimators_holds_each_models_curve() -> None:
    X, y = _data("breast_cancer")
    half = len(y) // 2
    models = {"logistic": _model("logistic").fit(X[:half], y[:half]),  # type: ignore[attr-defined]
              "tree": _model("tree").fit(X[:half], y[:half])}  # type: ignore[attr-defined]
    report = prcurve.report_from_estimators(models, X[half:], y[half:], ci=None)
    for model in report.models:
        expected = PRCurve.from_estimator(models[model.name], X[half:], y[half:])
        assert model.curve.average_precision() == expected.average_precision()
    assert any("tree: scores from predict_proba" in n for n in report.notes)


# -- scorers ------------------------------------------------------------------------------

RANKING = ["ap", "ap:interpolated", "ap:davis_goadrich", "aucpr", "aucnpr", "aucnpr:step",
           "normalized_ap", "precision_at_recall:0.9", "recall_at_precision:0.3", "best_f1",
           "best_f:2", "auprg", "roc_auc"]
LABELS = ["f1", "f_beta:0.5", "precision", "recall", "modified_f1", "modified_f_beta:2"]


@pytest.mark.parametrize("name", RANKING + LABELS)
def test_scorer_in_cross_val_score_equals_the_function(name: str) -> None:
    X, y = _data("imbalanced")
    folds = list(StratifiedKFold(3, shuffle=True, random_state=1).split(X, y))
    estimator = _model("logistic")
    scores = cross_val_score(estimator, X, y, cv=folds, scoring=prcurve.scorer(name))
    function = score_function(name)
    for (train, test), value in zip(folds, scores, strict=True):
        fitted = _model("logistic").fit(X[train], y[train])  # type: ignore[attr-defined]
        # scikit-learn's ranking scorers try decision_function first
        out = fitted.predict(X[test]) if name in LABELS else fitted.decision_function(X[test])
        assert value == function(y[test], out)


def test_scorers_agree_with_scikit_learns_where_they_share_a_measure() -> None:
    X, y = _data("breast_cancer")
    folds = list(StratifiedKFold(3, shuffle=True, random_state=2).split(X, y))
    for ours, theirs in [("ap", "average_precision"), ("roc_auc", "roc_auc"), ("f1", "f1"),
                         ("precision", "precision"), ("recall", "recall")]:
        a = cross_val_score(_model("logistic"), X, y, cv=folds, scoring=prcurve.scorer(ours))
        b = cross_val_score(_model("logistic"), X, y, cv=folds, scoring=theirs)
        assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_scorer_in_grid_search_equals_the_function() -> None:
    X, y = _data("imbalanced")
    folds = list(StratifiedKFold(3, shuffle=True, random_state=4).split(X, y))
    grid = {"logisticregression__C": [0.01, 1.0]}
    search = GridSearchCV(_model("logistic"), grid, cv=folds,
                          scoring={"aucnpr": prcurve.scorer("aucnpr"),
                                   "p90": prcurve.scorer("precision_at_recall:0.9")},
                          refit="aucnpr").fit(X, y)
    for k, c in enumerate(grid["logisticregression__C"]):
        for split, (train, test) in enumerate(folds):
            fitted = _model("logistic").set_params(  # type: ignore[attr-defined]
                logisticregression__C=c).fit(X[train], y[train])
            s = fitted.decision_function(X[test])
            curve = prcurve.pr_curve(y[test], s)
            assert search.cv_results_[f"split{split}_test_aucnpr"][k] == curve.aucnpr()
            assert (search.cv_results_[f"split{split}_test_p90"][k]
                    == curve.precision_at_recall(0.9).value)


def test_scorer_in_tuned_threshold_classifier() -> None:
    X, y = _data("imbalanced")
    cv = StratifiedKFold(3, shuffle=True, random_state=5)
    ours = TunedThresholdClassifierCV(_model("logistic"), scoring=prcurve.scorer("f1"), cv=cv,
                                      thresholds=50).fit(X, y)
    theirs = TunedThresholdClassifierCV(_model("logistic"), scoring=make_scorer(f1_score), cv=cv,
                                        thresholds=50).fit(X, y)
    assert ours.best_threshold_ == theirs.best_threshold_
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)
    modified = TunedThresholdClassifierCV(_model("logistic"),
                                          scoring=prcurve.scorer("modified_f1"), cv=cv,
                                          thresholds=50, store_cv_results=True).fit(X, y)
    assert modified.best_score_ == max(modified.cv_results_["scores"])
    assert 0 < modified.best_score_ < 1


def test_scorer_pos_label_string_classes() -> None:
    X, y01 = _data("classification")
    y = np.where(y01 == 1, "yes", "no")
    folds = list(StratifiedKFold(3).split(X, y))
    for pos in ("yes", "no"):
        ours = cross_val_score(LogisticRegression(), X, y, cv=folds,
                               scoring=prcurve.scorer("ap", pos_label=pos))
        theirs = cross_val_score(LogisticRegression(), X, y, cv=folds,
                                 scoring=make_scorer(
                                     __import__("sklearn.metrics").metrics
                                     .average_precision_score, pos_label=pos,
                                     response_method=("decision_function", "predict_proba")))
        assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize(("name", "message"), [
    ("apx", "unknown scorer 'apx'"),
    ("precision_at_recall", "needs a parameter"),
    ("precision_at_recall:1.5", "expected a number in"),
    ("ap:nope", "unknown value 'nope'"),
    ("roc_auc:3", "takes no parameter"),
    ("f_beta:x", "expected a number after the colon"),
    (3, "expected a scorer name"),
])
def test_scorer_names_are_checked(name: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        prcurve.scorer(name)  # type: ignore[arg-type]


def test_report_from_estimator_is_the_same_function() -> None:
    X, y = _data("classification")
    model = LogisticRegression().fit(X, y)
    assert prcurve.report.from_estimator is prcurve.report_from_estimators  # type: ignore[attr-defined]
    single = prcurve.report.from_estimator(model, X, y, ci=None)  # type: ignore[attr-defined]
    assert [m.name for m in single.models] == ["LogisticRegression"]
    assert single.models[0].curve.average_precision() == (
        PRCurve.from_estimator(model, X, y).average_precision())

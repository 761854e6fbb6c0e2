"""Checks of the arguments of the adapters to other libraries: scikit-learn scorer names,
estimators and cross-validation results, and the experiment trackers' options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import check_choice, check_fraction, check_positive_number

RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")

# Scorer names: the measure, and what follows the colon (None: nothing may follow).
RANKING_SCORERS = ("ap", "aucpr", "aucnpr", "normalized_ap", "precision_at_recall",
                   "recall_at_precision", "best_f1", "best_f", "auprg", "roc_auc")
LABEL_SCORERS = ("f1", "f_beta", "precision", "recall", "modified_f1", "modified_f_beta")
_NEEDS_LEVEL = ("precision_at_recall", "recall_at_precision")
_NEEDS_BETA = ("best_f", "f_beta", "modified_f_beta")
_TAKES_METHOD = ("ap", "aucpr", "aucnpr", "normalized_ap")


def check_scorer_name(spec: Any, ap_methods: Sequence[str]) -> tuple[str, Any]:
    """``"measure"`` or ``"measure:parameter"`` as (measure, parameter or None).

    The parameter is an AP method for ap/aucpr/aucnpr/normalized_ap, a level in [0, 1]
    for precision_at_recall/recall_at_precision, a beta > 0 for best_f/f_beta/
    modified_f_beta.
    """
    names = RANKING_SCORERS + LABEL_SCORERS
    fix = ("use one of " + ", ".join(names) + ' (e.g. "aucnpr", "ap:interpolated", '
           '"precision_at_recall:0.9", "f_beta:2")')
    if not isinstance(spec, str):
        raise InvalidInputError("name", f"expected a scorer name, found {type(spec).__name__}",
                                fix)
    measure, colon, parameter = (part.strip() for part in spec.partition(":"))
    if measure not in names:
        raise InvalidInputError("name", f"unknown scorer {spec!r}", fix)
    if measure in _NEEDS_LEVEL + _NEEDS_BETA and not parameter:
        example = "0.9" if measure in _NEEDS_LEVEL else "2"
        raise InvalidInputError("name", f"{measure!r} needs a parameter, found {spec!r}",
                                f'write it after a colon, e.g. "{measure}:{example}"')
    if not colon:
        return measure, None
    if measure in _TAKES_METHOD:
        return measure, check_choice("name", parameter, tuple(ap_methods))
    if measure not in _NEEDS_LEVEL + _NEEDS_BETA:
        raise InvalidInputError("name", f"{measure!r} takes no parameter, found {spec!r}",
                                f'write "{measure}" alone')
    try:
        number = float(parameter)
    except ValueError:
        raise InvalidInputError("name", f"expected a number after the colon, found {spec!r}",
                                f'e.g. "{measure}:0.9"') from None
    if measure in _NEEDS_LEVEL:
        return measure, check_fraction("name", number)
    return measure, check_positive_number("name", number)


def check_response_method(value: Any) -> str:
    return check_choice("response_method", value, RESPONSE_METHODS)


def check_fitted_binary(estimator: Any, name: str = "estimator") -> np.ndarray[Any, Any]:
    """The fitted estimator's ``classes_`` (two of them)."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise InvalidInputError(name, f"{type(estimator).__name__} is not a fitted classifier "
                                "(it has no classes_)", "fit it first, or pass a fitted "
                                "classifier")
    values = np.asarray(classes)
    if values.shape != (2,):
        raise InvalidInputError(name, f"expected a binary classifier, found {values.shape[0]} "
                                f"classes {values.tolist()!r}", "score one class against the "
                                "rest with prcurve.pr_curve on the score matrix")
    return values


def check_pos_label_of(pos_label: Any, classes: np.ndarray[Any, Any], name: str) -> Any:
    """``pos_label`` among the classifier's classes; None: the second class, as in
    scikit-learn."""
    if pos_label is None:
        return classes[1]
    if pos_label not in classes.tolist():
        raise InvalidInputError("pos_label", f"{pos_label!r} is not a class of the {name} "
                                f"(classes {classes.tolist()!r})", "pass one of its classes")
    return pos_label


def no_response_method(estimator: Any, wanted: str) -> InvalidInputError:
    what = ("neither predict_proba nor decision_function" if wanted == "auto"
            else f"no {wanted}")
    return InvalidInputError("estimator", f"{type(estimator).__name__} has {what}",
                             "pass a classifier that scores its samples, or choose "
                             "response_method")


def check_cv_results(cv_results: Any) -> tuple[list[Any], list[np.ndarray[Any, Any]]]:
    """The fitted estimators and the test indices of ``cross_validate(...,
    return_estimator=True, return_indices=True)``."""
    fix = "pass the dict cross_validate(..., return_estimator=True, return_indices=True) returns"
    if not isinstance(cv_results, Mapping):
        raise InvalidInputError("cv_results", f"expected a dict, found "
                                f"{type(cv_results).__name__}", fix)
    missing = [k for k in ("estimator", "indices") if k not in cv_results]
    if missing:
        raise InvalidInputError("cv_results", f"missing keys {missing!r} (found "
                                f"{sorted(cv_results)!r})", fix)
    indices = cv_results["indices"]
    if not isinstance(indices, Mapping) or "test" not in indices:
        raise InvalidInputError("cv_results", "cv_results['indices'] has no 'test' entry", fix)
    estimators = list(cv_results["estimator"])
    tests = [np.asarray(t) for t in indices["test"]]
    if len(estimators) != len(tests) or not estimators:
        raise InvalidInputError("cv_results", f"{len(estimators)} estimators for {len(tests)} "
                                "test folds", fix)
    return estimators, tests


def check_estimators(estimators: Any) -> dict[str, Any]:
    """Named estimators: a mapping of name to estimator, or a sequence (named by class)."""
    if isinstance(estimators, Mapping):
        named = {str(k): v for k, v in estimators.items()}
    elif isinstance(estimators, Sequence) and not isinstance(estimators, str):
        named = {}
        for estimator in estimators:
            base = type(estimator).__name__
            name, k = base, 2
            while name in named:
                name, k = f"{base}_{k}", k + 1
            named[name] = estimator
    else:  # one estimator
        named = {type(estimators).__name__: estimators}
    if not named:
        raise InvalidInputError("estimators", "no estimator given",
                                "pass a dict of name to fitted classifier")
    return named


def check_max_points(value: Any) -> int:
    """The most points a tracker receives: an integer >= 3 (both ends and the best-F point)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 3:
        raise InvalidInputError("max_points", f"expected an integer >= 3, found {value!r}",
                                "pass e.g. 200 (the ends and the best-F point are always kept)")
    return int(value)


def check_tag(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInputError(name, f"expected a non-empty string, found {value!r}",
                                'pass a name such as "pr_curve"')
    return value


def check_step(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidInputError("step", f"expected an integer >= 0, found {value!r}",
                                "pass the training step or epoch, e.g. 0")
    return int(value)


def missing_library(package: str, extra: str) -> InvalidInputError:
    return InvalidInputError("library", f"{package} is not installed",
                             f"pip install {package} (or prcurve[{extra}])")

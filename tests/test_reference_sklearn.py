"""Differential tests against scikit-learn, to 1e-12.

scikit-learn (>= 1.4; read against 1.9's sklearn/metrics/_ranking.py) is the
reference for the step AP, the exact PR curve and the label metrics.
Its conventions, and how the comparisons align them with prcurve's:

- ``precision_recall_curve`` returns thresholds *increasing* and precision and
  recall with one extra final point (precision 1, recall 0) that belongs to no
  threshold; with ``drop_intermediate=False`` (the default) every distinct
  score with non-zero weight is kept and nothing is truncated. prcurve returns
  thresholds decreasing and no extra point, so sklearn's arrays are reversed
  after dropping that last point.
- Where a value is 0/0, scikit-learn returns a convention (0 for
  precision/recall/F/MCC with ``zero_division=0``, and for AP with no
  positives; recall 1 on a curve with no positives) while prcurve's default is
  NaN with one :class:`prcurve.UndefinedMetricWarning`: such cases are
  compared with prcurve's ``zero_division`` set to scikit-learn's value, and
  the default is checked separately.

pytest turns every warning into an error, so scikit-learn's own warnings on
degenerate input are asserted with ``pytest.warns`` or silenced explicitly.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from tests.strategies import SLOW, Scored, scored

import prcurve
from prcurve import UndefinedMetricWarning

TOL = {"rtol": 1e-12, "atol": 1e-12}
BETAS = (0.5, 1.0, 2.0, 3.7)


def _sk_quiet(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call scikit-learn with its own warnings (single label, no positives) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _warns_once(compute: Callable[[], Any]) -> Any:
    """Run ``compute`` and check that it emits exactly one UndefinedMetricWarning."""
    with pytest.warns(UndefinedMetricWarning) as record:
        value = compute()
    assert sum(issubclass(w.category, UndefinedMetricWarning) for w in record) == 1
    return value


# -- the PR curve and the step AP -------------------------------------------------------------


def _check_curve(data: Scored) -> None:
    y, s, w = data.y_true, data.y_score, data.sample_weight
    curve = prcurve.pr_curve(y, s, sample_weight=w)
    has_positives = data.positive_weight > 0
    if has_positives:
        sk_precision, sk_recall, sk_thresholds = skm.precision_recall_curve(y, s, sample_weight=w)
    else:
        with pytest.warns(UserWarning, match="No positive class found"):
            sk_precision, sk_recall, sk_thresholds = skm.precision_recall_curve(
                y, s, sample_weight=w
            )
    # sklearn's extra final point (recall 0, precision 1) belongs to no threshold.
    assert (sk_precision[-1], sk_recall[-1]) == (1.0, 0.0)
    assert_array_equal(curve.thresholds, sk_thresholds[::-1])
    assert_allclose(curve.precision, sk_precision[:-1][::-1], **TOL)
    if has_positives:
        assert_allclose(curve.recall, sk_recall[:-1][::-1], **TOL)
    else:
        recall = _warns_once(lambda: curve.recall)
        assert np.isnan(recall).all()
        # sklearn's convention with no positives is recall 1 everywhere.
        ones = prcurve.pr_curve(y, s, sample_weight=w, zero_division=1).recall
        assert_array_equal(ones, sk_recall[:-1][::-1])
        assert_array_equal(ones, np.ones(len(curve)))

    sk_fp, sk_tp = _sklearn_counts(y, s, w)
    assert_allclose(curve.tp, sk_tp, **TOL)
    assert_allclose(curve.fp, sk_fp, **TOL)


def _sklearn_counts(y: Any, s: Any, w: Any) -> tuple[Any, Any]:
    """scikit-learn's cumulative FP and TP per distinct threshold (decreasing).

    Public as confusion_matrix_at_thresholds since scikit-learn 1.8; before that
    (the newest release for Python 3.10 is 1.7) the same function was the
    private _ranking._binary_clf_curve.
    """
    if hasattr(skm, "confusion_matrix_at_thresholds"):
        _, fp, _, tp, _ = skm.confusion_matrix_at_thresholds(y, s, sample_weight=w)
        return fp, tp
    from sklearn.metrics._ranking import _binary_clf_curve

    fp, tp, _ = _binary_clf_curve(y, s, sample_weight=w)
    return fp, tp


def _check_step_ap(data: Scored) -> None:
    y, s, w = data.y_true, data.y_score, data.sample_weight
    curve = prcurve.pr_curve(y, s, sample_weight=w)
    if data.positive_weight > 0:
        expected = skm.average_precision_score(y, s, sample_weight=w)
        assert_allclose(prcurve.average_precision(y, s, sample_weight=w), expected, **TOL)
        assert_allclose(curve.average_precision("step"), expected, **TOL)
        return
    with pytest.warns(UserWarning, match="No positive class found"):
        expected = skm.average_precision_score(y, s, sample_weight=w)
    assert expected == 0.0
    value = _warns_once(lambda: prcurve.average_precision(y, s, sample_weight=w))
    assert np.isnan(value)
    assert np.isnan(_warns_once(lambda: curve.average_precision("step")))
    assert prcurve.average_precision(y, s, sample_weight=w, zero_division=0) == expected
    zero_curve = prcurve.pr_curve(y, s, sample_weight=w, zero_division=0)
    assert zero_curve.average_precision("step") == expected


def _has_weight(data: Scored) -> bool:
    return float(np.sum(data.weights)) > 0


@SLOW
@given(data=scored(labels="hard").filter(_has_weight))
def test_pr_curve_matches_sklearn(data: Scored) -> None:
    _check_curve(data)


@SLOW
@given(data=scored(labels="hard").filter(_has_weight))
def test_step_ap_matches_sklearn(data: Scored) -> None:
    _check_step_ap(data)


def _random_case(kind: str, seed: int) -> Scored:
    """Larger data than Hypothesis draws: random, heavily tied, float-weighted."""
    rng = np.random.default_rng(seed)
    n = 3000
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.integers(0, 7, n) / 4.0 if kind == "tied" else rng.normal(size=n) + y
    w = rng.uniform(0.0, 5.0, n) if kind == "weighted" else None
    if kind == "weighted_tied":
        s = rng.integers(0, 20, n).astype(np.float64)
        w = rng.exponential(size=n)
        w[rng.random(n) < 0.1] = 0.0
    return Scored(y, s, w, exact=w is None)


@pytest.mark.parametrize("kind", ["random", "tied", "weighted", "weighted_tied"])
@pytest.mark.parametrize("seed", [0, 1])
def test_large_random_inputs_match_sklearn(kind: str, seed: int) -> None:
    data = _random_case(kind, seed)
    _check_curve(data)
    _check_step_ap(data)


DEGENERATE = {
    "all_negative": ([0, 0, 0, 0], [0.3, 0.1, 0.3, 0.9], None),
    "all_positive": ([1, 1, 1], [0.2, 0.2, 0.7], None),
    "single_positive": ([1], [0.5], None),
    "single_negative": ([0], [0.5], None),
    "all_scores_equal": ([1, 0, 0, 1, 0], [0.4] * 5, None),
    "all_scores_equal_weighted": ([1, 0, 0, 1, 0], [0.4] * 5, [0.5, 2.0, 1.25, 3.0, 0.1]),
    "all_scores_equal_one_class": ([0, 0, 0], [2.0] * 3, None),
    "positives_weigh_nothing": ([1, 0, 1, 0], [0.9, 0.5, 0.4, 0.1], [0.0, 1.5, 0.0, 2.5]),
    "one_weighted_sample_left": ([1, 0, 1], [0.9, 0.5, 0.4], [0.0, 0.0, 2.0]),
}


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_degenerate_inputs_match_sklearn(name: str) -> None:
    y, s, w = DEGENERATE[name]
    data = Scored(
        np.array(y, dtype=np.int64),
        np.array(s, dtype=np.float64),
        None if w is None else np.array(w, dtype=np.float64),
        exact=True,
    )
    _check_curve(data)
    _check_step_ap(data)


# -- label metrics ---------------------------------------------------------------------------


def _weighted_confusion(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> tuple[float, ...]:
    tp = float(np.sum(w[(y == 1) & (p == 1)]))
    fp = float(np.sum(w[(y == 0) & (p == 1)]))
    fn = float(np.sum(w[(y == 1) & (p == 0)]))
    tn = float(np.sum(w[(y == 0) & (p == 0)]))
    return tp, fp, fn, tn


def _compare_metric(
    defined: bool, sk_value: float, compute: Callable[[Any], float]
) -> None:
    """prcurve's value equals sklearn's; where undefined, NaN + one warning by default
    and sklearn's zero_division=0 value with zero_division=0."""
    if defined:
        assert_allclose(compute("nan"), sk_value, **TOL)
        return
    assert np.isnan(_warns_once(lambda: compute("nan")))
    assert compute(0) == sk_value == 0.0


@st.composite
def predictions(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Hard truth and predictions, optionally weighted (integers or floats, zeros too;
    scikit-learn refuses weights that are all zero)."""
    data = draw(scored(labels="hard", max_size=30).filter(_has_weight))
    y_pred = np.array(
        draw(st.lists(st.integers(0, 1), min_size=data.n, max_size=data.n)), dtype=np.int64
    )
    return data.y_true, y_pred, data.sample_weight


def _check_label_metrics(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> None:
    weights = np.ones(y.shape[0]) if w is None else w
    tp, fp, fn, tn = _weighted_confusion(y, p, weights)
    kwargs = {"sample_weight": w}

    cm = prcurve.confusion_matrix(y, p, **kwargs)
    assert_allclose([cm.tp, cm.fp, cm.fn, cm.tn], [tp, fp, fn, tn], **TOL)

    sk = _sk_quiet(skm.precision_score, y, p, zero_division=0, **kwargs)
    _compare_metric(
        tp + fp > 0, sk, lambda z: prcurve.precision(y, p, zero_division=z, **kwargs)
    )
    sk = _sk_quiet(skm.recall_score, y, p, zero_division=0, **kwargs)
    _compare_metric(tp + fn > 0, sk, lambda z: prcurve.recall(y, p, zero_division=z, **kwargs))
    for beta in BETAS:
        sk = _sk_quiet(skm.fbeta_score, y, p, beta=beta, zero_division=0, **kwargs)
        _compare_metric(
            tp + fp + fn > 0,
            sk,
            lambda z, b=beta: prcurve.f_beta(y, p, beta=b, zero_division=z, **kwargs),
        )
    sk = _sk_quiet(skm.f1_score, y, p, zero_division=0, **kwargs)
    _compare_metric(tp + fp + fn > 0, sk, lambda z: prcurve.f1(y, p, zero_division=z, **kwargs))
    sk = _sk_quiet(skm.matthews_corrcoef, y, p, **kwargs)
    mcc_defined = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn) > 0
    _compare_metric(
        mcc_defined, sk, lambda z: prcurve.confusion_matrix(y, p, zero_division=z, **kwargs).mcc
    )


@SLOW
@given(case=predictions())
def test_label_metrics_match_sklearn(
    case: tuple[np.ndarray, np.ndarray, np.ndarray | None],
) -> None:
    _check_label_metrics(*case)


LABEL_CASES = {
    "nothing_predicted": ([1, 0, 1, 0], [0, 0, 0, 0], None),
    "no_positives": ([0, 0, 0], [1, 0, 1], None),
    "all_true_negatives": ([0, 0, 0], [0, 0, 0], None),
    "all_true_positives": ([1, 1], [1, 1], None),
    "all_predicted_positive": ([1, 0, 1, 0], [1, 1, 1, 1], [0.5, 1.5, 2.0, 0.25]),
    "single_sample": ([1], [0], None),
    "perfect": ([1, 0, 1, 0], [1, 0, 1, 0], [3.0, 0.5, 1.0, 2.0]),
    "inverted": ([1, 0, 1, 0], [0, 1, 0, 1], None),
    "predicted_positives_weigh_nothing": ([1, 0, 1, 0], [1, 1, 0, 0], [0.0, 0.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("name", list(LABEL_CASES))
def test_label_metrics_degenerate_cases_match_sklearn(name: str) -> None:
    y, p, w = LABEL_CASES[name]
    _check_label_metrics(
        np.array(y, dtype=np.int64),
        np.array(p, dtype=np.int64),
        None if w is None else np.array(w, dtype=np.float64),
    )


def test_label_metrics_large_weighted_input_match_sklearn() -> None:
    rng = np.random.default_rng(7)
    n = 5000
    y = (rng.random(n) < 0.4).astype(np.int64)
    p = np.where(rng.random(n) < 0.8, y, 1 - y)
    for w in (None, rng.uniform(0.0, 3.0, n)):
        _check_label_metrics(y, p, w)

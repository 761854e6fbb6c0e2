"""ROC as a view of the count state, against scikit-learn's roc_curve and roc_auc_score."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

import prcurve
from prcurve import UndefinedMetricWarning, pr_curve, roc_auc, roc_curve


@st.composite
def scored(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < draw(st.floats(0.05, 0.95))
    labels[0], labels[1] = True, False  # both classes
    levels = draw(st.sampled_from([3, 10, 1000]))  # few levels: many ties
    scores = rng.integers(0, levels, n) / levels
    weights = rng.choice([0.5, 1.0, 3.0], n)
    return labels, scores, weights


@settings(max_examples=150, deadline=None)
@given(data=scored(), weighted=st.booleans(), drop=st.booleans())
def test_roc_curve_equals_scikit_learn(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], weighted: bool, drop: bool,
) -> None:
    labels, scores, weights = data
    w = weights if weighted else None
    fpr, tpr, thresholds = sk_roc_curve(labels, scores, sample_weight=w,
                                        drop_intermediate=drop)
    ours = roc_curve(labels, scores, sample_weight=w, drop_intermediate=drop)
    np.testing.assert_allclose(ours.fpr, fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.tpr, tpr, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.thresholds, thresholds)
    assert ours.auc() == pytest.approx(roc_auc_score(labels, scores, sample_weight=w),
                                       abs=1e-12)
    assert roc_auc(labels, scores, sample_weight=w) == pytest.approx(ours.auc(), abs=1e-15)


def test_roc_is_the_same_state_as_the_pr_curve() -> None:
    rng = np.random.default_rng(0)
    labels = rng.random(500) < 0.3
    scores = np.round(rng.random(500), 2)
    curve = pr_curve(labels, scores)
    roc = curve.roc()
    assert roc.counts is curve.counts
    # Point i + 1 of the ROC curve is operating point i of the PR curve (Davis & Goadrich):
    # recall = TPR and precision = TPR P / (TPR P + FPR N).
    np.testing.assert_allclose(roc.tpr[1:], curve.recall, atol=1e-15)
    p, n = curve.n_pos, curve.n_neg
    precision = roc.tpr[1:] * p / (roc.tpr[1:] * p + roc.fpr[1:] * n)
    np.testing.assert_allclose(precision, curve.precision, atol=1e-12)


def test_roc_auc_is_the_probability_of_ranking_a_positive_above_a_negative() -> None:
    rng = np.random.default_rng(1)
    labels = rng.random(300) < 0.4
    scores = rng.integers(0, 7, 300).astype(float)
    pos, neg = scores[labels], scores[~labels]
    wins = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert roc_auc(labels, scores) == pytest.approx(wins, abs=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_one_vs_rest_equals_scikit_learn(average: str) -> None:
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 4, 400)
    scores = rng.random((400, 4))
    scores /= scores.sum(axis=1, keepdims=True)
    expected = roc_auc_score(labels, scores, multi_class="ovr", average=average)
    assert roc_auc(labels, scores, average=average) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
def test_multilabel_equals_scikit_learn(average: str | None) -> None:
    rng = np.random.default_rng(3)
    indicator = (rng.random((300, 3)) < 0.3).astype(int)
    scores = rng.random((300, 3))
    expected = roc_auc_score(indicator, scores, average=average)
    np.testing.assert_allclose(roc_auc(indicator, scores, average=average), expected,
                               atol=1e-12)


def test_one_class_follows_the_undefined_value_policy() -> None:
    with pytest.warns(UndefinedMetricWarning, match="roc_auc"):
        assert np.isnan(roc_auc([1, 1, 1], [0.3, 0.2, 0.1]))
    assert roc_auc([0, 0], [0.3, 0.1], zero_division=0) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert np.isnan(roc_curve([1, 1], [0.3, 0.1]).fpr).all()


def test_binned_roc_is_the_binned_state() -> None:
    rng = np.random.default_rng(4)
    labels = rng.random(1000) < 0.5
    scores = rng.random(1000)
    edges = np.linspace(0, 1, 11)
    binned = roc_curve(labels, scores, bins=edges)
    exact_of_binned = prcurve.ROCCurve.from_counts(
        prcurve.BinnedCounts.from_scores(labels, scores, edges))
    np.testing.assert_array_equal(binned.tpr, exact_of_binned.tpr)
    assert binned.auc() == exact_of_binned.auc()

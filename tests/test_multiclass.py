"""Multi-class and multi-label one-vs-rest AP and curves against scikit-learn (1e-12)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined
from sklearn.metrics import average_precision_score

import prcurve
from prcurve import InvalidInputError, UndefinedMetricWarning
from prcurve.space.multiclass import one_vs_rest

AVERAGES = ["macro", "micro", "weighted", None]


def sk(y_true, y_score, **kw):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return average_precision_score(y_true, y_score, **kw)


def make(n: int, k: int, seed: int, *, tied: bool = False, weighted: bool = False):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    scores = rng.random((n, k))
    if tied:
        scores = np.round(scores * 4) / 4
    w = rng.random(n) * 3 if weighted else None
    return y, scores, w


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize(("n", "k", "tied", "weighted"), [
    (50, 3, False, False), (200, 5, True, False), (300, 4, False, True), (120, 6, True, True),
    (1000, 10, False, False),
])
def test_multiclass_matches_sklearn(n: int, k: int, tied: bool, weighted: bool,
                                    average: str | None) -> None:
    y, s, w = make(n, k, seed=n + k, tied=tied, weighted=weighted)
    expected = sk(y, s, average=average, sample_weight=w)
    got = prcurve.average_precision(y, s, average=average, sample_weight=w)  # type: ignore[call-overload]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("average", AVERAGES)
def test_multilabel_indicator_matches_sklearn(average: str | None) -> None:
    rng = np.random.default_rng(7)
    y = (rng.random((400, 5)) < [0.05, 0.2, 0.4, 0.5, 0.7]).astype(int)
    s = rng.normal(size=(400, 5)) + y
    w = rng.integers(1, 4, 400).astype(float)
    for weights in (None, w):
        expected = sk(y, s, average=average, sample_weight=weights)
        got = prcurve.average_precision(y, s, average=average, sample_weight=weights)  # type: ignore[call-overload]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_string_labels_in_sorted_order() -> None:
    rng = np.random.default_rng(3)
    names = np.array(["cat", "dog", "emu"])
    y = names[rng.integers(0, 3, 90)]
    s = rng.random((90, 3))
    for average in AVERAGES:
        np.testing.assert_allclose(
            prcurve.average_precision(y, s, average=average),  # type: ignore[call-overload]
            sk(y, s, average=average), rtol=1e-12, atol=1e-12)
    assert one_vs_rest(y, s).classes.tolist() == ["cat", "dog", "emu"]


def test_class_without_positives() -> None:
    # scikit-learn gives such a class AP 0 (with a warning); prcurve follows zero_division.
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]])
    s = np.array([[0.9, 0.2, 0.1], [0.3, 0.8, 0.5], [0.6, 0.4, 0.2], [0.1, 0.3, 0.7]])
    for average in ("macro", None):
        np.testing.assert_allclose(
            prcurve.average_precision(y, s, average=average, zero_division=0),  # type: ignore[call-overload]
            sk(y, s, average=average), rtol=1e-12)
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(prcurve.average_precision(y, s, average="macro"))
    # weighted: the class has weight 0 and is never computed (no warning), as in sklearn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = prcurve.average_precision(y, s, average="weighted")
    assert value == pytest.approx(sk(y, s, average="weighted"), rel=1e-12)
    assert prcurve.average_precision(y, s, average="micro") == pytest.approx(
        sk(y, s, average="micro"), rel=1e-12)


def test_labels_allow_a_class_missing_from_the_fold() -> None:
    y = np.array([0, 2, 2, 0, 2])
    s = np.random.default_rng(1).random((5, 3))
    with pytest.warns(UndefinedMetricWarning):
        per_class = prcurve.average_precision(y, s, labels=[0, 1, 2], average=None)
    assert math.isnan(per_class[1])
    full = np.eye(3, dtype=int)[y]
    np.testing.assert_allclose(per_class[[0, 2]], sk(full, s, average=None)[[0, 2]], rtol=1e-12)


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_every_method_is_one_vs_rest(method: str) -> None:
    y, s, w = make(150, 4, seed=11, tied=True, weighted=True)
    per_class = prcurve.average_precision(y, s, method=method, sample_weight=w, average=None)  # type: ignore[call-overload]
    for j in range(4):
        assert per_class[j] == prcurve.average_precision(
            (y == j).astype(int), s[:, j], method=method, sample_weight=w)  # type: ignore[call-overload]
    assert prcurve.average_precision(y, s, method=method, sample_weight=w) == pytest.approx(  # type: ignore[call-overload]
        per_class.mean(), rel=1e-15)
    micro = prcurve.average_precision(y, s, method=method, sample_weight=w, average="micro")  # type: ignore[call-overload]
    flat = prcurve.average_precision(np.eye(4, dtype=int)[y].ravel(), s.ravel(), method=method,  # type: ignore[call-overload]
                                     sample_weight=np.repeat(w, 4))
    assert micro == pytest.approx(flat, rel=1e-12)


def test_pr_curve_with_score_matrix() -> None:
    y, s, _ = make(60, 3, seed=5, tied=True)
    micro = prcurve.pr_curve(y, s)
    flat = prcurve.pr_curve(np.eye(3, dtype=int)[y].ravel(), s.ravel())
    np.testing.assert_array_equal(micro.thresholds, flat.thresholds)
    np.testing.assert_array_equal(micro.tp, flat.tp)
    np.testing.assert_array_equal(micro.fp, flat.fp)
    assert micro.average_precision() == pytest.approx(sk(y, s, average="micro"), rel=1e-12)
    curves = prcurve.pr_curve(y, s, average=None)
    assert len(curves) == 3
    for j, curve in enumerate(curves):
        np.testing.assert_array_equal(curve.tp, prcurve.pr_curve(y == j, s[:, j]).tp)
    # 1-D scores: "micro" is the binary curve and None a one-element list.
    binary = prcurve.pr_curve([1, 0, 1], [0.8, 0.5, 0.3], average=None)
    assert len(binary) == 1


def test_binary_scores_with_average_none() -> None:
    value = prcurve.average_precision([1, 0, 1], [0.8, 0.5, 0.3], average=None)
    assert value.shape == (1,)
    assert value[0] == prcurve.average_precision([1, 0, 1], [0.8, 0.5, 0.3])


@settings(max_examples=8, deadline=None)  # scikit-learn's calls dominate the time
@given(n=st.integers(6, 40), k=st.integers(3, 5), seed=st.integers(0, 10_000),
       tied=st.booleans(), weighted=st.booleans())
def test_random_multiclass_matches_sklearn(n: int, k: int, seed: int, tied: bool,
                                           weighted: bool) -> None:
    y, s, w = make(n, k, seed, tied=tied, weighted=weighted)
    for average in AVERAGES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkUndefined)
            expected = sk(y, s, average=average, sample_weight=w)
        got = prcurve.average_precision(y, s, average=average, sample_weight=w, zero_division=0)  # type: ignore[call-overload]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: prcurve.average_precision([0, 1, 2], np.ones((3, 2))), "y_score"),
        (lambda: prcurve.average_precision([0, 1], np.ones((3, 2))), "y_score"),
        (lambda: prcurve.average_precision(np.eye(3), np.ones((3, 2))), "y_true"),
        (lambda: prcurve.average_precision([0, 1, 1], np.ones((3, 2)), labels=[0]), "labels"),
        (lambda: prcurve.average_precision([0, 1, 5], np.ones((3, 2)), labels=[0, 1]), "y_true"),
        (lambda: prcurve.average_precision([0, 1, 1], np.ones((3, 2)), bins=3), "bins"),
        (lambda: prcurve.average_precision([0, 1, 1], np.ones((3, 2)), pos_label=1), "pos_label"),
        (lambda: prcurve.average_precision([0, 1], [[0.1, np.nan], [0.2, 0.3]]), "y_score"),
        (lambda: prcurve.average_precision([0, 1], [[0.1, 0.2], [0.2, 0.3]],
                                           average="samples"), "average"),  # type: ignore[call-overload]
        (lambda: prcurve.pr_curve([0, 1], [[0.1, 0.2], [0.2, 0.3]], average="macro"),  # type: ignore[call-overload]
         "average"),
        (lambda: prcurve.average_precision(np.array([[0, 2], [1, 0]]), [[0.1, 0.2], [0.2, 0.3]]),
         "y_true"),
    ],
)
def test_bad_matrix_input(call, argument: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError) as info:
        call()
    assert info.value.argument == argument

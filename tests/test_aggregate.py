"""Aggregation across folds and tasks (seed 004 §4.1, §4.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import prcurve
from prcurve import InvalidInputError, ThresholdCounts
from prcurve.space.aggregate import aggregate
from prcurve.space.bounds import aucnpr


def folds(seed: int = 0) -> tuple[list[prcurve.PRCurve], np.ndarray, np.ndarray]:
    """Three folds of different skew drawn from one scoring model."""
    rng = np.random.default_rng(seed)
    ys, ss = [], []
    for prevalence in (0.5, 0.2, 0.05):
        y = rng.random(400) < prevalence
        ys.append(y)
        ss.append(rng.normal(size=400) + 1.2 * y)
    return [prcurve.pr_curve(y, s) for y, s in zip(ys, ss, strict=True)], np.concatenate(ys), (
        np.concatenate(ss))


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_merge_equals_the_pooled_data(method: str) -> None:
    curves, y, s = folds()
    result = aggregate(curves, "merge", method=method)
    pooled = prcurve.pr_curve(y, s)
    assert result.value == pytest.approx(pooled.average_precision(method), rel=1e-13)
    np.testing.assert_array_equal(result.counts.tp, pooled.tp)  # type: ignore[union-attr]
    np.testing.assert_array_equal(result.precision, pooled.precision)
    np.testing.assert_array_equal(result.part_values,
                                  [c.average_precision(method) for c in curves])
    # Counts and binned states are parts too.
    assert aggregate([c.counts for c in curves], "merge", method=method).value == result.value


@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_mean_and_mean_normalized(method: str) -> None:
    curves, _, _ = folds()
    mean = aggregate(curves, "mean", method=method)
    per_fold = np.array([c.average_precision(method) for c in curves])
    assert mean.value == pytest.approx(per_fold.mean(), rel=1e-15)
    normalized = aggregate(curves, "mean_normalized", method=method)
    expected = [c.aucnpr(method) for c in curves]
    np.testing.assert_allclose(normalized.part_values, expected, rtol=1e-15)
    np.testing.assert_allclose(normalized.prevalences, [c.prevalence for c in curves])
    if method == "davis_goadrich":  # AUCNPR of the paper
        for curve, value in zip(curves, normalized.part_values, strict=True):
            assert value == pytest.approx(aucnpr(curve.aucpr(), curve.prevalence), rel=1e-13)


def test_normalized_mean_does_not_reward_a_balanced_fold() -> None:
    # §4.1: the same (worst) ranking quality in every fold. Plain AP means rise with the
    # balanced fold's larger unachievable area; normalized means stay at 0.
    worst = [prcurve.pr_curve(np.r_[np.zeros(n), np.ones(p)], -np.arange(n + p))
             for p, n in ((50, 50), (10, 90), (2, 98))]
    for method in ("step", "davis_goadrich", "interpolated"):
        assert aggregate(worst, "mean", method=method).value > 0.1
        assert aggregate(worst, "mean_normalized", method=method).value == pytest.approx(
            0.0, abs=1e-12)


def test_vertical_average() -> None:
    curves, _, _ = folds()
    grid = np.linspace(0, 1, 11)
    result = aggregate(curves, "vertical", recall_grid=grid)
    stacked = np.array([c.interpolated_precision(grid) for c in curves])
    np.testing.assert_allclose(result.precision, stacked.mean(axis=0), rtol=1e-15)
    np.testing.assert_array_equal(result.recall, grid)
    # With the VOC 2007 grid, each part's value is its 11-point AP.
    np.testing.assert_allclose(result.part_values, [c.average_precision("11point") for c in curves],
                               rtol=1e-12)
    assert result.value == pytest.approx(result.part_values.mean(), rel=1e-12)


def test_part_without_positives() -> None:
    empty = prcurve.pr_curve([0, 0, 0], [0.3, 0.2, 0.1])
    full = prcurve.pr_curve([1, 0, 1], [0.3, 0.2, 0.1])
    # No positives: normalized AP is 0/0 (issue 10: the undefined-value policy by default);
    # the paper's convention (0) on request.
    paper = aggregate([empty, full], "mean_normalized", degenerate="paper")
    assert paper.part_values[0] == 0.0
    with pytest.warns(prcurve.UndefinedMetricWarning):
        assert math.isnan(aggregate([empty, full], "mean_normalized").part_values[0])
    assert aggregate([empty, full], "mean", zero_division=0).part_values[0] == 0.0
    with pytest.warns(prcurve.UndefinedMetricWarning):
        assert math.isnan(aggregate([empty, full], "mean").value)


@pytest.mark.parametrize(
    ("parts", "kwargs", "argument"),
    [
        ([], {}, "parts"),
        ("abc", {}, "parts"),
        ([ThresholdCounts.empty(), 3], {}, "parts[1]"),
        ([ThresholdCounts.empty()], {"how": "median"}, "how"),
        ([ThresholdCounts.empty()], {"method": "x"}, "method"),
        ([ThresholdCounts.empty()], {"how": "vertical", "recall_grid": [0.5, 0.1]}, "recall_grid"),
    ],
)
def test_bad_input(parts, kwargs, argument: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError) as info:
        aggregate(parts, **kwargs)
    assert info.value.argument == argument

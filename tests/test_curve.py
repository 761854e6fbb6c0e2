"""The PR curve view: arrays, reading operating points, tables, degenerate data."""

from __future__ import annotations

import math

import numpy as np
import pytest

import prcurve
from prcurve import UndefinedMetricWarning

Y = [1, 0, 1, 1, 0, 0, 1, 0]
S = [0.9, 0.8, 0.7, 0.7, 0.6, 0.3, 0.2, 0.1]


def brute_counts(threshold: float) -> tuple[int, int]:
    """Positives and negatives with score >= threshold, by counting."""
    tp = sum(1 for y, s in zip(Y, S, strict=True) if s >= threshold and y == 1)
    fp = sum(1 for y, s in zip(Y, S, strict=True) if s >= threshold and y == 0)
    return tp, fp


def test_arrays_follow_decreasing_thresholds() -> None:
    curve = prcurve.pr_curve(Y, S)
    assert curve.thresholds.tolist() == [0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.1]  # tie: one point
    for i, t in enumerate(curve.thresholds):
        tp, fp = brute_counts(t)
        assert (curve.tp[i], curve.fp[i]) == (tp, fp)
        assert curve.precision[i] == tp / (tp + fp)
        assert curve.recall[i] == tp / 4
        assert curve.fn[i] == 4 - tp
        assert curve.tn[i] == 4 - fp
    assert (curve.n_pos, curve.n_neg, curve.prevalence) == (4.0, 4.0, 0.5)
    assert len(curve) == 7
    assert not curve.is_binned
    assert curve.edges is None


@pytest.mark.parametrize("threshold", [1.5, 0.9, 0.85, 0.7, 0.65, 0.1, -3.0])
def test_at_threshold_is_exact(threshold: float) -> None:
    cm = prcurve.pr_curve(Y, S).at_threshold(threshold)
    tp, fp = brute_counts(threshold)
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (tp, fp, 4 - tp, 4 - fp)


def test_best_f_matches_brute_force() -> None:
    curve = prcurve.pr_curve(Y, S)
    for beta in (0.5, 1.0, 2.0):
        best = curve.best_f(beta)
        values = []
        for t in curve.thresholds:
            tp, fp = brute_counts(t)
            fn = 4 - tp
            values.append((1 + beta**2) * tp / ((1 + beta**2) * tp + beta**2 * fn + fp))
        assert best.value == pytest.approx(max(values), abs=1e-15)
        assert best.threshold == curve.thresholds[int(np.argmax(values))]
        cm = curve.at_threshold(best.threshold)
        assert (best.precision, best.recall) == (cm.precision, cm.recall)


def test_precision_at_recall_and_recall_at_precision() -> None:
    curve = prcurve.pr_curve(Y, S)
    # Recall >= 0.5 first at 0.7 (tp 3, fp 1): precision 0.75, the best there.
    point = curve.precision_at_recall(0.5)
    assert (point.value, point.threshold, point.recall) == (0.75, 0.7, 0.75)
    # Recall >= 0.8: only threshold 0.2 (tp 4, fp 3).
    assert curve.precision_at_recall(0.8).value == pytest.approx(4 / 7)
    assert curve.precision_at_recall(0.0).value == 1.0
    # Precision >= 0.7: thresholds 0.9 (1.0, r .25) and 0.7 (0.75, r .75) -> recall 0.75.
    point = curve.recall_at_precision(0.7)
    assert (point.value, point.threshold, point.precision) == (0.75, 0.7, 0.75)
    assert curve.recall_at_precision(0.0).value == 1.0


def test_precision_ties_prefer_higher_recall() -> None:
    # Precision 1.0 at thresholds 0.9 (recall 1/3) and 0.8 (recall 2/3).
    curve = prcurve.pr_curve([1, 1, 0, 1], [0.9, 0.8, 0.5, 0.1])
    point = curve.precision_at_recall(0.1)
    assert (point.value, point.threshold) == (1.0, 0.8)
    # Recall 1 at thresholds 0.1 only; recall 2/3 at 0.8 and 0.5 -> 0.8 has higher precision.
    point = curve.recall_at_precision(0.6)
    assert (point.value, point.threshold) == (1.0, 0.1)
    point = curve.recall_at_precision(0.9)
    assert (point.value, point.threshold, point.precision) == (2 / 3, 0.8, 1.0)


def test_unreachable_precision_follows_policy() -> None:
    curve = prcurve.pr_curve([0, 1], [0.9, 0.1])  # precision never above 0.5
    with pytest.warns(UndefinedMetricWarning, match="recall at precision 0.9"):
        point = curve.recall_at_precision(0.9)
    assert math.isnan(point.value)
    assert math.isnan(point.threshold)
    zero = prcurve.pr_curve([0, 1], [0.9, 0.1], zero_division=0)
    assert zero.recall_at_precision(0.9).value == 0.0


def test_to_table_columns_and_csv() -> None:
    curve = prcurve.pr_curve(Y, S)
    table = curve.to_table(("threshold", "tp", "fp", "fn", "tn", "f1"))
    assert table.columns == ["threshold", "tp", "fp", "fn", "tn", "f1"]
    np.testing.assert_array_equal(table["f1"], curve.f_beta(1.0))
    csv_lines = table.to_csv().splitlines()
    assert csv_lines[0] == "threshold,tp,fp,fn,tn,f1"
    # Full precision: the text reads back as the same numbers (pyarrow's writer spells
    # whole floats without ".0"; docs/definitions.md, "to_table").
    assert [float(x) for x in csv_lines[1].split(",")] == [0.9, 1.0, 0.0, 3.0, 4.0, 0.4]
    assert len(csv_lines) == 8
    assert table.to_dict()["tp"] == curve.tp.tolist()
    with pytest.raises(prcurve.InvalidInputError, match="columns"):
        curve.to_table(("threshold", "auc"))


def test_binned_curve_is_exact_curve_at_edges() -> None:
    rng = np.random.default_rng(5)
    scores = rng.normal(size=300)
    labels = rng.random(300) < 0.3
    edges = np.linspace(-1, 1, 9)
    binned = prcurve.pr_curve(labels, scores, bins=edges)
    exact = prcurve.pr_curve(labels, scores)
    assert binned.is_binned
    np.testing.assert_array_equal(binned.edges, edges)
    # Every threshold but the lowest bin's (which also holds scores below -1) is exact.
    for i, t in enumerate(binned.thresholds[:-1]):
        cm = exact.at_threshold(t)
        assert (binned.tp[i], binned.fp[i]) == (cm.tp, cm.fp)
    assert (binned.tp[-1], binned.fp[-1]) == (exact.n_pos, exact.n_neg)


def test_binned_int_spans_observed_range() -> None:
    curve = prcurve.pr_curve([1, 0, 1], [2.0, 4.0, 6.0], bins=4)
    assert curve.edges is not None
    assert curve.edges.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]
    # 6.0 is the top edge: it falls in the last bin, closed on both sides.
    assert curve.thresholds.tolist() == [5.0, 4.0, 2.0]
    assert curve.tp.tolist() == [1.0, 1.0, 2.0]


def test_no_positives() -> None:
    curve = prcurve.pr_curve([0, 0, 0], [0.1, 0.2, 0.2])
    assert curve.precision.tolist() == [0.0, 0.0]
    assert curve.f_beta(1.0).tolist() == [0.0, 0.0]
    assert curve.prevalence == 0.0
    with pytest.warns(UndefinedMetricWarning):
        assert all(math.isnan(r) for r in curve.recall)
    for method in prcurve.AP_METHODS:
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(curve.average_precision(method))  # type: ignore[arg-type]
    assert curve.best_f().value == 0.0
    assert curve.interpolated_precision().tolist() == [0.0, 0.0]


def test_no_negatives() -> None:
    curve = prcurve.pr_curve([1, 1, 1], [0.3, 0.2, 0.2])
    assert curve.precision.tolist() == [1.0, 1.0]
    assert curve.recall.tolist() == [1 / 3, 1.0]
    for method in prcurve.AP_METHODS:
        assert curve.average_precision(method) == pytest.approx(1.0, abs=1e-15)  # type: ignore[arg-type]
        assert prcurve.average_precision([1, 1, 1], [0.3, 0.2, 0.2], method=method) == (
            pytest.approx(1.0, abs=1e-15))


@pytest.mark.parametrize("prevalence_counts", [(1, 3), (2, 2), (5, 1)])
def test_all_scores_tied_give_prevalence(prevalence_counts: tuple[int, int]) -> None:
    n_pos, n_neg = prevalence_counts
    labels = [1] * n_pos + [0] * n_neg
    scores = [0.5] * (n_pos + n_neg)
    pi = n_pos / (n_pos + n_neg)
    # One operating point at recall 1 with precision pi; every method's curve is
    # flat at pi from recall 0 (trapezoid: starts at p of the first threshold;
    # Davis-Goadrich: from zero counts with constant precision).
    for method in prcurve.AP_METHODS:
        assert prcurve.average_precision(labels, scores, method=method) == pytest.approx(
            pi, abs=1e-15)


def test_single_sample() -> None:
    assert prcurve.average_precision([1], [0.3]) == 1.0
    curve = prcurve.pr_curve([True], [0.3])
    assert curve.best_f().threshold == 0.3


def test_empty_counts_view() -> None:
    curve = prcurve.PRCurve.from_counts(prcurve.ThresholdCounts.empty(), zero_division=0)
    assert len(curve) == 0
    assert curve.average_precision() == 0.0
    assert math.isnan(curve.best_f().threshold)


def test_truncated_state_from_elsewhere() -> None:
    # A ranking that retrieves 3 documents of which 2 relevant, out of 4 relevant:
    # recall never reaches 1, and AP divides by all 4 (trec_eval's convention).
    counts = prcurve.ThresholdCounts([-1.0, -2.0, -3.0], [1, 1, 2], [0, 1, 1], n_pos=4, n_neg=6)
    curve = prcurve.PRCurve.from_counts(counts)
    assert curve.recall.tolist() == [0.25, 0.25, 0.5]
    assert curve.average_precision("step") == pytest.approx((1 + 2 / 3) / 4)
    # 11-point: levels 0-0.2 -> 1, 0.3-0.5 -> 2/3, 0.6-1 unreached -> 0.
    assert curve.average_precision("11point") == pytest.approx((3 * 1.0 + 3 * 2 / 3) / 11)


def test_soft_labels_split_weight() -> None:
    curve = prcurve.pr_curve([1.0, 0.25, 0.0], [0.9, 0.5, 0.1], sample_weight=[1, 4, 2])
    assert curve.tp.tolist() == [1.0, 2.0, 2.0]
    assert curve.fp.tolist() == [0.0, 3.0, 5.0]
    assert (curve.n_pos, curve.n_neg) == (2.0, 5.0)


def test_zero_weight_threshold_is_no_operating_point() -> None:
    curve = prcurve.pr_curve([1, 0, 1], [0.9, 0.5, 0.1], sample_weight=[1, 0, 1])
    assert curve.thresholds.tolist() == [0.9, 0.1]


def test_minus_zero_and_zero_are_one_threshold() -> None:
    curve = prcurve.pr_curve([1, 0], [0.0, -0.0])
    assert len(curve) == 1
    assert math.copysign(1.0, curve.thresholds[0]) == 1.0


def test_float32_scores_keep_their_thresholds() -> None:
    scores32 = np.array([0.1, 0.7, 0.7, 0.3], dtype=np.float32)
    curve = prcurve.pr_curve([0, 1, 0, 1], scores32)
    assert curve.thresholds.dtype == np.float64
    np.testing.assert_array_equal(curve.thresholds, np.unique(scores32)[::-1].astype(np.float64))


def test_repr() -> None:
    assert repr(prcurve.pr_curve(Y, S)) == "PRCurve(exact, 7 thresholds, n_pos=4, n_neg=4)"
    assert repr(prcurve.pr_curve(Y, S, bins=2)).startswith("PRCurve(binned, 2 bins")

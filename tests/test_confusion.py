"""Confusion-matrix rates against their textbook definitions (Wikipedia's PR article's table)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import prcurve

CASES = [(4, 3, 5, 8), (20, 10, 40, 30), (1, 0, 0, 1), (0.5, 2.25, 1.5, 7.75), (97, 1, 2, 0)]


@pytest.mark.parametrize(("tp", "fp", "fn", "tn"), CASES)
def test_rates_match_definitions(tp: float, fp: float, fn: float, tn: float) -> None:
    cm = prcurve.ConfusionMatrix(tp, fp, fn, tn, zero_division=0)
    p, n = tp + fn, fp + tn
    tpr, tnr = tp / p, tn / n
    ppv = tp / (tp + fp) if tp + fp else 0.0
    npv = tn / (tn + fn) if tn + fn else 0.0
    expected = {
        "recall": tpr, "sensitivity": tpr, "tpr": tpr, "hit_rate": tpr,
        "specificity": tnr, "tnr": tnr, "selectivity": tnr,
        "precision": ppv, "ppv": ppv, "npv": npv,
        "fpr": fp / n, "fall_out": fp / n, "fnr": fn / p, "miss_rate": fn / p,
        "fdr": 1 - ppv if tp + fp else 0.0,
        "false_omission_rate": 1 - npv if tn + fn else 0.0,
        "accuracy": (tp + tn) / (p + n),
        "balanced_accuracy": (tpr + tnr) / 2,
        "f1": 2 * tp / (2 * tp + fp + fn),
        "informedness": tpr + tnr - 1,
        "markedness": ppv + npv - 1,
        "prevalence": p / (p + n),
    }
    for name, value in expected.items():
        assert getattr(cm, name) == pytest.approx(value, abs=1e-14), name
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = (tp * tn - fp * fn) / denominator if denominator else 0.0
    assert cm.mcc == pytest.approx(mcc, abs=1e-14)
    # Cohen's kappa from observed and chance agreement.
    total = p + n
    p_o = (tp + tn) / total
    p_e = ((tp + fp) * p + (fn + tn) * n) / total**2
    assert cm.cohen_kappa == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-14)


@pytest.mark.parametrize(("tp", "fp", "fn", "tn"), CASES[:4])
@pytest.mark.parametrize("beta", [0.1, 0.5, 1.0, 2.0, 10.0])
def test_f_beta_and_e_from_rates(tp: float, fp: float, fn: float, tn: float,
                                 beta: float) -> None:
    cm = prcurve.ConfusionMatrix(tp, fp, fn, tn)
    p, r = cm.precision, cm.recall
    assert cm.f_beta(beta) == pytest.approx((1 + beta**2) * p * r / (beta**2 * p + r), abs=1e-14)
    alpha = 1 / (1 + beta**2)
    assert cm.e_measure(alpha) == pytest.approx(1 - 1 / (alpha / p + (1 - alpha) / r), abs=1e-14)


def test_e_measure_extremes() -> None:
    cm = prcurve.ConfusionMatrix(3, 1, 2, 4)
    assert cm.e_measure(1.0) == pytest.approx(1 - cm.precision)
    assert cm.e_measure(0.0) == pytest.approx(1 - cm.recall)


def test_mcc_is_geometric_mean_of_informedness_and_markedness() -> None:
    # Wikipedia's PR article: MCC is the geometric mean of informedness and markedness.
    cm = prcurve.ConfusionMatrix(20, 10, 40, 30)
    assert cm.mcc == pytest.approx(math.sqrt(cm.informedness * cm.markedness), abs=1e-14)


def test_accuracy_is_weighted_mean_of_precisions_and_recalls() -> None:
    # Wikipedia's PR article: accuracy is a bias-weighted mean of precision and inverse precision,
    # and a prevalence-weighted mean of recall and inverse recall.
    tp, fp, fn, tn = 20.0, 10.0, 40.0, 30.0
    cm = prcurve.ConfusionMatrix(tp, fp, fn, tn)
    bias = (tp + fp) / cm.n
    assert cm.accuracy == pytest.approx(bias * cm.precision + (1 - bias) * cm.npv)
    assert cm.accuracy == pytest.approx(cm.prevalence * cm.recall
                                        + (1 - cm.prevalence) * cm.specificity)


def test_functional_shortcuts_with_weights_and_pos_label() -> None:
    y_true = np.array(["cat", "dog", "dog", "cat", "dog"])
    y_pred = np.array(["dog", "dog", "cat", "cat", "dog"])
    weights = [1.0, 2.0, 0.5, 1.0, 3.0]
    cm = prcurve.confusion_matrix(y_true, y_pred, sample_weight=weights, pos_label="dog")
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (5.0, 1.0, 0.5, 1.0)
    assert prcurve.precision(y_true, y_pred, sample_weight=weights, pos_label="dog") == 5 / 6
    assert prcurve.recall(y_true, y_pred, sample_weight=weights, pos_label="dog") == 5 / 5.5
    assert prcurve.f1(y_true, y_pred, sample_weight=weights, pos_label="dog") == (
        pytest.approx(10 / 11.5))


def test_soft_truth_in_confusion_matrix() -> None:
    cm = prcurve.confusion_matrix([0.75, 0.0, 1.0], [1, 1, 0], sample_weight=[2, 1, 1])
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (1.5, 1.5, 1.0, 0.0)


def test_minus_one_one_labels() -> None:
    cm = prcurve.confusion_matrix([-1, 1, 1, -1], [1, 1, -1, -1])
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (1.0, 1.0, 1.0, 1.0)

"""Every worked example of the seed documents (../shared/seeds/), as tests.

Where a seed rounds intermediate values, the test states the exact value and
shows that the seed's rounding produces the printed number.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import prcurve

# Seed 000, "Precision" / "Recall" / "F-Score": 8 predictions against truths.
SEED000_PRED = [True, True, False, False, False, True, False, False]
SEED000_TRUTH = [True, True, True, True, False, False, False, False]


def test_seed000_precision_recall() -> None:
    # "Precision = 2 / (2 + 1) = 0.67", "Recall = 2 / (2 + 2) = 0.5"
    assert prcurve.precision(SEED000_TRUTH, SEED000_PRED) == pytest.approx(2 / 3, abs=1e-15)
    assert round(prcurve.precision(SEED000_TRUTH, SEED000_PRED), 2) == 0.67
    assert prcurve.recall(SEED000_TRUTH, SEED000_PRED) == 0.5
    cm = prcurve.confusion_matrix(SEED000_TRUTH, SEED000_PRED)
    assert (cm.tp, cm.fp, cm.fn, cm.tn) == (2.0, 1.0, 2.0, 3.0)


def test_seed000_f_scores() -> None:
    # The seed prints F0.5 = .63, F1 = 0.57, F2 = 0.53, computed from the rounded
    # precision 0.67. Exactly: P = 2/3, R = 1/2.
    f_half = prcurve.f_beta(SEED000_TRUTH, SEED000_PRED, beta=0.5)
    f_one = prcurve.f1(SEED000_TRUTH, SEED000_PRED)
    f_two = prcurve.f_beta(SEED000_TRUTH, SEED000_PRED, beta=2.0)
    assert f_half == pytest.approx(0.625, abs=1e-15)
    assert f_one == pytest.approx(4 / 7, abs=1e-15)
    assert f_two == pytest.approx(10 / 19, abs=1e-15)
    assert (round(f_one, 2), round(f_two, 2)) == (0.57, 0.53)

    # The seed's own arithmetic with P rounded to 0.67 gives its .63.
    def f_from_rates(p: float, r: float, beta: float) -> float:
        return (1 + beta**2) * p * r / (beta**2 * p + r)

    assert round(f_from_rates(0.67, 0.5, 0.5), 2) == 0.63
    assert f_from_rates(2 / 3, 0.5, 0.5) == pytest.approx(f_half, abs=1e-15)


# Seed 000, "Precision-Recall Curve": 12 scores and truths, and the plot data.
SEED000_SCORES = [0.349, -1.084, -0.270, 0.360, 0.898, -1.923, 0.552, -2.273, -1.986,
                  -0.122, -1.738, -3.082]
SEED000_TRUTHS = [True, False, False, True, True, True, True, False, False, True, False,
                  False]
SEED000_TABLE = [  # threshold, precision, recall as printed
    (0.898, 1.00, 0.17), (0.552, 1.00, 0.33), (0.360, 1.00, 0.50), (0.349, 1.00, 0.67),
    (-0.122, 1.00, 0.83), (-0.270, 0.83, 0.83), (-1.084, 0.71, 0.83), (-1.738, 0.62, 0.83),
    (-1.923, 0.67, 1.00), (-1.986, 0.60, 1.00), (-2.273, 0.55, 1.00), (-3.082, 0.50, 1.00),
]


def test_seed000_threshold_table() -> None:
    table = prcurve.pr_curve(SEED000_TRUTHS, SEED000_SCORES).to_table()
    assert table.columns == ["threshold", "precision", "recall"]
    assert len(table) == 12
    for (threshold, precision, recall), expected in zip(table.rows(), SEED000_TABLE,
                                                        strict=True):
        assert threshold == expected[0]
        # The seed rounds half to even on exact binary values (0.625 -> 0.62).
        assert float(f"{precision:.2f}") == expected[1]
        assert float(f"{recall:.2f}") == expected[2]


def test_seed000_threshold_table_markdown() -> None:
    text = prcurve.pr_curve(SEED000_TRUTHS, SEED000_SCORES).to_table().to_markdown(
        digits={"threshold": 3, "precision": 2, "recall": 2}
    )
    lines = text.splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == [
        "threshold", "precision", "recall"]
    parsed = [tuple(float(c) for c in line.strip("|").split("|")) for line in lines[2:]]
    assert parsed == SEED000_TABLE


def test_seed000_threshold_zero() -> None:
    # "If we assume a classification threshold of 0 ... recall = 0.67 and precision = 1.00"
    cm = prcurve.pr_curve(SEED000_TRUTHS, SEED000_SCORES).at_threshold(0.0)
    assert cm.precision == 1.0
    assert cm.recall == pytest.approx(4 / 6, abs=1e-15)


# Seed 000, "Average Precision": models A and B.
SEED000_AP_TRUTHS = [1, 1, 0, 0, 1, 1, 0, 0]
SCORES_A = [0.95, 0.85, 0.73, 0.62, 0.48, 0.39, 0.12, 0.04]
SCORES_B = [0.55, 0.59, 0.88, 0.97, 0.20, 0.09, 0.43, 0.32]


def test_seed000_average_precision_models() -> None:
    ap_a = prcurve.average_precision(SEED000_AP_TRUTHS, SCORES_A)
    ap_b = prcurve.average_precision(SEED000_AP_TRUTHS, SCORES_B)
    # Formula 2: the mean precision at each relevant rank.
    assert ap_a == pytest.approx((1 + 1 + 3 / 5 + 4 / 6) / 4, abs=1e-15)
    assert ap_b == pytest.approx((1 / 3 + 2 / 4 + 3 / 7 + 4 / 8) / 4, abs=1e-15)
    assert (round(ap_a, 2), round(ap_b, 2)) == (0.82, 0.44)
    # Same data and identical 0.5-threshold classes, yet A ranks better.
    at_half_a = prcurve.pr_curve(SEED000_AP_TRUTHS, SCORES_A).at_threshold(0.5)
    at_half_b = prcurve.pr_curve(SEED000_AP_TRUTHS, SCORES_B).at_threshold(0.5)
    assert at_half_a == at_half_b


def test_seed000_formula1_equals_formula2() -> None:
    # Formula 1 (sum P(k) * delta r(k)) equals Formula 2 (mean precision at relevant
    # ranks) when there are no ties: the step AP is both.
    curve = prcurve.pr_curve(SEED000_AP_TRUTHS, SCORES_A)
    delta_recall = np.diff(curve.recall, prepend=0.0)
    formula1 = float(np.sum(curve.precision * delta_recall))
    relevant = np.diff(curve.tp, prepend=0.0) > 0
    formula2 = float(curve.precision[relevant].sum() / curve.n_pos)
    assert formula1 == pytest.approx(formula2, abs=1e-15)
    assert curve.average_precision("step") == pytest.approx(formula1, abs=1e-15)


def test_seed000_precision_at_5() -> None:
    # "Precision @ 5 = 3/5 = 0.6": the top 5 of 12 movies by score.
    scores = [0.94, 0.91, 0.90, 0.66, 0.63, 0.57, 0.37, 0.27, 0.21, 0.20, 0.18, 0.06]
    truth = [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0]
    curve = prcurve.pr_curve(truth, scores)
    assert curve.at_threshold(0.63).precision == 0.6
    assert curve.precision[4] == 0.6  # the fifth operating point: no ties here


def test_seed000_average_precision_at_3() -> None:
    # AP@3 = (P(1) rel(1) + P(2) rel(2) + P(3) rel(3)) / min(3, 4) = 2 / 3.
    scores = [0.840, -0.085, -0.264, -0.463, -0.551, -0.579, -0.708, -1.108, -1.170, -1.593]
    truth = [1, 1, 0, 1, 1, 0, 0, 0, 0, 0]
    curve = prcurve.pr_curve(truth, scores)
    relevant = np.diff(curve.tp, prepend=0.0)[:3]
    ap_at_3 = float(np.sum(curve.precision[:3] * relevant) / min(3, curve.n_pos))
    assert ap_at_3 == pytest.approx(2 / 3, abs=1e-15)
    assert round(ap_at_3, 2) == 0.67


def test_seed001_dogs_and_search_engine() -> None:
    # "7 dogs identified in a scene containing 9 dogs ... 4 correct": 4/7 and 4/9.
    dogs = prcurve.ConfusionMatrix(tp=4, fp=3, fn=5, tn=0)
    assert dogs.precision == pytest.approx(4 / 7, abs=1e-15)
    assert dogs.recall == pytest.approx(4 / 9, abs=1e-15)
    # "3 type I errors and 5 type II errors": FP and FN.
    assert (dogs.fp, dogs.fn) == (3.0, 5.0)
    # "returns 30 pages only 20 of which were relevant while failing to return 40":
    engine = prcurve.ConfusionMatrix(tp=20, fp=10, fn=40, tn=0)
    assert engine.precision == pytest.approx(2 / 3, abs=1e-15)
    assert engine.recall == pytest.approx(1 / 3, abs=1e-15)


def test_seed001_f_beta_is_one_minus_e() -> None:
    # "F_beta = 1 - E where alpha = 1 / (1 + beta^2)"
    cm = prcurve.ConfusionMatrix(tp=20, fp=10, fn=40, tn=7)
    for beta in (0.25, 0.5, 1.0, 2.0, 3.0):
        alpha = 1 / (1 + beta**2)
        p, r = cm.precision, cm.recall
        e_from_rates = 1 - 1 / (alpha / p + (1 - alpha) / r)
        assert cm.e_measure(alpha) == pytest.approx(e_from_rates, abs=1e-15)
        assert cm.f_beta(beta) == pytest.approx(1 - cm.e_measure(alpha), abs=1e-15)


# Seed 003, the airplanes and geese: the ranking behind its cutoff table.
SEED003_TRUTH = [1, 1, 0, 1, 0, 1, 0, 0, 0, 1]
SEED003_SCORES = list(range(10, 0, -1))  # "any array of decreasing values"
SEED003_TABLE = [  # top k: precision %, recall % as printed (precision truncated)
    (100, 20), (100, 40), (66, 40), (75, 60), (60, 60), (66, 80), (57, 80), (50, 80),
    (44, 80), (50, 100),
]


def test_seed003_geese_and_airplanes_counts() -> None:
    # "3 true positives, 1 false positive, 4 true negatives, 2 false negatives":
    # precision 0.75, recall 0.6.
    cm = prcurve.ConfusionMatrix(tp=3, fp=1, fn=2, tn=4)
    assert (cm.precision, cm.recall) == (0.75, 0.6)


def test_seed003_cutoff_table() -> None:
    curve = prcurve.pr_curve(SEED003_TRUTH, SEED003_SCORES)
    for k, (precision_pct, recall_pct) in enumerate(SEED003_TABLE):
        assert math.floor(curve.precision[k] * 100 + 1e-9) == precision_pct
        assert round(curve.recall[k] * 100) == recall_pct


def test_seed003_average_precision() -> None:
    curve = prcurve.pr_curve(SEED003_TRUTH, SEED003_SCORES)
    exact = (1 + 1 + 3 / 4 + 4 / 6 + 5 / 10) / 5
    assert curve.average_precision("step") == pytest.approx(exact, abs=1e-15)
    # The seed's 0.782 comes from precisions truncated to two decimals.
    truncated = np.floor(curve.precision * 100 + 1e-9) / 100
    seed_sum = float(np.sum(truncated * np.diff(curve.recall, prepend=0.0)))
    assert seed_sum == pytest.approx(0.782, abs=1e-12)
    # Interpolated precision takes the max at recall >= r: here it equals the
    # observed precision at each relevant rank, so all-point AP = step AP.
    assert curve.average_precision("interpolated") == pytest.approx(exact, abs=1e-15)
    # 11-point: p_interp = 1 for r <= 0.4, 0.75 for r in (0.4, 0.6], 2/3 up to 0.8, then 0.5.
    eleven = (5 * 1 + 2 * 0.75 + 2 * (4 / 6) + 2 * 0.5) / 11
    assert curve.average_precision("11point") == pytest.approx(eleven, abs=1e-15)


def test_seed003_interpolated_precision() -> None:
    curve = prcurve.pr_curve(SEED003_TRUTH, SEED003_SCORES)
    # At each operating point, the max precision over points with recall >= its
    # recall, the earlier points of the same recall (before a drop) included.
    expected = [1, 1, 1, 0.75, 0.75, 4 / 6, 4 / 6, 4 / 6, 4 / 6, 0.5]
    np.testing.assert_allclose(curve.interpolated_precision(), expected, rtol=0, atol=1e-15)
    levels = np.arange(11) / 10
    np.testing.assert_allclose(
        curve.interpolated_precision(levels),
        [1, 1, 1, 1, 1, 0.75, 0.75, 4 / 6, 4 / 6, 0.5, 0.5], rtol=0, atol=1e-15,
    )


def test_seed002_one_sample_per_bin_equals_exact_curve() -> None:
    # "This applies when K = N, i.e. the size of bin is 1": with one distinct score
    # per bin the binned curve is the exact curve.
    scores = np.array(SEED000_SCORES)
    distinct = np.unique(scores)
    edges = np.append(distinct, distinct[-1] + 1.0)
    exact = prcurve.pr_curve(SEED000_TRUTHS, scores)
    binned = prcurve.pr_curve(SEED000_TRUTHS, scores, bins=edges)
    assert binned.is_binned
    np.testing.assert_array_equal(binned.thresholds, exact.thresholds)
    np.testing.assert_array_equal(binned.precision, exact.precision)
    np.testing.assert_array_equal(binned.recall, exact.recall)
    for method in prcurve.AP_METHODS:
        assert binned.average_precision(method) == exact.average_precision(method)


def test_seed002_binned_algorithm() -> None:
    # Seed 002's loop: per bin TP_i and PP_i, cumulated from the top bin down.
    rng = np.random.default_rng(2)
    scores = rng.random(500)
    truth = rng.random(500) < scores
    edges = np.linspace(0, 1, 11)
    curve = prcurve.pr_curve(truth, scores, bins=edges)
    tp_total, pp_total, recalls, precisions = 0, 0, [], []
    for i in range(9, -1, -1):  # the top bin first
        in_bin = (scores >= edges[i]) & ((scores < edges[i + 1]) | (i == 9))
        tp_total += int(np.sum(truth & in_bin))
        pp_total += int(np.sum(in_bin))
        if in_bin.any():
            recalls.append(tp_total / truth.sum())
            precisions.append(tp_total / pp_total)
    np.testing.assert_allclose(curve.recall, recalls, rtol=0, atol=1e-15)
    np.testing.assert_allclose(curve.precision, precisions, rtol=0, atol=1e-15)

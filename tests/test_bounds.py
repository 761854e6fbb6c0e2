"""The unachievable region of PR space (seed 004): the paper's numbers, closed forms
against numerical integration and against the AP of actual worst rankings, exhaustive
minima over every ranking of small data sets, AUCNPR, the modified F1."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate
from tests.strategies import FAST, SLOW, scored

import prcurve
from prcurve import InvalidInputError, UndefinedMetricError, UndefinedMetricWarning
from prcurve.space.bounds import (
    aucnpr,
    is_achievable,
    min_aucpr,
    min_average_precision,
    min_pr_curve,
    min_precision,
    modified_f1,
    modified_f_beta,
    normalized_average_precision,
    worst_ranking_counts,
)

AREA_METHODS = ("step", "trapezoid", "interpolated", "davis_goadrich")
SIZES = [(1, 1), (1, 9), (3, 7), (5, 5), (10, 3), (7, 40), (100, 200), (250, 1000)]
RANGES = [(0.0, 1.0), (0.5, 1.0), (0.8, 1.0), (0.0, 0.3), (0.25, 0.75), (0.123, 0.987)]


def worst_scores(n_pos: int, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    """Raw data of the worst ranking: every negative scored above every positive."""
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    s = -np.arange(n_pos + n_neg, dtype=float)  # strictly decreasing: no ties
    return y, s


def perfect_scores(n_pos: int, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    return y, -np.arange(n_pos + n_neg, dtype=float)


def quad_min_area(pi: float, a: float, b: float) -> float:
    value, _ = integrate.quad(lambda r: r * pi / (1 - pi + r * pi), a, b,
                              epsabs=1e-15, epsrel=1e-13, limit=200)
    return float(value)


# -- the paper's numbers --------------------------------------------------------------------------


def test_min_aucpr_is_about_005_at_prevalence_01() -> None:
    # §4: "With π = 0.1, AUCPR_MIN ≈ 0.05".
    assert round(min_aucpr(0.1), 2) == 0.05
    assert min_aucpr(0.1) == pytest.approx(1 + 0.9 * math.log(0.9) / 0.1, abs=1e-15)


def test_gender_and_genre_predicate_ranges() -> None:
    # §4.2: gender (π close to 0.5) has the range [0.31, 1.0]; genre (π close to 0.05)
    # "[0.02, 1.0]" (the formula gives 0.0254 at exactly 0.05: the paper truncates).
    assert round(min_aucpr(0.5), 2) == 0.31
    y, s = perfect_scores(50, 50)
    assert prcurve.pr_curve(y, s).aucpr() == 1.0
    assert 0.02 <= min_aucpr(0.05) < 0.03


def test_skew_from_001_to_05_adds_about_03() -> None:
    # §2.2: "changing the skew ... from 0.01 to 0.5 ... increases the minimum AUCPR by
    # approximately 0.3".
    assert min_aucpr(0.5) - min_aucpr(0.01) == pytest.approx(0.3, abs=0.005)


def test_table_1_valid_and_invalid_confusion_matrices() -> None:
    pos, neg = 100, 200
    pi = pos / (pos + neg)
    # (a) tp = 20, fp = 80: r = p = 0.2, valid.
    assert is_achievable(20 / pos, 20 / (20 + 80), pi)
    # r = 0.4 with p = 0.2 (fp = 160) and r = 0.5 with p = 0.2 (fp = 200 = neg, tn = 0).
    assert is_achievable(0.4, 0.2, pi)
    assert is_achievable(0.5, 0.2, pi)
    assert min_precision(0.5, pi) == pytest.approx(0.2, abs=1e-15)
    # (b) r = 0.6, p = 0.2 would need fp = 240 > neg: invalid.
    assert not is_achievable(0.6, 0.2, pi)
    assert not is_achievable(np.nextafter(0.5, 1.0) + 1e-9, 0.2, pi)


def test_table_1_against_every_valid_confusion_matrix() -> None:
    # Exhaustive: with 100 positives and 200 negatives, the lowest precision any valid
    # confusion matrix reaches at recall tp/100 is Theorem 1's bound, and every valid
    # matrix is achievable.
    pos, neg = 100, 200
    pi = pos / (pos + neg)
    tp = np.arange(1, pos + 1)[:, None]
    fp = np.arange(0, neg + 1)[None, :]
    precision = tp / (tp + fp)
    recall = np.broadcast_to(tp / pos, precision.shape)
    assert is_achievable(recall, precision, pi).all()
    lowest = precision.min(axis=1)
    np.testing.assert_allclose(lowest, min_precision(tp[:, 0] / pos, pi), rtol=1e-14)
    # Just below the bound is unachievable at every recall.
    assert not is_achievable(tp[:, 0] / pos, lowest * (1 - 1e-9), pi).any()


def test_figure_1_minimum_curve_at_one_positive_for_two_negatives() -> None:
    pi = 1 / 3
    curve = min_pr_curve(pi)
    np.testing.assert_allclose(curve.recall, np.linspace(0, 1, 101))
    np.testing.assert_allclose(curve.precision, curve.recall / (curve.recall + 2), rtol=1e-15)
    assert (curve.precision[0], curve.precision[-1]) == (0.0, pytest.approx(1 / 3))
    # The random-guessing line p = π lies above the minimum curve below recall 1.
    assert (curve.precision[:-1] < pi).all()
    # The discrete worst ranking (pos 100, neg 200) lies on it, and so does the PR curve
    # prcurve computes for that ranking.
    discrete = min_pr_curve(n_pos=100, n_neg=200)
    np.testing.assert_allclose(discrete.precision, min_precision(discrete.recall, pi),
                               rtol=1e-14, atol=0)
    y, s = worst_scores(100, 200)
    worst = prcurve.pr_curve(y, s)
    on_steps = worst.tp > 0
    np.testing.assert_allclose(worst.precision[on_steps], worst.min_curve().precision[on_steps],
                               rtol=1e-14)


# -- closed forms against numerical integration ---------------------------------------------------


@pytest.mark.parametrize("pi", [1e-6, 0.001, 0.01, 0.05, 0.1, 1 / 3, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("recall_range", RANGES)
def test_corollary_4_against_quadrature(pi: float, recall_range: tuple[float, float]) -> None:
    a, b = recall_range
    assert min_aucpr(pi, recall_range) == pytest.approx(quad_min_area(pi, a, b), rel=1e-11,
                                                        abs=1e-16)


def test_theorem_2_equals_corollary_4_on_full_range() -> None:
    for pi in (0.01, 0.2, 0.5, 0.8):
        assert min_aucpr(pi) == pytest.approx(1 + (1 - pi) * math.log(1 - pi) / pi, rel=1e-13)
        a, b = 0.3, 0.9
        corollary = b - a + (1 - pi) / pi * math.log((pi * (a - 1) + 1) / (pi * (b - 1) + 1))
        assert min_aucpr(pi, (a, b)) == pytest.approx(corollary, rel=1e-12)


def test_tiny_prevalence_keeps_relative_accuracy() -> None:
    # Leading term: ∫ r π dr = π (b² − a²)/2; the next is −π² ∫ r (1 − r) dr.
    for pi in (1e-12, 1e-9):
        expected = pi / 2 - pi**2 / 6
        assert min_aucpr(pi) == pytest.approx(expected, rel=1e-12)


def test_degenerate_prevalence_conventions() -> None:
    # §2.2: AUCPR_min = 0 at π = 0 and 1 at π = 1 (b − a over a range); the limits.
    assert min_aucpr(0.0) == 0.0
    assert min_aucpr(1.0) == 1.0
    assert min_aucpr(1.0, (0.5, 0.9)) == pytest.approx(0.4)
    assert min_aucpr(1e-15) == pytest.approx(0.0, abs=1e-14)
    assert min_aucpr(1 - 1e-12) == pytest.approx(1.0, abs=1e-10)
    # AUCNPR at π = 0 or 1 is 0/0: the undefined-value policy by default (issue 10), the
    # paper's convention (§3: 0 and 1 "when a numeric score is required") on request.
    assert aucnpr(0.0, 0.0, degenerate="paper") == 0.0
    assert aucnpr(1.0, 1.0, degenerate="paper") == 1.0
    with pytest.raises(UndefinedMetricError):
        aucnpr(1.0, 1.0, zero_division="raise")
    with pytest.raises(UndefinedMetricError):
        aucnpr(1.0, 1.0, degenerate="undefined", zero_division="raise")
    assert aucnpr(0.0, 0.0, degenerate="undefined", zero_division=1) == 1.0


def test_min_aucpr_vectorized() -> None:
    pis = np.array([[0.0, 0.1], [0.5, 1.0]])
    out = min_aucpr(pis, (0.5, 1.0))
    assert out.shape == (2, 2)
    for index in np.ndindex(pis.shape):
        assert out[index] == min_aucpr(float(pis[index]), (0.5, 1.0))


# -- minima against the AP of the actual worst ranking --------------------------------------------


@pytest.mark.parametrize(("n_pos", "n_neg"), SIZES)
@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_minimum_is_ap_of_worst_ranking(n_pos: int, n_neg: int, method: str) -> None:
    y, s = worst_scores(n_pos, n_neg)
    actual = prcurve.average_precision(y, s, method=method)
    assert min_average_precision(n_pos, n_neg, method) == pytest.approx(actual, rel=1e-12,
                                                                          abs=1e-15)
    # The state prcurve builds for the worst ranking gives the same.
    curve = prcurve.PRCurve(worst_ranking_counts(n_pos, n_neg))
    assert curve.average_precision(method) == pytest.approx(actual, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("n_pos", "n_neg"), SIZES)
@pytest.mark.parametrize("method", AREA_METHODS)
@pytest.mark.parametrize("recall_range", RANGES)
def test_restricted_minimum_is_area_of_worst_ranking(
    n_pos: int, n_neg: int, method: str, recall_range: tuple[float, float]
) -> None:
    y, s = worst_scores(n_pos, n_neg)
    actual = prcurve.pr_curve(y, s).aucpr(method, recall_range)
    expected = min_average_precision(n_pos, n_neg, method, recall_range=recall_range)
    assert expected == pytest.approx(actual, rel=1e-12, abs=1e-15)


def test_named_minima_closed_forms() -> None:
    for n_pos, n_neg in SIZES:
        pi = n_pos / (n_pos + n_neg)
        theorem_3 = sum(i / (i + n_neg) for i in range(1, n_pos + 1)) / n_pos
        assert min_average_precision(n_pos, n_neg, "step") == pytest.approx(theorem_3, rel=1e-13)
        assert min_average_precision(n_pos, n_neg, "trapezoid") == pytest.approx(
            theorem_3 - 1 / (2 * (n_pos + n_neg)), rel=1e-13)
        for method in ("interpolated", "11point", "101point"):
            assert min_average_precision(n_pos, n_neg, method) == pytest.approx(pi, rel=1e-15)
        assert min_average_precision(n_pos, n_neg, "davis_goadrich") == pytest.approx(
            1 + (1 - pi) * math.log(1 - pi) / pi, rel=1e-13)


def test_davis_goadrich_minimum_is_the_continuous_area_for_any_counts() -> None:
    # The worst ranking's Davis–Goadrich curve is Theorem 1's curve: its area depends on π
    # only, not on the number of samples.
    for n_pos, n_neg in [(1, 2), (10, 20), (300, 600)]:
        y, s = worst_scores(n_pos, n_neg)
        assert prcurve.average_precision(y, s, method="davis_goadrich") == pytest.approx(
            min_aucpr(1 / 3), rel=1e-13)


def test_step_minimum_tends_to_theorem_2() -> None:
    # More samples at the same skew: the step sum approaches the integral from above.
    values = [min_average_precision(k, 2 * k) for k in (10, 100, 1000, 10000)]
    assert all(a > b for a, b in itertools.pairwise(values))
    assert values[-1] == pytest.approx(min_aucpr(1 / 3), abs=1e-4)
    assert values[-1] > min_aucpr(1 / 3)


# -- exhaustive: the minimum over every ranking (and every tie pattern) ---------------------------


def _all_rankings(n_pos: int, n_neg: int) -> list[tuple[np.ndarray, np.ndarray]]:
    n = n_pos + n_neg
    out = []
    for where in itertools.combinations(range(n), n_pos):
        y = np.zeros(n, int)
        y[list(where)] = 1
        out.append((y, -np.arange(n, dtype=float)))
    return out


@pytest.mark.parametrize(("n_pos", "n_neg"), [(1, 1), (2, 3), (3, 3), (2, 5), (4, 3)])
def test_minimum_over_every_ranking(n_pos: int, n_neg: int) -> None:
    rankings = _all_rankings(n_pos, n_neg)
    for method in prcurve.AP_METHODS:
        lowest = min(prcurve.average_precision(y, s, method=method) for y, s in rankings)
        assert min_average_precision(n_pos, n_neg, method) == pytest.approx(lowest, rel=1e-12)
    for method in AREA_METHODS:
        for recall_range in RANGES:
            lowest = min(prcurve.pr_curve(y, s).aucpr(method, recall_range) for y, s in rankings)
            expected = min_average_precision(n_pos, n_neg, method, recall_range=recall_range)
            assert expected == pytest.approx(lowest, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("n_pos", "n_neg"), [(1, 2), (2, 2), (2, 3), (3, 2)])
def test_minimum_over_every_tie_pattern(n_pos: int, n_neg: int) -> None:
    # Scores from 4 levels, every assignment: ties allowed. Only the trapezoid goes below
    # its ranking minimum, to π/2 (all positives tied below every negative).
    n = n_pos + n_neg
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    patterns = [np.array(s, float) for s in itertools.product(range(4), repeat=n)]
    for method in prcurve.AP_METHODS:
        lowest = min(prcurve.average_precision(y, s, method=method) for s in patterns)
        expected = min_average_precision(n_pos, n_neg, method, allow_ties=True)
        assert expected == pytest.approx(lowest, rel=1e-12), method
    pi = n_pos / n
    assert min_average_precision(n_pos, n_neg, "trapezoid", allow_ties=True) == pi / 2
    ranking_min = min_average_precision(n_pos, n_neg, "trapezoid")
    assert ranking_min > pi / 2 if n_pos > 1 else ranking_min == pytest.approx(pi / 2)


# -- bounds hold for any data (properties) --------------------------------------------------------


@FAST
@given(data=scored(labels="hard", weights="none"))
def test_every_curve_lies_on_or_above_the_minimum(data) -> None:  # type: ignore[no-untyped-def]
    curve = prcurve.pr_curve(data.y_true, data.y_score, zero_division=0)
    if curve.n_pos == 0:
        return
    floor = curve.min_curve().precision
    assert (curve.precision >= floor - 1e-12).all()
    assert is_achievable(curve.recall, curve.precision, curve.prevalence).all()
    for method in prcurve.AP_METHODS:
        ap = curve.average_precision(method)
        lowest = min_average_precision(curve.n_pos, curve.n_neg, method, allow_ties=True)
        assert ap >= lowest - 1e-12
        normalized = curve.aucnpr(method) if method not in ("step", "trapezoid") else (
            curve.normalized_average_precision(method))
        if method != "trapezoid":  # ties can take the trapezoid below its ranking minimum
            assert -1e-12 <= normalized <= 1 + 1e-12


@FAST
@given(data=scored(labels="any", weights="any"))
def test_weighted_curves_lie_above_the_continuous_minimum(data) -> None:  # type: ignore[no-untyped-def]
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    if curve.n_pos == 0 or len(curve) == 0:
        return
    assert (curve.precision >= curve.min_curve().precision - 1e-12).all()
    # Davis–Goadrich's minimum depends on π only: it bounds weighted data too.
    assert curve.aucpr() >= min_aucpr(curve.prevalence) - 1e-12
    for recall_range in RANGES[1:]:
        assert curve.aucpr("davis_goadrich", recall_range) >= (
            min_aucpr(curve.prevalence, recall_range) - 1e-12)


# -- AUCNPR: 0 for the worst ranking, 1 for a perfect one, at any skew ----------------------------


@pytest.mark.parametrize(("n_pos", "n_neg"), SIZES)
@pytest.mark.parametrize("method", prcurve.AP_METHODS)
def test_aucnpr_zero_for_worst_one_for_perfect(n_pos: int, n_neg: int, method: str) -> None:
    ranges = RANGES if method in AREA_METHODS else [(0.0, 1.0)]
    worst = prcurve.pr_curve(*worst_scores(n_pos, n_neg))
    perfect = prcurve.pr_curve(*perfect_scores(n_pos, n_neg))
    for recall_range in ranges:
        assert worst.aucnpr(method, recall_range) == pytest.approx(0.0, abs=1e-12)
        assert perfect.aucnpr(method, recall_range) == pytest.approx(1.0, abs=1e-12)
    assert worst.normalized_average_precision(method) == pytest.approx(0.0, abs=1e-12)
    assert perfect.normalized_average_precision(method) == pytest.approx(1.0, abs=1e-12)


def test_aucnpr_function_matches_curve_method() -> None:
    rng = np.random.default_rng(4)
    y = rng.random(300) < 0.3
    s = rng.normal(size=300) + y
    curve = prcurve.pr_curve(y, s)
    for recall_range in RANGES:
        area = curve.aucpr("davis_goadrich", recall_range)
        assert curve.aucnpr("davis_goadrich", recall_range) == pytest.approx(
            aucnpr(area, curve.prevalence, recall_range), rel=1e-13)
    for method in prcurve.AP_METHODS:
        ap = curve.average_precision(method)
        assert curve.normalized_average_precision(method) == pytest.approx(
            normalized_average_precision(ap, curve.n_pos, curve.n_neg, method), rel=1e-13)


def test_aucnpr_degenerate_curves() -> None:
    only_neg = prcurve.pr_curve([0, 0, 0], [0.3, 0.2, 0.1])
    only_pos = prcurve.pr_curve([1, 1], [0.3, 0.2])
    assert only_neg.aucnpr(degenerate="paper") == 0.0
    assert only_pos.aucnpr(degenerate="paper") == 1.0
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(only_neg.aucnpr(degenerate="undefined"))
    with pytest.warns(UndefinedMetricWarning):  # the default since issue 10: 0/0
        assert math.isnan(only_pos.aucnpr())
    strict = prcurve.pr_curve([1, 1], [0.3, 0.2], zero_division="raise")
    with pytest.raises(UndefinedMetricError):
        strict.aucnpr(degenerate="undefined")


# -- restricted areas -----------------------------------------------------------------------------


def _oracle_restricted(curve: prcurve.PRCurve, method: str, a: float, b: float) -> float:
    """Integrate the method's curve over [a, b] piece by piece (quad for Davis–Goadrich)."""
    P = curve.n_pos
    points = [(0.0, 0.0), *zip(curve.tp.tolist(), curve.fp.tolist(), strict=True)]
    steps = [(points[k - 1], points[k]) for k in range(1, len(points))
             if points[k][0] > points[k - 1][0]]
    # The point just above a step is the previous operating point (negatives included).
    above_of = {}
    for k in range(1, len(points)):
        if points[k][0] > points[k - 1][0]:
            above_of[points[k]] = points[k - 1]
    total = 0.0
    precisions = [tp / (tp + fp) for (_, (tp, fp)) in steps]
    for index, (_, (tp, fp)) in enumerate(steps):
        ta, fa = above_of[(tp, fp)]
        r0, r1 = ta / P, tp / P
        lo, hi = max(r0, a), min(r1, b)
        if hi <= lo:
            continue
        p = tp / (tp + fp)
        if method == "step":
            total += (hi - lo) * p
        elif method == "interpolated":
            total += (hi - lo) * max(precisions[index:])
        elif method == "trapezoid":
            pa = ta / (ta + fa) if ta + fa > 0 else p
            f = lambda r, pa=pa, p=p, r0=r0, r1=r1: pa + (p - pa) * (r - r0) / (r1 - r0)  # noqa: E731
            total += (hi - lo) * (f(lo) + f(hi)) / 2
        else:
            d, e = tp - ta, fp - fa

            def dg(r: float, ta: float = ta, fa: float = fa, d: float = d, e: float = e) -> float:
                x = r * P - ta
                return (ta + x) / (ta + x + fa + e / d * x)

            value, _ = integrate.quad(dg, lo, hi, epsabs=1e-14, epsrel=1e-12)
            total += value
    return total


@SLOW
@given(data=scored(labels="any", weights="any"),
       bounds=st.tuples(st.floats(0, 1), st.floats(0, 1)).filter(lambda t: abs(t[0] - t[1]) > 1e-6))
def test_restricted_area_against_oracle(data, bounds) -> None:  # type: ignore[no-untyped-def]
    a, b = sorted(bounds)
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    if curve.n_pos == 0:
        return
    for method in AREA_METHODS:
        assert curve.aucpr(method, (a, b)) == pytest.approx(
            _oracle_restricted(curve, method, a, b), rel=1e-9, abs=1e-12)


@FAST
@given(data=scored(labels="any", weights="any"), cut=st.floats(0.01, 0.99))
def test_restricted_areas_add_up(data, cut: float) -> None:  # type: ignore[no-untyped-def]
    curve = prcurve.pr_curve(data.y_true, data.y_score, sample_weight=data.sample_weight,
                             zero_division=0)
    if curve.n_pos == 0:
        return
    from prcurve.core.average_precision import ap_over_recall_range, segment_areas
    from prcurve.core.counts import RecallSteps

    steps = RecallSteps.from_counts(curve.counts)
    for method in AREA_METHODS:
        whole = curve.aucpr(method)
        parts = curve.aucpr(method, (0.0, cut)) + curve.aucpr(method, (cut, 1.0))
        assert parts == pytest.approx(whole, rel=1e-11, abs=1e-14)
        if steps.tp.shape[0]:
            # The general integration over [0, 1] is the method's own AP.
            direct = segment_areas(steps.tp_above, steps.fp_above, steps.tp, steps.fp,
                                   steps.n_pos, method, 0.0, 1.0).sum()
            assert direct == pytest.approx(ap_over_recall_range(steps, method, (0.0, 1.0)),
                                           rel=1e-11, abs=1e-14)


# -- modified F-beta ------------------------------------------------------------------------------


def test_modified_f1_paper_formula() -> None:
    rng = np.random.default_rng(0)
    r, p, pi = rng.random(500), rng.random(500), rng.random(500) * 0.9
    got = modified_f1(r, p, pi, zero_division=0)
    expected = np.where(p < pi, 0.0, 2 * (p - pi) * r / (p - pi + (1 - pi) * r))
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


def test_modified_f_beta_is_f_beta_of_recall_and_normalized_precision() -> None:
    r, p, pi = 0.6, 0.7, 0.25
    q = (p - pi) / (1 - pi)
    for beta in (0.5, 1.0, 2.0):
        expected = (1 + beta**2) * q * r / (beta**2 * q + r)
        assert modified_f_beta(r, p, pi, beta) == pytest.approx(expected, rel=1e-14)
    assert modified_f_beta(0.9, 0.2, 0.25) == 0.0  # worse than random guessing


def test_modified_f_beta_undefined_cases_follow_policy() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(modified_f1(0.0, 0.2, 0.2))  # p' = r = 0
    assert modified_f1(0.5, 1.0, 1.0, zero_division=0) == 0.0
    with pytest.raises(UndefinedMetricError):
        modified_f1(0.5, 1.0, 1.0, zero_division="raise")


def test_curve_modified_f_beta_matches_function() -> None:
    curve = prcurve.pr_curve([1, 0, 1, 1, 0, 0, 1], [7, 6, 5, 4, 3, 2, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = modified_f_beta(curve.recall, curve.precision, curve.prevalence, 2.0)
    np.testing.assert_array_equal(curve.modified_f_beta(2.0), expected)


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: min_precision(1.5, 0.1), "recall"),
        (lambda: min_precision(0.5, -0.1), "prevalence"),
        (lambda: min_precision(0.5, float("nan")), "prevalence"),
        (lambda: is_achievable(0.5, 2.0, 0.1), "precision"),
        (lambda: min_aucpr(0.1, (0.5, 0.5)), "recall_range"),
        (lambda: min_aucpr(0.1, (0.9, 0.1)), "recall_range"),
        (lambda: min_aucpr(0.1, 0.5), "recall_range"),  # type: ignore[arg-type]
        (lambda: min_average_precision(2.5, 3), "n_pos"),
        (lambda: min_average_precision(2, -1), "n_neg"),
        (lambda: min_average_precision(2, 3, "nope"), "method"),  # type: ignore[arg-type]
        (lambda: min_average_precision(2, 3, "11point", recall_range=(0.5, 1)), "recall_range"),
        (lambda: min_pr_curve(), "prevalence"),
        (lambda: min_pr_curve(0.1, n_pos=1, n_neg=2), "prevalence"),
        (lambda: min_pr_curve(n_pos=0, n_neg=2), "n_pos"),
        (lambda: min_pr_curve(0.1, recall=[0.5, 0.2]), "recall"),
        (lambda: aucnpr(0.5, 0.1, degenerate="zero"), "degenerate"),  # type: ignore[arg-type]
        (lambda: modified_f_beta(0.5, 0.5, 0.1, beta=0), "beta"),
        (lambda: prcurve.pr_curve([1, 0], [2, 1]).aucpr("101point", (0.2, 1.0)), "recall_range"),
        (lambda: prcurve.pr_curve([1, 0], [2, 1], sample_weight=[0.5, 1]).aucnpr("step"), "n_pos"),
    ],
)
def test_bad_input_names_the_argument(call, argument: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError) as info:
        call()
    assert info.value.argument == argument


def test_min_average_precision_without_positives_follows_policy() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(min_average_precision(0, 5))
    assert min_average_precision(0, 5, zero_division=0) == 0.0
    assert min_average_precision(3, 0) == 1.0
    assert min_average_precision(3, 0, "davis_goadrich", recall_range=(0.2, 0.7)) == (
        pytest.approx(0.5))

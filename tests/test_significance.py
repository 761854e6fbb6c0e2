"""Paired significance tests (prcurve.space.significance) and their distributions, checked
against scipy.stats, statsmodels' multipletests, brute enumeration in exact rational
arithmetic, and Monte Carlo's own sampling error."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests
from tests.strategies import FAST, SLOW

from prcurve.errors import InvalidInputError
from prcurve.space.distributions import (
    binomial_two_sided,
    regularized_beta,
    t_quantile,
    t_two_sided,
    wilcoxon_counts,
)
from prcurve.space.intervals import paired_p_value
from prcurve.space.significance import adjust_p_values, paired_test, paired_tests, tukey_hsd

TOL = 1e-9


def close(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= TOL * max(abs(want), 1e-3)


# -- the distributions ------------------------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 3, 7, 29, 30, 99, 500, 4999])
def test_t_two_sided_equals_scipy(df: int) -> None:
    for t in [0.0, 1e-6, 0.01, 0.3, 1.0, 1.96, 2.5, 4.0, 10.0, 50.0, -3.0]:
        want = float(2 * stats.t.sf(abs(t), df))
        assert close(t_two_sided(t, df), want), (t, df)
    for p in [0.6, 0.9, 0.95, 0.975, 0.995, 0.9995]:
        assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10)


def test_regularized_beta_equals_scipy() -> None:
    from scipy.special import betainc

    rng = np.random.default_rng(0)
    for _ in range(300):
        a, b, x = float(rng.uniform(0.1, 300)), float(rng.uniform(0.1, 300)), float(rng.random())
        assert regularized_beta(x, a, b) == pytest.approx(betainc(a, b, x), rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 31, 60, 1000])
def test_binomial_two_sided_equals_binomtest(n: int) -> None:
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1))):
        assert close(binomial_two_sided(k, n), stats.binomtest(k, n, 0.5).pvalue)


@pytest.mark.parametrize("n", range(1, 11))
def test_wilcoxon_counts_equal_enumeration(n: int) -> None:
    sums = [sum(r for r, on in zip(range(1, n + 1), bits, strict=True) if on)
            for bits in itertools.product([0, 1], repeat=n)]
    assert wilcoxon_counts(n).tolist() == np.bincount(sums).tolist()


# -- each test against scipy -----------------------------------------------------------------


def samples(seed: int, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a, b = rng.random(n), rng.random(n)
    if kind == "ties":  # grades of a measure such as P@10: many equal differences
        a, b = np.round(a * 10) / 10, np.round(b * 10) / 10
    elif kind == "zeros":
        b[: n // 3] = a[: n // 3]
    return a, b


KINDS = ["continuous", "ties", "zeros"]
SIZES = [2, 3, 6, 13, 14, 25, 50, 51, 300]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", SIZES)
def test_t_wilcoxon_sign_equal_scipy(n: int, kind: str) -> None:
    for seed in range(1 if n == 13 else 3):  # scipy's 2^13 sign patterns take seconds
        a, b = samples(seed, n, kind)
        d = a - b
        with np.errstate(all="ignore"):
            t = stats.ttest_rel(a, b)
        assert close(paired_test(a, b, "t").p_value, float(t.pvalue))
        nonzero = int((d != 0).sum())
        if nonzero:
            want = stats.binomtest(int((d > 0).sum()), nonzero).pvalue
            assert close(paired_test(a, b, "sign").p_value, want)
            assert close(paired_test(a, b, "wilcoxon").p_value, float(stats.wilcoxon(a, b).pvalue))
        # the t interval: mean ± t quantile × standard error
        interval = stats.ttest_rel(a, b).confidence_interval(0.95) if n > 2 and d.std() else None
        if interval is not None:
            got = paired_test(a, b, "t", level=0.95)
            assert got.ci_low == pytest.approx(interval.low, rel=1e-9, abs=1e-12)
            assert got.ci_high == pytest.approx(interval.high, rel=1e-9, abs=1e-12)


def test_undefined_tests_give_nan_as_scipy_does() -> None:
    a = np.array([0.25, 0.5, 0.75])
    assert math.isnan(paired_test(a, a, "t").p_value)
    assert math.isnan(paired_test(a, a, "sign").p_value)
    assert math.isnan(paired_test(a, a, "wilcoxon").p_value)
    assert paired_test(a, a, "randomization").p_value == 1.0
    assert paired_test(a + 0.5, a, "t").p_value == 0.0  # one nonzero constant difference
    with warnings.catch_warnings():  # scipy warns that the differences are all equal
        warnings.simplefilter("ignore")
        assert stats.ttest_rel(a + 0.5, a).pvalue == 0.0


# -- randomization: exact = brute enumeration; Monte Carlo within its sampling error ----------


def brute_randomization(d: np.ndarray) -> float:
    """Every sign pattern, in exact arithmetic (the floats as integers over one power of 2).

    The documented rule: a pattern is as extreme as the data when
    |T*| >= |T| − 64 ε Σ|d_i| (rounding of differences that should tie).
    """
    fractions = [Fraction(float(x)) for x in d]
    scale = max(f.denominator for f in fractions)
    exact = [int(f * scale) for f in fractions]
    slack = Fraction(64 * float(np.finfo(np.float64).eps)) * sum(abs(f) for f in fractions)
    cut = abs(sum(exact)) - slack * scale
    extreme = sum(abs(sum(s * x for s, x in zip(signs, exact, strict=True))) >= cut
                  for signs in itertools.product([1, -1], repeat=len(exact)))
    return extreme / 2 ** len(exact)


@SLOW
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 1 / 3, 0.7, 1.0]), min_size=4,
                max_size=10),
       st.lists(st.sampled_from([0.0, 0.2, 0.25, 0.5, 0.6, 2 / 3, 1.0]), min_size=10,
                max_size=10))
def test_exact_randomization_equals_enumeration(a: list[float], b: list[float]) -> None:
    x, y = np.array(a), np.array(b[: len(a)])
    result = paired_test(x, y, "randomization", permutations=2 ** len(a), seed=0)
    assert result.method.startswith("exact")
    assert result.p_value == brute_randomization(x - y)


def test_exact_randomization_on_16_units_equals_enumeration() -> None:
    a, b = samples(5, 16, "ties")
    got = paired_test(a, b, "randomization", permutations=2**16).p_value
    assert got == brute_randomization(a - b)


@pytest.mark.parametrize("seed", range(4))
def test_monte_carlo_randomization_within_sampling_error(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    a = rng.random(18)
    b = a - 0.08 + 0.25 * rng.standard_normal(18)  # a p-value away from 0 and 1
    exact = paired_test(a, b, "randomization", permutations=2**18).p_value
    count = 4000
    sampled = paired_test(a, b, "randomization", permutations=count, seed=seed)
    assert sampled.method == f"Monte Carlo ({count} sign patterns)"
    sigma = math.sqrt(exact * (1 - exact) / count)
    assert abs(sampled.p_value - exact) <= 4.5 * sigma + 2 / count


# -- bootstrap: the percentile rule of compare_average_precision, on the same draws -----------


def test_bootstrap_equals_a_readable_resampling() -> None:
    a, b = samples(3, 40, "continuous")
    d = a - b
    got = paired_tests(d[:, None], "bootstrap", permutations=500, seed=7)
    rng = np.random.default_rng(7)
    draws = rng.integers(0, 40, size=(500, 40))
    means = np.array([d[row].mean() for row in draws])
    want_p = min(1.0, 2 * min(1 + (means <= 0).sum(), 1 + (means >= 0).sum()) / 501)
    assert got["p_value"][0] == pytest.approx(want_p, abs=1e-12)
    low, high = np.quantile(means, [0.025, 0.975])
    assert got["ci_low"][0] == pytest.approx(low, abs=1e-12)
    assert got["ci_high"][0] == pytest.approx(high, abs=1e-12)
    assert paired_p_value(means[:, None])[0] == pytest.approx(want_p)


# -- corrections against statsmodels --------------------------------------------------------


@SLOW
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_corrections_equal_statsmodels(p: list[float]) -> None:
    values = np.array(p)
    for ours, theirs in [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")]:
        want = multipletests(values, method=theirs)[1]
        np.testing.assert_allclose(adjust_p_values(values, ours), want, rtol=TOL, atol=1e-15)
    assert adjust_p_values(values, "none").tolist() == values.tolist()


def test_corrections_leave_nan_out_of_the_family() -> None:
    p = np.array([0.01, np.nan, 0.04, 0.03])
    got = adjust_p_values(p, "holm")
    assert math.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], multipletests(p[[0, 2, 3]], method="holm")[1])


# -- properties -------------------------------------------------------------------------------


@FAST
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.5, 1.0]),
                          st.sampled_from([0.0, 0.2, 0.5, 0.9])), min_size=2, max_size=40),
       st.sampled_from(["t", "wilcoxon", "sign", "randomization"]))
def test_swapping_the_systems_negates_the_difference_and_keeps_p(
        pairs: list[tuple[float, float]], test: str) -> None:
    a, b = np.array(pairs).T
    forward = paired_test(a, b, test, permutations=5000, seed=1)  # type: ignore[arg-type]
    backward = paired_test(b, a, test, permutations=5000, seed=1)  # type: ignore[arg-type]
    assert backward.difference == pytest.approx(-forward.difference, abs=1e-15)
    if math.isnan(forward.p_value):
        assert math.isnan(backward.p_value)
    else:
        assert backward.p_value == pytest.approx(forward.p_value, abs=1e-12)
        assert 0.0 <= forward.p_value <= 1.0


@FAST
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_adjusted_p_values_are_ordered(p: list[float]) -> None:
    values = np.array(p)
    holm, bonferroni, bh = (adjust_p_values(values, c) for c in ("holm", "bonferroni", "bh"))
    assert (holm >= values - 1e-15).all()
    assert (bh >= values - 1e-15).all()
    assert (holm <= bonferroni + 1e-15).all()
    assert (bh <= holm + 1e-15).all()
    order = np.argsort(values, kind="stable")  # the adjustment keeps the order of the p-values
    assert (np.diff(holm[order]) >= -1e-15).all()
    assert (np.diff(bh[order]) >= -1e-15).all()


# -- randomized Tukey HSD --------------------------------------------------------------------


def exact_tukey(x: np.ndarray) -> np.ndarray:
    """Every joint permutation of the systems' values within each query (k!^n of them)."""
    n, k = x.shape
    means = x.mean(axis=0)
    gaps = np.abs(means[:, None] - means[None, :])
    ranges = []
    for perms in itertools.product(itertools.permutations(range(k)), repeat=n):
        trial = np.array([x[q, list(p)] for q, p in enumerate(perms)]).mean(axis=0)
        ranges.append(trial.max() - trial.min())
    r = np.array(ranges)
    return np.array([[(r >= gaps[i, j] - 1e-12).mean() for j in range(k)] for i in range(k)])


def test_tukey_hsd_within_sampling_error_of_enumeration() -> None:
    x = np.array([[0.1, 0.5, 0.9], [0.2, 0.3, 0.8], [0.0, 0.6, 0.7], [0.3, 0.2, 1.0]])
    exact = exact_tukey(x)
    count = 4000
    got = tukey_hsd(x, permutations=count, seed=3)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        p = exact[i, j]
        sigma = math.sqrt(p * (1 - p) / count)
        assert abs(got[i, j] - p) <= 4.5 * sigma + 2 / count, (i, j, got[i, j], p)
        assert got[i, j] == got[j, i]


def test_tukey_hsd_is_no_smaller_than_the_pair_alone() -> None:
    # the range of k means is at least the gap of any two: HSD p >= the pair's own test
    rng = np.random.default_rng(4)
    x = rng.random((30, 4)) + np.array([0.0, 0.05, 0.1, 0.3])
    hsd = tukey_hsd(x, permutations=3000, seed=0)
    for i, j in [(0, 1), (0, 3), (2, 3)]:
        alone = paired_test(x[:, i], x[:, j], "randomization", permutations=3000, seed=0)
        assert hsd[i, j] >= alone.p_value - 0.03


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "argument"), [
    (lambda: paired_test([1.0], [2.0]), "qrels"),
    (lambda: paired_test([1.0, 2.0], [2.0, 3.0, 4.0]), "b"),
    (lambda: paired_test([1.0, 2.0], [2.0, 3.0], "z"), "test"),  # type: ignore[arg-type]
    (lambda: paired_test([1.0, 2.0], [2.0, 3.0], permutations=0), "permutations"),
    (lambda: paired_test([1.0, np.nan], [2.0, 3.0]), "a"),
    (lambda: adjust_p_values([0.1], "sidak"), "correction"),  # type: ignore[arg-type]
])
def test_bad_input_names_the_argument(call: object, argument: str) -> None:
    with pytest.raises(InvalidInputError) as error:
        call()  # type: ignore[operator]
    assert error.value.argument == argument
    assert "\n" not in str(error.value)

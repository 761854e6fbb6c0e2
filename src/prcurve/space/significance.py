"""Paired significance tests on per-query (or per-fold) values, their corrections, Tukey's HSD.

Every test compares two systems measured on the same ``n`` units (queries):
``d_i = a_i − b_i``. The columns of a matrix ``D`` (``n × P``) are ``P``
comparisons at once; the resampling tests draw their sign patterns or
resamples once and apply them to every column as one matrix product.

``"t"`` (paired t)
    ``t = mean(d) / (sd(d) / √n)``, ``sd`` with ``n − 1``; two-sided p-value of
    Student's t with ``n − 1`` degrees of freedom (scipy's ``ttest_rel``). NaN
    when every ``d_i`` is equal to 0 (0/0), 0 when the ``d_i`` are one nonzero
    constant. Interval: ``mean ± t_{(1+level)/2, n−1} sd/√n``.
``"wilcoxon"`` (signed rank, scipy's ``wilcoxon`` defaults)
    zero differences dropped (``zero_method="wilcox"``), average ranks of
    ``|d|`` for ties, ``r+`` the sum of the positive ranks; no continuity
    correction. ``method="auto"``: ``n <= 50`` (zeros counted) without ties or
    zeros: the exact null distribution, ``2 min(P(R+ >= r+), P(R+ <= r+))``;
    ``n <= 13`` with ties or zeros: all ``2^n`` sign patterns of ``r+``;
    otherwise the normal approximation with the tie-corrected variance
    ``(m(m+1)(2m+1) − Σ(t³ − t)/2) / 24`` (``m`` nonzero differences). NaN when
    every difference is 0.
``"sign"``
    ties (``d_i = 0``) dropped; ``k`` positives of ``m``; the two-sided exact
    binomial p-value with ``p = 1/2`` (scipy's ``binomtest``). NaN when ``m = 0``.
``"randomization"`` (Fisher's, on the mean difference)
    under "no difference" every sign pattern of the ``d_i`` is equally likely.
    Exact when ``2^n <= permutations``: every pattern, ``p = #{|T*| >= |T|} / 2^n``;
    otherwise ``permutations`` random patterns and ``p = (1 + #{|T*| >= |T|}) /
    (permutations + 1)`` (Phipson and Smyth 2010, "Permutation P-values Should
    Never Be Zero"). ``T`` is the sum of the ``d_i``; ``|T*| >= |T|`` allows
    ``64 ε Σ|d_i|`` of rounding so that patterns that tie ``T`` exactly count.
``"bootstrap"`` (paired)
    queries drawn with replacement, the same draw for both systems; the p-value
    inverts the percentile interval, as :func:`prcurve.space.intervals.
    compare_average_precision` does (:func:`prcurve.space.intervals.paired_p_value`).
The interval of every test but ``"t"`` is the paired percentile bootstrap
interval of the mean difference (``permutations`` resamples).

Corrections over the ``m`` comparisons of one family (NaN p-values left out):
``"bonferroni"`` ``min(1, m p)``; ``"holm"`` the step-down ``max_{j<=i} min(1,
(m − j + 1) p_(j))``; ``"bh"`` (Benjamini and Hochberg 1995) the step-up
``min_{j>=i} min(1, m p_(j) / j)``; ``"none"``. They equal statsmodels'
``multipletests`` (``bonferroni``, ``holm``, ``fdr_bh``).

Randomized Tukey HSD (Carterette 2012, "Multiple testing in statistical analysis
of systems-based information retrieval experiments", ACM TOIS 30(1))
    every trial permutes, within each query, the values of the ``k`` systems,
    and records the range ``max − min`` of the systems' means. The adjusted
    p-value of a pair is ``(1 + #{range* >= |mean_i − mean_j|}) / (B + 1)``: one
    family of all pairs, no further correction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.space.distributions import (
    binomial_two_sided,
    normal_two_sided,
    t_quantile,
    t_two_sided,
    wilcoxon_counts,
)
from prcurve.space.intervals import paired_p_value
from prcurve.validation.significance import (
    check_correction,
    check_paired_values,
    check_permutations,
    check_test,
)
from prcurve.validation.space import check_level, check_seed

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "Correction",
    "PairedTest",
    "TestName",
    "adjust_p_values",
    "paired_test",
    "paired_tests",
    "tukey_hsd",
]

F64 = NDArray[np.float64]
TestName = Literal["t", "wilcoxon", "sign", "randomization", "bootstrap"]
Correction = Literal["none", "bonferroni", "holm", "bh"]
TESTS: tuple[TestName, ...] = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS: tuple[Correction, ...] = ("none", "bonferroni", "holm", "bh")

# About this many float64 cells per block of sign patterns or resamples.
_BLOCK_CELLS = 1 << 22
# scipy's wilcoxon: exact distribution up to 50 differences, all sign patterns up to 13.
_WILCOXON_EXACT, _WILCOXON_PATTERNS = 50, 13
_ROUNDING = 64 * np.finfo(np.float64).eps


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison: the mean difference ``a − b``, its interval, the p-value."""

    test: str
    n: int
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    level: float
    method: str

    def __str__(self) -> str:
        return (f"{self.test}: mean difference {self.difference:.4f}, {self.level:.0%} interval "
                f"[{self.ci_low:.4f}, {self.ci_high:.4f}], p = {self.p_value:.4g} "
                f"({self.method}; {self.n} pairs)")


def paired_test(
    a: ArrayLike,
    b: ArrayLike,
    test: TestName = "t",
    *,
    permutations: int = 10000,
    level: float = 0.95,
    seed: Any = None,
) -> PairedTest:
    """A paired test of ``a`` against ``b`` (values of two systems on the same units).

    Examples
    --------
    >>> from prcurve.space.significance import paired_test
    >>> a = [0.52, 0.31, 0.80, 0.45, 0.66, 0.29, 0.71, 0.58]
    >>> b = [0.41, 0.30, 0.62, 0.47, 0.50, 0.22, 0.60, 0.49]
    >>> round(paired_test(a, b, "t").p_value, 6)  # scipy.stats.ttest_rel(a, b)
    0.007928
    >>> paired_test(a, b, "randomization").method  # 2^8 patterns <= 10000
    'exact (256 sign patterns)'
    >>> paired_test(a, b, "randomization").p_value  # 6 of the 256 patterns
    0.0234375
    """
    name = check_test(test)
    x = check_paired_values("a", a)
    y = check_paired_values("b", b, len(x))
    result = paired_tests((x - y)[:, None], name, permutations=permutations, level=level,
                          seed=seed)
    return PairedTest(name, len(x), float(result["difference"][0]), float(result["ci_low"][0]),
                      float(result["ci_high"][0]), float(result["p_value"][0]),
                      check_level(level), str(result["method"][0]))


def paired_tests(
    differences: F64,
    test: TestName,
    *,
    permutations: int = 10000,
    level: float = 0.95,
    seed: Any = None,
) -> dict[str, NDArray[Any]]:
    """Every column of ``differences`` (``n × P``, checked finite) tested at once.

    Returns ``difference`` (the column means), ``ci_low``, ``ci_high``,
    ``p_value`` and ``method`` (text), one entry per column.
    """
    name = check_test(test)
    lvl = check_level(level)
    count = check_permutations(permutations)
    rng = np.random.default_rng(check_seed(seed))
    d = np.asarray(differences, dtype=np.float64)
    n, columns = d.shape
    mean = d.mean(axis=0)
    if name == "t":
        p, low, high = _t_test(d, lvl)
        method = np.full(columns, f"paired t, {n - 1} degrees of freedom", dtype=object)
    else:
        low, high, boot_p = _bootstrap(d, count, lvl, rng)
        if name == "bootstrap":
            p = boot_p
            method = np.full(columns, f"paired bootstrap, {count} resamples", dtype=object)
        elif name == "randomization":
            p, text = _randomization(d, count, rng)
            method = np.full(columns, text, dtype=object)
        elif name == "sign":
            p = np.array([_sign(d[:, j]) for j in range(columns)])
            method = np.full(columns, "sign test (exact binomial, ties dropped)", dtype=object)
        else:
            pairs = [_wilcoxon(d[:, j]) for j in range(columns)]
            p = np.array([value for value, _ in pairs])
            method = np.array([text for _, text in pairs], dtype=object)
    return {"difference": mean, "ci_low": low, "ci_high": high, "p_value": p,
            "method": method}


def _t_test(d: F64, level: float) -> tuple[F64, F64, F64]:
    n = d.shape[0]
    mean = d.mean(axis=0)
    se = d.std(axis=0, ddof=1) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    p = np.array([t_two_sided(float(value), n - 1) for value in t])
    half = t_quantile((1.0 + level) / 2.0, n - 1) * se
    return p, mean - half, mean + half


def _blocks(total: int, width: int) -> list[tuple[int, int]]:
    size = max(1, _BLOCK_CELLS // max(width, 1))
    return [(start, min(total, start + size)) for start in range(0, total, size)]


def _bootstrap(d: F64, count: int, level: float, rng: np.random.Generator
               ) -> tuple[F64, F64, F64]:
    """Percentile interval and p-value of the mean difference, queries resampled."""
    n = d.shape[0]
    deltas = []
    for start, stop in _blocks(count, n):
        rows = stop - start
        draws = rng.integers(0, n, size=(rows, n))
        # how often each query is drawn, per resample: the weights of one matrix product
        weights = np.bincount((draws + (np.arange(rows) * n)[:, None]).ravel(),
                              minlength=rows * n).reshape(rows, n)
        deltas.append(weights @ d / n)
    delta = np.concatenate(deltas)
    alpha = 1.0 - level
    low, high = np.quantile(delta, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high, paired_p_value(delta)


def _sign_patterns(rows: NDArray[np.int64], n: int) -> F64:
    """Rows of ±1: bit ``i`` of each number in ``rows`` is the sign of unit ``i``."""
    bits = (rows[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return (1 - 2 * bits).astype(np.float64)


def _randomization(d: F64, count: int, rng: np.random.Generator) -> tuple[F64, str]:
    n = d.shape[0]
    observed = np.abs(d.sum(axis=0))
    cut = observed - _ROUNDING * np.abs(d).sum(axis=0)
    extreme = np.zeros(d.shape[1], dtype=np.int64)
    exact = n < 62 and 2**n <= count
    total = 2**n if exact else count
    for start, stop in _blocks(total, n):
        if exact:
            signs = _sign_patterns(np.arange(start, stop, dtype=np.int64), n)
        else:
            signs = 1.0 - 2.0 * rng.integers(0, 2, size=(stop - start, n)).astype(np.float64)
        extreme += (np.abs(signs @ d) >= cut).sum(axis=0)
    if exact:
        exact_p: F64 = (extreme / float(total)).astype(np.float64)
        return exact_p, f"exact ({total} sign patterns)"
    sampled: F64 = ((1.0 + extreme) / (count + 1.0)).astype(np.float64)
    return sampled, f"Monte Carlo ({count} sign patterns)"


def _sign(d: F64) -> float:
    positive, negative = int((d > 0).sum()), int((d < 0).sum())
    if positive + negative == 0:
        return math.nan
    return binomial_two_sided(positive, positive + negative)


def _average_ranks(values: F64) -> tuple[F64, NDArray[np.int64]]:
    """Average ranks (1-based) of ``values`` and the sizes of their tie groups."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, len(values)])
    average = starts + (sizes + 1) / 2.0  # mean of ranks start+1 … start+size
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(average, sizes)
    return ranks, sizes


def _wilcoxon(d: F64) -> tuple[float, str]:
    n_all = d.shape[0]
    nonzero = d[d != 0]
    m = nonzero.shape[0]
    if m == 0:
        return math.nan, "Wilcoxon signed rank (every difference 0)"
    ranks, sizes = _average_ranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    ties = bool((sizes > 1).any())
    if n_all <= _WILCOXON_EXACT and not ties and m == n_all:
        counts = wilcoxon_counts(m)
        total = float(2**m)
        k = round(r_plus)
        upper = counts[k:].sum() / total
        lower = counts[:k + 1].sum() / total
        return min(1.0, 2.0 * min(upper, lower)), "Wilcoxon signed rank (exact)"
    if n_all <= _WILCOXON_PATTERNS:
        # every sign pattern of the nonzero differences (the zeros' signs change nothing)
        signs = _sign_patterns(np.arange(2**m, dtype=np.int64), m)
        null = (signs > 0) @ ranks
        # scipy's permutation_test counts ties within 100 ε of the observed statistic
        gamma = 100 * float(np.finfo(np.float64).eps) * abs(r_plus)
        less = float((null <= r_plus + gamma).mean())
        greater = float((null >= r_plus - gamma).mean())
        return min(1.0, 2.0 * min(less, greater)), "Wilcoxon signed rank (all sign patterns)"
    mean = m * (m + 1) / 4.0
    tie_term = float((sizes.astype(np.float64) ** 3 - sizes).sum())
    se = math.sqrt((m * (m + 1) * (2 * m + 1) - tie_term / 2.0) / 24.0)
    return normal_two_sided((r_plus - mean) / se), "Wilcoxon signed rank (normal approximation)"


def adjust_p_values(p_values: ArrayLike, correction: Correction = "holm") -> F64:
    """p-values adjusted for multiple comparisons (one family; NaN left out and kept).

    Examples
    --------
    >>> from prcurve.space.significance import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bh").tolist()
    [0.03, 0.04, 0.04]
    """
    name = check_correction(correction)
    p = np.array(p_values, dtype=np.float64, ndmin=1)
    out: F64 = p.copy()
    known = np.flatnonzero(~np.isnan(p))
    m = known.shape[0]
    if name == "none" or m == 0:
        return out
    values = p[known]
    if name == "bonferroni":
        out[known] = np.minimum(1.0, values * m)
        return out
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    if name == "holm":
        adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * ordered))
    else:
        ranked = ordered * m / np.arange(1, m + 1)
        adjusted = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    result = np.empty(m)
    result[order] = adjusted
    out[known] = result
    return out


def tukey_hsd(values: ArrayLike, *, permutations: int = 10000, seed: Any = None) -> F64:
    """Randomized Tukey HSD p-values (``k × k``) of ``k`` systems' values (``n × k``).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.space.significance import tukey_hsd
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random((40, 1))
    >>> values = np.hstack([base, base + 0.2, base + 0.01 * rng.random((40, 1))])
    >>> p = tukey_hsd(values, permutations=999, seed=0)
    >>> float(p[0, 1]) < 0.01, float(p[0, 2]) > 0.05
    (True, True)
    """
    count = check_permutations(permutations)
    rng = np.random.default_rng(check_seed(seed))
    x = np.asarray(values, dtype=np.float64)
    n, k = x.shape
    means = x.mean(axis=0)
    gaps = np.abs(means[:, None] - means[None, :])
    cut = gaps - _ROUNDING * np.abs(x).mean(axis=0).sum()
    extreme = np.zeros((k, k), dtype=np.int64)
    for start, stop in _blocks(count, n * k):
        shuffled = rng.permuted(np.broadcast_to(x, (stop - start, n, k)), axis=2)
        trial = shuffled.mean(axis=1)
        ranges = trial.max(axis=1) - trial.min(axis=1)
        extreme += (ranges[:, None, None] >= cut[None, :, :]).sum(axis=0)
    p: F64 = ((1.0 + extreme) / (count + 1.0)).astype(np.float64)
    np.fill_diagonal(p, 1.0)
    return p

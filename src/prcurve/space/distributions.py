"""The null distributions the paired tests need, in numpy and the standard library.

scipy is not a runtime dependency, so the few distribution functions the
significance tests use are written here and tested against scipy.stats
(tests/test_significance.py):

Student's t (two-sided p-value and quantile)
    ``P(|T| >= |t|) = I_x(ν/2, 1/2)`` with ``x = ν / (ν + t²)`` and ``I`` the
    regularized incomplete beta function (Abramowitz and Stegun, "Handbook of
    Mathematical Functions", 26.7.1 and 26.5.1). ``I_x(a, b)`` is the continued
    fraction of A&S 26.5.8, evaluated by the modified Lentz method (Press et al.,
    "Numerical Recipes", §6.4), on the side where it converges quickly
    (``x < (a + 1)/(a + b + 2)``; else ``1 − I_{1−x}(b, a)``). The quantile
    inverts the p-value by bisection to machine precision.
Normal
    ``P(|Z| >= |z|) = erfc(|z|/√2)`` (``math.erfc``).
Binomial(n, 1/2) (the sign test)
    exact: ``P(X <= k) = Σ_{i<=k} C(n, i) / 2^n`` in Python integers, one
    rounding at the end.
Wilcoxon signed-rank statistic (no ties)
    the number of subsets of ``{1, …, n}`` with each sum, by the recursion of
    adding one rank at a time (exact in int64 up to n = 62).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "binomial_two_sided",
    "normal_two_sided",
    "regularized_beta",
    "t_quantile",
    "t_two_sided",
    "wilcoxon_counts",
]

_EPS = 1e-16
_TINY = 1e-300
_MAX_TERMS = 100_000


def _beta_fraction(x: float, a: float, b: float) -> float:
    """A&S 26.5.8's continued fraction by the modified Lentz method (Numerical Recipes 6.4)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_beta(x: float, a: float, b: float, complement: float | None = None) -> float:
    """``I_x(a, b)``, the regularized incomplete beta function, for ``a, b > 0``.

    ``complement`` is ``1 − x`` when the caller knows it more precisely than
    ``1 − x`` rounds (near ``x = 1`` the difference loses digits).

    Examples
    --------
    >>> from prcurve.space.distributions import regularized_beta
    >>> regularized_beta(0.5, 2.0, 2.0)
    0.5
    >>> round(regularized_beta(0.2, 1.0, 3.0), 12)  # 1 − (1 − x)^3
    0.488
    """
    y = 1.0 - x if complement is None else complement
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(y, b, a) / b


def t_two_sided(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom (NaN stays NaN).

    Examples
    --------
    >>> from prcurve.space.distributions import t_two_sided
    >>> round(t_two_sided(2.0, 10), 10)  # scipy: 2 * t.sf(2, 10)
    0.0733880348
    """
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if math.isinf(t):
        return 0.0
    # 1 − x = t² / (ν + t²) exactly as written, not as 1 − x rounds
    return regularized_beta(df / (df + t * t), df / 2.0, 0.5, t * t / (df + t * t))


def t_quantile(probability: float, df: float) -> float:
    """The ``probability`` quantile of Student's t (``0.5 < probability < 1``), by bisection.

    Examples
    --------
    >>> from prcurve.space.distributions import t_quantile
    >>> round(t_quantile(0.975, 10), 8)  # scipy: t.ppf(0.975, 10)
    2.22813885
    """
    tail = 2.0 * (1.0 - probability)  # the two-sided p-value of the quantile
    low, high = 0.0, 1.0
    while t_two_sided(high, df) > tail:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if t_two_sided(middle, df) > tail:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def normal_two_sided(z: float) -> float:
    """``P(|Z| >= |z|)`` for a standard normal ``Z``."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def binomial_two_sided(k: int, n: int) -> float:
    """Two-sided p-value of ``k`` successes in ``n`` fair trials (``n >= 1``).

    The distribution is symmetric, so the outcomes at most as likely as ``k``
    are the two tails beyond ``min(k, n − k)``: ``min(1, 2 P(X <= min(k, n − k)))``,
    which is scipy's ``binomtest(k, n, 0.5).pvalue``.

    Examples
    --------
    >>> from prcurve.space.distributions import binomial_two_sided
    >>> binomial_two_sided(1, 5)  # 2 (1 + 5) / 32
    0.375
    """
    low = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(low + 1))
    return min(1.0, float(2 * tail / 2**n))


def wilcoxon_counts(n: int) -> NDArray[np.int64]:
    """``counts[s]``: how many of the ``2^n`` sign patterns give a positive-rank sum ``s``.

    Examples
    --------
    >>> from prcurve.space.distributions import wilcoxon_counts
    >>> wilcoxon_counts(3).tolist()  # sums of subsets of {1, 2, 3}
    [1, 1, 1, 2, 1, 1, 1]
    """
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for rank in range(1, n + 1):
        # adding rank r: each sum s is reached with r (from s − r) or without it
        counts[rank:top + rank + 1] += counts[:top + 1].copy()
        top += rank
    return counts

"""The unachievable region of PR space (seed 004: Boyd, Costa, Davis and Page).

For a data set whose positive fraction (prevalence, the paper's skew) is π, no
classifier reaches a precision below the **minimum PR curve**

    p_min(r) = r π / (1 − π + r π)                                  (Theorem 1, Eq. 1)

which is the curve of the worst ranking, every negative ranked above every
positive, interpolated as Davis and Goadrich prescribe. Every area under a PR
curve therefore contains the area below it "for free":

    AUCPR_min = 1 + (1 − π) ln(1 − π) / π                           (Theorem 2, Eq. 2)

    over recall [a, b]: b − a + (1 − π)/π · ln((π(a − 1) + 1) / (π(b − 1) + 1))
                                                                      (Corollary 4)

and the normalized area AUCNPR = (AUCPR − AUCPR_min) / (AUCPR_max − AUCPR_min)
with AUCPR_max = b − a (Eq. 3 of §3).

**Which minimum belongs to which AP method.** Every AP method of
:data:`prcurve.AP_METHODS` has a minimum, reached by the worst ranking (a
ranking: no ties). For ``P`` positives and ``N`` negatives, π = P / (P + N):

=================  =========================================  ==========================
method             minimum over [0, 1]                         depends on
=================  =========================================  ==========================
``step``           (1/P) Σ_{i=1}^{P} i / (i + N)  (Theorem 3)  P and N
``trapezoid``      the step minimum − 1 / (2 (P + N))          P and N
``interpolated``   π                                           π only
``11point``        π                                           π only
``101point``       π                                           π only
``davis_goadrich`` 1 + (1 − π) ln(1 − π) / π  (Theorem 2)      π only
=================  =========================================  ==========================

Derivation (worst ranking: operating points (0, k) for k = 1..N, then (i, N) for
i = 1..P; precision at step i is m(i) = i / (i + N), increasing in i):
``step`` sums m(i)/P; ``trapezoid`` averages m(i − 1) and m(i) with m(0) = 0
(the point above the first step is (0, N), precision 0), so it loses
m(P) / (2P) = 1 / (2(P + N)); the interpolated envelope is max_{j >= i} m(j) =
m(P) = π at every recall; the Davis–Goadrich segments from (i − 1, N) to (i, N)
keep fp = N, so precision is rπ / (1 − π + rπ), Theorem 1's curve, whose area
is Theorem 2's. Each is also the minimum over every ranking: at recall r every
operating point has fp <= N, so the step, interpolated and Davis–Goadrich curves
lie on or above the worst ranking's. If tie groups are allowed (scores, not a
ranking) only ``trapezoid`` goes lower: with all positives tied below all
negatives its single segment runs straight from (0, 0) to (1, π), area π/2
(``allow_ties=True``).

Degenerate data (§2.2 and §3 of the paper): π = 0 gives AUCPR_min = 0 and
AUCNPR = 0; π = 1 gives AUCPR_min = b − a and AUCNPR = 1.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.average_precision import (
    AREA_METHODS,
    APMethod,
    check_method,
    recall_levels,
    segment_areas,
)
from prcurve.core.counts import SUM_TOLERANCE, ThresholdCounts
from prcurve.core.undefined import ZeroDivision, ratio, undefined, undefined_scope
from prcurve.validation.arrays import (
    check_choice,
    check_count,
    check_finite_number,
    check_positive_number,
)
from prcurve.validation.space import (
    check_class_total,
    check_class_totals_sum,
    check_fractions,
    check_min_curve_arguments,
    check_recall_grid,
    check_recall_range,
    method_without_recall_range,
    too_many_points,
)

__all__ = [
    "MinimumPRCurve",
    "aucnpr",
    "is_achievable",
    "min_aucpr",
    "min_average_precision",
    "min_pr_curve",
    "min_precision",
    "modified_f1",
    "modified_f_beta",
    "normalized_average_precision",
    "worst_ranking_counts",
]

F64 = NDArray[np.float64]
Degenerate = Literal["paper", "undefined"]

_DEGENERATE = ("paper", "undefined")


class MinimumPRCurve(NamedTuple):
    """Points of the minimum PR curve: ``precision[i]`` is the lowest achievable
    precision at ``recall[i]``."""

    recall: F64
    precision: F64


def _as_output(array: F64, scalar: bool) -> Any:
    return float(array) if scalar else array


def _min_precision_array(recall: F64, prevalence: F64) -> F64:
    # Theorem 1: p >= r π / (1 − π + r π). At π = 1 the curve is the line p = 1
    # (the paper's limit), including r = 0 where the formula is 0/0.
    numerator = recall * prevalence
    denominator = 1.0 - prevalence + numerator
    out = np.ones(np.broadcast(recall, prevalence).shape)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


@overload
def min_precision(recall: float, prevalence: float) -> float: ...
@overload
def min_precision(recall: ArrayLike, prevalence: ArrayLike) -> Any: ...
def min_precision(recall: ArrayLike, prevalence: ArrayLike) -> Any:
    """The lowest achievable precision at a recall (Theorem 1, Eq. 1 of seed 004).

    ``p_min(r) = r π / (1 − π + r π)`` for prevalence π. Vectorized: arrays
    broadcast; a pair of scalars gives a float. At π = 1 the minimum is 1.

    Parameters
    ----------
    recall : float or array_like
        Recall in [0, 1].
    prevalence : float or array_like
        Positive fraction π = n_pos / (n_pos + n_neg) in [0, 1].

    Returns
    -------
    float or ndarray

    Examples
    --------
    Table 1 of the paper (100 positives, 200 negatives): at recall 0.5 the
    precision cannot fall below 0.2.

    >>> from prcurve.space.bounds import min_precision
    >>> round(min_precision(0.5, 1 / 3), 12)
    0.2
    >>> min_precision([0.0, 1.0], 0.25).tolist()
    [0.0, 0.25]
    """
    r = check_fractions("recall", recall)
    pi = check_fractions("prevalence", prevalence)
    scalar = r.ndim == 0 and pi.ndim == 0
    return _as_output(_min_precision_array(r, pi), scalar)


@overload
def is_achievable(
    recall: float, precision: float, prevalence: float, *, atol: float = ...
) -> bool: ...
@overload
def is_achievable(
    recall: ArrayLike, precision: ArrayLike, prevalence: ArrayLike, *, atol: float = ...
) -> Any: ...
def is_achievable(
    recall: ArrayLike, precision: ArrayLike, prevalence: ArrayLike, *, atol: float = 1e-12
) -> Any:
    """Whether a (recall, precision) point lies in the achievable region (Theorem 1).

    Tested in the division-free form ``p (1 − π) >= r π (1 − p) − atol`` so a
    point exactly on the minimum curve (Table 1's r = 0.5, p = 0.2 at π = 1/3)
    is achievable despite the rounding of π. Vectorized like
    :func:`min_precision`.

    Parameters
    ----------
    recall, precision, prevalence : float or array_like
        Values in [0, 1]; arrays broadcast.
    atol : float, default 1e-12
        Points this close below the minimum curve count as on it, in the units of
        the division-free form: the rounding of a recall, precision or prevalence
        summed in any order (chunks, a merge tree) stays far below it.

    Returns
    -------
    bool or ndarray of bool

    Examples
    --------
    Table 1 of seed 004 (pos = 100, neg = 200): r = 0.5, p = 0.2 is valid (fp =
    200 = neg); r = 0.6, p = 0.2 would need fp = 240 > neg.

    >>> from prcurve.space.bounds import is_achievable
    >>> is_achievable(0.5, 0.2, 100 / 300), is_achievable(0.6, 0.2, 100 / 300)
    (True, False)
    """
    r = check_fractions("recall", recall)
    p = check_fractions("precision", precision)
    pi = check_fractions("prevalence", prevalence)
    tol = check_count("atol", atol)
    ok = p * (1.0 - pi) >= r * pi * (1.0 - p) - tol
    if r.ndim == 0 and p.ndim == 0 and pi.ndim == 0:
        return bool(ok)
    return ok


def _check_n(n_pos: Any, n_neg: Any, *, integer: bool) -> tuple[float, float]:
    p = check_class_total("n_pos", n_pos, integer=integer)
    n = check_class_total("n_neg", n_neg, integer=integer)
    check_class_totals_sum(p, n)
    return p, n


def min_pr_curve(
    prevalence: float | None = None,
    *,
    recall: ArrayLike | None = None,
    n_pos: int | None = None,
    n_neg: int | None = None,
) -> MinimumPRCurve:
    """The minimum PR curve: continuous for a prevalence, or discrete for counts.

    - ``min_pr_curve(prevalence, recall=...)``: Theorem 1's curve
      ``rπ / (1 − π + rπ)`` at the given recalls (default 101 levels 0, 0.01,
      ..., 1).
    - ``min_pr_curve(n_pos=P, n_neg=N)``: the operating points of the worst
      ranking (every negative above every positive) at each recall step,
      ``recall = i / P`` and ``precision = i / (i + N)`` for ``i = 0..P``. The
      first point is (0, 0) (all negatives, no positive, predicted positive),
      or (0, 1) when N = 0. These points lie on the continuous curve for
      π = P / (P + N), which is their Davis–Goadrich interpolation (§2.2).

    Parameters
    ----------
    prevalence : float, optional
        π in [0, 1] for the continuous curve.
    recall : array_like, optional
        Recall levels for the continuous curve.
    n_pos, n_neg : int, optional
        Whole numbers of positives (>= 1) and negatives for the discrete curve.

    Returns
    -------
    MinimumPRCurve
        ``(recall, precision)`` arrays.

    Examples
    --------
    Figure 1 of seed 004: 1 positive for every 2 negatives.

    >>> from prcurve.space.bounds import min_pr_curve
    >>> curve = min_pr_curve(1 / 3, recall=[0.0, 0.5, 1.0])
    >>> curve.precision.round(4).tolist()
    [0.0, 0.2, 0.3333]
    >>> min_pr_curve(n_pos=2, n_neg=4).precision.tolist()
    [0.0, 0.2, 0.3333333333333333]
    """
    check_min_curve_arguments(prevalence, recall, n_pos, n_neg)
    if prevalence is not None:
        pi = float(check_fractions("prevalence", prevalence))
        levels = (recall_levels(100) if recall is None
                  else check_recall_grid("recall", recall))
        return MinimumPRCurve(levels, _min_precision_array(levels, np.float64(pi)))
    p, n = _check_n(n_pos, n_neg, integer=True)
    try:
        i = np.arange(int(p) + 1, dtype=np.float64)
        precision = np.divide(i, i + n, out=np.ones_like(i), where=(i + n) > 0)
        return MinimumPRCurve(i / p, precision)
    except MemoryError:
        raise too_many_points("n_pos", int(p) + 1, "use min_pr_curve(prevalence, recall=...): "
                              "the continuous curve through the same points") from None


def worst_ranking_counts(n_pos: int, n_neg: int) -> ThresholdCounts:
    """The count state of the worst ranking: every negative scored above every positive.

    Thresholds are ``n_pos + n_neg, ..., 2, 1`` (one sample each); the top
    ``n_neg`` are the negatives. Every AP method's minimum is its value on this
    state (module docstring).

    Examples
    --------
    >>> from prcurve.space.bounds import worst_ranking_counts
    >>> c = worst_ranking_counts(2, 3)
    >>> c.tp.tolist(), c.fp.tolist()
    ([0.0, 0.0, 0.0, 1.0, 2.0], [1.0, 2.0, 3.0, 3.0, 3.0])
    """
    p, n = _check_n(n_pos, n_neg, integer=True)
    n_p, n_n = int(p), int(n)
    size = n_p + n_n
    try:
        thresholds = np.arange(size, 0, -1, dtype=np.float64)
        tp = np.concatenate((np.zeros(n_n), np.arange(1, n_p + 1, dtype=np.float64)))
        fp = np.concatenate((np.arange(1, n_n + 1, dtype=np.float64), np.full(n_p, float(n_n))))
        return ThresholdCounts(thresholds, tp, fp, p, n)
    except MemoryError:
        raise too_many_points("n_pos", size, "use min_average_precision(n_pos, n_neg, method) "
                              "for the worst ranking's AP, computed without the state") from None


# -- minimum areas ------------------------------------------------------------------------


def _h(y: F64) -> F64:
    """1 − ln(1 + y) / y, accurate for small y (series) and large y."""
    out = np.empty_like(y)
    small = y < 1e-2
    ys = y[small]
    # 1 − ln(1+y)/y = y/2 − y²/3 + y³/4 − ... ; 9 terms: error < y^9 / 10 (relative ~1e-17).
    series = np.zeros_like(ys)
    for k in range(9, 0, -1):
        series = (-1) ** (k + 1) * ys**k / (k + 1) + series
    out[small] = series
    yl = y[~small]
    out[~small] = 1.0 - np.log1p(yl) / yl
    return out


def _min_aucpr_array(pi: F64, a: float, b: float) -> F64:
    # Corollary 4 in a form without cancellation: with odds x = π / (1 − π),
    #   ∫_a^b r x / (1 + r x) dr = (b − a) − ln((1 + b x)/(1 + a x)) / x
    #                            = (b − a) (a x + h(y)) / (1 + a x),  y = (b − a) x / (1 + a x),
    # where h(y) = 1 − ln(1 + y)/y. π = 0 gives 0 and π = 1 gives b − a (the paper's limits).
    out = np.empty(pi.shape)
    zero = pi == 0.0
    one = pi == 1.0
    out[zero] = 0.0
    out[one] = b - a
    mid = ~(zero | one)
    if mid.any():
        x = pi[mid] / (1.0 - pi[mid])
        y = (b - a) * x / (1.0 + a * x)
        out[mid] = (b - a) * (a * x + _h(y)) / (1.0 + a * x)
    return out


@overload
def min_aucpr(prevalence: float, recall_range: tuple[float, float] = ...) -> float: ...
@overload
def min_aucpr(prevalence: ArrayLike, recall_range: tuple[float, float] = ...) -> Any: ...
def min_aucpr(prevalence: ArrayLike, recall_range: tuple[float, float] = (0.0, 1.0)) -> Any:
    """Area under the minimum PR curve: the AUCPR every classifier gets for free.

    Theorem 2 (Eq. 2) over recall [0, 1], ``1 + (1 − π) ln(1 − π) / π``;
    Corollary 4 over [a, b], ``b − a + (1 − π)/π · ln((π(a − 1) + 1) / (π(b − 1) + 1))``.
    This is the minimum of the ``davis_goadrich`` AP method (the paper's AUCPR);
    see :func:`min_average_precision` for the other methods. Conventions
    (§2.2): 0 at π = 0 and ``b − a`` at π = 1, the limits of the formula.
    Evaluated without cancellation, so tiny π keep full relative accuracy.

    Parameters
    ----------
    prevalence : float or array_like
        π in [0, 1].
    recall_range : (float, float), default (0.0, 1.0)
        ``(a, b)`` with ``0 <= a < b <= 1``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    §4 of seed 004: about 0.05 at π = 0.1; 0.31 for the gender predicate (π = 0.5).

    >>> from prcurve.space.bounds import min_aucpr
    >>> round(min_aucpr(0.1), 4), round(min_aucpr(0.5), 4)
    (0.0518, 0.3069)
    >>> round(min_aucpr(0.5, recall_range=(0.8, 1.0)), 4)
    0.0946
    """
    pi = check_fractions("prevalence", prevalence)
    a, b = check_recall_range(recall_range)
    flat = _min_aucpr_array(np.atleast_1d(pi).astype(np.float64), a, b)
    return float(flat[0]) if pi.ndim == 0 else flat.reshape(pi.shape)


_EXACT_TERMS = 1 << 22  # sums of up to this many terms are added term by term
_EULER_MACLAURIN_START = 1 << 20  # from here on, i/(i + N) is summed in closed form


def _exact_ranking_sum(first: int, last: int, n_neg: float) -> float:
    total: list[float] = []
    chunk = 1 << 20
    for start in range(first, last + 1, chunk):
        i = np.arange(start, min(start + chunk, last + 1), dtype=np.float64)
        total.append(float(np.sum(i / (i + n_neg))))
    return math.fsum(total)


def _euler_maclaurin_sum(a: float, b: float, n_neg: float) -> float:
    """Σ_{i=a}^{b} g(i), g(x) = x / (x + N), for whole a <= b with a >= 2**20.

    Euler–Maclaurin: ∫_a^b g + (g(a) + g(b))/2 + (g′(b) − g′(a))/12 − (g‴(b) − g‴(a))/720
    with g′ = N/(x + N)², g‴ = 6N/(x + N)⁴; the next term is below 1e-29 of the sum at
    a >= 2**20. The integral, (b − a) − N ln((b + N)/(a + N)), is written as
    a u + N u h(u) with u = (b − a)/(a + N) and h(u) = 1 − ln(1 + u)/u: every term is
    non-negative, so nothing cancels when P is small against N.
    """
    u = (b - a) / (a + n_neg)
    integral = a * u + n_neg * u * float(_h(np.array([u]))[0])

    def g(x: float) -> float:
        return x / (x + n_neg)

    def d1(x: float) -> float:
        return n_neg / (x + n_neg) / (x + n_neg)  # divided twice: no overflow at 1e300

    def d3(x: float) -> float:
        return 6.0 * d1(x) / (x + n_neg) / (x + n_neg)

    return integral + (g(a) + g(b)) / 2.0 + (d1(b) - d1(a)) / 12.0 - (d3(b) - d3(a)) / 720.0


def _step_sum(n_pos: float, n_neg: float, first: float = 1, last: float | None = None) -> float:
    """Σ_{i=first}^{last} i / (i + n_neg) over whole numbers (last defaults to n_pos).

    Term by term up to 2**22 terms; beyond, the terms from 2**20 on in closed form
    (:func:`_euler_maclaurin_sum`), so class totals of 10^12 (weights counted as repeated
    samples) take microseconds, not hours.
    """
    stop = n_pos if last is None else last
    if stop < first:
        return 0.0
    if stop < _EXACT_TERMS:
        return _exact_ranking_sum(int(first), int(stop), n_neg)
    if first >= _EULER_MACLAURIN_START:
        return _euler_maclaurin_sum(float(first), float(stop), n_neg)
    head = _exact_ranking_sum(int(first), _EULER_MACLAURIN_START - 1, n_neg)
    return head + _euler_maclaurin_sum(float(_EULER_MACLAURIN_START), float(stop), n_neg)


def _worst_segments(n: float, first: float, last: float) -> tuple[F64, F64, F64, F64]:
    """The worst ranking's recall segments (i − 1, N) -> (i, N) for i = first..last."""
    i = np.arange(first, last + 1, dtype=np.float64)
    fp = np.full(i.shape, float(n))
    return i - 1.0, fp, i, fp.copy()


def _min_area_of_segments(method: str, p: float, n: float, lo: float, hi: float) -> float:
    """The ``step`` or ``trapezoid`` area of the worst ranking over recall [lo, hi].

    Segment i covers recall ((i − 1)/P, i/P] with precision m(i) = i/(i + N) (step) or
    the line from m(i − 1) to m(i) (trapezoid). The segments that straddle lo or hi are
    clipped (:func:`segment_areas`); the whole ones in between are summed in closed form
    (:func:`_step_sum`): Σ m(i)/P, and for trapezoid (2 Σ m(i) + m(A − 1) − m(B)) / (2P).
    """
    first = max(1.0, math.floor(lo * p))
    last = min(p, math.ceil(hi * p) + 1.0)
    inner_first = max(first, math.ceil(lo * p) + 1.0)  # whole segments: (A − 1)/P >= lo
    inner_last = min(last, math.floor(hi * p))  # and B/P <= hi
    if last - first < _SEGMENTS_IN_ARRAYS or inner_last < inner_first:
        return float(segment_areas(*_worst_segments(n, first, last), p, method, lo, hi).sum())
    clipped = [float(segment_areas(*_worst_segments(n, a, b), p, method, lo, hi).sum())
               for a, b in ((first, inner_first - 1.0), (inner_last + 1.0, last)) if a <= b]
    inner = _step_sum(p, n, inner_first, inner_last)
    if method == "trapezoid":
        above = inner_first - 1.0  # m(0) is the first precision when nothing is above
        m_above = above / (above + n) if above + n > 0 else 1.0
        inner += (m_above - inner_last / (inner_last + n)) / 2.0
    return math.fsum([inner / p, *clipped])


_SEGMENTS_IN_ARRAYS = 1 << 16  # fewer segments than this are clipped and summed as arrays


def _min_ap(method: str, p: float, n: float, lo: float, hi: float, allow_ties: bool) -> float:
    """The minimum of ``method`` for P > 0 positives and N negatives over [lo, hi]."""
    pi = p / (p + n)
    full = (lo, hi) == (0.0, 1.0)
    if n == 0:
        return hi - lo
    if method in ("interpolated", "11point", "101point"):
        return pi * (hi - lo)
    if method == "davis_goadrich":
        return float(_min_aucpr_array(np.array([pi]), lo, hi)[0])
    if method == "trapezoid" and allow_ties:
        # All positives tied below all negatives: one straight segment (0, 0) -> (1, π).
        return pi * (hi * hi - lo * lo) / 2.0
    if full and method == "step":
        return _step_sum(p, n) / p  # Theorem 3
    if full and method == "trapezoid":
        return _step_sum(p, n) / p - 1.0 / (2.0 * (p + n))
    return _min_area_of_segments(method, p, n, lo, hi)


def min_average_precision(
    n_pos: float,
    n_neg: float,
    method: APMethod = "step",
    *,
    recall_range: tuple[float, float] = (0.0, 1.0),
    allow_ties: bool = False,
    zero_division: ZeroDivision = "nan",
) -> float:
    """The lowest average precision any ranking of ``n_pos`` positives and ``n_neg``
    negatives can get, for a named AP method.

    The minimum is the AP of the worst ranking (all negatives above all
    positives); table and derivation in the module docstring. ``step`` is
    Theorem 3 of seed 004, ``(1/P) Σ_{i=1}^{P} i / (i + N)``; ``davis_goadrich``
    is Theorem 2 (:func:`min_aucpr`); ``interpolated``, ``11point`` and
    ``101point`` give π; ``trapezoid`` gives Theorem 3 − 1 / (2(P + N)).

    Over a restricted recall range ``[a, b]`` the minimum is the area of the
    worst ranking's curve over ``[a, b]`` (the same integration as
    :meth:`prcurve.PRCurve.aucpr`): Corollary 4 for ``davis_goadrich``,
    π(b − a) for ``interpolated``; ``11point`` and ``101point`` have no
    restricted area.

    Parameters
    ----------
    n_pos, n_neg : float
        Class totals. ``step`` and ``trapezoid`` need whole numbers (their
        minimum depends on the number of samples); the other methods only use
        π = n_pos / (n_pos + n_neg). For integer weights (a weight counted as
        repeated samples) the value is a lower bound, reached when every
        weight is 1.
    method : str, default "step"
        One of :data:`prcurve.AP_METHODS`.
    recall_range : (float, float), default (0.0, 1.0)
        Recall interval of the area.
    allow_ties : bool, default False
        Minimise over scores with ties instead of rankings; only changes
        ``trapezoid`` (to π(b² − a²)/2, all positives tied below every negative).
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there are no positives (AP is undefined).

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.space.bounds import min_average_precision
    >>> round(min_average_precision(2, 4), 6)  # (1/5 + 2/6) / 2
    0.266667
    >>> round(min_average_precision(2, 4, "interpolated"), 6)
    0.333333
    >>> round(min_average_precision(100, 200, "davis_goadrich"), 6)
    0.18907
    """
    name = check_method(method)
    lo, hi = check_recall_range(recall_range)
    if (lo, hi) != (0.0, 1.0) and name not in AREA_METHODS:
        raise method_without_recall_range(name)
    integer = name in ("step", "trapezoid") and not allow_ties
    with undefined_scope(zero_division):
        p, n = _check_n(n_pos, n_neg, integer=integer)
        if p == 0:
            return undefined(f"min_average_precision[{name}] (no positives)")
        return _min_ap(name, p, n, lo, hi, allow_ties)


def _normalize(value: float, minimum: float, maximum: float, what: str) -> float:
    # Eq. 3: (AUCPR − AUCPR_min) / (AUCPR_max − AUCPR_min). The span is > 0 when 0 < π < 1,
    # but when nearly every sample is positive it is below the rounding of the area itself
    # (π rounds to 1 for 10^20 positives and 1 negative): the ratio would be noise, so it
    # is undefined there, like π = 1 (docs/definitions.md, "Undefined values").
    span = maximum - minimum
    if span <= SUM_TOLERANCE * maximum:
        return undefined(f"{what} (the achievable range {span:.3g} is below rounding)")
    return (value - minimum) / span


def _degenerate_value(pi_zero: bool, what: str, degenerate: str) -> float:
    if degenerate == "paper":
        return 0.0 if pi_zero else 1.0
    reason = "no positives" if pi_zero else "no negatives"
    return undefined(f"{what} ({reason})")


def aucnpr(
    aucpr: float,
    prevalence: float,
    recall_range: tuple[float, float] = (0.0, 1.0),
    *,
    degenerate: Degenerate = "undefined",
    zero_division: ZeroDivision = "nan",
) -> float:
    """Normalized AUCPR (Eq. 3 of seed 004): the share of the achievable area attained.

    ``(AUCPR − AUCPR_min) / (AUCPR_max − AUCPR_min)`` with AUCPR_min from
    :func:`min_aucpr` (the ``davis_goadrich`` minimum, a function of π) and
    AUCPR_max = b − a. 0 for the worst ranking, 1 for a perfect one, at any
    skew. For other AP methods use :func:`normalized_average_precision`.

    Parameters
    ----------
    aucpr : float
        The area over ``recall_range`` (e.g. ``curve.aucpr(recall_range=...)``).
    prevalence : float
        π in [0, 1].
    recall_range : (float, float), default (0.0, 1.0)
    degenerate : {"undefined", "paper"}, default "undefined"
        π = 0 and π = 1 have no achievable area, so AUCNPR is 0/0 there ("properly
        undefined", §3 of the paper): by default the value follows
        ``zero_division``. ``"paper"``: the paper's convention "when a numeric score
        is required", 0 at π = 0 and 1 at π = 1. A π so close to 1 that the
        achievable area is below rounding is undefined too.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"

    Returns
    -------
    float

    Examples
    --------
    The gender predicate of §4.2 (π = 0.5): an AUCPR of 0.4 is barely above the
    minimum 0.31.

    >>> from prcurve.space.bounds import aucnpr
    >>> round(aucnpr(0.4, 0.5), 4), aucnpr(1.0, 0.5)
    (0.1344, 1.0)
    """
    value = check_finite_number("aucpr", aucpr)
    pi = float(check_fractions("prevalence", prevalence))
    lo, hi = check_recall_range(recall_range)
    check_choice("degenerate", degenerate, _DEGENERATE)
    with undefined_scope(zero_division):
        if pi in (0.0, 1.0):
            return _degenerate_value(pi == 0.0, "aucnpr", degenerate)
        minimum = float(_min_aucpr_array(np.array([pi]), lo, hi)[0])
        return _normalize(value, minimum, hi - lo, "aucnpr")


def normalized_average_precision(
    ap: float,
    n_pos: float,
    n_neg: float,
    method: APMethod = "step",
    *,
    recall_range: tuple[float, float] = (0.0, 1.0),
    degenerate: Degenerate = "undefined",
    zero_division: ZeroDivision = "nan",
) -> float:
    """An AP normalized by the minimum of the same method: ``(AP − min) / (max − min)``.

    The minimum is :func:`min_average_precision` for ``method`` (Theorem 3 for
    ``step``, Theorem 2 for ``davis_goadrich``, ...) and the maximum is
    ``b − a`` (a perfect ranking), so the worst ranking scores 0 and a perfect
    one 1. For ``davis_goadrich`` this is :func:`aucnpr`.

    Parameters
    ----------
    ap : float
        The AP (or area over ``recall_range``) by ``method``.
    n_pos, n_neg : float
        Class totals (whole numbers for ``step`` and ``trapezoid``).
    method : str, default "step"
    recall_range : (float, float), default (0.0, 1.0)
    degenerate : {"undefined", "paper"}, default "undefined"
        Without positives or without negatives the normalization is 0/0: the
        value follows ``zero_division``, or with ``"paper"`` is 0 (no positives)
        and 1 (no negatives), seed 004's convention (see :func:`aucnpr`).
    zero_division : {"nan", 0, 1, "raise"}, default "nan"

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.space.bounds import min_average_precision, normalized_average_precision
    >>> worst = min_average_precision(3, 7)
    >>> normalized_average_precision(worst, 3, 7), normalized_average_precision(1.0, 3, 7)
    (0.0, 1.0)
    """
    value = check_finite_number("ap", ap)
    name = check_method(method)
    lo, hi = check_recall_range(recall_range)
    if (lo, hi) != (0.0, 1.0) and name not in AREA_METHODS:
        raise method_without_recall_range(name)
    check_choice("degenerate", degenerate, _DEGENERATE)
    integer = name in ("step", "trapezoid")
    with undefined_scope(zero_division):
        p, n = _check_n(n_pos, n_neg, integer=integer)
        if p + n == 0:
            return undefined(f"normalized_average_precision[{name}] (no samples)")
        if p == 0 or n == 0:
            return _degenerate_value(p == 0, f"normalized_average_precision[{name}]", degenerate)
        minimum = _min_ap(name, p, n, lo, hi, allow_ties=False)
        return _normalize(value, minimum, hi - lo, f"normalized_average_precision[{name}]")


# -- modified F-beta (§4.4) ------------------------------------------------------------------


def _modified_f_beta_array(r: F64, p: F64, pi: F64, beta: float) -> F64:
    # Harmonic mean (weight β) of recall and the normalized precision (p − π)/(1 − π);
    # 0 when p < π (worse than random guessing). For β = 1 this is the paper's
    #   2 (p − π) r / (p − π + (1 − π) r).
    shape = np.broadcast(r, p, pi).shape
    r, p, pi = (np.broadcast_to(v, shape) for v in (r, p, pi))
    out = np.zeros(shape)
    defined = pi < 1.0
    if not defined.all():
        out[~defined] = undefined("modified F-beta (prevalence 1: precision cannot be normalized)")
    above = defined & (p >= pi)
    if above.any():
        b2 = beta * beta
        normalized = (p[above] - pi[above]) / (1.0 - pi[above])
        out[above] = ratio((1.0 + b2) * normalized * r[above], b2 * normalized + r[above],
                           "modified F-beta")
    return out


def modified_f_beta(
    recall: ArrayLike,
    precision: ArrayLike,
    prevalence: ArrayLike,
    beta: float = 1.0,
    *,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """The modified F-beta of seed 004 §4.4: F-beta of recall and normalized precision.

    ``0`` if ``p < π``; otherwise ``(1 + β²) p' r / (β² p' + r)`` with the
    normalized precision ``p' = (p − π) / (1 − π)``. For β = 1 this is the
    paper's ``2 (p − π) r / (p − π + (1 − π) r)``; "extension to a modified F_β
    for unequal weighting of recall and normalized precision" is this
    construction. Undefined (``zero_division``) when ``p' = r = 0`` and at π = 1.

    Parameters
    ----------
    recall, precision, prevalence : float or array_like
        Values in [0, 1]; arrays broadcast.
    beta : float, default 1.0
        Weight of recall (> 0).
    zero_division : {"nan", 0, 1, "raise"}, default "nan"

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from prcurve.space.bounds import modified_f_beta
    >>> round(modified_f_beta(0.5, 0.6, 0.2), 4)  # p' = 0.5: harmonic mean of 0.5 and 0.5
    0.5
    >>> modified_f_beta(0.9, 0.15, 0.2)  # precision below random guessing
    0.0
    """
    r = check_fractions("recall", recall)
    p = check_fractions("precision", precision)
    pi = check_fractions("prevalence", prevalence)
    b = check_positive_number("beta", beta)
    with undefined_scope(zero_division):
        out = _modified_f_beta_array(r, p, pi, b)
    return _as_output(out, r.ndim == 0 and p.ndim == 0 and pi.ndim == 0)


def modified_f1(
    recall: ArrayLike, precision: ArrayLike, prevalence: ArrayLike, *,
    zero_division: ZeroDivision = "nan",
) -> Any:
    """The modified F1 of seed 004 §4.4: :func:`modified_f_beta` with β = 1.

    Examples
    --------
    >>> from prcurve.space.bounds import modified_f1
    >>> round(modified_f1(0.5, 0.6, 0.2), 4)
    0.5
    """
    return modified_f_beta(recall, precision, prevalence, 1.0, zero_division=zero_division)



"""Confidence intervals for AP, AUCPR, a threshold's precision and recall, and the curve.

Bootstrap (percentile, stratified by class)
    A resample draws ``n_pos`` positives and ``n_neg`` negatives with replacement
    from the samples of each class. Only the count state is resampled: the
    number of a class's draws that land in each tie group is a multinomial draw
    over the groups' counts (drawing samples and counting them per group gives
    exactly that distribution), so no score is ever sorted again. Groups that
    add nothing to an AP are pooled first: the state is compressed to the
    positive tie groups and, for the negatives, the block strictly between two
    positive groups, the negatives tied with a positive group, and the block
    below the last one. The draws use ``Generator.multinomial`` (vectorized
    over resamples) when the groups are few and otherwise draw sample indices
    and count them per group (``bincount``), whichever is cheaper; both give the
    same distribution. Intervals are the ``(1 − level)/2`` and
    ``(1 + level)/2`` quantiles of the resampled statistic (numpy's default
    linear interpolation). Resampling needs whole-number counts (unweighted
    samples; an integer weight counts as repeated samples).

Analytic intervals for AUCPR (Boyd, Eng and Page 2013, "Area Under the
Precision-Recall Curve: Point Estimates and Confidence Intervals", §3)
    with ``n`` the number of positives and ``z`` the ``(1 + level)/2`` normal
    quantile,

    binomial:  θ̂ ± z sqrt(θ̂ (1 − θ̂) / n)   (may leave [0, 1]; not clipped)
    logit:     expit(η̂ ± z τ̂),  η̂ = log(θ̂ / (1 − θ̂)),  τ̂ = (n θ̂ (1 − θ̂))^(−1/2)

    (the logit interval is also what the OCaml ``prc`` library implements).

Paired comparison
    Two models scored on the same samples: every resample draws the same
    samples for both (stratified), so the AP difference keeps the pairing. The
    p-value of "no difference" is the percentile-interval inversion
    ``min(1, 2 min(1 + #{Δ* <= 0}, 1 + #{Δ* >= 0}) / (B + 1))``.

Every result names its method, level and number of resamples (0 for analytic).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.average_precision import (
    APMethod,
    ap_batch,
    ap_from_counts,
    check_method,
    recall_levels,
)
from prcurve.core.counts import SUM_TOLERANCE, ThresholdCounts, first_reaching
from prcurve.core.curve import PRCurve
from prcurve.core.integer_scores import thresholds_at_or_above
from prcurve.core.table import Table
from prcurve.core.undefined import ZeroDivision, ratio, undefined, undefined_scope
from prcurve.validation.arrays import check_choice, check_finite_number, check_n_threads, wrong_type
from prcurve.validation.labels import check_hard_labels, check_scored_labels
from prcurve.validation.space import (
    check_integer_state,
    check_level,
    check_n_resamples,
    check_recall_grid,
    check_seed,
)

__all__ = [
    "CurveInterval",
    "Interval",
    "PairedComparison",
    "ThresholdIntervals",
    "aucpr_interval",
    "bootstrap_average_precision",
    "bootstrap_curve",
    "bootstrap_threshold",
    "compare_average_precision",
    "compare_pairs",
    "draws_per_resample",
    "paired_p_value",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

BOOTSTRAP = "percentile bootstrap (stratified)"
PAIRED = "paired percentile bootstrap (stratified)"

# Work per chunk of resamples: about this many cells in flight (small enough that a
# chunk's arrays stay near the cache; one resample per chunk for 10^6 samples).
_CHUNK_CELLS = 1 << 20
# Rows of a chunk counted and measured at a time: about this many sample indices, so
# that the counting's and the statistic's arrays stay in the cache and their memory is
# reused (whole chunks at a time, the bootstrap of a 10^4-row report faulted in as much
# memory as it drew: about 100 ms of system time, issue 26). The rows are independent,
# so the numbers do not depend on it.
_BLOCK_CELLS = 1 << 17
# numpy's multinomial costs roughly this many index draws per category.
_MULTINOMIAL_COST = 12


@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval.

    Attributes
    ----------
    statistic : str
        What was estimated, with its convention (e.g. ``average_precision[step]``).
    estimate : float
        The statistic on the data.
    lower, upper : float
        The interval's ends.
    method : str
        ``percentile bootstrap (stratified)``, ``binomial`` or ``logit``.
    level : float
        Confidence level, e.g. 0.95.
    n_resamples : int
        Bootstrap resamples (0 for an analytic interval).
    """

    statistic: str
    estimate: float
    lower: float
    upper: float
    method: str
    level: float
    n_resamples: int

    def __str__(self) -> str:
        return (f"{self.statistic} = {self.estimate:.4f}, {self.level:.0%} interval "
                f"[{self.lower:.4f}, {self.upper:.4f}] ({self.method}"
                + (f", {self.n_resamples} resamples)" if self.n_resamples else ")"))

    def _repr_html_(self) -> str:
        import html

        return f"<p>{html.escape(str(self))}</p>"


class ThresholdIntervals(NamedTuple):
    """Precision and recall of ``score >= threshold``, each with its interval."""

    precision: Interval
    recall: Interval


@dataclass(frozen=True)
class CurveInterval:
    """A pointwise band around the interpolated precision at recall levels.

    ``estimate[i]``, ``lower[i]`` and ``upper[i]`` belong to ``recall[i]``.
    """

    statistic: str
    recall: F64
    estimate: F64
    lower: F64
    upper: F64
    method: str
    level: float
    n_resamples: int

    def to_table(self) -> Table:
        """One row per recall level: the estimate and the interval's ends."""
        return Table({"recall": self.recall, "estimate": self.estimate, "lower": self.lower,
                      "upper": self.upper})

    def _repr_html_(self) -> str:
        caption = (f"{self.statistic}: {self.level:.0%} pointwise interval ({self.method}, "
                   f"{self.n_resamples} resamples)")
        return self.to_table().to_html(max_rows=12, caption=caption)


@dataclass(frozen=True)
class PairedComparison:
    """AP(model a) − AP(model b) on the same samples, with a paired-bootstrap interval.

    ``difference`` is an :class:`Interval` of the difference; ``p_value`` tests
    "no difference" (two-sided).
    """

    statistic: str
    estimate_a: float
    estimate_b: float
    difference: Interval
    p_value: float

    def __str__(self) -> str:
        return (f"{self.statistic}: a = {self.estimate_a:.4f}, b = {self.estimate_b:.4f}; "
                f"difference {self.difference}; p = {self.p_value:.4g}")

    def _repr_html_(self) -> str:
        import html

        return f"<p>{html.escape(str(self))}</p>"


# -- the compressed, resamplable state ------------------------------------------------------------


@dataclass(frozen=True)
class _Cells:
    """A state compressed to what AP needs, as cells that resampling redistributes.

    Positive cells: the G positive tie groups (in decreasing score) and, last,
    the positives below every threshold (never predicted positive). Negative
    cells, in decreasing score: for each positive group k, the negatives
    strictly between group k − 1 and k, then those tied with group k; last the
    negatives below the last positive group. Empty negative cells are dropped:
    ``neg_through[q]`` is the number of kept cells at or before full cell q.
    """

    pos_counts: I64  # (G + 1,)
    neg_counts: I64  # kept cells only
    neg_through: NDArray[np.intp]  # (2G + 1,)
    n_pos: int
    n_neg: int
    ties_absent: bool  # no negative shares a score with a positive: fp_above == fp

    @property
    def n_groups(self) -> int:
        return int(self.pos_counts.shape[0] - 1)

    @classmethod
    def from_counts(cls, counts: ThresholdCounts) -> _Cells:
        pos_w = counts.pos_weight()
        neg_w = counts.neg_weight()
        check_integer_state("counts", pos_w, neg_w, "the bootstrap")
        check_integer_state(
            "counts", np.array([counts.n_pos]), np.array([counts.n_neg]), "the bootstrap"
        )
        groups = np.flatnonzero(pos_w > 0)
        # The stored counts (uint32 for hard labels) gathered, then float64: exact, and
        # no full-length float64 copy of the state (issue 26, item 6).
        fp_at = counts._fp[groups].astype(np.float64)
        fp_above = fp_at - neg_w[groups]
        between = fp_above - np.concatenate(([0.0], fp_at[:-1]))
        tail_neg = counts.n_neg - (float(fp_at[-1]) if groups.shape[0] else 0.0)
        full = np.empty(2 * groups.shape[0] + 1)
        full[0:-1:2] = between
        full[1:-1:2] = neg_w[groups]
        full[-1] = tail_neg
        kept = full > 0
        tail_pos = counts.n_pos - (float(counts._tp[-1]) if len(counts) else 0.0)
        return cls(
            pos_counts=np.append(pos_w[groups], tail_pos).astype(np.int64),
            neg_counts=full[kept].astype(np.int64),
            neg_through=np.cumsum(kept),
            n_pos=int(counts.n_pos),
            n_neg=int(counts.n_neg),
            ties_absent=not bool((neg_w[groups] > 0).any()),
        )

    def positive_lookup(self, rows: int) -> NDArray[np.signedinteger[Any]]:
        """The positive cell of each positive sample (samples ordered by cell)."""
        return _lookup(self.pos_counts, rows)

    def negative_lookup(self, rows: int) -> NDArray[np.signedinteger[Any]]:
        return _lookup(self.neg_counts, rows)


    def batch(self, pos: I64, neg: I64) -> tuple[I64, I64, I64, I64]:
        """(gained, tp, fp, fp_above) of each resample from its per-cell draws (int64)."""
        g = self.n_groups
        gained = pos[:, :g]
        tp = np.cumsum(gained, axis=1)
        cumulative = np.zeros((neg.shape[0], neg.shape[1] + 1), dtype=np.int64)
        np.cumsum(neg, axis=1, out=cumulative[:, 1:])
        fp = cumulative[:, self.neg_through[1:-1:2]]
        if self.ties_absent:
            return gained, tp, fp, fp
        return gained, tp, fp, cumulative[:, self.neg_through[0:-1:2]]

def _lookup(counts: I64, rows: int) -> NDArray[np.signedinteger[Any]]:
    """Cell of each sample; int32 when every index of ``rows`` stacked rows fits."""
    total = int(counts.sum())
    small = max(total, rows * counts.shape[0]) < np.iinfo(np.int32).max
    return np.repeat(np.arange(counts.shape[0], dtype=np.int32 if small else np.int64), counts)


def _draw_cells(
    rng: np.random.Generator, counts: I64, total: int, size: int,
    lookup: NDArray[np.signedinteger[Any]] | None,
) -> I64:
    """``size`` multinomial draws of ``total`` samples over cells of ``counts`` samples."""
    drawn, counted = _draw_chunk(rng, counts, total, size, lookup)
    if counted or lookup is None:
        return drawn
    return _count_cells(drawn, counts.shape[0], lookup.astype(np.intp),
                        np.empty(drawn.size, dtype=np.intp))


def _draw_chunk(
    rng: np.random.Generator, counts: I64, total: int, size: int,
    lookup: NDArray[np.signedinteger[Any]] | None,
) -> tuple[NDArray[Any], bool]:
    """One chunk's draws from ``rng``: ``(counts per cell, True)`` when there is nothing
    to draw or by ``Generator.multinomial`` (``lookup`` None), else ``(sample indices,
    False)``, ``size`` rows of ``total`` indices in the lookup's dtype (int32 indices
    halve the memory traffic; the dtype is part of the random stream, so it must stay
    as :func:`_lookup` chooses it for the same numbers from the same seed)."""
    cells = counts.shape[0]
    if total == 0:
        return np.zeros((size, cells), dtype=np.int64), True
    if lookup is None:
        return rng.multinomial(total, counts / total, size=size), True
    return rng.integers(0, total, size=(size, total), dtype=lookup.dtype), False


def _count_cells(index: NDArray[Any], cells: int, lookup: NDArray[np.intp],
                 scratch: NDArray[np.intp]) -> I64:
    """Rows of sample indices counted per cell by :func:`_count_rows`; ``lookup`` maps a
    sample to its cell (intp, non-decreasing: samples in cell order), so with one sample
    per cell (distinct scores) the index is the cell and no lookup is needed."""
    return _count_rows(index, None if cells == index.shape[1] else lookup, cells, scratch)


def _use_multinomial(cells: int, total: int) -> bool:
    return cells * _MULTINOMIAL_COST < total


def draws_per_resample(cells: int, n_pos: int, n_neg: int) -> int:
    """About what one resample of the stratified bootstrap costs, in sample draws: each
    class is drawn sample by sample, or by a multinomial over its tie groups when that
    is cheaper (a category costs about :data:`_MULTINOMIAL_COST` draws), with at most
    ``cells`` groups a class (the curve's thresholds). Where every score differs it is
    the number of samples; heavy ties at many rows cost far fewer draws than rows.

    The report's default caps (``ReportSettings.ci_max_cells``) compare this, not the
    thresholds alone: 10^7 rows of 10^4 distinct scores draw 2.4*10^5 a resample (about
    2 s of CPU for 1000), more than 10^5 distinct scores do (issue 26, session 35).

    Examples
    --------
    >>> draws_per_resample(10, 30, 70), draws_per_resample(10_000, 500_000, 9_500_000)
    (100, 240000)
    """
    return sum(min(cells * _MULTINOMIAL_COST, total) for total in (n_pos, n_neg))


def _chunk_plan(state: _Cells, n_resamples: int) -> list[int]:
    width = max(state.n_pos + state.n_neg, state.pos_counts.shape[0] + state.neg_counts.shape[0])
    chunk = max(1, min(n_resamples, _CHUNK_CELLS // max(width, 1)))
    sizes = [chunk] * (n_resamples // chunk)
    if n_resamples % chunk:
        sizes.append(n_resamples % chunk)
    return sizes


def _map_resamples(
    state: _Cells,
    n_resamples: int,
    rng: np.random.Generator,
    statistic: Callable[[I64, I64], F64],
    n_threads: int | None,
) -> F64:
    """``statistic(pos, neg)`` of every resample, rows in resample order.

    Resamples are drawn in chunks, each from its own generator seeded from ``rng``,
    so the result depends on the seed only, not on the number of threads. A chunk is
    counted and measured a block of rows at a time (:data:`_BLOCK_CELLS`): ``statistic``
    must compute each row from that row alone (every statistic here does). numpy
    releases the GIL in the draws and the array arithmetic, so threads overlap.
    """
    sizes = _chunk_plan(state, n_resamples)
    seeds = rng.integers(0, 2**63 - 1, size=len(sizes), dtype=np.int64)
    first = sizes[0]
    pos_lookup = (None if _use_multinomial(state.pos_counts.shape[0], state.n_pos)
                  else state.positive_lookup(first))
    neg_lookup = (None if _use_multinomial(state.neg_counts.shape[0], state.n_neg)
                  else state.negative_lookup(first))

    cells = (state.pos_counts.shape[0], state.neg_counts.shape[0])
    lookups = tuple(None if lookup is None else lookup.astype(np.intp)
                    for lookup in (pos_lookup, neg_lookup))
    block = max(1, min(first, _BLOCK_CELLS // max(state.n_pos + state.n_neg, sum(cells), 1)))

    def run(index: int) -> F64:
        chunk_rng = np.random.default_rng(int(seeds[index]))
        size = sizes[index]
        # The chunk's draws in full (pos, then neg: the random stream fixes the order);
        # then counted and measured a block of rows at a time (the statistic is per row).
        drawn = (_draw_chunk(chunk_rng, state.pos_counts, state.n_pos, size, pos_lookup),
                 _draw_chunk(chunk_rng, state.neg_counts, state.n_neg, size, neg_lookup))
        scratch = np.empty(block * max(state.n_pos, state.n_neg, 1), dtype=np.intp)

        def counts(side: int, start: int) -> I64:  # side 0: positives, 1: negatives
            whole, counted = drawn[side]
            rows, lookup = whole[start:start + block], lookups[side]
            if counted or lookup is None:
                return rows
            return _count_cells(rows, cells[side], lookup, scratch)

        return np.concatenate([statistic(counts(0, start), counts(1, start))
                               for start in range(0, size, block)])

    workers = check_n_threads(n_threads)
    if workers == 1 or len(sizes) == 1:
        return np.concatenate([run(i) for i in range(len(sizes))])
    return np.concatenate(_thread_map(run, len(sizes), workers))


def _thread_map(function: Callable[[int], Any], count: int, workers: int) -> list[Any]:
    """``[function(i) for i in range(count)]``, computed by ``workers`` threads (this one
    and ``workers - 1`` started here) taking the indices in order; the first error is
    raised here once every thread has stopped.

    ``concurrent.futures``' pool does the same, but its import (with ``logging``) is
    about 5 ms of a 10^4-row report's 0.25 s (issue 26).

    Examples
    --------
    >>> _thread_map(lambda i: i * i, 5, 2)
    [0, 1, 4, 9, 16]
    """
    import threading

    results: list[Any] = [None] * count
    errors: list[BaseException] = []
    indices = iter(range(count))
    lock = threading.Lock()

    def work() -> None:
        while not errors:
            with lock:
                index = next(indices, None)
            if index is None:
                return
            try:
                results[index] = function(index)
            except BaseException as error:  # raised in the calling thread, below
                errors.append(error)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(workers, count) - 1)]
    for thread in threads:
        thread.start()
    work()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


# -- helpers --------------------------------------------------------------------------------------


def _counts_of(source: Any) -> ThresholdCounts:
    if isinstance(source, PRCurve):
        return source.counts
    if isinstance(source, ThresholdCounts):
        return source
    raise wrong_type("source", source, "PRCurve or ThresholdCounts")


def _policy_of(source: Any, zero_division: ZeroDivision | None) -> ZeroDivision:
    if zero_division is not None:
        return zero_division
    return source.zero_division if isinstance(source, PRCurve) else "nan"


def _percentiles(values: F64, level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    finite = values[~np.isnan(values)]
    if finite.shape[0] == 0:
        return math.nan, math.nan
    ordered = np.sort(finite)
    return _linear_quantile(ordered, alpha / 2.0), _linear_quantile(ordered, 1.0 - alpha / 2.0)


def _linear_quantile(ordered: F64, q: float) -> float:
    """``np.quantile(ordered, q)`` (its default "linear" method, Hyndman and Fan's
    definition 7) of sorted values, by numpy's own float operations, so equal to it
    bit for bit; np.quantile imports numpy.ma on its first call (a third of
    ``import numpy``'s time: too much for a small report)."""
    n = ordered.shape[0]
    virtual = (n - 1) * q
    if virtual >= n - 1:
        return float(ordered[-1])
    if virtual < 0:
        return float(ordered[0])
    below = math.floor(virtual)
    gamma = virtual - below
    a, b = float(ordered[below]), float(ordered[below + 1])
    difference = b - a
    # numpy's _lerp: from the nearer end, so that gamma = 1 gives b exactly
    return float(b - difference * (1.0 - gamma) if gamma >= 0.5 else a + difference * gamma)


def _z(level: float) -> float:
    from statistics import NormalDist  # stdlib; imported when an interval needs it

    return NormalDist().inv_cdf(0.5 + level / 2.0)


# -- public functions -----------------------------------------------------------------------------


def bootstrap_average_precision(
    source: PRCurve | ThresholdCounts,
    *,
    method: APMethod = "step",
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    zero_division: ZeroDivision | None = None,
    n_threads: int | None = None,
) -> Interval:
    """Stratified percentile-bootstrap interval for AP by a named method.

    Parameters
    ----------
    source : PRCurve or ThresholdCounts
        The state to resample; it needs whole-number counts (unweighted data).
    method : str, default "step"
        Any of :data:`prcurve.AP_METHODS` (``"davis_goadrich"`` for AUCPR).
    n_resamples : int, default 1000
    level : float, default 0.95
    seed : None, int, SeedSequence or Generator
        Seeds numpy's default generator; the same seed gives the same interval.
    zero_division : {"nan", 0, 1, "raise"}, optional
        For data without positives (default: the curve's policy, else "nan").
    n_threads : int, optional
        Threads drawing resamples (default: every CPU). The result depends on
        ``seed`` only, not on the number of threads.

    Returns
    -------
    Interval

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve import pr_curve
    >>> from prcurve.space.intervals import bootstrap_average_precision
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.2
    >>> curve = pr_curve(y, rng.normal(size=2000) + 1.5 * y)
    >>> ci = bootstrap_average_precision(curve, n_resamples=200, seed=1)
    >>> ci.method, ci.level, ci.n_resamples
    ('percentile bootstrap (stratified)', 0.95, 200)
    >>> bool(ci.lower < ci.estimate < ci.upper)
    True
    """
    name = check_method(method)
    counts = _counts_of(source)
    b = check_n_resamples(n_resamples)
    lvl = check_level(level)
    rng = np.random.default_rng(check_seed(seed))
    statistic = f"average_precision[{name}]"
    with undefined_scope(_policy_of(source, zero_division)):
        state = _Cells.from_counts(counts)
        estimate = ap_from_counts(counts, name)
        if state.n_pos == 0:
            return Interval(statistic, estimate, estimate, estimate, BOOTSTRAP, lvl, b)
        values = _map_resamples(
            state, b, rng,
            lambda pos, neg: ap_batch(name, *state.batch(pos, neg), float(state.n_pos)),
            n_threads,
        )
    low, high = _percentiles(values, lvl)
    return Interval(statistic, estimate, low, high, BOOTSTRAP, lvl, b)


def bootstrap_threshold(
    source: PRCurve | ThresholdCounts,
    threshold: float,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    zero_division: ZeroDivision | None = None,
) -> ThresholdIntervals:
    """Bootstrap intervals for the precision and recall of ``score >= threshold``.

    Under stratified resampling the number of positives (negatives) at or
    above the threshold is binomial with the observed share, so each resample
    costs two binomial draws. Resamples with nothing predicted positive have
    an undefined precision (``zero_division``; NaN ones are left out of the
    percentiles).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.intervals import bootstrap_threshold
    >>> curve = pr_curve([1, 0, 1, 1, 0, 0, 1, 0] * 50, [8, 7, 6, 5, 4, 3, 2, 1] * 50)
    >>> ci = bootstrap_threshold(curve, 5, n_resamples=500, seed=0)
    >>> ci.precision.estimate, ci.recall.estimate
    (0.75, 0.75)
    >>> bool(ci.precision.lower < 0.75 < ci.precision.upper)
    True
    """
    counts = _counts_of(source)
    t = check_finite_number("threshold", threshold)
    b = check_n_resamples(n_resamples)
    lvl = check_level(level)
    rng = np.random.default_rng(check_seed(seed))
    state = _Cells.from_counts(counts)  # checks the counts are whole numbers
    above = thresholds_at_or_above(counts.thresholds, threshold, t)  # integers exactly
    tp = float(counts._tp[above - 1]) if above else 0.0  # a scalar read of the state
    fp = float(counts._fp[above - 1]) if above else 0.0
    with undefined_scope(_policy_of(source, zero_division)):
        tp_star = rng.binomial(state.n_pos, tp / state.n_pos if state.n_pos else 0.0,
                               size=b).astype(np.float64)
        fp_star = rng.binomial(state.n_neg, fp / state.n_neg if state.n_neg else 0.0,
                               size=b).astype(np.float64)
        precision = ratio(tp_star, tp_star + fp_star, f"precision at threshold {t:g}")
        recall = ratio(tp_star, np.full(b, float(state.n_pos)), f"recall at threshold {t:g}")
        point_p = float(ratio(tp, tp + fp, f"precision at threshold {t:g}"))
        point_r = float(ratio(tp, float(state.n_pos), f"recall at threshold {t:g}"))
    out = []
    for name, point, values in (("precision", point_p, precision), ("recall", point_r, recall)):
        low, high = _percentiles(values, lvl)
        out.append(Interval(f"{name} at threshold {t:g}", point, low, high, BOOTSTRAP, lvl, b))
    return ThresholdIntervals(out[0], out[1])


def bootstrap_curve(
    source: PRCurve | ThresholdCounts,
    recall: ArrayLike | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    zero_division: ZeroDivision | None = None,
    n_threads: int | None = None,
) -> CurveInterval:
    """A pointwise bootstrap band for the curve: interpolated precision at recall levels.

    ``p_interp(r) = max_{r' >= r} p(r')`` (0 where no recall reaches r) at
    each level, as :meth:`prcurve.PRCurve.interpolated_precision`, with the
    percentile interval of each level taken separately (a pointwise band, not
    a simultaneous one).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.intervals import bootstrap_curve
    >>> curve = pr_curve([1, 0, 1, 1, 0, 0, 1, 0] * 50, [8, 7, 6, 5, 4, 3, 2, 1] * 50)
    >>> band = bootstrap_curve(curve, [0.25, 0.5, 1.0], n_resamples=300, seed=0)
    >>> band.estimate.tolist()
    [1.0, 0.75, 0.5]
    >>> bool((band.lower <= band.estimate).all() and (band.estimate <= band.upper).all())
    True
    """
    counts = _counts_of(source)
    levels = recall_levels(100) if recall is None else check_recall_grid("recall", recall)
    b = check_n_resamples(n_resamples, bytes_each=8 * levels.shape[0],
                          held=f"{levels.shape[0]} float64 precisions")
    lvl = check_level(level)
    rng = np.random.default_rng(check_seed(seed))
    policy = _policy_of(source, zero_division)
    statistic = "interpolated precision at recall levels"
    with undefined_scope(policy):
        state = _Cells.from_counts(counts)
        estimate = PRCurve(counts, zero_division=policy).interpolated_precision(levels)
        if state.n_pos == 0:
            return CurveInterval(statistic, levels, estimate, estimate, estimate, BOOTSTRAP,
                                 lvl, b)
        values = curve_draws(state, levels, b, rng, n_threads)
    alpha = 1.0 - lvl
    lower, upper = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return CurveInterval(statistic, levels, estimate, lower, upper, BOOTSTRAP, lvl, b)


def curve_draws(state: _Cells, levels: F64, n_resamples: int, rng: np.random.Generator,
                n_threads: int | None) -> F64:
    """Each resample's interpolated precision at ``levels`` (one row per resample), drawn
    from ``rng`` as :func:`bootstrap_curve` draws them (also used by
    :func:`prcurve.space.aggregate.macro_average_curve`); ``state.n_pos`` > 0."""

    def band(pos: I64, neg: I64) -> F64:
        _, tp, fp, _ = state.batch(pos, neg)
        precision = tp / np.maximum(tp + fp, 1)  # whole counts: 0 where nothing above
        envelope = np.concatenate(
            (np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1],
             np.zeros((tp.shape[0], 1))), axis=1)
        recall_star = tp / state.n_pos
        out = np.empty((tp.shape[0], levels.shape[0]))
        for row in range(tp.shape[0]):
            out[row] = envelope[row, first_reaching(recall_star[row], levels)]
        return out

    return _map_resamples(state, n_resamples, rng, band, n_threads)


def aucpr_interval(
    source: PRCurve | ThresholdCounts,
    *,
    interval: Literal["logit", "binomial"] = "logit",
    level: float = 0.95,
    method: APMethod = "davis_goadrich",
    zero_division: ZeroDivision | None = None,
) -> Interval:
    """Boyd, Eng and Page's (2013) binomial or logit interval for AUCPR.

    ``binomial``: θ̂ ± z sqrt(θ̂(1 − θ̂)/n); ``logit``: expit(η̂ ± z τ̂) with
    η̂ = logit(θ̂) and τ̂ = (n θ̂ (1 − θ̂))^(−1/2); ``n`` is the number of
    positives and θ̂ the AP by ``method`` (the paper applies them to its
    AUCPR estimators: average precision and interpolated areas). The binomial
    interval can leave [0, 1]; the logit interval cannot, and is undefined at
    θ̂ = 0 or 1 (``zero_division``).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.intervals import aucpr_interval
    >>> curve = pr_curve([1, 0, 1, 1, 0, 0, 1, 0] * 25, [8, 7, 6, 5, 4, 3, 2, 1] * 25)
    >>> ci = aucpr_interval(curve, interval="binomial", method="step")
    >>> round(ci.estimate, 4), round(ci.lower, 4), round(ci.upper, 4), ci.n_resamples
    (0.747, 0.6618, 0.8322, 0)
    """
    counts = _counts_of(source)
    kind = check_choice("interval", interval, ("logit", "binomial"))
    lvl = check_level(level)
    name = check_method(method)
    statistic = f"average_precision[{name}]"
    with undefined_scope(_policy_of(source, zero_division)):
        theta = ap_from_counts(counts, name)
        n = counts.n_pos
        z = _z(lvl)
        if math.isnan(theta) or n == 0:
            value = theta if n else undefined(f"{kind} interval (no positives)")
            return Interval(statistic, theta, value, value, kind, lvl, 0)
        if kind == "binomial":
            half = z * math.sqrt(theta * (1.0 - theta) / n)
            return Interval(statistic, theta, theta - half, theta + half, kind, lvl, 0)
        # θ within rounding of 0 or 1 (a perfect ranking's AP summed in another order is
        # 0.9999999999999998): the logit is undefined there too, not a huge number.
        if theta <= SUM_TOLERANCE or theta >= 1.0 - SUM_TOLERANCE:
            value = undefined(f"logit interval (estimate {theta:g})")
            return Interval(statistic, theta, value, value, kind, lvl, 0)
        eta = math.log(theta / (1.0 - theta))
        tau = 1.0 / math.sqrt(n * theta * (1.0 - theta))
        low = 1.0 / (1.0 + math.exp(-(eta - z * tau)))
        high = 1.0 / (1.0 + math.exp(-(eta + z * tau)))
        return Interval(statistic, theta, low, high, kind, lvl, 0)


def compare_average_precision(
    y_true: ArrayLike,
    y_score_a: ArrayLike,
    y_score_b: ArrayLike,
    *,
    method: APMethod = "step",
    pos_label: Any = None,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
) -> PairedComparison:
    """Paired bootstrap comparison of two models' AP on the same samples.

    Each resample draws the same samples (stratified by class) for both
    models; the difference AP(a) − AP(b) gets a percentile interval and a
    two-sided p-value for "no difference" (module docstring). Hard, unweighted
    labels.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.space.intervals import compare_average_precision
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(1000) < 0.3
    >>> good, weak = rng.normal(size=1000) + 2 * y, rng.normal(size=1000) + 0.5 * y
    >>> result = compare_average_precision(y, good, weak, n_resamples=300, seed=0)
    >>> bool(result.difference.lower > 0), result.p_value < 0.01
    (True, True)
    """
    (comparison,) = compare_pairs(
        y_true, {"y_score_a": y_score_a, "y_score_b": y_score_b}, [("y_score_a", "y_score_b")],
        methods=(method,), pos_label=pos_label, n_resamples=n_resamples, level=level, seed=seed)
    return comparison


def compare_pairs(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    pairs: Sequence[tuple[str, str]],
    *,
    methods: Sequence[APMethod] = ("step",),
    pos_label: Any = None,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
) -> list[PairedComparison]:
    """:func:`compare_average_precision` of each pair ``(a, b)`` of ``scores``' models,
    for each method (methods outer, pairs inner), from one set of resamples.

    Every comparison is the one :func:`compare_average_precision` makes of the pair with
    the same ``seed`` (the same numbers): each resample draws the same samples for every
    model, so a model's resampled APs are computed once and shared by its pairs and the
    methods (issue 26: a three-model report compared six pairs of measures from six
    sets of draws). ``scores``' keys name the arguments in error messages.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.space.intervals import compare_average_precision, compare_pairs
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.3
    >>> scores = {m: rng.normal(size=500) + k * y for k, m in enumerate("abc")}
    >>> rows = compare_pairs(y, scores, [("a", "b"), ("c", "b")], n_resamples=200, seed=0)
    >>> rows[1] == compare_average_precision(y, scores["c"], scores["b"], n_resamples=200,
    ...                                      seed=0)
    True
    """
    names = [check_method(method) for method in methods]
    b = check_n_resamples(n_resamples)
    lvl = check_level(level)
    rng = np.random.default_rng(check_seed(seed))
    used = list(dict.fromkeys(key for pair in pairs for key in pair))
    if not used:
        return []
    checked = {key: check_scored_labels(y_true, scores[key], None, pos_label, score_name=key)
               for key in used}
    positive = check_hard_labels("y_true", checked[used[0]][1], "the paired bootstrap")
    states, lookups, estimates = {}, {}, {}
    for key in used:
        model_scores, binary, _ = checked[key]
        counts = ThresholdCounts._from_checked(model_scores, binary, None)
        states[key] = _Cells.from_counts(counts)
        lookups[key] = _sample_cells(counts, model_scores, positive)
        for name in names:
            estimates[key, name] = ap_from_counts(counts, name)
    n_pos, n_neg = states[used[0]].n_pos, states[used[0]].n_neg
    resampled: dict[tuple[str, str], list[F64]] = {(k, n): [] for k in used for n in names}
    width = max(n_pos + n_neg, 1)
    chunk = max(1, min(b, _CHUNK_CELLS // width))

    block = max(1, min(chunk, _BLOCK_CELLS // width))

    def measure(key: str, pos_index: I64, neg_index: I64) -> list[F64]:
        """One model's APs (each method) of a chunk of resamples, a block of rows at a
        time (each row's AP is the row's alone; blocks stay in cache)."""
        state, (pos_lookup, neg_lookup) = states[key], lookups[key]
        scratch = np.empty(block * max(n_pos, n_neg, 1), dtype=np.intp)
        parts: list[list[F64]] = [[] for _ in names]
        for start in range(0, pos_index.shape[0], block):
            pos = _count_rows(pos_index[start:start + block], pos_lookup,
                              state.pos_counts.shape[0], scratch)
            neg = _count_rows(neg_index[start:start + block], neg_lookup,
                              state.neg_counts.shape[0], scratch)
            cells = state.batch(pos, neg)
            for part, name in zip(parts, names, strict=True):
                part.append(ap_batch(name, *cells, float(n_pos)))
        return [np.concatenate(part) for part in parts]

    # The models of a chunk on threads (numpy releases the GIL in the counting and the
    # arithmetic); the draws stay in this thread, in order: the same numbers either way.
    workers = min(len(used), check_n_threads(None)) if b * width >= _BLOCK_CELLS else 1
    done = 0
    while done < b and n_pos > 0:
        size = min(chunk, b - done)
        pos_index = rng.integers(0, n_pos, size=(size, n_pos), dtype=np.int64)
        neg_index = (rng.integers(0, n_neg, size=(size, n_neg), dtype=np.int64) if n_neg
                     else np.zeros((size, 0), dtype=np.int64))
        per_model = (_thread_map(partial(_measure_nth, measure, used, pos_index, neg_index),
                                 len(used), workers) if workers > 1
                     else [measure(k, pos_index, neg_index) for k in used])
        for key, values in zip(used, per_model, strict=True):
            for name, aps in zip(names, values, strict=True):
                resampled[key, name].append(aps)
        done += size
    results = []
    for name in names:
        statistic = f"average_precision[{name}] difference (a − b)"
        for a, b_key in pairs:
            estimate_a, estimate_b = estimates[a, name], estimates[b_key, name]
            if n_pos == 0:
                with undefined_scope("nan"):
                    value = undefined(f"average_precision[{name}] difference (no positives)")
                interval = Interval(statistic, value, value, value, PAIRED, lvl, b)
                results.append(PairedComparison(statistic, estimate_a, estimate_b, interval,
                                                value))
                continue
            # AP(a) − AP(b) of each resample, chunk by chunk (the same floats either way).
            delta = np.concatenate([x - y for x, y in zip(
                resampled[a, name], resampled[b_key, name], strict=True)])
            low, high = _percentiles(delta, lvl)
            p_value = float(paired_p_value(delta[:, None])[0])
            interval = Interval(statistic, estimate_a - estimate_b, low, high, PAIRED, lvl, b)
            results.append(PairedComparison(statistic, estimate_a, estimate_b, interval,
                                            p_value))
    return results


def _measure_nth(measure: Callable[[str, I64, I64], list[F64]], keys: list[str],
                 pos_index: I64, neg_index: I64, nth: int) -> list[F64]:
    return measure(keys[nth], pos_index, neg_index)


def paired_p_value(delta: F64) -> F64:
    """The p-value of "no difference" from ``B`` resampled differences (rows of ``delta``).

    The percentile-interval inversion of the module docstring, for each column:
    ``min(1, 2 min(1 + #{Δ* <= 0}, 1 + #{Δ* >= 0}) / (B + 1))``.
    """
    b = delta.shape[0]
    below = (delta <= 0).sum(axis=0) + 1
    above = (delta >= 0).sum(axis=0) + 1
    p: F64 = np.minimum(1.0, 2.0 * np.minimum(below, above) / (b + 1))
    return p


def _count_rows(index: NDArray[Any], lookup: NDArray[np.intp] | None, n_cells: int,
                scratch: NDArray[np.intp]) -> I64:
    """Each row's samples (``index``: positions in ``lookup``, or cells themselves when
    ``lookup`` is None) counted per cell, one bincount for all rows; ``scratch`` holds
    ``index.size`` intp values and is reused from call to call (a new array each time
    faulted in fresh memory)."""
    rows, total = index.shape
    cells = scratch[:rows * total].reshape(rows, total)
    if lookup is None:
        np.copyto(cells, index)
    else:  # indices are in [0, total): "clip" clips nothing and is not buffered
        np.take(lookup, index, out=cells, mode="clip")
    if rows > 1:  # each row's cells after the previous row's
        cells += (np.arange(rows, dtype=np.intp) * n_cells)[:, None]
    return np.bincount(cells.ravel(), minlength=rows * n_cells).reshape(rows, n_cells)


def _sample_cells(
    counts: ThresholdCounts, scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The cell of each positive and each negative sample (in sample order) of one model."""
    state = _Cells.from_counts(counts)
    pos_w = counts.pos_weight()
    groups = np.flatnonzero(pos_w > 0)
    # Threshold index of each sample (thresholds strictly decreasing).
    where = np.searchsorted(-counts.thresholds, -scores.astype(np.float64), side="left")
    pos_cell = np.searchsorted(groups, where[positive])  # group of each positive
    neg_where = where[~positive]
    k = np.searchsorted(groups, neg_where)  # first positive group at or below
    tied = np.zeros(neg_where.shape[0], dtype=bool)
    inside = k < groups.shape[0]
    tied[inside] = groups[k[inside]] == neg_where[inside]
    full = np.where(tied, 2 * k + 1, 2 * k)  # between_k, tie_k, or the tail 2G
    neg_cell = state.neg_through[full] - 1  # index among the kept (non-empty) cells
    return pos_cell.astype(np.intp), neg_cell.astype(np.intp)

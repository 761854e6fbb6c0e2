"""Aggregation across folds, tasks and classes (Boyd et al. 2012 §4.1, §4.2).

:func:`aggregate` combines the curves (or count states) of several parts —
cross-validation folds, tasks, queries, the classes of
:func:`prcurve.one_vs_rest` — by one of four named rules:

``merge``
    pool the data: the merged count state (the state of the concatenated
    data) and its AP. Boyd et al. (2012) §4.1: the right summary for folds drawn from
    one distribution when scores are comparable (calibrated) across folds.
``mean``
    the mean of the per-part APs (the common practice).
``mean_normalized``
    the mean of the per-part normalized APs (AUCNPR for
    ``method="davis_goadrich"``): Boyd et al.'s recommendation when the parts
    have different skews, since every part then has the range [0, 1].
``vertical``
    vertical averaging: each part's interpolated precision
    ``p_interp(r) = max_{r' >= r} p(r')`` at every level of a recall grid,
    averaged over the parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.average_precision import APMethod, ap_from_counts, check_method, recall_levels
from prcurve.core.binned import BinnedCounts
from prcurve.core.counts import ThresholdCounts
from prcurve.core.curve import PRCurve
from prcurve.core.undefined import ZeroDivision, undefined_scope
from prcurve.space.bounds import Degenerate
from prcurve.space.intervals import BOOTSTRAP, CurveInterval, _Cells, curve_draws
from prcurve.validation.arrays import check_choice, wrong_type
from prcurve.validation.space import (
    check_level,
    check_n_resamples,
    check_parts,
    check_recall_grid,
    check_seed,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Aggregate", "aggregate", "macro_average_curve"]

F64 = NDArray[np.float64]
How = Literal["merge", "mean", "mean_normalized", "vertical"]

HOWS: tuple[str, ...] = ("merge", "mean", "mean_normalized", "vertical")


# -- aggregation over parts -------------------------------------------------------------------


@dataclass(frozen=True)
class Aggregate:
    """The result of :func:`aggregate`.

    Attributes
    ----------
    how : str
        The rule: ``merge``, ``mean``, ``mean_normalized`` or ``vertical``.
    method : str
        The AP method behind every value.
    value : float
        ``merge``: AP of the pooled state; ``mean``: mean per-part AP;
        ``mean_normalized``: mean per-part normalized AP; ``vertical``: the
        mean of the averaged curve over the recall grid (a k-point AP of it).
    part_values : ndarray
        Per part: the AP (``merge``, ``mean``), the normalized AP
        (``mean_normalized``) or the mean of its own grid curve (``vertical``).
    prevalences : ndarray
        Per part: n_pos / (n_pos + n_neg), the skew that sets its minimum.
    recall, precision : ndarray or None
        ``merge``: the pooled curve; ``vertical``: the grid and the averaged
        interpolated precision; None otherwise.
    counts : ThresholdCounts or None
        ``merge``: the pooled state.
    curves : tuple of PRCurve or None
        :meth:`from_cv_results`: each fold's curve.
    band_recall, band_low, band_high : ndarray or None
        :meth:`from_cv_results`: a recall grid and, at each level, the smallest and
        largest fold's interpolated precision (the band across folds).
    """

    how: str
    method: str
    value: float
    part_values: F64
    prevalences: F64
    recall: F64 | None = None
    precision: F64 | None = None
    counts: ThresholdCounts | None = None
    curves: tuple[PRCurve, ...] | None = None
    band_recall: F64 | None = None
    band_low: F64 | None = None
    band_high: F64 | None = None

    @classmethod
    def from_cv_results(
        cls, cv_results: Any, X: Any, y: ArrayLike, *, how: How = "vertical",
        method: APMethod = "step", recall_grid: ArrayLike | None = None,
        pos_label: Any = None, sample_weight: ArrayLike | None = None,
        response_method: str = "auto", zero_division: ZeroDivision = "nan",
    ) -> Aggregate:
        """One curve per fold of ``cross_validate(..., return_estimator=True,
        return_indices=True)``, aggregated by ``how``, with the band across folds.

        Each fold's fitted estimator scores its own test rows of ``X``
        (:meth:`prcurve.PRCurve.from_estimator`'s rules); ``curves`` holds the folds'
        curves, and ``band_low``/``band_high`` the smallest and largest fold's
        interpolated precision at each level of ``band_recall`` (the recall grid).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.model_selection import cross_validate
        >>> from prcurve import Aggregate
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
        >>> cv = cross_validate(LogisticRegression(), X, y, cv=3, return_estimator=True,
        ...                     return_indices=True)
        >>> result = Aggregate.from_cv_results(cv, X, y)
        >>> len(result.curves), result.how, bool((result.band_low <= result.band_high).all())
        (3, 'vertical', True)
        """
        # The scikit-learn adapter of the input layer above, imported lazily
        # (docs/architecture.md).
        from prcurve.io.estimators import curves_from_cv_results

        curves = curves_from_cv_results(cv_results, X, y, pos_label=pos_label,
                                        sample_weight=sample_weight,
                                        response_method=response_method,
                                        zero_division=zero_division)
        grid = (recall_levels(100) if recall_grid is None
                else check_recall_grid("recall_grid", recall_grid))
        result = aggregate(curves, how, method=method, recall_grid=grid,
                           zero_division=zero_division)
        with undefined_scope(zero_division):
            per_fold = np.array([c.interpolated_precision(grid) for c in curves])
        return replace(result, curves=tuple(curves), band_recall=grid,
                       band_low=per_fold.min(axis=0), band_high=per_fold.max(axis=0))

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Any:
        """Draw the folds' curves, each fold's unachievable region, the band and the
        aggregate (:func:`prcurve.present.cv_plot.plot_folds`; needs ``curves``)."""
        # Presentation above PR space, imported lazily (docs/architecture.md).
        from prcurve.present.cv_plot import plot_folds

        return plot_folds(self, ax, **kwargs)


def _as_counts(part: Any, index: int) -> ThresholdCounts:
    if isinstance(part, PRCurve):
        return part.counts
    if isinstance(part, ThresholdCounts):
        return part
    if isinstance(part, BinnedCounts):
        return part.to_threshold_counts()
    raise wrong_type(f"parts[{index}]", part,
                                 "PRCurve, ThresholdCounts or BinnedCounts")


def aggregate(
    parts: Sequence[PRCurve | ThresholdCounts | BinnedCounts],
    how: How = "merge",
    *,
    method: APMethod = "step",
    recall_grid: ArrayLike | None = None,
    degenerate: Degenerate = "undefined",
    zero_division: ZeroDivision = "nan",
) -> Aggregate:
    """Combine the curves or count states of several folds, tasks or classes.

    Parameters
    ----------
    parts : sequence of PRCurve, ThresholdCounts or BinnedCounts
    how : {"merge", "mean", "mean_normalized", "vertical"}, default "merge"
        The rule (module docstring). Boyd et al. (2012) recommends ``merge`` for folds of
        one distribution with calibrated scores and ``mean_normalized`` for
        parts of different skew.
    method : str, default "step"
        The AP method (``"davis_goadrich"`` for the paper's AUCPR/AUCNPR).
    recall_grid : array_like, optional
        Recall levels for ``vertical`` (default 0, 0.01, ..., 1).
    degenerate : {"undefined", "paper"}, default "undefined"
        ``mean_normalized``: a part without positives or without negatives has
        no normalized AP (0/0) and follows ``zero_division``; with ``"paper"``
        it scores 0 (no positives) or 1 (no negatives), Boyd et al.'s convention.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        For parts whose AP is undefined (no positives).

    Returns
    -------
    Aggregate

    Examples
    --------
    Two folds of different skew: the plain mean rewards the balanced fold's
    larger free area; the normalized mean does not.

    >>> from prcurve import pr_curve
    >>> from prcurve.space.aggregate import aggregate
    >>> balanced = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> skewed = pr_curve([1, 0, 0, 0, 0, 1, 0, 0], [8, 7, 6, 5, 4, 3, 2, 1])
    >>> round(aggregate([balanced, skewed], "mean").value, 4)
    0.75
    >>> round(aggregate([balanced, skewed], "mean_normalized").value, 4)
    0.6497
    >>> aggregate([balanced, skewed], "merge").counts.n_pos
    4.0
    """
    items = check_parts("parts", parts)
    rule = check_choice("how", how, HOWS)
    name = check_method(method)
    check_choice("degenerate", degenerate, ("paper", "undefined"))
    states = [_as_counts(part, i) for i, part in enumerate(items)]
    grid = (recall_levels(100) if recall_grid is None
            else check_recall_grid("recall_grid", recall_grid))
    with undefined_scope(zero_division):
        totals = np.array([c.n_pos + c.n_neg for c in states])
        positives = np.array([c.n_pos for c in states])
        prevalences = np.divide(positives, totals, out=np.full(totals.shape, np.nan),
                                where=totals > 0)
        if rule == "merge":
            merged = reduce(ThresholdCounts.merge, states)
            curve = PRCurve(merged, zero_division=zero_division)
            per_part = np.array([ap_from_counts(c, name) for c in states])
            return Aggregate(rule, name, ap_from_counts(merged, name), per_part, prevalences,
                             np.asarray(curve.recall), np.asarray(curve.precision), merged)
        if rule == "mean":
            per_part = np.array([ap_from_counts(c, name) for c in states])
            return Aggregate(rule, name, float(per_part.mean()), per_part, prevalences)
        if rule == "mean_normalized":
            per_part = np.array([
                PRCurve(c, zero_division=zero_division).aucnpr(method, degenerate=degenerate)
                for c in states
            ])
            return Aggregate(rule, name, float(per_part.mean()), per_part, prevalences)
        curves = np.array([
            PRCurve(c, zero_division=zero_division).interpolated_precision(grid) for c in states
        ])
        averaged = curves.mean(axis=0)
        return Aggregate(rule, name, float(averaged.mean()), curves.mean(axis=1), prevalences,
                         grid, averaged)


def macro_average_curve(
    parts: Sequence[PRCurve | ThresholdCounts],
    recall_grid: ArrayLike | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    n_threads: int | None = None,
) -> CurveInterval:
    """The macro-average PR curve of several classes, with a pointwise bootstrap band.

    The curve is ``vertical`` averaging (:func:`aggregate`): at each recall
    level, the mean over the parts of their interpolated precision
    ``p_interp(r) = max_{r' >= r} p(r')``. The band: each part's whole
    counts are resampled as :func:`prcurve.space.intervals.bootstrap_curve`
    resamples them (positives and negatives apart), all parts from one
    generator, one part after the other; each resample's curves are averaged
    and the band is the percentiles of those averages at each level. The parts
    are resampled independently: for the one-vs-rest classes of one data set,
    which share their samples, this is an approximation (docs/report.md).
    With one part it is ``bootstrap_curve`` with the same seed.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.aggregate import macro_average_curve
    >>> a = pr_curve([1, 0, 1, 1, 0, 0, 1, 0] * 20, [8, 7, 6, 5, 4, 3, 2, 1] * 20)
    >>> b = pr_curve([0, 1, 1, 0, 1, 0, 0, 1] * 20, [8, 7, 6, 5, 4, 3, 2, 1] * 20)
    >>> band = macro_average_curve([a, b], [0.5, 1.0], n_resamples=200, seed=0)
    >>> [round(float(p), 4) for p in band.estimate]  # (3/4 + 2/3) / 2 and (4/7 + 1/2) / 2
    [0.7083, 0.5357]
    >>> bool((band.lower <= band.estimate).all() and (band.estimate <= band.upper).all())
    True
    """
    items = check_parts("parts", parts)
    states = [_as_counts(part, i) for i, part in enumerate(items)]
    grid = (recall_levels(100) if recall_grid is None
            else check_recall_grid("recall_grid", recall_grid))
    b = check_n_resamples(n_resamples)
    lvl = check_level(level)
    rng = np.random.default_rng(check_seed(seed))
    estimate = np.asarray(aggregate(items, "vertical", recall_grid=grid).precision,
                          dtype=np.float64)
    statistic = "macro-average interpolated precision at recall levels"
    cells = [_Cells.from_counts(counts) for counts in states]
    if any(c.n_pos == 0 for c in cells):  # a class without positives: no curve to resample
        return CurveInterval(statistic, grid, estimate, estimate, estimate, BOOTSTRAP, lvl, b)
    total = np.zeros((b, grid.shape[0]))
    for state in cells:
        total += curve_draws(state, grid, b, rng, n_threads)
    alpha = 1.0 - lvl
    lower, upper = np.quantile(total / len(cells), [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return CurveInterval(statistic, grid, estimate, lower, upper, BOOTSTRAP, lvl, b)

"""The PR curve: a view of any count state, exact or binned.

:class:`PRCurve` computes nothing from raw data: it is built from a
:class:`~prcurve.ThresholdCounts` or :class:`~prcurve.BinnedCounts`, so code
that builds counts elsewhere (streaming, a cluster) gets every view. Arrays run
in order of decreasing threshold, that is increasing recall.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core import curve_blocks as blocks
from prcurve.core.average_precision import (
    AREA_METHODS,
    APMethod,
    ap_from_steps,
    ap_over_recall_range,
    check_method,
)
from prcurve.core.binned import BinnedCounts, resolve_edges
from prcurve.core.confusion import ConfusionMatrix, _prevalence
from prcurve.core.counts import (
    RecallSteps,
    ThresholdCounts,
    first_reaching,
    near_best,
    reaching,
    scale_exponent,
)
from prcurve.core.curve_blocks import VIEW_BLOCK, best_f_index, select_index
from prcurve.core.integer_scores import thresholds_at_or_above
from prcurve.core.roc import ROCCurve
from prcurve.core.table import Table
from prcurve.core.undefined import ZeroDivision, undefined, undefined_scope
from prcurve.errors import UndefinedMetricWarning
from prcurve.validation.arrays import (
    as_1d,
    check_choice,
    check_edges,
    check_finite,
    check_finite_number,
    check_fraction,
    check_positive_number,
    check_zero_division,
    wrong_type,
)
from prcurve.validation.labels import check_scored_labels
from prcurve.validation.space import (
    check_fractions,
    check_recall_range,
    method_without_recall_range,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from prcurve.present.plot import PRPlot
    from prcurve.space.bounds import Degenerate, MinimumPRCurve
    from prcurve.space.prg import PRGCurve

__all__ = ["OperatingPoint", "PRCurve", "binary_pr_curve"]

F64 = NDArray[np.float64]

_TABLE_COLUMNS = ("threshold", "precision", "recall", "tp", "fp", "fn", "tn", "f1")


class OperatingPoint(NamedTuple):
    """A value read off the curve and the operating point that gives it.

    ``threshold`` is the decision threshold (predict positive when
    ``score >= threshold``); ``precision`` and ``recall`` hold there.
    """

    value: float
    threshold: float
    precision: float
    recall: float


class PRCurve:
    """The precision–recall curve of a count state.

    Element ``i`` of ``precision`` (``recall``) is the precision (recall) of
    predicting positive every sample with score ``>= thresholds[i]``;
    ``thresholds`` is strictly decreasing. Ties are one point. For a binned
    state the thresholds are the lower edges of the non-empty bins.

    Build it with :func:`pr_curve` or :meth:`from_counts`.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> curve = pr_curve([1, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.7, 0.1])
    >>> curve.thresholds.tolist()
    [0.9, 0.8, 0.7, 0.1]
    >>> curve.precision.tolist()
    [1.0, 0.5, 0.75, 0.6]
    >>> curve.recall.tolist()
    [0.3333333333333333, 0.3333333333333333, 1.0, 1.0]
    """

    def __init__(
        self,
        counts: ThresholdCounts,
        *,
        edges: ArrayLike | None = None,
        zero_division: ZeroDivision = "nan",
    ) -> None:
        if not isinstance(counts, ThresholdCounts):
            raise wrong_type("counts", counts, "ThresholdCounts")
        check_zero_division(zero_division)
        self._counts = counts
        self._edges = None if edges is None else check_edges("edges", edges)
        self.zero_division: ZeroDivision = zero_division
        # Set by from_estimator: "predict_proba" or "decision_function"; None otherwise.
        self.response_method: str | None = None

    @classmethod
    def from_estimator(
        cls, estimator: Any, X: Any, y: ArrayLike, *, pos_label: Any = None,
        sample_weight: ArrayLike | None = None, response_method: str = "auto",
        bins: int | ArrayLike | None = None, zero_division: ZeroDivision = "nan",
    ) -> PRCurve:
        """The curve of a fitted binary scikit-learn classifier's scores on ``(X, y)``.

        As scikit-learn's ``PrecisionRecallDisplay.from_estimator``: ``predict_proba``'s
        column of ``pos_label`` (default ``classes_[1]``), else ``decision_function``;
        :attr:`response_method` says which (:mod:`prcurve.io.estimators`).

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from prcurve import PRCurve
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1]
        >>> curve = PRCurve.from_estimator(LogisticRegression().fit(X, y), X, y)
        >>> curve.response_method, len(curve)
        ('predict_proba', 4)
        """
        # An adapter of the input layer above, imported lazily (docs/architecture.md).
        from prcurve.io.estimators import curve_from_estimator

        return curve_from_estimator(estimator, X, y, pos_label=pos_label,
                                    sample_weight=sample_weight,
                                    response_method=response_method, bins=bins,
                                    zero_division=zero_division)

    @classmethod
    def from_counts(
        cls, counts: ThresholdCounts | BinnedCounts, *, zero_division: ZeroDivision = "nan"
    ) -> PRCurve:
        """The curve view of an exact or binned count state.

        Examples
        --------
        >>> from prcurve import BinnedCounts, PRCurve
        >>> b = BinnedCounts.from_scores([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], [0, 0.5, 1])
        >>> c = PRCurve.from_counts(b)
        >>> c.is_binned, c.thresholds.tolist(), c.precision.tolist()
        (True, [0.5, 0.0], [0.5, 0.5])
        """
        if isinstance(counts, BinnedCounts):
            return cls(counts.to_threshold_counts(), edges=counts.edges,
                       zero_division=zero_division)
        return cls(counts, zero_division=zero_division)

    # -- state ----------------------------------------------------------------------

    @property
    def counts(self) -> ThresholdCounts:
        """The count state this curve views (for a binned curve, per bin)."""
        return self._counts

    @property
    def is_binned(self) -> bool:
        return self._edges is not None

    @property
    def edges(self) -> F64 | None:
        """The bin edges of a binned curve; None for an exact curve."""
        return self._edges

    @property
    def thresholds(self) -> F64:
        return self._counts.thresholds

    # Full length, float64: a state of uint32 counts (ThresholdCounts' invariant)
    # converts them on the first access and keeps the float64 arrays in their place,
    # so the curve holds its counts once. The scalar views never ask (curve_blocks).
    @property
    def tp(self) -> F64:
        return self._counts.tp

    @property
    def fp(self) -> F64:
        return self._counts.fp

    def count_block(self, start: int, size: int) -> tuple[F64, F64]:
        """TP and FP of thresholds ``start`` to ``start + size`` as float64, read from the
        state a block at a time without making (or caching) the full-length views: the same
        values as ``tp[start:start + size]`` and ``fp[...]`` (core/curve_blocks.py)."""
        return (blocks.block(self._counts._tp, start, size),
                blocks.block(self._counts._fp, start, size))

    @cached_property
    def fn(self) -> F64:
        """Positive weight below each threshold: ``n_pos - tp``."""
        return self._counts.n_pos - self.tp

    @cached_property
    def tn(self) -> F64:
        """Negative weight below each threshold: ``n_neg - fp``."""
        return self._counts.n_neg - self.fp

    @property
    def n_pos(self) -> float:
        return self._counts.n_pos

    @property
    def n_neg(self) -> float:
        return self._counts.n_neg

    @property
    def prevalence(self) -> float:
        """n_pos / (n_pos + n_neg): the skew π of Boyd et al. (2012)."""
        with undefined_scope(self.zero_division):
            return float(_prevalence(self.n_pos, self.n_neg, 0.0, 0.0))

    def __len__(self) -> int:
        return len(self._counts)

    def __repr__(self) -> str:
        kind = f"binned, {len(self._edges) - 1} bins" if self._edges is not None else "exact"
        return (
            f"PRCurve({kind}, {len(self)} thresholds, n_pos={self.n_pos:g}, "
            f"n_neg={self.n_neg:g})"
        )

    def _repr_html_(self) -> str:
        """Notebook display: the state, AP in every method, the best F1 point, and the
        curve drawn (when matplotlib is installed)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            kind = "binned" if self.is_binned else "exact"
            names = ["curve", "thresholds", "positives", "negatives", "prevalence"]
            values = [kind, str(len(self)), f"{self.n_pos:g}", f"{self.n_neg:g}",
                      f"{self.prevalence:.4f}"]
            for method in ("step", "interpolated", "davis_goadrich"):
                names.append(f"AP ({method})")
                values.append(f"{self.average_precision(method):.4f}")
            best = self.best_f()
            names.append("best F1 (threshold)")
            values.append(f"{best.value:.4f} ({best.threshold:.6g})")
        summary = Table({"": np.array(names, dtype=object),
                         "value": np.array(values, dtype=object)})
        return summary.to_html(caption="PRCurve") + _svg_of(self)

    # -- arrays ----------------------------------------------------------------------

    @cached_property
    def _steps(self) -> RecallSteps:
        """The recall steps of the state, derived once for every AP method and area."""
        return RecallSteps.from_counts(self._counts)

    @cached_property
    def precision(self) -> F64:
        """TP / (TP + FP) at each threshold."""
        with undefined_scope(self.zero_division):
            return blocks.precisions(self.tp, self.fp)

    @cached_property
    def recall(self) -> F64:
        """TP / n_pos at each threshold (undefined when there are no positives)."""
        with undefined_scope(self.zero_division):
            return blocks.recalls(self.tp, self.n_pos)

    def f_beta(self, beta: float = 1.0) -> F64:
        """F-beta at each threshold (0 where TP = 0 and a FP or FN exists)."""
        b = check_positive_number("beta", beta)
        k = scale_exponent(self.n_pos + self.n_neg)  # counts of extreme size: a unit 2**-k
        with undefined_scope(self.zero_division):
            return blocks.f_betas(self.tp, self.fp, self.fn, k, b)

    def interpolated_precision(self, recall: ArrayLike | None = None) -> F64:
        """Interpolated precision p_interp(r) = max over r' >= r of p(r') (seeds 000, 003).

        Parameters
        ----------
        recall : array_like of float, optional
            Recall levels in [0, 1]. If None, p_interp at each threshold's
            recall (aligned with ``thresholds``); a level no threshold reaches
            gets 0.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
        >>> c.interpolated_precision().tolist()
        [1.0, 1.0, 0.6666666666666666, 0.6666666666666666]
        >>> c.interpolated_precision([0.0, 0.5, 1.0]).tolist()
        [1.0, 1.0, 0.6666666666666666]
        """
        # envelope[i] = max precision over operating points i, i+1, ...; recall is
        # non-decreasing, so the points with recall >= r start at the first index
        # whose recall reaches r (points on a vertical drop share one recall).
        envelope = np.fmax.accumulate(self.precision[::-1])[::-1]
        if recall is None:
            if len(self) == 0 or self.n_pos == 0:  # one (undefined) recall for all points
                return np.full(len(self), envelope[0] if len(self) else np.nan)
            return envelope[np.searchsorted(self.recall, self.recall, side="left")]
        levels = as_1d("recall", recall).astype(np.float64)
        for level in levels:
            check_fraction("recall", level)
        out = np.zeros(levels.shape[0])
        if len(self) and self.n_pos > 0:
            first = first_reaching(self.recall, levels)  # within SUM_TOLERANCE of a level
            reached = first < len(self)
            out[reached] = envelope[first[reached]]
        return out

    # -- reading the curve ---------------------------------------------------------------

    def at_threshold(self, threshold: float) -> ConfusionMatrix:
        """The confusion matrix of predicting positive when ``score >= threshold``.

        Exact for an exact curve; for a binned curve, exact when
        ``threshold`` is a bin edge and otherwise the counts of the bins whose
        lower edge is ``>= threshold``.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).at_threshold(0.75)
        ConfusionMatrix(tp=1.0, fp=1.0, fn=1.0, tn=1.0)
        """
        t = check_finite_number("threshold", threshold)
        above = thresholds_at_or_above(self.thresholds, threshold, t)  # integers exactly
        # One count each, read from the stored counts (uint32 for hard labels: no copy).
        tp = float(self._counts._tp[above - 1]) if above else 0.0
        fp = float(self._counts._fp[above - 1]) if above else 0.0
        return ConfusionMatrix(
            tp, fp, max(self.n_pos - tp, 0.0), max(self.n_neg - fp, 0.0),
            zero_division=self.zero_division,
        )

    def _point(self, index: int, value: float) -> OperatingPoint:
        if len(self) > VIEW_BLOCK and "precision" not in self.__dict__:
            # A long curve: the rates of one threshold, by the arrays' own formulas.
            tp, fp = blocks.block(self._counts._tp, index, 1), blocks.block(
                self._counts._fp, index, 1)
            precision = float(blocks.precisions(tp, fp)[0])
            recall = float(blocks.recalls(tp, self.n_pos)[0])
        else:
            precision, recall = float(self.precision[index]), float(self.recall[index])
        return OperatingPoint(
            value=float(value),
            threshold=self.thresholds[index].item(),  # an int for integer thresholds
            precision=precision,
            recall=recall,
        )

    def _unreached(self, what: str) -> OperatingPoint:
        value = undefined(what)
        return OperatingPoint(value, float("nan"), float("nan"), float("nan"))

    def best_f(self, beta: float = 1.0) -> OperatingPoint:
        """The threshold of maximal F-beta (the highest such threshold on ties).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> best = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).best_f()
        >>> best.threshold, round(best.value, 4)
        (0.7, 0.8)
        """
        with undefined_scope(self.zero_division):
            if len(self) > VIEW_BLOCK:  # no full-length arrays (core/curve_blocks.py)
                found = best_f_index(self._counts._tp, self._counts._fp, self.n_pos, self.n_neg,
                                     check_positive_number("beta", beta))
                return (self._unreached(f"best F{beta:g}") if found is None
                        else self._point(*found))
            f = self.f_beta(beta)
            if len(self) == 0 or np.isnan(f).all():
                return self._unreached(f"best F{beta:g}")
            index = int(np.flatnonzero(near_best(f))[0])  # ties within SUM_TOLERANCE
            return self._point(index, float(f[index]))

    def precision_at_recall(self, recall: float) -> OperatingPoint:
        """The highest precision among thresholds with recall ``>= recall``.

        Ties in precision go to the higher recall. If no threshold reaches
        the recall (no positives), the value follows ``zero_division``.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> point = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).precision_at_recall(0.6)
        >>> round(point.value, 4), point.threshold, point.recall
        (0.6667, 0.7, 1.0)
        """
        r = check_fraction("recall", recall)
        with undefined_scope(self.zero_division):
            if len(self) > VIEW_BLOCK and self.n_pos > 0:
                with contextlib.suppress(LookupError):  # core/curve_blocks.py
                    return self._selected(select_index(self._counts._tp, self._counts._fp,
                                                       self.n_pos, r,
                                                       "recall"), f"precision at recall {r:g}")
            candidates = np.flatnonzero(reaching(self.recall, r))
            return self._select(candidates, self.precision, self.recall,
                                f"precision at recall {r:g}")

    def recall_at_precision(self, precision: float) -> OperatingPoint:
        """The highest recall among thresholds with precision ``>= precision``.

        Ties in recall go to the higher precision. If no threshold reaches
        the precision, the value follows ``zero_division``.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).recall_at_precision(0.6).value
        1.0
        """
        p = check_fraction("precision", precision)
        with undefined_scope(self.zero_division):
            if len(self) > VIEW_BLOCK and self.n_pos > 0:
                with contextlib.suppress(LookupError):  # core/curve_blocks.py
                    return self._selected(select_index(self._counts._tp, self._counts._fp,
                                                       self.n_pos, p,
                                                       "precision"), f"recall at precision {p:g}")
            candidates = np.flatnonzero(reaching(self.precision, p))
            return self._select(candidates, self.recall, self.precision,
                                f"recall at precision {p:g}")

    def _selected(self, found: tuple[int, float] | None, what: str) -> OperatingPoint:
        return self._unreached(what) if found is None else self._point(*found)

    def _select(
        self, candidates: NDArray[np.intp], primary: F64, secondary: F64, what: str
    ) -> OperatingPoint:
        """Among ``candidates``, the largest ``primary``, then ``secondary``, then threshold.

        Values within :data:`~prcurve.core.counts.SUM_TOLERANCE` of the largest tie, so
        the same data summed in another order picks the same operating point.
        """
        if candidates.shape[0] == 0:
            return self._unreached(what)
        tied = candidates[near_best(primary[candidates])]
        tied = tied[near_best(secondary[tied])]
        index = int(tied[0])  # candidates ascend: the highest threshold among ties
        return self._point(index, float(primary[index]))

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> PRPlot:
        """Draw the curve with :func:`prcurve.present.plot.plot_pr_curve` (matplotlib loads then).

        The step function its step AP measures, the unachievable region of
        Boyd et al. (2012) shaded, the random baseline at the prevalence, iso-F1
        contours and the best-F point; returns the matplotlib objects drawn.
        """
        from prcurve.present.plot import plot_pr_curve

        return plot_pr_curve(self, ax, **kwargs)

    def roc(self, *, drop_intermediate: bool = False) -> ROCCurve:
        """The ROC curve of the same counts (:class:`prcurve.ROCCurve`), point for point.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).roc().auc()
        0.75
        """
        return ROCCurve(self._counts, drop_intermediate=drop_intermediate,
                        zero_division=self.zero_division)

    def average_precision(self, method: APMethod = "step") -> float:
        """Average precision of this curve by a named method (see
        :func:`prcurve.average_precision`).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
        >>> c.average_precision(), c.average_precision("interpolated")
        (0.8333333333333333, 0.8333333333333333)
        """
        name = check_method(method)
        with undefined_scope(self.zero_division):
            return ap_from_steps(self._steps, name)

    # -- PR space (Boyd et al. 2012: prcurve.space.bounds) ------------------------------

    def min_curve(self, recall: ArrayLike | None = None) -> MinimumPRCurve:
        """The minimum PR curve (Theorem 1 of Boyd et al. 2012) at this curve's prevalence.

        Evaluated at ``recall`` levels, or at this curve's own recalls so that
        ``curve.precision >= curve.min_curve().precision`` element by element
        (up to rounding) for any data.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> c = pr_curve([0, 0, 1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
        >>> c.min_curve([0.5, 1.0]).precision.round(4).tolist()
        [0.2, 0.3333]
        """
        # A convenience view from the PR-space layer above: the one kind of upward
        # import allowed, made lazily (docs/architecture.md).
        from prcurve.space import bounds

        with undefined_scope(self.zero_division):
            pi = self.prevalence
            if recall is None:
                levels = np.asarray(self.recall, dtype=np.float64)
            else:
                levels = check_fractions("recall", recall)
            if math.isnan(pi) or np.isnan(levels).any():
                nan = np.full(levels.shape, np.nan)
                return bounds.MinimumPRCurve(levels, nan)
            minimum = bounds._min_precision_array(levels, np.float64(pi))
            return bounds.MinimumPRCurve(levels, minimum)

    def aucpr(
        self, method: APMethod = "davis_goadrich", recall_range: tuple[float, float] = (0.0, 1.0)
    ) -> float:
        """The area under this curve for recall in ``recall_range``, by a named method.

        On ``(0, 1)`` this is :meth:`average_precision`. Over ``[a, b]`` the
        method's own curve is integrated from recall ``a`` to ``b``: ``step``
        and ``interpolated`` are constant on each recall step (the precision, or
        the interpolated precision, at the step), so a step that straddles
        ``a`` or ``b`` counts for the part inside; ``trapezoid`` is linear in
        recall between adjacent points and is integrated exactly on the clipped
        part; ``davis_goadrich`` integrates the Davis–Goadrich interpolation in
        closed form between the clipped recalls. ``11point`` and ``101point``
        average fixed recall levels and have no restricted area.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
        >>> c.aucpr("step", (0.5, 1.0)), c.aucpr("step")
        (0.3333333333333333, 0.8333333333333333)
        """
        name = check_method(method)
        lo, hi = check_recall_range(recall_range)
        if (lo, hi) != (0.0, 1.0) and name not in AREA_METHODS:
            raise method_without_recall_range(name)
        with undefined_scope(self.zero_division):
            return ap_over_recall_range(self._steps, name, (lo, hi))

    def aucnpr(
        self,
        method: APMethod = "davis_goadrich",
        recall_range: tuple[float, float] = (0.0, 1.0),
        *,
        degenerate: Degenerate = "undefined",
    ) -> float:
        """Normalized area (AUCNPR, Boyd et al. 2012, Eq. 3) by a named method over a recall range.

        ``(area − min) / ((b − a) − min)``, where the area is
        :meth:`aucpr` and ``min`` is the minimum of the same method over the
        same range (:func:`prcurve.space.bounds.min_average_precision`: Theorem 2 /
        Corollary 4 for ``davis_goadrich``, Theorem 3 for ``step``, ...). The
        worst ranking scores 0 and a perfect one 1 at any skew. ``step`` and
        ``trapezoid`` need whole-number class totals (their minimum depends on
        the sample counts). Without positives or negatives the normalization is
        0/0 and follows the curve's ``zero_division`` (``degenerate="undefined"``);
        ``degenerate="paper"`` gives Boyd et al.'s 0 (no positives) and 1 (no negatives).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> worst = pr_curve([0, 0, 1, 1], [0.9, 0.8, 0.7, 0.6])
        >>> perfect = pr_curve([1, 1, 0, 0], [0.9, 0.8, 0.7, 0.6])
        >>> round(worst.aucnpr(), 12), perfect.aucnpr(), round(worst.aucnpr("step"), 12)
        (0.0, 1.0, 0.0)
        """
        name = check_method(method)
        lo, hi = check_recall_range(recall_range)
        if (lo, hi) != (0.0, 1.0) and name not in AREA_METHODS:
            raise method_without_recall_range(name)
        check_choice("degenerate", degenerate, ("paper", "undefined"))
        # A convenience view from the PR-space layer above: the one kind of upward
        # import allowed, made lazily (docs/architecture.md).
        from prcurve.space import bounds

        with undefined_scope(self.zero_division):
            p, n = self.n_pos, self.n_neg
            if p + n == 0:
                return undefined(f"aucnpr[{name}] (no samples)")
            if p == 0 or n == 0:
                return bounds._degenerate_value(p == 0, f"aucnpr[{name}]", degenerate)
            area = ap_over_recall_range(self._steps, name, (lo, hi))
            return bounds.normalized_average_precision(
                area, p, n, method, recall_range=(lo, hi), degenerate=degenerate,
                zero_division=self.zero_division,
            )

    def normalized_average_precision(self, method: APMethod = "step") -> float:
        """AP normalized by the minimum of the same method: :meth:`aucnpr` over recall [0, 1].

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> round(pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).normalized_average_precision(), 4)
        0.7143
        """
        return self.aucnpr(method, (0.0, 1.0))

    def modified_f_beta(self, beta: float = 1.0) -> F64:
        """Boyd et al.'s modified F-beta at each threshold
        (:func:`prcurve.space.bounds.modified_f_beta`).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).modified_f_beta().round(4).tolist()
        [0.6667, 0.0, 0.5, 0.0]
        """
        b = check_positive_number("beta", beta)
        # A convenience view from the PR-space layer above: the one kind of upward
        # import allowed, made lazily (docs/architecture.md).
        from prcurve.space import bounds

        with undefined_scope(self.zero_division):
            pi = np.float64(self.prevalence)
            return bounds._modified_f_beta_array(self.recall, self.precision, pi, b)

    def prg(self) -> PRGCurve:
        """The precision-recall-gain view of this curve (:class:`prcurve.space.prg.PRGCurve`;
        Flach and Kull 2015): gains, AUPRG, the convex hull, the F-gain-optimal threshold.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg().auprg()
        0.25
        """
        # A convenience view from the PR-space layer above, imported lazily
        # (docs/architecture.md).
        from prcurve.space.prg import PRGCurve

        return PRGCurve(self)

    # -- experiment trackers (prcurve.present.trackers; each library optional) -----------

    def to_tensorboard(self, writer_or_logdir: Any, tag: str = "pr_curve", step: int = 0, *,
                       max_points: int = 200) -> Any:
        """Write TensorBoard PR-curve plugin data, thinned to ``max_points`` (ends and
        best F kept): :func:`prcurve.present.trackers.to_tensorboard`."""
        # Presentation above the core, imported lazily (docs/architecture.md).
        from prcurve.present.trackers import to_tensorboard

        return to_tensorboard(self, writer_or_logdir, tag, step, max_points=max_points)

    def log_mlflow(self, *, prefix: str = "pr", step: int | None = None,
                   max_points: int = 200, plot: bool = True) -> dict[str, float]:
        """Log the numbers, the thinned curve and the plot to MLflow's active run:
        :func:`prcurve.present.trackers.log_mlflow`."""
        # Presentation above the core, imported lazily (docs/architecture.md).
        from prcurve.present.trackers import log_mlflow

        return log_mlflow(self, prefix=prefix, step=step, max_points=max_points, plot=plot)

    def to_wandb_table(self, *, max_points: int = 200, use_wandb: bool | None = None) -> Any:
        """The thinned curve as a W&B table, thresholds included:
        :func:`prcurve.present.trackers.to_wandb_table`."""
        # Presentation above the core, imported lazily (docs/architecture.md).
        from prcurve.present.trackers import to_wandb_table

        return to_wandb_table(self, max_points=max_points, use_wandb=use_wandb)

    def to_table(self, columns: tuple[str, ...] = ("threshold", "precision", "recall")) -> Table:
        """The curve as a table, one row per threshold (the Precision And Recall tutorial's table).

        ``columns`` picks from threshold, precision, recall, tp, fp, fn, tn, f1.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> print(pr_curve([1, 0, 1], [0.9, 0.5, 0.1]).to_table().to_markdown(digits=2))
        | threshold | precision | recall |
        |:---------:|:---------:|:------:|
        |   0.90    |   1.00    |  0.50  |
        |   0.50    |   0.50    |  0.50  |
        |   0.10    |   0.67    |  1.00  |
        """
        for column in columns:
            check_choice("columns", column, _TABLE_COLUMNS)
        with undefined_scope(self.zero_division):
            source: dict[str, Any] = {
                "threshold": lambda: self.thresholds,
                "precision": lambda: self.precision,
                "recall": lambda: self.recall,
                "tp": lambda: self.tp,
                "fp": lambda: self.fp,
                "fn": lambda: self.fn,
                "tn": lambda: self.tn,
                "f1": lambda: self.f_beta(1.0),
            }
            return Table({column: source[column]() for column in columns})


def binary_pr_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> PRCurve:
    """The PR curve of 1-D scores against binary (or soft) labels.

    The binary core of :func:`prcurve.pr_curve`, which adds score matrices
    (one-vs-rest) on top; the parameters are the same.

    Examples
    --------
    >>> from prcurve.core.curve import binary_pr_curve
    >>> binary_pr_curve([1, 0, 1], [0.9, 0.5, 0.1]).tp.tolist()
    [1.0, 1.0, 2.0]
    """
    check_zero_division(zero_division)
    scores, binary, weights = check_scored_labels(
        y_true, y_score, sample_weight, pos_label, finite=False, integers=bins is None
    )
    if bins is None:  # NaN and infinity checked by the state (by its sort, if hard labels)
        return PRCurve(ThresholdCounts._from_checked(scores, binary, weights,
                                                     unchecked="y_score"),
                       zero_division=zero_division)
    check_finite("y_score", scores)
    binned = BinnedCounts(resolve_edges(bins, scores))
    binned._add_checked(scores, binary, weights)
    return PRCurve.from_counts(binned, zero_division=zero_division)


def _svg_of(curve: PRCurve) -> str:
    """The curve drawn as inline SVG for a notebook; empty without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return ""
    # Convenience display: the presentation layer above, imported lazily (docs/architecture.md).
    from prcurve.present.plot import plot_pr_curve, svg_text

    def build() -> Figure:  # built, as saved, in matplotlib's defaults (not the user's)
        figure = Figure(figsize=(6.4, 4.2), layout="constrained")
        plot_pr_curve(curve, figure.add_subplot(), label="curve")
        return figure

    return svg_text(build)

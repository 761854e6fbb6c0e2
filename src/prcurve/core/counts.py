"""The core state: weighted true/false positive counts at every distinct score.

Every precision–recall quantity in prcurve is a function of this statistic
(docs/definitions.md, "The core state")::

    for each distinct score threshold t (strictly decreasing):
        tp(t) = weight of positives with score >= t
        fp(t) = weight of negatives with score >= t
    plus the totals n_pos, n_neg

:class:`ThresholdCounts` holds it exactly (one row per distinct score);
:class:`prcurve.BinnedCounts` holds it per bin. Views (curves, AP methods,
rates) never re-sort scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.distinct_rows import weighted_state
from prcurve.core.hard_labels import hard_label_counts, hard_label_ranks
from prcurve.core.integer_scores import as_integers_with
from prcurve.core.sorting import _run_starts
from prcurve.core.step_select import recall_steps
from prcurve.validation.arrays import check_finite, mixed_integer_thresholds, wrong_type
from prcurve.validation.labels import (
    BinaryLabels,
    check_scored_labels,
    check_threshold_counts,
    weight_overflow,
)

if TYPE_CHECKING:
    from prcurve.core.binned import BinnedCounts

__all__ = ["ThresholdCounts", "merge_cumulative"]

F64 = NDArray[np.float64]

SUM_TOLERANCE = 1e-10
"""How close a ratio of summed weights (a recall, a precision, an F value) must come to a
level to count as reaching it, when a discrete outcome depends on the comparison.

The same weights summed in another order (chunks, streamed batches, a cluster's merge
tree) round differently, so ``tp / n_pos`` can land an ulp on either side of a level
that it equals mathematically (docs/definitions.md, "Sums of weights"). Recall is exact
where it matters most: a state whose positives are all above its last threshold has
``tp[-1] == n_pos`` exactly, built or merged."""

_MODERATE_EXPONENT = 200  # counts within 2**±200: products of four stay normal floats


def scale_exponent(largest: float) -> int:
    """The power of two ``k`` that brings ``largest * 2**k`` to a moderate size, or 0.

    0 (no scaling: results stay bit-identical) for counts in ``[2**-200, 2**200]``.
    Scaling every count of a state by ``2**k`` is exact and leaves every rate and AP
    unchanged; views use it so that products of counts neither overflow nor lose digits
    to subnormal numbers (weights like 1e300 or 1e-300).
    """
    if largest == 0 or not math.isfinite(largest):
        return 0
    exponent = math.frexp(largest)[1]
    return 0 if abs(exponent) <= _MODERATE_EXPONENT else -exponent


def sum_of_products(a: NDArray[Any], b: NDArray[Any], *, overwrite_b: bool = False) -> float:
    """``sum(a * b)`` by numpy's pairwise summation, never by BLAS.

    ``np.dot`` hands long vectors (over 10,000 values) to the BLAS library (OpenBLAS in
    numpy's wheels), which splits them over its threads: the last bit then depends on
    the number of cores, and those threads keep spinning after the call (about 0.1 s
    of CPU per call, measured on 2 cores), taking the cores from the threads of the
    next sort. With ``overwrite_b`` the products are written over ``b`` (a temporary of
    the caller's: no fresh array).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.counts import sum_of_products
    >>> sum_of_products(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25, 1.0]))
    4.0
    """
    products = np.multiply(a, b, out=b if overwrite_b else None)
    return float(products.sum())


def reaching(values: NDArray[Any], level: float) -> NDArray[np.bool_]:
    """Which ``values`` (ratios of summed weights) reach ``level``, within :data:`SUM_TOLERANCE`."""
    return np.asarray(values >= level - SUM_TOLERANCE)


def first_reaching(values: NDArray[Any], levels: NDArray[Any]) -> NDArray[np.intp]:
    """For each level, the first index of non-decreasing ``values`` that reaches it
    (:func:`reaching`); ``len(values)`` where none does."""
    return np.searchsorted(values, np.asarray(levels) - SUM_TOLERANCE, side="left")


def near_best(values: NDArray[Any]) -> NDArray[np.bool_]:
    """Which ``values`` tie with the largest (NaN never does), within :data:`SUM_TOLERANCE`."""
    defined = ~np.isnan(values)
    if not defined.any():  # nothing to compare: every value ties
        return np.ones(values.shape, dtype=bool)
    best = float(np.max(values[defined]))
    with np.errstate(invalid="ignore"):
        return np.asarray(values >= best - SUM_TOLERANCE)


def _runs(sorted_values: NDArray[Any]) -> tuple[NDArray[Any], F64]:
    """Distinct values of an ascending array and how often each occurs (as float64).

    When every value is distinct the input itself is returned (no copy).
    """
    starts = _run_starts(sorted_values)
    if starts is None:
        return sorted_values, np.ones(sorted_values.shape[0])
    counts = np.diff(starts, append=sorted_values.shape[0]).astype(np.float64)
    return sorted_values[starts], counts


_UINT32_LIMIT = (1 << 32) - 1


def _counts_dtype(tp_a: NDArray[Any], fp_a: NDArray[Any], tp_b: NDArray[Any],
                  fp_b: NDArray[Any]) -> np.dtype[Any]:
    """The dtype the merged cumulative counts need: float64 for weights, uint32 while
    integer counts fit, else int64."""
    dtype = np.result_type(tp_a, tp_b)
    if dtype.kind == "f":
        return np.dtype(np.float64)
    largest = sum(int(a[-1]) if a.shape[0] else 0 for a in (tp_a, fp_a, tp_b, fp_b))
    return np.dtype(np.uint32) if largest <= _UINT32_LIMIT else np.dtype(np.int64)


def merge_cumulative(
    values_a: NDArray[Any], tp_a: NDArray[Any], fp_a: NDArray[Any],
    values_b: NDArray[Any], tp_b: NDArray[Any], fp_b: NDArray[Any],
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The merge of two states given as strictly decreasing thresholds and cumulative
    counts (at or above each threshold): the thresholds of both, strictly decreasing,
    and the cumulative counts of the union.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.counts import merge_cumulative
    >>> v, tp, fp = merge_cumulative(np.array([0.9, 0.5]), np.array([1, 1]), np.array([0, 1]),
    ...                              np.array([0.5, 0.1]), np.array([1, 2]), np.array([0, 0]))
    >>> v.tolist(), tp.tolist(), fp.tolist()
    ([0.9, 0.5, 0.1], [1, 2, 3], [0, 1, 1])
    """
    n_a, n_b = values_a.shape[0], values_b.shape[0]
    dtype = _counts_dtype(tp_a, fp_a, tp_b, fp_b)
    if n_a == 0 or n_b == 0:
        values, tp, fp = (values_b, tp_b, fp_b) if n_a == 0 else (values_a, tp_a, fp_a)
        return values, tp.astype(dtype, copy=False), fp.astype(dtype, copy=False)
    both = np.concatenate((values_a, values_b))
    # Two strictly decreasing runs: timsort reverses each and merges them (linear time).
    order = np.argsort(both, kind="stable")[::-1]
    values = both[order]
    del both
    from_a = order < n_a
    del order
    n = n_a + n_b
    index = np.cumsum(from_a, dtype=np.intp)  # thresholds of a at or above position j
    tp = _gather(tp_a, index, dtype)
    fp = _gather(fp_a, index, dtype)
    np.cumsum(np.logical_not(from_a, out=from_a), dtype=np.intp, out=index)  # those of b
    del from_a
    tp += _gather(tp_b, index, dtype)
    fp += _gather(fp_b, index, dtype)
    del index
    keep = np.empty(n, dtype=bool)
    np.not_equal(values[:-1], values[1:], out=keep[:-1])  # the last of each equal pair
    keep[-1] = True
    if not keep.all():
        values, tp, fp = values[keep], tp[keep], fp[keep]
    return values, tp, fp


def _gather(
    cumulative: NDArray[Any], index: NDArray[np.intp], dtype: np.dtype[Any],
) -> NDArray[Any]:
    """``cumulative[index - 1]``, 0 where ``index`` is 0 (nothing of that run above)."""
    padded = np.empty(cumulative.shape[0] + 1, dtype=dtype)
    padded[0] = 0
    padded[1:] = cumulative
    return padded[index]


def _as_float64(counts: NDArray[Any]) -> F64:
    """Counts as float64: the array itself when it is float64, else a read-only converted
    copy (integer counts below 2^53: exact)."""
    if counts.dtype == np.float64:
        return counts
    converted = counts.astype(np.float64)
    converted.setflags(write=False)
    return converted


class ThresholdCounts:
    """Exact cumulative weighted counts at every distinct score.

    Element ``i`` of ``tp`` (``fp``) is the weight of positives (negatives)
    whose score is ``>= thresholds[i]``. ``thresholds`` is strictly
    decreasing, so ``tp`` and ``fp`` are non-decreasing. Ties share one row:
    one operating point. ``n_pos`` and ``n_neg`` are the total weights; for
    counts built from scores ``tp[-1] == n_pos`` and ``fp[-1] == n_neg``, while
    a state built elsewhere (a truncated ranking) may leave weight below every
    threshold (``tp[-1] <= n_pos``).

    Build it with :meth:`from_scores`; combine two with :meth:`merge`. The
    arrays are read-only. A state of hard, unweighted labels stores its counts as
    uint32 (16 bytes a threshold with the thresholds, not 24); ``tp`` and ``fp`` are
    float64 for every state (converted from uint32 once, on the first access).

    Parameters
    ----------
    thresholds : array_like of float, shape (k,)
        Strictly decreasing, finite.
    tp, fp : array_like of float, shape (k,)
        Cumulative, non-negative, non-decreasing weights.
    n_pos, n_neg : float
        Total positive and negative weight, ``>= tp[-1]`` and ``>= fp[-1]``.

    Examples
    --------
    >>> from prcurve import ThresholdCounts
    >>> c = ThresholdCounts.from_scores([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist()
    ([0.9, 0.8, 0.1], [1.0, 2.0, 2.0], [0.0, 1.0, 2.0])
    >>> c.n_pos, c.n_neg
    (2.0, 2.0)
    """

    __slots__ = ("_fp", "_n_neg", "_n_pos", "_thresholds", "_tp")

    # Invariant (issue 26, item 6): ``_tp`` and ``_fp`` are float64, or, for a state of
    # hard, unweighted labels, an integer dtype holding the same counts exactly (uint32
    # while the rows fit: 4 bytes a threshold instead of 8, 240 MB less at 3*10^7
    # thresholds). ``tp`` and ``fp`` are float64 always: the first access converts the
    # integers (exact) and keeps the float64 array in their place (held once, not both).
    # Views inside the package read ``_tp`` and ``_fp`` and turn each slice or gather
    # into float64 before any arithmetic (:mod:`prcurve.core.curve_blocks`, the ROC
    # area, :meth:`RecallSteps.from_counts`): the float64 state's numbers bit for bit.

    def __init__(
        self,
        thresholds: ArrayLike,
        tp: ArrayLike,
        fp: ArrayLike,
        n_pos: float,
        n_neg: float,
    ) -> None:
        t, p, f, n_p, n_n = check_threshold_counts(thresholds, tp, fp, n_pos, n_neg)
        self._init(t, p, f, n_p, n_n)

    def _init(self, thresholds: F64, tp: F64, fp: F64, n_pos: float, n_neg: float) -> None:
        for array in (thresholds, tp, fp):
            array.setflags(write=False)
        self._thresholds = thresholds
        self._tp = tp
        self._fp = fp
        self._n_pos = float(n_pos)
        self._n_neg = float(n_neg)

    @classmethod
    def _trusted(
        cls, thresholds: F64, tp: F64, fp: F64, n_pos: float, n_neg: float
    ) -> ThresholdCounts:
        """Build from arrays this package computed and owns (no validation, no copy)."""
        counts = cls.__new__(cls)
        counts._init(thresholds, tp, fp, n_pos, n_neg)
        return counts

    @classmethod
    def _from_ascending(
        cls, values: F64, pos: F64, neg: F64, *, drop_empty: bool = True
    ) -> ThresholdCounts:
        """From ascending distinct values with per-value positive/negative weight."""
        if drop_empty:
            keep = (pos + neg) > 0  # a zero-weight group is no operating point
            if not keep.all():
                values, pos, neg = values[keep], pos[keep], neg[keep]
        thresholds = values[::-1] + 0.0  # + 0.0 turns -0.0 into 0.0; also a copy
        del values
        with np.errstate(over="ignore"):
            tp = np.cumsum(pos[::-1])
            fp = np.cumsum(neg[::-1])
        n_pos = float(tp[-1]) if tp.shape[0] else 0.0
        n_neg = float(fp[-1]) if fp.shape[0] else 0.0
        if not math.isfinite(n_pos + n_neg):  # weights summing past float64 (issue 10)
            raise weight_overflow("sample_weight", max(float(np.max(pos, initial=0.0)),
                                                      float(np.max(neg, initial=0.0))))
        return cls._trusted(thresholds.astype(np.float64, copy=False), tp, fp, n_pos, n_neg)

    @classmethod
    def empty(cls) -> ThresholdCounts:
        """The counts of no data: the identity of :meth:`merge`.

        Examples
        --------
        >>> from prcurve import ThresholdCounts
        >>> len(ThresholdCounts.empty())
        0
        """
        z = np.zeros(0, dtype=np.float64)
        return cls._trusted(z, z.copy(), z.copy(), 0.0, 0.0)

    @classmethod
    def from_scores(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        pos_label: Any = None,
    ) -> ThresholdCounts:
        """Count weighted positives and negatives at every distinct score.

        Parameters
        ----------
        y_true : array_like, shape (n,)
            Binary labels (booleans, {0, 1}, {-1, 1}, or any two values with
            ``pos_label``) or soft labels in [0, 1]: a sample with label ``y``
            and weight ``w`` adds ``w*y`` to the positives and ``w*(1-y)`` to
            the negatives.
        y_score : array_like, shape (n,)
            Finite scores; higher means more likely positive. Used as given:
            never rescaled.
        sample_weight : array_like, shape (n,), optional
            Finite, non-negative weights; a weight of 0 removes the sample. The
            data may be one part of a larger whole (a chunk, a partition), so its
            weights may all be 0: the state is then empty. Their total must be a
            finite float64.
        pos_label : scalar, optional
            The value of ``y_true`` that marks a positive.

        Returns
        -------
        ThresholdCounts
            One row per distinct score carrying non-zero weight.

        Examples
        --------
        >>> from prcurve import ThresholdCounts
        >>> c = ThresholdCounts.from_scores(["spam", "ham", "spam"], [3, 2, 1], pos_label="spam")
        >>> c.tp.tolist(), c.fp.tolist()
        ([1.0, 1.0, 2.0], [0.0, 1.0, 1.0])
        >>> soft = ThresholdCounts.from_scores([0.25, 1.0], [0.5, 0.5], sample_weight=[4, 1])
        >>> soft.tp.tolist(), soft.fp.tolist()
        ([2.0], [3.0])
        """
        scores, labels, weights = check_scored_labels(
            y_true, y_score, sample_weight, pos_label, whole=False, integers=True
        )
        return cls._from_checked(scores, labels, weights)

    @classmethod
    def _from_checked(
        cls,
        scores: NDArray[np.floating[Any]],
        labels: BinaryLabels,
        weights: F64 | None,
        *,
        unchecked: str | None = None,
    ) -> ThresholdCounts:
        """:meth:`from_scores` on inputs that passed validation; ``unchecked`` names the
        argument of scores not yet checked for NaN and infinity (the sort checks them)."""
        if scores.dtype.kind == "i":  # beyond float64's exact range (check_scores)
            return cls._from_integers(scores, labels, weights)
        if weights is None and labels.positive is not None:
            return cls._trusted(*hard_label_counts(scores, labels.positive,
                                                   unchecked=unchecked))
        if unchecked is not None:
            check_finite(unchecked, scores)
        w = np.ones(scores.shape[0]) if weights is None else weights
        return cls._trusted(*weighted_state(scores, labels.positive, labels.soft, w))

    @classmethod
    def _from_integers(cls, scores: NDArray[Any], labels: BinaryLabels,
                       weights: F64 | None) -> ThresholdCounts:
        """The state of int64 scores float64 cannot hold (2^60 + 1), ordered as integers,
        as scikit-learn orders them: the state of their dense ranks (exact in float64),
        whose thresholds are then the integers themselves (an int64 array)."""
        distinct, rank = np.unique(scores, return_inverse=True)
        state = cls._from_checked(rank.astype(np.float64), labels, weights)
        thresholds: Any = distinct[state._thresholds.astype(np.intp)]  # int64: see above
        return cls._trusted(thresholds, state._tp, state._fp, state._n_pos, state._n_neg)

    # -- the state -----------------------------------------------------------------

    @property
    def thresholds(self) -> F64:
        """Distinct scores, strictly decreasing (read-only)."""
        return self._thresholds

    @property
    def tp(self) -> F64:
        """Weight of positives with score >= ``thresholds[i]`` (read-only float64)."""
        self._tp = _as_float64(self._tp)  # integer counts: converted once, kept instead
        return self._tp

    @property
    def fp(self) -> F64:
        """Weight of negatives with score >= ``thresholds[i]`` (read-only float64)."""
        self._fp = _as_float64(self._fp)
        return self._fp

    @property
    def n_pos(self) -> float:
        """Total positive weight."""
        return self._n_pos

    @property
    def n_neg(self) -> float:
        """Total negative weight."""
        return self._n_neg

    def __len__(self) -> int:
        return int(self._thresholds.shape[0])

    def __repr__(self) -> str:
        return (
            f"ThresholdCounts({len(self)} thresholds, n_pos={self._n_pos:g}, "
            f"n_neg={self._n_neg:g})"
        )

    def pos_weight(self) -> F64:
        """Positive weight at exactly each threshold (the tie group's share)."""
        return np.diff(self._tp, prepend=0.0)

    def neg_weight(self) -> F64:
        """Negative weight at exactly each threshold."""
        return np.diff(self._fp, prepend=0.0)

    # -- combining -------------------------------------------------------------------

    def merge(self, other: ThresholdCounts) -> ThresholdCounts:
        """The counts of the concatenation of both data sets.

        Associative and commutative; equal to :meth:`from_scores` on the
        concatenated data (exactly for integer weights, to float64 rounding
        otherwise). Weight below every threshold (``n_pos - tp[-1]``) is kept.

        Examples
        --------
        >>> from prcurve import ThresholdCounts
        >>> a = ThresholdCounts.from_scores([1, 0], [0.9, 0.5])
        >>> b = ThresholdCounts.from_scores([1, 1], [0.5, 0.1])
        >>> a.merge(b).tp.tolist(), a.merge(b).fp.tolist()
        ([1.0, 2.0, 3.0], [0.0, 1.0, 1.0])
        """
        if not isinstance(other, ThresholdCounts):
            raise wrong_type("other", other, "ThresholdCounts")
        if other._n_pos == 0 and other._n_neg == 0 and len(other) == 0:
            return self
        if self._n_pos == 0 and self._n_neg == 0 and len(self) == 0:
            return other
        if not math.isfinite(self._n_pos + self._n_neg + other._n_pos + other._n_neg):
            raise weight_overflow("other", max(self._n_pos, self._n_neg, other._n_pos,
                                               other._n_neg))
        mine, theirs = as_integers_with(self._thresholds, other._thresholds)
        values, tp, fp = merge_cumulative(mine, self._tp, self._fp,
                                          theirs, other._tp, other._fp)
        # Every threshold either side had is kept (a weight below the rounding of the
        # cumulative sums can difference to 0 without being absent).
        last = tp.shape[0] > 0
        merged = ThresholdCounts._trusted(values, tp, fp, float(tp[-1]) if last else 0.0,
                                          float(fp[-1]) if last else 0.0)
        # The totals are the merged cumulative counts plus each side's weight below every
        # threshold, so tp[-1] == n_pos stays exact when no weight is below (adding the two
        # totals instead rounds differently from the cumulative sum: a final recall of
        # 0.9999999999999998 that loses the recall-1 level of 11-point AP).
        merged._n_pos += self._weight_below(self._n_pos, self._tp) + other._weight_below(
            other._n_pos, other._tp)
        merged._n_neg += self._weight_below(self._n_neg, self._fp) + other._weight_below(
            other._n_neg, other._fp)
        return merged

    @staticmethod
    def _weight_below(total: float, cumulative: F64) -> float:
        """The weight below every threshold, ``total - cumulative[-1]`` (never negative)."""
        return max(total - (float(cumulative[-1]) if cumulative.shape[0] else 0.0), 0.0)

    def to_binned(self, edges: ArrayLike) -> BinnedCounts:
        """The binned counts over ``edges``, equal to binning the raw data.

        Each threshold's weight goes to the bin that holds its score (see
        :class:`prcurve.BinnedCounts` for which side of an edge a score falls
        on). Weight below every threshold goes to the lowest bin.

        Examples
        --------
        >>> from prcurve import ThresholdCounts
        >>> c = ThresholdCounts.from_scores([1, 0, 1], [0.9, 0.4, 0.2])
        >>> b = c.to_binned([0.0, 0.5, 1.0])
        >>> b.pos.tolist(), b.neg.tolist()
        ([1.0, 1.0], [1.0, 0.0])
        """
        # A convenience method: the binned module imports this one, so its class is
        # imported lazily here (docs/architecture.md); the work is
        # BinnedCounts.from_threshold_counts.
        from prcurve.core.binned import BinnedCounts

        if self._thresholds.dtype.kind == "i":  # integers beyond 2^53 against float edges
            raise mixed_integer_thresholds("edges")
        return BinnedCounts.from_threshold_counts(self, edges)


@dataclass(frozen=True)
class RecallSteps:
    """The operating points at which recall increases: all that AP needs.

    Element ``i`` describes the ``i``-th threshold (in decreasing order) at
    which positive weight enters: ``tp[i]`` and ``fp[i]`` are the counts at that
    threshold, ``fp_above[i]`` the negative weight strictly above it (the
    previous operating point's ``fp``). The previous operating point's ``tp``
    is ``tp[i - 1]`` (0 for ``i = 0``). Every average-precision method is a
    function of these arrays; so the negative-only thresholds, which add no
    area, need not be kept (docs/definitions.md, "Average precision").
    """

    tp: F64
    fp: F64
    fp_above: F64
    n_pos: float
    n_neg: float

    @property
    def tp_above(self) -> F64:
        return np.concatenate((np.zeros(1), self.tp[:-1]))

    @classmethod
    def from_counts(cls, counts: ThresholdCounts) -> RecallSteps:
        """The recall steps, in units of ``2**-k`` for counts of extreme size
        (:func:`scale_exponent`): every AP method is unchanged by the unit."""
        # Where positive weight enters, a block of thresholds at a time (step_select).
        steps = recall_steps(counts._tp, counts._fp)
        n_pos, n_neg = counts.n_pos, counts.n_neg
        k = scale_exponent(n_pos + n_neg)
        if k:
            for a in steps:  # our own arrays: scaled in place (exact)
                np.ldexp(a, k, out=a)
            n_pos, n_neg = math.ldexp(n_pos, k), math.ldexp(n_neg, k)
        return cls(*steps, n_pos, n_neg)

    @classmethod
    def from_hard_scores(
        cls, positive: NDArray[np.bool_], scores: NDArray[np.floating[Any]], *,
        unchecked: str | None = None,
    ) -> RecallSteps:
        """The same as ``from_counts(ThresholdCounts.from_scores(...))`` for hard,
        unweighted labels, without building the full state.

        Memory is one copy of the scores plus O(positive rows). ``unchecked`` names the
        argument of scores not yet checked for NaN and infinity (the sort checks them).
        """
        pos_starts, neg_below, neg_at_or_below, n_pos, n_neg = hard_label_ranks(
            scores, positive, unchecked=unchecked)
        # Ascending order: positives with score >= pos_values[i] number
        # n_pos - pos_starts[i], negatives n_neg - neg_below[i]; reversed to decreasing
        # thresholds. fp_above: the negatives strictly above, where a negative shares
        # the score.
        fp_above: F64 | None = None
        if neg_at_or_below is not None:
            fp_above = np.subtract(n_neg, neg_at_or_below[::-1], dtype=np.float64)
            del neg_at_or_below
        tp = np.subtract(n_pos, pos_starts[::-1], dtype=np.float64)
        del pos_starts
        fp = np.subtract(n_neg, neg_below[::-1], dtype=np.float64)
        if fp_above is None:  # no score shared by a positive and a negative
            fp_above = fp
        return cls(tp, fp, fp_above, float(n_pos), float(n_neg))

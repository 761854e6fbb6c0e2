"""Average precision in every named convention.

Each method is a function of the recall steps of the count state
(:class:`prcurve.counts.RecallSteps`): the operating points where positive
weight enters, with the counts there and just above. Formulas, endpoint
conventions and the tools each method reproduces are in docs/definitions.md.

With ``r_i = tp_i / P`` and ``p_i = tp_i / (tp_i + fp_i)`` at the i-th step
(thresholds decreasing, ``r_0 = 0``):

``step``
    sum (r_i - r_{i-1}) p_i. scikit-learn's ``average_precision_score``; seed
    000's Formulas 1 and 2 when there are no ties.
``trapezoid``
    sum (r_i - r_{i-1}) (p_i + p'_i) / 2, where p'_i is the precision at the
    operating point just above step i (the bottom of the drop before it), and
    the curve starts at (0, precision of the first threshold). Spark's
    ``BinaryClassificationMetrics.areaUnderPR``.
``interpolated``
    sum (r_i - r_{i-1}) max_{j >= i} p_j: area under the interpolated
    precision p_interp(r) = max_{r' >= r} p(r'). PASCAL VOC 2010+ all-point.
``11point``
    mean of p_interp(r) at r = 0, 0.1, ..., 1 (0 where no recall reaches r);
    PASCAL VOC 2007, seed 003.
``101point``
    mean of p_interp(r) at r = 0, 0.01, ..., 1; COCO.
``davis_goadrich``
    exact area under the Davis–Goadrich interpolation: between adjacent
    operating points TP and FP grow linearly together, so precision is not
    linear in recall (Davis & Goadrich 2006, cited by seed 004). Each segment
    in closed form; the first starts from zero counts. PRROC's
    ``auc.integral``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve import _validation
from prcurve._undefined import ZeroDivision, undefined, undefined_scope
from prcurve.counts import RecallSteps, ThresholdCounts

__all__ = ["AP_METHODS", "APMethod", "average_precision"]

F64 = NDArray[np.float64]

APMethod = Literal["step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich"]
AP_METHODS: tuple[str, ...] = (
    "step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich",
)


def _precision_at_steps(steps: RecallSteps) -> F64:
    # tp > 0 at every step (positive weight entered), so no 0/0 here.
    return steps.tp / (steps.tp + steps.fp)


def _step(steps: RecallSteps) -> float:
    gained = np.diff(steps.tp, prepend=0.0)
    return float(np.dot(gained, _precision_at_steps(steps)) / steps.n_pos)


def _interpolated_envelope(steps: RecallSteps) -> F64:
    """p_interp at each step: the running maximum from the highest recall down."""
    return np.maximum.accumulate(_precision_at_steps(steps)[::-1])[::-1]


def _interpolated(steps: RecallSteps) -> float:
    gained = np.diff(steps.tp, prepend=0.0)
    return float(np.dot(gained, _interpolated_envelope(steps)) / steps.n_pos)


def _at_recall_levels(steps: RecallSteps, n_intervals: int) -> float:
    # Levels k / n exactly (not k * 0.1): a recall equal to a level as a
    # fraction, e.g. 3/10, compares equal to it. 0 where no recall reaches it.
    levels = np.arange(n_intervals + 1) / n_intervals
    recall = steps.tp / steps.n_pos
    first = np.searchsorted(recall, levels, side="left")
    envelope = np.append(_interpolated_envelope(steps), 0.0)
    return float(envelope[first].mean())


def _eleven_point(steps: RecallSteps) -> float:
    return _at_recall_levels(steps, 10)


def _hundred_one_point(steps: RecallSteps) -> float:
    return _at_recall_levels(steps, 100)


def _trapezoid(steps: RecallSteps) -> float:
    precision = _precision_at_steps(steps)
    tp_above = steps.tp_above
    total_above = tp_above + steps.fp_above
    # At the top of the curve (nothing above) Spark starts at (0, p_first).
    precision_above = np.divide(
        tp_above, total_above, out=precision.copy(), where=total_above > 0
    )
    gained = steps.tp - tp_above
    return float(np.dot(gained, (precision + precision_above) / 2.0) / steps.n_pos)


def _davis_goadrich(steps: RecallSteps) -> float:
    # Segment from (a, f) = (tp, fp) just above the step to (a + d, f + e) at it:
    # tp = a + x, fp = f + (e/d) x for x in [0, d], so with b = a + f, D = d + e,
    #   integral_0^d (a + x) / (b + (D/d) x) dx
    #     = d^2 / D + d (a e - f d) / D^2 * ln(1 + D / b)      (b > 0)
    #     = d^2 / D                                             (b = 0, then a = f = 0)
    a = steps.tp_above
    f = steps.fp_above
    d = steps.tp - a
    e = steps.fp - f
    b = a + f
    total = d + e
    area = d * d / total
    inner = b > 0
    if inner.any():
        log_term = np.log1p(total[inner] / b[inner])
        area[inner] += (
            d[inner] * (a[inner] * e[inner] - f[inner] * d[inner]) / total[inner] ** 2 * log_term
        )
    return float(area.sum() / steps.n_pos)


_METHODS: dict[str, Callable[[RecallSteps], float]] = {
    "step": _step,
    "trapezoid": _trapezoid,
    "interpolated": _interpolated,
    "11point": _eleven_point,
    "101point": _hundred_one_point,
    "davis_goadrich": _davis_goadrich,
}


def check_method(method: Any) -> str:
    return _validation.check_choice("method", method, AP_METHODS)


def ap_from_steps(steps: RecallSteps, method: str) -> float:
    """Average precision by ``method`` from the recall steps (policy applies when P = 0)."""
    if steps.n_pos == 0:
        return undefined(f"average_precision[{method}] (no positives)")
    if steps.tp.shape[0] == 0:  # positives exist, none above any threshold
        return 0.0
    return _METHODS[method](steps)


def ap_from_counts(counts: ThresholdCounts, method: str) -> float:
    return ap_from_steps(RecallSteps.from_counts(counts), method)


def average_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    method: APMethod = "step",
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Average precision of scores against binary (or soft) labels, by a named method.

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary labels, or soft labels in [0, 1].
    y_score : array_like, shape (n,)
        Finite scores, higher for more likely positive.
    method : {"step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich"}
        The convention (module docstring, docs/definitions.md). Default
        ``"step"`` equals scikit-learn's ``average_precision_score``.
    sample_weight : array_like, shape (n,), optional
        Non-negative weights.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a positive.
    bins : int or array_like, optional
        Compute from binned counts: an int gives that many equal bins over
        the observed score range, an array gives the edges. Exact if None.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when AP is undefined (no positive weight).

    Returns
    -------
    float
        AP in [0, 1].

    Examples
    --------
    Seed 000's models A and B: (1 + 1 + 0.6 + 0.67) / 4 and (0.33 + 0.5 + 0.43 + 0.5) / 4.

    >>> from prcurve import average_precision
    >>> truth = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> round(average_precision(truth, [0.95, 0.85, 0.73, 0.62, 0.48, 0.39, 0.12, 0.04]), 2)
    0.82
    >>> round(average_precision(truth, [0.55, 0.59, 0.88, 0.97, 0.20, 0.09, 0.43, 0.32]), 2)
    0.44
    >>> round(average_precision([1, 0, 1], [0.9, 0.8, 0.3], method="11point"), 4)
    0.8485
    """
    name = check_method(method)
    with undefined_scope(zero_division):
        scores, labels, weights = _validation.check_scored_labels(
            y_true, y_score, sample_weight, pos_label
        )
        if bins is not None:
            from prcurve.binned import BinnedCounts, resolve_edges

            binned = BinnedCounts(resolve_edges(bins, scores))
            binned._add_checked(scores, labels, weights)
            return ap_from_counts(binned.to_threshold_counts(), name)
        if weights is None and labels.positive is not None:
            # Fast path: the recall steps straight from two sorts, no full state.
            return ap_from_steps(RecallSteps.from_hard_scores(labels.positive, scores), name)
        return ap_from_counts(ThresholdCounts._from_checked(scores, labels, weights), name)

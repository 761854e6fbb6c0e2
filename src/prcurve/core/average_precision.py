"""Average precision in every named convention.

Each method is a function of the recall steps of the count state
(:class:`prcurve.core.counts.RecallSteps`): the operating points where positive
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
    PASCAL VOC 2007, McCann's threshold post.
``101point``
    mean of p_interp(r) at r = 0, 0.01, ..., 1; COCO.
``davis_goadrich``
    exact area under the Davis–Goadrich interpolation: between adjacent
    operating points TP and FP grow linearly together, so precision is not
    linear in recall (Davis & Goadrich 2006, cited by Boyd et al. (2012)). Each segment
    in closed form; the first starts from zero counts. PRROC's
    ``auc.integral``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.counts import SUM_TOLERANCE, RecallSteps, ThresholdCounts, first_reaching
from prcurve.core.undefined import ZeroDivision, undefined, undefined_scope
from prcurve.validation.arrays import check_choice, check_finite
from prcurve.validation.labels import check_scored_labels

__all__ = ["AP_METHODS", "APMethod", "binary_average_precision"]

F64 = NDArray[np.float64]

APMethod = Literal["step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich"]
AP_METHODS: tuple[str, ...] = (
    "step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich",
)


def _precision_at_steps(steps: RecallSteps) -> F64:
    # tp > 0 at every step (positive weight entered), so no 0/0 here. In place: one
    # fresh array (each costs its page faults).
    precision = np.add(steps.tp, steps.fp)
    np.divide(steps.tp, precision, out=precision)
    return precision


_GAIN_BLOCK = 1 << 16
"""Steps whose gained weight is computed together (:func:`_times_gained`)."""


def _times_gained(steps: RecallSteps, values: F64) -> float:
    """``sum(gained * values)`` with ``gained = np.diff(tp, prepend=0.0)``, the positive
    weight entering at each step: the products written over ``values`` (a fresh array
    of the caller's) a block at a time, then summed once by numpy's pairwise sum. The
    same products and the same sum, bit for bit, as ``sum_of_products(gained, values)``
    with the whole ``gained`` array, without it (issue 26, item 6, session 36: 1.5*10^7
    steps at 3*10^7 rows of 50% positives). Not np.dot: its BLAS threads make the last
    bit depend on the cores (:func:`prcurve.core.counts.sum_of_products`)."""
    tp = steps.tp
    m = tp.shape[0]
    for low in range(0, m, _GAIN_BLOCK):
        high = min(low + _GAIN_BLOCK, m)
        gained = tp[low:high] - (tp[low - 1:high - 1] if low else
                                 np.concatenate(([0.0], tp[:high - 1])))
        np.multiply(gained, values[low:high], out=values[low:high])
    return float(values.sum())


def _step(steps: RecallSteps) -> float:
    return _times_gained(steps, _precision_at_steps(steps)) / steps.n_pos


def _interpolated_envelope(steps: RecallSteps) -> F64:
    """p_interp at each step: the running maximum from the highest recall down (in
    place: one array of the steps' length)."""
    backwards = _precision_at_steps(steps)[::-1]
    np.maximum.accumulate(backwards, out=backwards)
    return backwards[::-1]


def _interpolated(steps: RecallSteps) -> float:
    return _times_gained(steps, _interpolated_envelope(steps)) / steps.n_pos


def recall_levels(n_intervals: int) -> F64:
    """The levels k / n exactly (not k * 0.1): a recall equal to a level as a fraction,
    e.g. 3/10, compares equal to it."""
    return np.arange(n_intervals + 1) / n_intervals


def _at_recall_levels(steps: RecallSteps, n_intervals: int) -> float:
    # The first step whose recall reaches each level, robust to the order in which the
    # weights were summed (counts.first_reaching); 0 where no recall reaches it.
    first = _first_reaching_recall(steps, recall_levels(n_intervals))
    # The envelope (the running maximum of precision from the highest recall down) at
    # those steps only: the maximum of each stretch between them, then the running
    # maximum of the stretches from the end; the same values as the full envelope
    # (maxima are exact) without its three arrays of the steps' length (issue 26, item
    # 6, session 35: 1.5*10^7 steps at 3*10^7 rows of 50% positives).
    precision = _precision_at_steps(steps)
    at = np.zeros(first.shape[0])  # 0 where no recall reaches the level
    inside = first < precision.shape[0]
    if inside.any():
        reached = first[inside]  # non-decreasing (the levels rise): its distinct values
        # by a comparison of neighbours (np.unique would import numpy.ma: issue 26)
        starts = reached[np.concatenate(([True], reached[1:] != reached[:-1]))]
        stretch = np.maximum.reduceat(precision, starts)
        envelope = np.maximum.accumulate(stretch[::-1])[::-1]
        at[inside] = envelope[np.searchsorted(starts, reached)]
    return float(at.mean())


def _first_reaching_recall(steps: RecallSteps, levels: F64) -> NDArray[np.intp]:
    """``first_reaching(steps.tp / steps.n_pos, levels)`` without the recall array: a
    binary search per level that divides only the counts it looks at (the same float64
    quotients; recall never decreases, as ``tp`` does not, so the first step whose recall
    reaches each level is the same; issue 26, item 6, session 36)."""
    tp, n_pos = steps.tp, steps.n_pos
    queries = np.asarray(levels) - SUM_TOLERANCE  # as counts.first_reaching compares

    def recall(i: int) -> float:
        return float(tp[i] / n_pos)

    found = [bisect.bisect_left(range(tp.shape[0]), float(q), key=recall) for q in queries]
    return np.array(found, dtype=np.intp)


def _eleven_point(steps: RecallSteps) -> float:
    return _at_recall_levels(steps, 10)


def _hundred_one_point(steps: RecallSteps) -> float:
    return _at_recall_levels(steps, 100)


def _trapezoid(steps: RecallSteps) -> float:
    return _full_range_area(steps, "trapezoid")


def _davis_goadrich(steps: RecallSteps) -> float:
    return _full_range_area(steps, "davis_goadrich")


_AREA_BLOCK = 1 << 16
"""Segments whose areas are computed together (the formulas' dozen temporaries stay
small: 1.5*10^6 steps made 200 MB of them at once, issue 26 item 6)."""


def _full_range_area(steps: RecallSteps, method: str) -> float:
    # The segment formulas of segment_areas() below, over all of recall [0, 1], a block
    # of segments at a time into one array, then summed once: each area is an
    # element-wise function of its segment, so the array and its sum are those of one
    # call over every segment, bit for bit.
    # tp_above (the previous step's tp, 0 first) a block at a time, not as a whole copy.
    tp = steps.tp
    m = tp.shape[0]
    areas = np.empty(m)
    for low in range(0, m, _AREA_BLOCK):
        part = slice(low, low + _AREA_BLOCK)
        high = min(low + _AREA_BLOCK, m)
        tp_above = tp[low - 1:high - 1] if low else np.concatenate(([0.0], tp[:high - 1]))
        areas[part] = segment_areas(tp_above, steps.fp_above[part], tp[part],
                                    steps.fp[part], steps.n_pos, method, 0.0, 1.0)
    return float(areas.sum())


_METHODS: dict[str, Callable[[RecallSteps], float]] = {
    "step": _step,
    "trapezoid": _trapezoid,
    "interpolated": _interpolated,
    "11point": _eleven_point,
    "101point": _hundred_one_point,
    "davis_goadrich": _davis_goadrich,
}


def check_method(method: Any) -> str:
    return check_choice("method", method, AP_METHODS)


def ap_from_steps(steps: RecallSteps, method: str) -> float:
    """Average precision by ``method`` from the recall steps (policy applies when P = 0)."""
    if steps.n_pos == 0:
        return undefined(f"average_precision[{method}] (no positives)")
    if steps.tp.shape[0] == 0:  # positives exist, none above any threshold
        return 0.0
    # Every method is an area under a precision curve over recall in [0, 1], so it
    # lies in [0, 1]; the float sums can step outside by an ulp (1.0000000000000002).
    return min(max(_METHODS[method](steps), 0.0), 1.0)


def ap_from_counts(counts: ThresholdCounts, method: str) -> float:
    return ap_from_steps(RecallSteps.from_counts(counts), method)


def binary_average_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    method: APMethod = "step",
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Average precision of 1-D scores against binary (or soft) labels, by a named method.

    The binary core of :func:`prcurve.average_precision`, which adds score
    matrices (one-vs-rest) and class averages on top; the parameters are the same.

    Examples
    --------
    >>> from prcurve.core.average_precision import binary_average_precision
    >>> round(binary_average_precision([1, 0, 1], [0.9, 0.8, 0.3], method="11point"), 4)
    0.8485
    """
    name = check_method(method)
    with undefined_scope(zero_division):
        # NaN and infinity: checked by the sort of the fast path (its ends), else here.
        scores, binary, weights = check_scored_labels(
            y_true, y_score, sample_weight, pos_label, scale_free=True, finite=False,
            integers=bins is None)
        if scores.dtype.kind == "i":  # beyond float64's exact range: AP needs the order only
            scores = np.unique(scores, return_inverse=True)[1].astype(np.float64)
        if weights is None and binary.positive is not None and bins is None:
            # Fast path: the recall steps straight from the sorts, no full state.
            return ap_from_steps(RecallSteps.from_hard_scores(
                binary.positive, scores, unchecked="y_score"), name)
        check_finite("y_score", scores)
        if bins is not None:
            from prcurve.core.binned import BinnedCounts, resolve_edges

            binned = BinnedCounts(resolve_edges(bins, scores))
            binned._add_checked(scores, binary, weights)
            return ap_from_counts(binned.to_threshold_counts(), name)
        return ap_from_counts(ThresholdCounts._from_checked(scores, binary, weights), name)


# -- areas over a restricted recall range [lo, hi] --------------------------------------
#
# Every method with an area is the integral over recall of a curve made of one segment
# per recall step: step i covers recall (r_{i-1}, r_i] with r_{i-1} = tp_above / P.
#   step          precision p_i, constant on the segment;
#   interpolated  p_interp_i = max_{j >= i} p_j, constant on the segment;
#   trapezoid     linear in recall from p'_i (the point above) to p_i;
#   davis_goadrich  tp = a + x, fp = f + (e/d) x, precision (a + x) / (b + c x) with
#                 b = a + f, c = (d + e) / d, recall (a + x) / P.
# A restricted area integrates the same curve over [lo, hi] only; on [0, 1] it equals
# the method's AP (ap_from_steps, checked by the tests).

AREA_METHODS: tuple[str, ...] = ("step", "trapezoid", "interpolated", "davis_goadrich")


def segment_areas(
    tp_above: F64, fp_above: F64, tp: F64, fp: F64, n_pos: float, method: str,
    lo: float, hi: float,
) -> F64:
    """The area of each recall segment of ``method``'s curve inside recall ``[lo, hi]``.

    Segment ``i`` runs from the operating point ``(tp_above[i], fp_above[i])`` to
    ``(tp[i], fp[i])``; ``tp > tp_above`` on every segment.
    """
    d = tp - tp_above
    start = tp_above / n_pos
    end = tp / n_pos
    u0 = np.clip(start, lo, hi)
    u1 = np.clip(end, lo, hi)
    width = u1 - u0
    precision = tp / (tp + fp)  # tp > 0 on every segment
    if method == "step":
        return width * precision
    if method == "interpolated":
        return width * np.maximum.accumulate(precision[::-1])[::-1]
    if method == "trapezoid":
        total_above = tp_above + fp_above
        # At the top of the curve (nothing above) the curve starts at (0, p_first).
        p_above = np.divide(tp_above, total_above, out=precision.copy(), where=total_above > 0)
        # A segment whose recall width rounds to 0 (a tiny soft weight) has no area.
        run = end - start
        slope = np.divide(precision - p_above, run, out=np.zeros_like(run), where=run > 0)
        v0 = p_above + slope * (u0 - start)
        v1 = p_above + slope * (u1 - start)
        trapezoids: F64 = width * (v0 + v1) / 2.0
        return trapezoids
    if method == "davis_goadrich":
        e = fp - fp_above
        b = tp_above + fp_above
        total = d + e
        x0 = u0 * n_pos - tp_above
        x1 = u1 * n_pos - tp_above
        # With c = D / d (D = d + e):
        #   integral (a + x) / (b + c x) dx = x / c + (a c - b) / c^2 * ln(b + c x)   (b > 0)
        #                                    = x / c                                  (b = 0)
        # written with d and D so that a tiny d (soft labels) cannot overflow c^2:
        # x / c = x d / D, (a c - b) / c^2 = d (a e - f d) / D^2.
        area = (x1 - x0) * d / total
        inner = (b > 0) & (x1 > x0)
        if inner.any():
            di, ti, bi = d[inner], total[inner], b[inner]
            log_ratio = np.log1p(ti * (x1[inner] - x0[inner]) / (bi * di + ti * x0[inner]))
            area[inner] += (
                di * (tp_above[inner] * e[inner] - fp_above[inner] * di) / ti**2 * log_ratio
            )
        return area / n_pos
    raise ValueError(f"method {method!r} has no area")  # callers validate the method


def ap_over_recall_range(
    steps: RecallSteps, method: str, recall_range: tuple[float, float]
) -> float:
    """The area under ``method``'s curve for recall in ``recall_range`` (policy when P = 0).

    On ``(0, 1)`` this is :func:`ap_from_steps`; ``11point`` and ``101point`` have no
    restricted area (validated by the caller).
    """
    lo, hi = recall_range
    if (lo, hi) == (0.0, 1.0):
        return ap_from_steps(steps, method)
    if steps.n_pos == 0:
        return undefined(f"average_precision[{method}] (no positives)")
    if steps.tp.shape[0] == 0:
        return 0.0
    areas = segment_areas(steps.tp_above, steps.fp_above, steps.tp, steps.fp, steps.n_pos,
                          method, lo, hi)
    return float(areas.sum())


# -- every method on a batch of resampled states (prcurve.space.intervals) -----------------------
#
# Row b of each (B, G) array is one state over the same G candidate steps: gained[b, i]
# is the positive weight entering at step i (it may be 0 in a resample: no recall, no
# area), tp and fp the counts there, fp_above the negatives strictly above. The formulas
# are the ones above, with zero-gain columns contributing nothing; the tests check each
# row against ap_from_steps on the same state.


def _batch_precision(tp: NDArray[Any], fp: NDArray[Any]) -> F64:
    total = tp + fp
    precision: F64 = np.divide(tp, total, out=np.zeros(tp.shape), where=total > 0)
    return precision


def _batch_envelope(tp: NDArray[Any], fp: NDArray[Any]) -> F64:
    envelope: F64 = np.maximum.accumulate(_batch_precision(tp, fp)[:, ::-1], axis=1)[:, ::-1]
    return envelope


def ap_batch(
    method: str, gained: NDArray[Any], tp: NDArray[Any], fp: NDArray[Any], fp_above: NDArray[Any],
    n_pos: float,
) -> F64:
    """AP by ``method`` of each row of a batch of states (``n_pos > 0``, shared).

    Arrays may hold integer counts; the result is float64, one value per row.
    """
    rows = gained.shape[0]
    if gained.shape[1] == 0:
        return np.zeros(rows)
    if method == "interpolated":
        interpolated: F64 = np.einsum("ij,ij->i", gained, _batch_envelope(tp, fp)) / n_pos
        return interpolated
    if method in ("11point", "101point"):
        levels = recall_levels(10 if method == "11point" else 100)
        recall = tp / n_pos
        envelope = np.concatenate((_batch_envelope(tp, fp), np.zeros((rows, 1))), axis=1)
        # A zero-gain column shares its recall with the step before it, so the first
        # column reaching a level is a real step (or an empty top group of precision 0
        # whose envelope equals the first step's).
        out = np.empty(rows)
        for row in range(rows):
            first = first_reaching(recall[row], levels)
            out[row] = envelope[row, first].mean()
        return out
    # Counts are whole numbers in a resample, so a denominator of 0 comes with a zero
    # numerator: max(denominator, 1) avoids masked divisions and leaves every term exact.
    if method == "step":
        # Integer counts stay integers until the one division (fewer passes over memory).
        step_precision = tp / np.maximum(tp + fp, 1)
        step: F64 = np.einsum("ij,ij->i", gained, step_precision) / n_pos
        return step
    d = gained.astype(np.float64)
    t = tp.astype(np.float64)
    f_at = fp.astype(np.float64)
    f = fp_above.astype(np.float64)
    a = t - d
    if method == "trapezoid":
        p = t / np.maximum(t + f_at, 1.0)
        total_above = a + f
        p_above = np.where(total_above > 0, a / np.maximum(total_above, 1.0), p)
        trapezoid: F64 = np.einsum("ij,ij->i", d, p + p_above) / (2.0 * n_pos)
        return trapezoid
    if method == "davis_goadrich":
        e = f_at - f
        b = a + f
        total = np.maximum(d + e, 1.0)  # d + e = 0 only where d = 0: no segment
        # b = 0 means a = f = 0, where the log term's coefficient is 0 too.
        log_term = np.log1p(total / np.maximum(b, 1.0))
        area = d * d / total + d * (a * e - f * d) / (total * total) * log_term
        dg: F64 = area.sum(axis=1) / n_pos
        return dg
    raise ValueError(f"unknown method {method!r}")  # callers validate the method

"""Slow, readable reference implementations written from the definitions.

Nothing here imports prcurve: each oracle restates a definition of
docs/definitions.md with plain Python loops over samples or operating points,
so a test that compares prcurve with an oracle checks prcurve's vectorised
code against the definition, not against itself.

Labels are numbers in [0, 1]: a hard label is 0 or 1; a soft label ``y`` with
weight ``w`` adds ``w*y`` to the positives and ``w*(1-y)`` to the negatives.
Sums use :func:`math.fsum` (correctly rounded), so for integer weights and
dyadic soft labels every count is exact.

An operating point is a pair ``(tp, fp)``; AP oracles take the points in order
of decreasing threshold (increasing ``tp``), plus the total positive weight
``n_pos``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "AP_ORACLES",
    "OracleCounts",
    "ap_11point",
    "ap_101point",
    "ap_davis_goadrich",
    "ap_interpolated",
    "ap_step",
    "ap_trapezoid",
    "binned_counts",
    "operating_points",
    "threshold_counts",
]

Point = tuple[float, float]


def _as_floats(values: Sequence[float] | np.ndarray) -> list[float]:
    return [float(v) for v in values]


def _weights(sample_weight: Sequence[float] | np.ndarray | None, n: int) -> list[float]:
    return [1.0] * n if sample_weight is None else _as_floats(sample_weight)


# -- counts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OracleCounts:
    """Exact counts: one row per distinct score carrying weight, thresholds decreasing."""

    thresholds: list[float]
    tp: list[float]
    fp: list[float]
    n_pos: float
    n_neg: float


def threshold_counts(
    y_true: Sequence[float] | np.ndarray,
    y_score: Sequence[float] | np.ndarray,
    sample_weight: Sequence[float] | np.ndarray | None = None,
) -> OracleCounts:
    """For every distinct score t, the weight of positives and negatives with score >= t.

    A threshold whose samples all have weight 0 is no operating point and is
    left out. O(n * distinct scores).
    """
    labels = _as_floats(y_true)
    scores = _as_floats(y_score)
    weights = _weights(sample_weight, len(scores))
    thresholds, tp, fp = [], [], []
    for t in sorted(set(scores), reverse=True):
        weight_at_t = math.fsum(w for s, w in zip(scores, weights, strict=True) if s == t)
        if weight_at_t == 0:
            continue
        chosen = [(y, w) for y, s, w in zip(labels, scores, weights, strict=True) if s >= t]
        thresholds.append(t)
        tp.append(math.fsum(w * y for y, w in chosen))
        fp.append(math.fsum(w * (1.0 - y) for y, w in chosen))
    n_pos = math.fsum(w * y for y, w in zip(labels, weights, strict=True))
    n_neg = math.fsum(w * (1.0 - y) for y, w in zip(labels, weights, strict=True))
    return OracleCounts(thresholds, tp, fp, n_pos, n_neg)


def operating_points(counts: OracleCounts) -> list[Point]:
    """The ``(tp, fp)`` pairs of a count state, in order of decreasing threshold."""
    return list(zip(counts.tp, counts.fp, strict=True))


def _bin_of(score: float, edges: list[float]) -> int:
    """Bin j holds [e_j, e_{j+1}); the last bin is closed; outside scores go to an end bin."""
    n_bins = len(edges) - 1
    if score < edges[0]:
        return 0
    if score >= edges[-1]:
        return n_bins - 1
    for j in range(n_bins):
        if edges[j] <= score < edges[j + 1]:
            return j
    raise AssertionError("unreachable: edges are increasing")


def binned_counts(
    y_true: Sequence[float] | np.ndarray,
    y_score: Sequence[float] | np.ndarray,
    edges: Sequence[float] | np.ndarray,
    sample_weight: Sequence[float] | np.ndarray | None = None,
) -> tuple[list[float], list[float]]:
    """Positive and negative weight per bin (``len(edges) - 1`` bins)."""
    labels = _as_floats(y_true)
    scores = _as_floats(y_score)
    weights = _weights(sample_weight, len(scores))
    edge_list = _as_floats(edges)
    n_bins = len(edge_list) - 1
    pos: list[list[float]] = [[] for _ in range(n_bins)]
    neg: list[list[float]] = [[] for _ in range(n_bins)]
    for y, s, w in zip(labels, scores, weights, strict=True):
        j = _bin_of(s, edge_list)
        pos[j].append(w * y)
        neg[j].append(w * (1.0 - y))
    return [math.fsum(p) for p in pos], [math.fsum(n) for n in neg]


# -- average precision from operating points ---------------------------------------------


def _precision(point: Point) -> float:
    tp, fp = point
    return tp / (tp + fp)


def _recalls(points: Sequence[Point], n_pos: float) -> list[float]:
    return [tp / n_pos for tp, _ in points]


def ap_step(points: Sequence[Point], n_pos: float) -> float:
    """sum_i (r_i - r_{i-1}) p_i over all thresholds, r_{-1} = 0."""
    area = 0.0
    previous_recall = 0.0
    for point, r in zip(points, _recalls(points, n_pos), strict=True):
        area += (r - previous_recall) * _precision(point)
        previous_recall = r
    return area


def ap_trapezoid(points: Sequence[Point], n_pos: float) -> float:
    """Trapezoids between consecutive points; the curve starts at (0, p of the first point)."""
    recalls = _recalls(points, n_pos)
    precisions = [_precision(p) for p in points]
    curve = [(0.0, precisions[0]), *zip(recalls, precisions, strict=True)]
    area = 0.0
    for (r0, p0), (r1, p1) in itertools.pairwise(curve):
        area += (r1 - r0) * (p0 + p1) / 2.0
    return area


def ap_interpolated(points: Sequence[Point], n_pos: float) -> float:
    """sum_i (r_i - r_{i-1}) max_{j >= i} p_j (PASCAL VOC 2010+ all-point)."""
    recalls = _recalls(points, n_pos)
    precisions = [_precision(p) for p in points]
    area = 0.0
    previous_recall = 0.0
    for i, r in enumerate(recalls):
        area += (r - previous_recall) * max(precisions[i:])
        previous_recall = r
    return area


# docs/definitions.md, "Sums of weights": a recall within this of a level reaches it (the
# documented definition, so that the order in which weights are summed cannot move a level).
LEVEL_TOLERANCE = 1e-10


def _at_recall_levels(points: Sequence[Point], n_pos: float, n_intervals: int) -> float:
    recalls = _recalls(points, n_pos)
    precisions = [_precision(p) for p in points]
    total = 0.0
    for k in range(n_intervals + 1):
        level = k / n_intervals
        reaching = [p for p, r in zip(precisions, recalls, strict=True)
                    if r >= level - LEVEL_TOLERANCE]
        total += max(reaching) if reaching else 0.0
    return total / (n_intervals + 1)


def ap_11point(points: Sequence[Point], n_pos: float) -> float:
    """Mean over r in {0, 0.1, ..., 1} of the best precision at recall >= r (0 if none)."""
    return _at_recall_levels(points, n_pos, 10)


def ap_101point(points: Sequence[Point], n_pos: float) -> float:
    """Mean over r in {0, 0.01, ..., 1} of the best precision at recall >= r (0 if none)."""
    return _at_recall_levels(points, n_pos, 100)


# Gauss-Legendre nodes on [0, 1]: 20 nodes integrate a polynomial of degree 39 exactly.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(20)
_GL_NODES = (_GL_NODES + 1.0) / 2.0
_GL_WEIGHTS = _GL_WEIGHTS / 2.0
# The segment's fraction u in [0, 1] is cut into [2^-k, 2^-(k-1)], k = 1..60, and
# [0, 2^-60]. The integrand (a + u d) / (b + u D) has its pole at u = -b/D <= 0, which
# may lie very close to 0; on this geometric mesh every subinterval is at least as far
# from the pole as it is long, so 20-node Gauss-Legendre reaches float64 accuracy on each.
_BOUNDS = np.array([2.0**-k for k in range(60, -1, -1)])
_LOWS = np.concatenate(([0.0], _BOUNDS[:-1]))
_U = _LOWS[:, None] + (_BOUNDS - _LOWS)[:, None] * _GL_NODES[None, :]
_U_WEIGHTS = (_BOUNDS - _LOWS)[:, None] * _GL_WEIGHTS[None, :]


def _segment_area(tp_a: float, fp_a: float, tp_b: float, fp_b: float) -> float:
    """integral over x in [0, tp_b - tp_a] of precision(tp_a + x, fp_a + x * slope) dx.

    The Davis–Goadrich interpolation: TP and FP change linearly together,
    FP by ``slope = (fp_b - fp_a) / (tp_b - tp_a)`` per unit of TP. Computed
    numerically with x = u (tp_b - tp_a), u in [0, 1]. Precision does not
    change when all counts are scaled, so they are first divided by
    ``tp_b + fp_b`` to keep tiny weights away from underflow.
    """
    scale = tp_b + fp_b
    a, f, b_tp, b_fp = tp_a / scale, fp_a / scale, tp_b / scale, fp_b / scale
    tp = a + _U * (b_tp - a)
    fp = f + _U * (b_fp - f)
    precision = tp / (tp + fp)  # u > 0 at every node and tp_b + fp_b > 0, so no 0/0
    return (tp_b - tp_a) * float(np.sum(_U_WEIGHTS * precision))


def ap_davis_goadrich(points: Sequence[Point], n_pos: float) -> float:
    """Area under the Davis–Goadrich interpolation, by numerical integration.

    Between consecutive operating points (and from (tp, fp) = (0, 0) to the
    first one), TP grows by x and FP by x * slope; recall grows by dx / n_pos.
    A segment that adds no TP adds no area.
    """
    area = 0.0
    previous = (0.0, 0.0)
    for point in points:
        if point[0] > previous[0]:
            area += _segment_area(previous[0], previous[1], point[0], point[1])
        previous = point
    return area / n_pos


AP_ORACLES = {
    "step": ap_step,
    "trapezoid": ap_trapezoid,
    "interpolated": ap_interpolated,
    "11point": ap_11point,
    "101point": ap_101point,
    "davis_goadrich": ap_davis_goadrich,
}
"""Every AP method by the name prcurve gives it."""

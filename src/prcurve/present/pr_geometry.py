"""The lines of PR space that the plots and the page draw, as points.

- :func:`step_xy`: a curve as the step function whose area is the step AP;
- :func:`min_precision_at`: Boyd et al.'s minimum PR curve (the unachievable
  region's edge);
- :func:`iso_f_line` and :func:`iso_f_ends`: the iso-F lines and where their names
  go (right of the frame, at recall 1, where no curve can cross them).

:mod:`prcurve.present.plot` (matplotlib) and :mod:`prcurve.present.html` (Bokeh)
draw the same points from here. Nothing here computes a metric.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

from prcurve.core import curve_blocks as blocks
from prcurve.core.curve import PRCurve
from prcurve.core.undefined import undefined_scope
from prcurve.errors import UndefinedMetricWarning

__all__ = ["drawn_by_blocks", "iso_f_ends", "iso_f_line", "min_precision_at", "step_blocks",
           "step_points_inside", "step_xy"]

F64 = NDArray[np.float64]


def min_precision_at(recall: F64, prevalence: float) -> F64:
    """The minimum precision at each recall for this prevalence (Boyd et al. 2012, Theorem 1)."""
    from prcurve.space.bounds import min_precision

    return np.asarray(min_precision(recall, prevalence), dtype=np.float64)


def step_xy(curve: PRCurve) -> tuple[F64, F64]:
    """The points of the step function whose area is the step AP.

    Precision p_i holds on the recall interval (r_{i-1}, r_i]; drawn with
    ``steps-pre`` from (0, p_0), so the area under the line is
    sum_i (r_i - r_{i-1}) p_i. Thresholds where only negatives enter add a
    vertical drop at their recall.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        recall = curve.recall
        precision = curve.precision
    x = np.concatenate(([0.0], recall))
    y = np.concatenate((precision[:1], precision))
    return x, y


def drawn_by_blocks(curve: PRCurve) -> bool:
    """Whether ``curve``'s lines are drawn from blocks of thresholds (:func:`step_blocks`,
    :func:`prcurve.present.lines.drawn_blocks`) rather than its full-length views: when it
    is longer than one block and has positives (issue 26, item 6)."""
    return len(curve) > blocks.VIEW_BLOCK and curve.n_pos > 0


def rates_block(curve: PRCurve, start: int, size: int) -> tuple[F64, F64, F64, F64]:
    """TP, FP, precision and recall of thresholds ``start`` to ``start + size``: the values
    of ``curve.precision`` and ``curve.recall`` there (the same formulas, element-wise)."""
    tp, fp = curve.count_block(start, size)
    with warnings.catch_warnings(), undefined_scope(curve.zero_division):
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return tp, fp, blocks.precisions(tp, fp), blocks.recalls(tp, curve.n_pos)


def step_blocks(curve: PRCurve) -> Iterator[tuple[F64, F64]]:
    """:func:`step_xy` a block of thresholds at a time, in order (``len(curve) + 1`` points,
    x from 0 to the last recall)."""
    for start in range(0, len(curve), blocks.VIEW_BLOCK):
        _, _, precision, recall = rates_block(curve, start, blocks.VIEW_BLOCK)
        if start == 0:
            yield np.concatenate(([0.0], recall)), np.concatenate((precision[:1], precision))
        else:
            yield recall, precision


def step_points_inside(curve: PRCurve, boxes: Sequence[tuple[float, float, float, float]]
                       ) -> list[int]:
    """How many points of ``curve``'s step line (:func:`step_xy`) lie in each box ``(x0, x1,
    y0, y1)``, its edges included; a block of thresholds at a time for a long curve
    (:func:`step_blocks`: the same points, no full-length array).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.pr_geometry import step_points_inside
    >>> curve = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> step_points_inside(curve, [(0, 1, 0, 1), (0, 0.4, 0.9, 1)])
    [5, 1]
    """
    counts = [0] * len(boxes)
    parts = step_blocks(curve) if drawn_by_blocks(curve) else iter([step_xy(curve)])
    for x, y in parts:
        for k, (x0, x1, y0, y1) in enumerate(boxes):
            counts[k] += int(np.count_nonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)))
    return counts


def iso_f_line(f: float, beta: float) -> tuple[F64, F64]:
    """Points (r, p) with F-beta(p, r) = f: p = f r / ((1 + β²) r − β² f), p <= 1."""
    b2 = beta * beta
    r_start = b2 * f / (1.0 + b2 - f)  # where p = 1
    r = np.linspace(r_start, 1.0, 200)
    p = f * r / ((1.0 + b2) * r - b2 * f)
    return r, p


_ISO_F_GAP = 0.035  # the least distance in precision between two iso-F names at recall 1


def iso_f_ends(levels: Sequence[float], beta: float) -> list[tuple[float, float | None]]:
    """Each iso-F level and the precision where its line meets recall 1, or None where that
    name would touch the previous one (levels close together, or a large beta).

    The names are written there, right of the frame: no curve can cross them.

    Examples
    --------
    >>> from prcurve.present.pr_geometry import iso_f_ends
    >>> [(f, round(y, 3)) for f, y in iso_f_ends((0.2, 0.8), 1.0)]
    [(0.2, 0.111), (0.8, 0.667)]
    """
    out: list[tuple[float, float | None]] = []
    taken: list[float] = []
    for f in levels:
        _, p = iso_f_line(float(f), beta)
        y = float(p[-1])
        free = 0.0 <= y <= 1.0 and all(abs(y - other) >= _ISO_F_GAP for other in taken)
        if free:
            taken.append(y)
        out.append((float(f), y if free else None))
    return out

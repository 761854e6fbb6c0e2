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
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from prcurve.core.curve import PRCurve
from prcurve.errors import UndefinedMetricWarning

__all__ = ["iso_f_ends", "iso_f_line", "min_precision_at", "step_xy"]

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

"""The interactive page's lines of a long curve, reduced from blocks of thresholds.

report.html (:mod:`prcurve.present.html`) draws each curve's PR step line, its hover
points and its precision, recall and F1 against the threshold from their M4 reduction
(:mod:`prcurve.present.lines`). For a curve longer than one block of thresholds
(:func:`prcurve.present.pr_geometry.drawn_by_blocks`) the reduction is made here a block at
a time, with the whole line's pixel columns, then again over the kept points: the same
points and indices as :func:`~prcurve.present.lines.m4_reduce` over the full-length views
(:func:`~prcurve.present.lines.m4_columns`), without those views (issue 26, item 6).

Examples
--------
>>> from prcurve import pr_curve
>>> from prcurve.present.page_lines import hover_rows
>>> hover_rows(pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), 100).tolist()
[0, 1, 2, 3]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import scale_exponent
from prcurve.core.curve import PRCurve
from prcurve.core.curve_blocks import VIEW_BLOCK, f_betas
from prcurve.core.curve_csv import curve_rows
from prcurve.core.undefined import ratio, undefined_scope
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.lines import drawn_blocks, drawn_points, m4_columns, m4_reduce
from prcurve.present.pr_geometry import drawn_by_blocks, rates_block, step_blocks, step_xy

__all__ = ["best_f_row", "hover_rows", "hover_values", "m4_indices", "pr_step", "roc_line",
           "roc_rates", "threshold_line"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def m4_indices(parts: Iterable[tuple[F64, F64]], n: int, first: float, last: float,
               columns: int) -> I64:
    """:func:`~prcurve.present.lines.m4_reduce`'s indices of a line of ``n`` points given
    a block at a time (``(x, y)`` in order, ``y`` without NaN, ``x`` from ``first`` to
    ``last``).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.lines import m4_reduce
    >>> x = np.linspace(0, 1, 5000); y = np.cos(9 * x)
    >>> parts = ((x[i:i + 700], y[i:i + 700]) for i in range(0, 5000, 700))
    >>> (m4_indices(parts, 5000, 0.0, 1.0, 20) == m4_reduce(x, y, 20)).all()
    np.True_
    """
    if n <= 4 * columns:
        return np.arange(n, dtype=np.int64)
    kept: list[I64] = []
    xs: list[F64] = []
    ys: list[F64] = []
    offset = 0
    for x, y in parts:
        keep = m4_columns(x, y, columns, first=first, last=last)
        kept.append(keep + offset)
        xs.append(x[keep])
        ys.append(y[keep])
        offset += x.shape[0]
    index = np.concatenate(kept)
    return index[m4_columns(np.concatenate(xs), np.concatenate(ys), columns)]


def pr_step(curve: PRCurve, columns: int) -> tuple[F64, F64]:
    """The PR step line's drawn points (``step_xy`` reduced by ``m4_reduce``)."""
    if drawn_by_blocks(curve):
        last = float(rates_block(curve, len(curve) - 1, 1)[3][0])
        return drawn_blocks(step_blocks(curve), len(curve) + 1, 0.0, last, columns)
    x, y = step_xy(curve)
    return drawn_points(x, y, columns) if x.shape[0] else (x, y)


def hover_rows(curve: PRCurve, columns: int) -> I64:
    """The thresholds whose points carry the PR figure's hover: ``m4_reduce`` of (recall,
    precision) over the operating points."""
    if drawn_by_blocks(curve):
        def parts() -> Iterable[tuple[F64, F64]]:
            for start in range(0, len(curve), VIEW_BLOCK):
                _, _, precision, recall = rates_block(curve, start, VIEW_BLOCK)
                yield recall, np.nan_to_num(precision, nan=0.0)

        first = float(rates_block(curve, 0, 1)[3][0])
        last = float(rates_block(curve, len(curve) - 1, 1)[3][0])
        return m4_indices(parts(), len(curve), first, last, columns)
    _, _, precision, recall = rates_block(curve, 0, len(curve))
    return m4_reduce(recall, np.nan_to_num(precision, nan=0.0), columns)


def threshold_line(curve: PRCurve, which: int, columns: int) -> tuple[F64, F64]:
    """Precision (``which`` 0), recall (1) or F1 (2) against the threshold, from the lowest
    threshold, as drawn (``m4_reduce`` of the reversed views)."""
    from prcurve.present.threshold_plot import _reversed_blocks

    t = curve.thresholds
    parts = _reversed_blocks(curve, t, which, 1.0)
    if drawn_by_blocks(curve):
        return drawn_blocks(parts, len(curve), float(t[-1]), float(t[0]), columns)
    x, y = next(parts, (t[:0], t[:0]))
    return drawn_points(x, y, columns)


def roc_rates(curve: PRCurve, start: int, size: int) -> tuple[F64, F64]:
    """FPR and TPR of the ROC points ``start`` to ``start + size`` (point 0 is (0, 0), point
    ``i`` the curve's threshold ``i - 1``): the values of ``curve.roc().fpr`` and ``.tpr``
    there (the same ``ratio`` of the same float64 counts, element-wise), from the state.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> curve = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> [v.tolist() for v in roc_rates(curve, 0, 3)], curve.roc().fpr[:3].tolist()
    ([[0.0, 0.0, 0.5], [0.0, 0.5, 0.5]], [0.0, 0.0, 0.5])
    """
    lo = max(start - 1, 0)
    tp, fp = curve.count_block(lo, max(start + size - 1 - lo, 0))
    if start == 0 and size > 0:  # the point above every score
        tp, fp = np.concatenate((np.zeros(1), tp)), np.concatenate((np.zeros(1), fp))
    with warnings.catch_warnings(), undefined_scope(curve.zero_division):
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return (ratio(fp, np.full_like(fp, curve.n_neg), "FPR"),
                ratio(tp, np.full_like(tp, curve.n_pos), "TPR"))


def roc_line(curve: PRCurve, columns: int) -> tuple[F64, F64] | None:
    """The ROC line's drawn points (``m4_reduce`` of ``(fpr, tpr)``), a block of
    thresholds at a time (:func:`roc_rates`; a curve shorter than a block is one block);
    None when a rate is undefined (NaN: no positives or no negatives), as the page then
    draws no line. ``curve.roc().fpr`` and ``.tpr`` would be two full-length arrays, and
    their M4 reduction five more (issue 26, item 6).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> [v.tolist() for v in roc_line(pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), 100)]
    [[0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0]]
    >>> roc_line(pr_curve([1, 1], [0.9, 0.8]), 100) is None  # no negatives: FPR is 0/0
    True
    """
    n = len(curve) + 1  # the ROC points
    first, last = roc_rates(curve, 0, 1), roc_rates(curve, n - 1, 1)
    # A rate's denominator (P or N) is the same at every point: NaN at one is NaN at all.
    if np.isnan(first[0][0]) or np.isnan(first[1][0]):
        return None

    def parts() -> Iterable[tuple[F64, F64]]:
        for start in range(0, n, VIEW_BLOCK):
            yield roc_rates(curve, start, VIEW_BLOCK)

    return drawn_blocks(parts(), n, float(first[0][0]), float(last[0][0]), columns)


def hover_values(curve: PRCurve, keep: I64) -> dict[str, NDArray[Any]]:
    """Recall, precision, threshold and F1 of the hover points ``keep``, gathered from the
    state (:func:`prcurve.core.curve_csv.curve_rows`: the values of the full views)."""
    with warnings.catch_warnings(), undefined_scope(curve.zero_division):
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return curve_rows(curve, ("recall", "precision", "threshold", "f1"), keep)


def best_f_row(curve: PRCurve, beta: float) -> int | None:
    """``np.nanargmax(curve.f_beta(beta))`` (the first greatest F-beta), or None when every
    F-beta is NaN, a block of thresholds at a time: ``PRCurve.f_beta`` would cache TP,
    FP and FN on the curve, three full-length arrays for the rest of the command.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> best_f_row(pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), 1.0)
    2
    """
    k = scale_exponent(curve.n_pos + curve.n_neg)  # as PRCurve.f_beta
    row, value = None, -np.inf
    for start in range(0, len(curve), VIEW_BLOCK):
        tp, fp = curve.count_block(start, VIEW_BLOCK)
        with warnings.catch_warnings(), undefined_scope(curve.zero_division):
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            f = f_betas(tp, fp, curve.n_pos - tp, k, beta)
        if np.isnan(f).all():
            continue
        i = int(np.nanargmax(f))
        if row is None or f[i] > value:  # the first of equal greatest values kept
            row, value = start + i, float(f[i])
    return row

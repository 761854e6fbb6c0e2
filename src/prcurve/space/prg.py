"""Precision-recall-gain (PRG) space: a view of the same count state.

Flach and Kull, "Precision-Recall-Gain Curves: PR Analysis Done Right" (NeurIPS
2015) measure precision and recall as gains over the always-positive classifier,
whose precision is the prevalence π (and whose F-score is the baseline):

    precG = (prec − π) / ((1 − π) prec) = 1 − (π / (1 − π)) · FP / TP
    recG  = (rec − π)  / ((1 − π) rec)  = 1 − (π / (1 − π)) · FN / TP

Both are projective maps of the contingency table (``(FP, FN) / TP``), so the
segment between two operating points (a random mix of two thresholds) is a
straight segment in PRG space, the F-gain ``FG_β = (precG + β² recG) / (1 + β²)``
is linear, and it increases with F_β: the F-gain-optimal threshold is the F-optimal
one, and it lies on the upper convex hull of the PRG points.

Conventions of the paper's reference code (the ``prg`` R and Python packages of
Meelis Kull, Telmo de Menezes e Silva Filho and Miquel Perello Nieto): the
always-positive point (FN = TN = 0) has precG = 0 and recG = 1 exactly; a point
with TP = 0 has gain −inf; AUPRG is the trapezoid area of the curve for recall
gain from 0 to 1, starting at the point where the curve crosses recG = 0 (found
by interpolating the counts, where TP = n_pos² / n), and parts with negative
precision gain count as negative area. Without positives or without negatives
π is 0 or 1 and every gain is 0/0 (``zero_division``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.counts import near_best
from prcurve.core.curve import OperatingPoint, PRCurve
from prcurve.core.curve_blocks import VIEW_BLOCK
from prcurve.core.table import Table
from prcurve.core.undefined import undefined, undefined_scope
from prcurve.space import prg_blocks, prg_hull
from prcurve.validation.arrays import check_fraction, check_positive_number, wrong_type
from prcurve.validation.space import check_fractions

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["PRGCurve", "precision_gain", "prg_curve", "recall_gain"]

F64 = NDArray[np.float64]


def _open_prevalence(prevalence: Any) -> float:
    pi = check_fraction("prevalence", prevalence)
    if pi in (0.0, 1.0):  # the gains divide by π and by 1 − π
        return undefined(f"gains at prevalence {pi:g}")
    return pi


def precision_gain(precision: ArrayLike, prevalence: float) -> F64:
    """Precision gain ``(prec − π) / ((1 − π) prec)`` of precision values at prevalence π.

    1 for a perfect precision, 0 at the always-positive classifier's precision π,
    negative below it and −inf at precision 0 (Flach and Kull 2015, Definition 1).

    Examples
    --------
    >>> from prcurve.space.prg import precision_gain
    >>> precision_gain([1.0, 0.5, 0.25, 0.0], 0.25).tolist()
    [1.0, 0.6666666666666666, 0.0, -inf]
    """
    values = check_fractions("precision", precision)
    pi = _open_prevalence(prevalence)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray((values - pi) / ((1.0 - pi) * values), dtype=np.float64)


def recall_gain(recall: ArrayLike, prevalence: float) -> F64:
    """Recall gain ``(rec − π) / ((1 − π) rec)`` of recall values at prevalence π.

    Examples
    --------
    >>> from prcurve.space.prg import recall_gain
    >>> recall_gain([1.0, 0.5, 0.25], 0.25).tolist()
    [1.0, 0.6666666666666666, 0.0]
    """
    return precision_gain(check_fractions("recall", recall), prevalence)


class PRGCurve:
    """The precision-recall-gain curve of a :class:`~prcurve.PRCurve` (exact or binned).

    ``precision_gain[i]`` and ``recall_gain[i]`` are the gains of predicting
    positive every sample with score ``>= thresholds[i]``, the curve's own points.
    Build it with :meth:`prcurve.PRCurve.prg` or :func:`prg_curve`.

    Examples
    --------
    The worked example of the ``prg`` R package (Kull, Flach):

    >>> from prcurve import pr_curve
    >>> prg = pr_curve([1, 1, 0, 0, 1, 0], [0.8, 0.8, 0.6, 0.4, 0.4, 0.2]).prg()
    >>> prg.recall_gain.tolist(), prg.precision_gain.round(4).tolist()
    ([0.5, 0.5, 1.0, 1.0], [1.0, 0.5, 0.3333, 0.0])
    >>> round(prg.auprg(), 7)
    0.7083333
    """

    def __init__(self, curve: PRCurve) -> None:
        if not isinstance(curve, PRCurve):
            raise wrong_type("curve", curve, "PRCurve")
        self._curve = curve
        self.zero_division = curve.zero_division

    @property
    def curve(self) -> PRCurve:
        """The PR curve this view shows in gain coordinates."""
        return self._curve

    @property
    def thresholds(self) -> F64:
        return self._curve.thresholds

    def __len__(self) -> int:
        return len(self._curve)

    def __repr__(self) -> str:
        return f"PRGCurve({len(self)} thresholds, prevalence={self._curve.prevalence:g})"

    def _degenerate(self) -> bool:
        return self._curve.n_pos == 0 or self._curve.n_neg == 0

    def _gains(self, tp: F64, fp: F64) -> tuple[F64, F64]:
        """(recG, precG) of counts; the always-positive point is (1, 0) exactly."""
        n_pos, n_neg = self._curve.n_pos, self._curve.n_neg
        odds = n_pos / n_neg  # π / (1 − π)
        fn = n_pos - tp
        # over: a gain beyond float64's range rounds to -inf, its correctly rounded value
        # (IEEE 754), not an error: it needs FN/TP or FP/TP near 1e308, a threshold whose TP
        # is a tiny soft label (say 1e-300), where the recall gain is below 0 and the point
        # is outside every PRG view (line, hull and area keep recall gain >= 0). A precision
        # gain past -1e308 at recall gain >= 0 would need P / (P + N) < 1e-308.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rec_g = 1.0 - odds * (fn / tp)
            prec_g = 1.0 - odds * (fp / tp)
        everything = (fn <= 0) & (n_neg - fp <= 0)  # FN + TN = 0: reference code's (1, 0)
        rec_g = np.where(everything, 1.0, rec_g)
        prec_g = np.where(everything, 0.0, prec_g)
        return np.asarray(rec_g, dtype=np.float64), np.asarray(prec_g, dtype=np.float64)

    def _undefined_array(self, what: str) -> F64:
        with undefined_scope(self.zero_division):
            missing = "positives" if self._curve.n_pos == 0 else "negatives"
            value = undefined(f"{what} (no {missing})")
        return np.full(len(self), value)

    @property
    def recall_gain(self) -> F64:
        """Recall gain at each threshold (−inf where TP = 0)."""
        if self._degenerate():
            return self._undefined_array("recall gain")
        return self._gains(self._curve.tp, self._curve.fp)[0]

    @property
    def precision_gain(self) -> F64:
        """Precision gain at each threshold (−inf where TP = 0)."""
        if self._degenerate():
            return self._undefined_array("precision gain")
        return self._gains(self._curve.tp, self._curve.fp)[1]

    def gain_of(self, precision: ArrayLike, recall: ArrayLike) -> tuple[F64, F64]:
        """(precision gain, recall gain) of any points of PR space at this curve's prevalence.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> prg = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg()
        >>> [g.tolist() for g in prg.gain_of([1.0, 0.75], [0.5, 1.0])]
        [[1.0, 0.6666666666666666], [0.0, 1.0]]
        """
        with undefined_scope(self.zero_division):
            pi = self._curve.prevalence
            return precision_gain(precision, pi), recall_gain(recall, pi)

    def f_gain(self, beta: float = 1.0) -> F64:
        """F-gain ``(precG + β² recG) / (1 + β²)`` at each threshold, that is
        ``(F_β − π) / ((1 − π) F_β)``.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg().f_gain().tolist()
        [0.5, 0.0, 0.75, 0.5]
        """
        b2 = check_positive_number("beta", beta) ** 2
        return (self.precision_gain + b2 * self.recall_gain) / (1.0 + b2)

    def best_f_gain(self, beta: float = 1.0) -> OperatingPoint:
        """The threshold of maximal F-gain: the F_β-optimal threshold, with its F-gain.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> best = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg().best_f_gain()
        >>> best.value, best.threshold
        (0.75, 0.7)
        """
        with undefined_scope(self.zero_division):
            gain = self.f_gain(beta)
            if len(self) == 0 or np.isnan(gain).all():
                value = undefined(f"best F{beta:g}-gain")
                return OperatingPoint(value, float("nan"), float("nan"), float("nan"))
            # FG_β is an increasing function of F_β at fixed π: the same tie rule as best_f
            finite = np.where(np.isneginf(gain), np.nan, gain)
            index = int(np.flatnonzero(near_best(finite))[0])
            curve = self._curve
            return OperatingPoint(float(gain[index]), float(curve.thresholds[index]),
                                  float(curve.precision[index]), float(curve.recall[index]))

    # -- the curve with its crossings -------------------------------------------------------

    def _sequence(self) -> tuple[F64, F64, F64]:
        """Thresholds, TP and FP from the empty prediction (threshold +inf) to the last point."""
        c = self._curve
        return (np.concatenate([[np.inf], c.thresholds]), np.concatenate([[0.0], c.tp]),
                np.concatenate([[0.0], c.fp]))

    def points(self) -> Table:
        """The curve drawn as the reference code draws it, with its crossing points.

        Rows from the empty prediction (threshold +inf, recall gain −inf) to the
        always-positive point, plus the points where the curve crosses the
        y-axis (recG = 0) and the non-negative x-axis (precG = 0), whose counts are
        interpolated and whose ``threshold`` is NaN. Columns: threshold, tp, fp,
        recall_gain, precision_gain, is_crossing (0/1), in_unit_square (0/1).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> t = pr_curve([1, 1, 0, 0, 1, 0], [0.8, 0.8, 0.6, 0.4, 0.4, 0.2]).prg().points()
        >>> t["tp"].tolist(), t["is_crossing"].tolist()
        ([0.0, 1.5, 2.0, 2.0, 3.0, 3.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
        """
        columns = ("threshold", "tp", "fp", "recall_gain", "precision_gain", "is_crossing",
                   "in_unit_square")
        if self._degenerate():
            with undefined_scope(self.zero_division):
                self._undefined_array("PRG points")
            return Table({name: np.zeros(0) for name in columns})
        thresholds, tp, fp = self._sequence()
        thresholds, tp, fp, crossing, rec_g, prec_g = self._with_x_axis_crossings(
            *self._with_y_axis_crossing(thresholds, tp, fp))
        with np.errstate(invalid="ignore"):
            inside = (rec_g >= 0) & (prec_g >= 0)
        return Table({"threshold": thresholds, "tp": tp, "fp": fp, "recall_gain": rec_g,
                      "precision_gain": prec_g, "is_crossing": crossing.astype(np.float64),
                      "in_unit_square": inside.astype(np.float64)})

    def _with_y_axis_crossing(self, thresholds: F64, tp: F64, fp: F64) -> tuple[
            F64, F64, F64, NDArray[np.bool_], F64, F64]:
        """The sequence with the point where recall gain crosses 0 inserted (if between
        two points), its flags and its gains (the crossing's recall gain exactly 0)."""
        rec_g, prec_g = self._gains(tp, fp)
        crossing = np.zeros(tp.shape, dtype=bool)
        j = int(np.flatnonzero(rec_g >= 0)[0])  # the last point has recG = 1
        if rec_g[j] == 0 or j == 0:
            return thresholds, tp, fp, crossing, rec_g, prec_g
        n_pos, n = self._curve.n_pos, self._curve.n_pos + self._curve.n_neg
        # recG = 0 exactly where TP = π · n_pos = n_pos² / n; recG depends on TP only,
        # so TP grows across this segment.
        alpha = (n_pos * n_pos / n - tp[j - 1]) / (tp[j] - tp[j - 1])
        tp_c = tp[j - 1] + alpha * (tp[j] - tp[j - 1])
        fp_c = fp[j - 1] + alpha * (fp[j] - fp[j - 1])
        prec_c = self._gains(np.array([tp_c]), np.array([fp_c]))[1][0]
        return (np.insert(thresholds, j, np.nan), np.insert(tp, j, tp_c),
                np.insert(fp, j, fp_c), np.insert(crossing, j, True),
                np.insert(rec_g, j, 0.0), np.insert(prec_g, j, prec_c))

    def _with_x_axis_crossings(self, thresholds: F64, tp: F64, fp: F64,
                               crossing: NDArray[np.bool_], x: F64, y: F64) -> tuple[
            F64, F64, F64, NDArray[np.bool_], F64, F64]:
        """The sequence with the points where precision gain changes sign at recG >= 0."""
        n_pos, n_neg = self._curve.n_pos, self._curve.n_neg
        # A change of sign, tested by comparisons (y0 * y1 < 0 overflowed for gains past
        # ±1e154, though with the right sign; it cannot underflow, as a non-zero gain
        # 1 - odds * FP/TP is at least 2^-53 in magnitude: the same pairs either way).
        y0, y1 = y[:-1], y[1:]
        with np.errstate(invalid="ignore"):
            at = np.flatnonzero((x[:-1] >= 0) & (((y0 < 0) & (y1 > 0)) | ((y0 > 0) & (y1 < 0))))
        if at.shape[0] == 0:
            return thresholds, tp, fp, crossing, x, y
        x0, x1, y0, y1 = x[at], x[at + 1], y[at], y[at + 1]
        # The PRG segment is straight: the crossing's recall gain is linear in it, and its
        # counts solve recG(TP) = cross_x (or, when TP is constant, FP · n_pos = TP · n_neg:
        # precision = π, precG = 0).
        cross_x = x0 + (-y0) / (y1 - y0) * (x1 - x0)
        d_tp, d_fp = tp[at + 1] - tp[at], fp[at + 1] - fp[at]
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.where(
                d_tp > 0,
                (n_pos * n_pos / (n_pos + n_neg - n_neg * cross_x) - tp[at]) / d_tp,
                (n_neg / n_pos * tp[at] - fp[at]) / d_fp)
        tp_c, fp_c = tp[at] + alpha * d_tp, fp[at] + alpha * d_fp
        rec_c = self._gains(tp_c, fp_c)[0]
        where = at + 1
        return (np.insert(thresholds, where, np.nan), np.insert(tp, where, tp_c),
                np.insert(fp, where, fp_c), np.insert(crossing, where, True),
                np.insert(x, where, rec_c), np.insert(y, where, 0.0))

    def auprg(self, *, convex_hull: bool = False) -> float:
        """Area under the PRG curve for recall gain in [0, 1] (the reference code's AUPRG).

        The trapezoid area of the straight PRG segments from the curve's crossing of
        recG = 0 to the always-positive point (1, 0); negative precision gain counts
        as negative area. With ``convex_hull=True``, the area under the upper convex
        hull of those points instead (the best curve reachable by mixing thresholds).

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg()
        >>> c.auprg(), c.auprg(convex_hull=True)
        (0.25, 0.75)
        """
        with undefined_scope(self.zero_division):
            if self._degenerate():
                return float(self._undefined_array("AUPRG")[0]) if len(self) else undefined(
                    "AUPRG (no samples)")
            if self._long():  # the same sum, a block at a time (space/prg_blocks.py)
                if not convex_hull:
                    return prg_blocks.auprg(self)
                x, y = prg_blocks.upper_hull(self)
                return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))
            x, y = self._unit_recall_part()
            if convex_hull:
                x, y = _upper_hull(x, y)
            return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))

    def _long(self) -> bool:
        """Whether the area, hull and drawing are computed a block at a time."""
        return len(self) > VIEW_BLOCK

    def _unit_recall_part(self) -> tuple[F64, F64]:
        """Recall and precision gains of the points with recG >= 0 and the y-axis crossing."""
        _, _, _, _, x, y = self._with_y_axis_crossing(*self._sequence())
        keep = x >= 0
        return x[keep], y[keep]

    def convex_hull(self) -> Table:
        """The upper convex hull of the PRG points with recall gain in [0, 1].

        Columns recall_gain and precision_gain, by increasing recall gain, from the
        curve's crossing of recG = 0 to the always-positive point; an F_β-gain-optimal
        point with recall gain >= 0 (for any β) is one of its vertices.

        Examples
        --------
        >>> from prcurve import pr_curve
        >>> h = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]).prg().convex_hull()
        >>> h["recall_gain"].tolist(), h["precision_gain"].tolist()
        ([0.0, 1.0], [1.0, 0.5])
        """
        if self._degenerate():
            with undefined_scope(self.zero_division):
                self._undefined_array("PRG convex hull")
            return Table({"recall_gain": np.zeros(0), "precision_gain": np.zeros(0)})
        x, y = (prg_blocks.upper_hull(self) if self._long()
                else _upper_hull(*self._unit_recall_part()))
        return Table({"recall_gain": x, "precision_gain": y})

    def to_table(self) -> Table:
        """Threshold, recall gain, precision gain and F1-gain, one row per threshold."""
        with undefined_scope(self.zero_division):
            return Table({"threshold": self.thresholds, "recall_gain": self.recall_gain,
                          "precision_gain": self.precision_gain, "f1_gain": self.f_gain(1.0)})

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Any:
        """Draw the curve with :func:`prcurve.present.prg_plot.plot_prg_curve`."""
        # Presentation above PR space, imported lazily (docs/architecture.md).
        from prcurve.present.prg_plot import plot_prg_curve

        return plot_prg_curve(self, ax, **kwargs)


def _upper_hull(x: F64, y: F64) -> tuple[F64, F64]:
    """Andrew's monotone chain, upper half (points in any order), over the points that
    can be vertices or decide one (:func:`prcurve.space.prg_hull.near_hull`)."""
    order = np.lexsort((-y, x))
    xs, ys = x[order], y[order]
    # A vertex left of the highest point is as high as every point before it, and one right
    # of it as high as every point after it (else the segment from that point to the peak
    # passes above it): only those candidates enter the chain, few even for 10^6 points.
    candidate = ((ys >= np.maximum.accumulate(ys))
                 | (ys >= np.maximum.accumulate(ys[::-1])[::-1]))
    xs, ys = xs[candidate], ys[candidate]
    if xs.shape[0]:  # the chain sees only the points near the hull (space/prg_hull.py)
        xs, ys = prg_hull.near_hull(xs, ys, prg_hull.spread(float(np.min(ys)),
                                                            float(np.max(ys))))
    hull: list[tuple[float, float]] = []
    prg_hull.chain(hull, xs, ys)
    return np.array([h[0] for h in hull]), np.array([h[1] for h in hull])


def prg_curve(curve: PRCurve) -> PRGCurve:
    """The PRG view of a PR curve (:meth:`prcurve.PRCurve.prg`).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.space.prg import prg_curve
    >>> prg_curve(pr_curve([1, 0], [0.9, 0.1])).recall_gain.tolist()
    [1.0, 1.0]
    """
    return PRGCurve(curve)

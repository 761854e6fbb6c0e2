"""The report's pictures of a long curve hold no full-length array (issue 26, item 6):
report.html's ROC line (present/page_lines.py ``roc_line``), the PR figure's
low-prevalence inset (present/pr_geometry.py ``step_points_inside``) and the threshold
figure's units (present/threshold_plot.py) read the state a block of thresholds at a
time. Each against the whole-array expression it replaced (the same points, the same
counts, bit for bit) on small curves with the blocks made tiny; and the traced peak of
drawing them at a modest size with small blocks, which main's code exceeded."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW, scored
from tests.traced import traced

import prcurve
from prcurve import UndefinedMetricWarning
from prcurve.core import curve as curve_module
from prcurve.core import curve_blocks
from prcurve.core import roc as roc_module
from prcurve.present import page_lines, pr_geometry, threshold_plot
from prcurve.present.lines import m4_reduce


def _curve(data: st.DataObject, zero_division: object = "nan") -> prcurve.PRCurve:
    case = data.draw(scored(min_size=2, max_size=60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return prcurve.pr_curve(case.y_true, case.y_score, sample_weight=case.sample_weight,
                                zero_division=zero_division)  # type: ignore[arg-type]


def _blocks(patched: pytest.MonkeyPatch, block: int) -> None:
    """Blocks of ``block`` thresholds wherever a view, a picture or the ROC area reads the
    state a block at a time."""
    for module in (curve_blocks, curve_module, threshold_plot, page_lines):
        patched.setattr(module, "VIEW_BLOCK", block)
    patched.setattr(roc_module, "_AUC_BLOCK", block)


@SLOW
@given(st.data(), st.integers(1, 9), st.integers(1, 3), st.sampled_from(["nan", 0, 1]))
def test_roc_line_is_m4_of_the_whole_rates(data: st.DataObject, block: int, columns: int,
                                           zero_division: object) -> None:
    """report.html's former expression: ``m4_reduce(roc.fpr, roc.tpr)`` unless a rate is
    NaN (no line then)."""
    curve = _curve(data, zero_division)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        roc = curve.roc()
        fpr, tpr = roc.fpr, roc.tpr
    want = None
    if not (np.isnan(fpr).any() or np.isnan(tpr).any()):
        keep = m4_reduce(fpr, tpr, columns)
        want = (fpr[keep], tpr[keep])
    for patch in (False, True):
        with pytest.MonkeyPatch.context() as patched:
            if patch:
                _blocks(patched, block)
            got = page_lines.roc_line(curve, columns)
        if want is None:
            assert got is None
        else:
            assert got is not None
            assert got[0].tobytes() == want[0].tobytes()
            assert got[1].tobytes() == want[1].tobytes()


@SLOW
@given(st.data(), st.integers(1, 9),
       st.lists(st.tuples(st.sampled_from([-0.1, 0.0, 0.2, 0.5]),
                          st.sampled_from([0.0, 0.3, 0.6, 1.2]),
                          st.sampled_from([-0.1, 0.0, 0.25, 0.5]),
                          st.sampled_from([0.0, 0.4, 0.8, 1.1])), min_size=1, max_size=4))
def test_step_points_inside_counts_the_step_line(
        data: st.DataObject, block: int, boxes: list[tuple[float, float, float, float]]) -> None:
    """The inset's former count: the points of ``step_xy`` in each box, edges included."""
    curve = _curve(data)
    x, y = pr_geometry.step_xy(curve)
    want = [int(np.count_nonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)))
            for x0, x1, y0, y1 in boxes]
    with pytest.MonkeyPatch.context() as patched:
        _blocks(patched, block)
        assert pr_geometry.step_points_inside(curve, boxes) == want


@pytest.mark.parametrize("scale", [1.0, 1e306])
def test_threshold_lines_by_blocks_with_units(scale: float) -> None:
    """Thresholds beyond 1e300 are drawn in units of a power of ten: divided a block at a
    time, the same lines, limits and unit as the whole array divided."""
    from matplotlib.figure import Figure

    rng = np.random.default_rng(5)
    y = rng.random(3000) < 0.3
    curve = prcurve.pr_curve(y, (rng.standard_normal(3000) + y) * scale)
    drawn = []
    for block in (None, 97):
        with pytest.MonkeyPatch.context() as patched:
            if block is not None:
                _blocks(patched, block)
            ax = Figure().add_subplot()
            plot = threshold_plot.plot_thresholds(curve, ax)
        drawn.append(([np.asarray(line.get_xydata()).tobytes()
                       for line in (plot.precision, plot.recall, plot.f_beta)],
                      ax.get_xlim(), ax.get_xlabel()))
    assert drawn[0] == drawn[1]
    assert ("units of 1e+306" in drawn[0][2]) == (scale > 1.0)


def _traced_peak(draw: Callable[[], object]) -> int:
    return traced(draw)[2]


def test_pictures_of_a_long_curve_hold_no_full_length_array() -> None:
    """2^20 distinct thresholds, prevalence under 5% (the PR figure's inset is drawn),
    blocks of 2^16: the PR figure, the threshold figure and report.html's ROC figure each
    peak under one full-length float64 array (2 MiB) above the figure's own objects, and
    cache no full-length view on the curve. (On main's code the inset made the step line,
    its column stack and the curve's cached precision and recall, 24 MiB and more; the
    ROC figure ``roc.fpr``, ``roc.tpr`` and their M4 temporaries, 10 MiB.)"""
    from matplotlib.figure import Figure

    from prcurve.present import html_document, html_figures, plot
    from prcurve.present.report_build import evaluate
    n = 1 << 20
    rng = np.random.default_rng(7)
    labels = (rng.random(n) < 0.03).astype(np.int64)
    bk = html_document._bokeh()
    views = {"tp", "fp", "precision", "recall", "fn", "tn"}
    with pytest.MonkeyPatch.context() as patched:
        _blocks(patched, 1 << 14)
        report = evaluate({"m": (labels, rng.standard_normal(n) + labels)})
        model = report.models[0]
        curve = model.curve
        assert len(curve) == n
        assert curve.n_pos / n < plot.LOW_PREVALENCE
        assert not views & set(vars(curve))  # the report's numbers cached none either
        # Drawn once first: matplotlib's and Bokeh's caches (fonts, models) are not ours.
        plot.plot_pr_curves({"m": curve}, Figure().add_subplot())
        html_figures._roc_figure(bk, [(0, model)], "ROC")
        peaks = {
            "pr": _traced_peak(lambda: plot.plot_pr_curves({"m": curve},
                                                           Figure().add_subplot())),
            "thresholds": _traced_peak(lambda: threshold_plot.plot_thresholds(
                curve, Figure().add_subplot())),
            "roc": _traced_peak(lambda: html_figures._roc_figure(bk, [(0, model)], "ROC")),
        }
    # Main's code: 4.4, 1.0 and 7.3 arrays; here 0.15 to 0.3 (a few blocks and the
    # figures' own objects).
    full = 8 * n
    assert all(peak < full / 2 for peak in peaks.values()), {
        name: peak / full for name, peak in peaks.items()}
    assert not views & set(vars(curve))

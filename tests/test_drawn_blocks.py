"""The PR and threshold pictures' lines of a long curve, drawn from blocks of thresholds
(present/lines.py ``drawn_blocks``, present/pr_geometry.py ``step_blocks``,
present/threshold_plot.py): the same points as M4 over the full-length views, on small
curves with ties, weights and soft labels, the blocks made tiny and the pixel columns few
(so that M4 reduces). And M4 block by block, then again, against M4 of the whole line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW, scored

import prcurve
from prcurve import UndefinedMetricWarning
from prcurve.core import curve_blocks
from prcurve.present import pr_geometry, threshold_plot
from prcurve.present.lines import drawn_blocks, drawn_points


def _curve(data: st.DataObject) -> prcurve.PRCurve:
    case = data.draw(scored(min_size=16, max_size=60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return prcurve.pr_curve(case.y_true, case.y_score, sample_weight=case.sample_weight)


def _same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray]) -> None:
    assert got[0].tobytes() == want[0].tobytes()
    assert got[1].tobytes() == want[1].tobytes()


@SLOW
@given(st.data(), st.integers(1, 9), st.integers(1, 3))
def test_pr_and_threshold_lines_by_blocks(data: st.DataObject, block: int,
                                          columns: int) -> None:
    curve = _curve(data)
    if curve.n_pos == 0:
        return  # drawn from the full views (drawn_by_blocks is False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        step = drawn_points(*pr_geometry.step_xy(curve), columns)
        views = (curve.precision, curve.recall, curve.f_beta(2.0))
    t = curve.thresholds
    lines = [drawn_points(*threshold_plot._step_against_threshold(t, v), columns)
             for v in views]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(curve_blocks, "VIEW_BLOCK", block)
        patched.setattr(threshold_plot, "VIEW_BLOCK", block)
        last = float(pr_geometry.rates_block(curve, len(curve) - 1, 1)[3][0])
        _same(drawn_blocks(pr_geometry.step_blocks(curve), len(curve) + 1, 0.0, last,
                           columns), step)
        for which, want in enumerate(lines):
            got = drawn_blocks(threshold_plot._reversed_blocks(curve, t, which, 2.0),
                               len(curve), float(t[-1]), float(t[0]), columns)
            _same(got, want)


@SLOW
@given(st.lists(st.floats(-5, 5), min_size=12, max_size=80), st.integers(1, 4),
       st.integers(1, 30), st.booleans())
def test_m4_by_blocks_is_m4_of_the_whole(values: list[float], columns: int, block: int,
                                         steps: bool) -> None:
    y = np.array(values)
    # x non-decreasing, with runs of equal x (vertical segments) when ``steps``
    x = np.cumsum(np.where(np.arange(y.shape[0]) % 3 == 0, 1.0, 0.0) if steps
                  else np.abs(y) + 0.5)
    y = np.round(y)  # ties of y: the first lowest and highest must be kept
    parts = [(x[i:i + block], y[i:i + block]) for i in range(0, x.shape[0], block)]
    _same(drawn_blocks(parts, x.shape[0], float(x[0]), float(x[-1]), columns),
          drawn_points(x, y, columns))


@SLOW
@given(st.data(), st.integers(1, 9), st.integers(1, 3))
def test_page_lines_by_blocks(data: st.DataObject, block: int, columns: int) -> None:
    """report.html's lines (present/page_lines.py) against html.py's former expressions:
    M4 of the full-length views."""
    from prcurve.present import page_lines
    from prcurve.present.lines import m4_reduce

    curve = _curve(data)
    if curve.n_pos == 0:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        recall, precision = curve.recall.copy(), curve.precision.copy()
        views = (precision, recall, curve.f_beta(1.0))
        f1 = views[2]
    keep = m4_reduce(recall, np.nan_to_num(precision, nan=0.0), columns)
    t = curve.thresholds[::-1]
    lines = []
    for values in views:
        k = m4_reduce(t, np.nan_to_num(values[::-1], nan=0.0), columns)
        lines.append((t[k], values[::-1][k]))
    for patch in (False, True):
        with pytest.MonkeyPatch.context() as patched:
            if patch:
                patched.setattr(curve_blocks, "VIEW_BLOCK", block)
                patched.setattr(threshold_plot, "VIEW_BLOCK", block)
                patched.setattr(page_lines, "VIEW_BLOCK", block)
            got = page_lines.hover_rows(curve, columns)
            assert got.tolist() == keep.tolist()
            values = page_lines.hover_values(curve, got)
            assert values["recall"].tobytes() == recall[keep].tobytes()
            assert values["precision"].tobytes() == precision[keep].tobytes()
            assert values["f1"].tobytes() == f1[keep].tobytes()
            for which, want in enumerate(lines):
                _same(page_lines.threshold_line(curve, which, columns), want)


@SLOW
@given(st.data(), st.integers(1, 9), st.sampled_from([1.0, 0.5, 2.0]))
def test_best_f_row_is_nanargmax(data: st.DataObject, block: int, beta: float) -> None:
    from prcurve.present import page_lines

    curve = _curve(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        f = curve.f_beta(beta)
    want = None if np.isnan(f).all() else int(np.nanargmax(f))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(page_lines, "VIEW_BLOCK", block)
        assert page_lines.best_f_row(curve, beta) == want

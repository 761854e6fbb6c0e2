"""The PRG area, hull and drawn line of a long curve, computed a block at a time
(prcurve.space.prg_blocks), against the whole-array functions they replace: the same
numbers bit for bit and the same drawn points, on small curves with ties, weights (zero
weights: repeated points), soft labels and extreme prevalence, the blocks made tiny. And
the bound: a drawing of a long curve holds no full-length array."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW, scored

import prcurve
from prcurve import UndefinedMetricWarning
from prcurve.present import prg_plot
from prcurve.space import prg as prg_module
from prcurve.space import prg_blocks
from prcurve.space.prg import _upper_hull


def _small_blocks(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    monkeypatch.setattr(prg_module, "VIEW_BLOCK", block)
    monkeypatch.setattr(prg_blocks, "VIEW_BLOCK", block)
    monkeypatch.setattr(prg_blocks, "_LEAF", 128)  # numpy's own leaf: the least allowed


def _bits(value: float) -> bytes:
    return np.float64(value).tobytes()


def _pairs(data: st.DataObject) -> prcurve.PRCurve:
    case = data.draw(scored(min_size=2, max_size=60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return prcurve.pr_curve(case.y_true, case.y_score, sample_weight=case.sample_weight)


@SLOW
@given(st.data(), st.sampled_from([1, 2, 3, 5, 8]), st.sampled_from([1, 2, 3, 50]))
def test_blocked_area_hull_and_line_are_the_whole_arrays(
        data: st.DataObject, block: int, columns: int) -> None:
    curve = _pairs(data)
    if curve.n_pos == 0 or curve.n_neg == 0:
        return  # degenerate curves take the array path
    # Tiny soft labels (1e-300) make gains past float64's range: both paths give the same
    # values there too, without a warning (prg.py's _gains and _with_x_axis_crossings;
    # pytest turns any warning into an error).
    _compare(curve, block, columns)


def _compare(curve: prcurve.PRCurve, block: int, columns: int) -> None:
    prg = curve.prg()
    area, hull_area = prg.auprg(), prg.auprg(convex_hull=True)
    hull = prg.convex_hull()
    x, y, markers = prg_plot._line(prg.points(), columns)
    with pytest.MonkeyPatch.context() as patched:
        _small_blocks(patched, block)
        if not prg._long():
            return
        assert _bits(prg.auprg()) == _bits(area)
        assert _bits(prg.auprg(convex_hull=True)) == _bits(hull_area)
        blocked_hull = prg.convex_hull()
        assert blocked_hull["recall_gain"].tobytes() == hull["recall_gain"].tobytes()
        assert blocked_hull["precision_gain"].tobytes() == hull["precision_gain"].tobytes()
        bx, by, bmarkers = prg_plot._long_line(prg, columns)
    assert bx.tobytes() == x.tobytes()
    assert by.tobytes() == y.tobytes()
    assert (bmarkers is None) == (markers is None)
    if markers is not None and bmarkers is not None:
        assert bmarkers[0].tobytes() == markers[0].tobytes()
        assert bmarkers[1].tobytes() == markers[1].tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_long_runs_across_blocks(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Runs of equal TP and stretches of one precision gain longer than a block (many
    tied negatives, zero weights), where the kept points are carried between blocks."""
    rng = np.random.default_rng(seed)
    n = 3000
    labels = (rng.random(n) < rng.choice([0.02, 0.3, 0.9])).astype(int)
    scores = rng.integers(0, 900, n) / 7.0
    weights = np.where(rng.random(n) < 0.4, 0.0, rng.integers(1, 4, n).astype(float))
    weights[labels == 1] = np.maximum(weights[labels == 1], 1.0)
    weights[np.flatnonzero(labels == 0)[:1]] = 1.0
    curve = prcurve.pr_curve(labels, scores, sample_weight=weights)
    prg = curve.prg()
    want = (prg.auprg(), prg.convex_hull()["precision_gain"].tobytes(),
            prg_plot._line(prg.points(), 40))
    with monkeypatch.context() as patched:
        _small_blocks(patched, 7)
        got = (prg.auprg(), prg.convex_hull()["precision_gain"].tobytes(),
               prg_plot._long_line(prg, 40))
    assert _bits(got[0]) == _bits(want[0])
    assert got[1] == want[1]
    assert got[2][0].tobytes() == want[2][0].tobytes()
    assert got[2][1].tobytes() == want[2][1].tobytes()


def test_pairwise_sum_is_numpys() -> None:
    """The tree of prg_blocks.auprg's sum is numpy's: its leaves summed by np.sum, its
    nodes split at a multiple of 8 below half (numpy's pairwise_sum)."""
    rng = np.random.default_rng(1)

    def pairwise(terms: np.ndarray, lo: int, size: int) -> np.float64:
        if size <= 128:
            return np.sum(terms[lo:lo + size])
        half = size // 2
        half -= half % 8
        return pairwise(terms, lo, half) + pairwise(terms, lo + half, size - half)

    for n in (129, 1000, 8193, 100_003, 400_001):
        terms = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
        assert _bits(pairwise(terms, 0, n)) == _bits(np.sum(terms))


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_blocked_hull_is_the_hull(block: int) -> None:
    """Recall gains repeated across blocks (runs of negatives), ties of precision gain."""
    prg = prcurve.pr_curve([1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0],
                           [9, 8, 7, 7, 6, 5, 4, 4, 3, 3, 2, 1, 0]).prg()
    full = _upper_hull(*prg._unit_recall_part())
    with pytest.MonkeyPatch.context() as patched:
        _small_blocks(patched, block)
        part = prg_blocks.upper_hull(prg)
    assert full[0].tobytes() == part[0].tobytes()
    assert full[1].tobytes() == part[1].tobytes()


def test_drawing_a_long_curve_holds_no_full_length_array(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The traced peak of the PRG line, area and hull of 400,000 thresholds with blocks of
    2^14: a few blocks and the kept points, far below one full-length float64 array
    (3.2 MB); the array path (blocks as long as the curve) holds a dozen of them."""
    rng = np.random.default_rng(3)
    n = 400_000
    curve = prcurve.pr_curve(rng.random(n) < 0.3, rng.random(n))
    prg = curve.prg()

    def peak() -> int:
        tracemalloc.start()
        try:
            prg.auprg()
            prg.convex_hull()
            if prg._long():
                prg_plot._long_line(prg, 500)
            else:
                prg_plot._line(prg.points(), 500)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    with monkeypatch.context() as patched:
        _small_blocks(patched, n)
        whole = peak()
    with monkeypatch.context() as patched:
        _small_blocks(patched, 1 << 14)
        patched.setattr(prg_blocks, "_LEAF", 1 << 14)
        blocked = peak()
    assert whole > 10 * 8 * n  # the array path: many full-length arrays
    assert blocked < 8 * n  # less than one


def test_gains_past_the_float_range_give_no_warning() -> None:
    """Hypothesis's example: soft labels as small as 2.2e-308 make FN / TP overflow (a
    recall gain of -inf, below 0: outside every view) and, before session 35, the sign
    test of the x-axis crossings multiply two such gains. Both paths agree, silently."""
    y = np.array([2.63256359e-279, 1.80353313e-001, 1.51562916e-001, 1.88205764e-214,
                  1.0e-010, 8.28339072e-001, 0.0, 2.67972022e-001])
    weights = np.array([1.0, 0.0, 0.0, 4.0, 0.0, 3.0, 1.0, 1.0])
    scores = np.arange(8.0)[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        curve = prcurve.pr_curve(y, scores, sample_weight=weights)
    with np.errstate(all="raise"):  # no overflow, no invalid operation
        for block in (1, 2, 3):
            _compare(curve, block, 2)

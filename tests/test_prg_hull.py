"""The PRG hull's numpy pruning (prcurve.space.prg_hull) against the unpruned monotone
chain that ran before session 36, kept here as the slow oracle: the same vertices, bit
for bit, on drawn point sets (collinear runs rounded as floats, duplicates, ties, extreme
gains), on curves (ties, soft and zero weights, both paths, tiny blocks) and on long
curves; and the pruning drops what it should (else it would be no faster)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW, scored

import prcurve
from prcurve import UndefinedMetricWarning
from prcurve.space import prg as prg_module
from prcurve.space import prg_blocks, prg_hull
from prcurve.space.prg import _upper_hull


def oracle_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``prg._upper_hull`` as it was before session 36: every candidate through the chain."""
    order = np.lexsort((-y, x))
    xs, ys = x[order], y[order]
    candidate = ((ys >= np.maximum.accumulate(ys))
                 | (ys >= np.maximum.accumulate(ys[::-1])[::-1]))
    hull: list[tuple[float, float]] = []
    for px, py in zip(xs[candidate].tolist(), ys[candidate].tolist(), strict=True):
        if hull and hull[-1][0] == px:
            continue
        while len(hull) >= 2:
            (ox, oy), (ax_, ay) = hull[-2], hull[-1]
            if (ax_ - ox) * (py - oy) - (ay - oy) * (px - ox) >= 0:
                hull.pop()
            else:
                break
        hull.append((px, py))
    return np.array([h[0] for h in hull]), np.array([h[1] for h in hull])


def _same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray]) -> None:
    assert got[0].tobytes() == want[0].tobytes()
    assert got[1].tobytes() == want[1].tobytes()


@st.composite
def point_sets(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Points with x in [0, 1]: some on lines (rounded: the chain's near-zero cross
    products), some repeated or sharing an x, some far below, and gains up to 1e200."""
    pieces_x: list[np.ndarray] = []
    pieces_y: list[np.ndarray] = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["line", "curve", "noise", "repeat"]))
        size = draw(st.integers(1, 30))
        x0, x1 = sorted(draw(st.lists(st.floats(0, 1), min_size=2, max_size=2)))
        t = np.linspace(0.0, 1.0, size)
        x = x0 + (x1 - x0) * t
        scale = draw(st.sampled_from([1.0, 1e-9, 1e6, 1e200]))
        y0, y1 = draw(st.floats(-1, 1)) * scale, draw(st.floats(-1, 1)) * scale
        if kind == "line":  # a run of positives: straight in the reals
            y = y0 + (y1 - y0) * t
        elif kind == "curve":  # concave: every point a vertex
            y = y0 + (y1 - y0) * t - scale * draw(st.floats(0, 1)) * t * (1 - t)
        elif kind == "noise":
            seed = draw(st.integers(0, 2**32 - 1))
            y = y0 + scale * np.random.default_rng(seed).standard_normal(size)
        else:  # one point many times, and points at one x
            x = np.full(size, x0)
            y = np.full(size, y0)
            y[size // 2:] = y1
        pieces_x.append(x)
        pieces_y.append(y)
    return np.concatenate(pieces_x), np.concatenate(pieces_y)


@SLOW
@given(point_sets())
def test_pruned_hull_is_the_chain_on_point_sets(points: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = points
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow
        _same(_upper_hull(x, y), oracle_hull(x, y))


def _curve(data: st.DataObject) -> prcurve.PRCurve:
    case = data.draw(scored(min_size=2, max_size=80))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return prcurve.pr_curve(case.y_true, case.y_score, sample_weight=case.sample_weight)


@SLOW
@given(st.data(), st.sampled_from([1, 2, 3, 7]))
def test_pruned_hull_is_the_chain_on_curves(data: st.DataObject, block: int) -> None:
    """Ties, soft labels (to 1e-300: gains past float64's range), zero weights; the
    array path and the blocked one with tiny blocks."""
    curve = _curve(data)
    if curve.n_pos == 0 or curve.n_neg == 0:
        return  # no PRG hull (degenerate: an empty table and a warning)
    prg = curve.prg()
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        want = oracle_hull(*prg._unit_recall_part())
    hull = prg.convex_hull()
    _same((hull["recall_gain"], hull["precision_gain"]), want)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(prg_module, "VIEW_BLOCK", block)
        patched.setattr(prg_blocks, "VIEW_BLOCK", block)
        if prg._long():
            _same(prg_blocks.upper_hull(prg), want)


def _long_curve(seed: int, n: int) -> prcurve.PRCurve:
    """Scores with many ties (runs of positives: collinear PRG points), weights with
    zeros and fractions, prevalence from rare to common."""
    rng = np.random.default_rng(seed)
    prevalence = rng.choice([0.01, 0.05, 0.3, 0.8])
    labels = rng.random(n) < prevalence
    signal = rng.choice([0.5, 2.0])
    scores = np.round(rng.standard_normal(n) + signal * labels, rng.choice([1, 3, 12]))
    weights = np.where(rng.random(n) < 0.1, 0.0, rng.choice([1.0, 0.37, 3.0], n))
    weights[np.flatnonzero(labels)[:1]] = 1.0
    weights[np.flatnonzero(~labels)[:1]] = 1.0
    return prcurve.pr_curve(labels, scores, sample_weight=weights)


@pytest.mark.parametrize("seed", range(8))
def test_pruned_hull_is_the_chain_on_long_curves(seed: int) -> None:
    prg = _long_curve(seed, 60_000).prg()
    x, y = prg._unit_recall_part()
    want = oracle_hull(x, y)
    _same(_upper_hull(x, y), want)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(prg_module, "VIEW_BLOCK", 4096)
        patched.setattr(prg_blocks, "VIEW_BLOCK", 4096)
        _same(prg_blocks.upper_hull(prg), want)


def test_pruning_keeps_few_points_of_a_long_falling_tail() -> None:
    """Nearly every point of a good classifier's PRG curve is a candidate (as high as
    every point after it); the pruning leaves the chain a small fraction of them."""
    rng = np.random.default_rng(5)
    n = 200_000
    labels = rng.random(n) < 0.05
    prg = prcurve.pr_curve(labels, rng.standard_normal(n) + 2.0 * labels).prg()
    x, y = prg._unit_recall_part()
    order = np.lexsort((-y, x))
    xs, ys = x[order], y[order]
    tail = ys >= np.maximum.accumulate(ys[::-1])[::-1]
    assert tail.sum() > n // 2
    kept, _ = prg_hull.near_hull(xs[tail], ys[tail], prg_hull.spread(ys.min(), ys.max()))
    assert kept.shape[0] < tail.sum() // 100


def test_unbounded_gains_skip_the_pruning() -> None:
    """A precision gain of -inf or a spread past 1e150: every point goes to the chain
    (no product may overflow), which gives the same hull."""
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    for low in (-np.inf, -1e300, np.nan):
        y = np.array([low, 0.5, 0.9, 0.2, 0.0])
        assert prg_hull.spread(low, 0.9) == np.inf or prg_hull.spread(low, 0.9) >= 1e150
        kept = prg_hull.near_hull(x, y, prg_hull.spread(low, 0.9))
        assert kept[0].shape[0] == 5
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = np.array([-1e300, 0.5, 0.9, 0.2, 0.0])
        _same(_upper_hull(x, y), oracle_hull(x, y))


@pytest.mark.parametrize("cap", ["_ROUNDS", "_WORK"])
def test_polygon_rounds_are_capped(monkeypatch: pytest.MonkeyPatch, cap: str) -> None:
    """An unfinished polygon (one QuickHull round, or one look at each point) only keeps
    more points: the same hull."""
    monkeypatch.setattr(prg_hull, cap, 1)
    rng = np.random.default_rng(2)
    x = np.sort(rng.random(5000))
    y = -((x - 0.4) ** 2) + 1e-3 * rng.standard_normal(5000)
    _same(_upper_hull(x, y), oracle_hull(x, y))
    kept = prg_hull.near_hull(x, y, 1.0)[0].shape[0]
    monkeypatch.undo()
    assert prg_hull.near_hull(x, y, 1.0)[0].shape[0] < kept  # the cap did stop it early


def test_recall_gains_closer_than_normal_products_skip_the_pruning() -> None:
    """Gaps of 1e-313 (subnormal products, absolute rounding): every point to the chain."""
    x = np.array([0.0, 1.1e-313, 2.2e-313, 0.5, 1.0])
    y = np.array([0.0, 0.0, 0.0, -1.0, 0.0])
    assert prg_hull.near_hull(x, y, 1.0)[0].shape[0] == 5
    _same(_upper_hull(x, y), oracle_hull(x, y))

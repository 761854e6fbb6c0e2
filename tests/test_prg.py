"""Precision-recall-gain curves (Flach and Kull, NeurIPS 2015): the authors' Python package
(pyprg) as a differential reference, the R package's worked example, the paper's closed
forms, a slow oracle in exact rational arithmetic written from the paper, the straight PRG
segments, the convex hull against scipy's, binned against exact."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from scipy.spatial import ConvexHull
from tests import oracles
from tests.strategies import SLOW, scored

import prcurve
from prcurve import InvalidInputError, UndefinedMetricWarning
from prcurve.space.prg import PRGCurve, precision_gain, prg_curve, recall_gain

# The worked example of the prg R package's documentation (create_prg_curve, calc_auprg).
R_LABELS = [1, 1, 0, 0, 1, 0]
R_SCORES = [0.8, 0.8, 0.6, 0.4, 0.4, 0.2]


def test_reference_package_worked_example() -> None:
    prg = prcurve.pr_curve(R_LABELS, R_SCORES).prg()
    table = prg.points()
    assert table["tp"].tolist() == [0.0, 1.5, 2.0, 2.0, 3.0, 3.0]
    assert table["fp"].tolist() == [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]
    assert table["recall_gain"].tolist() == [-np.inf, 0.0, 0.5, 0.5, 1.0, 1.0]
    np.testing.assert_allclose(table["precision_gain"][1:], [1, 1, 0.5, 1 / 3, 0], rtol=1e-15)
    assert math.isnan(table["precision_gain"][0])
    assert table["is_crossing"].tolist() == [0, 1, 0, 0, 0, 0]
    assert table["in_unit_square"].tolist() == [0, 1, 1, 1, 1, 1]
    assert round(prg.auprg(), 7) == 0.7083333  # calc_auprg's documented value
    assert prg.auprg() == pytest.approx(17 / 24, abs=1e-15)


def test_gain_functions_reference_values() -> None:
    # precision_gain(3, 0, 1, 2) = 0.6666667 and recall_gain(3, 0, 1, 2) = 1 in the R docs:
    # precision 3/4 and recall 1 at prevalence 3/6.
    assert precision_gain([0.75], 0.5)[0] == pytest.approx(2 / 3, rel=1e-15)
    assert recall_gain([1.0], 0.5)[0] == 1.0
    assert precision_gain([0.0], 0.6)[0] == -np.inf
    assert recall_gain([0.6], 0.6)[0] == 0.0


def test_gain_functions_refuse_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="prevalence"):
        precision_gain([0.5], 1.5)
    with pytest.raises(InvalidInputError, match="precision"):
        precision_gain([1.5], 0.5)
    with pytest.raises(InvalidInputError, match="curve"):
        PRGCurve("not a curve")  # type: ignore[arg-type]
    with pytest.warns(UndefinedMetricWarning, match="prevalence 0"):
        assert math.isnan(precision_gain([0.5], 0.0)[0])


# -- the slow oracle: the paper's definitions in exact rational arithmetic ---------------------


def _gain(part: Fraction, pi: Fraction) -> Fraction | None:
    """(v − π) / ((1 − π) v), None for −inf (v = 0)."""
    if part == 0:
        return None
    return (part - pi) / ((1 - pi) * part)


def oracle_prg(y_true: list[int], y_score: list[float], weights: list[int]) -> tuple[
        list[tuple[float, float]], float]:
    """Gains at each threshold and AUPRG, from the definitions, in Fractions.

    Operating points are the counts above each distinct score; the curve is the straight
    PRG segments between them, started where recall gain crosses 0, which is found by
    bisection on the mix of the two counts around it (not by the closed form).
    """
    counts = oracles.threshold_counts(y_true, y_score, weights)
    n_pos, n_neg = Fraction(counts.n_pos), Fraction(counts.n_neg)
    pi = n_pos / (n_pos + n_neg)
    points = [(Fraction(0), Fraction(0))] + [
        (Fraction(tp), Fraction(fp)) for tp, fp in zip(counts.tp, counts.fp, strict=True)]

    def gains(tp: Fraction, fp: Fraction) -> tuple[Fraction | None, Fraction | None]:
        if tp == n_pos and fp == n_neg:  # the always-positive point: (1, 0) by convention
            return Fraction(1), Fraction(0)
        precision = tp / (tp + fp) if tp + fp else Fraction(0)
        return _gain(tp / n_pos, pi), _gain(precision, pi)

    per_threshold = []
    for tp, fp in points[1:]:
        rg, pg = gains(tp, fp)
        per_threshold.append((-math.inf if rg is None else float(rg),
                              -math.inf if pg is None else float(pg)))
    # the curve on recall gain >= 0
    xs: list[Fraction] = []
    ys: list[Fraction] = []
    for k, (tp, fp) in enumerate(points):
        rg, pg = gains(tp, fp)
        if rg is None or rg < 0:
            continue
        if not xs and rg > 0:  # crossing of recG = 0 between points k-1 and k
            (tp0, fp0), (tp1, fp1) = points[k - 1], points[k]
            lo, hi = Fraction(0), Fraction(1)
            for _ in range(64):
                mid = (lo + hi) / 2
                g = _gain((tp0 + mid * (tp1 - tp0)) / n_pos, pi)
                lo, hi = (lo, mid) if g is not None and g >= 0 else (mid, hi)
            a = float(hi)
            tp_c, fp_c = tp0 + Fraction(a) * (tp1 - tp0), fp0 + Fraction(a) * (fp1 - fp0)
            xs.append(Fraction(0))
            ys.append(gains(tp_c, fp_c)[1] or Fraction(0))
        xs.append(rg)
        ys.append(pg if pg is not None else Fraction(0))
    area = sum((xs[i] - xs[i - 1]) * (ys[i] + ys[i - 1]) / 2 for i in range(1, len(xs)))
    return per_threshold, float(area)


@SLOW
@given(scored(labels="hard", weights="integer", max_size=25))
def test_gains_and_auprg_equal_the_oracle(data: object) -> None:
    y, s, w = data.y_true, data.y_score, data.weights  # type: ignore[attr-defined]
    n_pos = float(np.sum(w * y))
    n_neg = float(np.sum(w * (1 - y)))
    if n_pos == 0 or n_neg == 0:
        return
    curve = prcurve.pr_curve(y, s, sample_weight=w)
    prg = curve.prg()
    expected, area = oracle_prg(y.tolist(), s.tolist(), w.astype(int).tolist())
    np.testing.assert_allclose(prg.recall_gain, [e[0] for e in expected], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(prg.precision_gain, [e[1] for e in expected], rtol=1e-12,
                               atol=1e-12)
    assert prg.auprg() == pytest.approx(area, abs=1e-9)


@SLOW
@given(scored(labels="hard", weights="none", min_size=2, max_size=30))
def test_closed_forms_of_the_paper(data: object) -> None:
    y, s = data.y_true, data.y_score  # type: ignore[attr-defined]
    if y.all() or not y.any():
        return
    curve = prcurve.pr_curve(y, s)
    prg = curve.prg()
    pi = curve.prevalence
    with np.errstate(divide="ignore", invalid="ignore"):
        # precG = (prec − π)/((1 − π) prec), recG likewise (Definition 1)
        np.testing.assert_allclose(prg.precision_gain[:-1],
                                   precision_gain(curve.precision, pi)[:-1], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(prg.recall_gain, recall_gain(curve.recall, pi), rtol=1e-12,
                                   atol=1e-12)
        # FG_β is linear in the gains and equals (F_β − π)/((1 − π) F_β)
        for beta in (0.5, 1.0, 2.0):
            f = curve.f_beta(beta)
            np.testing.assert_allclose(prg.f_gain(beta), (f - pi) / ((1 - pi) * f), rtol=1e-9,
                                       atol=1e-9)
    # the F-gain-optimal threshold is the F-optimal one, and it lies on the hull (of the
    # points with recall gain >= 0, which the hull covers)
    for beta in (0.5, 1.0, 2.0):
        best = prg.best_f_gain(beta)
        assert best.threshold == curve.best_f(beta).threshold
        if recall_gain([best.recall], pi)[0] < 0:
            continue
        hull = prg.convex_hull()
        b2 = beta**2
        on_hull = (hull["precision_gain"] + b2 * hull["recall_gain"]) / (1 + b2)
        assert best.value == pytest.approx(float(on_hull.max()), abs=1e-9)
    # the always-positive point is (1, 0)
    assert (prg.recall_gain[-1], prg.precision_gain[-1]) == (1.0, 0.0)


@SLOW
@given(scored(labels="hard", weights="integer", min_size=2, max_size=25))
def test_prg_segments_are_straight(data: object) -> None:
    # A mix of two adjacent operating points (counts interpolated) lies on the straight
    # segment between them in PRG space: the reason AUPRG is a trapezoid area.
    y, s, w = data.y_true, data.y_score, data.weights  # type: ignore[attr-defined]
    curve = prcurve.pr_curve(y, s, sample_weight=w)
    if curve.n_pos == 0 or curve.n_neg == 0:
        return
    prg = curve.prg()
    x, yg = prg.recall_gain, prg.precision_gain
    for i in range(1, len(curve)):
        if curve.tp[i - 1] == 0:
            continue
        for alpha in (0.25, 0.5, 0.9):
            tp = curve.tp[i - 1] + alpha * (curve.tp[i] - curve.tp[i - 1])
            fp = curve.fp[i - 1] + alpha * (curve.fp[i] - curve.fp[i - 1])
            odds = curve.n_pos / curve.n_neg
            px, py = 1 - odds * (curve.n_pos - tp) / tp, 1 - odds * fp / tp
            cross = (x[i] - x[i - 1]) * (py - yg[i - 1]) - (yg[i] - yg[i - 1]) * (px - x[i - 1])
            assert abs(cross) <= 1e-9 * (1 + abs(px) + abs(py))


@SLOW
@given(scored(labels="hard", weights="none", min_size=3, max_size=40))
def test_convex_hull_equals_scipy(data: object) -> None:
    y, s = data.y_true, data.y_score  # type: ignore[attr-defined]
    if y.all() or not y.any():
        return
    prg = prcurve.pr_curve(y, s).prg()
    hull = prg.convex_hull()
    x, yg = prg._unit_recall_part()
    assert prg.auprg(convex_hull=True) >= prg.auprg() - 1e-12
    pts = np.unique(np.column_stack([x, yg]), axis=0)
    # every point lies on or below the hull, whose vertices are points
    on_hull = np.interp(x, hull["recall_gain"], hull["precision_gain"])
    assert (yg <= on_hull + 1e-12).all()
    assert {tuple(p) for p in np.column_stack([hull["recall_gain"], hull["precision_gain"]])} <= {
        tuple(p) for p in np.column_stack([x, yg])}
    if len(pts) < 3 or np.linalg.matrix_rank(pts - pts[0]) < 2:
        return
    # scipy's hull (Qhull): its upper chain, the vertices on or above the chord between the
    # highest points at the smallest and largest x, is the same function of recall gain
    vertices = pts[ConvexHull(pts).vertices]
    left = max((p for p in pts if p[0] == pts[:, 0].min()), key=lambda p: p[1])
    right = max((p for p in pts if p[0] == pts[:, 0].max()), key=lambda p: p[1])
    chord = np.interp(vertices[:, 0], [left[0], right[0]], [left[1], right[1]])
    upper = vertices[vertices[:, 1] >= chord - 1e-12]
    upper = upper[np.argsort(upper[:, 0])]
    np.testing.assert_allclose(on_hull, np.interp(x, upper[:, 0], upper[:, 1]), atol=1e-12)


def test_perfect_and_worst_rankings() -> None:
    perfect = prcurve.pr_curve([1, 1, 0, 0, 0], [5, 4, 3, 2, 1]).prg()
    assert perfect.auprg() == 1.0
    # all-tied scores: the always-positive classifier alone, the baseline (area 0)
    tied = prcurve.pr_curve([1, 0, 0, 1, 0], [1, 1, 1, 1, 1]).prg()
    assert tied.auprg() == 0.0
    worst = prcurve.pr_curve([0, 0, 0, 1, 1], [5, 4, 3, 2, 1]).prg()
    assert worst.auprg() < 0


def test_binned_curve_equals_exact_when_scores_are_edges() -> None:
    rng = np.random.default_rng(29)
    edges = np.linspace(0, 1, 11)
    scores = rng.choice(edges[:-1], 300)
    labels = (rng.random(300) < 0.2 + 0.6 * scores).astype(int)
    exact = prcurve.pr_curve(labels, scores).prg()
    binned = prcurve.pr_curve(labels, scores, bins=edges).prg()
    assert binned.curve.is_binned
    np.testing.assert_array_equal(binned.recall_gain, exact.recall_gain)
    np.testing.assert_array_equal(binned.precision_gain, exact.precision_gain)
    assert binned.auprg() == exact.auprg()
    state = prcurve.BinnedCounts.from_scores(labels, scores, edges)
    assert prcurve.PRCurve.from_counts(state).prg().auprg() == exact.auprg()


def test_weights_are_repetitions() -> None:
    y, s, w = [1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.4, 0.1], [2, 1, 3, 2, 1]
    weighted = prcurve.pr_curve(y, s, sample_weight=w).prg()
    repeated = prcurve.pr_curve(np.repeat(y, w), np.repeat(s, w)).prg()
    assert weighted.auprg() == pytest.approx(repeated.auprg(), abs=1e-15)
    np.testing.assert_allclose(weighted.points()["recall_gain"],
                               repeated.points()["recall_gain"])


def test_no_positives_or_negatives_are_undefined() -> None:
    no_neg = prcurve.pr_curve([1, 1], [0.2, 0.1]).prg()
    with pytest.warns(UndefinedMetricWarning, match="AUPRG"):
        assert math.isnan(no_neg.auprg())
    no_pos = prcurve.pr_curve([0, 0], [0.2, 0.1], zero_division=0).prg()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert no_pos.auprg() == 0.0
        assert no_pos.recall_gain.tolist() == [0.0, 0.0]
        assert len(no_pos.points()) == 0
    assert prg_curve(prcurve.pr_curve([1, 0], [1, 0])).auprg() == 1.0


def test_x_axis_crossings_lie_on_the_axis_and_the_curve() -> None:
    # a curve that dips below precG = 0 and comes back
    labels = [1, 0, 0, 0, 0, 1, 1, 0, 1, 0]
    scores = list(range(10, 0, -1))
    prg = prcurve.pr_curve(labels, scores).prg()
    table = prg.points()
    crossing = table["is_crossing"] == 1
    x_axis = crossing & (table["recall_gain"] > 0)
    assert x_axis.sum() >= 2
    pi = 0.4
    tp, fp = table["tp"][x_axis], table["fp"][x_axis]
    np.testing.assert_allclose(tp / (tp + fp), pi, rtol=1e-12)  # precision = π there
    assert (table["precision_gain"][x_axis] == 0).all()
    # the crossings do not change the area: the trapezoid of the rows on recG >= 0
    rows = table["recall_gain"] >= 0
    x, y = table["recall_gain"][rows], table["precision_gain"][rows]
    assert float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)) == pytest.approx(prg.auprg(),
                                                                            abs=1e-12)


def test_plot_draws_the_points_and_the_hull() -> None:
    from matplotlib.figure import Figure

    from prcurve.present.prg_plot import plot_prg_curves

    curve = prcurve.pr_curve(R_LABELS, R_SCORES)
    drawn = plot_prg_curves({"m": curve}, Figure().add_subplot())
    points = curve.prg().points()
    rows = points["recall_gain"] >= 0
    np.testing.assert_array_equal(drawn.curves["m"].get_xdata(), points["recall_gain"][rows])
    np.testing.assert_array_equal(drawn.curves["m"].get_ydata(), points["precision_gain"][rows])
    np.testing.assert_array_equal(drawn.hulls["m"].get_xdata(),
                                  curve.prg().convex_hull()["recall_gain"])
    # four significant digits (the page's summary line shows the same): 0.7083, not 0.708
    area = f"{curve.prg().auprg():.4g}"
    assert len(area.replace("0.", "", 1)) == 4
    assert drawn.curves["m"].get_label() == f"m: AUPRG = {area}"
    assert curve.prg().plot(label="x").curves["x"].get_label() == f"x: AUPRG = {area}"


def test_report_writes_the_prg_figure_and_the_page_shows_it(tmp_path: object) -> None:
    from pathlib import Path

    from PIL import Image

    from prcurve.present.report_build import evaluate

    report = evaluate({"a": (R_LABELS, R_SCORES), "b": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])})
    written = report.write(Path(str(tmp_path)))
    assert "prg_curve.png" in [p.name for p in written]
    with Image.open(Path(str(tmp_path)) / "prg_curve.png") as image:
        assert image.size[0] > 500
    page = report.to_html()
    section = page[page.index("<details id='prg'"):page.index("</details>")]
    assert "AUPRG: a 0.7083, b 0.25" in section
    assert section.count("<svg") == 1


def test_gain_of_any_point_at_the_curves_prevalence() -> None:
    curve = prcurve.pr_curve(R_LABELS, R_SCORES)
    prg = curve.prg()
    prec_g, rec_g = prg.gain_of(curve.precision, curve.recall)
    np.testing.assert_allclose(prec_g, prg.precision_gain, atol=1e-15)
    np.testing.assert_allclose(rec_g, prg.recall_gain, atol=1e-15)
    # the always-positive classifier's precision is π: gain 0 at every prevalence
    for labels in ([1, 0, 0, 0], [1, 1, 1, 0], R_LABELS):
        c = prcurve.pr_curve(labels, range(len(labels)))
        assert c.prg().gain_of([c.prevalence], [1.0])[0].tolist() == [0.0]


# -- the authors' own Python package (pyprg, Kull et al.) as a differential reference --------


def _pyprg(monkeypatch: pytest.MonkeyPatch) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    # pyprg 0.1.1b7 (2016) calls np.alen, removed from NumPy 1.25: the one-line function
    # it meant, for the duration of the test.
    monkeypatch.setattr(np, "alen", lambda x: 1 if np.isscalar(x) else len(x), raising=False)
    from prg import prg

    return prg


@pytest.mark.parametrize("seed", range(40))
def test_equals_the_reference_python_package(seed: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    reference = _pyprg(monkeypatch)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    labels = (rng.random(n) < rng.uniform(0.05, 0.9)).astype(int)
    if labels.all() or not labels.any():
        labels[0] = 1 - labels[0]
    # continuous scores, or few distinct values (ties)
    scores = (rng.normal(size=n) + labels if seed % 2 else
              rng.integers(0, 5, n).astype(float) + 0.5 * labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference's own numerical warnings
        expected = reference.create_prg_curve(labels, scores)
        expected_area = reference.calc_auprg(expected)
    prg = prcurve.pr_curve(labels, scores).prg()
    assert prg.auprg() == pytest.approx(expected_area, abs=1e-12)
    table = prg.points()
    assert len(table) == len(expected["recall_gain"])
    # The rows on recall gain >= 0, the curve drawn and measured, row for row (before
    # them, where recall gain is −inf, the package's unstable sort may order rows otherwise).
    ours = table["recall_gain"] >= 0
    with np.errstate(invalid="ignore"):
        theirs = expected["recall_gain"] >= 0
    np.testing.assert_allclose(table["recall_gain"][ours], expected["recall_gain"][theirs],
                               atol=1e-12)
    np.testing.assert_allclose(table["precision_gain"][ours],
                               expected["precision_gain"][theirs], atol=1e-12)
    np.testing.assert_array_equal(table["is_crossing"][ours], expected["is_crossing"][theirs])
    np.testing.assert_array_equal(table["in_unit_square"], expected["in_unit_square"])

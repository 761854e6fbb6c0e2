"""prcurve.plot: the drawn data are the curve's, the region is Theorem 1's, files open."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image
from tests.strategies import grown

from prcurve import pr_curve
from prcurve.cli import main
from prcurve.present.plot import (
    DPI,
    PR_FIGSIZE,
    group_by_prevalence,
    plot_pr_curve,
    plot_pr_curves,
    plot_pr_curves_grid,
    pr_grid_size,
)
from prcurve.present.threshold_plot import (
    plot_thresholds,
    plot_thresholds_grid,
    threshold_grid_size,
)
from prcurve.space import bounds

RNG = np.random.default_rng(7)
Y = np.r_[np.ones(40, dtype=int), np.zeros(90, dtype=int)]
S_GOOD = np.round(np.r_[RNG.normal(0, 1, 40), RNG.normal(-2, 1, 90)], 1)  # ties
S_BAD = np.r_[RNG.normal(0, 1, 40), RNG.normal(-0.3, 1, 90)]
Y_SKEW = np.r_[np.ones(5, dtype=int), np.zeros(200, dtype=int)]
S_SKEW = np.r_[RNG.normal(0, 1, 5), RNG.normal(-1, 1, 200)]


@pytest.fixture(autouse=True)
def _close_figures() -> object:
    yield
    plt.close("all")


def step_area(x: np.ndarray, y: np.ndarray) -> float:
    """Area under a steps-pre line: y[k] holds on (x[k-1], x[k]]."""
    return float(np.sum(np.diff(x) * y[1:]))


def test_step_points_are_the_curve_and_their_area_is_the_step_ap() -> None:
    curve = pr_curve(Y, S_GOOD)
    drawn = plot_pr_curve(curve, label="good")
    line = drawn.curves["good"]
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    assert line.get_drawstyle() == "steps-pre"
    np.testing.assert_array_equal(x, np.r_[0.0, curve.recall])
    np.testing.assert_array_equal(y, np.r_[curve.precision[0], curve.precision])
    assert step_area(x, y) == pytest.approx(curve.average_precision("step"), abs=1e-12)
    assert line.get_label() == f"good: AP (step) = {curve.average_precision('step'):.3f}"


def test_unachievable_region_is_the_minimum_precision() -> None:
    curve = pr_curve(Y, S_GOOD)
    pi = curve.prevalence
    drawn = plot_pr_curve(curve)
    (region,) = drawn.unachievable
    vertices = region.get_paths()[0].vertices
    top = vertices[vertices[:, 1] > 0]
    assert top.shape[0] >= 400
    expected = np.asarray(bounds.min_precision(top[:, 0], pi))
    np.testing.assert_allclose(top[:, 1], expected, rtol=1e-12)
    # Theorem 1 as written in the paper: rπ / (1 − π + rπ)
    r = top[:, 0]
    np.testing.assert_allclose(top[:, 1], r * pi / (1 - pi + r * pi), rtol=1e-12)
    assert np.all((vertices[:, 1] == 0) | (vertices[:, 1] > 0))
    assert vertices[:, 0].min() == 0.0
    assert vertices[:, 0].max() == 1.0
    assert top[np.argmax(top[:, 0]), 1] == pytest.approx(pi)  # p_min(1) = π


def test_baseline_iso_f_and_best_point() -> None:
    curve = pr_curve(Y, S_GOOD)
    drawn = plot_pr_curve(curve, label="m", beta=2.0, iso_f=(0.3, 0.7))
    (baseline,) = drawn.baselines
    assert list(baseline.get_xdata()) == [0.0, 1.0]
    assert list(baseline.get_ydata()) == [curve.prevalence, curve.prevalence]
    for level, line in zip((0.3, 0.7), drawn.iso_f, strict=True):
        r, p = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        f = 5 * p * r / (4 * p + r)
        np.testing.assert_allclose(f, level, rtol=1e-12)
        assert p.max() == pytest.approx(1.0)
    best = curve.best_f(2.0)
    point = drawn.best_points["m"]
    assert list(point.get_xdata()) == [best.recall]
    assert list(point.get_ydata()) == [best.precision]
    texts = [t.get_text() for t in drawn.ax.texts]
    assert f"best F2 {best.value:.2f}\nt = {best.threshold:.3g}" in texts


def test_axes_are_unit_square_and_legend_is_outside() -> None:
    drawn = plot_pr_curves({"good": pr_curve(Y, S_GOOD), "bad": pr_curve(Y, S_BAD)})
    ax = drawn.ax
    assert ax.get_xlim() == (0.0, 1.0)
    assert ax.get_ylim() == (0.0, 1.0)
    canvas = FigureCanvasAgg(drawn.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    legend = ax.get_legend()
    assert legend is not None
    legend_box = legend.get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    assert legend_box.x0 >= axes_box.x1  # right of the axes: it covers no curve
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[-2:] == [drawn.curves["good"].get_label(), drawn.curves["bad"].get_label()]
    assert any(label.startswith("unachievable region (π = 0.308)") for label in labels)


def test_several_prevalences_get_one_region_and_baseline_each() -> None:
    drawn = plot_pr_curves([pr_curve(Y, S_GOOD), pr_curve(Y_SKEW, S_SKEW),
                            pr_curve(Y, S_BAD)])
    assert list(drawn.curves) == ["curve 1", "curve 2", "curve 3"]
    assert len(drawn.unachievable) == 2
    assert sorted(b.get_ydata()[0] for b in drawn.baselines) == [5 / 205, 40 / 130]


def test_options_turn_parts_off_and_ax_is_used() -> None:
    figure = Figure()
    ax = figure.add_subplot()
    drawn = plot_pr_curve(pr_curve(Y, S_GOOD), ax, show_unachievable=False,
                          show_baseline=False, iso_f=(), mark_best=False, legend=None,
                          title=None)
    assert drawn.ax is ax
    assert drawn.figure is figure
    assert not drawn.unachievable
    assert not drawn.baselines
    assert not drawn.iso_f
    assert not drawn.best_points
    assert ax.get_legend() is None


def test_threshold_plot_data() -> None:
    curve = pr_curve(Y, S_GOOD)
    drawn = plot_thresholds(curve, beta=0.5)
    t = curve.thresholds[::-1]
    np.testing.assert_array_equal(drawn.precision.get_xdata(), t)
    np.testing.assert_array_equal(drawn.precision.get_ydata(), curve.precision[::-1])
    np.testing.assert_array_equal(drawn.recall.get_ydata(), curve.recall[::-1])
    np.testing.assert_array_equal(drawn.f_beta.get_ydata(), curve.f_beta(0.5)[::-1])
    assert drawn.f_beta.get_label() == "F0.5"
    assert drawn.best is not None
    assert list(drawn.best.get_xdata()) == [curve.best_f(0.5).threshold] * 2
    assert drawn.ax.get_ylim() == (0.0, 1.0)


def test_threshold_plot_of_a_single_threshold() -> None:
    drawn = plot_thresholds(pr_curve([1, 0, 1], [0.5, 0.5, 0.5]))
    assert drawn.ax.get_xlim() == pytest.approx((-0.02, 1.02))


def test_threshold_grid() -> None:
    curves = {"a": pr_curve(Y, S_GOOD), "b": pr_curve(Y, S_BAD), "c": pr_curve(Y, S_GOOD)}
    figure = plot_thresholds_grid(curves)
    assert [ax.get_title().split()[0] for ax in figure.axes] == ["a", "b", "c"]
    assert tuple(figure.get_size_inches()) == threshold_grid_size(3) == (12.0, 8.4)


def texts_inside(figure: Figure) -> None:
    """Everything drawn (labels, ticks, legend, notes) lies inside the figure: nothing clipped."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    tight = figure.get_tightbbox(canvas.get_renderer())
    page = figure.bbox_inches
    assert tight.x0 >= page.x0 - 0.01
    assert tight.y0 >= page.y0 - 0.01
    assert tight.x1 <= page.x1 + 0.01
    assert tight.y1 <= page.y1 + 0.01


def test_report_files_open_with_the_expected_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "scores.csv"
    data.write_text("label,good,bad\n" + "".join(
        f"{y},{a!r},{b!r}\n" for y, a, b in zip(Y.tolist(), S_GOOD.tolist(), S_BAD.tolist(),
                                                strict=True)))
    out = tmp_path / "out"
    assert main(["report", str(data), "--out", str(out)]) == 0
    capsys.readouterr()
    with Image.open(out / "pr_curve.png") as image:
        assert image.size == (int(PR_FIGSIZE[0] * DPI), int(PR_FIGSIZE[1] * DPI))
        assert image.format == "PNG"
    width, height = threshold_grid_size(2)
    with Image.open(out / "threshold.png") as image:
        assert image.size == (int(width * DPI), int(height * DPI))
    svg = ET.parse(out / "pr_curve.svg").getroot()
    assert svg.tag.endswith("svg")
    assert svg.attrib["width"] == f"{PR_FIGSIZE[0] * 72:g}pt"
    assert svg.attrib["height"] == f"{PR_FIGSIZE[1] * 72:g}pt"
    ids = {element.attrib.get("id") for element in svg.iter()}
    assert {"curve-0", "curve-1", "unachievable-0", "baseline-0", "best-0"} <= ids


def test_report_figures_clip_nothing() -> None:
    curves = {"balanced:strong": pr_curve(Y, S_GOOD), "balanced:weak": pr_curve(Y, S_BAD),
              "skewed:weak": pr_curve(Y_SKEW, S_SKEW)}
    figure = Figure(figsize=PR_FIGSIZE, layout="constrained")
    plot_pr_curves(curves, figure.add_subplot())
    texts_inside(figure)
    grid = Figure(layout="constrained")
    plot_pr_curves_grid(group_by_prevalence(curves), figure=grid, titles=["one", "two"])
    texts_inside(grid)
    texts_inside(plot_thresholds_grid(curves, figure=Figure(layout="constrained")))


def test_one_panel_per_prevalence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    curves = {"a": pr_curve(Y, S_GOOD), "b": pr_curve(Y_SKEW, S_SKEW), "c": pr_curve(Y, S_BAD)}
    groups = group_by_prevalence(curves)
    assert [list(g) for g in groups] == [["a", "c"], ["b"]]
    panels = plot_pr_curves_grid(groups, titles=["big", "small"])
    assert [p.ax.get_title() for p in panels] == ["big", "small"]
    for panel, pi in zip(panels, (40 / 130, 5 / 205), strict=True):
        (region,) = panel.unachievable
        top = region.get_paths()[0].vertices
        top = top[top[:, 1] > 0]
        np.testing.assert_allclose(top[:, 1], bounds.min_precision(top[:, 0], pi), rtol=1e-12)
        assert [b.get_ydata()[0] for b in panel.baselines] == [pi]
    # the report draws the grid when its inputs differ in prevalence
    for name, y, s in (("big.csv", Y, S_GOOD), ("small.csv", Y_SKEW, S_SKEW)):
        (tmp_path / name).write_text("label,m\n" + "".join(
            f"{a},{b!r}\n" for a, b in zip(y.tolist(), s.tolist(), strict=True)))
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "big.csv"), str(tmp_path / "small.csv"),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    width, height = pr_grid_size(2)
    with Image.open(out / "pr_curve.png") as image:
        assert image.size == (int(width * DPI), int(height * DPI))


# -- labels never collide; low prevalence stays readable -----------------------------------


def _label_boxes(drawn: Any) -> tuple[list[Any], list[Any], Any, Any]:
    canvas = FigureCanvasAgg(drawn.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    from matplotlib.text import Text

    # Each label's own box (an Annotation's extent would include its leader line).
    labels = [Text.get_window_extent(label, renderer) for label in drawn.best_labels.values()]
    markers = [point.get_window_extent(renderer) for point in drawn.best_points.values()]
    legend = drawn.ax.get_legend()
    legend_box = legend.get_window_extent(renderer) if legend is not None else None
    return labels, markers, legend_box, drawn.ax.get_window_extent(renderer)


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


def assert_labels_clear(drawn: Any) -> None:
    labels, markers, legend, axes = _label_boxes(drawn)
    assert len(labels) == len(drawn.best_points)
    for i, box in enumerate(labels):
        inside = axes.x0 <= box.x0 and box.x1 <= axes.x1 and axes.y0 <= box.y0 <= box.y1
        assert inside, "label leaves the axes"
        assert box.y1 <= axes.y1, "label leaves the axes"
        for other in labels[i + 1:]:
            assert not _overlap(box, other), "two best-F labels overlap"
        for marker in markers:
            assert not _overlap(box, marker), "a label covers a best-F marker"
        if legend is not None:
            assert not _overlap(box, legend), "a label covers the legend"


def test_best_labels_of_near_identical_curves_do_not_collide() -> None:
    # The breast-cancer panel: two logistic regressions that differ only in their
    # regularisation have nearly the same curve and the same best-F point.
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    features, labels = load_breast_cancer(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(features, labels, test_size=0.5,
                                                        random_state=0)
    scaler = StandardScaler().fit(x_train)
    x_train, x_test = scaler.transform(x_train), scaler.transform(x_test)
    curves = {}
    for c in (1.0, 0.8):
        model = LogisticRegression(C=c, max_iter=5000).fit(x_train, y_train)
        curves[f"logistic C={c}"] = pr_curve(y_test, model.predict_proba(x_test)[:, 1])
    best = [curve.best_f() for curve in curves.values()]
    assert abs(best[0].recall - best[1].recall) < 0.02  # the points nearly coincide
    assert_labels_clear(plot_pr_curves(curves))
    assert_labels_clear(plot_pr_curves(curves, legend="lower left"))


def test_many_curves_with_one_best_point_get_leader_lines_not_overlaps() -> None:
    curve = pr_curve(Y, S_GOOD)
    assert_labels_clear(plot_pr_curves({f"copy {k}": curve for k in range(6)}))
    drawn = plot_pr_curves({f"copy {k}": curve for k in range(20)})
    assert_labels_clear(drawn)
    leaders = [label for label in drawn.best_labels.values() if label.arrow_patch is not None]
    assert leaders, "labels that cannot sit next to their point get a leader line"


def test_grid_panels_place_labels_after_the_layout() -> None:
    curves = {"a": pr_curve(Y, S_GOOD), "a2": pr_curve(Y, S_GOOD + 0.01),
              "b": pr_curve(Y_SKEW, S_SKEW)}
    panels = plot_pr_curves_grid(group_by_prevalence(curves), figure=Figure(
        layout="constrained"))
    for panel in panels:
        assert_labels_clear(panel)


def test_low_prevalence_gets_an_inset_and_the_minimum_ap_is_written() -> None:
    rng = np.random.default_rng(8)
    n = 5000
    labels = rng.random(n) < 0.01
    curve = pr_curve(labels, np.where(labels, rng.normal(2, 1, n), rng.normal(0, 1, n)))
    pi = curve.prevalence
    drawn = plot_pr_curve(curve, label="rare")
    assert drawn.inset is not None
    assert drawn.inset.get_ylim() == pytest.approx((0.0, 6 * pi))
    (region,) = drawn.inset.collections
    top = region.get_paths()[0].vertices
    top = top[top[:, 1] > 0]
    np.testing.assert_allclose(top[:, 1], bounds.min_precision(top[:, 0], pi), rtol=1e-12)
    minimum = bounds.min_average_precision(curve.n_pos, curve.n_neg, "step")
    written = "\n".join(note.get_text() for note in drawn.notes)
    assert f"min AP (step) at π = {pi:.3g}: {minimum:.3g}" in written
    assert_labels_clear(drawn)
    # A balanced curve needs no inset; its minimum AP is still written.
    balanced = plot_pr_curve(pr_curve(Y, S_GOOD), ap_method="interpolated")
    assert balanced.inset is None
    assert "min AP (interpolated)" in balanced.notes[0].get_text()


# -- large curves are drawn from the points their pixels show ---------------------------------


def _black_pixels(figure: Figure) -> np.ndarray:
    canvas = FigureCanvasAgg(figure)
    figure.set_dpi(DPI)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    return (rgba[..., :3].astype(int).sum(axis=2) < 3 * 128)


@pytest.mark.parametrize("kind", ["pr", "threshold"])
def test_large_curves_drawn_within_a_pixel_of_every_point(kind: str) -> None:
    from prcurve.present.plot_setup import pixel_columns
    from prcurve.present.pr_geometry import step_xy as _step_xy
    from prcurve.present.threshold_plot import _step_against_threshold

    rng = np.random.default_rng(11)
    n = 200_000
    labels = rng.random(n) < 0.2
    curve = pr_curve(labels, np.where(labels, rng.normal(1, 1, n), rng.normal(0, 1, n)))
    small = pr_curve(Y, S_GOOD)
    with matplotlib.rc_context({"path.simplify": False, "lines.antialiased": False}):
        figure = Figure(figsize=PR_FIGSIZE)
        ax = figure.add_subplot()
        if kind == "pr":
            line = plot_pr_curves({"m": curve}, ax=ax, mark_best=False).curves["m"]
            full = _step_xy(curve)
            assert len(plot_pr_curve(small).curves["model"].get_xdata()) == len(small) + 1
        else:
            line = plot_thresholds(curve, ax=ax, mark_best=False).precision
            full = _step_against_threshold(curve.thresholds, curve.precision)
            assert len(plot_thresholds(small).precision.get_xdata()) == len(small)
        drawn = len(line.get_xdata())
        assert drawn <= 4 * pixel_columns(ax) < n // 10  # reduced...
        for other in ax.lines:
            if other is not line:
                other.set_visible(False)
        for other in [*ax.collections, *ax.texts, *ax.patches]:
            other.set_visible(False)
        line.set_color("black")
        reduced_pixels = _black_pixels(figure)
        line.set_data(*full)  # ...and drawn like every point
        full_pixels = _black_pixels(figure)
    assert full_pixels.sum() > 1000
    assert not (full_pixels & ~grown(reduced_pixels)).any()
    assert not (reduced_pixels & ~grown(full_pixels)).any()


def test_long_model_names_wrap_in_the_legend_and_nothing_is_clipped() -> None:
    name = "strong_model_with_a_rather_long_name_from_a_sweep_0123456789"
    curves = {name: pr_curve(Y_SKEW, S_SKEW), "weak": pr_curve(Y, S_BAD)}
    figure = Figure(figsize=PR_FIGSIZE, layout="constrained")
    drawn = plot_pr_curves(curves, figure.add_subplot())
    texts_inside(figure)
    labels = [t.get_text() for t in drawn.ax.get_legend().get_texts()]
    assert any(label.startswith(name[:32]) and "\nAP (step) = " in label for label in labels)
    assert all(len(line) <= 32 for label in labels for line in label.split("\n"))

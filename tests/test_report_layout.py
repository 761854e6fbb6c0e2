"""The report clean at a glance (issue 25, item 5), checked in display coordinates.

- no legend over plotted data: every drawn data point of every axes lies outside
  every legend's box (pr_curve.png, threshold.png, the macro panel);
- no label crossed by a curve or hidden by the inset: best-F labels are crossed by
  no model curve or baseline; iso-F names lie outside the axes; the inset covers
  no axis label, tick label, best-F marker or label;
- one colour per model: pr_curve.png's and threshold.png's lines have the colour
  that report.html gives the model (present.style);
- several prevalences on one axes: the shaded regions never overlap (no dark block);
- the multi-class page: one legend entry per kind, one shaded region, and the
  macro-average curve with its band (estimate = vertical averaging, band from the
  same engine as ``bootstrap_curve``);
- the glossary: the docs and the page say the same words; the page's and the
  notebook's column names carry them as hover text.

The browser checks (the page fits 1280 pixels, the slider starts at the best F,
the page's colours) are in tests/test_html_report.py.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

import prcurve
from prcurve import pr_curve
from prcurve.present.glossary import TERMS, anchor, term_of
from prcurve.present.labels import _drawn_path
from prcurve.present.plot import PRPlot, plot_pr_curves
from prcurve.present.report_build import evaluate
from prcurve.present.style import model_color
from prcurve.space.aggregate import aggregate, macro_average_curve
from prcurve.space.intervals import bootstrap_curve

ROOT = Path(__file__).resolve().parents[1]


def _binary(seed: int, n: int, rate: float, shift: float) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < rate
    return labels, np.where(labels, rng.normal(shift, 1, n), rng.normal(0, 1, n))


def binary_report() -> Any:
    labels, strong = _binary(1, 3000, 0.4, 1.6)
    weak = np.where(labels, np.random.default_rng(2).normal(0.6, 1, 3000),
                    np.random.default_rng(3).normal(0, 1, 3000))
    return evaluate({"strong": (labels, strong), "weak": (labels, weak)})


def skewed_report() -> Any:
    labels, strong = _binary(4, 20000, 0.01, 2.0)
    weak = np.where(labels, np.random.default_rng(5).normal(1.0, 1, 20000),
                    np.random.default_rng(6).normal(0, 1, 20000))
    return evaluate({"strong": (labels, strong), "weak": (labels, weak)})


def five_class_report() -> Any:
    rng = np.random.default_rng(7)
    n, k = 2000, 5
    y = rng.choice(k, n, p=[0.4, 0.25, 0.2, 0.1, 0.05])
    logits = rng.normal(0, 1, (n, k))
    logits[np.arange(n), y] += 1.5
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    return prcurve.report(names[y], logits, resamples=300)


REPORTS = {"binary": binary_report, "skewed": skewed_report, "five classes": five_class_report}


@functools.cache
def _figures(kind: str) -> tuple[Any, Figure, Figure]:
    """``kind``'s report with its pr_curve.png figure and its threshold.png grid, built
    once for the module: the legend and the colour checks below read the same figures
    (the five-class PR grid costs seconds to draw). The checks only read them; drawing
    them on a canvas (the legend check) lays them out without changing a line or a title."""
    from prcurve.present.threshold_plot import plot_thresholds_grid

    report = REPORTS[kind]()
    grid = plot_thresholds_grid({m.name: m.curve for m in report.models},
                                figure=Figure(layout="constrained"),
                                colors=report.model_colors())
    return report, report.pr_figure(), grid


def _drawn(figure: Figure) -> Any:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _data_points(ax: Axes) -> np.ndarray:
    """Every plotted data point of ``ax`` (lines and filled regions), in display pixels."""
    points = []
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), dtype=np.float64)
        points.append(ax.transData.transform(xy[np.isfinite(xy).all(axis=1)]))
    for collection in ax.collections:
        for path in collection.get_paths():
            points.append(ax.transData.transform(path.vertices))
    return np.concatenate(points) if points else np.zeros((0, 2))


def _inside(points: np.ndarray, box: Bbox) -> int:
    return int(np.count_nonzero((points[:, 0] > box.x0) & (points[:, 0] < box.x1)
                                & (points[:, 1] > box.y0) & (points[:, 1] < box.y1)))


def _legends(figure: Figure) -> list[Any]:
    found = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    return found + list(figure.legends)


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_no_legend_covers_a_plotted_point(kind: str) -> None:
    _, pr_figure, grid = _figures(kind)
    for figure in (pr_figure, grid):
        renderer = _drawn(figure)
        legends = _legends(figure)
        assert legends
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in figure.axes:
                assert _inside(_data_points(ax), box) == 0, (kind, ax.get_title())


@pytest.fixture(autouse=True, scope="module")
def _drop_the_figures() -> Iterator[None]:
    """The module's figures are let go once its tests have run."""
    yield
    _figures.cache_clear()
    _kind_panels.cache_clear()


@functools.cache
def _kind_panels(kind: str) -> list[PRPlot]:
    """:func:`_panels` of ``kind``'s report, drawn once for the module (the label check and
    the inset check below read them)."""
    return _panels(REPORTS[kind]())


def _panels(report: Any) -> list[PRPlot]:
    """The report's PR figure drawn again as PRPlot objects, one per prevalence group."""
    from prcurve.present import plot

    curves = {m.name: m.curve for m in report.models}
    groups = plot.group_by_prevalence(curves)
    if len(groups) == 1:
        return [plot_pr_curves(curves, Figure(figsize=plot.PR_FIGSIZE,
                                              layout="constrained").add_subplot(),
                               colors=report.model_colors())]
    return plot.plot_pr_curves_grid(groups, figure=Figure(layout="constrained"),
                                    colors=report.model_colors())


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_no_label_is_crossed_by_a_curve_or_hidden_by_the_inset(kind: str) -> None:
    panels = _kind_panels(kind)
    renderer = _drawn(panels[0].figure)
    for drawn in panels:
        ax = drawn.ax
        lines = [_drawn_path(line) for line in [*drawn.curves.values(), *drawn.baselines]]
        labels = [label.get_window_extent(renderer) for label in drawn.best_labels.values()]
        for label in drawn.best_labels.values():
            from matplotlib.text import Text

            box = Text.get_window_extent(label, renderer)
            assert not any(path.intersects_bbox(box, filled=False) for path in lines), (
                kind, label.get_text())
        area = ax.get_window_extent(renderer)
        names = [t for t in ax.texts if (t.get_gid() or "").startswith("iso-f-label")]
        assert names, "the iso-F lines are named"
        for name in names:  # right of the frame: no curve reaches there
            assert name.get_window_extent(renderer).x0 >= area.x1
        if drawn.inset is not None:
            inset = drawn.inset.get_tightbbox(renderer)
            covered = [ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels(),
                       *ax.get_yticklabels()]
            for text in covered:
                if text.get_text():
                    assert not inset.overlaps(text.get_window_extent(renderer)), text
            for box in labels:
                assert not inset.overlaps(box)
            for point in drawn.best_points.values():
                xy = ax.transData.transform(np.asarray(point.get_xydata()))
                assert _inside(xy, inset) == 0


def test_skewed_report_has_an_inset() -> None:
    # The case the inset checks above are for: π = 0.01.
    assert any(p.inset is not None for p in _kind_panels("skewed"))


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_a_model_has_one_colour_in_every_picture(kind: str) -> None:
    report, figure, grid = _figures(kind)
    colours = report.model_colors()
    assert list(colours.values()) == [model_color(i) for i in range(len(report.models))]
    drawn = {line.get_label().split(": AP")[0]: to_hex(line.get_color())
             for ax in figure.axes for line in ax.get_lines() if ": AP (" in line.get_label()}
    assert drawn == colours
    for ax, (name, colour) in zip(grid.axes, colours.items(), strict=True):
        assert ax.get_title().startswith(name)
        assert {to_hex(line.get_color()) for line in ax.get_lines()[:3]} == {colour}


def test_regions_of_several_prevalences_never_overlap() -> None:
    curves = {f"π{rate}": pr_curve(*_binary(int(rate * 100), 400, rate, 1.0))
              for rate in (0.5, 0.3, 0.1)}
    drawn = plot_pr_curves(curves)
    assert len(drawn.unachievable) == 3
    r = np.linspace(0.05, 0.95, 50)
    from matplotlib.path import Path as MplPath

    # Each point strictly under the largest region's edge is shaded by exactly one region.
    largest = max(c.prevalence for c in curves.values())
    from prcurve.space.bounds import min_precision

    for x, top in zip(r, np.asarray(min_precision(r, largest)), strict=True):
        for y in np.linspace(0.01, 0.99, 40) * top:
            cover = sum(MplPath(region.get_paths()[0].vertices).contains_point((x, y))
                        for region in drawn.unachievable)
            assert cover == 1, (x, y)


# -- the multi-class page and its macro-average curve ----------------------------------------


def test_multiclass_page_has_one_legend_entry_per_kind_and_one_shaded_region() -> None:
    from prcurve.present.html_document import _bokeh
    from prcurve.present.html_figures import _pr_figure

    report = five_class_report()
    models = list(enumerate(report.models))
    figure, _ = _pr_figure(_bokeh(), models, "PR", 1.0, report.class_averages)
    labels = [item.label.value for item in figure.legend[0].items]
    assert len(labels) == len(models) + 3 + 2  # region, boundaries, baselines; macro, band
    assert len(set(labels)) == len(labels)
    from bokeh.models import GlyphRenderer, VArea

    shaded = [r for r in figure.renderers if isinstance(r, GlyphRenderer)
              and isinstance(r.glyph, VArea)]
    assert len(shaded) == 2  # the largest π's region, once, and the macro band


def test_macro_average_curve_is_vertical_averaging_with_the_bootstrap_band() -> None:
    report = five_class_report()
    (group,) = report.class_averages
    band = group.macro_curve
    classes = [m.curve for m in report.models[:-1]]  # the micro curve is last
    expected = aggregate(classes, "vertical")
    np.testing.assert_array_equal(band.recall, expected.recall)
    np.testing.assert_allclose(band.estimate, expected.precision, rtol=0, atol=1e-15)
    # By hand: the mean of the classes' interpolated precision at each level.
    by_hand = np.mean([c.interpolated_precision(band.recall) for c in classes], axis=0)
    np.testing.assert_allclose(band.estimate, by_hand, rtol=0, atol=1e-15)
    assert band.n_resamples == 200  # the cap: MACRO_BAND_RESAMPLES, below --resamples 300
    assert band.level == 0.95
    assert np.all(band.lower <= band.upper)
    assert np.all((band.lower >= 0) & (band.upper <= 1))


def test_macro_band_of_one_class_is_bootstrap_curve() -> None:
    curve = pr_curve(*_binary(11, 300, 0.3, 1.0))
    one = macro_average_curve([curve], n_resamples=300, seed=5)
    reference = bootstrap_curve(curve, n_resamples=300, seed=5)
    np.testing.assert_array_equal(one.lower, reference.lower)
    np.testing.assert_array_equal(one.upper, reference.upper)


def test_macro_band_is_narrower_for_more_independent_classes() -> None:
    # Averaging k independently resampled copies divides the spread by about sqrt(k).
    curve = pr_curve(*_binary(12, 400, 0.3, 1.0))
    one = macro_average_curve([curve], n_resamples=400, seed=1)
    four = macro_average_curve([curve] * 4, n_resamples=400, seed=1)
    middle = slice(20, 80)
    ratio = np.mean((four.upper - four.lower)[middle]) / np.mean((one.upper - one.lower)[middle])
    assert 0.35 < ratio < 0.7


def test_without_an_interval_the_macro_curve_has_no_band() -> None:
    rng = np.random.default_rng(3)
    y = rng.choice(3, 300)
    report = prcurve.report(y, rng.random((300, 3)), ci=None)
    band = report.class_averages[0].macro_curve
    assert band.n_resamples == 0
    assert np.isnan(band.lower).all()
    assert np.isfinite(band.estimate).all()


# -- the glossary ----------------------------------------------------------------------------


def test_docs_glossary_says_what_the_page_says() -> None:
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    for term, words in TERMS.items():
        assert f"- **{term}**: {words}" in text, term


@pytest.mark.parametrize("column", ["π", "min AP", "AUCNPR", "AP (davis_goadrich)",
                                    "AUCPR (DG)", "at t", "best F1", "95% CI", "ROC AUC"])
def test_every_newcomer_term_of_the_tables_has_an_entry(column: str) -> None:
    assert term_of(column) in TERMS


def test_page_and_notebook_carry_the_glossary_as_hover_text() -> None:
    report = binary_report()
    page = report.to_html()
    for column in ("π", "min AP", "AUCNPR", "at t", "AP (davis_goadrich)"):
        term = term_of(column)
        assert term is not None
        assert f"#{anchor(term)}" in page  # the header links to the page's entry
        assert f'<dt id="{anchor(term)}">' in page  # the entry, in the page itself
    notebook = report._repr_html_()
    titles = dict(re.findall(r'<th title="([^"]*)" class="prc-term">([^<]*)</th>', notebook))
    shown = set(titles.values())
    assert {"π", "min AP", "AUCNPR", "at t"} <= shown
    assert "docs/glossary.md" in notebook

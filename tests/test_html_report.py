"""The interactive HTML report (prcurve.present.html), checked in a real browser.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by
Selenium) opens report.html with the network switched off, moves the
threshold slider and types thresholds and targets, and every number the page
shows is compared with the library's: ``PRCurve.at_threshold(t)`` and its
``metrics()``, ``recall_at_precision`` and ``precision_at_recall``. Without a
browser these tests skip and say how to install one; CI installs it.
"""

from __future__ import annotations

import io
import math
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import grown

from prcurve import pr_curve
from prcurve.present.html import MAX_OPERATING_POINTS, m4_reduce, render_html
from prcurve.present.report import ReportSettings
from prcurve.present.report_build import evaluate

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_browser = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="no headless browser: install Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver), as .ci/run does",
)

RNG = np.random.default_rng(12)
N = 3000
LABELS = RNG.random(N) < 0.25
STRONG = np.round(np.where(LABELS, RNG.normal(1.0, 1.0, N), RNG.normal(-1.0, 1.0, N)), 2)
WEAK = np.round(np.where(LABELS, RNG.normal(0.3, 1.0, N), RNG.normal(-0.3, 1.0, N)), 1)
WEIGHTS = RNG.choice([0.5, 1.0, 2.5], N)


def two_models() -> Any:
    return evaluate({"strong": (LABELS, STRONG, WEIGHTS), "weak": (LABELS, WEAK)},
                    ReportSettings())


# -- the page in a browser -------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("no headless browser: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-quic", "--window-size=1500,2600",
                     # No name resolves: any request to a network host fails.
                     "--host-resolver-rules=MAP * ~NOTFOUND"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    yield driver
    driver.quit()


def open_page(driver: Any, path: Path) -> None:
    driver.get(path.as_uri())
    # Bokeh renders, then the document_ready callback fills the model tables.
    for _ in range(100):
        ready = driver.execute_script(
            "return window.Bokeh !== undefined && Bokeh.documents.length > 0 && "
            "Bokeh.documents[0].get_model_by_name('model-0').text.length > 0")
        if ready:
            return
        driver.implicitly_wait(0.1)
        driver.execute_script("return 0")
    raise AssertionError("the page never filled its confusion matrices")


def set_model(driver: Any, name: str, value: Any) -> None:
    driver.execute_script(
        "Bokeh.documents[0].get_model_by_name(arguments[0]).value = arguments[1]", name, value)


def shown(driver: Any, model: int) -> dict[str, Any]:
    """What the page shows for one model: its threshold, four cells and every rate."""
    text: str = driver.execute_script(
        "return Bokeh.documents[0].get_model_by_name(arguments[0]).text", f"model-{model}")
    threshold = re.search(r'data-threshold="([^"]*)"', text)
    cells = dict(re.findall(r'data-cell="(\w+)">([^<]*)<', text))
    rates = dict(re.findall(r'data-rate="(\w+)">([^<]*)<', text))
    return {"threshold": threshold.group(1) if threshold else None, "cells": cells,
            "rates": rates, "text": text}


def assert_matches(page: dict[str, Any], curve: Any, threshold: float) -> None:
    matrix = curve.at_threshold(threshold)
    for cell in ("tp", "fp", "fn", "tn"):
        assert float(page["cells"][cell]) == pytest.approx(getattr(matrix, cell), rel=1e-5), cell
    import warnings

    from prcurve import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = matrix.metrics()
    for name, text in page["rates"].items():
        value = expected[name]
        if math.isnan(value):
            assert text == "undefined", name
        else:  # the page shows 4 decimals
            assert abs(float(text) - value) <= 0.5e-4 + 1e-12, (name, text, value)
    assert len(page["rates"]) == 16


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html(two_models()), encoding="utf-8")
    return path


def test_page_is_one_self_contained_file(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    # Every script and style inline: no src= or href= pointing anywhere.
    assert not re.search(r'<script[^>]+src=', text)
    assert not re.search(r'<link[^>]+href=', text)
    assert "cdn.bokeh.org" not in text
    assert len(text.encode()) < 4 * 2**20


class Opened(NamedTuple):
    """What one opening of the page gave: the browser's logs and a screenshot."""

    performance: list[dict[str, Any]]
    browser_log: list[dict[str, Any]]
    screenshot: Path


@pytest.fixture(scope="module")
def opened(browser: Any, page: Path, tmp_path_factory: pytest.TempPathFactory) -> Opened:
    """The page opened once, as a user first sees it: the requests it made, the browser's
    messages and a screenshot, read by the two tests below (each opened it again)."""
    browser.get_log("performance")  # drop earlier entries
    browser.get_log("browser")
    open_page(browser, page)
    performance = browser.get_log("performance")
    messages = browser.get_log("browser")
    shot = tmp_path_factory.mktemp("shot") / "report.png"
    browser.save_screenshot(str(shot))
    return Opened(performance, messages, shot)


@needs_browser
def test_page_makes_no_network_request(opened: Opened) -> None:
    import json

    urls = []
    for entry in opened.performance:
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert urls, "the page itself should be requested"
    assert all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls
    errors = [e for e in opened.browser_log if e["level"] == "SEVERE"]
    assert not errors, errors


@needs_browser
def test_typed_thresholds_give_the_library_confusion_matrix(browser: Any, page: Path) -> None:
    open_page(browser, page)
    report = two_models()
    curves = [m.curve for m in report.models]
    for threshold in (1.5, 0.73, 0.0, -0.3, -1.02, float(STRONG.min()), float(WEAK.max())):
        set_model(browser, "mode", "threshold")
        set_model(browser, "value", repr(threshold))
        for index, curve in enumerate(curves):
            assert_matches(shown(browser, index), curve, threshold)


@needs_browser
def test_slider_positions_give_the_library_confusion_matrix(browser: Any, page: Path) -> None:
    open_page(browser, page)
    report = two_models()
    thresholds = np.unique(np.concatenate([m.curve.thresholds for m in report.models]))[::-1]
    for position in (0, 1, 17, len(thresholds) // 3, len(thresholds) - 1):
        set_model(browser, "threshold-slider", position)
        threshold = float(thresholds[position])
        for index, model in enumerate(report.models):
            assert_matches(shown(browser, index), model.curve, threshold)


@needs_browser
def test_threshold_above_every_score_predicts_nothing(browser: Any, page: Path) -> None:
    open_page(browser, page)
    set_model(browser, "mode", "threshold")
    set_model(browser, "value", "1000")
    strong = shown(browser, 0)
    assert strong["cells"]["tp"] == "0"
    assert strong["cells"]["fp"] == "0"
    assert "nothing predicted positive" in strong["text"]
    assert strong["rates"]["precision"] == "undefined"


@needs_browser
def test_targets_pick_the_library_operating_point(browser: Any, page: Path) -> None:
    # The four targets on one opening of the page (each was a test of its own, that
    # opened it again): each sets the mode and the value, as a user switching target does.
    open_page(browser, page)
    import warnings

    from prcurve import UndefinedMetricWarning

    models = two_models().models
    for mode, level in [("precision", 0.8), ("precision", 0.55), ("recall", 0.5),
                        ("recall", 0.95)]:
        set_model(browser, "mode", mode)
        set_model(browser, "value", repr(level))
        for index, model in enumerate(models):
            curve = model.curve
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                point = (curve.recall_at_precision(level) if mode == "precision"
                         else curve.precision_at_recall(level))
            page_view = shown(browser, index)
            if math.isnan(point.threshold):  # no operating point reaches the level
                assert page_view["threshold"] == "", (mode, level)
                assert "no operating point reaches" in page_view["text"]
                continue
            assert float(page_view["threshold"]) == point.threshold, (mode, level)
            assert_matches(page_view, curve, point.threshold)


@needs_browser
def test_screenshot_shows_both_curves(opened: Opened) -> None:
    import matplotlib.image

    shot = opened.screenshot  # taken once the page was opened
    pixels = matplotlib.image.imread(io.BytesIO(shot.read_bytes()))[..., :3]
    not_white = (pixels < 0.95).any(axis=-1).mean()
    assert not_white > 0.03, "the page looks blank"
    # Both models' colours (the report's palette: blue #1f77b4, orange #ff7f0e) are drawn.
    from prcurve.present.style import model_color

    for color in (model_color(0), model_color(1)):
        target = np.array([int(color[k:k + 2], 16) for k in (1, 3, 5)]) / 255
        assert (np.abs(pixels - target).max(axis=-1) < 0.05).sum() > 200, color


# -- large inputs: the file stays small, numbers stay exact ----------------------------------


def test_large_curve_is_reduced_and_the_page_says_so() -> None:
    rng = np.random.default_rng(3)
    n = 400_000
    labels = rng.random(n) < 0.1
    scores = np.where(labels, rng.normal(1, 1, n), rng.normal(0, 1, n))
    report = evaluate({"big": (labels, scores)})
    text = render_html(report)
    assert len(text.encode()) < 4 * 2**20
    assert str(MAX_OPERATING_POINTS) in text or "keeps" in text


# -- the drawing reduction ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 3000), columns=st.integers(1, 50), seed=st.integers(0, 2**16))
def test_m4_keeps_each_columns_first_last_lowest_and_highest(
    n: int, columns: int, seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(n))
    y = rng.random(n)
    kept = m4_reduce(x, y, columns)
    assert np.all(np.diff(kept) > 0)
    assert kept[0] == 0
    assert kept[-1] == n - 1
    if n <= 4 * columns:
        assert kept.shape[0] == n
        return
    assert kept.shape[0] <= 4 * columns
    column = np.minimum(((x - x[0]) / (x[-1] - x[0]) * columns).astype(int), columns - 1)
    chosen = set(kept.tolist())
    for c in np.unique(column):
        rows = np.flatnonzero(column == c)
        assert rows[0] in chosen
        assert rows[-1] in chosen
        assert y[rows].min() in y[kept]
        assert y[rows].max() in y[kept]


def test_m4_line_is_within_one_pixel_of_the_full_line() -> None:
    # Rendered by matplotlib at the page's width without antialiasing.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from prcurve.present.html_figures import PLOT_WIDTH
    from prcurve.present.pr_geometry import step_xy as _step_xy

    rng = np.random.default_rng(5)
    n = 200_000
    labels = rng.random(n) < 0.2
    curve = pr_curve(labels, np.where(labels, rng.normal(1, 1, n), rng.normal(0, 1, n)))
    x, y = _step_xy(curve)
    kept = m4_reduce(x, y, 2 * PLOT_WIDTH)
    assert kept.shape[0] < x.shape[0] // 20

    def raster(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        figure = Figure(figsize=(PLOT_WIDTH / 100, PLOT_WIDTH / 100), dpi=100)
        canvas = FigureCanvasAgg(figure)
        ax = figure.add_axes((0, 0, 1, 1))
        ax.step(xs, ys, where="pre", color="black", linewidth=1, antialiased=False)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., 0] < 128

    import matplotlib

    with matplotlib.rc_context({"path.simplify": False}):  # draw every vertex given
        full, reduced = raster(x, y), raster(x[kept], y[kept])
    assert full.sum() > 1000

    # Every pixel of either drawing lies within one pixel of the other drawing.
    assert not (full & ~grown(reduced)).any()
    assert not (reduced & ~grown(full)).any()
    assert (full != reduced).sum() < 0.1 * full.sum()


@needs_browser
def test_multiclass_page_gives_each_class_the_library_confusion_matrix(
    browser: Any, tmp_path: Path,
) -> None:
    classes = np.array(["bird", "cat", "dog"])
    truth = RNG.choice(classes, 500)
    scores = np.round(RNG.random((500, 3)), 2)
    scores[np.arange(500), np.searchsorted(classes, truth)] += 0.3
    report = evaluate({"m": (truth, scores)}, ReportSettings(ci_level=None))
    path = tmp_path / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    open_page(browser, path)
    assert [m.name for m in report.models] == ["m[bird]", "m[cat]", "m[dog]", "m[micro]"]
    for threshold in (0.95, 0.5, 0.31):
        set_model(browser, "mode", "threshold")
        set_model(browser, "value", repr(threshold))
        for index, model in enumerate(report.models):
            assert_matches(shown(browser, index), model.curve, threshold)
    picture = tmp_path / "multiclass.png"
    browser.save_screenshot(str(picture))
    assert picture.stat().st_size > 50_000


# -- the page clean at a glance (issue 25, item 5) -------------------------------------------


def _layout_reports() -> dict[str, Any]:
    """A binary, a skewed (1% positives) and a five-class report; long model names in one."""
    rng = np.random.default_rng(25)
    n = 4000
    labels = rng.random(n) < 0.01
    skewed = {"a strong model with a rather long descriptive name": (
        labels, np.where(labels, rng.normal(2, 1, n), rng.normal(0, 1, n))),
        "weak": (labels, np.where(labels, rng.normal(0.7, 1, n), rng.normal(0, 1, n)))}
    classes = np.array(["ant", "bee", "cat", "dog", "eel"])
    truth = rng.choice(5, 1500, p=[0.4, 0.25, 0.2, 0.1, 0.05])
    logits = rng.normal(0, 1, (1500, 5))
    logits[np.arange(1500), truth] += 1.5
    return {"binary": two_models(),
            "skewed": evaluate(skewed, ReportSettings(resamples=100)),
            "five classes": evaluate({"m": (classes[truth], logits)},
                                     ReportSettings(resamples=100))}


@needs_browser
def test_pages_fit_1280_pixels_start_at_the_best_f_and_colour_models_as_the_pictures(
    browser: Any, tmp_path: Path, page: Path,
) -> None:
    browser.set_window_size(1280, 2000)
    try:
        for kind, report in _layout_reports().items():
            path = tmp_path / f"{kind}.html"
            if kind == "binary":  # two_models(): the module's page is its page
                path = page
            else:
                path.write_text(render_html(report), encoding="utf-8")
            open_page(browser, path)
            width, client = browser.execute_script(
                "const e = document.documentElement; return [e.scrollWidth, e.clientWidth]")
            assert width <= client <= 1280, (kind, width, client)  # no sideways scrolling
            # The slider starts at the first model's best-F threshold, and every model
            # shows its operating point there.
            best = report.models[0].values["best_f"]["threshold"]
            threshold = browser.execute_script(
                "return Bokeh.documents[0].get_model_by_name('value').value")
            assert float(threshold) == best, kind
            assert float(shown(browser, 0)["threshold"]) == best
            for m, model in enumerate(report.models):
                assert_matches(shown(browser, m), model.curve, best)
            # The page's colour of each model is the one its curves have in pr_curve.png.
            colours = report.model_colors()
            for m, model in enumerate(report.models):
                found = re.search(r'<h4 style="color:([^"]+)"', shown(browser, m)["text"])
                assert found is not None
                assert found.group(1) == colours[model.name], (kind, model.name)
    finally:
        browser.set_window_size(1500, 2600)


_FIND = """
function all(root, out) {
  root.querySelectorAll('*').forEach(function (e) { if (e.shadowRoot) all(e.shadowRoot, out); });
  root.querySelectorAll('th[title], a[href^="#glossary"]').forEach(function (e) { out.push(e); });
  return out;
}
return all(document, []);
"""


@needs_browser
def test_column_names_explain_themselves_and_link_to_the_glossary(
    browser: Any, page: Path,
) -> None:
    from prcurve.present.glossary import TERMS, anchor, term_of

    open_page(browser, page)
    found = browser.execute_script(_FIND)
    titles = {e.text: e.get_attribute("title") for e in found if e.tag_name == "th"}
    for column in ("π", "min AP", "AUCNPR", "at t", "AP (davis_goadrich)"):
        term = term_of(column)
        assert term is not None
        assert titles[column] == TERMS[term]  # the browser's hover text
    link = next(e for e in found if e.tag_name == "a"
                and (e.get_attribute("href") or "").endswith(f"#{anchor('AUCNPR')}"))
    where = ("const r = document.getElementById(arguments[0]).getBoundingClientRect(); "
             "return [r.top, window.innerHeight]")
    browser.set_window_size(1280, 700)
    try:
        top, height = browser.execute_script(where, anchor("AUCNPR"))
        assert top > height  # below the window: the link has to scroll there
        browser.execute_script("arguments[0].click()", link)
        top, height = browser.execute_script(where, anchor("AUCNPR"))
        assert 0 <= top < height  # the page scrolled to the entry, and fetched nothing
    finally:
        browser.set_window_size(1500, 2600)

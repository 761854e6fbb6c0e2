"""The interactive HTML report: one self-contained file that works offline.

:func:`render_html` turns a :class:`~prcurve.present.report.Report` into one
HTML page with every script and style inline (Bokeh's, with its resources
inline; no request to any network), so it can be shared as a file:

- a comparison table of the models (AP in every named method, the unachievable
  region's minimum AP and AUCNPR, best F with its threshold, bootstrap
  intervals when the report has them, prevalence and counts);
- per input, an interactive PR curve: hover shows each operating point's
  threshold, precision, recall, F1 and TP/FP/FN/TN; the unachievable region
  (Boyd et al.'s minimum PR curve), the random baseline and iso-F lines; and
  beside it the ROC curve of the same counts;
- a threshold control (a slider, or a typed threshold, target precision or
  target recall) that moves an operating point on every model's curve and
  fills each model's confusion matrix and every rate of
  :meth:`~prcurve.ConfusionMatrix.metrics`;
- per model, precision, recall and F1 against the threshold.

Two reductions keep the file small for any input size (docs/report.md):

- the *drawn* lines keep, in each of ``2 * width`` columns of the plot, the
  first, last, lowest and highest point of the curve (M4 aggregation, Jugel
  et al. 2014, "M4: a visualization-oriented time series data aggregation"):
  at the plotted size every pixel of the drawn line lies within one pixel of
  the full line and the other way round (tests/test_html_report.py renders
  both and checks it);
- the *operating points* the page can select are all of a model's thresholds
  up to :data:`MAX_OPERATING_POINTS`, beyond that every k-th one plus the
  best-F point and both ends. Each number shown for a selected point is exact
  (the counts are the curve's own); a typed threshold selects the kept
  point that predicts positive for ``score >= threshold`` with the nearest
  kept threshold at or above it, and the page says which threshold that is.

The rates are computed in the page from the exact counts with the formulas of
:mod:`prcurve.core.confusion`; tests/test_html_report.py checks them, in
headless Chromium, against :meth:`prcurve.PRCurve.at_threshold`.
"""

from __future__ import annotations

import html
import math
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve._version import __version__
from prcurve.core.curve import PRCurve
from prcurve.core.curve_csv import curve_rows
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.glossary import glossary_html, with_titles
from prcurve.present.html_space import draw_iso_f, draw_macro, draw_regions
from prcurve.present.lines import m4_reduce
from prcurve.present.page_lines import (
    best_f_row,
    hover_rows,
    hover_values,
    pr_step,
    roc_line,
    threshold_line,
)
from prcurve.present.report_text import class_tables, curve_kind, positive_text
from prcurve.present.style import model_color

if TYPE_CHECKING:
    from prcurve.present.report import ClassAverages, ModelReport, Report

__all__ = ["MAX_OPERATING_POINTS", "PAGE_WIDTH", "m4_reduce", "operating_points", "render_html",
           "start_position"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

MAX_OPERATING_POINTS = 20_000
"""The most operating points (thresholds) of one model that the page keeps."""

PLOT_WIDTH = 560
"""Width in CSS pixels of the PR plot; the drawn lines are reduced for twice this."""

PAGE_WIDTH = 1180
"""Width in CSS pixels of the page's content: with its margins it fits a 1280-pixel window
without sideways scrolling (tests/test_html_report.py measures ``scrollWidth``)."""

_ISO_F = (0.2, 0.4, 0.6, 0.8)


# -- reductions -----------------------------------------------------------------------------


def operating_points(curve: PRCurve, limit: int = MAX_OPERATING_POINTS, *,
                     beta: float = 1.0) -> I64:
    """Indices of the operating points of ``curve`` that the page keeps.

    All of them up to ``limit``; otherwise every k-th one (k = ceil(n / limit)),
    the last one, the best-F1 point and the best-F-``beta`` point (where the
    slider starts), in threshold order.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve import pr_curve
    >>> from prcurve.present.html import operating_points
    >>> curve = pr_curve(np.arange(100) % 2, np.arange(100))
    >>> len(operating_points(curve)), len(operating_points(curve, limit=10)) <= 12
    (100, True)
    """
    n = len(curve)
    if n <= limit:
        return np.arange(n, dtype=np.int64)
    step = math.ceil(n / limit)
    kept = [np.arange(0, n, step, dtype=np.int64), np.array([n - 1], dtype=np.int64)]
    for b in dict.fromkeys((1.0, beta)):
        best = best_f_row(curve, b)  # np.nanargmax of F-beta, a block at a time
        if best is not None:
            kept.append(np.array([best], dtype=np.int64))
    return np.unique(np.concatenate(kept))


# -- the page ---------------------------------------------------------------------------------


def _bokeh() -> Any:
    try:
        import bokeh
    except ImportError as error:
        raise ImportError(
            "the HTML report needs bokeh, which is not installed: pip install 'prcurve[report]'"
        ) from error
    import bokeh.embed
    import bokeh.layouts
    import bokeh.models
    import bokeh.plotting
    import bokeh.resources

    return bokeh


def _quiet(curve: PRCurve, name: str) -> F64:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        values: F64 = np.asarray(getattr(curve, name) if name != "f1" else curve.f_beta(1.0),
                                 dtype=np.float64)
    return values


def _number(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    return f"{float(value):.{digits}f}"


def _comparison_table(report: Report) -> str:
    """The models side by side, one row each, every AP method (static HTML)."""
    return report.comparison_table(every_method=True).to_html(digits=None)


def _wide(table_html: str) -> str:
    """A table whose column names carry their glossary entry as hover text and link to it,
    in a box that scrolls sideways by itself if the table is wider than the page."""
    return f'<div class="prc-wide">{with_titles(table_html, link=True)}</div>'


_TABLES_PER_ROW = 3


def _model_state(bk: Any, model: ModelReport, index: int, beta: float
                 ) -> tuple[dict[str, Any], Any]:
    """What the page's script needs of one model: its totals, and a source holding the
    kept operating points' exact counts (sent as binary float64 arrays, not text)."""
    curve = model.curve
    kept = operating_points(curve, beta=beta)
    meta = {
        "name": model.name,
        "color": model_color(index),
        "n_pos": float(curve.n_pos),
        "n_neg": float(curve.n_neg),
        "n_thresholds": len(curve),
        "kept": int(kept.shape[0]),
    }
    # The kept points gathered from the state: no full-length float64 tp or fp.
    source = bk.models.ColumnDataSource({name: np.ascontiguousarray(values) for name, values
                                         in curve_rows(curve, ("threshold", "tp", "fp"),
                                                       kept).items()})
    return meta, source


def _pr_figure(bk: Any, models: Sequence[tuple[int, ModelReport]], title: str,
               beta: float, macros: Sequence[ClassAverages] = ()) -> tuple[Any, list[Any]]:
    """One input's PR plot of (report index, model) pairs; returns the figure and each
    model's marker source. A model's colour follows its index in the report."""

    models_ = bk.models
    figure = bk.plotting.figure(  # the legend's rows below the plot: 22 pixels each
        width=PLOT_WIDTH, height=PLOT_WIDTH + 30 + 22 * (len(models) + 3 + 2 * len(macros)),
        x_range=(0, 1), y_range=(0, 1.02),
        x_axis_label="Recall", y_axis_label="Precision", title=title,
        tools="pan,box_zoom,wheel_zoom,reset,save", toolbar_location="above",
    )
    draw_regions(figure, models)
    draw_iso_f(models_, figure, _ISO_F, beta)
    markers = []
    hover_renderers = []
    for index, model in models:
        curve = model.curve
        color = model_color(index)
        ap = model.values["ap"]
        label = f"{model.name}: AP ({ap['method']}) = {_number(ap['value'], 3)}"
        x, y = pr_step(curve, 2 * PLOT_WIDTH)  # M4, by blocks for a long curve
        if x.shape[0]:
            figure.step(x, y, mode="before", line_color=color, line_width=2,
                        legend_label=label)
        # Hover points: the operating points themselves, reduced the same way.
        if len(curve):
            keep = hover_rows(curve, 2 * PLOT_WIDTH)
            source = models_.ColumnDataSource({
                **hover_values(curve, keep),  # recall, precision, threshold, f1
                **curve_rows(curve, ("tp", "fp", "fn", "tn"), keep),  # gathered
                "model": [model.name] * int(keep.shape[0]),
            })
            points = figure.scatter("recall", "precision", source=source, size=7, alpha=0.0,
                                    hover_alpha=0.9, line_color=None, fill_color=color)
            hover_renderers.append(points)
        marker = models_.ColumnDataSource({"recall": [], "precision": []})
        figure.scatter("recall", "precision", source=marker, size=13, marker="circle",
                       fill_color=color, line_color="black", line_width=1.5,
                       name=f"marker-{index}")
        markers.append(marker)
    draw_macro(figure, macros)
    figure.add_tools(models_.HoverTool(renderers=hover_renderers, tooltips=[
        ("model", "@model"), ("threshold", "@threshold{0.[000000]}"),
        ("precision", "@precision{0.0000}"), ("recall", "@recall{0.0000}"),
        ("F1", "@f1{0.0000}"), ("TP / FP", "@tp{0.[00]} / @fp{0.[00]}"),
        ("FN / TN", "@fn{0.[00]} / @tn{0.[00]}"),
    ]))
    legend = figure.legend[0]
    figure.legend.click_policy = "hide"
    figure.legend.label_text_font_size = "8pt"
    figure.center = [r for r in figure.center if r is not legend]
    figure.add_layout(legend, "below")
    return figure, markers


def _roc_figure(bk: Any, models: Sequence[tuple[int, ModelReport]], title: str) -> tuple[
        Any, list[Any]]:
    """One input's ROC plot (the same counts as its PR plot); returns each model's marker."""
    models_ = bk.models
    figure = bk.plotting.figure(
        width=PLOT_WIDTH, height=PLOT_WIDTH + 30 + 22 * len(models), x_range=(0, 1),
        y_range=(0, 1.02), x_axis_label="False positive rate", y_axis_label="True positive rate",
        title=title, tools="pan,box_zoom,wheel_zoom,reset,save", toolbar_location="above",
    )
    figure.line([0, 1], [0, 1], line_dash="dashed", line_color="#555555",
                legend_label="random (AUC 0.5)")
    markers = []
    for index, model in models:
        color = model_color(index)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            line = roc_line(model.curve, 2 * PLOT_WIDTH)  # None where a rate is NaN
            auc = model.curve.roc().auc()  # both by blocks of the state
        if line is not None:
            figure.line(*line, line_color=color, line_width=2,
                        legend_label=f"{model.name}: ROC AUC = {_number(auc, 3)}")
        marker = models_.ColumnDataSource({"x": [], "y": []})
        figure.scatter("x", "y", source=marker, size=13, fill_color=color, line_color="black",
                       line_width=1.5)
        markers.append(marker)
    legend = figure.legend[0]
    figure.legend.click_policy = "hide"
    figure.legend.label_text_font_size = "8pt"
    figure.center = [r for r in figure.center if r is not legend]
    figure.add_layout(legend, "below")
    return figure, markers


def _threshold_figure(bk: Any, model: ModelReport, color: str) -> tuple[Any, Any]:
    """Precision, recall and F1 against the threshold, with the selected threshold's line."""
    curve = model.curve
    figure = bk.plotting.figure(
        width=PLOT_WIDTH, height=290, x_axis_label="threshold (predict positive if score >= t)",
        y_axis_label="value", y_range=(0, 1.02), title=f"{model.name}: against the threshold",
        tools="pan,box_zoom,wheel_zoom,reset,save", toolbar_location="above",
    )
    for which, (name, dash) in enumerate((("precision", "solid"), ("recall", "dashed"),
                                          ("f1", "dotdash"))):
        if len(curve):  # M4 of the reversed views, by blocks for a long curve
            t, values = threshold_line(curve, which, 2 * PLOT_WIDTH)
            figure.step(t, values, mode="after", line_color=color, line_dash=dash,
                        line_width=2, legend_label="F1" if name == "f1" else name)
    span = bk.models.Span(location=None, dimension="height", line_color="black",
                          line_width=1.5)
    figure.add_layout(span)
    if figure.legend:  # under the plot, in one row: it covers no line
        legend = figure.legend[0]
        legend.orientation = "horizontal"
        legend.label_text_font_size = "8pt"
        figure.center = [r for r in figure.center if r is not legend]
        figure.add_layout(legend, "below")
    return figure, span




def start_position(union: F64, best: float | None) -> int:
    """Where the slider starts: at ``best`` (the first model's best-F threshold), that is
    the lowest of the descending ``union`` thresholds at or above it; the middle when
    there is no best threshold (no positives).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.present.html import start_position
    >>> start_position(np.array([0.9, 0.7, 0.5, 0.2]), 0.5), start_position(
    ...     np.array([0.9, 0.7, 0.5, 0.2]), None)
    (2, 2)
    """
    n = int(union.shape[0])
    if best is None or not math.isfinite(best) or n == 0:
        return n // 2
    return min(max(int(np.count_nonzero(union >= best)) - 1, 0), n - 1)


def _best_threshold(report: Report) -> float | None:
    """The first model's best-F threshold (report.json's ``best_f``), or None."""
    if not report.models:
        return None
    value = report.models[0].values["best_f"].get("threshold")
    return None if value is None else float(value)


def _script() -> str:
    """The page's shared script (assets/report.js), read from the package."""
    from importlib.resources import files

    return (files("prcurve.present") / "assets" / "report.js").read_text(encoding="utf-8")


def _controls(bk: Any, meta: list[dict[str, Any]], sources: list[Any], markers: list[Any],
              roc_markers: list[Any], spans: list[Any], tables: list[Any],
              best: float | None) -> tuple[Any, Any, Any, Any]:
    models_ = bk.models
    every = [np.asarray(s.data["threshold"]) for s in sources]
    union = np.unique(np.concatenate(every))[::-1] if every else np.zeros(0)
    union_source = models_.ColumnDataSource({"threshold": np.ascontiguousarray(union)})
    start = start_position(union, best)
    slider = models_.Slider(start=0, end=max(int(union.shape[0]) - 1, 1), value=start, step=1,
                            title="operating point (thresholds from highest to lowest)",
                            width=PLOT_WIDTH, name="threshold-slider", show_value=False)
    mode = models_.Select(title="choose by", value="threshold", name="mode",
                          options=[("threshold", "threshold (score >= t)"),
                                   ("precision", "target precision (highest recall with "
                                    "precision >= p)"),
                                   ("recall", "target recall (highest precision with "
                                    "recall >= r)")])
    initial = float(union[start]) if union.shape[0] else 0.0
    box = models_.TextInput(title="value", value=repr(initial), name="value", width=220)
    args = {"meta": meta, "sources": sources, "union": union_source, "markers": markers,
            "roc_markers": roc_markers, "spans": spans, "tables": tables, "slider": slider,
            "mode": mode, "box": box}
    from_slider = models_.CustomJS(args=args, code=_script() + """
// A typed threshold moves the slider and is kept in its tags; a drag shows the slider's.
const typed = slider.tags.length ? slider.tags[0] : null;
slider.tags = [];
const t = typed === null ? thresholds[slider.value] : typed;
if (mode.value !== "threshold") mode.value = "threshold";
if (typed === null) box.value = String(t);
render("threshold", t);
""")
    from_box = models_.CustomJS(args=args, code=_script() + """
const v = Number(box.value);
if (box.value.trim() === "" || !Number.isFinite(v)) return;
if (mode.value === "threshold" && thresholds.length && v <= thresholds[0]) {
  // The slider's position: the lowest threshold of any model at or above v.
  let lo = 0, hi = thresholds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (thresholds[mid] >= v) lo = mid + 1; else hi = mid;
  }
  if (slider.value !== lo - 1) { slider.tags = [v]; slider.value = lo - 1; return; }
}
render(mode.value, v);
""")
    slider.js_on_change("value", from_slider)
    box.js_on_change("value", from_box)
    mode.js_on_change("value", from_box)
    first = models_.CustomJS(args=args, code=_script() + """
render("threshold", thresholds.length ? thresholds[slider.value] : 0.0);
""")
    return slider, mode, box, first


def _styles() -> tuple[str, str]:
    """The page's styles (assets/report.css): inside each Div, and of the page itself."""
    from importlib.resources import files

    text = (files("prcurve.present") / "assets" / "report.css").read_text(encoding="utf-8")
    div, page = text.split("/* @page", 1)
    return div, "/* @page" + page


def render_html(report: Report, *, title: str = "prcurve report",
                prg_svg: Callable[[], str] | None = None) -> str:
    """The report as one self-contained, interactive HTML page (Bokeh, inline resources).

    Parameters
    ----------
    report : Report
        The report to show; every number comes from its models' curves.
    title : str, default "prcurve report"
        The page title.
    prg_svg : callable, optional
        Returns the report's precision-recall-gain figure as SVG text, the drawing of
        prg_curve.png (:func:`prcurve.present.report_figures.draw_pictures`, perhaps in
        another process: :mod:`prcurve.present.picture_process`), to show inline; called
        once, when the rest of the page is built. Drawn here if None.

    Returns
    -------
    str
        The page: all scripts and styles inline, no request to any network.

    Examples
    --------
    >>> from prcurve.present.report_build import evaluate
    >>> from prcurve.present.html import render_html
    >>> page = render_html(evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])}))
    >>> page.startswith("<!DOCTYPE html>"), "https://" in page.split("<body")[0]
    (True, False)
    """
    bk = _bokeh()
    models_ = bk.models
    built = [_model_state(bk, m, i, report.settings.beta) for i, m in enumerate(report.models)]
    meta = [b[0] for b in built]
    sources = [b[1] for b in built]
    by_input: dict[str, list[tuple[int, ModelReport]]] = {}
    for index, model in enumerate(report.models):
        by_input.setdefault(model.input.name, []).append((index, model))
    markers: list[Any] = [None] * len(report.models)
    roc_markers: list[Any] = [None] * len(report.models)
    spans: list[Any] = [None] * len(report.models)
    div_style, page_style = _styles()
    sheet = models_.InlineStyleSheet(css=div_style)

    def div(text: str, **kwargs: Any) -> Any:
        return models_.Div(text=text, stylesheets=[sheet], **kwargs)

    tables = [div("", name=f"model-{i}", width=330) for i in range(len(meta))]
    pr_figures = []
    for name, group in by_input.items():
        figure, group_markers = _pr_figure(
            bk, group, f"PR curve: {name}", report.settings.beta,
            [g for g in report.class_averages if g.input == name])
        for (index, _), marker in zip(group, group_markers, strict=True):
            markers[index] = marker
        pr_figures.append(figure)
        roc, group_roc_markers = _roc_figure(bk, group, f"ROC curve: {name}")
        for (index, _), marker in zip(group, group_roc_markers, strict=True):
            roc_markers[index] = marker
        pr_figures.append(roc)
    threshold_figures = []
    for index, model in enumerate(report.models):
        figure, span = _threshold_figure(bk, model, meta[index]["color"])
        spans[index] = span
        threshold_figures.append(figure)
    slider, mode, box, initial = _controls(bk, meta, sources, markers, roc_markers, spans,
                                           tables, _best_threshold(report))
    from prcurve.present.verdict import html_section

    header = div(_header_html(report) + html_section(report.comparison), width=PAGE_WIDTH)
    # Wide tables wrap their headers and, past the page's width, scroll in their own box:
    # the page itself never scrolls sideways at 1280 pixels.
    table = div("<h2>Models side by side</h2>" + _wide(_comparison_table(report))
                + "".join(f"<h3>{html.escape(heading)}</h3>"
                          + _wide(classes.to_html(digits=None))
                          for heading, classes in class_tables(report)),
                width=PAGE_WIDTH, name="comparison")
    controls = bk.layouts.column(
        div("<h2>Operating point</h2><p class='prc-meta'>Move the slider, or type a "
            "threshold, a target precision or a target recall: every model's operating "
            "point, confusion matrix and rates follow. It starts at the first model's best "
            "F threshold.</p>", width=PAGE_WIDTH),
        bk.layouts.row(slider, mode, box),
        # Three confusion matrices to a row (330 pixels each), whatever the number of models.
        bk.layouts.grid(tables, ncols=_TABLES_PER_ROW) if tables else div(""),
    )
    layout = bk.layouts.column(
        header, table,
        div("<h2>Precision–recall and ROC curves</h2><p class='prc-meta'>Each input's PR "
            "curve and, beside it, the ROC curve of the same counts.</p>"),
        bk.layouts.gridplot(pr_figures, ncols=2, toolbar_location="right") if pr_figures
        else div(""),
        controls,
        div("<h2>Against the threshold</h2>"),
        bk.layouts.gridplot(threshold_figures, ncols=2, toolbar_location="right")
        if threshold_figures else div(""),
    )
    document = bk.plotting.Document()
    document.add_root(layout)
    document.js_on_event("document_ready", initial)
    with _without_document_validation():
        page: str = bk.embed.file_html(document, resources=bk.resources.INLINE, title=title)
    page = page.replace("<head>", f"<head>\n<style>{page_style}</style>", 1)
    # The precision-recall-gain view, one click away below the page (present/prg_plot.py),
    # and the glossary: plain HTML after Bokeh's root, not a Div, so that links from the
    # tables (inside Bokeh's shadow roots) to its entries scroll the page to them.
    from prcurve.present.prg_plot import prg_details_html

    end = page.rindex("</body>")  # the page's own; Bokeh's inline script holds others
    page = (page[:end] + prg_details_html({m.name: m.curve for m in report.models},
                                          svg=None if prg_svg is None else prg_svg())
            + "\n" + glossary_html() + "\n" + page[end:])
    return _fixed_ids(page)


@contextmanager
def _without_document_validation() -> Iterator[None]:
    """Bokeh without its document validation (``check_integrity``, which only logs what
    it finds) while the page is made: a tenth of the page's time (about 40 ms of 0.4 s at
    10^4 rows; issue 26, item 3). The page is the same; tests/test_html_validation.py
    validates it instead. Through Bokeh's own setting, ``settings.perform_document_validation``,
    set for the call and unset after, only when nobody chose it (its provenance a default):
    a value set in code, in ``BOKEH_VALIDATE_DOC`` or in a Bokeh config file comes first
    (docs/report.md). Property validation is
    off too (``validate(False)``): serialising checks every default again (14 ms more);
    only here, as while models are built it converts values (a title into a ``Title``)."""
    from bokeh.core.property.validation import validate
    from bokeh.settings import SettingProvenance, settings

    setting = settings.perform_document_validation
    unchosen = setting.get_value_with_provenance()[1] in (
        SettingProvenance.DEFAULT, SettingProvenance.DEV_DEFAULT, SettingProvenance.GLOBAL_DEFAULT)
    if unchosen:
        setting.set_value(False)
    try:
        with validate(False):
            yield
    finally:
        if unchosen:
            setting.unset_value()


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_RANDOM_ID_PLACES = (  # the three ids Bokeh draws at random for a standalone page
    ('<div id="', '" data-root-id='), ('<script type="application/json" id="', '">'),
    ('{"', '":{"version"'))


def _random_ids(page: str) -> list[str]:
    """The uuids between the texts of :data:`_RANDOM_ID_PLACES`, in page order, each once:
    found by ``str.find`` of each place's longer text (a regular expression of the three
    scanned the 2.2 MB page in 14 ms; this takes about 1 ms)."""
    found = []
    for before, after in _RANDOM_ID_PLACES:
        anchor, shift = (after, -36) if len(after) > len(before) else (before, len(before))
        at = page.find(anchor)
        while at >= 0:
            start = at + shift  # where the uuid would start: 36 characters, then `after`
            if (start >= len(before) and page.startswith(before, start - len(before))
                    and page.startswith(after, start + 36)
                    and _UUID.fullmatch(page, start, start + 36)):
                found.append((start, page[start:start + 36]))
            at = page.find(anchor, at + 1)
    return list(dict.fromkeys(uuid for _, uuid in sorted(found)))


def _fixed_ids(page: str) -> str:
    """``page`` with Bokeh's random element and document ids replaced by fixed ones, so
    that two runs of a command write the same bytes (the model ids count from a fixed
    start in each process). Only the ids found where Bokeh puts them are replaced."""
    for k, uuid in enumerate(_random_ids(page)):
        page = page.replace(uuid, f"prcurve-{k}")
    return page


def _header_html(report: Report) -> str:
    s = report.settings
    curve = html.escape(curve_kind(report))
    lines = [
        f"<h1>{html.escape('prcurve report')}</h1>",
        f"<p class='prc-meta'>prcurve {html.escape(__version__)}; predicted positive: score "
        f"&ge; threshold; tied scores are one operating point; curve: {curve}; headline AP "
        f"method: {html.escape(s.ap_method)}. Definitions: docs/definitions.md. Terms (π, min AP, "
        f"AUCNPR, Davis–Goadrich, at t, ...): hover a column name, or see the "
        f"<a href='#glossary'>glossary</a> at the end of this page (docs/glossary.md).</p>",
    ]
    for summary in report.inputs:
        if summary.path is None:
            continue
        lines.append(f"<p class='prc-meta'>input {html.escape(summary.name)}: "
                     f"{html.escape(str(summary.format))}, {summary.rows} rows; label "
                     f"{html.escape(repr(summary.label_column))}, "
                     f"{html.escape(positive_text(summary))}</p>")
    lines.extend(f"<p class='prc-meta'>note: {html.escape(n)}</p>" for n in report.notes)
    return "\n".join(lines)

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prcurve._version import __version__
from prcurve.present.glossary import glossary_html, with_titles
from prcurve.present.html_controls import (
    MAX_OPERATING_POINTS,
    _best_threshold,
    _controls,
    _model_state,
    operating_points,
    start_position,
)
from prcurve.present.html_document import _bokeh, _fixed_ids, _without_document_validation
from prcurve.present.html_figures import _pr_figure, _roc_figure, _threshold_figure
from prcurve.present.lines import m4_reduce
from prcurve.present.report_text import class_tables, curve_kind, positive_text

if TYPE_CHECKING:
    from prcurve.present.report import ModelReport, Report

__all__ = ["MAX_OPERATING_POINTS", "PAGE_WIDTH", "m4_reduce", "operating_points", "render_html",
           "start_position"]


PAGE_WIDTH = 1180
"""Width in CSS pixels of the page's content: with its margins it fits a 1280-pixel window
without sideways scrolling (tests/test_html_report.py measures ``scrollWidth``)."""


def _comparison_table(report: Report) -> str:
    """The models side by side, one row each, every AP method (static HTML)."""
    return report.comparison_table(every_method=True).to_html(digits=None)


def _wide(table_html: str) -> str:
    """A table whose column names carry their glossary entry as hover text and link to it,
    in a box that scrolls sideways by itself if the table is wider than the page."""
    return f'<div class="prc-wide">{with_titles(table_html, link=True)}</div>'


_TABLES_PER_ROW = 3



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

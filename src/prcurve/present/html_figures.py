"""The Bokeh figures of report.html (:mod:`prcurve.present.html`): each input's PR plot
with its hover points and ROC plot beside it, and each model's plot against the threshold.

Every drawn line is reduced for ``2 * PLOT_WIDTH`` columns (M4, by blocks for a long
curve: :mod:`prcurve.present.page_lines`); what the page draws in PR space besides the
curves is :mod:`prcurve.present.html_space`'s. Bokeh itself is passed in (``bk``, from
:func:`prcurve.present.html_document._bokeh`), never imported here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from prcurve.core.curve_csv import curve_rows
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.html_space import draw_iso_f, draw_macro, draw_regions
from prcurve.present.page_lines import (
    hover_rows,
    hover_values,
    pr_step,
    roc_line,
    threshold_line,
)
from prcurve.present.style import model_color

if TYPE_CHECKING:
    from prcurve.present.report import ClassAverages, ModelReport

__all__ = ["PLOT_WIDTH"]

PLOT_WIDTH = 560
"""Width in CSS pixels of the PR plot; the drawn lines are reduced for twice this."""

_ISO_F = (0.2, 0.4, 0.6, 0.8)


def _number(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    return f"{float(value):.{digits}f}"


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
    figure.legend.click_policy = "hide"
    _legend_below(figure)
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
    figure.legend.click_policy = "hide"
    _legend_below(figure)
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
        figure.legend[0].orientation = "horizontal"
        _legend_below(figure)
    return figure, span


def _legend_below(figure: Any) -> None:
    """The figure's legend, in 8 pt, moved from inside the plot to below it."""
    legend = figure.legend[0]
    legend.label_text_font_size = "8pt"
    figure.center = [r for r in figure.center if r is not legend]
    figure.add_layout(legend, "below")


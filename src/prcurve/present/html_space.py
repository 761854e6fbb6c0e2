"""What the page draws in PR space besides the models' curves (Bokeh figures).

:mod:`prcurve.present.html` builds each input's PR plot; this module adds, on
the same figure, the unachievable region(s) and random baseline(s)
(:func:`draw_regions`), the iso-F lines with their names right of the frame
(:func:`draw_iso_f`) and a multi-class model's macro-average curve with its band
(:func:`draw_macro`). The lines are those of :mod:`prcurve.present.pr_geometry`,
the ones the static pictures draw. Nothing here computes a metric.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prcurve.present.macro_plot import MACRO_COLOR, macro_label
from prcurve.present.pr_geometry import iso_f_ends, iso_f_line
from prcurve.present.style import model_color
from prcurve.space.bounds import min_precision

if TYPE_CHECKING:
    from prcurve.present.report import ClassAverages, ModelReport

__all__ = ["draw_iso_f", "draw_macro", "draw_regions"]


def draw_regions(figure: Any, models: Sequence[tuple[int, ModelReport]]) -> None:
    """The unachievable region(s) and random baseline(s) of one PR plot.

    One prevalence π: its region and baseline, the legend naming π and the minimum
    AP (the region's size, readable even where it is a sliver). Several (the
    classes of a multi-class input): the regions nest (p_min grows with π), so
    the largest is shaded once, never stacked into a dark block, and each
    model's own boundary and baseline are thin lines in its colour, one legend
    entry per kind (Bokeh groups renderers of the same ``legend_label``).
    """
    by_pi: dict[float, tuple[int, ModelReport]] = {}
    for index, model in models:
        if not math.isnan(model.curve.prevalence):
            by_pi.setdefault(round(model.curve.prevalence, 12), (index, model))
    grid = np.linspace(0.0, 1.0, 401)
    zeros = np.zeros_like(grid)
    if len(by_pi) == 1:
        ((pi, (_, model)),) = by_pi.items()
        minimum: dict[str, Any] = model.values["min_ap"]
        size = ("" if minimum.get("value") is None
                else f"; min AP ({minimum['method']}) = {minimum['value']:.3g}")
        figure.varea(x=grid, y1=zeros, y2=np.asarray(min_precision(grid, pi)),
                     fill_color="#888888", fill_alpha=0.25,
                     legend_label=f"unachievable (π = {pi:.3g}{size})")
        figure.line([0, 1], [pi, pi], line_dash="dashed", line_color="#555555",
                    legend_label=f"random (precision = π = {pi:.3g})")
        return
    if not by_pi:
        return
    largest = max(by_pi)
    figure.varea(x=grid, y1=zeros, y2=np.asarray(min_precision(grid, largest)),
                 fill_color="#888888", fill_alpha=0.2,
                 legend_label=f"unachievable for the largest π ({largest:.3g})")
    for pi, (index, _) in sorted(by_pi.items(), reverse=True):
        color = model_color(index)
        figure.line(grid, np.asarray(min_precision(grid, pi)), line_color=color,
                    line_width=1, line_alpha=0.7, line_dash="dotted",
                    legend_label="each model's unachievable boundary (its π)")
        figure.line([0, 1], [pi, pi], line_dash="dashed", line_color=color, line_alpha=0.7,
                    legend_label="random: precision = each model's π")


def draw_iso_f(models: Any, figure: Any, levels: Sequence[float], beta: float) -> None:
    """The iso-F lines, each named right of the frame where it ends at recall 1 (an axis
    of their names; ``models`` is ``bokeh.models``): no curve crosses a name there, as in
    the static plots (:mod:`prcurve.present.plot`)."""
    names: dict[float, str] = {}
    xs, ys = [], []
    for f, end in iso_f_ends(levels, beta):
        r, p = iso_f_line(f, beta)
        xs.append(r)
        ys.append(p)
        if end is not None:
            names[end] = f"F{beta:g}={f:g}"
    if xs:  # one renderer for every line: the same drawing, a tenth of the page's models
        figure.multi_line(xs, ys, line_color="#bbbbbb", line_width=1)
    figure.add_layout(models.LinearAxis(
        ticker=models.FixedTicker(ticks=list(names)), major_label_overrides=names,
        axis_line_color=None, major_tick_line_color=None, minor_tick_line_color=None,
        major_label_text_color="#888888", major_label_text_font_size="8pt",
        name="iso-f-names"), "right")


def draw_macro(figure: Any, groups: Sequence[ClassAverages]) -> None:
    """Each multi-class group's macro-average curve, in black, and its band when it has
    one (:mod:`prcurve.present.macro_plot` draws the same in pr_curve.png)."""
    for group in groups:
        band = group.macro_curve
        if band is None:
            continue
        shown = macro_label(band)
        if shown:
            figure.varea(x=band.recall, y1=band.lower, y2=band.upper, fill_color=MACRO_COLOR,
                         fill_alpha=0.15, legend_label=f"{group.model}[macro]: {shown}")
        figure.line(band.recall, band.estimate, line_color=MACRO_COLOR, line_width=2.5,
                    legend_label=f"{group.model}[macro]: mean interpolated precision")

"""One colour per model, the same in every picture and in the page.

A model keeps its colour everywhere the report shows it: pr_curve.png and .svg,
threshold.png, report.html and the notebook display all take it from
:func:`model_color` by the model's place in the report (its index in
``Report.models``), never from a plot's own colour cycle, which restarts in
each panel. :data:`PALETTE` is matplotlib's default "tab10" cycle, so a plot
drawn outside the report looks as matplotlib users expect.

Examples
--------
>>> from prcurve.present.style import PALETTE, model_color
>>> model_color(0), model_color(1), model_color(len(PALETTE)) == model_color(0)
('#1f77b4', '#ff7f0e', True)
"""

from __future__ import annotations

__all__ = ["PALETTE", "model_color"]

PALETTE: tuple[str, ...] = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's "tab10" colours, in its order (``matplotlib.colormaps["tab10"]``)."""


def model_color(index: int) -> str:
    """The colour of the report's ``index``-th model (the palette repeats after ten)."""
    return PALETTE[index % len(PALETTE)]

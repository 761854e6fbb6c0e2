"""The pictures of a report's folder, each drawn once and laid out once.

:meth:`prcurve.present.report.Report.write` writes, with its plots, pr_curve.png and
pr_curve.svg (one figure), threshold.png, prg_curve.png and the interactive report.html,
which shows the precision-recall-gain figure inline as SVG. Small reports are common
(a CI job on every commit) and there drawing is most of the time (issue 26, item 3), so:

- each figure is built once: the PR figure gives pr_curve.png and pr_curve.svg, the PRG
  figure prg_curve.png and report.html's inline SVG (:func:`prcurve.present.html.render_html`
  takes it);
- each figure is laid out once: the constrained layout runs at the figure's first drawing
  (for the PR figure, when :func:`prcurve.present.labels.place_labels` places the
  best-point labels against it; for the others, their first save), and every later save
  keeps that layout (the layout engine is then set to ``"none"``) instead of running it
  again. A layout is in fractions of the figure, so it is the same at every resolution;
- the writers are returned in the order they must run: a figure's first save before the
  files that reuse its drawing;
- every figure is built and saved inside :func:`prcurve.present.style.drawing_style`
  (matplotlib's defaults): the user's global matplotlib settings do not reach them.

:func:`draw_pictures` draws them all, in memory: the bytes of each file and report.html's
inline PRG SVG (the PRG figure first, so that the page's builder gets its SVG early:
:mod:`prcurve.present.picture_process` runs it in a second process).

Examples
--------
>>> from prcurve.present.report_build import evaluate
>>> from prcurve.present.report_figures import report_pictures
>>> report = evaluate({"a": ([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.2])})
>>> pictures = report_pictures(report)
>>> [name for name, _ in pictures.writers]
['pr_curve.png', 'pr_curve.svg', 'threshold.png', 'prg_curve.png']
>>> pictures.pr.get_layout_engine().__class__.__name__  # laid out once, then kept
'PlaceHolderLayoutEngine'
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from prcurve.present.files import figure_writer
from prcurve.present.style import drawing_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PICTURE_FILES", "DrawnPictures", "ReportPictures", "draw_pictures", "keep_layout",
           "pr_figure", "report_pictures"]

PICTURE_FILES = ("pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png")
"""The picture files of a report's folder, in the order of its manifest."""


class ReportPictures(NamedTuple):
    """The report's figures and the writers of their files (``(file name, writer)``, in
    the order they must run)."""

    pr: Figure
    thresholds: Figure
    prg: Figure
    writers: list[tuple[str, Callable[[Path | IO[bytes]], None]]]


def keep_layout(figure: Figure) -> None:
    """Keep ``figure``'s layout as it now stands for every later drawing: its layout engine
    is set to ``"none"`` (a placeholder that lays nothing out). Call it once the figure
    has been drawn (laid out) and nothing will be added to it."""
    figure.set_layout_engine("none")


def pr_figure(report: Any) -> Figure:
    """The PR figure of a :class:`~prcurve.present.report.Report` (pr_curve.png): one panel
    per prevalence, each with its unachievable region. Laid out when its best-point
    labels are placed (:func:`prcurve.present.labels.place_labels`)."""
    # Figures built without pyplot: no GUI backend, no global state, nothing to close.
    from matplotlib.figure import Figure

    from prcurve.present import plot
    from prcurve.present.glossary import FIGURE_NOTE
    from prcurve.present.macro_plot import macro_panels

    curves = {m.name: m.curve for m in report.models}
    groups = plot.group_by_prevalence(curves)
    style = {"ap_method": report.settings.ap_method, "beta": report.settings.beta,
             "colors": report.model_colors()}
    extra = macro_panels(report.class_averages)
    with drawing_style():  # matplotlib's defaults, whatever the user's settings
        if len(groups) == 1 and not extra:
            figure = Figure(figsize=plot.PR_FIGSIZE, dpi=plot.DPI, layout="constrained")
            figure.supxlabel(FIGURE_NOTE, fontsize=7, color="0.35")  # before the labels
            plot.plot_pr_curves(curves, figure.add_subplot(), **style)
            return figure
        titles = plot.panel_titles(groups, {m.name: m.input.name for m in report.models})
        figure = Figure(dpi=plot.DPI, layout="constrained")
        figure.supxlabel(FIGURE_NOTE, fontsize=9, color="0.35")
        plot.plot_pr_curves_grid(groups, titles=titles, figure=figure, extra=extra, **style)
    return figure


def _first_save(figure: Figure, name: str, dpi: float) -> Callable[[Path | IO[bytes]], None]:
    """The writer of a figure's first file: it lays the figure out, then keeps the layout."""
    save = figure_writer(figure, name, dpi=dpi)

    def write(temp: Path | IO[bytes]) -> None:
        save(temp)
        keep_layout(figure)

    return write


def report_pictures(report: Any) -> ReportPictures:
    """Every figure of a report's folder, built once, and the writers of its picture files
    (module docstring): pr_curve.png, pr_curve.svg, threshold.png, prg_curve.png."""
    from matplotlib.figure import Figure

    from prcurve.present.plot_setup import DPI
    from prcurve.present.prg_plot import prg_figure
    from prcurve.present.threshold_plot import plot_thresholds_grid

    curves = {m.name: m.curve for m in report.models}
    pr = pr_figure(report)
    keep_layout(pr)  # laid out by place_labels, which placed the labels against it
    with drawing_style():  # and each writer saves inside it (present.files)
        thresholds = plot_thresholds_grid(curves, beta=report.settings.beta,
                                          figure=Figure(layout="constrained"),
                                          colors=report.model_colors())
    # The precision-recall-gain view (docs/pr_space.md), a figure of its own (drawn in
    # the default style by prg_figure itself, as report.html's is when drawn alone).
    prg = prg_figure(curves)
    # Each picture through present.files: the same bytes every run.
    writers = [("pr_curve.png", figure_writer(pr, "pr_curve.png", dpi=DPI)),
               ("pr_curve.svg", figure_writer(pr, "pr_curve.svg", dpi=DPI)),
               ("threshold.png", _first_save(thresholds, "threshold.png", DPI)),
               ("prg_curve.png", _first_save(prg, "prg_curve.png", DPI))]
    return ReportPictures(pr, thresholds, prg, writers)


class DrawnPictures(NamedTuple):
    """A report's pictures drawn in memory: ``files``, ``(file name, bytes)`` in the order
    of :func:`report_pictures`'s writers, and ``prg_svg``, the PRG figure as SVG text
    (report.html shows it inline)."""

    files: list[tuple[str, bytes]]
    prg_svg: str


def draw_pictures(report: Any, on_prg_svg: Callable[[str], None] | None = None
                  ) -> DrawnPictures:
    """Draw every picture of :func:`report_pictures` in memory: the same bytes as its
    writers write. The PRG figure comes first; ``on_prg_svg`` is called with its SVG as
    soon as it is made (before the PR figure and the thresholds are saved).

    Examples
    --------
    >>> from prcurve.present.report_build import evaluate
    >>> from prcurve.present.report_figures import draw_pictures
    >>> drawn = draw_pictures(evaluate({"a": ([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.2])}))
    >>> [name for name, _ in drawn.files], drawn.prg_svg.lstrip().startswith("<?xml")
    (['pr_curve.png', 'pr_curve.svg', 'threshold.png', 'prg_curve.png'], True)
    """
    from prcurve.present.plot_setup import svg_text

    pictures = report_pictures(report)
    writers = dict(pictures.writers)
    files: dict[str, bytes] = {}

    def render(name: str) -> None:
        buffer = io.BytesIO()
        writers[name](buffer)
        files[name] = buffer.getvalue()

    render("prg_curve.png")  # lays the PRG figure out; the SVG keeps that layout
    prg_svg = svg_text(pictures.prg)
    if on_prg_svg is not None:
        on_prg_svg(prg_svg)
    for name in writers:
        if name not in files:
            render(name)
    return DrawnPictures([(name, files[name]) for name in writers], prg_svg)

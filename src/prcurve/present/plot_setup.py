"""What prcurve's matplotlib figures share: pyplot loaded when a figure is made, the
report's resolution and PR figure size, the columns a drawn line is reduced for, the PR
axes (recall and precision in [0, 1], square), thresholds as written on a plot, and a
figure as SVG text with the same bytes on every run.

The PR plots (:mod:`prcurve.present.plot`), the plots against the threshold
(:mod:`prcurve.present.threshold_plot`), the PRG, macro-average and detection plots use
them; matplotlib is imported inside the functions, never at the top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["DPI", "PR_FIGSIZE", "close", "pixel_columns", "svg_text"]

DPI = 150
"""Resolution of the report's PNG files (dots per inch)."""

PR_FIGSIZE = (9.0, 6.0)
"""Size in inches of a PR figure that prcurve creates (axes left, legend right)."""


def _pyplot() -> Any:
    import matplotlib.pyplot as plt

    return plt


def svg_text(figure: Figure | Callable[[], Figure]) -> str:
    """The figure as SVG text, the same bytes on every run (no date, fixed ids), for
    notebooks and files, saved in :func:`prcurve.present.style.drawing_style`; given a
    function that builds the figure (a notebook's own figure), built in it too.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from prcurve.present.plot import svg_text
    >>> svg_text(Figure()).lstrip().startswith("<?xml"), svg_text(Figure) == svg_text(Figure())
    (True, True)
    """
    import io

    from prcurve.present.style import drawing_style

    buffer = io.StringIO()
    with drawing_style():  # matplotlib's defaults, the SVG ids' fixed salt
        built = figure() if callable(figure) else figure
        built.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def close(figure: Figure) -> None:
    """Release a figure that prcurve created (``matplotlib.pyplot.close``)."""
    _pyplot().close(figure)


def pixel_columns(ax: Axes) -> int:
    """The columns a line drawn on ``ax`` is reduced for: twice the figure's width in
    pixels at :data:`DPI` (the axes are narrower), so at 150 dpi the reduced line is
    within half a pixel of the full one (:mod:`prcurve.present.lines`)."""
    parent: Any = ax.get_figure()
    root = getattr(parent, "figure", parent)  # a SubFigure's figure is its root (3.8+)
    width = float(root.get_figwidth()) if root is not None else PR_FIGSIZE[0]
    return max(1, int(2 * width * DPI))


def _format_threshold(value: float) -> str:
    return f"{value:.3g}"


def _setup_pr_axes(ax: Axes) -> None:
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    ax.set_aspect("equal", adjustable="box")
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)

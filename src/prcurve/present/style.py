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

The figures prcurve makes for its own files are built and saved inside
:func:`drawing_style`: matplotlib's default settings plus :data:`RC`, whatever the
user's global settings are (after seaborn's ``set()``, say, which gives every later
figure light grey axes), so a report looks the same in every session.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

__all__ = ["PALETTE", "RC", "drawing_style", "model_color"]

PALETTE: tuple[str, ...] = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's "tab10" colours, in its order (``matplotlib.colormaps["tab10"]``)."""


def model_color(index: int) -> str:
    """The colour of the report's ``index``-th model (the palette repeats after ten)."""
    return PALETTE[index % len(PALETTE)]


RC: dict[str, Any] = {"svg.hashsalt": "prcurve"}
"""prcurve's own settings over matplotlib's defaults: SVG ids from a fixed salt, so that a
picture is the same bytes on every run."""


def drawing_style() -> AbstractContextManager[Any]:
    """matplotlib's default settings plus :data:`RC`, for the duration of a ``with``
    block: build and save prcurve's own figures inside it. The user's global settings
    (``matplotlib.rcParams``, a style, seaborn's theme) are restored on exit and do not
    reach these figures (matplotlib reads its settings when an artist is made and again
    when it is drawn, so both happen inside).

    Examples
    --------
    >>> import matplotlib
    >>> from prcurve.present.style import drawing_style
    >>> with matplotlib.rc_context({"axes.facecolor": "#eaeaf2"}):  # a user's theme
    ...     with drawing_style():
    ...         inside = matplotlib.rcParams["axes.facecolor"]
    ...     after = matplotlib.rcParams["axes.facecolor"]
    >>> inside, after
    ('white', '#eaeaf2')
    """
    import matplotlib.style

    # "default": matplotlib's own defaults, not the user's matplotlibrc; the settings
    # that are no style's to change (the backend, interactive mode) stay as they are.
    return matplotlib.style.context(["default", RC])

"""Placing the best-F labels of a PR plot so that they never collide.

:func:`place_labels` runs after the figure's layout: each label tries
positions around its point, nearest first, and takes the first that overlaps
no other label, best-F marker, note, inset or the legend, is crossed by no
drawn curve or random baseline, and stays inside its axes; failing that, the
nearest free spot with a leader line to its point (crossed by no curve if
such a spot exists).
:func:`prcurve.present.plot.plot_pr_curves` and ``plot_pr_curves_grid`` call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.lines import Line2D
    from matplotlib.path import Path
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

    from prcurve.present.plot import PRPlot

__all__ = ["legend_entry", "place_labels"]


def _boxes_overlap(a: Bbox, b: Bbox) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


# Where a label may go, around its point: offsets in points, nearest first, with the
# alignment that keeps the text on the far side of the point.
_OFFSETS = tuple(
    (dx * r, dy * r, "left" if dx > 0 else "right" if dx < 0 else "center",
     "bottom" if dy > 0 else "top" if dy < 0 else "center")
    for r in (8, 18, 30, 46)
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, -1.4), (0, 1.4), (-1.4, 0), (1.4, 0))
)


def _marker_box(point: Line2D, renderer: RendererBase) -> Bbox:
    from matplotlib.transforms import Bbox

    x, y = (float(v) for v in np.asarray(point.get_xydata())[0])
    cx, cy = point.axes.transData.transform((x, y))  # type: ignore[union-attr]
    size = float(point.get_markersize())
    half = (size / 2 + 1) * float(cast(float, renderer.points_to_pixels(1.0)))
    return Bbox([[cx - half, cy - half], [cx + half, cy + half]])


def _drawn_path(line: Line2D) -> Path:
    """The line as drawn, in display coordinates (a steps-pre line's steps included)."""
    from matplotlib.cbook import pts_to_prestep
    from matplotlib.path import Path

    x = np.asarray(line.get_xdata(), dtype=np.float64)
    y = np.asarray(line.get_ydata(), dtype=np.float64)
    if line.get_drawstyle() == "steps-pre" and x.shape[0] > 1:
        x, y = pts_to_prestep(x, y)
    points = np.column_stack((x, y))
    points = points[np.isfinite(points).all(axis=1)]
    return Path(line.axes.transData.transform(points))  # type: ignore[union-attr]


def place_labels(plots: Sequence[PRPlot]) -> None:
    """Move every best-point label to where it overlaps no other label, best-point marker,
    note, inset or legend, inside its axes.

    Runs the figure's layout first, so that the boxes are final; the labels
    themselves stay out of the layout. Each label tries positions around its
    point, nearest first; if none is free it goes to the nearest free spot of
    its axes with a leader line to its point. :func:`plot_pr_curves` and
    :func:`plot_pr_curves_grid` call it; call it again after changing a figure
    that holds such plots.
    """
    if not plots:
        return
    figure = plots[0].figure
    renderer = figure._get_renderer()  # type: ignore[attr-defined]
    # The layout alone, not a whole drawing (draw_without_rendering): the boxes below are
    # computed from it on demand, and a draw adds nothing to them (issue 26, item 3: the
    # draw was a tenth of a report's picture time; the pictures are the same bytes).
    engine = figure.get_layout_engine()
    if engine is not None:
        engine.execute(figure)
    for ax in figure.axes:  # what Axes.draw does first: an inset's place, fixed aspects
        locator = ax.get_axes_locator()
        ax.apply_aspect(locator(ax, renderer) if locator is not None else None)
    for drawn in plots:
        ax = drawn.ax
        area = ax.get_window_extent(renderer)
        taken: list[Bbox] = [_marker_box(p, renderer) for p in drawn.best_points.values()]
        taken += [note.get_window_extent(renderer) for note in drawn.notes]
        if drawn.inset is not None:
            taken.append(drawn.inset.get_tightbbox(renderer) or drawn.inset.bbox)
        legend = ax.get_legend()
        if legend is not None:
            taken.append(legend.get_window_extent(renderer))
        lines = [_drawn_path(line) for line in [*drawn.curves.values(), *drawn.baselines]]
        for name, label in list(drawn.best_labels.items()):
            placed = _place_one(label, ax, area, taken, lines, renderer)
            drawn.best_labels[name] = placed
            taken.append(_text_box(placed, renderer))


def _text_box(label: Annotation, renderer: RendererBase) -> Bbox:
    """The label's own box, without its leader line (Annotation's extent includes it)."""
    from matplotlib.text import Text

    return Text.get_window_extent(label, renderer)


def _fits(label: Annotation, area: Bbox, taken: list[Bbox], lines: list[Path],
          renderer: RendererBase) -> bool:
    label.update_positions(renderer)
    box = _text_box(label, renderer)
    inside = (box.x0 >= area.x0 and box.x1 <= area.x1 and box.y0 >= area.y0
              and box.y1 <= area.y1)
    return (inside and not any(_boxes_overlap(box, other) for other in taken)
            and not any(path.intersects_bbox(box, filled=False) for path in lines))


_LABEL_STYLE: dict[str, Any] = {
    "fontsize": 7, "zorder": 5, "annotation_clip": False,
    "bbox": {"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.85,
             "edgecolor": "none"},
}


def _place_one(label: Annotation, ax: Axes, area: Bbox, taken: list[Bbox], lines: list[Path],
               renderer: RendererBase) -> Annotation:
    """The label, redrawn at its first free position (a new Annotation; the old is removed)."""
    text, xy, color = label.get_text(), label.xy, label.get_color()
    gid = label.get_gid()
    label.remove()

    def annotate(position: tuple[float, float], coords: str, ha: str, va: str,
                 leader: bool) -> Annotation:
        made = ax.annotate(text, xy=xy, xytext=position, textcoords=coords, color=color,
                           ha=cast(Any, ha), va=cast(Any, va), **_LABEL_STYLE,
                           arrowprops={"arrowstyle": "-", "color": color, "linewidth": 0.6,
                                       "shrinkA": 0, "shrinkB": 3} if leader else None)
        made.set_in_layout(False)
        made.set_gid(gid)
        return made

    for dx, dy, ha, va in _OFFSETS:
        candidate = annotate((dx, dy), "offset points", ha, va, leader=False)
        if _fits(candidate, area, taken, lines, renderer):
            return candidate
        candidate.remove()
    # No room next to the point: the nearest free spot of the axes, with a leader line.
    x, y = float(xy[0]), float(xy[1])
    spots = sorted(((float(fx), float(fy)) for fx in np.linspace(0.1, 0.9, 9)
                    for fy in np.linspace(0.06, 0.94, 12)),
                   key=lambda s: (s[0] - x) ** 2 + (s[1] - y) ** 2)
    for crossing in (lines, []):  # crossed by no curve if possible, else by no box only
        for spot in spots:
            candidate = annotate(spot, "axes fraction", "center", "center", leader=True)
            if _fits(candidate, area, taken, crossing, renderer):
                return candidate
            candidate.remove()
    return annotate(spots[0], "axes fraction", "center", "center", leader=True)


_LEGEND_WIDTH = 32
"""Characters of one legend line right of a PR figure (8-point text): longer entries wrap."""


def legend_entry(label: str) -> str:
    """A legend entry in lines of at most :data:`_LEGEND_WIDTH` characters, so that a long
    model name is never cut at the figure's edge: the name (wrapped where it must be),
    then the AP after its colon.

    Examples
    --------
    >>> print(legend_entry("strong_model_with_a_long_name: AP (step) = 0.746"))
    strong_model_with_a_long_name:
    AP (step) = 0.746
    >>> legend_entry("a: AP (step) = 0.5")
    'a: AP (step) = 0.5'
    """
    if len(label) <= _LEGEND_WIDTH:
        return label
    import textwrap

    head, colon, tail = label.partition(": ")
    lines = textwrap.wrap(head + colon.rstrip(), _LEGEND_WIDTH, break_long_words=True,
                          break_on_hyphens=False)
    return "\n".join([*lines, tail] if tail else lines)

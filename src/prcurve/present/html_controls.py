"""report.html's operating points and threshold control (:mod:`prcurve.present.html`).

The operating points the page can select (:func:`operating_points`: all of a model's
thresholds up to :data:`MAX_OPERATING_POINTS`, beyond that every k-th one plus the best-F
points and both ends), each model's exact counts at them as the page's data, and the
slider, the mode and the typed value that move the operating point on every model's
curve, with the page's script (``present/assets/report.js``). Bokeh itself is passed in
(``bk``), never imported here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.curve import PRCurve
from prcurve.core.curve_csv import curve_rows
from prcurve.present.html_figures import PLOT_WIDTH
from prcurve.present.page_lines import best_f_row
from prcurve.present.style import model_color

if TYPE_CHECKING:
    from prcurve.present.report import ModelReport, Report

__all__ = ["MAX_OPERATING_POINTS", "operating_points", "start_position"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

MAX_OPERATING_POINTS = 20_000
"""The most operating points (thresholds) of one model that the page keeps."""


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

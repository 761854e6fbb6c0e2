"""The report's pictures are drawn once and laid out once (issue 26, item 3), and the
files made from one drawing agree: prcurve.present.report_figures."""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import numpy as np
from matplotlib.layout_engine import ConstrainedLayoutEngine

from prcurve.present import prg_plot
from prcurve.present.report_build import evaluate


def _report():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    return evaluate({"strong": (y, rng.normal(size=2000) + 1.5 * y),
                     "weak": (y, rng.normal(size=2000) + 0.5 * y)})


def test_each_figure_is_laid_out_once_and_the_prg_figure_drawn_once(tmp_path: Path) -> None:
    report = _report()
    execute = ConstrainedLayoutEngine.execute
    built = prg_plot.prg_figure
    with mock.patch.object(ConstrainedLayoutEngine, "execute", autospec=True,
                           side_effect=execute) as layouts, \
            mock.patch.object(prg_plot, "prg_figure", side_effect=built) as prg_figures:
        written = report.write(tmp_path)
    names = sorted(p.name for p in written)
    assert names == sorted(["curve_strong.csv", "curve_weak.csv", "pr_curve.png",
                            "pr_curve.svg", "threshold.png", "prg_curve.png", "report.html",
                            "report.json"])
    # three figures (PR, thresholds, PRG), one layout each; before: PR 3 (labels, PNG,
    # SVG) and PRG 2 (PNG, the page's SVG)
    assert layouts.call_count == 3
    assert prg_figures.call_count == 1
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    section = page[page.index("<details id='prg'"):]
    assert section.count("<svg") == 1


def _axes_box(svg: str) -> tuple[float, float, float, float]:
    """The first axes patch of an SVG written by matplotlib: x0, y0, x1, y1 in points."""
    found = re.search(r'<g id="patch_2">\s*<path d="M ([\d.]+) ([\d.]+) \s*L ([\d.]+) '
                      r'([\d.]+)', svg)
    assert found is not None
    return tuple(float(v) for v in found.groups())  # type: ignore[return-value]


def test_png_and_svg_come_from_one_layout(tmp_path: Path) -> None:
    from PIL import Image

    from prcurve.present.plot import DPI

    report = _report()
    report.write(tmp_path)
    x0, y0, x1, _ = _axes_box((tmp_path / "pr_curve.svg").read_text(encoding="utf-8"))
    with Image.open(tmp_path / "pr_curve.png") as image:
        width = image.size[0]
        gray = np.asarray(image.convert("L"))
    # the SVG's axes box in PNG pixels (points are 1/72 inch) is where the PNG's frame is
    scale = DPI / 72.0
    # columns dark over a third of the height: the axes' left and right spines
    frame = np.flatnonzero((gray < 128).sum(axis=0) > gray.shape[0] // 3)
    for edge in (x0 * scale, x1 * scale):
        assert np.abs(frame - edge).min() <= 1.5, (edge, frame)
    assert width == round(9.0 * DPI)
    assert y0 > 0


def test_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    report = _report()
    first = {p.name: p.read_bytes() for p in report.write(tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in _report().write(tmp_path / "b")}
    for name in ("pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png"):
        assert first[name] == second[name], name

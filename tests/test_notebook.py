"""docs/examples/notebook.ipynb runs in a Jupyter kernel and every object displays itself.

The notebook is executed with nbclient (the ``test`` extra) and each output is
checked against the library's own numbers computed here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import prcurve

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notebook.ipynb"


@pytest.fixture(scope="module")
def executed() -> Any:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return notebook


def html_of(executed: Any, source_start: str) -> str:
    cell = next(c for c in executed.cells
                if c.cell_type == "code" and c.source.startswith(source_start))
    outputs = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    assert outputs, f"no display for {source_start!r}"
    assert not [o for o in cell.outputs if o.output_type == "error"]
    html: str = outputs[-1]["data"]["text/html"]
    return html


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    strong = rng.normal(size=2000) + 1.5 * y
    weak = rng.normal(size=2000) + 0.5 * y
    return y, strong, weak


def test_every_cell_runs_and_displays_html(executed: Any) -> None:
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source


def test_curve_shows_its_numbers_and_plot(executed: Any) -> None:
    y, strong, _ = data()
    curve = prcurve.pr_curve(y, strong)
    html = html_of(executed, "curve = prcurve.pr_curve")
    assert f"{curve.average_precision('step'):.4f}" in html
    assert f"{curve.best_f().value:.4f}" in html
    assert "<svg" in html  # the curve drawn inline


def test_table_and_confusion_matrix(executed: Any) -> None:
    y, strong, _ = data()
    curve = prcurve.pr_curve(y, strong)
    table = html_of(executed, "curve.to_table()")
    assert table.count("<tr>") == 1 + 21  # header, 20 rows and the "more rows" line
    assert f"{curve.precision[0]:.4f}" in table
    matrix = html_of(executed, "curve.at_threshold(0.5)")
    expected = curve.at_threshold(0.5)
    for count in (expected.tp, expected.fp, expected.fn, expected.tn):
        assert f">{count:g}<" in matrix
    assert f"{expected.mcc:.4f}" in matrix


def test_report_interval_and_ranking(executed: Any) -> None:
    y, strong, weak = data()
    report = html_of(executed, "report = prcurve.report")
    assert "models side by side" in report or "<caption>models</caption>" in report
    for scores in (strong, weak):
        assert f"{prcurve.average_precision(y, scores):.4f}" in report
    assert "<svg" in report
    interval = html_of(executed, "prcurve.bootstrap_average_precision")
    expected = prcurve.bootstrap_average_precision(prcurve.pr_curve(y, strong),
                                                   n_resamples=200, seed=0)
    assert f"[{expected.lower:.4f}, {expected.upper:.4f}]" in interval
    ranking = html_of(executed, "qrels = ")
    assert re.search(r"AP</td>\s*<td[^>]*>0\.6667", ranking)
    qrels = html_of(executed, "prcurve.Qrels.from_dict")
    assert "Qrels(2 queries, 4 rows" in qrels
    assert "b&#x27;" not in qrels  # ids shown as text, not bytes
    assert "b'" not in qrels
    frame = executed.cells[-1].outputs[-1]["data"]
    assert "text/html" in frame  # a pandas DataFrame

"""docs/sklearn_and_trackers.md ("Using prcurve with scikit-learn and trackers"): every
example on the page runs as a doctest, and its outputs are the outputs shown."""

from __future__ import annotations

import doctest
from pathlib import Path

import matplotlib
import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "sklearn_and_trackers.md"


def test_every_example_of_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlflow

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # closed below; the page's examples may not import it
    # MLflow 3 keeps the local file store behind this switch (the page says so).
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.chdir(tmp_path)
    try:
        result = doctest.testfile(
            str(DOC), module_relative=False, report=True, verbose=False,
            optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    finally:
        mlflow.set_tracking_uri("")
        plt.close("all")
    assert result.attempted > 30
    assert result.failed == 0

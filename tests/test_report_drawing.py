"""`prcurve report --out`: what it prints equals what it writes, and its figures look the
same whatever the user's global matplotlib settings (issue 26, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from prcurve.cli import main

RNG = np.random.default_rng(26)
Y = (RNG.random(300) < 0.3).astype(int)
A = np.round(RNG.normal(Y * 1.0, 1.0), 3)
B = np.round(RNG.normal(Y * 0.5, 1.0), 3)


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    path = tmp_path / "scores.csv"
    path.write_text("label,a,b\n" + "".join(
        f"{y},{a!r},{b!r}\n" for y, a, b in zip(Y.tolist(), A.tolist(), B.tolist(),
                                                strict=True)))
    return path


@pytest.mark.parametrize("plots", [[], ["--no-plots"]])
def test_json_on_stdout_is_report_json(scores: Path, tmp_path: Path, plots: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    # It printed "curve_file": null while report.json named the file: the printed text
    # came from the report before its files were named.
    out = tmp_path / "out"
    assert main(["report", str(scores), "--format", "json", "--out", str(out), *plots]) == 0
    printed = capsys.readouterr().out
    assert printed == (out / "report.json").read_text(encoding="utf-8")
    models = json.loads(printed)["models"]
    assert [m["curve_file"] for m in models] == ["curve_a.csv", "curve_b.csv"]
    assert all((out / m["curve_file"]).is_file() for m in models)


def test_json_without_out_has_no_curve_file(scores: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(scores), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [m["curve_file"] for m in report["models"]] == [None, None]
    assert report["files"] == []

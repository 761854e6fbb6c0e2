"""``prcurve report --out`` of streamed inputs imports its drawing modules in a thread
while it counts (present/files.py, ``preload_picture_modules``); run in a caller's
process, the command waits for that import before it returns, so the caller never finds
a half-initialised module in ``sys.modules`` (a test's check of matplotlib's settings
once did: ``module 'matplotlib' has no attribute 'rcParams'``)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from prcurve.cli import main
from prcurve.present import files


def _preloads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "prcurve-preload" and t.is_alive()]


def test_streamed_report_returns_after_its_preload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # A module that takes 2.5 s to import (longer than the drawing) stands for matplotlib
    # and Bokeh in a fresh process (this test process may have them loaded already).
    (tmp_path / "prcurve_slow_module.py").write_text("import time\ntime.sleep(2.5)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "prcurve_slow_module", raising=False)
    monkeypatch.setattr(files, "_PICTURE_MODULES",
                        (*files._PICTURE_MODULES, "prcurve_slow_module"))
    rng = np.random.default_rng(0)
    scores = tmp_path / "scores.csv"
    scores.write_text("label,score\n" + "".join(
        f"{int(y)},{float(s)!r}\n"
        for y, s in zip(rng.random(300) < 0.3, rng.random(300), strict=True)))
    assert _preloads() == []
    code = main(["report", str(scores), "--out", str(tmp_path / "out"), "--stream"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "prcurve_slow_module" in sys.modules  # the preload ran...
    assert _preloads() == []  # ...and had ended when the command returned
    assert files._preloading == []

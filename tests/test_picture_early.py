"""`prcurve report FILE --out DIR` starts its drawing process at the program's start,
before NumPy and the command's modules load (present.picture_process.start_early; issue
26, item 3). Run as the program (a subprocess: ``main`` with ``argv=None``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prcurve.present import picture_process

PROGRAM = """
import json, os, sys
from prcurve.present import picture_process
spawned = []
spawn = picture_process._spawn
def not_here(report, on_prg_svg=None):
    raise AssertionError("drawn in the parent")
def watched():
    spawned.append("numpy" in sys.modules)  # was NumPy loaded when it started?
    child = spawn()
    if os.environ.get("NOT_HERE"):  # this process cannot draw (imported after the spawn)
        from prcurve.present import report_figures
        report_figures.draw_pictures = not_here
    return child
picture_process._spawn = watched
page = []  # Bokeh's import once the report is sent (test_the_program_imports_bokeh_...)
load = picture_process._load_page_modules
def watched_load():
    import gc
    before = gc.get_freeze_count()
    load()
    page.append({"bokeh": "bokeh.plotting" in sys.modules, "enabled": gc.isenabled(),
                 "frozen": gc.get_freeze_count() - before})
picture_process._load_page_modules = watched_load
sys.argv = ["prcurve", *sys.argv[1:]]
from prcurve.cli.main import main
try:
    status = main()
finally:
    early = picture_process._early
    print(json.dumps({"spawned": spawned, "early": early is not None,
                      "pid": None if early is None else early.pid, "page": page}),
          file=sys.stderr)
sys.exit(status)
"""


def _scores(folder: Path) -> Path:
    rng = np.random.default_rng(33)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.round(rng.normal(y * 1.0, 1.0), 4)
    path = folder / "scores.csv"
    path.write_text("label,score\n" + "".join(f"{a},{b!r}\n" for a, b in
                                              zip(y.tolist(), s.tolist(), strict=True)))
    return path


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    return _scores(tmp_path)


def _run(args: list[str], cwd: Path, **env: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run([sys.executable, "-c", PROGRAM, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PRCURVE_PICTURES": "child", **env})
    lines = done.stderr.strip().splitlines()
    return done.returncode, json.loads(lines[-1]), "\n".join(lines[:-1])


Run = tuple[int, dict[str, Any], str, Path, Path]


@pytest.fixture(scope="module")
def program_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """``prcurve report scores.csv --out out`` run once as the program, this process unable
    to draw (NOT_HERE): what it saw, read by the tests below (a child interpreter and a
    drawing each time it was run again)."""
    folder = tmp_path_factory.mktemp("program")
    scores = _scores(folder)
    status, seen, err = _run(["report", str(scores), "--out", "out"], folder, NOT_HERE="1")
    return status, seen, err, folder, scores


def test_started_before_numpy_and_it_draws(program_run: Run) -> None:
    # Also the plain `--out` case of test_not_started_or_stopped_when_no_picture_is_drawn_
    # there: started before NumPy, taken (not stopped), report.json written.
    status, seen, err, tmp_path, scores = program_run
    assert status == 0, err
    assert {key: seen[key] for key in ("spawned", "early", "pid")} == {
        "spawned": [False], "early": False, "pid": None}  # before NumPy, taken
    assert (tmp_path / "out" / "report.json").is_file()
    lib = tmp_path / "lib"
    from prcurve.io.class_columns import load_input
    from prcurve.present.report import ReportSettings
    from prcurve.present.report_build import build_report

    one = load_input(str(scores), labels=[], scores=[], weight=None, positive=None,
                     drop_invalid=False, input_format=None, on_rows=None, delimiter=None,
                     decimal=".")
    build_report([one], ReportSettings(), []).write(lib)
    for name in ("pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png"):
        assert (tmp_path / "out" / name).read_bytes() == (lib / name).read_bytes(), name


@pytest.mark.parametrize(("args", "spawned"), [
    (["--no-plots"], []), (["--stream"], [False])])  # [] (--out alone): program_run above
def test_not_started_or_stopped_when_no_picture_is_drawn_there(
        args: list[str], spawned: list[bool], scores: Path, tmp_path: Path) -> None:
    # --stream: the words do not say it (an abbreviation "--str" would); started and
    # stopped, the pictures drawn here.
    words = ["report", str(scores), "--out", "out", *args]
    if args == ["--stream"]:
        words = ["report", str(scores), "--out", "out", "--strea"]  # argparse's abbreviation
        spawned = []
    status, seen, err = _run(words, tmp_path)
    assert status == 0, err
    assert seen["spawned"] == spawned
    assert seen["early"] is False
    assert (tmp_path / "out" / "report.json").is_file()


@pytest.mark.parametrize(("args", "taken"), [
    ([], True),  # bad data: found while reading, after the child was taken
    (["--fail-under", "nonsense"], False)])  # refused before it is taken
def test_a_failing_command_stops_it(args: list[str], taken: bool, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("label,score\n1,0.5\n7,0.2\n")  # a label that is not binary
    status, seen, err = _run(["report", str(bad), "--out", "out", *args], tmp_path)
    assert status == 2
    assert err.splitlines()[-1].startswith("prcurve: error: ")
    assert seen["spawned"] == [False]
    assert seen["early"] is not taken
    if not taken:  # stopped when the program exited (atexit): no such process now
        assert not Path(f"/proc/{seen['pid']}").exists() or sys.platform != "linux"


@pytest.mark.parametrize(("words", "asks"), [
    (["report", "f.csv", "--out", "d"], True),
    (["report", "f.csv", "--out=d"], True),
    (["report", "f.csv"], False),
    (["report", "f.csv", "--out", "d", "--no-plots"], False),
    (["report", "f.csv", "--out", "d", "--no-p"], False),
    (["report", "f.csv", "--out", "d", "--workers", "2"], False),
    (["report", "f.csv", "--out", "d", "--dask=x"], False),
    (["report", "f.csv", "--out", "d", "--ci", "none"], True),
])
def test_what_the_words_ask_for(words: list[str], asks: bool) -> None:
    assert picture_process._asks_for_pictures(words) == asks


FROZEN = """
import gc, json, sys
from prcurve.present import picture_process
seen = []
load = picture_process._load_page_modules
def watched():
    before = gc.get_freeze_count()
    load()
    seen.append({"bokeh": "bokeh.plotting" in sys.modules, "enabled": gc.isenabled(),
                 "frozen": gc.get_freeze_count() - before})
picture_process._load_page_modules = watched
from prcurve.cli.main import main
status = main(sys.argv[1:])  # from Python: no early child, nothing frozen for the caller
print(json.dumps(seen), file=sys.stderr)
sys.exit(status)
"""


def test_the_program_imports_bokeh_then_freezes(program_run: Run) -> None:
    """The program's own process imports Bokeh as soon as the report is sent, without
    cycle collection, and sets what it made aside (gc.freeze); the program's run of
    test_started_before_numpy_and_it_draws (PROGRAM watches it as FROZEN does)."""
    status, seen, err, tmp_path, _ = program_run
    assert status == 0, err
    page = seen["page"]
    assert isinstance(page, list)
    assert len(page) == 1
    assert page[0]["bokeh"]
    assert page[0]["enabled"]
    assert page[0]["frozen"] > 10_000  # Bokeh's objects, set aside
    assert (tmp_path / "out" / "report.html").is_file()


def test_main_from_python_freezes_nothing(scores: Path, tmp_path: Path) -> None:
    """``main([...])`` from Python leaves the caller's collector alone. The files are the
    same either way (test_started_before_numpy_and_it_draws)."""
    done = subprocess.run([sys.executable, "-c", FROZEN, "report", str(scores),
                           "--out", "out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PRCURVE_PICTURES": "child"})
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert seen == []
    assert (tmp_path / "out" / "report.html").is_file()

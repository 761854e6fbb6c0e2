"""`prcurve report --out`: what it prints equals what it writes, and its figures look the
same whatever the user's global matplotlib settings (issue 26, item 3)."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prcurve.cli import main
from prcurve.errors import InvalidInputError
from prcurve.present import picture_process, report_figures
from prcurve.present.picture_process import InProcessPictures, PictureProcess
from prcurve.present.report_build import evaluate

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


# -- the pictures drawn in a second process (present/picture_process.py) ------------------


def _children() -> list[int]:
    """The processes whose parent is this one (zombies included), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.append(int(entry.name))
    return found


linux_only = pytest.mark.skipif(not Path("/proc/self/stat").is_file(),
                                reason="counts child processes through /proc (Linux)")

@pytest.fixture(autouse=True)
def a_free_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child is started whatever the machine's load (free_core is tested below)."""
    monkeypatch.setattr(picture_process, "free_core", lambda: True)


PICTURES = ("pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png", "report.html")


def _report() -> Any:
    return evaluate({"strong": (Y, A), "weak": (Y, B)})


Drawn = tuple[list[tuple[str, bytes]], str]


@pytest.fixture(scope="module")
def drawn_here() -> Drawn:
    """``_report()``'s pictures and PRG SVG drawn in this process, once for the module:
    the reference every test below compares a drawing with (about a second of CPU each
    time it was drawn again). Set up before any test's monkeypatching, in matplotlib's
    default settings; a fresh ``_report()`` draws the same bytes each time (the child's
    drawing of another report object equals it, and so does the drawing in a user's
    style below)."""
    here = InProcessPictures(_report())
    return here.files(), here.prg_svg()


def test_the_child_draws_the_same_bytes_as_this_process(drawn_here: Drawn) -> None:
    report = _report()  # another report object than the one drawn here
    here_files, here_svg = drawn_here
    with PictureProcess.start() as process:
        source = process.draw(report)
        assert source is process  # a small report is sent
        assert process.prg_svg() == here_svg
        assert process.files() == here_files
    assert [name for name, _ in here_files] == list(PICTURES[:4])


def test_the_child_draws_them_not_this_process(monkeypatch: pytest.MonkeyPatch,
                                               drawn_here: Drawn) -> None:
    # A child that failed would go unnoticed above: this process would draw the same
    # bytes. Here this process cannot draw; the child (a fresh interpreter) is unaffected.
    report = _report()
    expected = drawn_here  # drawn in this process before it was made unable to

    def not_here(report: Any, on_prg_svg: Any = None) -> Any:
        raise AssertionError("drawn in this process")

    monkeypatch.setattr(report_figures, "draw_pictures", not_here)
    with PictureProcess.start() as process:
        source = process.draw(report)
        assert (source.files(), source.prg_svg()) == expected


def test_a_multi_class_report_too() -> None:
    # Its macro-average curve and band (class_averages) travel with the pickled report.
    import prcurve

    classes = np.array(["cat", "dog", "fox"])[RNG.integers(0, 3, 300)]
    scores = RNG.random((300, 3)) + 0.5 * (classes[:, None] == np.array(["cat", "dog", "fox"]))
    report = prcurve.report(classes, scores, ci=0.95, resamples=50)
    assert report.class_averages
    with PictureProcess.start() as process:
        assert process.draw(report).files() == InProcessPictures(report).files()


@linux_only
def test_cli_files_equal_the_library_and_no_process_is_left(
        scores: Path, tmp_path: Path) -> None:
    before = _children()
    assert main(["report", str(scores), "--out", str(tmp_path / "cli")]) == 0
    assert _children() == before
    report = load_report(scores)
    report.write(tmp_path / "lib")  # drawn in this process
    for name in (*PICTURES, "report.json", "curve_a.csv", "curve_b.csv"):
        cli, lib = ((tmp_path / folder / name).read_bytes() for folder in ("cli", "lib"))
        if name == "report.html":  # Bokeh's model ids count on within one process
            cli, lib = _renumbered(cli), _renumbered(lib)
        assert cli == lib, name


def _renumbered(page: bytes) -> bytes:
    """``page`` with Bokeh's model ids ("p1234") numbered in order of first appearance."""
    ids: dict[bytes, bytes] = {}
    return re.sub(rb'"p(\d+)"', lambda m: ids.setdefault(m.group(0), b'"m%d"' % len(ids)),
                  page)


def load_report(path: Path) -> Any:
    from prcurve.io.class_columns import load_input
    from prcurve.present.report import ReportSettings
    from prcurve.present.report_build import build_report

    one = load_input(str(path), labels=[], scores=[], weight=None, positive=None,
                     drop_invalid=False, input_format=None, on_rows=None, delimiter=None,
                     decimal=".")
    return build_report([one], ReportSettings(ci_max_cells=100_000), [])


@pytest.mark.parametrize("program", [
    "import sys; sys.exit(3)",  # dies at once
    "import sys, time; sys.stdin.buffer.read(); sys.stdout.buffer.write(b'not a pickle')",
    "import pickle, sys; sys.stdin.buffer.read(); "
    "pickle.dump(('prg', 'no svg'), sys.stdout.buffer); sys.stdout.flush()",  # half
])
def test_a_failed_child_means_drawn_here(program: str, monkeypatch: pytest.MonkeyPatch,
                                         drawn_here: Drawn) -> None:
    monkeypatch.setattr(picture_process, "_CHILD", program)
    report = _report()
    with PictureProcess.start() as process:
        source = process.draw(report)
        files = source.files()
        svg = source.prg_svg()
    here_files, here_svg = drawn_here
    assert files == here_files
    if "no svg" not in program:
        assert svg == here_svg


@linux_only
def test_a_hung_child_is_killed_and_the_pictures_drawn_here(
        monkeypatch: pytest.MonkeyPatch, drawn_here: Drawn) -> None:
    # A child that reads the report and then sleeps for ever: after WAIT_SECONDS this
    # process kills it and draws the same files itself; no process is left.
    monkeypatch.setattr(picture_process, "_CHILD",
                        "import sys, time; sys.stdin.buffer.read(); time.sleep(600)")
    monkeypatch.setattr(picture_process, "WAIT_SECONDS", 1.0)
    report = _report()
    here_files, here_svg = drawn_here
    before = _children()
    started = time.monotonic()
    with PictureProcess.start() as process:
        assert len(_children()) == len(before) + 1
        source = process.draw(report)
        assert source.prg_svg() == here_svg
        assert source.files() == here_files
    assert time.monotonic() - started < 30  # not the child's 600 s
    assert _children() == before


@linux_only
def test_a_child_that_hangs_after_its_svg_is_given_up_too(
        monkeypatch: pytest.MonkeyPatch, drawn_here: Drawn) -> None:
    program = ("import pickle, sys, time; sys.stdin.buffer.read(); "
               "pickle.dump(('prg', 'svg'), sys.stdout.buffer); sys.stdout.flush(); "
               "time.sleep(600)")
    monkeypatch.setattr(picture_process, "_CHILD", program)
    monkeypatch.setattr(picture_process, "WAIT_SECONDS", 1.0)
    report = _report()
    started = time.monotonic()
    with PictureProcess.start() as process:
        source = process.draw(report)
        assert source.prg_svg() == "svg"  # it came in time
        assert source.files() == drawn_here[0]
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("value", ["chld", "yes", "1"])
def test_a_misspelt_setting_is_refused(value: str, scores: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PRCURVE_PICTURES", value)
    assert main(["report", str(scores), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0] == (
        f"prcurve: error: PRCURVE_PICTURES: unknown value {value!r} (an environment "
        "variable). Set it to 'child' (draw the pictures in a second process) or 'here' "
        "(in this process), or unset it (a second process when a core is free).")
    assert not (tmp_path / "out").exists()  # refused before anything is made
    with pytest.raises(InvalidInputError, match="PRCURVE_PICTURES: unknown value"):
        PictureProcess.start()
    # Without pictures it is not used, and not read.
    assert main(["report", str(scores), "--out", str(tmp_path / "out"), "--no-plots"]) == 0


def test_free_core_counts_the_threads_running_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real one
    running = picture_process._running_now()
    if sys.platform == "linux":  # this test's own thread at least
        assert running is not None
        assert running >= 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 0.0, 0.0))  # the minute: busy
    monkeypatch.setattr(picture_process, "_running_now", lambda: 1)  # now: only us
    assert picture_process.free_core()
    monkeypatch.setattr(picture_process, "_running_now", lambda: 2)  # now: both cores taken
    assert not picture_process.free_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not picture_process.free_core()


def test_free_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real one
    monkeypatch.setattr(picture_process, "_running_now", lambda: None)  # no /proc/loadavg
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 0.0, 0.0))
    assert picture_process.free_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (4.0, 0.0, 0.0))  # every core busy
    assert not picture_process.free_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)  # one core
    assert not picture_process.free_core()

    def no_load() -> tuple[float, float, float]:
        raise OSError("no load average")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", no_load)
    assert picture_process.free_core()


@linux_only
@pytest.mark.parametrize(("free", "setting", "started"), [
    (False, None, False), (True, None, True), (False, "child", True), (True, "here", False),
    (False, " Child ", True), (True, "", True)])
def test_when_the_child_is_started(free: bool, setting: str | None, started: bool,
                                   monkeypatch: pytest.MonkeyPatch, drawn_here: Drawn) -> None:
    monkeypatch.setattr(picture_process, "free_core", lambda: free)
    if setting is None:
        monkeypatch.delenv("PRCURVE_PICTURES", raising=False)
    else:
        monkeypatch.setenv("PRCURVE_PICTURES", setting)
    report = _report()
    before = _children()
    with PictureProcess.start() as process:
        assert (len(_children()) == len(before) + 1) == started
        assert process.draw(report).files() == drawn_here[0]
    assert _children() == before


def test_no_interpreter_means_drawn_here(monkeypatch: pytest.MonkeyPatch,
                                        drawn_here: Drawn) -> None:
    monkeypatch.setattr(sys, "executable", "")
    report = _report()
    with PictureProcess.start() as process:
        assert process.draw(report).files() == drawn_here[0]


def test_a_large_report_is_drawn_here(monkeypatch: pytest.MonkeyPatch,
                                      drawn_here: Drawn) -> None:
    monkeypatch.setattr(picture_process, "MAX_SENT_THRESHOLDS", 10)
    report = _report()
    with PictureProcess.start() as process:
        source = process.draw(report)
        assert isinstance(source, InProcessPictures)
        assert source.files() == drawn_here[0]


@linux_only
def test_a_drawing_error_is_the_commands_one_line_error(
        scores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The child fails (here: at once); this process then draws, and its error is the
    # command's usual one line, with nothing written and no process left.
    monkeypatch.setattr(picture_process, "_CHILD", "import sys; sys.exit(1)")

    def broken(report: Any, on_prg_svg: Any = None) -> Any:
        raise ValueError("cannot draw")

    monkeypatch.setattr(report_figures, "draw_pictures", broken)
    before = _children()
    assert main(["report", str(scores), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "prcurve: internal error: ValueError: cannot draw"
    assert "Traceback" not in "\n".join(err)
    assert not (tmp_path / "out").exists()
    assert _children() == before


@linux_only
def test_bad_input_after_the_child_started(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("label,score\n1,0.5\n7,0.2\n")  # a label that is not binary
    before = _children()
    assert main(["report", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("prcurve: error: ")
    assert _children() == before


# -- the user's global matplotlib settings do not reach prcurve's figures -------------------

SEABORN_LIKE = {  # what seaborn's set_theme() (darkgrid) sets, in part
    "axes.facecolor": "#EAEAF2", "axes.edgecolor": "white", "grid.color": "white",
    "axes.grid": True, "axes.linewidth": 1.25, "xtick.color": ".15", "ytick.color": ".15",
    "font.size": 12.0, "axes.labelsize": 12.0, "lines.linewidth": 1.5,
    "figure.facecolor": "white",
}


def test_a_global_style_does_not_change_the_files(drawn_here: Drawn) -> None:
    import matplotlib

    report = _report()
    plain = drawn_here[0]  # drawn in matplotlib's default settings
    with matplotlib.rc_context(SEABORN_LIKE):
        styled = InProcessPictures(report).files()
        figure = report.pr_figure()  # the notebook's figure too
        after = matplotlib.rcParams["axes.facecolor"]
    assert after == "#EAEAF2"  # the user's settings are back after each drawing
    assert [name for name, _ in styled] == [name for name, _ in plain]
    for (name, a), (_, b) in zip(plain, styled, strict=True):
        assert a == b, name
    assert figure.axes[0].get_facecolor() == (1.0, 1.0, 1.0, 1.0)  # not seaborn's grey
    assert figure.axes[0].xaxis.get_gridlines()[0].get_color() != "white"


def test_a_global_style_does_not_change_the_page_drawn_alone() -> None:
    # Report.to_html() (render_html without the pictures' SVG) draws its PRG figure
    # itself: it was built in the user's settings (seaborn's grey axes) and saved in the
    # default ones, unlike report.html's.
    import matplotlib

    from prcurve.present.prg_plot import prg_details_html

    curves = {m.name: m.curve for m in _report().models}
    plain = prg_details_html(curves)
    with matplotlib.rc_context(SEABORN_LIKE):
        styled = prg_details_html(curves)
    assert "#eaeaf2" not in styled.lower()
    assert styled == plain


def test_a_global_style_does_not_change_a_curves_notebook_display() -> None:
    # PRCurve's notebook figure was built in the user's settings and saved in the defaults.
    import matplotlib

    curve = _report().models[0].curve
    plain = curve._repr_html_()
    with matplotlib.rc_context(SEABORN_LIKE):
        styled = curve._repr_html_()
    assert "#eaeaf2" not in styled.lower()
    assert styled == plain


def test_without_the_default_style_the_files_change(monkeypatch: pytest.MonkeyPatch,
                                                    drawn_here: Drawn) -> None:
    # The check above can fail: drawn in the user's settings (as before this fix), the
    # pictures differ, and pr_curve.png's axes are seaborn's grey.
    from contextlib import nullcontext
    from io import BytesIO

    import matplotlib
    from PIL import Image

    from prcurve.present import style

    report = _report()
    plain = dict(drawn_here[0])  # drawn before the default style was taken away
    monkeypatch.setattr(style, "drawing_style", lambda: nullcontext())
    monkeypatch.setattr(report_figures, "drawing_style", lambda: nullcontext())
    with matplotlib.rc_context(SEABORN_LIKE):
        styled = dict(InProcessPictures(report).files())
    assert all(styled[name] != plain[name] for name in plain)
    with Image.open(BytesIO(styled["pr_curve.png"])) as image:
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
    grey = np.all(pixels == [234, 234, 242], axis=1)
    assert grey.mean() > 0.2  # the axes' face (most of the picture) is grey

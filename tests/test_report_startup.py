"""A small ``prcurve report``'s process (issue 26, item 3): numpy with one BLAS thread in
the program's own process and in its drawing child, the environment left as the user set
it, and the modules a one-model text report must not load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from prcurve.cli.main import EVALUATIONS, ONE_BLAS_THREAD
from prcurve.present import picture_process

BLAS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
ENV = {k: v for k, v in os.environ.items() if k not in BLAS}

# Run as the program runs (prcurve.cli.run), then, at exit, print numpy's BLAS thread
# counts and whether the environment is the one the process started with.
PROBE = ("import atexit, json, os, sys\n"
         "before = dict(os.environ)\n"
         "def probe():\n"
         "    from threadpoolctl import threadpool_info\n"
         "    same = all(os.environ.get(k) == before.get(k) for k in before)\n"
         "    sys.stderr.write(json.dumps([i['num_threads'] for i in threadpool_info()\n"
         "                                 if i['internal_api'] == 'openblas'] + [same]))\n"
         "atexit.register(probe)\n"
         "sys.argv[0] = 'prcurve'\n"
         "from prcurve.cli import run\n"
         "run()")


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    labels = rng.random(500) < 0.3
    path = tmp_path_factory.mktemp("report") / "s.csv"
    path.write_text("label,score\n" + "".join(
        f"{int(y)},{s:.4f}\n" for y, s in zip(labels, rng.normal(labels * 1.0), strict=True)))
    return path


def _probe(env: dict[str, str], *argv: str) -> tuple[list[int], bool]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          env=env, check=True)
    *threads, same = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return threads, same


def test_report_loads_numpy_with_one_blas_thread(scores: Path) -> None:
    assert {*EVALUATIONS, "report"} == set(ONE_BLAS_THREAD)
    threads, same = _probe(ENV, "report", str(scores), "--ci", "none")
    assert threads == [1]
    assert same
    # A count the user sets is kept.
    threads, same = _probe({**ENV, "OPENBLAS_NUM_THREADS": "2"}, "report", str(scores),
                           "--ci", "none")
    assert threads == [2]
    assert same


def test_the_drawing_child_gets_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in BLAS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRCURVE_SOME_SETTING", "kept")
    env = picture_process._child_environment()
    assert env is not None
    assert env["OPENBLAS_NUM_THREADS"] == "1"
    assert env["PRCURVE_SOME_SETTING"] == "kept"
    assert {k: v for k, v in env.items() if k != "OPENBLAS_NUM_THREADS"} == dict(os.environ)
    assert "OPENBLAS_NUM_THREADS" not in os.environ  # this process's is not changed
    for name in BLAS:  # any count the user sets: the user's environment as it is
        monkeypatch.setenv(name, "3")
        assert picture_process._child_environment() is None
        monkeypatch.delenv(name)


def test_the_drawing_child_runs_numpy_with_one_blas_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The child as it is started (its program, its environment), asked for its BLAS threads.
    for name in BLAS:
        monkeypatch.delenv(name, raising=False)
    code = ("import json, numpy\nfrom threadpoolctl import threadpool_info\n"
            "print(json.dumps([i['num_threads'] for i in threadpool_info() "
            "if i['internal_api'] == 'openblas']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                          env=picture_process._child_environment())
    assert json.loads(done.stdout) == [1]


# -- what a one-model text report loads ------------------------------------------------

NOT_LOADED = (
    # the standard library's: threads' pool and its logging (a 10^4-row report counts on
    # one thread; the bootstrap starts plain threads), archives and codecs for a plain
    # CSV, HTML escaping, temporary-file names (a text report writes no file)
    "concurrent.futures", "logging", "zipfile", "shutil", "gzip", "bz2", "lzma", "html",
    "uuid",
    # prcurve's: comparing models, aggregating classes or folds, plots, pyarrow
    "prcurve.space.model_comparison", "prcurve.space.significance",
    "prcurve.space.distributions", "prcurve.space.aggregate", "prcurve.present.plot",
    "prcurve.present.html", "prcurve.present.picture_process", "pyarrow", "matplotlib",
)


def test_a_one_model_text_report_loads_no_more_than_it_needs(scores: Path) -> None:
    job = ("import contextlib, io, sys\nfrom prcurve.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()), "
           "contextlib.redirect_stderr(io.StringIO()):\n"
           f"    assert main(['report', {str(scores)!r}]) == 0\n"
           "import json\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True,
                          check=True)
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "prcurve.space.intervals" in loaded  # the interval was computed
    assert not loaded & set(NOT_LOADED)


def test_broken_npz_archives_are_one_line_as_before(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # zipfile is imported where a .npz is read: its errors are still read_table's message.
    from prcurve.cli import main

    path = tmp_path / "s.npz"
    np.savez(path, label=np.array([1, 0, 1]), score=np.array([0.5, 0.2, 0.1]))
    whole = bytearray(path.read_bytes())
    crc = bytearray(whole)
    crc[crc.find(b"label.npy") + 120] ^= 0xFF  # a member's data: its CRC fails
    for content, message in ((bytes(crc), "(Bad CRC-32 for file 'label.npy')"),
                             (bytes(whole[:len(whole) // 2]), "(File is not a zip file)")):
        path.write_bytes(content)
        assert main(["report", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert f"cannot read '{path}' as npz {message}" in err


# -- the bootstrap's threads without concurrent.futures --------------------------------


def test_thread_map_keeps_the_order_and_raises_the_first_error() -> None:
    import threading

    from prcurve.space.intervals import _thread_map

    seen: set[int] = set()
    threads_before = threading.active_count()

    def square(i: int) -> int:
        seen.add(threading.get_ident())
        return i * i

    assert _thread_map(square, 50, 3) == [i * i for i in range(50)]
    assert _thread_map(square, 1, 4) == [0]
    assert _thread_map(square, 0, 2) == []

    def fails(i: int) -> int:
        if i == 7:
            raise ValueError("seven")
        return i

    with pytest.raises(ValueError, match="seven"):
        _thread_map(fails, 20, 2)
    assert threading.active_count() == threads_before  # every thread it started stopped


def test_the_bootstrap_is_the_same_on_any_number_of_threads() -> None:
    from prcurve import pr_curve
    from prcurve.space.intervals import bootstrap_average_precision, compare_pairs

    rng = np.random.default_rng(3)
    y = rng.random(3000) < 0.3
    curve = pr_curve(y, np.round(rng.normal(y * 1.0), 2))
    one = bootstrap_average_precision(curve, n_resamples=400, seed=5, n_threads=1)
    for threads in (2, 3, 8):
        assert bootstrap_average_precision(curve, n_resamples=400, seed=5,
                                           n_threads=threads) == one
    scores = {m: np.round(rng.normal(y * k), 3) for k, m in enumerate("abc")}
    rows = compare_pairs(y, scores, [("a", "b"), ("a", "c"), ("b", "c")],
                         methods=("step", "davis_goadrich"), n_resamples=300, seed=1)
    from prcurve.space.intervals import compare_average_precision

    assert rows[2] == compare_average_precision(y, scores["b"], scores["c"], n_resamples=300,
                                                seed=1)


# -- the program's exit: os._exit after atexit and the flush (QUICK_EXIT) ---------------

_THEN_RUN = "import sys\nsys.argv[0] = 'prcurve'\nfrom prcurve.cli import run\nrun()"


def _program(*argv: str, prelude: str = "", env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", prelude + _THEN_RUN, *argv],
                          capture_output=True, env=ENV if env is None else env, check=False)


def test_report_exits_quickly_with_its_output_statuses_and_atexit(scores: Path) -> None:
    from prcurve.cli.main import QUICK_EXIT

    assert {*EVALUATIONS, "report"} == set(QUICK_EXIT)
    prelude = ("import atexit, sys\n"
               "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
               "sys.stdout.write('before ')  # buffered text from before the command\n")
    done = _program("report", str(scores), "--ci", "none", prelude=prelude)
    assert done.returncode == 0
    assert done.stdout.startswith(b"before prcurve ")
    assert done.stdout.endswith(b"\n")
    assert b"AP (step)" in done.stdout
    assert done.stderr.endswith(b"atexit ran\n")
    gate = _program("report", str(scores), "--ci", "none", "--fail-under", "ap=0.99")
    assert gate.returncode == 1
    assert b"fail-under" in gate.stderr
    bad = _program("report", str(scores) + ".missing")
    assert bad.returncode == 2
    assert bad.stderr.decode().count("\n") == 1


def test_report_files_are_whole_after_the_quick_exit(scores: Path, tmp_path: Path) -> None:
    # The program's files (os._exit) against main([...])'s with the usual exit, each in
    # a fresh process (Bokeh numbers its model ids per process, so a page made inside
    # pytest after another page differs in its ids), byte for byte: text outputs only,
    # and with the pictures drawn by the drawing process.
    usual_exit = "import sys\nfrom prcurve.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    for name, extra, env in (("plain", ["--no-plots", "--format", "json"], ENV),
                             ("drawn", [], {**ENV, "PRCURVE_PICTURES": "child"})):
        ours, theirs = tmp_path / f"{name}-program", tmp_path / f"{name}-main"
        done = _program("report", str(scores), "--out", str(ours), *extra, env=env)
        assert done.returncode == 0, done.stderr
        usual = subprocess.run(
            [sys.executable, "-c", usual_exit, "report", str(scores), "--out", str(theirs),
             *extra], capture_output=True, env=env, check=False)
        assert usual.returncode == 0, usual.stderr
        assert done.stdout == usual.stdout.replace(
            str(theirs).encode(), str(ours).encode())
        files = sorted(p.name for p in ours.iterdir())
        assert files == sorted(p.name for p in theirs.iterdir())
        assert "report.json" in files
        if name == "drawn":
            assert {"pr_curve.png", "pr_curve.svg", "report.html"} <= set(files)
        for file in files:
            assert (ours / file).read_bytes() == (theirs / file).read_bytes(), file


def test_a_thread_still_running_is_waited_for_after_a_report(scores: Path) -> None:
    # The thread writes once the main thread has finished: never, if the process left
    # by os._exit while it ran.
    prelude = ("import sys, threading\n"
               "def late():\n"
               "    threading.main_thread().join()\n"
               "    sys.stderr.write('thread done\\n')\n"
               "threading.Thread(target=late).start()\n")
    done = _program("report", str(scores), "--ci", "none", prelude=prelude)
    assert done.returncode == 0
    assert done.stderr.endswith(b"thread done\n")

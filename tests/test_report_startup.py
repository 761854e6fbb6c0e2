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

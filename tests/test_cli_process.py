"""The ``prcurve`` program's own process (``prcurve.cli.run``): an evaluation starts no
BLAS threads and exits without the interpreter's teardown, and nothing the user sees
changes (output, exit status, ``atexit`` functions, threads still running)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prcurve.cli import main
from prcurve.cli.main import EVALUATIONS

V10 = Path(__file__).parent / "fixtures" / "trec_eval_v10"
QRELS, RUN = str(V10 / "qrels.test"), str(V10 / "results.test")
_THEN_RUN = "import sys\nsys.argv[0] = 'prcurve'\nfrom prcurve.cli import run\nrun()"
ENV = {k: v for k, v in os.environ.items()
       if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}


def program(*argv: str, prelude: str | None = None, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[bytes]:
    """``python -m prcurve ARGV``; with ``prelude``, that code first and then the program
    as its console script runs it, ``sys.argv`` set to ARGV."""
    command = ([sys.executable, "-m", "prcurve", *argv] if prelude is None
               else [sys.executable, "-c", prelude + _THEN_RUN, *argv])
    return subprocess.run(command, capture_output=True, env=ENV if env is None else env,
                          check=False)


def test_the_program_prints_trec_eval_s_output_and_statuses() -> None:
    done = program("trec", QRELS, RUN)
    assert done.returncode == 0
    assert done.stdout == (V10 / "out.test").read_bytes()
    assert done.stderr == b""
    bad = program("trec", QRELS, "no-such-run")
    assert bad.returncode == 2
    assert bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1
    assert "cannot read 'no-such-run'" in bad.stderr.decode()
    usage = program("trec", QRELS, RUN, "--no-such-option")
    assert usage.returncode == 2
    assert program("--version").returncode == 0  # not an evaluation: the usual exit


def test_atexit_functions_run_and_output_is_flushed() -> None:
    prelude = ("import atexit, sys\n"
               "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
               "sys.stdout.write('before ')  # buffered text from before the command\n")
    done = program("trec", "-m", "map", QRELS, RUN, prelude=prelude)
    assert done.returncode == 0
    assert done.stdout.startswith(b"before ")
    assert b"map" in done.stdout
    assert done.stderr == b"atexit ran\n"


def test_a_thread_still_running_is_waited_for() -> None:
    # With a thread of its own running, the program exits the usual way, which waits for it.
    prelude = ("import sys, threading, time\n"
               "def late():\n"
               "    time.sleep(0.3)\n"
               "    sys.stderr.write('thread done\\n')\n"
               "threading.Thread(target=late).start()\n")
    done = program("trec", "-m", "map", QRELS, RUN, prelude=prelude)
    assert done.returncode == 0
    assert done.stderr == b"thread done\n"


def test_a_closed_pipe_ends_quietly() -> None:
    # More output than a pipe holds (-q: a line per query and measure), read in part.
    process = subprocess.Popen(
        [sys.executable, "-m", "prcurve", "trec", "-q", "-m", "all_trec", QRELS, RUN],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert process.stdout is not None
    assert process.stderr is not None
    first = process.stdout.read(100)
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait() == 0
    assert first.startswith(b"num_ret")
    assert b"Traceback" not in err
    assert b"Exception" not in err


PROBE = ("import json, os, sys\n"
         "from prcurve.cli.main import import_numpy_one_blas_thread\n"
         "before = dict(os.environ)\n"
         "if sys.argv[1] == 'one': import_numpy_one_blas_thread()\n"
         "import numpy\n"
         "same = dict(os.environ) == before  # (threadpoolctl sets a variable of its own)\n"
         "from threadpoolctl import threadpool_info\n"
         "print(json.dumps([[i['internal_api'], i['num_threads']] for i in threadpool_info()]"
         " + [same]))")


def blas_threads(how: str, env: dict[str, str]) -> tuple[list[int], bool]:
    done = subprocess.run([sys.executable, "-c", PROBE, how], capture_output=True, env=env,
                          check=True)
    *pools, same_env = json.loads(done.stdout)
    return [n for api, n in pools if api == "openblas"], same_env


def test_numpy_loads_without_blas_threads_and_the_environment_is_kept() -> None:
    threads, same_env = blas_threads("one", ENV)
    assert threads == [1]
    assert same_env  # a child process would see the user's environment
    # The comparison: numpy alone starts a thread per core it may run on (where several).
    alone, _ = blas_threads("plain", ENV)
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count() or 1)
    assert len(alone) == 1
    assert alone[0] >= 1
    if cores > 1:
        assert alone[0] > 1
    # A thread count the user sets stays.
    threads, same_env = blas_threads("one", {**ENV, "OPENBLAS_NUM_THREADS": "2"})
    assert threads == [2]
    assert same_env


def test_the_evaluations_are_subcommands() -> None:
    from prcurve.cli.main import COMMANDS

    assert set(COMMANDS) >= EVALUATIONS
    assert "report" not in EVALUATIONS  # Dask, Spark, plots; its BLAS and exit: test_report_startup


# -- several runs in one process: each run's trec_eval output after a header ---------------


def test_several_runs_print_each_run_s_trec_eval_output(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The reference: trec_eval's own recorded outputs of each run (quicktest: -m all_trec
    # -q on results.test is out.test.aq; with -c on results.trunc, out.test.aqc; -c changes
    # nothing for results.test, which answers every judged query).
    monkeypatch.chdir(V10)
    assert main(["trec", "-m", "all_trec", "-q", "-c", "qrels.test", "results.test",
                 "results.trunc"]) == 0
    out = capsys.readouterr().out
    assert out == ("==> results.test <==\n" + (V10 / "out.test.aq").read_text()
                   + "\n==> results.trunc <==\n" + (V10 / "out.test.aqc").read_text())


def test_one_process_for_several_runs_equals_a_process_per_run(tmp_path: Path) -> None:
    flipped = tmp_path / "flipped.run"  # results.test's scores negated: another ranking
    flipped.write_text("".join(
        " ".join([*f[:4], repr(-float(f[4])), *f[5:]]) + "\n"
        for f in (line.split() for line in Path(RUN).read_text().splitlines())))
    runs = [RUN, str(V10 / "results.trunc"), str(flipped)]
    alone = [program("trec", "-m", "official", "-m", "ndcg_cut.5", QRELS, run) for run in runs]
    together = program("trec", "-m", "official", "-m", "ndcg_cut.5", QRELS, *runs)
    assert together.returncode == 0
    assert all(done.returncode == 0 for done in alone)
    assert together.stdout == b"\n".join(
        f"==> {run} <==\n".encode() + done.stdout for run, done in zip(runs, alone, strict=True))
    # The notes on stderr name the run they are about (results.trunc lacks query 302).
    assert together.stderr.decode().splitlines() == [
        f"prcurve: note: {runs[1]}: 1 judged query without results left out (302); trec_eval "
        "10 stops with an error here, trec_eval 9 leaves them out; -c scores them 0"]


def test_a_bad_run_among_several_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 not-a-number tag\n")
    done = program("trec", "-m", "map", QRELS, RUN, str(bad), RUN)
    assert done.returncode == 2
    assert done.stdout.startswith(f"==> {RUN} <==\nmap".encode())  # the runs before it
    assert done.stdout.count(b"==>") == 1
    err = done.stderr.decode()
    assert err.count("\n") == 1
    assert "bad.run" in err
    assert "'not-a-number'" in err


def test_standard_input_once_among_several_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "prcurve", "trec", "-m", "map", QRELS, "-",
                           RUN], input=(V10 / "results.trunc").read_bytes(),
                          capture_output=True, env=ENV, check=False)
    assert done.returncode == 0
    assert done.stdout.startswith(b"==> - <==\nmap")
    twice = program("trec", QRELS, "-", "-")
    assert twice.returncode == 2
    assert "standard input ('-') given as a run more than once" in twice.stderr.decode()

"""Issue 26, item 7: `prcurve report --workers N` on local worker processes (no Dask).

The exact state built by ranges of scores on the workers (prcurve.io.workers) must be
the state one process computes from the same rows: bit for bit for counts (ties, zero
weights, several pieces per worker, more workers than pieces, int64 and float32 scores,
several files), to rounding for fractional weights. A worker that dies is a one-line
error, never a wait.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prcurve import ThresholdCounts
from prcurve.cli import main
from prcurve.errors import InvalidInputError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from prcurve.io import piece_tasks  # noqa: E402  (after pyarrow's importorskip)
from prcurve.io.batches import choose_columns, input_files, open_dataset  # noqa: E402
from prcurve.io.pool_rule import POOL_MIN_ROWS  # noqa: E402  (before any test sets it)
from prcurve.io.workers import WorkerPool, local_scores  # noqa: E402


@pytest.fixture(autouse=True)
def _pool_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the pool: started whatever the machine's cores and the files'
    rows (``prcurve.io.pool_rule.one_process_reason``; its own tests set the limits)."""
    from prcurve.io import pool_rule

    monkeypatch.setattr(pool_rule, "POOL_MIN_CORES", 1)
    monkeypatch.setattr(pool_rule, "POOL_MIN_ROWS", 0)


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(3) as workers:
        yield workers


def _columns(files: list[str], weight: str | None = None) -> Any:
    return choose_columns(open_dataset(files, "parquet").schema, "data", "label", ["score"],
                          weight)


def _state(pool: WorkerPool, files: list[str], weight: str | None = None,
           **options: Any) -> ThresholdCounts:
    one = local_scores(pool, files, "data", _columns(files, weight), **options)
    state = one.models[0].counts
    assert isinstance(state, ThresholdCounts)
    return state


def _same(state: ThresholdCounts, expected: ThresholdCounts) -> None:
    assert state.thresholds.dtype == expected.thresholds.dtype
    assert state.thresholds.tolist() == expected.thresholds.tolist()
    assert state.tp.tolist() == expected.tp.tolist()
    assert state.fp.tolist() == expected.fp.tolist()
    assert (state.n_pos, state.n_neg) == (expected.n_pos, expected.n_neg)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 400), decimals=st.integers(0, 3), group=st.integers(1, 60),
       piece=st.integers(1, 200), seed=st.integers(0, 2**32 - 1))
def test_exact_state_by_ranges_equals_one_process(pool: WorkerPool, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, n: int,
                                                  decimals: int, group: int, piece: int,
                                                  seed: int) -> None:
    # Pieces of a few rows: several per worker, or fewer pieces than workers; scores with
    # ties (few decimals); all positives or none in some ranges.
    monkeypatch.setattr(piece_tasks, "PIECE_ROWS", piece)
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    y[0] = True
    scores = np.round(rng.standard_normal(n), decimals)
    path = tmp_path / f"s{seed}-{n}.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": scores}), path,
                   row_group_size=group)
    _same(_state(pool, [str(path)]), ThresholdCounts.from_scores(y, scores))


@pytest.mark.parametrize("kind", ["int64", "float32"])
def test_scores_of_other_types(pool: WorkerPool, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.setattr(piece_tasks, "PIECE_ROWS", 300)
    rng = np.random.default_rng(5)
    y = rng.random(2000) < 0.2
    if kind == "float32":
        scores: Any = rng.standard_normal(2000).astype(np.float32)
    else:
        scores = rng.integers(-50, 50, 2000)
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"label": y, "score": scores}), path, row_group_size=250)
    _same(_state(pool, [str(path)]), ThresholdCounts.from_scores(y, scores))


def test_weights(pool: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(piece_tasks, "PIECE_ROWS", 500)
    rng = np.random.default_rng(7)
    y = rng.random(3000) < 0.2
    scores = np.round(rng.standard_normal(3000), 2)
    counts = rng.integers(0, 4, 3000).astype(np.float64)  # zero weights included
    fractions = rng.random(3000)
    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": scores, "w": counts,
                             "f": fractions}), path, row_group_size=400)
    # Whole-number weights: exact sums, bit for bit.
    _same(_state(pool, [str(path)], "w"),
          ThresholdCounts.from_scores(y, scores, sample_weight=counts))
    # Fractional weights: summed by segment, equal to rounding.
    state = _state(pool, [str(path)], "f")
    expected = ThresholdCounts.from_scores(y, scores, sample_weight=fractions)
    assert state.thresholds.tolist() == expected.thresholds.tolist()
    np.testing.assert_allclose(state.tp, expected.tp, rtol=1e-12)
    np.testing.assert_allclose(state.fp, expected.fp, rtol=1e-12)


def test_several_files_of_different_score_types(pool: WorkerPool, tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    ys, all_scores, files = [], [], []
    for k, kind in enumerate([np.int64, np.float64, np.int64]):
        y = rng.random(700) < 0.25
        scores = rng.integers(-20, 20, 700).astype(kind) / (1 if kind is np.int64 else 4)
        path = tmp_path / f"part{k}.parquet"
        pq.write_table(pa.table({"label": y.astype(np.int64), "score": scores}), path,
                       row_group_size=300)
        ys.append(y)
        all_scores.append(scores)
        files.append(str(path))
    found, _, _ = input_files(str(tmp_path), None)
    expected = ThresholdCounts.from_scores(np.concatenate(ys), np.concatenate(all_scores))
    _same(_state(pool, found), expected)


def _report(path: Path, *options: str) -> dict[str, Any]:
    out = path.parent / ("out" + "".join(options).replace("-", "_"))
    assert main(["report", str(path), "--out", str(out), "--no-plots", "--ci", "none",
                 *options]) == 0
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report


def test_report_with_dropped_rows_and_two_models(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # Rows dropped per column (--drop-invalid), two score columns, an exact state: the
    # single process's report.json, but for the engine that read the rows.
    rng = np.random.default_rng(11)
    y = rng.random(5000) < 0.1
    a = rng.standard_normal(5000) + y
    b = np.round(a + rng.standard_normal(5000), 1)
    a[[3, 700, 4000]] = np.nan
    path = tmp_path / "two.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "a": a, "b": b}), path,
                   row_group_size=600)
    single = _report(path, "--drop-invalid")
    workers = _report(path, "--drop-invalid", "--workers", "2")
    assert [m["state"] for m in workers["models"]] == [
        {"engine": "workers", "mode": "exact", "max_distinct": None, "switched_at_row": None,
         "ap_bounds": None}] * 2
    for one in workers["inputs"]:
        assert (one.pop("engine"), one.pop("files"), one.pop("batches")) == ("workers", 1, 0)
    for model in workers["models"]:
        model.pop("state")
    # Counts without scores pair no models (as --stream and --dask): no comparison.
    assert "comparison" not in workers
    single.pop("comparison")
    assert workers == single
    assert workers["models"][0]["rows_dropped"] == 3
    capsys.readouterr()


def test_bins_over_the_kept_rows_range_with_dropped_rows(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    # --bins with missing scores dropped: no Parquet statistics range (nulls), so the
    # workers' range pass finds each column's range over its kept rows, as one process.
    rng = np.random.default_rng(12)
    y = rng.random(4000) < 0.2
    a = (rng.standard_normal(4000) + y).tolist()
    for row in (5, 900, 3999):
        a[row] = None
    path = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "a": pa.array(a, pa.float64())}),
                   path, row_group_size=500)
    single = _report(path, "--drop-invalid", "--bins", "40")
    workers = _report(path, "--drop-invalid", "--bins", "40", "--workers", "2")
    assert workers["models"][0]["state"]["mode"] == "binned"
    assert workers["models"][0]["curve"] == single["models"][0]["curve"]
    assert workers["models"][0]["rows_dropped"] == single["models"][0]["rows_dropped"] == 3
    assert workers["models"][0]["average_precision"] == single["models"][0]["average_precision"]
    capsys.readouterr()


def test_the_text_report_names_the_workers(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # The text says who read the rows and made the state: local workers, not "streamed".
    rng = np.random.default_rng(5)
    y = rng.random(3000) < 0.2
    path = tmp_path / "one.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": rng.random(3000) + y}),
                   path, row_group_size=500)
    capsys.readouterr()
    assert main(["report", str(path), "--ci", "none", "--workers", "2"]) == 0
    text = capsys.readouterr().out
    assert "read by local worker processes (--workers) from 1 file(s)" in text
    assert "local workers, exact: every distinct score kept" in text
    assert "streamed" not in text


def test_a_bad_row_is_named_as_one_process_names_it(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    y = np.zeros(3000, dtype=np.int64)
    y[::7] = 1
    scores = np.linspace(0, 1, 3000)
    scores[2500] = np.inf
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"label": y, "score": scores}), path, row_group_size=500)
    assert main(["report", str(path), "--workers", "2"]) == 2
    workers = capsys.readouterr().err.strip().splitlines()
    assert main(["report", str(path)]) == 2
    single = capsys.readouterr().err.strip().splitlines()
    assert len(workers) == 1
    assert workers[-1] == single[-1]
    assert "(row 2501)" in workers[-1]  # the 2501st data row


def test_a_killed_worker_is_an_error_not_a_wait(tmp_path: Path) -> None:
    y = np.arange(100) % 3 == 0
    path = tmp_path / "k.parquet"
    pq.write_table(pa.table({"label": y, "score": np.arange(100.0)}), path)
    with WorkerPool(2) as workers:
        workers._processes[1].kill()  # as the kernel's OOM killer would
        workers._processes[1].join()
        with pytest.raises(InvalidInputError,
                           match=r"--workers: worker process 2 of 2 was killed by signal 9 "
                           "before returning its result"):
            _state(workers, [str(path)])


def test_without_memfd_an_unlinked_temporary_file_serves(
        pool: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Where os.memfd_create is missing (not Linux), the rows the workers exchange and the
    # state go through temporary files unlinked at once: the same state, no name left.
    import os
    import tempfile

    monkeypatch.delattr(os, "memfd_create", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temporary"))
    (tmp_path / "temporary").mkdir()
    rng = np.random.default_rng(13)
    y = rng.random(1000) < 0.2
    scores = np.round(rng.standard_normal(1000), 2)
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"label": y, "score": scores}), path, row_group_size=200)
    monkeypatch.setattr(piece_tasks, "PIECE_ROWS", 200)
    _same(_state(pool, [str(path)]), ThresholdCounts.from_scores(y, scores))
    assert list((tmp_path / "temporary").iterdir()) == []


_KILLED_PARENT = """
import os, signal, sys
from prcurve.io import workers
from prcurve.io.batches import choose_columns, open_dataset

path = sys.argv[1]
columns = choose_columns(open_dataset([path], "parquet").schema, "x", "label", ["score"], None)
with workers.WorkerPool(2) as pool:
    run = pool.run

    def killed_after(tasks, fds=None):
        results = run(tasks) if fds is None else run(tasks, fds)
        if any(t is not None and t[0] == after for t in tasks):
            print(*[p.pid for p in pool._processes], flush=True)
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer would
        return results

    after = sys.argv[2]
    pool.run = killed_after
    workers.local_scores(pool, [path], "x", columns)
"""


@pytest.mark.parametrize("after", ["hold", "scatter", "segment", "write"])
def test_a_killed_parent_leaves_no_file_behind(tmp_path: Path, after: str,
                                              request: pytest.FixtureRequest) -> None:
    # The rows the workers exchange and the state's file have no name (memfd): a parent
    # SIGKILLed at any step leaves nothing in /dev/shm or the temporary folder, and its
    # workers end (their pipe closes).
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    import time

    # The child's own temporary folder, with a short path (multiprocessing puts the fork
    # server's Unix socket there: a long path is refused, "AF_UNIX path too long").
    temporary = Path(tempfile.mkdtemp(prefix="pw", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(temporary, ignore_errors=True))

    def leftovers() -> set[str]:
        return {name for name in os.listdir("/dev/shm") if name.startswith("prcurve-workers")
                } if os.path.isdir("/dev/shm") else set()

    before = leftovers()
    rng = np.random.default_rng(17)
    y = rng.random(5000) < 0.2
    path = tmp_path / "k.parquet"
    pq.write_table(pa.table({"label": y, "score": rng.standard_normal(5000)}), path,
                   row_group_size=500)
    done = subprocess.run([sys.executable, "-c", _KILLED_PARENT, str(path), after],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "TMPDIR": str(temporary)})
    assert done.returncode == -9, done.stderr
    pids = [int(p) for p in done.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)
    # Nothing of ours: what is left there is the fork server's folder (pymp-*), which
    # multiprocessing removes when the server ends.
    assert [p.name for p in temporary.iterdir() if not p.name.startswith("pymp-")] == []
    # Other programs on this machine may hold such files for a while (main's code named
    # them so): what is new must be gone within seconds, as theirs are when they end.
    new = leftovers() - before
    deadline = time.monotonic() + 10
    while new and time.monotonic() < deadline:
        time.sleep(0.2)
        new &= leftovers()
    assert not new


_UNGUARDED = """
import sys
from prcurve.cli import main
from prcurve.io import pool_rule

pool_rule.POOL_MIN_CORES, pool_rule.POOL_MIN_ROWS = 1, 0  # the pool, whatever the machine

code = main(["report", sys.argv[1], "--format", "json", "--workers", "2"])
print("exit", code)
"""


def test_a_script_without_a_main_guard_runs_the_workers(tmp_path: Path) -> None:
    # multiprocessing makes each new process import the parent's main module: a script
    # calling main(... --workers 2) at its top level, unguarded, would run again there
    # (and fail: processes started while bootstrapping). The workers start without it.
    import subprocess
    import sys

    rng = np.random.default_rng(19)
    y = rng.random(3000) < 0.2
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": rng.random(3000) + y}),
                   path, row_group_size=500)
    script = tmp_path / "script.py"
    script.write_text(_UNGUARDED)
    done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True,
                          text=True, timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # Before: each worker ran the script again and failed there ("exit 2", "internal
    # error: RuntimeError: An attempt has been made to start a new process before ...").
    assert done.stdout.count("exit") == 1
    assert "internal error" not in done.stderr
    report = json.loads(done.stdout[:done.stdout.rindex("exit 0")])
    assert report["inputs"][0]["engine"] == "workers"


def test_a_worker_killed_during_its_task_is_an_error_not_a_wait(tmp_path: Path) -> None:
    # The worker is stopped (SIGSTOP) so that its task is surely sent and pending, then
    # killed: the parent, waiting on its pipe and its process handle, names it at once.
    import os
    import signal
    import threading

    y = np.arange(100) % 3 == 0
    path = tmp_path / "k.parquet"
    pq.write_table(pa.table({"label": y, "score": np.arange(100.0)}), path)
    with WorkerPool(2) as workers:
        victim = workers._processes[0].pid
        assert victim is not None
        os.kill(victim, signal.SIGSTOP)
        timer = threading.Timer(0.5, os.kill, (victim, signal.SIGKILL))
        timer.start()
        try:
            with pytest.raises(InvalidInputError, match=r"worker process 1 of 2 was killed "
                               "by signal 9"):
                _state(workers, [str(path)])
        finally:
            timer.join()


def _rows_file(path: Path, n: int) -> Path:
    rng = np.random.default_rng(23)
    y = rng.random(n) < 0.2
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": rng.random(n) + y}), path,
                   row_group_size=max(1, n // 4))
    return path


@pytest.mark.parametrize(("options", "engine", "why"), [
    # Too few cores for the pool (this rule's 4 > 2 here), streamed or read whole.
    (["--stream"], "stream", "this process may use 2 cores, fewer than 4, and one process "
     "keeps them busy"),
    ([], None, "this process may use 2 cores, fewer than 4, and one process keeps them busy"),
    # Too few rows.
    (["--max-distinct", "none"], None, "1000 rows, fewer than 1001: too few for a pool to pay"),
])
def test_one_process_where_a_pool_cannot_pay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             options: list[str], engine: str | None,
                                             why: str) -> None:
    # --workers 2 runs the single process's code (the same report, numbers and engine),
    # and says so in the report's notes, its text and on standard error.
    from prcurve.io import pool_rule

    few_rows = "1000 rows" in why
    monkeypatch.setattr(pool_rule, "available_cores", lambda: 8 if few_rows else 2)
    monkeypatch.setattr(pool_rule, "POOL_MIN_CORES", 4)
    monkeypatch.setattr(pool_rule, "POOL_MIN_ROWS", 1001 if few_rows else 0)
    path = _rows_file(tmp_path / "r.parquet", 1000)
    single = _report(path, *options)
    pooled = _report(path, *options, "--workers", "2")
    note = f"--workers 2: {why}; read as without --workers (the same numbers; docs/scale.md)"
    assert pooled["notes"] == [note, *single["notes"]]
    pooled["notes"] = single["notes"]
    assert pooled == single
    assert single["inputs"][0].get("engine") == engine
    assert note in capsys.readouterr().err
    assert main(["report", str(path), *options, "--workers", "2", "--ci", "none"]) == 0
    assert f"note: {note}" in capsys.readouterr().out


def test_the_pool_where_it_pays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    # Two workers or more, enough cores and rows: the pool, streamed or read whole.
    from prcurve.io import pool_rule

    monkeypatch.setattr(pool_rule, "POOL_MIN_CORES", 4)
    monkeypatch.setattr(pool_rule, "POOL_MIN_ROWS", 1000)
    monkeypatch.setattr(pool_rule, "available_cores", lambda: 4)
    path = _rows_file(tmp_path / "r.parquet", 1000)
    for options in (["--stream"], []):
        report = _report(path, *options, "--workers", "2")
        assert report["inputs"][0]["engine"] == "workers"
        assert not any("--workers" in note for note in report["notes"])
    capsys.readouterr()


def test_one_process_reason_reads_no_metadata_it_does_not_need(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prcurve.io import pool_rule
    from prcurve.io.piece_tasks import PIECE_ROWS
    from prcurve.io.pool_rule import one_process_reason

    assert POOL_MIN_ROWS == 2 * PIECE_ROWS  # two pieces (pool_rule imports neither)
    monkeypatch.setattr(pool_rule, "POOL_MIN_CORES", 4)
    monkeypatch.setattr(pool_rule, "POOL_MIN_ROWS", 1000)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    # Decided before the files are read; an unreadable file is left to the pool's path,
    # which names it.
    assert one_process_reason(1, [str(broken)]) is not None
    assert one_process_reason(2, [str(broken)], cores=2) is not None
    assert one_process_reason(2, [str(broken)], cores=8) is None


def test_a_temporary_folder_too_long_for_the_servers_socket_is_one_line(
        tmp_path: Path) -> None:
    # multiprocessing puts the fork server's Unix socket in the temporary folder: a path
    # too long for AF_UNIX (108 bytes on Linux) is a one-line error saying what to do.
    import os
    import subprocess
    import sys

    deep = tmp_path / ("t" * 100)
    deep.mkdir()
    path = _rows_file(tmp_path / "r.parquet", 1000)
    script = ("import sys\nfrom prcurve.cli import main\nfrom prcurve.io import pool_rule\n"
              "pool_rule.POOL_MIN_CORES, pool_rule.POOL_MIN_ROWS = 1, 0\n"
              "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "report", str(path), "--workers", "2"],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "TMPDIR": str(deep)})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == ("prcurve: error: --workers: cannot start the worker processes in the "
                         f"temporary folder {str(deep)!r}: AF_UNIX path too long. Set TMPDIR "
                         "to a short, writable folder (e.g. /tmp), or run without --workers.")
    assert "Traceback" not in done.stderr

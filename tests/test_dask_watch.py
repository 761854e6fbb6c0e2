"""Issue 26, item 7: a Dask cluster that loses its workers is an error, never a wait for
ever (prcurve.io.dask_watch): `prcurve report --dask` exits 2 with one line, and
`prcurve.dask.pr_counts` raises InvalidInputError."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prcurve.cli import main
from prcurve.errors import InvalidInputError

distributed = pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from prcurve.io import dask_watch  # noqa: E402  (after the importorskips)
from prcurve.io.dask import pr_counts  # noqa: E402


def _file(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": rng.random(2000)}), path)
    return path


@pytest.fixture
def orphaned(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A scheduler whose one worker (its own process, no nanny to restart it) was killed
    (SIGKILL, as the kernel kills for memory): the scheduler is left without workers."""
    monkeypatch.setattr(dask_watch, "NO_WORKERS_SECONDS", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
             "--no-nanny", "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(1, timeout=30)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            deadline = time.monotonic() + 30
            while client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not client.scheduler_info()["workers"]
            yield cluster, client
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


def test_pr_counts_on_a_cluster_without_workers_raises(orphaned: Any, tmp_path: Path) -> None:
    path = _file(tmp_path)
    started = time.monotonic()
    with pytest.raises(InvalidInputError, match=r"--dask: the Dask cluster has had no worker "
                       r"for 1 seconds while tasks waited"):
        pr_counts(str(path), label="label", score="score")
    assert time.monotonic() - started < 30


def test_report_dask_with_a_killed_worker_is_one_line(orphaned: Any, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    cluster, _ = orphaned
    path = _file(tmp_path)
    assert main(["report", str(path), "--dask", cluster.scheduler_address]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("prcurve: error: --dask: the Dask cluster has had no worker")
    assert "Traceback" not in "\n".join(err)


def test_a_live_cluster_computes(tmp_path: Path) -> None:
    # The watch is transparent when the workers are there: the in-memory state.
    from prcurve import ThresholdCounts

    path = _file(tmp_path)
    table = pq.read_table(path)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        state = pr_counts(str(path), label="label", score="score")
    expected = ThresholdCounts.from_scores(table["label"].to_numpy(), table["score"].to_numpy())
    assert isinstance(state, ThresholdCounts)
    assert state.tp.tolist() == expected.tp.tolist()
    assert state.thresholds.tolist() == expected.thresholds.tolist()


def test_equal_width_bins_of_a_dataframe_on_a_cluster_without_workers_raise(
        orphaned: Any) -> None:
    # bins=N over a Dask DataFrame with the library's label rules: the scores' range is
    # computed first (min and max, not the counting tasks); that graph is watched too.
    import threading

    import pandas as pd

    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"label": (rng.random(200) < 0.3).astype(np.int64),
                          "score": rng.random(200)})
    ddf = dd.from_pandas(frame, npartitions=2)
    raised: list[BaseException] = []

    def count() -> None:
        try:
            pr_counts(ddf, label="label", score="score", bins=4)
        except BaseException as error:  # reported to the test's thread
            raised.append(error)

    waiting = threading.Thread(target=count, daemon=True)  # a wait for ever fails, not hangs
    waiting.start()
    waiting.join(60)
    assert not waiting.is_alive(), "pr_counts waited for ever on a cluster without workers"
    assert len(raised) == 1
    assert isinstance(raised[0], InvalidInputError)
    assert "the Dask cluster has had no worker for 1 seconds" in str(raised[0])

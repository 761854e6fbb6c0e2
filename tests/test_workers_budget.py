"""Issue 26, item 7: `prcurve report FILE --workers N` keeps the single process's state
policy (the distinct-score budget where one process streams, exact where it reads the
file whole), and its report.json holds the single process's numbers.

Small budgets (``--max-distinct``, ``--switch-bins``) make small files cross the budget:
at the first rows (the screen), only after them (repeated scores first, the switch
found when states merge), or never.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prcurve.cli import main

pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BUDGET = ["--max-distinct", "500", "--switch-bins", "64"]


@pytest.fixture(autouse=True)
def _pool_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the pool: started whatever the machine's cores and the files'
    rows (``prcurve.io.pool_rule.one_process_reason``; its own tests set the limits)."""
    from prcurve.io import pool_rule

    monkeypatch.setattr(pool_rule, "POOL_MIN_CORES", 1)
    monkeypatch.setattr(pool_rule, "POOL_MIN_ROWS", 0)


def _write(path: Path, kind: str) -> Path:
    rng = np.random.default_rng(3)
    n = 12_000
    y = rng.random(n) < 0.1
    scores = rng.standard_normal(n) + y
    if kind == "within":  # 1 decimal: fewer than 500 distinct scores
        scores = np.round(scores, 1)
    elif kind == "later":  # the first half repeats (the screen passes), the rest does not
        scores[: n // 2] = np.round(scores[: n // 2], 1)
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": scores}), path,
                   row_group_size=1500)
    return path


def _report(path: Path, out: Path, *options: str) -> dict[str, Any]:
    code = main(["report", str(path), "--out", str(out), "--no-plots", "--ci", "none",
                 *options])
    assert code == 0
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report


def _engine_free(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what says which engine ran (and how it read the rows)."""
    for one in report["inputs"]:
        assert one.pop("engine") in ("stream", "dask", "workers")
        one.pop("batches")
    for model in report["models"]:
        state = model["state"]
        state.pop("engine")
        # The row at which the switch was found depends on how the rows were read
        # (batches, or the tasks' pieces); whether there was one does not.
        state["switched"] = state.pop("switched_at_row") is not None
    return report


@pytest.mark.parametrize("piece", [None, 1500, 700])
@pytest.mark.parametrize(("kind", "mode"), [("screen", "binned"), ("later", "binned"),
                                            ("within", "exact")])
def test_two_workers_report_the_single_process_numbers(tmp_path: Path, kind: str,
                                                       mode: str, piece: int | None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # piece: rows per piece of the workers' shares (a row group each, or 8 of them over 3
    # workers: each worker screens its own first rows, the first worker's decides the
    # file's screen or, "later", does not); None: one piece, one busy worker.
    if piece is not None:
        from prcurve.io import piece_tasks

        monkeypatch.setattr(piece_tasks, "PIECE_ROWS", piece)
    path = _write(tmp_path / f"{kind}.parquet", kind)
    single = _report(path, tmp_path / "single", "--stream", *BUDGET)
    workers = _report(path, tmp_path / "workers", "--stream", *BUDGET, "--workers",
                      "2" if piece != 700 else "3")
    assert single["models"][0]["state"]["mode"] == mode
    assert _engine_free(workers) == _engine_free(single)


def test_workers_follow_the_budget_where_one_process_streams(tmp_path: Path) -> None:
    # Without --stream a small file is read whole by one process: exact, whatever its
    # distinct scores; --workers keeps that state (no budget applies).
    path = _write(tmp_path / "screen.parquet", "screen")
    workers = _report(path, tmp_path / "workers", *BUDGET, "--workers", "2")
    single = _report(path, tmp_path / "single", *BUDGET)
    model = workers["models"][0]
    assert model["state"]["mode"] == "exact"
    assert model["state"]["max_distinct"] is None
    assert model["curve"]["thresholds"] == single["models"][0]["curve"]["thresholds"] == 12_000
    assert model["average_precision"] == single["models"][0]["average_precision"]


@pytest.mark.parametrize("budget", [5, 40, 400])
@pytest.mark.parametrize("group", [2, 3, 8])
def test_merges_within_a_budget_depend_on_the_rows_only(budget: int, group: int) -> None:
    # Dask's tree: exact parts merged in groups; a merged state past the budget is
    # binned, and binned states absorb exact ones. The result must be the state of all
    # rows: exact within the budget, else those rows binned over the same edges.
    from prcurve.core.binned import resolve_edges
    from prcurve.core.counts import ThresholdCounts
    from prcurve.io.dask_parts import Part, merge_parts

    rng = np.random.default_rng(budget + group)
    y = rng.random(600) < 0.3
    scores = np.round(rng.standard_normal(600), 1 if budget == 400 else 3)
    edges = resolve_edges(16, np.array([scores.min(), scores.max()]))
    within = (budget, [edges])
    level = [Part([(i, 60)], [ThresholdCounts.from_scores(y[k:k + 60], scores[k:k + 60])])
             for i, k in enumerate(range(0, 600, 60))]
    while len(level) > 1:
        level = [merge_parts(*level[i:i + group], within=within)
                 for i in range(0, len(level), group)]
    whole = ThresholdCounts.from_scores(y, scores)
    state = level[0].states[0]
    if len(whole) <= budget:
        assert isinstance(state, ThresholdCounts)
        assert state.thresholds.tolist() == whole.thresholds.tolist()
        assert state.tp.tolist() == whole.tp.tolist()
        assert state.fp.tolist() == whole.fp.tolist()
    else:
        expected = whole.to_binned(edges)
        assert state.pos.tolist() == expected.pos.tolist()
        assert state.neg.tolist() == expected.neg.tolist()


@pytest.mark.parametrize(("kind", "mode"), [("screen", "binned"), ("later", "binned"),
                                            ("within", "exact")])
def test_one_dask_task_keeps_the_budget(tmp_path: Path, kind: str, mode: str) -> None:
    # One piece, so one task and no merge: its exact state is checked against the budget
    # where it is counted, and "later" (the screen passes, the rest does not) is binned
    # as one process streaming the file bins it.
    pytest.importorskip("dask")
    from prcurve.io.batches import choose_columns, open_dataset
    from prcurve.io.dask import dask_scores
    from prcurve.io.stream import stream_scores

    path = _write(tmp_path / f"{kind}.parquet", kind)
    columns = choose_columns(open_dataset([str(path)], "parquet").schema, "data", "label",
                             ["score"], None)
    one = dask_scores([str(path)], "data", columns, max_distinct=500, switch_bins=64,
                      scheduler="sync").models[0]
    streamed = stream_scores(path, label="label", scores=["score"], max_distinct=500,
                             switch_bins=64).models[0]
    assert one.mode == streamed.mode == mode
    from prcurve.core.binned import BinnedCounts
    from prcurve.core.counts import ThresholdCounts

    if mode == "binned":
        assert isinstance(one.counts, BinnedCounts)
        assert isinstance(streamed.counts, BinnedCounts)
        assert one.counts.pos.tolist() == streamed.counts.pos.tolist()
        assert one.counts.neg.tolist() == streamed.counts.neg.tolist()
    else:
        assert isinstance(one.counts, ThresholdCounts)
        assert isinstance(streamed.counts, ThresholdCounts)
        assert one.counts.thresholds.tolist() == streamed.counts.thresholds.tolist()
        assert one.counts.tp.tolist() == streamed.counts.tp.tolist()

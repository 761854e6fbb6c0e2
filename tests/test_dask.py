"""prcurve.dask on a real engine: a LocalCluster with two worker processes.

Every state computed on the cluster equals the in-memory one: exact states to
1e-12 (integer counts exactly), binned states bin for bin. The partitions
include one without positives, an empty one and one of a single row.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from prcurve import BinnedCounts, PRCurve, ThresholdCounts  # noqa: E402
from prcurve.core.binned import resolve_edges  # noqa: E402
from prcurve.errors import InvalidInputError  # noqa: E402
from prcurve.io.dask import pr_counts  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _parts(seed: int = 0) -> list[pd.DataFrame]:
    rng = np.random.default_rng(seed)
    sizes = [4000, 0, 1, 2500, 3000]
    parts = []
    for i, n in enumerate(sizes):
        y = (rng.random(n) < 0.3).astype(np.int64)
        if i == 3:
            y[:] = 0  # a partition without positives
        s = np.round(rng.normal(size=n) + y, 2)  # many ties across partitions
        w = rng.uniform(0, 2, n)
        parts.append(pd.DataFrame({"label": y, "score": s, "w": w}))
    return parts


def _frame(parts: list[pd.DataFrame]):  # type: ignore[no-untyped-def]
    ddf = dd.concat([dd.from_pandas(p, npartitions=1) for p in parts])
    assert ddf.npartitions == len(parts)
    return ddf


def _all(parts: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True)


def _assert_exact(got: ThresholdCounts, want: ThresholdCounts) -> None:
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_allclose(got.tp, want.tp, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.fp, want.fp, rtol=1e-12, atol=1e-12)
    assert got.n_pos == pytest.approx(want.n_pos, rel=1e-12)
    assert got.n_neg == pytest.approx(want.n_neg, rel=1e-12)


def test_partitions_cover_the_edge_cases() -> None:
    sizes = [len(p) for p in _parts()]
    assert 0 in sizes
    assert 1 in sizes
    assert _parts()[3]["label"].sum() == 0


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_on_cluster_equals_in_memory(client: object, weighted: bool) -> None:
    parts = _parts()
    data = _all(parts)
    weight = "w" if weighted else None
    got = pr_counts(_frame(parts), label="label", score="score", weight=weight,
                    split_every=2)
    want = ThresholdCounts.from_scores(data.label, data.score,
                                       sample_weight=data.w if weighted else None)
    assert isinstance(got, ThresholdCounts)
    _assert_exact(got, want)
    if not weighted:  # integer counts: identical
        np.testing.assert_array_equal(got.tp, want.tp)
        np.testing.assert_array_equal(got.fp, want.fp)
    for method in ("step", "davis_goadrich", "11point"):
        assert PRCurve.from_counts(got).average_precision(method) == pytest.approx(
            PRCurve.from_counts(want).average_precision(method), abs=1e-12)


@pytest.mark.parametrize("bins", [50, [-5.0, -0.5, 0.0, 0.25, 1.0, 5.0]])
def test_binned_on_cluster_equals_in_memory(client: object, bins) -> None:  # type: ignore[no-untyped-def]
    parts = _parts(1)
    data = _all(parts)
    got = pr_counts(_frame(parts), label="label", score="score", bins=bins)
    want = BinnedCounts.from_scores(data.label, data.score,
                                    resolve_edges(bins, data.score.to_numpy()))
    assert isinstance(got, BinnedCounts)
    np.testing.assert_array_equal(got.edges, want.edges)
    np.testing.assert_array_equal(got.pos, want.pos)
    np.testing.assert_array_equal(got.neg, want.neg)


def test_parquet_path_on_cluster(client: object, tmp_path: Path) -> None:
    parts = _parts(2)
    for i, p in enumerate(parts):
        p.to_parquet(tmp_path / f"part{i}.parquet")
    data = _all(parts)
    got = pr_counts(str(tmp_path), label="label", score="score")
    _assert_exact(got, ThresholdCounts.from_scores(data.label, data.score))  # type: ignore[arg-type]


def test_several_pieces_per_task_and_their_rows(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks fold several files' pieces each: the state equals in memory, and a bad row
    is still named with its own file and row."""
    import prcurve.io.dask as dask_module
    from prcurve.io.batches import Columns

    monkeypatch.setattr(dask_module, "_TASKS_PER_THREAD", 1)
    monkeypatch.setattr(dask_module, "_cluster_threads", lambda: 2)  # 7 pieces: 3 per task
    rng = np.random.default_rng(5)
    frames = [pd.DataFrame({"label": rng.random(40) < 0.3, "score": rng.random(40)})
              for _ in range(7)]
    for i, frame in enumerate(frames):
        frame.to_parquet(tmp_path / f"part{i}.parquet")
    files = sorted(str(p) for p in tmp_path.iterdir())
    columns = Columns("label", "given", ["score"], "given", None, [])
    whole = pd.concat(frames)
    got = dask_module.dask_scores(files, "parts", columns, bins=16, scheduler="sync")
    want = BinnedCounts.from_scores(whole.label, whole.score,
                                    resolve_edges(16, whole.score.to_numpy()))
    np.testing.assert_array_equal(got.models[0].counts.pos, want.pos)
    np.testing.assert_array_equal(got.models[0].counts.neg, want.neg)
    frames[4].loc[17, "score"] = np.nan  # row 18 of the fifth file, inside the second task
    frames[4].to_parquet(tmp_path / "part4.parquet")
    with pytest.raises(InvalidInputError, match=r"part4\.parquet.*row 18"):
        dask_module.dask_scores(files, "parts", columns, bins=16, scheduler="sync")


def test_errors() -> None:
    ddf = _frame(_parts())
    with pytest.raises(InvalidInputError, match=r"no column\(s\) \['nope'\]"):
        pr_counts(ddf, label="label", score="nope", scheduler="sync")
    with pytest.raises(InvalidInputError, match="expected a Dask DataFrame"):
        pr_counts(42, label="label", score="score")
    bad = pd.DataFrame({"label": [0, 1, 2], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(InvalidInputError, match="not binary"):
        pr_counts(dd.from_pandas(bad, npartitions=1), label="label", score="score",
                  scheduler="sync")


def _write(parts: list[pd.DataFrame], folder: Path) -> Path:
    folder.mkdir()
    for i, p in enumerate(parts):
        if len(p):  # a Parquet file of no rows would be a partition of no rows as well
            p.to_parquet(folder / f"part{i}.parquet")
    return folder


def test_report_on_an_existing_scheduler(client: object, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from prcurve.cli import main

    parts = _parts(3)
    folder = _write(parts, tmp_path / "d")
    data = _all(parts)
    address = client.scheduler.address  # type: ignore[attr-defined]
    assert main(["report", str(folder), "--score", "score", "--weight", "w",
                 "--dask", address, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    model = report["models"][0]
    assert model["state"]["engine"] == "dask"
    assert model["state"]["mode"] == "exact"
    want = PRCurve.from_counts(ThresholdCounts.from_scores(data.label, data.score,
                                                           sample_weight=data.w))
    for method in ("step", "davis_goadrich", "interpolated"):
        assert model["average_precision"][method] == pytest.approx(
            want.average_precision(method), abs=1e-12)
    assert model["rows"] == len(data)


def test_report_on_a_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from prcurve.cli import main

    parts = _parts(4)
    folder = _write(parts, tmp_path / "d")
    data = _all(parts)
    assert main(["report", str(folder), "--score", "score", "--workers", "2", "--bins", "40",
                 "--format", "json"]) == 0
    model = json.loads(capsys.readouterr().out)["models"][0]
    want = BinnedCounts.from_scores(data.label, data.score,
                                    resolve_edges(40, data.score.to_numpy()))
    assert model["state"]["mode"] == "binned"
    assert model["ap"]["value"] == pytest.approx(
        PRCurve.from_counts(want).average_precision(), abs=1e-12)
    bounds = model["state"]["ap_bounds"]
    exact = PRCurve.from_counts(ThresholdCounts.from_scores(data.label, data.score))
    assert bounds["lower"] <= exact.average_precision() <= bounds["upper"]


def test_report_dask_needs_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prcurve.cli import main

    path = tmp_path / "s.csv"
    path.write_text("label,score\n1,0.5\n0,0.2\n")
    assert main(["report", str(path), "--dask", "tcp://127.0.0.1:1"]) == 2
    assert "read Parquet" in capsys.readouterr().err


def _ranking_data(seed: int) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """A run of 60 queries (ragged, tied scores) and judgments that cover some of
    them, judge documents the run never retrieved, and include unretrieved queries."""
    rng = np.random.default_rng(seed)
    rows = []
    qrels: dict[str, dict[str, int]] = {}
    for q in range(60):
        docs = rng.choice(200, size=int(rng.integers(1, 40)), replace=False)
        for d in docs:
            rows.append((f"q{q}", f"d{d}", float(rng.integers(0, 8))))  # many ties
        if q % 5 != 0:  # every fifth query unjudged: trec_eval ignores it
            judged = rng.choice(200, size=30, replace=False)
            qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1, 3)) for d in judged}
    for q in range(60, 66):  # judged, never retrieved: they count only with -c
        qrels[f"q{q}"] = {"d1": 1, "d2": 0}
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), qrels


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_ranking_on_cluster_equals_in_memory(client: object, missing: str) -> None:
    from prcurve.dask import evaluate_ranking
    from prcurve.ranking import evaluate

    run, qrels = _ranking_data(3)
    measures = ["AP", "P@5", "AP@10", "R-prec", "RR", "iprec@0.5", "11pt", "bpref",
                "gm_AP", "num_rel", "num_ret"]
    # Rows of one query start out split across partitions; the shuffle joins them.
    shuffled = run.sample(frac=1.0, random_state=0)
    ddf = dd.from_pandas(shuffled, npartitions=7)
    expected = evaluate(qrels, (run.query_id.to_numpy(), run.doc_id.to_numpy(),
                                run.score.to_numpy()), measures,
                        queries_without_results=missing)
    got = evaluate_ranking(qrels, ddf, measures, queries_without_results=missing)
    assert got.n_queries == expected.n_queries
    assert got.query_ids.tolist() == expected.query_ids.tolist()
    np.testing.assert_array_equal(got.has_results, expected.has_results)
    for name in expected.per_query:
        np.testing.assert_array_equal(got.per_query[name], expected.per_query[name])
        assert got.summary[name] == expected.summary[name]

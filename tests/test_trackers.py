"""Experiment trackers: what prcurve writes, read back by each tracker's own reader.

TensorBoard's event accumulator reads the PR-curve plugin tensor; MLflow's client reads the
metrics and artifacts of a run in a local file store; wandb.Table is built offline. The
thinning keeps both ends and the best-F point, never moves a point, and respects the limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW, scored

import prcurve
from prcurve import InvalidInputError
from prcurve.present.trackers import curve_numbers, thin_indices, thinned_table


def _curve(n: int = 5000, seed: int = 0) -> prcurve.PRCurve:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + 1.5 * y
    return prcurve.pr_curve(y, s)


@SLOW
@given(scored(labels="hard", weights="none", min_size=1, max_size=60), st.integers(3, 12))
def test_thinning_keeps_ends_and_best_f_and_moves_nothing(data: Any, limit: int) -> None:
    curve = prcurve.pr_curve(data.y_true, data.y_score, zero_division=0)
    keep = thin_indices(curve, limit)
    assert len(keep) <= limit
    assert len(keep) == min(limit, len(curve))
    assert (np.diff(keep) > 0).all()
    assert keep[0] == 0
    assert keep[-1] == len(curve) - 1
    best = curve.best_f()
    assert best.threshold in curve.thresholds[keep]
    table = thinned_table(curve, limit)
    np.testing.assert_array_equal(table["threshold"], curve.thresholds[keep])
    np.testing.assert_array_equal(table["tp"], curve.tp[keep])


def test_thinning_refuses_a_limit_below_three() -> None:
    with pytest.raises(InvalidInputError, match="max_points: expected an integer >= 3"):
        thin_indices(_curve(50), 2)


def test_tensorboard_event_file_read_by_tensorboard(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.util import tensor_util

    curve = _curve()
    curve.to_tensorboard(tmp_path, tag="val/pr", step=7, max_points=100)
    acc = event_accumulator.EventAccumulator(str(tmp_path),
                                             size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    assert acc.Tags()["tensors"] == ["val/pr"]
    assert acc.SummaryMetadata("val/pr").plugin_data.plugin_name == "pr_curves"
    (event,) = acc.Tensors("val/pr")
    assert event.step == 7
    data = tensor_util.make_ndarray(event.tensor_proto)
    assert data.shape == (6, 100)
    keep = thin_indices(curve, 100)[::-1]  # the plugin's order: threshold increasing
    np.testing.assert_allclose(data[0], curve.tp[keep])
    np.testing.assert_allclose(data[1], curve.fp[keep])
    np.testing.assert_allclose(data[2], curve.tn[keep])
    np.testing.assert_allclose(data[3], curve.fn[keep])
    np.testing.assert_allclose(data[4], curve.precision[keep], rtol=1e-6)  # float32
    np.testing.assert_allclose(data[5], curve.recall[keep], rtol=1e-6)
    assert "actual thresholds" in acc.SummaryMetadata("val/pr").summary_description


def test_tensorboard_writer_objects() -> None:
    curve = _curve(300)

    class Recorder:
        def __init__(self) -> None:
            self.calls: list[Any] = []

        def add_pr_curve_raw(self, tag: str, *arrays: Any, **kwargs: Any) -> None:
            self.calls.append((tag, arrays, kwargs))

    class Summaries:
        def __init__(self) -> None:
            self.summaries: list[Any] = []

        def add_summary(self, summary: Any, step: int) -> None:
            self.summaries.append((summary, step))

    torch_like = Recorder()
    curve.to_tensorboard(torch_like, "pr", 3, max_points=10)
    tag, arrays, kwargs = torch_like.calls[0]
    assert tag == "pr"
    assert kwargs == {"global_step": 3, "num_thresholds": 10}
    assert [len(a) for a in arrays] == [10] * 6
    tf_like = Summaries()
    summary = curve.to_tensorboard(tf_like, "pr", 4)
    assert tf_like.summaries == [(summary, 4)]
    with pytest.raises(InvalidInputError, match="step"):
        curve.to_tensorboard(tf_like, "pr", -1)


def test_mlflow_run_read_back_by_the_client(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import mlflow
    from mlflow.tracking import MlflowClient

    # MLflow 3 keeps the local file store behind this switch (a database is its default).
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    try:
        experiment = mlflow.create_experiment("prcurve")
        curve = _curve()
        with mlflow.start_run(experiment_id=experiment) as run:
            logged = curve.log_mlflow(prefix="val", max_points=50)
        client = MlflowClient()
        metrics = client.get_run(run.info.run_id).data.metrics
        expected = curve_numbers(curve)
        assert metrics == {f"val_{k}": v for k, v in expected.items()} == logged
        assert metrics["val_ap_step"] == curve.average_precision()
        assert metrics["val_auprg"] == curve.prg().auprg()
        names = sorted(a.path for a in client.list_artifacts(run.info.run_id, "val"))
        assert names == ["val/curve.csv", "val/curve.json", "val/pr_curve.png"]
        folder = Path(client.download_artifacts(run.info.run_id, "val", str(tmp_path / "d")))
        table = json.loads((folder / "curve.json").read_text())
        keep = thin_indices(curve, 50)
        assert table["threshold"] == curve.thresholds[keep].tolist()
        assert table["tp"] == curve.tp[keep].tolist()
        csv = (folder / "curve.csv").read_text().splitlines()
        assert csv[0] == "threshold,precision,recall,f1,tp,fp,fn,tn"
        assert len(csv) == 51
    finally:
        mlflow.set_tracking_uri("")


def test_wandb_table_offline() -> None:
    import wandb

    curve = _curve()
    table = curve.to_wandb_table(max_points=20)
    assert isinstance(table, wandb.Table)
    assert table.columns == ["threshold", "precision", "recall", "f1", "tp", "fp"]
    keep = thin_indices(curve, 20)
    assert [row[0] for row in table.data] == curve.thresholds[keep].tolist()
    assert [row[2] for row in table.data] == curve.recall[keep].tolist()
    plain = curve.to_wandb_table(max_points=20, use_wandb=False)
    assert plain == {"columns": table.columns, "data": table.data}
    # what wandb.Table accepts
    assert wandb.Table(**plain).data == table.data

"""A curve handed to experiment trackers: TensorBoard, MLflow, Weights & Biases.

Each library is optional and imported only by the function that uses it. Each
tracker receives the curve thinned to at most ``max_points`` operating points by
:func:`thin_indices`: the highest and lowest thresholds and the best-F point are always
kept, the rest evenly spaced in rank. Every kept point is one of the curve's own, with
its exact counts; no point moves.

- :func:`to_tensorboard`: TensorBoard's PR-curve plugin data, its 6 x N tensor of TP,
  FP, TN, FN, precision and recall (the summary ``tensorboard.plugins.pr_curve.summary.
  raw_data_pb`` builds, made from tensorboard's protos without TensorFlow), columns in
  order of increasing threshold as the plugin expects. The plugin draws
  column ``i`` at the nominal threshold ``i / (N − 1)``; the description says this and
  gives the actual thresholds of the first and last columns.
- :func:`log_mlflow`: the numbers as metrics, the thinned curve as a CSV artifact
  (threshold included) and a JSON artifact, and the plot as a PNG (with matplotlib).
- :func:`to_wandb_table`: a ``wandb.Table`` of threshold, precision, recall, F1, TP, FP
  (or, without wandb, the ``{"columns": ..., "data": ...}`` that ``wandb.Table`` takes).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import near_best
from prcurve.core.curve import PRCurve
from prcurve.core.curve_csv import curve_rows
from prcurve.core.table import Table
from prcurve.core.undefined import undefined_scope
from prcurve.errors import UndefinedMetricWarning
from prcurve.validation.adapters import check_max_points, check_step, check_tag, missing_library

__all__ = ["curve_numbers", "log_mlflow", "thin_indices", "thinned_table", "to_tensorboard",
           "to_wandb_table"]

DEFAULT_MAX_POINTS = 200

_COLUMNS = ("threshold", "precision", "recall", "f1", "tp", "fp", "fn", "tn")


def thin_indices(curve: PRCurve, max_points: int = DEFAULT_MAX_POINTS, *,
                 beta: float = 1.0) -> NDArray[np.intp]:
    """At most ``max_points`` indices of the curve's points, increasing: both ends and the
    best-F point always, the others evenly spaced in rank.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.trackers import thin_indices
    >>> curve = pr_curve([1, 0, 1, 0, 1, 1, 0, 0], [8, 7, 6, 5, 4, 3, 2, 1])
    >>> thin_indices(curve, 4).tolist(), curve.best_f().threshold == float(curve.thresholds[5])
    ([0, 1, 5, 7], True)
    """
    limit = check_max_points(max_points)
    n = len(curve)
    if n <= limit:
        return np.arange(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        f = curve.f_beta(beta)
    best = int(np.flatnonzero(near_best(f))[0])  # the point best_f picks (its tie rule)
    fixed = np.unique([0, best, n - 1])
    others = np.setdiff1d(np.arange(n), fixed)
    # limit − |fixed| of the others, evenly spaced in rank; floor(x + 0.5) is monotone
    # with steps >= 1 apart, so no two picks coincide.
    at = np.floor(np.linspace(0, others.shape[0] - 1, limit - fixed.shape[0]) + 0.5)
    kept = np.union1d(fixed, others[at.astype(np.intp)])
    return np.asarray(kept, dtype=np.intp)


def thinned_table(curve: PRCurve, max_points: int = DEFAULT_MAX_POINTS) -> Table:
    """The curve's table (threshold, precision, recall, f1, tp, fp, fn, tn) at the points
    :func:`thin_indices` keeps."""
    keep = thin_indices(curve, max_points)
    with warnings.catch_warnings(), undefined_scope(curve.zero_division):
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        # The kept rows alone (to_table's values): no full-length table.
        return Table(curve_rows(curve, _COLUMNS, keep))


def curve_numbers(curve: PRCurve) -> dict[str, float]:
    """The curve's summary numbers, each named with its convention (NaN where undefined)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        best = curve.best_f()
        numbers = {
            "ap_step": curve.average_precision("step"),
            "ap_interpolated": curve.average_precision("interpolated"),
            "aucpr_davis_goadrich": curve.aucpr("davis_goadrich"),
            "aucnpr_davis_goadrich": curve.aucnpr("davis_goadrich"),
            "auprg": curve.prg().auprg(),
            "best_f1": best.value,
            "best_f1_threshold": best.threshold,
            "prevalence": curve.prevalence,
            "n_pos": curve.n_pos,
            "n_neg": curve.n_neg,
        }
    return {k: float(v) for k, v in numbers.items()}


# -- TensorBoard ---------------------------------------------------------------------------


def to_tensorboard(curve: PRCurve, writer_or_logdir: Any, tag: str = "pr_curve",
                   step: int = 0, *, max_points: int = DEFAULT_MAX_POINTS) -> Any:
    """Write the curve as TensorBoard PR-curve plugin data.

    ``writer_or_logdir`` is a folder (an event file is written there with tensorboard's
    own ``EventFileWriter``; no TensorFlow or PyTorch needed), a writer with
    ``add_pr_curve_raw`` (``torch.utils.tensorboard.SummaryWriter``, tensorboardX), or
    one with ``add_summary(summary, step)``. Returns the summary protobuf written.
    """
    name = check_tag("tag", tag)
    at = check_step(step)
    try:
        from tensorboard.compat.proto.summary_pb2 import Summary  # type: ignore[import-untyped]
        from tensorboard.plugins.pr_curve.metadata import create_summary_metadata  # type: ignore[import-untyped]
        from tensorboard.util.tensor_util import make_tensor_proto  # type: ignore[import-untyped]
    except ImportError:
        raise missing_library("tensorboard", "trackers") from None
    keep = thin_indices(curve, max_points)[::-1]  # increasing threshold, as the plugin's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        precision = np.nan_to_num(curve.precision[keep], nan=1.0)  # no prediction: 1, as TB
        recall = np.nan_to_num(curve.recall[keep], nan=0.0)
    rows = curve_rows(curve, ("tp", "fp", "tn", "fn"), keep)  # gathered from the state
    columns = (rows["tp"], rows["fp"], rows["tn"], rows["fn"])
    thresholds = curve.thresholds[keep]
    description = (f"prcurve: {keep.shape[0]} of {len(curve)} operating points (ends and "
                   f"best F1 kept); column i is drawn at threshold i/(N-1), actual thresholds "
                   f"{thresholds[0]:.6g} (first) to {thresholds[-1]:.6g} (last)"
                   if len(keep) else "prcurve: empty curve")
    if hasattr(writer_or_logdir, "add_pr_curve_raw"):
        writer_or_logdir.add_pr_curve_raw(name, *columns, precision, recall, global_step=at,
                                          num_thresholds=len(keep))
        return None
    # The plugin's summary as raw_data_pb builds it, from tensorboard's own protos (that
    # function needs TensorFlow): the 6 x N float32 tensor and the plugin's metadata.
    data = np.stack([*columns, precision, recall]).astype(np.float32)
    summary = Summary()
    summary.value.add(tag=name, metadata=create_summary_metadata(
        display_name=name, description=description, num_thresholds=len(keep)),
        tensor=make_tensor_proto(data))
    if hasattr(writer_or_logdir, "add_summary"):
        writer_or_logdir.add_summary(summary, at)
        return summary
    from tensorboard.compat.proto.event_pb2 import Event  # type: ignore[import-untyped]
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # type: ignore[import-untyped]

    writer = EventFileWriter(str(Path(writer_or_logdir)))
    try:
        writer.add_event(Event(wall_time=0.0, step=at, summary=summary))
    finally:
        writer.close()
    return summary


# -- MLflow ---------------------------------------------------------------------------------


def log_mlflow(curve: PRCurve, *, prefix: str = "pr", step: int | None = None,
               max_points: int = DEFAULT_MAX_POINTS, plot: bool = True) -> dict[str, float]:
    """Log the curve to MLflow's active run (one is started if none is; MLflow's rule).

    Metrics ``<prefix>_<name>`` for :func:`curve_numbers` (those that are defined), the
    thinned curve as ``<prefix>/curve.csv`` and ``<prefix>/curve.json`` artifacts, and,
    with ``plot`` and matplotlib installed, the PR plot as ``<prefix>/pr_curve.png``.
    Returns the metrics logged.
    """
    head = check_tag("prefix", prefix)
    at = None if step is None else check_step(step)
    try:
        import mlflow
    except ImportError:
        raise missing_library("mlflow", "trackers") from None
    metrics = {f"{head}_{k}": v for k, v in curve_numbers(curve).items() if math.isfinite(v)}
    mlflow.log_metrics(metrics, step=at)
    table = thinned_table(curve, max_points)
    mlflow.log_text(table.to_csv(), f"{head}/curve.csv")
    mlflow.log_dict({name: table[name].tolist() for name in table.columns},
                    f"{head}/curve.json")
    if plot:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            return metrics
        from prcurve.present.plot import plot_pr_curve

        figure = Figure(figsize=(9.0, 6.0), layout="constrained")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            plot_pr_curve(curve, figure.add_subplot(), label=head)
        mlflow.log_figure(figure, f"{head}/pr_curve.png")
    return metrics


# -- Weights & Biases ---------------------------------------------------------------------


def to_wandb_table(curve: PRCurve, *, max_points: int = DEFAULT_MAX_POINTS,
                   use_wandb: bool | None = None) -> Any:
    """The thinned curve as a W&B table: threshold, precision, recall, f1, tp, fp.

    A ``wandb.Table`` when wandb is installed (``use_wandb=None``) or asked for
    (``True``); otherwise (or with ``False``) the plain ``{"columns": [...], "data":
    [[...], ...]}`` that ``wandb.Table(columns=..., data=...)`` takes. Built offline:
    no run is needed until it is logged (``wandb.log({"pr": table})``, or
    ``wandb.plot.line(table, "recall", "precision")``).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.trackers import to_wandb_table
    >>> t = to_wandb_table(pr_curve([1, 0, 1], [0.9, 0.5, 0.1]), use_wandb=False)
    >>> t["columns"], t["data"][0]
    (['threshold', 'precision', 'recall', 'f1', 'tp', 'fp'],
     [0.9, 1.0, 0.5, 0.6666666666666666, 1.0, 0.0])
    """
    table = thinned_table(curve, max_points)
    columns = ["threshold", "precision", "recall", "f1", "tp", "fp"]
    data = [list(row) for row in zip(*(table[c].tolist() for c in columns), strict=True)]
    if use_wandb is False:
        return {"columns": columns, "data": data}
    try:
        import wandb
    except ImportError:
        if use_wandb:
            raise missing_library("wandb", "trackers") from None
        return {"columns": columns, "data": data}
    names: Any = columns
    return wandb.Table(columns=names, data=data)

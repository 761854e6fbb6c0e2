"""The count state of a Spark DataFrame: one partial state per partition, a tree of merges.

:func:`pr_counts` turns a Spark DataFrame into the same
:class:`~prcurve.ThresholdCounts` or :class:`~prcurve.BinnedCounts` that the
in-memory API returns for all its rows, so every view (curve, AP methods, bounds,
intervals, plots, the report) works unchanged (docs/scale.md):

- each partition is read as Arrow record batches (``DataFrame.mapInArrow``, no pandas
  and no Python row objects) and folded into one partial state per score column:
  :class:`~prcurve.core.merge.ExactAccumulator` (exact) or ``BinnedCounts`` over edges
  fixed before the partitions are read (binned); an empty partition gives the empty
  state;
- the partial states are merged on the executors in a tree (``RDD.treeReduce``,
  ``depth`` levels): exact merge is a merge of sorted runs, binned merge is addition;
  both are associative and commutative, so the result does not depend on the
  partitioning (exact to float64 rounding for non-integer weights, exactly for counts).

Labels, scores and weights are checked in each batch as by
:meth:`prcurve.ThresholdCounts.from_scores`; the label values seen by every partition
are compared on the driver too, so {0, 1} in one partition and {-1, 1} in another is
an error, as it is in memory. A bad value stops the job with the same
:class:`~prcurve.InvalidInputError` (not a Java stack trace), naming the partition.

Needs the ``spark`` extra (``pip install 'prcurve[spark]'``: ``pyspark`` and
``pyarrow``, on the driver and the executors) and Java.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import BinnedCounts, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.core.merge import ExactAccumulator
from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import check_edges, check_n_bins
from prcurve.validation.files import (
    bad_option,
    dask_missing_columns,
    empty_input,
    error_in_partition,
    not_a_spark_frame,
)
from prcurve.validation.labels import check_labels, check_scored_labels

__all__ = ["pr_counts", "pr_counts_columns"]

State = ThresholdCounts | BinnedCounts
_FEW_LABELS = 3  # a partition with more distinct labels has soft labels (checked there)


@dataclass
class _Partial:
    """One partition's (or one subtree's) result, pickled between Spark tasks."""

    rows: int = 0
    states: list[Any] = field(default_factory=list)
    labels: set[Any] = field(default_factory=set)
    soft: bool = False
    error: tuple[str, str] | None = None


def _need_spark() -> Any:
    try:
        import pyspark.sql
    except ImportError as error:
        raise ImportError(
            "prcurve.spark needs pyspark, which is not installed: pip install 'prcurve[spark]'"
        ) from error
    return pyspark.sql


def _partition(
    batches: Iterator[Any], label: str, scores: Sequence[str], weight: str | None,
    edges: Sequence[NDArray[np.float64] | None], pos_label: Any,
) -> Iterator[Any]:
    """mapInArrow's function: every batch of one partition folded into partial states."""
    import pyarrow as pa  # type: ignore[import-untyped]
    from pyspark import TaskContext

    context = TaskContext.get()
    partition = -1 if context is None else context.partitionId()
    partial = _Partial()
    exact = [ExactAccumulator() if e is None else None for e in edges]
    binned = [None if e is None else BinnedCounts(e) for e in edges]
    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            y = batch.column(label).to_numpy(zero_copy_only=False)
            w = (None if weight is None
                 else batch.column(weight).to_numpy(zero_copy_only=False))
            for j, column in enumerate(scores):
                s = batch.column(column).to_numpy(zero_copy_only=False)
                checked, labels, weights = check_scored_labels(
                    y, s, w, pos_label, true_name=label, score_name=column, whole=False)
                accumulator, bins = exact[j], binned[j]
                if accumulator is not None:
                    accumulator.add(checked, labels, weights)
                elif bins is not None:
                    bins._add_checked(checked, labels, weights)
            partial.rows += batch.num_rows
            _note_labels(partial, y, pos_label)
        partial.states = [a.counts() if a is not None else b
                          for a, b in zip(exact, binned, strict=True)]
    except InvalidInputError as error:
        partial = _Partial(error=(error.argument, f"{error} (Spark partition {partition})"))
    yield pa.RecordBatch.from_pydict({"partial": [pickle.dumps(partial)]},
                                     schema=pa.schema([("partial", pa.large_binary())]))


def _note_labels(partial: _Partial, y: NDArray[Any], pos_label: Any) -> None:
    """Remember the few label values of hard labels (for the check across partitions)."""
    if pos_label is not None or partial.soft:
        return
    values = np.unique(y)
    if values.shape[0] > _FEW_LABELS:
        partial.soft = True  # soft labels in [0, 1]: each batch was checked
        return
    partial.labels.update(values.tolist())


def _merge(a: bytes, b: bytes) -> bytes:
    """treeReduce's function: two pickled partial results merged (errors win)."""
    left: _Partial = pickle.loads(a)
    right: _Partial = pickle.loads(b)
    if left.error is not None or right.error is not None:
        return a if left.error is not None else b
    if not left.states:
        return b
    if not right.states:
        return a
    merged = _Partial(
        rows=left.rows + right.rows,
        states=[x.merge(y) for x, y in zip(left.states, right.states, strict=True)],
        labels=left.labels | right.labels, soft=left.soft or right.soft,
    )
    return pickle.dumps(merged)


def _edges(bins: int | ArrayLike | None, frame: Any,
           scores: Sequence[str]) -> list[NDArray[np.float64] | None]:
    if bins is None:
        return [None] * len(scores)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        check_n_bins("bins", bins)
        # Equal-width bins over the full range of each column: the in-memory edges.
        from pyspark.sql import functions as F  # noqa: N812 (Spark's own convention)

        row = frame.agg(*[e for s in scores for e in (F.min(s), F.max(s))]).collect()[0]
        edges: list[NDArray[np.float64] | None] = []
        for j in range(len(scores)):
            low, high = row[2 * j], row[2 * j + 1]
            if low is None:  # no rows: any edges do; the empty result is refused below
                low, high = 0.0, 1.0
            edges.append(resolve_edges(int(bins), np.array([float(low), float(high)])))
        return edges
    return [check_edges("bins", bins)] * len(scores)


def pr_counts_columns(
    frame: Any,
    *,
    label: str,
    scores: Sequence[str],
    weight: str | None = None,
    bins: int | ArrayLike | None = None,
    pos_label: Any = None,
    depth: int = 2,
) -> tuple[int, list[State]]:
    """:func:`pr_counts` for several score columns in one pass; also returns the rows."""
    sql = _need_spark()
    if not isinstance(frame, sql.DataFrame):
        raise not_a_spark_frame(frame)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise bad_option("depth", depth, "an integer >= 1")
    wanted = [label, *([weight] if weight else []), *scores]
    missing = [c for c in dict.fromkeys(wanted) if c not in frame.columns]
    if missing:
        raise dask_missing_columns(missing, list(frame.columns))
    edges = _edges(bins, frame, scores)
    selected = frame.select(*dict.fromkeys(wanted))
    score_list = list(scores)
    partials = selected.mapInArrow(
        lambda batches: _partition(batches, label, score_list, weight, edges, pos_label),
        "partial binary",
    )
    payloads = partials.rdd.map(lambda row: bytes(row[0]))
    if payloads.isEmpty():
        raise empty_input("data", "no partitions")
    result: _Partial = pickle.loads(payloads.treeReduce(_merge, depth=depth))
    if result.error is not None:
        raise error_in_partition(*result.error)
    if result.rows == 0:
        raise empty_input("data", "no rows")
    if not result.soft and len(result.labels) > 1:
        # The label values of all partitions together must be one binary coding.
        check_labels(label, np.array(sorted(result.labels, key=float)))
    return result.rows, list(result.states)


def pr_counts(
    frame: Any,
    *,
    label: str,
    score: str,
    weight: str | None = None,
    bins: int | ArrayLike | None = None,
    pos_label: Any = None,
    depth: int = 2,
) -> ThresholdCounts | BinnedCounts:
    """The count state of a Spark DataFrame: exact or binned.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        Any Spark DataFrame (read from Parquet, a table, a query).
    label, score : str
        The label and score columns. Labels as in
        :meth:`prcurve.ThresholdCounts.from_scores` (booleans, {0, 1}, {-1, 1}, soft
        labels in [0, 1], or ``pos_label``).
    weight : str, optional
        A column of non-negative sample weights.
    bins : int or array_like, optional
        None: the exact state. An int: that many equal-width bins over the score range
        of all rows (one aggregation first). An array: the edges. As ``bins`` of
        :func:`prcurve.pr_curve`.
    pos_label : scalar, optional
        The label value of the positive class.
    depth : int, default 2
        The depth of the merge tree (``RDD.treeReduce``).

    Returns
    -------
    ThresholdCounts or BinnedCounts
        Equal to the in-memory state of all the rows.

    Raises
    ------
    InvalidInputError
        A missing column, bad labels, scores or weights in a partition, or no rows.
    """
    return pr_counts_columns(frame, label=label, scores=[score], weight=weight, bins=bins,
                             pos_label=pos_label, depth=depth)[1][0]

"""The count state of a Dask DataFrame: one task per partition, a tree of merges.

:func:`pr_counts` turns a Dask DataFrame (or Parquet files read with
``dask.dataframe.read_parquet``) into the same :class:`~prcurve.ThresholdCounts`
or :class:`~prcurve.BinnedCounts` that the in-memory API returns for the
concatenated data, so every view (curve, AP methods, bounds, intervals,
plots) works unchanged (docs/scale.md):

- each partition is counted by ``ThresholdCounts.from_scores`` (exact) or
  ``BinnedCounts.from_scores`` (over edges fixed before the partitions are
  read), one task per partition; an empty partition gives the empty state;
- the partition states are merged in a tree, ``split_every`` at a time:
  exact merge is a sorted merge, binned merge is addition; both are
  associative and commutative, so the result does not depend on the
  partitioning or the order (exact to float64 rounding for non-integer
  weights, exactly for counts).

Nothing is raised on a worker (a raised error would print the worker's
traceback): each task returns what it found, and the client raises the one-line
error, with the file and its row for Parquet files (each task reads its own row
groups, so it knows where its rows start) and the row of the whole data for a
Dask DataFrame. ``prcurve report --dask`` checks every row with the rules of
:func:`prcurve.io.columns.check_block`, as in memory and streamed
(:func:`dask_scores`).

It runs on whatever scheduler is active: a ``dask.distributed.Client`` made
before the call included. Needs the ``dask`` extra
(``pip install 'prcurve[dask]'``: ``dask[dataframe]`` and ``distributed``).

Examples
--------
>>> import pandas as pd
>>> import dask.dataframe as dd
>>> from prcurve import ThresholdCounts
>>> from prcurve.io.dask import pr_counts
>>> frame = pd.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
>>> ddf = dd.from_pandas(frame, npartitions=3)
>>> counts = pr_counts(ddf, label="y", score="s", scheduler="sync")
>>> counts.tp.tolist() == ThresholdCounts.from_scores(frame.y, frame.s).tp.tolist()
True
>>> pr_counts(ddf, label="y", score="s", bins=2, scheduler="sync").pos.tolist()
[1.0, 2.0]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import BinnedCounts
from prcurve.core.counts import ThresholdCounts
from prcurve.errors import InvalidInputError
from prcurve.io.batches import Columns, input_files, parquet_statistics_range
from prcurve.io.dask_budget import screen, screened_rows
from prcurve.io.dask_parts import Part, State, finish_input, merge_parts
from prcurve.io.dask_watch import compute_watching
from prcurve.io.piece_tasks import (
    Piece,
    TaskSpec,
    count_piece,
    equal_width_over,
    parquet_pieces,
    raise_problem,
    read_piece,
)
from prcurve.io.readers import arrow_to_numpy, need
from prcurve.io.rows import LabelRule
from prcurve.validation.arrays import check_edges, check_n_bins
from prcurve.validation.files import (
    bad_option,
    dask_missing_columns,
    empty_input,
    not_a_dask_input,
)
from prcurve.validation.labels import check_labels, check_positive_class
from prcurve.validation.paths import check_distinct_files, no_files_given

__all__ = ["dask_scores", "pr_counts"]

_TASKS_PER_THREAD = 16  # tasks per thread at least (each folding consecutive pieces)


def need_dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as error:
        raise ImportError(
            "prcurve.dask needs dask, which is not installed: pip install 'prcurve[dask]'"
        ) from error
    return dask, dd


def _paths(data: Any) -> list[str] | None:
    """``data`` as a list of paths, or None when it is not a path or paths."""
    if isinstance(data, (str, Path)):
        return [str(data)]
    if isinstance(data, Sequence) and not data:
        raise no_files_given("data")
    if isinstance(data, Sequence) and all(isinstance(p, (str, Path)) for p in data):
        return [str(p) for p in data]
    return None


def _local_parquet_files(data: Any) -> list[str] | None:
    """The local Parquet files behind ``data`` (files or folders), else None."""
    paths = _paths(data)
    if paths is None or not all(Path(p).exists() for p in paths):
        return None
    try:
        files, fmt, _ = input_files(paths, None, distinct=False)
    except (InvalidInputError, ImportError):
        return None
    check_distinct_files(files)  # a file listed twice: its rows would count twice
    return files if fmt == "parquet" else None


def dask_frame(data: Any, columns: list[str], optional: Sequence[str] = ()) -> Any:
    """The Dask DataFrame of ``data`` restricted to ``columns`` (and those of
    ``optional`` that it has)."""
    _, dd = need_dask()
    paths = _paths(data)
    if paths is not None:
        frame = dd.read_parquet(paths if len(paths) > 1 else paths[0])
    elif isinstance(data, dd.DataFrame):
        frame = data
    else:
        raise not_a_dask_input(data)
    found = list(frame.columns)
    missing = [c for c in columns if c not in found]
    if missing:
        raise dask_missing_columns(missing, found)
    return frame[columns + [c for c in optional if c in found and c not in columns]]


def _frame_task(frame: Any, index: int, spec: TaskSpec) -> Part:
    """A partition of a Dask DataFrame (its rows counted from the data's first row)."""
    if spec.rule is not None:
        pa = need("pyarrow", "Dask partitions")
        columns = {c: arrow_to_numpy(pa, pa.Array.from_pandas(frame[c])) for c in spec.columns}
    else:
        columns = {c: frame[c].to_numpy() for c in spec.columns}
    return count_piece(columns, len(frame), index, spec)


def _piece_task(path: str, groups: list[int], index: int, spec: TaskSpec) -> Part:
    """Row groups of one Parquet file, read here (the task knows its file and rows)."""
    read = read_piece(path, groups, index, spec)
    return read if isinstance(read, Part) else count_piece(*read, index, spec)


def _pieces_task(pieces: list[tuple[str, list[int], int]], spec: TaskSpec) -> Part:
    """Several pieces read and counted one after the other, folded into one result."""
    result = _piece_task(*pieces[0], spec)
    for path, groups, index in pieces[1:]:
        result = merge_parts(result, _piece_task(path, groups, index, spec),
                             within=spec.within)
    return result


def _merge_task(spec: TaskSpec, *parts: Part) -> Part:
    return merge_parts(*parts, within=spec.within)


def _cluster_threads() -> int:
    """The threads of the active distributed client's workers, else this machine's cores."""
    try:
        from distributed import get_client

        client: Any = get_client()
        return max(1, int(sum(client.nthreads().values())))
    except (ImportError, ValueError):  # no client: the local scheduler's threads
        return os.cpu_count() or 1


# -- the graph ---------------------------------------------------------------------------


def _compute(data: Any, spec: TaskSpec, split_every: int, dask: Any,
             compute: dict[str, Any], files: list[str] | None) -> tuple[Part, list[Piece] | None]:
    delayed = dask.delayed
    shared = delayed(spec)
    if files is not None:
        pieces = parquet_pieces(files)
        # Consecutive pieces folded in one task (one state per task, not per piece):
        # at least 16 tasks per thread of the cluster (balance), and beyond that pieces
        # folded so that states and merges do not grow with the data.
        per_task = max(1, len(pieces) // (_TASKS_PER_THREAD * _cluster_threads()))
        level = [delayed(_pieces_task)([(p.path, p.groups, i)
                                        for i, p in enumerate(pieces[k:k + per_task], k)], shared)
                 for k in range(0, len(pieces), per_task)]
    else:
        pieces = None
        frame = dask_frame(data, spec.columns)
        level = [delayed(_frame_task)(part, i, shared) for i, part in enumerate(frame.to_delayed())]
    while len(level) > 1:  # the tree: split_every states per merge task
        level = [delayed(_merge_task)(shared, *level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    if not level:
        raise empty_input("data", "no partitions")
    # Lost workers are an error, never a wait for ever (prcurve.io.dask_watch).
    return compute_watching(dask, level[0], **compute), pieces


def _edges(bins: int | ArrayLike | None, data: Any, spec: TaskSpec, files: list[str] | None,
           split_every: int, dask: Any, compute: dict[str, Any], name: str
           ) -> list[NDArray[np.float64] | None]:
    scores = spec.scores
    if bins is None:
        return [None] * len(scores)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        check_n_bins("bins", bins)
        # Equal-width bins over the full range of each column: the in-memory edges. From
        # the Parquet statistics of local files when they have them, else one pass.
        known = [None if files is None else parquet_statistics_range(files, s) for s in scores]
        if all(r is not None for r in known):
            return equal_width_over(int(bins), known)
        if spec.rule is not None:
            result, pieces = _compute(data, spec.ranging(), split_every, dask, compute, files)
            raise_problem(result, pieces, name)
            return equal_width_over(int(bins), [], result)
        frame = dask_frame(data, spec.columns)
        # Watched as the counts are: lost workers are an error, never a wait for ever.
        ends = compute_watching(dask, [end for s in scores
                                       for end in (frame[s].min(), frame[s].max())],
                                **compute)
        return equal_width_over(int(bins), list(zip(ends[::2], ends[1::2], strict=True)))
    return [check_edges("bins", bins)] * len(scores)


def _check_split_every(split_every: Any) -> int:
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise bad_option("split_every", split_every, "an integer >= 2")
    return split_every


def pr_counts_columns(
    data: Any,
    *,
    label: str,
    scores: Sequence[str],
    weight: str | None = None,
    bins: int | ArrayLike | None = None,
    pos_label: Any = None,
    split_every: int = 8,
    **compute: Any,
) -> tuple[int, list[State]]:
    """:func:`pr_counts` for several score columns in one pass; also returns the rows."""
    dask, _ = need_dask()
    split_every = _check_split_every(split_every)
    files = _local_parquet_files(data)
    if files is None:  # checks the columns of a DataFrame or remote data before any task
        dask_frame(data, [label, *([weight] if weight else []), *scores])
    spec = TaskSpec(label, list(scores), weight, [], pos_label=pos_label)
    spec.edges = _edges(bins, data, spec, files, split_every, dask, compute, "data")
    if files is not None:
        _check_parquet_columns(files, spec.columns)
    result, pieces = _compute(data, spec, split_every, dask, compute, files)
    raise_problem(result, pieces, "data")
    rows = sum(n for _, n in result.sizes)
    if rows == 0:
        raise empty_input("data", "no rows")
    if pos_label is not None and not result.matched:  # the rule, on the whole data
        check_positive_class(pos_label, {label: np.array(result.unmatched, dtype=object)})
    if pos_label is None and not result.soft and len(result.labels) > 1:
        # The hard labels of all partitions together must be one binary coding, as in
        # memory, --stream and Spark: {0, 1} in one file and {-1, 1} in another is not.
        check_labels(label, np.array(sorted(result.labels, key=float)))
    return int(rows), list(result.states)


def _check_parquet_columns(files: Sequence[str], columns: Sequence[str]) -> None:
    pq = need("pyarrow.parquet", "Parquet files")
    for path in files:
        found = pq.read_schema(path).names
        missing = [c for c in columns if c not in found]
        if missing:
            raise dask_missing_columns(missing, found)


def pr_counts(
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None = None,
    bins: int | ArrayLike | None = None,
    pos_label: Any = None,
    split_every: int = 8,
    **compute: Any,
) -> ThresholdCounts | BinnedCounts:
    """The count state of a Dask DataFrame or Parquet data: exact or binned.

    Parameters
    ----------
    data : dask.dataframe.DataFrame, str, Path or sequence of them
        A Dask DataFrame, or Parquet files (a file, a folder, a glob or a
        list): local files are read by the tasks, a row-group range each;
        others with ``dask.dataframe.read_parquet``.
    label, score : str
        The label and score columns. Labels as in
        :meth:`prcurve.ThresholdCounts.from_scores` (booleans, {0, 1},
        {-1, 1}, soft labels in [0, 1], or ``pos_label``), checked per
        partition; whether ``pos_label`` occurs is checked on the whole (a
        partition of negatives only is fine).
    weight : str, optional
        A column of non-negative sample weights.
    bins : int or array_like, optional
        None: the exact state. An int: that many equal-width bins over the
        score range of all partitions (computed first, one more pass). An
        array: the edges. As ``bins`` of :func:`prcurve.pr_curve`.
    pos_label : scalar, optional
        The label value of the positive class.
    split_every : int, default 8
        How many states each merge task of the tree reduction combines.
    **compute
        Passed to ``dask.compute`` (e.g. ``scheduler="sync"``); by default the
        active scheduler runs the graph, a distributed Client included.

    Returns
    -------
    ThresholdCounts or BinnedCounts
        Equal to the in-memory state of the concatenated partitions.

    Raises
    ------
    InvalidInputError
        A missing column, bad labels, scores or weights in a partition (named
        with the partition and the row where it starts), or no rows; or, on a
        distributed client, a cluster left without workers for a minute, a task
        that killed its workers, or a scheduler that stopped answering
        (:mod:`prcurve.io.dask_watch`: never a wait for ever).
    """
    return pr_counts_columns(data, label=label, scores=[score], weight=weight, bins=bins,
                             pos_label=pos_label, split_every=split_every, **compute)[1][0]


def dask_scores(files: list[str], name: str, columns: Columns, positive: str | None = None,
                bins: int | None = None, drop_invalid: bool = False, split_every: int = 8,
                max_distinct: int | None = None, switch_bins: int = 1 << 20,
                **compute: Any) -> Any:
    """Parquet files counted on the active Dask scheduler with ``prcurve report``'s rules.

    Every row is checked as in memory and streamed
    (:func:`prcurve.io.columns.check_block`): a missing label, a bad score or
    weight is a one-line error naming the column, the file and its row;
    labels are one binary labelling across all partitions; weights that sum
    to 0 are refused; with ``drop_invalid`` bad rows are skipped and counted per
    column, as in memory. Returns a :class:`prcurve.io.stream.StreamedInput`
    whose ``engine`` is ``"dask"``.

    ``max_distinct`` (without ``bins``): the single process's budget; a column is exact
    when its kept rows hold at most that many distinct scores, else ``switch_bins``
    bins over its range, as :func:`prcurve.io.stream.stream_scores` (docs/scale.md).
    """
    dask, _ = need_dask()
    split_every = _check_split_every(split_every)
    spec = TaskSpec(columns.label, list(columns.scores), columns.weight, [],
                    rule=LabelRule(columns.label, positive), drop_invalid=drop_invalid)
    spec.edges = _edges(bins, files, spec, files, split_every, dask, compute, name)
    switched: list[int | None] = [None] * len(spec.scores)
    if bins is None and max_distinct is not None:
        switch = _edges(switch_bins, files, spec, files, split_every, dask, compute, name)
        past = screen(files, spec, max_distinct)
        spec.budget, spec.switch_edges = max_distinct, switch
        spec.edges = [e if p else None for p, e in zip(past, switch, strict=True)]
        screened = screened_rows(files, max_distinct)
        switched = [screened if p else None for p in past]
    result, pieces = _compute(files, spec, split_every, dask, compute, files)
    raise_problem(result, pieces, name)
    return finish_input(result, columns, name, len(files), positive,
                        bins is None and max_distinct is not None, max_distinct, switched,
                        "dask")

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import BinnedCounts, empty_over, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.errors import InvalidInputError
from prcurve.io.batches import Columns, input_files, parquet_statistics_range
from prcurve.io.dask_budget import packed, read_groups, screen, screened_rows, unpacked
from prcurve.io.dask_parts import (
    Budget,
    Part,
    State,
    finish_input,
    merge_parts,
    some_values,
    within_budget,
)
from prcurve.io.dask_watch import compute_watching
from prcurve.io.readers import arrow_to_numpy, need
from prcurve.io.rows import LabelRule, RowProblem, check_block
from prcurve.validation.arrays import check_edges, check_n_bins, distinct_values
from prcurve.validation.files import (
    bad_option,
    dask_missing_columns,
    dask_partition_error,
    empty_input,
    not_a_dask_input,
)
from prcurve.validation.labels import BinaryLabels, check_labels, check_positive_class
from prcurve.validation.paths import check_distinct_files, no_files_given

__all__ = ["dask_scores", "pr_counts"]

_PIECE_ROWS = 1 << 22  # rows of consecutive row groups read at a time (at least one group)
_TASKS_PER_THREAD = 16  # tasks per thread at least (each folding consecutive pieces)
_FEW_LABELS = 3  # a partition with more distinct labels has soft labels (checked there)


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


# -- what a task returns -----------------------------------------------------------------


@dataclass
class _Spec:
    """What every task needs: the columns, the bins, and how labels are read.

    ``rule`` set: the file rules of ``prcurve report`` (:func:`check_block`);
    else the library's (``from_scores`` with ``pos_label``, soft labels allowed).
    ``mode`` is ``"count"`` (states) or ``"range"`` (each column's smallest and
    largest valid score, for equal-width bins).
    """

    label: str
    scores: list[str]
    weight: str | None
    edges: list[NDArray[np.float64] | None]
    pos_label: Any = None
    rule: LabelRule | None = None
    mode: str = "count"
    drop_invalid: bool = False
    # The distinct-score budget of ``prcurve report`` (issue 26, item 7): an exact
    # column's state past ``budget`` thresholds is binned over its ``switch_edges``.
    budget: int | None = None
    switch_edges: list[NDArray[np.float64] | None] | None = None

    @property
    def within(self) -> Budget | None:
        if self.budget is None or self.switch_edges is None:
            return None
        return self.budget, self.switch_edges

    def __getstate__(self) -> dict[str, Any]:
        # Equal-width edges as (low, high, bins): Dask warns about graphs over 10 MB.
        state = dict(self.__dict__)
        state["edges"] = [packed(e) for e in self.edges]
        if self.switch_edges is not None:
            state["switch_edges"] = [packed(e) for e in self.switch_edges]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["edges"] = [unpacked(e) for e in state["edges"]]
        if state.get("switch_edges") is not None:
            state["switch_edges"] = [unpacked(e) for e in state["switch_edges"]]
        self.__dict__.update(state)


    @property
    def columns(self) -> list[str]:
        return [self.label, *([self.weight] if self.weight else []),
                *[s for s in self.scores if s not in (self.label, self.weight)]]


def _empty_states(spec: _Spec) -> list[State]:
    return [ThresholdCounts.empty() if e is None else empty_over(e) for e in spec.edges]


def _count(columns: dict[str, NDArray[Any]], n: int, index: int, spec: _Spec) -> Part:
    """One partition's states (or ranges), or what is wrong with its rows."""
    empty = Part([(index, n)], _empty_states(spec),
                  ranges=[(np.inf, -np.inf)] * len(spec.scores))
    if n == 0:
        return empty
    if spec.rule is None:
        return _count_library(columns, index, spec, empty)
    rule = LabelRule(spec.rule.column, spec.rule.positive)
    try:
        block = check_block(columns[spec.label], rule,
                            None if spec.weight is None else columns[spec.weight], spec.weight,
                            {s: columns[s] for s in spec.scores}, spec.drop_invalid)
    except RowProblem as problem:
        empty.problem = (index, problem)
        return empty
    empty.rules = [(index, rule)]
    empty.positives = int(np.count_nonzero(block.positive))
    states: list[State] = []
    for column, edges in zip(spec.scores, spec.edges, strict=True):
        keep = block.keep[column]
        scores, positive, weights = block.scores[column], block.positive, block.weights
        if keep is not None:
            scores, positive = scores[keep], positive[keep]
            weights = None if weights is None else weights[keep]
        empty.kept.append(int(scores.shape[0]))
        empty.kept_positives.append(int(np.count_nonzero(positive)))
        empty.dropped.append(dict(block.dropped.get(column, {})))
        if spec.mode == "range":
            continue
        labels = BinaryLabels(positive=positive, soft=None)
        if edges is None:
            states.append(within_budget(ThresholdCounts._from_checked(scores, labels, weights),
                                        spec.within, len(states)))
        else:
            binned = empty_over(edges)
            binned._add_checked(scores, labels, weights, threads=1)  # threads: Dask's
            states.append(binned)
    if spec.mode == "range":
        empty.ranges = [_range(block.scores[c], block.keep[c]) for c in spec.scores]
    else:
        empty.states = states
    return empty


def _range(scores: NDArray[Any], keep: NDArray[np.bool_] | None) -> tuple[float, float]:
    kept = scores if keep is None else scores[keep]
    if not kept.shape[0]:
        return np.inf, -np.inf
    return float(np.min(kept)), float(np.max(kept))


def _count_library(columns: dict[str, NDArray[Any]], index: int, spec: _Spec,
                   empty: Part) -> Part:
    y = columns[spec.label]
    w = None if spec.weight is None else np.asarray(columns[spec.weight], dtype=np.float64)
    states: list[State] = []
    try:
        if spec.pos_label is not None:
            # Whether pos_label occurs is a property of the whole, not of a partition: a
            # partition of negatives only is fine. Its labels become booleans here, and
            # the absent-pos_label rule is applied to the whole (pr_counts_columns).
            positive = check_labels(spec.label, y, spec.pos_label, check_positive=False)
            y = np.asarray(positive.positive, dtype=bool)  # set whenever pos_label is given
            if y.any():
                empty.matched = True
            else:
                empty.unmatched = some_values(distinct_values(columns[spec.label]).tolist())
        for score, e in zip(spec.scores, spec.edges, strict=True):
            s = columns[score]
            if e is None:
                states.append(ThresholdCounts.from_scores(y, s, sample_weight=w))
            else:
                states.append(BinnedCounts.from_scores(y, s, e, sample_weight=w))
        if spec.pos_label is None:  # labels checked above: hard ones noted for the whole
            values = np.unique(np.asarray(y))
            if values.shape[0] > _FEW_LABELS:
                empty.soft = True
            else:
                empty.labels = values.tolist()
    except (InvalidInputError, ValueError, TypeError) as error:
        empty.problem = (index, str(error))
        return empty
    empty.states = states
    return empty


def _frame_task(frame: Any, index: int, spec: _Spec) -> Part:
    """A partition of a Dask DataFrame (its rows counted from the data's first row)."""
    if spec.rule is not None:
        pa = need("pyarrow", "Dask partitions")
        columns = {c: arrow_to_numpy(pa, pa.Array.from_pandas(frame[c])) for c in spec.columns}
    else:
        columns = {c: frame[c].to_numpy() for c in spec.columns}
    return _count(columns, len(frame), index, spec)


def _read_piece(path: str, groups: list[int], index: int, spec: _Spec
                ) -> tuple[dict[str, NDArray[Any]], int] | Part:
    """Row groups of one Parquet file: the spec's columns and rows, or (unreadable) the
    result that says so."""
    try:
        return read_groups(path, groups, spec)
    except (OSError, ValueError, TypeError) as error:
        return Part([(index, 0)], _empty_states(spec), problem=(index, f"cannot read "
                     f"{path!r}: {error}"))


def _piece_task(path: str, groups: list[int], index: int, spec: _Spec) -> Part:
    """Row groups of one Parquet file, read here (the task knows its file and rows)."""
    read = _read_piece(path, groups, index, spec)
    return read if isinstance(read, Part) else _count(*read, index, spec)


def _pieces_task(pieces: list[tuple[str, list[int], int]], spec: _Spec) -> Part:
    """Several pieces read and counted one after the other, folded into one result."""
    result = _piece_task(*pieces[0], spec)
    for path, groups, index in pieces[1:]:
        result = merge_parts(result, _piece_task(path, groups, index, spec),
                             within=spec.within)
    return result


def _merge_task(spec: _Spec, *parts: Part) -> Part:
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


@dataclass(frozen=True)
class _Piece:
    path: str
    groups: list[int]
    first_row: int  # the file's row number of the piece's first row


def _pieces(files: Sequence[str]) -> list[_Piece]:
    """Consecutive row groups of each file, about ``_PIECE_ROWS`` rows per piece."""
    pq = need("pyarrow.parquet", "Parquet files")
    pieces = []
    for path in files:
        metadata = pq.read_metadata(path)
        groups: list[int] = []
        rows = 0
        first = 1
        for g in range(metadata.num_row_groups):
            groups.append(g)
            rows += metadata.row_group(g).num_rows
            if rows >= _PIECE_ROWS:
                pieces.append(_Piece(path, groups, first))
                first += rows
                groups, rows = [], 0
        if groups or not pieces or pieces[-1].path != path:
            pieces.append(_Piece(path, groups, first))
    return pieces


def _compute(data: Any, spec: _Spec, split_every: int, dask: Any,
             compute: dict[str, Any], files: list[str] | None) -> tuple[Part, list[_Piece] | None]:
    delayed = dask.delayed
    shared = delayed(spec)
    if files is not None:
        pieces = _pieces(files)
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


def _raise_problem(result: Part, pieces: list[_Piece] | None, name: str) -> None:
    """The first problem found, with its file and row (or the data's row)."""
    if result.problem is None:
        return
    index, problem = result.problem
    if pieces is not None:
        path, first_row = pieces[index].path, pieces[index].first_row
    else:
        sizes = dict(result.sizes)
        path, first_row = name, 1 + sum(sizes[i] for i in sizes if i < index)
    if isinstance(problem, RowProblem):
        raise problem.error(path, first_row)
    raise dask_partition_error(index, first_row, problem)


def _edges(bins: int | ArrayLike | None, data: Any, spec: _Spec, files: list[str] | None,
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
            ranges: Sequence[Any] = known
        elif spec.rule is not None:
            ranging = _Spec(spec.label, scores, spec.weight, [None] * len(scores),
                            rule=spec.rule, mode="range", drop_invalid=spec.drop_invalid)
            result, pieces = _compute(data, ranging, split_every, dask, compute, files)
            _raise_problem(result, pieces, name)
            ranges = [r if np.isfinite(r[0]) else (0.0, 1.0) for r in result.ranges]
        else:
            frame = dask_frame(data, spec.columns)
            ranges = dask.compute(*[(frame[s].min(), frame[s].max()) for s in scores],
                                  **compute)
        return [resolve_edges(int(bins), np.array([float(lo), float(hi)]))
                for lo, hi in ranges]
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
    spec = _Spec(label, list(scores), weight, [], pos_label=pos_label)
    spec.edges = _edges(bins, data, spec, files, split_every, dask, compute, "data")
    if files is not None:
        _check_parquet_columns(files, spec.columns)
    result, pieces = _compute(data, spec, split_every, dask, compute, files)
    _raise_problem(result, pieces, "data")
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
    spec = _Spec(columns.label, list(columns.scores), columns.weight, [],
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
    _raise_problem(result, pieces, name)
    return finish_input(result, spec.within, columns, name, len(files), positive,
                        bins is None and max_distinct is not None, max_distinct, switched,
                        "dask")

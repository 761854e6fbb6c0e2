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

from collections.abc import Sequence
from functools import reduce
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import BinnedCounts, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.errors import InvalidInputError
from prcurve.io.batches import input_files, parquet_statistics_range
from prcurve.ranking import Qrels, RankingEvaluation, evaluate
from prcurve.ranking.kernels import summarize
from prcurve.ranking.measures import parse_measures
from prcurve.validation.arrays import check_choice, check_edges, check_n_bins
from prcurve.validation.files import bad_option, dask_missing_columns, empty_input, not_a_dask_input

__all__ = ["evaluate_ranking", "pr_counts"]

State = ThresholdCounts | BinnedCounts


def _need_dask() -> tuple[Any, Any]:
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
    if isinstance(data, Sequence) and data and all(isinstance(p, (str, Path)) for p in data):
        return [str(p) for p in data]
    return None


def _local_parquet_files(data: Any) -> list[str] | None:
    """The local Parquet files behind ``data`` (files or folders), else None."""
    paths = _paths(data)
    if paths is None or not all(Path(p).exists() for p in paths):
        return None
    try:
        files, fmt, _ = input_files(paths, None)
    except (InvalidInputError, ImportError):
        return None
    return files if fmt == "parquet" else None


def _frame(data: Any, columns: list[str]) -> Any:
    """The Dask DataFrame of ``data`` restricted to ``columns``."""
    _, dd = _need_dask()
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
    return frame[columns]


def _partition_states(
    frame: Any, label: str, scores: Sequence[str], weight: str | None,
    edges: Sequence[NDArray[np.float64] | None], pos_label: Any,
) -> tuple[int, list[State]]:
    """The rows of one partition and one state per score column."""
    n = len(frame)
    if n == 0:
        return 0, [ThresholdCounts.empty() if e is None else BinnedCounts(e) for e in edges]
    y = frame[label].to_numpy()
    w = None if weight is None else frame[weight].to_numpy(dtype=np.float64)
    states: list[State] = []
    for score, e in zip(scores, edges, strict=True):
        s = frame[score].to_numpy()
        if e is None:
            states.append(ThresholdCounts.from_scores(y, s, sample_weight=w, pos_label=pos_label))
        else:
            states.append(BinnedCounts.from_scores(y, s, e, sample_weight=w,
                                                   pos_label=pos_label))
    return n, states


def _merge(*parts: tuple[int, list[State]]) -> tuple[int, list[State]]:
    """Merge several partitions' results: rows add, states merge column by column."""
    rows = sum(p[0] for p in parts)
    columns = zip(*(p[1] for p in parts), strict=True)
    return rows, [reduce(lambda a, b: a.merge(b), states) for states in columns]


def _edges(bins: int | ArrayLike | None, data: Any, frame: Any, scores: Sequence[str],
           dask: Any, compute: dict[str, Any]) -> list[NDArray[np.float64] | None]:
    if bins is None:
        return [None] * len(scores)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        check_n_bins("bins", bins)
        # Equal-width bins over the full range of each column: the in-memory edges. From
        # the Parquet statistics of local files when they have them, else one Dask pass.
        files = _local_parquet_files(data)
        known = [None if files is None else parquet_statistics_range(files, s) for s in scores]
        if all(r is not None for r in known):
            ranges: Sequence[Any] = known
        else:
            ranges = dask.compute(*[(frame[s].min(), frame[s].max()) for s in scores],
                                  **compute)
        return [resolve_edges(int(bins), np.array([float(lo), float(hi)]))
                for lo, hi in ranges]
    return [check_edges("bins", bins)] * len(scores)


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
    dask, _ = _need_dask()
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise bad_option("split_every", split_every, "an integer >= 2")
    frame = _frame(data, [label, *([weight] if weight else []),
                          *[s for s in scores if s not in (label, weight)]])
    edges = _edges(bins, data, frame, scores, dask, compute)
    delayed = dask.delayed
    level = [delayed(_partition_states)(part, label, list(scores), weight, edges, pos_label)
             for part in frame.to_delayed()]
    while len(level) > 1:  # the tree: split_every states per merge task
        level = [delayed(_merge)(*level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    if not level:
        raise empty_input("data", "no partitions")
    rows, states = dask.compute(level[0], **compute)[0]
    if rows == 0:
        raise empty_input("data", "no rows")
    return int(rows), list(states)


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
        list) read with ``dask.dataframe.read_parquet``.
    label, score : str
        The label and score columns. Labels as in
        :meth:`prcurve.ThresholdCounts.from_scores` (booleans, {0, 1},
        {-1, 1}, soft labels in [0, 1], or ``pos_label``), checked per
        partition.
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
        A missing column, bad labels, scores or weights in a partition, or no rows.
    """
    return pr_counts_columns(data, label=label, scores=[score], weight=weight, bins=bins,
                             pos_label=pos_label, split_every=split_every, **compute)[1][0]


# -- ranking: per-query evaluation, one query per partition ------------------------------


def _evaluate_partition(
    frame: Any, qrels: Any, columns: tuple[str, str, str], measures: tuple[Any, ...],
    options: dict[str, Any],
) -> tuple[NDArray[Any], dict[str, NDArray[np.float64]]] | None:
    """Every query of one partition (each query lies wholly in one partition)."""
    if len(frame) == 0:
        return None
    query, doc, score = columns
    run = (frame[query].to_numpy(), frame[doc].to_numpy(),
           frame[score].to_numpy(dtype=np.float64))
    result = evaluate(qrels, run, measures, queries_without_results="skip", **options)
    if result.n_queries == 0:  # none of the partition's queries is judged
        return None
    return result.query_ids, {name: np.asarray(v) for name, v in result.per_query.items()}


def evaluate_ranking(
    qrels: Any,
    run: Any,
    measures: Any = ("AP", "P@10"),
    *,
    relevance_level: int = 1,
    depth: int | None = None,
    queries_without_results: str = "skip",
    convention: str = "trec_eval_10",
    score_precision: str = "float64",
    zero_division: Any = 0,
    query: str = "query_id",
    doc: str = "doc_id",
    score: str = "score",
    **compute_kwargs: Any,
) -> Any:
    """:func:`prcurve.ranking.evaluate` over a run held in a Dask DataFrame.

    The run (a Dask DataFrame or Parquet path with columns ``query``, ``doc``
    and ``score``) is shuffled so that each query lies in one partition, each
    partition is evaluated by :func:`prcurve.ranking.evaluate` in one task,
    and the per-query values are gathered and summarised exactly as the
    in-memory evaluation does (same query order, same trec_eval summation), so
    the result equals ``evaluate(qrels, <the whole run>, ...)``. The judgments
    (any form :class:`prcurve.ranking.Qrels` accepts) are sent to the workers
    once. Options are those of :func:`prcurve.ranking.evaluate`;
    ``compute_kwargs`` go to ``dask.compute`` (e.g. ``scheduler="sync"``).

    Returns
    -------
    prcurve.ranking.RankingEvaluation

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from prcurve.io.dask import evaluate_ranking
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
    ...                     "doc_id": ["a", "b", "x", "y"], "score": [0.9, 0.8, 0.2, 0.7]})
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}
    >>> result = evaluate_ranking(qrels, dd.from_pandas(run, npartitions=2), ["AP", "P@2"],
    ...                           scheduler="sync")
    >>> result.per_query["AP"].tolist(), result.n_queries
    ([1.0, 0.5], 2)
    """
    dask, _ = _need_dask()
    parsed = parse_measures(measures)
    check_choice("queries_without_results", queries_without_results,
                             ("skip", "zero"))
    judgments = Qrels.coerce(qrels)
    columns = (query, doc, score)
    frame = _frame(run, list(columns)).shuffle(on=query)
    options = {"relevance_level": relevance_level, "depth": depth, "convention": convention,
               "score_precision": score_precision, "zero_division": zero_division}
    shared = dask.delayed(judgments)
    tasks = [dask.delayed(_evaluate_partition)(part, shared, columns, parsed, options)
             for part in frame.to_delayed()]
    parts = [p for p in dask.compute(*tasks, **compute_kwargs) if p is not None]

    query_ids = [p[0] for p in parts]
    per_query = {str(m): [p[1][str(m)] for p in parts] for m in parsed}
    has_results = [np.ones(p[0].shape[0], dtype=bool) for p in parts]
    if queries_without_results == "zero":
        # A judged query absent from the run scores as with an empty run (trec_eval -c).
        seen = np.concatenate(query_ids) if query_ids else np.zeros(0, dtype=object)
        missing = ~np.isin(judgments.query_id, seen)
        if missing.any():
            empty = (np.zeros(0, dtype=object), np.zeros(0, dtype=object), np.zeros(0))
            absent = Qrels(judgments.query_id[missing], judgments.doc_id[missing],
                           judgments.relevance[missing])
            rest = evaluate(absent, empty, parsed, queries_without_results="zero", **options)
            query_ids.append(rest.query_ids)
            for m in parsed:
                per_query[str(m)].append(np.asarray(rest.per_query[str(m)]))
            has_results.append(rest.has_results)
    ids = np.concatenate(query_ids) if query_ids else np.zeros(0, dtype=object)
    order = np.argsort(ids, kind="stable")  # the in-memory order: ids ascending
    values = {name: np.concatenate(v)[order] if v else np.zeros(0)
              for name, v in per_query.items()}
    results = np.concatenate(has_results)[order] if has_results else np.zeros(0, dtype=bool)
    summary = {str(m): summarize(m, values[str(m)], results, convention) for m in parsed}
    return RankingEvaluation(
        measures=parsed, query_ids=ids[order], per_query=values, summary=summary,
        n_queries=int(ids.shape[0]), has_results=results, convention=convention,
    )

"""Ranking measures over a run held in a Dask DataFrame: one query per partition.

:func:`evaluate_ranking` shuffles the run on its query column so that every
query lies in one partition, evaluates each partition with
:func:`prcurve.ranking.evaluate` in one task, and summarises the per-query
values on the client exactly as the in-memory evaluation does (docs/scale.md).
Whether any query has both results and judgments is decided over the whole
run, never per partition (a partition of unjudged queries is no error).
Public as :func:`prcurve.dask.evaluate_ranking`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.dask import dask_frame, need_dask
from prcurve.ranking import Qrels, RankingEvaluation, evaluate
from prcurve.ranking.join import _common_id_dtype
from prcurve.ranking.kernels import summarize
from prcurve.ranking.measures import parse_measures
from prcurve.ranking.tables import Run
from prcurve.validation.arrays import check_choice
from prcurve.validation.ranking import no_queries_to_evaluate

__all__ = ["evaluate_ranking"]

def _evaluate_partition(
    frame: Any, qrels: Any, columns: tuple[str, str, str], measures: tuple[Any, ...],
    options: dict[str, Any],
) -> tuple[NDArray[Any], dict[str, NDArray[np.float64]]] | None:
    """Every query of one partition (each query lies wholly in one partition).

    A partition none of whose queries is judged has nothing to evaluate: it
    gives None (its rows are still checked, as in memory). Whether any query
    is judged at all is decided over the whole run, by the caller.
    """
    if len(frame) == 0:
        return None
    query, doc, score = columns
    run = Run.coerce((frame[query].to_numpy(), frame[doc].to_numpy(),
                      frame[score].to_numpy(dtype=np.float64)))
    judgments = Qrels.coerce(qrels)
    run_ids, judged_ids = _common_id_dtype([run._queries.labels, judgments._queries.labels])
    if not np.isin(run_ids, judged_ids).any():
        return None
    result = evaluate(judgments, run, measures, queries_without_results="skip", **options)
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
    >>> from prcurve.dask import evaluate_ranking
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
    ...                     "doc_id": ["a", "b", "x", "y"], "score": [0.9, 0.8, 0.2, 0.7]})
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}}
    >>> result = evaluate_ranking(qrels, dd.from_pandas(run, npartitions=2), ["AP", "P@2"],
    ...                           scheduler="sync")
    >>> result.per_query["AP"].tolist(), result.n_queries
    ([1.0, 0.5], 2)
    """
    dask, _ = need_dask()
    parsed = parse_measures(measures)
    check_choice("queries_without_results", queries_without_results,
                             ("skip", "zero"))
    judgments = Qrels.coerce(qrels)
    columns = (query, doc, score)
    frame = dask_frame(run, list(columns)).shuffle(on=query)
    options = {"relevance_level": relevance_level, "depth": depth, "convention": convention,
               "score_precision": score_precision, "zero_division": zero_division}
    shared = dask.delayed(judgments)
    tasks = [dask.delayed(_evaluate_partition)(part, shared, columns, parsed, options)
             for part in frame.to_delayed()]
    parts = [p for p in dask.compute(*tasks, **compute_kwargs) if p is not None]
    if not parts and queries_without_results == "skip":
        # No partition has a judged query, so the whole run has none (the check of the
        # whole, as in memory; a partition without one is no error).
        n_run = int(frame[query].nunique().compute(**compute_kwargs))
        raise no_queries_to_evaluate(n_run, int(judgments._queries.labels.shape[0]))

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

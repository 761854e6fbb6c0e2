"""Evaluating many queries: :func:`evaluate`, :func:`judge` and their results."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import ZeroDivision, undefined_scope
from prcurve.ranking.cutoffs import compute_many
from prcurve.ranking.join import Prepared, prepare
from prcurve.ranking.kernels import summarize
from prcurve.ranking.measures import (
    CONVENTIONS,
    MISSING_QUERIES,
    SCORE_PRECISIONS,
    TEXT_MEASURES,
    Convention,
    Measure,
    MissingQueries,
    ScorePrecision,
    parse_measures,
)
from prcurve.ranking.tables import Qrels, Run
from prcurve.validation.arrays import check_choice, check_zero_division
from prcurve.validation.ranking import (
    check_flag,
    check_optional_cutoff,
    check_relevance_level,
)

if TYPE_CHECKING:  # imported where used: trec_eval's output needs no Table (issue 26)
    from prcurve.core.table import Table

__all__ = [
    "JudgedRun",
    "RankingEvaluation",
    "evaluate",
    "judge",
]

F64 = NDArray[np.float64]


@dataclass(frozen=True, eq=False, repr=False)
class RankingEvaluation:
    """Per-query values and summaries of ranking measures over many queries.

    ``per_query[name][i]`` is the value of measure ``name`` (its canonical
    text, ``str(Measure.parse(name))``) for query ``query_ids[i]`` (queries in
    id order: byte order for strings); ``relstring@n`` gives text.
    ``summary[name]`` is trec_eval's summary over the ``n_queries`` queries:
    the mean, except the sum for ``num_ret``, ``num_rel``, ``num_rel_ret``
    and ``num_nonrel_judged_ret`` and the geometric mean (values floored at
    1e-5) for ``gm_AP`` and ``gm_bpref``; ``relstring`` has none.
    ``has_results[i]`` is False for a query that had judgments but no results
    (only with ``queries_without_results="zero"``).
    """

    measures: tuple[Measure, ...]
    query_ids: NDArray[Any]
    per_query: Mapping[str, NDArray[Any]]
    summary: Mapping[str, float]
    n_queries: int
    has_results: NDArray[np.bool_] = field(repr=False)
    convention: str = "trec_eval_10"

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={value:.4f}" for name, value in self.summary.items())
        queries = "query" if self.n_queries == 1 else "queries"
        return (f"RankingEvaluation({self.n_queries} {queries}, {values}; "
                f"convention {self.convention})")

    def to_table(self) -> Table:
        """One row per query (ids as text) and one column per measure."""
        from prcurve.core.table import Table

        ids = self.query_ids
        text = (np.array([q.decode("utf-8", "backslashreplace") for q in ids.tolist()],
                         dtype=object) if ids.dtype.kind == "S" else ids)
        return Table({"query": text, **self.per_query})

    def _repr_html_(self) -> str:
        """Notebook display: the summaries, then the per-query values."""
        from prcurve.core.table import Table

        summary = Table({"measure": np.array(list(self.summary), dtype=object),
                         "all": np.array(list(self.summary.values()))})
        caption = f"RankingEvaluation: {self.n_queries} queries ({self.convention})"
        return summary.to_html(caption=caption) + self.to_table().to_html(max_rows=10)

    def __getitem__(self, measure: str | Measure) -> float:
        """The summary value of one measure, e.g. ``result["AP"]`` or ``result["map"]``."""
        return self.summary[str(Measure.parse(measure))]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{query: {measure: value}}`` plus ``"all"`` for the summaries."""
        out: dict[str, dict[str, Any]] = {}
        for i, query in enumerate(self.query_ids.tolist()):
            key = query.decode("utf-8", "replace") if isinstance(query, bytes) else str(query)
            out[key] = {name: values[i].item() for name, values in self.per_query.items()}
        out["all"] = dict(self.summary)
        return out


def evaluate(
    qrels: Any,
    run: Any,
    measures: str | Measure | Iterable[str | Measure] = ("AP", "P@10"),
    *,
    relevance_level: int = 1,
    depth: int | None = None,
    queries_without_results: MissingQueries = "skip",
    convention: Convention = "trec_eval_10",
    score_precision: ScorePrecision = "float64",
    zero_division: ZeroDivision = 0,
    judged_only: bool = False,
) -> RankingEvaluation:
    """Evaluate a run of many queries against relevance judgments, as trec_eval does.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame, pyarrow Table, (query_id, doc_id, relevance) or path
        The judgments: ``{query: {doc: grade}}``, a table with columns
        ``query_id``, ``doc_id``, ``relevance``, or a TREC qrels file.
    run : Run, dict, DataFrame, pyarrow Table, (query_id, doc_id, score) or path
        The retrieved documents and their scores, in any row order.
    measures : str, Measure or iterable of them, default ("AP", "P@10")
        Names such as ``"AP"``, ``"AP@10"``, ``"P@10"``, ``"R@100"``,
        ``"R-prec"``, ``"RR"``, ``"iprec@0.5"``, ``"11pt"``, ``"bpref"``,
        ``"ndcg"``, ``"ndcg_cut@10"``, ``"infAP"``, ``"rbp(p=0.8)"``, or
        trec_eval's names (``"map"``, ``"map_cut@10"``, ``"recip_rank"``);
        :class:`Measure` lists them all, docs/ranking.md defines them.
    relevance_level : int, default 1
        A document is relevant when its grade is at least this (trec_eval -l).
    depth : int, optional
        Look only at each query's top ``depth`` documents (trec_eval -M).
    queries_without_results : {"skip", "zero"}, default "skip"
        A query with judgments but no results is left out of the means
        ("skip") or scored 0 in every measure and counted ("zero",
        trec_eval -c). Queries with results but no judgments are always left out.
    convention : {"trec_eval_10", "trec_eval_9"}, default "trec_eval_10"
        The recall-level cutoff of ``iprec`` and ``11pt``: ``lround(r R)``
        (trec_eval 10) or ``(long)(r R + 0.9)`` (trec_eval 9, pytrec_eval,
        ranx). With "zero", also how ``gm_AP`` adds the missing queries.
    score_precision : {"float64", "float32"}, default "float64"
        Round scores to float32 before ranking, as trec_eval 9 and
        pytrec_eval do (it changes which scores tie).
    zero_division : {0, 1, "nan", "raise"}, default 0
        The value of a measure divided by R for a query with no relevant
        documents (or by an ideal gain of 0); 0 is trec_eval's.
    judged_only : bool, default False
        Drop every retrieved document not judged with a grade >= 0 before
        computing anything (trec_eval -J; after ``depth``).

    Returns
    -------
    RankingEvaluation

    Examples
    --------
    >>> from prcurve.ranking import evaluate
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"x": 0.2, "y": 0.7}}
    >>> result = evaluate(qrels, run, ["AP", "P@2", "RR"])
    >>> result.per_query["AP"].tolist()
    [0.8333333333333333, 0.5]
    >>> round(result["AP"], 4), result["P@2"], result["RR"], result.n_queries
    (0.6667, 0.5, 0.75, 2)
    """
    parsed = parse_measures(measures)
    check_choice("convention", convention, CONVENTIONS)
    check_zero_division(zero_division)
    judged = judge(
        qrels, run, relevance_level=relevance_level, depth=depth,
        queries_without_results=queries_without_results, score_precision=score_precision,
        judged_only=judged_only,
    )
    return judged.evaluate(parsed, convention=convention, zero_division=zero_division)


class JudgedRun:
    """Every query's ranking with its judgments attached: the state all measures read.

    Built by :func:`judge` (the sort and the join, the expensive part);
    :meth:`evaluate` then computes any measures from it in a few vectorised
    passes, so evaluating several measure sets, or the same set under both
    conventions, ranks and joins once.

    Examples
    --------
    >>> from prcurve.ranking import judge
    >>> judged = judge({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "x": 0.5, "b": 0.1}})
    >>> judged.n_queries, judged.evaluate(["AP", "P@2"]).summary
    (1, {'AP': 0.8333333333333333, 'P@2': 0.5})
    """

    def __init__(self, prepared: Prepared) -> None:
        self._prepared = prepared

    @property
    def query_ids(self) -> NDArray[Any]:
        """The evaluated queries, in id order."""
        return self._prepared.query_ids

    @property
    def n_queries(self) -> int:
        return self._prepared.rankings.n_queries

    def evaluate(
        self,
        measures: str | Measure | Iterable[str | Measure] = ("AP", "P@10"),
        *,
        convention: Convention = "trec_eval_10",
        zero_division: ZeroDivision = 0,
    ) -> RankingEvaluation:
        """The measures for every query and their summaries (see :func:`evaluate`)."""
        parsed = parse_measures(measures)
        check_choice("convention", convention, CONVENTIONS)
        prepared = self._prepared
        with undefined_scope(zero_division):
            # Every cutoff of a kind in one pass (ranking.cutoffs), as trec_eval's output does.
            values = compute_many(parsed, prepared.rankings, convention)
            per_query = {str(m): values[m] for m in parsed}
        summary = {
            str(m): summarize(m, per_query[str(m)], prepared.has_results, convention)
            for m in parsed if m.name not in TEXT_MEASURES
        }
        return RankingEvaluation(
            measures=parsed,
            query_ids=prepared.query_ids,
            per_query=per_query,
            summary=summary,
            n_queries=prepared.rankings.n_queries,
            has_results=prepared.has_results,
            convention=convention,
        )


def judge(
    qrels: Any,
    run: Any,
    *,
    relevance_level: int = 1,
    depth: int | None = None,
    queries_without_results: MissingQueries = "skip",
    score_precision: ScorePrecision = "float64",
    judged_only: bool = False,
) -> JudgedRun:

    """Rank every query's documents and attach the judgments, once.

    Parameters are those of :func:`evaluate` that decide the rankings and
    who is relevant; :meth:`JudgedRun.evaluate` takes the measures.

    Returns
    -------
    JudgedRun
    """
    level = check_relevance_level(relevance_level)
    cut = check_optional_cutoff("depth", depth)
    check_choice("queries_without_results", queries_without_results, MISSING_QUERIES)
    check_choice("score_precision", score_precision, SCORE_PRECISIONS)
    only_judged = check_flag("judged_only", judged_only)
    tables = None
    if isinstance(qrels, Mapping) and isinstance(run, Mapping):  # pytrec_eval's dicts:
        from prcurve.ranking.dict_join import joined  # joined as walked (issue 26, item 5)

        tables = joined(qrels, run)
    judgments, ranked = tables if tables is not None else (Qrels.coerce(qrels),
                                                             Run.coerce(run))
    prepared = prepare(
        judgments, ranked,
        relevance_level=level, depth=cut,
        queries_without_results=queries_without_results, score_precision=score_precision,
        judged_only=only_judged,
    )
    return JudgedRun(prepared)

"""trec_eval's measures, names, options and output format.

:func:`format_trec_eval` evaluates with trec_eval's measure names (``map``,
``P.5,10``, ``ndcg_cut.10``, ``rbp.p=0.8``, ...) and prints trec_eval's output
byte for byte: ``%-22s\\t%s\\t%6.4f`` per value, integers for the counts,
measures in trec_eval's own order (its ``te_trec_measures`` table), per query
with ``-q`` and then the summary. Measure parameters are read as trec_eval
reads them (``atol``/``atof``: ``ndcg_cut.23.4`` is cutoff 23), and so are its
options ``-c -l -M -J -N -n -Z`` (``TrecEvalOptions``).

With ``rel_format`` ``prefs`` or ``qrels_prefs`` (``-R``) the relevance input
is preferences and the measures the ``prefs_*`` ones
(:mod:`prcurve.ranking.prefs`); with ``qrels_jg``, judgment groups and the
``*_avgjg`` measures (:mod:`prcurve.ranking.judgment_groups`). A measure that
does not suit the format is an error naming it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import undefined_scope
from prcurve.ranking.cutoffs import compute_many
from prcurve.ranking.evaluation import judge
from prcurve.ranking.kernels import (
    MIN_GEO_MEAN,
    geometric_terms,
    mean_over_levels,
)
from prcurve.ranking.measures import Measure
from prcurve.ranking.state import NOT_IN_POOL, JudgedLevels, Rankings, c_float_scores
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.trec_format import read_zscores
from prcurve.ranking.trec_measures import (
    MISSING_ZSCORE,
    TREC_MEASURES,
    Column,
    TrecEvalOptions,
    check_options,
    measures_help,
    output_plan,
)
from prcurve.validation.ranking import wrong_table_type

if TYPE_CHECKING:  # imported where used: only -R prefs, qrels_prefs, qrels_jg need them
    from prcurve.ranking.judgment_groups import JudgmentGroups
    from prcurve.ranking.prefs import Preferences

__all__ = [
    "TREC_MEASURES",
    "TrecEvalOptions",
    "format_trec_eval",
    "format_trec_eval_of",
    "measures_help",
    "read_relevance",
    "skipped_queries",
    "trec_eval_text",
]


# -- evaluation and output ---------------------------------------------------------------


def _text(value: Any) -> str:
    """An id as text; bytes that are not UTF-8 survive as surrogates (written back as
    the same bytes by the command line), since trec_eval prints ids unchanged."""
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def skipped_queries(qrels: Qrels | Preferences | JudgmentGroups, run: Run) -> list[str]:
    """Judged queries with no results, which ``-c`` would score 0 (left out otherwise)."""
    if isinstance(qrels, Qrels):
        judged = set(qrels._queries.labels.tolist())
        retrieved = set(run._queries.labels.tolist())
    else:
        from prcurve.ranking.prefs import as_bytes

        judged = set(np.unique(qrels.query).tolist())
        retrieved = set(as_bytes(run._queries.labels).tolist())
    return sorted(_text(q) for q in judged - retrieved)


def read_relevance(path: str | os.PathLike[str], rel_format: str) -> Any:
    """The relevance file in trec_eval's ``-R`` format: a :class:`Qrels`, or
    :class:`~prcurve.ranking.prefs.Preferences` (``prefs``, ``qrels_prefs``), or
    :class:`~prcurve.ranking.judgment_groups.JudgmentGroups` (``qrels_jg``)."""
    if rel_format in ("prefs", "qrels_prefs"):
        from prcurve.ranking.prefs import read_prefs

        return read_prefs(path, rel_format)
    if rel_format == "qrels_jg":
        from prcurve.ranking.judgment_groups import read_qrels_jg

        return read_qrels_jg(path)
    return Qrels.coerce(path)


def _number(value: float) -> str:
    """printf's %6.4f, NaN and infinities included ("-nan" for a NaN with its sign bit)."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def format_trec_eval(
    qrels: Any,
    run: Any,
    options: TrecEvalOptions | None = None,
) -> str:
    """trec_eval's output for these judgments, run and options, byte for byte.

    Parameters
    ----------
    qrels, run
        As for :func:`prcurve.ranking.evaluate` (paths to TREC files included).
    options : TrecEvalOptions, optional
        trec_eval's command-line options; default ``trec_eval qrels run``.

    Returns
    -------
    str
        Lines ``measure<TAB>query<TAB>value``, per query (``-q``) then ``all``.

    Examples
    --------
    >>> from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
    >>> qrels = {"1": {"a": 1, "b": 0}}
    >>> run = {"1": {"a": 0.5, "b": 0.9}}
    >>> print(format_trec_eval(qrels, run, TrecEvalOptions(measures=("map", "P.1"))), end="")
    map                   \tall\t0.5000
    P_1                   \tall\t0.0000
    """
    return format_trec_eval_of([qrels, run], options)


def format_trec_eval_of(tables: list[Any], options: TrecEvalOptions | None = None) -> str:
    """:func:`format_trec_eval` of ``tables``, a list ``[qrels, run]`` that is emptied
    once every query's ranking is judged (``-R qrels``): a caller that keeps no other
    reference to the two tables lets their per-row columns go before the measures are
    computed (``prcurve trec``: issue 26, peak memory no more than the C trec_eval's).

    Examples
    --------
    >>> from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval_of
    >>> tables = [{"1": {"a": 1}}, {"1": {"a": 0.5, "b": 0.9}}]
    >>> print(format_trec_eval_of(tables, TrecEvalOptions(measures=("P.1",))), end="")
    P_1                   \tall\t0.0000
    >>> tables
    []
    """
    return "".join(trec_eval_text(tables, options))


def trec_eval_text(tables: list[Any], options: TrecEvalOptions | None = None
                   ) -> Iterator[str]:
    """:func:`format_trec_eval_of`'s output in pieces (whole lines, the per-query ones
    of :data:`QUERIES_A_PIECE` queries at a time), to be written as they come:
    everything is evaluated (and any error raised) in this call, and only the text
    is made piece by piece (``prcurve trec -q`` over 10^5 queries made 9.6·10^6 lines
    at once: 2.4 GiB; issue 26).

    Examples
    --------
    >>> from prcurve.ranking.trec_eval import TrecEvalOptions, trec_eval_text
    >>> tables = [{"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 0.5}, "2": {"a": 0.1}}]
    >>> pieces = trec_eval_text(tables, TrecEvalOptions(measures=("P.1",), per_query=True))
    >>> print("".join(pieces), end="")
    P_1                   \t1\t1.0000
    P_1                   \t2\t0.0000
    P_1                   \tall\t0.5000
    """
    options = options or TrecEvalOptions()
    check_options(options)
    plan = output_plan(options)
    version = options.version
    zscores = _zscores(options.zscores)
    qrels, run = tables
    run_table = Run.coerce(run)
    if options.rel_format != "qrels":
        tables.clear()
        return _other_format(qrels, run_table, options, plan, zscores)
    qrels_table = Qrels.coerce(qrels)
    judged = judge(
        qrels_table, run_table,
        relevance_level=options.relevance_level, depth=options.depth,
        queries_without_results="zero" if options.complete else "skip",
        score_precision="float32" if version == 9 else "float64",
        judged_only=options.judged_only,
    )
    # What the output needs of the tables; then they go (the rankings hold no
    # reference to them), unless the caller keeps them.
    run_id = run_table.run_id or ""
    # trec_eval -c counts every judgment with grade > 0, whatever -l says (m_num_rel.c).
    # (A row of qrels read against the run may stand for several: trec_retrieved.)
    counts = getattr(qrels_table, "judgment_counts", None) if options.complete else None
    positive = None if not options.complete else (
        int(np.count_nonzero(qrels_table.relevance > 0)) if counts is None
        else int(counts[qrels_table.relevance > 0].sum()))
    del counts
    tables.clear()
    del qrels, run, qrels_table, run_table
    rankings = judged._prepared.rankings
    has_results = judged._prepared.has_results
    query_ids = [_text(q) for q in judged.query_ids.tolist()]
    convention = "trec_eval_9" if version == 9 else "trec_eval_10"
    missing = np.flatnonzero(~has_results) if version == 10 else np.zeros(0, dtype=np.intp)
    placeholder = _placeholder(rankings, missing) if missing.shape[0] else None
    summary = _Summary(has_results, len(query_ids), options, run_id, positive, zscores)

    # The measures a kind at a time (the cutoffs of one kind together: ranking.cutoffs);
    # each column made, and without -q summarized, as soon as its measures are there,
    # and each measure's values dropped after its last column: at 10^5 queries, all of
    # all_trec's values at once were 77 MiB (issue 26).
    uses: dict[Measure, int] = {}
    for column in plan:
        for m in column.measures:
            uses[m] = uses.get(m, 0) + 1
    kinds: dict[str, list[Measure]] = {}
    for m in uses:
        kinds.setdefault(m.name, []).append(m)
    stored: list[Any] = [None] * len(plan)
    lines: list[str | None] = [None] * len(plan)
    waiting = list(range(len(plan)))
    cache: dict[Measure, Any] = {}
    with undefined_scope(0):
        for kind in [[], *kinds.values()]:  # [] first: the columns of no measure
            cache.update(compute_many(kind, rankings, convention, trec_raw=True))
            if placeholder is not None and kind:
                bogus = compute_many(kind, placeholder, convention, trec_raw=True)
                for m in kind:
                    cache[m] = cache[m].copy()
                    cache[m][missing] = bogus[m]
            ready = [i for i in waiting if all(m in cache for m in plan[i].measures)]
            done = set(ready)
            waiting = [i for i in waiting if i not in done]
            for i in ready:
                column = plan[i]
                values = _column_values(column, cache, missing, query_ids, zscores)
                lines[i] = summary.line(column, values)
                if options.per_query:
                    stored[i] = values
                for m in column.measures:
                    uses[m] -= 1
                    if not uses[m]:
                        del cache[m]
    return _pieces(plan, stored, lines, query_ids, has_results, options, zscores is not None)


def _column_values(
    column: Column, cache: dict[Measure, Any], missing: NDArray[np.intp],
    query_ids: list[str], zscores: dict[tuple[str, str], tuple[float, float]] | None,
) -> Any:
    """What trec_eval stores per query for one column (the log for gm_*), z-scored with
    -Z; None for a column of no measure."""
    if not column.measures:
        return None
    if column.spec.kind == "mean_r":
        values = mean_over_levels([cache[m] for m in column.measures])
    else:
        values = cache[column.measures[0]]
    if missing.shape[0] and _reset_after_placeholder(column.name):
        values = values.copy()
        values[missing] = "" if column.name == "relstring" else 0.0
    if column.spec.summary == "gm":
        values = geometric_terms(values)
    if zscores is not None and column.spec.summary not in ("none",):
        values = _zscored(values, column.name, query_ids, zscores)
    return values


def _other_format(
    relevance: Any, run: Run, options: TrecEvalOptions, plan: list[Column],
    zscores: dict[tuple[str, str], tuple[float, float]] | None,
) -> Iterator[str]:
    """trec_eval's output for -R prefs, qrels_prefs or qrels_jg (its pieces)."""
    from prcurve.ranking.judgment_groups import JudgmentGroups, judgment_group_values
    from prcurve.ranking.prefs import Preferences, as_bytes, prefs_values

    version = options.version
    precision = "float32" if version == 9 else "float64"
    if isinstance(relevance, (str, os.PathLike)):
        relevance = read_relevance(relevance, options.rel_format)
    measured = [column for column in plan if column.spec.rel_format is not None]
    if options.rel_format == "qrels_jg":
        if not isinstance(relevance, JudgmentGroups):
            raise wrong_table_type("qrels", relevance, "JudgmentGroups or a qrels_jg path")
        queries, has_results, columns = judgment_group_values(
            relevance, run, [column.measures for column in measured],
            relevance_level=options.relevance_level, depth=options.depth,
            complete=options.complete, score_precision=precision,
            judged_only=options.judged_only,
            convention="trec_eval_9" if version == 9 else "trec_eval_10",
        )
        by_name = dict(zip([c.name for c in measured], columns, strict=True))
    else:
        if not isinstance(relevance, Preferences):
            raise wrong_table_type("qrels", relevance, "Preferences or a prefs path")
        scores = c_float_scores(run.score) if version == 9 else run.score
        queries, has_results, by_name = prefs_values(
            relevance, as_bytes(run._queries.labels), run._queries.codes,
            as_bytes(run._docs.labels)[run._docs.codes], scores.astype(np.float64),
            [c.name for c in measured], depth=options.depth, complete=options.complete,
        )
    query_ids = [_text(q) for q in queries.tolist()]
    stored: list[Any] = []
    for column in plan:
        values = by_name.get(column.name)
        if values is not None and zscores is not None:
            values = _zscored(values, column.name, query_ids, zscores)
        stored.append(values)
    summary = _Summary(has_results, len(query_ids), options, run.run_id or "", None, zscores)
    lines = [summary.line(column, values) for column, values in zip(plan, stored, strict=True)]
    return _pieces(plan, stored, lines, query_ids, has_results, options, zscores is not None)


def _pieces(
    plan: list[Column], stored: list[Any], summaries: list[str | None], query_ids: list[str],
    has_results: NDArray[np.bool_], options: TrecEvalOptions, zscored: bool,
) -> Iterator[str]:
    """The output: per query with -q (``stored``: each column's values), a piece of
    :data:`QUERIES_A_PIECE` queries at a time, then the summary lines (-n: none)."""
    version, n = options.version, len(query_ids)
    z = "Z" if zscored else ""
    if options.per_query:
        printed = np.flatnonzero(has_results if version == 9 else np.ones(n, dtype=bool))
        shown = [(column, values) for column, values in zip(plan, stored, strict=True)
                 if column.spec.per_query]
        for begin in range(0, printed.shape[0], QUERIES_A_PIECE):
            rows = printed[begin:begin + QUERIES_A_PIECE]
            queries = [query_ids[i] for i in rows.tolist()]
            # Column by column (one format per column), then interleaved query by query.
            columns = [_query_lines(column, queries, values[rows], z)
                       for column, values in shown]
            yield "".join(f"{line}\n" for per_query in zip(*columns, strict=True)
                          for line in per_query)
    if options.summary:
        yield "".join(f"{line}\n" for line in summaries if line is not None)


QUERIES_A_PIECE = 1024
"""Per-query lines are made (and written by ``prcurve trec``) this many queries at a time."""


def _placeholder(rankings: Rankings, missing: NDArray[np.intp]) -> Rankings:
    """trec_eval 10 -c evaluates a judged query missing from the run on one
    document not in the judgments (trec_eval.c's bogus ranking), which -J drops."""
    n = missing.shape[0]
    position = np.full(rankings.n_queries, -1, dtype=np.int64)
    position[missing] = np.arange(n)

    def levels() -> JudgedLevels:
        all_levels = rankings.judged_levels
        keep = position[all_levels.query] >= 0
        return JudgedLevels(position[all_levels.query[keep]], all_levels.code[keep],
                            all_levels.count[keep])

    return Rankings(
        lengths=np.zeros(n, dtype=np.int64) if rankings.judged_only else np.ones(n, np.int64),
        code=np.full(n, NOT_IN_POOL, dtype=rankings.code.dtype),
        grades=rankings.grades, relevant_code=rankings.relevant_code,
        n_relevant=rankings.n_relevant[missing],
        n_judged_nonrelevant=rankings.n_judged_nonrelevant[missing],
        judged_levels=levels, judged_only=rankings.judged_only,
    )


def _reset_after_placeholder(name: str) -> bool:
    """The values trec_eval 10 clears after evaluating the placeholder ranking: the
    names it compares (strcmp: "utility_2,-1,0,0" is not "utility"; unj by prefix)."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _query_lines(column: Column, queries: list[str], values: Any, z: str) -> list[str]:
    """One column's line for each query: ``name<TAB>query<TAB>value``."""
    head = f"{column.name:<22}\t"
    if column.spec.summary == "none":  # relstring: text, never z-scored
        return [f"{head}{q}\t'{v}'" for q, v in zip(queries, values.tolist(), strict=True)]
    if column.spec.kind == "long" and not z:  # counts: int() truncates, as the C cast
        return [f"{head}{q}\t{int(v)}" for q, v in zip(queries, values.tolist(), strict=True)]
    head = z + head
    if np.isnan(values).any():
        return [f"{head}{q}\t{_number(v)}" for q, v in zip(queries, values.tolist(), strict=True)]
    return [f"{head}{q}\t{v:6.4f}" for q, v in zip(queries, values.tolist(), strict=True)]


def _sequential_sum(values: NDArray[np.float64]) -> float:
    return float(np.cumsum(values)[-1]) if values.shape[0] else 0.0


class _Summary:
    """A column's summary line (``all``) from its per-query values: what it needs of
    the run and the judgments, kept apart from them (``positive``: the judgments of
    grade > 0, with -c on qrels; None otherwise)."""

    def __init__(self, has_results: NDArray[np.bool_], n: int, options: TrecEvalOptions,
                 run_id: str, positive: int | None,
                 zscores: dict[tuple[str, str], tuple[float, float]] | None) -> None:
        self.counted = has_results if options.version == 9 else np.ones(n, dtype=bool)
        self.n, self.run_id, self.positive = n, run_id, positive
        self.z = "Z" if zscores is not None else ""

    def line(self, column: Column, values: Any) -> str | None:
        rule, n, z = column.spec.summary, self.n, self.z
        if rule == "none":
            return None
        if rule == "runid":
            return f"{'runid':<22}\tall\t{self.run_id}"
        if rule == "num_q":
            return (f"{z}{'num_q':<22}\tall\t{_number(float(n))}" if z
                    else f"{'num_q':<22}\tall\t{n}")
        total = _sequential_sum(values[self.counted])
        if rule == "gm":
            total += (n - int(np.count_nonzero(self.counted))) * math.log(MIN_GEO_MEAN)
            value = math.exp(total / n)
        elif rule == "num_rel" and self.positive is not None:
            value = float(self.positive)
        elif rule in ("sum", "num_rel"):
            value = total
        else:
            value = total / n
        if column.spec.kind == "long" and not z:
            return f"{column.name:<22}\tall\t{int(value)}"
        return f"{z}{column.name:<22}\tall\t{_number(value)}"


def _zscores(
    source: str | os.PathLike[str] | Mapping[tuple[str, str], tuple[float, float]] | None,
) -> dict[tuple[str, str], tuple[float, float]] | None:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return {(str(q), str(m)): (float(a), float(b)) for (q, m), (a, b) in source.items()}
    return read_zscores(source)


def _zscored(
    values: NDArray[np.float64], name: str, queries: list[str],
    table: dict[tuple[str, str], tuple[float, float]],
) -> NDArray[np.float64]:
    """te_convert_to_zscore: (value - mean) / stddev; with stddev 0, 0 if the value
    is the mean; -1000000 where the file has no mean for the query and measure."""
    out = np.empty(values.shape[0])
    for i, query in enumerate(queries):
        found = table.get((query, name))
        value = float(values[i])
        if found is None:
            out[i] = MISSING_ZSCORE
        elif found[1]:
            out[i] = (value - found[0]) / found[1]
        else:
            out[i] = 0.0 if value == found[0] else MISSING_ZSCORE
    return out

"""trec_eval's judgment groups: ``-R qrels_jg`` files and the ``*_avgjg`` measures
(``-m qrels_jg``: ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``).

A ``qrels_jg`` file is a qrels file whose second field names the judgment group
(one user's judgments) instead of being ignored (get_qrels_jg.c). Each measure
is the ordinary measure (``map``, ``P``, ``Rprec_mult``) computed with each
group's judgments alone, then averaged over the query's groups
(m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c; the ranking, ``-M``,
``-J`` and ``-l`` as form_res_rels_jg.c, the same as for qrels). So every
(query, group) pair becomes one query of an ordinary evaluation, the run's
rows repeated for each group of their query, and the kernels of
:mod:`prcurve.ranking.kernels` compute it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import undefined_scope
from prcurve.ranking.evaluation import judge
from prcurve.ranking.kernels import compute
from prcurve.ranking.measures import Measure
from prcurve.ranking.prefs import as_bytes
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.trec_format import parse_numbers, read_bytes, split_fields
from prcurve.validation.ranking import duplicate_document, no_queries_to_evaluate

__all__ = ["JudgmentGroups", "judgment_group_values", "read_qrels_jg"]


@dataclass(frozen=True)
class JudgmentGroups:
    """Judgments by group, one row per line: ``query``, ``group``, ``doc`` (byte
    strings as in the file) and the integer grade ``relevance``.

    Examples
    --------
    >>> from prcurve.ranking.judgment_groups import JudgmentGroups
    >>> g = JudgmentGroups.from_arrays(["q1", "q1"], ["u1", "u2"], ["a", "a"], [1, 0])
    >>> g.group.tolist()
    [b'u1', b'u2']
    """

    query: NDArray[np.bytes_]
    group: NDArray[np.bytes_]
    doc: NDArray[np.bytes_]
    relevance: NDArray[np.int64]
    source: str = "<qrels_jg>"
    line: NDArray[np.int64] | None = None

    @classmethod
    def from_arrays(cls, query: Any, group: Any, doc: Any, relevance: Any,
                    source: str = "<qrels_jg>") -> JudgmentGroups:
        """From four equal-length columns (ids as text or bytes, integer grades)."""
        return cls(as_bytes(np.asarray(query)), as_bytes(np.asarray(group)),
                   as_bytes(np.asarray(doc)), np.asarray(relevance, dtype=np.int64), source)


def read_qrels_jg(path: str | os.PathLike[str]) -> JudgmentGroups:
    """Read a ``-R qrels_jg`` file: ``query jg docno relevance`` per line (blank
    lines and lines starting with ``#`` skipped)."""
    data, source = read_bytes(path, "qrels")
    fields = split_fields(data, source, "qrels", 4, True, "query jg docno relevance")
    grades = parse_numbers(fields, 3, np.int64, source, "qrels", "relevance")
    return JudgmentGroups(fields.strings(0), fields.strings(1), fields.strings(2),
                          grades.astype(np.int64), source, fields.line)


def judgment_group_values(
    groups: JudgmentGroups, run: Run, measures: list[tuple[Measure, ...]], *,
    relevance_level: int, depth: int | None, complete: bool, score_precision: Any,
    judged_only: bool, convention: str,
) -> tuple[NDArray[np.bytes_], NDArray[np.bool_], list[NDArray[np.float64]]]:
    """Each measure (one prcurve measure per output column) per query, averaged
    over the query's judgment groups. Returns the evaluated query ids (byte order),
    whether each had results, and one array of values per column."""
    queries, query_code = np.unique(groups.query, return_inverse=True)
    names, group_code = np.unique(groups.group, return_inverse=True)
    pair = query_code.astype(np.int64) * names.shape[0] + group_code
    pairs, pseudo = np.unique(pair, return_inverse=True)  # (query, group) in byte order
    _check_duplicates(groups, pseudo)
    pair_query = pairs // names.shape[0]
    first = np.searchsorted(pair_query, np.arange(queries.shape[0]))
    n_groups = np.diff(np.append(first, pairs.shape[0]))
    qrels = Qrels.from_arrays(pseudo.astype(np.int64), groups.doc, groups.relevance)

    # The run's rows, repeated once per group of their query.
    run_labels = as_bytes(run._queries.labels)
    where = np.searchsorted(queries, run_labels)
    known = where < queries.shape[0]
    known[known] = queries[where[known]] == run_labels[known]
    row_query = np.where(known, where, 0)[run._queries.codes]
    rows = np.flatnonzero(known[run._queries.codes])
    if rows.shape[0] == 0 and not complete:  # trec_eval: "No queries with both results ..."
        raise no_queries_to_evaluate(run._queries.labels.shape[0], queries.shape[0])
    copies = n_groups[row_query[rows]]
    rows = np.repeat(rows, copies)
    offset = np.arange(rows.shape[0]) - np.repeat(np.cumsum(copies) - copies, copies)
    run_ids = first[row_query[rows]] + offset
    docs = as_bytes(run._docs.labels)[run._docs.codes[rows]]
    pseudo_run = Run.from_arrays(run_ids.astype(np.int64), docs, run.score[rows], run.run_id)

    judged = judge(qrels, pseudo_run, relevance_level=relevance_level, depth=depth,
                   queries_without_results="zero" if complete else "skip",
                   score_precision=score_precision, judged_only=judged_only)
    evaluated = judged.query_ids.astype(np.int64)  # pseudo ids, ascending
    evaluated_query = pair_query[evaluated]
    out_queries, slot = np.unique(evaluated_query, return_inverse=True)
    has = np.zeros(out_queries.shape[0], dtype=bool)
    has[slot] = judged._prepared.has_results
    counts = np.bincount(slot, minlength=out_queries.shape[0])
    position = np.arange(evaluated.shape[0]) - np.searchsorted(evaluated_query, evaluated_query)
    rankings = judged._prepared.rankings
    values = []
    for column in measures:
        with undefined_scope(0):  # trec_eval: a group without relevant documents scores 0
            per_group = compute(column[0], rankings, convention, trec_raw=True)
        per_group = per_group.astype(np.float64)
        total = np.zeros(out_queries.shape[0])
        for j in range(int(counts.max(initial=0))):  # groups added in order, as trec_eval
            at = position == j
            total[slot[at]] += per_group[at]
        values.append(total / counts)
    return queries[out_queries], has, values


def _check_duplicates(groups: JudgmentGroups, pseudo: NDArray[np.intp]) -> None:
    """get_qrels_jg.c refuses a document listed twice in one group of one query."""
    docs, doc_code = np.unique(groups.doc, return_inverse=True)
    key = pseudo.astype(np.int64) * max(docs.shape[0], 1) + doc_code
    _, first_seen, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():
        repeated = np.ones(key.shape[0], dtype=bool)
        repeated[first_seen] = False
        row = int(np.flatnonzero(repeated)[0])
        line = None if groups.line is None else int(groups.line[row])
        raise duplicate_document("qrels", groups.query[row], groups.doc[row], groups.source, line)

"""Ranked retrieval: P@k, R@k, AP, AP@k, MAP, R-precision, RR, interpolated precision, bpref.

A ranked list for one query is the core count state with rank as the
threshold (:func:`ranking_counts`). Many queries are one long
table sorted by (query, score descending, document id descending) and cut into
segments, one per query; every measure is a handful of segment operations on
that table (prefix counts, ``reduceat`` sums, a segmented running maximum), so
evaluating 10,000 queries costs a few passes over arrays, not 10,000 Python
loops. Definitions follow trec_eval (docs/ranking.md gives each formula and
the trec_eval source file it was checked against):

- documents are ranked by score descending, ties broken by document id
  descending (byte order; trec_eval's ``form_res_rels.c``);
- P@k divides by k even when fewer than k documents were retrieved (the
  missing ranks count as non-relevant, the Precision And Recall tutorial);
- AP and AP@k (trec_eval's ``map`` and ``map_cut``) divide by R, the number of
  relevant documents judged for the query, retrieved or not;
  ``AP_min_k_relevant@k`` (the Precision And Recall tutorial's AP@k) divides by min(k, R);
- R-precision looks at the top min(retrieved, R) documents and divides by R;
- interpolated precision at recall level r is the largest precision at any
  rank at or below the rank where the c-th relevant document is retrieved,
  where the cutoff c is ``lround(r * R)`` in trec_eval 10 and
  ``(long)(r * R + 0.9)`` in trec_eval 9 (and pytrec_eval, ranx); levels whose
  cutoff exceeds the relevant documents retrieved score 0;
- queries without relevant documents score 0 in every measure (as in
  trec_eval; ``zero_division`` chooses otherwise) and count in the mean.

The subpackage, bottom up: :mod:`~prcurve.ranking.measures` (the measure
grammar), :mod:`~prcurve.ranking.keys` (id encoding),
:mod:`~prcurve.ranking.trec_format` and :mod:`~prcurve.ranking.tables` (qrels
and runs, from any form or a TREC file), :mod:`~prcurve.ranking.state` (the
segmented rankings), :mod:`~prcurve.ranking.join` (ranking order and
judgments), :mod:`~prcurve.ranking.kernels` (the measures),
:mod:`~prcurve.ranking.evaluation` (:func:`evaluate`, :func:`judge`),
:mod:`~prcurve.ranking.compare` (:func:`compare_runs`, paired significance tests),
:mod:`~prcurve.ranking.single` (one ranking from arrays) and
:mod:`~prcurve.ranking.trec_eval` (trec_eval's names and output).
"""

from typing import TYPE_CHECKING

from prcurve._lazy import lazy_attributes

if TYPE_CHECKING:  # the type checker sees every name; at run time __getattr__ loads it
    from prcurve.ranking.compare import RunComparison, compare_runs
    from prcurve.ranking.evaluation import JudgedRun, RankingEvaluation, evaluate, judge
    from prcurve.ranking.measures import CONVENTIONS, MEASURE_NAMES, Convention, Measure
    from prcurve.ranking.single import (
        average_precision_at_k,
        precision_at_k,
        r_precision,
        ranking_counts,
        recall_at_k,
        reciprocal_rank,
    )
    from prcurve.ranking.tables import Qrels, Run, parse_qrels, parse_run, read_qrels, read_run

# Each public name: the module defining it (the name is the same there). Lazy (PEP 562)
# because importing one module of this package imports the package first: eager
# imports here made `prcurve trec` load compare_runs' significance tests, intervals
# and the PR curve (about 0.4x `import numpy`) to read two files (issue 26).
# Kept equal to the TYPE_CHECKING imports above (tests/test_trec_startup.py).
_LAZY: dict[str, str] = {
    **dict.fromkeys(("RunComparison", "compare_runs"), "prcurve.ranking.compare"),
    **dict.fromkeys(("JudgedRun", "RankingEvaluation", "evaluate", "judge"),
                    "prcurve.ranking.evaluation"),
    **dict.fromkeys(("CONVENTIONS", "MEASURE_NAMES", "Convention", "Measure"),
                    "prcurve.ranking.measures"),
    **dict.fromkeys(("average_precision_at_k", "precision_at_k", "r_precision",
                     "ranking_counts", "recall_at_k", "reciprocal_rank"),
                    "prcurve.ranking.single"),
    **dict.fromkeys(("Qrels", "Run", "parse_qrels", "parse_run", "read_qrels", "read_run"),
                    "prcurve.ranking.tables"),
}


# Public names and submodules loaded on first use (PEP 562) and kept.
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())


__all__ = [
    "CONVENTIONS",
    "MEASURE_NAMES",
    "Convention",
    "JudgedRun",
    "Measure",
    "Qrels",
    "RankingEvaluation",
    "Run",
    "RunComparison",
    "average_precision_at_k",
    "compare_runs",
    "evaluate",
    "judge",
    "parse_qrels",
    "parse_run",
    "precision_at_k",
    "r_precision",
    "ranking_counts",
    "read_qrels",
    "read_run",
    "recall_at_k",
    "reciprocal_rank",
]

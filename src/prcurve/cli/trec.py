"""The ``prcurve trec`` command: trec_eval's output, byte for byte (docs/ranking.md).

``prcurve trec QRELS RUN [-m MEASURE ...] [-q] [-c] [-l LEVEL] [-M DEPTH] [-n] [-J]
[-N N] [-Z FILE]`` prints trec_eval's output, every measure of trec_eval 10 (or 9).
With several runs, each run's output in turn, after a line ``==> RUN <==`` (as
``head`` and ``tail`` name several files), from one process that reads QRELS once.
``prcurve trec QRELS RUN RUN [RUN ...] --compare`` compares systems
(:mod:`prcurve.cli.trec_compare`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from prcurve.cli import trec_compare
from prcurve.cli.common import UsageError, guard
from prcurve.errors import InvalidInputError
from prcurve.ranking.tables import parse_run, read_qrels, read_run
from prcurve.ranking.trec_eval import (
    TrecEvalOptions,
    measures_help,
    read_relevance,
    skipped_queries,
    trec_eval_text,
)
from prcurve.ranking.trec_format import decoded, first_line_fields
from prcurve.ranking.trec_stream import read_judged, read_judged_run
from prcurve.validation.ranking import check_rel_format, with_swap_hint

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``trec`` subcommand to an argparse subparsers object."""
    trec = subparsers.add_parser(
        "trec",
        help="evaluate a TREC run against qrels, printing trec_eval's output",
        description=(
            "Evaluate a TREC run file against a qrels file and print trec_eval's output "
            "byte for byte, every measure of trec_eval 10 (or 9) with its options. "
            "Documents are ranked by score, ties by document id descending; see "
            "docs/ranking.md. Files may be gzip, bzip2 or xz compressed."
        ),
    )
    trec.add_argument("qrels", metavar="QRELS",
                      help="qrels file: query iter docno relevance (other formats: -R)")
    trec.add_argument(
        "run", metavar="RUN", nargs="+",
        help="run file: query Q0 docno rank score run_id ('-' for stdin); several: each "
        "one's output after a line '==> RUN <==', or compared with --compare",
    )
    trec.add_argument(
        "-m", "--measure", action="append", default=[], metavar="MEASURE",
        help=f"trec_eval measure, parameters after a dot (P.5,10; ndcg.1=1,2=3; rbp.p=0.8); "
        f"repeatable. {measures_help()}. Default: official",
    )
    trec.add_argument("-q", "--query", "--query_eval_wanted", action="store_true",
                      help="print each query's values too")
    trec.add_argument(
        "-c", "--complete", "--complete_rel_info_wanted", action="store_true",
        help="score queries with judgments but no results as 0 and average over all judged queries",
    )
    trec.add_argument(
        "-l", "--level", "--level_for_rel", type=int, default=1, metavar="LEVEL",
        help="smallest grade that counts as relevant (default 1)",
    )
    trec.add_argument(
        "-M", "--max-docs", "--Max_retrieved_per_topic", type=int, default=None, metavar="DEPTH",
        help="look at only the top DEPTH documents of each query",
    )
    trec.add_argument("-n", "--nosummary", action="store_true",
                      help="print no summary (with -q: only the per-query values)")
    trec.add_argument(
        "-J", "--judged-docs-only", "--Judged_docs_only", action="store_true",
        help="drop retrieved documents not judged (after -M) before computing any measure",
    )
    trec.add_argument(
        "-N", "--num-docs-in-coll", "--Number_docs_in_coll", type=int, default=0, metavar="N",
        help="number of documents in the collection (used by utility)",
    )
    trec.add_argument(
        "-Z", "--zscores", "--Zscore", default=None, metavar="FILE",
        help="print z-scores: FILE has lines 'query measure mean stddev'",
    )
    trec.add_argument("-R", "--rel-format", "--Rel_info_format", default="qrels",
                      metavar="FORMAT",
                      help="relevance format: qrels (default); prefs or qrels_prefs (preferences: "
                      "-m all_prefs); qrels_jg (judgment groups: -m qrels_jg)")
    trec.add_argument("-T", "--results-format", "--Results_format", default="trec_results",
                      metavar="FORMAT", help="results format: trec_results (the only one read)")
    trec.add_argument(
        "--trec-eval-version", type=int, choices=(9, 10), default=10, metavar="{9,10}",
        help="10 (default): interpolated-precision cutoff lround(r*R), float64 scores; "
        "9: cutoff (long)(r*R + 0.9) and float32 scores, as trec_eval 9 and pytrec_eval",
    )
    trec_compare.add_arguments(trec)
    # large_arrays: the program's malloc keeps freed memory (core.heap.reuse_freed_memory)
    trec.set_defaults(handler=_trec, large_arrays=True)


def _run_trec(args: argparse.Namespace, run_path: str, qrels: Any = None,
              several: bool = False, last: bool = True) -> tuple[Iterator[str], Any]:
    """trec_eval's output of one run, in pieces to write as they come (evaluated
    already), and the relevance input (read unless given; None after the ``last`` run:
    the tables go before the measures, issue 26)."""
    try:
        if run_path != "-" and args.rel_format == "qrels":
            # A large run is read in blocks, joined with the qrels as it is read.
            if qrels is None:
                qrels, run = read_judged(args.qrels, run_path, against_run=last)
            else:  # a later run: the qrels read once
                found = read_judged_run(run_path, qrels)
                run = read_run(run_path) if found is None else found
        else:
            run = (parse_run(decoded(sys.stdin.buffer.read(), "<stdin>", "run"), "<stdin>")
                   if run_path == "-" else read_run(run_path))
        if qrels is None:
            qrels = (read_qrels(args.qrels) if args.rel_format == "qrels"
                     else read_relevance(args.qrels, check_rel_format(args.rel_format)))
    except InvalidInputError as error:
        heads = [None if path == "-" else first_line_fields(path) for path in (args.qrels,
                                                                                run_path)]
        raise with_swap_hint(error, args.qrels, run_path, *heads) from None
    options = TrecEvalOptions(
        measures=tuple(args.measure),
        per_query=args.query,
        complete=args.complete,
        relevance_level=args.level,
        depth=args.max_docs,
        version=args.trec_eval_version,
        summary=not args.nosummary,
        judged_only=args.judged_docs_only,
        collection_size=args.num_docs_in_coll,
        zscores=args.zscores,
        rel_format=args.rel_format,
        results_format=args.results_format,
    )
    missing = [] if args.complete else skipped_queries(qrels, run)
    # The tables handed over (no reference kept here): their per-row columns are freed
    # once the rankings are made, before the measures (the qrels kept for a later run).
    tables = [qrels, run]
    del run
    if last:
        qrels = None
    output = trec_eval_text(tables, options)
    if missing:
        print(
            f"prcurve: note: {run_path + ': ' if several else ''}"
            f"{len(missing)} judged quer{'y' if len(missing) == 1 else 'ies'} "
            f"without results left out ({', '.join(missing[:5])}"
            f"{', ...' if len(missing) > 5 else ''}); trec_eval 10 stops with an error "
            "here, trec_eval 9 leaves them out; -c scores them 0",
            file=sys.stderr,
        )
    return output, qrels


def _write(text: str) -> None:
    # Ids are bytes as in the files, written back unchanged (undecodable bytes too).
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.flush()


def _trec(args: argparse.Namespace) -> int:
    """The ``trec`` handler: trec_eval's output on stdout, or one line on stderr."""

    def run() -> int:
        if args.compare:
            trec_compare.write(trec_compare.run_compare(args))
            return 0
        runs: list[str] = args.run
        several = len(runs) > 1
        if several and runs.count("-") > 1:
            raise UsageError("standard input ('-') given as a run more than once")
        qrels = None
        for i, path in enumerate(runs):
            output, qrels = _run_trec(args, path, qrels, several, i == len(runs) - 1)
            if i == 0 and any(m.split(".")[0] == "all_trec" for m in args.measure):
                print("prcurve: note: all_trec, as trec_eval's, leaves out the preference "
                      "measures prefs_* (-R prefs or qrels_prefs, -m all_prefs) and the "
                      "judgment-group measures *_avgjg (-R qrels_jg, -m qrels_jg)",
                      file=sys.stderr)
            # Several runs: each output after a header naming its file, as `head` does.
            head = f"{chr(10) if i else ''}==> {path} <==\n" if several else ""
            for piece in output:  # (-q over many queries: a piece at a time, issue 26)
                _write(head + piece)
                head = ""
            if head:  # an empty output (-n without -q): the header all the same
                _write(head)
        return 0

    return guard(run)

"""The ``prcurve trec`` command: trec_eval's output, byte for byte (docs/ranking.md).

``prcurve trec QRELS RUN [-m MEASURE ...] [-q] [-c] [-l LEVEL] [-M DEPTH]``
prints trec_eval's output for the measures prcurve computes.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from prcurve.cli.common import guard
from prcurve.ranking.tables import parse_run, read_run
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval, measures_help

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``trec`` subcommand to an argparse subparsers object."""
    trec = subparsers.add_parser(
        "trec",
        help="evaluate a TREC run against qrels, printing trec_eval's output",
        description=(
            "Evaluate a TREC run file against a qrels file and print trec_eval's output "
            "byte for byte for the supported measures. Documents are ranked by score, "
            "ties by document id descending; see docs/ranking.md."
        ),
    )
    trec.add_argument("qrels", metavar="QRELS", help="qrels file: query iter docno relevance")
    trec.add_argument(
        "run", metavar="RUN", help="run file: query Q0 docno rank score run_id ('-' for stdin)"
    )
    trec.add_argument(
        "-m", "--measure", action="append", default=[], metavar="MEASURE",
        help=f"trec_eval measure, parameters after a dot (P.5,10); repeatable. {measures_help()}. "
        "Default: official",
    )
    trec.add_argument("-q", "--query", action="store_true", help="print each query's values too")
    trec.add_argument(
        "-c", "--complete", action="store_true",
        help="score queries with judgments but no results as 0 and average over all judged queries",
    )
    trec.add_argument(
        "-l", "--level", type=int, default=1, metavar="LEVEL",
        help="smallest grade that counts as relevant (default 1)",
    )
    trec.add_argument(
        "-M", "--max-docs", type=int, default=None, metavar="DEPTH",
        help="look at only the top DEPTH documents of each query",
    )
    trec.add_argument(
        "--trec-eval-version", type=int, choices=(9, 10), default=10, metavar="{9,10}",
        help="10 (default): interpolated-precision cutoff lround(r*R), float64 scores; "
        "9: cutoff (long)(r*R + 0.9) and float32 scores, as trec_eval 9 and pytrec_eval",
    )
    trec.set_defaults(handler=_trec)


def _run_trec(args: argparse.Namespace) -> str:
    run = parse_run(sys.stdin.buffer.read(), "<stdin>") if args.run == "-" else read_run(args.run)
    options = TrecEvalOptions(
        measures=tuple(args.measure),
        per_query=args.query,
        complete=args.complete,
        relevance_level=args.level,
        depth=args.max_docs,
        version=args.trec_eval_version,
    )
    return format_trec_eval(args.qrels, run, options)


def _trec(args: argparse.Namespace) -> int:
    """The ``trec`` handler: trec_eval's output on stdout, or one line on stderr."""

    def run() -> int:
        output = _run_trec(args)
        sys.stdout.write(output)
        sys.stdout.flush()
        return 0

    return guard(run)

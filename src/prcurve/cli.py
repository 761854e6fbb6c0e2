"""The ``prcurve`` command line: ``main(argv) -> int`` with one subcommand per task.

``prcurve trec QRELS RUN [-m MEASURE ...] [-q] [-c] [-l LEVEL] [-M DEPTH]``
prints trec_eval's output for the measures prcurve computes (docs/ranking.md);
``prcurve report`` and ``prcurve demo`` come from :mod:`prcurve._cli_report`
(docs/cli.md). Each subcommand sets ``handler``, a function of the parsed
arguments returning the exit status.

Results go to stdout. Any error is one line on stderr and exit code 2, never
a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

__all__ = ["main"]


class _UsageError(Exception):
    """A command-line error, reported in one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    from prcurve.trec import measures_help

    parser = _Parser(
        prog="prcurve",
        description="Precision-recall analysis with every convention named.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    trec = commands.add_parser(
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

    from prcurve._cli_report import register

    register(commands)
    from prcurve.cli_detection import register as register_detection

    register_detection(commands)
    return parser


def _run_trec(args: argparse.Namespace) -> str:
    from prcurve.trec import TrecEvalOptions, format_trec_eval, parse_run, read_run

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
    from prcurve.errors import InvalidInputError

    try:
        output = _run_trec(args)
    except InvalidInputError as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a bug; still one line, never a traceback
        print(f"prcurve: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error; ``report``'s
    ``--fail-under`` gate gives 1).

    Examples
    --------
    >>> from prcurve.cli import main
    >>> main(["trec", "no-such-qrels", "no-such-run"])  # the error goes to stderr
    2
    """
    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command is None:
            raise _UsageError("no command given (see 'prcurve --help')")
    except SystemExit as exit_request:  # --help
        return int(exit_request.code or 0)
    except _UsageError as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)

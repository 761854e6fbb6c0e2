"""The ``prcurve`` command line: ``main(argv) -> int`` with one subcommand per task.

Each subcommand module (:mod:`~prcurve.cli.trec`, :mod:`~prcurve.cli.report`,
:mod:`~prcurve.cli.demo`) has ``register(subparsers)``, which adds its parser
and sets ``handler``, a function of the parsed arguments returning the exit
status. Results go to stdout. Any error is one line on stderr and exit code 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from prcurve.cli import demo, detection, report, trec
from prcurve.cli.common import Parser, UsageError

__all__ = ["main", "register"]


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="prcurve",
        description="Precision-recall analysis with every convention named.",
    )
    register(parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser))
    return parser


def register(subparsers: Any) -> None:
    """Add every subcommand to an argparse subparsers object, in the order of ``--help``."""
    trec.register(subparsers)
    report.register(subparsers)
    demo.register(subparsers)
    detection.register(subparsers)


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
            raise UsageError("no command given (see 'prcurve --help')")
    except SystemExit as exit_request:  # --help
        return int(exit_request.code or 0)
    except UsageError as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)

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

from prcurve._version import __version__
from prcurve.cli import demo, detection, lvis, report, trec
from prcurve.cli.common import Parser, UsageError, reuse_freed_memory

__all__ = ["main", "register"]


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="prcurve",
        description="Precision-recall analysis with every convention named.",
    )
    parser.add_argument("--version", action="version", version=f"prcurve {__version__}",
                        help="print prcurve's version and exit")
    register(parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser))
    return parser


def register(subparsers: Any) -> None:
    """Add every subcommand to an argparse subparsers object, in the order of ``--help``."""
    trec.register(subparsers)
    report.register(subparsers)
    demo.register(subparsers)
    detection.register(subparsers)
    lvis.register(subparsers)


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
    except SystemExit as exit_request:  # --help, --version
        return int(exit_request.code or 0)
    except UsageError as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    if argv is None and getattr(args, "large_arrays", False):
        reuse_freed_memory()  # the program's own process only (see its docstring)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)

"""The ``prcurve`` command line: ``main(argv) -> int`` with one subcommand per task.

Each subcommand module (:mod:`~prcurve.cli.trec`, :mod:`~prcurve.cli.report`,
:mod:`~prcurve.cli.demo`, :mod:`~prcurve.cli.detection`) has
``register(subparsers)``, which adds its parser and sets ``handler``, a function
of the parsed arguments returning the exit status. Results go to stdout. Any
error is one line on stderr and exit code 2, never a traceback.

A subcommand's module is imported only when that subcommand runs (or its own
``--help`` is asked for): :data:`COMMANDS` holds the one-line help that
``prcurve --help`` shows, so that ``--help`` and ``--version`` import no
subcommand and no numpy (docs/architecture.md, "What an import loads";
tests/test_startup.py keeps this table equal to the modules' own help).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, NoReturn

from prcurve._version import __version__
from prcurve.cli.common import Parser, UsageError

__all__ = ["COMMANDS", "EVALUATIONS", "ONE_BLAS_THREAD", "QUICK_EXIT", "main", "register", "run"]

#: Every subcommand in the order of ``--help``: its module and its one-line help.
COMMANDS: dict[str, tuple[str, str]] = {
    "trec": ("prcurve.cli.trec",
             "evaluate a TREC run against qrels, printing trec_eval's output"),
    "report": ("prcurve.cli.report", "from files of labels and scores to a report with plots"),
    "demo": ("prcurve.cli.demo", "run the whole report on simulated data shipped with prcurve"),
    "coco": ("prcurve.cli.detection",
             "COCO evaluation of boxes, masks or keypoints (mAP, AP50, ...), pycocotools' summary"),
    "voc": ("prcurve.cli.detection", "PASCAL VOC evaluation (AP at IoU >= 0.5 per class, mAP)"),
    "lvis": ("prcurve.cli.lvis",
             "LVIS federated evaluation (AP, APr/APc/APf), lvis-api's printed results"),
}


#: The subcommands that evaluate inputs and print or write the result: their process
#: starts no BLAS threads and ends without tearing the interpreter down (:func:`run`).
EVALUATIONS = frozenset({"trec", "coco", "voc", "lvis"})

#: The subcommands whose process loads numpy with one BLAS thread (the evaluations, and
#: ``report``: none of them calls a BLAS routine that threads would speed up, and a
#: small text report is about 3x ``import numpy``, whose spinning OpenBLAS threads were
#: about 30 ms of its CPU; issue 26).
ONE_BLAS_THREAD = EVALUATIONS | {"report"}

#: The subcommands whose process, once its output is flushed and the ``atexit``
#: functions have run, leaves by ``os._exit`` (:func:`run`) unless a thread of its own
#: still runs: the evaluations, and ``report``, whose files are closed when written (the
#: one safe writer renames them whole), whose drawing process is waited for, and whose
#: Dask client, worker pools or Spark session keep threads (the usual exit then). The
#: teardown is about 11 ms of a 10^4-row text report's 0.27 s of CPU (issue 26).
QUICK_EXIT = EVALUATIONS | {"report"}

# OpenBLAS reads its thread count once, when numpy loads it: OPENBLAS_NUM_THREADS first,
# then GOTO_NUM_THREADS and OMP_NUM_THREADS (OpenBLAS's USAGE.md); a user's setting stays.
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line: its first word that is not an option
    (the top-level parser's options, ``-h`` and ``--version``, take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def _parser(command: str | None = None, others: bool = True) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported and registers its full parser,
    every other subcommand is its name and one-line help (left out when not ``others``:
    only ``prcurve --help`` lists them, and each costs a parser)."""
    parser = Parser(
        prog="prcurve",
        description="Precision-recall analysis with every convention named.",
    )
    parser.add_argument("--version", action="version", version=f"prcurve {__version__}",
                        help="print prcurve's version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    chosen = COMMANDS[command][0] if command in COMMANDS else None
    for name, (module, help_line) in COMMANDS.items():
        if module != chosen:
            if others or chosen is None:
                subparsers.add_parser(name, help=help_line)
        elif name == command:  # the module registers all of its subcommands (coco, voc)
            import_module(module).register(subparsers)
    return parser


def register(subparsers: Any) -> None:
    """Add every subcommand, with its full parser, to an argparse subparsers object, in
    the order of ``--help`` (this imports every subcommand's module)."""
    for module in dict.fromkeys(module for module, _ in COMMANDS.values()):
        import_module(module).register(subparsers)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error; ``report``'s
    ``--fail-under`` gate gives 1).

    ``argv`` None means the program's own process (:func:`run`): the arguments are
    ``sys.argv``'s, and the process is set up for a short run (cycle collection paused
    while modules load, then frozen; numpy without BLAS threads for an evaluation and
    ``report`` (:data:`ONE_BLAS_THREAD`);
    ``malloc`` keeping freed memory for large arrays). Given ``argv``, nothing of the
    process changes.

    Examples
    --------
    >>> from prcurve.cli.main import main
    >>> main(["trec", "no-such-qrels", "no-such-run"])  # the error goes to stderr
    2
    """
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(words)
    if argv is None and command == "report":  # its drawing process, before the imports
        from prcurve.present.picture_process import start_early

        start_early(words)
    # The other subcommands' one-line parsers only where they show: prcurve's own help.
    before = words[:words.index(command)] if command in words else words
    if argv is None:  # the program's own process: no cycle collection while modules load
        gc.disable()
        if command in ONE_BLAS_THREAD:
            import_numpy_one_blas_thread()
    try:
        parser = _parser(command, others=any(word in ("-h", "--help") for word in before))
    finally:
        if argv is None:
            # What the imports made lives as long as the process: set aside for good, so
            # that later collections do not scan it (about 2% of a small `prcurve trec`'s
            # instructions went to collecting while numpy and prcurve loaded; issue 26).
            gc.freeze()
            gc.enable()
    try:
        args = parser.parse_args(words)
        if args.command is None:
            raise UsageError("no command given (see 'prcurve --help')")
    except SystemExit as exit_request:  # --help, --version
        return int(exit_request.code or 0)
    except UsageError as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    if argv is None and getattr(args, "large_arrays", False):
        # The program's own process only (see its docstring); loaded here: `prcurve
        # --help` loads nothing of prcurve.core.
        from prcurve.core.heap import reuse_freed_memory

        reuse_freed_memory()
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


def import_numpy_one_blas_thread() -> None:
    """Import numpy with OpenBLAS told to start no threads of its own, unless numpy is
    loaded already or the environment sets a thread count; the environment is left as
    it was (a child process sees the user's).

    OpenBLAS starts one thread per core when numpy loads it, and the threads wait for
    work by spinning: in a short process they add about half of ``import numpy``'s
    CPU time (171 against 98 ms wall on an idle 2-core machine, docs/benchmarks.md),
    and on a loaded machine they take cores from the other processes. The evaluations
    call no BLAS routine that threads would speed up (``prcurve.ranking.prefs``'
    closure of a query's preferences and ``prcurve.detection.bootstrap``'s
    matrix-vector products are small or bound by memory).

    Imported here, near the bottom of the call stack, numpy also loads where CPython
    3.11 does not thrash its frame stack: imported by a subcommand's modules, a loop of
    calls in numpy's typing modules crossed the boundary of a 16 KiB chunk of frames,
    and each call mapped and unmapped a chunk (500 to 1,900 ``mmap``/``munmap``
    pairs in a small ``prcurve trec``, by ``strace``; none from here).

    Examples
    --------
    >>> import os
    >>> before = dict(os.environ)
    >>> import_numpy_one_blas_thread()  # here numpy is loaded already: nothing changes
    >>> dict(os.environ) == before
    True
    """
    if "numpy" in sys.modules:
        return
    if any(name in os.environ for name in _BLAS_THREAD_VARIABLES):
        import_module("numpy")  # here all the same: near the bottom of the call stack
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import_module("numpy")
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def run() -> NoReturn:
    """The ``prcurve`` program (its console script and ``python -m prcurve``):
    :func:`main` on the process's arguments, then exit with its status.

    :func:`main` sets up the process (argv None): cycle collection paused while modules
    load and then frozen; for an evaluation or ``report`` (:data:`ONE_BLAS_THREAD`) numpy
    loaded first, without BLAS threads (:func:`import_numpy_one_blas_thread`). An
    evaluation or ``report`` (:data:`QUICK_EXIT`), once
    its output is flushed and the ``atexit`` functions have run, ends the process with
    :func:`os._exit`: the
    interpreter's teardown (clearing every module, numpy's included) is about 5% of
    a small ``prcurve trec``'s instructions and changes nothing the user sees. A
    process with threads of its own still running exits the usual way (which waits
    for them).
    """
    quick = _command_of(sys.argv[1:]) in QUICK_EXIT
    status = main()
    if not quick or ("threading" in sys.modules
                     and sys.modules["threading"].active_count() > 1):
        sys.exit(status)
    import atexit
    import contextlib

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`)
            stream.flush()
    os._exit(status)

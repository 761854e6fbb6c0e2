"""The ``prcurve demo`` command: simulated data and the full report on it.

It writes two simulated test sets scored by a strong and a weak model
(:mod:`prcurve.io.demo`) to ``./prcurve-demo/data/`` and runs ``prcurve
report`` on them with every output (docs/cli.md).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from prcurve.cli.common import guard
from prcurve.cli.report import add_output_options, check_output_options, execute, prepare_out

__all__ = ["DEMO_FOLDER", "register", "run_demo"]

DEMO_FOLDER = "prcurve-demo"
"""Where ``prcurve demo`` writes, relative to the current folder."""


def register(subparsers: Any) -> None:
    """Add the ``demo`` subcommand to an argparse subparsers object."""
    demo = subparsers.add_parser(
        "demo",
        help="run the whole report on simulated data shipped with prcurve",
        description=(
            "Write two simulated test sets scored by a strong and a weak model (the "
            "Precision And Recall tutorial's simulation and a much more skewed variant) and "
            "the full report on them to "
            f"./{DEMO_FOLDER}/, then print what was written."
        ),
    )
    demo.add_argument("--out", default=DEMO_FOLDER, metavar="DIR",
                      help=f"where to write (default ./{DEMO_FOLDER})")
    add_output_options(demo)
    demo.set_defaults(handler=run_demo)


def _remove_new(folders: list[Path], paths: list[Path]) -> None:
    """Remove the data files and the folders (innermost first) of a run that created its
    output folder: only those, and only the folders left empty."""
    for path in paths:
        path.unlink(missing_ok=True)
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty: the report wrote into it, or someone else did
            return


def run_demo(args: argparse.Namespace) -> int:
    """The ``demo`` handler: simulated data to ./prcurve-demo/ and the full report on it."""

    def demo() -> int:
        from prcurve.io import load_scores
        from prcurve.io.demo import write_demo_data
        from prcurve.present.files import check_names_free
        from prcurve.present.report import OUTPUT_PATTERNS

        check_output_options(args)  # a bad option: nothing written, nothing printed
        out = prepare_out(args.out)
        # The report's names checked before the data is written (a folder in the way).
        check_names_free(out, OUTPUT_PATTERNS if not args.no_plots else (
            "curve_*.csv", "report.json"))
        # The folders this run creates, innermost first (out and any missing parents).
        created = [f for f in (out, *out.parents) if not (f.exists() or f.is_symlink())]
        paths = write_demo_data(out / "data")
        try:
            # The columns are found as `prcurve report` finds them (the report says so).
            loaded = [load_scores(p) for p in paths]
            if args.format == "text":
                print(f"prcurve demo: simulated data written to {out / 'data'}{os.sep} "
                      "(the Precision And Recall tutorial's simulation and a more skewed "
                      "variant); the report follows.\n")
            args.inputs = [str(p) for p in paths]
            return execute(args, loaded, listing=True)
        except BaseException:
            if created:  # a failed run leaves no --out: the data it wrote is removed
                _remove_new([out / "data", *created], paths)
            raise

    return guard(demo)

"""The ``prcurve demo`` command: simulated data and the full report on it.

It writes two simulated test sets scored by a strong and a weak model
(:mod:`prcurve.io.demo`) to ``./prcurve-demo/data/`` and runs ``prcurve
report`` on them with every output (docs/cli.md).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from prcurve.cli.common import guard
from prcurve.cli.report import add_output_options, execute, prepare_out

__all__ = ["DEMO_FOLDER", "register", "run_demo"]

DEMO_FOLDER = "prcurve-demo"
"""Where ``prcurve demo`` writes, relative to the current folder."""


def register(subparsers: Any) -> None:
    """Add the ``demo`` subcommand to an argparse subparsers object."""
    demo = subparsers.add_parser(
        "demo",
        help="run the whole report on simulated data shipped with prcurve",
        description=(
            "Write two simulated test sets scored by a strong and a weak model (seed 000's "
            "simulation and a much more skewed variant) and the full report on them to "
            f"./{DEMO_FOLDER}/, then print what was written."
        ),
    )
    demo.add_argument("--out", default=DEMO_FOLDER, metavar="DIR",
                      help=f"where to write (default ./{DEMO_FOLDER})")
    add_output_options(demo)
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    """The ``demo`` handler: simulated data to ./prcurve-demo/ and the full report on it."""

    def demo() -> int:
        from prcurve.io import load_scores
        from prcurve.io.demo import write_demo_data

        out = prepare_out(args.out)
        paths = write_demo_data(out / "data")
        if args.format == "text":
            print(f"prcurve demo: simulated data written to {out / 'data'}{os.sep} "
                  "(seed 000's simulation and a more skewed variant); the report follows.\n")
        args.inputs = [str(p) for p in paths]
        loaded = [load_scores(p, label="label", scores=("strong", "weak")) for p in paths]
        return execute(args, loaded, listing=True)

    return guard(demo)

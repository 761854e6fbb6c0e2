"""``python -m prcurve``: the command line (:mod:`prcurve.cli`)."""

from __future__ import annotations

from prcurve.cli import run

if __name__ == "__main__":
    run()

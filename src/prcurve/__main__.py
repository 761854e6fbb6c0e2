"""``python -m prcurve``: the command line (:mod:`prcurve.cli`)."""

from __future__ import annotations

import sys

from prcurve.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""The ``prcurve`` command line, one module per subcommand.

:func:`main` (in :mod:`prcurve.cli.main`) parses the arguments and runs the
subcommand: ``trec`` (:mod:`prcurve.cli.trec`), ``report``
(:mod:`prcurve.cli.report`) and ``demo`` (:mod:`prcurve.cli.demo`);
:mod:`prcurve.cli.common` holds what they share. :func:`run` is the program
itself (the console script and ``python -m prcurve``). Usage: docs/cli.md.
"""

from prcurve.cli.main import main, run

__all__ = ["main", "run"]

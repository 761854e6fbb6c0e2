"""``prcurve trec QRELS RUN RUN [RUN ...] --compare``: which system is better, and is it real.

The runs are compared query by query (:func:`prcurve.ranking.compare.compare_runs`)
and printed as IR papers print them: each system's mean per measure, letters for
the systems it is significantly better than, and a legend (docs/cli.md). A RUN
argument ``NAME=PATH[,PATH...]`` names a system and may give several runs of it
(seeds, folds), compared on their mean per query.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from prcurve.cli.common import UsageError, say
from prcurve.errors import InvalidInputError
from prcurve.ranking.measures import Measure
from prcurve.ranking.tables import read_qrels, read_run
from prcurve.ranking.trec_reader import prepare_job

__all__ = ["add_arguments", "run_compare"]

FORMATS = ("text", "markdown", "latex", "csv", "json")
DEFAULT_MEASURES = ("AP", "ndcg", "P@10")


def add_arguments(parser: Any) -> None:
    """The ``--compare`` options of ``prcurve trec``."""
    group = parser.add_argument_group(
        "comparing systems (--compare; see docs/ranking.md, 'Comparing systems')")
    group.add_argument(
        "--compare", action="store_true",
        help="compare two or more runs query by query with paired significance tests; a RUN "
        "may be NAME=PATH[,PATH...] (several runs of one system: mean per query)",
    )
    group.add_argument("--baseline", default=None, metavar="NAME",
                       help="compare each system with this one (default: all pairs)")
    group.add_argument(
        "--test", default="t",
        choices=("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"),
        help="paired test (default t); tukey: randomized Tukey HSD over all pairs",
    )
    group.add_argument("--correction", default="holm", choices=("none", "bonferroni", "holm", "bh"),
                       help="multiple-testing correction per measure (default holm)")
    group.add_argument("--permutations", type=int, default=10000, metavar="B",
                       help="sign patterns, resamples or Tukey trials (default 10000)")
    group.add_argument("--seed", type=int, default=None, help="seed of the resampling tests")
    group.add_argument("--alpha", type=float, default=0.05,
                       help="significance level (default 0.05)")
    group.add_argument("--same-queries", action="store_true",
                       help="refuse runs that answer different judged queries "
                       "(default: score missing queries 0, as trec_eval -c)")
    group.add_argument("--format", default="text", choices=FORMATS,
                       help="output: text (default), markdown, latex, csv or json")


def _measures(texts: list[str]) -> list[str]:
    """prcurve's names, or trec_eval's ``name.a,b`` written as ``name@a``, ``name@b``."""
    out: list[str] = []
    for text in texts or DEFAULT_MEASURES:
        try:
            Measure.parse(text)
            out.append(text)
        except InvalidInputError:
            base, dot, params = text.partition(".")
            if not dot:
                raise
            expanded = [f"{base}@{p}" for p in params.split(",")]
            try:
                for name in expanded:
                    Measure.parse(name)
            except InvalidInputError:
                raise UsageError(f"--measure {text!r}: not a measure --compare reads; use "
                                 "prcurve's names such as AP, P@10, ndcg_cut@10") from None
            out.extend(expanded)
    return out


def _named(argument: str) -> tuple[str, list[str] | None]:
    """A RUN argument's system name and its paths (None: one run, the argument itself)."""
    name, equals, paths = argument.partition("=")
    if equals and not os.path.exists(argument):
        return name, paths.split(",")
    return os.path.basename(argument) or argument, None


def _systems(arguments: list[str]) -> dict[str, Any]:
    systems: dict[str, Any] = {}
    for argument in arguments:
        name, paths = _named(argument)
        members: Any = read_run(argument) if paths is None else [read_run(p) for p in paths]
        if name in systems:
            name = argument
        if name in systems:
            raise UsageError(f"run {argument!r} given twice")
        systems[name] = members
    return systems


def run_compare(args: argparse.Namespace) -> str:
    """The comparison of ``args.run`` against ``args.qrels``, formatted."""
    if len(args.run) < 2:
        raise UsageError("--compare needs at least two runs (RUN RUN [RUN ...])")
    # Imported here: `prcurve trec` without --compare registers these options only, and
    # the paired tests' modules cost about 0.2x `import numpy` (issue 26).
    from prcurve.ranking.compare import compare_runs

    # pyarrow's reader for every file where the job loads pyarrow anyway (issue 26).
    prepare_job([(args.qrels, "qrels"), *((path, "run") for argument in args.run
                                          for path in (_named(argument)[1] or [argument]))])
    qrels = read_qrels(args.qrels)
    systems = _systems(args.run)
    result = compare_runs(
        qrels, systems, _measures(args.measure), baseline=args.baseline, test=args.test,
        correction=args.correction, permutations=args.permutations, seed=args.seed,
        alpha=args.alpha, missing_queries="refuse" if args.same_queries else "zero",
        relevance_level=args.level,
    )
    lacking = {name: ids for name, ids in result.missing.items() if ids}
    if lacking and args.format in ("csv", "json"):
        say("judged queries a run does not answer are scored 0 (trec_eval -c): "
            + "; ".join(f"{name} {len(ids)}" for name, ids in lacking.items()))
    if args.format == "csv":
        return result.to_table().to_csv()
    if args.format == "json":
        import json

        return json.dumps(result.to_dict(), indent=2) + "\n"
    if args.format == "markdown":
        return result.to_markdown()
    if args.format == "latex":
        return result.to_latex()
    return result.to_text()


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()

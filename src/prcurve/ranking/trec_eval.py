"""trec_eval's measures, names and output format.

:func:`format_trec_eval` evaluates with trec_eval's measure names (``map``,
``P.5,10``, ``iprec_at_recall``, ...) and prints trec_eval's output byte for
byte: ``%-22s\\t%s\\t%6.4f`` per value, integers for the counts, measures in
trec_eval's own order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from prcurve.ranking.evaluation import RankingEvaluation, evaluate
from prcurve.ranking.kernels import mean_over_levels
from prcurve.ranking.measures import Measure
from prcurve.ranking.tables import Qrels, Run
from prcurve.validation.arrays import check_choice, check_positive_number
from prcurve.validation.ranking import (
    bad_measure_parameter,
    check_cutoff,
    check_level_fraction,
    unknown_trec_measure,
    unsupported_trec_measure,
)

__all__ = [
    "TREC_MEASURES",
    "TrecEvalOptions",
    "format_trec_eval",
    "measures_help",
]


_DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


_DEFAULT_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class _TrecMeasure:
    """One trec_eval measure: how it is named, printed and mapped to prcurve's measures.

    kind: "runid", "num_q", "count" (printed as an integer), "value" (%6.4f),
    "cut_k" (one value per integer cutoff), "cut_r" (per recall level),
    "mean_r" (one value over recall levels) or "param_x" (one value, one number).
    """

    name: str
    kind: str
    measure: str | None  # the prcurve measure name
    default: tuple[float, ...] = ()
    per_query: bool = True


# In trec_eval's order (measures.c, te_trec_measures): output follows this order.
TREC_MEASURES: tuple[_TrecMeasure, ...] = (
    _TrecMeasure("runid", "runid", None, per_query=False),
    _TrecMeasure("num_q", "num_q", None, per_query=False),
    _TrecMeasure("num_ret", "count", "num_ret"),
    _TrecMeasure("num_rel", "count", "num_rel"),
    _TrecMeasure("num_rel_ret", "count", "num_rel_ret"),
    _TrecMeasure("map", "value", "AP"),
    _TrecMeasure("gm_map", "value", "gm_AP", per_query=False),
    _TrecMeasure("Rprec", "value", "R-prec"),
    _TrecMeasure("bpref", "value", "bpref"),
    _TrecMeasure("recip_rank", "value", "RR"),
    _TrecMeasure("iprec_at_recall", "cut_r", "iprec", _DEFAULT_LEVELS),
    _TrecMeasure("P", "cut_k", "P", _DEFAULT_CUTOFFS),
    _TrecMeasure("recall", "cut_k", "R", _DEFAULT_CUTOFFS),
    _TrecMeasure("11pt_avg", "mean_r", "iprec", _DEFAULT_LEVELS),
    _TrecMeasure("map_cut", "cut_k", "AP", _DEFAULT_CUTOFFS),
    _TrecMeasure("set_P", "value", "set_P"),
    _TrecMeasure("set_recall", "value", "set_R"),
    _TrecMeasure("set_F", "param_x", "set_F", (1.0,)),
)


_BY_NAME = {m.name: m for m in TREC_MEASURES}


# trec_eval's nicknames (measures.c), restricted to the measures above.
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref", "recip_rank", "iprec_at_recall", "P")


_ALL_TREC = (*_OFFICIAL, "recall", "11pt_avg", "map_cut", "set_P", "set_recall", "set_F")


_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_F")


_NICKNAMES = {"official": _OFFICIAL, "all_trec": _ALL_TREC, "set": _SET}


# trec_eval measures that exist but prcurve does not compute (named in the error).
_UNSUPPORTED = ("relstring", "infAP", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg",
                "ndcg_rel", "Rndcg", "ndcg_cut", "relative_P", "success", "set_relative_P",
                "set_map", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj", "yaap", "ndcg_p",
                "dcg", "ideal_dcg")


TrecEvalVersion = Literal[9, 10]


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's command-line options that prcurve supports.

    ``measures`` are trec_eval's ``-m`` arguments (``"official"`` when
    empty); ``per_query`` is ``-q``, ``complete`` ``-c``, ``relevance_level``
    ``-l`` and ``depth`` ``-M``. ``version`` 10 (default) or 9 picks the
    recall-level cutoff of iprec_at_recall and 11pt_avg, float64 or float32
    scores, and whether ``-c -q`` prints queries missing from the run (10 does).
    """

    measures: tuple[str, ...] = ()
    per_query: bool = False
    complete: bool = False
    relevance_level: int = 1
    depth: int | None = None
    version: TrecEvalVersion = 10


def _parse_params(name: str, kind: str, text: str) -> tuple[float, ...]:
    """trec_eval's -m NAME.PARAMS parameters: comma separated; cutoffs sorted and unique."""
    argument = f"{name}.{text}"
    items = text.split(",")
    try:
        if kind == "cut_k":
            values: list[float] = [int(item) for item in items]
        else:
            values = [float(item) for item in items]
    except ValueError:
        raise bad_measure_parameter(
            argument, "cannot read the parameters",
            "write comma-separated numbers, e.g. P.5,10 or iprec_at_recall.0.2,0.5",
        ) from None
    if kind == "cut_k":
        for value in values:
            check_cutoff("measures", value)
    if kind in ("cut_r", "mean_r"):
        for value in values:
            check_level_fraction("measures", value)
    if kind == "param_x":
        if len(values) != 1:
            raise bad_measure_parameter(argument, "expected one number",
                                                    "write e.g. set_F.0.5")
        check_positive_number("measures", values[0])
        return (values[0],)
    if kind in ("cut_k", "cut_r", "mean_r"):
        ordered = sorted(values)
        if len(set(ordered)) != len(ordered):
            raise bad_measure_parameter(argument, "duplicate cutoffs",
                                                    "list each cutoff once")
        return tuple(ordered)
    raise bad_measure_parameter(
        argument, f"{name} takes no parameters", f"write -m {name}"
    )


def _selected(measure_args: Sequence[str]) -> dict[str, tuple[tuple[float, ...], str | None]]:
    """trec_eval name -> (parameters, parameter text as typed or None), in trec_eval's order."""
    marked: set[str] = set()
    params: dict[str, tuple[tuple[float, ...], str]] = {}
    for arg in measure_args or ("official",):
        name, dot, text = arg.partition(".")
        if name in _NICKNAMES:
            marked.update(_NICKNAMES[name])
        elif name in _BY_NAME:
            marked.add(name)
        elif name in _UNSUPPORTED:
            raise unsupported_trec_measure(arg, [m.name for m in TREC_MEASURES])
        else:
            raise unknown_trec_measure(arg, [m.name for m in TREC_MEASURES])
        if dot:
            if name not in _BY_NAME:
                raise bad_measure_parameter(arg, f"{name} takes no parameters",
                                                        f"write -m {name}")
            if name not in params:  # trec_eval uses the first -m that gives parameters
                params[name] = (_parse_params(name, _BY_NAME[name].kind, text), text)
    out: dict[str, tuple[tuple[float, ...], str | None]] = {}
    for m in TREC_MEASURES:
        if m.name in marked:
            given = params.get(m.name)
            out[m.name] = (given[0], given[1]) if given else (m.default, None)
    return out


def _outputs(
    m: _TrecMeasure, params: tuple[float, ...], text: str | None
) -> list[tuple[str, list[Measure]]]:
    """The output names of one trec_eval measure and the prcurve measures behind each."""
    if m.kind in ("runid", "num_q"):
        return [(m.name, [])]
    if m.measure is None:  # unreachable: only runid and num_q have none
        raise TypeError(m.name)
    if m.kind == "cut_k":
        return [(f"{m.name}_{int(k)}", [Measure(m.measure, int(k))]) for k in params]
    if m.kind == "cut_r":
        return [(f"{m.name}_{r:3.2f}", [Measure(m.measure, r)]) for r in params]
    if m.kind == "mean_r":
        name = m.name if text is None else f"{m.name}_{text}"
        return [(name, [Measure(m.measure, r) for r in params])]
    if m.kind == "param_x":
        name = m.name if text is None else f"{m.name}_{text}"
        x = params[0]
        return [(name, [Measure(m.measure) if x == 1.0 else Measure(m.measure, x)])]
    return [(m.name, [Measure(m.measure)])]


@dataclass(frozen=True)
class _Line:
    name: str
    kind: str
    per_query: bool
    measures: tuple[Measure, ...]


def _plan(options: TrecEvalOptions) -> list[_Line]:
    plan = []
    for name, (params, text) in _selected(options.measures).items():
        m = _BY_NAME[name]
        for output, measures in _outputs(m, params, text):
            plan.append(_Line(output, m.kind, m.per_query, tuple(measures)))
    return plan


def _trec_evaluate(
    qrels: Any, run: Any, options: TrecEvalOptions
) -> tuple[RankingEvaluation, list[_Line], Run, Qrels]:
    """Evaluate as trec_eval would with ``options``, and the plan of lines to print."""
    version = check_choice("version", options.version, (9, 10))
    plan = _plan(options)
    measures = dict.fromkeys(m for line in plan for m in line.measures)
    if not measures:
        measures = dict.fromkeys([Measure("num_ret")])
    run_table = Run.coerce(run)
    qrels_table = Qrels.coerce(qrels)
    result = evaluate(
        qrels_table, run_table, list(measures),
        relevance_level=options.relevance_level,
        depth=options.depth,
        queries_without_results="zero" if options.complete else "skip",
        convention="trec_eval_9" if version == 9 else "trec_eval_10",
        score_precision="float32" if version == 9 else "float64",
    )
    return result, plan, run_table, qrels_table


def format_trec_eval(
    qrels: Any,
    run: Any,
    options: TrecEvalOptions | None = None,
) -> str:
    """trec_eval's output for these judgments, run and options, byte for byte.

    Parameters
    ----------
    qrels, run
        As for :func:`prcurve.ranking.evaluate` (paths to TREC files included).
    options : TrecEvalOptions, optional
        trec_eval's command-line options; default ``trec_eval qrels run``.

    Returns
    -------
    str
        Lines ``measure<TAB>query<TAB>value``, per query (``-q``) then ``all``.

    Examples
    --------
    >>> from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
    >>> qrels = {"1": {"a": 1, "b": 0}}
    >>> run = {"1": {"a": 0.5, "b": 0.9}}
    >>> print(format_trec_eval(qrels, run, TrecEvalOptions(measures=("map", "P.1"))), end="")
    map                   	all	0.5000
    P_1                   	all	0.0000
    """
    options = options or TrecEvalOptions()
    result, plan, run_table, qrels_table = _trec_evaluate(qrels, run, options)
    lines: list[str] = []
    if options.per_query:
        printed = result.has_results if options.version == 9 else np.ones_like(result.has_results)
        for i in np.flatnonzero(printed).tolist():
            query = _text(result.query_ids[i])
            for line in plan:
                if line.per_query:
                    lines.append(_format(line, query, _per_query(line, result, i)))
    for line in plan:
        if line.kind == "runid":
            lines.append(f"{'runid':<22}\tall\t{run_table.run_id or ''}")
        elif line.kind == "num_q":
            lines.append(_format(line, "all", float(result.n_queries)))
        else:
            lines.append(_format(line, "all", _summary(line, result, options, qrels_table)))
    return "".join(f"{text}\n" for text in lines)


def _text(value: Any) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _per_query(line: _Line, result: RankingEvaluation, i: int) -> float:
    if line.kind == "mean_r":
        columns = [result.per_query[str(m)][i:i + 1] for m in line.measures]
        return float(mean_over_levels(columns)[0])
    return float(result.per_query[str(line.measures[0])][i])


def _summary(
    line: _Line, result: RankingEvaluation, options: TrecEvalOptions, qrels: Qrels
) -> float:

    if line.kind == "mean_r":
        columns = [result.per_query[str(m)] for m in line.measures]
        values = mean_over_levels(columns)
        return float(np.cumsum(values)[-1]) / result.n_queries
    name = str(line.measures[0])
    if name == "num_rel" and options.complete:
        # trec_eval -c counts every judgment with grade > 0, whatever -l says (m_num_rel.c).
        return float(np.count_nonzero(qrels.relevance > 0))
    return result.summary[name]


def _format(line: _Line, query: str, value: float) -> str:
    if line.kind in ("count", "num_q"):
        return f"{line.name:<22}\t{query}\t{int(value)}"
    return f"{line.name:<22}\t{query}\t{value:6.4f}"


def measures_help() -> str:
    """The trec_eval measure names ``prcurve trec`` accepts, for the CLI's help."""
    names = ", ".join(m.name for m in TREC_MEASURES)
    return f"{names}; nicknames: {', '.join(_NICKNAMES)}"

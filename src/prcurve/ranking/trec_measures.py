"""trec_eval's measures as it names them: the measure table in its output order,
the nicknames (``official``, ``all_trec``, ``set``, ``all_prefs``, ``prefs``,
``qrels_jg``), which relevance format (``-R``) each measure needs, parameters read as
trec_eval reads them (``atol``/``atof``), its options (:class:`TrecEvalOptions`)
and the plan of output columns they give. :mod:`prcurve.ranking.trec_eval`
evaluates the plan and prints it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from prcurve.ranking.measures import Measure, with_params
from prcurve.validation.arrays import check_choice
from prcurve.validation.ranking import (
    bad_measure_parameter,
    bad_trec_option,
    check_flag,
    check_level_fraction,
    check_rel_format,
    measure_needs_format,
    trec_measure_not_in_version,
    unknown_trec_measure,
)

__all__ = [
    "BY_NAME",
    "MISSING_ZSCORE",
    "NICKNAMES",
    "PREFS_MEASURES",
    "TREC_MEASURES",
    "Column",
    "TrecEvalOptions",
    "TrecEvalVersion",
    "TrecMeasure",
    "check_options",
    "measures_help",
    "output_plan",
]


# The preference measures, in trec_eval's order (measures.c): the all_prefs nickname;
# computed by prcurve.ranking.prefs (imported only for -R prefs or qrels_prefs).
PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)


_DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


_DEFAULT_LEVELS = tuple(i / 10 for i in range(11))


class TrecMeasure:  # a class, not a dataclass or NamedTuple: cheaper to make (issue 26)
    """One trec_eval measure: how it is named, parsed, printed and summarised.

    kind (how its parameters are read and its values named, as trec_eval's
    init procedure): "runid", "num_q", "long" (a count, printed as an
    integer), "double", "cut_long" (one value per integer cutoff),
    "cut_double" (per number), "mean_r" (11pt_avg: one value over levels),
    "p_double" (one value, numeric parameters), "p_pair" (one value,
    name=value parameters). summary: "mean", "sum", "gm" (geometric),
    "none" (relstring), or the special "runid", "num_q", "num_rel".
    rel_format: the relevance input it is computed from ("qrels"; "prefs" for
    -R prefs or qrels_prefs; "qrels_jg"; None for runid and num_q, any). The
    prefs_* measures have no prcurve measure (``measure`` None): they are
    computed by :mod:`prcurve.ranking.prefs`, by name.
    """

    __slots__ = ("default", "kind", "measure", "name", "per_query", "rel_format", "since",
                 "summary")

    def __init__(self, name: str, kind: str, measure: str | None,
                 default: tuple[float, ...] = (), per_query: bool = True,
                 summary: str = "mean", since: int = 9, rel_format: str | None = "qrels",
                 ) -> None:
        self.name, self.kind = name, kind
        self.measure = measure  # the prcurve measure name
        self.default, self.per_query, self.summary = default, per_query, summary
        self.since = since  # the first trec_eval version (9 or 10) that has it
        # The relevance input it needs (-R): "qrels", "prefs" (prefs or qrels_prefs),
        # "qrels_jg"; None: any (runid, num_q).
        self.rel_format = rel_format


# In trec_eval's order (measures.c, te_trec_measures): output follows this order.
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "runid", None, per_query=False, summary="runid", rel_format=None),
    TrecMeasure("num_q", "num_q", None, per_query=False, summary="num_q", rel_format=None),
    TrecMeasure("num_ret", "long", "num_ret", summary="sum"),
    TrecMeasure("num_rel", "long", "num_rel", summary="num_rel"),
    TrecMeasure("num_rel_ret", "long", "num_rel_ret", summary="sum"),
    TrecMeasure("map", "double", "AP"),
    TrecMeasure("gm_map", "double", "gm_AP", per_query=False, summary="gm"),
    TrecMeasure("Rprec", "double", "R-prec"),
    TrecMeasure("bpref", "double", "bpref"),
    TrecMeasure("recip_rank", "double", "RR"),
    TrecMeasure("iprec_at_recall", "cut_double", "iprec", _DEFAULT_LEVELS),
    TrecMeasure("P", "cut_long", "P", _DEFAULT_CUTOFFS),
    TrecMeasure("relstring", "p_double", "relstring", (10.0,), summary="none"),
    TrecMeasure("recall", "cut_long", "R", _DEFAULT_CUTOFFS),
    TrecMeasure("infAP", "double", "infAP"),
    TrecMeasure("gm_bpref", "double", "gm_bpref", per_query=False, summary="gm"),
    TrecMeasure("Rprec_mult", "cut_double", "Rprec_mult",
                 (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    TrecMeasure("utility", "p_double", "utility", (1.0, -1.0, 0.0, 0.0)),
    TrecMeasure("11pt_avg", "mean_r", "iprec", _DEFAULT_LEVELS),
    TrecMeasure("binG", "double", "binG"),
    TrecMeasure("G", "p_pair", "G"),
    TrecMeasure("dcg", "p_pair", "dcg", since=10),
    TrecMeasure("ideal_dcg", "p_pair", "ideal_dcg", since=10),
    TrecMeasure("ndcg", "p_pair", "ndcg"),
    TrecMeasure("ndcg_rel", "p_pair", "ndcg_rel"),
    TrecMeasure("Rndcg", "p_pair", "Rndcg"),
    TrecMeasure("ndcg_cut", "cut_long", "ndcg_cut", _DEFAULT_CUTOFFS),
    TrecMeasure("map_cut", "cut_long", "AP", _DEFAULT_CUTOFFS),
    TrecMeasure("relative_P", "cut_long", "relative_P", _DEFAULT_CUTOFFS),
    TrecMeasure("success", "cut_long", "success", (1, 5, 10)),
    TrecMeasure("set_P", "double", "set_P"),
    TrecMeasure("set_relative_P", "double", "set_relative_P"),
    TrecMeasure("set_recall", "double", "set_R"),
    TrecMeasure("set_map", "double", "set_map"),
    TrecMeasure("set_F", "p_double", "set_F", (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", "long", "num_nonrel_judged_ret", summary="sum"),
    *(TrecMeasure(name, "long", None, summary="sum", rel_format="prefs")
      for name in PREFS_MEASURES[:3]),
    *(TrecMeasure(name, "double", None, rel_format="prefs") for name in PREFS_MEASURES[3:]),
    TrecMeasure("map_avgjg", "double", "AP", rel_format="qrels_jg"),
    TrecMeasure("P_avgjg", "cut_long", "P", _DEFAULT_CUTOFFS, rel_format="qrels_jg"),
    TrecMeasure("Rprec_mult_avgjg", "cut_double", "Rprec_mult",
                 (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), rel_format="qrels_jg"),
    TrecMeasure("yaap", "double", "yaap"),
    TrecMeasure("rbp", "p_pair", "rbp", since=10),
    TrecMeasure("rbp_resid", "p_pair", "rbp_resid", since=10),
    TrecMeasure("unj", "cut_long", "unj", (5, 10, 20), since=10),
)


BY_NAME = {m.name: m for m in TREC_MEASURES}


# trec_eval's nicknames (measures.c), per version.
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref", "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = (*_OFFICIAL, "relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg",
               "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
               "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
               "set_map", "set_F", "num_nonrel_judged_ret")
_ALL_TREC_10 = (*_ALL_TREC_9, "unj", "rbp", "rbp_resid")
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F")
# The preference and judgment-group nicknames (measures.c: prefs_names,
# prefs_off_name, qrels_jg_names).
_OTHER_FORMATS = {
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES),
    "prefs": ("runid", "num_q", *PREFS_MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

NICKNAMES = {
    10: {"official": _OFFICIAL, "all_trec": _ALL_TREC_10, "set": _SET, **_OTHER_FORMATS},
    9: {"official": _OFFICIAL, "all_trec": _ALL_TREC_9, "set": _SET, **_OTHER_FORMATS},
}

# -R values and the measures' rel_format each one serves.
_FORMAT_FAMILY = {"qrels": "qrels", "prefs": "prefs", "qrels_prefs": "prefs",
                  "qrels_jg": "qrels_jg"}
_FAMILY_FORMATS = {"qrels": ("qrels",), "prefs": ("prefs", "qrels_prefs"),
                   "qrels_jg": ("qrels_jg",)}


TrecEvalVersion = Literal[9, 10]

MISSING_ZSCORE = -1000000.0  # trec_eval.h MISSING_ZSCORE_VALUE


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's command-line options.

    ``measures`` are trec_eval's ``-m`` arguments (``"official"`` when
    empty); ``per_query`` is ``-q``, ``summary`` the opposite of ``-n``,
    ``complete`` ``-c``, ``relevance_level`` ``-l``, ``depth`` ``-M``,
    ``judged_only`` ``-J``, ``collection_size`` ``-N`` (used by utility),
    ``zscores`` ``-Z`` (a file of ``query measure mean stddev`` lines, or a
    mapping ``{(query, measure): (mean, stddev)}``), ``rel_format`` ``-R``
    (``qrels``; ``prefs`` or ``qrels_prefs`` for the ``prefs_*`` measures,
    ``qrels_jg`` for the ``*_avgjg`` ones) and ``results_format`` ``-T``
    (``trec_results``). ``version`` 10 (default) or 9 picks the recall-level
    cutoff of iprec_at_recall and 11pt_avg, float64 or float32 scores, the
    measures that exist (9 has no rbp, rbp_resid, unj, dcg, ideal_dcg) and
    whether ``-c -q`` prints queries missing from the run (10 does).
    """

    measures: tuple[str, ...] = ()
    per_query: bool = False
    complete: bool = False
    relevance_level: int = 1
    depth: int | None = None
    version: TrecEvalVersion = 10
    summary: bool = True
    judged_only: bool = False
    collection_size: int = 0
    zscores: str | os.PathLike[str] | Mapping[tuple[str, str], tuple[float, float]] | None = (
        field(default=None))
    rel_format: str = "qrels"
    results_format: str = "trec_results"


# -- measure parameters, read as trec_eval reads them ----------------------------------

# Patterns, compiled (and cached by re) when a parameter is first read: most runs give
# none, and compiling them costs start-up time (issue 26).
_LONG = rb"[ \t\n\v\f\r]*[+-]?[0-9]*"
_DOUBLE = (r"(?i)[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
           r"|inf(?:inity)?|nan)")


def _atol(text: str) -> int:
    """C's atol: the longest integer prefix, 0 without one."""
    digits = re.match(_LONG, text.encode()).group().strip()  # type: ignore[union-attr]
    return int(digits) if digits.strip(b"+-") else 0


def _atof(text: str) -> float:
    """C's atof (strtod): the longest number prefix, 0.0 without one."""
    found = re.match(_DOUBLE, text)
    return float(found.group().strip()) if found else 0.0


def _truncated_double_name(name: str, value: float) -> str:
    """append_double: snprintf of "%s_%3.2f" into strlen(name) + 10 bytes."""
    return f"{name}_{value:3.2f}"[: len(name) + 9]


class Column:
    """One output name and how its per-query value is made from prcurve measures
    (``measures``: 11pt_avg has one per level, averaged)."""

    __slots__ = ("measures", "name", "spec")

    def __init__(self, name: str, measures: tuple[Measure, ...], spec: TrecMeasure) -> None:
        self.name, self.measures, self.spec = name, measures, spec


def _columns(spec: TrecMeasure, text: str | None, options: TrecEvalOptions) -> list[Column]:
    """The output columns of one trec_eval measure with its parameter text (None:
    the defaults), as its init procedure names them."""
    argument = spec.name if text is None else f"{spec.name}.{text}"
    kind, base = spec.kind, spec.measure
    if kind in ("runid", "num_q"):
        return [Column(spec.name, (), spec)]
    if kind in ("long", "double"):
        if text is not None:
            raise bad_measure_parameter(argument, f"{spec.name} takes no parameters",
                                        f"write -m {spec.name}")
        # The preference measures are computed by prcurve.ranking.prefs, by name.
        return [Column(spec.name, () if base is None else (Measure(base),), spec)]
    if base is None:  # unreachable: only runid, num_q and prefs_* have no measure
        raise TypeError(spec.name)
    if kind == "cut_long":
        cutoffs = [int(v) for v in spec.default] if text is None else sorted(
            _atol(item) for item in text.split(","))
        _check_cutoffs(argument, cutoffs, positive=True)
        return [Column(f"{spec.name}_{k}", (Measure(base, k),), spec) for k in cutoffs]
    if kind == "cut_double":
        levels = list(spec.default) if text is None else sorted(
            _atof(item) for item in text.split(","))
        _check_cutoffs(argument, levels, positive=False)
        if base == "iprec":
            levels = [check_level_fraction("measures", v) for v in levels]
        return [Column(_truncated_double_name(spec.name, x), (with_params(base, x),), spec)
                for x in levels]
    if kind == "mean_r":
        levels = list(spec.default) if text is None else sorted(
            _atof(item) for item in text.split(","))
        _check_cutoffs(argument, levels, positive=False)
        name = spec.name if text is None else f"{spec.name}_{text}"
        return [Column(name, tuple(Measure(base, check_level_fraction("measures", r))
                                    for r in levels), spec)]
    name = spec.name if text is None else f"{spec.name}_{text}"
    if kind == "p_double":
        values = list(spec.default) if text is None else [_atof(v) for v in text.split(",")]
        return [Column(name, (_p_double_measure(spec, values, argument, options),), spec)]
    params = _pairs(spec, text, argument)
    return [Column(name, (with_params(base, **params),), spec)]


def _check_cutoffs(argument: str, values: Sequence[float], positive: bool) -> None:
    if positive and values[0] <= 0:
        raise bad_measure_parameter(argument, "a cutoff is not a positive integer",
                                    "write positive cutoffs, e.g. P.5,10")
    if len(set(values)) != len(values):
        raise bad_measure_parameter(argument, "duplicate cutoffs", "list each cutoff once")


def _p_double_measure(
    spec: TrecMeasure, values: list[float], argument: str, options: TrecEvalOptions
) -> Measure:
    if spec.name == "set_F":
        if len(values) != 1:
            raise bad_measure_parameter(argument, "expected one number", "write e.g. set_F.0.5")
        return Measure("set_F") if values[0] == 1.0 else with_params("set_F", values[0])
    if spec.name == "relstring":
        return Measure("relstring", max(int(values[0]), 0))  # (long) params[0], at least 0
    if len(values) != 4:  # utility
        raise bad_measure_parameter(argument, f"expected 4 coefficients, found {len(values)}",
                                    "write utility.p1,p2,p3,p4, e.g. utility.1,-1,0,0")
    return with_params("utility", rel_ret=values[0], nonrel_ret=values[1],
                       rel_unret=values[2], nonrel_unret=values[3],
                       collection_size=options.collection_size)


_INTEGER = r"[+-]?[0-9]+"


def _pairs(spec: TrecMeasure, text: str | None, argument: str) -> dict[str, Any]:
    """name=value parameters (get_param_pairs): integer names are grades and give
    their gain (setup_gains); rbp and rbp_resid take p, the persistence."""
    if text is None:
        return {}
    gains: dict[int, float] = {}
    out: dict[str, Any] = {}
    for item in text.split(","):
        key, equals, value = item.partition("=")
        if not equals:
            raise bad_measure_parameter(argument, f"{item!r} is not name=value",
                                        "write e.g. ndcg.1=3,2=9 or rbp.p=0.8")
        if key == "p" and spec.name in ("rbp", "rbp_resid"):
            out["p"] = _atof(value)
        elif re.fullmatch(_INTEGER, key) and spec.name != "rbp_resid":
            if int(key) in gains:
                raise bad_measure_parameter(argument, f"grade {key} is given twice",
                                            "give each grade one gain")
            gains[int(key)] = _atof(value)
        else:
            what = "p=persistence" if spec.name == "rbp_resid" else (
                "grade=gain pairs" + (" and p=persistence" if spec.name == "rbp" else ""))
            raise bad_measure_parameter(argument, f"{spec.name} has no parameter {key!r}",
                                        f"{spec.name} takes {what}")
    if gains:
        out["gains"] = gains
    return out


def selected(
    measure_args: Sequence[str], version: int, rel_format: str = "qrels"
) -> dict[str, str | None]:
    """trec_eval name -> parameter text as typed (None: defaults), in trec_eval's order.
    Every measure must suit the relevance format (trec_eval stops with "Can't
    calculate measure" otherwise)."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    nicknames = NICKNAMES[version]
    known = [m.name for m in TREC_MEASURES if m.since <= version]
    for arg in measure_args or ("official",):
        name, dot, text = arg.partition(".")
        if name in nicknames:
            marked.update(nicknames[name])
        elif name in BY_NAME:
            if BY_NAME[name].since > version:
                raise trec_measure_not_in_version(arg, version, known)
            marked.add(name)
        else:
            raise unknown_trec_measure(arg, known)
        if dot:
            if not text:
                raise bad_measure_parameter(arg, "empty parameters after '.'",
                                            f"write -m {name} or give parameters")
            if name not in BY_NAME:
                raise bad_measure_parameter(arg, f"{name} takes no parameters",
                                            f"write -m {name}")
            params.setdefault(name, text)  # trec_eval uses the first -m that gives parameters
    # dcg, ideal_dcg and ndcg share one parameter structure in trec_eval (m_ndcg.c's
    # default_ndcg_gains): one initialised without parameters of its own takes those
    # of the member initialised before it.
    shared = None
    for name in ("dcg", "ideal_dcg", "ndcg"):
        if name in marked:
            if name in params:
                shared = params[name]
            elif shared is not None:
                params[name] = shared
    family = _FORMAT_FAMILY[rel_format]
    for name in sorted(marked, key=[m.name for m in TREC_MEASURES].index):
        needs = BY_NAME[name].rel_format
        if needs is not None and needs != family:
            raise measure_needs_format(name, _FAMILY_FORMATS[needs], rel_format)
    return {m.name: params.get(m.name) for m in TREC_MEASURES if m.name in marked}


def output_plan(options: TrecEvalOptions) -> list[Column]:
    plan: list[Column] = []
    for name, text in selected(options.measures, options.version, options.rel_format).items():
        plan.extend(_columns(BY_NAME[name], text, options))
    return plan


def check_options(options: TrecEvalOptions) -> None:
    check_choice("version", options.version, (9, 10))
    for name in ("per_query", "complete", "summary", "judged_only"):
        check_flag(name, getattr(options, name))
    check_rel_format(options.rel_format)
    if options.results_format != "trec_results":
        raise bad_trec_option("-T", options.results_format,
                              "prcurve reads results in the trec_results format only")
    if isinstance(options.collection_size, bool) or not isinstance(
            options.collection_size, int) or options.collection_size < 0:
        raise bad_trec_option("-N", options.collection_size,
                              "give the number of documents in the collection, an integer >= 0")


def measures_help() -> str:
    """The trec_eval measure names ``prcurve trec`` accepts, for the CLI's help."""
    names = ", ".join(m.name for m in TREC_MEASURES)
    return f"{names}; nicknames: {', '.join(NICKNAMES[10])}"

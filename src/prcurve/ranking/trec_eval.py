"""trec_eval's measures, names, options and output format.

:func:`format_trec_eval` evaluates with trec_eval's measure names (``map``,
``P.5,10``, ``ndcg_cut.10``, ``rbp.p=0.8``, ...) and prints trec_eval's output
byte for byte: ``%-22s\\t%s\\t%6.4f`` per value, integers for the counts,
measures in trec_eval's own order (its ``te_trec_measures`` table), per query
with ``-q`` and then the summary. Measure parameters are read as trec_eval
reads them (``atol``/``atof``: ``ndcg_cut.23.4`` is cutoff 23), and so are its
options ``-c -l -M -J -N -n -Z`` (``TrecEvalOptions``).

trec_eval measures not computed: the preference measures (``prefs_*``,
``-R prefs``/``qrels_prefs``) and those of judgment groups (``*_avgjg``,
``-R qrels_jg``), which need other input formats; asking for one is an error
naming it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from prcurve._undefined import undefined_scope
from prcurve.ranking.evaluation import judge
from prcurve.ranking.kernels import (
    MIN_GEO_MEAN,
    compute,
    geometric_terms,
    mean_over_levels,
)
from prcurve.ranking.measures import Measure, with_params
from prcurve.ranking.state import NOT_IN_POOL, JudgedLevels, Rankings
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.trec_format import read_zscores
from prcurve.validation.arrays import check_choice
from prcurve.validation.ranking import (
    bad_measure_parameter,
    bad_trec_option,
    check_flag,
    check_level_fraction,
    trec_measure_not_in_version,
    unknown_trec_measure,
    unsupported_trec_measure,
)

__all__ = [
    "TREC_MEASURES",
    "TrecEvalOptions",
    "format_trec_eval",
    "measures_help",
    "skipped_queries",
]


_DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


_DEFAULT_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class _TrecMeasure:
    """One trec_eval measure: how it is named, parsed, printed and summarised.

    kind (how its parameters are read and its values named, as trec_eval's
    init procedure): "runid", "num_q", "long" (a count, printed as an
    integer), "double", "cut_long" (one value per integer cutoff),
    "cut_double" (per number), "mean_r" (11pt_avg: one value over levels),
    "p_double" (one value, numeric parameters), "p_pair" (one value,
    name=value parameters). summary: "mean", "sum", "gm" (geometric),
    "none" (relstring), or the special "runid", "num_q", "num_rel".
    """

    name: str
    kind: str
    measure: str | None  # the prcurve measure name
    default: tuple[float, ...] = ()
    per_query: bool = True
    summary: str = "mean"
    since: int = 9  # the first trec_eval version (9 or 10) that has it


# In trec_eval's order (measures.c, te_trec_measures): output follows this order.
TREC_MEASURES: tuple[_TrecMeasure, ...] = (
    _TrecMeasure("runid", "runid", None, per_query=False, summary="runid"),
    _TrecMeasure("num_q", "num_q", None, per_query=False, summary="num_q"),
    _TrecMeasure("num_ret", "long", "num_ret", summary="sum"),
    _TrecMeasure("num_rel", "long", "num_rel", summary="num_rel"),
    _TrecMeasure("num_rel_ret", "long", "num_rel_ret", summary="sum"),
    _TrecMeasure("map", "double", "AP"),
    _TrecMeasure("gm_map", "double", "gm_AP", per_query=False, summary="gm"),
    _TrecMeasure("Rprec", "double", "R-prec"),
    _TrecMeasure("bpref", "double", "bpref"),
    _TrecMeasure("recip_rank", "double", "RR"),
    _TrecMeasure("iprec_at_recall", "cut_double", "iprec", _DEFAULT_LEVELS),
    _TrecMeasure("P", "cut_long", "P", _DEFAULT_CUTOFFS),
    _TrecMeasure("relstring", "p_double", "relstring", (10.0,), summary="none"),
    _TrecMeasure("recall", "cut_long", "R", _DEFAULT_CUTOFFS),
    _TrecMeasure("infAP", "double", "infAP"),
    _TrecMeasure("gm_bpref", "double", "gm_bpref", per_query=False, summary="gm"),
    _TrecMeasure("Rprec_mult", "cut_double", "Rprec_mult",
                 (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    _TrecMeasure("utility", "p_double", "utility", (1.0, -1.0, 0.0, 0.0)),
    _TrecMeasure("11pt_avg", "mean_r", "iprec", _DEFAULT_LEVELS),
    _TrecMeasure("binG", "double", "binG"),
    _TrecMeasure("G", "p_pair", "G"),
    _TrecMeasure("dcg", "p_pair", "dcg", since=10),
    _TrecMeasure("ideal_dcg", "p_pair", "ideal_dcg", since=10),
    _TrecMeasure("ndcg", "p_pair", "ndcg"),
    _TrecMeasure("ndcg_rel", "p_pair", "ndcg_rel"),
    _TrecMeasure("Rndcg", "p_pair", "Rndcg"),
    _TrecMeasure("ndcg_cut", "cut_long", "ndcg_cut", _DEFAULT_CUTOFFS),
    _TrecMeasure("map_cut", "cut_long", "AP", _DEFAULT_CUTOFFS),
    _TrecMeasure("relative_P", "cut_long", "relative_P", _DEFAULT_CUTOFFS),
    _TrecMeasure("success", "cut_long", "success", (1, 5, 10)),
    _TrecMeasure("set_P", "double", "set_P"),
    _TrecMeasure("set_relative_P", "double", "set_relative_P"),
    _TrecMeasure("set_recall", "double", "set_R"),
    _TrecMeasure("set_map", "double", "set_map"),
    _TrecMeasure("set_F", "p_double", "set_F", (1.0,)),
    _TrecMeasure("num_nonrel_judged_ret", "long", "num_nonrel_judged_ret", summary="sum"),
    _TrecMeasure("yaap", "double", "yaap"),
    _TrecMeasure("rbp", "p_pair", "rbp", since=10),
    _TrecMeasure("rbp_resid", "p_pair", "rbp_resid", since=10),
    _TrecMeasure("unj", "cut_long", "unj", (5, 10, 20), since=10),
)


_BY_NAME = {m.name: m for m in TREC_MEASURES}


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

_NICKNAMES = {
    10: {"official": _OFFICIAL, "all_trec": _ALL_TREC_10, "set": _SET},
    9: {"official": _OFFICIAL, "all_trec": _ALL_TREC_9, "set": _SET},
}


# trec_eval measures and nicknames that need other input formats (-R prefs,
# qrels_prefs, qrels_jg): named in the error.
_OTHER_FORMATS = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "all_prefs", "prefs",
    "qrels_jg",
)


TrecEvalVersion = Literal[9, 10]

_MISSING_ZSCORE = -1000000.0  # trec_eval.h MISSING_ZSCORE_VALUE


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's command-line options.

    ``measures`` are trec_eval's ``-m`` arguments (``"official"`` when
    empty); ``per_query`` is ``-q``, ``summary`` the opposite of ``-n``,
    ``complete`` ``-c``, ``relevance_level`` ``-l``, ``depth`` ``-M``,
    ``judged_only`` ``-J``, ``collection_size`` ``-N`` (used by utility),
    ``zscores`` ``-Z`` (a file of ``query measure mean stddev`` lines, or a
    mapping ``{(query, measure): (mean, stddev)}``), ``rel_format`` ``-R``
    and ``results_format`` ``-T`` (prcurve reads ``qrels`` and
    ``trec_results``). ``version`` 10 (default) or 9 picks the recall-level
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

_LONG = re.compile(rb"[ \t\n\v\f\r]*[+-]?[0-9]*")
_DOUBLE = re.compile(
    r"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
    re.IGNORECASE,
)


def _atol(text: str) -> int:
    """C's atol: the longest integer prefix, 0 without one."""
    digits = _LONG.match(text.encode()).group().strip()  # type: ignore[union-attr]
    return int(digits) if digits.strip(b"+-") else 0


def _atof(text: str) -> float:
    """C's atof (strtod): the longest number prefix, 0.0 without one."""
    found = _DOUBLE.match(text)
    return float(found.group().strip()) if found else 0.0


def _truncated_double_name(name: str, value: float) -> str:
    """append_double: snprintf of "%s_%3.2f" into strlen(name) + 10 bytes."""
    return f"{name}_{value:3.2f}"[: len(name) + 9]


@dataclass(frozen=True)
class _Column:
    """One output name and how its per-query value is made from prcurve measures."""

    name: str
    measures: tuple[Measure, ...]  # 11pt_avg: one per level, averaged
    spec: _TrecMeasure


def _columns(spec: _TrecMeasure, text: str | None, options: TrecEvalOptions) -> list[_Column]:
    """The output columns of one trec_eval measure with its parameter text (None:
    the defaults), as its init procedure names them."""
    argument = spec.name if text is None else f"{spec.name}.{text}"
    kind, base = spec.kind, spec.measure
    if kind in ("runid", "num_q"):
        return [_Column(spec.name, (), spec)]
    if base is None:  # unreachable: only runid and num_q have no measure
        raise TypeError(spec.name)
    if kind in ("long", "double"):
        if text is not None:
            raise bad_measure_parameter(argument, f"{spec.name} takes no parameters",
                                        f"write -m {spec.name}")
        return [_Column(spec.name, (Measure(base),), spec)]
    if kind == "cut_long":
        cutoffs = [int(v) for v in spec.default] if text is None else sorted(
            _atol(item) for item in text.split(","))
        _check_cutoffs(argument, cutoffs, positive=True)
        return [_Column(f"{spec.name}_{k}", (Measure(base, k),), spec) for k in cutoffs]
    if kind == "cut_double":
        levels = list(spec.default) if text is None else sorted(
            _atof(item) for item in text.split(","))
        _check_cutoffs(argument, levels, positive=False)
        if base == "iprec":
            levels = [check_level_fraction("measures", v) for v in levels]
        return [_Column(_truncated_double_name(spec.name, x), (with_params(base, x),), spec)
                for x in levels]
    if kind == "mean_r":
        levels = list(spec.default) if text is None else sorted(
            _atof(item) for item in text.split(","))
        _check_cutoffs(argument, levels, positive=False)
        name = spec.name if text is None else f"{spec.name}_{text}"
        return [_Column(name, tuple(Measure(base, check_level_fraction("measures", r))
                                    for r in levels), spec)]
    name = spec.name if text is None else f"{spec.name}_{text}"
    if kind == "p_double":
        values = list(spec.default) if text is None else [_atof(v) for v in text.split(",")]
        return [_Column(name, (_p_double_measure(spec, values, argument, options),), spec)]
    params = _pairs(spec, text, argument)
    return [_Column(name, (with_params(base, **params),), spec)]


def _check_cutoffs(argument: str, values: Sequence[float], positive: bool) -> None:
    if positive and values[0] <= 0:
        raise bad_measure_parameter(argument, "a cutoff is not a positive integer",
                                    "write positive cutoffs, e.g. P.5,10")
    if len(set(values)) != len(values):
        raise bad_measure_parameter(argument, "duplicate cutoffs", "list each cutoff once")


def _p_double_measure(
    spec: _TrecMeasure, values: list[float], argument: str, options: TrecEvalOptions
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


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _pairs(spec: _TrecMeasure, text: str | None, argument: str) -> dict[str, Any]:
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
        elif _INTEGER.fullmatch(key) and spec.name != "rbp_resid":
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


def _selected(
    measure_args: Sequence[str], version: int
) -> dict[str, str | None]:
    """trec_eval name -> parameter text as typed (None: defaults), in trec_eval's order."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    nicknames = _NICKNAMES[version]
    known = [m.name for m in TREC_MEASURES if m.since <= version]
    for arg in measure_args or ("official",):
        name, dot, text = arg.partition(".")
        if name in nicknames:
            marked.update(nicknames[name])
        elif name in _BY_NAME:
            if _BY_NAME[name].since > version:
                raise trec_measure_not_in_version(arg, version, known)
            marked.add(name)
        elif name in _OTHER_FORMATS:
            raise unsupported_trec_measure(arg, known)
        else:
            raise unknown_trec_measure(arg, known)
        if dot:
            if not text:
                raise bad_measure_parameter(arg, "empty parameters after '.'",
                                            f"write -m {name} or give parameters")
            if name not in _BY_NAME:
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
    return {m.name: params.get(m.name) for m in TREC_MEASURES if m.name in marked}


def _plan(options: TrecEvalOptions) -> list[_Column]:
    plan: list[_Column] = []
    for name, text in _selected(options.measures, options.version).items():
        plan.extend(_columns(_BY_NAME[name], text, options))
    return plan


# -- evaluation and output ---------------------------------------------------------------


def _check_options(options: TrecEvalOptions) -> None:
    check_choice("version", options.version, (9, 10))
    for name in ("per_query", "complete", "summary", "judged_only"):
        check_flag(name, getattr(options, name))
    if options.rel_format != "qrels":
        raise bad_trec_option(
            "-R", options.rel_format,
            "prcurve reads relevance in the qrels format only (-R qrels); the "
            "preference formats (prefs, qrels_prefs) and judgment groups (qrels_jg) "
            "are not supported",
        )
    if options.results_format != "trec_results":
        raise bad_trec_option("-T", options.results_format,
                              "prcurve reads results in the trec_results format only")
    if isinstance(options.collection_size, bool) or not isinstance(
            options.collection_size, int) or options.collection_size < 0:
        raise bad_trec_option("-N", options.collection_size,
                              "give the number of documents in the collection, an integer >= 0")


def _text(value: Any) -> str:
    """An id as text; bytes that are not UTF-8 survive as surrogates (written back as
    the same bytes by the command line), since trec_eval prints ids unchanged."""
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def skipped_queries(qrels: Qrels, run: Run) -> list[str]:
    """Judged queries with no results, which ``-c`` would score 0 (left out otherwise)."""
    judged = set(qrels._queries.labels.tolist())
    retrieved = set(run._queries.labels.tolist())
    return sorted(_text(q) for q in judged - retrieved)


def _number(value: float) -> str:
    """printf's %6.4f, NaN and infinities included ("-nan" for a NaN with its sign bit)."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


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
    _check_options(options)
    plan = _plan(options)
    version = options.version
    zscores = _zscores(options.zscores)
    run_table = Run.coerce(run)
    qrels_table = Qrels.coerce(qrels)
    judged = judge(
        qrels_table, run_table,
        relevance_level=options.relevance_level, depth=options.depth,
        queries_without_results="zero" if options.complete else "skip",
        score_precision="float32" if version == 9 else "float64",
        judged_only=options.judged_only,
    )
    rankings = judged._prepared.rankings
    has_results = judged._prepared.has_results
    query_ids = [_text(q) for q in judged.query_ids.tolist()]
    n = len(query_ids)
    convention = "trec_eval_9" if version == 9 else "trec_eval_10"
    cache: dict[Measure, Any] = {}
    missing = np.flatnonzero(~has_results) if version == 10 else np.zeros(0, dtype=np.intp)
    placeholder = _placeholder(rankings, missing) if missing.shape[0] else None
    with undefined_scope(0):
        for column in plan:
            for m in column.measures:
                if m not in cache:
                    cache[m] = compute(m, rankings, convention, trec_raw=True)
                    if placeholder is not None:
                        cache[m] = cache[m].copy()
                        cache[m][missing] = compute(m, placeholder, convention, trec_raw=True)

    # What trec_eval stores per query (the log for gm_*), z-scored with -Z.
    stored: list[Any] = []
    for column in plan:
        if not column.measures:
            stored.append(None)
            continue
        if column.spec.kind == "mean_r":
            values = mean_over_levels([cache[m] for m in column.measures])
        else:
            values = cache[column.measures[0]]
        if missing.shape[0] and _reset_after_placeholder(column.name):
            values = values.copy()
            values[missing] = "" if column.name == "relstring" else 0.0
        if column.spec.summary == "gm":
            values = geometric_terms(values)
        if zscores is not None and column.spec.summary not in ("none",):
            values = _zscored(values, column.name, query_ids, zscores)
        stored.append(values)

    z = "Z" if zscores is not None else ""
    lines: list[str] = []
    if options.per_query:
        printed = has_results if version == 9 else np.ones(n, dtype=bool)
        rows = [(column, values) for column, values in zip(plan, stored, strict=True)
                if column.spec.per_query]
        for i in np.flatnonzero(printed).tolist():
            query = query_ids[i]
            for column, values in rows:
                lines.append(_query_line(column, query, values[i], z))
    if options.summary:
        counted = has_results if version == 9 else np.ones(n, dtype=bool)
        for column, values in zip(plan, stored, strict=True):
            line = _summary_line(column, values, counted, n, options, run_table, qrels_table, z)
            if line is not None:
                lines.append(line)
    return "".join(f"{text}\n" for text in lines)


def _placeholder(rankings: Rankings, missing: NDArray[np.intp]) -> Rankings:
    """trec_eval 10 -c evaluates a judged query missing from the run on one
    document not in the judgments (trec_eval.c's bogus ranking), which -J drops."""
    n = missing.shape[0]
    position = np.full(rankings.n_queries, -1, dtype=np.int64)
    position[missing] = np.arange(n)

    def levels() -> JudgedLevels:
        all_levels = rankings.judged_levels
        keep = position[all_levels.query] >= 0
        return JudgedLevels(position[all_levels.query[keep]], all_levels.code[keep],
                            all_levels.count[keep])

    return Rankings(
        lengths=np.zeros(n, dtype=np.int64) if rankings.judged_only else np.ones(n, np.int64),
        code=np.full(n, NOT_IN_POOL, dtype=rankings.code.dtype),
        grades=rankings.grades, relevant_code=rankings.relevant_code,
        n_relevant=rankings.n_relevant[missing],
        n_judged_nonrelevant=rankings.n_judged_nonrelevant[missing],
        judged_levels=levels, judged_only=rankings.judged_only,
    )


def _reset_after_placeholder(name: str) -> bool:
    """The values trec_eval 10 clears after evaluating the placeholder ranking: the
    names it compares (strcmp: "utility_2,-1,0,0" is not "utility"; unj by prefix)."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _query_line(column: _Column, query: str, value: Any, z: str) -> str:
    if column.spec.summary == "none":  # relstring: text, never z-scored
        return f"{column.name:<22}\t{query}\t'{value}'"
    if column.spec.kind == "long" and not z:
        return f"{column.name:<22}\t{query}\t{int(value)}"
    return f"{z}{column.name:<22}\t{query}\t{_number(float(value))}"


def _sequential_sum(values: NDArray[np.float64]) -> float:
    return float(np.cumsum(values)[-1]) if values.shape[0] else 0.0


def _summary_line(
    column: _Column, values: Any, counted: NDArray[np.bool_], n: int,
    options: TrecEvalOptions, run: Run, qrels: Qrels, z: str,
) -> str | None:
    rule = column.spec.summary
    if rule == "none":
        return None
    if rule == "runid":
        return f"{'runid':<22}\tall\t{run.run_id or ''}"
    if rule == "num_q":
        return (f"{z}{'num_q':<22}\tall\t{_number(float(n))}" if z
                else f"{'num_q':<22}\tall\t{n}")
    total = _sequential_sum(values[counted])
    if rule == "gm":
        total += (n - int(np.count_nonzero(counted))) * math.log(MIN_GEO_MEAN)
        value = math.exp(total / n)
    elif rule == "num_rel" and options.complete:
        # trec_eval -c counts every judgment with grade > 0, whatever -l says (m_num_rel.c).
        value = float(np.count_nonzero(qrels.relevance > 0))
    elif rule in ("sum", "num_rel"):
        value = total
    else:
        value = total / n
    if column.spec.kind == "long" and not z:
        return f"{column.name:<22}\tall\t{int(value)}"
    return f"{z}{column.name:<22}\tall\t{_number(value)}"


def _zscores(
    source: str | os.PathLike[str] | Mapping[tuple[str, str], tuple[float, float]] | None,
) -> dict[tuple[str, str], tuple[float, float]] | None:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return {(str(q), str(m)): (float(a), float(b)) for (q, m), (a, b) in source.items()}
    return read_zscores(source)


def _zscored(
    values: NDArray[np.float64], name: str, queries: list[str],
    table: dict[tuple[str, str], tuple[float, float]],
) -> NDArray[np.float64]:
    """te_convert_to_zscore: (value - mean) / stddev; with stddev 0, 0 if the value
    is the mean; -1000000 where the file has no mean for the query and measure."""
    out = np.empty(values.shape[0])
    for i, query in enumerate(queries):
        found = table.get((query, name))
        value = float(values[i])
        if found is None:
            out[i] = _MISSING_ZSCORE
        elif found[1]:
            out[i] = (value - found[0]) / found[1]
        else:
            out[i] = 0.0 if value == found[0] else _MISSING_ZSCORE
    return out


def measures_help() -> str:
    """The trec_eval measure names ``prcurve trec`` accepts, for the CLI's help."""
    names = ", ".join(m.name for m in TREC_MEASURES)
    return f"{names}; nicknames: {', '.join(_NICKNAMES[10])}"

"""TREC files and trec_eval's measures, names and output format.

:func:`read_qrels` and :func:`read_run` read the standard whitespace-separated
formats as trec_eval does (``get_qrels.c``, ``get_trec_results.c``)::

    qrels:  query  iter  docno  relevance
    run:    query  Q0    docno  rank  score  run_id  [anything else]

Fields are separated by white space (any byte up to 0x20: space, tab,
carriage return and the other ASCII control characters; lines end at \\n).
The iter and rank columns are ignored (the ranking comes from the scores),
extra trailing fields of a run line are ignored, blank lines and lines whose
first non-blank character is ``#`` are skipped (``#`` inside a document id is
part of it). A document listed twice for one query is an error naming the
file, the line and the document. Parsing is vectorised over the bytes of the
file (no Python loop per line): ten million lines take a few seconds.

:func:`format_trec_eval` evaluates with trec_eval's measure names (``map``,
``P.5,10``, ``iprec_at_recall``, ...) and prints trec_eval's output byte for
byte: ``%-22s\\t%s\\t%6.4f`` per value, integers
for the counts, measures in trec_eval's own order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking import Measure, Qrels, RankingEvaluation, Run, evaluate, mean_over_levels
from prcurve.validation.arrays import check_choice, check_positive_number
from prcurve.validation.ranking import (
    bad_measure_parameter,
    check_cutoff,
    check_level_fraction,
    malformed_line,
    unknown_trec_measure,
    unreadable_file,
    unsupported_trec_measure,
)

__all__ = [
    "TREC_MEASURES",
    "TrecEvalOptions",
    "format_trec_eval",
    "parse_qrels",
    "parse_run",
    "read_qrels",
    "read_run",
]

# -- reading ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Fields:
    """The data lines of a file: ``field(j)`` is the j-th field of each line."""

    buffer: NDArray[np.uint8]
    starts: NDArray[np.intp]
    ends: NDArray[np.intp]
    first: NDArray[np.intp]  # index of each data line's first token
    line: NDArray[np.int64]  # 1-based line number of each data line

    def bounds(self, j: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        token = self.first + j
        return self.starts[token], self.ends[token]

    def strings(self, j: int) -> NDArray[np.bytes_]:
        """Field j of every line as a fixed-width bytes array (no copy of Python objects)."""
        starts, ends = self.bounds(j)
        lengths = ends - starts
        width = int(lengths.max(initial=1))
        matrix = np.zeros((starts.shape[0], width), dtype=np.uint8)
        shortest = int(lengths.min(initial=0))
        for column in range(width):
            if column < shortest:
                matrix[:, column] = self.buffer[starts + column]
            else:
                has = lengths > column
                matrix[has, column] = self.buffer[starts[has] + column]
        return matrix.view(f"S{width}").ravel()


def _fields(
    data: bytes, source: str, argument: str, n_fields: int, exact: bool, layout: str
) -> _Fields:
    buffer = np.frombuffer(data, dtype=np.uint8)
    n = buffer.shape[0]
    # Separators: space, tab, newline, carriage return and the other ASCII
    # control characters (trec_eval's isspace, plus controls no id contains).
    # Few, large temporaries: first touches of fresh memory dominate here.
    space = np.ones(n + 2, dtype=bool)  # padded with a separator at both ends
    np.less_equal(buffer, 32, out=space[1:-1])
    # Where padded[k] != padded[k + 1], a token starts or ends at byte k; they alternate.
    edges = np.flatnonzero(space[1:] != space[:-1])
    del space
    starts, ends = edges[0::2], edges[1::2]
    # Tokens per line from the tokens before each newline: one search per line.
    newlines = np.flatnonzero(buffer == 10)
    before = np.searchsorted(starts, newlines)
    first_all = np.concatenate(([0], before))  # index of each line's first token
    count_all = np.diff(np.append(first_all, starts.shape[0]))
    nonblank = np.flatnonzero(count_all > 0)
    first, count = first_all[nonblank], count_all[nonblank]
    data_line = buffer[starts[first]] != ord("#")
    first, count = first[data_line], count[data_line]
    line = nonblank[data_line].astype(np.int64) + 1
    bad = count != n_fields if exact else count < n_fields
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise malformed_line(
            argument, source, int(line[i]),
            f"expected {'' if exact else 'at least '}{n_fields} fields ({layout}), "
            f"found {int(count[i])}",
            f"fix the line, or check that this is a {argument} file",
        )
    return _Fields(buffer, starts, ends, first, line)


def _numbers(
    fields: _Fields, j: int, dtype: type[np.generic], source: str, argument: str, what: str
) -> NDArray[Any]:
    text = fields.strings(j)
    try:
        values = text.astype(dtype)
    except ValueError:
        values = None
    if values is not None and (dtype is not np.float64 or np.isfinite(values).all()):
        return values
    for i, item in enumerate(text.tolist()):
        try:
            value = dtype(item)
        except ValueError:
            value = None
        if value is None or (dtype is np.float64 and not np.isfinite(value)):
            raise malformed_line(
                argument, source, int(fields.line[i]),
                f"{what} {item.decode('utf-8', 'replace')!r} is not "
                f"{'a finite number' if dtype is np.float64 else 'an integer'}",
                f"write the {what} as "
                f"{'a decimal number' if dtype is np.float64 else 'an integer'}",
            )
    return text.astype(dtype)  # unreachable: some element failed above


def _read_bytes(path: str | os.PathLike[str], argument: str) -> tuple[bytes, str]:
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            return handle.read(), source
    except OSError as error:
        raise unreadable_file(argument, source, error.strerror or str(error)) from None


def parse_qrels(data: bytes, source: str = "<qrels>") -> Qrels:
    """Judgments from the bytes of a qrels file (see :func:`read_qrels`)."""
    fields = _fields(data, source, "qrels", 4, True, "query iter docno relevance")
    relevance = _numbers(fields, 3, np.int64, source, "qrels", "relevance")
    return Qrels(
        fields.strings(0), fields.strings(2), relevance.astype(np.int64), source, fields.line
    )


def parse_run(data: bytes, source: str = "<run>") -> Run:
    """A run from the bytes of a TREC run file (see :func:`read_run`)."""
    fields = _fields(data, source, "run", 6, False, "query Q0 docno rank score run_id")
    score = _numbers(fields, 4, np.float64, source, "run", "score")
    run_id = None
    if fields.first.shape[0]:
        s, e = fields.bounds(5)
        # trec_eval reports the run id of the last line.
        run_id = bytes(fields.buffer[s[-1]:e[-1]]).decode("utf-8", "replace")
    return Run(
        fields.strings(0), fields.strings(2), score.astype(np.float64), run_id, source, fields.line
    )


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file: ``query iter docno relevance`` per line.

    Relevance is an integer grade; a negative grade means judged but not
    usable (trec_eval's "unjudged in pool"). Lines starting with ``#`` are
    comments.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    Qrels
        Ids as bytes, exactly as in the file; ``line`` holds each row's line number.

    Examples
    --------
    >>> import tempfile, os
    >>> from prcurve.trec import read_qrels
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("# judged by A\\n301 0 doc-1 1\\n301 0 doc#2 0\\n")
    >>> q = read_qrels(f.name); os.remove(f.name)
    >>> q.doc_id.tolist(), q.relevance.tolist(), q.line.tolist()
    ([b'doc-1', b'doc#2'], [1, 0], [2, 3])
    """
    data, source = _read_bytes(path, "qrels")
    return parse_qrels(data, source)


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run file: ``query Q0 docno rank score run_id`` per line.

    The Q0 and rank columns are ignored (documents are ranked by score) and
    so is anything after the run id. Lines starting with ``#`` are comments.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    Run
        Ids as bytes; scores as float64; ``run_id`` from the last line, as trec_eval.

    Examples
    --------
    >>> import tempfile, os
    >>> from prcurve.trec import read_run
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("301 Q0 d1 1 2.5 myrun\\n301 Q0 d2 2 1.5 myrun trailing words\\n")
    >>> r = read_run(f.name); os.remove(f.name)
    >>> r.doc_id.tolist(), r.score.tolist(), r.run_id
    ([b'd1', b'd2'], [2.5, 1.5], 'myrun')
    """
    data, source = _read_bytes(path, "run")
    return parse_run(data, source)


# -- trec_eval's measures ------------------------------------------------------------------

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
    >>> from prcurve.trec import TrecEvalOptions, format_trec_eval
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


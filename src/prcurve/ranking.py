"""Ranked retrieval: P@k, R@k, AP, AP@k, MAP, R-precision, RR, interpolated precision, bpref.

A ranked list for one query is the count state of :mod:`prcurve.counts` with
rank as the threshold (:func:`ranking_counts`). Many queries are one long
table sorted by (query, score descending, document id descending) and cut into
segments, one per query; every measure is a handful of segment operations on
that table (prefix counts, ``reduceat`` sums, a segmented running maximum), so
evaluating 10,000 queries costs a few passes over arrays, not 10,000 Python
loops. Definitions follow trec_eval (docs/ranking.md gives each formula and
the trec_eval source file it was checked against):

- documents are ranked by score descending, ties broken by document id
  descending (byte order; trec_eval's ``form_res_rels.c``);
- P@k divides by k even when fewer than k documents were retrieved (the
  missing ranks count as non-relevant, seed 000);
- AP and AP@k (trec_eval's ``map`` and ``map_cut``) divide by R, the number of
  relevant documents judged for the query, retrieved or not;
  ``AP_min_k_relevant@k`` (seed 000's AP@k) divides by min(k, R);
- R-precision looks at the top min(retrieved, R) documents and divides by R;
- interpolated precision at recall level r is the largest precision at any
  rank at or below the rank where the c-th relevant document is retrieved,
  where the cutoff c is ``lround(r * R)`` in trec_eval 10 and
  ``(long)(r * R + 0.9)`` in trec_eval 9 (and pytrec_eval, ranx); levels whose
  cutoff exceeds the relevant documents retrieved score 0;
- queries without relevant documents score 0 in every measure (as in
  trec_eval; ``zero_division`` chooses otherwise) and count in the mean.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve import _keys
from prcurve._undefined import ZeroDivision, ratio, undefined_scope
from prcurve.validation.arrays import (
    as_1d,
    check_choice,
    check_finite_numbers,
    check_positive_number,
    check_same_length,
    check_zero_division,
)
from prcurve.validation.ranking import (
    bad_measure_parameter,
    check_columns,
    check_cutoff,
    check_grades,
    check_id_column,
    check_level_fraction,
    check_n_relevant,
    check_optional_cutoff,
    check_ranking,
    check_relevance_level,
    duplicate_document,
    no_queries_to_evaluate,
    unknown_measure,
    wrong_table_type,
)

if TYPE_CHECKING:
    from prcurve.counts import ThresholdCounts

__all__ = [
    "CONVENTIONS",
    "MEASURE_NAMES",
    "Convention",
    "JudgedRun",
    "Measure",
    "Qrels",
    "RankingEvaluation",
    "Run",
    "average_precision_at_k",
    "evaluate",
    "judge",
    "precision_at_k",
    "r_precision",
    "ranking_counts",
    "recall_at_k",
    "reciprocal_rank",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

Convention = Literal["trec_eval_10", "trec_eval_9"]
"""Which trec_eval's interpolated-precision cutoff to use (see the module docstring)."""
CONVENTIONS: tuple[str, ...] = ("trec_eval_10", "trec_eval_9")

ScorePrecision = Literal["float64", "float32"]
_SCORE_PRECISIONS: tuple[str, ...] = ("float64", "float32")

MissingQueries = Literal["skip", "zero"]
_MISSING: tuple[str, ...] = ("skip", "zero")

_MIN_GEO_MEAN = 0.00001  # trec_eval.h MIN_GEO_MEAN: gm_map's floor on AP


# -- measures as values ----------------------------------------------------------------

# name -> the parameter it takes after "@": None, "k" (int >= 1, required),
# "k?" (optional int) or "r" (a recall level in [0, 1], required).
_PARAMETERS: dict[str, str | None] = {
    "AP": "k?",
    "AP_min_k_relevant": "k",
    "P": "k",
    "R": "k",
    "R-prec": None,
    "RR": None,
    "iprec": "r",
    "11pt": None,
    "bpref": None,
    "gm_AP": None,
    "num_ret": None,
    "num_rel": None,
    "num_rel_ret": None,
    "set_P": None,
    "set_R": None,
    "set_F": "x?",
}
MEASURE_NAMES: tuple[str, ...] = tuple(_PARAMETERS)
_SUMMED = frozenset({"num_ret", "num_rel", "num_rel_ret"})


def _known_forms() -> list[str]:
    forms = {"k": "@k", "k?": "[@k]", "r": "@r", "x?": "[@x]"}
    return [name + forms.get(kind or "", "") for name, kind in _PARAMETERS.items()]


@dataclass(frozen=True)
class Measure:
    """A ranking measure as a value: a name and its parameter.

    ``str(m)`` is canonical and :meth:`parse` reads it back, so
    ``Measure.parse(str(m)) == m``. Names (trec_eval's in brackets):
    ``AP`` [map], ``AP@k`` [map_cut.k], ``AP_min_k_relevant@k`` (seed 000's
    AP@k, divided by min(k, R)), ``P@k`` [P.k], ``R@k`` [recall.k], ``R-prec``
    [Rprec], ``RR`` [recip_rank], ``iprec@r`` [iprec_at_recall.r], ``11pt``
    [11pt_avg], ``bpref``, ``gm_AP`` [gm_map], ``num_ret``, ``num_rel``,
    ``num_rel_ret``, ``set_P``, ``set_R`` [set_recall], ``set_F`` and
    ``set_F@x`` [set_F.x: (x + 1) P R / (x P + R), x = 1 by default].

    Examples
    --------
    >>> from prcurve.ranking import Measure
    >>> Measure.parse("P@10")
    Measure('P@10')
    >>> str(Measure("iprec", 0.5)), Measure.parse("AP") == Measure("AP")
    ('iprec@0.5', True)
    """

    name: str
    cutoff: int | float | None = None

    def __str__(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff!r}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @classmethod
    def parse(cls, text: str | Measure) -> Measure:
        """Read a measure such as ``"AP"``, ``"P@10"`` or ``"iprec@0.5"``."""
        if isinstance(text, Measure):
            return text
        if not isinstance(text, str):
            raise unknown_measure(text, _known_forms())
        name, at, parameter = text.strip().partition("@")
        if name not in _PARAMETERS:
            raise unknown_measure(text, _known_forms())
        kind = _PARAMETERS[name]
        if not at:
            if kind in ("k", "r"):
                what = (
                    "a rank cutoff, e.g. 'P@10'" if kind == "k"
                    else "a recall level, e.g. 'iprec@0.5'"
                )
                raise bad_measure_parameter(
                    text, "missing its parameter", f"add {what}"
                )
            return cls(name)
        if kind is None:
            raise bad_measure_parameter(
                text, f"{name} takes no parameter", f"write {name!r}"
            )
        try:
            value: int | float = float(parameter) if kind in ("r", "x?") else int(parameter)
        except ValueError:
            raise bad_measure_parameter(
                text, f"cannot read the parameter {parameter!r}",
                "write an integer cutoff (P@10)" if kind != "r" else "write a level (iprec@0.5)",
            ) from None
        if kind == "r":
            return cls(name, check_level_fraction("measures", value))
        if kind == "x?":
            return cls(name, check_positive_number("measures", value))
        return cls(name, check_cutoff("measures", value))


def _parse_measures(measures: str | Measure | Iterable[str | Measure]) -> tuple[Measure, ...]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = tuple(dict.fromkeys(Measure.parse(m) for m in measures))
    if not parsed:
        raise bad_measure_parameter("", "no measures given", "pass e.g. ['AP', 'P@10']")
    return parsed


# -- long tables: judgments and runs ------------------------------------------------------


def _ids(name: str, values: ArrayLike, n: int | None = None) -> NDArray[Any]:
    return check_id_column(name, values, n)


class _LongTable:
    """What :class:`Qrels` and :class:`Run` share: building from a dict, a table,
    three arrays or a TREC file, and the dictionary encoding of their ids.
    Subclasses name their value column and reader."""

    _KIND: ClassVar[str]  # "qrels" or "run": the argument named in errors
    _VALUE: ClassVar[str]  # the value column: "relevance" or "score"
    _DICT_FORM: ClassVar[str]  # how the dict form reads, for errors

    query_id: NDArray[Any]
    doc_id: NDArray[Any]
    source: str | None
    line: I64 | None
    # Set once when built: the ids as distinct labels and per-row codes
    # (queries in id order), so that evaluation handles integers only.
    _queries: _keys.Encoded
    _docs: _keys.Encoded

    def __len__(self) -> int:
        return int(self.query_id.shape[0])

    def __post_init__(self) -> None:
        queries = _keys.encode(self.query_id, grouped=True, sort_labels=True)
        docs = _keys.encode(self.doc_id)
        object.__setattr__(self, "_queries", queries)
        object.__setattr__(self, "_docs", docs)
        # One row per (query, document): codes make each pair one exact integer.
        pair = queries.codes * max(docs.labels.shape[0], 1) + docs.codes
        ordered = np.sort(pair)
        if (ordered[1:] == ordered[:-1]).any():
            self._raise_duplicate(pair)

    def _raise_duplicate(self, pair: I64) -> None:
        """Name the first row that repeats an earlier (query, document) pair."""
        _, first = np.unique(pair, return_index=True)
        repeats = np.ones(pair.shape[0], dtype=bool)
        repeats[first] = False
        row = int(np.flatnonzero(repeats)[0])
        line = None if self.line is None else int(self.line[row])
        raise duplicate_document(
            self._KIND, self.query_id[row], self.doc_id[row], self.source, line
        )

    @classmethod
    def from_arrays(cls: type[_T], query_id: ArrayLike, doc_id: ArrayLike,
                    values: ArrayLike) -> _T:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @classmethod
    def _read(cls: type[_T], path: str | os.PathLike[str]) -> _T:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def from_dict(cls: type[_T], values: Mapping[Any, Mapping[Any, Any]]) -> _T:
        """From ``{query: {document: value}}`` (pytrec_eval's and ranx's format)."""
        queries, docs, flat = _flatten(values, cls._KIND)
        return cls.from_arrays(queries, docs, flat)

    @classmethod
    def from_frame(cls: type[_T], frame: Any) -> _T:
        """From a pandas DataFrame or pyarrow Table with columns query_id (or qid),
        doc_id (or docno) and the value column (relevance or score)."""
        columns = _frame_columns(
            frame, cls._KIND,
            {"query": ("query_id", "qid"), "doc": ("doc_id", "docno"), "value": (cls._VALUE,)},
        )
        return cls.from_arrays(columns["query"], columns["doc"], columns["value"])

    @classmethod
    def coerce(cls: type[_T], value: Any) -> _T:
        """Any accepted form: an instance, dict, DataFrame, pyarrow Table,
        (query_id, doc_id, value) arrays, or the path of a TREC file."""
        if isinstance(value, cls):
            return value
        if isinstance(value, (str, os.PathLike)):
            return cls._read(value)
        if isinstance(value, Mapping):
            return cls.from_dict(value)
        if hasattr(value, "column_names") or hasattr(value, "columns"):
            return cls.from_frame(value)
        if isinstance(value, (tuple, list)) and len(value) == 3:
            return cls.from_arrays(*value)
        raise wrong_table_type(
            cls._KIND, value, f"a dict {cls._DICT_FORM}, a DataFrame, arrays or a {cls._KIND} path"
        )


_T = TypeVar("_T", bound=_LongTable)


@dataclass(frozen=True, eq=False)
class Qrels(_LongTable):
    """Relevance judgments as a long table: one row per (query, document, grade).

    A document counts as relevant when its grade is at least the relevance
    level (default 1); a negative grade means judged but unusable (trec_eval's
    "unjudged in pool"). Like :class:`Run`, it checks for repeated
    documents and encodes its ids when built. Build with
    :meth:`from_dict`, :meth:`from_frame`, :meth:`from_arrays` or
    :func:`prcurve.trec.read_qrels`.

    Examples
    --------
    >>> from prcurve.ranking import Qrels
    >>> q = Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    >>> q.query_id.tolist(), q.doc_id.tolist(), q.relevance.tolist()
    (['q1', 'q1'], ['d1', 'd2'], [1, 0])
    """

    _KIND: ClassVar[str] = "qrels"
    _VALUE: ClassVar[str] = "relevance"
    _DICT_FORM: ClassVar[str] = "{query: {doc: grade}}"

    query_id: NDArray[Any]
    doc_id: NDArray[Any]
    relevance: I64
    source: str | None = None
    line: I64 | None = field(default=None, repr=False)

    @classmethod
    def from_arrays(
        cls, query_id: ArrayLike, doc_id: ArrayLike, relevance: ArrayLike
    ) -> Qrels:
        """From three equal-length columns (ids as strings or integers)."""
        q = _ids("query_id", query_id)
        return cls(
            q, _ids("doc_id", doc_id, q.shape[0]),
            _checked_length(check_grades("relevance", relevance), q.shape[0]),
        )

    @classmethod
    def _read(cls, path: str | os.PathLike[str]) -> Qrels:
        from prcurve.trec import read_qrels

        return read_qrels(path)


@dataclass(frozen=True, eq=False)
class Run(_LongTable):
    """Retrieved documents as a long table: one row per (query, document, score).

    Row order does not matter: each query is ranked by score descending, ties
    broken by document id descending (trec_eval). Building one checks that
    no document is listed twice for a query and encodes the ids once, so
    that every evaluation of it handles integers only. Build with
    :meth:`from_dict`, :meth:`from_frame`, :meth:`from_arrays` or
    :func:`prcurve.trec.read_run`.

    Examples
    --------
    >>> from prcurve.ranking import Run
    >>> r = Run.from_dict({"q1": {"d1": 0.5, "d2": 1.5}})
    >>> r.doc_id.tolist(), r.score.tolist()
    (['d1', 'd2'], [0.5, 1.5])
    """

    _KIND: ClassVar[str] = "run"
    _VALUE: ClassVar[str] = "score"
    _DICT_FORM: ClassVar[str] = "{query: {doc: score}}"

    query_id: NDArray[Any]
    doc_id: NDArray[Any]
    score: F64
    run_id: str | None = None
    source: str | None = None
    line: I64 | None = field(default=None, repr=False)

    @classmethod
    def from_arrays(
        cls, query_id: ArrayLike, doc_id: ArrayLike, score: ArrayLike, run_id: str | None = None
    ) -> Run:
        """From three equal-length columns; scores must be finite."""
        q = _ids("query_id", query_id)
        scores = check_finite_numbers("score", as_1d("score", score))
        return cls(
            q, _ids("doc_id", doc_id, q.shape[0]),
            _checked_length(scores.astype(np.float64, copy=False), q.shape[0]), run_id,
        )

    @classmethod
    def _read(cls, path: str | os.PathLike[str]) -> Run:
        from prcurve.trec import read_run

        return read_run(path)


def _checked_length(array: NDArray[Any], n: int) -> NDArray[Any]:
    check_same_length(query_id=np.empty(n), values=array)
    return array


def _flatten(
    nested: Mapping[Any, Mapping[Any, Any]], argument: str
) -> tuple[list[Any], list[Any], list[Any]]:
    queries: list[Any] = []
    docs: list[Any] = []
    values: list[Any] = []
    for query, inner in nested.items():
        if not isinstance(inner, Mapping):
            raise wrong_table_type(
                argument, inner, f"a dict of documents for {query!r}"
            )
        queries.extend([query] * len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())
    return queries, docs, values


def _frame_columns(
    frame: Any, argument: str, wanted: dict[str, Sequence[str]]
) -> dict[str, NDArray[Any]]:
    found = frame.column_names if hasattr(frame, "column_names") else frame.columns
    names = [str(c) for c in found]
    chosen = check_columns(argument, names, wanted)
    out: dict[str, NDArray[Any]] = {}
    for role, name in chosen.items():
        column = frame[name]  # a pandas Series or a pyarrow ChunkedArray
        out[role] = np.asarray(column.to_numpy() if hasattr(column, "to_numpy") else column)
    return out


# -- the state: many rankings, one long table cut into segments -------------------------


class _Rankings:
    """Each query's retrieved documents in rank order, as segments of flat arrays.

    Query ``q`` owns rows ``starts[q] : starts[q] + lengths[q]``; row order
    inside a segment is rank order. ``relevant`` and ``judged_nonrelevant``
    are the two relevance facts every measure needs; ``n_relevant`` (R) and
    ``n_judged_nonrelevant`` count the judgments, retrieved or not.
    """

    def __init__(
        self,
        lengths: NDArray[np.intp],
        relevant: NDArray[np.bool_],
        judged_nonrelevant: NDArray[np.bool_],
        n_relevant: I64,
        n_judged_nonrelevant: I64,
        starts: I64 | None = None,
    ) -> None:
        self.lengths = lengths.astype(np.int64, copy=False)
        self.in_order = starts is None  # segments back to back, in query order
        self.starts = (
            np.concatenate(([0], np.cumsum(self.lengths)[:-1])).astype(np.int64)
            if starts is None else starts
        )
        self.relevant = relevant
        self.judged_nonrelevant = judged_nonrelevant
        self.n_relevant = n_relevant
        self.n_judged_nonrelevant = n_judged_nonrelevant

    @property
    def n_queries(self) -> int:
        return int(self.lengths.shape[0])

    @cached_property
    def _relevant_rows(self) -> NDArray[np.intp]:
        """Every relevant row, in row order (segments or not)."""
        return np.flatnonzero(self.relevant)

    @cached_property
    def _first_relevant(self) -> NDArray[np.intp]:
        return np.searchsorted(self._relevant_rows, self.starts)

    def relevant_in_top(self, k: I64 | int) -> I64:
        """Relevant documents among each query's top min(k, retrieved).

        Counted among the relevant rows, one binary search per query: no pass
        over all rows.
        """
        end = self.starts + np.minimum(self.lengths, k)
        return np.searchsorted(self._relevant_rows, end) - self._first_relevant

    @cached_property
    def n_relevant_retrieved(self) -> I64:
        return self.relevant_in_top(self.lengths)

    # The relevant retrieved documents, all queries, in query order then rank
    # order: "hits". Query q's hits are
    # hits[first_hit[q] : first_hit[q] + n_relevant_retrieved[q]].

    @cached_property
    def first_hit(self) -> I64:
        return np.cumsum(self.n_relevant_retrieved) - self.n_relevant_retrieved

    @cached_property
    def _hit_rows(self) -> NDArray[np.intp]:
        if self.in_order:
            return self._relevant_rows
        count = self.n_relevant_retrieved
        where = np.repeat(self._first_relevant - self.first_hit, count)
        hits: NDArray[np.intp] = self._relevant_rows[where + np.arange(where.shape[0])]
        return hits

    @cached_property
    def hit_query(self) -> NDArray[np.intp]:
        return np.repeat(np.arange(self.n_queries), self.n_relevant_retrieved)

    @cached_property
    def hit_rank(self) -> I64:
        """1-based rank of each hit within its query."""
        return self._hit_rows - self.starts[self.hit_query] + 1

    @cached_property
    def hit_precision(self) -> F64:
        """Precision at each hit's rank: c / rank for the c-th relevant document."""
        ordinal = np.arange(self._hit_rows.shape[0]) - self.first_hit[self.hit_query] + 1
        # trec_eval: (double) rel_so_far / (double) (i + 1); the same division here.
        return ordinal.astype(np.float64) / self.hit_rank.astype(np.float64)

    @cached_property
    def hit_interpolated_precision(self) -> F64:
        """Largest precision at this hit's rank or deeper within the query.

        Precision falls between hits (the count stays, the rank grows), so the
        maximum over all deeper ranks is the maximum over deeper hits.
        """
        return _segmented_suffix_max(self.hit_precision, self.hit_query)

    def hit_sum(self, values: F64, count: I64) -> F64:
        """Per query, the sum of ``values`` over its first ``count`` hits."""
        return _prefix_sums(values, self.first_hit, count)


def _prefix_sums(values: F64, begin: I64, count: I64) -> F64:
    """Element q: ``values[begin[q] : begin[q] + count[q]]`` added one at a time, in order.

    trec_eval adds per-document terms sequentially (``sum += ...``); adding in
    the same order gives the same float, so printed values agree to the last
    digit (numpy's pairwise ``sum``/``reduceat`` can differ in the last bit).
    Vectorised across queries: step j adds the j-th term of every query that
    has one, so the work is the number of terms plus one numpy call per step.
    """
    out = np.zeros(begin.shape[0], dtype=np.float64)
    if values.shape[0] == 0 or begin.shape[0] == 0:
        return out
    by_count = np.argsort(-count, kind="stable")
    counts = count[by_count]
    starts = begin[by_count]
    longest = int(counts[0])
    # active[j]: how many queries (longest first) have a j-th term.
    active = np.searchsorted(-counts, -np.arange(longest), side="left")
    total = np.zeros(begin.shape[0], dtype=np.float64)
    for j in range(longest):
        k = int(active[j])
        total[:k] += values[starts[:k] + j]
    out[by_count] = total
    return out


def _segmented_suffix_max(values: F64, segment: NDArray[np.intp]) -> F64:
    """Element i: max of values[i:] within i's segment (segments contiguous).

    A doubling scan (Hillis–Steele): after the pass with step s every element
    holds the maximum of the next 2s elements of its segment; log2(longest)
    passes, each one vectorised. Exact: it only compares.
    """
    out: F64 = values.copy()
    n = out.shape[0]
    step = 1
    while step < n:
        same = segment[step:] == segment[:-step]
        if not same.any():
            break
        np.maximum(out[:-step], np.where(same, out[step:], -np.inf), out=out[:-step])
        step *= 2
    return out


def _common_id_dtype(arrays: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
    kinds = {a.dtype.kind for a in arrays if a.shape[0]}
    if kinds <= {"i", "u"}:
        return [a.astype(np.int64, copy=False) for a in arrays]
    if len(kinds) <= 1:
        kind = kinds.pop() if kinds else "U"
        return [a if a.shape[0] else a.astype("S" if kind == "S" else "U") for a in arrays]
    # Mixed kinds: compare as text (bytes decoded as UTF-8; integers printed).
    out = []
    for a in arrays:
        if a.dtype.kind == "S":
            out.append(np.char.decode(a, "utf-8"))
        else:
            out.append(a.astype(str))
    return out


@dataclass(frozen=True)
class _Prepared:
    rankings: _Rankings
    query_ids: NDArray[Any]
    has_results: NDArray[np.bool_]


# What a retrieved document is, after the join: trec_eval's nonpool and
# unjudged (negative grade) documents are neither relevant nor judged non-relevant.
_NOT_JUDGED, _NONRELEVANT, _RELEVANT = 0, 1, 2


def _prepare(
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int,
    depth: int | None,
    queries_without_results: str,
    score_precision: str,
) -> _Prepared:
    """Rank every query's documents and attach the judgments (trec_eval's form_res_rels).

    Both tables arrive dictionary-encoded (:class:`Qrels` and :class:`Run` encode
    their ids once, when built); here only their distinct ids are compared, then
    every row is handled as integers.
    """
    run_queries, qrels_queries = _common_id_dtype([run._queries.labels, qrels._queries.labels])
    query_ids = np.unique(np.concatenate((run_queries, qrels_queries)))
    run_common = np.searchsorted(query_ids, run_queries)
    qrels_common = np.searchsorted(query_ids, qrels_queries)
    qrels_class = np.where(
        qrels.relevance >= relevance_level, _RELEVANT,
        np.where(qrels.relevance >= 0, _NONRELEVANT, _NOT_JUDGED),
    ).astype(np.int8)
    rows = _RunRows.grouped(run, score_precision)
    row_class = _join(run, qrels, run_common, qrels_common, qrels_class, rows)
    row_class, block_start, block_length, block_code = _ranking_order(
        rows, run._docs.labels, row_class
    )

    # Each query's segment, where its block of rows lies (blocks stay where they are).
    n_q = query_ids.shape[0]
    start = np.zeros(n_q, dtype=np.int64)
    retrieved = np.zeros(n_q, dtype=np.int64)
    start[run_common[block_code]] = block_start
    retrieved[run_common[block_code]] = block_length
    has_run = retrieved > 0
    has_qrels = np.zeros(n_q, dtype=bool)
    has_qrels[qrels_common] = True
    evaluated = has_qrels & (has_run | (queries_without_results == "zero"))
    if not evaluated.any():
        raise no_queries_to_evaluate(
            int(np.count_nonzero(has_run)), int(np.count_nonzero(has_qrels))
        )
    if depth is not None:
        retrieved = np.minimum(retrieved, depth)

    def per_query(wanted: int) -> I64:
        counts = np.bincount(qrels._queries.codes[qrels_class == wanted],
                             minlength=qrels_common.shape[0])
        out = np.zeros(n_q, dtype=np.int64)
        out[qrels_common] = counts
        return out[evaluated]

    rankings = _Rankings(
        lengths=retrieved[evaluated].astype(np.intp),
        relevant=row_class == _RELEVANT,
        judged_nonrelevant=row_class == _NONRELEVANT,
        n_relevant=per_query(_RELEVANT),
        n_judged_nonrelevant=per_query(_NONRELEVANT),
        starts=start[evaluated],
    )
    return _Prepared(rankings, query_ids[evaluated], has_run[evaluated])


def _dense_cells_limit(n_rows: int) -> int:
    """The largest join table (one byte per query x document cell) worth allocating:
    16 bytes per run row, less than the run's own columns take."""
    return max(2**26, 16 * n_rows)


def _join(
    run: Run, qrels: Qrels, run_common: I64, qrels_common: I64, qrels_class: NDArray[np.int8],
    rows: _RunRows,
) -> NDArray[np.int8]:
    """Each run row's judgment class (rows in the order of ``rows``).

    The judged (query, document) pairs are cells of a table with one row per
    query and one column per document of the run. When the table is small
    enough it is a dense byte array and each run row is one lookup (a run
    lists a query's documents together, so the lookups of a query stay in one
    row of the table); otherwise only the run rows whose document was judged
    somewhere are searched among the sorted judged cells.
    """
    run_docs, qrels_docs = _common_id_dtype([run._docs.labels, qrels._docs.labels])
    target = _keys.match(run_docs, qrels_docs)  # each run document's qrels document, or -1
    width = max(run_docs.shape[0], 1)
    run_doc_of = np.full(qrels_docs.shape[0], -1, dtype=np.int64)
    run_doc_of[target[target >= 0]] = np.flatnonzero(target >= 0)

    judged_doc = run_doc_of[qrels._docs.codes]
    judged = np.flatnonzero(judged_doc >= 0)  # judged documents the run retrieved somewhere
    cell = qrels_common[qrels._queries.codes[judged]] * width + judged_doc[judged]
    judged_class = qrels_class[judged]
    n_queries = int(max(run_common.max(initial=-1), qrels_common.max(initial=-1))) + 1
    row_start = run_common * width  # per run query code
    n_run = rows.query.shape[0]
    if n_queries * width <= _dense_cells_limit(n_run):
        table = np.zeros(n_queries * width, dtype=np.int8)
        table[cell] = judged_class
        index = np.repeat(row_start[rows.block_code], rows.block_length)
        index += rows.doc
        found: NDArray[np.int8] = table[index]
        return found
    out = np.zeros(n_run, dtype=np.int8)
    shared = np.zeros(width, dtype=bool)
    shared[run_doc_of[run_doc_of >= 0]] = True
    judged_rows = np.flatnonzero(shared[rows.doc])
    if judged_rows.shape[0]:
        by_cell = np.argsort(cell)
        sorted_cells = cell[by_cell]
        wanted = row_start[rows.query[judged_rows]] + rows.doc[judged_rows]
        position = np.minimum(np.searchsorted(sorted_cells, wanted), sorted_cells.shape[0] - 1)
        hit = sorted_cells[position] == wanted
        out[judged_rows[hit]] = judged_class[by_cell[position[hit]]]
    return out


@dataclass(frozen=True)
class _RunRows:
    """A run's rows grouped by query: query and document codes, scores, and
    each block of one query's rows (start, length, code)."""

    query: I64
    doc: I64
    score: F64
    block_start: I64
    block_length: I64

    @property
    def block_code(self) -> I64:
        return self.query[self.block_start]

    @classmethod
    def grouped(cls, run: Run, score_precision: str) -> _RunRows:
        """The run's rows, in place when grouped by query (as runs usually are),
        else stably sorted by query (a radix sort for up to 2^16 queries): the
        join and the ranking then work query by query."""
        query, doc, score = run._queries.codes, run._docs.codes, run.score
        if score_precision == "float32":  # trec_eval 9 and pytrec_eval keep scores as float
            score = score.astype(np.float32).astype(np.float64)
        n_queries = run._queries.labels.shape[0]
        if query.shape[0] and np.count_nonzero(query[1:] != query[:-1]) + 1 > n_queries:
            key = query.astype(np.uint16) if n_queries <= 2**16 else query
            by_query = np.argsort(key, kind="stable")
            doc, score = doc[by_query], score[by_query]
            query = np.repeat(np.arange(n_queries), np.bincount(query, minlength=n_queries))
        start, length = _keys.blocks(query)
        return cls(query, doc, score, start, length)


def _ranking_order(
    rows: _RunRows, doc_labels: NDArray[Any], payload: NDArray[np.int8],
) -> tuple[NDArray[np.int8], I64, I64, I64]:
    """Put ``payload`` (one value per row of ``rows``) in trec_eval's order:
    each query's rows by score descending, then document id descending.

    Returns the payload in that order and each block of one query's rows:
    its start, length and code. Blocks keep their place (queries need not
    come in id order). Rows often arrive already ranked, so sorting is
    skipped when an O(n) check shows it is not needed; ties in score
    (usually few) are the only rows whose document ids are compared.
    """
    n = rows.query.shape[0]
    order: NDArray[np.intp] | None = None
    s = rows.score
    same_q = np.ones(max(n - 1, 0), dtype=bool)
    same_q[rows.block_start[1:] - 1] = False
    if (same_q & (s[1:] > s[:-1])).any():
        order = _sort_within_blocks(s, rows.block_start, rows.block_length)
        s = s[order]
    tie = same_q
    tie &= s[1:] == s[:-1]
    pairs = np.flatnonzero(tie)
    if pairs.shape[0]:
        doc = rows.doc if order is None else rows.doc[order]
        if not (doc_labels[doc[pairs]] > doc_labels[doc[pairs + 1]]).all():
            tied, source = _tie_order(tie, pairs, doc, doc_labels)
            if order is None:
                payload = payload.copy()
                payload[tied] = payload[source]
            else:
                order[tied] = order[source]
    if order is not None:
        payload = payload[order]
    return payload, rows.block_start, rows.block_length, rows.block_code


def _tie_order(
    tie: NDArray[np.bool_], pairs: NDArray[np.intp], doc: I64, doc_labels: NDArray[Any],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Order each run of tied rows by document id descending (byte order).

    ``tie[i]``: positions i and i + 1 tie; ``pairs`` lists them; ``doc`` is
    the document code at each position. Returns the tied positions and, for
    each, the position whose row moves there: only the tied rows are touched.
    """
    rows = _keys.distinct(np.concatenate((pairs, pairs + 1)))
    starts_group = np.ones(rows.shape[0], dtype=bool)
    starts_group[1:] = ~tie[rows[1:] - 1]
    group = np.cumsum(starts_group) - 1
    codes = doc[rows]
    present = _keys.distinct(codes)  # the documents involved, ranked by id below
    rank = np.empty(doc_labels.shape[0], dtype=np.int64)
    rank[present[np.argsort(doc_labels[present], kind="stable")]] = np.arange(present.shape[0])
    # One integer per tied row: its group, then its document's rank reversed.
    # A query lists a document once, so the keys within a group are distinct.
    key = group * present.shape[0] + (present.shape[0] - 1 - rank[codes])
    return rows, rows[_argsort_distinct(key)]


def _argsort_distinct(key: I64) -> NDArray[np.intp]:
    """``np.argsort`` of distinct non-negative integers; when the key and the
    position fit in 63 bits together, one ``np.sort`` of both packed (several
    times faster than an argsort)."""
    position_bits = max(key.shape[0] - 1, 1).bit_length()
    if key.shape[0] == 0 or int(key.max()) >= 1 << (63 - position_bits):
        return np.argsort(key)
    packed = np.sort((key << position_bits) | np.arange(key.shape[0]))
    order: NDArray[np.intp] = packed & ((1 << position_bits) - 1)
    return order


def _sort_within_blocks(s: F64, starts: I64, lengths: I64) -> NDArray[np.intp]:
    """Permutation sorting each block of rows by score descending (ties in any order).

    The blocks become the rows of a matrix padded with +inf, sorted row by row
    (much faster than one global sort of (query, score) pairs).
    """
    n = s.shape[0]
    widest = int(lengths.max())
    if lengths.shape[0] * widest > 4 * n + 4096:  # very ragged: one global sort instead
        block = np.repeat(np.arange(lengths.shape[0]), lengths)
        return np.lexsort((-s, block))
    if (lengths == widest).all():  # equal depths: a reshape, no padding
        within = np.argsort(-s.reshape(-1, widest), axis=1)
        within += starts[:, None]
        return within.ravel()
    block = np.repeat(np.arange(lengths.shape[0]), lengths)
    flat = block * widest + (np.arange(n) - starts[block])
    padded = np.full(lengths.shape[0] * widest, np.inf)
    padded[flat] = -s
    within = np.argsort(padded.reshape(-1, widest), axis=1).ravel()
    result: NDArray[np.intp] = within[flat] + starts[block]
    return result


# -- the measures: per-query values from the state --------------------------------------


def _average_precision(r: _Rankings, k: int | None, denominator: str) -> F64:
    count = r.n_relevant_retrieved if k is None else r.relevant_in_top(k)
    total = r.hit_sum(r.hit_precision, count)
    if denominator == "relevant":
        return ratio(total, r.n_relevant.astype(np.float64), "AP (no relevant documents)")
    if k is None:  # unreachable through the public API
        raise TypeError("min_k_relevant needs a cutoff k")
    return ratio(
        total, np.minimum(r.n_relevant, k).astype(np.float64),
        "AP_min_k_relevant (no relevant documents)",
    )


def _precision(r: _Rankings, k: int) -> F64:
    return r.relevant_in_top(k) / float(k)


def _recall(r: _Rankings, k: int) -> F64:
    return ratio(r.relevant_in_top(k).astype(np.float64), r.n_relevant.astype(np.float64),
                 "R@k (no relevant documents)")


def _r_precision(r: _Rankings) -> F64:
    found = r.relevant_in_top(np.minimum(r.lengths, r.n_relevant)).astype(np.float64)
    return ratio(found, r.n_relevant.astype(np.float64), "R-prec (no relevant documents)")


def _reciprocal_rank(r: _Rankings) -> F64:
    out = np.zeros(r.n_queries)
    hit = r.n_relevant_retrieved > 0
    out[hit] = 1.0 / r.hit_rank[r.first_hit[hit]].astype(np.float64)
    return out


def _recall_cutoffs(r: _Rankings, levels: F64, convention: str) -> I64:
    """(queries, levels): the number of relevant documents each recall level needs."""
    exact = levels[None, :] * r.n_relevant[:, None].astype(np.float64)
    if convention == "trec_eval_9":
        return np.trunc(exact + 0.9).astype(np.int64)  # (long) (r * R + 0.9)
    whole = np.trunc(exact)  # lround: halves away from zero (exact >= 0 here)
    return (whole + (exact - whole >= 0.5)).astype(np.int64)


def _interpolated_precision(r: _Rankings, levels: F64, convention: str) -> F64:
    """(queries, levels) interpolated precision, trec_eval's iprec_at_recall."""
    cutoff = _recall_cutoffs(r, levels, convention)
    found = r.n_relevant_retrieved[:, None]
    reached = (cutoff <= found) & (found > 0)
    # Level 0 (cutoff 0) takes the value at the first hit, like cutoff 1.
    hit = r.first_hit[:, None] + np.maximum(cutoff, 1) - 1
    out = np.zeros(cutoff.shape)
    if r.hit_interpolated_precision.shape[0]:
        out[reached] = r.hit_interpolated_precision[hit[reached]]
    return out


_ELEVEN_LEVELS = np.arange(11) / 10.0  # 0.0, 0.1, ..., 1.0 as trec_eval's literals


def _mean_interpolated_precision(r: _Rankings, levels: F64, convention: str) -> F64:
    """Mean of iprec over ascending ``levels`` (trec_eval's 11pt_avg.levels)."""
    values = _interpolated_precision(r, levels, convention)
    return mean_over_levels([values[:, j] for j in range(values.shape[1])])


def mean_over_levels(columns: Sequence[F64]) -> F64:
    """Element-wise mean of per-level values, added from the last (highest) level
    down as trec_eval's m_11pt_avg.c does, so the float sums agree bit for bit."""
    total = np.zeros_like(columns[0])
    for column in reversed(columns):
        total += column
    return total / len(columns)


def _bpref(r: _Rankings) -> F64:
    """trec_eval's bpref (m_bpref.c): for each relevant retrieved document,
    1 - min(judged non-relevant above it, R) / min(N, R), summed and divided by R."""
    nonrel_before = np.concatenate(([0], np.cumsum(r.judged_nonrelevant, dtype=np.int64)))
    rows = r.starts[r.hit_query] + r.hit_rank - 1
    above = nonrel_before[rows] - nonrel_before[r.starts[r.hit_query]]
    R = r.n_relevant[r.hit_query]
    N = r.n_judged_nonrelevant[r.hit_query]
    term = np.ones(above.shape[0])
    some = above > 0  # then N >= 1 and R >= 1: no 0/0
    term[some] = 1.0 - np.minimum(above[some], R[some]) / np.minimum(N[some], R[some])
    total = r.hit_sum(term, r.n_relevant_retrieved)
    return ratio(total, r.n_relevant.astype(np.float64), "bpref (no relevant documents)")


def _set_precision(r: _Rankings) -> F64:
    out = np.zeros(r.n_queries)
    some = r.lengths > 0
    out[some] = r.n_relevant_retrieved[some] / r.lengths[some]
    return out


def _set_recall(r: _Rankings) -> F64:
    return ratio(r.n_relevant_retrieved.astype(np.float64), r.n_relevant.astype(np.float64),
                 "set_R (no relevant documents)")


def _set_f(r: _Rankings, x: float = 1.0) -> F64:
    """trec_eval's set_F: (x + 1) P R / (x P + R), 0 when nothing relevant was retrieved."""
    out = np.zeros(r.n_queries)
    hit = r.n_relevant_retrieved > 0
    found = r.n_relevant_retrieved[hit].astype(np.float64)
    P = found / r.lengths[hit]
    R = found / r.n_relevant[hit]
    out[hit] = (x + 1.0) * P * R / (x * P + R)
    return out


def _compute(measure: Measure, r: _Rankings, convention: str) -> F64:
    name, k = measure.name, measure.cutoff
    table: dict[str, Callable[[], F64]] = {
        "AP": lambda: _average_precision(r, None if k is None else int(k), "relevant"),
        "gm_AP": lambda: _average_precision(r, None, "relevant"),
        "AP_min_k_relevant": lambda: _average_precision(r, int(k or 0), "min_k_relevant"),
        "P": lambda: _precision(r, int(k or 0)),
        "R": lambda: _recall(r, int(k or 0)),
        "R-prec": lambda: _r_precision(r),
        "RR": lambda: _reciprocal_rank(r),
        "iprec": lambda: _interpolated_precision(r, np.array([float(k or 0)]), convention)[:, 0],
        "11pt": lambda: _mean_interpolated_precision(r, _ELEVEN_LEVELS, convention),
        "bpref": lambda: _bpref(r),
        "num_ret": lambda: r.lengths.astype(np.float64),
        "num_rel": lambda: r.n_relevant.astype(np.float64),
        "num_rel_ret": lambda: r.n_relevant_retrieved.astype(np.float64),
        "set_P": lambda: _set_precision(r),
        "set_R": lambda: _set_recall(r),
        "set_F": lambda: _set_f(r, 1.0 if k is None else float(k)),
    }
    return table[name]()


def _sequential_sum(values: F64) -> float:
    """The sum in index order, one addition at a time, as trec_eval accumulates."""
    return float(np.cumsum(values)[-1]) if values.shape[0] else 0.0


def _summary(
    measure: Measure, values: F64, has_results: NDArray[np.bool_], convention: str
) -> float:
    n = values.shape[0]
    if measure.name in _SUMMED:
        return _sequential_sum(values)
    if measure.name == "gm_AP":
        logs = np.log(np.maximum(values, _MIN_GEO_MEAN))
        if convention == "trec_eval_9":
            # trec_eval 9 sums the queries with results, then adds the missing
            # ones' log(MIN_GEO_MEAN) in one product (meas_avg.c).
            total = _sequential_sum(logs[has_results])
            total += (n - int(np.count_nonzero(has_results))) * math.log(_MIN_GEO_MEAN)
        else:
            total = _sequential_sum(logs)
        return float(math.exp(total / n))
    return float(_sequential_sum(values) / n)


# -- results --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RankingEvaluation:
    """Per-query values and summaries of ranking measures over many queries.

    ``per_query[name][i]`` is the value of measure ``name`` for query
    ``query_ids[i]`` (queries in id order: byte order for strings).
    ``summary[name]`` is trec_eval's summary over the ``n_queries`` queries:
    the mean, except the sum for ``num_ret``, ``num_rel`` and
    ``num_rel_ret`` and the geometric mean (AP floored at 1e-5) for
    ``gm_AP``. ``has_results[i]`` is False for a query that had judgments but
    no results (only with ``queries_without_results="zero"``).
    """

    measures: tuple[Measure, ...]
    query_ids: NDArray[Any]
    per_query: Mapping[str, F64]
    summary: Mapping[str, float]
    n_queries: int
    has_results: NDArray[np.bool_] = field(repr=False)
    convention: str = "trec_eval_10"

    def __getitem__(self, measure: str | Measure) -> float:
        """The summary value of one measure, e.g. ``result["AP"]``."""
        return self.summary[str(Measure.parse(measure))]

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}`` plus ``"all"`` for the summaries."""
        out: dict[str, dict[str, float]] = {}
        for i, query in enumerate(self.query_ids.tolist()):
            key = query.decode("utf-8", "replace") if isinstance(query, bytes) else str(query)
            out[key] = {name: float(values[i]) for name, values in self.per_query.items()}
        out["all"] = dict(self.summary)
        return out


def evaluate(
    qrels: Any,
    run: Any,
    measures: str | Measure | Iterable[str | Measure] = ("AP", "P@10"),
    *,
    relevance_level: int = 1,
    depth: int | None = None,
    queries_without_results: MissingQueries = "skip",
    convention: Convention = "trec_eval_10",
    score_precision: ScorePrecision = "float64",
    zero_division: ZeroDivision = 0,
) -> RankingEvaluation:
    """Evaluate a run of many queries against relevance judgments, as trec_eval does.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame, pyarrow Table, (query_id, doc_id, relevance) or path
        The judgments: ``{query: {doc: grade}}``, a table with columns
        ``query_id``, ``doc_id``, ``relevance``, or a TREC qrels file.
    run : Run, dict, DataFrame, pyarrow Table, (query_id, doc_id, score) or path
        The retrieved documents and their scores, in any row order.
    measures : str, Measure or iterable of them, default ("AP", "P@10")
        Names such as ``"AP"``, ``"AP@10"``, ``"P@10"``, ``"R@100"``,
        ``"R-prec"``, ``"RR"``, ``"iprec@0.5"``, ``"11pt"``, ``"bpref"``
        (:class:`Measure` lists them all).
    relevance_level : int, default 1
        A document is relevant when its grade is at least this (trec_eval -l).
    depth : int, optional
        Look only at each query's top ``depth`` documents (trec_eval -M).
    queries_without_results : {"skip", "zero"}, default "skip"
        A query with judgments but no results is left out of the means
        ("skip") or scored 0 in every measure and counted ("zero",
        trec_eval -c). Queries with results but no judgments are always left out.
    convention : {"trec_eval_10", "trec_eval_9"}, default "trec_eval_10"
        The recall-level cutoff of ``iprec`` and ``11pt``: ``lround(r R)``
        (trec_eval 10) or ``(long)(r R + 0.9)`` (trec_eval 9, pytrec_eval,
        ranx). With "zero", also how ``gm_AP`` adds the missing queries.
    score_precision : {"float64", "float32"}, default "float64"
        Round scores to float32 before ranking, as trec_eval 9 and
        pytrec_eval do (it changes which scores tie).
    zero_division : {0, 1, "nan", "raise"}, default 0
        The value of a measure divided by R for a query with no relevant
        documents; 0 is trec_eval's.

    Returns
    -------
    RankingEvaluation

    Examples
    --------
    >>> from prcurve.ranking import evaluate
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"x": 0.2, "y": 0.7}}
    >>> result = evaluate(qrels, run, ["AP", "P@2", "RR"])
    >>> result.per_query["AP"].tolist()
    [0.8333333333333333, 0.5]
    >>> round(result["AP"], 4), result["P@2"], result["RR"], result.n_queries
    (0.6667, 0.5, 0.75, 2)
    """
    parsed = _parse_measures(measures)
    check_choice("convention", convention, CONVENTIONS)
    check_zero_division(zero_division)
    judged = judge(
        qrels, run, relevance_level=relevance_level, depth=depth,
        queries_without_results=queries_without_results, score_precision=score_precision,
    )
    return judged.evaluate(parsed, convention=convention, zero_division=zero_division)


class JudgedRun:
    """Every query's ranking with its judgments attached: the state all measures read.

    Built by :func:`judge` (the sort and the join, the expensive part);
    :meth:`evaluate` then computes any measures from it in a few vectorised
    passes, so evaluating several measure sets, or the same set under both
    conventions, ranks and joins once.

    Examples
    --------
    >>> from prcurve.ranking import judge
    >>> judged = judge({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "x": 0.5, "b": 0.1}})
    >>> judged.n_queries, judged.evaluate(["AP", "P@2"]).summary
    (1, {'AP': 0.8333333333333333, 'P@2': 0.5})
    """

    def __init__(self, prepared: _Prepared) -> None:
        self._prepared = prepared

    @property
    def query_ids(self) -> NDArray[Any]:
        """The evaluated queries, in id order."""
        return self._prepared.query_ids

    @property
    def n_queries(self) -> int:
        return self._prepared.rankings.n_queries

    def evaluate(
        self,
        measures: str | Measure | Iterable[str | Measure] = ("AP", "P@10"),
        *,
        convention: Convention = "trec_eval_10",
        zero_division: ZeroDivision = 0,
    ) -> RankingEvaluation:
        """The measures for every query and their summaries (see :func:`evaluate`)."""
        parsed = _parse_measures(measures)
        check_choice("convention", convention, CONVENTIONS)
        prepared = self._prepared
        with undefined_scope(zero_division):
            per_query = {str(m): _compute(m, prepared.rankings, convention) for m in parsed}
        summary = {
            str(m): _summary(m, per_query[str(m)], prepared.has_results, convention)
            for m in parsed
        }
        return RankingEvaluation(
            measures=parsed,
            query_ids=prepared.query_ids,
            per_query=per_query,
            summary=summary,
            n_queries=prepared.rankings.n_queries,
            has_results=prepared.has_results,
            convention=convention,
        )


def judge(
    qrels: Any,
    run: Any,
    *,
    relevance_level: int = 1,
    depth: int | None = None,
    queries_without_results: MissingQueries = "skip",
    score_precision: ScorePrecision = "float64",
) -> JudgedRun:
    """Rank every query's documents and attach the judgments, once.

    Parameters are those of :func:`evaluate` that decide the rankings and
    who is relevant; :meth:`JudgedRun.evaluate` takes the measures.

    Returns
    -------
    JudgedRun
    """
    level = check_relevance_level(relevance_level)
    cut = check_optional_cutoff("depth", depth)
    check_choice("queries_without_results", queries_without_results, _MISSING)
    check_choice("score_precision", score_precision, _SCORE_PRECISIONS)
    prepared = _prepare(
        Qrels.coerce(qrels), Run.coerce(run),
        relevance_level=level, depth=cut,
        queries_without_results=queries_without_results, score_precision=score_precision,
    )
    return JudgedRun(prepared)


# -- one ranking ---------------------------------------------------------------------


def _one_ranking(
    y_true: ArrayLike,
    y_score: ArrayLike,
    pos_label: Any,
    n_relevant: int | None,
    doc_ids: ArrayLike | None,
) -> _Rankings:
    positive, scores, ids = check_ranking(y_true, y_score, pos_label, doc_ids)
    if ids is None:
        order = np.argsort(-scores, kind="stable")  # ties keep their input order
    else:
        _, codes = np.unique(ids, return_inverse=True)
        order = np.lexsort((-codes, -scores))  # ties: document id descending (trec_eval)
    relevant = positive[order]
    total = check_n_relevant(n_relevant, int(np.count_nonzero(relevant)))
    return _Rankings(
        lengths=np.array([relevant.shape[0]], dtype=np.intp),
        relevant=relevant,
        judged_nonrelevant=~relevant,
        n_relevant=np.array([total], dtype=np.int64),
        n_judged_nonrelevant=np.array([relevant.shape[0] - np.count_nonzero(relevant)]),
    )


_RANKING_PARAMETERS = """y_true : array_like, shape (n,)
        Binary relevance of each retrieved document (booleans, {0, 1}, or any
        two values with ``pos_label``).
    y_score : array_like, shape (n,)
        Finite scores; the ranking is by score descending.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a relevant document.
    n_relevant : int, optional
        The number of relevant documents for the query, retrieved or not
        (R). Default: the relevant documents in ``y_true``.
    doc_ids : array_like, shape (n,), optional
        Document ids; ties in score are then broken by id descending, as
        trec_eval does. Without them tied documents keep their input order."""


def precision_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int,
    *,
    pos_label: Any = None,
    doc_ids: ArrayLike | None = None,
) -> float:
    """Precision at k: relevant documents among the top k, divided by k.

    Fewer than k retrieved: the missing ranks count as non-relevant (seed
    000; trec_eval's P.k), so P@k < 1 whenever fewer than k are relevant.

    Parameters
    ----------
    y_true, y_score, pos_label, doc_ids
        See :func:`average_precision_at_k`.
    k : int
        The cutoff, >= 1.

    Returns
    -------
    float

    Examples
    --------
    Seed 000's movies: three relevant among the top five.

    >>> from prcurve.ranking import precision_at_k
    >>> truth = [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0]
    >>> score = [.94, .91, .90, .66, .63, .57, .37, .27, .21, .20, .18, .06]
    >>> precision_at_k(truth, score, 5)
    0.6
    >>> precision_at_k([1, 1], [0.9, 0.8], 4)  # two retrieved, two missing ranks
    0.5
    """
    cutoff = check_cutoff("k", k)
    return float(_precision(_one_ranking(y_true, y_score, pos_label, None, doc_ids), cutoff)[0])


def recall_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Recall at k: relevant documents among the top k, divided by R.

    Parameters
    ----------
    y_true, y_score, pos_label, n_relevant, doc_ids
        See :func:`average_precision_at_k`.
    k : int
        The cutoff, >= 1.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import recall_at_k
    >>> recall_at_k([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], 2, n_relevant=4)
    0.25
    """
    cutoff = check_cutoff("k", k)
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        return float(_recall(r, cutoff)[0])


def average_precision_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int | None = None,
    *,
    denominator: Literal["min_k_relevant", "relevant"] = "min_k_relevant",
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Average precision over the top k: sum of P(i) rel(i) for i <= k, normalised.

    ``denominator="min_k_relevant"`` (default) divides by min(k, R): seed
    000's AP@k. ``denominator="relevant"`` divides by R, as trec_eval's
    ``map_cut.k`` (and ``map`` when ``k`` is None) does.

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary relevance of each retrieved document (booleans, {0, 1}, or any
        two values with ``pos_label``).
    y_score : array_like, shape (n,)
        Finite scores; the ranking is by score descending.
    k : int, optional
        The cutoff, >= 1; None looks at the whole ranking (then
        ``min_k_relevant`` is R).
    denominator : {"min_k_relevant", "relevant"}, default "min_k_relevant"
        What the sum is divided by.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a relevant document.
    n_relevant : int, optional
        The number of relevant documents for the query, retrieved or not
        (R). Default: the relevant documents in ``y_true``.
    doc_ids : array_like, shape (n,), optional
        Document ids; ties in score are then broken by id descending, as
        trec_eval does. Without them tied documents keep their input order.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    Seed 000: (1 + 1) / min(3, 4) = 0.67.

    >>> from prcurve.ranking import average_precision_at_k
    >>> truth = [1, 1, 0, 1, 1, 0, 0, 0, 0, 0]
    >>> score = [.840, -.085, -.264, -.463, -.551, -.579, -.708, -1.108, -1.170, -1.593]
    >>> round(average_precision_at_k(truth, score, 3), 2)
    0.67
    >>> average_precision_at_k(truth, score, 3, denominator="relevant")
    0.5
    """
    cutoff = check_optional_cutoff("k", k)
    check_choice("denominator", denominator, ("min_k_relevant", "relevant"))
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        if denominator == "min_k_relevant" and cutoff is None:
            denominator = "relevant"  # min(inf, R) = R
        return float(_average_precision(r, cutoff, denominator)[0])


def r_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """R-precision: relevant documents among the top R, divided by R (trec_eval's Rprec).

    Only the top min(retrieved, R) documents are looked at; the rest of the
    top R count as non-relevant.

    Parameters
    ----------
    y_true, y_score, pos_label, n_relevant, doc_ids
        See :func:`average_precision_at_k`.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import r_precision
    >>> r_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], n_relevant=3)
    0.6666666666666666
    """
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        return float(_r_precision(r)[0])


def reciprocal_rank(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    doc_ids: ArrayLike | None = None,
) -> float:
    """1 / rank of the first relevant document; 0 when none was retrieved.

    Parameters
    ----------
    y_true, y_score, pos_label, doc_ids
        See :func:`average_precision_at_k`.

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import reciprocal_rank
    >>> reciprocal_rank([0, 0, 1, 1], [0.9, 0.8, 0.7, 0.6])
    0.3333333333333333
    """
    return float(_reciprocal_rank(_one_ranking(y_true, y_score, pos_label, None, doc_ids))[0])


def ranking_counts(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
) -> ThresholdCounts:
    """One ranking as the core count state, with rank as the threshold.

    Threshold ``-i`` selects the top ``i`` documents, so ``tp[i - 1]`` is
    the relevant documents in the top ``i``; ``n_pos`` is R (relevant
    documents not retrieved stay below every threshold) and ``n_neg`` the
    non-relevant retrieved. Every view of the core applies:
    ``prcurve.PRCurve.from_counts`` gives the ranking's PR curve, and the
    ``step`` average precision of these counts is trec_eval's AP.

    Examples
    --------
    >>> from prcurve.ranking import ranking_counts
    >>> c = ranking_counts([1, 0, 1], [0.9, 0.8, 0.7], n_relevant=4)
    >>> c.thresholds.tolist(), c.tp.tolist(), c.n_pos
    ([-1.0, -2.0, -3.0], [1.0, 1.0, 2.0], 4.0)
    """
    from prcurve.counts import ThresholdCounts

    r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
    n = r.relevant.shape[0]
    tp = np.cumsum(r.relevant, dtype=np.float64)
    fp = np.arange(1, n + 1, dtype=np.float64) - tp
    thresholds = -np.arange(1, n + 1, dtype=np.float64)
    n_neg = float(n - tp[-1]) if n else 0.0
    return ThresholdCounts(thresholds, tp, fp, float(r.n_relevant[0]), n_neg)

"""Judgments and runs as long tables: :class:`Qrels`, :class:`Run` and their TREC files.

Both are built from a dict (pytrec_eval's and ranx's form), a DataFrame or
pyarrow Table, three arrays, or a TREC file, and dictionary-encode their ids
once when built (:mod:`prcurve.ranking.keys`), so that evaluation handles
integers only. Building one checks that no document is listed twice for a query.

TREC files are read as trec_eval reads them (``get_qrels.c``,
``get_trec_results.c``; the byte-level parsing is in
:mod:`prcurve.ranking.trec_format`)::

    qrels:  query  iter  docno  relevance
    run:    query  Q0    docno  rank  score  run_id  [anything else]
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.table import Table
from prcurve.ranking import keys as _keys
from prcurve.ranking.trec_format import parse_numbers, read_bytes, split_fields
from prcurve.validation.arrays import as_1d, check_finite_numbers, check_same_length
from prcurve.validation.ranking import (
    check_columns,
    check_grades,
    check_id_column,
    duplicate_document,
    wrong_table_type,
)

__all__ = [
    "Qrels",
    "Run",
    "parse_qrels",
    "parse_run",
    "read_qrels",
    "read_run",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


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

    def _values(self) -> NDArray[Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __repr__(self) -> str:
        source = f", source={self.source!r}" if self.source else ""
        n = self._queries.labels.shape[0]
        return (f"{type(self).__name__}({n} {'query' if n == 1 else 'queries'}, "
                f"{len(self)} {'row' if len(self) == 1 else 'rows'}{self._summary()}{source})")

    def _summary(self) -> str:
        return ""

    def to_table(self) -> Table:
        """The rows as a :class:`~prcurve.Table`: ids as text (bytes decoded as UTF-8)."""
        return Table({"query_id": _as_text(self.query_id), "doc_id": _as_text(self.doc_id),
                      self._VALUE: self._values()})

    def _repr_html_(self) -> str:
        """Notebook display: the summary and the first and last rows, ids as text."""
        import html

        return (f"<p>{html.escape(repr(self))}</p>"
                + self.to_table().to_html(max_rows=10))

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


@dataclass(frozen=True, eq=False, repr=False)
class Qrels(_LongTable):
    """Relevance judgments as a long table: one row per (query, document, grade).

    A document counts as relevant when its grade is at least the relevance
    level (default 1); a negative grade means judged but unusable (trec_eval's
    "unjudged in pool"). Like :class:`Run`, it checks for repeated
    documents and encodes its ids when built. Build with
    :meth:`from_dict`, :meth:`from_frame`, :meth:`from_arrays` or
    :func:`read_qrels`.

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

    def _values(self) -> NDArray[Any]:
        return self.relevance

    def _summary(self) -> str:
        return f", {int(np.count_nonzero(self.relevance > 0))} with grade > 0"

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
        return read_qrels(path)


@dataclass(frozen=True, eq=False, repr=False)
class Run(_LongTable):
    """Retrieved documents as a long table: one row per (query, document, score).

    Row order does not matter: each query is ranked by score descending, ties
    broken by document id descending (trec_eval). Building one checks that
    no document is listed twice for a query and encodes the ids once, so
    that every evaluation of it handles integers only. Build with
    :meth:`from_dict`, :meth:`from_frame`, :meth:`from_arrays` or
    :func:`read_run`.

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

    def _values(self) -> NDArray[Any]:
        return self.score

    def _summary(self) -> str:
        return "" if self.run_id is None else f", run_id={self.run_id!r}"

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


def parse_qrels(data: bytes, source: str = "<qrels>") -> Qrels:
    """Judgments from the bytes of a qrels file (see :func:`read_qrels`)."""
    fields = split_fields(data, source, "qrels", 4, True, "query iter docno relevance")
    relevance = parse_numbers(fields, 3, np.int64, source, "qrels", "relevance")
    return Qrels(
        fields.strings(0), fields.strings(2), relevance.astype(np.int64), source, fields.line
    )


def parse_run(data: bytes, source: str = "<run>") -> Run:
    """A run from the bytes of a TREC run file (see :func:`read_run`)."""
    fields = split_fields(data, source, "run", 6, False, "query Q0 docno rank score run_id")
    score = parse_numbers(fields, 4, np.float64, source, "run", "score")
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
    >>> from prcurve.ranking import read_qrels
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("# judged by A\\n301 0 doc-1 1\\n301 0 doc#2 0\\n")
    >>> q = read_qrels(f.name); os.remove(f.name)
    >>> q.doc_id.tolist(), q.relevance.tolist(), q.line.tolist()
    ([b'doc-1', b'doc#2'], [1, 0], [2, 3])
    """
    data, source = read_bytes(path, "qrels")
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
    >>> from prcurve.ranking import read_run
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("301 Q0 d1 1 2.5 myrun\\n301 Q0 d2 2 1.5 myrun trailing words\\n")
    >>> r = read_run(f.name); os.remove(f.name)
    >>> r.doc_id.tolist(), r.score.tolist(), r.run_id
    ([b'd1', b'd2'], [2.5, 1.5], 'myrun')
    """
    data, source = read_bytes(path, "run")
    return parse_run(data, source)


def _as_text(ids: NDArray[Any]) -> NDArray[Any]:
    """Ids for display: bytes decoded as UTF-8 (undecodable bytes shown escaped)."""
    if ids.dtype.kind == "S":
        return np.array([i.decode("utf-8", "backslashreplace") for i in ids.tolist()],
                        dtype=object)
    return ids

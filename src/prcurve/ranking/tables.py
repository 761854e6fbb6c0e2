"""Judgments and runs as long tables: :class:`Qrels`, :class:`Run` and their TREC files.

Both are built from a dict (pytrec_eval's and ranx's form), a DataFrame or
pyarrow Table, three arrays, or a TREC file, and dictionary-encode their ids
once when built (:mod:`prcurve.ranking.keys`; pyarrow and pandas columns and
files read by pyarrow arrive encoded already), so that evaluation handles
integers only. Building one checks that no document is listed twice for a query.

TREC files are read as trec_eval reads them (``get_qrels.c``,
``get_trec_results.c``; the byte-level parsing is in
:mod:`prcurve.ranking.trec_format`)::

    qrels:  query  iter  docno  relevance
    run:    query  Q0    docno  rank  score  run_id  [anything else]
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.arrow import primitive_numpy
from prcurve.ranking import keys as _keys
from prcurve.ranking.row_docs import RowDocs
from prcurve.ranking.trec_format import Columns
from prcurve.ranking.trec_reader import parse_columns, read_columns
from prcurve.validation.arrays import as_1d, check_finite_numbers, check_same_length
from prcurve.validation.ranking import (
    check_columns,
    check_grades,
    check_id_column,
    check_id_labels,
    duplicate_document,
    missing_ids,
    wrong_table_type,
)

if TYPE_CHECKING:  # imported where used: reading a TREC file needs neither (issue 26)
    from prcurve.core.table import Table

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

Ids = NDArray[Any] | _keys.Encoded


class _LongTable:
    """What :class:`Qrels` and :class:`Run` share: building from a dict, a table,
    three arrays or a TREC file, and the dictionary encoding of their ids.
    Subclasses name their value column and reader."""

    _KIND: ClassVar[str]  # "qrels" or "run": the argument named in errors
    _VALUE: ClassVar[str]  # the value column: "relevance" or "score"
    _DICT_FORM: ClassVar[str]  # how the dict form reads, for errors

    source: str | None
    # The ids as distinct labels and per-row codes (queries in id order), so
    # that evaluation handles integers only.
    _queries: _keys.Encoded
    _docs: _keys.Encoded

    def _build(
        self, query_id: Ids, doc_id: Ids, source: str | None, line: I64 | None,
        consecutive_lines: bool = False,
    ) -> None:
        self.source = source
        self._line = line
        self._consecutive_lines = consecutive_lines  # row i is line i + 1 of ``source``
        self._query_id = None if isinstance(query_id, _keys.Encoded) else query_id
        self._doc_id = None if isinstance(doc_id, _keys.Encoded) else doc_id
        queries = (_keys.by_label(query_id) if isinstance(query_id, _keys.Encoded)
                   else _keys.encode(query_id, grouped=True, sort_labels=True))
        docs = doc_id if isinstance(doc_id, _keys.Encoded) else _keys.encode(doc_id)
        self._queries, self._docs = queries, docs
        # One row per (query, document); RowDocs were checked while read (trec_stream).
        width = max(docs.n_labels, 1)
        if not isinstance(docs, RowDocs) and _keys.repeated_pairs(
                queries.codes, docs.codes, queries.labels.shape[0], width):
            self._raise_duplicate(queries.codes * width + docs.codes)

    def __len__(self) -> int:
        return int(self._queries.codes.shape[0])

    @property
    def query_id(self) -> NDArray[Any]:
        """Each row's query id (bytes as in the file, or as given)."""
        if self._query_id is None:
            self._query_id = self._queries.labels[self._queries.codes]
        return self._query_id

    @property
    def doc_id(self) -> NDArray[Any]:
        """Each row's document id."""
        if self._doc_id is None:
            self._doc_id = self._docs.labels[self._docs.codes]
        return self._doc_id

    @property
    def line(self) -> I64 | None:
        """Each row's 1-based line in ``source`` (None when not read from a file)."""
        if self._line is None and self._consecutive_lines:
            self._line = np.arange(1, len(self) + 1, dtype=np.int64)
        return self._line

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
        from prcurve.core.table import Table

        return Table({"query_id": _as_text(self.query_id), "doc_id": _as_text(self.doc_id),
                      self._VALUE: self._values()})

    def _repr_html_(self) -> str:
        """Notebook display: the summary and the first and last rows, ids as text."""
        import html

        return (f"<p>{html.escape(repr(self))}</p>"
                + self.to_table().to_html(max_rows=10))

    def _raise_duplicate(self, pair: I64) -> None:
        """Name the first row that repeats an earlier (query, document) pair."""
        _, first = np.unique(pair, return_index=True)
        repeats = np.ones(pair.shape[0], dtype=bool)
        repeats[first] = False
        row = int(np.flatnonzero(repeats)[0])
        lines = self.line
        line = None if lines is None else int(lines[row])
        raise duplicate_document(
            self._KIND, self._queries.labels[self._queries.codes[row]],
            self._docs.labels[self._docs.codes[row]], self.source, line,
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
        """From ``{query: {document: value}}`` (pytrec_eval's and ranx's format).

        The ids are encoded while the dicts are walked (each distinct document
        once), and no list of the rows is ever built.
        """
        from prcurve.ranking.dicts import flatten

        queries, docs, flat = flatten(values, cls._KIND)
        return cls.from_arrays(queries, docs, flat)  # type: ignore[arg-type]

    @classmethod
    def from_frame(cls: type[_T], frame: Any) -> _T:
        """From a pandas or polars DataFrame or a pyarrow Table with columns query_id (or qid),
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

    def __init__(
        self, query_id: Ids, doc_id: Ids, relevance: I64, source: str | None = None,
        line: I64 | None = None, *, consecutive_lines: bool = False,
    ) -> None:
        self.relevance = relevance
        self._build(query_id, doc_id, source, line, consecutive_lines)

    def _values(self) -> NDArray[Any]:
        return self.relevance

    def _summary(self) -> str:
        return f", {int(np.count_nonzero(self.relevance > 0))} with grade > 0"

    @classmethod
    def from_arrays(
        cls, query_id: ArrayLike | _keys.Encoded, doc_id: ArrayLike | _keys.Encoded,
        relevance: ArrayLike,
    ) -> Qrels:
        """From three equal-length columns (ids as strings or integers)."""
        q = _ids("query_id", query_id)
        n = _rows(q)
        return cls(
            q, _ids("doc_id", doc_id, n),
            _checked_length(check_grades("relevance", relevance), n),
        )

    @classmethod
    def _read(cls, path: str | os.PathLike[str]) -> Qrels:
        return read_qrels(path)


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

    def __init__(
        self, query_id: Ids, doc_id: Ids, score: F64, run_id: str | None = None,
        source: str | None = None, line: I64 | None = None, *, consecutive_lines: bool = False,
    ) -> None:
        self.score = score
        self.run_id = run_id
        self._build(query_id, doc_id, source, line, consecutive_lines)

    def _values(self) -> NDArray[Any]:
        return self.score

    def _summary(self) -> str:
        return "" if self.run_id is None else f", run_id={self.run_id!r}"

    @classmethod
    def from_arrays(
        cls, query_id: ArrayLike | _keys.Encoded, doc_id: ArrayLike | _keys.Encoded,
        score: ArrayLike, run_id: str | None = None,
    ) -> Run:
        """From three equal-length columns; scores must be finite."""
        q = _ids("query_id", query_id)
        n = _rows(q)
        scores = check_finite_numbers("score", as_1d("score", score))
        return cls(
            q, _ids("doc_id", doc_id, n),
            _checked_length(scores.astype(np.float64, copy=False), n), run_id,
        )

    @classmethod
    def _read(cls, path: str | os.PathLike[str]) -> Run:
        return read_run(path)


def _ids(name: str, values: ArrayLike | _keys.Encoded, n: int | None = None) -> Ids:
    if isinstance(values, _keys.Encoded):
        if values.has_words and values.dense:  # labels of words: valid text or bytes
            if n is not None and values.codes.shape[0] != n:
                check_id_column(name, np.empty(values.codes.shape[0]), n)  # the length error
            return values
        labels = check_id_labels(name, values.labels)
        if n is not None and values.codes.shape[0] != n:
            check_id_column(name, np.empty(values.codes.shape[0]), n)  # the length error
        codes = values.codes
        if values.dense:  # every label has a row (a fresh encoding)
            same = labels is values.labels  # then its labels' keys hold (keys.Encoded)
            return _keys.Encoded(labels, codes, dense=True,
                                 label_keys=values.label_keys if same else None,
                                 key_words=values.key_words)
        used = np.bincount(codes, minlength=labels.shape[0]) > 0
        if not used.all():  # an id with no row (an empty dict, an unused category)
            labels = labels[used]
            codes = (np.cumsum(used) - 1)[codes]
        return _keys.Encoded(labels, codes)
    return check_id_column(name, values, n)


def _rows(ids: Ids) -> int:
    return int((ids.codes if isinstance(ids, _keys.Encoded) else ids).shape[0])


def _checked_length(array: NDArray[Any], n: int) -> NDArray[Any]:
    check_same_length(query_id=np.empty(n), values=array)
    return array


def _frame_columns(
    frame: Any, argument: str, wanted: dict[str, Sequence[str]]
) -> dict[str, Any]:
    """The columns of a pandas or polars DataFrame or a pyarrow Table: string id columns
    dictionary-encoded by pandas or pyarrow (no Python object per row). A polars frame is
    read as the pyarrow Table it converts to (``to_arrow``: its columns' buffers, mostly
    without a copy), so its string ids are encoded by pyarrow."""
    if _is_polars(frame):
        frame = frame.to_arrow()
    found = frame.column_names if hasattr(frame, "column_names") else frame.columns
    names = [str(c) for c in found]
    chosen = check_columns(argument, names, wanted)
    out: dict[str, Any] = {}
    for role, name in chosen.items():
        column = frame[name]  # a pandas Series or a pyarrow ChunkedArray
        if role != "value":
            encoded = _encode_column(column, name, grouped=role == "query")
            if encoded is not None:
                out[role] = encoded
                continue
        out[role] = _plain_column(column)
    return out


def _is_polars(frame: Any) -> bool:
    """A polars DataFrame, told by its module (polars is never imported here)."""
    return type(frame).__module__.split(".")[0] == "polars" and hasattr(frame, "to_arrow")


def _plain_column(column: Any) -> NDArray[Any]:
    """A column that is not encoded (scores, grades, integer ids) as NumPy: a pyarrow
    column of numbers without nulls as a view of its buffer (its ``to_numpy`` imports
    pandas), anything else as its library converts it."""
    if hasattr(column, "combine_chunks"):  # pyarrow ChunkedArray
        pa: Any = importlib.import_module("pyarrow")
        kind = column.type
        if not column.null_count and (pa.types.is_integer(kind) or pa.types.is_floating(kind)
                                      or pa.types.is_boolean(kind)):
            return primitive_numpy(pa, column)
    return np.asarray(column.to_numpy() if hasattr(column, "to_numpy") else column)


def _encode_column(column: Any, name: str, grouped: bool = False) -> _keys.Encoded | None:
    """A text id column of a pyarrow Table or pandas DataFrame as labels and codes,
    encoded by the library that holds it; None for numeric columns.

    pyarrow's columns, and pandas' columns stored by pyarrow (its ``str``
    dtype, taken without a copy), are encoded by pyarrow
    (:func:`~prcurve.ranking.arrow_ids.arrow_encode`), and so are pandas ``object``
    columns of Python ``str`` once pyarrow has converted them
    (:func:`~prcurve.ranking.arrow_ids.text_objects`); other pandas columns by
    ``pd.factorize``.
    """
    dtype = getattr(column, "dtype", None)
    if hasattr(column, "combine_chunks"):  # pyarrow ChunkedArray
        chunks = column
    elif (dtype is not None and getattr(dtype, "kind", "O") not in "iubf"
          and hasattr(getattr(column, "array", None), "__arrow_array__")):
        chunks = column.array.__arrow_array__()  # pandas' pyarrow storage, no copy
    else:
        chunks = None
    if chunks is not None:
        pa: Any = importlib.import_module("pyarrow")
        if not hasattr(chunks, "chunks"):  # one array (pandas' ``string[python]``)
            chunks = pa.chunked_array([chunks])
        kind = chunks.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)):
            if hasattr(column, "combine_chunks"):
                return None
        else:
            if chunks.null_count:
                rows = np.flatnonzero(chunks.is_null().to_numpy(zero_copy_only=False))
                raise missing_ids(name, rows)
            from prcurve.ranking.arrow_ids import arrow_encode

            return arrow_encode(chunks, grouped)
    if dtype is None or getattr(dtype, "kind", "O") in "iub":
        return None
    pd: Any = importlib.import_module("pandas")
    # A query column in few blocks: its neighbours compared (cheaper than converting
    # every row); otherwise an object column of str as pyarrow text.
    codes, uniques = _grouped_factorize(pd, column) if grouped else (None, None)
    if codes is None and isinstance(dtype, np.dtype) and dtype.kind == "O":
        from prcurve.ranking.arrow_ids import arrow_encode, text_objects

        text = text_objects(np.asarray(column.to_numpy()))
        if text is not None:
            return arrow_encode(text, grouped)
    if codes is None:
        codes, uniques = pd.factorize(column, sort=False)
    if (codes < 0).any():
        raise missing_ids(name, np.flatnonzero(codes < 0))
    labels = np.asarray(uniques, dtype=object)
    # pd.factorize's uniques are the values found: every label has a row (no count of
    # the codes needed in ``_ids``).
    return _keys.Encoded(labels, codes.astype(np.int64, copy=False), dense=True)


def _grouped_factorize(pd: Any, column: Any) -> tuple[Any, Any]:
    """``pd.factorize`` of a pandas column of Python objects whose rows come in blocks
    of one id (a query column), from one comparison of neighbours: only each block's
    first id is hashed (a Python object hashed costs some 40 ns, a neighbour compared
    some 12). The same codes and labels as ``pd.factorize`` of the column (first seen
    first; labels that are all Python ``str`` sorted, the codes renumbered to match);
    (None, None) when the blocks are many or a comparison is not a plain
    True or False (``pd.NA``), left to ``pd.factorize``."""
    values = column.to_numpy()
    n = values.shape[0]
    if values.dtype != object or n < 2:
        return None, None
    try:
        first = _keys.block_starts(values)
    except (TypeError, ValueError):
        return None, None
    if not _keys.few_blocks(first, n):
        return None, None
    block_codes, uniques = pd.factorize(values[first], sort=False)
    labels = np.asarray(uniques, dtype=object)
    if (block_codes >= 0).all() and all(type(label) is str for label in labels.tolist()):
        # Text ids put in order here, among the blocks' codes, so that the query
        # column's ``keys.by_label`` finds them in order and reads no row (it would
        # gather a rank for every row: 0.05-0.1 s at 10^7 rows). Other labels (mixed
        # kinds, which validation rejects) and missing ids (code -1, an error later)
        # keep pd.factorize's order and errors.
        by_id = np.argsort(labels, kind="stable")
        rank = np.empty(by_id.shape[0], dtype=np.int64)
        rank[by_id] = np.arange(by_id.shape[0])
        labels, block_codes = labels[by_id], rank[block_codes]
    return _keys.rows_of_blocks(block_codes, first, n), labels


def _qrels(columns: Columns) -> Qrels:
    return Qrels(columns.queries, columns.docs, columns.values, columns.source, columns.line,
                 consecutive_lines=columns.line is None)


def _run(columns: Columns) -> Run:
    # trec_eval reports the run id of the last line.
    return Run(columns.queries, columns.docs, columns.values, columns.run_id, columns.source,
               columns.line, consecutive_lines=columns.line is None)


def parse_qrels(data: bytes, source: str = "<qrels>") -> Qrels:
    """Judgments from the bytes of a qrels file (see :func:`read_qrels`)."""
    return _qrels(parse_columns(data, source, "qrels"))


def parse_run(data: bytes, source: str = "<run>") -> Run:
    """A run from the bytes of a TREC run file (see :func:`read_run`)."""
    return _run(parse_columns(data, source, "run"))


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file: ``query iter docno relevance`` per line.

    Relevance is an integer grade; a negative grade means judged but not
    usable (trec_eval's "unjudged in pool"). Lines starting with ``#`` are
    comments. gzip, bzip2 and xz files are read as they are.

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
    return _qrels(read_columns(path, "qrels"))


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run file: ``query Q0 docno rank score run_id`` per line.

    The Q0 and rank columns are ignored (documents are ranked by score) and
    so is anything after the run id. Lines starting with ``#`` are comments.
    gzip, bzip2 and xz files are read as they are.

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
    return _run(read_columns(path, "run"))


def _as_text(ids: NDArray[Any]) -> NDArray[Any]:
    """Ids for display: bytes decoded as UTF-8 (undecodable bytes shown escaped)."""
    if ids.dtype.kind == "S":
        return np.array([i.decode("utf-8", "backslashreplace") for i in ids.tolist()],
                        dtype=object)
    return ids

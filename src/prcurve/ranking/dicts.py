"""``{query: {document: value}}`` dicts (pytrec_eval's and ranx's input) as the
columns :class:`~prcurve.ranking.tables.Qrels` and :class:`~prcurve.ranking.tables.Run`
are built from: each level walked once at C speed; document ids that are all ``str``
(or all ``int``) become one numpy column, encoded as numpy string (or integer) arrays
are (:mod:`prcurve.ranking.keys`), so that a dict costs what the same columns cost
plus one copy of its keys and values.

Examples
--------
>>> from prcurve.ranking.dicts import flatten
>>> queries, docs, values = flatten({"q2": {"a": 1.5}, "q1": {"b": 0.5, "a": 2.0}}, "run")
>>> queries.labels.tolist(), queries.codes.tolist()
(['q1', 'q2'], [1, 0, 0])
>>> docs.tolist(), values.tolist()
(['a', 'b', 'a'], [1.5, 0.5, 2.0])
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking import keys as _keys
from prcurve.validation.ranking import check_id_labels, wrong_table_type

__all__ = ["flatten"]


def flatten(
    nested: Mapping[Any, Mapping[Any, Any]], argument: str
) -> tuple[_keys.Encoded, _keys.Encoded | NDArray[Any], NDArray[Any]]:
    """Walk ``{query: {doc: value}}`` once per level, at C speed: the queries as encoded
    labels (one per query), the documents as a numpy column (:func:`_doc_column`) or,
    for any other kind of id, numbered in a dict as they are first seen (the checks
    then name what is wrong), and the values in row order (:func:`_values`)."""
    inner: list[Mapping[Any, Any]] = list(nested.values())
    for query, docs in zip(nested, inner, strict=True):
        if not isinstance(docs, Mapping):
            raise wrong_table_type(argument, docs, f"a dict of documents for {query!r}")
    lengths = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    n = int(lengths.sum())
    doc_ids: _keys.Encoded | NDArray[Any] | None = _doc_column(
        list(itertools.chain.from_iterable(inner)))
    if doc_ids is None:
        index: dict[Any, int] = collections.defaultdict(itertools.count().__next__)
        doc_codes = np.fromiter(map(index.__getitem__, itertools.chain.from_iterable(inner)),
                                dtype=np.int64, count=n)
        doc_ids = _keys.Encoded(_labels("doc_id", list(index)), doc_codes, dense=True)
    values = _values(inner, n)
    # The queries put in id order once per query, before their codes are repeated per row.
    query_labels = list(nested)
    queries = _keys.by_label(_keys.Encoded(_labels("query_id", query_labels),
                                           np.arange(len(query_labels), dtype=np.int64)))
    return _keys.Encoded(queries.labels, np.repeat(queries.codes, lengths)), doc_ids, values


def _doc_column(ids: list[Any]) -> NDArray[Any] | None:
    """The documents as one numpy column when they are all ``str`` (a ``U`` array) or
    all ``int`` within int64; None for anything else (bytes, mixed kinds, a ``str``
    holding a NUL, which a ``U`` array would drop at its end and join to its twin).

    Issue 26 (dicts of 10^5-10^6 distinct ids): the ids are copied into an array at
    about 0.1 us a row (the type, length and NUL passes included) and then encoded like
    any string column, 2-3x faster than hashing each Python string into a dict of
    labels, and without pyarrow, whose conversion of Python objects imports pandas
    (0.3 s of CPU) on its first call."""
    if not ids:
        return None
    kinds = set(map(type, ids))
    if kinds == {str}:
        if "\0" in "".join(ids):
            return None
        width = max(map(len, ids))
        return np.fromiter(ids, dtype=f"U{max(width, 1)}", count=len(ids))
    if kinds == {int}:
        try:
            return np.fromiter(ids, dtype=np.int64, count=len(ids))
        except OverflowError:
            return None
    return None


def _values(inner: list[Mapping[Any, Any]], n: int) -> NDArray[Any]:
    """The dicts' values in row order: numbers read straight into one float64 array
    after a check of their types (a qrels' grades are checked to be whole afterwards);
    anything else (text, integers beyond 2^53) through a list, for the checks to name
    it."""
    kinds = set(map(type, itertools.chain.from_iterable(d.values() for d in inner)))
    if all(issubclass(k, (int, float, np.integer, np.floating)) for k in kinds):
        values = np.fromiter(itertools.chain.from_iterable(d.values() for d in inner),
                             dtype=np.float64, count=n)
        if not (np.abs(values) >= 2.0**53).any():
            return values
    listed = list(itertools.chain.from_iterable(d.values() for d in inner))
    return np.asarray(listed) if listed else np.zeros(0)


def _labels(name: str, values: list[Any]) -> NDArray[Any]:
    """Distinct ids from Python objects (few: one per distinct id)."""
    return check_id_labels(name, np.array(values, dtype=object) if values
                           else np.zeros(0, dtype=str))


"""``{query: {document: value}}`` dicts (pytrec_eval's and ranx's input) as the
encoded columns :class:`~prcurve.ranking.tables.Qrels` and
:class:`~prcurve.ranking.tables.Run` are built from: each level walked once at C
speed, the ids converted and hashed by pyarrow when installed (in parts of
:data:`PART_ROWS` rows), no list of the rows.

Examples
--------
>>> from prcurve.ranking.dicts import flatten
>>> queries, docs, values = flatten({"q2": {"a": 1.5}, "q1": {"b": 0.5, "a": 2.0}}, "run")
>>> queries.labels.tolist(), queries.codes.tolist()
(['q1', 'q2'], [1, 0, 0])
>>> docs.labels.tolist(), docs.codes.tolist(), values.tolist()
(['a', 'b'], [0, 1, 0], [1.5, 0.5, 2.0])
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import arrow_values
from prcurve.ranking import keys as _keys
from prcurve.ranking.arrow_ids import arrow_labels_codes, arrow_objects
from prcurve.ranking.hashing import arrow_module
from prcurve.validation.ranking import check_id_labels, wrong_table_type

__all__ = ["PART_ROWS", "flatten"]

I64 = NDArray[np.int64]


def flatten(
    nested: Mapping[Any, Mapping[Any, Any]], argument: str
) -> tuple[_keys.Encoded, _keys.Encoded, NDArray[Any]]:
    """Walk ``{query: {doc: value}}`` once per level, at C speed: the documents are
    read once (``itertools.chain`` over the inner dicts' keys, no list) and encoded
    by pyarrow when installed (converted in parts of :data:`PART_ROWS` rows, then
    hashed in another thread while the values are converted), else numbered in a
    dict as they are first seen; rows become integer codes."""
    inner: list[Mapping[Any, Any]] = list(nested.values())
    for query, docs in zip(nested, inner, strict=True):
        if not isinstance(docs, Mapping):
            raise wrong_table_type(argument, docs, f"a dict of documents for {query!r}")
    lengths = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    n = int(lengths.sum())
    first = next((next(iter(docs)) for docs in inner if docs), None)
    parts = _parts(inner, lengths)
    doc_array = arrow_objects(map(itertools.chain.from_iterable, parts), n, first)
    if doc_array is not None:
        # pyarrow hashes the documents in another thread (it releases the GIL) while
        # this one converts the values, Python object by Python object. One thread:
        # hashing on both cores would take the one converting values from it.
        from concurrent.futures import ThreadPoolExecutor  # lazily: issue 26

        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(arrow_labels_codes, doc_array, 1)
            values = _values(inner, n, scores=argument == "run", parts=parts)
            doc_ids = pending.result()
        del doc_array
        doc_ids = _keys.Encoded(check_id_labels("doc_id", doc_ids.labels), doc_ids.codes,
                                 dense=True)
    else:
        index: dict[Any, int] = collections.defaultdict(itertools.count().__next__)
        doc_codes = np.fromiter(map(index.__getitem__, itertools.chain.from_iterable(inner)),
                                dtype=np.int64, count=n)
        doc_ids = _keys.Encoded(_labels("doc_id", list(index)), doc_codes, dense=True)
        values = _values(inner, n, scores=argument == "run", parts=parts)
    # The queries put in id order once per query, before their codes are repeated per row.
    query_labels = list(nested)
    queries = _keys.by_label(_keys.Encoded(_labels("query_id", query_labels),
                                           np.arange(len(query_labels), dtype=np.int64)))
    return _keys.Encoded(queries.labels, np.repeat(queries.codes, lengths)), doc_ids, values


PART_ROWS = 1 << 14
"""Rows of dicts converted by pyarrow in one call: parts of this size convert
about a fifth faster than one call over all rows (their objects stay in cache)."""


def _parts(inner: list[Mapping[Any, Any]], lengths: I64) -> list[list[Mapping[Any, Any]]]:
    """Consecutive runs of the inner dicts holding about :data:`PART_ROWS` rows each
    (a dict is never split; an empty one joins its neighbours)."""
    ends = np.cumsum(lengths)
    cuts = np.searchsorted(ends, np.arange(PART_ROWS, int(ends[-1]) if ends.shape[0] else 0,
                                           PART_ROWS), side="left") + 1
    bounds = [0, *np.unique(cuts).tolist(), len(inner)]
    return [inner[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _values(inner: list[Mapping[Any, Any]], n: int, *, scores: bool,
            parts: list[list[Mapping[Any, Any]]]) -> NDArray[Any]:
    """The dicts' values in row order: numbers converted by pyarrow in one call
    when it is installed, or read straight into one float64 array after a
    check of their types (grades are checked to be whole afterwards); anything
    else (text, integers beyond 2^53) through a list, for the checks to name it.

    ``scores`` (a run's): converted by pyarrow straight to float64 from the dicts,
    one call per part of ``parts`` (no list, no type inference pass), which
    refuses as inference does anything but numbers (text, bytes, Decimal,
    integers beyond 2^53: the general path below names them); a None is a null,
    also sent there."""
    pa = arrow_module(n)
    if pa is not None and scores:
        out = np.empty(n, dtype=np.float64)
        at = 0
        try:
            for part in parts:
                floats = pa.array(itertools.chain.from_iterable(d.values() for d in part),
                                  type=pa.float64())
                if floats.null_count or at + len(floats) > n:
                    break
                out[at:at + len(floats)] = arrow_values(floats, np.dtype(np.float64))
                at += len(floats)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            pass
        else:
            if at == n:
                return out
    if pa is not None:
        listed = list(itertools.chain.from_iterable(d.values() for d in inner))
        try:
            array = pa.array(listed)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            array = None
        if array is not None and not array.null_count and (
                pa.types.is_floating(array.type) or pa.types.is_integer(array.type)):
            code = "f" if pa.types.is_floating(array.type) else (
                "i" if pa.types.is_signed_integer(array.type) else "u")
            return arrow_values(array, np.dtype(f"{code}{array.type.bit_width // 8}"))
        del listed  # not all numbers: the checks below
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

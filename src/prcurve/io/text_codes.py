"""Text columns read as codes: a dictionary-encoded Arrow column of text becomes its
object array (one ``str`` per distinct value, shared by its rows) made by NumPy's take,
and the rows' codes are kept beside it, so that labels are coded and compared in C
(issue 26, item 6, session 35: `prcurve report` of 3*10^7 text labels spent about
0.2 us a row in Python's dictionary lookups).

The Parquet reader (:mod:`prcurve.io.parquet_memory`) asks pyarrow for its text
columns as dictionary arrays (int32 indices and a small dictionary; Parquet stores
text dictionary-encoded), which needs no ``pyarrow.compute`` (whose import loads
pandas: 0.4-0.8 s). :func:`dictionary_text` converts such a column and records its
codes for :func:`codes_of`; :func:`prcurve.io.rows.normalize_labels` and
:class:`prcurve.io.rows.LabelRule` use them instead of a lookup a row.

The record is kept by the array's identity and dropped when the array is freed.
Invariant: an array recorded here is never written to (the readers' arrays are not).

Examples
--------
>>> import pyarrow as pa
>>> from prcurve.io.text_codes import codes_of, dictionary_text
>>> column = pa.chunked_array([pa.array(["pos", "neg", None, "pos"]).dictionary_encode()])
>>> values = dictionary_text(pa, column)
>>> codes, distinct = codes_of(values)
>>> values.tolist(), codes.tolist(), distinct.tolist()
(['pos', 'neg', None, 'pos'], [0, 1, 2, 0], ['pos', 'neg', None])
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["codes_of", "dictionary_text", "equal_rows", "record_codes", "rows_where"]

# id(array) -> (a weak reference to it, its codes, its distinct values).
_CODED: dict[int, tuple[weakref.ref[Any], NDArray[Any], NDArray[np.object_]]] = {}


def record_codes(values: NDArray[Any], codes: NDArray[Any],
                 distinct: NDArray[np.object_]) -> None:
    """Record that ``values`` is ``distinct[codes]`` (every distinct value used)."""
    key = id(values)
    _CODED[key] = (weakref.ref(values, lambda _: _CODED.pop(key, None)), codes, distinct)


def codes_of(values: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.object_]] | None:
    """``(codes, distinct)`` with ``values`` equal to ``distinct[codes]``, each distinct
    value used by some row, when :func:`record_codes` recorded ``values``; else None."""
    found = _CODED.get(id(values))
    if found is None or found[0]() is not values:
        return None
    return found[1], found[2]


def equal_rows(values: NDArray[Any], target: Any) -> NDArray[np.bool_]:
    """``values == target`` row by row, compared once per distinct value when the codes
    of ``values`` are recorded."""
    coded = codes_of(values)
    if coded is None:
        return np.asarray(values == target, dtype=bool)
    codes, distinct = coded
    return rows_where(np.array([v == target for v in distinct.tolist()], dtype=bool), codes)


def rows_where(table: NDArray[np.bool_], codes: NDArray[Any]) -> NDArray[np.bool_]:
    """``table[codes]``: by a comparison of the codes a true (or false) entry where there
    are few, without the intp copy of the codes that NumPy's indexing makes (8 bytes a
    row)."""
    flip = 2 * int(np.count_nonzero(table)) > table.shape[0]
    hits = np.flatnonzero(table != flip)
    if hits.shape[0] > 4:
        return np.asarray(table[codes], dtype=bool)
    out = np.zeros(codes.shape[0], dtype=bool)
    for hit in hits.tolist():
        out |= codes == hit
    if flip:
        np.logical_not(out, out=out)
    return out


def _int_values(pa: Any, array: Any, dtype: type[np.integer[Any]]) -> NDArray[Any]:
    """The values buffer of a fixed-width integer array (whatever is at missing rows)."""
    width = np.dtype(dtype).itemsize
    raw = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    return raw[array.offset * width:(array.offset + len(array)) * width].view(dtype)


def _valid(array: Any) -> NDArray[np.bool_] | None:
    """The rows of ``array`` that are present, None when every row is."""
    if array.null_count == 0:
        return None
    bits = np.frombuffer(array.buffers()[0], dtype=np.uint8)
    valid = np.unpackbits(bits, bitorder="little", count=array.offset + len(array))
    return np.asarray(valid[array.offset:], dtype=bool)


def dictionary_text(pa: Any, column: Any) -> NDArray[np.object_] | None:
    """A dictionary-encoded column of text as objects (None where missing), its codes
    recorded (:func:`codes_of`); None for any other column, or text that is not UTF-8
    (the caller reads it otherwise). The same values as ``column.to_pylist()``.

    Each chunk's dictionary (its own in a Parquet file's row groups) is converted once
    and mapped to codes shared by every chunk; the rows' codes are gathered by NumPy.
    """
    kind = column.type
    if not pa.types.is_dictionary(kind) or not (
            pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type)):
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    n = len(column)
    index: dict[str | None, int] = {}
    codes = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    indices = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[kind.index_type.bit_width]
    at = 0
    try:
        for chunk in chunks:
            size = len(chunk)
            words = chunk.dictionary.to_pylist()
            remap = np.fromiter((index.setdefault(w, len(index)) for w in words),
                                dtype=codes.dtype, count=len(words))
            valid = _valid(chunk)
            if words and size:
                # mode="clip": a missing row's index may be anything; overwritten below.
                np.take(remap, _int_values(pa, chunk.indices, indices), out=codes[at:at + size],
                        mode="clip")
            if valid is not None:
                codes[at:at + size][~valid] = index.setdefault(None, len(index))
            at += size
    except UnicodeDecodeError:
        return None
    distinct = np.empty(len(index), dtype=object)
    distinct[:] = list(index)
    used = np.bincount(codes, minlength=len(index)) > 0
    if not used.all():  # a dictionary's value no row uses: not a value of the column
        codes = (np.cumsum(used) - 1).astype(codes.dtype)[codes]
        distinct = distinct[used]
    values: NDArray[np.object_] = distinct[codes]
    record_codes(values, codes, distinct)
    return values

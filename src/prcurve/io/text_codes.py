"""Text columns read as codes: a column of text held as ``(codes, categories)``, each
row the code of its value among the column's distinct values (:class:`CodedText`), so
that labels are normalized and compared with ``--positive`` once per distinct text, in
C, not once per row in Python (issue 26, item 6, sessions 35-36: `prcurve report` of
3*10^7 text labels spent about 0.2 us a row in Python's dictionary lookups).

The readers make them where a column comes coded: Parquet's text, which the in-memory
Parquet reader asks pyarrow for as dictionary arrays (int32 indices and a small
dictionary; Parquet stores text dictionary-encoded), and CSV and TSV text, which
pyarrow's CSV reader encodes as it reads (:func:`dictionary_text`; no
``pyarrow.compute``, whose import loads pandas: 0.4-0.8 s); JSON Lines text read by
pyarrow is coded from its buffers by NumPy (:func:`string_codes`). The codes travel
in the reader's table (:class:`prcurve.io.readers.RawTable`, whose ``columns`` give
the values as objects when asked); :func:`prcurve.io.label_rows.normalize_labels` and
:class:`prcurve.io.label_rows.LabelRule` work on the codes.

Examples
--------
>>> import pyarrow as pa
>>> from prcurve.io.text_codes import dictionary_text
>>> column = pa.chunked_array([pa.DictionaryArray.from_arrays(
...     pa.array([0, 1, None, 0], pa.int32()), pa.array(["pos", "neg"]))])
>>> coded = dictionary_text(pa, column)
>>> coded.values().tolist(), coded.codes.tolist(), coded.categories.tolist()
(['pos', 'neg', None, 'pos'], [0, 1, 2, 0], ['pos', 'neg', None])
>>> coded.equal_rows("pos").tolist()
[True, False, False, True]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["CodedText", "dictionary_text", "repeated_text", "rows_where", "used_categories"]


class CodedText:
    """A column of text (objects: ``str``, None where missing) as ``categories[codes]``.

    Invariants: ``codes`` is a 1-D integer array with values in ``range(len(categories))``,
    and every category is used by some row (the categories are the column's distinct
    values: a message listing them lists the column's values). Neither array is written
    to once made. ``values()`` is the column as a NumPy object array (one object per
    distinct value, shared by its rows).
    """

    __slots__ = ("categories", "codes")

    def __init__(self, codes: NDArray[Any], categories: NDArray[np.object_]) -> None:
        self.codes = codes
        self.categories = categories

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def shape(self) -> tuple[int]:
        return (int(self.codes.shape[0]),)

    @property
    def dtype(self) -> np.dtype[np.object_]:
        """The dtype of :meth:`values`: objects."""
        return np.dtype(object)

    def values(self) -> NDArray[np.object_]:
        """The column as objects: ``categories[codes]``."""
        out: NDArray[np.object_] = self.categories[self.codes]
        return out

    def rows_where(self, table: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """The rows whose category is true in ``table`` (one entry per category)."""
        return rows_where(table, self.codes)

    def equal_rows(self, target: Any) -> NDArray[np.bool_]:
        """``values() == target`` row by row, compared once per distinct value."""
        return self.rows_where(np.array([v == target for v in self.categories.tolist()],
                                        dtype=bool))


def used_categories(codes: NDArray[Any], categories: NDArray[np.object_]) -> CodedText:
    """``CodedText(codes, categories)`` with the categories no row uses dropped (a
    dictionary's value no row uses is not a value of the column)."""
    used = np.bincount(codes, minlength=categories.shape[0]) > 0
    if not used.all():
        codes = (np.cumsum(used) - 1).astype(codes.dtype)[codes]
        categories = categories[used]
    return CodedText(codes, categories)


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


def dictionary_text(pa: Any, column: Any) -> CodedText | NDArray[np.object_] | None:
    """A dictionary-encoded column of text as :class:`CodedText` (None where missing);
    None for any other column, or text that is not UTF-8 (the caller reads it
    otherwise). Its values are those of ``column.to_pylist()``. Text that is mostly
    distinct (ids: dictionaries holding more than half the rows, and over
    ``DISTINCT_TEXT`` values) is returned as objects, one ``str`` a row: its codes would
    cost a dictionary entry a row to find, and save nothing.

    Each chunk's dictionary (its own in a Parquet file's row groups) is converted once
    and mapped to codes shared by every chunk; the rows' codes are gathered by NumPy.
    """
    kind = column.type
    if not pa.types.is_dictionary(kind) or not (
            pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type)):
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    n = len(column)
    words_in_all = sum(len(chunk.dictionary) for chunk in chunks)
    if words_in_all > DISTINCT_TEXT and 2 * words_in_all > n:
        return _gathered(pa, chunks, n, kind.index_type.bit_width)
    index: dict[str | None, int] = {}
    codes = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    indices = _INDICES[kind.index_type.bit_width]
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
    return used_categories(codes, distinct)


_INDICES: dict[int, type[np.integer[Any]]] = {8: np.int8, 16: np.int16, 32: np.int32,
                                              64: np.int64}

DISTINCT_TEXT = 1 << 16
"""Dictionaries holding more values than this, and more than half the rows, are read as
one ``str`` a row (:func:`dictionary_text`)."""


def _gathered(pa: Any, chunks: list[Any], n: int, bits: int) -> NDArray[np.object_] | None:
    """Dictionary-encoded chunks as objects, each chunk's values gathered from its
    dictionary by NumPy's take (None where missing; None if the text is not UTF-8)."""
    out = np.empty(n, dtype=object)
    at = 0
    try:
        for chunk in chunks:
            size = len(chunk)
            words = np.empty(len(chunk.dictionary) + 1, dtype=object)  # the last: missing
            words[:-1] = chunk.dictionary.to_pylist()
            if size:
                rows = _int_values(pa, chunk.indices, _INDICES[bits]).astype(np.intp)
                valid = _valid(chunk)
                if valid is not None:
                    rows[~valid] = words.shape[0] - 1
                out[at:at + size] = words[rows]
            at += size
    except UnicodeDecodeError:
        return None
    return out


def repeated_text(pa: Any, batch: Any) -> list[str]:
    """The text columns of ``batch`` (a file's first block of rows) that repeat their
    values: at most ``DISTINCT_TEXT`` distinct values, and at most one for two rows (labels,
    not ids). pyarrow's CSV reader reads these as dictionaries (:func:`dictionary_text`);
    encoding every text column would cost an id column about 0.2 us a row in pyarrow's
    dictionary (measured at 2*10^6 rows: 0.35 s -> 0.73 s of CPU), the Python lookup it
    saves for labels."""
    found = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        kind = column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            try:
                distinct = len(set(column.to_pylist()))
            except UnicodeDecodeError:  # read as before (and said so)
                continue
            if distinct <= DISTINCT_TEXT and 2 * distinct <= len(column):
                found.append(name)
    return found

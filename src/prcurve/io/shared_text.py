"""Text columns read as codes from Arrow's plain text (JSON Lines read by pyarrow, and any
text that does not come dictionary-encoded): a label column such as "pos"/"neg" becomes
:class:`~prcurve.io.text_codes.CodedText`, 4 bytes a row and one ``str`` per distinct
value, not a Python string a row (issue 26, item 6, sessions 35-36). Used by
:func:`prcurve.io.arrow_columns.arrow_column`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.text_codes import CodedText

__all__ = ["SHARED_TEXT_ROWS", "shared_text"]


def shared_text(pa: Any, column: Any) -> CodedText | None:
    """A text column as codes (converted a chunk at a time, each chunk's values looked up
    among those seen), or None when the first chunks' values are mostly distinct: then
    one ``str`` a row, as before.

    The values of ``column.to_pylist()`` (None where missing), each distinct value one
    object; a column of labels such as "pos"/"neg" costs 4 bytes a row, not a Python
    string a row (about 60 bytes: 1.2 GB at 10^7 rows; issue 26, item 6, session 35).
    pyarrow's dictionary encoding would do it in C, but ``pyarrow.compute`` imports
    pandas (0.4-0.8 s).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from prcurve.io.shared_text import shared_text
    >>> coded = shared_text(pa, pa.chunked_array([["pos", "neg", None] * 30_000]))
    >>> coded.categories.tolist(), coded.codes[:4].tolist()
    (['pos', 'neg', None], [0, 1, 2, 0])
    """
    n = len(column)
    if n < SHARED_TEXT_ROWS:
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    codes = np.empty(n, dtype=np.int32)
    index: dict[str | None, int] = {}
    at = 0
    known = _Known()
    for chunk in chunks:
        for low in range(0, len(chunk), SHARED_TEXT_ROWS):
            piece = chunk.slice(low, SHARED_TEXT_ROWS)
            if _short_codes(pa, piece, index, codes[at:at + len(piece)], known):
                at += len(piece)  # coded by NumPy: no str a row
                if 2 * len(index) > at:  # as below
                    return None
                continue
            values = piece.to_pylist()
            for value in dict.fromkeys(values):  # the block's distinct values, in order
                index.setdefault(value, len(index))
            size = len(values)
            codes[at:at + size] = np.fromiter(map(index.__getitem__, values), dtype=np.int32,
                                              count=size)
            at += size
            if 2 * len(index) > at:  # mostly distinct text (ids): one str a row
                return None
    categories = np.empty(len(index), dtype=object)
    categories[:] = list(index)
    return CodedText(codes, categories)


SHARED_TEXT_ROWS = 1 << 16
"""Text columns of at least this many rows are read by :func:`shared_text`, this many
rows at a time."""

_SHORT = 7
"""Text of at most this many bytes is coded by NumPy (:func:`_short_codes`): its bytes and
its length fit one uint64."""

_FEW = 32
"""At most this many distinct values in a chunk are coded by NumPy."""

_MISSING_KEY = np.uint64(2**64 - 1)  # a length byte of 0xff: no text has it


def _short_keys(pa: Any, chunk: Any) -> NDArray[np.uint64] | None:
    """Each row's text of a plain text array as one uint64 (its UTF-8 bytes, and its
    length in the top byte; ``_MISSING_KEY`` where missing): equal keys are equal text.
    None when some row's text is longer than ``_SHORT`` bytes."""
    width = 8 if pa.types.is_large_string(chunk.type) else 4
    validity, offsets_buffer, data_buffer = chunk.buffers()[:3]
    size = len(chunk)
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if width == 8 else np.int32
                            )[chunk.offset:chunk.offset + size + 1]
    lengths = np.diff(offsets)
    longest = int(lengths.max()) if size else 0
    if longest > _SHORT:
        return None
    keys: NDArray[np.uint64] = lengths.astype(np.uint64) << np.uint64(56)
    if longest:
        data = np.frombuffer(data_buffer, dtype=np.uint8)
        starts = offsets[:-1]
        for j in range(longest):
            has = lengths > j
            byte = data[np.where(has, starts + j, 0)].astype(np.uint64)
            byte[~has] = 0
            keys |= byte << np.uint64(8 * j)
    if chunk.null_count:
        bits = np.frombuffer(validity, dtype=np.uint8)
        valid = np.unpackbits(bits, bitorder="little", count=chunk.offset + size)[chunk.offset:]
        keys[valid == 0] = _MISSING_KEY
    return keys


class _Known:
    """The short texts' keys met so far, sorted, and the code of each."""

    __slots__ = ("codes", "keys", "of", "off")

    def __init__(self) -> None:
        self.off = False  # too many distinct values: the column's lookups are Python's
        self.keys = np.zeros(0, dtype=np.uint64)
        self.codes = np.zeros(0, dtype=np.int32)
        self.of: dict[int, int] = {}


def _sorted_distinct(keys: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The distinct keys, sorted (a sort: ``np.unique`` imports ``numpy.ma``)."""
    ordered = np.sort(keys)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _short_codes(pa: Any, piece: Any, index: dict[str | None, int],
                 out: NDArray[np.int32], known: _Known) -> bool:
    """Write the codes of a piece of short text into ``out``, its new values added to
    ``index`` (each decoded from its first row, in order of first occurrence) and to
    ``known``; False (``out``, ``index`` and ``known`` unchanged) for text longer than
    ``_SHORT`` bytes or more than ``_FEW`` distinct values. Raises UnicodeDecodeError for
    text that is not UTF-8, as ``to_pylist`` does."""
    keys = None if known.off else _short_keys(pa, piece)
    if keys is None or not keys.shape[0]:
        return False
    if known.keys.shape[0]:
        place = np.minimum(np.searchsorted(known.keys, keys), known.keys.shape[0] - 1)
        if bool(np.array_equal(known.keys[place], keys)):  # no new value: the usual case
            np.take(known.codes, place, out=out)
            return True
    new = [int(k) for k in _sorted_distinct(keys).tolist() if int(k) not in known.of]
    if len(known.of) + len(new) > _FEW:
        known.off = True
        return False
    firsts = {key: int(np.argmax(keys == np.uint64(key))) for key in new}
    texts = {key: piece[row].as_py() for key, row in firsts.items()}  # may raise
    for key in sorted(new, key=firsts.__getitem__):  # in order of first occurrence
        known.of[key] = index.setdefault(texts[key], len(index))
    known.keys = np.array(sorted(known.of), dtype=np.uint64)
    known.codes = np.array([known.of[k] for k in known.keys.tolist()], dtype=np.int32)
    np.take(known.codes, np.searchsorted(known.keys, keys), out=out)
    return True

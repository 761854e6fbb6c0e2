"""Id columns encoded by pyarrow itself: columns pyarrow holds (a pyarrow Table's,
pandas' pyarrow storage), as
labels and codes (:class:`~prcurve.ranking.keys.Encoded`), one dictionary across
chunks and parts, with no Python object per row. pyarrow is imported when used.

Examples
--------
>>> import pyarrow as pa
>>> from prcurve.ranking.arrow_ids import arrow_encode
>>> column = pa.chunked_array([["q2"] * 4, ["q2", "q1", "q1", "q1"]])
>>> encoded = arrow_encode(column, grouped=True)  # two blocks: their first ids hashed
>>> encoded.labels.tolist(), encoded.codes.tolist()
(['q1', 'q2'], [1, 1, 1, 1, 1, 0, 0, 0])
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import arrow_values, numpy_to_arrow
from prcurve.core.sorting import part_bounds, parts_for, run_parts
from prcurve.ranking.byte_words import arrow_binary, chunk_words
from prcurve.ranking.hashing import arrow_dictionary
from prcurve.ranking.keys import (
    Encoded,
    by_label,
    encode_words,
    few_blocks,
    rows_of_blocks,
)

__all__ = ["arrow_encode", "text_objects"]

I64 = NDArray[np.int64]


def arrow_encode(chunks: Any, grouped: bool) -> Encoded:
    """A pyarrow column of ids without nulls as labels and codes, hashed by pyarrow
    (one dictionary across chunks). ``grouped``: rows usually come in blocks of
    one id (a query column), then neighbours are compared and only each
    block's first id is encoded."""
    pa: Any = importlib.import_module("pyarrow")
    pc: Any = importlib.import_module("pyarrow.compute")
    n = len(chunks)
    if grouped and n > 1 and not pa.types.is_dictionary(chunks.type):
        # Neighbours compared chunk by chunk, a large chunk in pieces on threads
        # (pyarrow releases the GIL): piece (chunk, lo, hi) compares rows lo + 1 .. hi
        # of the chunk with the rows before them.
        pieces: list[tuple[Any, int, int, int]] = []
        at, last, threads = 0, None, 1
        for chunk in chunks.chunks:
            if not len(chunk):
                continue
            if last is None or not chunk[0].equals(last):
                pieces.append((None, at, 0, 0))  # a new block at the chunk's first row
            threads = max(threads, parts_for(len(chunk)))
            for rows in part_bounds(len(chunk) - 1, parts_for(len(chunk))):
                pieces.append((chunk, at, rows.start, rows.stop))
            at, last = at + len(chunk), chunk[len(chunk) - 1]

        def changes(k: int) -> I64:
            chunk, offset, lo, hi = pieces[k]
            if chunk is None:
                return np.array([offset])
            changed = pc.indices_nonzero(pc.not_equal(chunk[lo + 1:hi + 1], chunk[lo:hi]))
            return arrow_values(changed, np.dtype(np.uint64)).astype(np.int64) + (
                offset + lo + 1)

        if threads > 1:  # some chunk in pieces (many small chunks: no threads)
            from concurrent.futures import ThreadPoolExecutor  # lazily: issue 26

            with ThreadPoolExecutor(max_workers=threads) as pool:
                starts = run_parts(changes, len(pieces), pool)
        else:
            starts = [changes(k) for k in range(len(pieces))]
        first = np.concatenate(starts)
        if few_blocks(first, n):
            block_ids = by_label(arrow_encode(_take(pa, chunks, first), False))
            return Encoded(block_ids.labels, rows_of_blocks(block_ids.codes, first, n),
                           dense=True)
    if pa.types.is_dictionary(chunks.type):  # encoded already, maybe by chunk
        parts = [c for c in chunks.chunks if len(c)]
        if parts and all(p.dictionary.equals(parts[0].dictionary) for p in parts[1:]):
            dictionary = parts[0].dictionary
            codes = np.concatenate([
                arrow_values(p.indices, np.dtype(f"i{p.indices.type.bit_width // 8}"))
                for p in parts]).astype(np.int64)
        else:  # chunks with their own dictionaries (or none): decoded, encoded again
            dictionary, codes = arrow_dictionary(
                pa.chunked_array([c.dictionary_decode() for c in parts],
                                 type=chunks.type.value_type))
    else:
        words = _short_ids(pa, chunks)
        if words is not None:
            return words
        dictionary, codes = arrow_dictionary(chunks)
    labels = np.array(dictionary.to_pylist(), dtype=object)
    return Encoded(labels if len(labels) else np.zeros(0, dtype=object), codes,
                   dense=not pa.types.is_dictionary(chunks.type))


def _take(pa: Any, chunks: Any, rows: NDArray[np.integer[Any]]) -> Any:
    """The rows at ``rows`` (ascending) of a chunked array, taken chunk by chunk:
    ``ChunkedArray.take`` of a text column in several chunks joins the chunks first
    (a copy of the column: 0.05-0.1 s for 10^7 rows in 6 chunks, for 10^4 rows taken).

    Examples
    --------
    >>> import pyarrow as pa
    >>> column = pa.chunked_array([["a", "b"], [], ["c", "d", "e"]])
    >>> _take(pa, column, np.array([0, 3, 4])).to_pylist()
    ['a', 'd', 'e']
    """
    if chunks.num_chunks == 1:
        return chunks.take(numpy_to_arrow(pa, rows))
    ends = np.cumsum([len(c) for c in chunks.chunks])
    cuts = np.searchsorted(rows, ends)
    parts, begin = [], 0
    for chunk, end, cut in zip(chunks.chunks, ends, cuts, strict=True):
        if cut > begin:
            local = rows[begin:cut] - (end - len(chunk))
            parts.append(chunk.take(numpy_to_arrow(pa, local)))
        begin = cut
    return pa.chunked_array(parts, type=chunks.type)


WORD_ROWS = 1 << 11
"""Text columns at least this long are encoded as words (:func:`_short_ids`), shorter
ones by pyarrow's hash table (read at each call: tests change it). Measured (issue 26,
item 5, session 36; CPU ms, best of 30, labels made, words against the table): the
words cost a fixed 0.3 ms (some 40 NumPy calls) then about 0.08 us a row, the table
about 0.1 ms then, per distinct id, its Python string and type check. Distinct ids:
0.41 against 0.33 at 2^10 rows, 0.51 against 0.55 at 2^11, 0.67 against 1.04 at 2^12,
5.6 against 16.2 at 2^16. Ids from a pool of n / 10: the table is faster below 2^16
rows (1.30 against 0.77 at 2^14), even at 2^16 (2.81, 2.89), the words above (4.8
against 6.6 at 2^17; 88 against 131 at 4 x 10^6 rows of 10^4 ids). Real ids are
mostly distinct: words from 2^11 rows on
(tests/test_distinct_keys.py, ``test_the_switches_pick_the_faster_path``)."""


def _short_ids(pa: Any, chunks: Any) -> Encoded | None:
    """A text column of short ids (at least :data:`WORD_ROWS` rows) encoded as words
    (:func:`~prcurve.ranking.keys.encode_words`, which sorts mostly distinct ids and
    hashes the 64-bit keys of the others) instead of by pyarrow's hash table of the
    strings, whose cost grows with the distinct values (3-4 s for 10^7 of them here)
    and whose dictionary becomes one Python string per id; the labels are numpy text
    (``U``, or ``S`` for binary columns), made when asked for. None for anything else:
    short columns, longer ids than 32 bytes, ids holding a NUL byte (the words would
    not tell "a" from "a\\0") or non-ASCII text.

    No sample of the strings is counted first (session 35 counted 2^16 of them with
    ``pc.unique`` to choose: 3-5 ms a column at 10^5 rows, the most of pyarrow's fixed
    cost there): :func:`~prcurve.ranking.keys.encode_words` tells distinct ids from
    its keys, and the words of repeated ids hash faster than their strings (above)."""
    kind = chunks.type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
    if len(chunks) < WORD_ROWS or not (text or pa.types.is_binary(kind)
                                       or pa.types.is_large_binary(kind)):
        return None
    parts = [c for c in chunks.chunks if len(c)]
    buffers = [arrow_binary(c, wide=False) for c in parts]  # int32 offsets as they are
    # The longest id from the offsets (a pass over n integers, not pyarrow's
    # binary_length and max: two compute calls over the column).
    longest = max(int(np.diff(offsets).max()) for _, offsets in buffers)
    if longest > 32:
        return None
    for buffer, offsets in buffers:
        used = buffer[int(offsets[0]):int(offsets[-1])]
        if not used.all() or (text and int(used.max(initial=0)) >= 128):
            return None  # a NUL byte, or non-ASCII text: the hash table
    n_words = max((longest + 7) // 8, 1)
    # Written straight into one array per word (several chunks: no concatenation).
    words = chunk_words(buffers, n_words)
    encoded = encode_words(words, text=text)  # ASCII: exact
    return encoded.with_codes(encoded.codes, True)  # labels made when asked for


def text_objects(values: NDArray[Any]) -> Any:
    """A NumPy ``object`` array of ids (a pandas ``object`` column's values) as one
    pyarrow ``string`` chunk when every row is a Python ``str`` (or a subclass, as
    ``numpy.str_``): pyarrow's conversion checks each row's type and copies its text in
    one C pass, where ``pd.factorize`` hashes a Python object per row and the labels'
    type check takes another pass (issue 26, item 5: 0.3 s of 0.5 s at 10^6 rows).
    None when pyarrow is not loaded yet (its import alone would cost more than it
    saves on a small column) or for anything else — a row of another type (bytes,
    numbers, NaN), a missing one (None), text that is not valid UTF-8 (a lone
    surrogate) — left to ``pd.factorize`` and the checks of
    :func:`~prcurve.validation.ranking.check_id_labels`, whose errors stay as they were.

    Examples
    --------
    >>> import numpy as np
    >>> text_objects(np.array(["q1", "q2"], dtype=object)).type
    DataType(string)
    >>> [text_objects(np.array(v, dtype=object)) for v in (["q1", None], ["q1", 1], [b"q1"])]
    [None, None, None]
    """
    pa: Any = sys.modules.get("pyarrow")
    if pa is None or values.dtype != object:
        return None
    try:
        # Type inferred, not imposed: pa.string() would take bytes as text.
        array = pa.array(values, from_pandas=False)
    except (pa.ArrowException, TypeError, ValueError):  # mixed kinds, a lone surrogate
        return None
    if not pa.types.is_string(array.type) or array.null_count:
        return None
    return pa.chunked_array([array])

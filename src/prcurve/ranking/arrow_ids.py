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
from prcurve.ranking import distinct_keys as _distinct
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
        distinct = _distinct_short_ids(pa, pc, chunks)
        if distinct is not None:
            return distinct
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


def _distinct_short_ids(pa: Any, pc: Any, chunks: Any) -> Encoded | None:
    """A large text column of mostly distinct short ids (real document ids: about one
    per row) encoded as words (:func:`~prcurve.ranking.keys.encode_words`, one sort
    of 64-bit keys) instead of by pyarrow's hash table, whose cost grows with the
    distinct values (3-4 s for 10^7 of them here) and whose dictionary becomes one
    Python string per id; the labels are numpy text (``U``, or ``S`` for binary
    columns). None for anything else: short columns, longer ids than 32 bytes, ids
    holding a NUL byte (the words would not tell "a" from "a\\0"), non-ASCII text,
    or a sample of rows less than 90% distinct (pyarrow's table is faster there)."""
    kind = chunks.type
    n = len(chunks)
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
    if n < _distinct.SORT_ROWS or not (text or pa.types.is_binary(kind)
                                       or pa.types.is_large_binary(kind)):
        return None
    sample = _take(pa, chunks, _distinct.sample_rows(n))
    # len(pc.unique) rather than pc.count_distinct: the same count (a null would be one
    # more value, but the ids hold none: checked before), 2.4x faster (2^16 short ids,
    # 2.8 against 6.7 ms; the most of Run.from_frame's cost at 10^5 rows).
    distinct = len(pc.unique(sample)) - (1 if sample.null_count else 0)
    if not _distinct.mostly_distinct_count(distinct, len(sample)):
        return None
    longest = int(pc.max(pc.binary_length(chunks)).as_py())
    if longest > 32:
        return None
    parts = [c for c in chunks.chunks if len(c)]
    buffers = [arrow_binary(c, wide=False) for c in parts]  # int32 offsets as they are
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

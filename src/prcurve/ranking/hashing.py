"""pyarrow's hash tables for columns of ids: which columns use them, and hashing
on several threads.

pyarrow's ``dictionary_encode`` (C, one pass) finds a column's distinct values and
each row's code; it releases the GIL, so :func:`arrow_dictionary` hashes a large
column in contiguous parts, one per thread, and joins the parts' dictionaries in
order: the result is exactly that of one pass. pyarrow is imported lazily here
(``import prcurve`` stays numpy-only).

Examples
--------
>>> import pyarrow as pa
>>> from prcurve.ranking.hashing import arrow_dictionary
>>> dictionary, codes = arrow_dictionary(pa.chunked_array([["b", "a"], ["b", "c"]]))
>>> dictionary.to_pylist(), codes.tolist()
(['b', 'a', 'c'], [0, 1, 0, 2])
"""

from __future__ import annotations

import contextvars
import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import arrow_values, numpy_to_arrow
from prcurve.core.sorting import parts_for, run_parts

__all__ = ["ARROW_ROWS", "ENCODE_PART_ROWS", "arrow_dictionary", "arrow_module", "numpy_only"]

I64 = NDArray[np.int64]

ARROW_ROWS = 1 << 16  # columns at least this long are hashed by pyarrow, when installed


_NUMPY_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("prcurve_numpy_only",
                                                                  default=False)
"""Set by :class:`numpy_only`: no pyarrow import, whatever the size. A context variable,
so one thread's (or task's) ``with numpy_only():`` leaves the others' encoding as it is."""


class numpy_only:  # noqa: N801 - used as a function: ``with numpy_only():``
    """Within ``with numpy_only():``, :func:`arrow_module` gives None: columns are
    encoded by numpy alone, without importing pyarrow (40 MiB of memory: issue 26,
    item 4; ``prcurve trec`` reading a qrels file of 10^5 rows). It holds for the
    current thread (context) only."""

    def __enter__(self) -> None:
        self._token = _NUMPY_ONLY.set(True)

    def __exit__(self, *exc: object) -> None:
        _NUMPY_ONLY.reset(self._token)


def arrow_module(n: int) -> Any | None:
    """The pyarrow module for a column of ``n`` rows, or None (too short, not
    installed, or within :class:`numpy_only`)."""
    if n < ARROW_ROWS or _NUMPY_ONLY.get():
        return None
    try:
        return importlib.import_module("pyarrow")
    except ImportError:
        return None


ENCODE_PART_ROWS = 1 << 20
"""A column of at least twice this many rows is hashed in parts, one per thread
(:func:`prcurve.core.sorting.sort_threads`; read at each call: tests may lower it)."""


def arrow_dictionary(column: Any, threads: int | None = None) -> tuple[Any, I64]:
    """pyarrow's ``dictionary_encode`` of an array or chunked array without nulls
    (not dictionary-typed): the distinct values in first-seen order (a pyarrow
    array) and each row's code (int64, one array written once).

    A large column of text (binary, strings) is split into contiguous parts of
    rows, each hashed in its own thread (pyarrow releases the GIL;
    :func:`~prcurve.core.sorting.sort_threads`
    threads, one part per :data:`ENCODE_PART_ROWS` rows at least); then each
    part's dictionary is looked up in the values before it (``index_in``), its new
    values appended in its own order and its codes renumbered where they moved.
    Values first seen in an earlier part come first, so the result is exactly
    that of one pass over the rows. ``threads``: at most this many (1 for a
    caller that keeps its other core busy meanwhile).
    """
    pa: Any = importlib.import_module("pyarrow")
    n = len(column)
    # Numbers (the words of short ids) hash in a few ns a row: one pass, as parts on
    # 2 shared cores were timed slower (a part waits for the other's thread).
    parts = 1 if pa.types.is_primitive(column.type) else parts_for(
        n, threads=threads, min_parallel=2 * ENCODE_PART_ROWS)
    bounds = [n * k // parts for k in range(parts + 1)]
    codes = np.empty(n, dtype=np.int64)

    def encode_part(k: int) -> Any:
        piece = column.slice(bounds[k], bounds[k + 1] - bounds[k]) if parts > 1 else column
        encoded = piece.dictionary_encode()
        chunks = [c for c in (encoded.chunks if isinstance(encoded, pa.ChunkedArray)
                              else [encoded]) if len(c)]
        if len(chunks) > 1 and not all(c.dictionary.equals(chunks[0].dictionary)
                                       for c in chunks[1:]):
            # chunks with their own dictionaries: one array, one dictionary
            chunks = [pa.concat_arrays([c.dictionary_decode() for c in chunks]
                                       ).dictionary_encode()]
        at = bounds[k]
        for chunk in chunks:
            index_type = np.dtype(f"i{chunk.indices.type.bit_width // 8}")
            codes[at:at + len(chunk)] = arrow_values(chunk.indices, index_type)
            at += len(chunk)
        return chunks[0].dictionary if chunks else None

    if parts > 1:
        from concurrent.futures import ThreadPoolExecutor  # lazily: issue 26

        with ThreadPoolExecutor(max_workers=parts) as pool:
            dictionaries = run_parts(encode_part, parts, pool)
    else:
        dictionaries = [encode_part(0)]
    present = [(k, d) for k, d in enumerate(dictionaries) if d is not None]
    if not present:
        return pa.array([], type=column.type), codes
    dictionary = present[0][1]
    compute: Any = importlib.import_module("pyarrow.compute") if len(present) > 1 else None
    for k, part in present[1:]:
        found = compute.index_in(part, value_set=dictionary)
        position = arrow_values(found.fill_null(-1), np.dtype(np.int32)).astype(np.int64)
        new = position < 0
        position[new] = len(dictionary) + np.arange(int(np.count_nonzero(new)))
        if new.any():
            dictionary = pa.concat_arrays([dictionary, part.filter(numpy_to_arrow(pa, new))])
        if not np.array_equal(position, np.arange(position.shape[0])):
            rows = codes[bounds[k]:bounds[k + 1]]
            # codes index ``position`` by construction: "clip" never clips, and
            # writes in place (the default "raise" copies the output first)
            np.take(position, rows, out=rows, mode="clip")
    return dictionary, codes

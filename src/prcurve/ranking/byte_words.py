"""The words of byte strings held in one buffer (a pyarrow array's, a file's bytes):
word k of a string holds its bytes 8k..8k+7, big-endian, NUL-padded
(:func:`~prcurve.ranking.keys.encode_words`), read with one unaligned 8-byte load per
word and row, with no Python object per row.

Examples
--------
>>> buffer = np.frombuffer(b"d1abcdefghi", dtype=np.uint8)
>>> words = byte_words(buffer, np.array([0, 2]), np.array([2, 9]))
>>> [hex(int(w)) for w in words[0]], [hex(int(w)) for w in words[1]]
(['0x6431000000000000', '0x6162636465666768'], ['0x0', '0x6900000000000000'])
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.text_numbers import load_words, padded_words

__all__ = ["arrow_binary", "arrow_words", "byte_words", "loaded_words"]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

_MASKS = np.array([0, *(((1 << (8 * k)) - 1) << (8 * (8 - k)) for k in range(1, 8)), 2**64 - 1],
                  dtype=np.uint64)


def byte_words(
    buffer: NDArray[np.uint8], starts: NDArray[Any], lengths: NDArray[Any],
    n_words: int | None = None,
) -> list[U64]:
    """The words (see :func:`~prcurve.ranking.keys.encode_words`) of the byte strings
    ``buffer[starts[i] : starts[i] + lengths[i]]``: one unaligned 8-byte load
    per word and row, masked to the string's length (``n_words`` words, at
    least enough for the longest)."""
    if n_words is None:
        n_words = max((int(lengths.max(initial=0)) + 7) // 8, 1)
    # A padded copy, so that every load stays inside it (text_numbers.load_words).
    return loaded_words(padded_words(buffer, 8 * n_words), starts, lengths, n_words)


def loaded_words(words: U64, starts: NDArray[Any], lengths: NDArray[Any],
                 n_words: int) -> list[U64]:
    """:func:`byte_words` of bytes held as aligned 64-bit ``words``
    (:func:`~prcurve.ranking.text_numbers.load_words`: ``padded_words``' or a buffer's
    own, with at least ``8 * n_words`` bytes after each string's start and one more
    word)."""
    out = []
    for k in range(n_words):
        word = load_words(words, starts + 8 * k if k else starts)
        if np.little_endian:
            word.byteswap(inplace=True)  # the bytes read big-endian: words compare as they do
        word &= _MASKS[np.clip(lengths - 8 * k, 0, 8)]  # bytes past the string: zero
        out.append(word)
    return out


def arrow_binary(array: Any, wide: bool = True) -> tuple[NDArray[np.uint8], NDArray[Any]]:
    """The data buffer and the offsets (int64; with ``wide`` False, as stored: int32
    for ``string`` and ``binary``, a view) of a pyarrow binary or string array."""
    pa: Any = importlib.import_module("pyarrow")
    large = pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64 if large else np.int32)[
        array.offset:array.offset + len(array) + 1]
    offsets = offsets.astype(np.int64, copy=False) if wide else offsets
    body = array.buffers()[2]
    buffer = np.frombuffer(body, dtype=np.uint8) if body is not None else np.zeros(0, np.uint8)
    return buffer, offsets


def arrow_words(array: Any) -> list[U64]:
    """The words (:func:`~prcurve.ranking.keys.encode_words`) of a pyarrow binary or string array
    without nulls, read from its offsets and data buffers (no Python object per row)."""
    buffer, offsets = arrow_binary(array)
    return byte_words(buffer, offsets[:-1], np.diff(offsets))


def chunk_words(chunks: list[tuple[NDArray[np.uint8], NDArray[Any]]], n_words: int) -> list[U64]:
    """The words of the strings of several chunks (each a buffer and its ``n + 1``
    offsets, as :func:`arrow_binary` gives them), written straight into one array per
    word: no array per chunk concatenated afterwards, and no padded copy of a chunk's
    buffer (only its last strings, whose loads would pass its end, are read from a
    small padded copy of its tail). The same words as :func:`byte_words` of each
    chunk, concatenated; ``n_words`` at least enough for the longest string.

    Examples
    --------
    >>> a = (np.frombuffer(b"d1d22", dtype=np.uint8), np.array([0, 2, 5]))
    >>> b = (np.frombuffer(b"abcdefghi", dtype=np.uint8), np.array([0, 9]))
    >>> [[hex(int(v)) for v in w] for w in chunk_words([a, b], 2)][1]
    ['0x0', '0x0', '0x6900000000000000']
    """
    n = sum(offsets.shape[0] - 1 for _, offsets in chunks)
    out = [np.empty(n, dtype=np.uint64) for _ in range(n_words)]
    at = 0
    for buffer, offsets in chunks:
        rows = offsets.shape[0] - 1
        _words_into([word[at:at + rows] for word in out], buffer, offsets)
        at += rows
    return out


BLOCK_ROWS = 1 << 16
"""Rows read at a time: each step's temporaries (512 KiB) stay in cache and reuse the
heap; a step over a whole column of 10^7 rows maps a fresh 80 MiB temporary (above
glibc's largest mmap threshold, 32 MiB) and pays its page faults every time."""


def _words_into(out: list[U64], buffer: NDArray[np.uint8], offsets: NDArray[Any]) -> None:
    """:func:`byte_words` of one chunk's strings, written into ``out`` (one array
    per word, a row per string), :data:`BLOCK_ROWS` rows at a time. The strings whose
    every load stays inside the buffer (offsets ascend, so they come first) are read
    from an unaligned view of the buffer itself; the rest from a padded copy of the
    tail."""
    n_words, size = len(out), buffer.shape[0]
    starts = offsets[:-1]
    # The bound in the offsets' own type: a Python int would make NumPy convert every
    # int32 offset to int64 first (a fresh copy of the column, 10-20 ms and its page
    # faults at 10^7 rows; measured 0.2 s of a loaded machine's time), not a binary search.
    last = max(size - 8 * n_words, -1)
    inside = int(np.searchsorted(starts, starts.dtype.type(last), side="right"))
    if inside:
        at_offset: U64 = np.ndarray(shape=(size - 7,), dtype=np.uint64, buffer=buffer,
                                    strides=(1,))
        for begin in range(0, inside, BLOCK_ROWS):
            end = min(begin + BLOCK_ROWS, inside)
            at = starts[begin:end].astype(np.intp)
            length = offsets[begin + 1:end + 1] - starts[begin:end]
            for k, word in enumerate(out):
                into = word[begin:end]
                into[...] = at_offset[at]  # (np.take of an unaligned view: 2.5x slower)
                if np.little_endian:
                    into.byteswap(inplace=True)  # read big-endian: words compare as bytes do
                into &= _MASKS[np.clip(length, 0, 8)]  # bytes past the string: zero
                if k + 1 < n_words:
                    at += 8
                    length -= 8
    if inside < starts.shape[0]:
        first = int(starts[inside])
        lengths = offsets[inside + 1:] - starts[inside:]
        tail = byte_words(buffer[first:], starts[inside:] - first, lengths, n_words)
        for word, words in zip(out, tail, strict=True):
            word[inside:] = words

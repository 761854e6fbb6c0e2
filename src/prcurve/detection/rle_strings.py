"""COCO's compressed run-length strings (maskApi.c ``rleToString`` / ``rleFrString``).

Each run length (from the fourth on, its difference from the run two before)
is written 5 bits a character, low bits first, with a continuation bit and
the sign in the last character, offset by 48 ('0'). Decoding reads many
strings at once, as one array of characters, never one value at a time.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.validation import masks as _checks

__all__ = ["counts_from_string", "counts_to_string", "strings_to_counts"]

U32 = NDArray[np.uint32]
I64 = NDArray[np.int64]

_GROUPS = 8  # 5-bit groups: enough for any difference of two 32-bit run lengths
_CHUNK_CHARS = 1 << 18  # compressed characters decoded at once (about 16 MiB of work arrays)


def counts_to_string(counts: ArrayLike) -> bytes:
    """COCO's compressed string of run lengths (maskApi.c ``rleToString``).

    Examples
    --------
    >>> counts_to_string([5, 2, 5])
    b'525'
    """
    cnts = np.asarray(counts, dtype=np.int64).ravel()
    x = cnts.copy()
    x[3:] -= cnts[1:-2]  # from the fourth run on (index > 2): the difference from two before
    shifts = 5 * np.arange(_GROUPS, dtype=np.int64)
    rest = x[:, None] >> shifts  # arithmetic shifts, as C's >> on a signed long
    group = rest & 0x1F
    after = rest >> 5
    # More groups follow while what is left is not the sign extension of the last group.
    more = np.where(group & 0x10, after != -1, after != 0)
    n_chars = np.argmin(more, axis=1) + 1
    chars = group + 48 + np.where(more, 0x20, 0)
    used = np.arange(_GROUPS)[None, :] < n_chars[:, None]
    encoded: bytes = chars[used].astype(np.uint8).tobytes()
    return encoded


def counts_from_string(string: str | bytes, argument: str = "counts") -> U32:
    """Run lengths of COCO's compressed string (maskApi.c ``rleFrString``).

    Examples
    --------
    >>> counts_from_string(b'525').tolist()
    [5, 2, 5]
    """
    raw = string.encode("ascii", "replace") if isinstance(string, str) else bytes(string)
    counts, _, bad = strings_to_counts([raw])
    if bad >= 0:
        raise _checks.bad_counts_string(argument, string)
    return counts.astype(np.uint32)


def strings_to_counts(strings: Sequence[str | bytes]) -> tuple[U32, I64, int]:
    """Run lengths of many compressed strings at once (maskApi.c ``rleFrString``),
    in parts of about ``_CHUNK_CHARS`` characters (memory stays bounded).

    Strings (``str``, read as ASCII with ``?`` for any other character, or
    ``bytes``) are decoded together. Returns the run lengths of every string,
    one after another (32-bit, as C's ``uint``), the offsets of each string's
    runs, and the index of the
    first malformed string (-1 when none is): a character outside '0'..'o', a
    value left open at the end of a string, or a value of more than 8 groups.
    """
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    ends = np.cumsum(lengths)
    if not strings or ends[-1] <= _CHUNK_CHARS:
        return _strings_to_counts(strings, lengths)
    cuts = np.unique(np.concatenate((
        [0], np.searchsorted(ends, np.arange(1, ends[-1] // _CHUNK_CHARS + 1) * _CHUNK_CHARS),
        [len(strings)])))
    # Every value takes at least one character, so the characters bound the runs: one
    # array filled part by part (the parts are never joined, a second copy).
    out = np.empty(int(ends[-1]), dtype=np.uint32)
    offset = np.zeros(len(strings) + 1, dtype=np.int64)
    base = 0
    for lo, hi in itertools.pairwise(cuts.tolist()):
        counts, part, bad = _strings_to_counts(strings[lo:hi], lengths[lo:hi])
        if bad >= 0:
            return counts, part, lo + bad
        out[base:base + counts.shape[0]] = counts
        offset[lo + 1:hi + 1] = part[1:] + base
        base += counts.shape[0]
    return out[:base], offset, -1


def _joined(strings: Sequence[str | bytes]) -> NDArray[np.uint8]:
    """The characters of every string, one after another, as bytes."""
    if set(map(type, strings)) <= {str}:
        raw = "".join(strings).encode("ascii", "replace")  # type: ignore[arg-type]
    else:
        raw = b"".join(s.encode("ascii", "replace") if isinstance(s, str) else bytes(s)
                       for s in strings)
    return np.frombuffer(raw, dtype=np.uint8)


def _strings_to_counts(strings: Sequence[str | bytes], lengths: I64) -> tuple[U32, I64, int]:
    # Each character carries 5 bits of a value (0x1F), a continuation bit (0x20) and, on a
    # value's last character, its sign (0x10); characters are offset by 48 ('0').
    g = _joined(strings) - np.uint8(48)  # a character below '0' wraps past 63
    char_end = np.cumsum(lengths)
    more = (g & 0x20) != 0
    last = np.flatnonzero(~more)  # a value ends at a character without the continuation bit
    first = np.empty_like(last)
    first[:1] = 0
    first[1:] = last[:-1] + 1
    size = last - first + 1  # characters per value
    closed = char_end[lengths > 0] - 1
    if (g > 63).any() or more[closed].any() or (size > _GROUPS).any():
        bad_char = min(np.flatnonzero(g > 63)[:1].tolist()
                       + closed[more[closed]][:1].tolist()
                       + (first[size > _GROUPS][:1] + _GROUPS).tolist())
        return (np.zeros(0, dtype=np.uint32), np.zeros(1, dtype=np.int64),
                int(np.searchsorted(char_end, bad_char, side="right")))
    x = (g[first] & 0x1F).astype(np.int64)
    for k in range(1, int(size.max(initial=1))):  # most values take one or two characters
        longer = np.flatnonzero(size > k)
        x[longer] |= (g[first[longer] + k] & 0x1F).astype(np.int64) << (5 * k)
    negative = np.flatnonzero(g[last] & 0x10)
    x[negative] |= -1 << (5 * size[negative])
    # Values per string (none spans two strings: each string's last character closes one).
    n_values = np.diff(np.searchsorted(last, np.concatenate(([0], char_end)), side="left"))
    offset = np.concatenate(([0], np.cumsum(n_values))).astype(np.int64)
    return _undo_differences(x, offset, n_values), offset, -1


def _undo_differences(x: I64, offset: I64, n_values: I64) -> U32:
    """rleFrString's ``if (m > 2) x += cnts[m - 2]``, for every string at once.

    Within a string, values 1, 3, 5, ... and values 2, 4, 6, ... are running
    sums (value 0 stands alone). Globally, positions of one parity form one
    chain: its running sum, less at each chain start (a string's value 1 or 2)
    what the chain held just before it, restarts there without a per-value
    subtraction (the corrections telescope).
    """
    string_first = offset[:-1][n_values > 0]
    y = x.copy()
    y[string_first] = 0
    starts = np.sort(np.concatenate((offset[:-1][n_values >= 2] + 1,
                                     offset[:-1][n_values >= 3] + 2)))
    counts = np.empty_like(x)
    for parity in (0, 1):
        chain = y[parity::2]
        held = np.cumsum(chain)
        at = (starts[starts % 2 == parity] - parity) // 2  # chain starts, in the chain
        before = np.where(at >= 1, held[np.maximum(at - 1, 0)], 0)
        correction = np.zeros_like(held)
        correction[at] = np.diff(before, prepend=0)
        counts[parity::2] = held - np.cumsum(correction)
    counts[string_first] = x[string_first]
    out: U32 = (counts & 0xFFFFFFFF).astype(np.uint32)  # C's (uint) x
    return out

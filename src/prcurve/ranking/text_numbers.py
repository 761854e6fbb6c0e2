"""Byte strings of a file as a matrix, and plain decimal numbers read from it exactly.

Reading a run's scores is most of the work of reading a small run file:
numpy's conversion of byte strings to ``float64`` (as Python's :func:`float`)
costs about 0.2 µs a number, half of the exact reader's time on a typical
run of 50,000 lines (issue 26). Scores are nearly always written as plain
decimals (``19.9682``, ``-0.5``, ``7``), and for those there is an exact
shortcut (Clinger, "How to read floating point numbers accurately", PLDI
1990, the "fast path" every correctly rounded ``strtod`` takes first): when
the digits, read as one integer M, are below 2^53 and k digits follow the
point with k <= 22, then M and 10^k are both exact doubles, and one IEEE
division M / 10^k is the correctly rounded value of the decimal -- the same
double that :func:`float`, numpy and C's ``strtod`` (trec_eval's ``atof``)
give. Digits M up to 19 significant ones (``repr``'s 17-digit scores) and numbers
with an exponent (``1.2e-05``, as ``repr`` writes below 1e-4) are read exactly
too, by Eisel and Lemire's method (:mod:`prcurve.ranking.long_decimals`).
:func:`plain_decimals` reads those vectorised, over the columns of a byte matrix,
and says which rows it read; every other text (a ``+`` sign before the digits, more
than 19 significant digits, an exponent above the digits after the point, a result
below the normal doubles, ``inf``, malformed text) is left to the general parser,
:func:`general_numbers` (numpy's, under the readers' rules).

Examples
--------
>>> import numpy as np
>>> buffer = np.frombuffer(b"19.9682 -0.5 7 1e-3 1e3", dtype=np.uint8)
>>> starts, lengths = np.array([0, 8, 13, 15, 20]), np.array([7, 4, 1, 4, 3])
>>> matrix = byte_matrix(buffer, starts, lengths)
>>> values, read = plain_decimals(matrix, lengths)
>>> values[read].tolist(), read.tolist()
([19.9682, -0.5, 7.0, 0.001], [True, True, True, True, False])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.long_decimals import MAX_AFTER, MAX_POWER, divided_by_power_of_ten

__all__ = ["byte_matrix", "decimal_text_keys", "general_numbers", "load_words", "padded_words",
           "plain_decimals", "word_matrix"]

_EXACT_POWERS = 22  # 10^22 is the largest power of ten that is an exact double
_EXACT_INTEGER = np.uint64(2**53)  # every integer up to this is an exact double
_MAX_DIGITS = 19  # significant digits: 10^19 < 2^64, the integer never overflows uint64
_LONGEST = MAX_AFTER + 2  # bytes of a decimal read: a minus, a digit, the point, 23 digits


def padded_words(buffer: NDArray[np.uint8], extra: int) -> NDArray[np.uint64]:
    """The bytes of ``buffer`` followed by at least ``extra`` NUL bytes and one more
    word, in aligned 64-bit words (for :func:`load_words`)."""
    words = np.zeros((buffer.shape[0] + extra + 15) // 8, dtype=np.uint64)
    words.view(np.uint8)[:buffer.shape[0]] = buffer
    return words


_ONE = np.uint64(1)
_SIXTY_THREE = np.uint64(63)


def load_words(words: NDArray[np.uint64], offsets: NDArray[Any]) -> NDArray[np.uint64]:
    """The 8 bytes at each byte offset of :func:`padded_words`' bytes, as one unaligned
    64-bit load of them gives (the machine's byte order).

    From the two aligned words the 8 bytes span, shifted together: two gathers of
    aligned words and four vector operations. (A gather from an unaligned view at every
    byte offset copies each element by a ``memcpy`` call: about 7x the instructions,
    a third of reading a small run file; issue 26.)

    Examples
    --------
    >>> import numpy as np
    >>> words = padded_words(np.frombuffer(b"0123456789abcdef", dtype=np.uint8), 8)
    >>> [bytes(w) for w in load_words(words, np.array([0, 3, 8, 9])).view("S8")]
    [b'01234567', b'3456789a', b'89abcdef', b'9abcdef']
    """
    at = offsets.astype(np.uint64)
    first = (at >> np.uint64(3)).view(np.intp)  # the aligned word holding the first byte
    low: NDArray[np.uint64] = words[first]
    high: NDArray[np.uint64] = words[first + 1]
    shift = (at & np.uint64(7)) << np.uint64(3)  # bits before the first byte: 0..56
    # high << (64 - shift), as (high << 1) << (63 - shift): a shift by 64 (shift 0)
    # gives 0 without shifting by the width, which numpy defines but C does not.
    rest = _SIXTY_THREE - shift
    if np.little_endian:  # the first byte is the least significant
        low >>= shift
        high <<= _ONE
        high <<= rest
    else:
        low <<= shift
        high >>= _ONE
        high >>= rest
    low |= high
    return low


def byte_matrix(buffer: NDArray[np.uint8], starts: NDArray[Any], lengths: NDArray[Any],
                width: int | None = None) -> NDArray[np.uint8]:
    """The byte strings ``buffer[starts[i] : starts[i] + lengths[i]]`` as the rows of
    an ``(n, width)`` matrix, NUL past each string's end (``width``: the longest by
    default); rows of whole 8-byte words, so not C-contiguous unless ``width`` is a
    multiple of 8.

    One 8-byte load per row and 8 columns (:func:`load_words`, from a padded copy of
    the buffer), masked to each string's length: two gathers per 8 columns instead
    of one per column.

    Examples
    --------
    >>> import numpy as np
    >>> buffer = np.frombuffer(b"ab cdefghijk", dtype=np.uint8)
    >>> m = byte_matrix(buffer, np.array([0, 3]), np.array([2, 9]))
    >>> m.shape, bytes(m[0]), bytes(m[1])
    ((2, 9), b'ab\\x00\\x00\\x00\\x00\\x00\\x00\\x00', b'cdefghijk')
    """
    if width is None:
        width = int(lengths.max(initial=0))
    width = max(width, 1)
    return word_matrix(padded_words(buffer, 8 * ((width + 7) // 8)), starts, lengths, width)


def word_matrix(words: NDArray[np.uint64], starts: NDArray[Any], lengths: NDArray[Any],
                width: int) -> NDArray[np.uint8]:
    """:func:`byte_matrix` of bytes held as aligned 64-bit ``words`` (:func:`load_words`:
    :func:`padded_words`' or a buffer's own, with at least ``8 * ceil(width / 8)``
    bytes after each string's start and one more word)."""
    n = starts.shape[0]
    n_words = (width + 7) // 8
    # keep[b]: the mask of a word's first b bytes in memory order.
    keep = np.array([(1 << (8 * b)) - 1 if np.little_endian else ((1 << 64) - 1) ^ (
        (1 << (64 - 8 * b)) - 1) for b in range(9)], dtype=np.uint64)
    out = np.empty((n, n_words), dtype=np.uint64)
    for k in range(n_words):
        word = load_words(words, starts + 8 * k if k else starts)
        word &= keep[np.clip(lengths - 8 * k, 0, 8)]
        out[:, k] = word
    matrix = out.view(np.uint8)  # (n, 8 * n_words), row-major: the bytes in order
    # A view of the first ``width`` columns: a C-contiguous copy would cost a copy call
    # per row (callers that need one make it: trec_format._as_strings).
    return matrix if matrix.shape[1] == width else matrix[:, :width]


def plain_decimals(matrix: NDArray[np.uint8], lengths: NDArray[Any]
                   ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The rows of a :func:`byte_matrix` that are plain decimals, read exactly.

    A plain decimal is an optional ``-``, then digits with at most one ``.``
    among or around them (``5``, ``-0.25``, ``.5``, ``5.``), at least one digit,
    at most 19 significant ones (from the first that is not 0) and at most
    :data:`~prcurve.ranking.long_decimals.MAX_AFTER` (23) after the point, in at
    most 25 bytes; or such digits, ``e`` or ``E``, an optional sign and 1 to 4 digits,
    where the exponent is at most the digits after the point (``1.25e-05``, not
    ``1e5``) and the value zero or a normal double. Digits M below 2^53 with at most
    22 after the point (or, with an exponent, k = digits after the point - exponent
    <= 22) take Clinger's fast path (one division); the others (17-digit ``repr``
    text) take :func:`~prcurve.ranking.long_decimals.divided_by_power_of_ten`.
    Returns ``(values, read)``: ``values[i]`` is the row's number where
    ``read[i]``, garbage elsewhere (the caller parses those rows).

    Examples
    --------
    >>> import numpy as np
    >>> texts = [b"0.1", b"-0", b"5.", b".5", b"+1", b"1_0", b"-", b"12345678901234567",
    ...          b"0.30000000000000004", b"12345678901234567890"]
    >>> buffer = np.frombuffer(b"".join(texts), dtype=np.uint8)
    >>> lengths = np.array([len(t) for t in texts])
    >>> starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    >>> values, read = plain_decimals(byte_matrix(buffer, starts, lengths), lengths)
    >>> read.tolist()
    [True, True, True, True, False, False, False, True, True, False]
    >>> [float(v) for v in values[read]]
    [0.1, -0.0, 5.0, 0.5, 1.2345678901234568e+16, 0.30000000000000004]
    >>> bool(np.signbit(values[1]))
    True
    """
    longest = _LONGEST
    if matrix.shape[1] > longest:
        matrix = matrix[:, :longest]
    n, width = matrix.shape
    # Column by column (the transpose: each column contiguous, every reduction over
    # rows one pass of a few vector operations; a row of 7 bytes is too short for
    # numpy's reductions along it).
    columns = np.ascontiguousarray(matrix.T)
    digit = columns - np.uint8(48)  # "0".."9" -> 0..9; every other byte wraps to >= 10
    is_digit = digit < 10
    is_dot = columns == 46
    minus = columns[0] == 45
    # Every byte a digit, the point, NUL padding (no NUL is inside a field: the
    # reader refuses NUL bytes) or a leading minus.
    fine = is_digit | is_dot | (columns == 0)
    fine[0] |= minus
    read = np.logical_and.reduce(fine, axis=0)
    read &= lengths <= longest
    n_dots = np.add.reduce(is_dot, axis=0, dtype=np.uint8)
    read &= n_dots <= 1
    n_digits = np.add.reduce(is_digit, axis=0, dtype=np.uint8)  # width <= 25: no overflow
    read &= n_digits >= 1
    long = np.flatnonzero(n_digits > _MAX_DIGITS)
    if long.shape[0]:
        # Significant digits (from the first that is not 0): at most 19, so that M <
        # 10^19 < 2^64 (leading zeros, as in 0.000123..., add nothing to M).
        read[long] &= _significant(columns[:, long]) <= _MAX_DIGITS
    # Digits after the point: in a row read, every byte after the point up to the row's
    # length is a digit (NUL only pads past the end), so they are length - 1 - the
    # point's column (0 without a point). Column sums, no accumulation along the rows.
    point = np.zeros(n, dtype=np.uint8)
    for column in range(1, width):
        point += is_dot[column] * np.uint8(column)
    after = np.where(n_dots == 1, lengths - 1 - point, 0)
    np.maximum(after, 0, out=after)  # (rows not read: any value, none negative)
    read &= after <= MAX_AFTER
    np.minimum(after, MAX_AFTER, out=after)
    # The digits as one integer, Horner's rule over the columns (other bytes skipped:
    # times 1 plus 0); exact in uint64 for the rows read (M < 10^19).
    digit *= is_digit
    integer = digit[0].astype(np.uint64)
    factor = np.empty(n, dtype=np.uint8)  # 10 for a digit, 1 for any other byte
    for column in range(1, width):
        np.multiply(is_digit[column], np.uint8(9), out=factor)
        factor += np.uint8(1)
        integer *= factor
        integer += digit[column]
    values = _scaled(integer, after, read)
    other = np.flatnonzero(~read)
    if other.shape[0]:  # with an exponent (1.2e-05), as repr writes below 1e-4
        values[other], read[other] = _with_exponent(columns[:, other], lengths[other])
    np.negative(values, out=values, where=minus)
    return values, read


def _scaled(integer: NDArray[np.uint64], after: NDArray[np.int64], read: NDArray[np.bool_]
            ) -> NDArray[np.float64]:
    """``integer / 10^after`` for the rows ``read`` (rows left undecided: ``read`` set
    False), garbage elsewhere; ``after`` at most MAX_POWER."""
    # One correctly rounded division of two exact doubles (Clinger's fast path); the
    # powers from Python's integers (exact), not from pow().
    fast = integer <= _EXACT_INTEGER
    fast &= after <= _EXACT_POWERS
    powers = np.array([float(10**k) for k in range(_EXACT_POWERS + 1)])
    values = integer.astype(np.float64)
    values /= powers.take(np.minimum(after, _EXACT_POWERS))
    rest = np.flatnonzero(read & ~fast & (integer > 0))
    if rest.shape[0]:
        values[rest], read[rest] = divided_by_power_of_ten(integer[rest], after[rest])
    return values


def _with_exponent(columns: NDArray[np.uint8], lengths: NDArray[Any]
                   ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The rows (columns of ``columns``, the bytes of a row in each) that are a plain
    decimal, ``e`` or ``E``, an optional sign and 1 to 4 digits, read exactly where M /
    10^k has k = (digits after the point) - exponent in 0 .. MAX_POWER and is zero or
    a normal double (not negated: the caller signs them)."""
    width, n = columns.shape
    read = np.ones(n, dtype=bool)
    seen_e = np.zeros(n, dtype=bool)  # an e in an earlier column
    after_e = np.zeros(n, dtype=bool)  # the column before was the e
    exponent_minus = np.zeros(n, dtype=bool)
    n_e = np.zeros(n, dtype=np.uint8)
    e_column = np.zeros(n, dtype=np.uint8)
    n_dots = np.zeros(n, dtype=np.uint8)
    point = np.zeros(n, dtype=np.uint8)
    n_digits = np.zeros(n, dtype=np.uint8)
    exponent_digits = np.zeros(n, dtype=np.uint8)
    exponent = np.zeros(n, dtype=np.int16)  # 4 digits at most (more: wraps, not read)
    started = np.zeros(n, dtype=bool)
    significant = np.zeros(n, dtype=np.uint8)
    integer = np.zeros(n, dtype=np.uint64)
    for column in range(width):
        byte = columns[column]
        digit = byte - np.uint8(48)
        is_digit = digit < 10
        digit *= is_digit
        is_e = (byte | np.uint8(32)) == 101
        is_dot = byte == 46
        minus = byte == 45
        mantissa = is_digit & ~seen_e
        fine = is_dot | is_e
        fine &= ~seen_e
        fine |= is_digit
        fine |= byte == 0
        fine |= (minus | (byte == 43)) & after_e
        if column == 0:
            fine |= minus
        read &= fine
        exponent_minus |= minus & after_e
        n_e += is_e
        e_column += is_e * np.uint8(column)
        n_dots += is_dot
        point += is_dot * np.uint8(column)
        n_digits += mantissa
        started |= mantissa & (digit != 0)
        significant += started & mantissa
        integer *= mantissa * np.uint8(9) + np.uint8(1)
        integer += digit * mantissa
        in_exponent = is_digit & seen_e
        exponent_digits += in_exponent
        exponent *= in_exponent * np.int16(9) + np.int16(1)
        exponent += digit * in_exponent
        seen_e |= is_e
        after_e = is_e
    read &= (n_e == 1) & (n_dots <= 1) & (n_digits >= 1) & (significant <= _MAX_DIGITS)
    read &= (exponent_digits >= 1) & (exponent_digits <= 4) & (lengths <= _LONGEST)
    # Digits after the point (the point before the e), less the exponent.
    after = np.where(n_dots == 1, e_column.astype(np.int64) - 1 - point, 0)
    after -= np.where(exponent_minus, -exponent, exponent)
    read &= (after >= 0) & (after <= MAX_POWER)
    np.clip(after, 0, MAX_POWER, out=after)
    return _scaled(integer, after, read), read


def _significant(columns: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The digits of each column of ``columns`` (bytes of a row in each column) from
    the first that is not 0."""
    started = np.zeros(columns.shape[1], dtype=bool)
    significant = np.zeros(columns.shape[1], dtype=np.uint8)
    for row in columns:
        is_digit = (row >= 48) & (row <= 57)
        started |= is_digit & (row != 48)
        significant += started & is_digit
    return significant


def general_numbers(text: NDArray[np.bytes_], dtype: type[np.generic]) -> NDArray[Any] | None:
    """Byte strings as numbers of ``dtype`` by numpy's parser (Python's rules, but no
    ``_``: ``1_0`` is no number, as for ``strtod``); None where one is not a number, or,
    for ``float64``, not a finite one (the caller names it or reads otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> general_numbers(np.array([b"1e-3", b"+2"]), np.float64).tolist()
    [0.001, 2.0]
    >>> general_numbers(np.array([b"1_0"]), np.int64) is None
    True
    >>> general_numbers(np.array([b"inf"]), np.float64) is None
    True
    """
    if b"_" in text.tobytes():
        return None
    try:
        values: NDArray[Any] = text.astype(dtype)
    except (ValueError, OverflowError):
        return None
    if dtype is np.float64 and not np.isfinite(values).all():
        return None
    return values


_ALIGNED_DIGITS = 17


def decimal_text_keys(numbers: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """Integers that sort as the ids' decimal text does, one per id and distinct for
    distinct ids, made without text (issue 26, session 35: the text of 10^6 tied ids
    and its sort took 0.43 s of a 0.72 s ``evaluate``); None where an id has 18 digits or
    more. The digits left-aligned to 17 places (``"19"`` before ``"2"``: 19·10^15 <
    2·10^16), then their count (a prefix first: ``"1"`` < ``"10"``), then the sign: ``-``
    (byte 0x2D) sorts before every digit, so the negative ids come first, each ordered
    by its digits as well.

    Examples
    --------
    >>> import numpy as np
    >>> ids = np.array([9, 10, 100, 2, -5, -40, 0])
    >>> ids[np.argsort(decimal_text_keys(ids))].tolist()
    [-40, -5, 0, 10, 100, 2, 9]
    """
    bound = 10**_ALIGNED_DIGITS
    if numbers.shape[0] and not ((numbers > -bound) & (numbers < bound)).all():
        return None
    magnitude = np.abs(numbers)
    # digits: 1 below 10, k + 1 from 10^k on
    digits = np.searchsorted(10 ** np.arange(1, _ALIGNED_DIGITS, dtype=np.int64), magnitude,
                             side="right") + 1
    scale = 10 ** (_ALIGNED_DIGITS - np.arange(_ALIGNED_DIGITS + 1, dtype=np.int64))
    keys: NDArray[np.int64] = magnitude * scale[digits]  # < 10^17
    keys *= 20
    keys += digits  # < 2·10^18 < 2^61
    keys[numbers >= 0] += np.int64(1 << 61)
    return keys

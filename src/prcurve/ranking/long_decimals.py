"""Decimals of up to 19 significant digits, rounded correctly without a string parser.

:func:`~prcurve.ranking.text_numbers.plain_decimals` reads a plain decimal by
Clinger's fast path when its digits M are below 2^53 and at most 22 of them follow
the point. Scores written with 17 significant digits (Python's ``repr`` of a
float64, ``'%.17g'``, many tools) have M up to 10^17 and fall outside it; this
module reads them, vectorised, as the same double as Python's :func:`float` (and
C's ``strtod``, trec_eval's ``atof``): :func:`divided_by_power_of_ten` gives the
double nearest to ``M / 10^k`` for any integer ``1 <= M < 2^64`` (every decimal of
at most 19 significant digits) and ``0 <= k <=`` :data:`MAX_POWER`, and says which
rows it could not decide or that are below the normal doubles (left to the general
parser).

The method is Eisel and Lemire's (D. Lemire, "Number parsing at a gigabyte per
second", Software: Practice and Experience 51(8), 2021; N. Tao's account of it,
"The Eisel-Lemire ParseNumberF64 algorithm", 2020), here for negative powers of ten
and with its error bound written for this use:

1. ``W = M * 2^z``, ``2^63 <= W < 2^64`` (``z`` leading zero bits of M).
2. ``R = 2^s / 10^k`` with ``s`` the integer that puts ``2^127 <= R < 2^128``
   (``s = 127 + bit_length(10^k)`` for ``k >= 1``; ``R = 2^127`` for ``k = 0``), and
   ``T = floor(R)``, a table of 128-bit integers (:func:`_powers`, from Python's
   exact integers), of which the high word ``T_hi = floor(T / 2^64)`` is used.
   Then ``M / 10^k = W R 2^(-z-s)``: the double is fixed by the top 54 bits of
   ``Pi = W R`` (53 bits and the rounding bit) and whether any bit below them is set.
3. ``A = W T_hi``, a 128-bit product (:func:`_product`: 32-bit halves in ``uint64``).
   Since ``T_hi 2^64 <= R < T_hi 2^64 + 2^64``, ``A <= Pi / 2^64 < A + W``, and
   ``2^126 <= A < 2^128``: its high word has its top bit at 62 or 63, and
   ``g = 9`` or ``10`` bits of that word lie below the 54.
4. *No carry possible.* Unless the ``g`` low bits of A's high word are all ones and
   ``A_lo + W >= 2^64``, adding less than W to A cannot reach the 54 bits: they are
   Pi's. If ``k >= 1``, R is no integer (10^k does not divide a power of two) and
   ``Pi > A 2^64`` (W > 0), so some bit of Pi below the 54 is set: the rounding
   bit alone decides, and the mantissa is ``(top 54 bits + 1) >> 1``. If ``k = 0``,
   ``R = T_hi 2^64`` exactly, ``Pi = A 2^64`` and nothing is uncertain; an exact
   halfway (rounding bit set, every lower bit clear) rounds to the even mantissa.
5. *A carry possible* (about one row in 1,000 at random): the low word of T too,
   ``P = W T`` exactly in 192 bits, ``P <= Pi < P + W``. The same test one word
   lower (the ``g`` bits and the middle word all ones, ``P_lo + W >= 2^64``)
   decides the rest as in step 4, except rows where Pi may end in zeros below its
   54 bits.
6. Those are decimals whose value is a double, or the midpoint of two, written
   with M > 2^53 (``0.50000000000000000``, ``4503599627370496.5``): there Pi is an
   integer ending in zeros and P, just below it, ends in ones. Such a decimal is
   ``M / 10^k = (M / 5^k) / 2^k`` with ``5^k`` dividing M: the integer ``M / 5^k``
   (below 2^64) is rounded by the ``k = 0`` case (exact, ties to even) and scaled
   by ``2^-k``. Any other row the test keeps (no double nor midpoint, yet with
   74 bits of P equal to one) is not read here but left to the general parser:
   none is known, and N. Mushtak and D. Lemire ("Fast number parsing without
   fallback", Software: Practice and Experience 53(6), 2023) prove that a 128-bit
   product always decides for decimals of at most 19 digits; correctness here does
   not rely on it.
7. The double is ``mantissa * 2^e``, written as its bits ``((e + 1075 - 1) << 52)
   + mantissa`` (a mantissa of 2^53, rounded up, carries into the exponent), when
   ``e + 1074 >= 0``: ``M / 10^k >= 2^-1022``, a normal double (no ``M / 10^k`` with
   ``k >= 0`` overflows). Smaller values (subnormal: their rounding is another) are
   not read. The caller signs it.

tests/test_long_decimals.py holds the result equal to :func:`float` bit for bit on
random doubles printed with ``repr``, ``'%.16g'``, ``'%.17g'``, ``'%.19g'``,
``'%.17f'``, ``'%.19f'``, ``'%.16e'`` and ``'%.3E'``, random digit strings of 1-19
digits with the point anywhere, decimals at and beside the midpoints of adjacent
doubles (exact, and cut to 16-19 digits, moved by one unit in the last), doubles and
midpoints written with trailing digits (step 6), and to exact fractions for any
``M < 2^64`` and ``k <=`` :data:`MAX_POWER`; every one of them with a normal result is
read (none is left to the general parser).

Examples
--------
>>> import numpy as np
>>> values, read = divided_by_power_of_ten(
...     np.array([12345678901234567, 45035996273704965], dtype=np.uint64),
...     np.array([17, 1]))
>>> values.tolist() == [0.12345678901234567, 4503599627370496.5], read.tolist()
(True, [True, True])
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["MAX_AFTER", "MAX_POWER", "divided_by_power_of_ten"]

MAX_AFTER = 23
"""The most digits after the point of a plain decimal read (the readers' limit)."""

MAX_POWER = 342
"""The largest k of ``M / 10^k`` read here: 10^-342 times any M below 2^64 is below
the normal doubles (the table's last power of ten)."""

_MAX_FIVE = 27  # 5^27 < 2^64 < 5^28

U64 = NDArray[np.uint64]
_LOW_32 = np.uint64(0xFFFFFFFF)
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_TAIL_9 = np.uint64(0x1FF)
_BLOCK = 1 << 13  # rows at a time: 64 KiB a column, reused from the heap and the cache
_1, _3, _9, _32, _52, _63, _64 = (np.uint64(i) for i in (1, 3, 9, 32, 52, 63, 64))


@cache
def _powers() -> tuple[U64, U64, NDArray[np.int64]]:
    """For k = 0 .. MAX_POWER: the high and low words of T = floor(2^s / 10^k), and
    ``1148 - s`` (step 7's exponent, less the bit length and the top bit; step 2 of
    the module's method; exact integers, built on first use)."""
    high, low, offset = [], [], []
    for k in range(MAX_POWER + 1):
        s = 127 if k == 0 else 127 + (10**k).bit_length()
        t = (1 << s) // 10**k
        if not (1 << 127) <= t < (1 << 128):  # pragma: no cover - fixed by s
            raise RuntimeError(f"10^-{k} is not normalised to 128 bits")
        high.append(t >> 64)
        low.append(t & ((1 << 64) - 1))
        offset.append(1148 - s)
    return (np.array(high, dtype=np.uint64), np.array(low, dtype=np.uint64),
            np.array(offset, dtype=np.int64))


def _product(a: U64, b: U64) -> tuple[U64, U64]:
    """The high and low words of each 128-bit product ``a * b`` (schoolbook on 32-bit
    halves: each partial product, and the sum of the middle halves, fits 64 bits)."""
    a_low, a_high = a & _LOW_32, a >> _32
    b_low, b_high = b & _LOW_32, b >> _32
    low_low = a_low * b_low
    high_low = a_high * b_low
    low_high = a_low * b_high
    middle = low_low >> _32
    middle += high_low & _LOW_32
    middle += low_high & _LOW_32
    high = a_high * b_high
    high += high_low >> _32
    high += low_high >> _32
    high += middle >> _32
    return high, a * b  # the low word: the product modulo 2^64


def _bit_length(m: U64) -> U64:
    """The number of bits of each m >= 1 (as a double, m is rounded to within a factor
    1 + 2^-53, so its exponent is the length less one or the length, which a shift
    tells apart)."""
    length: U64 = m.astype(np.float64).view(np.uint64) >> _52
    length -= np.uint64(1022)  # the biased exponent of 2^(L-1) is L - 1 + 1023
    length -= (m >> (length - _1)) == 0
    return length


def divided_by_power_of_ten(integer: U64, after: NDArray[Any]
                            ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The doubles nearest to ``integer / 10^after`` (ties to even), for ``1 <=
    integer < 2^64`` and ``0 <= after <=`` :data:`MAX_POWER`; ``read[i]`` False where
    the row is left to a general parser (a subnormal result, step 7, or step 6's
    undecided rows, of which none is known).

    Examples
    --------
    >>> import numpy as np
    >>> values, read = divided_by_power_of_ten(
    ...     np.array([1, 9007199254740993, 99999999999999999, 45035996273704965],
    ...              dtype=np.uint64), np.array([0, 0, 17, 1]))
    >>> values.tolist() == [1.0, 2.0**53, 0.99999999999999999, 4503599627370496.0]
    True
    >>> read.tolist()
    [True, True, True, True]
    """
    n = integer.shape[0]
    if n <= _BLOCK:
        return _divided_block(integer, after)
    values = np.empty(n, dtype=np.float64)
    read = np.empty(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        end = start + _BLOCK
        values[start:end], read[start:end] = _divided_block(integer[start:end],
                                                            after[start:end])
    return values, read


def _divided_block(integer: U64, after: NDArray[Any]
                   ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """:func:`divided_by_power_of_ten` of a block of rows."""
    power_high, power_low, offset = _powers()
    length = _bit_length(integer)
    normal = integer << (_64 - length)  # W: the top bit set
    high, low = _product(normal, power_high.take(after))
    read = np.ones(integer.shape[0], dtype=bool)
    # Step 4's test: a carry from below A may reach its top 54 bits. (Rows with
    # k = 0 may pass it too: their low word of T is 0, so step 5 leaves them as
    # they are.)
    top = high >> _63
    tail_mask = top << _9
    tail_mask |= _TAIL_9
    unsure = (high & tail_mask) == tail_mask
    unsure &= low > ~normal
    rows = np.flatnonzero(unsure)
    dyadic = rows[:0]
    if rows.shape[0]:  # step 5: the 192-bit product P, and the same test a word lower
        w = normal[rows]
        carry_word, lowest = _product(w, power_low.take(after[rows]))
        middle = low[rows] + carry_word
        high[rows] += middle < carry_word  # the carry out of the middle word
        low[rows] = middle
        top[rows] = high[rows] >> _63
        mask = (top[rows] << _9) | _TAIL_9
        still = ((high[rows] & mask) == mask) & (middle == _ALL_ONES) & (lowest > ~w)
        dyadic = rows[still]
    mantissa = high >> (top + _9)  # 54 bits: 53 and the rounding bit
    exact = np.flatnonzero(after == 0)
    if exact.shape[0]:  # R = T_hi 2^64: Pi = A 2^64; an exact halfway rounds to even
        tail = high[exact] & ((top[exact] << _9) | _TAIL_9)
        mantissa[exact] -= (tail == 0) & (low[exact] == 0) & (
            (mantissa[exact] & _3) == _1)
    # Round half up: 53 bits, or 2^53 (which carries into the exponent below).
    mantissa += _1
    mantissa >>= _1
    # M / 10^k ~ top 54 bits * 2^(128 + g - z - s) = mantissa * 2^E, E = 65 + g +
    # length - s; as bits, ((E + 1074) << 52) + mantissa (mantissa in [2^52, 2^53]).
    biased = offset.take(after)
    biased += length.view(np.int64)
    biased += top.view(np.int64)
    read &= biased >= 0  # step 7: below 2^-1022, subnormal
    np.maximum(biased, 0, out=biased)
    bits = biased.view(np.uint64)
    bits <<= _52
    bits += mantissa
    values: NDArray[np.float64] = bits.view(np.float64)
    if dyadic.shape[0]:  # step 6
        values[dyadic], exact_read = _dyadic(integer[dyadic], after[dyadic])
        read[dyadic] &= exact_read
    return values, read


def _dyadic(integer: U64, after: NDArray[Any]
            ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Step 6: ``integer / 10^after`` where ``5^after`` divides the integer, as the
    integer ``integer / 5^after`` rounded (k = 0, exact) times ``2^-after``; read False
    elsewhere."""
    # 5^k divides no integer below 2^64 for k > 27 (5^28 > 2^64): 1 there, read False.
    fives = np.array([5**k for k in range(_MAX_FIVE + 1)], dtype=np.uint64).take(
        np.minimum(after, _MAX_FIVE))
    read = (integer % fives == 0) & (after <= _MAX_FIVE)
    whole = np.maximum(integer // fives, _1)  # (1 where not read: any value)
    values, _ = divided_by_power_of_ten(whole, np.zeros_like(after))
    return np.ldexp(values, -after.astype(np.int32)), read

"""Plain decimals read exactly (prcurve.ranking.text_numbers) against Python's float(),
which is correctly rounded (as C's strtod, trec_eval's atof): bit for bit, sign of zero
included; every text it does not read is left to the general parser."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.test_long_decimals import reads_exactly

from prcurve.errors import InvalidInputError
from prcurve.ranking.text_numbers import byte_matrix, plain_decimals
from prcurve.ranking.trec_format import parse_numbers, split_fields


def _read(texts: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(t) for t in texts], dtype=np.intp)
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.intp)
    buffer = np.frombuffer(b" ".join(texts), dtype=np.uint8)
    return plain_decimals(byte_matrix(buffer, starts, lengths), lengths)


def _bits(value: float) -> int:
    return int(np.array(value, dtype=np.float64).view(np.int64))


def _oracle_reads(text: bytes) -> bool:
    """The rule, written out slowly: what plain_decimals must read."""
    return reads_exactly(text)


decimals = st.builds(
    lambda sign, whole, point, fraction: sign + whole + point + fraction,
    st.sampled_from([b"", b"-"]),
    st.text("0123456789", max_size=20).map(str.encode),
    st.sampled_from([b"", b"."]),
    st.text("0123456789", max_size=25).map(str.encode),
).filter(lambda t: any(c in b"0123456789" for c in t))


def _check_read_as_the_oracle_and_float(texts: list[bytes]) -> None:
    """plain_decimals reads exactly the texts the oracle reads, each as float() does."""
    values, read = _read(texts)
    for text, value, was_read in zip(texts, values.tolist(), read.tolist(), strict=True):
        assert was_read == _oracle_reads(text), text
        if was_read:
            assert _bits(value) == _bits(float(text)), text


@given(st.lists(decimals, min_size=1, max_size=30))
def test_plain_decimals_equal_float_bit_for_bit(texts: list[bytes]) -> None:
    _check_read_as_the_oracle_and_float(texts)


@given(st.lists(st.text("0123456789.-+eE_xin ", min_size=1, max_size=12).map(str.encode)
                .filter(lambda t: b" " not in t), min_size=1, max_size=30))
def test_any_text_read_only_when_plain_and_then_exact(texts: list[bytes]) -> None:
    _check_read_as_the_oracle_and_float(texts)


@pytest.mark.parametrize(("text", "expected"), [
    (b"0", 0.0), (b"-0", -0.0), (b"-0.0", -0.0), (b".5", 0.5), (b"5.", 5.0),
    (b"0.1", 0.1), (b"9007199254740992", 2.0**53), (b"0.000000000000001", 1e-15),
    (b"1000000.000000001", 1000000.000000001),
    (b"-123456789012345.6", -123456789012345.6), (b"000000000000000012", 12.0),
    (b"9007199254740993", 2.0**53), (b"1234567890123456789", 1234567890123456789.0),
    (b"0.00000000000000000000001", 1e-23), (b"0.30000000000000004", 0.30000000000000004),
    (b"-0.0001234567890123456789", -0.0001234567890123456789),
    (b"4503599627370496.5", 4503599627370496.0), (b"0.50000000000000000", 0.5),
])
def test_edges_read_exactly(text: bytes, expected: float) -> None:
    values, read = _read([text])
    assert read.tolist() == [True]
    assert _bits(values[0]) == _bits(expected) == _bits(float(text))


@pytest.mark.parametrize("text", [
    b"12345678901234567890",  # 20 significant digits: M no longer fits 64 bits
    b"0.000000000000000000000001",  # 24 digits after the point
    b"1e5", b"1.5e+3", b"1e-00005", b"1e-400", b"+1", b"1_0", b"-", b".", b"--1", b"1-",
    b"1..2", b"1e", b"1e+-5", b"1e5.0", b"e5", b"1.e2", b"inf", b"nan", b"0x10",
    b"-00000000000000000000001.5",  # longer than the 25 bytes a read decimal may take
])
def test_other_text_left_to_the_general_parser(text: bytes) -> None:
    assert _read([text])[1].tolist() == [False]


def test_byte_matrix_pads_with_nul_and_spans_words() -> None:
    texts = [b"a", b"", b"abcdefghijklmnopq", b"xyz"]
    lengths = np.array([len(t) for t in texts])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    buffer = np.frombuffer(b"".join(texts), dtype=np.uint8)
    matrix = byte_matrix(buffer, starts, lengths)
    assert matrix.shape == (4, 17)
    assert [bytes(row).rstrip(b"\0") for row in matrix] == texts
    assert byte_matrix(buffer, starts[:0], lengths[:0]).shape == (0, 1)


@given(st.lists(st.one_of(decimals, st.sampled_from([b"1e-3", b"+2.5", b"7E2", b"1" * 30])),
                min_size=1, max_size=40))
def test_parse_numbers_equals_numpys_parser(texts: list[bytes]) -> None:
    # The scores of a run: plain decimals the fast way, the rest numpy's way; the
    # result is numpy's conversion of every field, bit for bit.
    data = b"".join(b"q Q0 d %d %s r\n" % (i, t) for i, t in enumerate(texts))
    fields = split_fields(data, "run", "run", 6, False, "layout")
    values = parse_numbers(fields, 4, np.float64, "run", "run", "score")
    expected = np.array(texts).astype(np.float64)
    assert values.view(np.int64).tolist() == expected.view(np.int64).tolist()


def test_parse_numbers_names_the_first_bad_line_among_fast_ones() -> None:
    data = b"q Q0 d 1 1.5 r\nq Q0 d 2 1e400 r\nq Q0 d 3 x r\n"
    fields = split_fields(data, "run", "run", 6, False, "layout")
    with pytest.raises(InvalidInputError, match=r"line 2.*not a finite number"):
        parse_numbers(fields, 4, np.float64, "run", "run", "score")
    assert math.isinf(float(b"1e400"))  # the general parser's own reading of it

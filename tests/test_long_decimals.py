"""Decimals of up to 19 significant digits read without a string parser
(prcurve.ranking.long_decimals, through text_numbers.plain_decimals and the run
readers) against Python's float(), which is correctly rounded (as C's strtod,
trec_eval's atof), bit for bit; and against exact rationals (fractions.Fraction)."""

from __future__ import annotations

import math
import struct
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import read_run, trec_reader, trec_stream
from prcurve.ranking.long_decimals import MAX_AFTER, MAX_POWER, divided_by_power_of_ten
from prcurve.ranking.tables import Run
from prcurve.ranking.text_numbers import byte_matrix, plain_decimals
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
from prcurve.ranking.trec_format import parse_numbers, split_fields
from prcurve.ranking.trec_stream import read_judged


def _bits(values: list[float]) -> list[int]:
    return np.array(values, dtype=np.float64).view(np.int64).tolist()


def _read(texts: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(t) for t in texts], dtype=np.intp)
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.intp)
    buffer = np.frombuffer(b" ".join(texts), dtype=np.uint8)
    return plain_decimals(byte_matrix(buffer, starts, lengths), lengths)


_SMALLEST_NORMAL = Fraction(1, 2**1022)


def reads_exactly(text: bytes) -> bool:
    """The rule of plain_decimals, slowly: the texts it must read (and no others)."""
    if len(text) > 25:
        return False
    body = text[1:] if text.startswith(b"-") else text
    mantissa, e, power = body.lower().partition(b"e")
    if mantissa.count(b".") > 1 or not mantissa.replace(b".", b"").isdigit():
        return False
    digits = mantissa.replace(b".", b"")
    after = len(mantissa) - 1 - mantissa.index(b".") if b"." in mantissa else 0
    if len(digits.lstrip(b"0")) > 19:
        return False
    if not e:
        return after <= MAX_AFTER
    sign = power[:1] if power[:1] in (b"-", b"+") else b""
    if not 1 <= len(power) - len(sign) <= 4 or not power[len(sign):].isdigit():
        return False
    k = after - int(power)
    value = Fraction(int(digits), 10**k) if k >= 0 else None
    return 0 <= k <= 342 and value is not None and (value == 0 or value >= _SMALLEST_NORMAL)


def _check(texts: list[bytes]) -> None:
    """Every text plain_decimals must read is read, as float() reads it; the scores of
    a run (parse_numbers: the rest by numpy) are float() of every text."""
    values, read = _read(texts)
    for text, value, was_read in zip(texts, values.tolist(), read.tolist(), strict=True):
        assert was_read == reads_exactly(text), text
        if was_read:
            assert _bits([value]) == _bits([float(text)]), text
    texts = [t for t in texts if math.isfinite(float(t))]  # (others are refused)
    if not texts:
        return
    data = b"".join(b"q Q0 d%d %d %s r\n" % (i, i, t) for i, t in enumerate(texts))
    fields = split_fields(data, "run", "run", 6, False, "layout")
    scores = parse_numbers(fields, 4, np.float64, "run", "run", "score")
    assert _bits(scores.tolist()) == _bits([float(t) for t in texts])


doubles = st.floats(allow_nan=False, allow_infinity=False)
scores = st.one_of(doubles, st.floats(-1e4, 1e4), st.floats(0, 1),
                   st.floats(1e-5, 1e-3), st.floats(2.0**49, 2.0**64))
FORMATS = [repr, "%.16g".__mod__, "%.17g".__mod__, "%.19g".__mod__, "%.17f".__mod__,
           "%.19f".__mod__, "%.16e".__mod__, "%.3E".__mod__]


@given(st.lists(st.tuples(scores, st.sampled_from(FORMATS)), min_size=1, max_size=40))
def test_printed_doubles_read_as_float(items: list[tuple[float, object]]) -> None:
    # repr and '%.17g' give back the double; '%.16g' and '%.19g' another decimal.
    _check([form(value).encode() for value, form in items])  # type: ignore[operator]


digit_strings = st.builds(
    lambda sign, digits, point: sign + digits[:point] + b"." + digits[point:],
    st.sampled_from([b"", b"-"]),
    st.text("0123456789", min_size=1, max_size=19).map(str.encode),
    st.integers(0, 19),
)


@given(st.lists(st.one_of(digit_strings, digit_strings.map(lambda t: t.replace(b".", b""))),
                min_size=1, max_size=40))
def test_digit_strings_with_the_point_anywhere(texts: list[bytes]) -> None:
    _check(texts)


def _decimal_text(value: Fraction | Decimal) -> bytes:
    """The exact decimal of a dyadic rational, without an exponent."""
    with localcontext() as context:
        context.prec = 1200
        exact = Decimal(value.numerator) / Decimal(value.denominator)
    return format(exact, "f").encode()


def _cut(text: bytes, digits: int, move: int) -> bytes:
    """``text`` cut (not rounded) to ``digits`` significant digits, or extended by
    zeros to them, its last digit then moved by ``move`` units (-1, 0 or 1)."""
    whole, _, fraction = text.decode().partition(".")
    all_digits = whole + fraction
    lead = len(all_digits) - len(all_digits.lstrip("0"))
    keep = (all_digits + "0" * 40)[:lead + digits]
    body = str(max(int(keep) + move, 0)).rjust(len(keep), "0")
    point = len(whole) + len(body) - len(keep)  # (a carry may add a digit)
    if point >= len(body):
        return (body + "0" * (point - len(body))).lstrip("0").encode() or b"0"
    return ((body[:point].lstrip("0") or "0") + "." + body[point:]).encode()


@st.composite
def midpoints(draw: st.DrawFn) -> bytes:
    """A decimal at, or a unit in the 16th to 19th digit beside, the exact midpoint of
    two adjacent doubles."""
    low = draw(st.floats(1e-5, 1e15) | st.floats(2.0**50, 2.0**54))
    high = math.nextafter(low, math.inf)
    middle = (Fraction(low) + Fraction(high)) / 2
    text = _decimal_text(middle)
    if draw(st.booleans()):
        return _cut(text, draw(st.integers(16, 19)), draw(st.sampled_from([-1, 0, 1])))
    return text  # exact: plain_decimals reads it when it is short enough


@settings(max_examples=200)
@given(st.lists(midpoints(), min_size=1, max_size=20))
def test_midpoints_between_doubles_and_beside_them(texts: list[bytes]) -> None:
    _check(texts)


def test_exact_midpoints_round_to_even() -> None:
    # 2^52 + 0.5 lies between 2^52 and 2^52 + 1: the even one; 2^52 + 1.5 rounds up.
    texts = [b"4503599627370496.5", b"4503599627370497.5", b"9007199254740993",
             b"9007199254740995", b"2251799813685248.25", b"2251799813685248.75",
             b"1125899906842624.125", b"1125899906842624.375",
             b"4503599627370496.500", b"0.50000000000000000", b"1.000000000000000000"]
    values, read = _read(texts)
    assert read.all()
    assert _bits(values.tolist()) == _bits([float(t) for t in texts])
    assert values[:4].tolist() == [2.0**52, 2.0**52 + 2, 2.0**53, 2.0**53 + 4]


@given(st.integers(1, 2**64 - 1), st.integers(0, MAX_AFTER) | st.integers(0, MAX_POWER))
def test_divided_equals_the_exact_quotient_rounded(integer: int, after: int) -> None:
    # Fraction's float() divides two Python integers: correctly rounded. Results below
    # the normal doubles are not read.
    values, read = divided_by_power_of_ten(np.array([integer], dtype=np.uint64),
                                           np.array([after]))
    exact = Fraction(integer, 10**after)
    assert read.tolist() == [exact >= _SMALLEST_NORMAL]
    if read[0]:
        assert _bits([values[0]]) == _bits([float(exact)])


@pytest.mark.parametrize(("text", "read"), [
    (b"1.2345678901234567e-05", True), (b"-9.8e-300", True), (b"7E-5", True),
    (b"1e+00", True), (b"12.5e1", True), (b"1.5e-0005", True),
    (b"2.2250738585072014e-308", True),  # the smallest normal double
    (b"2.2250738585072011e-308", False),  # below it: subnormal, numpy's parser
    (b"4.9e-324", False), (b"1e5", False), (b"1e-00005", False), (b"0e-400", False),
])
def test_numbers_with_an_exponent(text: bytes, read: bool) -> None:
    values, was_read = _read([text])
    assert was_read.tolist() == [read] == [reads_exactly(text)]
    if read:
        assert _bits([values[0]]) == _bits([float(text)])


@given(st.integers(1, MAX_AFTER), st.data())
def test_dyadic_values_written_long(after: int, data: st.DataObject) -> None:
    # M = m * 5^k: M / 10^k = m / 2^k, a double or a midpoint; the first product
    # leaves these to the 192-bit one and then to step 6.
    odd = data.draw(st.integers(1, (2**64 - 1) // 5**after))
    integer = odd * 5**after
    values, read = divided_by_power_of_ten(np.array([integer], dtype=np.uint64),
                                           np.array([after]))
    assert read.tolist() == [True]
    assert _bits([values[0]]) == _bits([float(Fraction(odd, 2**after))])


def test_many_random_17_digit_scores_all_read() -> None:
    # The rows left to numpy's parser are those the proof leaves: none here.
    rng = np.random.default_rng(26)
    values = np.concatenate([rng.random(20000), rng.normal(0, 30, 20000),
                             rng.random(5000) * 1e-3])
    texts = [repr(float(v)).encode() for v in values]
    texts = [t for t in texts if b"e" not in t]
    parsed, read = _read(texts)
    assert read.all()
    assert _bits(parsed.tolist()) == _bits([float(t) for t in texts])


def _run_file(path: Path) -> tuple[list[bytes], list[bytes], list[float], bytes]:
    rng = np.random.default_rng(17)
    queries, docs, texts = [], [], []
    for q in range(4):
        for d in range(300):
            value = float(rng.normal(0, 3)) if d % 7 else float(rng.integers(0, 50) / 4)
            text = [repr(value), f"{value:.17g}", f"{value:.19f}", f"{value:.16g}"][d % 4]
            queries.append(b"q%d" % q)
            docs.append(b"doc%d" % (d * 13 % 301))
            texts.append(text.encode())
    lines = [b"%s Q0 %s %d %s run17\n" % (q, d, i, t)
             for i, (q, d, t) in enumerate(zip(queries, docs, texts, strict=True))]
    path.write_bytes(b"".join(lines))
    return queries, docs, [float(t) for t in texts], b"".join(
        b"%s 0 %s %d\n" % (q, d, i % 3) for i, (q, d) in enumerate(
            zip(queries, docs, strict=True)) if i % 5 == 0)


@pytest.mark.parametrize("reader", ["exact", "pyarrow", "blocks"])
def test_a_run_written_with_17_digits_evaluates_as_its_floats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    queries, docs, expected, qrels_bytes = _run_file(tmp_path / "run")
    (tmp_path / "qrels").write_bytes(qrels_bytes)
    if reader != "exact":
        monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    if reader == "blocks":
        monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 4096)
        qrels, run = read_judged(tmp_path / "qrels", tmp_path / "run")
    else:
        qrels, run = tmp_path / "qrels", read_run(tmp_path / "run")
    assert _bits(run.score.tolist()) == _bits(expected)
    oracle = Run.from_arrays(np.array(queries), np.array(docs), np.array(expected),
                             run_id="run17")
    for options in [TrecEvalOptions(measures=("all_trec",), per_query=True),
                    TrecEvalOptions(measures=("map", "P.5", "ndcg"), per_query=True,
                                    version=9)]:
        assert format_trec_eval(qrels, run, options) == format_trec_eval(
            tmp_path / "qrels", oracle, options)


def test_random_bit_patterns_printed_by_repr() -> None:
    # Doubles from random bit patterns (every exponent), printed by repr: those
    # without an exponent are read here, each as float() reads it.
    rng = np.random.default_rng(5)
    raw = rng.integers(0, 2**63, 20000, dtype=np.int64).view(np.float64)
    texts = [repr(v).encode() for v in raw.tolist() if math.isfinite(v)]
    texts += [f"{v:.17f}".encode() for v in raw.tolist() if 1e-6 < abs(v) < 1e6]
    values, read = _read(texts)
    for text, value, was_read in zip(texts, values.tolist(), read.tolist(), strict=True):
        assert was_read == reads_exactly(text), text
        if was_read:
            assert struct.pack("<d", value) == struct.pack("<d", float(text))


def test_step_6_reads_only_dyadic_values() -> None:
    # M / 10^k is a double or a midpoint only where 5^k divides M; for k > 27 no M
    # below 2^64 is divisible (5^28 > 2^64), whatever M % 5^27 is.
    from prcurve.ranking.long_decimals import _dyadic

    integer = np.array([5**27 * 2, 5**27 * 2, 5**3 * 7, 5**3 * 7 + 1], dtype=np.uint64)
    values, read = _dyadic(integer, np.array([27, 30, 3, 3]))
    assert read.tolist() == [True, False, True, False]
    assert values[[0, 2]].tolist() == [2 / 2**27, 7 / 2**3]

"""The exact reader's split of a TREC file into lines and fields
(prcurve.ranking.trec_format.split_fields) against a slow, readable oracle: Python's
``bytes.split()`` line by line (its white space is trec_eval's ``isspace``: space,
\\t, \\n, \\v, \\f, \\r), blank lines and ``#`` lines skipped. Files whose every line
holds exactly the expected fields take the path without a search per line; the others
the general one; both must give the oracle's fields and line numbers. Also the aligned
8-byte loads (text_numbers.load_words) against slices of the bytes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import FAST

from prcurve.errors import InvalidInputError
from prcurve.ranking.keys import byte_words
from prcurve.ranking.text_numbers import load_words, padded_words
from prcurve.ranking.trec_format import split_fields

N_FIELDS = 4


def oracle(data: bytes, n_fields: int) -> tuple[list[list[bytes]], list[int]]:
    """Each data line's first ``n_fields`` fields and its 1-based line number."""
    fields, numbers = [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        words = line.split()
        if words and not words[0].startswith(b"#"):
            fields.append(words[:n_fields])
            numbers.append(number)
    return fields, numbers


def split(data: bytes, exact: bool = True):  # type: ignore[no-untyped-def]
    return split_fields(data, "f", "qrels", N_FIELDS, exact, "a b c d", allow_empty=True)


def same_as_oracle(data: bytes, exact: bool = True) -> int:
    """Check split_fields against the oracle; returns its ``per_line``."""
    fields = split(data, exact)
    expected, numbers = oracle(data, N_FIELDS)
    got = [fields.strings(j).tolist() for j in range(N_FIELDS)] if numbers else []
    assert [list(row) for row in zip(*got, strict=True)] == expected
    assert fields.line.tolist() == numbers
    return fields.per_line


token = st.binary(min_size=1, max_size=12).map(
    lambda b: bytes(c for c in b if c not in b" \t\n\v\f\r#\x00") or b"x")
blank = st.sampled_from([b" ", b"\t", b"  ", b" \t", b"\v", b"\f", b"\r"])


@st.composite
def regular_files(draw: st.DrawFn) -> bytes:
    """Lines of exactly N_FIELDS tokens, single separators, \\n or \\r\\n endings (last
    optional)."""
    lines = draw(st.lists(st.lists(token, min_size=N_FIELDS, max_size=N_FIELDS),
                          min_size=1, max_size=20))
    separator = draw(st.sampled_from([b" ", b"\t"]))
    ends = draw(st.lists(st.sampled_from([b"", b"\r"]), min_size=len(lines),
                         max_size=len(lines)))
    text = b"\n".join(separator.join(line) + end for line, end in zip(lines, ends, strict=True))
    return text + b"\n" if draw(st.booleans()) else text


@st.composite
def any_files(draw: st.DrawFn) -> bytes:
    """Lines of N_FIELDS tokens (rarely other counts) with any blanks, blank lines,
    comments, \\r\\n endings and leading or trailing blanks."""
    out = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["data", "data", "data", "blank", "comment", "short"]))
        if kind == "blank":
            out.append(draw(st.sampled_from([b"", b" ", b"\t\r"])))
            continue
        count = N_FIELDS if kind != "short" else draw(st.integers(1, N_FIELDS + 2))
        words = draw(st.lists(token, min_size=count, max_size=count))
        if kind == "comment":
            words[0] = b"#" + words[0]
        seps = [draw(blank.filter(lambda b: b != b"\r")) for _ in words[1:]]
        line = draw(st.sampled_from([b"", b" ", b"\t"])) + words[0]
        for sep, word in zip(seps, words[1:], strict=True):
            line += sep + word
        out.append(line + draw(st.sampled_from([b"", b"", b" ", b"\r", b"\t"])))
    text = b"\n".join(out)
    return text + b"\n" if draw(st.booleans()) else text


@FAST
@given(regular_files())
def test_regular_files_take_the_direct_path_and_match_the_oracle(data: bytes) -> None:
    assert same_as_oracle(data) == N_FIELDS


@FAST
@given(any_files())
def test_every_file_matches_the_oracle(data: bytes) -> None:
    if any(len(line.split()) != N_FIELDS for line in data.split(b"\n")
           if line.split() and not line.split()[0].startswith(b"#")):
        with pytest.raises(InvalidInputError, match="expected 4 fields"):
            split(data)
        return
    same_as_oracle(data)


@pytest.mark.parametrize(("data", "direct"), [
    (b"a b c d\ne f g h\n", True),
    (b"a b c d\ne f g h", True),  # no newline at the end
    (b"  a b c d\ne\tf g h\n", True),  # blanks before a line's first field
    (b"a b c d\n\ne f g h\n", False),  # a blank line
    (b"a b c d\n# f g h\n", False),  # a comment of four fields
    (b"a b c d \ne f g h\n", False),  # a blank before the line's end
    (b"a b c d\r\ne f g h\r\n", True),  # \r\n (Windows): \r is white space, then \n
    (b"a b c d\r\ne f g h\n", True),
    (b"a b c d\r\ne f g h\r", True),  # the last line's \r is its end
    (b"a b c d\r\r\ne f g h\n", False),  # two blanks before a line's end
    (b"a b c d \r\ne f g h\n", False),
    (b"a b c d\re f g h\n", False),  # a \r inside a line: eight fields on one line
    (b"a b c d e f g h\n", False),  # eight fields on one line (two lines' worth)
])
def test_which_path(data: bytes, direct: bool) -> None:
    assert same_as_oracle(data, exact=False) == (N_FIELDS if direct else 0)


def test_too_few_fields_is_an_error_on_either_path() -> None:
    # Four tokens per line on average, but lines of 3 and 5: never the direct path.
    with pytest.raises(InvalidInputError, match="line 1: expected 4 fields"):
        split(b"a b c\nd e f g h\n")
    with pytest.raises(InvalidInputError, match="line 2: expected at least 4 fields"):
        split(b"a b c d\ne f g\n", exact=False)


@FAST
@given(st.binary(min_size=0, max_size=64), st.data())
def test_load_words_are_the_bytes_at_each_offset(data: bytes, draw: st.DataObject) -> None:
    buffer = np.frombuffer(data, dtype=np.uint8)
    padded = padded_words(buffer, 8)
    offsets = np.array(draw.draw(st.lists(st.integers(0, len(data)), max_size=20)),
                       dtype=np.int64)
    got = load_words(padded, offsets)
    # The oracle: the 8 bytes from the offset (NUL past the end), in memory order.
    expected = [(data[o:o + 8] + bytes(8))[:8] for o in offsets.tolist()]
    assert [w.tobytes() for w in got] == expected
    # byte_words' words: the bytes big-endian, NUL past each string's end.
    lengths = np.minimum(len(data) - offsets, 8)
    if offsets.shape[0]:
        words = byte_words(buffer, offsets, lengths, 1)[0]
        assert [int(w).to_bytes(8, "big") for w in words] == [
            data[o:o + n] + bytes(8 - n) for o, n in zip(offsets.tolist(), lengths.tolist(),
                                                          strict=True)]

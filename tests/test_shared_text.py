"""Text columns read with one ``str`` per distinct value (issue 26, item 6, session 35).

A label column such as "pos"/"neg" read from Parquet was one Python string a row (about
60 bytes: 1.2 GB at 10^7 rows). ``prcurve.io.readers.arrow_to_numpy`` now shares one
``str`` among the rows of equal text: the same values as pyarrow's ``to_pylist``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.traced import traced

from prcurve.io import readers, rows, shared_text


@settings(max_examples=60)
@given(st.lists(st.lists(st.one_of(st.none(), st.sampled_from(["pos", "neg", "", "é", "x"])),
                         max_size=30), min_size=1, max_size=4),
       st.sampled_from([1, 2, 5, 1 << 16]), st.booleans())
def test_shared_text_is_the_column(chunks: list[list[str | None]], block: int,
                                   large: bool) -> None:
    kind = pa.large_string() if large else pa.string()
    column = pa.chunked_array([pa.array(c, type=kind) for c in chunks], type=kind)
    saved = shared_text.SHARED_TEXT_ROWS
    shared_text.SHARED_TEXT_ROWS = block
    try:
        values = readers.arrow_to_numpy(pa, column)
    finally:
        shared_text.SHARED_TEXT_ROWS = saved
    expected = column.to_pylist()
    assert values.dtype == object
    assert values.tolist() == expected
    assert all(type(v) is type(e) for v, e in zip(values.tolist(), expected, strict=True))
    # normalized as the rows' own objects would be
    one = rows.normalize_labels(values, "label")
    other = rows.normalize_labels(readers.object_array(expected), "label")
    assert one[0].tolist() == other[0].tolist()
    assert one[1].tolist() == other[1].tolist()


def test_mostly_distinct_text_is_one_str_a_row() -> None:
    column = pa.chunked_array([pa.array([f"id{i}" for i in range(1 << 17)])])
    assert shared_text.shared_text(pa, column) is None
    assert readers.arrow_to_numpy(pa, column).tolist() == column.to_pylist()


def test_text_labels_take_8_bytes_a_row() -> None:
    n = 1 << 20
    labels = np.where(np.random.default_rng(0).random(n) < 0.05, "pos", "neg")
    column = pa.chunked_array([pa.array(labels[:n // 2]), pa.array(labels[n // 2:])])
    values, kept, peak = traced(lambda: readers.arrow_to_numpy(pa, column))
    assert values.tolist() == labels.tolist()
    # One str a row: about 60 bytes a row kept (main, measured: 60.0); now the pointers.
    assert kept <= 8 * n + (1 << 16)
    assert peak <= 16 * n  # main: 68 bytes a row

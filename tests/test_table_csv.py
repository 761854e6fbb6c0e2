"""``Table.to_csv`` through pyarrow's CSV writer (issue 15, item 5): every number reads
back as the same float64 as the Python path's ``repr`` text, bit for bit, including
signed zeros, subnormals, huge values, NaN and infinities; other columns keep the
Python path."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal
from tests.strategies import FAST

from prcurve.core import table as table_module
from prcurve.core.table import Table


def read_back(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.splitlines()
    rows = [[float(cell) for cell in line.split(",")] for line in lines[1:]]
    return lines[0].split(","), np.array(rows, dtype=np.float64)


@FAST
@given(a=arrays(np.float64, st.integers(1, 40)), data=st.data())
def test_arrow_text_reads_back_as_the_python_text(a, data) -> None:
    b = data.draw(arrays(np.int64, a.shape[0]))
    c = data.draw(arrays(np.float32, a.shape[0]))
    table = Table({"threshold": a, "tp": b, "f1": c})
    fast = table.to_csv()
    slow = ",".join(table.columns) + "\n" + "\n".join(
        ",".join(row) for row in zip(*table._text_columns(None), strict=True)) + "\n"
    header_fast, fast_values = read_back(fast)
    header_slow, slow_values = read_back(slow)
    assert header_fast == header_slow == ["threshold", "tp", "f1"]
    # Bit for bit (NaN included; -0.0 stays -0.0).
    assert_array_equal(fast_values.view(np.int64), slow_values.view(np.int64))
    # And as the numbers themselves (NaN payloads do not survive text, on either path).
    assert_array_equal(fast_values[:, 0], a)
    assert_array_equal(np.signbit(fast_values[:, 0]), np.signbit(a) & ~np.isnan(a))


def test_without_pyarrow_and_with_text_columns_python_writes(monkeypatch) -> None:
    t = Table({"x": np.array([1.0, 0.5])})
    monkeypatch.setattr(table_module, "_arrow_csv", lambda columns: None)
    assert t.to_csv() == "x\n1.0\n0.5\n"
    monkeypatch.undo()
    named = Table({"model": np.array(["a,b"], dtype=object), "ap": np.array([0.5])})
    assert named.to_csv() == "model,ap\na,b,0.5\n"
    assert Table({"ap": np.array([0.123456])}).to_csv(digits=2) == "ap\n0.12\n"


@FAST
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.5, 1 / 3, 2.0, -7.0, 2.0**52, 2.0**53,
                                        -2.0**53 + 1, 1e300, float("nan"), float("inf")]),
                       min_size=1, max_size=60),
       repeat=st.integers(1, 30))
def test_runs_and_whole_numbers_read_back_bit_for_bit(values: list[float], repeat: int) -> None:
    """The shortcuts of the fast path (whole numbers written as integers, a run of equal
    neighbours formatted once) read back as the Python path's numbers, signed zeros
    and NaN included."""
    column = np.repeat(np.array(values), repeat)  # runs of equal neighbours
    whole = np.repeat(np.array([v for v in values if np.isfinite(v) and v == int(v)]
                               or [1.0]), repeat)  # every value a whole number
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf: a value like any other
        narrow = column.astype(np.float32)
    for x in (column, whole, narrow):
        table = Table({"x": x, "tp": np.arange(x.shape[0], dtype=np.float64)})
        fast = table.to_csv()
        slow = "x,tp\n" + "\n".join(
            ",".join(row) for row in zip(*table._text_columns(None), strict=True)) + "\n"
        assert_array_equal(read_back(fast)[1].view(np.int64), read_back(slow)[1].view(np.int64))



def test_blocks_and_threads_write_the_same_file(monkeypatch, tmp_path) -> None:
    """Rows written a block at a time, each block in threads, give the same text as one
    pass; write_csv writes that text."""
    rng = np.random.default_rng(8)
    n = 10_007
    table = Table({"threshold": rng.normal(size=n), "recall": np.repeat(np.linspace(0, 1, 11),
                                                                        n // 11 + 1)[:n],
                   "tp": np.arange(n, dtype=np.float64), "f1": np.where(
                       rng.random(n) < 0.01, np.nan, rng.random(n))})
    whole = table.to_csv()
    monkeypatch.setattr(table_module, "_CSV_BLOCK", 1000)
    monkeypatch.setattr(table_module, "_SAMPLE", 16)
    from prcurve.core.sorting import set_sort_threads

    set_sort_threads(3)
    try:
        blocked = table.to_csv()
        table.write_csv(tmp_path / "t.csv")
    finally:
        set_sort_threads(None)
    assert blocked == whole
    assert (tmp_path / "t.csv").read_text() == whole
    header, values = read_back(whole)
    assert header == ["threshold", "recall", "tp", "f1"]
    assert_array_equal(values[:, 0], table["threshold"])
    assert_array_equal(values[:, 3], table["f1"])

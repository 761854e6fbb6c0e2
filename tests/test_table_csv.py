"""``Table.to_csv`` through pyarrow's and polars' CSV writers (issue 15, item 5): every
number reads back as the same float64 as the Python path's ``repr`` text, bit for bit,
including signed zeros, subnormals, huge values, NaN and infinities; polars writes the
same bytes as pyarrow; other columns keep the Python path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal
from tests.strategies import FAST

from prcurve.core import csv_writers
from prcurve.core.csv_writers import csv_writer, set_csv_writer
from prcurve.core.sorting import set_sort_threads
from prcurve.core.table import Table
from prcurve.errors import InvalidInputError

WRITERS = ("pyarrow", "polars")


@contextmanager
def writer(name: str | None, block: int | None = None) -> Iterator[None]:
    """Force a CSV writer (and polars' block of rows, small to mix kinds in a small
    table) for the body; Hypothesis tests cannot take function-scoped fixtures."""
    saved = csv_writers._POLARS_BLOCK, csv_writers._CHECK
    set_csv_writer(name)
    if block is not None:
        csv_writers._POLARS_BLOCK, csv_writers._CHECK = block, 4 * block
    try:
        yield
    finally:
        set_csv_writer(None)
        csv_writers._POLARS_BLOCK, csv_writers._CHECK = saved


@contextmanager
def sort_threads(threads: int) -> Iterator[None]:
    """Threads for the body's writers (they follow the large sorts' setting)."""
    set_sort_threads(threads)
    try:
        yield
    finally:
        set_sort_threads(None)


def python_text(table: Table) -> str:
    return ",".join(table.columns) + "\n" + "\n".join(
        ",".join(row) for row in zip(*table._text_columns(None), strict=True)) + "\n"


def read_back(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.splitlines()
    rows = [[float(cell) for cell in line.split(",")] for line in lines[1:]]
    return lines[0].split(","), np.array(rows, dtype=np.float64)


@pytest.mark.parametrize("name", WRITERS)
@FAST
@given(a=arrays(np.float64, st.integers(1, 40)), data=st.data())
def test_arrow_text_reads_back_as_the_python_text(name, a, data) -> None:
    b = data.draw(arrays(np.int64, a.shape[0]))
    c = data.draw(arrays(np.float32, a.shape[0]))
    table = Table({"threshold": a, "tp": b, "f1": c})
    with writer(name, block=4):
        fast = table.to_csv()
    slow = python_text(table)
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
    monkeypatch.setattr(csv_writers, "_arrow_csv", lambda columns: None)
    assert t.to_csv() == "x\n1.0\n0.5\n"
    monkeypatch.undo()
    with writer("python"):
        assert t.to_csv() == "x\n1.0\n0.5\n"
    named = Table({"model": np.array(["a,b"], dtype=object), "ap": np.array([0.5])})
    # A name holding a comma is quoted (it was written bare once: three cells, not two).
    assert named.to_csv() == 'model,ap\n"a,b",0.5\n'
    assert Table({"ap": np.array([0.123456])}).to_csv(digits=2) == "ap\n0.12\n"


@pytest.mark.parametrize("name", WRITERS)
@FAST
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.5, 1 / 3, 2.0, -7.0, 2.0**52, 2.0**53,
                                        -2.0**53 + 1, 1e300, float("nan"), float("inf")]),
                       min_size=1, max_size=60),
       repeat=st.integers(1, 30))
def test_runs_and_whole_numbers_read_back_bit_for_bit(name: str, values: list[float],
                                                      repeat: int) -> None:
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
        with writer(name, block=8):
            fast = table.to_csv()
        slow = python_text(table)
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
    monkeypatch.setattr(csv_writers, "_CSV_BLOCK", 1000)
    monkeypatch.setattr(csv_writers, "_SAMPLE", 16)
    with sort_threads(3):
        blocked = table.to_csv()
        table.write_csv(tmp_path / "t.csv")
    assert blocked == whole
    assert (tmp_path / "t.csv").read_text() == whole
    header, values = read_back(whole)
    assert header == ["threshold", "recall", "tp", "f1"]
    assert_array_equal(values[:, 0], table["threshold"])
    assert_array_equal(values[:, 3], table["f1"])


# --- polars writes pyarrow's bytes ----------------------------------------------------

# Every band where the two libraries' spellings part (whole numbers below 1e10, [1e-6,
# 1e-5), [1e10, 1e16)), their edges and the values around them, and the extremes.
EDGES = [v for k in range(-325, 309) for v in (10.0**k, np.nextafter(10.0**k, 0),
                                               np.nextafter(10.0**k, np.inf))
         if np.isfinite(v)] + [0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                               2.0**53, 2.0**53 + 2, 9999999999.0, 9999999999.5, 1e10 + 0.5]

SPECIAL = st.sampled_from([0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1.0, -3.0,
                           1e-6, 1.5e-6, 9.999e-6, 1e-5, 1e10, 1.25e10, 9.5e15, 1e16,
                           5e-324, 1e-310, 1e300, 2.0**53, 12345678901.0, 0.1, 1 / 3])


def float_columns(dtype: type) -> st.SearchStrategy[np.ndarray]:
    """Columns mixing any floats (subnormals, huge and tiny), the special values, whole
    numbers, and runs of equal neighbours."""
    width = 64 if dtype is np.float64 else 32
    element = st.one_of(st.floats(width=width), SPECIAL,
                        st.integers(-10**12, 10**12).map(float),
                        st.floats(1e-7, 1e-4), st.floats(1e9, 1e17))
    runs = st.lists(st.tuples(element, st.integers(1, 12)), min_size=1, max_size=30)

    def column(pairs: list[tuple[float, int]]) -> np.ndarray:
        values = np.repeat(np.array([v for v, _ in pairs]), [r for _, r in pairs])
        with np.errstate(over="ignore"):  # 1e300 as float32 is inf: a value like any other
            return values.astype(dtype)

    return runs.map(column)


def both_writers(table: Table, block: int) -> tuple[str, str]:
    with writer("pyarrow"):
        arrow = table.to_csv()
    with writer("polars", block=block):
        polars = table.to_csv()
    return arrow, polars


@FAST
@given(a=float_columns(np.float64), data=st.data())
def test_polars_writes_the_bytes_pyarrow_writes(a: np.ndarray, data) -> None:
    """polars' text (blocks of floats, integers and respelled text, in any mix) is
    pyarrow's byte for byte, and reads back as ``repr``'s numbers bit for bit."""
    n = a.shape[0]
    b = data.draw(float_columns(np.float32).map(lambda x: np.resize(x, n)))
    ints = data.draw(arrays(st.sampled_from([np.int64, np.uint64, np.int8]), n))
    whole = np.repeat(data.draw(st.integers(-10**15, 10**15)), n).astype(np.float64)
    table = Table({"threshold": a, "f1": b, "tp": ints, "fp": whole + np.arange(n)})
    arrow, polars = both_writers(table, block=data.draw(st.sampled_from([1, 2, 4, 16])))
    assert polars == arrow
    values = read_back(polars)[1]
    reference = read_back(python_text(table))[1]
    assert_array_equal(values.view(np.int64), reference.view(np.int64))


def test_polars_spells_every_band_edge_as_pyarrow() -> None:
    """Each power of ten and its neighbours, both signs, as floats, in one block and
    mixed with whole numbers: pyarrow's cast to text, which is the pyarrow path's."""
    edges = np.array(EDGES + [-v for v in EDGES] + [np.nan, np.inf, -np.inf, -0.0])
    expected = pc.cast(pa.array(edges), pa.large_string()).to_pylist()
    expected = ["nan" if np.isnan(v) else text for v, text in zip(edges, expected,
                                                                   strict=True)]
    for block in (1, 3, 64, 1 << 12):
        with writer("polars", block=block):
            text = Table({"x": edges}).to_csv()
        assert text.splitlines()[1:] == expected
        arrow, polars = both_writers(Table({"x": edges, "y": edges[::-1].copy()}), block)
        assert polars == arrow
    assert [float(t) for t in expected[:-4]] == edges[:-4].tolist()


def test_polars_blocks_and_threads_write_the_same_file(tmp_path) -> None:
    """A curve-like table (runs of whole numbers at both ends, a few tiny values): the
    polars file in blocks and threads is pyarrow's, and write_csv writes to_csv's
    text."""
    rng = np.random.default_rng(8)
    n = 50_003
    recall = np.concatenate([np.zeros(10), np.sort(rng.random(n - 1010)), np.ones(1000)])
    table = Table({"threshold": np.sort(rng.random(n) * 1e-3)[::-1].copy(),
                   "precision": np.where(np.arange(n) < 300, 1.0, rng.random(n)),
                   "recall": recall, "tp": np.arange(n, dtype=np.float64),
                   "f1": np.where(rng.random(n) < 0.01, np.nan, rng.random(n))})
    with writer("pyarrow"):
        arrow = table.to_csv()
    for threads in (1, 3):
        with sort_threads(threads), writer("polars", block=64):
            polars = table.to_csv()
            table.write_csv(tmp_path / "t.csv")
        assert polars == arrow
        assert (tmp_path / "t.csv").read_text() == arrow


def record_writers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The writers used from now on in the test, in order ("polars", "pyarrow")."""
    used: list[str] = []
    real_polars, real_arrow = csv_writers._polars_csv, csv_writers._arrow_csv
    monkeypatch.setattr(csv_writers, "_polars_csv",
                        lambda *a: (used.append("polars"), real_polars(*a))[1])
    monkeypatch.setattr(csv_writers, "_arrow_csv",
                        lambda *a: (used.append("pyarrow"), real_arrow(*a))[1])
    return used


def test_the_writer_is_picked_by_switch_environment_and_size(monkeypatch) -> None:
    used = record_writers(monkeypatch)
    small = Table({"x": np.array([0.5, 1.0])})
    large = Table({"x": np.linspace(0, 1, csv_writers.POLARS_MIN_ROWS)})
    small.to_csv()
    large.to_csv()  # polars is imported by this test module's collection
    assert used == ["pyarrow", "polars"]
    monkeypatch.setenv("PRCURVE_CSV_WRITER", "polars")
    assert csv_writer() == "polars"
    small.to_csv()
    monkeypatch.setenv("PRCURVE_CSV_WRITER", "PyArrow ")
    large.to_csv()
    with writer("python"):  # the switch wins over the environment
        assert large.to_csv().splitlines()[1] == "0.0"
    assert used == ["pyarrow", "polars", "polars", "pyarrow"]
    monkeypatch.setenv("PRCURVE_CSV_WRITER", "rust")
    with pytest.raises(InvalidInputError, match="PRCURVE_CSV_WRITER: 'rust' names no CSV"):
        small.to_csv()
    with pytest.raises(ValueError, match="writer must be one of"):
        set_csv_writer("fast")
    # Fixed digits and text columns stay Python's whatever the writer.
    monkeypatch.setenv("PRCURVE_CSV_WRITER", "polars")
    assert small.to_csv(digits=1) == "x\n0.5\n1.0\n"
    assert used == ["pyarrow", "polars", "polars", "pyarrow"]


def test_auto_falls_back_to_pyarrow_without_polars(monkeypatch) -> None:
    real_import = csv_writers._import

    def no_polars(name: str, required: bool) -> object:
        if name == "polars":
            if required:
                raise ImportError("the polars CSV writer needs polars")
            return None
        return real_import(name, required)

    monkeypatch.setattr(csv_writers, "_import", no_polars)
    large = Table({"x": np.linspace(0, 1, csv_writers.POLARS_MIN_ROWS)})
    with writer("pyarrow"):
        expected = large.to_csv()
    assert large.to_csv() == expected
    with writer("polars"), pytest.raises(ImportError, match="needs polars"):
        large.to_csv()


def test_polars_path_imports_neither_pandas_nor_pyarrow(tmp_path) -> None:
    """A large table imports polars to write it, and nothing heavier; a small one is
    written without importing polars."""
    heavy = "sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'polars'})"
    code = (
        "import sys, numpy as np\n"
        "from prcurve.core.table import Table\n"
        "rows = int(sys.argv[2])\n"
        "Table({'x': np.linspace(0, 1, rows)}).write_csv(sys.argv[1])\n"
        f"print({heavy})\n"
    )
    large = str(csv_writers.POLARS_IMPORT_VALUES)
    for rows, imported in (("100", "['pyarrow']"), (large, "['polars']")):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t.csv"), rows],
                              capture_output=True, text=True, check=True)
        assert done.stdout.strip() == imported


def test_auto_prefers_pyarrow_where_respelling_would_cost_more(monkeypatch) -> None:
    """Values in [1e10, 1e16) throughout (all respelled): pyarrow under ``auto``, polars
    when forced or without pyarrow; a curve-like column: polars. The bytes are the
    same either way."""
    used = record_writers(monkeypatch)
    n = csv_writers.POLARS_MIN_ROWS
    rng = np.random.default_rng(5)
    large = Table({"score": rng.uniform(1e10, 1e16, n), "tp": np.arange(n)})
    curve = Table({"score": np.where(np.arange(n) < 100, 1.0, rng.random(n)),
                   "tp": np.arange(n)})
    texts = [large.to_csv(), curve.to_csv()]
    assert used == ["pyarrow", "polars"]
    with writer("polars"):
        assert large.to_csv() == texts[0]
    monkeypatch.setattr(csv_writers, "_arrow_csv", lambda *a: None)  # no pyarrow
    assert large.to_csv() == texts[0]
    assert used == ["pyarrow", "polars", "polars", "polars"]

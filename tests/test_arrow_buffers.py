"""NumPy <-> pyarrow through buffers (prcurve.core.arrow): the same values as pyarrow's
own conversions, and no pandas import on the paths that use them (pyarrow's
``pa.array`` and ``to_numpy`` import pandas, about a second of a command)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays, boolean_dtypes, floating_dtypes, integer_dtypes
from numpy.testing import assert_array_equal
from tests.strategies import FAST, fresh_python

from prcurve.core.arrow import numpy_to_arrow, primitive_numpy

DTYPES = st.one_of(boolean_dtypes(), integer_dtypes(endianness="="),
                   integer_dtypes(endianness=">"), floating_dtypes(endianness="="),
                   floating_dtypes(endianness=">"))


@FAST
@given(values=arrays(DTYPES, st.integers(0, 70)), step=st.integers(1, 3))
def test_numpy_to_arrow_holds_pyarrows_values(values: np.ndarray, step: int) -> None:
    values = values[::step]  # strided views are copied, not misread
    ours = numpy_to_arrow(pa, values)
    theirs = pa.array(values.astype(values.dtype.newbyteorder("=")))
    assert ours.type == theirs.type
    assert ours.null_count == 0
    assert ours.equals(theirs) or np.isnan(values.astype(np.float64)).any()
    back = primitive_numpy(pa, ours)
    assert back.dtype == values.dtype.newbyteorder("=")
    # Bit for bit, NaN payloads and signed zeros included.
    assert_array_equal(back.view(np.uint8), values.astype(back.dtype).view(np.uint8))


def test_primitive_numpy_of_offset_chunked_and_empty_columns() -> None:
    column = pa.chunked_array([pa.array([1.5, 2.5]), pa.array([3.5])])
    assert primitive_numpy(pa, column).tolist() == [1.5, 2.5, 3.5]
    assert primitive_numpy(pa, pa.array([1, 2, 3, 4]).slice(1, 2)).tolist() == [2, 3]
    assert primitive_numpy(pa, pa.array([True, False, True]).slice(1)).tolist() == [False, True]
    empty = pa.chunked_array([], type=pa.float32())
    assert primitive_numpy(pa, empty).dtype == np.float32


def test_numpy_to_arrow_refuses_text() -> None:
    with pytest.raises(TypeError, match="numbers or booleans"):
        numpy_to_arrow(pa, np.array(["a"]))


def test_report_and_csv_paths_do_not_import_pandas(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    n = 300_000  # more than one CSV block: the threaded path
    labels = rng.random(n) < 0.2
    pq.write_table(pa.table({"label": pa.array(labels), "score": pa.array(
        rng.random(n) + 0.3 * labels)}), tmp_path / "in.parquet")
    _, pandas = fresh_python(
        "from prcurve.cli.main import main\n"
        "try:\n"
        f"    main(['report', {str(tmp_path / 'in.parquet')!r}, '--out', "
        f"{str(tmp_path / 'out')!r}])\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "import prcurve\n"
        "table = prcurve.pr_curve(np.arange(300_000) % 3 == 0,\n"
        "                         np.linspace(0, 1, 300_000)).to_table()\n"
        f"table.write_csv({str(tmp_path / 'curve.csv')!r})")
    assert not pandas
    assert (tmp_path / "out" / "report.html").is_file()
    assert len((tmp_path / "curve.csv").read_text().splitlines()) == 300_001

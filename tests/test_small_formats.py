"""Small inputs of every format without heavy machinery (issue 26, item 3): below a size,
Python's json reads a flat JSON Lines file and the standard library decompresses gzip'd and
bzip2'd text files; a Parquet file is opened without importing pyarrow.parquet. The
columns, and the error of a bad file, are the ones the pyarrow readers give."""

from __future__ import annotations

import bz2
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from prcurve import InvalidInputError
from prcurve.io import readers, small_csv, small_jsonl
from prcurve.io.readers import read_table


def _same(a: Any, b: Any) -> bool:
    """Equal columns: the same type and values (NaN equal to NaN; objects compared with
    their Python types, so True is not 1)."""
    if a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True)) and bool(
            np.array_equal(np.signbit(a), np.signbit(b)))
    left, right = a.tolist(), b.tolist()
    return left == right and [type(v) for v in left] == [type(v) for v in right]


def _outcome(path: Path) -> tuple[str, Any]:
    """``read_table``'s columns, or its error's message."""
    try:
        table = read_table(path)
    except InvalidInputError as error:
        return "error", str(error)
    return "columns", table.columns


def _both(path: Path) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """The outcome as read (small files by Python's json) and by the pyarrow reader."""
    small = _outcome(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(small_jsonl, "SMALL_JSONL_BYTES", 0)
        large = _outcome(path)
    return small, large


def _assert_same_outcome(path: Path) -> None:
    small, large = _both(path)
    assert small[0] == large[0], (small, large)
    if small[0] == "error":
        assert small[1] == large[1]
        return
    assert list(small[1]) == list(large[1])
    for name in small[1]:
        assert _same(small[1][name], large[1][name]), (name, small[1][name], large[1][name])


# Values of every JSON kind and the edges of the readers: int64's ends and beyond, numbers
# with a fraction or an exponent, -0, strings pyarrow may read as timestamps, a lone
# surrogate, NaN and the infinities (Python's json writes them; pyarrow refuses them).
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([2**63, -(2**63) - 1, 2**53 + 1, -0, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([float("nan"), float("inf"), -0.0, 1e300, 5e-324]),
    st.text(max_size=4),
    st.sampled_from(["pos", "neg", "2020-01-01", "2020-01-01T10:00:00Z", "12", "-x", "\ud800",
                     "é", " a", ""]),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from("ab"), st.integers(0, 3), max_size=1),
)
# A column's values: one kind of value (the usual file), or any mix.
COLUMN_KINDS = {
    "int": st.integers(-(2**63), 2**63 - 1),
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "number": st.one_of(st.integers(-(2**60), 2**60), st.floats(-1e20, 1e20)),
    "bool": st.booleans(),
    "text": st.text(alphabet="ab-_ 19é", min_size=0, max_size=4),
    "when": st.sampled_from(["2020-01-01", "2020-01-01T10:00:00Z", "2021-12-31 23:59:59",
                             "05:06:07", "1999-01-01"]),
    "any": VALUES,
}


@st.composite
def jsonl_files(draw: st.DrawFn) -> str:
    """A JSON Lines file's text: records of a few keys, each column of one kind (with
    missing values or keys sometimes), and now and then a line of something else."""
    names = draw(st.lists(st.sampled_from(["label", "score", "w", "m", "é"]), min_size=1,
                          max_size=4, unique=True))
    kinds = {name: draw(st.sampled_from(list(COLUMN_KINDS))) for name in names}
    holes = draw(st.sampled_from(["none", "null", "absent"]))
    n_rows = draw(st.integers(1, 8))
    lines = []
    for _ in range(n_rows):
        record: dict[str, Any] = {}
        for name in draw(st.permutations(names)) if draw(st.booleans()) else names:
            if holes != "none" and draw(st.integers(0, 4)) == 0:
                if holes == "null":
                    record[name] = None
                continue
            record[name] = draw(COLUMN_KINDS[kinds[name]])
        line = json.dumps(record, separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
        lines.append(line)
    odd = draw(st.sampled_from([None, "", "  ", "{}", "[]", "null", "{", '{"label": 1} {"a": 2}',
                                '{"label": 1, "label": 2}', '{"a": [1,', "2]}", "\ufeff"]))
    if odd is not None:
        at = draw(st.integers(0, len(lines)))
        if odd == "\ufeff":
            lines[0] = odd + lines[0]
        else:
            lines.insert(at, odd)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + (end if draw(st.booleans()) else "")


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=jsonl_files(), compress=st.sampled_from([None, "gz"]))
def test_small_jsonl_reads_as_the_pyarrow_reader(
    tmp_path: Path, text: str, compress: str | None,
) -> None:
    data = text.encode("utf-8", "surrogatepass")
    path = tmp_path / ("t.jsonl" if compress is None else "t.jsonl.gz")
    path.write_bytes(data if compress is None else gzip.compress(data))
    taken = small_jsonl.read_small_jsonl(path) is not None
    event("Python's json" if taken else "the pyarrow reader")
    _assert_same_outcome(path)


@pytest.mark.parametrize(("text", "taken"), [
    ('{"label": 1, "score": 0.5}\n{"label": 0, "score": 0.25}\n', True),
    ('{"label": 1, "score": 0.5}\r\n\r\n  \n{"score": 2, "label": 0}', True),
    ('{"y": "pos", "s": 1}\n{"y": null, "s": 2.5}\n', True),
    ('{"y": true, "s": 1}\n{"s": 2}\n', True),
    ('{"y": 1, "y": 2}\n', False),            # a key twice
    ('{"y": 1, "s": [0.5]}\n', False),        # a nested value
    ('{"y": 1, "s": NaN}\n', False),
    ('{"y": 1, "s": 18446744073709551616}\n', False),  # beyond int64
    ('{"y": "1", "s": 0.5}\n', False),        # a string pyarrow may type otherwise
    ('{"y": "2020-01-01", "s": 0.5}\n', False),
    ('{"y": 1, "s": 0.5}\n{"y": "a", "s": 0.5}\n', False),  # kinds mixed
    ('{"y": 1, "s": 0.5} {"y": 0, "s": 0.1}\n', False),     # two objects on a line
    ('{"y": 1, "s": 0.5}\n[1, 2]\n', False),
    ('{}\n', False),
    ('\ufeff{"y": 1, "s": 0.5}\n', False),    # a byte-order mark
    ('{"y": 1, "s": 0.5\n', False),           # malformed
])
def test_what_pythons_json_takes(tmp_path: Path, text: str, taken: bool) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    assert (small_jsonl.read_small_jsonl(path) is not None) == taken
    _assert_same_outcome(path)


@pytest.mark.parametrize("value", [2**53, -(2**53), 2**53 + 1, -(2**63), 2**63 - 1])
def test_integers_with_a_null_beyond_float64s_exact_range(tmp_path: Path, value: int) -> None:
    """An integer column with a null, its integers beyond 2^53: the small reader leaves
    it to the pyarrow reader, whose cast to float64 and fall-back decide (-2^63 is kept
    whole as an object there; the small reader made it float64: found by the Hypothesis
    test above). Such a column is never a label, score or weight (a null is refused)."""
    path = tmp_path / "w.jsonl"
    path.write_text(f'{{"y": 1, "w": null}}\n{{"y": 0, "w": {value}}}\n')
    assert (small_jsonl.read_small_jsonl(path) is None) == (abs(value) > 2**53)
    _assert_same_outcome(path)


def test_large_and_other_compressed_jsonl_files_go_to_pyarrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = b'{"label": 1, "score": 0.5}\n{"label": 0, "score": 0.25}\n'
    path = tmp_path / "s.jsonl"
    path.write_bytes(text)
    assert small_jsonl.read_small_jsonl(path) is not None
    (tmp_path / "s.jsonl.bz2").write_bytes(bz2.compress(text))
    assert small_jsonl.read_small_jsonl(tmp_path / "s.jsonl.bz2") is not None
    (tmp_path / "s.jsonl.GZ").write_bytes(gzip.compress(text))  # pyarrow: not decompressed
    assert small_jsonl.read_small_jsonl(tmp_path / "s.jsonl.GZ") is None
    (tmp_path / "s.jsonl.zst").write_bytes(text)
    assert small_jsonl.read_small_jsonl(tmp_path / "s.jsonl.zst") is None
    monkeypatch.setattr(small_jsonl, "SMALL_JSONL_BYTES", path.stat().st_size)
    assert small_jsonl.read_small_jsonl(path) is None
    (tmp_path / "big.jsonl.gz").write_bytes(gzip.compress(text * 2))  # small on disk only
    assert small_jsonl.read_small_jsonl(tmp_path / "big.jsonl.gz") is None


def test_a_broken_gzip_file_gets_the_pyarrow_readers_error(tmp_path: Path) -> None:
    for name in ("s.jsonl.gz", "s.csv.gz"):
        path = tmp_path / name
        path.write_bytes(gzip.compress(b'{"label": 1, "score": 0.5}\n' * 50)[:-20])
        assert small_file_none(path)
        with pytest.raises(InvalidInputError, match=name):
            read_table(path)


@pytest.mark.parametrize("name", ["s.csv.gz", "s.jsonl.gz", "s.csv.bz2", "s.jsonl.bz2"])
@pytest.mark.parametrize("tail", ["member", "zeros", "junk", "cut"])
def test_compressed_archives_read_as_pyarrow_reads_them(
    tmp_path: Path, name: str, tail: str,
) -> None:
    """Two members are read by both readers; zero padding or bytes after the last member,
    which Python's gzip and bz2 modules skip, and a cut member are left to pyarrow."""
    pack = gzip.compress if name.endswith(".gz") else bz2.compress
    first, second = ((b"label,score\n1,0.5\n", b"0,0.25\n") if ".csv" in name else
                     (b'{"label": 1, "score": 0.5}\n', b'{"label": 0, "score": 0.25}\n'))
    data = pack(first) + {"member": pack(second), "zeros": b"\0" * 16, "junk": b"junk",
                          "cut": pack(second)[:-6]}[tail]
    path = tmp_path / name
    path.write_bytes(data)
    assert (small_csv.small_file_bytes(path, 1 << 20) is not None) == (tail == "member")
    small = _outcome(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(small_jsonl, "SMALL_JSONL_BYTES", 0)
        patch.setattr(small_csv, "SMALL_CSV_BYTES", 0)
        large = _outcome(path)
    assert small[0] == large[0]
    if small[0] == "error":
        assert small[1] == large[1]
    else:
        assert {k: v.tolist() for k, v in small[1].items()} == {
            k: v.tolist() for k, v in large[1].items()} == {"label": [1, 0],
                                                           "score": [0.5, 0.25]}


def small_file_none(path: Path) -> bool:
    return small_csv.small_file_bytes(path, 1 << 20) is None


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 1), st.floats(-1e6, 1e6)), min_size=1,
                     max_size=20),
       codec=st.sampled_from(["gz", "bz2"]))
def test_small_compressed_csv_reads_as_pyarrow_reads(
    tmp_path: Path, rows: list[tuple[int, float]], codec: str,
) -> None:
    text = "label,score\n" + "".join(f"{y},{s!r}\n" for y, s in rows)
    pack = gzip.compress if codec == "gz" else bz2.compress
    path = tmp_path / f"t.csv.{codec}"
    path.write_bytes(pack(text.encode()))
    assert small_csv.read_small_delimited(path, ",") is not None
    small = read_table(path).columns
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(small_csv, "SMALL_CSV_BYTES", 0)
        large = read_table(path).columns
    assert list(small) == list(large)
    for name in small:
        assert _same(small[name], large[name])


def test_a_small_jsonl_report_imports_no_pyarrow(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl.gz"
    path.write_bytes(gzip.compress("".join(
        json.dumps({"label": i % 3 == 0, "score": (i * 37) % 101 / 7}) + "\n"
        for i in range(2000)).encode()))
    job = ("import contextlib, io, sys\nfrom prcurve.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()), "
           "contextlib.redirect_stderr(io.StringIO()):\n"
           f"    assert main(['report', {str(path)!r}, '--ci', 'none']) == 0\n"
           "print(sorted(m for m in sys.modules if m.split('.')[0] in "
           "('pyarrow', 'pandas', 'polars')))")
    done = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_readers_agree_on_on_rows(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"label": 1, "score": 0.5}\n{"label": 0, "score": 0.25}\n')
    heard: list[int] = []
    read_table(path, on_rows=heard.append)
    assert heard == [2]
    assert readers.detect_format(path) == "jsonl"


# -- Parquet without pyarrow.parquet's import (io.parquet_open) --------------------------


PARQUET_COLUMNS = {
    "int": lambda pa, rng, n: pa.array(rng.integers(-5, 5, n)),
    "int32 with nulls": lambda pa, rng, n: pa.array(
        [None if v == 0 else int(v) for v in rng.integers(0, 4, n)], type=pa.int32()),
    "uint64": lambda pa, rng, n: pa.array(rng.integers(0, 2**63, n, dtype=np.uint64) * 2,
                                          type=pa.uint64()),
    "float32": lambda pa, rng, n: pa.array(rng.random(n).astype(np.float32)),
    "float": lambda pa, rng, n: pa.array(rng.normal(size=n)),
    "bool": lambda pa, rng, n: pa.array(rng.random(n) < 0.5),
    "text": lambda pa, rng, n: pa.array([["pos", "neg", None][v] for v in rng.integers(0, 3, n)]),
    "dictionary": lambda pa, rng, n: pa.array([["a", "b"][v] for v in rng.integers(0, 2, n)]
                                              ).dictionary_encode(),
    "timestamp": lambda pa, rng, n: pa.array(rng.integers(0, 10**9, n).astype("M8[s]")),
    "list": lambda pa, rng, n: pa.array([[int(v)] for v in rng.integers(0, 3, n)]),
    "json": lambda pa, rng, n: pa.array(["{}", "[1]", None][:1] * n, type=pa.json_()),
    "uuid": lambda pa, rng, n: pa.array([bytes([int(v)] * 16) for v in rng.integers(0, 9, n)],
                                        type=pa.uuid()),
}


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(st.sampled_from(list(PARQUET_COLUMNS)), min_size=1, max_size=4,
                      unique=True),
       n_rows=st.integers(1, 40), group=st.integers(1, 16), seed=st.integers(0, 9),
       arrow_schema=st.booleans())
def test_open_parquet_reads_as_parquet_file(
    tmp_path: Path, kinds: list[str], n_rows: int, group: int, seed: int, arrow_schema: bool,
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from prcurve.io.parquet_open import ParquetSource, open_parquet

    rng = np.random.default_rng(seed)
    table = pa.table({kind: PARQUET_COLUMNS[kind](pa, rng, n_rows) for kind in kinds})
    path = tmp_path / "t.parquet"
    # Without the Arrow schema (as other writers write): the types from Parquet's own.
    pq.write_table(table, path, row_group_size=group, store_schema=arrow_schema)
    with open_parquet(path) as ours, pq.ParquetFile(path) as theirs:
        assert isinstance(ours, ParquetSource)
        assert ours.schema_arrow == theirs.schema_arrow
        assert ours.metadata.to_dict() == theirs.metadata.to_dict()
        for i in range(theirs.metadata.num_row_groups):
            mine, other = ours.read_row_group(i), theirs.read_row_group(i)
            assert mine.schema == other.schema
            assert mine.equals(other)
    small = read_table(path).columns
    with pytest.MonkeyPatch.context() as patch:  # as before: pyarrow.parquet.ParquetFile
        patch.setattr("prcurve.io.parquet_open._OPEN_OPTIONS", {"no_such_option": 1})
        large = read_table(path).columns
    assert list(small) == list(large)
    for name in small:
        assert _same(small[name], large[name]), (name, small[name], large[name])


def test_open_parquet_falls_back_to_parquet_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from prcurve.io import parquet_open

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"label": [1, 0], "score": [0.5, 0.25]}), path)
    real = importlib.import_module

    def without_private(name: str, *args: Any) -> Any:
        if name == "pyarrow._parquet":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(parquet_open.importlib, "import_module", without_private)
    with parquet_open.open_parquet(path) as file:
        assert isinstance(file, pq.ParquetFile)
    assert read_table(path).columns["score"].tolist() == [0.5, 0.25]


def test_a_broken_parquet_file_gets_the_same_error(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"label": [1, 0] * 50, "score": [0.5, 0.25] * 50}), path)
    path.write_bytes(path.read_bytes()[:40] + path.read_bytes()[-60:])
    with pytest.raises(InvalidInputError) as ours:
        read_table(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("prcurve.io.parquet_open._OPEN_OPTIONS", {"no_such_option": 1})
        with pytest.raises(InvalidInputError) as theirs:
            read_table(path)
    assert str(ours.value) == str(theirs.value)
    assert "t.parquet" in str(ours.value)


def test_a_small_parquet_report_imports_no_pyarrow_parquet(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "s.parquet"
    # Integer labels: a boolean column is unpacked by pyarrow.compute (core.arrow).
    pq.write_table(pa.table({"label": [int(i % 3 == 0) for i in range(2000)],
                             "score": [(i * 37) % 101 / 7 for i in range(2000)]}), path)
    job = ("import contextlib, io, sys\nfrom prcurve.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()), "
           "contextlib.redirect_stderr(io.StringIO()):\n"
           f"    assert main(['report', {str(path)!r}, '--ci', 'none']) == 0\n"
           "print(sorted(m for m in sys.modules if m in ('pyarrow.parquet', 'pyarrow.fs', "
           "'pyarrow.compute', 'pyarrow.dataset', 'ssl', 'pandas')))")
    done = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"

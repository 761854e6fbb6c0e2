"""Small inputs without heavy machinery (issue 26, item 2): below a size, the TREC, CSV
and COCO JSON readers take a plain pass in memory (no pyarrow import, no thread, no
memory map), and give what the large-file readers give."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import prcurve.ranking.trec_reader as trec_reader
from prcurve import InvalidInputError
from prcurve.ranking.tables import read_qrels, read_run
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval

# What a subprocess reports after the job: heavy modules loaded, threads alive, maps made.
PROBE = """
import mmap, sys, threading
maps = []
class Spy(mmap.mmap):
    def __new__(cls, *args, **kwargs):
        maps.append(args)
        return super().__new__(cls, *args, **kwargs)
mmap.mmap = Spy
{job}
print(sorted({{m.split('.')[0] for m in sys.modules}} & {{'pyarrow', 'pandas', 'polars'}}),
      threading.active_count(), len(maps))
"""


def probe(job: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(job=job)], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


# -- TREC files ----------------------------------------------------------------------------

IDS = st.text(alphabet=st.sampled_from("abQ019#-_"), min_size=1, max_size=12)


def _columns(path: Path, kind: str) -> Any:
    table = read_run(path) if kind == "run" else read_qrels(path)
    values = table.score if kind == "run" else table.relevance
    return (table.query_id.tolist(), table.doc_id.tolist(), values.tolist(),
            getattr(table, "run_id", None))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(IDS, IDS, st.floats(-1e6, 1e6, allow_nan=False),
                            st.integers(-2, 5)), min_size=1, max_size=40),
    tab=st.booleans(),
    crlf=st.booleans(),
)
def test_small_trec_files_read_as_the_large_file_reader_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    rows: list[tuple[str, str, float, int]], tab: bool, crlf: bool,
) -> None:
    rows = list({(q, d): (q, d, s, g) for q, d, s, g in rows}.values())  # one row per pair
    sep, end = ("\t" if tab else " "), ("\r\n" if crlf else "\n")
    run = "".join(sep.join([q, "Q0", d, "1", repr(s), "r"]) + end for q, d, s, _ in rows)
    qrels = "".join(sep.join([q, "0", d, str(g)]) + end for q, d, _, g in rows)
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    results = []
    for threshold in (trec_reader.SMALL_FILE_BYTES, 0):  # the plain pass, then pyarrow's
        monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", threshold)
        try:
            results.append((_columns(tmp_path / "run", "run"),
                            _columns(tmp_path / "qrels", "qrels")))
        except InvalidInputError as error:  # a query id "#...": a comment line
            results.append(str(error))
    assert results[0] == results[1]


def _typical_run(folder: Path, topics: int = 20, docs: int = 300) -> tuple[Path, Path]:
    run = "".join(f"{300 + t} Q0 d{(t * 7919 + r * 104729) % 5000} {r + 1} "
                  f"{(1000 - r) / 50:.4f} bench\n" for t in range(topics) for r in range(docs))
    qrels = "".join(f"{300 + t} 0 d{(t * 31 + j * 613) % 5000} {(t + j) % 3}\n"
                    for t in range(topics) for j in range(docs // 5))
    (folder / "run").write_text(run)
    (folder / "qrels").write_text(qrels)
    return folder / "qrels", folder / "run"


def test_trec_eval_output_is_the_same_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    qrels, run = _typical_run(tmp_path)
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    small = format_trec_eval(read_qrels(qrels), read_run(run), options)
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    assert format_trec_eval(read_qrels(qrels), read_run(run), options) == small


def test_a_small_trec_evaluation_imports_no_pyarrow_starts_no_thread_maps_nothing(
    tmp_path: Path,
) -> None:
    qrels, run = _typical_run(tmp_path)
    job = ("from prcurve.ranking.tables import read_qrels, read_run\n"
           "from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval\n"
           f"format_trec_eval(read_qrels({str(qrels)!r}), read_run({str(run)!r}), "
           "TrecEvalOptions(measures=('all_trec',)))")
    assert probe(job) == "[] 1 0"
    # The check can fail: the same job with the large-file reader.
    large = job.replace("from prcurve.ranking.tables",
                        "import prcurve.ranking.trec_reader as t; t.SMALL_FILE_BYTES = 0\n"
                        "from prcurve.ranking.tables")
    assert probe(large).startswith("['pyarrow']")


@pytest.fixture
def arrow_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A spy on the large-file reader (pyarrow's): one True per file it reads."""
    taken: list[bool] = []
    original = trec_reader._arrow_columns

    def spy(*args: Any) -> Any:
        taken.append(True)
        return original(*args)

    monkeypatch.setattr(trec_reader, "_arrow_columns", spy)
    return taken


def test_files_from_the_threshold_up_take_the_large_file_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arrow_reads: list[bool],
) -> None:
    _, run = _typical_run(tmp_path, topics=2, docs=10)
    read_run(run)
    assert arrow_reads == []
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", run.stat().st_size)
    read_run(run)  # exactly the threshold: large
    assert arrow_reads == [True]


def test_once_pyarrow_csv_is_loaded_a_smaller_file_takes_its_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arrow_reads: list[bool],
) -> None:
    # pyarrow's import is what the small-file threshold saves; once it is paid, files
    # from ARROW_LOADED_SMALL_FILE_BYTES up go to its reader. The same columns either way.
    import pyarrow.csv  # noqa: F401 - loaded, as after an earlier large file

    _, run = _typical_run(tmp_path, topics=40, docs=300)
    size = run.stat().st_size
    assert trec_reader.ARROW_LOADED_SMALL_FILE_BYTES <= size < trec_reader.SMALL_FILE_BYTES
    by_arrow = _columns(run, "run")
    assert arrow_reads == [True]
    monkeypatch.delitem(sys.modules, "pyarrow.csv")  # as in a process that never loaded it
    assert _columns(run, "run") == by_arrow
    assert arrow_reads == [True]


# -- CSV and TSV files -------------------------------------------------------------------

# Cells meant to find where the plain pass and pyarrow's reader could differ: numbers in
# every spelling, pyarrow's null and boolean spellings, dates, times, infinities, blanks.
TRICKY = ["0", "-0", "007", "+1", "1.", ".5", "-.5", "1e5", "1E-3", "1_0", "inf", "-Infinity",
          "nan", "NaN", "NA", "null", "", " ", " 1", "1 ", "true", "True", "FALSE", "1.5",
          "2020-01-01", "12:30", "2020-01-01T00:00:00", "a b", "é", "x", "#N/A", "9" * 19,
          "-9223372036854775808", "18446744073709551615"]
CELLS = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(TRICKY),
    st.text(alphabet=st.sampled_from("abz-_.:1 "), min_size=1, max_size=5),
)


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    if a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(a.tolist() == b.tolist())


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kinds=st.lists(st.sampled_from(["int", "float", "bool", "cell"]), min_size=1, max_size=4),
    n_rows=st.integers(1, 12),
    data=st.data(),
    tsv=st.booleans(),
    crlf=st.booleans(),
    quotes=st.sampled_from(["none", "some", "all"]),
)
def test_small_csv_reads_as_pyarrow_reads(
    tmp_path: Path, kinds: list[str], n_rows: int, data: st.DataObject, tsv: bool, crlf: bool,
    quotes: str,
) -> None:
    """Whatever the plain pass takes, pyarrow's reader reads the same; with fields in
    quotes (R's ``write.csv`` quotes all text), escaped quotes and quoted delimiters
    (left to pyarrow) among them."""
    from prcurve.io import readers, small_csv
    from prcurve.io.text import CsvDialect

    strategies = {"int": st.integers(-(2**63), 2**63 - 1).map(str),
                  "float": st.floats(-1e300, 1e300, allow_nan=False).map(repr),
                  "bool": st.sampled_from(["true", "false", "True", "FALSE"]), "cell": CELLS}
    delimiter = "\t" if tsv else ","
    rows = [[data.draw(strategies[k]) for k in kinds] for _ in range(n_rows)]
    names = [f"c{j}" for j in range(len(kinds))]
    if quotes != "none":  # a cell in quotes (an inner quote doubled, as CSV escapes it)
        if data.draw(st.booleans()):  # escaped quotes and quoted delimiters, here and there
            rows = [[data.draw(st.sampled_from([cell, cell, cell + '"x', delimiter + cell]))
                     for cell in row] for row in rows]
        lines = [['"' + cell.replace('"', '""') + '"'
                  if quotes == "all" or data.draw(st.booleans()) else cell for cell in row]
                 for row in [names, *rows]]
        if any('"' in cell and not cell.startswith('"') for row in lines for cell in row):
            return  # a quote in an unquoted cell: not CSV
    else:
        lines = [names, *rows]
    if any(delimiter in cell and not cell.startswith('"') for row in lines for cell in row):
        return
    end = "\r\n" if crlf else "\n"
    text = end.join(delimiter.join(row) for row in lines) + end
    if data.draw(st.booleans()):  # Excel's "CSV UTF-8" begins with a byte-order mark
        text = "\ufeff" + text
    path = tmp_path / ("t.tsv" if tsv else "t.csv")
    path.write_text(text)
    small = small_csv.read_small_delimited(path, delimiter)
    event("plain pass" if small is not None else "pyarrow's reader")
    if small is None:  # left to pyarrow's reader
        return
    large = readers._read_delimited(path, "tsv" if tsv else "csv",
                                    CsvDialect.of(delimiter, "."), None)
    assert list(small) == list(large)
    for name in names:
        assert _same(small[name], large[name]), (name, small[name], large[name])


@pytest.mark.parametrize(("text", "taken"), [
    ("label,score\n1,0.5\n0,0.25\n", True),
    ("label,score\r\n1,0.5\r\n\r\n0,0.25\r\n", True),
    ('label,score\n1,"0.5"\n', True),        # a plain quoted field: pyarrow's 0.5
    ('"label","score"\n"1",0.5\n', True),
    ('label,score\n1,"0.""5"\n', False),     # an escaped quote
    ('label,score\n1,"0,5"\n', False),       # a quoted delimiter
    ('label,score\n1,""\n', False),          # a quoted empty field: a null
    ('label,score\n1,0"5"\n', False),        # a quote inside a field
    ("label,score\n1,\n0,0.25\n", False),   # a missing value
    ("label,score\n1,NA\n", False),
    ("label,score\n1,0.5,7\n", False),      # a ragged line
    ("label,label\n1,0\n", False),          # a name twice
    ("label,score\n", False),               # no rows
    ("\ufefflabel,score\n1,0.5\n", True),   # a byte-order mark, skipped as pyarrow skips it
    ("\ufeff\ufefflabel,score\n1,0.5\n", True),  # a second one: text of the first name, as pyarrow
    ("label,when\n1,2020-01-01\n", False),  # a date
    ("label,score\n1,inf\n", False),
])
def test_what_the_plain_pass_takes(tmp_path: Path, text: str, taken: bool) -> None:
    from prcurve.io import small_csv

    path = tmp_path / "s.csv"
    path.write_text(text, encoding="utf-8")
    assert (small_csv.read_small_delimited(path, ",") is not None) == taken


def test_large_and_compressed_csv_files_go_to_pyarrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gzip

    from prcurve.io import small_csv

    path = tmp_path / "s.csv"
    path.write_text("label,score\n1,0.5\n0,0.25\n")
    assert small_csv.read_small_delimited(path, ",") is not None
    monkeypatch.setattr(small_csv, "SMALL_CSV_BYTES", path.stat().st_size)
    assert small_csv.read_small_delimited(path, ",") is None
    monkeypatch.undo()
    (tmp_path / "s.csv.gz").write_bytes(gzip.compress(path.read_bytes()))  # the stdlib's
    assert small_csv.read_small_delimited(tmp_path / "s.csv.gz", ",") is not None
    (tmp_path / "s.csv.zst").write_bytes(path.read_bytes())  # no zstd in the stdlib
    assert small_csv.read_small_delimited(tmp_path / "s.csv.zst", ",") is None


def test_a_small_csv_report_imports_no_pyarrow(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\n" + "".join(f"{i % 3 == 0:d},{(i * 37) % 101 / 7}\n"
                                             for i in range(2000)))
    job = ("import contextlib, io\nfrom prcurve.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()), "
           "contextlib.redirect_stderr(io.StringIO()):\n"
           f"    assert main(['report', {str(path)!r}, '--ci', 'none']) == 0")
    modules, _, maps = probe(job).rsplit(" ", 2)
    assert modules == "[]"
    assert maps == "0"


# -- numpy.ma kept out (np.unique and np.quantile import it: a third of numpy's import) --


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50),
       q=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.025, 0.5, 0.975, 1.0])))
def test_linear_quantile_is_numpys_bit_for_bit(values: list[float], q: float) -> None:
    import numpy as np

    from prcurve.space.intervals import _linear_quantile

    array = np.array(values)
    assert _linear_quantile(np.sort(array), q) == float(np.quantile(array, q))


@settings(max_examples=60, deadline=None)
@given(ids=st.one_of(st.lists(st.integers(-5, 5), max_size=30),
                     st.lists(st.text(alphabet="ab", max_size=3), max_size=30)))
def test_sorted_distinct_is_np_unique(ids: list[Any]) -> None:
    import numpy as np

    from prcurve.detection._sorting import sorted_distinct

    array = np.array(ids) if ids else np.zeros(0, dtype=np.int64)
    expected = np.unique(array)
    got = sorted_distinct(array)
    assert got.dtype == expected.dtype
    assert got.tolist() == expected.tolist()


def test_small_jobs_import_neither_numpy_ma_nor_pyarrow(tmp_path: Path) -> None:
    import json

    qrels, run = _typical_run(tmp_path)
    csv = tmp_path / "s.csv"
    csv.write_text("label,score\n" + "".join(f"{i % 3 == 0:d},{(i * 37) % 101 / 7}\n"
                                            for i in range(500)))
    gt = {"images": [{"id": 1, "width": 100, "height": 100}],
          "categories": [{"id": 1, "name": "a"}],
          "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20],
                           "area": 400, "iscrowd": 0}]}
    dt = [{"image_id": 1, "category_id": 1, "bbox": [11, 10, 20, 20], "score": 0.9}]
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dt))
    for argv in (["trec", "-m", "all_trec", str(qrels), str(run)], ["report", str(csv)],
                 ["coco", str(tmp_path / "gt.json"), str(tmp_path / "dt.json")]):
        code = ("import contextlib, io, sys\nfrom prcurve.cli import main\n"
                "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
                "with contextlib.redirect_stderr(io.StringIO()):\n"
                f"    code = main({argv!r})\n"
                "sys.stdout = sys.__stdout__\n"
                "print(code, 'numpy.ma' in sys.modules, 'pyarrow' in sys.modules)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True)
        assert done.stdout.split() == ["0", "False", "False"], (argv, done.stdout, done.stderr)

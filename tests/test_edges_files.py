"""Issue 25, "Files": names and lists of files at the edges.

A carriage return in a name is quoted in every CSV prcurve writes (read back by
Python's csv module, an independent reader); a class named like an average never
shares a name with one; a label column given twice is refused; a ``p_<name>``
column with no such class is said; ``stream_counts`` on an empty list, a file
listed twice, a 0-byte and a header-only file; ``prcurve coco`` reads
``.json.gz``; ranking from polars frames (compared with pandas' and pyarrow's,
and with the dicts' path).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.test_detection_coco import pycocotools_eval, random_case, summary_lines

import prcurve
from prcurve.cli import main
from prcurve.core.csv_writers import csv_line, set_csv_writer
from prcurve.core.table import Table
from prcurve.errors import InvalidInputError
from prcurve.io.stream import stream_counts, stream_scores
from prcurve.present.report_build import evaluate

RNG = np.random.default_rng(7)
NAMES = ["a\rb", "line\nend", 'say "x"', "c,d", "plain", "\r"]


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _last_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert lines, err
    assert sum(line.startswith("prcurve: error") for line in lines) == 1, err
    assert lines[-1].startswith("prcurve: error: "), err
    return lines[-1]


# -- carriage returns in names, in every CSV -------------------------------------------


@pytest.mark.parametrize("writer", ["python", "pyarrow", "polars"])
def test_table_csv_quotes_every_name(writer: str) -> None:
    if writer == "polars":
        pytest.importorskip("polars")
    set_csv_writer(writer)
    try:
        numeric = Table({name: np.array([0.5, 1.0]) for name in NAMES})
        text = numeric.to_csv()
        assert _read(text) == [NAMES, ["0.5"] * len(NAMES), ["1" if writer != "python"
                                                              else "1.0"] * len(NAMES)]
        named = Table({"name\r": np.array(NAMES, dtype=object), "v": np.arange(6.0)})
        rows = _read(named.to_csv())
        assert rows[0] == ["name\r", "v"]
        assert [r[0] for r in rows[1:]] == NAMES
    finally:
        set_csv_writer(None)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(header=st.lists(_TEXT, min_size=1, max_size=4, unique=True),
       cells=st.lists(_TEXT, min_size=1, max_size=5))
def test_every_name_reads_back_as_written(header: list[str], cells: list[str]) -> None:
    """Python's csv reader (an independent reader) reads back every header and every
    text cell exactly, whatever it holds: commas, quotes, line feeds, carriage returns."""
    table = Table({name: np.array(cells, dtype=object) for name in header})
    rows = _read(table.to_csv())
    assert rows[0] == header
    assert [row[0] for row in rows[1:]] == cells
    numeric = Table({name: np.arange(2.0) for name in header})
    assert _read(numeric.to_csv())[0] == header


_COLUMN = st.one_of(
    st.lists(st.floats(width=64), min_size=3, max_size=3).map(np.array),
    st.lists(st.integers(-(2**62), 2**62), min_size=3, max_size=3).map(np.array),
    st.lists(st.booleans(), min_size=3, max_size=3).map(np.array),
    st.lists(_TEXT, min_size=3, max_size=3).map(lambda cells: np.array(cells, dtype=object)),
)


@given(header=st.lists(_TEXT, min_size=1, max_size=4, unique=True), data=st.data())
def test_python_csv_rows_equal_every_cell_quoted(header: list[str], data: st.DataObject
                                                 ) -> None:
    """The Python writer quotes only text columns' cells (a number's text never needs
    it): its text equals the slow oracle's, every cell of every row through csv_line,
    and Python's csv reader reads each cell back."""
    columns = {name: data.draw(_COLUMN) for name in header}
    table = Table(columns)
    set_csv_writer("python")
    try:
        text = table.to_csv()
    finally:
        set_csv_writer(None)
    cells = [[str(x) if values.dtype.kind == "O" else repr(x) for x in values.tolist()]
             for values in columns.values()]
    oracle = [csv_line(header), *map(csv_line, zip(*cells, strict=True))]
    assert text == "\n".join(oracle) + "\n"
    assert _read(text) == [header, *map(list, zip(*cells, strict=True))]


def test_table_write_csv_quotes_every_name(tmp_path: Path) -> None:
    Table({"m\r": np.array(["x\ry"], dtype=object)}).write_csv(tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [["m\r"], ["x\ry"]]


def test_report_csv_quotes_model_and_class_names(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    y = np.r_[np.ones(10), np.zeros(10)]
    report = evaluate({name: (y, RNG.random(20)) for name in NAMES})
    rows = _read(report.to_csv())
    assert [r[rows[0].index("model")] for r in rows[1:]] == NAMES
    # A class whose name holds a carriage return, from a file, on the command line.
    path = tmp_path / "classes.csv"
    classes = ["x\ry", "plain", "z"]
    lines = ['label,"p_x\ry",p_plain,p_z']
    for k in range(30):
        cls = classes[k % 3]
        lines.append(f'"{cls}",' + ",".join(f"{v:.3f}" for v in RNG.random(3)))
    path.write_text("\n".join(lines) + "\n", newline="")
    assert main(["report", str(path), "--format", "csv", "--ci", "none"]) == 0
    rows = _read(capsys.readouterr().out)
    column = rows[0].index("class")
    assert sorted(r[column] for r in rows[1:]) == sorted([*classes, "micro"])
    assert len({len(r) for r in rows}) == 1


def test_detection_per_class_csv_quotes_category_names(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    ground_truth, results = random_case(2, max_categories=3)
    for k, category in enumerate(ground_truth["categories"]):
        category["name"] = ["cat\rdog", "a,b", 'q"'][k % 3] + str(k)
    (tmp_path / "gt.json").write_text(json.dumps(ground_truth))
    (tmp_path / "dt.json").write_text(json.dumps(results))
    for command in ("coco", "voc"):
        out = tmp_path / command
        assert main([command, str(tmp_path / "gt.json"), str(tmp_path / "dt.json"),
                     "--out", str(out), "--no-plots"]) == 0
        with open(out / "per_class.csv", newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        names = {c["name"] for c in ground_truth["categories"]}
        column = next(i for i, h in enumerate(rows[0]) if "name" in h)
        assert {r[column] for r in rows[1:]} <= names
        assert len({len(r) for r in rows}) == 1
    capsys.readouterr()


# -- a class named like an average ------------------------------------------------------


@pytest.mark.parametrize("name", ["micro", "macro", "weighted", "micro average",
                                  "macro average"])
def test_a_class_never_shares_a_name_with_an_average(name: str) -> None:
    classes = np.array([name, "b", "c"], dtype=object)
    y = np.array([classes[k % 3] for k in range(30)], dtype=object)
    scores = RNG.random((30, 3))
    report = evaluate({"m": (y, scores)})
    names = [m.name for m in report.models]
    assert len(set(names)) == len(names)
    table = dict(prcurve.present.report_text.class_tables(report))
    (only,) = table.values()
    labels = only["class"].tolist()
    assert len(set(labels)) == len(labels), labels
    pooled = report.models[-1]
    assert pooled.values["class"] not in {"b", "c", name}
    micro = report.class_averages[0].to_dict()["micro_model"]
    assert micro == pooled.name
    assert micro != f"m[{name}]"
    # The pooled curve is scikit-learn's micro average (ravelled indicator matrix).
    from sklearn.metrics import average_precision_score
    indicator = (y[:, None] == np.array(sorted(classes))[None, :]).astype(int)
    order = np.argsort(np.array(sorted(classes)))  # evaluate sorts the classes
    expected = average_precision_score(indicator.ravel(), scores[:, order].ravel())
    assert pooled.values["ap"]["value"] == pytest.approx(expected, abs=1e-12)


def test_a_class_named_micro_on_the_command_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.csv"
    lines = ["label,p_micro,p_b,p_c"]
    lines.extend(f"{['micro', 'b', 'c'][k % 3]}," + ",".join(f"{v:.3f}" for v in RNG.random(3))
                 for k in range(30))
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    assert main(["report", str(path), "--format", "json", "--ci", "none", "--out", str(out),
                 "--no-plots"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = [m["name"] for m in report["models"]]
    assert names == ["m[b]", "m[c]", "m[micro]", "m[(micro)]"]
    written = json.loads((out / "report.json").read_text())
    files = [m["curve_file"] for m in written["models"]]
    assert len(set(files)) == 4
    assert all((out / name).is_file() for name in files)
    assert report["class_averages"][0]["micro_model"] == "m[(micro)]"


# -- a label column given twice, p_<name> without a class -------------------------------


def _classes_file(path: Path, extra: str | None = "p_zzz") -> Path:
    header = ["label", "p_a", "p_b", "p_c", *([extra] if extra else [])]
    lines = [",".join(header)]
    for k in range(30):
        lines.append(f"{'abc'[k % 3]}," + ",".join(f"{v:.3f}" for v in RNG.random(
            len(header) - 1)))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("options", [[], ["--stream"], ["--workers", "1"]])
def test_a_label_column_given_twice_is_refused(options: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _classes_file(tmp_path / "c.csv")
    assert main(["report", str(path), "--label", "label", "--label", "label",
                 *options]) == 2
    assert "--label: column 'label' is given twice" in _last_error(capsys.readouterr().err)


def test_a_label_column_given_twice_is_refused_from_python(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(_classes_file(tmp_path / "c.csv"))
    with pytest.raises(InvalidInputError, match="column 'label' is given twice"):
        prcurve.report(frame, label=["label", "label"], ci=None)


def test_score_columns_naming_no_class_are_said(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _classes_file(tmp_path / "c.csv")
    assert main(["report", str(path), "--format", "json", "--ci", "none"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    note = "score column(s) 'p_zzz' named like the classes' columns name no class"
    assert any(note in n for n in report["notes"])
    assert note in captured.err
    assert [m["name"] for m in report["models"]] == ["c[a]", "c[b]", "c[c]", "c[micro]"]
    pd = pytest.importorskip("pandas")
    from_python = prcurve.report(pd.read_csv(path), ci=None)
    assert any(note in n for n in from_python.notes)
    # Without such a column: no note.
    clean = _classes_file(tmp_path / "d.csv", extra=None)
    assert main(["report", str(clean), "--format", "json", "--ci", "none"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == []


def test_multilabel_score_column_without_its_label_is_said(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    y = RNG.integers(0, 2, (40, 2))
    y[:2] = 1
    frame = pd.DataFrame({"y_cat": y[:, 0], "y_dog": y[:, 1], "p_cat": RNG.random(40),
                          "p_dog": RNG.random(40), "p_eel": RNG.random(40)})
    report = prcurve.report(frame, label=["y_cat", "y_dog"], ci=None)
    assert any("'p_eel'" in n and "not scored" in n for n in report.notes)


# -- lists of files ---------------------------------------------------------------------


def _scores(path: Path) -> Path:
    path.write_text("label,a\n1,0.9\n0,0.8\n1,0.7\n0,0.1\n")
    return path


def test_stream_counts_on_an_empty_list() -> None:
    with pytest.raises(InvalidInputError, match=r"^source: no file given \(an empty list\)"):
        stream_counts([], label="label", score="a")
    with pytest.raises(InvalidInputError, match="no file given"):
        stream_scores((), label="label")


def test_the_same_file_listed_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _scores(tmp_path / "one.csv")
    (tmp_path / "link.csv").symlink_to(one)
    for twice in ([one, one], [one, tmp_path / "." / "one.csv"], [tmp_path, one],
                  [one, tmp_path / "link.csv"]):
        with pytest.raises(InvalidInputError, match=r"is listed twice.*count twice"):
            stream_counts(twice, label="label", score="a")
    # Once, the counts are the file's (scikit-learn's AP of the four rows).
    from sklearn.metrics import average_precision_score
    once = stream_counts([one], label="label", score="a")
    ap = prcurve.PRCurve(once.counts).average_precision()
    assert ap == pytest.approx(average_precision_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]))
    for options in ([], ["--stream"]):
        assert main(["report", str(one), str(tmp_path / "link.csv"), *options]) == 2
        assert "is listed twice (also as" in _last_error(capsys.readouterr().err)
    (tmp_path / "link.csv").unlink()
    assert main(["report", str(tmp_path), str(one), "--stream"]) == 2
    assert "is listed twice (also inside the folder" in _last_error(capsys.readouterr().err)


@pytest.mark.parametrize("options", [[], ["--stream"], ["--stream", "--score", "a"]])
def test_zero_byte_and_header_only_files_alike(options: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    header = tmp_path / "header.csv"
    header.write_text("label,a\n")
    for path in (empty, header):
        assert main(["report", str(path), *options]) == 2
        line = _last_error(capsys.readouterr().err)
        assert f"INPUT: {str(path)!r} has no data" in line, line
        with pytest.raises(InvalidInputError, match="has no data"):
            stream_counts(path, label="label", score="a")


# -- prcurve coco reads .json.gz --------------------------------------------------------


def test_coco_reads_gzip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(4)
    plain = (tmp_path / "gt.json", tmp_path / "dt.json")
    plain[0].write_text(json.dumps(ground_truth))
    plain[1].write_text(json.dumps(results))
    packed = (tmp_path / "gt.json.gz", tmp_path / "dt.json.gz")
    for source, target in zip(plain, packed, strict=True):
        target.write_bytes(gzip.compress(source.read_bytes()))
    assert main(["coco", *map(str, plain)]) == 0
    expected = capsys.readouterr().out
    assert main(["coco", *map(str, packed)]) == 0
    assert capsys.readouterr().out == expected
    _, reference = pycocotools_eval(ground_truth, results)
    assert expected.splitlines() == summary_lines(reference)
    assert main(["voc", *map(str, packed)]) == 0
    capsys.readouterr()
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(packed[0].read_bytes()[:20])
    assert main(["coco", str(broken), str(packed[1])]) == 2
    assert "not a whole gzip file" in _last_error(capsys.readouterr().err)


# -- ranking from polars frames ---------------------------------------------------------


def _flat(values: dict[str, dict[str, Any]]) -> dict[tuple[str, str], Any]:
    return {(q, m): v for q, row in values.items() for m, v in row.items()}


def test_ranking_from_polars_frames() -> None:
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    queries = [f"q{k}" for k in range(12)]
    qrels_rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    run_rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    for q in queries:
        for d in range(8):
            qrels_rows["query_id"].append(q)
            qrels_rows["doc_id"].append(f"d{d}")
            qrels_rows["relevance"].append(int(RNG.integers(0, 3)))
            run_rows["query_id"].append(q)
            run_rows["doc_id"].append(f"d{d}")
            run_rows["score"].append(float(RNG.integers(0, 5)))  # ties
    measures = ["AP", "ndcg", "P@5", "RR"]
    expected = prcurve.evaluate_ranking(pd.DataFrame(qrels_rows), pd.DataFrame(run_rows),
                                        measures)
    as_dicts = prcurve.evaluate_ranking(
        {q: {d: g for qq, d, g in zip(*qrels_rows.values(), strict=True) if qq == q}
         for q in queries},
        {q: {d: s for qq, d, s in zip(*run_rows.values(), strict=True) if qq == q}
         for q in queries}, measures)
    for frames in ((pl.DataFrame(qrels_rows), pl.DataFrame(run_rows)),
                   (pl.DataFrame(qrels_rows).with_columns(pl.col("query_id", "doc_id").cast(
                       pl.Categorical)), pl.DataFrame(run_rows))):
        got = _flat(prcurve.evaluate_ranking(*frames, measures).to_dict())
        assert got == pytest.approx(_flat(expected.to_dict()), abs=1e-12)
        assert got == pytest.approx(_flat(as_dicts.to_dict()), abs=1e-12)
    qrels = prcurve.Qrels.from_frame(pl.DataFrame(qrels_rows))
    assert "12 queries" in repr(qrels)
    with pytest.raises(InvalidInputError, match="doc_id"):
        prcurve.Qrels.from_frame(pl.DataFrame({"query_id": ["q"], "doc_id": [None],
                                               "relevance": [1]}))


@pytest.mark.parametrize("options", [[], ["--stream"], ["--workers", "1"]])
def test_zero_byte_and_zero_row_parquet_alike(options: list[str], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    if "--workers" in options:
        pytest.importorskip("dask.distributed")
    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    rows0 = tmp_path / "rows0.parquet"
    pq.write_table(pa.table({"label": pa.array([], pa.int64()),
                             "score": pa.array([], pa.float64())}), rows0)
    for path in (empty, rows0):
        assert main(["report", str(path), *options]) == 2
        line = _last_error(capsys.readouterr().err)
        assert f"INPUT: {str(path)!r} has no data" in line, line


def test_dask_lists_of_files(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from prcurve.dask import pr_counts

    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"label": [1, 0, 1, 0], "score": [0.9, 0.8, 0.7, 0.1]}), path)
    with pytest.raises(InvalidInputError, match=r"^data: no file given"):
        pr_counts([], label="label", score="score", scheduler="sync")
    for twice in ([path, path], [tmp_path, path]):
        with pytest.raises(InvalidInputError, match=r"is listed twice"):
            pr_counts(twice, label="label", score="score", scheduler="sync")
    once = pr_counts([path], label="label", score="score", scheduler="sync")
    assert once.tp.tolist() == [1, 1, 2, 2]

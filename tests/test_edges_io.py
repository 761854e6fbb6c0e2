"""Issue 10, files, command line and outputs: every odd input the issue lists, and siblings.

Each test here failed before its fix. The command line runs in process
(``prcurve.cli.main``); an error must be exit 2 with one line on standard
error naming the file, the column and the row, never ``internal error`` and
never a traceback; the numbers of an accepted input are checked against the
library on the same data written as plain arrays.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve import ThresholdCounts, average_precision
from prcurve.cli import main
from prcurve.errors import InvalidInputError
from prcurve.io import load_scores
from prcurve.io.stream import stream_scores

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# -- helpers --------------------------------------------------------------------------------


def write(path: Path, columns: dict[str, list[Any]], fmt: str | None = None) -> Path:
    """Write ``columns`` to ``path`` in the format its name says (None is a missing value)."""
    fmt = fmt or path.suffix.lstrip(".")
    names = list(columns)
    n = len(columns[names[0]])
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        lines = [sep.join(names)]
        lines += [sep.join("" if columns[c][i] is None else str(columns[c][i]) for c in names)
                  for i in range(n)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({c: columns[c][i] for c in names}) + "\n"
                                for i in range(n)))
    elif fmt == "parquet":
        pq.write_table(pa.table({c: columns[c] for c in names}), path)
    elif fmt == "npz":
        np.savez(path, **{c: np.asarray(columns[c]) for c in names})
    else:
        raise ValueError(fmt)
    return path


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(err: str) -> str:
    """The one line an error must be: ``prcurve: error: ...``, no internal error."""
    lines = [line for line in err.splitlines() if line.startswith("prcurve: error:")]
    assert len(lines) == 1, err
    assert "internal error" not in err
    assert "Traceback" not in err
    return lines[0]


def has(line: str, *fragments: str) -> None:
    """Every fragment occurs in the line."""
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


TEXT_LABELS = ["a", "b", None, "b", "a"]
TEXT_SCORES = [0.9, 0.8, 0.7, 0.6, 0.5]


# -- item 1: a missing value in a text label column ------------------------------------------


def test_issue_example_missing_text_label_exits_2(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\na,0.9\nb,0.8\n,0.7\nb,0.6\na,0.5\n")
    code, out, err = cli(["report", str(path), "--positive", "a"], capsys)
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    has(line, "column 'label' of", "s.csv")
    assert "1 missing label(s) (row 3)" in line
    code, out, err = cli(["report", str(path), "--positive", "a", "--drop-invalid",
                          "--format", "json"], capsys)
    assert code == 0
    model = json.loads(out)["models"][0]
    assert model["rows"] == 4
    assert model["rows_dropped"] == 1
    assert model["dropped"] == {"label_missing": 1}
    assert model["positives"] == 2.0
    assert model["negatives"] == 2.0
    want = average_precision([1, 0, 0, 1], [0.9, 0.8, 0.6, 0.5])
    assert model["ap"]["value"] == pytest.approx(want, abs=1e-15)


def _dictionary_parquet(path: Path, labels: list[Any]) -> Path:
    array = pa.array(labels, pa.string()).dictionary_encode()
    pq.write_table(pa.table({"label": array, "score": TEXT_SCORES}), path)
    return path


def _categorical_parquet(path: Path, labels: list[Any]) -> Path:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"label": pd.Categorical(labels), "score": TEXT_SCORES})
    frame.to_parquet(path)
    return path


def _text_label_file(tmp_path: Path, kind: str, labels: list[Any]) -> Path:
    if kind == "parquet-dictionary":
        return _dictionary_parquet(tmp_path / "s.parquet", labels)
    if kind == "parquet-categorical":
        return _categorical_parquet(tmp_path / "s.parquet", labels)
    if kind == "csv-NA":
        labels = ["NA" if v is None else v for v in labels]
        return write(tmp_path / "s.csv", {"label": labels, "score": TEXT_SCORES})
    if kind == "csv-blank":
        labels = ["  " if v is None else v for v in labels]
        return write(tmp_path / "s.csv", {"label": labels, "score": TEXT_SCORES})
    if kind == "npz":
        labels = ["" if v is None else v for v in labels]
        return write(tmp_path / "s.npz", {"label": labels, "score": TEXT_SCORES})
    return write(tmp_path / f"s.{kind}", {"label": labels, "score": TEXT_SCORES})


KINDS = ["csv", "tsv", "csv-NA", "csv-blank", "jsonl", "parquet", "parquet-dictionary",
         "parquet-categorical", "npz"]
STREAM_KINDS = [k for k in KINDS if k != "npz"]


@pytest.mark.parametrize("kind", KINDS)
def test_missing_text_label_refused_in_memory(tmp_path: Path, kind: str) -> None:
    path = _text_label_file(tmp_path, kind, TEXT_LABELS)
    with pytest.raises(InvalidInputError, match=r"column 'label' of .*s\.\w+' has 1 missing "
                       r"label\(s\) \(row 3\)"):
        load_scores(path, positive="a")
    loaded = load_scores(path, positive="a", drop_invalid=True)
    model = loaded.models[0]
    assert model.rows_dropped == 1
    assert model.dropped == {"label_missing": 1}
    assert model.positive.tolist() == [True, False, False, True]


@pytest.mark.parametrize("kind", STREAM_KINDS)
def test_missing_text_label_refused_when_streamed(tmp_path: Path, kind: str) -> None:
    path = _text_label_file(tmp_path, kind, TEXT_LABELS)
    with pytest.raises(InvalidInputError, match=r"1 missing label\(s\) \(row 3\)"):
        stream_scores(path, positive="a", batch_rows=2)
    streamed = stream_scores(path, positive="a", batch_rows=2, drop_invalid=True)
    model = streamed.models[0]
    assert model.rows == 4
    assert model.rows_dropped == 1
    assert model.dropped == {"label_missing": 1}
    want = ThresholdCounts.from_scores([1, 0, 0, 1], [0.9, 0.8, 0.6, 0.5])
    np.testing.assert_array_equal(model.counts.tp, want.tp)
    np.testing.assert_array_equal(model.counts.fp, want.fp)


def test_text_label_of_a_lone_space_is_missing(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _text_label_file(tmp_path, "csv-blank", TEXT_LABELS)
    code, _, err = cli(["report", str(path), "--positive", "a", "--stream"], capsys)
    assert code == 2
    assert "1 missing label(s) (row 3)" in one_error_line(err)


# -- item 7: the label column scored, object labels holding 0 and 1 ---------------------------


@pytest.mark.parametrize("argv", [
    ["--score", "label"],
    ["--score", "a", "--weight", "label"],
    ["--score", "a", "--weight", "a"],
    ["--score", "a", "--score", "a"],
    ["--label", "a", "--score", "a"],
])
@pytest.mark.parametrize("stream", [False, True])
def test_a_column_in_two_roles_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], stream: bool) -> None:
    path = write(tmp_path / "s.csv", {"label": [1, 0, 1, 0], "a": [0.9, 0.8, 0.7, 0.1]})
    code, out, err = cli(["report", str(path), *argv, *(["--stream"] if stream else [])], capsys)
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    assert "'label'" in line or "'a'" in line
    assert "twice" in line or "both" in line or "also given" in line


@pytest.mark.parametrize("kind", ["jsonl-strings", "jsonl-mixed", "parquet", "npz"])
def test_labels_0_and_1_held_as_text_are_binary(tmp_path: Path, kind: str) -> None:
    y = [1, 0, 1, 0, 0, 1]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    if kind == "jsonl-strings":
        path = write(tmp_path / "s.jsonl", {"label": [str(v) for v in y], "score": s})
    elif kind == "jsonl-mixed":  # pyarrow refuses mixed types; Python's json reads objects
        path = write(tmp_path / "s.jsonl", {"label": [1, "0", 1, 0, "0", "1"], "score": s})
    elif kind == "parquet":
        path = write(tmp_path / "s.parquet", {"label": [str(v) for v in y], "score": s})
    else:
        path = write(tmp_path / "s.npz", {"label": [str(v) for v in y], "score": s})
    loaded = load_scores(path)
    assert loaded.models[0].positive.tolist() == [bool(v) for v in y]
    assert loaded.positive_label == 1
    if kind == "jsonl-mixed":  # pyarrow reads a key of one type in batches: said clearly
        with pytest.raises(InvalidInputError, match=r"holds the string \"0\" at line 2, where "
                           r"the values before it are numbers \(from line 1\)\. Fix that value, "
                           r"or read the file without --stream"):
            stream_scores(path, batch_rows=2)
    elif kind != "npz":
        streamed = stream_scores(path, batch_rows=2)
        want = ThresholdCounts.from_scores(y, s)
        np.testing.assert_array_equal(streamed.models[0].counts.tp, want.tp)
        np.testing.assert_array_equal(streamed.models[0].counts.fp, want.fp)


# -- item 8: duplicate column names -----------------------------------------------------------


def _duplicate_file(tmp_path: Path, fmt: str) -> Path:
    if fmt in ("csv", "tsv", "csv.gz"):
        sep = "\t" if fmt == "tsv" else ","
        text = sep.join(["label", "score", "score"]) + "\n"
        text += "".join(sep.join(r) + "\n" for r in [["1", "0.9", "0.1"], ["0", "0.2", "0.3"]])
        path = tmp_path / f"d.{fmt}"
        if fmt == "csv.gz":
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_text(text)
        return path
    if fmt == "jsonl":
        path = tmp_path / "d.jsonl"
        path.write_text('{"label": 1, "score": 0.9, "score": 0.1}\n'
                        '{"label": 0, "score": 0.2, "score": 0.3}\n')
        return path
    path = tmp_path / "d.parquet"
    table = pa.table([pa.array([1, 0]), pa.array([0.9, 0.2]), pa.array([0.1, 0.3])],
                     names=["label", "score", "score"])
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("fmt", ["csv", "tsv", "csv.gz", "jsonl", "parquet"])
@pytest.mark.parametrize("stream", [False, True])
def test_duplicate_column_names_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            fmt: str, stream: bool) -> None:
    path = _duplicate_file(tmp_path, fmt)
    code, out, err = cli(["report", str(path), *(["--stream"] if stream else [])], capsys)
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    assert "'score'" in line
    assert "more than one column named 'score'" in line


# -- item 5, CLI side: weights that sum to zero -----------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("weights", "fragment"), [
    ([0, 0, 0, 0], "sum to 0"),
    ([0, 1, 0, 1], "positive"),  # every positive row has weight 0
])
def test_weights_summing_to_zero_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             stream: bool, weights: list[int],
                                             fragment: str) -> None:
    path = write(tmp_path / "w.csv", {"label": [1, 0, 1, 0], "a": [0.9, 0.8, 0.7, 0.1],
                                      "w": weights})
    code, out, err = cli(["report", str(path), "--score", "a", "--weight", "w",
                          *(["--stream"] if stream else [])], capsys)
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    has(line, "--weight", "'w'", fragment)


# -- item 12: what reached the user as an internal error ---------------------------------------


def test_non_utf8_byte_in_a_csv_label_column(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "u.csv"
    path.write_bytes(b"label,score\nb,0.8\n\xff\xfea,0.9\na,0.7\n")
    for extra in ([], ["--stream"]):
        code, _, err = cli(["report", str(path), "--positive", "a", *extra], capsys)
        assert code == 2
        line = one_error_line(err)
        has(line, "'label'", "UTF-8", "row 2")


def test_non_utf8_csv_gz_streamed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.csv.gz"
    path.write_bytes(gzip.compress(b"label,score\n1,0.9\n0,0.\xff5\n1,0.3\n"))
    for extra in ([], ["--stream"]):
        code, _, err = cli(["report", str(path), "--score", "score", *extra], capsys)
        assert code == 2
        line = one_error_line(err)
        has(line, "'score'", "row 2")


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04broken", b"\x93NUMPY not really",
                                     b"label,score\n1,0.5\n"])
def test_empty_or_broken_npz(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             content: bytes) -> None:
    path = tmp_path / "e.npz"
    path.write_bytes(content)
    code, _, err = cli(["report", str(path)], capsys)
    assert code == 2
    line = one_error_line(err)
    if content:
        has(line, "e.npz", "as npz")
    else:  # 0 bytes: no data, in every format alike (issue 25)
        has(line, "e.npz' has no data (an empty file)")


def test_npz_holding_one_array_not_an_archive(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(3.0))
    code, _, err = cli(["report", str(path), "--input-format", "npz"], capsys)
    assert code == 2
    assert "a.npy" in one_error_line(err)


@pytest.mark.parametrize(("column", "value"), [
    ("score", [1, 2]), ("score", {"a": 1}), ("label", [1]), ("label", {"x": 0}),
])
@pytest.mark.parametrize("stream", [False, True])
def test_lists_and_objects_in_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         column: str, value: Any, stream: bool) -> None:
    rows = [{"label": 1, "score": 0.9}, {"label": 0, "score": 0.5}, {"label": 1, "score": 0.2}]
    rows[1][column] = value
    path = tmp_path / "l.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = cli(["report", str(path), "--score", "score",
                        *(["--stream"] if stream else [])], capsys)
    assert code == 2
    line = one_error_line(err)
    has(line, f"'{column}'")
    assert "row 2" in line or "line 2" in line, line
    assert "per row is expected" in line or "non-numeric score(s)" in line


def test_every_row_a_list_in_json_lines(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text('{"label": [1, 0], "score": 0.5}\n{"label": [0, 1], "score": 0.2}\n')
    code, _, err = cli(["report", str(path), "--score", "score"], capsys)
    assert code == 2
    assert "'label'" in one_error_line(err)


@pytest.mark.parametrize("text", ['{"label": 1, "score": 0.3}\n{"label": 0, "score":\n',
                                  '{"label": 1, "score": 0.3}\n[1, 2]\n',
                                  '{"label": 1, "score": 0.3}\nnot json\n'])
def test_invalid_json_lines_streamed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     text: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    for extra in ([], ["--stream"]):
        code, _, err = cli(["report", str(path), *extra], capsys)
        assert code == 2
        line = one_error_line(err)
        has(line, "bad.jsonl", "line 2")


def test_huge_integers_in_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text('{"label": 1, "score": 100000000000000000000000}\n'
                    '{"label": 0, "score": "x"}\n{"label": 0, "score": 3}\n')
    code, _, err = cli(["report", str(path), "--score", "score"], capsys)
    assert code == 2
    assert "1 non-numeric score(s) (row 2)" in one_error_line(err)


def test_unsigned_64_bit_scores_keep_their_order(tmp_path: Path) -> None:
    # Unsigned scores above 2^63 are never wrapped to negative values. Those float64
    # holds are kept; since issue 25 those it would round (2^64 - 1) are refused, not
    # rounded (they could tie: tests/test_edges_limits.py).
    big = 2**64 - 2**11  # the largest uint64 that float64 holds
    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"label": [1, 0, 1],
                             "score": pa.array([big, 5, big - 2**20], pa.uint64())}), path)
    model = load_scores(path).models[0]
    assert model.scores.tolist() == [float(big), 5.0, float(big - 2**20)]
    pq.write_table(pa.table({"label": [1, 0, 1],
                             "score": pa.array([2**64 - 1, 5, 1], pa.uint64())}), path)
    with pytest.raises(InvalidInputError, match="18446744073709551615, which float64 rounds"):
        load_scores(path)


# -- items 10 and 11: never write into or over an input ----------------------------------------


def _scores_csv(path: Path) -> Path:
    return write(path, {"label": [1, 0, 1, 0], "score": [0.9, 0.8, 0.7, 0.1]})


def test_out_holding_the_input_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "o"
    folder.mkdir()
    data = _scores_csv(folder / "curve_score.csv")
    before = digest(data)
    code, out, err = cli(["report", str(data), "--out", str(folder)], capsys)
    assert code == 2
    assert out == ""
    assert "--out" in one_error_line(err)
    assert digest(data) == before
    assert sorted(p.name for p in folder.iterdir()) == ["curve_score.csv"]


@pytest.mark.parametrize("where", ["same", "inside"])
def test_out_that_is_or_is_inside_an_input_folder(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  where: str) -> None:
    folder = tmp_path / "i"
    folder.mkdir()
    _scores_csv(folder / "part.csv")
    out = folder if where == "same" else folder / "sub"
    code, _, err = cli(["report", str(folder), "--out", str(out)], capsys)
    assert code == 2
    assert "--out" in one_error_line(err)
    assert sorted(p.name for p in folder.iterdir()) == ["part.csv"]
    assert cli(["report", str(folder)], capsys)[0] == 0  # the input still reads


def test_out_reached_through_a_link_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "i"
    folder.mkdir()
    data = _scores_csv(folder / "curve_score.csv")
    link = tmp_path / "link"
    link.symlink_to(folder, target_is_directory=True)
    code, _, err = cli(["report", str(data), "--out", str(link)], capsys)
    assert code == 2
    assert "--out" in one_error_line(err)


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_never_writes_through_a_link_onto_an_input(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   how: str) -> None:
    data = _scores_csv(tmp_path / "scores.csv")
    before = digest(data)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "curve_score.csv"
    if how == "symlink":
        target.symlink_to(data)
    else:
        os.link(data, target)
    code, _, err = cli(["report", str(data), "--out", str(out)], capsys)
    assert code == 2
    assert "--out" in one_error_line(err)
    assert digest(data) == before


def test_report_write_creates_the_folder(tmp_path: Path) -> None:
    from prcurve.present.report_build import evaluate

    report = evaluate({"m": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])})
    written = report.write(tmp_path / "new" / "out", plots=False)
    assert [p.name for p in written] == ["curve_m.csv", "report.json"]
    assert all(p.is_file() for p in written)


def test_report_write_refuses_to_replace_an_input(tmp_path: Path) -> None:
    from prcurve.present.report import ReportSettings
    from prcurve.present.report_build import build_report

    data = _scores_csv(tmp_path / "curve_score.csv")
    before = digest(data)
    report = build_report([load_scores(data)], ReportSettings())
    with pytest.raises(InvalidInputError, match="--out"):
        report.write(tmp_path, plots=False)
    assert digest(data) == before


# -- smaller items ------------------------------------------------------------------------------


@pytest.mark.parametrize("gate", ["ap=1.5", "aucpr=-0.1", "best_f=2", "ap_11point=1.0001"])
def test_fail_under_outside_the_metric_range(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             gate: str) -> None:
    path = _scores_csv(tmp_path / "s.csv")
    code, out, err = cli(["report", str(path), "--fail-under", gate], capsys)
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    has(line, "--fail-under", "[0, 1]")


def test_fail_under_at_the_ends_of_the_range(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = _scores_csv(tmp_path / "s.csv")
    assert cli(["report", str(path), "--fail-under", "ap=0"], capsys)[0] == 0
    assert cli(["report", str(path), "--fail-under", "ap=1"], capsys)[0] == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from prcurve import __version__

    code, out, err = cli(["--version"], capsys)
    assert code == 0
    assert out == f"prcurve {__version__}\n"
    assert err == ""


def test_demo_says_how_the_label_was_chosen(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["demo", "--out", str(tmp_path / "d"), "--no-plots"], capsys)
    assert code == 0
    assert "--label" not in out
    inputs = [line for line in out.splitlines() if line.startswith("input ")]
    assert len(inputs) == 2
    assert all("label 'label' (found automatically)" in line for line in inputs)


def test_files_are_byte_identical_across_runs(tmp_path: Path) -> None:
    # Two runs of the command (two processes, as a user reruns it): every file the same
    # bytes, the pictures and the interactive report.html included.
    import subprocess
    import sys

    path = _scores_csv(tmp_path / "s.csv")
    hashes = []
    for run in range(2):
        out = tmp_path / f"o{run}"
        done = subprocess.run([sys.executable, "-m", "prcurve", "report", str(path), "--out",
                               str(out)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        hashes.append({p.name: digest(p) for p in sorted(out.iterdir())})
        if run == 0:
            time.sleep(1.1)  # a timestamp with one-second resolution would change
    assert "report.html" in hashes[0]
    assert hashes[0] == hashes[1]
    svg = (tmp_path / "o0" / "pr_curve.svg").read_text()
    assert "<dc:date>" not in svg
    page = (tmp_path / "o0" / "report.html").read_text()
    assert 'id="prcurve-0"' in page  # Bokeh's random ids replaced by fixed ones


# -- Dask: item 4 (ranking) and the file rules on a cluster -------------------------------------


def test_dask_ranking_with_a_partition_of_unjudged_queries() -> None:
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from prcurve.dask import evaluate_ranking
    from prcurve.ranking import evaluate

    run = pd.DataFrame({"query_id": ["q1", "q1"] + [f"u{i}" for i in range(40)],
                        "doc_id": ["a", "b"] + ["x"] * 40,
                        "score": [0.9, 0.8] + [0.5] * 40})
    qrels = {"q1": {"a": 1}}
    frame = dd.from_pandas(run, npartitions=8)
    got = evaluate_ranking(qrels, frame, ["AP", "P@2"], scheduler="sync")
    want = evaluate(qrels, run, ["AP", "P@2"])
    assert got.query_ids.tolist() == want.query_ids.tolist() == ["q1"]
    assert got.summary == want.summary
    assert got["AP"] == 1.0
    with pytest.raises(InvalidInputError, match="no query has both results"):
        evaluate_ranking({"zz": {"a": 1}}, frame, ["AP"], scheduler="sync")


def test_dask_unreachable_scheduler_fails_fast(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    path = write(tmp_path / "s.parquet", {"label": [1, 0], "score": [0.5, 0.2]})
    start = time.perf_counter()
    code, out, err = cli(["report", str(path), "--dask", "tcp://127.0.0.1:1"], capsys)
    elapsed = time.perf_counter() - start
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    has(line, "--dask", "tcp://127.0.0.1:1")
    assert elapsed < 15


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _row_groups(path: Path, columns: dict[str, Any], size: int = 2) -> Path:
    pq.write_table(pa.table(columns), path, row_group_size=size)
    return path


def test_dask_null_score_names_column_file_and_row(tmp_path: Path, scheduler: str,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    _row_groups(folder / "a.parquet", {"label": [1, 0, 1, 0, 1, 0],
                                       "score": [0.9, 0.1, 0.7, 0.6, 0.5, 0.4]})
    _row_groups(folder / "b.parquet", {"label": [1, 0, 1, 0, 1, 0],
                                       "score": [0.9, 0.1, 0.7, 0.6, None, 0.4]})
    code = main(["report", str(folder), "--dask", scheduler])
    out, err = capfd.readouterr()
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    has(line, "column 'score'", "b.parquet", "(row 5)")
    assert "distributed" not in err
    assert "Compute Failed" not in err


@pytest.mark.parametrize("kind", ["parquet", "parquet-dictionary", "parquet-categorical"])
def test_dask_missing_text_label(tmp_path: Path, scheduler: str,
                                 capfd: pytest.CaptureFixture[str], kind: str) -> None:
    path = _text_label_file(tmp_path, kind, TEXT_LABELS)
    code = main(["report", str(path), "--dask", scheduler, "--positive", "a"])
    err = capfd.readouterr().err
    assert code == 2
    line = one_error_line(err)
    has(line, "1 missing label(s) (row 3)", "s.parquet")
    assert "Compute Failed" not in err


def test_dask_labels_checked_across_partitions(tmp_path: Path, scheduler: str,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    # One partition in {0, 1}, another in {-1, 1}: not one labelling (as --stream says).
    folder = tmp_path / "m"
    folder.mkdir()
    _row_groups(folder / "a.parquet", {"label": [1, 0], "score": [0.9, 0.8]})
    _row_groups(folder / "b.parquet", {"label": [1, -1], "score": [0.7, 0.6]})
    code = main(["report", str(folder), "--dask", scheduler])
    _, err = capfd.readouterr()
    assert code == 2
    assert "both 0 and -1" in one_error_line(err)


def test_dask_zero_weights_and_text_labels(tmp_path: Path, scheduler: str,
                                           capfd: pytest.CaptureFixture[str]) -> None:
    path = _row_groups(tmp_path / "w.parquet", {"label": ["a", "b", "a", "b"],
                                                "score": [0.9, 0.8, 0.7, 0.6],
                                                "w": [0.0, 0.0, 0.0, 0.0]})
    code = main(["report", str(path), "--dask", scheduler, "--positive", "a", "--weight", "w",
                 "--score", "score"])
    _, err = capfd.readouterr()
    assert code == 2
    assert "sum to 0" in one_error_line(err)
    code = main(["report", str(path), "--dask", scheduler, "--positive", "a", "--score",
                 "score", "--format", "json"])
    out, err = capfd.readouterr()
    assert code == 0, err
    model = json.loads(out)["models"][0]
    assert model["ap"]["value"] == average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])


def test_dask_duplicate_and_twice_used_columns(tmp_path: Path, scheduler: str,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    path = _duplicate_file(tmp_path, "parquet")
    assert main(["report", str(path), "--dask", scheduler]) == 2
    assert "'score'" in one_error_line(capfd.readouterr().err)
    path = _row_groups(tmp_path / "s.parquet", {"label": [1, 0], "score": [0.5, 0.2]})
    assert main(["report", str(path), "--dask", scheduler, "--score", "label"]) == 2
    assert "'label'" in one_error_line(capfd.readouterr().err)


# -- found by the long fuzz run (tests/test_fuzz.py) -------------------------------------------


NULL_FIRST = """
import contextlib, io, json, sys
from prcurve.cli import main
seen = []
for path in sys.argv[1:]:
    for extra in ([], ["--stream"]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(["report", path, *extra])
        seen.append([path, extra, code, err.getvalue()])
print(json.dumps(seen))
"""


def test_json_lines_starting_with_null_does_not_crash(tmp_path: Path) -> None:
    # pyarrow 26's JSON reader kills the process (a segmentation fault) on such a file:
    # run in a child process, so that a crash is a failure here and not of the suite.
    # One child reads both files, in memory and streamed (a crash in any of the four
    # runs is its non-zero exit status); each run's exit status and line are checked.
    import subprocess
    import sys

    paths = []
    for i, text in enumerate([b"null\n{\"label\": 1, \"s\": 0.5}\n",
                              b"\n  \nnull\n{\"label\": 1, \"s\": 0.5}\n"]):
        path = tmp_path / f"n{i}" / "n.jsonl"
        path.parent.mkdir()
        path.write_bytes(text)
        paths.append(str(path))
    done = subprocess.run([sys.executable, "-c", NULL_FIRST, *paths],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert [(path, extra) for path, extra, _, _ in seen] == [
        (path, extra) for path in paths for extra in ([], ["--stream"])]
    for _, _, code, err in seen:
        assert code == 2, err
        has(one_error_line(err), "n.jsonl", "expected a JSON object {...}, found null")


def test_json_lines_list_of_null_and_text(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # pyarrow builds a list<string> column it cannot read back (SystemError): nested
    # values are never read, only named.
    path = tmp_path / "n.jsonl"
    path.write_text('{"label": [null, "NA"], "s": 0.5}\n{"label": 1, "s": 0.2}\n')
    code, _, err = cli(["report", str(path), "--score", "s"], capsys)
    assert code == 2
    has(one_error_line(err), "'label'", "list value(s) (row 1)")


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".csv.gz"])
def test_broken_compressed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                suffix: str) -> None:
    path = tmp_path / f"z{suffix}"
    path.write_bytes(b"\x00")
    for extra in ([], ["--stream"]):
        code, _, err = cli(["report", str(path), *extra], capsys)
        assert code == 2
        has(one_error_line(err), f"z{suffix}")


# -- found by trying odd inputs by hand (docs/reliability.md) --------------------------------


def test_weight_column_that_is_the_label(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _scores_csv(tmp_path / "s.csv")
    for extra in ([], ["--stream"]):
        code, out, err = cli(["report", str(path), "--weight", "label", *extra], capsys)
        assert code == 2
        assert out == ""
        has(one_error_line(err), "--weight", "'label' is the label column")


def test_two_label_columns_are_not_guessed(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # Before: 'label' was taken and 'y' scored as a model, silently.
    path = write(tmp_path / "s.csv", {"y": [0, 1, 0, 1], "label": [1, 0, 1, 0],
                                      "score": [0.9, 0.8, 0.7, 0.1]})
    for extra in ([], ["--stream"]):
        code, _, err = cli(["report", str(path), *extra], capsys)
        assert code == 2
        has(one_error_line(err), "more than one of the usual label columns", "'y'", "'label'")
    code, out, _ = cli(["report", str(path), "--label", "label", "--score", "score",
                        "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out)["models"][0]["ap"]["value"] == average_precision(
        [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])


@pytest.mark.parametrize("option", ["--bins", "--switch-bins"])
def test_bins_beyond_memory_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        option: str) -> None:
    path = _scores_csv(tmp_path / "s.csv")
    code, _, err = cli(["report", str(path), "--stream", option, "99999999999999999999"],
                       capsys)
    assert code == 2
    has(one_error_line(err), option, "an integer from 1 to 67108864")


@pytest.mark.parametrize("stream", [False, True])
def test_every_positive_row_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   stream: bool) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\n1,inf\n0,0.1\n0,0.3\n")
    code, _, err = cli(["report", str(path), "--drop-invalid", "--bins", "3",
                        *(["--stream"] if stream else [])], capsys)
    assert code == 2
    has(one_error_line(err), "--drop-invalid", "every positive row", "'score'")


def test_latin1_text_label_in_json_lines(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "l.jsonl"
    path.write_bytes(b'{"label": "\xe9", "score": 0.9}\n{"label": "a", "score": 0.1}\n')
    code, _, err = cli(["report", str(path), "--positive", "a"], capsys)
    assert code == 2
    has(one_error_line(err), "'label'", "not UTF-8 text (row 1")


def test_streamed_positive_not_found_lists_the_values(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "s.csv", {"label": ["cat", "dog"], "score": [0.9, 0.1]})
    code, _, err = cli(["report", str(path), "--positive", "bird", "--stream"], capsys)
    assert code == 2
    has(one_error_line(err), "'bird' does not occur", "{'cat', 'dog'}")


@pytest.mark.parametrize("bins", [None, "4"])
def test_dask_drop_invalid_equals_in_memory(tmp_path: Path, scheduler: str,
                                            capfd: pytest.CaptureFixture[str],
                                            bins: str | None) -> None:
    # The advice of the Dask error ("pass --drop-invalid") works there, as in memory.
    folder = tmp_path / "d"
    folder.mkdir()
    labels = [["a", "b", None, "b", "a", "b"], ["b", "a", "a", None, "b", "a"]]
    scores = [[0.9, 0.8, 0.7, None, 0.5, 0.4], [0.35, float("inf"), 0.3, 0.2, 0.1, 0.05]]
    for name, y, s in zip("ab", labels, scores, strict=True):
        _row_groups(folder / f"{name}.parquet", {"label": y, "s": s, "t": [1.0] * 6})
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"label": labels[0] + labels[1], "s": scores[0] + scores[1],
                             "t": [1.0] * 12}), whole)
    argv = ["--positive", "a", "--drop-invalid", "--format", "json",
            *(["--bins", bins] if bins else [])]
    assert main(["report", str(whole), *argv]) == 0
    want = json.loads(capfd.readouterr().out)["models"]
    assert main(["report", str(folder), "--dask", scheduler, *argv]) == 0
    got = json.loads(capfd.readouterr().out)["models"]
    for g, w in zip(got, want, strict=True):
        assert g["name"] == w["name"]
        for key in ("rows", "rows_dropped", "dropped", "positives", "negatives", "ap",
                    "average_precision", "best_f"):
            assert g[key] == w[key], key
    assert got[0]["dropped"] == {"label_missing": 2, "score_missing_or_nan": 1,
                                 "score_infinite": 1}
    assert got[1]["rows_dropped"] == 2


@pytest.mark.parametrize("stream", [False, True])
def test_header_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 stream: bool) -> None:
    # Found by the long fuzz run: streamed, an internal UnicodeDecodeError.
    path = tmp_path / "h.csv.gz"
    path.write_bytes(gzip.compress(b"lab\xe9l,score\n1,0.5\n0,0.1\n"))
    code, _, err = cli(["report", str(path), *(["--stream"] if stream else [])], capsys)
    assert code == 2
    has(one_error_line(err), "h.csv.gz", "a column name is not UTF-8 text")


LABEL_VALUES = st.sampled_from([None, "", " ", "a", "b", "0", "1", "-1", "NA", 0, 1, -1, 2, 1.0,
                                0.5, float("nan"), True, False, b"a", b"\xff", b"1"])


@settings(max_examples=200, deadline=None)
@given(values=st.lists(LABEL_VALUES, min_size=1, max_size=12))
def test_label_encoding_equals_reading_each_row(values: list[Any]) -> None:
    # normalize_labels looks at each distinct value once; reading row by row must agree.
    from prcurve.io.label_rows import _normalize
    from prcurve.io.readers import object_array
    from prcurve.io.rows import RowProblem, normalize_labels

    array = object_array(values)

    def outcome(read: Any) -> Any:
        try:
            normal, missing = read()
        except RowProblem as problem:
            return ("problem", problem.kind, problem.rows, problem.counts)
        return (normal.dtype.kind, normal.tolist(), missing.tolist())

    assert outcome(lambda: normalize_labels(array, "label")) == outcome(
        lambda: _normalize(array, "label", lambda bad: bad))


# -- added after merging issue 12 (report.html) and issue 13 (coco, voc) ------------------------


@pytest.mark.parametrize("name", ["report.html", "pr_curve.svg", "threshold.png"])
def test_no_picture_or_page_is_written_through_a_link(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      name: str) -> None:
    # Every file --out writes, the interactive page included, is checked against the inputs.
    data = _scores_csv(tmp_path / "scores.csv")
    before = digest(data)
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(data)
    code, _, err = cli(["report", str(data), "--out", str(out), "--ci", "none"], capsys)
    assert code == 2
    has(one_error_line(err), "--out", name, "would replace the input")
    assert digest(data) == before
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing written first


def _detection_files(tmp_path: Path) -> tuple[Path, Path]:
    gt = {"images": [{"id": 1, "width": 20, "height": 20}],
          "categories": [{"id": 1, "name": "cat"}],
          "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10],
                           "area": 100, "iscrowd": 0}]}
    dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(gt))
    dt_path.write_text(json.dumps(dt))
    return gt_path, dt_path


@pytest.mark.parametrize("command", ["coco", "voc"])
def test_detection_out_never_touches_an_input(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              command: str) -> None:
    gt, dt = _detection_files(tmp_path)
    before = digest(gt), digest(dt)
    # The folder holding the inputs, and a folder inside an input's folder given as a file.
    code, out, err = cli([command, str(gt), str(dt), "--out", str(tmp_path), "--no-plots"],
                         capsys)
    assert (code, out) == (2, "")
    has(one_error_line(err), "--out", "holds the input")
    # A link in the output folder onto an input: refused, the input untouched.
    folder = tmp_path / "o"
    folder.mkdir()
    (folder / "report.json").symlink_to(gt)
    code, out, err = cli([command, str(gt), str(dt), "--out", str(folder), "--no-plots"],
                         capsys)
    assert (code, out) == (2, "")
    has(one_error_line(err), "report.json", "would replace the input")
    assert (digest(gt), digest(dt)) == before
    # A new folder is created and written through renamed files: no temporary left.
    code, _, err = cli([command, str(gt), str(dt), "--out", str(tmp_path / "n" / "m"),
                        "--no-plots"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "n" / "m").iterdir()) == ["per_class.csv",
                                                                       "report.json"]


def test_object_labels_holding_0_and_1_are_binary(tmp_path: Path) -> None:
    # Python ints, NumPy ints and floats 0/1 in one object column: numbers, not text.
    from prcurve.io.readers import object_array
    from prcurve.io.rows import normalize_labels

    values = object_array([1, 0, np.int64(1), np.int64(0), 1.0, 0.0, np.uint8(1)])
    normal, missing = normalize_labels(values, "label")
    assert normal.dtype.kind in "iuf"
    assert normal.tolist() == [1, 0, 1, 0, 1, 0, 1]
    assert not missing.any()
    # Read through a file whose label key holds numbers and text (Python's json, objects).
    path = write(tmp_path / "s.jsonl", {"label": [1, "0", 1.0, 0, "0", "1"],
                                        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
    loaded = load_scores(path)
    assert loaded.models[0].positive.tolist() == [True, False, True, False, False, True]


def test_dask_pos_label_is_checked_on_the_whole() -> None:
    # A partition holding only negatives is fine; pos_label absent from the whole follows
    # the library's one rule, as in memory.
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from prcurve.dask import pr_counts

    y = ["p", "n", "n", "n", "m", "n", "n", "p"]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
    frame = pd.DataFrame({"y": y, "s": s})
    parts = dd.from_pandas(frame, npartitions=4, sort=False)
    assert [list(p) for p in (parts.get_partition(i).compute().y for i in range(4))] == [
        ["p", "n"], ["n", "n"], ["m", "n"], ["n", "p"]]
    got = pr_counts(parts, label="y", score="s", pos_label="p", scheduler="sync")
    want = ThresholdCounts.from_scores(y, s, pos_label="p")
    np.testing.assert_array_equal(got.tp, want.tp)
    np.testing.assert_array_equal(got.fp, want.fp)
    # Absent from the whole, among several values: the in-memory error, about the column.
    with pytest.raises(InvalidInputError, match=r"'q' does not occur in y, whose values"):
        pr_counts(parts, label="y", score="s", pos_label="q", scheduler="sync")
    with pytest.raises(InvalidInputError, match=r"'q' does not occur"):
        ThresholdCounts.from_scores(y, s, pos_label="q")
    # One value only (a set with no positives): the undefined-value policy, as in memory.
    alone = pd.DataFrame({"y": ["n"] * 4, "s": s[:4]})
    got = pr_counts(dd.from_pandas(alone, npartitions=2), label="y", score="s",
                    pos_label="q", scheduler="sync")
    want = ThresholdCounts.from_scores(["n"] * 4, s[:4], pos_label="q")
    assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg) == (0.0, 4.0)
    # A number for text labels: refused even when spread over partitions.
    with pytest.raises(InvalidInputError, match="is a number, but y holds text"):
        pr_counts(parts, label="y", score="s", pos_label=1, scheduler="sync")


def test_dask_cli_partition_without_positives(tmp_path: Path, scheduler: str,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    _row_groups(folder / "a.parquet", {"label": ["a", "b", "b", "b"],
                                       "score": [0.9, 0.8, 0.7, 0.6]})
    _row_groups(folder / "b.parquet", {"label": ["b", "b", "b", "a"],
                                       "score": [0.5, 0.4, 0.3, 0.2]})
    code = main(["report", str(folder), "--dask", scheduler, "--positive", "a", "--format",
                 "json", "--ci", "none"])
    out, err = capfd.readouterr()
    assert code == 0, err
    model = json.loads(out)["models"][0]
    want = average_precision([1, 0, 0, 0, 0, 0, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    assert model["ap"]["value"] == pytest.approx(want, abs=1e-15)
    code = main(["report", str(folder), "--dask", scheduler, "--positive", "z"])
    _, err = capfd.readouterr()
    assert code == 2
    has(one_error_line(err), "'z'")

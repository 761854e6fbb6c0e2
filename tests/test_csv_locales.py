"""CSV from other locales (docs/cli.md): ``--delimiter`` (sniffed when not given),
``--decimal ,``, and the message for numbers written with a decimal comma, on every path
that reads CSV: the library's readers, ``prcurve report`` in memory and ``--stream``.

The independent references: Python's ``float`` of each number's text written with a
point, and scikit-learn's ``average_precision_score`` of those numbers.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score
from tests.strategies import FAST

from prcurve.cli import main
from prcurve.errors import InvalidInputError
from prcurve.io import load_scores, read_table
from prcurve.io.text import sniff_delimiter
from prcurve.stream import stream_counts

RNG = np.random.default_rng(25)
N = 400
Y = (RNG.random(N) < 0.3).astype(int)
SCORE = np.round(RNG.normal(size=N) + Y, 3)  # ties, negatives
OTHER = RNG.random(N) * 10.0 ** RNG.integers(-6, 6, N)  # small and large numbers, exponents


def _texts(values: np.ndarray) -> list[str]:
    return [repr(float(v)) for v in values]


def _write(path: Path, delimiter: str, decimal: str, *, compress: bool = False) -> Path:
    rows = ["label" + delimiter + "score" + delimiter + "other"]
    for y, s, o in zip(Y, _texts(SCORE), _texts(OTHER), strict=True):
        rows.append(delimiter.join([str(y), s.replace(".", decimal), o.replace(".", decimal)]))
    data = ("\n".join(rows) + "\n").encode()
    if compress:
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {"dot": _write(tmp_path / "dot.csv", ",", "."),
            "semicolon": _write(tmp_path / "comma.csv", ";", ","),
            "tab": _write(tmp_path / "tab.csv", "\t", ","),
            "gz": _write(tmp_path / "comma.csv.gz", ";", ",", compress=True)}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("prcurve: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# -- the same numbers from every locale ----------------------------------------------------


def test_decimal_commas_read_to_the_same_numbers(files: dict[str, Path]) -> None:
    reference = {"score": [float(t) for t in _texts(SCORE)],
                 "other": [float(t) for t in _texts(OTHER)]}
    dot = read_table(files["dot"]).columns
    for name in ("semicolon", "tab", "gz"):
        table = read_table(files[name], decimal=",").columns  # the delimiter sniffed
        for column, want in reference.items():
            assert table[column].dtype == np.float64
            assert table[column].tolist() == want
            np.testing.assert_array_equal(table[column], dot[column])
        np.testing.assert_array_equal(table["label"], Y)
    given_delimiter = read_table(files["semicolon"], delimiter=";", decimal=",").columns
    np.testing.assert_array_equal(given_delimiter["score"], dot["score"])


def test_load_and_stream_of_decimal_commas_equal_the_dot_version(files: dict[str, Path]) -> None:
    dot = load_scores(files["dot"])
    for name in ("semicolon", "tab", "gz"):
        comma = load_scores(files[name], decimal=",")
        assert [m.column for m in comma.models] == ["score", "other"]
        for a, b in zip(comma.models, dot.models, strict=True):
            np.testing.assert_array_equal(a.scores, b.scores)
            np.testing.assert_array_equal(a.positive, b.positive)
        for column in ("score", "other"):
            streamed = stream_counts(files[name], label="label", score=column, decimal=",",
                                     batch_rows=64)
            plain = stream_counts(files["dot"], label="label", score=column, batch_rows=64)
            np.testing.assert_array_equal(streamed.counts.thresholds, plain.counts.thresholds)
            np.testing.assert_array_equal(streamed.counts.tp, plain.counts.tp)
            np.testing.assert_array_equal(streamed.counts.fp, plain.counts.fp)


@pytest.mark.parametrize("stream", [False, True])
def test_report_of_decimal_commas_equals_scikit_learn(files: dict[str, Path], stream: bool,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--stream"] if stream else []
    code, out, err = _run(["report", str(files["semicolon"]), "--decimal", ",", "--format",
                           "json", *extra], capsys)
    assert code == 0, err
    models = {m["name"]: m["ap"]["value"] for m in json.loads(out)["models"]}
    want = {"score": average_precision_score(Y, [float(t) for t in _texts(SCORE)]),
            "other": average_precision_score(Y, [float(t) for t in _texts(OTHER)])}
    assert models == pytest.approx(want, rel=1e-12, abs=1e-15)
    code, out_dot, _ = _run(["report", str(files["dot"]), "--format", "json", *extra], capsys)
    assert code == 0
    assert {m["name"]: m["ap"]["value"] for m in json.loads(out_dot)["models"]} == models


@FAST
@given(st.lists(st.tuples(st.booleans(),
                          st.floats(allow_nan=False, allow_infinity=False, width=64)),
                min_size=1, max_size=30),
       st.sampled_from([";", "\t", "|"]))
def test_any_float_written_with_a_decimal_comma_reads_back(
        tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[bool, float]],
        delimiter: str) -> None:
    path = tmp_path_factory.mktemp("locale") / "x.csv"
    texts = [repr(s) for _, s in rows]
    lines = [f"label{delimiter}score"]
    lines += [f"{int(y)}{delimiter}{t.replace('.', ',')}" for (y, _), t in zip(rows, texts,
                                                                                 strict=True)]
    path.write_text("\n".join(lines) + "\n")
    table = read_table(path, decimal=",")
    assert table.columns["score"].tolist() == [float(t) for t in texts]  # bit for bit
    assert table.columns["label"].tolist() == [int(y) for y, _ in rows]


def test_a_word_after_the_first_block_keeps_the_decimal_commas(tmp_path: Path) -> None:
    # pyarrow types a column from its first block (1 MiB); a word after it makes the reader
    # read every column as text and type it whole (readers._read_delimited's second pass).
    n = 120_000
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 4)
    lines = ["label;score", *(f"{a};{repr(float(b)).replace('.', ',')}" for a, b in zip(y, s,
                                                                                     strict=True)),
             "1;unknown"]
    path = tmp_path / "late_word.csv"
    path.write_text("\n".join(lines) + "\n")
    loaded = load_scores(path, decimal=",", drop_invalid=True)
    np.testing.assert_array_equal(loaded.models[0].scores, s)
    assert loaded.models[0].dropped == {"score_non_numeric": 1}


# -- sniffing and the options ------------------------------------------------------------


@pytest.mark.parametrize(("text", "default", "expected"), [
    ("label,score\n1,0.5\n", ",", ","),
    ("label;score\n1;0,5\n0;0,25\n", ",", ";"),
    ("label\tscore\n1\t0,5\n", ",", "\t"),
    ("label|score\n1|0.5\n", ",", "|"),
    ("name,note\na,x;y;z\nb,u;v;w\n", ",", ","),  # the format's own delimiter first
    ('label,score\n1,"0,5"\n0,"0,25"\n', ",", ","),  # quoted decimal commas
    ("score\n0.5\n", ",", ","),  # one column: the format's own
    ("label\tscore\n1\t0.5\n", "\t", "\t"),
    ("label;score\n1;0.5\n", "\t", ";"),
    ("", ",", ","),
])
def test_sniffing(tmp_path: Path, text: str, default: str, expected: str) -> None:
    path = tmp_path / "s.csv"
    path.write_text(text)
    assert sniff_delimiter(str(path), default) == expected


def test_quoted_decimal_commas_in_a_comma_file(tmp_path: Path) -> None:
    path = tmp_path / "quoted.csv"
    path.write_text('label,score\n1,"0,5"\n0,"0,25"\n1,"1,5e-3"\n')
    assert read_table(path, decimal=",").columns["score"].tolist() == [0.5, 0.25, 0.0015]


def test_an_explicit_delimiter_is_not_sniffed(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("a;b,c\n1;2,3\n4;5,6\n")
    assert list(read_table(path).columns) == ["a;b", "c"]  # ',' fits every line: kept
    assert list(read_table(path, delimiter=";").columns) == ["a", "b,c"]
    assert read_table(path, delimiter=";", decimal=",").columns["b,c"].tolist() == [2.3, 5.6]


@pytest.mark.parametrize(("argv", "option"), [
    (["--delimiter", "ab"], "--delimiter"),
    (["--delimiter", '"'], "--delimiter"),
    (["--delimiter", ""], "--delimiter"),
    (["--decimal", "x"], "--decimal"),
    (["--decimal", ",", "--delimiter", ","], "--decimal"),
])
@pytest.mark.parametrize("stream", [False, True])
def test_bad_options_are_one_line(files: dict[str, Path], argv: list[str], option: str,
                                  stream: bool, capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--stream"] if stream else []
    code, _, err = _run(["report", str(files["semicolon"]), *argv, *extra], capsys)
    assert code == 2
    assert _error_line(err).startswith(f"prcurve: error: {option}: ")


def test_library_options_are_checked(files: dict[str, Path]) -> None:
    with pytest.raises(InvalidInputError, match="--delimiter"):
        read_table(files["dot"], delimiter="::")
    with pytest.raises(InvalidInputError, match="--decimal"):
        load_scores(files["dot"], decimal=";")
    with pytest.raises(InvalidInputError, match="--decimal"):
        stream_counts(files["dot"], label="label", score="score", decimal=",", delimiter=",")


def test_tab_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "t.txt", "\t", ",")
    code, out, err = _run(["report", str(path), "--input-format", "csv", "--delimiter", "tab",
                           "--decimal", ",", "--format", "json", "--score", "score"], capsys)
    assert code == 0, err
    want = average_precision_score(Y, [float(t) for t in _texts(SCORE)])
    assert json.loads(out)["models"][0]["ap"]["value"] == pytest.approx(want, rel=1e-12)


# -- decimal commas read with a decimal point: said so -------------------------------------


@pytest.mark.parametrize("options", [[], ["--score", "score"], ["--drop-invalid"],
                                     ["--score", "score", "--drop-invalid"]])
@pytest.mark.parametrize("stream", [False, True])
def test_decimal_commas_without_decimal_suggest_it(
        files: dict[str, Path], options: list[str], stream: bool,
        capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--stream"] if stream else []
    code, _, err = _run(["report", str(files["semicolon"]), *options, *extra], capsys)
    assert code == 2
    line = _error_line(err)
    assert "decimal comma" in line
    assert "pass --decimal ," in line
    assert "pass --drop-invalid" not in line
    assert "'0,93'" in line or "'" + _texts(SCORE)[0].replace(".", ",") + "'" in line


def test_a_missing_value_among_decimal_commas(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing.csv"
    path.write_text("label;score\n1;0,5\n0;n/a\n1;0,75\n0;0,25\n")  # n/a: missing
    for options in ([], ["--drop-invalid"]):
        code, _, err = _run(["report", str(path), "--score", "score", *options], capsys)
        assert code == 2
        line = _error_line(err)
        assert "3 score(s) written with a decimal comma" in line
        assert "('0,5'; first at rows 1, 3, 4)" in line  # the rows of the decimal commas
        assert "pass --decimal ," in line
    code, _, err = _run(["report", str(path), "--decimal", ",", "--drop-invalid"], capsys)
    assert code == 0, err
    assert "skipped 1 of 4 rows" in err


def test_words_among_numbers_name_the_bad_rows(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # Words, not decimal commas: the general message, which suggests --drop-invalid.
    path = tmp_path / "words.csv"
    path.write_text("label;score\n1;0,5\n0;unknown\n1;0,75\n0;0,25\n")
    code, _, err = _run(["report", str(path), "--score", "score"], capsys)
    assert code == 2
    line = _error_line(err)
    assert "non-numeric" in line
    assert "--drop-invalid" in line
    assert "--decimal" not in line


def test_workers_still_need_parquet(files: dict[str, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Dask reads Parquet only (docs/scale.md): a CSV, any locale, is refused before a cluster.
    code, _, err = _run(["report", str(files["semicolon"]), "--decimal", ",", "--workers", "1"],
                        capsys)
    assert code == 2
    assert "Parquet" in _error_line(err) or "parquet" in _error_line(err)


def test_a_folder_of_files_each_sniffed(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    _write(folder / "a.csv", ";", ",")
    _write(folder / "b.csv", "\t", ",")
    code, out, err = _run(["report", str(folder), "--decimal", ",", "--format", "json",
                           "--score", "score"], capsys)
    assert code == 0, err
    both = np.concatenate([Y, Y])
    want = average_precision_score(both, [float(t) for t in _texts(SCORE)] * 2)
    assert json.loads(out)["models"][0]["ap"]["value"] == pytest.approx(want, rel=1e-12)


def test_decimal_commas_in_a_parquet_text_column(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # Not CSV: --decimal cannot help, and the message says which files it reads.
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "text.parquet"
    pq.write_table(pa.table({"label": [1, 0, 1], "score": ["0,5", "0,25", "0,75"]}), path)
    code, _, err = _run(["report", str(path), "--score", "score"], capsys)
    assert code == 2
    line = _error_line(err)
    assert "decimal comma" in line
    assert "to read a CSV or TSV file so (other formats must hold them as numbers)" in line

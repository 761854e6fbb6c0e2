"""prcurve.io: every format reads the same data; columns are chosen and checked."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prcurve import InvalidInputError
from prcurve.io import detect_format, load_scores, read_table

LABELS = np.array([1, 0, 1, 1, 0, 0, 1, 0, 0, 0])
SCORES_A = np.array([0.9, 0.8, 0.7, 0.7, 0.55, 0.4, 0.35, 0.2, 0.1, -1.5])
SCORES_B = np.array([0.2, 0.1, 0.9, 0.3, 0.6, 0.5, 0.8, 0.4, 0.05, 0.0])
WEIGHTS = np.array([1.0, 2.0, 0.5, 1.0, 1.0, 3.0, 1.0, 1.0, 0.0, 1.0])


def write_all_formats(folder: Path, columns: dict[str, np.ndarray]) -> dict[str, Path]:
    """The same columns as CSV, TSV, gzipped CSV, Parquet, JSON Lines and .npz."""
    names = list(columns)
    rows = list(zip(*(columns[n].tolist() for n in names), strict=True))
    paths = {}
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        text = sep.join(names) + "\n" + "".join(
            sep.join(repr(v) for v in row) + "\n" for row in rows)
        paths[fmt] = folder / f"data.{fmt}"
        paths[fmt].write_text(text)
        if fmt == "csv":
            paths["csv.gz"] = folder / "data.csv.gz"
            paths["csv.gz"].write_bytes(gzip.compress(text.encode()))
    paths["parquet"] = folder / "data.parquet"
    pq.write_table(pa.table({n: columns[n] for n in names}), paths["parquet"])
    paths["jsonl"] = folder / "data.jsonl"
    paths["jsonl"].write_text("".join(json.dumps(dict(zip(names, row, strict=True))) + "\n"
                                      for row in rows))
    paths["npz"] = folder / "data.npz"
    np.savez(paths["npz"], **columns)
    return paths


@pytest.fixture
def all_formats(tmp_path: Path) -> dict[str, Path]:
    return write_all_formats(tmp_path, {"label": LABELS, "a": SCORES_A, "b": SCORES_B,
                                        "w": WEIGHTS})


def test_every_format_reads_the_same(all_formats: dict[str, Path]) -> None:
    for fmt, path in all_formats.items():
        loaded = load_scores(path, weight="w")
        assert loaded.format == fmt.split(".")[0]
        assert loaded.n_rows == 10
        assert loaded.label_column == "label"
        assert loaded.label_chosen == "auto"
        assert [m.column for m in loaded.models] == ["a", "b"], fmt
        a, b = loaded.models
        np.testing.assert_array_equal(a.scores, SCORES_A)
        np.testing.assert_array_equal(b.scores, SCORES_B)
        np.testing.assert_array_equal(a.positive, LABELS == 1)
        assert a.weights is not None
        np.testing.assert_array_equal(a.weights, WEIGHTS)
        assert a.rows_dropped == 0


def test_detect_format() -> None:
    assert detect_format("x.CSV") == "csv"
    assert detect_format("x.tab") == "tsv"
    assert detect_format("x.ndjson.gz") == "jsonl"
    assert detect_format("x.pq") == "parquet"
    assert detect_format("whatever.txt", "tsv") == "tsv"
    for name in ("x.txt", "x.npz.gz", "x", "x.gz"):
        with pytest.raises(InvalidInputError, match="cannot tell the format"):
            detect_format(name)


@pytest.mark.parametrize("name", ["label", "y", "y_true", "target", "truth", "Target"])
def test_label_candidates(tmp_path: Path, name: str) -> None:
    path = tmp_path / "s.csv"
    path.write_text(f"{name},score\n1,0.5\n0,0.2\n")
    loaded = load_scores(path)
    assert loaded.label_column == name
    assert [m.column for m in loaded.models] == ["score"]


def test_explicit_columns_and_skipped_text(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("id,truth,name,m1,m2\n1,1,x,0.5,3\n2,0,y,0.2,4\n")
    loaded = load_scores(path, label="truth", scores=["m2"])
    assert loaded.label_chosen == "option"
    assert loaded.scores_chosen == "option"
    assert [m.column for m in loaded.models] == ["m2"]
    auto = load_scores(path)
    assert [m.column for m in auto.models] == ["id", "m1", "m2"]
    assert auto.skipped_columns == ["name"]


def test_positive_value_in_the_column_type(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\nspam,3\nham,2\nspam,1\neggs,0\n")
    loaded = load_scores(path, positive="spam")
    assert loaded.models[0].positive.tolist() == [True, False, True, False]
    assert loaded.positive_label == "spam"
    numbers = tmp_path / "n.csv"
    numbers.write_text("label,score\n2,3\n1,2\n2,1\n")
    assert load_scores(numbers, positive="2").models[0].positive.tolist() == [True, False, True]
    flags = tmp_path / "b.jsonl"
    flags.write_text('{"label": true, "score": 1}\n{"label": false, "score": 2}\n')
    assert load_scores(flags).models[0].positive.tolist() == [True, False]
    assert load_scores(flags, positive="false").models[0].positive.tolist() == [False, True]


def test_minus_one_one_labels(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\n1,3\n-1,2\n1,1\n")
    assert load_scores(path).models[0].positive.tolist() == [True, False, True]


def test_bad_value_after_the_first_block_is_found(tmp_path: Path) -> None:
    # pyarrow types a CSV column from its first block; a word far down the file
    # must still be reported with its row, not crash the reader.
    n = 200_000
    scores = np.linspace(0, 1, n).astype(str).astype(object)
    scores[n - 3] = "oops"
    labels = np.arange(n) % 2
    path = tmp_path / "big.csv"
    path.write_text("label,score\n" + "".join(
        f"{y},{s}\n" for y, s in zip(labels.tolist(), scores.tolist(), strict=True)))
    rows: list[int] = []
    with pytest.raises(InvalidInputError) as info:
        load_scores(path, on_rows=rows.append)
    assert f"1 non-numeric score(s) (row {n - 2})" in str(info.value)
    assert -1 in rows  # the reader started over with text columns
    loaded = load_scores(path, drop_invalid=True)
    assert loaded.models[0].rows_dropped == 1
    assert loaded.models[0].dropped == {"score_non_numeric": 1}
    assert loaded.models[0].scores.shape == (n - 1,)


def test_jsonl_with_mixed_types(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"label": 1, "score": 0.5}\n{"label": 0, "score": "n/a"}\n\n'
                    '{"label": 0, "score": null}\n{"label": 1, "score": 2}\n')
    with pytest.raises(InvalidInputError, match=r"1 NaN or missing and 1 non-numeric"):
        load_scores(path)
    loaded = load_scores(path, drop_invalid=True)
    assert loaded.models[0].scores.tolist() == [0.5, 2.0]
    assert loaded.models[0].dropped == {"score_missing_or_nan": 1, "score_non_numeric": 1}


def test_drop_invalid_counts_labels_and_weights(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score,w\n1,0.9,1\n,0.8,1\n0,0.7,\n1,nan,2\n0,0.1,1\n")
    with pytest.raises(InvalidInputError, match="missing label"):
        load_scores(path, weight="w")
    loaded = load_scores(path, weight="w", drop_invalid=True)
    model = loaded.models[0]
    assert model.rows_dropped == 3
    assert model.dropped == {"score_missing_or_nan": 1, "label_missing": 1,
                             "weight_missing_or_nan": 1}
    assert model.scores.tolist() == [0.9, 0.1]


def test_npz_strings_and_ragged(tmp_path: Path) -> None:
    path = tmp_path / "s.npz"
    np.savez(path, label=np.array(["pos", "neg", "pos"]), score=np.array([1.0, 2.0, 3.0]))
    assert load_scores(path, positive="pos").models[0].positive.tolist() == [True, False, True]
    ragged = tmp_path / "r.npz"
    np.savez(ragged, label=np.array([1, 0]), score=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(InvalidInputError, match="not columns of one length"):
        read_table(ragged)


def test_read_table_types(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("a,b,c,d\n1,1.5,x,true\n2,,y,false\n")
    table = read_table(path)
    kinds: dict[str, Any] = {name: values.dtype.kind for name, values in table.columns.items()}
    assert kinds == {"a": "i", "b": "f", "c": "O", "d": "b"}
    assert np.isnan(table.columns["b"][1])

"""Text labels coded in C (issue 26, item 6, session 35): a Parquet text column is read as
dictionary arrays, converted by NumPy's take, and its codes are used to normalize the
labels and find ``--positive``, each distinct text compared once.

The reference is the path every other text column takes (and every text column took
before): the rows' own Python objects (``to_pylist``), normalized and checked row by row.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.traced import traced

from prcurve.errors import InvalidInputError
from prcurve.io import load_scores, readers, rows
from prcurve.io.arrow_columns import arrow_column
from prcurve.io.text_codes import CodedText, dictionary_text

WORDS = st.one_of(st.none(), st.sampled_from(["pos", "neg", "", " ", "é", "x", "0", "1", "-1",
                                              "01", "ü\u0301", "1.5"]))


def _chunk(values: list[str | None], extra: list[str], large: bool) -> Any:
    """A dictionary array of ``values`` whose dictionary also holds unused ``extra`` text
    (a dictionary's value no row uses is not a value of the column)."""
    kind = pa.large_string() if large else pa.string()
    words = list(dict.fromkeys([v for v in values if v is not None] + extra))
    rng = np.random.default_rng(len(values))
    order = rng.permutation(len(words)).tolist()  # dictionaries in any order
    words = [words[i] for i in order]
    indices = pa.array([None if v is None else words.index(v) for v in values], pa.int32())
    return pa.DictionaryArray.from_arrays(indices, pa.array(words, kind))


def _outcome(labels: Any, positive: str | None, drop: bool) -> Any:
    scores = {"s": np.linspace(0.0, 1.0, labels.shape[0])}
    try:
        block = rows.check_block(labels, rows.LabelRule("label", positive), None, None, scores,
                                 drop)
    except rows.RowProblem as problem:
        return str(problem.error("f.parquet"))
    return (block.positive.tolist(), None if block.keep["s"] is None else
            block.keep["s"].tolist(), block.dropped)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=25), min_size=1, max_size=4),
       st.lists(st.sampled_from(["zz", "1", "neg", ""]), max_size=2), st.booleans(),
       st.one_of(st.none(), st.sampled_from(["pos", "1", "x", "é", "absent"])), st.booleans())
def test_coded_labels_are_the_rows_objects(chunks: list[list[str | None]], extra: list[str],
                                           large: bool, positive: str | None,
                                           drop: bool) -> None:
    kind = pa.dictionary(pa.int32(), pa.large_string() if large else pa.string())
    column = pa.chunked_array([_chunk(c, extra, large) for c in chunks], type=kind)
    values = dictionary_text(pa, column)
    expected = [v for c in chunks for v in c]
    assert isinstance(values, CodedText)
    assert values.dtype == object
    assert values.values().tolist() == expected
    plain = readers.object_array(expected)  # no codes: the row-by-row path
    codes, distinct = values.codes, values.categories
    assert distinct[codes].tolist() == expected
    assert sorted(map(str, distinct.tolist())) == sorted(map(str, set(expected)))  # all used
    try:
        present, missing = rows.normalize_labels(values, "label")
    except rows.RowProblem as problem:  # pragma: no cover - text is never refused here
        pytest.fail(str(problem))
    present_ref, missing_ref = rows.normalize_labels(plain, "label")
    assert missing.tolist() == missing_ref.tolist()
    assert present.dtype == present_ref.dtype
    assert present.tolist() == present_ref.tolist()
    assert _outcome(values, positive, drop) == _outcome(plain, positive, drop)


@settings(max_examples=40, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=40), st.sampled_from(["pos", "1", "", None]))
def test_equal_rows_is_numpy_equality(values: list[str | None], target: str | None) -> None:
    column = pa.chunked_array([_chunk(values, [], False)])
    coded = dictionary_text(pa, column)
    assert isinstance(coded, CodedText)
    assert coded.equal_rows(target).tolist() == (readers.object_array(values) == target).tolist()


def test_other_columns_are_not_coded() -> None:
    assert dictionary_text(pa, pa.chunked_array([pa.array(["a", "b"])])) is None
    assert dictionary_text(pa, pa.chunked_array([pa.array([1, 1]).dictionary_encode()])) is None
    # a dictionary of text that is not UTF-8 (binary cast to text unchecked): the old path
    words = pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(
        np.array([0, 1], np.int32).tobytes()), pa.py_buffer(b"\xff")])
    bad = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), words)
    assert dictionary_text(pa, pa.chunked_array([bad])) is None
    assert readers.arrow_to_numpy(pa, pa.chunked_array([bad])).tolist() == [b"\xff", b"\xff"]


def _write(path: str, labels: list[str | None], **options: Any) -> None:
    scores = np.linspace(0.0, 1.0, len(labels))
    pq.write_table(pa.table({"label": pa.array(labels, pa.string()), "score": scores}), path,
                   row_group_size=7, **options)


@pytest.mark.parametrize("options", [{}, {"use_dictionary": False},
                                     {"use_dictionary": False, "compression": "zstd"}])
def test_parquet_text_labels_as_before(options: dict[str, Any]) -> None:
    labels = (["pos", "neg", None, "neg", "", "é"] * 7)[:40]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.parquet")
        _write(path, labels, **options)
        table = readers.read_table(path)
        assert table.columns["label"].tolist() == labels
        assert isinstance(table.labels("label"), CodedText)
        loaded = load_scores(path, positive="pos", drop_invalid=True)
        model = loaded.models[0]
        kept = [v not in (None, "") for v in labels]
        assert model.positive.tolist() == [v == "pos" for v, k in zip(labels, kept, strict=True)
                                           if k]
        assert model.dropped == {"label_missing": 2 * sum(v is None for v in labels) // 2
                                 + sum(v == "" for v in labels)}


@pytest.mark.parametrize(("labels", "positive", "message"), [
    (["pos", None, "neg"], "pos", "missing label"),
    (["a", "b", "c"], None, "'label'"),
    (["pos", "neg"], "yes", "'yes'"),
    (["pos", "pos"], None, "'label'"),
])
def test_parquet_text_label_errors_unchanged(labels: list[str | None], positive: str | None,
                                              message: str) -> None:
    """The same message from a Parquet file (coded) as from the same rows as objects."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.parquet")
        _write(path, labels)
        with pytest.raises(InvalidInputError) as coded:
            load_scores(path, positive=positive)
        table = readers.read_table(path)
        plain = readers.RawTable(table.path, table.format, {
            "label": readers.object_array(table.columns["label"].tolist()),
            "score": table.columns["score"]}, table.n_rows)
        from prcurve.io.columns import scores_of_table
        with pytest.raises(InvalidInputError) as reference:
            scores_of_table(plain, positive=positive)
    assert str(coded.value) == str(reference.value)
    assert message in str(coded.value)


def test_text_labels_checked_without_a_lookup_a_row() -> None:
    """Traced peak of normalizing and checking 2^20 text labels read from Parquet: the
    codes (int32) and the present labels (pointers), not a list of the rows and int64
    codes beside them (main: measured in the docstring of the round, docs/benchmarks.md)."""
    n = 1 << 20
    labels = np.where(np.random.default_rng(0).random(n) < 0.05, "pos", "neg").tolist()
    column = pa.chunked_array([pa.array(labels[:n // 2]).dictionary_encode(),
                               pa.array(labels[n // 2:]).dictionary_encode()])
    values = arrow_column(pa, column)
    assert isinstance(values, CodedText)
    scores = {"s": np.linspace(0.0, 1.0, n)}
    block, _, peak = traced(lambda: rows.check_block(
        values, rows.LabelRule("label", "pos"), None, None, scores, False))
    assert block.positive.tolist() == [v == "pos" for v in labels]
    assert peak <= 14 * n


def test_parquet_multiclass_text_labels_as_objects() -> None:
    """Classes of a coded text column: the same classes, rows and scores as from the rows'
    own objects (the classes from the distinct values, not a sort of every row)."""
    from prcurve.io.class_columns import input_of_table

    labels = ["a", "b", None, "c", "b", "a", "c"] * 3
    rng = np.random.default_rng(1)
    columns = {"label": pa.array(labels, pa.string())}
    columns.update({f"p_{c}": pa.array(rng.random(len(labels))) for c in "abc"})
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.parquet")
        pq.write_table(pa.table(columns), path, row_group_size=5)
        table = readers.read_table(path)
        assert isinstance(table.labels("label"), CodedText)
        plain = readers.RawTable(table.path, table.format, {
            **table.columns, "label": readers.object_array(labels)}, table.n_rows)
        coded = input_of_table(table, drop_invalid=True)
        reference = input_of_table(plain, drop_invalid=True)
    assert type(coded) is type(reference)
    for name in ("classes", "class_values", "y_true", "scores", "rows_dropped", "dropped"):
        one, other = getattr(coded, name), getattr(reference, name)
        assert np.asarray(one).tolist() == np.asarray(other).tolist(), name

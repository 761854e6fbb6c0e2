"""Text labels as codes from every format (issue 26, item 6, session 36): CSV and TSV text
read by pyarrow as dictionaries, JSON Lines text coded as it is converted, the codes
carried in the reader's table (``RawTable.labels``).

The reference is the path the labels took before: the rows' own Python objects (pyarrow's
plain reading, ``to_pylist``), normalized and checked row by row; each outcome (which rows
are positive, what was dropped, or the error's message) must be the same.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.errors import InvalidInputError
from prcurve.io import readers, shared_text, small_csv, small_jsonl
from prcurve.io.columns import scores_of_table
from prcurve.io.text_codes import CodedText

# Text that pyarrow reads as missing (NA, N/A, null, the empty field), blank, non-ASCII,
# and the text of integers (labels 0/1 held as text are binary).
WORDS = st.sampled_from(["pos", "neg", "NA", "", "N/A", "null", " ", "é", "1", "0", "x y"])


def _outcome(table: readers.RawTable, positive: str | None, drop: bool) -> Any:
    try:
        loaded = scores_of_table(table, positive=positive, drop_invalid=drop)
    except InvalidInputError as error:
        return str(error)
    model = loaded.models[0]
    return model.positive.tolist(), model.scores.tolist(), model.dropped


def _as_objects(table: readers.RawTable) -> readers.RawTable:
    """The same table with every column an array of the rows' objects (no codes)."""
    return readers.RawTable(table.path, table.format, {
        name: (readers.object_array(values.tolist()) if values.dtype == object else values)
        for name, values in table.columns.items()}, table.n_rows)


def _read_large(path: Path) -> readers.RawTable:
    """``read_table`` by pyarrow's readers, as for a file over the small readers' sizes and
    over one block of pyarrow's CSV reader."""
    saved = small_csv.SMALL_CSV_BYTES, small_jsonl.SMALL_JSONL_BYTES, readers._CSV_BLOCK
    small_csv.SMALL_CSV_BYTES = small_jsonl.SMALL_JSONL_BYTES = readers._CSV_BLOCK = 0
    try:
        return readers.read_table(path)
    finally:
        small_csv.SMALL_CSV_BYTES, small_jsonl.SMALL_JSONL_BYTES, readers._CSV_BLOCK = saved


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=2, max_size=40), st.sampled_from([",", "\t"]),
       st.one_of(st.none(), st.sampled_from(["pos", "1", "é", "absent"])), st.booleans())
def test_csv_text_labels_are_the_rows_objects(labels: list[str], sep: str,
                                              positive: str | None, drop: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("s.csv" if sep == "," else "s.tsv")
        rows = [f"{label}{sep}{i / 64}" for i, label in enumerate(labels)]
        path.write_text("\n".join([f"label{sep}score", *rows]) + "\n", encoding="utf-8")
        table = _read_large(path)
        plain = pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter=sep),
                               convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
        if plain.column("label").type == pa.string():  # else numbers, read as before
            assert table.columns["label"].tolist() == plain.column("label").to_pylist()
            if len(set(labels)) * 2 <= len(labels):
                assert isinstance(table.labels("label"), CodedText)
        assert _outcome(table, positive, drop) == _outcome(_as_objects(table), positive, drop)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), WORDS), min_size=2, max_size=40),
       st.one_of(st.none(), st.sampled_from(["pos", "1", "é", "absent"])), st.booleans(),
       st.sampled_from([1, 3, 1 << 16]))
def test_jsonl_text_labels_are_the_rows_objects(labels: list[str | None],
                                                positive: str | None, drop: bool,
                                                block: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_text("".join(json.dumps({"label": label, "score": i / 64}) + "\n"
                                for i, label in enumerate(labels)), encoding="utf-8")
        saved = shared_text.SHARED_TEXT_ROWS
        shared_text.SHARED_TEXT_ROWS = block  # coded from this many rows on
        try:
            table = _read_large(path)
        finally:
            shared_text.SHARED_TEXT_ROWS = saved
        assert table.columns["label"].tolist() == labels
        assert _outcome(table, positive, drop) == _outcome(_as_objects(table), positive, drop)


def test_ids_are_not_coded_and_repeated_text_is(tmp_path: Path) -> None:
    """A column of ids (every value distinct) is one ``str`` a row, as before; a label
    column beside it is coded; both hold the values pyarrow reads."""
    path = tmp_path / "ids.csv"
    n = 5000
    path.write_text("id,label,score\n" + "".join(
        f"q{i},{'pos' if i % 7 == 0 else 'neg'},{i / n}\n" for i in range(n)))
    table = _read_large(path)
    assert not isinstance(table.labels("id"), CodedText)
    assert isinstance(table.labels("label"), CodedText)
    plain = pacsv.read_csv(path)
    for name in ("id", "label"):
        assert table.columns[name].tolist() == plain.column(name).to_pylist()
    loaded = scores_of_table(table, label="label", scores=["score"], positive="pos")
    assert loaded.models[0].positive.tolist() == [i % 7 == 0 for i in range(n)]


def test_csv_text_not_utf8_after_the_first_block_as_before(tmp_path: Path) -> None:
    """pyarrow checks the UTF-8 of text but not of a dictionary's: the dictionaries are
    checked, and a byte that is not UTF-8 reads the file again as bytes, as before."""
    path = tmp_path / "bad.csv"
    path.write_bytes(b"label,score\n" + b"pos,0.5\nneg,0.25\n" * 100_000 + b"\xffneg,0.1\n")
    table = _read_large(path)
    assert table.columns["label"][-1] == b"\xffneg"
    assert not isinstance(table.labels("label"), CodedText)
    with pytest.raises(InvalidInputError, match="not UTF-8"):
        scores_of_table(table, positive="pos")


def test_table_columns_make_objects_once() -> None:
    coded = CodedText(np.array([0, 1, 0], dtype=np.int32), np.array(["a", None], dtype=object))
    columns = readers.TableColumns({"label": coded, "score": np.array([0.1, 0.2, 0.3])})
    assert list(columns) == ["label", "score"]
    assert len(columns) == 2
    assert columns.coded("label") is coded
    assert columns["label"].tolist() == ["a", None, "a"]
    assert columns["label"] is columns["label"]  # made once
    assert {**columns}["score"].tolist() == [0.1, 0.2, 0.3]
    table = readers.RawTable("t", "csv", columns, 3)
    assert table.labels("label") is coded
    plain = readers.RawTable("t", "csv", {"label": columns["label"]}, 3)
    assert plain.labels("label") is columns["label"]


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_multiclass_text_labels_as_objects(tmp_path: Path, suffix: str) -> None:
    """Classes of a coded text column of CSV or JSON Lines: the same classes, rows and
    scores as from the rows' own objects."""
    from prcurve.io.class_columns import input_of_table

    rng = np.random.default_rng(2)
    labels = (["a", "b", None, "c", "b", "a", "c"] * 30)
    scores = {c: rng.random(len(labels)).round(4).tolist() for c in "abc"}
    path = tmp_path / f"m.{suffix}"
    if suffix == "csv":
        path.write_text("label,p_a,p_b,p_c\n" + "".join(
            f"{label or ''},{scores['a'][i]},{scores['b'][i]},{scores['c'][i]}\n"
            for i, label in enumerate(labels)))
    else:
        path.write_text("".join(json.dumps({"label": label, **{
            f"p_{c}": scores[c][i] for c in "abc"}}) + "\n" for i, label in enumerate(labels)))
    saved = shared_text.SHARED_TEXT_ROWS
    shared_text.SHARED_TEXT_ROWS = 8
    try:
        table = _read_large(path)
    finally:
        shared_text.SHARED_TEXT_ROWS = saved
    assert isinstance(table.labels("label"), CodedText)
    coded = input_of_table(table, drop_invalid=True)
    reference = input_of_table(_as_objects(table), drop_invalid=True)
    assert type(coded) is type(reference)
    for name in ("classes", "class_values", "y_true", "scores", "rows_dropped", "dropped"):
        one, other = getattr(coded, name), getattr(reference, name)
        assert np.asarray(one).tolist() == np.asarray(other).tolist(), name


def test_csv_of_one_block_is_read_once(tmp_path: Path) -> None:
    """A CSV file read by pyarrow in one block keeps its text as pyarrow reads it (coded
    by the label rules), not read a second time as dictionaries."""
    path = tmp_path / "one.csv"
    path.write_text("label,score\n" + '"pos",0.5\n"neg",0.25\n' * 1000)
    saved = small_csv.SMALL_CSV_BYTES
    small_csv.SMALL_CSV_BYTES = 0
    try:
        table = readers.read_table(path)
    finally:
        small_csv.SMALL_CSV_BYTES = saved
    assert not isinstance(table.labels("label"), CodedText)
    assert table.columns["label"].tolist() == ["pos", "neg"] * 1000
    loaded = scores_of_table(table, positive="pos")
    assert loaded.models[0].positive.tolist() == [True, False] * 1000


@pytest.mark.parametrize(("suffix", "positive"), [("csv", "pos"), ("jsonl", "pos"),
                                                  ("csv", "absent"), ("jsonl", None)])
def test_streamed_text_labels_coded_by_batch(tmp_path: Path, suffix: str,
                                             positive: str | None) -> None:
    """Streamed batches' text labels, coded (``arrow_labels``), count as in memory; a
    ``--positive`` that never occurs, and text without one, say the same as in memory."""
    from prcurve.core.counts import ThresholdCounts
    from prcurve.io.stream import stream_counts

    rng = np.random.default_rng(3)
    labels = rng.choice(["pos", "neg", "other"], 3000).tolist()
    scores = rng.random(3000).round(3).tolist()
    path = tmp_path / f"s.{suffix}"
    if suffix == "csv":
        path.write_text("label,score\n" + "".join(
            f"{label},{score}\n" for label, score in zip(labels, scores, strict=True)))
    else:
        path.write_text("".join(json.dumps({"label": label, "score": score}) + "\n"
                                for label, score in zip(labels, scores, strict=True)))
    saved = shared_text.SHARED_TEXT_ROWS
    shared_text.SHARED_TEXT_ROWS = 16
    try:
        try:
            streamed = stream_counts(path, label="label", score="score", positive=positive,
                                     batch_rows=500)
        except InvalidInputError as error:
            outcome: Any = str(error).replace(str(path), "FILE")
        else:
            outcome = (streamed.counts.n_pos, streamed.counts.n_neg,
                       streamed.counts.thresholds.tolist(), streamed.counts.tp.tolist())
    finally:
        shared_text.SHARED_TEXT_ROWS = saved
    if positive is None or positive == "absent":
        table = readers.RawTable(str(path), suffix, {
            "label": readers.object_array(labels), "score": np.array(scores)}, len(labels))
        with pytest.raises(InvalidInputError) as memory:
            scores_of_table(table, positive=positive)
        assert isinstance(outcome, str)
        assert outcome.split(":")[0] == str(memory.value).split(":")[0]
        return
    reference = ThresholdCounts.from_scores([v == "pos" for v in labels], scores)
    assert outcome == (reference.n_pos, reference.n_neg, reference.thresholds.tolist(),
                       reference.tp.tolist())


TEXTS = st.one_of(st.none(), st.sampled_from(["pos", "neg", "", "é", "ü\u0301", "1234567",
                                              "12345678", "a\x00", "a", "\x00"]),
                  st.text(max_size=9))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(TEXTS, max_size=40), min_size=1, max_size=4), st.booleans(),
       st.sampled_from([1, 3, 16, 1 << 16]), st.integers(0, 3))
def test_shared_text_codes_are_the_column(chunks: list[list[str | None]], large: bool,
                                          block: int, skip: int) -> None:
    """Text coded by NumPy from Arrow's buffers (short text, few values) or by Python
    (long text, many values), sliced chunks included: the values of ``to_pylist``."""
    from prcurve.io.arrow_columns import arrow_to_numpy

    kind = pa.large_string() if large else pa.string()
    arrays = [pa.array(["pad"] * skip + c, type=kind).slice(skip) for c in chunks]
    column = pa.chunked_array(arrays, type=kind)
    saved = shared_text.SHARED_TEXT_ROWS
    shared_text.SHARED_TEXT_ROWS = block
    try:
        coded = shared_text.shared_text(pa, column)
        values = arrow_to_numpy(pa, column)
    finally:
        shared_text.SHARED_TEXT_ROWS = saved
    expected = column.to_pylist()
    assert values.tolist() == expected
    if coded is not None:
        assert coded.values().tolist() == expected
        assert len(set(coded.categories.tolist())) == coded.categories.shape[0]
        assert set(coded.codes.tolist()) == set(range(coded.categories.shape[0]))


def test_shared_text_not_utf8_as_before() -> None:
    """Text that is not UTF-8 (pyarrow's JSON reader does not check it): the bytes kept,
    as before, whether the text is short (NumPy's keys) or not."""
    from prcurve.io.arrow_columns import arrow_to_numpy

    for word in (b"\xff", b"\xffabcdefghij"):
        bad = pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(
            np.array([0, len(word)], np.int32).tobytes()), pa.py_buffer(word)])
        column = pa.chunked_array([pa.array(["pos", "neg"] * 4), bad])
        saved = shared_text.SHARED_TEXT_ROWS
        shared_text.SHARED_TEXT_ROWS = 2
        try:
            values = arrow_to_numpy(pa, column)
        finally:
            shared_text.SHARED_TEXT_ROWS = saved
        assert values.tolist() == ["pos", "neg"] * 4 + [word]


def test_short_text_keys_tell_lengths_and_missing_apart() -> None:
    """Text that differs only by a trailing NUL byte, the empty text and a missing value
    are four values (a key holds the length beside the bytes), coded by NumPy."""
    words = ["a", "a\x00", "", "\x00", None, "1234567"]
    column = pa.chunked_array([pa.array(words * 50), pa.array(words[::-1] * 50).slice(3)])
    saved = shared_text.SHARED_TEXT_ROWS
    shared_text.SHARED_TEXT_ROWS = 16
    try:
        coded = shared_text.shared_text(pa, column)
    finally:
        shared_text.SHARED_TEXT_ROWS = saved
    assert coded is not None
    assert coded.values().tolist() == column.to_pylist()
    assert sorted(map(repr, coded.categories.tolist())) == sorted(map(repr, words))

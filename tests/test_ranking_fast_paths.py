"""The fast id encodings (pyarrow's hash tables, words of short ids, neighbour
comparison of grouped columns, pandas' pyarrow storage) give what the general
numpy path gives: the same rows, the same errors, the same evaluation."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import ID_TEXT, fresh_python, id_columns

from prcurve import InvalidInputError
from prcurve.core import sorting
from prcurve.core.sorting import set_sort_threads
from prcurve.ranking import Qrels, Run, evaluate
from prcurve.ranking import dicts as _dicts
from prcurve.ranking import hashing as _hashing
from prcurve.ranking import key_table as _key_table
from prcurve.ranking import keys as _keys
from prcurve.ranking.arrow_ids import arrow_encode

# Empty ids where the column allows.
TEXT = st.text(alphabet=ID_TEXT, max_size=12)
MEASURES = ["AP", "P@2", "RR", "num_rel_ret", "ndcg"]


@contextlib.contextmanager
def fast(on: bool, threads: bool = False) -> Iterator[None]:
    """pyarrow's paths for every column length (True) or for none (False); with
    ``threads``, pyarrow's hashing split into parts of one row and three threads."""
    original = _hashing.ARROW_ROWS, _hashing.ENCODE_PART_ROWS, _key_table.SMALL_ROWS
    _hashing.ARROW_ROWS = 0 if on else 1 << 62
    _key_table.SMALL_ROWS = 0  # the paths of long columns, not the sort of short ones
    if threads:
        _hashing.ENCODE_PART_ROWS = 1
        set_sort_threads(3)
    try:
        yield
    finally:
        _hashing.ARROW_ROWS, _hashing.ENCODE_PART_ROWS, _key_table.SMALL_ROWS = original
        set_sort_threads(None)


# (pyarrow paths on, hashing in parts): every path the encoders can take.
MODES = [(True, False), (True, True), (False, False)]


def _chunked(values: list[Any], kind: Any, cuts: list[int]) -> pa.ChunkedArray:
    """``values`` as a pyarrow chunked array cut at ``cuts`` (empty chunks included)."""
    bounds = [0, *sorted(min(c, len(values)) for c in cuts), len(values)]
    return pa.chunked_array([pa.array(values[a:b], type=kind)
                             for a, b in itertools.pairwise(bounds)], type=kind)


@settings(max_examples=150, deadline=None)
@given(ids=id_columns(max_text=12, wide=True),
       cuts=st.lists(st.integers(0, 60), max_size=4), threads=st.integers(1, 4))
def test_hashing_in_parts_is_one_pass(ids: np.ndarray, cuts: list[int], threads: int) -> None:
    # The same distinct values in the same (first-seen) order, the same codes, as one
    # dictionary_encode of the whole column: ids of every kind, any chunks.
    kind = pa.int64() if ids.dtype.kind == "i" else pa.binary() if ids.dtype.kind == "S" \
        else pa.string()
    column = _chunked(ids.tolist(), kind, cuts)
    whole = pa.array(ids.tolist(), type=kind).dictionary_encode()
    original = _hashing.ENCODE_PART_ROWS
    _hashing.ENCODE_PART_ROWS = 1
    set_sort_threads(threads)
    try:
        dictionary, codes = _hashing.arrow_dictionary(column)
    finally:
        _hashing.ENCODE_PART_ROWS = original
        set_sort_threads(None)
    assert dictionary.to_pylist() == whole.dictionary.to_pylist()
    assert codes.dtype == np.int64
    assert codes.tolist() == whole.indices.to_pylist()


@settings(max_examples=150, deadline=None)
@given(blocks=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10", "", "é"]),
                                 st.integers(1, 12)), min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 60), max_size=4), threads=st.integers(1, 4))
def test_grouped_column_in_pieces_on_threads(blocks: list[tuple[str, int]], cuts: list[int],
                                             threads: int) -> None:
    """A grouped id column (blocks of one id, an id's blocks possibly apart), in any
    chunks, its neighbours compared in pieces on ``threads`` threads: every row keeps
    its id, and the labels are the distinct ids."""
    ids = [name for name, repeat in blocks for _ in range(repeat)]
    column = _chunked(ids, pa.string(), cuts)
    saved = sorting.MIN_PARALLEL
    sorting.MIN_PARALLEL = 1
    set_sort_threads(threads)
    try:
        encoded = arrow_encode(column, grouped=True)
    finally:
        sorting.MIN_PARALLEL = saved
        set_sort_threads(None)
    assert encoded.labels[encoded.codes].tolist() == ids
    assert sorted(encoded.labels.tolist()) == sorted(set(ids))


OBJECT_IDS = st.sampled_from(["q1", "q2", "", "é", 1, 1.0, True, 2, None, float("nan"), b"q1",
                              np.str_("q2"), np.int64(2), pd.NA])


@settings(max_examples=200, deadline=None)
@given(blocks=st.lists(st.tuples(OBJECT_IDS, st.integers(1, 9)), min_size=1, max_size=8))
def test_grouped_object_column_factorizes_as_pandas(blocks: list[tuple[Any, int]]) -> None:
    """A pandas object column in blocks of one id, hashed one id per block: the codes
    and labels of ``pd.factorize`` of the whole column (mixed kinds, equal numbers of
    different types, None and NaN as missing), or left to it; labels that are all
    Python ``str`` in their sorted order (the codes renumbered to match), any other
    labels in pd.factorize's order."""
    from prcurve.ranking.tables import _grouped_factorize

    column = pd.Series([value for value, repeat in blocks for _ in range(repeat)],
                       dtype=object)
    codes, uniques = _grouped_factorize(pd, column)
    want_codes, want_uniques = pd.factorize(column, sort=False)
    if codes is not None:
        if (want_codes >= 0).all() and all(type(u) is str for u in want_uniques):
            by_id = sorted(range(len(want_uniques)), key=lambda k: want_uniques[k])
            rank = {old: new for new, old in enumerate(by_id)}
            want_uniques = [want_uniques[k] for k in by_id]
            want_codes = np.array([rank[c] for c in want_codes.tolist()])
        assert codes.tolist() == want_codes.tolist()
        assert [type(u) for u in uniques] == [type(u) for u in want_uniques]
        assert list(uniques) == list(want_uniques)


@settings(max_examples=150, deadline=None)
@given(ids=id_columns(max_text=12, wide=True), grouped=st.booleans(),
       sort_labels=st.booleans())
def test_pyarrow_encoding_matches_the_numpy_one(
    ids: np.ndarray, grouped: bool, sort_labels: bool
) -> None:
    if grouped:
        ids = np.sort(ids)
    with fast(True):
        quick = _keys.encode(ids, grouped=grouped, sort_labels=sort_labels)
    with fast(False):
        general = _keys.encode(ids, grouped=grouped, sort_labels=sort_labels)
    assert np.array_equal(quick.labels[quick.codes], ids)
    assert np.array_equal(general.labels[general.codes], ids)
    assert quick.labels.dtype == general.labels.dtype
    assert sorted(quick.labels.tolist()) == sorted(set(ids.tolist()))
    if sort_labels:
        assert np.array_equal(quick.labels, general.labels)
        assert np.array_equal(quick.codes, general.codes)


def test_text_words_are_the_ids_bytes() -> None:
    # Latin-1 text as one byte per character, big-endian: words compare as the ids.
    ids = np.array(["d1", "\u00e9t\u00e9", "abcdefghij", "a"])
    words = _keys.text_words(ids)
    assert words is not None
    assert len(words) == 2
    assert _keys.word_labels(words).tolist() == [i.encode("latin-1") for i in ids.tolist()]
    assert _keys.word_labels(words, text=True).tolist() == ids.tolist()  # Latin-1 back
    order = np.lexsort(tuple(reversed(words)))
    assert ids[order].tolist() == sorted(ids.tolist())
    # Characters beyond Latin-1, empty ids and long ids are left to the general path.
    assert _keys.text_words(np.array(["\u4e2d", "a"])) is None
    assert _keys.text_words(np.array(["", "a"])) is None
    assert _keys.text_words(np.array(["a" * 40])) is None


@st.composite
def tables(draw: Any) -> tuple[list[Any], list[Any], list[int], list[Any], list[Any], list[float]]:
    """Qrels and run columns: string ids (non-ASCII, some run documents unjudged,
    some judged documents not retrieved), rows grouped by query or shuffled."""
    queries = draw(st.lists(TEXT.filter(bool), min_size=1, max_size=4, unique=True))
    docs = draw(st.lists(TEXT, min_size=1, max_size=10, unique=True))
    run = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs)),
                        min_size=1, max_size=40, unique=True))
    judged = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs)),
                           min_size=1, max_size=30, unique=True))
    if (run[0][0], docs[0]) not in judged:  # one query at least with both
        judged.append((run[0][0], docs[0]))
    if draw(st.booleans()):
        run.sort(key=lambda row: row[0])
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=len(run),
                           max_size=len(run)))
    grades = draw(st.lists(st.integers(-1, 2), min_size=len(judged), max_size=len(judged)))
    return ([q for q, _ in judged], [d for _, d in judged], grades,
            [q for q, _ in run], [d for _, d in run], scores)


def _forms(columns: tuple[list[Any], ...]) -> dict[str, tuple[Any, Any]]:
    qq, qd, grade, rq, rd, score = columns
    qrels_frame = {"query_id": qq, "doc_id": qd, "relevance": grade}
    run_frame = {"query_id": rq, "doc_id": rd, "score": score}
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qq, qd, grade, strict=True):
        qrels_dict.setdefault(q, {})[d] = g
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(rq, rd, score, strict=True):
        run_dict.setdefault(q, {})[d] = s

    def chunked(frame: dict[str, list[Any]], large: bool) -> pa.Table:
        # Several chunks (one row each at first), large_string or string.
        kind = pa.large_string() if large else pa.string()
        half = len(frame["query_id"]) // 2
        table = pa.table({k: pa.array(v, type=kind) if k != "score" and k != "relevance"
                          else pa.array(v) for k, v in frame.items()})
        return pa.concat_tables([table.slice(0, 1), table.slice(1, half), table.slice(half + 1)])

    return {
        "arrays": ((np.array(qq), np.array(qd), np.array(grade)),
                   (np.array(rq), np.array(rd), np.array(score))),
        "bytes": ((np.char.encode(np.array(qq), "utf-8"), np.char.encode(np.array(qd), "utf-8"),
                   np.array(grade)),
                  (np.char.encode(np.array(rq), "utf-8"), np.char.encode(np.array(rd), "utf-8"),
                   np.array(score))),
        "pandas str": (pd.DataFrame(qrels_frame), pd.DataFrame(run_frame)),
        "pandas object": (pd.DataFrame(qrels_frame, dtype=object).astype({"relevance": int}),
                          pd.DataFrame(run_frame, dtype=object).astype({"score": float})),
        "pandas string[pyarrow]": (
            pd.DataFrame(qrels_frame).astype({"query_id": "string[pyarrow]",
                                              "doc_id": "string[pyarrow]"}),
            pd.DataFrame(run_frame).astype({"query_id": "string[pyarrow]",
                                            "doc_id": "string[pyarrow]"})),
        "arrow": (chunked(qrels_frame, False), chunked(run_frame, False)),
        "arrow large": (chunked(qrels_frame, True), chunked(run_frame, True)),
        "arrow dictionary": (
            pa.table({k: pa.array(v).dictionary_encode() if k != "relevance" else pa.array(v)
                      for k, v in qrels_frame.items()}),
            pa.table({k: pa.array(v).dictionary_encode() if k != "score" else pa.array(v)
                      for k, v in run_frame.items()})),
        "dicts": (qrels_dict, run_dict),
    }


def _as_text(ids: np.ndarray) -> list[str]:
    return [i.decode("utf-8") if isinstance(i, bytes) else i for i in ids.tolist()]


@settings(max_examples=60, deadline=None)
@given(columns=tables())
def test_every_input_form_and_path_gives_the_same_tables_and_numbers(
    columns: tuple[list[Any], ...]
) -> None:
    qq, qd, grade, rq, rd, score = columns
    with fast(False):
        expected = evaluate((np.array(qq), np.array(qd), np.array(grade)),
                            (np.array(rq), np.array(rd), np.array(score)), MEASURES)
    for on, threads in MODES:
        for form, (qrels, run) in _forms(columns).items():
            with fast(on, threads):
                built_qrels, built_run = Qrels.coerce(qrels), Run.coerce(run)
            if form != "dicts":  # dicts list each query's rows together
                assert _as_text(built_run.query_id) == rq, form
                assert _as_text(built_run.doc_id) == rd, form
                assert built_run.score.tolist() == score, form
                assert _as_text(built_qrels.doc_id) == qd, form
                assert built_qrels.relevance.tolist() == grade, form
            result = evaluate(built_qrels, built_run, MEASURES)
            assert _as_text(result.query_ids) == _as_text(expected.query_ids), form
            for name in MEASURES:
                np.testing.assert_array_equal(result.per_query[name], expected.per_query[name],
                                              err_msg=f"{form} {name} {on} {threads}")


@pytest.mark.parametrize(("on", "threads"), MODES)
def test_duplicates_and_missing_ids_are_refused_on_every_path(on: bool, threads: bool) -> None:
    with fast(on, threads):
        _refused()


def _refused() -> None:
    query = ["q\u00e9", "q\u00e9", "q2"]
    doc = ["d\u4e2d", "d\u4e2d", "d1"]
    score = [1.0, 2.0, 3.0]
    forms: list[Any] = [
        (np.array(query), np.array(doc), np.array(score)),
        pd.DataFrame({"query_id": query, "doc_id": doc, "score": score}),
        pa.table({"query_id": query, "doc_id": doc, "score": score}),
        pa.table({"query_id": pa.array(query, pa.large_string()),
                  "doc_id": pa.array(doc).dictionary_encode(), "score": score}),
    ]
    for form in forms:
        with pytest.raises(InvalidInputError, match="appears twice"):
            Run.coerce(form)
    with pytest.raises(InvalidInputError, match="missing ids"):
        Run.coerce(pa.table({"query_id": ["a", None], "doc_id": ["x", "y"], "score": [1., 2.]}))
    with pytest.raises(InvalidInputError, match="missing ids"):
        Run.coerce(pd.DataFrame({"query_id": ["a", None], "doc_id": ["x", "y"],
                                 "score": [1., 2.]}))


@pytest.mark.parametrize(("on", "threads"), MODES)
def test_dict_values_and_ids_are_checked_on_every_path(on: bool, threads: bool) -> None:
    with fast(on, threads):
        _dict_checks()


def _dict_checks() -> None:
    # Numbers of every Python and numpy kind are read; text and None are named.
    run = Run.from_dict({"q": {"a": 1, "b": 2.5, "c": np.float32(0.5), "d": np.int64(3)}})
    assert run.score.tolist() == [1.0, 2.5, 0.5, 3.0]
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": np.int64(2)}, "r": {}})
    assert qrels.relevance.tolist() == [1, 0, 2]
    assert qrels.query_id.tolist() == ["q", "q", "q"]
    with pytest.raises(InvalidInputError, match="score"):
        Run.from_dict({"q": {"a": 1.0, "b": "high"}})
    with pytest.raises(InvalidInputError):
        Run.from_dict({"q": {"a": 1.0, "b": None}})
    with pytest.raises(InvalidInputError, match="relevance"):
        Qrels.from_dict({"q": {"a": 1, "b": 0.5}})
    # Integer document ids; mixed kinds are refused by name.
    assert Run.from_dict({"q": {7: 1.0, 8: 2.0}}).doc_id.tolist() == [7, 8]
    with pytest.raises(InvalidInputError, match="doc_id"):
        Run.from_dict({"q": {"a": 1.0, 7: 2.0}})
    # Large integers keep every digit.
    assert Qrels.from_dict({"q": {"a": 2**60}}).relevance.tolist() == [2**60]
    # A bytes or None document id among text ids is refused, never turned into text
    # (b"a" and "a" joined) or a null; in one query or across queries.
    for odd in (b"a", None):
        with pytest.raises(InvalidInputError, match="doc_id"):
            Run.from_dict({"q": {"a": 1.0}, "r": {"b": 1.0, odd: 2.0}})
        with pytest.raises(InvalidInputError, match="doc_id"):
            Qrels.from_dict({"q": {"a": 1, odd: 0}})
    # Bytes ids alone stay bytes.
    assert Run.from_dict({"q": {b"a": 1.0, b"b": 2.0}}).doc_id.tolist() == [b"a", b"b"]


def test_pyarrow_number_columns_are_read_without_pandas() -> None:
    """A pyarrow Table's score and grade columns are read as views of their buffers
    (pyarrow's to_numpy imports pandas): the same values as the arrays give, and pandas
    not imported. The table is built from buffers (pa.table of lists imports pandas)."""
    words, pandas = fresh_python(
        "from prcurve.ranking import Qrels, Run, evaluate\n"
        "q = np.repeat(np.arange(3), 4); d = np.tile(np.arange(4), 3)\n"
        "s = np.array([.5, .25, .75, .5, .1, .2, .3, .4, 1., 0., 1., 0.])\n"
        "g = np.array([1, 0, 2, 1, 0, 0, 1, 1, 1, 1, 0, 0], dtype=np.int64)\n"
        "ours = evaluate(Qrels.from_frame(table(query_id=q, doc_id=d, relevance=g)),\n"
        "                Run.from_frame(table(query_id=q, doc_id=d, score=s)), ['AP', 'P@2'])\n"
        "theirs = evaluate(Qrels.from_arrays(q, d, g), Run.from_arrays(q, d, s), ['AP', 'P@2'])\n"
        "print(ours.to_table().to_csv() == theirs.to_table().to_csv())")
    assert words == ["True"]
    assert not pandas


SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**64), 2**64),
    st.booleans(), st.floats(width=32, allow_nan=False, allow_infinity=False).map(np.float32),
    st.integers(-(2**62), 2**62).map(np.int64), st.sampled_from(["1.5", b"2", None]),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
)


@settings(max_examples=200, deadline=None)
@given(scores=st.lists(st.lists(SCORES, max_size=4), min_size=1, max_size=4))
def test_dict_scores_fast_path_equals_general_path(scores: list[list[Any]]) -> None:
    """A run's dict scores straight to float64 by pyarrow (no list, no inference):
    the same scores as the general path, or the same refusal, for every kind of value
    (big integers, numpy scalars, bools, text, bytes, None, Decimal)."""
    nested = {f"q{i}": {f"d{j}": v for j, v in enumerate(row)} for i, row in enumerate(scores)}
    outcomes = []
    for on, threads in MODES:
        with fast(on, threads):
            try:
                run = Run.from_dict(nested)
                outcomes.append(("ok", run.score.dtype.str, run.score.tolist()))
            except InvalidInputError as error:
                outcomes.append(("refused", str(error).split(":")[0], None))
    assert outcomes[0] == outcomes[1] == outcomes[2]


DOC_IDS = st.one_of(st.text(alphabet=ID_TEXT, max_size=4),
                    st.sampled_from([b"a", None, 7, -3, 2**63, True, "a\0", "\0", "", "\u00e9"]))


@settings(max_examples=200, deadline=None)
@given(docs=st.lists(st.lists(DOC_IDS, max_size=4, unique=True), min_size=1, max_size=5))
def test_dict_ids_as_one_column_equal_the_general_path(docs: list[list[Any]]) -> None:
    """Document ids of dicts taken as one numpy column (all ``str`` without a NUL, or all
    ``int`` within int64): the same tables as the general path, which numbers each
    Python id in a dict, and the same refusal of bytes among text, None, numbers among
    text, ``bool``; a NUL (which a ``U`` array would drop at its end) or an integer
    beyond int64 goes the general way (issue 26, session 33)."""
    nested = {f"q{i}": {d: float(j) for j, d in enumerate(row)} for i, row in enumerate(docs)}
    outcomes = []
    original = _dicts._doc_column
    for column in (original, lambda ids: None):
        _dicts._doc_column = column  # type: ignore[assignment]
        try:
            run = Run.from_dict(nested)
            outcomes.append(("ok", run.query_id.tolist(), run.doc_id.tolist(),
                             run.score.tolist()))
        except InvalidInputError as error:
            outcomes.append(("refused", str(error).split(":")[0]))
        finally:
            _dicts._doc_column = original  # type: ignore[assignment]
    assert outcomes[0] == outcomes[1]


def test_dict_ids_ending_with_a_nul_are_refused_not_joined_to_their_twin() -> None:
    """"a" and "a\0" are two documents, which numpy's str arrays cannot tell apart (they
    drop trailing NULs): refused with the argument named, where the dicts' ids used to be
    read as "a" twice (session 33). A NUL inside an id is kept."""
    with pytest.raises(InvalidInputError, match=r"doc_id.*NUL"):
        Run.from_dict({"q": {"a": 2.0, "a\0": 1.0}})
    with pytest.raises(InvalidInputError, match=r"query_id.*NUL"):
        Run.from_dict({"q\0": {"a": 2.0}})
    run = Run.from_dict({"q": {"a": 2.0, "a\0b": 1.0}})
    assert sorted(run.doc_id.tolist()) == ["a", "a\0b"]
    result = evaluate({"q": {"a\0b": 1}}, run, ["AP"])
    assert result.per_query["AP"].tolist() == [0.5]


def test_integer_ids_beyond_int64_are_refused_with_the_argument_named() -> None:
    """A Python int beyond int64 among integer ids: an InvalidInputError, where numpy's
    OverflowError used to escape (session 33)."""
    with pytest.raises(InvalidInputError, match=r"doc_id.*int64"):
        Run.from_dict({"q": {2**63: 1.0, 5: 2.0}})
    with pytest.raises(InvalidInputError, match=r"query_id.*int64"):
        Run.from_arrays(np.array([2**64], dtype=object), np.array(["d"]), np.array([1.0]))

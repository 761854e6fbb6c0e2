"""pytrec_eval's dicts joined as they are walked (``prcurve.ranking.dict_join``, issue 26,
item 5) give what every other form gives: the same rankings, judgments and measures as
the general path (``Qrels.from_dict`` and ``Run.from_dict``, numpy columns, pyarrow
tables), the same errors, and pytrec_eval's values (trec_eval's own C code).

The join and the tie ranks are also checked against a plain Python oracle: each run
row's judging qrels row found by a loop over the judgments, and the tied rows' ids
ordered by ``sorted`` of their UTF-8 bytes (trec_eval's ``strcmp``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import ID_TEXT

from prcurve import InvalidInputError
from prcurve.ranking import Qrels, Run, evaluate, judge
from prcurve.ranking import dict_join as _dict_join
from prcurve.ranking.row_docs import RowDocs

MEASURES = ["AP", "P@2", "RR", "num_rel_ret", "ndcg", "R@5", "bpref"]
# pytrec_eval's names for them.
PYTREC = {"AP": "map", "P@2": "P_2", "RR": "recip_rank", "num_rel_ret": "num_rel_ret",
          "ndcg": "ndcg", "R@5": "recall_5", "bpref": "bpref"}
# Few values, so that many scores tie: 1.00000001 ties 1.0 as float32 only, 1e39 and
# 1e40 are both inf as float32, -0.0 ties 0.0.
SCORES = st.sampled_from([0.0, -0.0, 1.0, 1.00000001, 2.5, -3.0, 1e39, 1e40])
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2])
# Ids of several lengths (one word, two, three), empty, non-ASCII, prefixes of each other.
DOC_IDS = st.one_of(st.text(alphabet=ID_TEXT, max_size=3),
                    st.sampled_from(["d", "d1", "d10", "d2", "abcdefgh", "abcdefghi",
                                     "abcdefgh\u00e9", "x" * 17, "x" * 16]))
QUERY_IDS = st.text(alphabet=ID_TEXT, min_size=0, max_size=3)

Nested = dict[str, dict[str, Any]]


@contextmanager
def joined_always() -> Iterator[None]:
    """The dict join for every run, pooled documents included (small dicts repeat their
    documents: ``_repeating`` would send most of them to the general path)."""
    original = _dict_join._repeating
    _dict_join._repeating = lambda docs: False
    try:
        yield
    finally:
        _dict_join._repeating = original


@st.composite
def dict_pairs(draw: st.DrawFn, grades: st.SearchStrategy[int] = GRADES
               ) -> tuple[Nested, Nested]:
    """Judgments and a run as dicts: queries only in one of them, empty inner dicts."""
    queries = draw(st.lists(QUERY_IDS, min_size=1, max_size=4, unique=True))
    docs = draw(st.lists(DOC_IDS, min_size=1, max_size=10, unique=True))

    def nested(values: st.SearchStrategy[Any]) -> Nested:
        chosen = draw(st.lists(st.sampled_from(queries), min_size=1, unique=True))
        return {q: {d: draw(values) for d in draw(st.lists(st.sampled_from(docs), unique=True,
                                                           max_size=8))}
                for q in chosen}

    return nested(grades), nested(SCORES)


def _result(qrels: Any, run: Any, **options: Any) -> Any:
    """The per-query measures and summaries, or the error's message."""
    try:
        result = evaluate(qrels, run, MEASURES, **options)
    except InvalidInputError as error:
        return ("error", str(error))
    return (result.query_ids.tolist(),
            {m: v.tolist() for m, v in result.per_query.items()}, result.summary)


def _columns(nested: Nested) -> tuple[list[str], list[str], list[Any]]:
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    return ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def _as_arrays(nested: Nested) -> tuple[np.ndarray, ...]:
    q, d, v = _columns(nested)
    return (np.array(q, dtype=str), np.array(d, dtype=str), np.array(v))


def _as_table(nested: Nested, value: str) -> pa.Table:
    q, d, v = _columns(nested)
    return pa.table({"query_id": pa.array(q, pa.string()), "doc_id": pa.array(d, pa.string()),
                     value: pa.array(v)})


OPTIONS = [{}, {"score_precision": "float32"}, {"queries_without_results": "zero"},
           {"depth": 2, "judged_only": True}, {"relevance_level": 2}]


@settings(max_examples=60, deadline=None)
@given(dict_pairs(), st.sampled_from(OPTIONS))
def test_dicts_give_what_every_other_form_gives(pair: tuple[Nested, Nested],
                                                options: dict[str, Any]) -> None:
    qrels, run = pair
    with joined_always():
        assert _dict_join.joined(qrels, run) is not None or not any(qrels.values()) or not any(
            run.values())
        ours = _result(qrels, run, **options)
    assert _result(qrels, run, **options) == ours  # the path _repeating chooses
    general = _result(Qrels.from_dict(qrels), Run.from_dict(run), **options)
    assert ours == general
    if any(qrels.values()) and any(run.values()):
        assert ours == _result(_as_arrays(qrels), _as_arrays(run), **options)
        assert ours == _result(_as_table(qrels, "relevance"), _as_table(run, "score"), **options)


@settings(max_examples=60, deadline=None)
@given(dict_pairs(grades=st.sampled_from([0, 0, 1, 1, 2])))
def test_dicts_against_pytrec_eval(pair: tuple[Nested, Nested]) -> None:
    # pytrec_eval 0.5 crashes (a segmentation fault) on a negative grade and on a judged
    # query whose run dict is empty: neither is given to it (the general path checks
    # both above; the trec_eval fixtures check negative grades).
    qrels, run = pair
    run = {q: docs for q, docs in run.items() if docs}
    with joined_always():
        ours = _result(qrels, run, score_precision="float32", convention="trec_eval_9")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()))
    theirs = evaluator.evaluate(run)
    if ours[0] == "error":  # no query with both judgments and results
        assert not theirs
        return
    query_ids, per_query, _ = ours
    assert sorted(theirs) == query_ids
    for m, name in PYTREC.items():
        expected = [theirs[q][name] for q in query_ids]
        np.testing.assert_allclose(per_query[m], expected, rtol=0, atol=1e-12, err_msg=m)


@settings(max_examples=60, deadline=None)
@given(dict_pairs())
def test_join_and_tie_ranks_against_a_python_oracle(pair: tuple[Nested, Nested]) -> None:
    qrels, run = pair
    with joined_always():
        tables = _dict_join.joined(qrels, run)
    if not any(qrels.values()) or not any(run.values()):
        assert tables is None  # no rows: the general path (and its errors)
        return
    assert tables is not None
    judgments, ranked = tables
    docs = ranked._docs
    assert isinstance(docs, RowDocs)
    assert docs.qrels is judgments
    # The qrels' rows, in the dicts' order.
    qrels_rows = [(q, d) for q, inner in qrels.items() for d in inner]
    assert list(zip(judgments.query_id.tolist(), judgments.doc_id.tolist(),
                    strict=True)) == qrels_rows
    assert judgments.relevance.tolist() == [g for inner in qrels.values() for g in inner.values()]
    # The run's rows: each once, in trec_eval's order as float32 scores see it (each
    # query's rows together, scores descending, ties by the ids' bytes descending).
    rows = list(zip(ranked.query_id.tolist(), ranked.doc_id.tolist(), ranked.score.tolist(),
                    strict=True))
    run_rows = [(q, d, s) for q, inner in run.items() for d, s in inner.items()]
    assert sorted(rows, key=repr) == sorted(run_rows, key=repr)
    with np.errstate(over="ignore"):
        narrow = [float(np.float32(s)) + 0.0 for _, _, s in rows]
    blocks = [q for i, (q, _, _) in enumerate(rows) if i == 0 or rows[i - 1][0] != q]
    assert len(blocks) == len(set(blocks))
    for i in range(len(rows) - 1):
        if rows[i][0] == rows[i + 1][0]:
            assert (narrow[i], rows[i][1].encode()) > (narrow[i + 1], rows[i + 1][1].encode())
    for i, (q, d, _) in enumerate(rows):
        expected = next((k for k, row in enumerate(qrels_rows) if row == (q, d)), -1)
        assert docs.judged_row[i] == expected
    # Within each query, the rows tied as float32 are ranked by their ids' bytes.
    for i, (q, d, _) in enumerate(rows):
        for j, (q2, d2, _) in enumerate(rows):
            if i < j and q == q2 and narrow[i] == narrow[j]:
                assert (docs.rank[i] < docs.rank[j]) == (d.encode() < d2.encode()), (d, d2)


def test_fast_path_builds_no_encoded_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    # The dicts never reach Qrels.coerce and Run.coerce (the general path encodes their
    # documents): with both refusing, evaluate still answers, and as pytrec_eval does.
    def refuse(*_: Any) -> None:
        raise AssertionError("the general path")

    qrels = {"q1": {"b": 1, "a": 0, "c": 2}, "q2": {"x": 1}, "q3": {"y": 1}}
    run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.25, "z": 0.5}, "q2": {"x": 1.0}, "q4": {"x": 1.0}}
    expected = _result(Qrels.from_dict(qrels), Run.from_dict(run))
    monkeypatch.setattr(Qrels, "coerce", refuse)
    monkeypatch.setattr(Run, "coerce", refuse)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    with joined_always():  # "x" twice in 7 rows: a pool, by _repeating's guess
        assert _result(qrels, run) == expected
        assert judge(qrels, run).evaluate(["AP"]).per_query["AP"].tolist() == [
            theirs["q1"]["map"], theirs["q2"]["map"]]


@pytest.mark.parametrize(("qrels", "run"), [
    ({1: {"a": 1}}, {1: {"a": 1.0}}),  # integer query ids
    ({"q": {1: 1, 2: 0}}, {"q": {1: 0.5, 2: 0.25}}),  # integer document ids
    ({"q": {"a": 1}}, {"q": {b"a": 1.0}}),  # bytes
    ({"q": {"a": 1}}, {"q": {"a": 1.0, 2: 0.5}}),  # mixed kinds
    ({"q": {"a\0": 1}}, {"q": {"a": 1.0, "a\0": 0.5}}),  # a NUL: refused
    ({"q": {"a": 1}}, {"q": {"a": "high"}}),  # text scores: refused
    ({"q": {"a": 1.5}}, {"q": {"a": 1.0}}),  # a fractional grade: refused
    ({"q": {"a": 1}}, {"q": {"a": float("nan")}}),  # a NaN score: refused
    ({"q": {"a": 1}}, {"q": ["a"]}),  # not a dict of documents: refused
    ({"q": {}}, {"q": {"a": 1.0}}),  # no judgments
    ({}, {}),
    # Values of other kinds, taken by the join: the same numbers or the same errors.
    ({"q": {"a": True, "b": False}}, {"q": {"a": np.float32(0.1), "b": 0.2, "c": 3}}),
    ({"q": {"a": 2**60, "b": 1}}, {"q": {"a": 2**60, "b": 2**60 + 1}}),
    ({"q": {"a": 2**70}}, {"q": {"a": 1.0, "b": 2.0}}),
    ({"q": {"a": 1}}, {"q": {"a": Decimal("0.5"), "b": 0.25}}),
    ({"q": {"a": 1.0, "b": 2.0}}, {"q": {"a": np.int64(3), "b": np.float64(-1e300)}}),
])
def test_other_dicts_take_the_general_path_and_its_errors(qrels: Any, run: Any) -> None:
    def general() -> Any:
        return _result(Qrels.coerce(qrels), Run.coerce(run))

    try:
        expected = general()
    except InvalidInputError as error:
        expected = ("error", str(error))
    assert _result(qrels, run) == expected
    with joined_always():
        assert _result(qrels, run) == expected


@pytest.mark.parametrize("empty", [{}, {"q": {}}])
def test_no_rows_at_all_is_the_no_queries_error(empty: Any) -> None:
    # Judgments and run both without a row: the error that names the cause (an
    # IndexError of the query ids' distinct step before), from every form.
    for qrels, run in ((empty, empty), (Qrels.from_dict(empty), Run.from_dict(empty))):
        with pytest.raises(InvalidInputError, match="no query has both results"):
            evaluate(qrels, run)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["", "d", "doc-", "abcdefg", "abcdefgh", "abcdefghijklmnop", "x" * 9]),
       st.lists(st.tuples(st.sampled_from(["", "a", "b-------", "\u00e9"]),
                          st.text(alphabet="ab0z~ \u00e9", max_size=9)),
                min_size=1, max_size=30, unique=True),
       st.lists(st.integers(0, 3), min_size=30, max_size=30), st.booleans())
def test_tied_rows_in_byte_order(prefix: str, parts: list[tuple[str, str]],
                                 groups: list[int], gathered: bool) -> None:
    # Ids of one to three words, sharing leading bytes or not (the key: the 64 bits after
    # the bits every id shares), agreeing in those bits but not after them (the rows then
    # ordered by their full words), ASCII or not; rows in groups (ties): each group's
    # rows by their ids' UTF-8 bytes descending, as trec_eval's strcmp.
    ids = [head + prefix + tail for head, tail in parts]
    group = np.sort(np.array(groups[:len(ids)], dtype=np.int64))
    group = np.unique(group, return_inverse=True)[1].astype(np.int64)  # 0, 1, ... ascending
    rows = np.random.default_rng(len(ids)).permutation(len(ids))
    docs = ids if not gathered else ids + ["filler"] * (2 * len(ids))  # gathered: few tie
    expected = sorted(range(len(ids)), key=lambda i: (-group[i], ids[rows[i]].encode()),
                      reverse=True)
    original = _dict_join.BLOCK
    for block in (original, 4):  # blocks of 4 ids: words first needed in a later block
        _dict_join.BLOCK = block
        try:
            order = _dict_join._tied_order(group.copy(), rows, docs)  # (overwritten)
            assert _dict_join._plain_text(ids)
            assert not _dict_join._plain_text([*ids, "a\0"])
        finally:
            _dict_join.BLOCK = original
        assert [(int(group[i]), ids[rows[i]]) for i in order] == [
            (int(group[i]), ids[rows[i]]) for i in expected]


def test_a_pool_of_documents_takes_the_general_path() -> None:
    # 10^4 rows: of a pool of 100 documents (the general path: encoding them is cheaper),
    # or each its own document (the join).
    pooled = {f"q{q}": {f"d{(q * 7 + k) % 100}": k / 8 for k in range(100)} for q in range(100)}
    distinct = {f"q{q}": {f"d{q}-{k}": k / 8 for k in range(100)} for q in range(100)}
    def judged(run: Nested) -> Nested:
        return {q: {d: int(s * 8) % 3 for d, s in docs.items()} for q, docs in run.items()}

    assert _dict_join.joined(judged(pooled), pooled) is None
    assert _dict_join.joined(judged(distinct), distinct) is not None
    for run in (pooled, distinct):
        with joined_always():
            expected = _result(judged(run), run)
        assert _result(judged(run), run) == expected


@pytest.mark.parametrize("grade", [2**70, -(2**64), 1e20])
def test_grades_beyond_int64_are_refused_by_name(grade: Any) -> None:
    # An OverflowError escaped the grades' cast (Python integers), and a float beyond
    # int64 was cast to an undefined integer; from dicts and from arrays alike.
    run = {"q": {"a": 1.0, "b": 2.0}}
    for qrels in ({"q": {"a": grade}}, (np.array(["q"]), np.array(["a"]),
                                         np.array([grade], dtype=object))):
        with pytest.raises(InvalidInputError, match="relevance"):
            evaluate(qrels, run)


def test_no_cycle_collection_while_the_dicts_are_walked() -> None:
    # Session 35: the walk makes a dict of judgments per query and lists of every id,
    # young containers that each collection of the young generation scanned again (on
    # main, 2,000 queries start a few collections inside the join). The collector is
    # paused, and resumed after.
    qrels = {f"q{i}": {f"d{i}-{k}": k % 2 for k in range(3)} for i in range(2_000)}
    run = {q: {**dict.fromkeys(docs, 0.5), f"x{q}": 0.25} for q, docs in qrels.items()}
    started: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        tables = _dict_join.joined(qrels, run)
    finally:
        gc.callbacks.remove(count)
    assert tables is not None
    assert started == []
    assert gc.isenabled()


def test_collector_state_restored_after_an_error() -> None:
    # A refused grade raises from inside the walk: the collector runs again after it,
    # and stays off where the caller had turned it off.
    qrels, run = {"q": {"a": 1.5}}, {"q": {"a": 1.0, "b": 0.5}}
    with pytest.raises(InvalidInputError, match="relevance"):
        _dict_join.joined(qrels, run)
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(InvalidInputError, match="relevance"):
            _dict_join.joined(qrels, run)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("bad", ["a\0b", 7, b"x", "\u00e9\0"])
@pytest.mark.parametrize("ties", ["all", "some", "none"])
@pytest.mark.parametrize("accented", [False, True])
def test_a_bad_id_past_the_first_block_takes_the_general_path(
        monkeypatch: pytest.MonkeyPatch, bad: Any, ties: str, accented: bool) -> None:
    # Session 35: the run's ids past their first block are checked where their text is
    # read (their words when most rows tie, else a pass of their own): an id that is not
    # a str or holds a NUL still sends the tables to the general path and its errors.
    monkeypatch.setattr(_dict_join, "BLOCK", 4)
    docs = [f"d{k}" + ("\u00e9" if accented else "") for k in range(20)]
    scores = {"all": [0.5] * 21, "some": [k / 32 for k in range(19)] + [0.25, 0.25],
              "none": [k / 32 for k in range(21)]}[ties]
    run = {"q": dict(zip([*docs, bad], scores, strict=True))}
    qrels = {"q": {docs[0]: 1, docs[3]: 0}}
    try:
        expected = _result(Qrels.coerce(qrels), Run.coerce(run))
    except InvalidInputError as error:
        expected = ("error", str(error))
    with joined_always():
        assert _dict_join.joined(qrels, run) is None
        assert _result(qrels, run) == expected

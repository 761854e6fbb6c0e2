"""Integer ids (int64 query and document ids from numpy, pandas and pyarrow) are
taken as numbers, and their ties in score are ordered as trec_eval orders the same
ids read from a file: by the bytes of their decimal text, descending ("9" before
"100" before "10"), not by value.

References: pytrec_eval (trec_eval's own C code, which compares document ids with
``strcmp``) on the ids' decimal text, and prcurve's text path, which the trec_eval
fixtures check byte for byte."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import Qrels, Run, evaluate, reciprocal_rank
from prcurve.ranking import keys as _keys

MEASURES = ["AP", "P@2", "RR", "num_rel_ret", "ndcg"]
# Ids of different decimal lengths and signs, so that value order and text order differ.
INT_IDS = st.one_of(st.integers(-120, 120), st.integers(-(2**63), 2**63 - 1))


@st.composite
def int_tables(draw: Any) -> tuple[np.ndarray, ...]:
    queries = draw(st.lists(INT_IDS, min_size=1, max_size=3, unique=True))
    docs = draw(st.lists(INT_IDS, min_size=1, max_size=12, unique=True))
    run = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs)),
                        min_size=1, max_size=30, unique=True))
    judged = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs)),
                           min_size=0, max_size=20, unique=True))
    if (run[0][0], run[0][1]) not in judged:
        judged.append(run[0])
    if draw(st.booleans()):
        run.sort(key=lambda row: row[0])
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=len(run),
                           max_size=len(run)))  # few distinct scores: many ties
    grades = draw(st.lists(st.integers(0, 2), min_size=len(judged), max_size=len(judged)))
    ints = [np.array(c, dtype=np.int64) for c in
            ([q for q, _ in judged], [d for _, d in judged], [q for q, _ in run],
             [d for _, d in run])]
    return (*ints, np.array(grades, dtype=np.int64), np.array(scores))


def _forms(qq: np.ndarray, qd: np.ndarray, grade: np.ndarray, rq: np.ndarray,
           rd: np.ndarray, score: np.ndarray) -> dict[str, tuple[Any, Any]]:
    qrels = {"query_id": qq, "doc_id": qd, "relevance": grade}
    run = {"query_id": rq, "doc_id": rd, "score": score}
    return {
        "numpy int64": ((qq, qd, grade), (rq, rd, score)),
        "pandas int64": (pd.DataFrame(qrels), pd.DataFrame(run)),
        "pandas int64[pyarrow]": (
            pd.DataFrame(qrels).astype({"query_id": "int64[pyarrow]", "doc_id": "int64[pyarrow]"}),
            pd.DataFrame(run).astype({"query_id": "int64[pyarrow]", "doc_id": "int64[pyarrow]"})),
        "pyarrow int64": (pa.table(qrels), pa.table(run)),
    }


@settings(max_examples=80, deadline=None)
@given(columns=int_tables())
def test_integer_ids_rank_ties_as_their_decimal_text(columns: tuple[np.ndarray, ...]) -> None:
    qq, qd, rq, rd, grade, score = columns
    text = evaluate((qq.astype(str), qd.astype(str), grade), (rq.astype(str), rd.astype(str),
                                                              score), MEASURES)
    for form, (qrels, run) in _forms(qq, qd, grade, rq, rd, score).items():
        built = Run.coerce(run)
        assert built.doc_id.dtype.kind == "i", form  # numbers, not text
        assert Qrels.coerce(qrels).doc_id.dtype.kind == "i", form
        result = evaluate(qrels, run, MEASURES)
        # The same queries (integer ids listed by value, text ids by their bytes).
        assert sorted(result.query_ids.astype(str).tolist()) == text.query_ids.tolist(), form
        by_text = {q: k for k, q in enumerate(text.query_ids.tolist())}
        rows = [by_text[q] for q in result.query_ids.astype(str).tolist()]
        for name in MEASURES:
            np.testing.assert_array_equal(result.per_query[name], text.per_query[name][rows],
                                          err_msg=f"{form} {name}")


def test_integer_ids_against_pytrec_eval() -> None:
    # Every document tied in score: trec_eval ranks them by strcmp of the ids, descending:
    # "9" > "2" > "100" > "10" > "-5". By value, 9 would come third.
    docs = np.array([9, 10, 100, 2, -5], dtype=np.int64)
    queries = np.full(5, 7, dtype=np.int64)
    score = np.ones(5)
    for relevant in docs.tolist():
        qrels = (np.array([7]), np.array([relevant]), np.array([1]))
        ours = evaluate(qrels, (queries, docs, score), ["RR", "AP", "P@2"]).summary
        evaluator = pytrec_eval.RelevanceEvaluator({"7": {str(relevant): 1}},
                                                   {"recip_rank", "map", "P_2"})
        theirs = evaluator.evaluate({"7": {str(d): 1.0 for d in docs.tolist()}})["7"]
        assert ours["RR"] == theirs["recip_rank"], relevant
        assert abs(ours["AP"] - theirs["map"]) < 1e-12, relevant
        assert ours["P@2"] == theirs["P_2"], relevant
    # One ranking from arrays breaks ties the same way.
    assert reciprocal_rank([1, 0, 0, 0], [1.0] * 4, doc_ids=[9, 10, 100, 2]) == 1.0
    assert reciprocal_rank([0, 0, 1, 0], [1.0] * 4, doc_ids=[9, 10, 100, 2]) == 1 / 3


def test_byte_order_is_the_order_of_decimal_text() -> None:
    ids = np.array([0, 7, -1, 10, 2**63 - 1, -(2**63), 99, 100], dtype=np.int64)
    order = np.argsort(_keys.byte_order(ids), kind="stable")
    assert ids[order].astype(str).tolist() == sorted(ids.astype(str).tolist())
    text = np.array(["b", "a"])
    assert _keys.byte_order(text) is text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(INT_IDS, st.integers(-(10**17) + 1, 10**17 - 1),
                          st.sampled_from([0, 1, 10, 100, 10**16, 10**17 - 1, -(10**16)])),
                min_size=1, max_size=40))
def test_integer_ids_sort_as_their_decimal_text(ids: list[int]) -> None:
    # Session 35: integers below 10^17 in magnitude are ordered by keys computed without
    # text (keys.byte_order, text_numbers.decimal_text_keys), others by their text; both
    # as the bytes of the decimal text (strcmp), one key per distinct id.
    array = np.array(ids, dtype=np.int64)
    keys = _keys.byte_order(array)
    order = np.argsort(keys, kind="stable")
    assert [str(ids[i]).encode() for i in order] == sorted(str(x).encode() for x in ids)
    assert len({k.item() if hasattr(k, "item") else k for k in keys}) == len(set(ids))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), distinct=st.sampled_from([50, 2**14, 2**40, 2**63]),
       dtype=st.sampled_from([np.int64, np.int32, np.uint64]),
       sort_labels=st.booleans())
def test_large_integer_columns_encode_exactly(seed: int, distinct: int, dtype: Any,
                                              sort_labels: bool) -> None:
    # keys._integer_encode (session 36): from 2^16 rows, integer ids keyed by their value
    # (one sort when mostly distinct, a hash table otherwise). Against np.unique: the
    # labels are the distinct ids, in the column's dtype, and each row's label its id.
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    high = min(distinct, int(info.max))
    ids = rng.integers(max(int(info.min), -high), high, 2**16 + 5, dtype=dtype)
    encoded = _keys.encode(ids, sort_labels=sort_labels)
    assert encoded.labels.dtype == ids.dtype
    assert np.array_equal(encoded.labels[encoded.codes], ids)
    assert np.array_equal(np.sort(encoded.labels), np.unique(ids))
    if sort_labels:
        assert np.array_equal(encoded.labels, np.unique(ids))

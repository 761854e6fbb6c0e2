"""Short id columns encoded by one sort (``key_table.sorted_codes``, issue 26 item 5,
session 37): the same evaluation as the general path of long columns (words, sample,
groups, hash tables), value for value, for text, bytes and integer ids."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import evaluate
from prcurve.ranking import key_table as _key_table

MEASURES = ["AP", "P@5", "AP@3", "ndcg", "RR", "bpref", "R-prec", "num_rel_ret"]


def _evaluate(small: bool, qrels: Any, run: Any) -> Any:
    original = _key_table.SMALL_ROWS
    _key_table.SMALL_ROWS = original if small else 0
    try:
        return evaluate(qrels, run, MEASURES)
    finally:
        _key_table.SMALL_ROWS = original


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_queries=st.integers(1, 12),
       n_docs=st.integers(1, 40), pool=st.integers(1, 200),
       kind=st.sampled_from(["U", "S", "int64", "long"]), shuffled=st.booleans())
def test_short_columns_by_the_sort_evaluate_as_the_general_path(
    seed: int, n_queries: int, n_docs: int, pool: int, kind: str, shuffled: bool,
) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, n_docs + 1, n_queries)  # every query evaluated
    query = np.repeat(np.arange(n_queries), lengths)
    doc = np.concatenate([rng.choice(max(pool, n_docs), k, replace=False) for k in lengths])
    score = rng.integers(0, 4, query.shape[0]).astype(np.float64)  # many ties: the id order
    judged = rng.random(query.shape[0]) < 0.5
    q_query = np.concatenate((query[judged], np.arange(n_queries)))
    q_doc = np.concatenate((doc[judged], np.full(n_queries, 10**6)))  # one unretrieved each
    grade = rng.integers(-1, 3, q_query.shape[0])
    if shuffled:
        order = rng.permutation(query.shape[0])
        query, doc, score = query[order], doc[order], score[order]

    def ids(prefix: str, values: np.ndarray) -> np.ndarray:
        if kind == "int64":
            return values.astype(np.int64)
        text = np.array([f"{prefix}{v}" + ("-long-id-past-a-word" if kind == "long" else "")
                         for v in values.tolist()])
        return text.astype("S") if kind == "S" else text

    qrels = (ids("q", q_query), ids("d", q_doc), grade)
    run = (ids("q", query), ids("d", doc), score)
    want = _evaluate(False, qrels, run)
    got = _evaluate(True, qrels, run)
    assert got.query_ids.tolist() == want.query_ids.tolist()
    for m in MEASURES:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
        assert got.summary[m] == want.summary[m]

"""pandas ``object`` query columns in blocks (issue 26 item 5, session 37): their text
labels are put in order among the blocks (``tables._grouped_factorize``) instead of by a
pass over every row; the tables, numbers and errors must be those of ``pd.factorize``
of the whole column (what the shortcut gave before), and the numbers those of numpy
text arrays of the same ids."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_ranking_object_columns import _outcome

from prcurve.ranking import evaluate
from prcurve.ranking import tables as _tables

# Text of every kind met in ids: non-ASCII, longer than 32 bytes (past the words'
# path), numpy's str scalars (a str subclass), an empty id; and what validation
# refuses: missing ids (None, NaN), other kinds (numbers, bytes: mixed columns).
TEXT = st.sampled_from(["q1", "q2", "q10", "é", "ß-7", "", "x" * 40, "q" + "é" * 20,
                        np.str_("q2"), np.str_("ü")])
OTHER = st.sampled_from([None, float("nan"), 3, 2.5, b"q1", np.int64(2)])


def _frame(blocks: list[tuple[Any, int]]) -> pd.DataFrame:
    query = [value for value, repeat in blocks for _ in range(repeat)]
    n = len(query)
    return pd.DataFrame({"query_id": pd.Series(query, dtype=object),
                         "doc_id": pd.Series([f"d{i}" for i in range(n)], dtype=object),
                         "score": np.linspace(1, 0, n)})


@settings(max_examples=120, deadline=None)
@given(blocks=st.lists(st.tuples(TEXT | OTHER, st.integers(4, 9)), min_size=1, max_size=8))
def test_object_query_blocks_give_the_tables_and_errors_of_pd_factorize(
    blocks: list[tuple[Any, int]]
) -> None:
    frame = _frame(blocks)
    got = _outcome(frame)
    shortcut = _tables._grouped_factorize

    def plain(pd: Any, column: Any) -> tuple[Any, Any]:
        # Where the blocks' shortcut applies, pd.factorize of the whole column (its
        # codes and labels, first seen first), as before the labels were sorted.
        codes, _ = shortcut(pd, column)
        return (None, None) if codes is None else pd.factorize(column, sort=False)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_tables, "_grouped_factorize", plain)
        want = _outcome(frame)
    assert got == want


@settings(max_examples=60, deadline=None)
@given(blocks=st.lists(st.tuples(TEXT.filter(lambda v: type(v) is str), st.integers(4, 9)),
                       min_size=1, max_size=8, unique_by=lambda b: str(b[0])))
def test_object_query_blocks_evaluate_as_numpy_text(blocks: list[tuple[Any, int]]) -> None:
    """Query columns of Python ``str`` in blocks (the sorted labels' path) against numpy
    ``U`` arrays of the same ids: every query's numbers, and their sums. (A query column
    of numpy ``str_`` scalars in blocks is refused, as before: the first test.)"""
    frame = _frame(blocks)
    query = np.array([str(v) for v in frame["query_id"]])
    doc = np.array(frame["doc_id"].tolist())
    score = frame["score"].to_numpy()
    grade = np.arange(query.shape[0]) % 3 % 2
    qrels = frame.drop(columns="score").assign(relevance=grade)
    measures = ["AP", "P@2", "ndcg"]
    got = evaluate(qrels, frame, measures)
    want = evaluate((query, doc, grade), (query, doc, score), measures)
    assert [str(q) for q in got.query_ids.tolist()] == want.query_ids.tolist()
    for m in measures:
        assert got.per_query[m].tolist() == want.per_query[m].tolist()
        assert math.fsum(got.per_query[m].tolist()) == math.fsum(want.per_query[m].tolist())

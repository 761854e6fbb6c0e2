"""pandas ``object`` id columns (pandas 2's default text dtype) taken through pyarrow's
conversion (:func:`prcurve.ranking.arrow_ids.text_objects`, issue 26 item 5): the same
tables, numbers and errors as the path they had before (``pd.factorize`` and the labels'
type check), which a column that is not all Python ``str`` still takes."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve import InvalidInputError
from prcurve.ranking import Run, evaluate
from prcurve.ranking import arrow_ids as _arrow_ids
from prcurve.ranking.distinct_keys import SORT_ROWS
from prcurve.ranking.hashing import ARROW_ROWS

# Mixed kinds, missing values (None, NaN, pd.NA), text pyarrow cannot encode (a lone
# surrogate), NUL endings (refused by the labels' check), numpy's str scalars.
OBJECT_IDS = st.sampled_from(["q1", "q2", "", "é", "a\0", "\udc80", 1, 2.5, True, None,
                              float("nan"), b"q1", np.str_("q2"), np.int64(2), pd.NA])


def _outcome(frame: pd.DataFrame) -> tuple[str, Any]:
    """The run's ids and scores in row order, or the error's argument and message."""
    try:
        run = Run.from_frame(frame)
    except InvalidInputError as error:
        return "error", str(error)
    return "run", (run.query_id.tolist(), run.doc_id.tolist(), run.score.tolist())


def _old_path(frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    """The outcome on the path object columns took before (no pyarrow conversion)."""
    with monkeypatch.context() as patch:
        patch.setattr(_arrow_ids, "text_objects", lambda values: None)
        return _outcome(frame)


@settings(max_examples=150, deadline=None)
@given(query=st.lists(OBJECT_IDS, min_size=1, max_size=12), data=st.data())
def test_object_columns_give_the_results_and_errors_of_the_old_path(
    query: list[Any], data: st.DataObject
) -> None:
    n = len(query)
    doc = data.draw(st.lists(OBJECT_IDS | st.text("abc", max_size=3), min_size=n, max_size=n))
    frame = pd.DataFrame({"query_id": pd.Series(query, dtype=object),
                          "doc_id": pd.Series(doc, dtype=object),
                          "score": np.arange(n, dtype=np.float64)})
    got = _outcome(frame)
    with pytest.MonkeyPatch.context() as monkeypatch:
        want = _old_path(frame, monkeypatch)
        if got != want and any(type(v) is np.str_ for v in query + doc):
            # numpy's str scalars are str: read as text, as a numpy array of them is,
            # where the old path refused them ("found ['str', 'str_']").
            plain = frame.assign(**{c: pd.Series([str(v) if isinstance(v, str) else v
                                                  for v in frame[c]], dtype=object)
                                    for c in ("query_id", "doc_id")})
            want = _old_path(plain, monkeypatch)
            assert "str_" in str(_old_path(frame, monkeypatch)[1])
    assert got == want


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.text(max_size=4)),
                    min_size=1, max_size=30, unique=True))
def test_object_columns_of_text_evaluate_as_numpy_text(ids: list[tuple[str, str]]) -> None:
    """All-str object columns (pyarrow's path) against numpy ``U`` arrays of the same ids."""
    ids = [(q, d) for q, d in ids if not d.endswith("\0")]
    if not ids:
        ids = [("q1", "d")]
    query, doc = (list(c) for c in zip(*ids, strict=True))
    score = np.linspace(0, 1, len(ids))[::-1].copy()
    grade = np.arange(len(ids)) % 2
    objects = (pd.DataFrame({"query_id": pd.Series(query, dtype=object),
                             "doc_id": pd.Series(doc, dtype=object), "relevance": grade}),
               pd.DataFrame({"query_id": pd.Series(query, dtype=object),
                             "doc_id": pd.Series(doc, dtype=object), "score": score}))
    arrays = ((np.array(query), np.array(doc), grade), (np.array(query), np.array(doc), score))
    measures = ["AP", "P@2", "ndcg"]
    got, want = evaluate(*objects, measures), evaluate(*arrays, measures)
    for m in measures:
        assert dict(zip(got.query_ids.tolist(), got.per_query[m].tolist(), strict=True)) == \
            dict(zip(want.query_ids.tolist(), want.per_query[m].tolist(), strict=True))


def test_large_distinct_object_ids_take_the_word_encoding_and_agree() -> None:
    """Mostly distinct short ids past SORT_ROWS, WORD_ROWS and ARROW_ROWS rows (the
    words path of arrow_encode, sorted), then the same column with one id not ASCII
    (pyarrow's hash table), against numpy."""
    n = 2 * max(SORT_ROWS, _arrow_ids.WORD_ROWS, ARROW_ROWS)
    rng = np.random.default_rng(5)
    query = np.repeat(np.array([f"q{i}" for i in range(n // 64)]), 64)
    for doc in (np.array([f"d{i:07d}" for i in range(n)]),
                np.array([f"d{i:07d}" for i in range(n - 1)] + ["dé"])):
        score = rng.random(n).round(2)  # ties, broken by document id
        grade = (rng.random(n) < 0.3).astype(np.int64)
        frames = (pd.DataFrame({"query_id": query.astype(object), "doc_id": doc.astype(object),
                                "relevance": grade}),
                  pd.DataFrame({"query_id": query.astype(object), "doc_id": doc.astype(object),
                                "score": score}))
        assert _arrow_ids.text_objects(frames[1]["doc_id"].to_numpy()) is not None
        got = evaluate(*frames, ["AP", "P@10"])
        want = evaluate((query, doc, grade), (query, doc, score), ["AP", "P@10"])
        for m in ("AP", "P@10"):
            assert math.fsum(got.per_query[m].tolist()) == math.fsum(want.per_query[m].tolist())
            assert got.per_query[m].tolist() == want.per_query[m].tolist()


def test_text_objects_waits_for_pyarrow_to_be_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.array(["q1", "q2"], dtype=object)
    assert _arrow_ids.text_objects(values) is not None
    monkeypatch.delitem(sys.modules, "pyarrow")
    assert _arrow_ids.text_objects(values) is None
    assert _arrow_ids.text_objects(np.array(["q1"])) is None  # not object: not this path

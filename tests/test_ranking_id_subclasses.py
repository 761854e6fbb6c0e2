"""Ids that are subclasses of ``str`` or ``bytes`` (numpy's ``str_`` and ``bytes_``
scalars, a ``str`` Enum, a user's subclass) are the text or bytes they hold, in every
input form: a dict's keys, pandas ``object`` columns (a query column in blocks too) and
NumPy ``object`` arrays. Before session 37 a dict or a blocked query column holding them
was refused ("expected string or integer ids, found ['str', 'str_']") where a pandas
document column took them."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from prcurve.ranking import evaluate


class Topic(str, enum.Enum):  # str() of a member is "Topic.FIRST": its text is "q1"
    FIRST = "q1"
    SECOND = "q2"


class Word(str):
    pass


QUERIES = ["q1"] * 60 + ["q2"] * 60  # two blocks (the blocked query column's path)
DOCS = [f"d{k}" for k in range(60)] * 2
GRADES = [k % 3 for k in range(120)]
SCORES = [float((7 * k) % 11) for k in range(120)]
MEASURES = ("AP", "P@10", "ndcg")

KINDS: dict[str, Callable[[str], Any]] = {
    "numpy str_": np.str_, "str Enum": lambda q: Topic(q) if q in ("q1", "q2") else q,
    "str subclass": Word,
}


def _dicts(queries: list[Any], docs: list[Any], values: list[Any]) -> dict[Any, Any]:
    out: dict[Any, dict[Any, Any]] = {}
    for q, d, v in zip(queries, docs, values, strict=True):
        out.setdefault(q, {})[d] = v
    return out


def _frame(queries: list[Any], docs: list[Any], name: str, values: list[Any]) -> pd.DataFrame:
    return pd.DataFrame({"query_id": pd.Series(queries, dtype=object),
                         "doc_id": pd.Series(docs, dtype=object), name: values})


def _numbers(result: Any) -> dict[str, list[float]]:
    return {m: result.per_query[m].tolist() for m in MEASURES}


WANT = _numbers(evaluate(_dicts(QUERIES, DOCS, GRADES), _dicts(QUERIES, DOCS, SCORES),
                         measures=MEASURES))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("form", ["dicts", "pandas object"])
@pytest.mark.parametrize("where", ["queries", "documents", "both"])
def test_str_subclasses_are_their_text(kind: str, form: str, where: str) -> None:
    make = KINDS[kind]
    queries = [make(q) for q in QUERIES] if where != "documents" else QUERIES
    docs = [make(d) for d in DOCS] if where != "queries" else DOCS
    # Half the run's ids plain, half the subclass: the same ids either way.
    run_docs = [d if k % 2 else str.__str__(d) for k, d in enumerate(docs)]
    if form == "dicts":
        result = evaluate(_dicts(queries, docs, GRADES), _dicts(queries, run_docs, SCORES),
                          measures=MEASURES)
    else:
        result = evaluate(_frame(queries, docs, "relevance", GRADES),
                          _frame(queries, run_docs, "score", SCORES), measures=MEASURES)
    assert _numbers(result) == WANT


def test_bytes_subclasses_are_their_bytes() -> None:
    plain = [q.encode() for q in QUERIES], [d.encode() for d in DOCS]
    mixed = [np.bytes_(q) for q in plain[0]], [np.bytes_(d) if k % 2 else d
                                               for k, d in enumerate(plain[1])]
    want = _numbers(evaluate(_dicts(*plain, GRADES), _dicts(*plain, SCORES), measures=MEASURES))
    got = _numbers(evaluate(_dicts(*mixed, GRADES), _dicts(*plain, SCORES), measures=MEASURES))
    assert got == want == WANT

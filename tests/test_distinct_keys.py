"""The sort that encodes mostly distinct keys (real document ids;
``word_groups.sorted_groups``, chosen by ``distinct_keys``) gives what a plain
``np.unique`` gives, exactly, also when keys share their top bits (the rows' numbers
take the low bits of the sorted words, so such keys need the second sort)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import arrow_ids as _arrow_ids
from prcurve.ranking import distinct_keys as _distinct
from prcurve.ranking import key_table as _key_table
from prcurve.ranking import keys as _keys
from prcurve.ranking import word_groups as _groups

KEYS = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 2**64 - 1),
                          st.integers(2**64 - 50, 2**64 - 1)), max_size=300)


@settings(max_examples=200, deadline=None)
@given(values=KEYS)
def test_sorted_codes_are_np_unique(values: list[int]) -> None:
    key = np.array(values, dtype=np.uint64)
    known, codes = _groups.sorted_groups(key.copy())[:2]  # unspread: keys ascending
    want, inverse = np.unique(key, return_inverse=True)
    np.testing.assert_array_equal(known, want)
    np.testing.assert_array_equal(codes, inverse.reshape(-1))


def test_keys_equal_in_their_top_bits_are_told_apart() -> None:
    # 2^20 rows take 20 low bits: keys below 2^20 all share their top bits (zero).
    rng = np.random.default_rng(0)
    key = rng.integers(0, 2**20, 2**20).astype(np.uint64)
    known, codes = _groups.sorted_groups(key)[:2]
    want, inverse = np.unique(key, return_inverse=True)
    np.testing.assert_array_equal(known, want)
    np.testing.assert_array_equal(codes, inverse.reshape(-1))


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.text(alphabet="abcé019", min_size=1, max_size=20), min_size=1,
                    max_size=60))
def test_encoding_by_the_sort_is_the_encoding_by_hashing(ids: list[str]) -> None:
    column = np.array(ids)
    original = _distinct.SORT_ROWS
    small, _key_table.SMALL_ROWS = _key_table.SMALL_ROWS, 0  # the long columns' paths
    try:
        _distinct.SORT_ROWS = 0
        by_sort = _keys.encode(column)
    finally:
        _distinct.SORT_ROWS = original
    assert by_sort.labels[by_sort.codes].tolist() == ids
    assert sorted(by_sort.labels.tolist()) == sorted(set(ids))
    _distinct.SORT_ROWS = 1 << 62
    try:
        by_hash = _keys.encode(column)
    finally:
        _distinct.SORT_ROWS, _key_table.SMALL_ROWS = original, small
    # The same partition of the rows.
    assert np.array_equal(by_sort.codes[:, None] == by_sort.codes[None, :],
                          by_hash.codes[:, None] == by_hash.codes[None, :])


def test_mostly_distinct() -> None:
    assert _distinct.mostly_distinct(np.arange(1000, dtype=np.uint64))
    assert not _distinct.mostly_distinct(np.arange(1000, dtype=np.uint64) % 10)
    # A run whose first queries hold distinct documents, from a pool of 5 x 10^4 ids.
    pooled = (np.arange(3 * 10**6, dtype=np.uint64) * 7919) % np.uint64(50_000)
    assert not _distinct.mostly_distinct(pooled)
    assert _distinct.mostly_distinct(np.arange(3 * 10**6, dtype=np.uint64) * np.uint64(3))


@settings(max_examples=80, deadline=None)
@given(ids=st.lists(st.text(alphabet="ab\x00é019", max_size=34), min_size=1, max_size=40),
       kind=st.sampled_from(["string", "large_string", "binary", "large_binary"]),
       cut=st.integers(0, 40))
def test_pyarrow_columns_of_distinct_ids_by_the_sort(ids: list[str], kind: str, cut: int) -> None:
    """The sort's encoding of a pyarrow column (chunked, sliced; NUL bytes, non-ASCII
    and ids over 32 bytes left to pyarrow's table) is the hash table's, row by row."""
    import pyarrow as pa

    from prcurve.ranking.arrow_ids import arrow_encode

    values: list[Any] = [i.encode() for i in ids] if "binary" in kind else ids
    array = pa.array(["pad", *values], type=getattr(pa, kind)())[1:]  # offset 1
    column = pa.chunked_array([array[:cut], array[cut:]])
    original = _distinct.SORT_ROWS, _arrow_ids.WORD_ROWS
    try:
        _distinct.SORT_ROWS = _arrow_ids.WORD_ROWS = 0
        by_sort = arrow_encode(column, False)
        _arrow_ids.WORD_ROWS = 1 << 62
        by_hash = arrow_encode(column, False)
    finally:
        _distinct.SORT_ROWS, _arrow_ids.WORD_ROWS = original
    assert by_sort.labels[by_sort.codes].tolist() == values
    assert by_hash.labels[by_hash.codes].tolist() == values


def test_the_switches_pick_the_faster_path(monkeypatch: Any) -> None:
    """The sizes measured (docs/benchmarks.md, session 36): ``keys.encode_words`` sorts
    mostly distinct ids from SORT_ROWS rows on (faster than the table from 64 rows),
    hashes shorter columns and repeated ids; a pyarrow text column is encoded as words
    from WORD_ROWS rows on (faster than pyarrow's table of the strings from about 2^11
    distinct ids), by that table below."""
    import pyarrow as pa

    calls: list[str] = []
    sorted_groups, distinct_codes = _groups.sorted_groups, _keys._distinct_codes
    monkeypatch.setattr(_groups, "sorted_groups",
                        lambda *a, **k: calls.append("sort") or sorted_groups(*a, **k))
    monkeypatch.setattr(_keys, "_distinct_codes",
                        lambda *a, **k: calls.append("table") or distinct_codes(*a, **k))
    words = [np.arange(1, 1 + 2 * 10**4, dtype=np.uint64) * np.uint64(7919)]
    for n, want in ((_distinct.SORT_ROWS, "sort"), (_distinct.SORT_ROWS - 1, "table")):
        calls.clear()
        _keys.encode_words([w[:n] for w in words])
        assert calls == [want], n
    calls.clear()
    _keys.encode_words([words[0] % np.uint64(100)])  # repeated ids: the table
    assert calls == ["table"]

    encode, dictionary = _arrow_ids.encode_words, _arrow_ids.arrow_dictionary
    monkeypatch.setattr(_arrow_ids, "encode_words",
                        lambda *a, **k: calls.append("words") or encode(*a, **k))
    monkeypatch.setattr(_arrow_ids, "arrow_dictionary",
                        lambda *a, **k: calls.append("arrow") or dictionary(*a, **k))
    ids = [f"d{i:07d}" for i in range(_arrow_ids.WORD_ROWS)]
    for column, want in ((ids, "words"), (ids[1:], "arrow"), (["dé", *ids], "arrow")):
        calls.clear()
        encoded = _arrow_ids.arrow_encode(pa.chunked_array([column]), False)
        assert encoded.labels[encoded.codes].tolist() == column
        assert calls[0] == want, len(column)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.integers(-2**63, 2**63 - 1), st.integers(-5, 5)),
                       min_size=1, max_size=80),
       dtype=st.sampled_from(["int64", "int32", "uint8", "uint64"]))
def test_integer_ids_by_the_sort_are_the_table_encoding(values: list[int], dtype: str) -> None:
    """``keys._integer_encode`` (integer ids: one sort when mostly distinct, else a hash
    table) partitions the rows as ``np.unique`` does, with the same values as labels,
    in every integer dtype (wrapped into it, as a column of that dtype holds them)."""
    ids = np.array(values, dtype=np.int64).astype(dtype)
    encoded = _keys._integer_encode(ids)
    labels, codes = encoded.labels, encoded.codes
    assert labels.dtype == ids.dtype
    assert labels[codes].tolist() == ids.tolist()
    assert sorted(labels.tolist()) == sorted(set(ids.tolist()))
    inverse = np.unique(ids, return_inverse=True)[1].reshape(-1)
    assert np.array_equal(codes[:, None] == codes[None, :],
                          inverse[:, None] == inverse[None, :])


@settings(max_examples=25, deadline=None)
@given(docs=st.lists(st.integers(-2**40, 2**40), min_size=2, max_size=60, unique=True),
       seed=st.integers(0, 2**16), form=st.sampled_from(["numpy", "pandas", "pyarrow"]))
def test_evaluate_from_integer_ids_by_the_sort(docs: list[int], seed: int, form: str) -> None:
    """Every form of an int64 document column, encoded by the sort, gives the
    measures that the hash table's encoding gives (ties broken by the ids)."""
    import pandas as pd
    import pyarrow as pa

    from prcurve.ranking import evaluate

    rng = np.random.default_rng(seed)
    n = len(docs)
    query = np.array(["q1"] * (n // 2) + ["q2"] * (n - n // 2))
    doc = np.array(docs, dtype=np.int64)
    score = rng.integers(0, 3, n).astype(np.float64)  # ties: ordered by id text
    grade = rng.integers(0, 3, n)

    def tables() -> tuple[Any, Any]:
        if form == "numpy":
            return (query, doc, grade), (query, doc, score)
        frames = ({"query_id": query, "doc_id": doc, "relevance": grade},
                  {"query_id": query, "doc_id": doc, "score": score})
        make = pd.DataFrame if form == "pandas" else pa.table
        return make(frames[0]), make(frames[1])

    measures = ["AP", "P@5", "ndcg", "RR"]
    original = _distinct.SORT_ROWS
    small, _key_table.SMALL_ROWS = _key_table.SMALL_ROWS, 0  # the long columns' paths
    try:
        _distinct.SORT_ROWS = 0
        got = evaluate(*tables(), measures)
        _distinct.SORT_ROWS = 1 << 62
        want = evaluate(*tables(), measures)
    finally:
        _distinct.SORT_ROWS, _key_table.SMALL_ROWS = original, small
    for m in measures:
        assert got.per_query[m].tolist() == want.per_query[m].tolist()

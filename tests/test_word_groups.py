"""Ids as words grouped by one sort (prcurve.ranking.word_groups, issue 26 item 5): the
groups are ``np.unique``'s, the neighbours in a group chain every row that shares a key,
the labels' words gathered on demand are the labels', the sorted search is the hash
table's, and the words of several pyarrow chunks written into one array are those of
each chunk read alone. ``evaluate`` from pyarrow Tables in chunks cut anywhere and from
pandas columns (``string[python]``, ``string[pyarrow]``, categorical) on that path equals
``evaluate`` from Python objects (``pd.factorize``, another path) and a slow oracle."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.errors import InvalidInputError
from prcurve.ranking import Qrels, Run, evaluate
from prcurve.ranking import byte_words as _byte_words
from prcurve.ranking import distinct_keys as _distinct
from prcurve.ranking import keys as _keys
from prcurve.ranking import word_groups as _groups
from prcurve.ranking.byte_words import arrow_binary, byte_words, chunk_words
from prcurve.ranking.key_table import KeyTable

KEYS = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 2**64 - 1),
                          st.integers(2**64 - 50, 2**64 - 1)), max_size=300)


@contextmanager
def sort_always() -> Iterator[None]:
    """Every column long enough for the sort, and a pyarrow text column for its words
    (tests use a few rows)."""
    from prcurve.ranking import arrow_ids, key_table

    original = _distinct.SORT_ROWS, arrow_ids.WORD_ROWS, key_table.SMALL_ROWS
    _distinct.SORT_ROWS = arrow_ids.WORD_ROWS = key_table.SMALL_ROWS = 0  # no small route
    try:
        yield
    finally:
        _distinct.SORT_ROWS, arrow_ids.WORD_ROWS, key_table.SMALL_ROWS = original


@contextmanager
def blocks_of(rows: int) -> Iterator[None]:
    """Rows hashed and packed ``rows`` at a time (tests use a few rows)."""
    original = _groups.BLOCK_ROWS
    _groups.BLOCK_ROWS = rows
    try:
        yield
    finally:
        _groups.BLOCK_ROWS = original


@settings(max_examples=150, deadline=None)
@given(values=KEYS, spread=st.booleans(), block=st.integers(1, 70))
def test_sorted_groups_are_np_unique(values: list[int], spread: bool, block: int) -> None:
    key = np.array(values, dtype=np.uint64)
    with blocks_of(block):
        groups = _groups.sorted_groups(key.copy(), spread=spread)
    want, inverse = np.unique(key, return_inverse=True)
    assert sorted(groups.known.tolist()) == want.tolist()
    np.testing.assert_array_equal(groups.known[groups.codes], key)  # each row's key
    np.testing.assert_array_equal(groups.codes[groups.first_row], np.arange(want.shape[0]))
    # The same partition as np.unique's.
    assert np.array_equal(groups.codes[:, None] == groups.codes[None, :],
                          inverse[:, None] == inverse[None, :])
    # Every row that shares its key is a repeat once, chained to an earlier one of its
    # group: n - groups links, each within a group, none back to itself.
    assert groups.repeat.shape[0] == key.shape[0] - want.shape[0]
    assert len(set(groups.repeat.tolist())) == groups.repeat.shape[0]
    np.testing.assert_array_equal(key[groups.repeat], key[groups.previous])
    assert not set(groups.repeat.tolist()) & set(groups.first_row.tolist())
    if not spread:
        assert groups.known.tolist() == want.tolist()  # ascending


def test_one_word_ids_sharing_their_top_bits() -> None:
    # Seven-digit ids as one word: their top five bytes are shared by 100 ids each, so
    # unspread nearly every row is in a group of equal top bits; spread, the same groups.
    ids = np.char.mod("%07d", np.random.default_rng(1).integers(0, 10**5, 2**17))
    key = _keys.text_words(ids)
    assert key is not None
    assert len(key) == 1
    plain = _groups.sorted_groups(key[0])
    spread = _groups.sorted_groups(key[0], spread=True)
    for groups in (plain, spread):
        np.testing.assert_array_equal(groups.known[groups.codes], key[0])
        assert groups.known.shape[0] == np.unique(ids).shape[0]


@settings(max_examples=50, deadline=None)
@given(words=st.lists(st.lists(st.integers(0, 2**64 - 1), min_size=20, max_size=20),
                      min_size=1, max_size=3), block=st.integers(1, 25))
def test_mix_in_blocks_is_one_pass(words: list[list[int]], block: int) -> None:
    columns = [np.array(w, dtype=np.uint64) for w in words]
    whole = _keys._mix(columns)
    with blocks_of(block):
        np.testing.assert_array_equal(_keys._mix(columns), whole)
    # The hash of one row is that row's alone (a column of that row, hashed again).
    for row in (0, 7, 19):
        np.testing.assert_array_equal(_keys._mix([c[row:row + 1] for c in columns]),
                                      whole[row:row + 1])


@settings(max_examples=100, deadline=None)
@given(sorted_keys=st.lists(st.integers(0, 2**64 - 1), max_size=60, unique=True),
       keys=st.lists(st.integers(0, 2**64 - 1), max_size=60, unique=True),
       shared=st.integers(0, 20))
def test_found_in_sorted_is_the_key_table(sorted_keys: list[int], keys: list[int],
                                          shared: int) -> None:
    table_keys = list(dict.fromkeys(keys + sorted_keys[:shared]))  # some shared, distinct
    haystack = np.array(sorted(sorted_keys), dtype=np.uint64)
    needles = np.array(table_keys, dtype=np.uint64)
    got = _groups.found_in_sorted(haystack, needles)
    np.testing.assert_array_equal(got, KeyTable(needles).find(haystack))


STRINGS = st.lists(st.binary(min_size=0, max_size=34), min_size=0, max_size=40)


@settings(max_examples=120, deadline=None)
@given(values=STRINGS, cuts=st.lists(st.integers(0, 40), max_size=4),
       large=st.booleans(), offset=st.integers(0, 3), block=st.integers(1, 9),
       wide=st.booleans())
def test_chunk_words_are_each_chunks_words(values: list[bytes], cuts: list[int],
                                           large: bool, offset: int, block: int,
                                           wide: bool) -> None:
    """Chunks cut anywhere (empty ones too), sliced (offsets not from 0), strings
    ending at the buffer's end, read in blocks of any size, offsets as stored (int32
    for ``binary``: the bound of the strings read in place is searched in their type)
    or widened: the words written in place are byte_words' of each chunk."""
    import pyarrow as pa

    kind = pa.large_binary() if large else pa.binary()
    array = pa.array([b"pad"] * offset + values, type=kind)[offset:]
    bounds = [0, *sorted(min(c, len(values)) for c in cuts), len(values)]
    chunks = [array[a:b] for a, b in itertools.pairwise(bounds)]
    n_words = max((max(map(len, values), default=0) + 7) // 8, 1)
    buffers = [arrow_binary(c, wide=wide) for c in chunks]
    original = _byte_words.BLOCK_ROWS
    _byte_words.BLOCK_ROWS = block  # blocks of rows cut anywhere too
    try:
        got = chunk_words(buffers, n_words)
    finally:
        _byte_words.BLOCK_ROWS = original
    for k in range(n_words):
        want = np.concatenate([np.zeros(0, dtype=np.uint64)] + [
            byte_words(b, o[:-1], np.diff(o), n_words)[k] for b, o in buffers])
        np.testing.assert_array_equal(got[k], want)
    # And the words are the strings: their bytes back, NUL padding dropped.
    if values and all(v and 0 not in v for v in values):
        assert _keys.word_labels(got).tolist() == values


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.sampled_from([b"d1", b"doc-000000001", b"doc-000000002",
                                      b"prefix00x", b"prefix00y", b"a" * 32]),
                     min_size=1, max_size=40))
def test_labels_words_on_demand(rows: list[bytes]) -> None:
    """Several words: the labels' words are the rows' until asked for (no gather);
    ``label_words``, ``words``, ``labels``, ``n_labels`` and ``with_codes`` agree."""
    buffer = np.frombuffer(b"".join(rows), dtype=np.uint8)
    lengths = np.array([len(r) for r in rows])
    words = byte_words(buffer, np.cumsum(lengths) - lengths, lengths)
    with sort_always():
        encoded = _keys.encode_words(words)
    assert encoded.has_words
    assert encoded.n_labels == len(set(rows))
    same = encoded.with_codes(encoded.codes, True)
    index = np.arange(encoded.n_labels)[::-1]
    picked = encoded.label_words(index)
    assert _keys.word_labels(picked).tolist() == _keys.word_labels(
        encoded.label_words())[::-1].tolist()
    assert [w.tolist() for w in same.words or []] == [w.tolist() for w in
                                                     encoded.label_words()]
    assert encoded.labels[encoded.codes].tolist() == rows
    assert not encoded.has_words
    assert encoded.words is None
    assert same.labels[same.codes].tolist() == rows


def test_a_collision_in_a_group_is_found() -> None:
    # Distinct ids of two words whose hash is made to collide (the first word only):
    # the neighbours in the sorted groups differ, so the exact encoding is used.
    rows = [b"x%07dabc" % i for i in range(50)] + [b"prefix00a", b"prefix00b", b"prefix00a"]
    buffer = np.frombuffer(b"".join(rows), dtype=np.uint8)
    lengths = np.array([len(r) for r in rows])
    original = _keys._mix
    _keys._mix = lambda words: words[0].copy()
    try:
        with sort_always():
            words = byte_words(buffer, np.cumsum(lengths) - lengths, lengths)
            encoded = _keys.encode_words(words)
    finally:
        _keys._mix = original
    assert encoded.labels[encoded.codes].tolist() == rows
    assert encoded.labels.shape[0] == 52


# -- evaluate from columns on the sort's path -----------------------------------------

IDS = st.text(alphabet=st.sampled_from(["d", "1", "2", "x", "-"]), min_size=1, max_size=20)


def _oracle_ap(docs: list[str], scores: Any, relevant: set[str]) -> float:
    """AP of one query: score descending, then document id descending (byte order)."""
    order = sorted(range(len(docs)),
                   key=lambda i: (-scores[i], (*(-b for b in docs[i].encode()), 1)))
    hits, total = 0, 0.0
    for rank, i in enumerate(order, 1):
        if docs[i] in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant) if relevant else 0.0


@settings(max_examples=40, deadline=None)
@given(docs=st.lists(IDS, min_size=2, max_size=40, unique=True), seed=st.integers(0, 2**16),
       cuts=st.lists(st.integers(0, 40), max_size=3),
       form=st.sampled_from(["string", "large_string", "pandas_python", "pandas_pyarrow",
                             "categorical"]),
       block=st.sampled_from([1, 3, 7, 1 << 16]))
def test_evaluate_from_columns_by_the_sort(docs: list[str], seed: int, cuts: list[int],
                                           form: str, block: int) -> None:
    import pandas as pd
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    n = len(docs)
    scores = rng.integers(0, 3, n).astype(np.float64)  # ties: ordered by id
    judged = rng.choice(n, size=max(n // 2, 1), replace=False)
    qrels_d = [docs[i] for i in judged] + ["zz-not-in-run"]
    grades = rng.integers(0, 2, len(qrels_d))
    bounds = [0, *sorted(min(c, n) for c in cuts), n]

    def column(values: list[str]) -> Any:
        if form in ("string", "large_string"):  # chunks cut anywhere, empty ones too
            kind = getattr(pa, form)()
            return pa.chunked_array([pa.array(values[a:b], type=kind) for a, b in
                                     itertools.pairwise(bounds)], type=kind)
        dtype = {"pandas_python": "string[python]", "pandas_pyarrow": "string[pyarrow]",
                 "categorical": "category"}[form]
        return pd.Series(values, dtype=dtype)

    def frame(query: list[str], doc: list[str], name: str, value: Any) -> Any:
        if form in ("string", "large_string"):
            return pa.table({"query_id": column(query), "doc_id": column(doc), name: value})
        return pd.DataFrame({"query_id": column(query), "doc_id": column(doc), name: value})

    run = frame(["q1"] * n, docs, "score", scores)
    qrels = frame(["q1"] * len(qrels_d), qrels_d, "relevance", grades)
    measures = ["AP", "P@5", "AP@3"]
    with sort_always(), blocks_of(block):  # the sort's steps in blocks of a few rows
        got = evaluate(qrels, run, measures)
        if form != "categorical":  # ASCII ids from text columns: words, no labels made
            assert Run.coerce(run)._docs.has_words
    want = evaluate(Qrels.from_arrays(np.array(["q1"] * len(qrels_d), dtype=object),
                                      np.array(qrels_d, dtype=object), grades),
                    Run.from_arrays(np.array(["q1"] * n, dtype=object),
                                    np.array(docs, dtype=object), scores), measures)
    for m in measures:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
    relevant = {d for d, g in zip(qrels_d, grades.tolist(), strict=True) if g >= 1}
    assert abs(float(got.per_query["AP"][0]) - _oracle_ap(docs, scores, relevant)) < 1e-12


@pytest.mark.parametrize("kind", ["string", "large_string"])
def test_a_null_id_in_a_chunked_column_is_named(kind: str) -> None:
    import pyarrow as pa

    typ = getattr(pa, kind)()
    doc = pa.chunked_array([pa.array(["d1", "d2"], type=typ), pa.array([None, "d4"], type=typ)])
    run = pa.table({"query_id": ["q1"] * 4, "doc_id": doc, "score": [1.0, 2.0, 3.0, 4.0]})
    qrels = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    with pytest.raises(InvalidInputError, match=r"doc_id: 1 missing ids .*first at row 2"), \
            sort_always():
        evaluate(qrels, run, ["AP"])


@pytest.mark.parametrize("ids", [[f"d\xe9{i}" for i in range(40)],  # non-ASCII: the table
                                 [f"document-with-a-long-id-{i:020d}" for i in range(40)]])
def test_long_and_non_ascii_ids_from_chunks(ids: list[str]) -> None:
    import pyarrow as pa

    doc = pa.chunked_array([ids[:13], ids[13:13], ids[13:]])
    scores = np.arange(40, dtype=np.float64) % 3
    run = pa.table({"query_id": ["q1"] * 40, "doc_id": doc, "score": scores})
    qrels = pa.table({"query_id": ["q1"] * 5, "doc_id": ids[::8], "relevance": [1] * 5})
    with sort_always():
        got = evaluate(qrels, run, ["AP"])
    assert abs(float(got.per_query["AP"][0]) - _oracle_ap(ids, scores, set(ids[::8]))) < 1e-12


def test_evaluate_from_chunked_columns_is_pytrec_eval() -> None:
    """Three queries of distinct two-word ids (ties in score), a pyarrow Table in three
    chunks and pandas ``string[pyarrow]`` columns, both on the sort's path: AP, P@10
    and AP@100 per query are pytrec_eval's (its own C, given the same rows)."""
    import pandas as pd
    import pyarrow as pa
    import pytrec_eval

    rng = np.random.default_rng(7)
    queries, depth = ["q1", "q2", "q3"], 150
    run_q = np.repeat(queries, depth)
    run_d = np.array([f"doc{i:06d}" for i in rng.choice(10**6, 3 * depth, replace=False)])
    scores = np.round(rng.random(3 * depth), 2)  # ties: ordered by document id
    judged = rng.random(3 * depth) < 0.3
    qrels_q = np.concatenate((run_q[judged], ["q2"]))
    qrels_d = np.concatenate((run_d[judged], ["doc-not-retrieved"]))
    grades = np.concatenate((rng.integers(0, 3, int(judged.sum())), [1]))
    run_rows = {"query_id": run_q, "doc_id": run_d, "score": scores}
    qrels_rows = {"query_id": qrels_q, "doc_id": qrels_d, "relevance": grades}
    chunked = pa.table({k: pa.chunked_array([v[:100], v[100:100], v[100:]])
                        for k, v in run_rows.items()})
    text = {"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels_q.tolist(), qrels_d.tolist(), grades.tolist(), strict=True):
        qrels_dict.setdefault(q, {})[d] = g
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run_q.tolist(), run_d.tolist(), scores.tolist(), strict=True):
        run_dict.setdefault(q, {})[d] = s
    want = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "P_10", "map_cut_100"}
                                          ).evaluate(run_dict)
    names = {"AP": "map", "P@10": "P_10", "AP@100": "map_cut_100"}
    for run, qrels in ((chunked, pa.table(qrels_rows)),
                       (pd.DataFrame(run_rows).astype(text),
                        pd.DataFrame(qrels_rows).astype(text))):
        with sort_always():
            got = evaluate(qrels, run, list(names))
            assert Run.coerce(run)._docs.has_words  # the words' path, no labels made
        for i, query in enumerate(got.query_ids.tolist()):
            for measure, theirs in names.items():
                assert abs(float(got.per_query[measure][i]) - want[query][theirs]) < 1e-12

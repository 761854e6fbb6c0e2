"""The id encoding behind ranking evaluation, against numpy's exact ``unique``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import id_columns

from prcurve.core import sorting
from prcurve.ranking import key_table as _key_table
from prcurve.ranking import keys as _keys


@settings(max_examples=200, deadline=None)
@given(ids=id_columns(), grouped=st.booleans(), sort_labels=st.booleans(),
       small=st.booleans())
def test_encode_is_an_exact_dictionary(ids: np.ndarray, grouped: bool, sort_labels: bool,
                                       small: bool) -> None:
    if grouped:
        ids = np.sort(ids)  # blocks of equal ids, the query-column case
    original = _key_table.SMALL_ROWS
    _key_table.SMALL_ROWS = original if small else 0  # short columns by the sort, or not
    try:
        encoded = _keys.encode(ids, grouped=grouped, sort_labels=sort_labels)
    finally:
        _key_table.SMALL_ROWS = original
    assert np.array_equal(encoded.labels[encoded.codes], ids)
    assert sorted(encoded.labels.tolist()) == sorted(set(ids.tolist()))  # distinct, all there
    if sort_labels:
        assert np.array_equal(encoded.labels, np.unique(ids))


@settings(max_examples=200, deadline=None)
@given(ids=id_columns(), targets=id_columns())
def test_match_finds_each_id_among_the_targets(ids: np.ndarray, targets: np.ndarray) -> None:
    if ids.dtype.kind != targets.dtype.kind:
        return  # callers bring both to one kind first
    targets = np.unique(targets)
    rng = np.random.default_rng(0)
    targets = targets[rng.permutation(targets.shape[0])]
    where = {t: i for i, t in enumerate(targets.tolist())}
    expected = [where.get(i, -1) for i in ids.tolist()]
    assert _keys.match(ids, targets).tolist() == expected


def test_colliding_keys_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every string hashing alike: the exact fallbacks give the same answers.
    monkeypatch.setattr(_keys, "id_keys", lambda ids: np.zeros(ids.shape[0], dtype=np.uint64))
    ids = np.array(["b", "a", "b", "c", "a"])
    encoded = _keys.encode(ids)
    assert np.array_equal(encoded.labels[encoded.codes], ids)
    assert encoded.labels.shape[0] == 3
    assert _keys.match(np.array(["c", "x", "a"]), np.array(["a", "b", "c"])).tolist() == [2, -1, 0]


def test_ids_padding_and_kinds_share_keys() -> None:
    # The same ASCII id hashes alike as U2, U5 and bytes.
    narrow = _keys.id_keys(np.array(["d1", "ab"]))
    wide = _keys.id_keys(np.array(["d1", "ab", "xxxxx"]))[:2]
    raw = _keys.id_keys(np.array([b"d1", b"ab"]))
    assert narrow.tolist() == wide.tolist() == raw.tolist()
    assert len(set(_keys.id_keys(np.arange(-5, 5)).tolist())) == 10


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(0, 2**64 - 1), max_size=200))
def test_key_table_and_distinct(values: list[int]) -> None:
    keys = np.array(values, dtype=np.uint64)
    table_keys = _keys.distinct(keys)
    assert table_keys.tolist() == sorted(set(values))
    found = _keys.KeyTable(table_keys).find(keys)
    assert np.array_equal(table_keys[found], keys)
    absent = np.array([v ^ 1 for v in values if v ^ 1 not in set(values)], dtype=np.uint64)
    assert (_keys.KeyTable(table_keys).find(absent) == -1).all()


BYTE_IDS = st.binary(min_size=1, max_size=20).filter(lambda b: b"\x00" not in b)


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(BYTE_IDS, min_size=1, max_size=40), data=st.data())
def test_words_encode_byte_strings_exactly(ids: list[bytes], data: Any) -> None:
    # The ids laid out in one buffer, as a file's fields are; some ids repeated.
    rows = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=60))
    grouped = data.draw(st.booleans())
    if grouped:
        rows = sorted(rows)
    gap = data.draw(st.sampled_from([b" ", b"\t\t"]))
    buffer = np.frombuffer(gap.join(rows), dtype=np.uint8)
    lengths = np.array([len(r) for r in rows])
    starts = np.cumsum(lengths + len(gap)) - lengths - len(gap)
    words = _keys.byte_words(buffer, starts, lengths)
    assert _keys.word_labels(words).tolist() == rows  # the words are the bytes
    encoded = _keys.encode_words(words, grouped=grouped)
    assert encoded.labels[encoded.codes].tolist() == rows
    assert len(set(encoded.labels.tolist())) == encoded.labels.shape[0]


def test_word_hash_collisions_fall_back_to_exact_codes() -> None:
    rows = [b"a" * 12, b"b" * 12, b"a" * 12, b"c" * 9]
    buffer = np.frombuffer(b"".join(rows), dtype=np.uint8)
    lengths = np.array([len(r) for r in rows])
    words = _keys.byte_words(buffer, np.cumsum(lengths) - lengths, lengths)
    original = _keys._mix
    _keys._mix = lambda ws: np.zeros(ws[0].shape[0], dtype=np.uint64)
    try:
        encoded = _keys.encode_words(words)
    finally:
        _keys._mix = original
    assert encoded.labels[encoded.codes].tolist() == rows
    assert encoded.labels.shape[0] == 3


@st.composite
def pair_columns(draw: Any) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Codes of (query, document) rows: grouped by query with equal or ragged
    blocks, or shuffled, or a query split into two blocks; with or without a
    repeated pair; some labels without rows."""
    n_first = draw(st.integers(1, 6))
    n_second = draw(st.integers(1, 9))
    rows = []
    for query in range(n_first):
        docs = draw(st.lists(st.integers(0, n_second - 1), max_size=n_second, unique=True))
        if draw(st.booleans()) and docs:
            docs = [*docs, draw(st.sampled_from(docs))]  # a repeat within the block
        rows += [(query, d) for d in docs]
    layout = draw(st.sampled_from(["grouped", "shuffled", "split"]))
    if layout == "shuffled":
        rows = draw(st.permutations(rows))
    elif layout == "split" and len(rows) > 2:  # the first rows of a query moved to the end
        rows = rows[1:] + rows[:1]
    first = np.array([q for q, _ in rows], dtype=np.int64)
    second = np.array([d for _, d in rows], dtype=np.int64)
    return first, second, n_first, n_second


@settings(max_examples=300, deadline=None)
@given(columns=pair_columns(), threads=st.integers(1, 4))
def test_repeated_pairs_is_exact(columns: tuple[np.ndarray, np.ndarray, int, int],
                                 threads: int) -> None:
    """Against a set of the pairs; with ``threads`` > 1 the blocks of a grouped column
    are sorted in that many threads (parallel from 2 cells on)."""
    first, second, n_first, n_second = columns
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    saved = sorting.MIN_PARALLEL
    sorting.MIN_PARALLEL = 1 if threads > 1 else saved
    sorting.set_sort_threads(threads)
    try:
        found = _keys.repeated_pairs(first, second, n_first, n_second)
    finally:
        sorting.MIN_PARALLEL = saved
        sorting.set_sort_threads(None)
    assert found == (len(set(pairs)) < len(pairs))


def test_repeated_pairs_on_equal_blocks_and_large_codes() -> None:
    # Equal blocks (a reshape, no padding), a repeat in the last block only.
    first = np.repeat(np.arange(3), 4)
    second = np.array([0, 1, 2, 3, 3, 2, 1, 0, 5, 6, 7, 5])
    assert _keys.repeated_pairs(first, second, 3, 8)
    second[-1] = 4
    assert not _keys.repeated_pairs(first, second, 3, 8)
    # Codes too large for 32 bits: the general sort of 64-bit pairs.
    assert _keys.repeated_pairs(np.array([0, 1, 0]), np.array([7, 7, 7]), 2, 2**33)
    assert not _keys.repeated_pairs(np.array([0, 1, 0]), np.array([7, 7, 8]), 2, 2**33)

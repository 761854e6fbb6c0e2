"""The sort that encodes mostly distinct keys (real document ids;
``word_groups.sorted_groups``, chosen by ``distinct_keys``) gives what a plain
``np.unique`` gives, exactly, also when keys share their top bits (the rows' numbers
take the low bits of the sorted words, so such keys need the second sort)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import distinct_keys as _distinct
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
        _distinct.SORT_ROWS = original
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
    original = _distinct.SORT_ROWS, _distinct.SAMPLE_ROWS
    try:
        _distinct.SORT_ROWS = 0
        by_sort = arrow_encode(column, False)
    finally:
        _distinct.SORT_ROWS, _distinct.SAMPLE_ROWS = original
    by_hash = arrow_encode(column, False)
    assert by_sort.labels[by_sort.codes].tolist() == values
    assert by_hash.labels[by_hash.codes].tolist() == values

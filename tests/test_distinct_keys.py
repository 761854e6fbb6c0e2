"""The sort that encodes mostly distinct keys (real document ids) gives what a plain
``np.unique`` gives, exactly, also when keys share their top bits (the rows' numbers
take the low bits of the sorted words, so such keys need the second sort)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import distinct_keys as _distinct
from prcurve.ranking import keys as _keys

KEYS = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 2**64 - 1),
                          st.integers(2**64 - 50, 2**64 - 1)), max_size=300)


@settings(max_examples=200, deadline=None)
@given(values=KEYS)
def test_sorted_codes_are_np_unique(values: list[int]) -> None:
    key = np.array(values, dtype=np.uint64)
    known, codes = _distinct.sorted_codes(key.copy())
    want, inverse = np.unique(key, return_inverse=True)
    np.testing.assert_array_equal(known, want)
    np.testing.assert_array_equal(codes, inverse.reshape(-1))


def test_keys_equal_in_their_top_bits_are_told_apart() -> None:
    # 2^20 rows take 20 low bits: keys below 2^20 all share their top bits (zero).
    rng = np.random.default_rng(0)
    key = rng.integers(0, 2**20, 2**20).astype(np.uint64)
    known, codes = _distinct.sorted_codes(key)
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

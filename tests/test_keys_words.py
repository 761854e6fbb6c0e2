"""Ids as words (prcurve.ranking.keys.encode_words): exact codes whatever the hash does.

A weak hash (the first word only: ids equal in their first 8 bytes collide) is put in
place of the real one; the codes must still tell exactly the ids apart, on the path for
mostly distinct ids (only rows sharing a code compared) and on the general one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from prcurve.ranking import key_table as _key_table
from prcurve.ranking import keys as _keys

# 9 to 16 bytes: two words; a shared 8-byte prefix makes the weak hash collide.
IDS = st.lists(st.sampled_from([b"prefix00", b"prefix01", b"other-id"]).flatmap(
    lambda head: st.binary(min_size=1, max_size=8).filter(lambda t: 0 not in t).map(
        lambda tail: head + tail)), min_size=1, max_size=80)


@contextmanager
def words_path() -> Iterator[None]:
    """Short columns encoded as words too, not by the sort of short columns."""
    original, _key_table.SMALL_ROWS = _key_table.SMALL_ROWS, 0
    try:
        yield
    finally:
        _key_table.SMALL_ROWS = original


def _words(rows: list[bytes]) -> list[Any]:
    buffer = np.frombuffer(b"".join(rows), dtype=np.uint8)
    lengths = np.array([len(r) for r in rows])
    return _keys.byte_words(buffer, np.cumsum(lengths) - lengths, lengths)


@contextmanager
def weak_hash() -> Iterator[None]:
    original = _keys._mix
    _keys._mix = lambda words: words[0].copy()
    try:
        yield
    finally:
        _keys._mix = original


@given(rows=IDS, repeat=st.booleans())
def test_codes_are_exact_under_collisions(rows: list[bytes], repeat: bool) -> None:
    if repeat:  # most rows repeated: the general check
        rows = rows * 3
    with weak_hash():
        encoded = _keys.encode_words(_words(rows))
    assert encoded.labels[encoded.codes].tolist() == rows
    assert encoded.labels.shape[0] == len(set(rows))


def test_one_collision_among_distinct_ids_is_found() -> None:
    # Distinct ids, two of which share their first word (and so the weak hash).
    rows = [b"x%07dabc" % i for i in range(100)] + [b"prefix00a", b"prefix00b", b"prefix00a"]
    with weak_hash():
        encoded = _keys.encode_words(_words(rows))
    assert encoded.labels[encoded.codes].tolist() == rows
    assert encoded.labels.shape[0] == 102


TEXT = st.text(alphabet=st.sampled_from(["d", "x", "1", "9", "\xe9", "\u4e2d"]), min_size=1,
               max_size=20)


@given(ids=st.lists(TEXT, min_size=1, max_size=40), targets=st.lists(TEXT, max_size=20,
                                                                      unique=True),
       weak=st.booleans())
def test_match_with_the_encodings_keys_equals_a_dict(ids: list[str], targets: list[str],
                                                     weak: bool) -> None:
    # The run's labels keep the keys their words gave (one to three words); the
    # judged ids, narrower or wider, are keyed the same way or the labels hashed again.
    # A weak hash (the first word) makes ids sharing 8 characters collide.
    def run() -> Any:
        with words_path():
            known = _keys.encode(np.array(ids))
        return known, _keys.match(known.labels, np.array(targets, dtype=str), known)

    if weak:
        with weak_hash():
            known, found = run()
    else:
        known, found = run()
    index = {t: k for k, t in enumerate(targets)}
    assert found.tolist() == [index.get(label, -1) for label in known.labels.tolist()]


def test_match_reuses_the_keys_of_words() -> None:
    # The path the keys serve is taken: labels of two words against narrower targets.
    with words_path():
        known = _keys.encode(np.array(["d123456789", "d2", "d123456789"]))
    assert known.key_words == 2
    assert known.label_keys is not None
    targets = np.array(["d2", "x"])
    assert _keys._reused_keys(known.labels, targets, known) is not None
    assert _keys.match(known.labels, targets, known).tolist() == [
        0 if label == "d2" else -1 for label in known.labels.tolist()]


@given(table=st.lists(st.integers(0, 2**64 - 1), max_size=30, unique=True),
       others=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=300),
       seed=st.integers(0, 2**16))
def test_key_table_screened_lookups_equal_a_dict(table: list[int], others: list[int],
                                                 seed: int) -> None:
    # At least 8 lookups per table key: the bit filter screens them first.
    from prcurve.ranking.key_table import KeyTable

    rng = np.random.default_rng(seed)
    wanted = np.array(others + table * 8, dtype=np.uint64)
    wanted = wanted[rng.permutation(wanted.shape[0])]
    found = KeyTable(np.array(table, dtype=np.uint64)).find(wanted)
    index = {k: i for i, k in enumerate(table)}
    assert found.tolist() == [index.get(int(k), -1) for k in wanted.tolist()]

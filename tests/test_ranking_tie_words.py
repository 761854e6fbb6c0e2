"""Tied documents ordered by their ids' bytes descending (trec_eval's ``strcmp`` in
``form_res_rels.c``), however the ids are held: numpy text or bytes, words of labels not
made yet, int64 numbers (their decimal text). Session 36: the general path's tie order is
the dict join's one stable sort of a 64-bit key per tied row (prcurve.ranking.tie_keys).

The oracle is Python's ``sorted`` of each tie's ids by their UTF-8 bytes (integers: the
bytes of their decimal text, as trec_eval reads them from a file), descending.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.ranking import keys as _keys
from prcurve.ranking import tie_keys
from prcurve.ranking.join import _tie_moves

# ASCII, Latin-1 (one byte as a word, two in UTF-8) and wider characters (no words);
# ids of 0 to 40 characters after a prefix: one to four words, past four (no words),
# empty ids (no words), prefixes longer than a word (the leading 64 bits agree).
PREFIXES = st.sampled_from(["", "d", "doc-", "abcdefg", "abcdefgh", "clueweb09-en0000-",
                            "\xe9t\xe9-", "\u4e2d"])
TAILS = st.text(alphabet=st.sampled_from(["a", "b", "Z", "0", "9", "-", "~", "\x01", "\xe9",
                                          "\xff", "\u4e2d", "\U0001f600"]),
                min_size=0, max_size=24)
INT_IDS = st.one_of(
    st.lists(st.one_of(st.integers(-2**63, 2**63 - 1), st.integers(-1000, 1000),
                       st.integers(10**17, 10**18 + 10**6)),
             min_size=1, max_size=40, unique=True),
    # 19-digit ids agreeing in their first 16 bytes of text, beside int64's least (its
    # text 20 bytes): equal keys, told apart by their words.
    st.lists(st.integers(10**18, 10**18 + 999), min_size=1, max_size=40, unique=True).map(
        lambda ids: [-2**63, *ids]),
)


def _ties(n_ids: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions holding document codes, in runs of tied rows (each run's codes distinct,
    as a query lists a document once), and ``tie[i]``: positions i and i + 1 tie."""
    rng = np.random.default_rng(seed)
    docs, tie = [], []
    for _ in range(int(rng.integers(1, 6))):
        size = int(rng.integers(1, n_ids + 1))
        docs.extend(rng.choice(n_ids, size, replace=False).tolist())
        tie.extend([True] * (size - 1) + [False])
    return np.array(docs, dtype=np.int64), np.array(tie[:-1], dtype=bool)


def _check(ids: list[Any], order_key: Any, docs: _keys.Encoded, doc: np.ndarray,
           tie: np.ndarray) -> None:
    moves = _tie_moves(tie, docs, doc)
    result = doc.copy()
    if moves is not None:
        tied, source = moves
        result[tied] = doc[source]
    # The oracle: each run of tied positions sorted by the ids' bytes, descending.
    cuts = np.flatnonzero(~tie) + 1
    expected = np.concatenate([sorted(part.tolist(), key=lambda d: order_key(ids[d]),
                                      reverse=True) for part in np.split(doc, cuts)])
    assert [ids[d] for d in result] == [ids[d] for d in expected]


@settings(max_examples=150, deadline=None)
@given(prefix=PREFIXES, tails=st.lists(TAILS, min_size=1, max_size=30, unique=True),
       seed=st.integers(0, 2**16))
def test_tied_text_ids_descend_in_byte_order(prefix: str, tails: list[str], seed: int) -> None:
    ids = [prefix + tail for tail in tails]
    doc, tie = _ties(len(ids), seed)
    codes = np.arange(len(ids))
    forms = [(np.array(ids), str.encode)]
    if all("\0" not in i and not i.endswith("\x00") for i in ids):
        forms.append((np.array([i.encode() for i in ids], dtype=object).astype(bytes),
                      str.encode))
    for labels, key in forms:
        _check(ids, key, _keys.Encoded(labels, codes), doc, tie)
        words = _keys.text_words(labels)
        if words is not None:  # labels not made yet: their words are read, not made
            lazy = _keys.Encoded(None, codes, words=words, text=labels.dtype.kind == "U")
            _check(ids, key, lazy, doc, tie)
            assert lazy.has_words


@settings(max_examples=150, deadline=None)
@given(ids=INT_IDS, seed=st.integers(0, 2**16))
def test_tied_int64_ids_descend_as_their_decimal_text(ids: list[int], seed: int) -> None:
    doc, tie = _ties(len(ids), seed)
    labels = np.array(ids, dtype=np.int64)
    _check(ids, lambda i: str(i).encode(), _keys.Encoded(labels, np.arange(len(ids))), doc, tie)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["", "d", "doc-", "abcdefg", "abcdefgh", "abcdefghijkl"]),
       st.lists(st.text(alphabet="ab09z~", min_size=1, max_size=12), min_size=1, max_size=30,
                unique=True))
def test_leading_key_never_falls_as_the_id_rises(prefix: str, tails: list[str]) -> None:
    # tie_keys.leading_key: keys compare as the ids do where they differ; equal keys
    # (ids agreeing in the bits kept) are then told apart by their words.
    ids = sorted((prefix + tail for tail in tails), key=str.encode)
    words = _keys.text_words(np.array(ids))
    if words is None:
        return
    key = tie_keys.leading_key(words).tolist()
    assert key == sorted(key)
    exact = list(zip(*(w.tolist() for w in words), strict=True))
    assert exact == sorted(exact)
    assert len(set(exact)) == len(ids)


def test_id_words_order_integers_as_text() -> None:
    ids = np.array([9, 10, 100, 2, -5, -40, 0, 2**63 - 1, -2**63, 10**18])
    order = np.lexsort(tie_keys.id_words(ids)[::-1])
    assert [int(i) for i in ids[order]] == sorted(ids.tolist(), key=lambda i: str(i).encode())


def test_words_path_is_taken_for_short_latin1_ids() -> None:
    # The case the words serve (checked above for its order): short ids below 256.
    assert _keys.text_words(np.array(["d\xe9", "zz"])) is not None
    assert _keys.text_words(np.array(["\u4e2d", "a"])) is None


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**16), prefix=st.sampled_from(["d", "clueweb09-en0000-"]),
       many=st.booleans())
def test_tied_ids_of_a_large_encoded_column(seed: int, prefix: str, many: bool) -> None:
    # A column of 2^16+ ids encoded as words with the rows' words kept (keys.Encoded's
    # word_rows: mostly distinct ids of several words). ``many``: more tied rows than
    # labels (two ties holding every document), the keys made from the words as stored,
    # each tied row's through its label's standing row; else a few small ties (each
    # tied row's words gathered).
    rng = np.random.default_rng(seed)
    numbers = rng.choice(10**9, 70_000, replace=False)
    column = np.array([f"{prefix}{n}" for n in numbers.tolist()])
    docs = _keys.encode(column)
    assert docs.stored_words()[1] is not None  # the rows' words, a row per label
    ids = np.empty(docs.n_labels, dtype=object)
    ids[docs.codes] = column  # label i's id
    if many:
        doc = np.concatenate([rng.permutation(docs.n_labels) for _ in range(2)])
        tie = np.ones(doc.shape[0] - 1, dtype=bool)
        tie[docs.n_labels - 1] = False
    else:
        doc, tie = _ties(50, seed)
        doc = rng.choice(docs.n_labels, 50, replace=False)[doc]
    _check(list(ids), str.encode, docs, doc, tie)
    assert docs.has_words  # the labels were not made

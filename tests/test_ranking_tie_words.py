"""Tied documents ordered by their ids' bytes (trec_eval's ``strcmp``), whichever way
the ids are compared: as words (short ids, code points below 256) or as numpy text.

The oracle is Python's sort of each id's UTF-8 bytes (what trec_eval reads from a file).
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from prcurve.ranking import keys as _keys
from prcurve.ranking.join import _label_rank

# ASCII, Latin-1 (one byte as a word, two in UTF-8) and wider characters (no words);
# ids of 1 to 40 characters: one to four words, and past four (no words).
IDS = st.lists(
    st.text(alphabet=st.sampled_from(["a", "b", "Z", "0", "9", "-", "\xe9", "\xff", "\u4e2d"]),
             min_size=1, max_size=40),
    min_size=2, max_size=40, unique=True,
)


@given(ids=IDS, as_bytes=st.booleans(), seed=st.integers(0, 2**16))
def test_tied_documents_rank_in_byte_order(ids: list[str], as_bytes: bool, seed: int) -> None:
    labels = (np.array([i.encode() for i in ids]) if as_bytes else np.array(ids))
    rng = np.random.default_rng(seed)
    # Some tied pairs of positions in a run whose document codes are ``doc``.
    doc = rng.integers(0, len(ids), 2 * len(ids))
    pairs = np.flatnonzero(rng.random(doc.shape[0] - 1) < 0.5)
    if pairs.shape[0] == 0:
        pairs = np.array([0])
    tied = sorted({int(d) for d in np.concatenate((doc[pairs], doc[pairs + 1]))})
    codes = np.arange(len(ids))
    forms = [_keys.Encoded(labels, codes)]
    words = _keys.text_words(labels)
    if words is not None:  # labels not made yet: ranked from their words (issue 26, item 5)
        lazy = _keys.Encoded(None, codes, words=words, text=not as_bytes)
        forms.append(lazy)
    for docs in forms:
        rank = _label_rank(docs, doc, pairs)
        by_rank = sorted(tied, key=lambda d: int(rank[d]))
        assert by_rank == sorted(tied, key=lambda d: ids[d].encode())
    if words is not None:  # and the labels, made when asked for, are the ids
        assert lazy.words is not None
        assert lazy.labels.tolist() == labels.tolist()
        assert lazy.words is None


def test_words_path_is_taken_for_short_latin1_ids() -> None:
    # The case the words serve (checked above for its order): short ids below 256.
    assert _keys.text_words(np.array(["d\xe9", "zz"])) is not None
    assert _keys.text_words(np.array(["\u4e2d", "a"])) is None


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["", "d", "doc-", "abcdefg", "abcdefgh", "abcdefghijkl"]),
       st.lists(st.text(alphabet="ab09z~", min_size=1, max_size=12), min_size=1, max_size=30,
                unique=True))
def test_two_words_as_one_key_keep_the_ids_order(prefix: str, tails: list[str]) -> None:
    # Session 35 (join._one_key): two words become one key only where that is exact;
    # either way the order is the ids' byte order, equal keys only for equal ids.
    from prcurve.ranking import join as _join

    ids = np.array([prefix + tail for tail in tails])
    words = _keys.text_words(ids)
    assume(words is not None)
    keyed = _join._one_key(words)
    order = (np.argsort(keyed[0], kind="stable") if len(keyed) == 1
             else np.lexsort(keyed[::-1]))
    assert [ids[i] for i in order] == sorted(ids.tolist(), key=str.encode)
    if len(keyed) == 1:
        assert np.unique(keyed[0]).shape[0] == len(tails)

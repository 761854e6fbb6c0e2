"""``prcurve trec``'s run read once for its (query, document) pairs' 64-bit keys, so
that large qrels can be read against any run, large or not (issue 26, item 4;
session 37).

Session 36 read large qrels against a run read whole
(:func:`prcurve.ranking.trec_retrieved.read_against`), which needs the run's ids:
a run of 10^5 lines read whole took 20 MiB more than the C trec_eval's whole
process, and a run of 4 MiB or more (read in blocks, joined with qrels read whole)
held every judgment's columns: 10^6 judgments with a run of 10^6 lines peaked at
145 MiB against the C program's 107, 3·10^6 with 3·10^6 lines at 440 against 316.

:func:`run_pair_keys` reads the run's lines in blocks of :data:`BLOCK_BYTES` (the
exact reader's split, :func:`~prcurve.ranking.trec_format.split_fields`, so its
fields are those every reader of the run finds) and keeps one 64-bit key a line,
:func:`pair_keys` of its query's and its document's bytes, in a map of its own
(12 bytes of file a line at least, so ``size // 12 + 1`` keys; pages never written
are never resident). The keys sorted are a filter (:class:`RunKeys`): a judgment
whose (query, document) has one of them is kept as it is, the others counted per
(query, grade). Equal pairs give equal keys, so no judgment of a pair the run lists
is ever dropped; a judgment kept because of a collision is a real judgment, kept
with its real ids, that no run row matches (the rankings join it by its bytes): it
changes nothing but the memory it takes. Anything but a plain file (compressed, a
byte-order mark, a line the exact reader refuses, an id longer than
:data:`MAX_WORDS` words) returns None: the caller reads as before, and the readers
there name every error.
"""

from __future__ import annotations

import mmap
import os

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError
from prcurve.ranking.byte_words import byte_words
from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.trec_format import LAYOUT, line_blocks, open_plain, split_fields
from prcurve.ranking.word_groups import finalize

__all__ = ["BLOCK_BYTES", "MAX_WORDS", "RunKeys", "pair_keys", "run_pair_keys", "word_hash"]

BLOCK_BYTES = 1 << 20
"""The run is read this much at a time for its keys (a block's temporaries are some
ten times its size); tests lower it to put block boundaries everywhere."""

MAX_WORDS = 8
"""Ids of more words (8 bytes each) send the run to the readers of old."""

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

# Odd multipliers, one per word position (splitmix64's and Murmur3's constants and
# the golden ratio's): each word's bits moved by its position before the finalizer.
_POSITION = np.array([0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB,
                      0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x2545F4914F6CDD1D,
                      0xD6E8FEB86659FD93, 0xA0761D6478BD642F], dtype=np.uint64)
_QUERY_SALT = np.uint64(0x632BE59BD9B4E019)

QUERY_BITS = 20
"""A key's bits from its query alone (:func:`pair_keys`); the other 44 tell its
documents apart: a judgment of a document the run does not list for its query is
kept for a collision once in some 2^44 / (the query's run lines), a billion times
at 10^4 lines."""
_DOC_MASK = np.uint64((1 << (64 - QUERY_BITS)) - 1)


def word_hash(words: list[U64]) -> U64:
    """One 64-bit hash of each row's words (big-endian, zero past the id: byte_words),
    the same whatever number of zero words follow the id (a word of zero adds
    nothing: ``finalize(0) == 0``), so that blocks of different widths agree.

    Examples
    --------
    >>> one = [np.array([7], dtype=np.uint64)]
    >>> int(word_hash(one)[0]) == int(word_hash(one + [np.zeros(1, np.uint64)])[0])
    True
    """
    n = words[0].shape[0] if words else 0
    out = np.zeros(n, dtype=np.uint64)
    scratch = np.empty(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k, word in enumerate(words):
            term = word * _POSITION[k]
            out ^= finalize(term, scratch)
    return out


def pair_keys(query_hash: U64, doc_words: list[U64], doc_hash: U64 | None = None) -> U64:
    """Each row's key of (query, document) (equal pairs, equal keys): the top
    :data:`QUERY_BITS` bits its query's :func:`word_hash` (one per row), the others
    its document's mixed with its query's. The keys of one query are thus together
    once sorted, and a block of qrels (one query or a few) is looked up in their
    range alone, in cache (:meth:`RunKeys.listed`). ``doc_hash``: the documents'
    :func:`word_hash`, when known."""
    mixed: U64 = query_hash ^ _QUERY_SALT
    with np.errstate(over="ignore"):
        mixed *= _POSITION[0]
    finalize(mixed)
    mixed ^= word_hash(doc_words) if doc_hash is None else doc_hash
    mixed &= _DOC_MASK
    mixed |= query_hash & ~_DOC_MASK
    return mixed


def label_hashes(labels: list[bytes]) -> U64:
    """:func:`word_hash` of a few ids given as bytes (a block's distinct queries)."""
    width = max((len(label) + 7) // 8 for label in labels)
    padded = [label.ljust(8 * width, b"\0") for label in labels]
    matrix = np.frombuffer(b"".join(padded), dtype=">u8").reshape(len(labels), width)
    words: list[U64] = [matrix[:, k].astype(np.uint64) for k in range(width)]
    return word_hash(words)


class RunKeys:
    """The sorted keys of a run's (query, document) pairs (:func:`run_pair_keys`), as
    :func:`~prcurve.ranking.trec_retrieved.read_against_keys` asks of them whether the
    run may list each qrels row's pair (never False for a pair it lists).

    Examples
    --------
    >>> words = [np.array([int.from_bytes(b"d1".ljust(8, b"\\0"), "big")], np.uint64)]
    >>> keys = RunKeys(np.sort(pair_keys(label_hashes([b"q1"]), words)))
    >>> keys.listed([b"q1", b"q2"], np.array([0, 1]), [np.repeat(words[0], 2)]).tolist()
    [True, False]
    """

    def __init__(self, keys: U64) -> None:
        self.keys = keys  # sorted

    def listed(self, query_labels: list[bytes], query: I64, doc_words: list[U64],
               doc_hash: U64 | None = None) -> NDArray[np.bool_]:
        """Whether the run may list each row's (query, document): ``query`` holds the
        rows' codes among the distinct ``query_labels``, ``doc_words`` their documents'
        words, ``doc_hash`` their :func:`word_hash` if known (the rows' pairs' keys
        among the run's)."""
        key = pair_keys(label_hashes(query_labels)[query], doc_words, doc_hash)
        if self.keys.shape[0] == 0:
            return np.zeros(key.shape[0], dtype=bool)
        # The rows' keys sorted, so that each query's are together, and searched for
        # among the run's keys of their query (in cache: a binary search of 3·10^6
        # keys in the rows' order took 1.3 s of 2.2 at 3·10^6 judgments).
        order = np.argsort(key)
        key = key[order]
        found = np.zeros(key.shape[0], dtype=bool)
        prefix = key >> np.uint64(64 - QUERY_BITS)
        starts = np.flatnonzero(np.concatenate(([True], prefix[1:] != prefix[:-1])))
        ends = np.append(starts[1:], key.shape[0])
        for begin, end in zip(starts.tolist(), ends.tolist(), strict=True):
            low = key[begin] & ~_DOC_MASK
            lo = int(np.searchsorted(self.keys, low))
            hi = int(np.searchsorted(self.keys, low | _DOC_MASK, side="right"))
            theirs = self.keys[lo:hi]
            if theirs.shape[0] == 0:
                continue
            mine = key[begin:end]
            at = np.searchsorted(theirs, mine)
            at[at == theirs.shape[0]] = 0
            found[begin:end] = theirs[at] == mine
        out = np.empty(key.shape[0], dtype=bool)
        out[order] = found
        return out


def run_pair_keys(path: str | os.PathLike[str]) -> U64 | None:
    r"""The sorted keys (:func:`pair_keys`) of a plain run file's lines, or None
    (module docstring: the caller then reads as before).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\n")
    >>> keys = run_pair_keys(path)
    >>> keys.shape, bool((keys[1:] >= keys[:-1]).all())
    ((2,), True)
    """
    try:
        source = os.fspath(path)
        handle = open_plain(source)  # None: compressed, a byte-order mark, UTF-16...
        if handle is None:
            return None
        with handle:
            most = os.fstat(handle.fileno()).st_size // 12 + 1  # six fields, five gaps, \n
            # In its own anonymous map: untouched pages are not resident, and freed it
            # goes back to the system, not to the heap later arrays grow into.
            keys = np.frombuffer(mmap.mmap(-1, 8 * most), dtype=np.uint64)
            n = 0
            for block in line_blocks(handle, BLOCK_BYTES):
                found = _block_keys(block, source)
                if found is None or n + found.shape[0] > most:
                    return None
                keys[n:n + found.shape[0]] = found
                n += found.shape[0]
    except (OSError, TypeError, ValueError):
        return None
    out = keys[:n]
    out.sort()
    return out


def _block_keys(block: bytes, source: str) -> U64 | None:
    """The keys of one block of whole lines (None: a line the exact reader refuses, or
    a longer id than :data:`MAX_WORDS` words)."""
    n_fields, exact, layout, _, _, _ = LAYOUT["run"]
    try:
        with numpy_only():
            fields = split_fields(block, source, "run", n_fields, exact, layout,
                                  allow_empty=True)
    except InvalidInputError:
        return None
    if fields.first.shape[0] == 0:
        return np.zeros(0, dtype=np.uint64)
    s0, e0 = fields.bounds(0)
    s2, e2 = fields.bounds(2)
    if int((e0 - s0).max()) > 8 * MAX_WORDS or int((e2 - s2).max()) > 8 * MAX_WORDS:
        return None
    query = word_hash(byte_words(fields.buffer, s0, e0 - s0))
    return pair_keys(query, byte_words(fields.buffer, s2, e2 - s2))

"""Judgments and a run both given as ``{query: {document: value}}`` dicts of ``str`` ids
(pytrec_eval's input) joined while they are walked, without encoding their documents
(issue 26, item 5).

:func:`joined` looks each run row's judgment up in its query's dict of judgments, as
pytrec_eval does, and keeps per row what the evaluation needs of its document id: the
qrels row judging it and, where its score ties another of its query, its rank among the
tied ids (:class:`~prcurve.ranking.row_docs.RowDocs`, as the block reader of TREC runs
keeps them). :func:`prcurve.ranking.evaluation.judge` takes this path when both of its
tables are such dicts; every other form goes through :class:`~prcurve.ranking.Qrels` and
:class:`~prcurve.ranking.Run` (:mod:`prcurve.ranking.dicts`), whose checks name what is
wrong.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.gc_pause import no_cycle_collection
from prcurve.ranking import keys as _keys
from prcurve.ranking.byte_words import byte_words
from prcurve.ranking.dicts import _labels
from prcurve.ranking.row_docs import RowDocs
from prcurve.ranking.state import c_float_scores
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.tie_keys import leading_key, tied_order
from prcurve.validation.arrays import as_1d, check_finite_numbers
from prcurve.validation.ranking import check_grades

__all__ = ["joined"]


def joined(qrels: Any, run: Any) -> tuple[Qrels, Run] | None:
    """Judgments and a run both given as dicts of ``str`` ids, joined while they are
    walked (issue 26, item 5): each run row's judgment found by one lookup in its query's
    dict of judgments, as pytrec_eval does, so that no document id is encoded, sorted or
    hashed into a table. None where this does not apply (any other form, ids not all
    ``str`` or holding a NUL, no rows, a run whose documents come from a small pool:
    :func:`_repeating`): then :meth:`Qrels.coerce` and :meth:`Run.coerce`
    build them, and name what is wrong.

    Both tables' documents are one code a row (:class:`~prcurve.ranking.row_docs.RowDocs`;
    a dict lists a document once per query, so no repeat is possible): the run's carry
    each row's judging qrels row and, for the rows whose score (as float32) ties another
    of its query, a rank that rises with the document id in code point order (UTF-8's
    byte order, trec_eval's ``strcmp``) among the rows of that tie; their labels are
    made from the dicts' keys only when asked for. The qrels made here serve this run
    only: its documents' labels are one a row, not distinct.

    Examples
    --------
    >>> qrels, run = joined({"q1": {"a": 1, "b": 0}}, {"q1": {"b": 0.5, "c": 0.5, "a": 0.1}})
    >>> run.doc_id.tolist()  # in trec_eval's order: c and b tie, ids descending
    ['c', 'b', 'a']
    >>> run._docs.judged_row.tolist()  # c unjudged, b qrels row 1, a row 0
    [-1, 1, 0]
    >>> run._docs.rank.tolist()  # c and b tie: "b" < "c"; a ties with none
    [1, 0, 0]
    >>> qrels.relevance.tolist()
    [1, 0]
    """
    if not (isinstance(qrels, Mapping) and isinstance(run, Mapping)):
        return None
    # The cyclic collector paused while the ids are walked: the lists of every id (and
    # the judgments' dicts, one a query) are young containers that each collection of
    # the young generation would scan again, id by id (issue 26, session 35).
    with no_cycle_collection():
        return _joined(qrels, run)


def _joined(qrels: Mapping[Any, Any], run: Mapping[Any, Any]) -> tuple[Qrels, Run] | None:
    """:func:`joined` of two mappings."""
    judged_inner: list[Any] = list(qrels.values())
    run_inner: list[Any] = list(run.values())
    # dicts only (other mappings, and anything else, take the general path and its errors)
    if not set(map(type, judged_inner)) | set(map(type, run_inner)) <= {dict}:
        return None
    run_docs = list(itertools.chain.from_iterable(run_inner))
    if not run_docs or _repeating(run_docs):  # a pool: encoding is cheaper (few labels)
        return None
    judged_docs = list(itertools.chain.from_iterable(judged_inner))
    # The run's ids past their first block are checked where their text is read (most
    # rows tie: their words, :func:`_tied_order`) or by :func:`_require_plain` otherwise:
    # read once, not twice (0.2 s of CPU at 10^7 rows).
    if not (judged_docs and _plain_text(run_docs[:BLOCK]) and _plain_text(judged_docs)
            and _plain_text(list(qrels)) and _plain_text(list(run))):
        return None
    judged_lengths = _lengths(judged_inner)
    grades = check_grades("relevance", _values(judged_inner))
    if len(judged_docs) >= 2**31:  # row numbers kept as int32 (RowDocs)
        return None
    # Each query's judgments: document -> its qrels row (the rows in the dicts' order).
    # Every step a C iterator over the queries, no Python frame per query (10^4 queries
    # of 100 rows: 0.05 s of generator frames before).
    first = (np.cumsum(judged_lengths) - judged_lengths).tolist()
    rows_of = dict(zip(qrels, map(dict, map(zip, judged_inner, map(itertools.count, first))),
                       strict=True))
    none: dict[str, int] = {}
    n = len(run_docs)
    lookups = map(operator.attrgetter("get"), map(rows_of.get, run, itertools.repeat(none)))
    # Each run query's documents looked up in its judgments' dict (-1: not judged).
    judged_row = np.fromiter(itertools.chain.from_iterable(map(
        map, lookups, run_inner, itertools.repeat(itertools.repeat(-1)))),
        dtype=np.int32, count=n)
    del rows_of, lookups
    run_lengths = _lengths(run_inner)
    run_queries = _queries(list(run), run_lengths)
    scores: NDArray[np.float64] = check_finite_numbers(
        "score", as_1d("score", _values(run_inner))).astype(np.float64, copy=False)
    # The rows put in rank order (prepare then finds them so).
    try:
        order, rank = _rank_order(run_queries.codes, scores, run_docs, run_lengths)
    except _NotPlainTextError:  # an id past the first block not a str, or holding a NUL
        return None
    judgments = Qrels(_queries(list(qrels), judged_lengths),
                      RowDocs(len(judged_docs), np.zeros(0, dtype=np.int32),
                              np.zeros(0, dtype=np.int32), None,
                              lambda: _text_column(judged_docs)), grades)
    docs = RowDocs(n, judged_row[order], rank, judgments,
                   lambda: _text_column(run_docs)[order])
    queries = _keys.Encoded(run_queries.labels, run_queries.codes[order], dense=True)
    return judgments, Run(queries, docs, scores[order])


BLOCK = 1 << 16
"""Ids joined and read as words at a time: a block's text and temporaries (a few MiB)
stay in cache, and no copy of all the ids' text is made (10^7 ids: 100 MB each)."""


class _NotPlainTextError(Exception):
    """An id that is not a ``str``, or holds a NUL, found after the walk began: the
    general path then takes the tables (and names what is wrong). Never escapes."""


def _require_plain(ids: list[Any]) -> None:
    if not _plain_text(ids):
        raise _NotPlainTextError


def _plain_text(ids: list[Any]) -> bool:
    """Whether every id is a ``str`` (``str.join`` refuses anything else) without a NUL
    (which a ``U`` array would drop at its end: the general path refuses it); the ids
    joined by NULs a block at a time."""
    for begin in range(0, len(ids), BLOCK):
        block = ids[begin:begin + BLOCK]
        try:
            if "\0".join(block).count("\0") != len(block) - 1:
                return False
        except TypeError:
            return False
    return True


def _values(inner: list[dict[str, Any]]) -> NDArray[Any]:
    """The dicts' values in row order, as numpy makes them from a list (the general
    path's own fallback, :func:`prcurve.ranking.dicts._values`): numbers as one numeric
    array (a type check and a copy in one pass), anything else for the checks to name."""
    return np.asarray(list(itertools.chain.from_iterable(map(dict.values, inner))))


def _lengths(inner: list[Mapping[Any, Any]]) -> NDArray[np.int64]:
    return np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))


def _queries(ids: list[str], lengths: NDArray[np.int64]) -> _keys.Encoded:
    """The queries with rows (an empty dict names none), in id order, one code a row."""
    kept = [query for query, length in zip(ids, lengths.tolist(), strict=True) if length]
    labels = _keys.by_label(_keys.Encoded(
        _labels("query_id", kept), np.arange(len(kept), dtype=np.int64)))
    return _keys.Encoded(labels.labels, np.repeat(labels.codes, lengths[lengths > 0]),
                         dense=True)


def _text_column(ids: list[str]) -> NDArray[np.str_]:
    """``str`` ids as one ``U`` array (no NUL: :func:`_plain_text`)."""
    width = max(map(len, ids), default=1)
    return np.fromiter(ids, dtype=f"U{max(width, 1)}", count=len(ids))


def _rank_order(query: NDArray[np.int64], score: NDArray[np.float64], docs: list[str],
                lengths: NDArray[np.int64]) -> tuple[NDArray[np.intp], NDArray[np.int32]]:
    """The rows in trec_eval's order as float32 scores see it (queries by code, each
    query's scores descending, ties by document id descending), and each row's tie rank
    in that order: for the rows whose score as float32 (-0 as 0) ties another row's of
    its query, a number that rises with the document id (code point order) among the
    rows of that tie (their positions in the order, counted from the end), 0 for the
    rows that tie with none.

    float32 ties include float64 ties, so the ranks serve both ``score_precision``; the
    order is the one :func:`~prcurve.ranking.join.prepare` makes from float32 scores, so
    that it finds the rows ranked already (its O(n) checks) and sorts nothing; with
    float64 scores it sorts where they differ. Ranks are only compared within a tie (a
    query's ids are distinct). ``lengths``: each query dict's rows, in the dicts' order
    (each query's rows are together)."""
    n = score.shape[0]
    key = _score_keys(query, score)
    order = _ranked_blocks(query, key, lengths)
    if order is None:  # not ranked within each query already: one sort of the keys
        order = np.argsort(key)
    key = key[order]
    equal = key[1:] == key[:-1]
    del key  # (memory: the peak is in the ties' words that follow)
    tied = np.zeros(n, dtype=bool)
    tied[1:] = equal
    tied[:-1] |= equal
    at = np.flatnonzero(tied)  # the tied rows' positions in the order
    rank = np.zeros(n, dtype=np.int32)
    if not at.shape[0]:
        _require_plain(docs)
    else:
        # Each tie a group of consecutive positions (equal keys), numbered in order.
        starts = np.ones(at.shape[0], dtype=bool)
        starts[1:] = ~equal[at[1:] - 1]
        group = np.cumsum(starts, dtype=np.int64)
        group -= 1
        del starts, equal, tied
        rows = order[at]
        order[at] = rows[_tied_order(group, rows, docs)]
        # Within each group ids descend along the positions: so do the ranks.
        rank[at] = np.arange(at.shape[0] - 1, -1, -1, dtype=np.int32)
    return order, rank


def _score_keys(query: NDArray[np.int64], score: NDArray[np.float64]) -> NDArray[np.uint64]:
    """Each row's sort key: its query's code in the top 32 bits, below them an integer
    that falls as the score (as float32, -0 as 0) rises. Made a :data:`BLOCK` of rows at
    a time into one array (each step over a whole column of 10^7 rows would be a fresh
    80 MB temporary, faulted in page by page: issue 26, session 35)."""
    narrow = c_float_scores(score)
    narrow += np.float32(0.0)  # -0.0 + 0.0 is 0.0: equal scores, equal bits
    bits = narrow.view(np.uint32)
    key = np.empty(score.shape[0], dtype=np.uint64)
    for begin in range(0, score.shape[0], BLOCK):
        word = bits[begin:begin + BLOCK]
        # IEEE bits to an integer that falls as the score rises: a negative score's bits
        # (sign bit set) rise as it falls: kept; a positive score's low 31 bits are
        # complemented (XOR with 0x7FFFFFFF, where sign - 1 wraps to all ones).
        falling = word >> np.uint32(31)
        falling -= np.uint32(1)
        falling &= np.uint32(0x7FFFFFFF)
        falling ^= word
        block = key[begin:begin + BLOCK]
        block[...] = query[begin:begin + BLOCK]
        block <<= np.uint64(32)
        block |= falling
    return key


def _ranked_blocks(query: NDArray[np.int64], key: NDArray[np.uint64],
                   lengths: NDArray[np.int64]) -> NDArray[np.intp] | None:
    """The order of the rows by key without a sort where each query's rows (together, in
    the dicts' order) are ranked already, as in a dict built from a TREC run: the
    queries' blocks put in code order; None where some query's scores rise."""
    n = key.shape[0]
    kept = lengths[lengths > 0]
    starts = np.cumsum(kept) - kept
    rising = key[1:] < key[:-1]
    rising[starts[1:] - 1] = False  # a query's first row may fall below the last's
    if rising.any():
        return None
    by_code = np.argsort(query[starts], kind="stable")
    moved = kept[by_code]
    order: NDArray[np.intp] = np.repeat(starts[by_code] - (np.cumsum(moved) - moved), moved)
    order += np.arange(n, dtype=order.dtype)
    return order


def _tied_order(group: NDArray[np.int64], rows: NDArray[np.intp], docs: list[str],
                ) -> NDArray[np.intp]:
    """The permutation putting tied rows (row ``rows[i]`` in group ``group[i]``, groups
    ascending from 0) in order of group, then document id descending (code point order,
    UTF-8's byte order, as trec_eval's ``strcmp``). ``group``'s array is used for
    temporaries (its values are lost).

    One stable sort of a 64-bit key per row, :func:`~prcurve.ranking.tie_keys.tied_order`
    (shared with the general path since session 36): its group in the top bits, below
    them the complement of the leading bits of its id (:func:`_id_keys`); rows whose keys
    still agree are put in order by their full words. Before (session 34) every tied id
    was ranked by one sort of all the ids (0.9 s of 10^7 random keys, against 0.15 s for
    this one) and the groups sorted again by those ranks."""
    m = rows.shape[0]
    if 2 * m > len(docs):  # most rows tie: every id read (and checked), no gather
        ids, index = docs, rows
    else:  # the ids read in the dicts' order (memory order)
        _require_plain(docs)
        memory = np.sort(rows)
        ids = list(map(docs.__getitem__, memory.tolist()))
        index = np.searchsorted(memory, rows)
    key, words = _id_keys(ids)
    return tied_order(group, key, index, lambda at: [word[index[at]] for word in words])


def _id_keys(ids: list[str]) -> tuple[NDArray[np.uint64], list[NDArray[np.uint64]]]:
    """For ``str`` ids (no NUL), a 64-bit key per id that never falls as the id rises
    (code point order) and the words that order them exactly. ASCII ids: their words
    (:func:`_words`), and as key the 64 bits that follow the leading bits all ids share
    (a shared prefix such as ``clueweb09-`` carries no order); others: their ranks in a
    sort of them as a ``U`` array, the key and the one word."""
    read = _words(ids)
    if read is None:
        _require_plain(ids)  # (not ASCII, or not plain text)
        exact = np.empty(len(ids), dtype=np.uint64)
        exact[np.argsort(_text_column(ids), kind="stable")] = np.arange(len(ids),
                                                                       dtype=np.uint64)
        return exact, [exact]
    words = read[0]
    return leading_key(words), words


def _repeating(docs: list[str]) -> bool:
    """Whether the documents repeat much (a pool shared by the queries): fewer than 95%
    distinct among about 4,096 ids taken at even steps (a pool of fewer than about
    4·10^4 ids; ids about as many as 10^6 rows show about 8 repeats, the birthday
    bound). Such a run's documents are encoded by the general path, whose join and tie
    order then handle its few distinct labels (1.2x faster at 10^6 rows of a pool of
    10^4: docs/benchmarks.md, session 34); a guess that only chooses the path, never
    the result."""
    sample = docs[::max(len(docs) // 4096, 1)]
    return len(set(sample)) < 0.95 * len(sample)


def _words(ids: list[str]) -> tuple[list[NDArray[np.uint64]], int] | None:
    """The words of ASCII ids (:func:`~prcurve.ranking.byte_words.byte_words`, 8 bytes
    each, big-endian, NUL-padded) and the longest id's length; None when an id is not
    ASCII, not a ``str`` or holds a NUL (so that words read are also the check of
    :func:`_plain_text`). A :data:`BLOCK` of ids at a time: joined by NULs into one
    buffer, their ends where its NULs are, their words written into one array per word (a word first
    needed in a later block is zero, the padding, for the earlier ids)."""
    n = len(ids)
    out: list[NDArray[np.uint64]] = []
    longest = 0
    for begin in range(0, n, BLOCK):
        try:
            text = "\0".join(ids[begin:begin + BLOCK])
        except TypeError:  # not all str
            return None
        if not text.isascii():
            return None
        buffer = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        ends = np.append(np.flatnonzero(buffer == 0), buffer.shape[0])
        if ends.shape[0] != min(BLOCK, n - begin):  # a NUL inside an id
            return None
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        lengths = ends - starts
        longest = max(longest, int(lengths.max()))
        words = byte_words(buffer, starts, lengths)
        out += [np.zeros(n, dtype=np.uint64) for _ in range(len(words) - len(out))]
        for word, block in zip(out, words, strict=False):  # fewer words: zeros after
            word[begin:begin + ends.shape[0]] = block
    return out, longest

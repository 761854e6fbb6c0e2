r"""A block of a large TREC run's lines split into fields and taken in with numpy alone
(issue 26, items 4 and 5; split from :mod:`prcurve.ranking.trec_stream` in session 35).

:func:`split_lines` finds each line's fields (exactly six, one separator between
them) and its query; :func:`take_in` reads their scores, looks up the qrels row
judging each (query, document) (:class:`~prcurve.ranking.trec_judged.Judged`) and
ranks the tied rows of a query by their ids' bytes. Either returns None where the
block is not plain (module docstring of :mod:`prcurve.ranking.trec_stream`): the
caller then reads the file with :func:`~prcurve.ranking.read_run`.

Examples
--------
>>> from prcurve.ranking import Qrels
>>> from prcurve.ranking.trec_judged import Judged
>>> judged = Judged.build(Qrels.from_arrays(np.array([b"q1"]), np.array([b"d2"]), [1]))
>>> text = b"q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 2.5 r\nq1 Q0 d3 3 1 r\n"
>>> buffer = bytearray(text + bytes(4096 + 8 - len(text) % 8))  # whole words, slack
>>> lines = split_lines(buffer, len(text), 32, True, judged)
>>> lines.rows, lines.run_id
(3, 'r')
>>> score, judged_row, tie_rank, _ = take_in(buffer, lines, judged)
>>> score.tolist(), judged_row.tolist(), tie_rank.tolist()
([2.5, 2.5, 1.0], [-1, 0, -1], [0, 1, 0])
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.byte_words import loaded_words
from prcurve.ranking.keys import word_key
from prcurve.ranking.state import c_float_scores
from prcurve.ranking.text_numbers import general_numbers, plain_decimals, word_matrix
from prcurve.ranking.trec_judged import GOLDEN, MAX_ID, Judged
from prcurve.ranking.word_groups import finalize

__all__ = ["Lines", "block_words", "part_keys", "split_lines", "take_in"]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


class Lines:
    """A block's lines split (:func:`split_lines`): the fields' bounds of the ``rows``
    lines taken, each query's first row, words and qrels code, each row's query;
    ``kept``: the offset of the first byte not taken. (A class with slots, not a
    NamedTuple: this module loads with every ``prcurve trec``, and a NamedTuple's
    class costs about 0.3 ms to make; docs/architecture.md.)"""

    __slots__ = ("codes", "first", "gap", "kept", "lengths", "query_words", "rows", "run_id",
                 "topic")

    def __init__(self, gap: NDArray[np.intp], lengths: list[NDArray[np.intp]], rows: int,
                 first: I64, query_words: list[U64], codes: I64, topic: I64, kept: int,
                 run_id: str | None) -> None:
        self.gap, self.lengths, self.rows, self.first = gap, lengths, rows, first
        self.query_words, self.codes, self.topic = query_words, codes, topic
        self.kept, self.run_id = kept, run_id


def split_lines(buffer: bytearray, cut: int, separator: int, last: bool,
                judged: Judged) -> Lines | None:
    """Split the whole lines ``buffer[:cut]``, taking all but (unless ``last``) those
    of their last query; None where read_run must read the file."""
    view = np.frombuffer(buffer, dtype=np.uint8, count=cut)
    # The bytes below 33 (white space and control bytes): in a plain file exactly five
    # separators and a newline a line, never two side by side nor first (an empty
    # field or line). One pass over the block finds them all.
    found = np.flatnonzero(view < 33)
    # \r\n line ends (Windows): their \r dropped; one memchr when there is none.
    kept = _without_line_end_returns(view, found) if buffer.find(b"\r", 0, cut) >= 0 else found
    if kept is None:
        return None
    low = kept
    n = low.shape[0] // 6
    if 6 * n != low.shape[0] or n == 0 or low[0] == 0 or (low[1:] == low[:-1] + 1).any():
        return None
    kinds = view[low].reshape(n, 6)
    if not ((kinds[:, 5] == 10).all() and (kinds[:, :5] == separator).all()):
        return None  # not six fields a line, or other white space or control bytes
    positions = low.reshape(n, 6)
    gap, newline = positions[:, :5], positions[:, 5]
    start = np.empty(n, dtype=np.intp)
    start[0] = 0
    start[1:] = newline[:-1] + 1
    if (view[start] == 35).any():
        return None  # a comment (or a query id starting with "#")
    lengths = [gap[:, 0] - start, gap[:, 2] - gap[:, 1] - 1, gap[:, 4] - gap[:, 3] - 1]
    if max(int(x.max()) for x in lengths) > MAX_ID:
        return None
    words = block_words(buffer)
    query = loaded_words(words, start, lengths[0], (int(lengths[0].max()) + 7) // 8)
    del words
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for word in query:
        change[1:] |= word[1:] != word[:-1]
    first = np.flatnonzero(change)
    rows = n
    if not last:
        rows = int(first[-1])  # the last query waits for the next block
        first = first[:-1]
    codes = np.array([judged.query_code.get(bytes(buffer[s:e]), -1) for s, e in
                      zip(start[first].tolist(), gap[first, 0].tolist(), strict=True)],
                     dtype=np.int64)
    topic = np.cumsum(change[:rows], dtype=np.int64) - 1  # each row's query in the block
    run_id = (bytes(buffer[int(gap[-1, 4]) + 1:int(newline[-1])]).rstrip(b"\r").decode(
        "utf-8", "surrogateescape") if last else None)  # (one \r at most: checked above)
    return Lines(gap[:rows], [x[:rows] for x in lengths], rows, first.astype(np.int64),
                  [w[first] for w in query], codes, topic,
                  cut if last else (int(start[rows]) if rows < n else cut), run_id)


def _without_line_end_returns(view: NDArray[np.uint8],
                              low: NDArray[np.intp]) -> NDArray[np.intp] | None:
    """``low`` (the offsets of the block's bytes below 33) without the \\r of each
    \\r\\n line end, or None when a \\r is anywhere else.

    trec_eval splits at ``isspace`` bytes and ends lines at \\n
    (get_trec_results.c, ``parse_results_line``), so a \\r right after a line's last
    field and before its \\n ends that field (the run id) and is nothing else: such
    a line is the same line with a \\n end. Only that \\r is dropped here; a \\r after
    white space (an empty last field: trec_eval's error), at a line's start (a blank
    line), doubled, or not before a \\n sends the file to read_run, which names the
    line as before."""
    returns = view[low] == 13
    at = low[returns]
    if at[0] == 0:  # (the block ends with \n, so at + 1 is inside it)
        return None
    if not ((view[at + 1] == 10).all() and (view[at - 1] >= 33).all()):
        return None
    kept: NDArray[np.intp] = low[~returns]
    return kept


def block_words(buffer: bytearray) -> U64:
    """The buffer as aligned 64-bit words (a view; its length is whole words, and the
    slack after a block holds the loads past a field's end:
    text_numbers.load_words)."""
    words: U64 = np.frombuffer(buffer, dtype=np.uint64)
    return words


def take_in(buffer: bytearray, lines: Lines, judged: Judged,
            ) -> tuple[NDArray[np.float64], NDArray[np.int32], NDArray[np.int32],
                       list[U64]] | None:
    """Take in a block's lines (:func:`split_lines`) from ``buffer``: their scores, the
    qrels rows judging them (-1: none), their tie ranks and their documents' words (a
    query read over several blocks checks its documents are distinct by
    :func:`part_keys` of them); None where read_run must read the file (a document
    twice in a query, a score that is not a finite number)."""
    gap, topic = lines.gap, lines.topic
    words = block_words(buffer)
    # The scores: plain decimals exactly (text_numbers), any other text by numpy.
    score_length = lines.lengths[2]
    matrix = word_matrix(words, gap[:, 3] + 1, score_length,
                         max(int(score_length.max(initial=0)), 1))
    score, read = plain_decimals(matrix, score_length)
    if not read.all():
        other = np.flatnonzero(~read)
        text = matrix[other].view(f"S{matrix.shape[1]}").ravel()  # (a copy: contiguous)
        values = general_numbers(text, np.float64)
        if values is None:
            return None
        score[other] = values
    del matrix
    doc_length = lines.lengths[1]
    doc = loaded_words(words, gap[:, 1] + 1, doc_length, (int(doc_length.max()) + 7) // 8)
    del words
    doc_key = word_key(doc)
    if _repeats(topic, doc, doc_key):
        return None  # a document twice in a query: read_run names the line
    judged_rows = judged.rows(lines.codes, topic, doc)
    if judged_rows is None:
        return None
    return score, judged_rows, _tie_ranks(topic, score, doc), doc


def part_keys(doc: list[U64]) -> U64:
    """Each document's 64-bit key from its words (:func:`take_in`), the same for one id
    in every block whatever the block's longest id: a word after the first is mixed in
    only where it is not padding (zero), so that an id of one word has one key in a
    block of one-word ids and in a block of four-word ids. (``keys.word_key`` is the word
    itself in the first and a hash of the words in the second: a document listed again
    in a later part of a deep query was missed, session 36.) Equal ids, equal keys.

    Examples
    --------
    >>> one = [np.array([0x3A << 56], dtype=np.uint64)]
    >>> two = [one[0], np.zeros(1, dtype=np.uint64)]
    >>> bool(part_keys(one)[0] == part_keys(two)[0])
    True
    """
    key = finalize(doc[0].copy())
    with np.errstate(over="ignore"):
        for word in doc[1:]:
            rows = np.flatnonzero(word)
            mixed = key[rows] * GOLDEN
            mixed ^= word[rows]
            key[rows] = finalize(mixed)
    return key


def _group_order(topic: I64, words: list[U64], rows: NDArray[np.intp]) -> NDArray[np.intp]:
    """``rows`` sorted by (topic, the words): the byte order of their ids in a query."""
    order = np.lexsort([w[rows] for w in reversed(words)] + [topic[rows]])
    return rows[order]


def _repeats(topic: I64, words: list[U64], doc_key: U64) -> bool:
    """Whether some query lists a document twice (exact): 64-bit keys of (query,
    document) sorted; the rows whose keys agree are compared byte for byte."""
    with np.errstate(over="ignore"):
        key = doc_key ^ (topic.view(np.uint64) * GOLDEN)
    rows = _sharing(key)
    if rows.shape[0] == 0:
        return False
    rows = _group_order(topic, words, rows)
    same = topic[rows[1:]] == topic[rows[:-1]]
    for word in words:
        same &= word[rows[1:]] == word[rows[:-1]]
    return bool(same.any())


def _sharing(key: U64) -> NDArray[np.intp]:
    """The rows whose key another row has too (a sort; usually none)."""
    ordered = np.sort(key)
    equal = ordered[1:] == ordered[:-1]
    if not equal.any():
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(np.isin(key, ordered[1:][equal]))


def _tie_ranks(topic: I64, score: NDArray[np.float64], words: list[U64]) -> NDArray[np.int32]:
    """Each row's rank in byte order among the rows whose score (as float32, with -0
    as 0) ties another row's of its query; 0 for the others. float32 ties include
    float64 ties, so the ranks serve trec_eval 9 and 10 alike."""
    narrow = c_float_scores(score)  # beyond float32: inf, ties with any other such
    narrow += np.float32(0.0)  # -0.0 + 0.0 is 0.0: equal scores, equal bits
    same_topic = topic[1:] == topic[:-1]
    if not (same_topic & (narrow[1:] > narrow[:-1])).any():
        # Scores descending in each query (as runs are written): ties are neighbours.
        equal = same_topic & (narrow[1:] == narrow[:-1])
        tied = np.zeros(score.shape[0], dtype=bool)
        tied[1:] = equal
        tied[:-1] |= equal
        rows = np.flatnonzero(tied)
    else:
        key = (topic.view(np.uint64) << np.uint64(32)) | narrow.view(np.uint32).astype(np.uint64)
        rows = _sharing(key)
    rank = np.zeros(score.shape[0], dtype=np.int32)
    if rows.shape[0]:
        rank[_group_order(topic, words, rows)] = np.arange(rows.shape[0], dtype=np.int32)
    return rank

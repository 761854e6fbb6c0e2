"""From a run and judgments to the ranking state: the join and trec_eval's order.

Documents are ranked by score descending, ties broken by document id
descending (byte order; trec_eval's ``form_res_rels.c``); each retrieved
document is matched with its judgment. Both tables arrive dictionary-encoded,
so only their distinct ids are compared; every row is then an integer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from prcurve.core.sorting import parts_for, run_parts
from prcurve.ranking import keys as _keys
from prcurve.ranking.key_table import KeyTable
from prcurve.ranking.row_docs import RowDocs
from prcurve.ranking.state import (
    JUDGED,
    NOT_IN_POOL,
    UNJUDGED,
    JudgedLevels,
    Rankings,
    c_float_scores,
)
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.tie_keys import id_words, leading_key, tied_order
from prcurve.ranking.word_groups import found_in_sorted
from prcurve.validation.ranking import no_queries_to_evaluate

__all__ = [
    "Prepared",
    "prepare",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def _common_id_dtype(arrays: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
    kinds = {a.dtype.kind for a in arrays if a.shape[0]}
    if kinds <= {"i", "u"}:
        return [a.astype(np.int64, copy=False) for a in arrays]
    if len(kinds) <= 1:
        kind = kinds.pop() if kinds else "U"
        return [a if a.shape[0] else a.astype("S" if kind == "S" else "U") for a in arrays]
    # Mixed kinds: compare as text (bytes decoded as UTF-8; integers printed).
    out = []
    for a in arrays:
        if a.dtype.kind == "S":
            out.append(np.char.decode(a, "utf-8"))
        else:
            out.append(a.astype(str))
    return out


class Prepared:  # a class, not a dataclass or NamedTuple: cheaper to make (issue 26)
    """The rankings of the evaluated queries, their ids, and whether each had results."""

    __slots__ = ("has_results", "query_ids", "rankings")

    def __init__(self, rankings: Rankings, query_ids: NDArray[Any],
                 has_results: NDArray[np.bool_]) -> None:
        self.rankings, self.query_ids, self.has_results = rankings, query_ids, has_results


def _code_dtype(n_grades: int) -> type[np.signedinteger[Any]]:
    """The smallest integer type holding every judgment code (JUDGED + grades)."""
    n_codes = JUDGED + n_grades
    if n_codes <= np.iinfo(np.int8).max:
        return np.int8
    return np.int16 if n_codes <= np.iinfo(np.int16).max else np.int32


def judgment_codes(relevance: I64) -> tuple[NDArray[np.signedinteger[Any]], I64]:
    """Each judgment's code (state.py: UNJUDGED for a negative grade, else
    JUDGED + the grade's rank among the distinct non-negative grades) and those grades."""
    usable = relevance >= 0
    grades = _keys.distinct(relevance[usable])
    dtype = _code_dtype(grades.shape[0])
    code = np.full(relevance.shape[0], UNJUDGED, dtype=dtype)
    code[usable] = JUDGED + np.searchsorted(grades, relevance[usable])
    return code, grades


def prepare(
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int,
    depth: int | None,
    queries_without_results: str,
    score_precision: str,
    judged_only: bool = False,
) -> Prepared:
    """Rank every query's documents and attach the judgments (trec_eval's form_res_rels).

    Both tables arrive dictionary-encoded (:class:`Qrels` and :class:`Run` encode
    their ids once, when built); here only their distinct ids are compared, then
    every row is handled as integers. ``depth`` keeps each query's top
    ``depth`` documents (-M); ``judged_only`` then drops the documents not
    judged with a grade >= 0 (-J), in that order, as trec_eval does.
    """
    run_queries, qrels_queries = _common_id_dtype([run._queries.labels, qrels._queries.labels])
    # The sorted distinct query ids (a sort, not np.unique: that imports numpy.ma, a
    # tenth of a small run's time).
    query_ids = np.sort(np.concatenate((run_queries, qrels_queries)))
    query_ids = query_ids[np.concatenate((np.ones(min(query_ids.shape[0], 1), dtype=bool),
                                          query_ids[1:] != query_ids[:-1]))]  # none: none
    run_common = np.searchsorted(query_ids, run_queries)
    qrels_common = np.searchsorted(query_ids, qrels_queries)
    qrels_code, grades = judgment_codes(qrels.relevance)
    relevant_code = JUDGED + int(np.searchsorted(grades, relevance_level))
    if isinstance(run._docs, RowDocs) and run._docs.qrels is not qrels:
        run = run._docs.as_run(run)  # joined with other judgments: an encoded copy
    rows = _RunRows.grouped(run, score_precision)
    if isinstance(run._docs, RowDocs):  # joined while read (trec_stream): row i is row i
        judged_row = run._docs.judged_row
        row_code = np.where(judged_row >= 0, qrels_code[judged_row], NOT_IN_POOL).astype(
            qrels_code.dtype, copy=False)
    else:
        row_code = _join(run, qrels, run_common, qrels_common, qrels_code, rows)
    row_code, block_start, block_length, block_code = _ranking_order(
        rows, run._docs, row_code
    )

    # Each query's segment, where its block of rows lies (blocks stay where they are).
    n_q = query_ids.shape[0]
    start = np.zeros(n_q, dtype=np.int64)
    retrieved = np.zeros(n_q, dtype=np.int64)
    start[run_common[block_code]] = block_start
    retrieved[run_common[block_code]] = block_length
    has_run = retrieved > 0
    has_qrels = np.zeros(n_q, dtype=bool)
    has_qrels[qrels_common] = True
    evaluated = has_qrels & (has_run | (queries_without_results == "zero"))
    if not evaluated.any():
        raise no_queries_to_evaluate(
            int(np.count_nonzero(has_run)), int(np.count_nonzero(has_qrels))
        )
    if depth is not None:
        retrieved = np.minimum(retrieved, depth)
    position = np.full(n_q, -1, dtype=np.int64)  # each query's index among the evaluated
    position[evaluated] = np.arange(int(np.count_nonzero(evaluated)))
    qrels_query = position[qrels_common[qrels._queries.codes]]

    # A row standing for several judgments (trec_retrieved.CountedQrels) counts so often.
    weight = getattr(qrels, "judgment_counts", None)

    def per_query(wanted: NDArray[np.bool_]) -> I64:
        keep = wanted & (qrels_query >= 0)
        counts = np.bincount(qrels_query[keep], None if weight is None else weight[keep],
                             minlength=int(np.count_nonzero(evaluated)))
        return counts.astype(np.int64)

    def judged_levels() -> JudgedLevels:
        keep = (qrels_code >= JUDGED) & (qrels_query >= 0)
        n_codes = JUDGED + grades.shape[0]
        pair = qrels_query[keep] * n_codes + qrels_code[keep]
        if weight is None:
            distinct_pairs, count = np.unique(pair, return_counts=True)
        else:
            distinct_pairs, at = np.unique(pair, return_inverse=True)
            count = np.bincount(at, weight[keep])
        return JudgedLevels(distinct_pairs // n_codes, distinct_pairs % n_codes,
                            count.astype(np.int64))

    rankings = Rankings(
        lengths=retrieved[evaluated],
        code=row_code,
        grades=grades,
        relevant_code=relevant_code,
        n_relevant=per_query(qrels_code >= relevant_code),
        n_judged_nonrelevant=per_query((qrels_code >= JUDGED) & (qrels_code < relevant_code)),
        starts=start[evaluated],
        has_results=has_run[evaluated],
        judged_levels=judged_levels,
    )
    if judged_only:
        rankings = _judged_only(rankings, judged_levels)
    return Prepared(rankings, query_ids[evaluated], has_run[evaluated])


def _judged_only(rankings: Rankings, judged_levels: Any) -> Rankings:
    """The same rankings without the documents not judged with a grade >= 0 (-J):
    the judged documents keep their relative order (trec_eval's comp_rank_judged)."""
    kept = rankings.selection("judged", lambda: rankings.code >= JUDGED)
    return Rankings(
        lengths=kept.count,
        code=rankings.code[kept.rows],
        grades=rankings.grades,
        relevant_code=rankings.relevant_code,
        n_relevant=rankings.n_relevant,
        n_judged_nonrelevant=rankings.n_judged_nonrelevant,
        has_results=rankings.has_results,
        judged_levels=judged_levels,
        judged_only=True,
    )


def _dense_cells_limit(n_rows: int) -> int:
    """The largest join table (one byte per query x document cell) worth allocating:
    16 bytes per run row, less than the run's own columns take."""
    return max(2**26, 16 * n_rows)


def _join(
    run: Run, qrels: Qrels, run_common: I64, qrels_common: I64,
    qrels_code: NDArray[np.signedinteger[Any]], rows: _RunRows,
) -> NDArray[np.signedinteger[Any]]:
    """Each run row's judgment code (state.py; rows in the order of ``rows``).

    The judged (query, document) pairs are cells of a table with one row per
    query and one column per document of the run. When the table is small
    enough it is a dense byte array and each run row is one lookup (a run
    lists a query's documents together, so the lookups of a query stay in one
    row of the table); otherwise only the run rows whose document was judged
    somewhere are searched among the sorted judged cells.
    """
    row_doc = rows.doc
    if row_doc is None:  # RowDocs are joined while read, never here
        raise ValueError("a run read in blocks is joined with its own qrels only")
    # each run document's qrels document, or -1
    target = _match_words(run._docs, qrels._docs.labels)
    if target is None:
        run_docs, qrels_docs = _common_id_dtype([run._docs.labels, qrels._docs.labels])
        target = _keys.match(run_docs, qrels_docs, run._docs)
    qrels_docs = qrels._docs.labels
    width = max(run._docs.n_labels, 1)
    run_doc_of = np.full(qrels_docs.shape[0], -1, dtype=np.int64)
    run_doc_of[target[target >= 0]] = np.flatnonzero(target >= 0)

    judged_doc = run_doc_of[qrels._docs.codes]
    judged = np.flatnonzero(judged_doc >= 0)  # judged documents the run retrieved somewhere
    cell = qrels_common[qrels._queries.codes[judged]] * width + judged_doc[judged]
    judged_code = qrels_code[judged]
    n_queries = int(max(run_common.max(initial=-1), qrels_common.max(initial=-1))) + 1
    row_start = run_common * width  # per run query code
    n_run = rows.query.shape[0]
    if n_queries * width <= _dense_cells_limit(n_run):
        table = np.zeros(n_queries * width, dtype=qrels_code.dtype)  # 0: NOT_IN_POOL
        table[cell] = judged_code
        found: NDArray[np.signedinteger[Any]] = np.empty_like(table, shape=(n_run,))
        # Blocks of queries looked up in threads (numpy releases the GIL), each writing
        # its rows of ``found``.
        groups = _block_groups(rows.block_start, n_run)
        block_code = rows.block_code

        def look_up(k: int) -> None:
            first, last = groups[k], groups[k + 1]
            if first == last:
                return
            begin = int(rows.block_start[first])
            end = n_run if last == rows.block_start.shape[0] else int(rows.block_start[last])
            index = np.repeat(row_start[block_code[first:last]], rows.block_length[first:last])
            index += row_doc[begin:end]
            # every index is a cell of ``table``: "clip" never clips, and writes in place
            np.take(table, index, out=found[begin:end], mode="clip")

        if len(groups) > 2:
            from concurrent.futures import ThreadPoolExecutor  # lazily: issue 26

            with ThreadPoolExecutor(max_workers=len(groups) - 1) as pool:
                run_parts(look_up, len(groups) - 1, pool)
        else:
            look_up(0)
        return found
    out = np.zeros(n_run, dtype=qrels_code.dtype)
    shared = np.zeros(width, dtype=bool)
    shared[run_doc_of[run_doc_of >= 0]] = True
    judged_rows = np.flatnonzero(shared[row_doc])
    if judged_rows.shape[0]:
        by_cell = np.argsort(cell)
        sorted_cells = cell[by_cell]
        wanted = row_start[rows.query[judged_rows]] + row_doc[judged_rows]
        position = np.minimum(np.searchsorted(sorted_cells, wanted), sorted_cells.shape[0] - 1)
        hit = sorted_cells[position] == wanted
        out[judged_rows[hit]] = judged_code[by_cell[position[hit]]]
    return out


def _block_groups(block_start: I64, n_rows: int) -> list[int]:
    """Consecutive groups of blocks with about equal rows, one per thread
    (:func:`~prcurve.core.sorting.parts_for`): the index of each group's first block,
    then the number of blocks."""
    parts = parts_for(n_rows)
    if parts == 1:
        return [0, block_start.shape[0]]
    cuts = np.searchsorted(block_start, [n_rows * k // parts for k in range(1, parts)])
    return [0, *cuts.tolist(), block_start.shape[0]]


class _RunRows:
    """A run's rows grouped by query: query and document codes, scores, and
    each block of one query's rows (start, length, code)."""

    __slots__ = ("block_length", "block_start", "doc", "query", "score")

    def __init__(self, query: I64, doc: I64 | None, score: F64, block_start: I64,
                 block_length: I64) -> None:
        # doc is None for RowDocs: row i is document code i.
        self.query, self.doc, self.score = query, doc, score
        self.block_start, self.block_length = block_start, block_length

    @property
    def block_code(self) -> I64:
        return self.query[self.block_start]

    @classmethod
    def grouped(cls, run: Run, score_precision: str) -> _RunRows:
        """The run's rows, in place when grouped by query (as runs usually are),
        else stably sorted by query (a radix sort for up to 2^16 queries): the
        join and the ranking then work query by query."""
        query, score = run._queries.codes, run.score
        doc = None if isinstance(run._docs, RowDocs) else run._docs.codes
        if score_precision == "float32":  # trec_eval 9 and pytrec_eval keep scores as float
            score = c_float_scores(score).astype(np.float64)
        n_queries = run._queries.labels.shape[0]
        if query.shape[0] and np.count_nonzero(query[1:] != query[:-1]) + 1 > n_queries:
            key = query.astype(np.uint16) if n_queries <= 2**16 else query
            by_query = np.argsort(key, kind="stable")
            if doc is None:  # RowDocs come grouped by query (trec_stream checks it)
                raise ValueError("a run read in blocks must be grouped by query")
            doc, score = doc[by_query], score[by_query]
            query = np.repeat(np.arange(n_queries), np.bincount(query, minlength=n_queries))
        start, length = _keys.blocks(query)
        return cls(query, doc, score, start, length)


def _match_words(docs: _keys.Encoded, targets: NDArray[Any]) -> I64 | None:
    """:func:`~prcurve.ranking.keys.match` of a run's document ids whose labels are not
    made yet (their words and keys only, ``docs.words``) among the judged ``targets``
    of the same kind, keyed alike (keys.word_key of their words, NUL-padded to as
    many); a key found is checked word by word (the words are the ids, exact). None
    where that does not apply (labels made, other kinds, targets not short text,
    colliding keys): then the labels are matched."""
    if (not docs.has_words or docs.label_keys is None or targets.shape[0] == 0
            or targets.dtype.kind != docs.label_kind):
        return None
    words = _keys.text_words(targets)
    if words is None:
        return None
    # Targets longer than every run id (a non-zero word past the run's) match none.
    short = np.ones(targets.shape[0], dtype=bool)
    for word in words[docs.key_words:]:
        short &= word == 0
    kept = np.flatnonzero(short)
    words = [w[kept] for w in words[:docs.key_words]]
    words += [np.zeros(kept.shape[0], dtype=np.uint64)
              for _ in range(docs.key_words - len(words))]
    target_keys = _keys.word_key(words)
    if _keys.distinct(target_keys).shape[0] != kept.shape[0]:
        return None
    label_keys = docs.label_keys
    if label_keys.shape[0] > 1 and bool((label_keys[1:] > label_keys[:-1]).all()):
        found = found_in_sorted(label_keys, target_keys)  # keys sorted when encoded
    else:
        found = KeyTable(target_keys).find(label_keys)
    rows = np.flatnonzero(found >= 0)
    other = np.zeros(rows.shape[0], dtype=bool)
    for mine, theirs in zip(docs.label_words(rows), words, strict=True):
        other |= mine != theirs[found[rows]]
    found[rows[other]] = -1  # equal keys, other ids
    found[rows[~other]] = kept[found[rows[~other]]]  # index among all the targets
    return found


def _ranking_order(
    rows: _RunRows, docs: _keys.Encoded, payload: NDArray[np.signedinteger[Any]],
) -> tuple[NDArray[np.signedinteger[Any]], I64, I64, I64]:
    """Put ``payload`` (one value per row of ``rows``) in trec_eval's order:
    each query's rows by score descending, then document id descending.

    Returns the payload in that order and each block of one query's rows:
    its start, length and code. Blocks keep their place (queries need not
    come in id order). Rows often arrive already ranked, so sorting is
    skipped when an O(n) check shows it is not needed; ties in score
    (usually few) are the only rows whose document ids are compared.
    """
    n = rows.query.shape[0]
    order: NDArray[np.intp] | None = None
    s = rows.score
    same_q = np.ones(max(n - 1, 0), dtype=bool)
    same_q[rows.block_start[1:] - 1] = False
    if (same_q & (s[1:] > s[:-1])).any():
        order = _sort_within_blocks(s, rows.block_start, rows.block_length)
        s = s[order]
    tie = same_q
    tie &= s[1:] == s[:-1]
    pairs = np.flatnonzero(tie)
    if pairs.shape[0]:
        moves: tuple[NDArray[np.intp], NDArray[np.intp]] | None
        if rows.doc is None:  # RowDocs (_RunRows.grouped): row i is document code i,
            tie_rank = cast(RowDocs, docs).rank  # its tie rank found while read
            rank = tie_rank if order is None else tie_rank[order]
            moves = None
            if not (rank[pairs] > rank[pairs + 1]).all():
                moves = _tie_order(tie, pairs, None, rank)
        else:
            moves = _tie_moves(tie, docs, rows.doc if order is None else rows.doc[order])
        if moves is not None:
            tied, source = moves
            if order is None:
                payload = payload.copy()
                payload[tied] = payload[source]
            else:
                order[tied] = order[source]
    if order is not None:
        payload = payload[order]
    return payload, rows.block_start, rows.block_length, rows.block_code


def _at(rank: NDArray[np.signedinteger[Any]], doc: I64 | None,
        positions: NDArray[np.intp]) -> NDArray[np.signedinteger[Any]]:
    """The rank of the document at each position (``doc`` None: position i holds
    document i)."""
    return rank[positions] if doc is None else rank[doc[positions]]


def _tie_moves(tie: NDArray[np.bool_], docs: _keys.Encoded, doc: I64,
               ) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
    """The tied positions and, for each, the position whose row moves there, so that
    each run of tied rows is in document id order descending; None when they are already.

    ``tie[i]``: positions i and i + 1 tie; ``doc``: the document code at each position.
    Only the tied rows' ids are read, as words that compare as trec_eval orders the ids
    (:func:`~prcurve.ranking.tie_keys.id_words`; labels not made yet, keys.Encoded.words,
    are not made: their words are those), and put in order by one stable sort of a
    64-bit key per row (:func:`~prcurve.ranking.tie_keys.tied_order`, the dict join's
    own): no label is ranked that no tie holds (issue 26, item 5, session 36: at 10^7
    rows of 2-decimal scores the labels' ranks took one argsort of every label, 1.7 s).
    """
    tied = np.zeros(tie.shape[0] + 1, dtype=bool)
    tied[:-1] = tie
    tied[1:] |= tie
    rows = np.flatnonzero(tied)
    del tied
    if rows.shape[0] == 0:
        return None
    starts_group = np.ones(rows.shape[0], dtype=bool)
    starts_group[1:] = ~tie[rows[1:] - 1]
    tied_docs = doc[rows]
    # The words are dropped once the keys are made (at 10^6 tied rows, 16 MiB less at
    # the peak); the few rows whose keys agree have theirs made again (words_of).
    if docs.n_labels <= rows.shape[0] and docs.has_words:
        # Labels no more than tied rows: the keys of the words as kept (each label's, or
        # the column's rows' with the row standing for each label: no gather of every
        # label's words), then each tied row's through its label.
        stored, word_rows = docs.stored_words()
        key = leading_key(stored)[tied_docs if word_rows is None else word_rows[tied_docs]]
        del stored
    elif docs.n_labels <= rows.shape[0]:  # each label's words made once
        key = leading_key(_label_words(docs, None))[tied_docs]
    else:
        key = leading_key(_label_words(docs, tied_docs))
    # Already in order (rows often come ranked): each tied row's key above the next's
    # within its tie (keys rise with the ids: a greater key, a greater id).
    unsure = np.less_equal(key[:-1], key[1:])
    unsure &= ~starts_group[1:]
    if not unsure.any():
        return None
    del unsure
    group = np.cumsum(starts_group, dtype=np.int64)
    group -= 1
    del starts_group

    def words_of(at: NDArray[np.intp]) -> list[NDArray[np.uint64]]:
        return _label_words(docs, tied_docs[at])

    return rows, rows[tied_order(group, key, None, words_of)]


def _label_words(docs: _keys.Encoded, codes: I64 | None) -> list[NDArray[np.uint64]]:
    """The words (:func:`~prcurve.ranking.tie_keys.id_words`) of the labels with these
    ``codes`` (all labels when None): the encoding's own words where its labels are not
    made yet (short text), else made from the labels."""
    if docs.has_words:
        return docs.label_words(codes)
    labels = docs.labels
    return id_words(labels if codes is None else labels[codes])


def _tie_order(
    tie: NDArray[np.bool_], pairs: NDArray[np.intp], doc: I64 | None,
    rank: NDArray[np.signedinteger[Any]],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:

    """Order each run of tied rows by document id descending (byte order).

    ``tie[i]``: positions i and i + 1 tie; ``pairs`` lists them (ascending);
    ``doc`` is the document code at each position and ``rank`` each tied
    document's rank in id order. Returns the tied positions and, for each,
    the position whose row moves there: only the tied rows are touched.
    """
    # The tied positions, ascending: p and p + 1 for each pair p. (A mask of the
    # positions, not the pairs interleaved and deduplicated: at 10^6 tied rows of one
    # query, 14 MiB less at the peak of prcurve trec's ranking; issue 26, item 4.)
    tied = np.zeros(tie.shape[0] + 1, dtype=bool)
    tied[:-1] = tie
    tied[1:] |= tie
    rows = np.flatnonzero(tied)
    del tied
    starts_group = np.ones(rows.shape[0], dtype=bool)
    starts_group[1:] = ~tie[rows[1:] - 1]
    width = max(int(rank.max(initial=0)) + 1, 1)
    # One integer per tied row: its group, then its document's rank reversed.
    # A query lists a document once, so the keys within a group are distinct;
    # they ascend from group to group, so they arrive nearly sorted.
    key = np.cumsum(starts_group, dtype=np.int64)
    del starts_group
    key -= 1
    key *= width
    key += width - 1
    key -= _at(rank, doc, rows)
    return rows, rows[_argsort_distinct(key, consume=True)]


def _argsort_distinct(key: I64, consume: bool = False) -> NDArray[np.intp]:
    """``np.argsort`` of distinct non-negative integers; when the key and the
    position fit in 63 bits together, one ``np.sort`` of both packed (several
    times faster than an argsort). ``consume``: ``key`` may be overwritten (the
    packed keys made in its place: one array of temporaries less)."""
    position_bits = max(key.shape[0] - 1, 1).bit_length()
    if key.shape[0] == 0 or int(key.max()) >= 1 << (63 - position_bits):
        return np.argsort(key)
    packed = key if consume else key.copy()
    packed <<= position_bits
    packed |= np.arange(key.shape[0])
    # A stable sort (timsort) is fast on the nearly sorted keys met here.
    order: NDArray[np.intp] = np.sort(packed, kind="stable")
    del packed, key
    order &= (1 << position_bits) - 1
    return order


def _sort_within_blocks(s: F64, starts: I64, lengths: I64) -> NDArray[np.intp]:
    """Permutation sorting each block of rows by score descending (ties in any order).

    The blocks become the rows of a matrix padded with +inf, sorted row by row
    (much faster than one global sort of (query, score) pairs).
    """
    n = s.shape[0]
    widest = int(lengths.max())
    if lengths.shape[0] * widest > 4 * n + 4096:  # very ragged: one global sort instead
        block = np.repeat(np.arange(lengths.shape[0]), lengths)
        return np.lexsort((-s, block))
    if (lengths == widest).all():  # equal depths: a reshape, no padding
        within = np.argsort(-s.reshape(-1, widest), axis=1)
        within += starts[:, None]
        return within.ravel()
    block = np.repeat(np.arange(lengths.shape[0]), lengths)
    flat = block * widest + (np.arange(n) - starts[block])
    padded = np.full(lengths.shape[0] * widest, np.inf)
    padded[flat] = -s
    within = np.argsort(padded.reshape(-1, widest), axis=1).ravel()
    result: NDArray[np.intp] = within[flat] + starts[block]
    return result

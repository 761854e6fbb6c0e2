"""trec_eval's preference measures: ``-R prefs`` and ``-R qrels_prefs`` files and
the ``prefs_*`` measures (``-m all_prefs``), as trec_eval 10 computes them.

A preference file has lines ``query jg jsg docno rel_level`` (get_prefs.c): in
each judgment group (jg: one user's information need) and sub-group (jsg) a
document is preferred to every document with a lower level. ``-R qrels_prefs``
reads a qrels file so, the iter field as the judgment group and one sub-group
(get_qrels_prefs.c). Facts from trec_eval's form_prefs_counts.c and
m_prefs_*.c (usnistgov/trec_eval v10.0); docs/ranking.md gives the
definitions.

Per query, every document named in the preferences gets an internal rank: the
judged documents the run retrieved (in its top ``-M``), in ranking order
(score descending, ties by document id *ascending*, as form_prefs_counts.c
sorts), then the others in document-id order. A judgment group with one
sub-group is a complete order by level (every pair of different levels is a
preference); one with several sub-groups is the transitive closure of their
preferences. Each preference ``a > b`` is then counted as fulfilled or not,
among the retrieved (both retrieved), implied (one retrieved) or neither.
The work, vectorised: a group of one sub-group counts its pairs by level
(sorted levels and binary search) and compares ranks in a matrix of its
retrieved lines only (at most the run's depth); a group of several sub-groups
takes the closure of a boolean matrix of its documents by repeated squaring;
the ``prefs_pair`` measures of a query with several groups (or a document
listed twice) count the groups' preferences per document pair by one sort
(memory per preference, where trec_eval keeps a count array of documents^2;
with one group they equal the ``prefs_simp`` ones and need none).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.trec_format import parse_numbers, read_bytes, split_fields
from prcurve.ranking.trec_measures import PREFS_MEASURES  # the names, defined with the others
from prcurve.validation.ranking import bad_preference, no_queries_to_evaluate

__all__ = [
    "PREFS_MEASURES",
    "Preferences",
    "as_bytes",
    "prefs_values",
    "read_prefs",
]


@dataclass(frozen=True)
class Preferences:
    """Preference judgments, one row per line: ``query``, judgment ``group``,
    ``subgroup``, document ``doc`` (byte strings as in the file) and ``level``.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.ranking.prefs import Preferences
    >>> p = Preferences.from_arrays(["q1", "q1"], ["u1", "u1"], ["s", "s"], ["a", "b"], [2, 1])
    >>> p.doc.tolist(), p.level.tolist()
    ([b'a', b'b'], [2.0, 1.0])
    """

    query: NDArray[np.bytes_]
    group: NDArray[np.bytes_]
    subgroup: NDArray[np.bytes_]
    doc: NDArray[np.bytes_]
    level: NDArray[np.float64]
    source: str = "<prefs>"

    @classmethod
    def from_arrays(cls, query: Any, group: Any, subgroup: Any, doc: Any, level: Any,
                    source: str = "<prefs>") -> Preferences:
        """From five equal-length columns (ids as text or bytes, levels as numbers)."""
        return cls(as_bytes(np.asarray(query)), as_bytes(np.asarray(group)),
                   as_bytes(np.asarray(subgroup)), as_bytes(np.asarray(doc)),
                   np.asarray(level, dtype=np.float64), source)


def as_bytes(ids: NDArray[Any]) -> NDArray[np.bytes_]:
    """Ids as byte strings (text as UTF-8), compared as trec_eval's strcmp does."""
    if ids.dtype.kind == "S":
        return ids
    if ids.dtype.kind != "U":
        ids = ids.astype(str)
    return np.char.encode(ids, "utf-8")


def read_prefs(path: str | os.PathLike[str], rel_format: str = "prefs") -> Preferences:
    """Read a ``-R prefs`` file (``query jg jsg docno rel_level``) or, with
    ``rel_format="qrels_prefs"``, a qrels file as preferences (``query iter
    docno relevance``: the iter field is the judgment group, one sub-group).

    Lines starting with ``#`` and blank lines are skipped; the level is read
    as a number (trec_eval's ``atof`` would read text as 0; prcurve names the
    line instead).
    """
    data, source = read_bytes(path, "qrels")
    if rel_format == "prefs":
        fields = split_fields(data, source, "qrels", 5, True, "query jg jsg docno rel_level")
        subgroup = fields.strings(2)
        doc, value = 3, 4
    else:
        fields = split_fields(data, source, "qrels", 4, True, "query iter docno relevance")
        subgroup = np.full(fields.first.shape[0], b"0", dtype="S1")
        doc, value = 2, 3
    level = parse_numbers(fields, value, np.float64, source, "qrels", "level")
    return Preferences(fields.strings(0), fields.strings(1), subgroup, fields.strings(doc),
                       level.astype(np.float64), source)


# -- one query ---------------------------------------------------------------------------


@dataclass
class _Group:
    """The counts of one judgment group (trec_eval's JG), with the ratios that
    prefs_avgjg_Rnonrel and its _ret form recalculate when needed."""

    ful_ret: int
    poss_ret: int  # fulfilled included, as trec_eval stores it
    ful_imp: int
    poss_imp: int
    notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    rnonrel: tuple[int, int] | None = None  # (fulfilled, possible) recalculated
    rnonrel_ret: tuple[int, int] | None = None


def _classify(ra: NDArray[np.int64], rb: NDArray[np.int64], njr: int) -> tuple[int, ...]:
    """Preferences a > b by internal ranks: (fulfilled among retrieved, not fulfilled
    among retrieved, fulfilled implied, not fulfilled implied, neither retrieved)."""
    ret_a, ret_b = ra < njr, rb < njr
    forward = ra < rb
    return (
        int(np.count_nonzero(forward & ret_b)),  # ra < rb < njr
        int(np.count_nonzero(~forward & ret_a)),  # rb < ra < njr
        int(np.count_nonzero(ret_a & ~ret_b)),
        int(np.count_nonzero(~ret_a & ret_b)),
        int(np.count_nonzero(~ret_a & ~ret_b)),
    )


def _ratio(a: int, b: int) -> float:
    """C's (double) a / (double) b; 0/0 is NaN."""
    return a / b if b else float("nan")


class _Query:
    """The preferences of one query against its ranking (form_prefs_counts.c)."""

    def __init__(self, prefs: Preferences, rows: NDArray[np.intp],
                 ranked_docs: NDArray[np.bytes_], need_pairs: bool, query: Any) -> None:
        self.query, self.source = query, prefs.source
        docs, doc_of_line = np.unique(prefs.doc[rows], return_inverse=True)
        n = docs.shape[0]
        # Internal ranks: retrieved judged documents in ranking order, then the rest
        # in document-id order.
        place = np.searchsorted(docs, ranked_docs)
        found = place < n
        found[found] = docs[place[found]] == ranked_docs[found]
        retrieved = place[found]
        njr = retrieved.shape[0]
        rank_of_doc = np.full(n, -1, dtype=np.int64)
        rank_of_doc[retrieved] = np.arange(njr)
        unretrieved = rank_of_doc < 0
        rank_of_doc[unretrieved] = njr + np.arange(int(np.count_nonzero(unretrieved)))
        self.n, self.njr = n, njr
        self.doc_at_rank = np.empty(n, dtype=docs.dtype)
        self.doc_at_rank[rank_of_doc] = docs
        rank = rank_of_doc[doc_of_line]
        level = prefs.level[rows]
        _, group = np.unique(prefs.group[rows], return_inverse=True)
        _, subgroup = np.unique(prefs.subgroup[rows], return_inverse=True)
        # trec_eval's order: jg, jsg, level descending, rank.
        order = np.lexsort((rank, -level, subgroup, group))
        group, subgroup, level, rank = group[order], subgroup[order], level[order], rank[order]
        self.group_names = prefs.group[rows][order]
        # One group whose preferences are each one pair of documents (several
        # sub-groups, or one without a document listed twice): every pair has one
        # vote, fulfilled or not, and prefs_pair* equal prefs_simp* (the same sums of
        # 1.0 and 0.0, the same counts); no count matrix.
        self.simple_pairs = bool(group[0] == group[-1] and (
            subgroup[0] != subgroup[-1] or np.unique(rank).shape[0] == rank.shape[0]))
        # Otherwise every group's preferences (internal ranks a > b), for prefs_pair*.
        self.votes: list[tuple[NDArray[np.int64], NDArray[np.int64]]] | None = (
            [] if need_pairs and not self.simple_pairs else None)
        starts = np.flatnonzero(np.diff(group, prepend=-1))
        ends = np.append(starts[1:], group.shape[0])
        self.groups = [
            self._group(subgroup[s:e], level[s:e], rank[s:e], s) for s, e in
            zip(starts.tolist(), ends.tolist(), strict=True)
        ]

    def _fail(self, first_line: int, found: str, fix: str) -> Exception:
        return bad_preference(self.source, self.query, self.group_names[first_line], found, fix)

    def _group(self, subgroup: NDArray[np.intp], level: NDArray[np.float64],
               rank: NDArray[np.int64], first: int) -> _Group:
        if subgroup[0] == subgroup[-1]:  # sorted: one sub-group
            return self._classes(level, rank, first)
        return self._closure(subgroup, level, rank, first)

    def _add_pairs(self, ra: NDArray[np.int64], rb: NDArray[np.int64]) -> None:
        if self.votes is not None:
            self.votes.append((ra, rb))

    def _classes(self, level: NDArray[np.float64], rank: NDArray[np.int64],
                 first: int) -> _Group:
        """One sub-group: equivalence classes of equal level (add_ec_pref_to_jg),
        every line counted (a document listed twice counts twice)."""
        njr = self.njr
        key = np.unique(np.stack([rank, (level + 0.0).view(np.int64)]), axis=1)  # -0.0 is 0.0
        twice = np.flatnonzero(np.diff(key[0]) == 0)
        if twice.shape[0]:
            doc = self.doc_at_rank[key[0][twice[0]]]
            raise self._fail(first, f"document {doc.decode('utf-8', 'replace')!r} has two "
                             "levels in one sub-group",
                             "give each document one level per judgment sub-group")
        rel, ret = level > 0.0, rank < njr  # level <= 0: non-relevant here
        # A preference is a pair of lines of different levels. Pairs with an
        # unretrieved line are counted by level (sorted levels, binary search); pairs
        # of retrieved lines (at most the run's depth of them) by a matrix.
        lv_ret, lv_unret = level[ret], level[~ret]
        up_ret, up_unret = np.sort(lv_ret), np.sort(lv_unret)
        rr = rank[ret]
        better = lv_ret[:, None] > lv_ret[None, :]
        forward = rr[:, None] < rr[None, :]
        ful_ret = int(np.count_nonzero(better & forward))
        not_ret = int(np.count_nonzero(better)) - ful_ret
        ful_imp = int(np.searchsorted(up_unret, lv_ret).sum())  # retrieved above unretrieved
        not_imp = int(np.searchsorted(up_ret, lv_unret).sum())
        notoccur = int(np.searchsorted(up_unret, lv_unret).sum())
        if self.votes is not None:
            ia, ib = np.nonzero(level[:, None] > level[None, :])
            self._add_pairs(rank[ia], rank[ib])
        g = _Group(ful_ret, not_ret + ful_ret, ful_imp, not_imp + ful_imp, notoccur,
                   int(np.count_nonzero(rel)), int(np.count_nonzero(rel & ret)),
                   int(np.count_nonzero(~rel)), int(np.count_nonzero(~rel & ret)))
        # m_prefs_avgjg_Rnonrel.c's recalculate: the last class (lowest level) cut to its
        # first num_rel documents by rank; pairs of lines of different levels whose lower
        # one is not in the last class, then every line against the cut class (itself
        # included). Fulfilled: a retrieved above b (or b not retrieved).
        last = level == level[-1]
        last_rank = rank[last]
        if g.num_nonrel > g.num_rel:
            cut = last_rank[:g.num_rel]
            m = level.shape[0]
            b_unret = lv_unret[~last[~ret]]
            pairs = (m - np.searchsorted(np.sort(level), level[~last], side="right")).sum()
            ful = (np.count_nonzero(better & forward & ~last[ret][None, :])
                   + (lv_ret.shape[0] - np.searchsorted(up_ret, b_unret, side="right")).sum()
                   + (cut.shape[0] - np.searchsorted(cut, rr, side="right")).sum())
            g.rnonrel = (int(ful), int(pairs) + m * cut.shape[0])
        if g.num_nonrel_ret > g.num_rel_ret:
            cut = last_rank[:g.num_rel_ret]
            cut = cut[cut < njr]
            kept = better & ~last[ret][None, :]
            ful = (np.count_nonzero(kept & forward)
                   + (cut.shape[0] - np.searchsorted(cut, rr, side="right")).sum())
            g.rnonrel_ret = (int(ful), int(np.count_nonzero(kept)) + rr.shape[0] * cut.shape[0])
        return g

    def _closure(self, subgroup: NDArray[np.intp], level: NDArray[np.float64],
                 rank: NDArray[np.int64], first: int) -> _Group:
        """Several sub-groups: the transitive closure of their preferences
        (form_jg_pa, add_transitives, add_pa_pref_to_jg)."""
        njr = self.njr
        docs, local = np.unique(rank, return_inverse=True)  # docs: internal ranks, ascending
        k = docs.shape[0]
        ia, ib = np.nonzero((subgroup[:, None] == subgroup[None, :])
                            & (level[:, None] > level[None, :]))
        reach = np.eye(k, dtype=np.float32)
        reach[local[ia], local[ib]] = 1.0
        while True:  # repeated squaring reaches trec_eval's fixed point of pa * pa^i
            nxt = ((reach @ reach) > 0).astype(np.float32)
            if np.array_equal(nxt, reach):
                break
            reach = nxt
        prefer = reach > 0
        np.fill_diagonal(prefer, False)
        conflict = np.argwhere(prefer & prefer.T)
        if conflict.shape[0]:
            a, b = (self.doc_at_rank[docs[i]].decode("utf-8", "replace") for i in conflict[0])
            raise self._fail(first, f"documents {a!r} and {b!r} are each preferred to the "
                             "other (directly or through others)",
                             "put inconsistent preferences in different judgment groups")
        # Each document's level: the last in trec_eval's order; 0 after > 0 (or > 0
        # after 0) is an error there.
        by_doc = np.argsort(local, kind="stable")
        seq, who = level[by_doc], local[by_doc]
        same = who[1:] == who[:-1]
        prev, cur = seq[:-1][same], seq[1:][same]
        bad = ((prev > 0) & (cur == 0)) | ((prev == 0) & (cur > 0))
        if bad.any():
            doc = self.doc_at_rank[docs[who[1:][same][bad][0]]].decode("utf-8", "replace")
            raise self._fail(first, f"document {doc!r} has level 0 in one sub-group and a "
                             "level > 0 in another",
                             "a document is either non-relevant (0) or relevant (> 0) "
                             "within one judgment group")
        rel = np.empty(k)
        rel[who] = seq  # the last write of each document wins
        ret = docs < njr
        pa, pb = np.nonzero(prefer)
        ra, rb = docs[pa], docs[pb]
        ful_ret, not_ret, ful_imp, not_imp, notoccur = _classify(ra, rb, njr)
        self._add_pairs(ra, rb)
        g = _Group(ful_ret, not_ret + ful_ret, ful_imp, not_imp + ful_imp, notoccur,
                   int(np.count_nonzero(rel > 0)), int(np.count_nonzero((rel > 0) & ret)),
                   int(np.count_nonzero(rel == 0)), int(np.count_nonzero((rel == 0) & ret)))
        nonrel_ranks = docs[rel == 0]  # ascending
        if g.num_nonrel > g.num_rel:
            # Non-relevant documents after the first num_rel (by rank) leave the array.
            kept = ~((docs >= nonrel_ranks[g.num_rel]) & (rel == 0))
            both = kept[pa] & kept[pb]
            f_ret, n_ret, f_imp, n_imp, n_occ = _classify(ra[both], rb[both], njr)
            g.rnonrel = (f_ret + f_imp, f_ret + n_ret + f_imp + n_imp + n_occ)
        if g.num_nonrel_ret > g.num_rel_ret:
            nonrel_ret = nonrel_ranks[nonrel_ranks < njr]
            # trec_eval counts num_rel (not num_rel_ret) non-relevant retrieved ones here.
            limit = int(nonrel_ret[g.num_rel]) if nonrel_ret.shape[0] > g.num_rel else njr
            kept = ~((docs >= limit) & (rel == 0))
            both = kept[pa] & kept[pb] & (ra < njr) & (rb < njr)
            n_ful = int(np.count_nonzero(ra[both] < rb[both]))
            g.rnonrel_ret = (n_ful, int(np.count_nonzero(both)))
        return g

    # -- the measures (m_prefs_*.c) ------------------------------------------------------

    def values(self) -> dict[str, float]:
        gs = self.groups
        ful_ret = sum(g.ful_ret for g in gs)
        ful_imp = sum(g.ful_imp for g in gs)
        poss_ret = sum(g.poss_ret for g in gs)
        poss_imp = sum(g.poss_imp for g in gs)
        notoccur = sum(g.notoccur for g in gs)
        out = {
            "prefs_num_prefs_poss": float(poss_ret + poss_imp + notoccur),
            "prefs_num_prefs_ful": float(ful_ret + ful_imp),
            "prefs_num_prefs_ful_ret": float(ful_ret),
            "prefs_simp": _simple(ful_ret + ful_imp, poss_ret + poss_imp + notoccur),
            "prefs_simp_ret": _simple(ful_ret, poss_ret),
            "prefs_simp_imp": _simple(ful_ret + ful_imp, poss_ret + poss_imp),
            "prefs_avgjg": _per_group([(g.ful_ret + g.ful_imp,
                                        g.poss_ret + g.poss_imp + g.notoccur) for g in gs]),
            "prefs_avgjg_ret": _per_group([(g.ful_ret, g.poss_ret) for g in gs]),
            "prefs_avgjg_imp": _per_group([(g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp)
                                           for g in gs]),
            "prefs_avgjg_Rnonrel": _rnonrel(gs, retrieved=False),
            "prefs_avgjg_Rnonrel_ret": _rnonrel(gs, retrieved=True),
        }
        if self.votes is not None:
            out.update(_pairs(self.votes, self.n, self.njr))
        elif self.simple_pairs:
            out.update(prefs_pair=out["prefs_simp"], prefs_pair_ret=out["prefs_simp_ret"],
                       prefs_pair_imp=out["prefs_simp_imp"])
        return out


def _simple(ful: int, poss: int) -> float:
    return ful / poss if poss else 0.0


def _per_group(ratios: list[tuple[int, int]]) -> float:
    """prefs_avgjg*: ful/poss averaged over groups (a group without preferences
    adds 0 and still counts); 0 unless the sum is positive."""
    total = 0.0
    for ful, poss in ratios:
        if poss:
            total += ful / poss
    return total / len(ratios) if total > 0.0 else 0.0


def _rnonrel(groups: list[_Group], retrieved: bool) -> float:
    """prefs_avgjg_Rnonrel (and _ret): each group's non-relevant documents set to
    R in number (added fulfilled preferences if fewer, the first R by rank if more).
    A NaN ratio (0/0) makes the sum NaN, and the value 0, as in trec_eval."""
    total = 0.0
    for g in groups:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved else (g.num_rel, g.num_nonrel)
        if r >= n:
            if retrieved:
                ful = g.ful_ret + g.num_rel_ret * (r - n)
                poss = g.poss_ret + g.num_rel * (r - n)  # num_rel, as m_prefs_avgjg_Rnonrel_ret.c
            else:
                ful = g.ful_ret + g.ful_imp + g.num_rel_ret * (r - n)
                poss = g.poss_ret + g.poss_imp + g.notoccur + g.num_rel * (r - n)
        else:
            recalculated = g.rnonrel_ret if retrieved else g.rnonrel
            if recalculated is None:  # pragma: no cover - set whenever n > r
                raise RuntimeError("unreachable")
            ful, poss = recalculated
        total += _ratio(ful, poss)
    return total / len(groups) if total > 0.0 else 0.0


def _pairs(votes: list[tuple[NDArray[np.int64], NDArray[np.int64]]], n: int,
           njr: int) -> dict[str, float]:
    """prefs_pair*: per document pair, the share of the groups' preferences on it that
    the ranking fulfils, averaged over pairs (m_prefs_pair.c), summed in trec_eval's
    order (pairs of retrieved documents, then retrieved with unretrieved, each by
    the higher one's rank, then the lower one's). Sparse: memory per preference."""
    ra = np.concatenate([a for a, _ in votes])
    rb = np.concatenate([b for _, b in votes])
    lo, hi = np.minimum(ra, rb), np.maximum(ra, rb)
    pair, which = np.unique(lo * n + hi, return_inverse=True)  # (lo, hi) ascending
    total = np.bincount(which, minlength=pair.shape[0])
    fulfilled = np.bincount(which[ra < rb], minlength=pair.shape[0])  # lo preferred
    lo, hi = pair // n, pair % n
    both, one = hi < njr, (lo < njr) & (hi >= njr)
    terms = np.concatenate((fulfilled[both] / total[both], fulfilled[one] / total[one]))
    sums = np.cumsum(terms)
    n1, n2 = int(np.count_nonzero(both)), int(np.count_nonzero(one))
    n3 = int(np.count_nonzero(lo >= njr))
    ret_sum = float(sums[n1 - 1]) if n1 else 0.0
    imp_sum = float(sums[-1]) if sums.shape[0] else 0.0
    return {
        "prefs_pair": imp_sum / (n1 + n2 + n3) if n1 + n2 + n3 else 0.0,
        "prefs_pair_ret": ret_sum / n1 if n1 else 0.0,
        "prefs_pair_imp": imp_sum / (n1 + n2) if n1 + n2 else 0.0,
    }


# -- every query -------------------------------------------------------------------------


def prefs_values(
    prefs: Preferences, run_queries: NDArray[np.bytes_], run_query_codes: NDArray[np.intp],
    run_docs: NDArray[np.bytes_], scores: NDArray[np.float64], names: list[str],
    *, depth: int | None, complete: bool,
) -> tuple[NDArray[np.bytes_], NDArray[np.bool_], dict[str, NDArray[np.float64]]]:
    """The ``names`` measures of every query of ``prefs`` that is evaluated.

    ``run_queries`` are the run's distinct query ids, ``run_query_codes`` each row's
    index into them, ``run_docs`` and ``scores`` each row's document and score.
    Queries are the preferences' queries in byte order: those with results, or every
    one with ``complete`` (trec_eval -c: a query without results is evaluated on an
    empty ranking). Returns the query ids, whether each had results, and one array
    of values per measure.
    """
    queries, query_of_line = np.unique(prefs.query, return_inverse=True)
    lines = np.argsort(query_of_line, kind="stable")
    bounds = np.searchsorted(query_of_line[lines], np.arange(queries.shape[0] + 1))
    where = np.searchsorted(run_queries, queries)
    has = where < run_queries.shape[0]
    has[has] = run_queries[where[has]] == queries[has]
    keep = np.ones(queries.shape[0], dtype=bool) if complete else has
    if not keep.any():  # trec_eval: "No queries with both results and relevance info"
        raise no_queries_to_evaluate(run_queries.shape[0], queries.shape[0])
    run_order = np.argsort(run_query_codes, kind="stable")
    run_bounds = np.searchsorted(run_query_codes[run_order],
                                 np.arange(run_queries.shape[0] + 1))
    need_pairs = any(name.startswith("prefs_pair") for name in names)
    out = {name: np.zeros(int(np.count_nonzero(keep))) for name in names}
    for slot, q in enumerate(np.flatnonzero(keep).tolist()):
        if has[q]:
            rows = run_order[run_bounds[where[q]]:run_bounds[where[q] + 1]]
            docs, sims = run_docs[rows], scores[rows]
            ranked = docs[np.lexsort((docs, -sims))]  # score descending, id ascending
            if depth is not None:
                ranked = ranked[:depth]
        else:
            ranked = np.zeros(0, dtype=run_docs.dtype)
        query = _Query(prefs, lines[bounds[q]:bounds[q + 1]], ranked, need_pairs, queries[q])
        values = query.values()
        for name in names:
            out[name][slot] = values[name]
    return queries[keep], has[keep], out


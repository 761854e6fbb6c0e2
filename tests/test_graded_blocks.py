"""The running ideal DCG made for a block of queries at a time (graded.Gains.ideal_prefix,
IDEAL_BLOCK; issue 26, item 4): the same floats as trec_eval's loop, position by
position (a readable oracle, and the C trec_eval's own outputs on its random
collections with blocks of a few positions), and no array of one entry per relevant
judgment beyond the result."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.test_trec import assert_c_output, random_cases
from tests.traced import traced

from prcurve.ranking import graded
from prcurve.ranking.state import JUDGED, JudgedLevels, Rankings


def _gains(counts: np.ndarray, retrieved: list[list[int]] | None = None) -> graded.Gains:
    """Gains of rankings whose query q has ``counts[q, g]`` documents judged with grade g
    and retrieves documents of grades ``retrieved[q]`` in rank order (-1: not judged;
    by default one document not judged)."""
    n_queries, n_grades = counts.shape
    if retrieved is None:
        retrieved = [[-1]] * n_queries
    code = np.array([0 if grade < 0 else JUDGED + grade for row in retrieved for grade in row],
                    dtype=np.int8)
    query, grade = np.nonzero(counts)
    levels = JudgedLevels(query.astype(np.int64), (JUDGED + grade).astype(np.int64),
                          counts[query, grade].astype(np.int64))
    relevant = counts[:, 1:].sum(axis=1).astype(np.int64)
    rankings = Rankings(lengths=np.array([len(row) for row in retrieved], dtype=np.int64),
                        code=code,
                        grades=np.arange(n_grades, dtype=np.int64), relevant_code=JUDGED + 1,
                        n_relevant=relevant, n_judged_nonrelevant=counts[:, 0].astype(np.int64),
                        judged_levels=lambda: levels)
    return graded.Gains(rankings, ())


def _oracle(counts: np.ndarray) -> list[float]:
    """trec_eval's ideal DCG loop with the grades as gains: each query's judged
    documents best grade first, one term added at a time."""
    out = []
    for row in counts.tolist():
        total, rank = 0.0, 0
        for grade in range(len(row) - 1, 0, -1):
            for _ in range(row[grade]):
                total += grade / math.log2(rank + 2)
                out.append(total)
                rank += 1
    return out


@given(st.lists(st.lists(st.integers(0, 4), min_size=4, max_size=4), min_size=1, max_size=30),
       st.integers(1, 40))
def test_blocks_of_queries_give_trec_evals_sums(rows: list[list[int]], block: int) -> None:
    counts = np.array(rows)
    saved = graded.IDEAL_BLOCK
    graded.IDEAL_BLOCK = block
    try:
        g = _gains(counts)
        prefix = g.ideal_prefix
    finally:
        graded.IDEAL_BLOCK = saved
    assert prefix.tolist() == _oracle(counts)  # the same floats, bit for bit
    first, length = g.ideal_extent
    assert first.tolist() == (np.cumsum(length) - length).tolist()
    assert length.tolist() == counts[:, 1:].sum(axis=1).tolist()
    assert g.ideal_gains().tolist() == [
        float(grade) for row in rows for grade in range(3, 0, -1) for _ in range(row[grade])]
    for begin in range(0, int(length.sum()) + 1, 3):
        assert g.ideal_gains(begin, begin + 5).tolist() == g.ideal_gains()[begin:begin + 5].tolist()


def _g_oracle(counts: np.ndarray, retrieved: list[list[int]]) -> tuple[list[float], list[float]]:
    """trec_eval's G with the grades as gains, rank by rank: the cost adds the ideal
    gain at the rank (at least 1; 1 past the ideal ranking), and a document of gain
    x > 0 adds x / log2(2 + cost so far - gain so far); and the ideal gains' sum."""
    totals, ideals = [], []
    for row, ranks in zip(counts.tolist(), retrieved, strict=True):
        ideal = [grade for grade in range(len(row) - 1, 0, -1) for _ in range(row[grade])]
        total = cost = found = 0.0
        for rank, grade in enumerate(ranks):
            gain = float(max(grade, 0))
            cost += max(ideal[rank], 1) if rank < len(ideal) else 1
            found += gain
            if gain != 0:
                total += gain / math.log2(2.0 + cost - found)
        ideal_sum = 0.0
        for gain in ideal:
            ideal_sum += gain
        totals.append(total)
        ideals.append(ideal_sum)
    return totals, ideals


@given(st.lists(st.tuples(st.lists(st.integers(0, 4), min_size=4, max_size=4),
                          st.lists(st.integers(-1, 3), max_size=12)), min_size=1, max_size=12),
       st.integers(1, 20))
def test_g_from_the_blocks_is_trec_evals_rank_by_rank(
    queries: list[tuple[list[int], list[int]]], block: int
) -> None:
    counts = np.array([row for row, _ in queries])
    retrieved = []  # a grade retrieved no more often than judged; else not judged (-1)
    for row, ranks in queries:
        left, kept = list(row), []
        for grade in ranks:
            judged = grade >= 0 and left[grade] > 0
            left[grade] -= judged
            kept.append(grade if judged else -1)
        retrieved.append(kept)
    saved = graded.IDEAL_BLOCK
    graded.IDEAL_BLOCK = block
    try:
        total, ideal = graded.g_measure(_gains(counts, retrieved))
    finally:
        graded.IDEAL_BLOCK = saved
    want_total, want_ideal = _g_oracle(counts, retrieved)
    assert total.tolist() == want_total  # bit for bit
    assert ideal.tolist() == want_ideal


@pytest.mark.parametrize("case", random_cases()[::3],
                         ids=lambda c: f"v{c['version']} " + " ".join(c["args"]))
def test_the_c_trec_eval_with_ideal_blocks_of_two_positions(
    case: dict[str, Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The C program's output on random collections (every option; ndcg, ndcg_cut,
    # ndcg_rel, Rndcg and G with gains given or not), the ideal DCG in blocks of 2.
    monkeypatch.setattr(graded, "IDEAL_BLOCK", 2)
    assert_c_output(case, tmp_path, capsysbinary)


def test_g_holds_no_array_of_every_ideal_position() -> None:
    # 2^22 relevant judgments in 2^12 queries, each retrieving 10 documents. Main,
    # measured (at 2^20): a peak of 64 bytes an ideal position (the expanded gains,
    # their costs and running costs, and the running sums' temporaries).
    rng = np.random.default_rng(0)
    counts = np.zeros((1 << 12, 4), dtype=np.int64)
    counts[:, 1:] = rng.multinomial(1 << 10, [0.5, 0.3, 0.2], size=1 << 12)
    retrieved = rng.integers(-1, 2, size=(1 << 12, 10)).tolist()  # grade 1: 512 a query
    g = _gains(counts, retrieved)
    assert g.ideal[0].count.sum() == 1 << 22
    (total, ideal), _, peak = traced(lambda: graded.g_measure(g))
    assert (total > 0).any()
    assert ideal.tolist() == [float(c[1] + 2 * c[2] + 3 * c[3]) for c in counts.tolist()]
    assert peak <= 8 << 20  # the retrieved rows' and a range's: none of 2^22 entries


def test_the_running_ideal_dcg_holds_no_temporary_of_every_judgment() -> None:
    # 2^22 relevant judgments in 2^12 queries: the result (8 bytes a position) and a
    # block's temporaries. Main, measured: 16 bytes a position kept (the expanded gains
    # too) and a peak of 41 (ranks, discounts and terms of every position at once); now
    # 8 and 10.5.
    rng = np.random.default_rng(0)
    counts = np.zeros((1 << 12, 4), dtype=np.int64)
    counts[:, 1:] = rng.multinomial(1 << 10, [0.5, 0.3, 0.2], size=1 << 12)
    g = _gains(counts)
    assert g.ideal[0].count.sum() == 1 << 22  # the blocks made first (per query and grade)
    prefix, kept, peak = traced(lambda: g.ideal_prefix)
    n = prefix.shape[0]
    assert n == 1 << 22
    assert kept <= 8 * n + (1 << 18)  # and each query's first position and length
    assert peak <= 12 * n

"""A query too deep for one block, read in parts (ranking/trec_stream.py, ``_Deep``;
issue 26, item 4: one topic of 10^6 documents peaked at 322 MiB against the C
trec_eval's 138): every number and error equal to reading the run whole (read_run,
the oracle), with part boundaries anywhere, ties never split, and the judged pairs of
a deep query looked up by its own sorted keys (trec_judged.Judged._deep_rows)."""

from __future__ import annotations

import gzip
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.errors import InvalidInputError
from prcurve.ranking import read_qrels, read_run, trec_judged, trec_reader, trec_stream
from prcurve.ranking.row_docs import RowDocs
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
from prcurve.ranking.trec_stream import read_judged, read_judged_run

OPTIONS = [
    TrecEvalOptions(measures=("all_trec",), per_query=True),
    TrecEvalOptions(measures=("map", "P.5", "ndcg", "bpref"), per_query=True, version=9),
    TrecEvalOptions(measures=("map", "num_ret", "num_rel_ret"), per_query=True, depth=7,
                    judged_only=True),
]

ID = st.text(alphabet=st.sampled_from("abAB09_-é"), min_size=1, max_size=12).map(
    lambda t: t.encode())
SCORES = st.sampled_from(["3", "2.5", "2.50", "1", "1.0", "0.5", "0", "-0.0", "-0", "-1",
                          "1e-3", "-7.125", "3.0000001", "1e300", "1e39", "2e39"])


@st.composite
def deep_files(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """Runs of one to three queries of up to 120 lines, scores never rising in a query
    (as runs are written; equal values in other spellings, float32 ties of distinct
    float64 values: 1e39 and 2e39 both beyond float32) unless drawn otherwise."""
    lines, judged = [], []
    for query in draw(st.lists(ID, min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(ID, min_size=1, max_size=120, unique=True))
        scores = [draw(SCORES) for _ in docs]
        if draw(st.integers(0, 4)):  # mostly written best first
            scores.sort(key=lambda s: -float(s))
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True)):
            lines.append(b" ".join([query, b"Q0", doc, str(rank).encode(), score.encode(),
                                    b"deep"]))
            if draw(st.integers(0, 2)) == 0:
                judged.append((query, doc))
        judged += [(query, doc) for doc in draw(st.lists(ID, max_size=4)) if doc not in docs]
    if not judged:
        judged.append((lines[0].split()[0], b"none"))
    qrels = b"".join(b"%s 0 %s %d\n" % (q, d, draw(st.integers(-1, 3)))
                     for q, d in dict.fromkeys(judged))
    return b"\n".join(lines) + b"\n", qrels


@pytest.fixture(autouse=True)
def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every file reaches the block reader; every judged query is a deep one.
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(trec_judged, "DEEP_JUDGMENTS", 1)


def _parts_taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``_part_of_query`` wrapped: the bytes each call took (0: none)."""
    taken: list[int] = []
    original = trec_stream._part_of_query

    def spy(*args: object) -> int | None:
        found = original(*args)  # type: ignore[arg-type]
        taken.append(found or 0)
        return found

    monkeypatch.setattr(trec_stream, "_part_of_query", spy)
    return taken


def _output(qrels: object, run: object, options: TrecEvalOptions) -> str:
    """trec_eval's output, or the error's message (no query judged and retrieved)."""
    try:
        return format_trec_eval(qrels, run, options)
    except InvalidInputError as error:
        return f"error: {error}"


def _same_as_whole(qrels_path: Path, run_path: Path) -> None:
    qrels, run = read_judged(qrels_path, run_path)
    assert isinstance(run._docs, RowDocs)  # the block reader took it
    whole, whole_qrels = read_run(run_path), read_qrels(qrels_path)
    for options in OPTIONS:
        assert _output(qrels, run, options) == _output(whole_qrels, whole, options)
    assert run.query_id.tolist() == whole.query_id.tolist()
    assert run.score.tolist() == whole.score.tolist()


@settings(max_examples=40, deadline=None)
@given(files=deep_files(), block=st.integers(16, 600))
def test_a_query_read_in_parts_equals_reading_whole(files: tuple[bytes, bytes],
                                                    block: int) -> None:
    run_bytes, qrels_bytes = files
    old = trec_stream.BLOCK_BYTES
    trec_stream.BLOCK_BYTES = block
    try:
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "run").write_bytes(run_bytes)
            (Path(folder) / "qrels").write_bytes(qrels_bytes)
            _same_as_whole(Path(folder) / "qrels", Path(folder) / "run")
    finally:
        trec_stream.BLOCK_BYTES = old


def _deep_run(n: int, scores: list[str], query: str = "q1") -> str:
    return "".join(f"{query} Q0 d{k * 7919 % 100003} {k} {scores[k]} r\n" for k in range(n))


def test_parts_end_where_the_scores_fall(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,000 lines in runs of 7 tied scores, blocks of 256 bytes: read in parts (no
    # larger buffer), each ending between two tie groups; another query after it.
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 256)
    taken = _parts_taken(monkeypatch)
    scores = [str(1000 - k // 7) for k in range(3000)]
    run = _deep_run(3000, scores) + "q2 Q0 d1 1 5 r\nq2 Q0 d2 2 4 r\n"
    qrels = "".join(f"q1 0 d{k * 7919 % 100003} {k % 3}\n" for k in range(0, 3000, 5))
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels + "q2 0 d2 1\n")
    _same_as_whole(tmp_path / "qrels", tmp_path / "run")
    assert sum(1 for t in taken if t) > 100
    assert 0 not in taken  # never one tie group or not in order: never grown


def test_a_tie_group_larger_than_a_block_grows_the_buffer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 128)
    taken = _parts_taken(monkeypatch)
    scores = ["9"] * 5 + ["3"] * 400 + ["2"] * 50 + ["1.5"] * 50 + ["1"] * 300
    (tmp_path / "run").write_text(_deep_run(len(scores), scores))
    (tmp_path / "qrels").write_text("".join(f"q1 0 d{k * 7919 % 100003} {k % 2}\n"
                                            for k in range(0, len(scores), 3)))
    _same_as_whole(tmp_path / "qrels", tmp_path / "run")
    assert 0 in taken
    assert any(taken)


@pytest.mark.parametrize("compress", [False, True])
def test_scores_rising_after_a_part_read_the_query_again_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compress: bool) -> None:
    # The parts kept ranked their ties alone: a later score above them could tie with
    # rows already taken. The query is read again from its first line, whole (a gzip
    # file seeks back by decompressing again); a query rising from its first part on
    # is read whole at once.
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 128)
    taken = _parts_taken(monkeypatch)
    falling = [str(500 - k) for k in range(300)]
    run = ("q0 Q0 a 1 1 r\n" + _deep_run(300, [*falling[:250], "400", *falling[251:]])
           + "q2 Q0 b 1 1 r\n")
    for rising in (run, run.replace("\nq2 Q0 b 1 1 r\n", "\n")):  # (closed by the end)
        (tmp_path / "qrels").write_text("q1 0 d7919 1\nq1 0 d0 2\nq2 0 b 1\n")
        data = rising.encode()
        (tmp_path / "run").write_bytes(gzip.compress(data, mtime=0) if compress else data)
        taken.clear()
        _same_as_whole(tmp_path / "qrels", tmp_path / "run")
        assert any(taken)  # parts were taken before the rise was seen
    (tmp_path / "run").write_text(_deep_run(300, [str(k % 50) for k in range(300)]))
    taken.clear()
    _same_as_whole(tmp_path / "qrels", tmp_path / "run")
    assert not any(taken)


def test_a_document_twice_in_two_parts_is_read_runs_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 128)
    lines = _deep_run(300, [str(500 - k) for k in range(300)]).splitlines(keepends=True)
    lines[280] = lines[3].replace(" 500 ", " 220 ").replace(" 497 ", " 220 ")
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("q1 0 d7919 1\n")
    with pytest.raises(InvalidInputError) as whole:
        read_run(tmp_path / "run")
    with pytest.raises(InvalidInputError) as parts:
        read_judged(tmp_path / "qrels", tmp_path / "run")
    assert str(parts.value) == str(whole.value)


def test_a_deep_query_is_read_in_a_few_times_a_blocks_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One query of 2·10^5 lines (6.5 MB) and 10^5 judgments, blocks of 2 MiB: main's
    # reader held the whole query's lines in one block and its temporaries, some ten
    # times its bytes, and a hash table of the query's judged pairs for every block
    # (traced peak 7.4 times the file); read in parts with the query's judged keys
    # sorted once: 2.6 times.
    monkeypatch.setattr(trec_judged, "DEEP_JUDGMENTS", 1 << 16)
    n = 200_000
    rng = np.random.default_rng(0)
    scores = [f"{s:g}" for s in (-np.sort(-np.round(rng.random(n) * 20, 3))).tolist()]
    run = "".join(f"301 Q0 d{k * 7919 % 10**9} {k + 1} {scores[k]} r\n" for k in range(n))
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text("".join(f"301 0 d{k * 7919 % 10**9} {k % 3}\n"
                                            for k in range(0, 2 * n, 4)))
    qrels = read_qrels(tmp_path / "qrels")
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        found = read_judged_run(tmp_path / "run", qrels)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found is not None
    assert isinstance(found._docs, RowDocs)
    assert peak - before < 4 * len(run)
    options = TrecEvalOptions(measures=("map", "bpref", "ndcg", "P.1000"))
    assert format_trec_eval(qrels, found, options) == format_trec_eval(
        qrels, read_run(tmp_path / "run"), options)


def test_the_order_of_tied_rows_keeps_two_arrays_of_them_at_once() -> None:
    # trec_eval's order of tied rows (join._tie_order) at 10^6 rows of 2·10^5 scores
    # (8·10^5 tied pairs): main interleaved the pairs and deduplicated them, and made
    # each temporary of its sort key anew: a traced peak of 55.5 bytes a tied row; the
    # positions from a mask and the keys made in place: 32 (the rows and their sources
    # returned: 16). The order is argsort's (group, then document rank descending).
    from prcurve.ranking.join import _tie_order

    n = 1_000_000
    rng = np.random.default_rng(0)
    score = -np.sort(-np.round(rng.random(n) * 20, 4))
    tie = score[1:] == score[:-1]
    pairs = np.flatnonzero(tie)
    rank = rng.permutation(n).astype(np.int32)
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        rows, source = _tie_order(tie, pairs, None, rank)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - before < 40 * rows.shape[0]
    tied = np.zeros(n, dtype=bool)
    tied[pairs] = tied[pairs + 1] = True
    assert rows.tolist() == np.flatnonzero(tied).tolist()
    # (The scores descend: a group of tied rows is a run of one score.)
    expected = rows[np.lexsort((-rank[rows].astype(np.int64), -score[rows]))]
    assert source.tolist() == expected.tolist()

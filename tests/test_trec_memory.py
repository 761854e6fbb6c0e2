"""Memory of reading TREC files (issue 26, item 3): the exact reader's peak and what
it keeps, and `prcurve trec` of a small run with large qrels without pyarrow; what
`prcurve trec` keeps while it reads a large run and computes the measures (items 4, 5)."""

from __future__ import annotations

import gc
import gzip
import mmap
import subprocess
import sys
import tracemalloc
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.cli.main import main
from prcurve.ranking import (
    Qrels,
    Run,
    read_qrels,
    read_run,
    trec_eval,
    trec_format,
    trec_reader,
    trec_stream,
)
from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.row_docs import BlockQueries, RowDocs
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval, format_trec_eval_of
from prcurve.ranking.trec_format import exact_columns
from prcurve.ranking.trec_judged import Judged, read_exact_qrels
from prcurve.ranking.trec_stream import read_judged_run


def _qrels_text(rows: int) -> bytes:
    return "".join(f"{300 + k // 1000} 0 d{k * 7919 % 10**8} {k % 3}\n"
                   for k in range(rows)).encode()


def test_the_exact_readers_peak_is_a_few_times_the_file() -> None:
    # 6.8 MB of qrels (4·10^5 lines): chunks of 2 MiB and each column's pieces dropped
    # once joined keep the peak (numpy's allocations, traced) at about 5.6x the file's
    # bytes; chunks of 16 MiB with every piece held to the end took 10.4x.
    text = _qrels_text(400_000)
    buffer = np.frombuffer(text, dtype=np.uint8)
    with numpy_only():
        tracemalloc.start()
        try:
            columns = exact_columns(buffer, "qrels", "qrels")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 7 * len(text)
    assert columns.line is None  # lines 1..n: no array of line numbers kept
    assert columns.values.tolist() == [k % 3 for k in range(400_000)]


def test_line_numbers_are_kept_where_lines_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_bytes(b"q1 0 a 1\n# comment\nq1 0 b 0\n\nq2 0 c 2\n")
    assert read_qrels(tmp_path / "qrels").line.tolist() == [1, 3, 5]
    (tmp_path / "plain").write_bytes(b"q1 0 a 1\nq1 0 b 0\r\nq2 0 c 2")
    assert read_qrels(tmp_path / "plain").line.tolist() == [1, 2, 3]


def test_a_small_run_with_large_qrels_reads_them_without_pyarrow(tmp_path: Path) -> None:
    # pyarrow's import alone is about 40 MiB; qrels above SMALL_FILE_BYTES with a small
    # run went to pyarrow's reader (issue 26: 10^6 judgments, 237 MiB against 174).
    (tmp_path / "qrels").write_bytes(_qrels_text(300_000))  # 5.1 MB
    (tmp_path / "run").write_text("".join(f"{300 + k} Q0 d{j * 7919} {j} {j % 13} r\n"
                                          for k in range(3) for j in range(100)))
    code = ("import sys\nfrom prcurve.cli import main\n"
            f"main(['trec', {str(tmp_path / 'qrels')!r}, {str(tmp_path / 'run')!r}])\n"
            "print('pyarrow' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stderr.split()[-1] == "False"
    assert done.stdout.startswith("runid")


def test_the_runs_lookup_shares_the_qrels_words_and_keeps_little(tmp_path: Path) -> None:
    # The block reader's lookup of the judged pairs (trec_judged.Judged) used the
    # qrels' labels (made from its words, 9 bytes a row here) and copied their words
    # again (16), with int64 pair rows and documents: 49 bytes a judgment kept, traced.
    # Now it reads the qrels' own words where each label's lie (no labels made, no
    # copy) and keeps int32 rows: 16 bytes a judgment (issue 26, 3·10^6-line runs).
    rows = 200_000
    (tmp_path / "qrels").write_bytes(_qrels_text(rows))
    qrels = read_exact_qrels(tmp_path / "qrels")
    assert qrels._docs.has_words
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        judged = Judged.build(qrels)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert judged is not None
    assert kept - before < 24 * rows
    assert qrels._docs.has_words  # its labels not made
    # The same lookups as from the labels' words: every judged pair found, exactly.
    docs = qrels._docs
    codes = np.arange(len(judged.query_code), dtype=np.int64)
    first = judged.bounds[:-1]
    row = judged.pair_row[first]
    from prcurve.ranking.keys import text_words
    words = text_words(docs.labels[docs.codes[row]])
    assert words is not None
    found = judged.rows(codes, codes, words)
    assert found is not None
    assert found.tolist() == row.tolist()


def _tables(n: int) -> list[Any]:
    """[qrels, run] of n queries of 3 documents, with no other reference to them."""
    rng = np.random.default_rng(0)
    query, doc = np.repeat(np.arange(n), 3), np.tile(np.arange(3), n)
    return [Qrels.from_arrays(query, doc, rng.integers(0, 3, 3 * n)),
            Run.from_arrays(query, doc, rng.random(3 * n))]


def test_trec_eval_output_keeps_a_kind_of_measure_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Without -q every column is summarized once its measures are there, and each
    # measure's values dropped after its last column: all_trec's 97 per-query columns
    # were all alive at once (77 MiB at 10^5 queries, issue 26); now at most a kind's
    # (iprec_at_recall's 11 levels, 11pt_avg's too).
    n = 500
    alive: list[weakref.ref[Any]] = []
    most = [0]
    computed = trec_eval.compute_many

    def spy(measures: Any, rankings: Any, *args: Any, **kwargs: Any) -> Any:
        out = computed(measures, rankings, *args, **kwargs)
        alive.extend(weakref.ref(values) for values in out.values())
        most[0] = max(most[0], sum(ref() is not None for ref in alive))
        return out

    monkeypatch.setattr(trec_eval, "compute_many", spy)
    options = TrecEvalOptions(measures=("all_trec",))
    output = format_trec_eval_of(_tables(n), options)
    assert len(alive) == 97
    assert most[0] <= 12
    monkeypatch.setattr(trec_eval, "compute_many", computed)
    assert output == format_trec_eval(*_tables(n), options)  # the same bytes as at once
    per_query = TrecEvalOptions(measures=("all_trec",), per_query=True, complete=True)
    assert (format_trec_eval_of(_tables(n), per_query)
            == format_trec_eval(*_tables(n), per_query))


def test_the_tables_go_before_the_measures(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # `prcurve trec` hands its qrels and run over: once every ranking is judged their
    # per-row columns are freed, before the measures (issue 26: at 3·10^6 lines the
    # run's and the qrels' columns were 130 MiB alive through them).
    (tmp_path / "qrels").write_bytes(_qrels_text(3000))
    (tmp_path / "run").write_text("".join(f"{300 + k} Q0 d{j * 7919} {j} {j % 13} r\n"
                                          for k in range(3) for j in range(100)))
    seen: list[int] = []
    computed = trec_eval.compute_many

    def spy(*args: Any, **kwargs: Any) -> Any:
        gc.collect()
        seen.append(sum(isinstance(o, (Qrels, Run)) and str(tmp_path) in str(o.source)
                        for o in gc.get_objects()))
        return computed(*args, **kwargs)

    monkeypatch.setattr(trec_eval, "compute_many", spy)
    assert main(["trec", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    assert seen
    assert max(seen) == 0
    # A caller keeping them keeps them, and the list is emptied all the same.
    qrels, run = read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")
    tables = [qrels, run]
    assert format_trec_eval_of(tables) == format_trec_eval(qrels, run)
    assert tables == []
    assert run.score.shape == (300,)


def test_the_qrels_bytes_go_before_the_ids_are_encoded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `prcurve trec`'s qrels (trec_judged.read_exact_qrels) hand their bytes to the exact
    # reader (trec_format.exact_columns_of), which lets them go once the lines are
    # split: encoding the ids, where the reader peaks, no longer holds the file (27
    # MB of qrels: 26 MiB less at the peak). And no array of line numbers is held
    # while reading lines that follow each other (8 bytes a row): the traced peak of
    # reading 6.8 MB of qrels, 5.8x the file before, 5.3x now.
    text = _qrels_text(400_000)
    (tmp_path / "qrels").write_bytes(text)
    largest: list[int] = []
    encode = trec_format.encode_words

    def spy(*args: Any, **kwargs: Any) -> Any:
        snapshot = tracemalloc.take_snapshot()
        largest.append(max(trace.size for trace in snapshot.traces))
        return encode(*args, **kwargs)

    monkeypatch.setattr(trec_format, "encode_words", spy)
    tracemalloc.start()
    try:
        qrels = read_exact_qrels(tmp_path / "qrels")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(largest) == 2
    assert max(largest) < len(text) // 2  # no block as large as the file: its bytes gone
    assert peak < 5.5 * len(text)
    assert qrels.relevance.tolist() == [k % 3 for k in range(400_000)]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["data", "data", "data", "blank", "comment"]),
                min_size=1, max_size=60), st.sampled_from([16, 64, 1 << 21]))
def test_line_numbers_in_chunks_of_any_size(kinds: list[str], chunk: int) -> None:
    # Each chunk's line numbers kept as (first, rows) where its data lines follow each
    # other; the file's are 1..n (none kept) or every data line's number.
    text = "".join({"data": f"q{i % 3} 0 d{i} {i % 2}\n", "blank": "\n",
                    "comment": "# note\n"}[kind] for i, kind in enumerate(kinds))
    expected = [i + 1 for i, kind in enumerate(kinds) if kind == "data"]
    if not expected:
        return
    original = trec_format._CHUNK
    trec_format._CHUNK = chunk
    try:
        columns = exact_columns(np.frombuffer(text.encode(), dtype=np.uint8), "q", "qrels")
    finally:
        trec_format._CHUNK = original
    if expected == list(range(1, len(expected) + 1)):
        assert columns.line is None
    else:
        assert columns.line is not None
        assert columns.line.tolist() == expected


def test_a_runs_query_codes_are_made_after_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The block reader keeps one query code per block (row_docs.BlockQueries); the
    # rows' codes (8 bytes a line) are made when the join asks for them, once the
    # reading's temporaries are gone: not held at the peak of reading.
    (tmp_path / "qrels").write_text("".join(f"q{k} 0 d{k * 7} 1\n" for k in range(40)))
    (tmp_path / "run").write_text("".join(f"q{k} Q0 d{j} {j} {9 - j % 7} r\n"
                                          for k in (5, 2, 30) for j in range(3000)))
    qrels = read_qrels(tmp_path / "qrels")
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)  # the block reader, blocks
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 4096)  # of a few hundred lines
    run = read_judged_run(tmp_path / "run", qrels)
    assert run is not None
    assert isinstance(run._queries, BlockQueries)
    assert run._queries._row_codes is None
    assert run.query_id.tolist() == read_run(tmp_path / "run").query_id.tolist()
    assert run._queries.labels.tolist() == [b"q2", b"q30", b"q5"]
    assert format_trec_eval(qrels, run) == format_trec_eval(qrels, read_run(tmp_path / "run"))


def _bases(array: Any) -> list[Any]:
    found = []
    while array is not None:
        found.append(array)  # an array's base, or a memoryview's object
        array = array.obj if isinstance(array, memoryview) else getattr(array, "base", None)
    return found


@pytest.mark.parametrize("hint", [None, 64])
def test_a_runs_columns_live_in_their_own_maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               hint: int | None) -> None:
    # The block reader's columns are sized for the most lines the file can hold, most
    # pages never written. In malloc's heap, once freed, those pages went to the
    # measures' arrays and counted then (a deep topic: 18 MiB above main's peak); in
    # their own anonymous maps they go back to the system (also when they grow: a
    # compressed file's size is a hint only, here one too small).
    (tmp_path / "qrels").write_text("".join(f"q{k} 0 d{k * 7} 1\n" for k in range(40)))
    text = "".join(f"q{k} Q0 d{j} {j} {9 - j % 7} r\n" for k in (5, 2, 30) for j in range(3000))
    (tmp_path / "run").write_text(text)
    (tmp_path / "run.gz").write_bytes(gzip.compress(text.encode()))
    qrels = read_qrels(tmp_path / "qrels")
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 4096)
    if hint is not None:
        monkeypatch.setattr(trec_stream, "_text_size", lambda path: hint)
    run = read_judged_run(tmp_path / ("run" if hint is None else "run.gz"), qrels)
    assert run is not None
    assert isinstance(run._docs, RowDocs)
    for column in (run.score, run._docs.judged_row, run._docs.rank):
        assert any(isinstance(base, mmap.mmap) for base in _bases(column))
    assert format_trec_eval(qrels, run) == format_trec_eval(qrels, read_run(tmp_path / "run"))


def test_per_query_output_comes_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    # `prcurve trec -q` over 10^5 queries made its 9.6·10^6 lines at once (2.4 GiB
    # against the C trec_eval's 253 MiB, issue 26); the text now comes QUERIES_A_PIECE
    # queries at a time and the command writes each piece as it comes.
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    pieces = list(trec_eval.trec_eval_text(_tables(2500), options))
    assert len(pieces) == 4  # 1024 + 1024 + 452 queries, then the summary
    assert max(len(p) for p in pieces) < 0.45 * sum(len(p) for p in pieces)
    assert "".join(pieces) == format_trec_eval(*_tables(2500), options)
    # The command: the same bytes as one piece; a header even for an empty output.
    (tmp_path / "qrels").write_text("".join(f"q{k} 0 d{k} 1\n" for k in range(30)))
    (tmp_path / "run").write_text("".join(f"q{k} Q0 d{j} {j} {j % 5} r\n"
                                          for k in range(30) for j in range(20)))
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")
    written = []
    for size in (7, 1024):
        monkeypatch.setattr(trec_eval, "QUERIES_A_PIECE", size)
        assert main(["trec", "-q", "-m", "P.5", "-m", "map", qrels, run, run]) == 0
        written.append(capsysbinary.readouterr().out)
    assert written[0] == written[1]
    assert written[0].count(b"\nP_5 ") == 62  # two runs' 30 queries and summaries
    assert main(["trec", "-n", qrels, run, run]) == 0
    assert capsysbinary.readouterr().out == f"==> {run} <==\n\n==> {run} <==\n".encode()


def test_large_qrels_with_a_small_run_keep_a_few_bytes_a_judgment(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # Issue 26, item 4: qrels of 10^6 judgments with a run of 10^4 lines held every
    # judgment's columns (about 56 bytes a judgment, the exact reader's temporaries on
    # top): 142-150 MiB, the C trec_eval 57. Here 3·10^5 judgments (5.4 MB, above
    # trec_stream.AGAINST_RUN_BYTES) and a run of 3,000 lines: the traced peak of
    # `prcurve trec` was 114 bytes a judgment on main (e740aa6 .. 5189e5b); with the
    # qrels read against the run (ranking/trec_retrieved.py) 35, most of it one block's
    # temporaries (a constant: 512 KiB of lines).
    rows = 300_000
    k = np.arange(rows)
    docs = (k * 7919 % 10**8).tolist()
    (tmp_path / "qrels").write_text("".join(
        f"{300 + q} 0 d{d} {g}\n" for q, d, g in zip((k // 1000).tolist(), docs,
                                                       (k % 3).tolist(), strict=True)))
    (tmp_path / "run").write_text("".join(
        f"{300 + q} Q0 d{docs[q * 1000 + j * 2]} {j} {100 - j} r\n"
        for q in range(300) for j in range(10)))
    args = ["trec", "-m", "map", "-m", "ndcg", "-m", "bpref", "-m", "num_rel",
            str(tmp_path / "qrels"), str(tmp_path / "run")]
    tracemalloc.start()
    try:
        code = main(args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    out = capsysbinary.readouterr().out
    assert code == 0
    assert peak / rows < 45
    # The same output as the qrels read whole by the exact reader.
    want = format_trec_eval(read_exact_qrels(tmp_path / "qrels"), read_run(tmp_path / "run"),
                            TrecEvalOptions(measures=("map", "ndcg", "bpref", "num_rel")))
    assert out.decode() == want
    assert b"num_rel               \tall\t200000" in out  # grades 1 and 2

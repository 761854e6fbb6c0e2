"""The run read in blocks and joined with its qrels while read (ranking/trec_stream.py):
every number and error equal to reading it whole (read_run, the oracle), with block
boundaries anywhere; trec_eval's own quicktest through it, byte for byte."""

from __future__ import annotations

import gzip
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.cli import main
from prcurve.errors import InvalidInputError
from prcurve.ranking import read_qrels, read_run, trec_reader, trec_stream
from prcurve.ranking.row_docs import RowDocs
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
from prcurve.ranking.trec_stream import read_judged, read_judged_run

V10 = Path(__file__).parent / "fixtures" / "trec_eval_v10"


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every file reaches the block reader, in blocks of a few lines.
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 64)


# Ids of 1 to 20 bytes (one to three words), ASCII and UTF-8 beyond it.
ID = st.text(alphabet=st.sampled_from("abAB09_-.:é文"), min_size=1, max_size=10).map(
    lambda t: t.encode())
SCORES = st.sampled_from(["1", "0.5", "-0.0", "0", "0.25", "2.5", "1e-3", "1E+2", "-7.125",
                          "0.1", "3.0000001", "12345678901234567890", "1e300",
                          "-2e300", "1e-300"])


@st.composite
def run_and_qrels(draw: st.DrawFn) -> tuple[bytes, bytes]:
    queries = draw(st.lists(ID, min_size=1, max_size=5, unique=True))
    lines, judged = [], []
    for query in queries:
        docs = draw(st.lists(ID, min_size=1, max_size=25, unique=True))
        scores = [draw(SCORES) for _ in docs]
        if draw(st.booleans()):  # written best first, as runs usually are
            order = sorted(range(len(docs)), key=lambda i: -float(scores[i]))
            docs, scores = [docs[i] for i in order], [scores[i] for i in order]
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True)):
            lines.append(b" ".join([query, b"Q0", doc, str(rank).encode(), score.encode(),
                                    b"run" + query[:2]]))
            if draw(st.integers(0, 2)) == 0:
                judged.append((query, doc))
        judged += [(query, doc) for doc in draw(st.lists(ID, max_size=4))
                   if doc not in docs]  # judged, not retrieved
    if draw(st.booleans()):
        judged.append((b"other", b"d1"))  # a query without results
    if not judged:
        judged.append((queries[0], b"d-none"))
    qrels = b"".join(b"%s 0 %s %d\n" % (q, d, draw(st.integers(-1, 3)))
                     for q, d in dict.fromkeys(judged))
    separator = draw(st.sampled_from([b" ", b"\t"]))
    lines = [line.replace(b" ", separator) for line in lines]
    if draw(st.booleans()):  # \r\n line ends (Windows), on some lines or all
        ends = draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        lines = [line + b"\r" if crlf else line for line, crlf in zip(lines, ends, strict=True)]
        qrels = qrels.replace(b"\n", b"\r\n")
    run = b"\n".join(lines) + (b"\n" if draw(st.booleans()) else b"")
    return run, qrels


def _write(folder: Path, run: bytes, qrels: bytes) -> tuple[Path, Path]:
    (folder / "run").write_bytes(run)
    (folder / "qrels").write_bytes(qrels)
    return folder / "qrels", folder / "run"


OPTIONS = [
    TrecEvalOptions(measures=("all_trec",), per_query=True),
    TrecEvalOptions(measures=("map", "P.5", "ndcg", "recip_rank", "bpref"), per_query=True,
                    version=9),
    TrecEvalOptions(measures=("map", "P.2", "num_ret"), per_query=True, depth=3,
                    judged_only=True, complete=True),
]


def _output(qrels: object, run: object, options: TrecEvalOptions) -> str:
    """trec_eval's output, or the error's message (no query judged and retrieved)."""
    try:
        return format_trec_eval(qrels, run, options)
    except InvalidInputError as error:
        return f"error: {error}"


@contextmanager
def _blocks_of(size: int) -> Iterator[None]:
    """Blocks of ``size`` bytes inside one Hypothesis example (a fixture's monkeypatch
    lasts the whole test)."""
    old = trec_stream.BLOCK_BYTES
    trec_stream.BLOCK_BYTES = size
    try:
        yield
    finally:
        trec_stream.BLOCK_BYTES = old


COMPRESS = st.sampled_from([None, "gzip", "gzip", "gzip members", "bz2", "xz"])


def _compressed(data: bytes, how: str | None) -> bytes:
    """``data`` as a file of ``how``: gzip; gzip of two members (its trailer's size is
    the last member's, below the text's: the block reader's arrays grow); bz2; xz."""
    import bz2
    import lzma

    if how == "gzip":
        return gzip.compress(data, mtime=0)
    if how == "gzip members":
        half = len(data) // 2
        return gzip.compress(data[:half], mtime=0) + gzip.compress(data[half:], mtime=0)
    if how == "bz2":
        return bz2.compress(data)
    if how == "xz":
        return lzma.compress(data)
    return data


@settings(max_examples=40, deadline=None)
@given(files=run_and_qrels(), block=st.integers(16, 400), compress=COMPRESS)
def test_block_reader_equals_reading_whole(files: tuple[bytes, bytes], block: int,
                                           compress: str | None) -> None:
    run_bytes, qrels_bytes = files
    run_bytes = _compressed(run_bytes, compress)  # decompressed block by block as read
    with _blocks_of(block), tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = _write(Path(folder), run_bytes, qrels_bytes)
        qrels, run = read_judged(qrels_path, run_path)
        assert isinstance(run._docs, RowDocs)  # the block reader took it
        whole, whole_qrels = read_run(run_path), read_qrels(qrels_path)
        for options in OPTIONS:
            assert _output(qrels, run, options) == _output(whole_qrels, whole, options)
        assert run.query_id.tolist() == whole.query_id.tolist()
        assert run.doc_id.tolist() == whole.doc_id.tolist()  # read again on demand
        assert run.score.tolist() == whole.score.tolist()
        assert run.run_id == whole.run_id
        assert np.array_equal(run.line, whole.line)


@settings(max_examples=30, deadline=None)
@given(files=run_and_qrels(), block=st.integers(16, 400), data=st.data())
def test_a_repeated_document_is_found_in_any_block(
    files: tuple[bytes, bytes], block: int, data: st.DataObject,
) -> None:
    # One line written again further down its query (another score): the error is
    # read_run's, naming the same line, wherever the block boundaries fall.
    run_bytes, qrels_bytes = files
    lines = run_bytes.rstrip(b"\n").split(b"\n")
    i = data.draw(st.integers(0, len(lines) - 1))
    fields = lines[i].split()
    query = [k for k, line in enumerate(lines) if line.split()[0] == fields[0]]
    at = data.draw(st.integers(i + 1, query[-1] + 1))
    separator = b"\t" if b"\t" in lines[0] else b" "
    lines.insert(at, separator.join([*fields[:4], b"0.75", fields[5]]))
    with _blocks_of(block), tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = _write(Path(folder), b"\n".join(lines) + b"\n", qrels_bytes)
        with pytest.raises(InvalidInputError) as whole:
            read_run(run_path)
        with pytest.raises(InvalidInputError) as blocks:
            read_judged(qrels_path, run_path)
        assert str(blocks.value) == str(whole.value)
        assert read_judged_run(run_path, read_qrels(qrels_path)) is None


# A Hypothesis example (session 36): query ".B." read in parts, its first part's ids all
# of one word (keys were the words themselves), the block that closed it with ids of
# several words (keys were hashes of the words): document ":" listed again there was
# not found. The parts' keys are now the same in every block (trec_blocks.part_keys).
_PARTS_RUN = (
    b"0 Q0 a 0 1 run0\n0 Q0 _\xc3\xa90\xe6\x96\x87 1 0.5 run0\n.B. Q0 : 0 2.5 run.B\n"
    b".B. Q0 0_ 1 2.5 run.B\n.B. Q0 -. 2 1 run.B\n.B. Q0 _AA 3 1 run.B\n.B. Q0 000 4 1 run.B\n"
    b".B. Q0 00 5 1 run.B\n.B. Q0 : 0 0.75 run.B\n.B. Q0 00000 6 0.5 run.B\n"
    b".B. Q0 0000 7 0.5 run.B\n.B. Q0 0 8 0.25 run.B\nA0_\xc3\xa9 Q0 0 0 1 runA0\n"
    b"A0_\xc3\xa9 Q0 9 1 1 runA0\nA0_\xc3\xa9 Q0 B 2 1 runA0\nA0_\xc3\xa9 Q0 : 3 1 runA0\n"
    b"A0_\xc3\xa9 Q0 . 4 1 runA0\nA0_\xc3\xa9 Q0 \xc3\xa9 5 1 runA0\n"
    b"A0_\xc3\xa9 Q0 B. 6 1 runA0\nA0_\xc3\xa9 Q0 b- 7 1 runA0\n"
    b"A0_\xc3\xa9 Q0 \xc3\xa9Ba 8 1 runA0\nA0_\xc3\xa9 Q0 \xe6\x96\x879A 9 1 runA0\n"
    b"A0_\xc3\xa9 Q0 0..0 10 1 runA0\nA0_\xc3\xa9 Q0 abb- 11 1 runA0\n"
    b"A0_\xc3\xa9 Q0 :A0A\xe6\x96\x87 12 1 runA0\nA0_\xc3\xa9 Q0 _90aa\xe6\x96\x87 13 1 runA0\n"
    b"A0_\xc3\xa9 Q0 __:Bb. 14 1 runA0\n"
    b"A0_\xc3\xa9 Q0 \xc3\xa9B\xe6\x96\x87\xe6\x96\x87A0 15 1 runA0\n"
    b"A0_\xc3\xa9 Q0 9:-\xe6\x96\x879\xe6\x96\x87- 16 1 runA0\n"
    b"A0_\xc3\xa9 Q0 \xe6\x96\x87aA0b.9 17 1 runA0\n"
    b"A0_\xc3\xa9 Q0 9B.\xc3\xa9-A\xe6\x96\x87.bB 18 1 runA0\n"
    b"A0_\xc3\xa9 Q0 :A_aa9BB\xe6\x96\x879 19 1 runA0\n"
    b"A0_\xc3\xa9 Q0 BA::9_0_\xe6\x96\x87\xc3\xa9 20 1 runA0\n"
    b"A0_\xc3\xa9 Q0 BBbB\xe6\x96\x870B0b- 21 1 runA0\n"
    b"A0_\xc3\xa9 Q0 _b\xc3\xa9\xc3\xa9BaBA:b 22 1 runA0\n"
    b"A0_\xc3\xa9 Q0 a-0\xc3\xa9\xc3\xa9B0-0\xc3\xa9 23 1 runA0\n"
    b"A0_\xc3\xa9 Q0 \xc3\xa900\xe6\x96\x87b\xe6\x96\x87-_B_ 24 1 runA0\n"
    b"A9_._b\xc3\xa9B0- Q0 : 0 1 runA9\nA9_._b\xc3\xa9B0- Q0 9 1 1 runA9\n"
    b"A9_._b\xc3\xa9B0- Q0 00 2 1 runA9\nA9_._b\xc3\xa9B0- Q0 0 3 1 runA9\n"
    b"Aa0A9Ab_0\xe6\x96\x87 Q0 0 0 1 runAa\n")
_PARTS_QRELS = (
    b"0 0 a 0\n0 0 _\xc3\xa90\xe6\x96\x87 0\n.B. 0 : 0\n.B. 0 0_ 0\n.B. 0 -. 0\n.B. 0 _AA 0\n"
    b".B. 0 000 0\n.B. 0 00 0\n.B. 0 00000 0\n.B. 0 0000 0\n.B. 0 0 0\nA0_\xc3\xa9 0 0 0\n"
    b"A0_\xc3\xa9 0 9 0\nA0_\xc3\xa9 0 B 0\nA0_\xc3\xa9 0 : 0\nAa0A9Ab_0\xe6\x96\x87 0 0 0\n")


def test_a_document_repeated_across_parts_of_other_widths_is_found(tmp_path: Path) -> None:
    qrels_path, run_path = _write(tmp_path, _PARTS_RUN, _PARTS_QRELS)
    with pytest.raises(InvalidInputError) as whole:
        read_run(run_path)
    for block in (57, 64, 100):
        with _blocks_of(block), pytest.raises(InvalidInputError) as blocks:
            read_judged(qrels_path, run_path)
        assert str(blocks.value) == str(whole.value)


def test_ties_of_long_ids_sharing_prefixes(tmp_path: Path) -> None:
    # Ids of three words equal in their first 16 bytes, all tied: only the last word
    # tells them apart; trec_eval ranks ties by id descending (docs/ranking.md).
    docs = [f"clueweb09-en0000-{i:02d}-{j:05d}" for i in range(3) for j in range(40)]
    rng = np.random.default_rng(3)
    rng.shuffle(docs)
    run = "".join(f"q{k} Q0 {d} 1 {(i % 4) / 2} r\n" for k in range(3)
                  for i, d in enumerate(docs))
    qrels = "".join(f"q{k} 0 {d} {i % 3}\n" for k in range(3) for i, d in enumerate(docs[::7]))
    qrels_path, run_path = _write(tmp_path, run.encode(), qrels.encode())
    qrels_table, fast = read_judged(qrels_path, run_path)
    assert isinstance(fast._docs, RowDocs)
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    assert (format_trec_eval(qrels_table, fast, options)
            == format_trec_eval(read_qrels(qrels_path), read_run(run_path), options))


def test_a_document_twice_in_a_query_is_the_same_error(tmp_path: Path) -> None:
    run = b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq2 Q0 a 1 1 r\nq2 Q0 c 2 1 r\nq2 Q0 a 3 0 r\n"
    qrels_path, run_path = _write(tmp_path, run, b"q1 0 a 1\n")
    assert read_judged_run(run_path, read_qrels(qrels_path)) is None
    with pytest.raises(InvalidInputError) as whole:
        read_run(run_path)
    with pytest.raises(InvalidInputError) as blocks:
        read_judged(qrels_path, run_path)
    assert str(blocks.value) == str(whole.value)
    assert "line 5" in str(whole.value)


@pytest.mark.parametrize("run", [
    b"q1 Q0 a 1 1 r\nq2 Q0 b 1 1 r\nq1 Q0 c 2 1 r\n",  # a query's lines apart
    b"# comment\nq1 Q0 a 1 1 r\n",
    b"q1 Q0 a 1 1 r \r\nq1 Q0 b 2 1 r\r\n",  # \r after white space (no run id)
    b"q1 Q0 a 1 1 r\r\r\nq1 Q0 b 2 1 r\r\n",
    b"q1 Q0 a 1 1 r\rq1 Q0 b 2 1 r\n",  # \r not before \n
    b"q1 Q0 a 1 1 r\n\r\nq1 Q0 b 2 1 r\n",  # a blank line
    b"\r\nq1 Q0 a 1 1 r\n",
    b"q1 Q0 a 1 1 r\n\nq1 Q0 b 2 1 r\n",
    b"q1 Q0 a 1 1 r extra\nq1 Q0 b 2 1 r\n",
    b"q1 Q0 a 1 1 r\nq1\tQ0 b 2 1 r\n",
    b"q1  Q0 a 1 1 r\n",
    b"\xef\xbb\xbfq1 Q0 a 1 1 r\n",
    gzip.compress(b"\xef\xbb\xbfq1 Q0 a 1 1 r\n", mtime=0),  # a byte-order mark inside
    gzip.compress(b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\n" * 20, mtime=0)[:-30],  # damaged
    gzip.compress(b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\n", mtime=0)[:-8],  # no trailer
    b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1_0 r\n",
    b"q1 Q0 a 1 1 r\nq1 Q0 b 2 inf r\n",
    b"q1 Q0 " + b"x" * 70 + b" 1 1 r\n",
    b"q1 Q0 a 1 1 r\nq1 Q0 a\x01 2 1 r\n",
])
def test_other_files_are_read_whole(tmp_path: Path, run: bytes) -> None:
    qrels_path, run_path = _write(tmp_path, run, b"q1 0 a 1\nq1 0 c 0\n")
    assert read_judged_run(run_path, read_qrels(qrels_path)) is None
    try:
        expected = read_run(run_path)
    except InvalidInputError as error:
        message = str(error)
    else:
        message = ""
    if message:
        with pytest.raises(InvalidInputError) as raised:
            read_judged(qrels_path, run_path)
        assert str(raised.value) == message
        return
    _, run_table = read_judged(qrels_path, run_path)
    assert not isinstance(run_table._docs, RowDocs)
    assert run_table.doc_id.tolist() == expected.doc_id.tolist()


def test_errors_come_in_the_order_of_reading_the_run_first(tmp_path: Path) -> None:
    (tmp_path / "bad_qrels").write_bytes(b"q1 0 a\n")
    (tmp_path / "bad_run").write_bytes(b"q1 Q0 a 1 x r\n")
    (tmp_path / "run").write_bytes(b"q1 Q0 a 1 1 r\n")
    with pytest.raises(InvalidInputError, match="bad_run"):
        read_judged(tmp_path / "bad_qrels", tmp_path / "bad_run")
    with pytest.raises(InvalidInputError, match="bad_qrels"):
        read_judged(tmp_path / "bad_qrels", tmp_path / "run")


def test_a_run_read_in_blocks_evaluated_with_other_qrels(tmp_path: Path) -> None:
    run = "".join(f"q{k} Q0 d{j} {j} {j % 5} r\n" for k in range(4) for j in range(30))
    qrels_path, run_path = _write(tmp_path, run.encode(), b"q1 0 d3 1\n")
    _, fast = read_judged(qrels_path, run_path)
    assert isinstance(fast._docs, RowDocs)
    (tmp_path / "other").write_text("".join(f"q{k} 0 d{j} {(j + k) % 3}\n"
                                            for k in range(4) for j in range(0, 30, 4)))
    other = read_qrels(tmp_path / "other")
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    assert (format_trec_eval(other, fast, options)
            == format_trec_eval(other, read_run(run_path), options))


def _quicktest() -> list[tuple[list[str], Path]]:
    commands = []
    for line in (V10 / "quicktest.txt").read_text().splitlines():
        if line.strip():
            words = shlex.split(line)
            bar = words.index("|")
            args = [str(V10 / a[5:]) if a.startswith("test/") else a for a in words[1:bar]]
            commands.append((args, V10 / words[bar + 3][5:]))
    return commands


def _block_reader_spy() -> tuple[list[bool], Any]:
    """``read_judged_run`` wrapped: each call appends whether the block reader took the run."""
    taken: list[bool] = []
    original = trec_stream.read_judged_run

    def spy(path: Path, qrels: object) -> object:
        found = original(path, qrels)  # type: ignore[arg-type]
        taken.append(found is not None)
        return found

    return taken, spy


@pytest.mark.parametrize("variant", ["LF", "CRLF", "gzip"])
@pytest.mark.parametrize(("argv", "expected"), _quicktest(),
                         ids=[" ".join(Path(a).name for a in c[0]) for c in _quicktest()])
def test_quicktest_through_the_block_reader(
    argv: list[str], expected: Path, variant: str, tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # trec_eval 10's quicktest with each run file written plain (one space between
    # fields; trec_eval splits at white space, so its expected output holds), read in
    # blocks of 512 bytes: byte for byte the expected output. With \r\n line ends
    # too: trec_eval reads the \r as white space ending the run id (isspace), so its
    # output is the same (checked against the C program: docs/benchmarks.md). And
    # gzip-compressed (prcurve's own extension), decompressed block by block.
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 512)
    taken, spy = _block_reader_spy()
    monkeypatch.setattr(trec_stream, "read_judged_run", spy)
    run = Path(argv[-1])
    lines = [b" ".join(line.split()) for line in run.read_bytes().splitlines()]
    text = b"".join(line + (b"\r\n" if variant == "CRLF" else b"\n") for line in lines if line)
    (tmp_path / run.name).write_bytes(_compressed(text, "gzip" if variant == "gzip" else None))
    assert main(["trec", *argv[:-1], str(tmp_path / run.name)]) == 0
    assert capsysbinary.readouterr().out == expected.read_bytes()
    qrels_format = "-R" not in argv and not any(a.startswith("-R") for a in argv)
    kept = [line for line in lines if line]
    queries = [line.split()[0] for line in kept]
    blocks = [q for i, q in enumerate(queries) if i == 0 or q != queries[i - 1]]
    plain = (not any(line.startswith(b"#") for line in kept)  # what the block reader takes
             and all(len(line.split()) == 6 for line in kept) and len(set(blocks)) == len(blocks))
    assert taken == ([True] if qrels_format and plain else [False] if qrels_format else [])


def test_prcurve_trec_reads_a_large_run_without_pyarrow(tmp_path: Path) -> None:
    # The block reader and the qrels' exact reader use numpy alone (pyarrow's import
    # is 40 MiB of a 3·10^6-line run's memory: issue 26, item 4).
    run = "".join(f"{k} Q0 doc{k * 7 + j} {j} {j % 97} r\n" for k in range(100)
                  for j in range(1000))
    qrels = "".join(f"{k} 0 doc{k * 7 + j} {j % 3}\n" for k in range(100)
                    for j in range(0, 1000, 5))
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    code = ("import sys, prcurve.ranking.trec_reader as t; t.SMALL_FILE_BYTES = 0\n"
            "from prcurve.cli import main\n"
            f"main(['trec', {str(tmp_path / 'qrels')!r}, {str(tmp_path / 'run')!r}])\n"
            "print('pyarrow' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stderr.split()[-1] == "False"
    assert done.stdout.startswith("runid")


def test_numpy_only_keeps_pyarrow_out_of_encoding() -> None:
    from prcurve.ranking import hashing

    assert hashing.arrow_module(hashing.ARROW_ROWS) is not None  # pyarrow: the test extra
    with hashing.numpy_only():
        assert hashing.arrow_module(hashing.ARROW_ROWS) is None
        with hashing.numpy_only():
            assert hashing.arrow_module(hashing.ARROW_ROWS) is None
        assert hashing.arrow_module(hashing.ARROW_ROWS) is None  # the outer one holds
    assert hashing.arrow_module(hashing.ARROW_ROWS) is not None


def test_a_query_longer_than_the_largest_block_goes_to_read_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = "".join(f"q1 Q0 d{j} {j} {j % 7} r\n" for j in range(3000))  # about 60 KB
    run += "".join(f"q2 Q0 d{j} {j} {j % 7} r\n" for j in range(10))
    qrels_path, run_path = _write(tmp_path, run.encode(), b"q1 0 d3 1\nq2 0 d4 1\n")
    qrels = read_qrels(qrels_path)
    assert isinstance(read_judged_run(run_path, qrels)._docs, RowDocs)  # type: ignore[union-attr]
    monkeypatch.setattr(trec_stream, "MAX_BLOCK_BYTES", 1 << 14)
    assert read_judged_run(run_path, qrels) is None
    _, fast = read_judged(qrels_path, run_path)
    assert fast.doc_id.tolist() == read_run(run_path).doc_id.tolist()


def test_several_runs_each_read_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # `prcurve trec QRELS RUN RUN`: the first run is read by read_judged, a later one by
    # read_judged_run with the qrels read once; both in blocks, each output that of the
    # run read whole (and the first trec_eval's own recorded output, out.test.aq).
    import prcurve.cli.trec as cli_trec

    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", 512)
    taken, spy = _block_reader_spy()
    monkeypatch.setattr(trec_stream, "read_judged_run", spy)  # read_judged's
    monkeypatch.setattr(cli_trec, "read_judged_run", spy)  # the command's, for later runs
    fields = [line.split() for line in (V10 / "results.test").read_bytes().splitlines()]
    runs = [tmp_path / "results.test", tmp_path / "flipped"]  # plain: one space a gap
    runs[0].write_bytes(b"".join(b" ".join(f) + b"\n" for f in fields))
    runs[1].write_bytes(b"".join(b" ".join([*f[:4], repr(-float(f[4])).encode(), f[5]]) + b"\n"
                                 for f in fields))  # scores negated: another ranking
    qrels = V10 / "qrels.test"
    assert main(["trec", "-m", "all_trec", "-q", str(qrels), *map(str, runs)]) == 0
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    whole = [format_trec_eval(read_qrels(qrels), read_run(run), options) for run in runs]
    assert whole[0].encode() == (V10 / "out.test.aq").read_bytes()
    assert capsysbinary.readouterr().out == (
        f"==> {runs[0]} <==\n{whole[0]}\n==> {runs[1]} <==\n{whole[1]}".encode())
    assert taken == [True, True]


def test_a_compressed_run_past_its_size_hint(tmp_path: Path) -> None:
    # Two gzip members, the last one line: the trailer's size (RFC 1952's ISIZE, of the
    # last member) and the compressed size are far below the text's, so the arrays sized
    # from them grow while read; every number as the run read whole.
    lines = b"".join(b"q%d Q0 d%d %d %d r\n" % (k, j, j, j % 9) for k in range(20)
                     for j in range(200))
    run = gzip.compress(lines, mtime=0) + gzip.compress(b"q99 Q0 d1 1 1 r\n", mtime=0)
    assert (len(run) + 1) // 12 + 1 < lines.count(b"\n")  # the rows sized from the hint
    qrels_path, run_path = _write(tmp_path, run, b"q1 0 d3 1\nq2 0 d4 2\nq99 0 d1 1\n")
    qrels, fast = read_judged(qrels_path, run_path)
    assert isinstance(fast._docs, RowDocs)
    whole = read_run(run_path)
    assert fast.score.tolist() == whole.score.tolist()
    assert fast.query_id.tolist() == whole.query_id.tolist()
    options = TrecEvalOptions(measures=("all_trec",), per_query=True)
    assert (format_trec_eval(qrels, fast, options)
            == format_trec_eval(read_qrels(qrels_path), whole, options))


def test_a_deep_query_is_split_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One query of 3,000 lines read in blocks of 64 bytes: the buffer doubles some ten
    # times; the lines are split once, when the query ends (the file's end), not at
    # every doubling (one topic of 10^6 documents: issue 26, session 33). A query
    # between two lines of another is still found (read_run's path).
    run = "".join(f"q1 Q0 d{j} {j} {j % 7} r\n" for j in range(3000))
    qrels_path, run_path = _write(tmp_path, run.encode(), b"q1 0 d3 1\n")
    calls: list[int] = []
    sizes: list[int] = []
    original = trec_stream.split_lines

    def spy(buffer: bytearray, cut: int, *rest: object) -> object:
        calls.append(cut)
        sizes.append(len(buffer))
        return original(buffer, cut, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(trec_stream, "split_lines", spy)
    qrels, fast = read_judged(qrels_path, run_path)
    assert isinstance(fast._docs, RowDocs)
    # One try at reading it in parts (the first full buffer: its scores rise, so it is
    # read whole: trec_stream._Deep), then one split at the end.
    assert len(calls) == 2
    assert calls[0] < 64
    # The last growth takes what is left of the file, not twice the buffer.
    assert sizes[0] <= len(run) + 8 + trec_stream._SLACK
    assert fast.score.tolist() == read_run(run_path).score.tolist()
    apart = run + "q2 Q0 d1 1 1 r\n" + "q1 Q0 x 1 1 r\n"
    (tmp_path / "apart").write_text(apart)
    assert read_judged_run(tmp_path / "apart", qrels) is None

"""Large qrels read against the run (ranking/trec_retrieved.py; issue 26, item 4): the
judgments of retrieved documents kept, the others counted per (query, grade). Every
output equal to the C trec_eval's (its own quicktest, the random collections of
tests/fixtures/trec_eval_random written by the C program with every option) and to
the qrels read whole (Hypothesis, blocks of a few bytes); every file it does not take
read whole, with the same errors; and its memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_trec import assert_c_output, random_cases

from prcurve.cli import main
from prcurve.ranking import read_run, trec_retrieved, trec_stream
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
from prcurve.ranking.trec_judged import read_exact_qrels
from prcurve.ranking.trec_retrieved import CountedQrels, read_against

FIXTURES = Path(__file__).parent / "fixtures"
V10 = FIXTURES / "trec_eval_v10"


@pytest.fixture
def against(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every qrels file read against the run, in blocks of 64 bytes; the list gets what
    each read gave (a CountedQrels, or None where the qrels were read whole)."""
    monkeypatch.setattr(trec_stream, "AGAINST_RUN_BYTES", 0)
    monkeypatch.setattr(trec_stream, "AGAINST_RUN_TIMES", 0)
    monkeypatch.setattr(trec_retrieved, "BLOCK_BYTES", 64)
    given_back: list[Any] = []

    def spy(path: Any, run: Any) -> Any:
        given_back.append(read_against(path, run))
        return given_back[-1]

    monkeypatch.setattr(trec_retrieved, "read_against", spy)
    return given_back


def _by_query(text: bytes) -> bytes:
    """The same judgments, each query's together (the order trec_eval reads them in
    does not change its output: it sorts them)."""
    lines = [line for line in text.splitlines(keepends=True)
             if line.strip() and not line.startswith(b"#")]
    return b"".join(sorted(lines, key=lambda line: line.split()[0]))


QUICKTEST = [
    ("out.test.a", "qrels.test", "results.test", ["-m", "all_trec"]),
    ("out.test.aq", "qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    ("out.test.aql", "qrels.rel_level", "results.test",
     ["-m", "all_trec", "-m", "relstring.20", "-q", "-l", "2"]),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M", "100"]),
]


@pytest.mark.parametrize(("expected", "qrels", "run", "args"), QUICKTEST,
                         ids=[c[0] for c in QUICKTEST])
def test_trec_eval_quicktest_with_the_qrels_read_against_the_run(
    expected: str, qrels: str, run: str, args: list[str], against: list[Any],
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    (tmp_path / "qrels").write_bytes(_by_query((V10 / qrels).read_bytes()))
    assert main(["trec", *args, str(tmp_path / "qrels"), str(V10 / run)]) == 0
    assert capsysbinary.readouterr().out == (V10 / expected).read_bytes()
    assert len(against) == 1
    assert isinstance(against[0], CountedQrels)
    assert len(against[0]) < len(read_exact_qrels(tmp_path / "qrels"))  # rows counted


@pytest.mark.parametrize("case", random_cases(),
                         ids=lambda c: f"v{c['version']} " + " ".join(c["args"]))
def test_the_c_trec_eval_on_random_collections_with_the_qrels_read_against_the_run(
    case: dict[str, Any], against: list[Any], tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # Every option of trec_eval (-c, -J, -M, -l, -N, -Z, -q, -n, versions 9 and 10),
    # the C program's output (tests/fixtures/trec_eval_random/generate.py).
    assert_c_output(case, tmp_path, capsysbinary, qrels=_by_query)
    assert len(against) == 1
    assert isinstance(against[0], CountedQrels)


OPTION_SETS = [
    {"measures": ("all_trec",), "per_query": True},
    {"measures": ("all_trec",), "per_query": True, "complete": True},
    {"measures": ("all_trec",), "per_query": True, "judged_only": True, "depth": 3},
    {"measures": ("all_trec", "ndcg.1=3,2=9,-1=2"), "relevance_level": 2, "complete": True},
    {"measures": ("all_trec",), "per_query": True, "version": 9, "relevance_level": 0},
]


@st.composite
def _collections(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A run and its qrels, each query's judgments together: grades -1 to 3, documents
    the run lists and others, ids of 1 to 12 bytes (one word or two), queries the run
    has not and queries with no judgment."""
    n_queries = draw(st.integers(1, 5))
    docs = [f"d{k}" if k % 3 else f"document-{k:04d}" for k in range(40)]
    run, qrels = [], []
    for q in range(n_queries):
        listed = draw(st.lists(st.sampled_from(docs), unique=True, max_size=12))
        if q != 1:  # query 1: judged, no results
            run += [f"q{q} Q0 {d} {r} {draw(st.sampled_from([0.5, 1.0, 2.25, 3.0]))} r\n"
                    for r, d in enumerate(listed)]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=25))
        if q != 2:  # query 2: results, no judgment
            qrels += [f"q{q} 0 {d} {draw(st.integers(-1, 3))}\n" for d in judged]
    if not run:
        run = ["q0 Q0 d1 1 1.0 r\n"]
    if not qrels:
        qrels = ["q0 0 d1 1\n"]
    return "".join(qrels).encode(), "".join(run).encode()


@settings(deadline=None)
@given(_collections(), st.integers(8, 400))
def test_the_qrels_read_against_the_run_give_what_they_give_read_whole(
    files: tuple[bytes, bytes], block: int,
) -> None:
    import tempfile

    qrels_text, run_text = files
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = Path(folder) / "qrels", Path(folder) / "run"
        qrels_path.write_bytes(qrels_text)
        run_path.write_bytes(run_text)
        run = read_run(run_path)
        old = trec_retrieved.BLOCK_BYTES
        trec_retrieved.BLOCK_BYTES = block
        try:
            counted = read_against(qrels_path, run)
        finally:
            trec_retrieved.BLOCK_BYTES = old
        whole = read_exact_qrels(qrels_path)
    assert counted is not None
    assert int(counted.judgment_counts.sum()) == len(whole)
    for options in OPTION_SETS:
        want = _output(whole, run, options)
        assert _output(counted, run, options) == want, options


def _output(qrels: Any, run: Any, options: dict[str, Any]) -> str | type[Exception]:
    try:
        return format_trec_eval(qrels, run, TrecEvalOptions(**options))
    except Exception as error:  # the same refusal (no query to evaluate) both ways
        return type(error)


@pytest.mark.parametrize(("qrels", "why"), [
    (b"q1 0 d1 1\nq2 0 d2 1\nq1 0 d3 0\n", "a query's judgments not together"),
    (b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 0\nq1 0 d2 1\n", "a document judged twice"),
    (b"q1 0 d1 1\nq1 0 d2\nq1 0 d3 1\n", "a line of three fields"),
    (b"q1 0 d1 1\nq1 0 d2 x\n", "a grade that is not a number"),
])
def test_what_this_reader_does_not_take_is_read_whole_with_the_same_error(
    qrels: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d2 1 1.0 r\n")
    monkeypatch.setattr(trec_retrieved, "BLOCK_BYTES", 16)
    assert read_against(tmp_path / "qrels", read_run(tmp_path / "run")) is None, why
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    whole = main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()
    monkeypatch.setattr(trec_stream, "AGAINST_RUN_BYTES", 0)
    monkeypatch.setattr(trec_stream, "AGAINST_RUN_TIMES", 0)
    assert (main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()) == whole


def test_compressed_qrels_are_read_whole(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "qrels.gz").write_bytes(gzip.compress(b"q1 0 d1 1\n"))
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 2.0 r\n")
    assert read_against(tmp_path / "qrels.gz", read_run(tmp_path / "run")) is None


def test_several_runs_read_the_qrels_whole(
    against: list[Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # The qrels serve every run: read against none of them.
    (tmp_path / "qrels").write_bytes(b"q1 0 d1 1\nq1 0 d2 1\n")
    (tmp_path / "a").write_bytes(b"q1 Q0 d1 1 2.0 r\n")
    (tmp_path / "b").write_bytes(b"q1 Q0 d2 1 2.0 r\n")
    assert main(["trec", "-m", "P.1", *(str(tmp_path / n) for n in ("qrels", "a", "b"))]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert against == []
    assert out.count("1.0000") == 2

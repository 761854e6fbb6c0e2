"""Which reader reads a TREC file in a job of several (issue 26, item 9, session 34):
``compare_runs`` and ``prcurve trec --compare`` import ``pyarrow.csv`` before their
first file (so that every file from 128 KiB up takes pyarrow's reader) when the job
loads pyarrow anyway and a run of long scores is among its files. Both readers give the
same tables, bit for bit, on the benchmarks' shapes (17-digit and 4-decimal scores,
ties), so the choice never changes a number."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prcurve
import prcurve.ranking.trec_reader as trec_reader
from prcurve.ranking.hashing import ARROW_ROWS
from prcurve.ranking.tables import Qrels, Run, read_qrels, read_run


def write_run(path: Path, queries: int, docs: int, scores: str, seed: int = 0) -> Path:
    """A run as the benchmarks write them: ``repr`` (17 digits, some with an exponent),
    ``4dec`` ("%.4f") or ``ties`` (4 decimals from a few values: tied scores)."""
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(queries):
        values = rng.random(docs) * (1e-4 if q % 7 == 3 else 1.0)  # some below 1e-4
        if scores == "ties":
            values = np.round(rng.integers(0, 5, docs) / 4, 4)
        order = np.argsort(-values, kind="stable")
        for rank, i in enumerate(order):
            text = repr(float(values[i])) if scores == "repr" else f"{values[i]:.4f}"
            lines.append(f"q{q} Q0 d{(q * 7919 + int(i) * 104729) % 50000} {rank + 1} {text} "
                         f"run{seed}\n")
    path.write_text("".join(lines))
    return path


def write_qrels(path: Path, queries: int, docs: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    path.write_text("".join(f"q{q} 0 d{(q * 7919 + d * 104729) % 50000} {rng.integers(0, 3)}\n"
                            for q in range(queries) for d in range(docs)))
    return path


def same(a: Run | Qrels, b: Run | Qrels) -> bool:
    """The same table, values bit for bit (a -0.0 is not a 0.0)."""
    def bits(table: Run | Qrels) -> Any:
        if isinstance(table, Run):
            return table.score.view(np.uint64), table.run_id
        return table.relevance, None

    (x, run_a), (y, run_b) = bits(a), bits(b)
    return (np.array_equal(a.query_id, b.query_id) and np.array_equal(a.doc_id, b.doc_id)
            and np.array_equal(x, y) and run_a == run_b)


@pytest.fixture
def arrow_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A spy on pyarrow's reader: the kind of each file it reads."""
    taken: list[str] = []
    original = trec_reader._arrow_columns

    def spy(source: Any, kind: str, *rest: Any) -> Any:
        taken.append(kind)
        return original(source, kind, *rest)

    monkeypatch.setattr(trec_reader, "_arrow_columns", spy)
    return taken


# -- the score length ----------------------------------------------------------------------

@pytest.mark.parametrize(("head", "long"), [
    (b"q1 Q0 d1 1 0.12345678901234567 r\n" * 3, True),
    (b"q1\tQ0\td1\t1\t0.12345678901234567\tr\r\n" * 3, True),  # tabs, CRLF
    (b"# a comment line with many words in it\n" + b"q Q0 d 1 19.9682 b\n" * 3, False),
    (b"q Q0 d 1 1.2595163114581531e-05 r\n" * 2 + b"q Q0 d 1 0.5 r\n", True),  # the median
    (b"q Q0 d 1 0.5 r\n" * 2 + b"q Q0 d 1 1.2595163114581531e-05 r\n", False),
    (b"q Q0 d 1 0.%s r\n" % (b"1" * (trec_reader.LONG_SCORE_BYTES - 3)), False),  # 1 byte short
    (b"q Q0 d 1 0.%s r\n" % (b"1" * (trec_reader.LONG_SCORE_BYTES - 2)), True),  # just long
    (gzip.compress(b"q1 Q0 d1 1 0.12345678901234567 r\n" * 3, mtime=0), False),
    (b"", False),
])
def test_long_scores_by_the_median_score_of_the_first_lines(head: bytes, long: bool) -> None:
    assert trec_reader.long_scores(head) is long


# -- the same numbers whichever reader -----------------------------------------------------

@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries=st.integers(1, 12), docs=st.integers(1, 60),
       scores=st.sampled_from(["repr", "4dec", "ties"]), seed=st.integers(0, 2**16),
       tab=st.booleans())
def test_both_readers_give_the_same_tables_on_the_benchmark_shapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    queries: int, docs: int, scores: str, seed: int, tab: bool,
) -> None:
    run = write_run(tmp_path / "run", queries, docs, scores, seed)
    qrels = write_qrels(tmp_path / "qrels", queries, docs, seed)
    if tab:
        for path in (run, qrels):
            path.write_text(path.read_text().replace(" ", "\t"))
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 4 << 20)
    by_exact = read_run(run), read_qrels(qrels)
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)  # every file: pyarrow's
    by_arrow = read_run(run), read_qrels(qrels)
    assert same(by_exact[0], by_arrow[0])
    assert same(by_exact[1], by_arrow[1])
    # Every score as Python's float() reads its text.
    texts = [line.split()[4] for line in run.read_text().splitlines()]
    floats = np.array([float(t) for t in texts])
    assert np.array_equal(np.sort(by_exact[0].score.view(np.uint64)),
                          np.sort(floats.view(np.uint64)))


def test_compare_runs_gives_the_same_result_whichever_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arrow_reads: list[str],
) -> None:
    qrels = write_qrels(tmp_path / "qrels", 30, 40)
    runs = {f"r{k}": write_run(tmp_path / f"run{k}", 30, 60, kind, seed=k)
            for k, kind in enumerate(["repr", "ties", "4dec"])}

    def compared() -> Any:
        return prcurve.compare_runs(qrels, runs, ["AP", "ndcg", "P@10"], test="randomization",
                                    permutations=200, seed=1)

    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 4 << 20)
    exact = compared()
    assert arrow_reads == []  # files under ARROW_LOADED_SMALL_FILE_BYTES: the exact reader
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)
    arrow = compared()
    assert arrow_reads == ["qrels", "run", "run", "run"]
    for label in exact.measures:
        assert np.array_equal(exact.per_query[label], arrow.per_query[label])
    for column in ("mean", "p_value", "ci_low", "ci_high"):
        assert np.array_equal(exact.rows[column], arrow.rows[column], equal_nan=True)


# -- the job rule: compare_runs and prcurve trec --compare ---------------------------------

# A fresh process (pyarrow not loaded by earlier tests) that runs a job and prints the
# kinds of the files pyarrow's reader read, in order, and whether pyarrow is loaded.
JOB = """
import sys
import prcurve.ranking.trec_reader as t
taken = []
original = t._arrow_columns
def spy(source, kind, *rest):
    taken.append(kind)
    return original(source, kind, *rest)
t._arrow_columns = spy
{without}
{job}
print(taken, 'pyarrow' in sys.modules)
"""
WITHOUT = ("import prcurve.ranking.compare as c, prcurve.cli.trec_compare as tc\n"
           "c.prepare_job = tc.prepare_job = lambda files: False")


def in_a_process(job: str, without_rule: bool = False) -> str:
    code = JOB.format(job=job, without=WITHOUT if without_rule else "")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture
def long_job(tmp_path: Path) -> tuple[Path, list[Path]]:
    """The bench_compare shape, smaller: qrels of more than ARROW_ROWS lines (the exact
    reader's encoding would load pyarrow), runs of 17-digit scores over 128 KiB."""
    qrels = write_qrels(tmp_path / "qrels", 300, ARROW_ROWS // 300 + 20)
    runs = [write_run(tmp_path / f"run{k}", 40, 100, "repr", seed=k) for k in range(2)]
    return qrels, runs


def test_compare_runs_reads_every_file_by_pyarrow_when_the_job_loads_it(
    long_job: tuple[Path, list[Path]],
) -> None:
    qrels, runs = long_job
    job = (f"import prcurve\nprcurve.compare_runs({str(qrels)!r}, "
           f"{[str(r) for r in runs]!r}, ['AP'], test='sign')")
    assert in_a_process(job) == "['qrels', 'run', 'run'] True"
    # Without the job rule every file goes to the exact reader, whose encoding of the
    # qrels loads pyarrow all the same (pyarrow.csv, what the file rule asks, not).
    assert in_a_process(job, without_rule=True) == "[] True"


def test_cli_compare_reads_every_file_by_pyarrow_when_the_job_loads_it(
    long_job: tuple[Path, list[Path]],
) -> None:
    qrels, runs = long_job
    job = ("from prcurve.cli import main\n"
           f"main(['trec', '--compare', '--test', 'sign', {str(qrels)!r}, "
           f"'a={runs[0]}', 'b={runs[1]}'])")
    assert in_a_process(job) == "['qrels', 'run', 'run'] True"
    assert in_a_process(job, without_rule=True) == "[] True"


def test_a_job_of_short_scores_keeps_the_exact_reader(tmp_path: Path) -> None:
    # The same qrels (the job loads pyarrow), runs of 4-decimal scores over 128 KiB:
    # the exact reader reads those as fast or faster, nothing is imported for them.
    qrels = write_qrels(tmp_path / "qrels", 300, ARROW_ROWS // 300 + 20)
    runs = [write_run(tmp_path / f"run{k}", 40, 150, "4dec", seed=k) for k in range(2)]
    assert all(r.stat().st_size >= trec_reader.ARROW_LOADED_SMALL_FILE_BYTES for r in runs)
    job = (f"import prcurve\nprcurve.compare_runs({str(qrels)!r}, "
           f"{[str(r) for r in runs]!r}, ['AP'], test='sign')")
    assert in_a_process(job) == "[] True"


def test_a_job_of_everyday_runs_loads_no_pyarrow(tmp_path: Path) -> None:
    # bench_everyday's several-runs shape, smaller: runs of 4-decimal scores and of
    # 17-digit scores under ARROW_ROWS lines, qrels under 128 KiB. Nothing in the job
    # loads pyarrow, and the job rule does not either (its import would not pay:
    # docs/benchmarks.md, issue 26, session 34).
    qrels = write_qrels(tmp_path / "qrels", 40, 50)
    runs = [write_run(tmp_path / f"run{k}", 40, 150, kind, seed=k)
            for k, kind in enumerate(["4dec", "repr", "4dec"])]
    job = (f"import prcurve\nprcurve.compare_runs({str(qrels)!r}, "
           f"{[str(r) for r in runs]!r}, ['AP'], test='sign')")
    assert in_a_process(job) == "[] False"


def test_prepare_job_passes_over_what_is_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "pyarrow.csv", raising=False)  # as in a fresh process
    monkeypatch.setattr(trec_reader, "arrow_module", lambda n: pytest.fail("pyarrow asked for"))
    files = [({"q": {"d": 1}}, "qrels"), (tmp_path, "run"), (str(tmp_path / "missing"), "run"),
             (write_run(tmp_path / "small", 2, 10, "repr"), "run")]
    assert trec_reader.prepare_job(files) is False

"""Large qrels read against the run's pair keys (ranking/trec_run_keys.py; issue 26,
item 4, session 37): the run read once for its (query, document) keys, the qrels in
blocks against them, then the run in blocks joined with what was kept. Every output
equal to the C trec_eval's (its quicktest, the random collections of
tests/fixtures/trec_eval_random written by the C program with every option) and to
the files read whole (Hypothesis, blocks of a few bytes, keys forced to collide);
whatever the path does not take read as before, with the same errors; and its
memory against the qrels read whole."""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_trec import assert_c_output, random_cases
from tests.test_trec_against import OPTION_SETS, QUICKTEST, V10, _by_query, _collections

from prcurve.cli import main
from prcurve.ranking import read_run, trec_reader, trec_retrieved, trec_run_keys, trec_stream
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval
from prcurve.ranking.trec_judged import read_exact_qrels
from prcurve.ranking.trec_retrieved import CountedQrels, read_against_keys
from prcurve.ranking.trec_run_keys import RunKeys, run_pair_keys


def _by_keys(monkeypatch: pytest.MonkeyPatch, block: int = 64) -> list[Any]:
    """Every qrels file read against its run's keys, everything in blocks of ``block``
    bytes or so; the list gets what each read of the qrels gave."""
    monkeypatch.setattr(trec_stream, "KEYS_RUN_BYTES", 0)
    monkeypatch.setattr(trec_stream, "KEYS_RUN_SHARE", 1 << 40)
    monkeypatch.setattr(trec_stream, "AGAINST_RUN_BYTES", 0)
    monkeypatch.setattr(trec_stream, "BLOCK_BYTES", max(block, 64))
    monkeypatch.setattr(trec_run_keys, "BLOCK_BYTES", block)
    monkeypatch.setattr(trec_retrieved, "BLOCK_BYTES", block)
    given_back: list[Any] = []

    def spy(path: Any, keys: Any) -> Any:
        given_back.append(read_against_keys(path, keys))
        return given_back[-1]

    monkeypatch.setattr(trec_retrieved, "read_against_keys", spy)
    return given_back


@pytest.mark.parametrize(("expected", "qrels", "run", "args"), QUICKTEST,
                         ids=[c[0] for c in QUICKTEST])
def test_trec_eval_quicktest_with_the_qrels_read_against_the_run_keys(
    expected: str, qrels: str, run: str, args: list[str], tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch,
) -> None:
    given_back = _by_keys(monkeypatch)
    (tmp_path / "qrels").write_bytes(_by_query((V10 / qrels).read_bytes()))
    assert main(["trec", *args, str(tmp_path / "qrels"), str(V10 / run)]) == 0
    assert capsysbinary.readouterr().out == (V10 / expected).read_bytes()
    assert len(given_back) == 1
    assert isinstance(given_back[0], CountedQrels)
    assert len(given_back[0]) < len(read_exact_qrels(tmp_path / "qrels"))  # rows counted


@pytest.mark.parametrize("case", random_cases(),
                         ids=lambda c: f"v{c['version']} " + " ".join(c["args"]))
def test_the_c_trec_eval_on_random_collections_with_the_qrels_read_against_the_run_keys(
    case: dict[str, Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every option of trec_eval (-c, -J, -M, -l, -N, -Z, -q, -n, versions 9 and 10),
    # the C program's output (tests/fixtures/trec_eval_random/generate.py).
    given_back = _by_keys(monkeypatch)
    assert_c_output(case, tmp_path, capsysbinary, qrels=_by_query)
    assert len(given_back) == 1
    assert isinstance(given_back[0], CountedQrels)


def _collide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every (query, document) key the same: every judgment kept, as a collision keeps
    one (the lookup by keys may keep more, never fewer)."""
    monkeypatch.setattr(trec_run_keys, "pair_keys",
                        lambda query_hash, doc_words, doc_hash=None:
                        np.zeros(doc_words[0].shape[0], dtype=np.uint64))


@settings(deadline=None)
@given(_collections(), st.integers(8, 400), st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_the_qrels_read_against_the_run_keys_give_what_they_give_read_whole(
    files: tuple[bytes, bytes], block: int, collide: bool, newline: str,
) -> None:
    qrels_text, run_text = files
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        qrels_path, run_path = Path(folder) / "qrels", Path(folder) / "run"
        qrels_path.write_bytes(qrels_text)
        run_path.write_bytes(run_text.replace(b"\n", newline.encode()))
        run = read_run(run_path)  # the path that reads everything whole
        whole = read_exact_qrels(qrels_path)
        _by_keys(patch, block)
        if collide:
            _collide(patch)
        counted, streamed = trec_stream.read_judged(qrels_path, run_path, against_run=True)
    assert isinstance(counted, CountedQrels)
    assert int(counted.judgment_counts.sum()) == len(whole)
    if collide:
        assert len(counted) >= len(whole)  # every judgment kept, and the counted rows
    for options in OPTION_SETS:
        want = _output(whole, run, options)
        assert _output(counted, streamed, options) == want, options


def _output(qrels: Any, run: Any, options: dict[str, Any]) -> str | type[Exception]:
    try:
        return format_trec_eval(qrels, run, TrecEvalOptions(**options))
    except Exception as error:  # the same refusal (no query to evaluate) both ways
        return type(error)


def test_keys_of_one_pair_agree_whatever_the_blocks_widths(tmp_path: Path) -> None:
    # A block of one-word ids and one of two-word ids: one pair's keys must agree.
    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 d1 1 2 r\nq1 Q0 a-very-long-document 2 1 r\n")
    keys = run_pair_keys(run)
    assert keys is not None
    found = RunKeys(keys).listed(
        [b"q1"], np.array([0, 0]),
        [np.array([int.from_bytes(b"d1".ljust(8, b"\0"), "big"), 1], dtype=np.uint64),
         np.array([0, 2], dtype=np.uint64)])
    assert found.tolist() == [True, False]


@pytest.mark.parametrize(("run", "why"), [
    (b"q1 Q0 d1 1 2.0\n", "a line of five fields"),
    (b"\x1f\x8b\x08\x00", "a compressed file"),
    (b"\xef\xbb\xbfq1 Q0 d1 1 2.0 r\n", "a byte-order mark"),
    (b"q1 Q0 " + b"d" * 65 + b" 1 2.0 r\n", "an id longer than 64 bytes"),
])
def test_runs_the_keys_do_not_take_are_read_as_before_with_the_same_error(
    run: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "qrels").write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run").write_bytes(run)
    assert run_pair_keys(tmp_path / "run") is None, why
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    before = main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()
    given_back = _by_keys(monkeypatch)
    assert (main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()) == before
    assert given_back == []


@pytest.mark.parametrize(("qrels", "why"), [
    (b"q1 0 d1 1\nq2 0 d2 1\nq1 0 d3 0\n", "a query's judgments not together"),
    (b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 0\nq1 0 d2 1\n", "a document judged twice"),
    (b"q1 0 d1 1\nq1 0 d2\nq1 0 d3 1\n", "a line of three fields"),
])
def test_qrels_the_keys_do_not_take_are_read_whole_with_the_same_error(
    qrels: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d2 1 1.0 r\n")
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    whole = main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()
    given_back = _by_keys(monkeypatch, 16)
    assert (main(["trec", "-m", "all_trec", *paths]), capsys.readouterr()) == whole, why
    assert given_back == [None]


def _write_collection(folder: Path, topics: int, listed: int, judged: int) -> tuple[Path, Path]:
    """``topics`` queries of ``listed`` run lines and ``judged`` judgments each, a tenth
    of them of listed documents; distinct ids (as real collections' are)."""
    rng = np.random.default_rng(5)
    run, qrels = [], []
    for t in range(topics):
        docs = rng.choice(10**8, size=listed + judged, replace=False)
        scores = np.sort(rng.random(listed))[::-1]
        run += [f"{t + 1} Q0 d{d} {r + 1} {s:.4f} x\n"
                for r, (d, s) in enumerate(zip(docs[:listed].tolist(), scores.tolist(),
                                               strict=True))]
        judged_docs = np.concatenate([docs[:judged // 10], docs[listed:listed + judged
                                                                 - judged // 10]])
        qrels += [f"{t + 1} 0 d{d} {int(g)}\n"
                  for d, g in zip(judged_docs.tolist(), rng.integers(0, 3, judged).tolist(),
                                  strict=True)]
    (folder / "qrels").write_text("".join(qrels))
    (folder / "run").write_text("".join(run))
    return folder / "qrels", folder / "run"


def test_large_qrels_with_a_large_run_take_less_than_the_qrels_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 4·10^5 judgments, a run of 6·10^4 lines (1.6 MB) read in blocks: main read such
    # qrels whole before the run (its traced peak at least read_exact_qrels' own);
    # now only what the run lists is kept, and the peak is the run's blocks' (20 MB at
    # 2 MiB blocks: trec_stream.BLOCK_BYTES), about half that of the qrels read whole.
    qrels, run = _write_collection(tmp_path, 40, 1500, 10_000)
    assert run.stat().st_size >= trec_stream.KEYS_RUN_BYTES
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 1 << 16)  # the run in blocks
    tracemalloc.start()
    try:
        read_exact_qrels(qrels)
        whole = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        got, _ = trec_stream.read_judged(qrels, run, against_run=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(got) < 50_000  # 40,000 judgments of listed documents, and the counts
    assert peak < 0.7 * whole, (peak, whole)


@settings(deadline=None)
@given(st.lists(st.sampled_from(["0", "1", "2", "9", "-1", "10", "+3", "07", "x", "٣"]),
                min_size=1, max_size=30))
def test_grades_of_one_digit_read_as_every_other_grade(grades: list[str]) -> None:
    # The one-byte shortcut of trec_format.parse_numbers against Python's int() (the
    # whole-file reader's rule); anything else goes the general way, errors included.
    from prcurve.errors import InvalidInputError
    from prcurve.ranking.trec_format import LAYOUT, parse_numbers, split_fields

    text = "".join(f"q1 0 d{k} {g}\n" for k, g in enumerate(grades)).encode()
    n_fields, exact, layout, value_field, dtype, what = LAYOUT["qrels"]
    fields = split_fields(text, "qrels", "qrels", n_fields, exact, layout)
    try:
        want: list[int] | None = [int(g.encode()) for g in grades]  # (bytes: ASCII digits)
    except ValueError:
        want = None
    try:
        got: list[int] | None = parse_numbers(fields, value_field, dtype, "qrels", "qrels",
                                              what).tolist()
    except InvalidInputError:
        got = None
    assert got == want

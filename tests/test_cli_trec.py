"""``prcurve trec``: trec_eval's command line, output and exit codes (prcurve.cli)."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from prcurve.cli import main

V10 = Path(__file__).parent / "fixtures" / "trec_eval_v10"
V9 = Path(__file__).parent / "fixtures" / "trec_eval_v9"
ALL_TREC_NOTE = (
    "prcurve: note: all_trec, as trec_eval's, leaves out the preference measures prefs_* "
    "(-R prefs or qrels_prefs, -m all_prefs) and the judgment-group measures *_avgjg "
    "(-R qrels_jg, -m qrels_jg)\n"
)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["qrels.test", "results.test"], V10 / "out.test"),
        (["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
         V10 / "out.test.aqcM"),
        (["-mall_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
         V10 / "out.test.aql"),
        (["--measure", "all_trec", "--query_eval_wanted", "--complete_rel_info_wanted",
          "--Max_retrieved_per_topic", "100", "qrels.test", "results.trunc"],
         V10 / "out.test.aqcM"),
        (["--trec-eval-version", "9", "-m", "all_trec", "-q", "-c", "qrels.test",
          "results.trunc"], V9 / "out.test.aqc"),
        (["qrels.comment.test", "results.comment.test"], V10 / "out.comment.test"),
    ],
)
def test_output_is_trec_eval_s(
    argv: list[str], expected: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(V10 / a) if a.startswith(("qrels", "results")) else a for a in argv]
    assert main(["trec", *files]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected.read_text()  # every line, byte for byte
    all_trec = any(a.endswith("all_trec") for a in argv)
    assert captured.err == (ALL_TREC_NOTE if all_trec else "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["trec", "missing-qrels", "missing-run"], "cannot read 'missing-run'"),
        (["trec", "-m", "prefs_simp", str(V10 / "qrels.test"), str(V10 / "results.test")],
         "'prefs_simp' needs -R prefs or qrels_prefs input (found -R qrels)"),
        (["trec", "-R", "prefs", "-m", "all_prefs", str(V10 / "qrels.test"),
          str(V10 / "results.test")], "line 1: expected 5 fields (query jg jsg docno rel_level)"),
        (["trec", "-R", "json", str(V10 / "qrels.test"), str(V10 / "results.test")],
         "-R: unsupported value 'json'"),
        (["trec", "-R", "qrels_jg", str(V10 / "qrels.123"), str(V10 / "results.test")],
         "'num_ret' needs -R qrels input (found -R qrels_jg)"),
        (["trec", "-Z", "no-such-zscores", str(V10 / "qrels.test"), str(V10 / "results.test")],
         "cannot read 'no-such-zscores'"),
        (["trec", "-l", "x", "q", "r"], "invalid int value: 'x'"),
        (["trec", "-M", "0", str(V10 / "qrels.test"), str(V10 / "results.test")],
         "depth: expected a rank cutoff >= 1"),
        (["trec", str(V10 / "results.test"), str(V10 / "results.test")],
         "line 1: expected 4 fields"),
        # Regression (issue 10): arguments swapped, the error says so.
        (["trec", str(V10 / "results.test"), str(V10 / "qrels.test")],
         "Did you swap QRELS and RUN?"),
        (["trec", str(V10)], "the following arguments are required: RUN"),
        (["trec", str(V10), str(V10 / "results.test")], "it is a directory"),
        (["trec", "only-one"], "the following arguments are required: RUN"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "no command given"),
    ],
)
def test_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("prcurve: error: ")
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_judged_queries_without_results_are_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # trec_eval 10 stops here, 9 leaves them out silently; prcurve leaves them
    # out and says so on stderr (with -c they are scored 0, and no note).
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 r\n")
    assert main(["trec", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "map                   \tall\t1.0000\n"
    assert captured.err.count("\n") == 1
    assert "1 judged query without results left out (2)" in captured.err
    assert main(["trec", "-c", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    assert capsys.readouterr() == ("map                   \tall\t0.5000\n", "")


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trec", "--help"]) == 0
    assert "iprec_at_recall" in capsys.readouterr().out


def test_python_m_prcurve_and_stdin(tmp_path: Path) -> None:
    run = (V10 / "results.test").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "prcurve", "trec", "-m", "map", "-m", "P.5",
         str(V10 / "qrels.test"), "-"],
        input=run, capture_output=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = b"map                   \tall\t0.1785\nP_5                   \tall\t0.2667\n"
    assert done.stdout == expected
    bad = subprocess.run(
        [sys.executable, "-m", "prcurve", "trec", str(tmp_path / "none"), str(tmp_path / "no")],
        capture_output=True, check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.count(b"\n") == 1
    assert bad.stdout == b""


def test_report_and_demo_share_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    assert all(command in listing for command in ("trec", "report", "demo"))
    assert main(["report", "--help"]) == 0
    assert "usage: prcurve report" in capsys.readouterr().out
    assert main(["report", "no-such-file.csv"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_all_trec_names_what_it_leaves_out(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 14: nothing silently skipped. trec_eval's all_trec (measures.c,
    # trec_names) has no prefs_* or *_avgjg measure either; the note says so.
    argv = ["trec", "-m", "all_trec", str(V10 / "qrels.test"), str(V10 / "results.test")]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("runid")
    assert captured.err.count("\n") == 1
    assert "prefs_*" in captured.err
    assert "*_avgjg" in captured.err
    assert main(["trec", "-m", "map", str(V10 / "qrels.test"), str(V10 / "results.test")]) == 0
    assert capsys.readouterr().err == ""


def test_only_the_program_keeps_freed_memory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # main(argv) called as a library function leaves malloc alone; the program
    # (argv None: `prcurve trec ...`) asks for it, for `trec` only.
    import importlib

    heap = importlib.import_module("prcurve.core.heap")  # imported by main() when it calls
    calls: list[int] = []
    monkeypatch.setattr(heap, "reuse_freed_memory", lambda: calls.append(1) or True)
    argv = ["trec", "-m", "map", str(V10 / "qrels.test"), str(V10 / "results.test")]
    assert main(argv) == 0
    assert calls == []
    monkeypatch.setattr(sys, "argv", ["prcurve", *argv])
    try:
        assert main() == 0
        assert calls == [1]
        monkeypatch.setattr(sys, "argv", ["prcurve", "report", "--help"])
        assert main() == 0
        assert calls == [1]
    finally:
        gc.unfreeze()  # main() (argv None) froze this test process's objects, as a program's
    capsys.readouterr()


def test_reuse_freed_memory_on_glibc_same_output(tmp_path: Path) -> None:
    # In a child process (the test process's malloc is left alone): set where the C
    # library is glibc, and the program's output is the same as without it.
    import os

    glibc = bool(getattr(os, "confstr_names", {}).get("CS_GNU_LIBC_VERSION")
                 and os.confstr("CS_GNU_LIBC_VERSION"))
    code = "from prcurve.core.heap import reuse_freed_memory; print(reuse_freed_memory())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.decode().strip() == str(glibc)
    argv = ["trec", "-m", "all_trec", "-q", str(V10 / "qrels.test"), str(V10 / "results.test")]
    tuned = subprocess.run([sys.executable, "-m", "prcurve", *argv], capture_output=True,
                           check=True)
    plain = subprocess.run(
        [sys.executable, "-c", "import sys; from prcurve.cli import main; "
         "sys.exit(main(sys.argv[1:]))", *argv], capture_output=True, check=True)
    assert tuned.stdout == plain.stdout == (V10 / "out.test.aq").read_bytes()

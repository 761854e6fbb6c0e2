"""`prcurve report` and `prcurve demo`: in-process main(argv), a subprocess, every bad input."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from prcurve import pr_curve
from prcurve.cli import main
from prcurve.cli.main import register
from prcurve.present.report_build import evaluate

RNG = np.random.default_rng(11)
Y = np.r_[np.ones(30, dtype=int), np.zeros(70, dtype=int)]
A = np.round(np.r_[RNG.normal(0, 1, 30), RNG.normal(-2, 1, 70)], 3)
B = np.round(np.r_[RNG.normal(0, 1, 30), RNG.normal(-0.5, 1, 70)], 3)
# The installed console script `prcurve`, beside this interpreter.
MODULE = [str(Path(sys.executable).parent / "prcurve")]

if TYPE_CHECKING:
    from tests.conftest import DemoRun


def write_csv(path: Path, header: str = "label,a,b", rows: list[str] | None = None) -> Path:
    if rows is None:
        rows = [f"{y},{a!r},{b!r}" for y, a, b in zip(Y.tolist(), A.tolist(), B.tolist(),
                                                      strict=True)]
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows))
    return path


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "scores.csv")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- results -----------------------------------------------------------------------------


def test_text_report_in_process(scores: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["report", str(scores)], capsys)
    assert code == 0
    expected = evaluate({"a": (Y, A)})
    assert "model a (scores.csv, column 'a')" in out
    ap = expected.models[0].values["ap"]["value"]
    assert re.search(rf"\n  AP \(step\) +{ap:.4f} ", out)
    assert "model b (scores.csv, column 'b')" in out
    assert err.splitlines() == [
        "prcurve: scores.csv: label column 'label' (found automatically; --label to choose "
        "another)",
        "prcurve: scores.csv: scoring columns 'a', 'b' (every other numeric column; --score to "
        "choose)",
    ]


def test_rich_tables_on_a_terminal(scores: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal: no progress bar
    assert main(["report", str(scores), "--score", "a"]) == 0
    out = terminal.getvalue()
    assert "┃ metric" in out or "metric" in out
    assert "─" in out  # a rich table's rules
    assert "AP (step)" in out
    assert "best F1" in out


def test_json_and_csv_to_stdout(scores: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["report", str(scores), "--format", "json", "--score", "b"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["models"][0]["ap"]["value"] == pr_curve(Y, B).average_precision("step")
    code, out, _ = run(["report", str(scores), "--format", "csv", "--ap-method", "11point"],
                       capsys)
    assert code == 0
    header, first, _second = out.splitlines()
    assert header.startswith("input,model,score_column,rows,rows_dropped,positives")
    assert first.startswith("scores.csv,a,a,100,0,30.0,70.0,0.3,exact,11point,")


def test_weights_and_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "w.tsv", "truth\tscore\tw",
                     ["yes\t0.9\t2", "no\t0.8\t1", "yes\t0.3\t1", "no\t0.1\t3"])
    code, out, _ = run(["report", str(path), "--label", "truth", "--positive", "yes",
                        "--weight", "w", "--format", "json"], capsys)
    assert code == 0
    model = json.loads(out)["models"][0]
    curve = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1], sample_weight=[2, 1, 1, 3])
    assert model["ap"]["value"] == curve.average_precision()
    assert model["positives"] == 3.0
    assert json.loads(out)["inputs"][0]["positive_label"] == "yes"


def test_fail_under(scores: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ap_b = pr_curve(Y, B).average_precision()
    code, _, err = run(["report", str(scores), "--fail-under", "ap=0.8"], capsys)
    assert code == 1
    assert f"prcurve: fail-under: model b: AP (step) = {ap_b:.6g} < 0.8 (--fail-under ap=0.8)" \
        in err.splitlines()
    assert "model a" not in err.split("fail-under")[-1]
    code, _, err = run(["report", str(scores), "--fail-under", "ap=0.1",
                        "--fail-under", "aucnpr=0.05"], capsys)
    assert code == 0
    assert "fail-under" not in err


def test_multiple_inputs_name_models_by_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    one = write_csv(tmp_path / "one.csv")
    two = write_csv(tmp_path / "two.parquet.csv")
    code, out, _ = run(["report", str(one), str(two), "--score", "a", "--format", "json"],
                       capsys)
    assert code == 0
    report = json.loads(out)
    assert [m["name"] for m in report["models"]] == ["one:a", "two.parquet:a"]
    assert [i["name"] for i in report["inputs"]] == ["one.csv", "two.parquet.csv"]


def test_out_writes_every_file(scores: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "folder"
    code, _, err = run(["report", str(scores), "--out", str(out), "--score", "a"], capsys)
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["curve_a.csv", "pr_curve.png", "pr_curve.svg", "prg_curve.png",
                     "report.html", "report.json", "threshold.png"]
    assert f"prcurve: wrote {out / 'report.json'}" in err.splitlines()


def test_register_adds_both_commands() -> None:
    parser = argparse.ArgumentParser(prog="prcurve")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", "x.csv", "--score", "a", "--score", "b"])
    assert args.handler.__name__ == "run_report"
    assert args.score == ["a", "b"]
    assert parser.parse_args(["demo"]).handler.__name__ == "run_demo"


# -- bad input: one line on stderr, exit code 2, no traceback ------------------------------


def bad(argv: list[str], capsys: pytest.CaptureFixture[str], *fragments: str) -> str:
    code, out, err = run(argv, capsys)
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("prcurve: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad(["report", str(tmp_path / "nope.csv")], capsys, "INPUT: no such file", "nope.csv",
        "Check the path")


def test_folder_as_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad(["report", str(tmp_path)], capsys, "is a folder, not a file")


def test_unknown_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scores.xlsx"
    path.write_text("label,a\n1,0.5\n")
    bad(["report", str(path)], capsys, "cannot tell the format of", "scores.xlsx",
        ".csv, .tsv", "--input-format")
    # --input-format reads it
    assert main(["report", str(path), "--input-format", "csv"]) == 0
    capsys.readouterr()
    bad(["report", str(path), "--input-format", "xlsx"], capsys, "--input-format: unknown value")


def test_unreadable_in_its_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not a parquet file at all")
    bad(["report", str(path)], capsys, "cannot read", "as parquet")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("label,a\n1,0.5\n0,0.2,7\n")
    bad(["report", str(ragged)], capsys, "cannot read", "as csv")
    jsonl = tmp_path / "broken.jsonl"
    jsonl.write_text('{"label": 1, "a": 0.5}\n{"label": 0, "a": \n')
    bad(["report", str(jsonl)], capsys, "as jsonl (line 2: Expecting value)")


def test_missing_column_lists_the_columns(scores: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bad(["report", str(scores), "--score", "c"], capsys,
        "--score: no column 'c'", "(found ['label', 'a', 'b'])")
    bad(["report", str(scores), "--label", "truth"], capsys,
        "--label: no column 'truth'", "(found ['label', 'a', 'b'])")
    bad(["report", str(scores), "--weight", "w"], capsys, "--weight: no column 'w'")


def test_no_label_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "s.csv", "cls,a", ["1,0.5", "0,0.1"])
    bad(["report", str(path)], capsys, "none of the usual label columns label, y, y_true, "
        "target, truth", "(found ['cls', 'a'])", "Pass --label COL")


def test_label_with_more_than_two_values(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "s.csv", "label,a", ["0,0.5", "1,0.1", "2,0.3", "1,0.2"])
    line = bad(["report", str(path)], capsys, "column 'label'", "{0, 1, 2} (3 distinct)",
               "--positive VALUE", "e.g. --positive 2")
    assert line.startswith("prcurve: error: --label: ")
    code, _, _ = run(["report", str(path), "--positive", "2"], capsys)
    assert code == 0
    text = write_csv(tmp_path / "t.csv", "label,a", ["cat,0.5", "dog,0.1"])
    bad(["report", str(text)], capsys, "{'cat', 'dog'}", "--positive")
    bad(["report", str(text), "--positive", "bird"], capsys,
        "--positive: 'bird' does not occur in label column 'label'", "{'cat', 'dog'}")


def test_no_positive_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "s.csv", "label,a", ["0,0.5", "0,0.1"])
    bad(["report", str(path)], capsys, "has no positive sample", "every AP are undefined")


def test_nan_scores_are_counted_with_rows(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rows = [f"{i % 2},{'nan' if i in (3, 9) else ('' if i == 12 else i / 20)}"
            for i in range(20)]
    path = write_csv(tmp_path / "s.csv", "label,a", rows)
    bad(["report", str(path)], capsys,
        "--score: column 'a' of", "has 3 NaN or missing score(s) (first at rows 4, 10, 13)",
        "--drop-invalid")


def test_non_numeric_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [f"{i % 2},{'high' if i == 5 else i / 20}" for i in range(20)]
    path = write_csv(tmp_path / "s.csv", "label,a", rows)
    bad(["report", str(path)], capsys, "has 1 non-numeric score(s) (row 6)", "--drop-invalid")
    inf = write_csv(tmp_path / "i.csv", "label,a", ["1,inf", "0,0.5", "1,0.2"])
    bad(["report", str(inf)], capsys, "1 infinite score(s) (row 1)")


def test_drop_invalid_skips_and_says_how_many(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = [f"{i % 2},{'nan' if i == 3 else ('x' if i == 4 else i / 20)}" for i in range(20)]
    path = write_csv(tmp_path / "s.csv", "label,a", rows)
    code, out, err = run(["report", str(path), "--drop-invalid"], capsys)
    assert code == 0
    assert "prcurve: s.csv: --drop-invalid skipped 2 of 20 rows for column 'a'" in err
    assert "2 dropped by --drop-invalid (score missing or nan 1, score non numeric 1)" in out
    code, out, _ = run(["report", str(path), "--drop-invalid", "--format", "json"], capsys)
    report = json.loads(out)
    model = report["models"][0]
    assert model["rows"] == 18
    assert model["rows_dropped"] == 2
    assert model["dropped"] == {"score_missing_or_nan": 1, "score_non_numeric": 1}
    assert report["notes"] == ["s.csv: --drop-invalid skipped 2 of 20 rows for column 'a'"]
    keep = [i for i in range(20) if i not in (3, 4)]
    expected = pr_curve([i % 2 for i in keep], [i / 20 for i in keep]).average_precision()
    assert model["ap"]["value"] == expected


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    bad(["report", str(empty)], capsys, "'", "empty.csv' has no data (an empty file)")
    header = tmp_path / "header.csv"
    header.write_text("label,a\n")
    bad(["report", str(header)], capsys, "has no data (a header but no rows)")
    jsonl = tmp_path / "empty.jsonl"
    jsonl.write_text("\n")
    bad(["report", str(jsonl)], capsys, "has no data")


def test_unwritable_output_folder(scores: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    # A file where the folder (or a parent) should be: named, and nothing created.
    bad(["report", str(scores), "--out", str(blocker / "sub")], capsys,
        f"--out: {str(blocker)!r} is a file, not a folder; nothing was written")
    bad(["report", str(scores), "--out", str(blocker)], capsys,
        f"--out: {str(blocker)!r} is a file, not a folder")
    assert blocker.read_text() == ""
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        bad(["report", str(scores), "--out", str(locked)], capsys, "Permission denied")


@pytest.mark.parametrize(("option", "value", "fragment"), [
    ("--bins", "ten", "--bins: expected an integer from 1 to 67108864, found 'ten'"),
    ("--bins", "0", "--bins: expected an integer from 1 to 67108864"),
    ("--beta", "-1", "--beta: expected a number > 0"),
    ("--recall-level", "1.5", "--recall-level: expected a number in [0, 1]"),
    ("--ap-method", "auc", "--ap-method: unknown value 'auc'. Use one of 'step'"),
    ("--format", "xml", "--format: unknown value 'xml'"),
    ("--fail-under", "ap>0.5", "--fail-under: cannot read 'ap>0.5'"),
    ("--fail-under", "f1=0.5", "METRIC one of ap, ap_step"),
])
def test_bad_option_values(scores: Path, capsys: pytest.CaptureFixture[str], option: str,
                           value: str, fragment: str) -> None:
    bad(["report", str(scores), option, value], capsys, fragment)


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    bad(["report"], capsys, "the following arguments are required: INPUT")
    bad(["report", "x.csv", "--nope"], capsys, "unrecognized arguments: --nope")
    bad([], capsys, "no command given")


# -- subprocess, demo, progress ----------------------------------------------------------


def test_subprocess_matches_in_process(scores: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    result = subprocess.run([*MODULE, "report", str(scores), "--format", "json"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert main(["report", str(scores), "--format", "json"]) == 0
    assert json.loads(result.stdout) == json.loads(capsys.readouterr().out)
    failed = subprocess.run([*MODULE, "report", str(scores), "--score", "zzz"],
                            capture_output=True, text=True, check=False)
    assert failed.returncode == 2
    assert failed.stdout == ""
    assert len(failed.stderr.splitlines()) == 1
    assert "Traceback" not in failed.stderr


def test_demo_in_a_subprocess(demo_run: DemoRun) -> None:
    # `prcurve demo` (MODULE) in a fresh folder without MPLBACKEND (no backend is needed):
    # tests/conftest.py's demo_run, which tests/test_package.py reads too.
    result = demo_run
    assert result.returncode == 0, result.stderr
    folder = demo_run.cwd / "prcurve-demo"
    written = ["curve_balanced_strong.csv", "curve_balanced_weak.csv", "curve_skewed_strong.csv",
               "curve_skewed_weak.csv", "pr_curve.png", "pr_curve.svg", "threshold.png",
               "prg_curve.png", "report.html", "report.json"]
    assert f"prcurve demo wrote 10 files to prcurve-demo{os.sep}:" in result.stdout
    for name in written:
        assert (folder / name).is_file()
        assert f"  {Path('prcurve-demo') / name}" in result.stdout.splitlines()
    assert (folder / "data" / "balanced.csv").is_file()
    report = json.loads((folder / "report.json").read_text())
    assert [m["name"] for m in report["models"]] == [
        "balanced:strong", "balanced:weak", "skewed:strong", "skewed:weak"]
    prevalences = [m["prevalence"] for m in report["models"]]
    assert prevalences == [0.375, 0.375, 150 / 15150, 150 / 15150]
    ap = [m["ap"]["value"] for m in report["models"]]
    assert ap[0] > ap[1]
    assert ap[2] > ap[3]
    assert ap[0] > ap[2]  # the same model on the skewed problem
    assert "model balanced:strong (balanced.csv, column 'strong')" in result.stdout


def test_demo_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["demo", "--format", "json", "--no-plots", "--out", "elsewhere"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["files"][-1] == "report.json"
    assert (tmp_path / "elsewhere" / "report.json").is_file()


def test_progress_bar_only_on_a_terminal(scores: Path) -> None:
    import pty

    # A terminal rich draws on: not "dumb", not marked non-interactive.
    terminal_env = {k: v for k, v in os.environ.items()
                    if k not in ("TTY_INTERACTIVE", "TTY_COMPATIBLE", "NO_COLOR", "CI")}
    terminal_env.update(TERM="xterm-256color", COLUMNS="120")
    main_fd, child_fd = pty.openpty()
    try:
        result = subprocess.run([*MODULE, "report", str(scores), "--format", "csv"],
                                stdout=subprocess.PIPE, stderr=child_fd, check=False,
                                env=terminal_env)
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main_fd)
    assert result.returncode == 0
    terminal = b"".join(chunks).decode("utf-8", "replace")
    assert "reading scores.csv" in terminal
    assert "100 rows" in terminal
    assert "rows/s" in terminal
    assert result.stdout.startswith(b"input,model")  # stdout is a pipe: plain CSV only
    piped = subprocess.run([*MODULE, "report", str(scores)], capture_output=True, text=True,
                           check=False)
    assert "reading" not in piped.stderr

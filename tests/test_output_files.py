"""Issue 25, "Files": every write through the one safe writer (prcurve.core.safe_files).

An output name taken by a folder is one line naming that file, exit 2, and nothing
half-written; a failed run leaves no empty --out; a link in the output folder is
replaced, never written through; a later run removes the earlier run's own files it
does not write (listed in report.json), nothing else; inputs are never modified.
Each on every path that writes: the library, `prcurve report` (in memory, --stream,
--workers), `prcurve demo`, `prcurve coco`/`voc`, and Table.write_csv.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.test_detection_coco import random_case

from prcurve.cli import main
from prcurve.core.safe_files import check_writable_folder, replace_file, write_files
from prcurve.core.table import Table
from prcurve.errors import InvalidInputError
from prcurve.present.report_build import evaluate

RNG = np.random.default_rng(25)
Y = np.r_[np.ones(20, dtype=int), np.zeros(40, dtype=int)]
A = np.round(np.r_[RNG.normal(0, 1, 20), RNG.normal(-2, 1, 40)], 3)
B = np.round(np.r_[RNG.normal(0, 1, 20), RNG.normal(-0.5, 1, 40)], 3)


def _csv(path: Path, columns: tuple[str, ...] = ("a", "b")) -> Path:
    values = {"a": A, "b": B}
    lines = ["label," + ",".join(columns)]
    lines.extend(f"{y}," + ",".join(repr(float(values[c][i])) for c in columns)
                 for i, y in enumerate(Y.tolist()))
    path.write_text("\n".join(lines) + "\n")
    return path


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: a file's digest, a link's target, a folder."""
    out = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[key] = "dir"
        else:
            out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _one_error_line(err: str, *fragments: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines, err
    assert lines[-1].startswith("prcurve: error: "), err
    # Notes about the columns found may come first; the error is one line.
    assert sum(line.startswith("prcurve: error") for line in lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[-1], (fragment, lines[-1])


# -- the writer itself ---------------------------------------------------------------------


def test_write_files_all_or_none(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"

    def broken(path: Path) -> None:
        path.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(InvalidInputError, match=r"cannot write to .*No space left"):
        write_files(out, [("one.txt", lambda p: p.write_text("1")), ("two.txt", broken)])
    assert not (tmp_path / "a").exists()  # the folders it created are gone again
    out.mkdir(parents=True)
    (out / "one.txt").write_text("old")
    with pytest.raises(ValueError, match="late"):
        write_files(out, [("one.txt", lambda p: p.write_text("new")),
                          ("two.txt", lambda p: (_ for _ in ()).throw(ValueError("late")))])
    assert _tree(out) == {"one.txt": hashlib.sha256(b"old").hexdigest()}  # no temporaries


def test_a_folder_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "taken.csv").mkdir()
    (tmp_path / "taken.csv" / "inside").write_text("x")
    before = _tree(tmp_path)
    with pytest.raises(InvalidInputError, match=r"output file .*taken\.csv' is a folder"):
        write_files(tmp_path, [("free.csv", lambda p: p.write_text("1")),
                               ("taken.csv", lambda p: p.write_text("2"))])
    with pytest.raises(InvalidInputError, match=r"^path: .*taken\.csv' is a folder"):
        Table({"x": np.array([1.0])}).write_csv(tmp_path / "taken.csv")
    assert _tree(tmp_path) == before


def test_links_are_replaced_not_followed(tmp_path: Path) -> None:
    precious = tmp_path / "precious.csv"
    precious.write_text("keep me\n")
    (tmp_path / "out").mkdir()
    os.symlink(precious, tmp_path / "out" / "t.csv")
    Table({"x": np.array([0.5, 1.0])}).write_csv(tmp_path / "out" / "t.csv")
    assert precious.read_text() == "keep me\n"
    assert not (tmp_path / "out" / "t.csv").is_symlink()
    assert (tmp_path / "out" / "t.csv").read_text() == "x\n0.5\n1\n"
    os.symlink(precious, tmp_path / "out" / "u.csv")
    replace_file(tmp_path / "out" / "u.csv", lambda p: p.write_text("new"))
    assert precious.read_text() == "keep me\n"


def test_check_writable_folder_leaves_nothing(tmp_path: Path) -> None:
    check_writable_folder(tmp_path / "x" / "y")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("")
    with pytest.raises(InvalidInputError, match="is a file, not a folder"):
        check_writable_folder(tmp_path / "file" / "sub")
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


# -- prcurve report ------------------------------------------------------------------------


def _parquet(tmp_path: Path) -> Path:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"label": Y, "a": A, "b": B}), path)
    return path


PATHS = [pytest.param([], id="memory"), pytest.param(["--stream"], id="stream")]


@pytest.mark.parametrize("taken", ["curve_a.csv", "report.json", "pr_curve.png",
                                   "report.html"])
@pytest.mark.parametrize("options", PATHS)
def test_output_name_taken_by_a_folder(taken: str, options: list[str], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    scores = _csv(tmp_path / "scores.csv")
    out = tmp_path / "out"
    (out / taken).mkdir(parents=True)
    before, inputs = _tree(out), _tree(tmp_path / "scores.csv")
    code = main(["report", str(scores), "--out", str(out), *options])
    err = capsys.readouterr().err
    assert code == 2
    _one_error_line(err, f"--out: the output file {str(out / taken)!r} is a folder",
                    "nothing was written")
    assert _tree(out) == before  # nothing half-written, no temporaries
    assert _tree(tmp_path / "scores.csv") == inputs


def test_output_name_taken_by_a_folder_with_dask(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed")
    scores = _parquet(tmp_path)
    out = tmp_path / "out"
    (out / "report.json").mkdir(parents=True)
    before = _tree(out)
    code = main(["report", str(scores), "--out", str(out), "--workers", "1", "--no-plots",
                 "--score", "a"])
    assert code == 2
    _one_error_line(capsys.readouterr().err, f"{str(out / 'report.json')!r} is a folder")
    assert _tree(out) == before


@pytest.mark.parametrize("options", [*PATHS, pytest.param(["--workers", "1"], id="dask")])
def test_failed_run_leaves_no_output_folder(options: list[str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("label,a\n1,0.5\n0,zero\n")
    for inputs in ([str(bad)], [str(tmp_path / "missing.csv")]):
        code = main(["report", *inputs, "--out", str(tmp_path / "new" / "out"), *options])
        assert code == 2
        _one_error_line(capsys.readouterr().err)
        assert not (tmp_path / "new").exists()


def test_later_run_with_fewer_models_removes_its_own_stale_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = _csv(tmp_path / "scores.csv")
    out = tmp_path / "out"
    assert main(["report", str(scores), "--out", str(out)]) == 0
    first = {p.name for p in out.iterdir()}
    assert {"curve_a.csv", "curve_b.csv", "pr_curve.png", "report.html"} <= first
    (out / "notes.txt").write_text("mine")  # not ours: never touched
    (out / "curve_mine.csv").write_text("mine")  # our pattern, but not in our manifest
    assert main(["report", str(scores), "--out", str(out), "--score", "a",
                 "--no-plots"]) == 0
    capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    assert report["files"] == ["curve_a.csv", "report.json"]
    assert sorted(p.name for p in out.iterdir()) == ["curve_a.csv", "curve_mine.csv",
                                                     "notes.txt", "report.json"]


def test_stale_files_never_include_an_input_or_a_foreign_manifest(tmp_path: Path) -> None:
    scores = _csv(tmp_path / "scores.csv")
    out = tmp_path / "out"
    out.mkdir()
    (out / "curve_b.csv").write_text("user's")
    (out / "report.json").write_text(json.dumps({"files": ["curve_b.csv"]}))  # not ours
    report = evaluate({"a": (Y, A)})
    report.write(out, plots=False)
    assert (out / "curve_b.csv").read_text() == "user's"
    # Ours, but the stale name is now an input: kept.
    ours = json.dumps({"schema": "prcurve.report/1", "files": ["curve_b.csv", "../x.csv"]})
    (out / "report.json").write_text(ours)
    report.write(out, plots=False, inputs=[out / "curve_b.csv", scores])
    assert (out / "curve_b.csv").read_text() == "user's"
    (out / "report.json").write_text(ours)
    (tmp_path / "x.csv").write_text("outside")
    report.write(out, plots=False, inputs=[scores])
    assert (tmp_path / "x.csv").read_text() == "outside"  # only plain names in the folder
    assert not (out / "curve_b.csv").exists()


def test_report_write_through_links_and_folders(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(precious, out / "curve_a.csv")
    report = evaluate({"a": (Y, A), "b": (Y, B)})
    report.write(out, plots=False)
    assert precious.read_text() == "keep"
    (out / "curve_b.csv").unlink()
    (out / "curve_b.csv").mkdir()
    before = _tree(out)
    with pytest.raises(InvalidInputError, match=r"curve_b\.csv' is a folder"):
        report.write(out, plots=False)
    assert _tree(out) == before


# -- prcurve demo --------------------------------------------------------------------------


def test_demo_data_never_written_through_a_link(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    precious = tmp_path / "precious.csv"
    precious.write_text("label,x\n1,0.5\n")
    out = tmp_path / "d"
    (out / "data").mkdir(parents=True)
    os.symlink(precious, out / "data" / "balanced.csv")
    assert main(["demo", "--out", str(out), "--no-plots", "--ci", "none"]) == 0
    capsys.readouterr()
    assert precious.read_text() == "label,x\n1,0.5\n"
    assert not (out / "data" / "balanced.csv").is_symlink()
    assert (out / "data" / "balanced.csv").read_text().startswith("label,strong,weak\n")


def test_demo_data_name_taken_by_a_folder(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d"
    (out / "data" / "skewed.csv").mkdir(parents=True)
    before = _tree(out)
    assert main(["demo", "--out", str(out), "--no-plots"]) == 2
    _one_error_line(capsys.readouterr().err, "skewed.csv' is a folder")
    assert _tree(out) == before


@pytest.mark.parametrize("taken", ["report.json", "curve_balanced_strong.csv"])
def test_demo_report_name_taken_by_a_folder(taken: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d"
    (out / taken).mkdir(parents=True)
    before = _tree(out)
    assert main(["demo", "--out", str(out), "--no-plots"]) == 2
    captured = capsys.readouterr()
    _one_error_line(captured.err, f"{str(out / taken)!r} is a folder; nothing was written")
    assert captured.out == ""
    assert _tree(out) == before  # the data was not written either


@pytest.mark.parametrize("options", [["--fail-under", "bogus"], ["--beta", "-1"],
                                     ["--format", "yaml"]])
def test_demo_bad_option_writes_nothing(options: list[str], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--out", str(tmp_path / "d"), *options]) == 2
    captured = capsys.readouterr()
    _one_error_line(captured.err)
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []


# -- prcurve coco / voc --------------------------------------------------------------------


def _detection_inputs(tmp_path: Path) -> tuple[str, str]:
    ground_truth, results = random_case(3)
    gt, dt = tmp_path / "gt.json", tmp_path / "dt.json"
    gt.write_text(json.dumps(ground_truth))
    dt.write_text(json.dumps(results))
    return str(gt), str(dt)


@pytest.mark.parametrize("command", ["coco", "voc"])
def test_detection_outputs(command: str, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _detection_inputs(tmp_path)
    inputs = {name: _tree(tmp_path)[name] for name in ("gt.json", "dt.json")}
    out = tmp_path / "out"
    (out / "per_class.csv").mkdir(parents=True)
    before = _tree(out)
    assert main([command, gt, dt, "--out", str(out), "--no-plots"]) == 2
    _one_error_line(capsys.readouterr().err, "per_class.csv' is a folder")
    assert _tree(out) == before
    (out / "per_class.csv").rmdir()
    out.rmdir()
    assert main([command, gt, dt, "--out", str(tmp_path / "x" / "out"), "--iou-type",
                 "nonsense"] if command == "coco" else
                [command, "missing.json", dt, "--out", str(tmp_path / "x" / "out")]) == 2
    assert not (tmp_path / "x").exists()  # a failed run leaves no --out
    assert main([command, gt, dt, "--out", str(out)]) == 0
    assert {"pr_classes.png", "per_class.csv", "report.json"} <= {p.name for p in out.iterdir()}
    assert main([command, gt, dt, "--out", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["per_class.csv", "report.json"]
    assert {name: _tree(tmp_path)[name] for name in inputs} == inputs


def test_every_input_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An output folder holding the inputs is refused; the inputs are never touched."""
    scores = _csv(tmp_path / "scores.csv")
    before = _tree(tmp_path)
    args: list[Any] = ["report", str(scores), "--out", str(tmp_path)]
    assert main(args) == 2
    _one_error_line(capsys.readouterr().err, "holds the input")
    assert _tree(tmp_path) == before


def test_demo_failing_late_leaves_no_new_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from prcurve.present.report import Report

    def full_disk(*args: Any, **kwargs: Any) -> list[Path]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Report, "write", full_disk)
    assert main(["demo", "--out", str(tmp_path / "new" / "d"), "--no-plots",
                 "--ci", "none"]) == 2
    _one_error_line(capsys.readouterr().err, "No space left on device")
    assert list(tmp_path.iterdir()) == []

"""The report of ``prcurve coco --iou-type segm|keypoints`` and of ``prcurve lvis``.

Every number the report writes (report.json's statistics and per-category AP,
AP50, AP75, per_class.csv) is checked against the reference's own arrays:
pycocotools' ``COCOeval(..., 'segm'|'keypoints')`` (per-category AP from its
``precision[T, R, K, A, M]``) and lvis-api's ``LVISEval`` (``precision[T, R, K,
A]``); the plots are drawn and name their similarity (mask IoU, OKS); the
keypoint refusals are one line and exit 2. Never skipped.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.test_detection_coco import pycocotools_eval
from tests.test_detection_keypoints import keypoint_case
from tests.test_detection_lvis import lvis_case, lvis_eval, write_case
from tests.test_detection_segm import segm_case

from prcurve.cli import main
from prcurve.detection import evaluate_coco

# pycocotools' mask decoding (the segm cases' references) on numpy 2.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")

CASES = [("segm", 9), ("segm", 11), ("keypoints", 5), ("keypoints", 1)]


def _case(iou_type: str, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return segm_case(seed) if iou_type == "segm" else keypoint_case(seed)


def _write(folder: Path, iou_type: str, seed: int, name: str = "dt") -> tuple[str, str]:
    ground_truth, results = _case(iou_type, seed)
    gt, dt = folder / "gt.json", folder / f"{name}.json"
    gt.write_text(json.dumps(ground_truth))
    dt.write_text(json.dumps(results))
    return str(gt), str(dt)


def _category_ap(precision: np.ndarray) -> float | None:
    """pycocotools' summarize on one category's slice: the mean of the entries > -1."""
    valid = precision[precision > -1]
    return float(valid.mean()) if valid.size else None


def _expected_rows(reference: Any) -> dict[int, dict[str, float | None]]:
    """Per category: AP (IoU .50:.95), AP50, AP75 at area all and the largest maxDets."""
    precision = reference.eval["precision"]
    thresholds = list(np.round(reference.params.iouThrs, 2))
    rows = {}
    for k, category in enumerate(reference.params.catIds):
        rows[category] = {
            "AP": _category_ap(precision[:, :, k, 0, -1]),
            "AP50": _category_ap(precision[thresholds.index(0.5), :, k, 0, -1]),
            "AP75": _category_ap(precision[thresholds.index(0.75), :, k, 0, -1])}
    return rows


def _assert_rows(rows: list[dict[str, Any]], expected: dict[int, dict[str, float | None]],
                 key: str = "category_id") -> None:
    assert [int(r[key]) for r in rows] == list(expected)
    for row in rows:
        for name, value in expected[int(row[key])].items():
            shown = row[name]
            if value is None:
                assert shown in (None, "", "nan"), (row, name)
            else:
                assert float(shown) == pytest.approx(value, abs=1e-12), (row, name)


@pytest.mark.parametrize(("iou_type", "seed"), CASES)
def test_report_files_equal_pycocotools(iou_type: str, seed: int, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _write(tmp_path, iou_type, seed)
    out = tmp_path / "out"
    extra = ["--errors", "--confusion"] if iou_type == "segm" else []
    assert main(["coco", gt, dt, "--iou-type", iou_type, "--json", "--per-class", "--out",
                 str(out), *extra]) == 0
    printed = json.loads(capsys.readouterr().out)
    reference, summary = pycocotools_eval(*_case(iou_type, seed), None, iou_type)
    report = json.loads((out / "report.json").read_text())
    assert report["iou_type"] == iou_type
    assert report["stats"] == printed["stats"]
    np.testing.assert_array_equal(list(report["stats"].values()), reference.stats)
    assert report["summary"] == summary.splitlines()[-len(reference.stats):]
    expected = _expected_rows(reference)
    _assert_rows(report["per_category"], expected)
    with (out / "per_class.csv").open(newline="") as file:
        _assert_rows(list(csv.DictReader(file)), expected)
    pictures = ["pr_iou.png", "pr_classes.png"] + (
        ["confusion.png", "errors.png"] if iou_type == "segm" else [])
    assert sorted(report["files"]) == sorted(["per_class.csv", "report.json", *pictures])
    for name in pictures:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if iou_type == "segm":  # the API's numbers (tidecv-checked in test_detection_tide.py)
        evaluation = evaluate_coco(gt, dt, iou_type="segm")
        assert report["errors"] == json.loads(json.dumps(evaluation.errors().to_dict()))
        assert report["confusion"]["matrix"] == evaluation.confusion_matrix().matrix.tolist()
        assert set(report["errors"]["main"]) == {"Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"}


@pytest.mark.parametrize(("iou_type", "kind"), [("segm", "mask IoU"), ("keypoints", "OKS")])
def test_per_class_text_names_the_similarity(iou_type: str, kind: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _write(tmp_path, iou_type, 5 if iou_type == "keypoints" else 9)
    assert main(["coco", gt, dt, "--iou-type", iou_type, "--per-class"]) == 0
    text = capsys.readouterr().out
    assert f"({kind} 0.50 for best F1; AP per class: mean over {kind} 0.50:0.95" in text
    assert "IoU 0.50 for best F1" not in text.replace(f"{kind} 0.50", "")


@pytest.mark.parametrize("option", ["--errors", "--confusion"])
def test_keypoints_refuse_errors_and_confusion(option: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _write(tmp_path, "keypoints", 5)
    out = tmp_path / "out"
    assert main(["coco", gt, dt, "--iou-type", "keypoints", option, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = captured.err.strip()
    assert "\n" not in line
    assert "Traceback" not in line
    assert line.startswith(f"prcurve: error: {option}: not defined for keypoints (OKS)")
    assert "--iou-type bbox" in line
    assert not out.exists()  # refused before anything is read or written


@pytest.mark.parametrize("iou_type", ["segm", "keypoints"])
def test_several_files_and_intervals(iou_type: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    seed = 9 if iou_type == "segm" else 5
    gt, a = _write(tmp_path, iou_type, seed, "first")
    ground_truth, results = _case(iou_type, seed)
    worse = [dict(r, score=1.0 - r["score"]) for r in results]  # the ranking reversed
    b = tmp_path / "second.json"
    b.write_text(json.dumps(worse))
    out = tmp_path / "out"
    assert main(["coco", gt, a, str(b), "--iou-type", iou_type, "--json", "--bootstrap", "30",
                 "--out", str(out)]) == 0
    combined = json.loads(capsys.readouterr().out)
    for name, rows in (("first", results), ("second", worse)):
        reference, _ = pycocotools_eval(ground_truth, rows, None, iou_type)
        detector = combined["detectors"][name]
        np.testing.assert_array_equal(list(detector["stats"].values()), reference.stats)
        # The bootstrap's estimate is the statistic pycocotools prints, to the last bit.
        assert detector["intervals"]["mAP"]["estimate"] == reference.stats[0]
        assert detector["intervals"]["AP50"]["estimate"] == reference.stats[1]
        interval = detector["intervals"]["mAP"]
        assert interval["lower"] <= interval["estimate"] <= interval["upper"]
    comparison = combined["comparison"]
    assert comparison["models"] == ["first", "second"]
    assert {r["measure"] for r in comparison["rows"]} == {"mAP", "AP50"}
    assert all(r["b"] == "second" for r in comparison["rows"])
    files = json.loads((out / "report.json").read_text())["files"]
    assert "pr_classes_first.png" in files
    assert "pr_classes_second.png" in files


@pytest.mark.parametrize(("iou_type", "seed", "kind"), [("segm", 1, "mask IoU"),
                                                        ("keypoints", 0, "OKS")])
def test_notebook_display_names_the_similarity(iou_type: str, seed: int, kind: str) -> None:
    evaluation = evaluate_coco(*_case(iou_type, seed), iou_type=iou_type)
    shown = evaluation._repr_html_()
    assert f"COCO evaluation ({kind})" in shown
    assert "<table" in shown
    first = evaluation.summary().splitlines()[0]
    assert first.replace("(", "").split("=")[-1].strip() in shown
    for row in evaluation.to_dict()["per_category"][:5]:
        assert str(row["name"]) in shown


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
def test_lvis_out_json_per_class_equal_lvis_api(iou_type: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = write_case(tmp_path, lvis_case(3, segm=iou_type == "segm"))
    out = tmp_path / "out"
    assert main(["lvis", str(gt), str(dt), "--iou-type", iou_type, "--json", "--out",
                 str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    reference, lines = lvis_eval(gt, dt, iou_type)
    report = json.loads((out / "report.json").read_text())
    assert report["summary"] == printed["summary"] == lines
    precision = reference.eval["precision"]  # (T, R, K, A)
    thresholds = list(np.round(reference.params.iou_thrs, 2))
    expected = {c: {"AP": _category_ap(precision[:, :, k, 0]),
                    "AP50": _category_ap(precision[thresholds.index(0.5), :, k, 0]),
                    "AP75": _category_ap(precision[thresholds.index(0.75), :, k, 0])}
                for k, c in enumerate(reference.params.cat_ids)}
    _assert_rows(report["per_category"], expected)
    with (out / "per_class.csv").open(newline="") as file:
        _assert_rows(list(csv.DictReader(file)), expected)
    assert sorted(report["files"]) == ["per_class.csv", "pr_classes.png", "pr_iou.png",
                                       "report.json"]
    assert main(["lvis", str(gt), str(dt), "--iou-type", iou_type, "--per-class"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[:len(lines)] == lines
    assert "best F1" in text


def test_plots_name_the_similarity() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for iou_type, seed, kind in (("segm", 9, "mask IoU"), ("keypoints", 5, "OKS")):
        evaluation = evaluate_coco(*_case(iou_type, seed), iou_type=iou_type)
        assert f"({kind})" in evaluation.plot_iou_curves().axes[0].get_title()
        classes = evaluation.plot_class_curves()
        assert f"at {kind} >= 0.5" in " ".join(classes.get_suptitle().split())
        if iou_type == "segm":
            confusion = evaluation.confusion_matrix()
            assert confusion.plot().axes[0].get_title().startswith("mask IoU >= 0.5")
            assert confusion.text().startswith("Confusion matrix (mask IoU >= 0.5")
            assert "AP @ mask IoU 0.5" in evaluation.errors().plot().axes[0].get_title()
        plt.close("all")


def test_lvis_and_voc_notebook_display(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from prcurve.detection import evaluate_lvis, evaluate_voc

    gt, dt = write_case(tmp_path, lvis_case(3, segm=True))
    lvis = evaluate_lvis(gt, dt, iou_type="segm")
    shown = lvis._repr_html_()
    assert "LVIS evaluation (mask IoU)" in shown
    assert "catIds=  r]" in shown  # lvis-api's printed lines
    assert "<table" in shown
    title = lvis.coco.plot_iou_curves().axes[0].get_title()
    assert title.startswith("LVIS interpolated precision")
    assert "(mask IoU)" in title
    plt.close("all")
    ground_truth, results = segm_case(9)
    voc = evaluate_voc({**ground_truth, "annotations": [
        {k: v for k, v in a.items() if k != "segmentation"} for a in ground_truth["annotations"]]},
        [dict(r, bbox=[0, 0, 10, 10]) for r in results])
    assert "VOC evaluation (box IoU)" in voc._repr_html_()

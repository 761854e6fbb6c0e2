"""``prcurve coco`` and ``prcurve voc``: pycocotools' 12 lines, JSON, output files, errors.

Every bad input the issue lists (malformed JSON with its position, negative
or NaN box sizes, non-finite scores, detections naming images or categories
absent from the ground truth, duplicate annotation ids, segmentation) ends
with exit status 2 and one line on standard error, never a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.test_detection_coco import pycocotools_eval, random_case, summary_lines

from prcurve.cli import main


def _write(folder: Path, ground_truth: Any, results: Any) -> tuple[str, str]:
    gt = folder / "instances.json"
    dt = folder / "results.json"
    gt.write_text(ground_truth if isinstance(ground_truth, str) else json.dumps(ground_truth))
    dt.write_text(results if isinstance(results, str) else json.dumps(results))
    return str(gt), str(dt)


@pytest.mark.parametrize("seed", [0, 1, 5, 11])
def test_coco_prints_pycocotools_summary(seed: int, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(seed)
    if not results:
        return
    gt, dt = _write(tmp_path, ground_truth, results)
    assert main(["coco", gt, dt]) == 0
    printed = capsys.readouterr()
    _, reference = pycocotools_eval(ground_truth, results)
    assert printed.out.splitlines() == summary_lines(reference)
    assert printed.err == ""


def test_coco_json_and_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(2)
    gt, dt = _write(tmp_path, ground_truth, results)
    out = tmp_path / "report"
    assert main(["coco", gt, dt, "--json", "--out", str(out), "--bootstrap", "30"]) == 0
    printed = capsys.readouterr()
    report = json.loads(printed.out)
    reference, _ = pycocotools_eval(ground_truth, results)
    assert [report["stats"][k] for k in report["stats"]] == pytest.approx(
        list(reference.stats), abs=1e-12)
    assert set(report["intervals"]) == {"mAP", "AP50"}
    assert sorted(p.name for p in out.iterdir()) == [
        "per_class.csv", "pr_classes.png", "pr_iou.png", "report.json"]
    assert json.loads((out / "report.json").read_text())["stats"] == report["stats"]
    header = (out / "per_class.csv").read_text().splitlines()[0]
    assert header.startswith("category_id,name,AP,AP50,AP75")
    assert "prcurve: wrote" in printed.err


def test_coco_per_class_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(3)
    gt, dt = _write(tmp_path, ground_truth, results)
    assert main(["coco", gt, dt, "--per-class"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[13].split()[:4] == ["category", "AP", "AP50", "AP75"]
    assert len(lines) == 12 + 2 + len(ground_truth["categories"]) + 1


def test_voc_prints_map_and_classes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(4)
    gt, dt = _write(tmp_path, ground_truth, results)
    assert main(["voc", gt, dt, "--ap-method", "11point", "--out", str(tmp_path / "v"),
                 "--no-plots"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(" mAP[11point] @ IoU>=0.50 = ")
    assert len(lines) == 1 + len(ground_truth["categories"])
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["per_class.csv",
                                                                  "report.json"]


def test_outputs_never_overwrite_an_input(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(4)
    (tmp_path / "report.json").write_text(json.dumps(ground_truth))
    dt = tmp_path / "dt.json"
    dt.write_text(json.dumps(results))
    before = (tmp_path / "report.json").read_text()
    code = main(["coco", str(tmp_path / "report.json"), str(dt), "--out", str(tmp_path),
                 "--no-plots"])
    assert code == 2
    assert "holds the input" in capsys.readouterr().err
    assert (tmp_path / "report.json").read_text() == before


_GT = {"images": [{"id": 1}, {"id": 2}], "categories": [{"id": 1, "name": "cat"}],
       "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10],
                        "area": 100, "iscrowd": 0},
                       {"id": 2, "image_id": 2, "category_id": 1, "bbox": [5, 5, 10, 10],
                        "area": 100, "iscrowd": 0}]}
_DT = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]


def _with(**changes: Any) -> dict[str, Any]:
    annotation = dict(_GT["annotations"][0], **changes)
    return dict(_GT, annotations=[annotation, _GT["annotations"][1]])


@pytest.mark.parametrize(("ground_truth", "results", "message"), [
    ('{"images": [],\n "annotations": [}', _DT, "not valid JSON: .* at line 2, column 18"),
    (_GT, '[{"image_id": 1, "score": 0.5,}]', "not valid JSON: .* line 1, column 31"),
    (_GT, b"\xff\xfe".decode("latin-1"), "not UTF-8|not valid JSON"),
    (_with(bbox=[0, 0, -1, 10]), _DT, r"annotations\[0\]\['bbox'\] is \[0, 0, -1, 10\]"),
    (json.dumps(_with(bbox=[0, 0, 1, 10])).replace("[0, 0, 1, 10]", "[0, 0, NaN, 10]"), _DT,
     r"annotations\[0\]\['bbox'\] is \[0, 0, nan, 10\]"),
    (_GT, [dict(_DT[0], bbox=[0, 0, 10, -2])], r"results\[0\]\['bbox'\].*non-negative"),
    (_GT, json.dumps(_DT).replace("0.9", "NaN"), r"results\[0\]\['score'\] is nan"),
    (_GT, json.dumps(_DT).replace("0.9", "Infinity"), r"results\[0\]\['score'\] is inf"),
    (_GT, [dict(_DT[0], score="high")], r"results\[0\]\['score'\] is 'high'"),
    (_GT, [dict(_DT[0], image_id=3)], "images absent from the ground truth: 3"),
    (_GT, [dict(_DT[0], category_id=9)], "categories absent from the ground truth: 9"),
    (_with(id=2), _DT, "duplicate annotation ids: 2"),
    (_with(image_id=7), _DT, "images absent from the file's 'images': 7"),
    (_GT, [{"image_id": 1, "category_id": 1, "segmentation": [[0, 0, 1, 1]], "score": 1}],
     r"results\[0\]\['segmentation'\] is \[\[0, 0, 1, 1\]\].*run-length encoding"),
    (_GT, [{"image_id": 1, "category_id": 1, "score": 1,
            "segmentation": {"size": [2, 2], "counts": [0, 4]}}],
     "'segmentation' but no 'bbox'.*iou_type='segm'"),
    (_GT, [_DT[0], {"image_id": 1, "category_id": 1, "score": 1,
                    "segmentation": {"size": [2, 2], "counts": [0, 4]}}],
     r"results\[1\] has a 'segmentation' but no 'bbox'.*--iou-type segm"),
    (_GT, [{"image_id": 1, "category_id": 1, "score": 0.5}], r"results\[0\] has no 'bbox'"),
    (_GT, {"annotations": _DT}, "expected a COCO results list"),
    (_DT, _DT, "expected a COCO ground-truth object"),
    (_with(iscrowd=2), _DT, r"annotations\[0\]\['iscrowd'\] is 2"),
    (_with(image_id="1"), _DT,
     r"annotations\[1\]\['image_id'\] is 2 while annotations\[0\]\['image_id'\] is '1'"),
])
def test_bad_input_is_one_line_and_exit_2(ground_truth: Any, results: Any, message: str,
                                          tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _write(tmp_path, ground_truth, results)
    assert main(["coco", gt, dt]) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1, printed.err
    assert lines[0].startswith("prcurve: error: ")
    assert "Traceback" not in printed.err
    assert re.search(message, lines[0]), lines[0]


@pytest.mark.parametrize(("options", "message"), [
    (["--iou-type", "keypoints"], "ground_truth: no 'keypoints'"),
    (["--iou-type", "segm"], "annotations[0] has no 'segmentation'"),
    (["--bootstrap", "0"], "--bootstrap: expected an integer >= 1"),
    (["--bootstrap", "10", "--level", "1"], "--level: expected a number in"),
])
def test_bad_options(options: list[str], message: str, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _write(tmp_path, _GT, _DT)
    assert main(["coco", gt, dt, *options]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coco", str(tmp_path / "gt.json"), str(tmp_path / "dt.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["voc", str(tmp_path / "gt.json"), str(tmp_path / "dt.json"),
                 "--iou-threshold", "2"]) == 2
    assert "--iou-threshold" in capsys.readouterr().err


def test_voc_bootstrap_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth, results = random_case(4)
    gt, dt = _write(tmp_path, ground_truth, results)
    assert main(["voc", gt, dt, "--bootstrap", "20", "--interval", "basic", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["intervals"]["mAP"]["method"] == "basic bootstrap (images)"
    assert report["intervals"]["mAP"]["n_resamples"] == 20
    assert main(["voc", gt, dt, "--bootstrap", "20"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(" mAP   ")

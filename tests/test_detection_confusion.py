"""The detection confusion matrix against a slow, readable oracle of its documented rule;
its plot; and `prcurve coco --errors/--confusion` (exit codes, JSON keys, one-line errors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_detection_coco import random_case
from tests.test_detection_segm import segm_case
from tests.test_detection_tide import realistic_case

from prcurve.cli.main import main
from prcurve.detection import evaluate_coco
from prcurve.errors import InvalidInputError

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


def box_iou(d: list[float], g: list[float], crowd: bool) -> float:
    """COCO's IoU of two [x, y, w, h] boxes (a crowd's union: the detection's area)."""
    w = min(d[0] + d[2], g[0] + g[2]) - max(d[0], g[0])
    h = min(d[1] + d[3], g[1] + g[3]) - max(d[1], g[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = d[2] * d[3] if crowd else d[2] * d[3] + g[2] * g[3] - inter
    return inter / union


def oracle(ground_truth: dict[str, Any], results: list[dict[str, Any]], iou_threshold: float,
           score_threshold: float, iou: Any = None) -> np.ndarray:
    """The rule of prcurve.detection.confusion, one image and one detection at a time."""
    iou = iou or (lambda d, g: box_iou(d["bbox"], g["bbox"], bool(g["iscrowd"])))
    categories = sorted(c["id"] for c in ground_truth["categories"])
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    matrix = np.zeros((k + 1, k + 1), dtype=np.int64)
    for image in [im["id"] for im in ground_truth["images"]]:
        objects = [a for a in ground_truth["annotations"]
                   if a["image_id"] == image and not a["iscrowd"]]
        crowds = [a for a in ground_truth["annotations"]
                  if a["image_id"] == image and a["iscrowd"]]
        dets = [r for r in results if r["image_id"] == image and r["score"] >= score_threshold]
        dets = sorted(dets, key=lambda r: -r["score"])  # stable: ties keep file order
        taken = [False] * len(objects)
        for det in dets:
            best, best_iou = None, iou_threshold
            for j, obj in enumerate(objects):
                value = iou(det, obj)
                if not taken[j] and value >= best_iou and (best is None or value > best_iou):
                    best, best_iou = j, value
            if best is not None:
                taken[best] = True
                matrix[index[objects[best]["category_id"]], index[det["category_id"]]] += 1
            elif any(c["category_id"] == det["category_id"] and iou(det, c) >= iou_threshold
                     for c in crowds):
                continue
            else:
                matrix[k, index[det["category_id"]]] += 1
        for j, obj in enumerate(objects):
            if not taken[j]:
                matrix[index[obj["category_id"]], k] += 1
    return matrix


@pytest.mark.parametrize("seed", range(25))
def test_random_cases_equal_the_oracle(seed: int) -> None:
    ground_truth, results = random_case(seed)
    rng = np.random.default_rng(seed)
    t, s = float(rng.choice([0.3, 0.5, 0.75])), float(rng.choice([0.0, 0.3, 0.5, 0.9]))
    ours = evaluate_coco(ground_truth, results).confusion_matrix(iou_threshold=t,
                                                                 score_threshold=s)
    assert np.array_equal(ours.matrix, oracle(ground_truth, results, t, s))


@pytest.mark.parametrize("seed", range(4))
def test_mask_cases_equal_the_oracle(seed: int) -> None:
    import pycocotools.mask as coco_mask

    ground_truth, results = segm_case(seed)
    sizes = {im["id"]: (im["height"], im["width"]) for im in ground_truth["images"]}

    def rle(value: Any, image: Any) -> Any:
        h, w = sizes[image]
        if isinstance(value, list):
            return coco_mask.merge(coco_mask.frPyObjects(value, h, w))
        if isinstance(value["counts"], list):
            return coco_mask.frPyObjects(value, h, w)
        return value

    def iou(d: dict[str, Any], g: dict[str, Any]) -> float:
        found = coco_mask.iou([rle(d["segmentation"], d["image_id"])],
                              [rle(g["segmentation"], g["image_id"])], [g["iscrowd"]])
        return float(found[0][0])

    ours = evaluate_coco(ground_truth, results, iou_type="segm").confusion_matrix(
        iou_threshold=0.5, score_threshold=0.2)
    assert np.array_equal(ours.matrix, oracle(ground_truth, results, 0.5, 0.2, iou))


@settings(deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_rows_and_columns_count_every_object_and_kept_detection(seed: int, t: float,
                                                                 s: float) -> None:
    ground_truth, results = random_case(seed, max_images=6, max_categories=3)
    m = evaluate_coco(ground_truth, results).confusion_matrix(iou_threshold=t,
                                                              score_threshold=s).matrix
    objects = sum(1 for a in ground_truth["annotations"] if not a["iscrowd"])
    kept = sum(1 for r in results if r["score"] >= s)
    assert m[:-1].sum() == objects  # every object once: matched or missed
    assert m[:, :-1].sum() <= kept  # every kept detection at most once (crowds drop some)
    assert m[-1, -1] == 0
    assert np.array_equal(m, oracle(ground_truth, results, t, s))


def test_text_json_and_plot(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ground_truth, results = realistic_case()
    cm = evaluate_coco(ground_truth, results).confusion_matrix(score_threshold=0.0)
    text = cm.text()
    assert "background" in text
    assert "c1" in text
    data = cm.to_dict()
    assert data["labels"][-1] == "background"
    assert len(data["matrix"]) == len(data["labels"]) == 6
    figure = cm.plot()
    assert figure.axes[0].get_xlabel() == "detections"
    figure.savefig(tmp_path / "cm.png")
    plt.close(figure)
    with pytest.raises(InvalidInputError, match="normalize"):
        cm.plot(normalize="rows")
    with pytest.raises(InvalidInputError, match="iou_threshold"):
        evaluate_coco(ground_truth, results).confusion_matrix(iou_threshold=-0.1)


# -- the CLI ------------------------------------------------------------------------------


def _files(tmp_path: Path) -> tuple[str, str]:
    ground_truth, results = realistic_case()
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    return str(gt_path), str(dt_path)


def test_cli_json_has_errors_and_confusion(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _files(tmp_path)
    assert main(["coco", gt, dt, "--errors", "--confusion", "--confusion-score", "0",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["errors"]["main"]) == ["Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"]
    assert list(report["errors"]["special"]) == ["FalsePos", "FalseNeg"]
    errors = evaluate_coco(*realistic_case()).errors()
    assert report["errors"]["main"]["Loc"] == pytest.approx(errors.main["Loc"])
    assert report["confusion"]["labels"][-1] == "background"
    assert report["confusion"]["score_threshold"] == 0.0


def test_cli_text_and_out_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt, dt = _files(tmp_path)
    out = tmp_path / "out"
    assert main(["coco", gt, dt, "--errors", "--confusion", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Main errors (dAP)" in printed
    assert "Confusion matrix" in printed
    assert (out / "confusion.png").is_file()
    assert (out / "errors.png").is_file()
    assert "errors" in json.loads((out / "report.json").read_text())


@pytest.mark.parametrize(("extra", "message"), [
    (["--confusion", "--confusion-iou", "1.5"], "--confusion-iou"),
    (["--confusion", "--confusion-score", "x"], "--confusion-score"),
])
def test_cli_bad_settings_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       extra: list[str], message: str) -> None:
    gt, dt = _files(tmp_path)
    assert main(["coco", gt, dt, *extra]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert message in lines[0]
    assert "Traceback" not in captured.err


def test_cli_errors_refuse_keypoints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    person = {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100,
              "iscrowd": 0, "keypoints": [5, 5, 2] * 17, "num_keypoints": 17}
    ground_truth = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "person"}],
                    "annotations": [person]}
    results = [{"image_id": 1, "category_id": 1, "keypoints": [5, 5, 1] * 17, "score": 0.9}]
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    code = main(["coco", str(gt_path), str(dt_path), "--iou-type", "keypoints", "--errors"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "iou_type" in err[0]

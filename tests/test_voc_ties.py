"""Issue 25, item 6: VOC's tied scores walked in file order, as the devkit does.

The oracle is a slow, readable port of the PASCAL VOC devkit's ``VOCevaldet.m`` and
``VOCap.m`` (Everingham et al., "The PASCAL Visual Object Classes (VOC) Challenge"):
per class, the detections of the results file sorted by ``[sc, si] = sort(-confidence)``
(MATLAB's sort is stable: tied detections keep their order in the file), each matched
to the ground truth of its image of highest overlap (pixels counted inclusively, the
first on ties), a hit on a difficult object neither TP nor FP, a second hit a FP;
then the all-point AP of the interpolated precision (VOC 2010+) or the mean of the
maximal precision at recall >= 0, 0.1, ..., 1 (VOC 2007; levels k/10 here, as
prcurve's: docs/detection.md notes MATLAB's 0:0.1:1).

The Python port that circulates (py-faster-rcnn's ``voc_eval``) sorts with
``np.argsort(-confidence)``, numpy's default introsort, which is not stable: its tie
order depends on the numpy build (test_numpy_default_argsort_is_not_the_devkit_order).
``ties="file-order"`` reproduces the devkit's stable order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.cli import main
from prcurve.detection import bootstrap_detection, evaluate_voc
from prcurve.errors import InvalidInputError

# -- the oracle: VOCevaldet.m and VOCap.m, line by line ---------------------------------------


def _devkit_ap(gt: dict[str, Any], results: list[dict[str, Any]], category: Any,
               use_07_metric: bool = False, min_overlap: float = 0.5) -> float:
    objects: dict[Any, list[dict[str, Any]]] = {}
    for a in gt["annotations"]:
        if a["category_id"] == category:
            x, y, w, h = a["bbox"]
            objects.setdefault(a["image_id"], []).append(
                {"bb": [x, y, x + w, y + h], "diff": bool(a.get("difficult", 0)),
                 "det": False})
    npos = sum(not o["diff"] for objs in objects.values() for o in objs)
    dets = [d for d in results if d["category_id"] == category]  # in file order
    confidence = [d["score"] for d in dets]
    si = sorted(range(len(dets)), key=lambda i: -confidence[i])  # stable, as MATLAB's sort
    tp = [0] * len(dets)
    fp = [0] * len(dets)
    for d, i in enumerate(si):
        x, y, w, h = dets[i]["bbox"]
        bb = [x, y, x + w, y + h]
        ovmax, jmax = -math.inf, -1
        for j, o in enumerate(objects.get(dets[i]["image_id"], [])):
            bbgt = o["bb"]
            bi = [max(bb[0], bbgt[0]), max(bb[1], bbgt[1]), min(bb[2], bbgt[2]),
                  min(bb[3], bbgt[3])]
            iw = bi[2] - bi[0] + 1
            ih = bi[3] - bi[1] + 1
            if iw > 0 and ih > 0:
                ua = ((bb[2] - bb[0] + 1) * (bb[3] - bb[1] + 1)
                      + (bbgt[2] - bbgt[0] + 1) * (bbgt[3] - bbgt[1] + 1) - iw * ih)
                ov = iw * ih / ua
                if ov > ovmax:
                    ovmax, jmax = ov, j
        if ovmax >= min_overlap:
            o = objects[dets[i]["image_id"]][jmax]
            if not o["diff"]:
                if not o["det"]:
                    tp[d] = 1
                    o["det"] = True
                else:
                    fp[d] = 1
        else:
            fp[d] = 1
    ctp = np.cumsum(tp, dtype=float)
    cfp = np.cumsum(fp, dtype=float)
    rec = ctp / npos
    with np.errstate(invalid="ignore"):
        prec = ctp / (cfp + ctp)  # NaN after only difficult hits: MATLAB's max skips NaN
    if use_07_metric:
        ap = 0.0
        for t in [k / 10 for k in range(11)]:
            above = prec[rec >= t]
            above = above[~np.isnan(above)]
            ap += (above.max() if above.size else 0.0) / 11
        return ap
    mrec = [0.0, *rec.tolist(), 1.0]
    mpre = [0.0, *prec.tolist(), 0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(v for v in (mpre[i], mpre[i + 1]) if not math.isnan(v)) if not (
            math.isnan(mpre[i]) and math.isnan(mpre[i + 1])) else math.nan
    return sum((mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec))
               if mrec[i] != mrec[i - 1])


# -- data with many ties ---------------------------------------------------------------------


@st.composite
def voc_data(draw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    n_images = draw(st.integers(1, 4))
    categories = [1, 2]
    annotations = []
    for image in range(n_images):
        for _ in range(draw(st.integers(0, 3))):
            x, y = draw(st.integers(0, 40)), draw(st.integers(0, 40))
            annotations.append({
                "id": len(annotations) + 1, "image_id": image,
                "category_id": draw(st.sampled_from(categories)),
                "bbox": [x, y, draw(st.integers(5, 20)), draw(st.integers(5, 20))],
                "area": 100.0, "iscrowd": 0, "difficult": int(draw(st.integers(0, 4)) == 0)})
    results = []
    for _ in range(draw(st.integers(1, 14))):
        image = draw(st.integers(0, n_images - 1))
        own = [a for a in annotations if a["image_id"] == image]
        if own and draw(st.booleans()):  # near a ground-truth box: hits and duplicates
            a = draw(st.sampled_from(own))
            x, y, w, h = a["bbox"]
            dx, dy = draw(st.integers(-3, 3)), draw(st.integers(-3, 3))
            box, category = [x + dx, y + dy, w, h], a["category_id"]
        else:
            box = [draw(st.integers(0, 40)), draw(st.integers(0, 40)), 10, 10]
            category = draw(st.sampled_from(categories))
        results.append({"image_id": image, "category_id": category, "bbox": box,
                        "score": draw(st.sampled_from([0.25, 0.5, 0.75]))})  # many ties
    gt = {"images": [{"id": i, "width": 64, "height": 64} for i in range(n_images)],
          "categories": [{"id": c, "name": f"c{c}"} for c in categories],
          "annotations": annotations}
    return gt, results


def _check_against_devkit(gt: dict[str, Any], results: list[dict[str, Any]],
                          method: str) -> None:
    evaluation = evaluate_voc(gt, results, ap_method=method, ties="file-order")
    for k, category in enumerate(evaluation.categories.tolist()):
        n_pos = sum(1 for a in gt["annotations"]
                    if a["category_id"] == category and not a["difficult"])
        got = float(evaluation.ap[0, k])
        if n_pos == 0:
            assert math.isnan(got)
            continue
        expected = _devkit_ap(gt, results, category, use_07_metric=method == "11point")
        assert got == pytest.approx(expected, abs=1e-12), (category, method)


@settings(max_examples=60, deadline=None)
@given(data=voc_data(), method=st.sampled_from(["interpolated", "11point"]))
def test_file_order_reproduces_the_devkit(data: tuple[dict[str, Any], list[dict[str, Any]]],
                                          method: str) -> None:
    gt, results = data
    _check_against_devkit(gt, results, method)
    # Reversed file order: the devkit's numbers for the reversed file.
    _check_against_devkit(gt, results[::-1], method)


@settings(max_examples=30, deadline=None)
@given(data=voc_data())
def test_grouped_and_file_order_agree_without_ties(
        data: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    gt, results = data
    distinct = [dict(r, score=1.0 - i / 100) for i, r in enumerate(results)]
    grouped = evaluate_voc(gt, distinct).ap
    walked = evaluate_voc(gt, distinct, ties="file-order").ap
    np.testing.assert_allclose(grouped, walked, atol=1e-12)


# One image, two objects; three detections tied at 0.5: a miss, then the two hits.
TIE_GT = {"images": [{"id": 1, "width": 99, "height": 99}],
          "categories": [{"id": 1, "name": "cat"}],
          "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9],
                           "area": 100, "iscrowd": 0},
                          {"id": 2, "image_id": 1, "category_id": 1, "bbox": [50, 50, 9, 9],
                           "area": 100, "iscrowd": 0}]}
TIE_DT = [{"image_id": 1, "category_id": 1, "bbox": [80, 80, 9, 9], "score": 0.5},
          {"image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9], "score": 0.5},
          {"image_id": 1, "category_id": 1, "bbox": [50, 50, 9, 9], "score": 0.5}]


def test_a_worked_tie() -> None:
    # Devkit: FP, TP, TP -> precision 0, 1/2, 2/3 at recall 0, 1/2, 1; the interpolated
    # precision is 2/3 everywhere: AP = 2/3. Grouped: one point (recall 1, precision 2/3),
    # AP = 2/3 too; 11-point is where they part: the walk's precision at recall 0 is 2/3.
    walked = evaluate_voc(TIE_GT, TIE_DT, ties="file-order")
    assert walked.ap[0, 0] == pytest.approx(2 / 3)
    assert walked.ap[0, 0] == pytest.approx(_devkit_ap(TIE_GT, TIE_DT, 1))
    # Hits first: TP, TP, FP -> AP 1.0 by the devkit; grouped still 2/3.
    first = [TIE_DT[1], TIE_DT[2], TIE_DT[0]]
    assert evaluate_voc(TIE_GT, first, ties="file-order").ap[0, 0] == pytest.approx(1.0)
    assert _devkit_ap(TIE_GT, first, 1) == pytest.approx(1.0)
    assert evaluate_voc(TIE_GT, first).ap[0, 0] == pytest.approx(2 / 3)
    assert evaluate_voc(TIE_GT, first).to_dict()["parameters"]["ties"] == "grouped"


def test_numpy_default_argsort_is_not_the_devkit_order() -> None:
    # Why the reference is the devkit's stable sort: numpy's default argsort (the Python
    # voc_eval's) may reorder ties (it does on this numpy for 40 values); ties="file-order"
    # follows kind="stable", MATLAB's order.
    confidence = np.array([0.5] * 20 + [0.9] * 20)
    stable = np.argsort(-confidence, kind="stable")
    assert stable.tolist() == list(range(20, 40)) + list(range(20))
    assert sorted(range(40), key=lambda i: -confidence[i]) == stable.tolist()


def test_bootstrap_refuses_a_file_order_evaluation() -> None:
    with pytest.raises(InvalidInputError, match="file-order"):
        bootstrap_detection(evaluate_voc(TIE_GT, TIE_DT, ties="file-order"), n_resamples=10)
    with pytest.raises(InvalidInputError, match="ties"):
        evaluate_voc(TIE_GT, TIE_DT, ties="stable")


# -- the command line ------------------------------------------------------------------------


def _files(tmp_path: Path, results: list[dict[str, Any]]) -> list[str]:
    (tmp_path / "gt.json").write_text(json.dumps(TIE_GT))
    (tmp_path / "dt.json").write_text(json.dumps(results))
    return [str(tmp_path / "gt.json"), str(tmp_path / "dt.json")]


@pytest.mark.parametrize("order", [[0, 1, 2], [1, 2, 0], [2, 0, 1]])
def test_cli_ties_file_order(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             order: list[int]) -> None:
    results = [TIE_DT[i] for i in order]
    files = _files(tmp_path, results)
    for method in ("interpolated", "11point"):
        code = main(["voc", *files, "--json", "--ties", "file-order", "--ap-method", method])
        out, err = capsys.readouterr()
        assert code == 0, err
        report = json.loads(out)
        assert report["parameters"]["ties"] == "file-order"
        expected = _devkit_ap(TIE_GT, results, 1, use_07_metric=method == "11point")
        assert report["mean_ap"]["0.5"] == pytest.approx(expected, abs=1e-12)
        code = main(["voc", *files, "--json", "--ap-method", method])
        grouped = json.loads(capsys.readouterr().out)
        assert grouped["parameters"]["ties"] == "grouped"  # the default
        assert grouped["mean_ap"]["0.5"] == pytest.approx(
            evaluate_voc(TIE_GT, results, ap_method=method).mean_ap[0])


def test_cli_ties_errors_and_help(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, TIE_DT)
    assert main(["voc", *files, "--ties", "stable"]) == 2
    assert "--ties" in capsys.readouterr().err
    assert main(["voc", *files, "--ties", "file-order", "--bootstrap", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--bootstrap" in err
    assert main(["voc", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--ties HOW" in text
    assert "file-order" in text
    assert "grouped (default" in text

"""Detection on Dask: partitions of images -> matched states -> merge, equal to in-memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from tests.test_detection_coco import random_case

from prcurve.dask import evaluate_detections
from prcurve.detection import Detections, GroundTruth, evaluate_coco, evaluate_voc
from prcurve.errors import InvalidInputError


def _frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    boxes = np.array([d["bbox"] for d in results]).reshape(-1, 4)
    return pd.DataFrame({"image_id": [d["image_id"] for d in results],
                         "category_id": [d["category_id"] for d in results],
                         "x": boxes[:, 0], "y": boxes[:, 1], "width": boxes[:, 2],
                         "height": boxes[:, 3], "score": [d["score"] for d in results]})


@pytest.mark.parametrize(("case", "partitions"), [(0, 1), (3, 3), (8, 5), (21, 7)])
def test_dask_equals_in_memory(case: int, partitions: int) -> None:
    ground_truth, results = random_case(case)
    if not results:
        return
    frame = _frame(results)
    expected = evaluate_coco(ground_truth, results)
    got = evaluate_detections(ground_truth, dd.from_pandas(frame, npartitions=partitions),
                              scheduler="sync")
    assert_array_equal(got.precision, expected.precision)
    assert_array_equal(got.recall, expected.recall)
    assert_array_equal(got.stats, expected.stats)
    assert got.n_images == expected.n_images


def test_dask_voc_in_worker_processes() -> None:
    ground_truth, results = random_case(4)
    frame = _frame(results)
    got = evaluate_detections(ground_truth, dd.from_pandas(frame, npartitions=3),
                              protocol="voc", scheduler="processes", num_workers=2)
    assert_array_equal(got.ap, evaluate_voc(ground_truth, results).ap)


def test_dask_from_parquet_with_xyxy_columns(tmp_path: Path) -> None:
    gt = GroundTruth([1, 1, 2], ["a", "b", "a"], [[0, 0, 10, 10], [5, 5, 9, 9], [0, 0, 4, 4]],
                     box_format="xyxy", images=[1, 2, 3])
    frame = pd.DataFrame({"img": [1, 2, 1], "cls": ["a", "a", "b"], "x1": [0.0, 0.0, 5.0],
                          "y1": [0.0, 0.0, 5.0], "x2": [10.0, 4.0, 8.0],
                          "y2": [10.0, 4.0, 9.0], "conf": [0.9, 0.5, 0.4]})
    frame.to_parquet(tmp_path / "dets.parquet")
    got = evaluate_detections(gt, str(tmp_path / "dets.parquet"), box_format="xyxy",
                              image="img", category="cls", score="conf", scheduler="sync")
    dt = Detections(frame.img, frame.cls, frame[["x1", "y1", "x2", "y2"]].to_numpy(),
                    frame.conf, box_format="xyxy")
    assert_array_equal(got.precision, evaluate_coco(gt, dt).precision)
    assert got.n_images == 3


def test_dask_errors() -> None:
    gt = GroundTruth([1], [1], [[0, 0, 1, 1]], images=[1])
    frame = pd.DataFrame({"image_id": [5], "category_id": [1], "x": [0.0], "y": [0.0],
                          "width": [1.0], "height": [1.0], "score": [0.5]})
    with pytest.raises(InvalidInputError, match="images absent from the ground truth"):
        evaluate_detections(gt, dd.from_pandas(frame, npartitions=1), scheduler="sync")
    with pytest.raises(InvalidInputError):
        evaluate_detections(gt, dd.from_pandas(frame.drop(columns="score"), npartitions=1),
                            scheduler="sync")

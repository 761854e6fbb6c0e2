"""Masks (segm) and keypoints on Dask: equal to the in-memory ``evaluate_coco`` bit for bit.

The random cases of tests/test_detection_segm.py (polygon ground truth, crowd
RLEs, compressed-RLE results with and without boxes) and of
tests/test_detection_keypoints.py (results with and without boxes), as the
frames users hold: a column of RLE dicts (as ``pd.DataFrame(results)`` and
Parquet's struct column give), or compressed strings with height and width
columns; keypoints as lists. Run with ``scheduler="sync"`` and on a real
LocalCluster of two worker processes. ``evaluate_coco`` itself equals
pycocotools (those files' tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from tests.test_detection_keypoints import keypoint_case
from tests.test_detection_segm import segm_case

from prcurve.dask import evaluate_detections
from prcurve.detection import COCOProtocol, evaluate_coco
from prcurve.errors import InvalidInputError

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

# pycocotools' decode has an __array__ without numpy 2's copy keyword (a warning).
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")

SEGM = COCOProtocol(iou_type="segm")
KEYPOINTS = COCOProtocol(iou_type="keypoints")


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _frame(results: list[dict[str, Any]], *, strings: bool = False) -> pd.DataFrame:
    """The results as a table: the box as x, y, width, height when they have one."""
    frame = pd.DataFrame(results)
    if "bbox" in frame:
        box = np.array(frame["bbox"].tolist())
        frame = frame.drop(columns="bbox").assign(x=box[:, 0], y=box[:, 1], width=box[:, 2],
                                                  height=box[:, 3])
    if strings:
        frame = frame.assign(
            counts=[s["counts"] for s in frame["segmentation"]],
            mask_height=[s["size"][0] for s in frame["segmentation"]],
            mask_width=[s["size"][1] for s in frame["segmentation"]],
        ).drop(columns="segmentation")
    return frame


def _dask(frame: pd.DataFrame, partitions: int) -> Any:
    # Dask would turn a column of dicts or lists into their text (dataframe.convert-string).
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(frame, npartitions=partitions)


def _assert_same(got: Any, expected: Any) -> None:
    assert_array_equal(got.precision, expected.precision)
    assert_array_equal(got.recall, expected.recall)
    assert_array_equal(got.scores, expected.scores)
    assert_array_equal(got.stats, expected.stats)
    assert got.summary() == expected.summary()
    assert got.n_images == expected.n_images


SEGM_SEEDS = [9, 11, 1, 6, 0, 3]  # the smaller cases; 9, 11, 0: no boxes, 1, 6, 3: boxes


@pytest.mark.parametrize("seed", SEGM_SEEDS)
def test_segm_dicts_equal_in_memory(seed: int) -> None:
    ground_truth, results = segm_case(seed)
    expected = evaluate_coco(ground_truth, results, iou_type="segm")
    got = evaluate_detections(ground_truth, _dask(_frame(results), 1 + seed % 4),
                              protocol=SEGM, scheduler="sync")
    _assert_same(got, expected)


@pytest.mark.parametrize("seed", SEGM_SEEDS[:4])
def test_segm_strings_and_size_columns_equal_in_memory(seed: int) -> None:
    ground_truth, results = segm_case(seed)
    expected = evaluate_coco(ground_truth, results, iou_type="segm")
    frame = _frame(results, strings=True)
    got = evaluate_detections(ground_truth, dd.from_pandas(frame, npartitions=3),
                              protocol=SEGM, segmentation="counts",
                              mask_size=("mask_height", "mask_width"), scheduler="sync")
    _assert_same(got, expected)


def test_polygon_results_with_boxes_equal_in_memory(tmp_path: Path) -> None:
    ground_truth, results = segm_case(1)
    assert "bbox" in results[0]
    polygons = [dict(r, segmentation=[[r["bbox"][0], r["bbox"][1],
                                       r["bbox"][0] + r["bbox"][2], r["bbox"][1],
                                       r["bbox"][0], r["bbox"][1] + r["bbox"][3]]])
                for r in results]
    expected = evaluate_coco(ground_truth, polygons, iou_type="segm")
    got = evaluate_detections(ground_truth, _dask(_frame(polygons), 3), protocol=SEGM,
                              scheduler="sync")
    _assert_same(got, expected)
    _frame(polygons).to_parquet(tmp_path / "polygons.parquet")  # list<list<double>>
    got = evaluate_detections(ground_truth, str(tmp_path / "polygons.parquet"), protocol=SEGM,
                              scheduler="sync")
    _assert_same(got, expected)


def test_the_segm_cases_have_results_with_and_without_boxes() -> None:
    cases = [segm_case(s)[1] for s in SEGM_SEEDS]
    assert any("bbox" in r[0] for r in cases)
    assert any("bbox" not in r[0] for r in cases)


@pytest.mark.parametrize("seed", range(8))
def test_keypoints_equal_in_memory(seed: int) -> None:
    ground_truth, results = keypoint_case(seed)
    expected = evaluate_coco(ground_truth, results, iou_type="keypoints")
    got = evaluate_detections(ground_truth, _dask(_frame(results), 1 + seed % 5),
                              protocol=KEYPOINTS, scheduler="sync")
    _assert_same(got, expected)


@settings(max_examples=12, deadline=None)
@given(iou_type=st.sampled_from(["segm", "keypoints"]), seed=st.sampled_from([9, 11, 0, 1]),
       partitions=st.integers(1, 6), kept=st.integers(0, 2**16 - 1))
def test_any_partitioning_and_images_without_results_equal_in_memory(
        iou_type: str, seed: int, partitions: int, kept: int) -> None:
    """Whatever the partitions, and with some images' results all removed (those
    images are then evaluated with no detections), the numbers are the in-memory ones."""
    ground_truth, results = segm_case(seed) if iou_type == "segm" else keypoint_case(seed)
    images = sorted({r["image_id"] for r in results}, key=str)
    dropped = {image for i, image in enumerate(images) if not kept >> (i % 16) & 1}
    chosen = [r for r in results if r["image_id"] not in dropped] or results[:1]
    expected = evaluate_coco(ground_truth, chosen, iou_type=iou_type)
    got = evaluate_detections(ground_truth, _dask(_frame(chosen), partitions),
                              protocol=COCOProtocol(iou_type=iou_type), scheduler="sync")
    _assert_same(got, expected)


def test_the_keypoint_cases_have_results_with_and_without_boxes() -> None:
    cases = [keypoint_case(s)[1] for s in range(8)]
    assert any("bbox" in r[0] for r in cases)
    assert any("bbox" not in r[0] for r in cases)


def test_the_box_path_ignores_mask_and_keypoint_columns() -> None:
    ground_truth, results = keypoint_case(next(s for s in range(8)
                                               if "bbox" in keypoint_case(s)[1][0]))
    boxes_only = [{k: v for k, v in r.items() if k != "keypoints"} for r in results]
    got = evaluate_detections(ground_truth, _dask(_frame(results), 2), scheduler="sync")
    _assert_same(got, evaluate_coco(ground_truth, boxes_only))


def test_errors_are_one_clear_line() -> None:
    ground_truth, results = segm_case(SEGM_SEEDS[0])
    frame = _frame(results)
    # Dask's default turns the dicts into their text: refused, with the way out.
    with pytest.raises(InvalidInputError, match="convert-string"):
        evaluate_detections(ground_truth, dd.from_pandas(frame, npartitions=2), protocol=SEGM,
                            scheduler="sync")
    with pytest.raises(InvalidInputError, match="mask_size"):
        evaluate_detections(ground_truth, _dask(frame, 2), protocol=SEGM, mask_size="height",
                            scheduler="sync")
    with pytest.raises(InvalidInputError, match="segmentation"):
        evaluate_detections(ground_truth, _dask(frame.drop(columns="segmentation"), 2),
                            protocol=SEGM, scheduler="sync")
    bad = frame.assign(segmentation=[dict(s, size=[1, 1]) for s in frame["segmentation"]])
    with pytest.raises(InvalidInputError):
        evaluate_detections(ground_truth, _dask(bad, 2), protocol=SEGM, scheduler="sync")
    ground_truth, results = keypoint_case(1)
    frame = _frame(results)
    with pytest.raises(InvalidInputError, match="convert-string"):
        evaluate_detections(ground_truth, dd.from_pandas(frame, npartitions=2),
                            protocol=KEYPOINTS, scheduler="sync")
    short = frame.assign(keypoints=[k[:-1] for k in frame["keypoints"]])
    with pytest.raises(InvalidInputError, match="keypoints"):
        evaluate_detections(ground_truth, _dask(short, 2), protocol=KEYPOINTS,
                            scheduler="sync")


# -- on a cluster of two worker processes (the Client stays live to the end of the file) --


def test_segm_and_keypoints_from_parquet_on_a_local_cluster(client: object,
                                                            tmp_path: Path) -> None:
    seed = next(s for s in SEGM_SEEDS if "bbox" not in segm_case(s)[1][0])
    ground_truth, results = segm_case(seed)
    _frame(results).to_parquet(tmp_path / "masks.parquet")  # a struct column
    got = evaluate_detections(ground_truth, str(tmp_path / "masks.parquet"), protocol=SEGM)
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="segm"))
    _frame(results, strings=True).to_parquet(tmp_path / "strings.parquet")
    got = evaluate_detections(ground_truth, str(tmp_path / "strings.parquet"), protocol=SEGM,
                              segmentation="counts", mask_size=["mask_height", "mask_width"])
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="segm"))
    seed = next(s for s in range(8) if "bbox" not in keypoint_case(s)[1][0])
    ground_truth, results = keypoint_case(seed)
    _frame(results).to_parquet(tmp_path / "keypoints.parquet")  # a list<double> column
    got = evaluate_detections(ground_truth, str(tmp_path / "keypoints.parquet"),
                              protocol=KEYPOINTS)
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="keypoints"))


def test_segm_and_keypoints_in_memory_frames_on_a_local_cluster(client: object) -> None:
    ground_truth, results = segm_case(SEGM_SEEDS[1])
    got = evaluate_detections(ground_truth, _dask(_frame(results), 4), protocol=SEGM)
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="segm"))
    ground_truth, results = keypoint_case(3)
    got = evaluate_detections(ground_truth, _dask(_frame(results), 4), protocol=KEYPOINTS)
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="keypoints"))


def test_a_local_scheduler_while_a_client_is_live(client: object) -> None:
    ground_truth, results = keypoint_case(2)
    got = evaluate_detections(ground_truth, _dask(_frame(results), 3), protocol=KEYPOINTS,
                              scheduler="sync")
    _assert_same(got, evaluate_coco(ground_truth, results, iou_type="keypoints"))

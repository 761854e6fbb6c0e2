"""COCO and VOC evaluation of detections held in a Dask DataFrame (public as
:func:`prcurve.dask.evaluate_detections`).

The detections are shuffled so that each image lies in one partition; each
partition is matched against its images' ground truth in one task, and the
mergeable :class:`~prcurve.detection.DetectionState` of the partitions are
merged: images are independent, so the result equals the in-memory evaluation
(docs/detection.md). Dask is imported only when called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np

from prcurve.detection import Detections, DetectionState
from prcurve.detection.evaluate import as_ground_truth
from prcurve.detection.state import make_protocol
from prcurve.io.dask import dask_frame, need_dask
from prcurve.validation.arrays import check_choice
from prcurve.validation.keypoints import check_keypoints
from prcurve.validation.masks import check_mask_size_columns, column_of_strings

__all__ = ["evaluate_detections"]


_DETECTION_COLUMNS = {"xywh": ("x", "y", "width", "height"), "xyxy": ("x1", "y1", "x2", "y2")}
_ROW = "_prcurve_row"
_LOCAL_SCHEDULERS = ("sync", "synchronous", "single-threaded", "threads", "threading",
                     "processes", "multiprocessing")


def _number_rows(frame: Any, partition_info: dict[str, Any] | None = None) -> Any:
    """Tag each row with (partition, position): the input order, kept through a shuffle."""
    number = 0 if partition_info is None else int(partition_info["number"])
    return frame.assign(**{_ROW: (number << 32) + np.arange(len(frame), dtype=np.int64)})


@dataclass(frozen=True)
class _Columns:
    """Where a partition's detections are: the column names and what to read."""

    image: str
    category: str
    score: str
    boxes: tuple[str, ...]
    box_format: str
    iou_type: str = "bbox"
    segmentation: str = "segmentation"
    mask_size: tuple[str, str] | None = None
    keypoints: str = "keypoints"


def _plain_mask(value: Any) -> Any:
    """A mask as COCO JSON holds it: Parquet gives a struct's lists and list columns as
    numpy arrays (new objects; the frame is not modified)."""
    if isinstance(value, Mapping):
        return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in value.items()}
    if isinstance(value, np.ndarray):  # polygons read back from a list<list<double>> column
        return [np.asarray(p).tolist() for p in value]
    return value


def _masks(frame: Any, where: _Columns) -> list[Any]:
    """Every row's mask: an RLE dict (or polygons), or a compressed string and its size."""
    values = frame[where.segmentation].tolist()
    if where.mask_size is None:
        return [_plain_mask(v) for v in values]
    heights = frame[where.mask_size[0]].tolist()
    widths = frame[where.mask_size[1]].tolist()
    return [{"size": [h, w], "counts": v} for v, h, w in zip(values, heights, widths, strict=True)]


def _partition_detections(frame: Any, where: _Columns) -> Detections:
    """The partition's detections, read as :meth:`Detections.from_coco` reads results:
    boxes when the box columns are there, else the mask's or the keypoints' box and area."""
    image, category = frame[where.image].to_numpy(), frame[where.category].to_numpy()
    score = frame[where.score].to_numpy(dtype=np.float64)
    has_boxes = all(c in frame.columns for c in where.boxes)
    boxes = np.stack([frame[c].to_numpy(dtype=np.float64) for c in where.boxes],
                     axis=1) if has_boxes else None
    if where.iou_type == "segm":
        masks = _masks(frame, where)
        if boxes is not None:
            return Detections(image, category, boxes, score, box_format=where.box_format,
                              segmentation=masks)
        from prcurve.detection.mask_inputs import result_masks

        runs = result_masks(masks, "detections")
        decoded = runs.mask_set()
        return Detections(image, category, decoded.box, score,
                          area=decoded.area.astype(np.float64), segmentation=runs,
                          boxes_from_masks=True)
    if where.iou_type == "keypoints":
        points = check_keypoints(f"detections column {where.keypoints!r}",
                                 frame[where.keypoints].tolist(), len(frame), None)
        if boxes is not None:
            return Detections(image, category, boxes, score, box_format=where.box_format,
                              keypoints=points)
        from prcurve.detection.keypoints import result_boxes

        derived, area = result_boxes(points)
        return Detections(image, category, derived, score, area=area, keypoints=points)
    if boxes is None:  # pragma: no cover - the box columns are required for boxes
        raise TypeError("box columns missing")
    return Detections(image, category, boxes, score, box_format=where.box_format)


def _is_text(dtype: Any) -> bool:
    """pandas' string dtypes ("str", "string", "string[pyarrow]"); not object columns."""
    name = str(dtype)
    return name in ("str", "string") or name.startswith(("string[", "large_string["))


def _check_object_columns(meta: Any, iou_type: str, segmentation: str,
                          size: tuple[str, str] | None, keypoints: str) -> None:
    """Masks as dicts (or polygons) and keypoints as lists: never their text."""
    if iou_type == "segm" and size is None and _is_text(meta[segmentation].dtype):
        raise column_of_strings(segmentation, "COCO RLE dicts {'size': [h, w], 'counts': ...}",
                                "give mask_size=(height column, width column) if they are "
                                "compressed counts")
    if iou_type == "keypoints" and _is_text(meta[keypoints].dtype):
        raise column_of_strings(keypoints, "lists of 3K numbers [x1, y1, v1, ...]",
                                "give each row's keypoints as a list of numbers")


def _detection_partition(frame: Any, ground_truth: Any, protocol: Any,
                         where: _Columns) -> Any:
    """The matched state of one partition's images (each image wholly in the partition)."""
    if len(frame) == 0:
        return None
    # Back to the input order: it breaks ties between an image's detections.
    frame = frame.sort_values(_ROW, kind="stable")
    detections = _partition_detections(frame, where)
    images = np.unique(detections.image_id)
    return DetectionState.from_batch(ground_truth.for_images(images), detections, protocol)


def evaluate_detections(
    ground_truth: Any,
    detections: Any,
    *,
    protocol: Any = "coco",
    box_format: str = "xywh",
    image: str = "image_id",
    category: str = "category_id",
    score: str = "score",
    boxes: Sequence[str] | None = None,
    segmentation: str = "segmentation",
    mask_size: Sequence[str] | None = None,
    keypoints: str = "keypoints",
    **compute_kwargs: Any,
) -> Any:
    """COCO or VOC evaluation of detections held in a Dask DataFrame (or Parquet files).

    The detections (columns ``image``, ``category``, ``score`` and the four box
    columns: ``x, y, width, height`` for ``xywh``, ``x1, y1, x2, y2`` for
    ``xyxy``, or ``boxes``) are shuffled so that each image lies in one
    partition; each partition is matched against the ground truth of its
    images in one task (the ground truth, any form
    :func:`prcurve.detection.evaluate_coco` takes, is sent to the workers
    once); the partition states are merged, the images without detections
    are added, and the state is computed. Rows are tagged with their place in
    the input before the shuffle and each image's detections are put back in
    that order (COCO and VOC break ties between an image's detections by it).
    Images are independent, so the result equals the in-memory evaluation of
    the rows in partition order exactly. ``compute_kwargs`` go to
    ``dask.compute`` (e.g. ``scheduler="sync"``).

    Parameters
    ----------
    ground_truth : GroundTruth, path or dict
        Any form :func:`prcurve.detection.evaluate_coco` takes.
    detections : dask.dataframe.DataFrame, path or list of paths
        The detections, or Parquet files.
    protocol : {"coco", "voc"} or a protocol object, default "coco"
        ``COCOProtocol(iou_type="segm")`` for instance masks,
        ``COCOProtocol(iou_type="keypoints")`` for keypoints.
    box_format : {"xywh", "xyxy"}, default "xywh"
    image, category, score : str
        The column names.
    boxes : sequence of 4 str, optional
        The box columns (default by ``box_format``). Required for boxes; for
        ``segm`` and ``keypoints`` used when all present (or named), else each
        result's box and area come from its mask or keypoints, as
        :meth:`prcurve.detection.Detections.from_coco` takes them.
    segmentation : str, default "segmentation"
        For ``segm``: the column of each result's mask, a COCO RLE dict
        ``{"size": [h, w], "counts": ...}`` (as ``pd.DataFrame(results)`` and
        Parquet's struct columns hold it; polygons for results with boxes), or
        the compressed counts strings when ``mask_size`` is given.
    mask_size : (str, str), optional
        The height and width columns of compressed-string masks.
    keypoints : str, default "keypoints"
        For ``keypoints``: the column of each result's ``[x1, y1, v1, ...]``.
    **compute_kwargs
        For ``dask.compute``.

    Returns
    -------
    prcurve.detection.COCOEvaluation or prcurve.detection.VOCEvaluation

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from prcurve.dask import evaluate_detections
    >>> from prcurve.detection import Detections, GroundTruth, evaluate_coco
    >>> gt = GroundTruth([1, 2, 3], [1, 1, 1], [[0, 0, 10, 10]] * 3)
    >>> frame = pd.DataFrame({"image_id": [1, 2, 2], "category_id": [1, 1, 1],
    ...                       "x": [0.0, 0.0, 5.0], "y": [0.0, 1.0, 5.0],
    ...                       "width": [10.0] * 3, "height": [10.0] * 3,
    ...                       "score": [0.9, 0.8, 0.7]})
    >>> result = evaluate_detections(gt, dd.from_pandas(frame, npartitions=2),
    ...                              scheduler="sync")
    >>> whole = evaluate_coco(gt, Detections.from_table(frame))
    >>> bool((result.precision == whole.precision).all()), result.n_images
    (True, 3)
    """
    dask, _ = need_dask()
    chosen = make_protocol(protocol, {})
    fmt = check_choice("box_format", box_format, tuple(_DETECTION_COLUMNS))
    box_columns = tuple(boxes) if boxes is not None else _DETECTION_COLUMNS[fmt]
    iou_type = str(getattr(chosen, "iou_type", "bbox"))
    gt = as_ground_truth(ground_truth)
    columns, optional = [image, category, score], list(box_columns)
    size = None if mask_size is None else check_mask_size_columns(mask_size)
    if iou_type == "segm":
        columns += [segmentation, *(size or ())]
    elif iou_type == "keypoints":
        columns.append(keypoints)
    if iou_type == "bbox" or boxes is not None:  # boxes: always for bbox, else when named
        columns, optional = columns + optional, []
    frame = dask_frame(detections, columns, optional)
    _check_object_columns(frame._meta, iou_type, segmentation, size, keypoints)
    where = _Columns(image, category, score, box_columns, fmt, iou_type, segmentation, size,
                     keypoints)
    meta = frame._meta.assign(**{_ROW: np.zeros(0, dtype=np.int64)})
    # A live distributed Client makes Dask pick its p2p shuffle, which fails when the
    # graph then runs on a local scheduler (scheduler="sync"): shuffle by tasks there.
    local = compute_kwargs.get("scheduler") in _LOCAL_SCHEDULERS
    frame = frame.map_partitions(_number_rows, meta=meta).shuffle(
        on=image, shuffle_method="tasks" if local else None)
    shared = dask.delayed(gt)
    tasks = [dask.delayed(_detection_partition)(part, shared, chosen, where)
             for part in frame.to_delayed()]
    states = [s for s in dask.compute(*tasks, **compute_kwargs) if s is not None]
    state = reduce(lambda a, b: a.merge(b), states) if states else DetectionState(chosen)
    seen = np.concatenate([s.records.images for s in states]) if states else None
    everything = gt.images if gt.images is not None else np.unique(gt.image_id)
    rest = everything if seen is None or not seen.shape[0] else np.setdiff1d(everything, seen)
    if rest.shape[0]:
        empty = Detections(np.zeros(0, dtype=everything.dtype), np.zeros(0, dtype=np.int64),
                           np.zeros((0, 4)), np.zeros(0))
        state = state.merge(DetectionState.from_batch(gt.for_images(rest), empty, chosen))
    return state.compute()

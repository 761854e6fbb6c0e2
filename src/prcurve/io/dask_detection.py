"""COCO and VOC evaluation of detections held in a Dask DataFrame (public as
:func:`prcurve.dask.evaluate_detections`).

The detections are shuffled so that each image lies in one partition; each
partition is matched against its images' ground truth in one task, and the
mergeable :class:`~prcurve.detection.DetectionState` of the partitions are
merged: images are independent, so the result equals the in-memory evaluation
(docs/detection.md). Dask is imported only when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

import numpy as np

from prcurve.detection import Detections, DetectionState
from prcurve.detection.evaluate import as_ground_truth
from prcurve.detection.state import make_protocol
from prcurve.io.dask import _frame, _need_dask
from prcurve.validation.arrays import check_choice

__all__ = ["evaluate_detections"]


_DETECTION_COLUMNS = {"xywh": ("x", "y", "width", "height"), "xyxy": ("x1", "y1", "x2", "y2")}
_ROW = "_prcurve_row"


def _number_rows(frame: Any, partition_info: dict[str, Any] | None = None) -> Any:
    """Tag each row with (partition, position): the input order, kept through a shuffle."""
    number = 0 if partition_info is None else int(partition_info["number"])
    return frame.assign(**{_ROW: (number << 32) + np.arange(len(frame), dtype=np.int64)})


def _detection_partition(frame: Any, ground_truth: Any, protocol: Any, image: str,
                         category: str, score: str, boxes: tuple[str, ...],
                         box_format: str) -> Any:
    """The matched state of one partition's images (each image wholly in the partition)."""
    if len(frame) == 0:
        return None
    # Back to the input order: it breaks ties between an image's detections.
    frame = frame.sort_values(_ROW, kind="stable")
    detections = Detections(frame[image].to_numpy(), frame[category].to_numpy(),
                            np.stack([frame[c].to_numpy(dtype=np.float64) for c in boxes],
                                     axis=1), frame[score].to_numpy(dtype=np.float64),
                            box_format=box_format)
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
    dask, _ = _need_dask()
    chosen = make_protocol(protocol, {})
    fmt = check_choice("box_format", box_format, tuple(_DETECTION_COLUMNS))
    box_columns = tuple(boxes) if boxes is not None else _DETECTION_COLUMNS[fmt]
    gt = as_ground_truth(ground_truth)
    columns = [image, category, score, *box_columns]
    frame = _frame(detections, columns)
    meta = frame._meta.assign(**{_ROW: np.zeros(0, dtype=np.int64)})
    frame = frame.map_partitions(_number_rows, meta=meta).shuffle(on=image)
    shared = dask.delayed(gt)
    tasks = [dask.delayed(_detection_partition)(part, shared, chosen, image, category, score,
                                                box_columns, fmt)
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

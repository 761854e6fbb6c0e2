"""Ground truth and detections: validated, read-only arrays of boxes.

:class:`GroundTruth` holds the annotated boxes of a set of images and
:class:`Detections` a detector's scored boxes. Both are built from arrays,
from a DataFrame or pyarrow table (:meth:`~GroundTruth.from_table`), from
COCO JSON (:meth:`~GroundTruth.from_coco`, files or parsed objects) or from
per-image dicts as an evaluation loop has them (:meth:`~GroundTruth.from_images`).
Boxes are stored in COCO's layout ``[x, y, width, height]`` (float64);
``box_format="xyxy"`` converts ``[x1, y1, x2, y2]`` on the way in.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.arrow import primitive_numpy
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks

__all__ = ["Detections", "GroundTruth"]

F64 = NDArray[np.float64]


def _readonly(*arrays: NDArray[Any] | None) -> None:
    for array in arrays:
        if array is not None:
            array.setflags(write=False)


class GroundTruth:
    """The ground-truth boxes of a set of images.

    Parameters
    ----------
    image_id, category_id : array_like, shape (n,)
        Integer or string ids of each box's image and category.
    boxes : array_like, shape (n, 4)
        ``[x, y, width, height]`` (``box_format="xywh"``, COCO's layout) or
        ``[x1, y1, x2, y2]`` (``"xyxy"``); finite, with non-negative sizes.
    box_format : {"xywh", "xyxy"}, default "xywh"
    area : array_like, shape (n,), optional
        The area that COCO's area ranges test (COCO files carry the mask's
        area here, not the box's). Default: width * height of the box.
    iscrowd : array_like of {0, 1}, shape (n,), optional
        Crowd regions (COCO): never a miss; a detection matching one is
        ignored. Default all 0.
    difficult : array_like of {0, 1}, shape (n,), optional
        PASCAL VOC's difficult objects (used by the VOC protocol only).
    annotation_id : array_like, shape (n,), optional
        Distinct ids of the annotations; default 1, 2, ..., n.
    images : array_like, optional
        Every image of the set, including those without boxes. When given,
        detections on other images are an error; when None, the images are
        those that the boxes and the detections name.
    categories : array_like, optional
        Every category of the set. When given, boxes and detections of other
        categories are an error; when None, the categories the boxes and the
        detections name.
    category_names : mapping, optional
        Category id -> name, for tables and plots.
    segmentation : sequence, shape (n,), optional
        Each box's instance mask for ``iou_type="segm"``: COCO polygons (a
        list of ``[x1, y1, x2, y2, ...]``) or a run-length encoding (read
        when evaluated; :mod:`prcurve.detection.masks`).
    image_sizes : mapping, optional
        Image id -> ``(height, width)``: the grid masks are drawn on.
    keypoints : array_like, shape (n, 3K), optional
        ``[x1, y1, v1, ...]`` per object for ``iou_type="keypoints"``
        (``v > 0``: labeled); ``num_keypoints`` defaults to the labeled count.

    Examples
    --------
    >>> from prcurve.detection import GroundTruth
    >>> gt = GroundTruth([1, 1, 2], ["cat", "dog", "cat"],
    ...                  [[0, 0, 10, 10], [5, 5, 20, 20], [0, 0, 4, 4]], box_format="xyxy")
    >>> len(gt), gt.boxes[1].tolist(), gt.area.tolist()
    (3, [5.0, 5.0, 15.0, 15.0], [100.0, 225.0, 16.0])
    """

    __slots__ = ("annotation_id", "area", "boxes", "categories", "category_id",
                 "category_names", "difficult", "image_id", "image_sizes", "images", "iscrowd",
                 "keypoints", "num_keypoints", "segmentation")

    image_id: NDArray[Any]
    category_id: NDArray[Any]
    boxes: F64
    area: F64
    iscrowd: NDArray[np.bool_]
    difficult: NDArray[np.bool_]
    annotation_id: NDArray[Any]
    images: NDArray[Any] | None
    categories: NDArray[Any] | None
    category_names: dict[Any, str]
    segmentation: NDArray[Any] | None
    image_sizes: dict[Any, tuple[int, int]]
    keypoints: F64 | None
    num_keypoints: F64 | None

    def __init__(
        self,
        image_id: ArrayLike,
        category_id: ArrayLike,
        boxes: ArrayLike,
        *,
        box_format: str = "xywh",
        area: ArrayLike | None = None,
        iscrowd: ArrayLike | None = None,
        difficult: ArrayLike | None = None,
        annotation_id: ArrayLike | None = None,
        images: ArrayLike | None = None,
        categories: ArrayLike | None = None,
        category_names: Mapping[Any, str] | None = None,
        segmentation: Any = None,
        image_sizes: Mapping[Any, tuple[int, int]] | None = None,
        keypoints: ArrayLike | None = None,
        num_keypoints: ArrayLike | None = None,
    ) -> None:
        image = _checks.check_ids("image_id", image_id)
        n = image.shape[0]
        category = _checks.check_ids("category_id", category_id, n)
        box = _checks.check_boxes("boxes", boxes, box_format, n)
        areas = box[:, 2] * box[:, 3] if area is None else _checks.check_areas("area", area, n)
        crowd = _checks.check_flags("iscrowd", iscrowd, n)
        hard = _checks.check_flags("difficult", difficult, n)
        if annotation_id is None:
            ids: NDArray[Any] = np.arange(1, n + 1, dtype=np.int64)
        else:
            ids = _checks.check_ids("annotation_id", annotation_id, n)
            _checks.check_unique("annotation_id", ids, "annotation")
        image_list = None
        if images is not None:
            image_list = _checks.check_ids("images", images)
            _checks.check_same_id_kind("images", image_list, "image_id", image)
            _checks.check_unique("images", image_list, "image")
            _checks.check_known("image_id", image, image_list, "images", "images")
        category_list = None
        if categories is not None:
            category_list = _checks.check_ids("categories", categories)
            _checks.check_same_id_kind("categories", category_list, "category_id", category)
            _checks.check_unique("categories", category_list, "category")
            _checks.check_known("category_id", category, category_list, "categories",
                                "categories")
        self._set(image, category, box, areas, crowd, hard, ids, image_list, category_list,
                  dict(category_names or {}))
        self.segmentation = _checks.check_objects("segmentation", segmentation, n)
        self.image_sizes = dict(image_sizes or {})
        self.keypoints = None if keypoints is None else _keypoint_checks.check_keypoints(
            "keypoints", keypoints, n, None)
        self.num_keypoints = None if self.keypoints is None else (
            (self.keypoints[:, 2::3] > 0).sum(axis=1).astype(np.float64)
            if num_keypoints is None else _checks.check_areas("num_keypoints", num_keypoints, n))

    def _set(self, image: NDArray[Any], category: NDArray[Any], box: F64, area: F64,
             crowd: NDArray[np.bool_], hard: NDArray[np.bool_], ids: NDArray[Any],
             images: NDArray[Any] | None, categories: NDArray[Any] | None,
             names: dict[Any, str]) -> None:
        _readonly(image, category, box, area, crowd, hard, ids, images, categories)
        self.image_id = image
        self.category_id = category
        self.boxes = box
        self.area = area
        self.iscrowd = crowd
        self.difficult = hard
        self.annotation_id = ids
        self.images = images
        self.categories = categories
        self.category_names = names

    def __len__(self) -> int:
        return int(self.image_id.shape[0])

    def __repr__(self) -> str:
        n_images = "?" if self.images is None else str(self.images.shape[0])
        return f"GroundTruth({len(self)} boxes, {n_images} images)"

    def select(self, rows: NDArray[Any], images: NDArray[Any] | None) -> GroundTruth:
        """The boxes at ``rows`` (a boolean mask or indices) and the image list ``images``."""
        out = GroundTruth.__new__(GroundTruth)
        out._set(self.image_id[rows], self.category_id[rows], self.boxes[rows], self.area[rows],
                 self.iscrowd[rows], self.difficult[rows], self.annotation_id[rows], images,
                 self.categories, self.category_names)
        out.segmentation = None if self.segmentation is None else self.segmentation[rows]
        out.image_sizes = self.image_sizes
        out.keypoints, out.num_keypoints = (None, None) if self.keypoints is None or (
            self.num_keypoints is None) else (self.keypoints[rows], self.num_keypoints[rows])
        return out

    def for_images(self, images: ArrayLike) -> GroundTruth:
        """The ground truth of some of the images (a batch of an evaluation loop).

        Examples
        --------
        >>> from prcurve.detection import GroundTruth
        >>> gt = GroundTruth([1, 2, 2], [7, 7, 8], [[0, 0, 1, 1]] * 3, images=[1, 2, 3])
        >>> part = gt.for_images([2, 3])
        >>> len(part), part.images.tolist()
        (2, [2, 3])
        """
        wanted = _checks.check_ids("images", images)
        _checks.check_unique("images", wanted, "image")
        if self.images is not None:
            _checks.check_known("images", wanted, self.images, "images", "the ground truth")
        return self.select(np.isin(self.image_id, wanted), wanted.copy())

    # -- other forms ---------------------------------------------------------------------

    @classmethod
    def from_coco(cls, source: str | Path | Mapping[str, Any]) -> GroundTruth:
        """From a COCO instances file (path) or its parsed JSON object.

        Reads ``images`` (ids), ``categories`` (ids and names) and
        ``annotations`` (``id``, ``image_id``, ``category_id``, ``bbox``;
        ``area``, ``iscrowd`` and ``difficult`` when present). Never modifies
        the object it is given.

        Examples
        --------
        >>> from prcurve.detection import GroundTruth
        >>> data = {"images": [{"id": 1}, {"id": 2}],
        ...         "categories": [{"id": 3, "name": "cat"}],
        ...         "annotations": [{"id": 9, "image_id": 1, "category_id": 3,
        ...                          "bbox": [10, 10, 20, 20], "area": 380, "iscrowd": 0}]}
        >>> gt = GroundTruth.from_coco(data)
        >>> gt.images.tolist(), gt.category_names, gt.area.tolist()
        ([1, 2], {3: 'cat'}, [380.0])
        """
        from prcurve.detection.coco_json import ground_truth_fields

        fields = ground_truth_fields(source)
        return cls(**fields)

    @classmethod
    def from_table(
        cls, table: Any, *, box_format: str = "xywh", columns: Mapping[str, Any] | None = None,
        images: ArrayLike | None = None, categories: ArrayLike | None = None,
        category_names: Mapping[Any, str] | None = None,
    ) -> GroundTruth:
        """From a pandas DataFrame, a pyarrow Table or a dict of columns.

        Columns (rename with ``columns={"image_id": "img", ...}``):
        ``image_id``, ``category_id``, the box as one ``bbox`` column of
        4-vectors or as ``x, y, width, height`` (``xywh``) or ``x1, y1, x2,
        y2`` (``xyxy``); optional ``area``, ``iscrowd``, ``difficult`` and
        ``id`` (the annotation id).

        Examples
        --------
        >>> import pandas as pd
        >>> from prcurve.detection import GroundTruth
        >>> frame = pd.DataFrame({"image_id": [1, 1], "category_id": [1, 2], "x": [0, 5],
        ...                       "y": [0, 5], "width": [10, 4], "height": [10, 4]})
        >>> GroundTruth.from_table(frame).area.tolist()
        [100.0, 16.0]
        """
        read = _TableReader(table, "ground_truth", columns)
        return cls(read.ids("image_id"), read.ids("category_id"), read.boxes(box_format),
                   box_format=box_format, area=read.optional("area"),
                   iscrowd=read.optional("iscrowd"), difficult=read.optional("difficult"),
                   annotation_id=read.optional("id"), images=images, categories=categories,
                   category_names=category_names)

    @classmethod
    def from_images(
        cls, targets: Sequence[Mapping[str, Any]], *, box_format: str = "xywh",
        image_ids: Sequence[Any] | None = None, categories: ArrayLike | None = None,
    ) -> GroundTruth:
        """From one dict per image: ``boxes`` (k, 4), ``labels`` (k,) and optionally
        ``iscrowd``, ``area``, ``difficult``, ``image_id`` (torchmetrics' target
        format; tensors work where ``numpy.asarray`` reads them).

        ``image_ids`` names the images in order (default: each dict's
        ``image_id``, else 0, 1, 2, ...). Every listed image is part of the set,
        with or without boxes.

        Examples
        --------
        >>> from prcurve.detection import GroundTruth
        >>> gt = GroundTruth.from_images([{"boxes": [[0, 0, 2, 2]], "labels": [1]},
        ...                               {"boxes": [], "labels": []}])
        >>> len(gt), gt.images.tolist()
        (1, [0, 1])
        """
        ids = _image_ids("ground_truth", targets, image_ids)
        parts = [_image_part("ground_truth", i, t, box_format,
                             ("iscrowd", "area", "difficult")) for i, t in enumerate(targets)]
        counts = [p["boxes"].shape[0] for p in parts]
        image = np.repeat(ids, counts) if len(ids) else ids

        def joined(key: str) -> NDArray[Any] | None:
            present = [p[key] is not None for p in parts]
            if not any(present):
                return None
            if not all(present):
                index = present.index(False)
                raise _checks.image_batch(
                    "ground_truth", index, f"has no {key!r} while other images have one",
                    f"give {key!r} for every image or for none")
            return np.concatenate([p[key] for p in parts]) if parts else None

        labels = joined("labels")
        return cls(image, np.zeros(0, np.int64) if labels is None else labels,
                   np.concatenate([p["boxes"] for p in parts]) if parts else np.zeros((0, 4)),
                   area=joined("area"), iscrowd=joined("iscrowd"),
                   difficult=joined("difficult"), images=ids, categories=categories)


class Detections:
    """A detector's scored boxes.

    Parameters
    ----------
    image_id, category_id : array_like, shape (n,)
        Integer or string ids of each detection's image and category.
    boxes : array_like, shape (n, 4)
        As for :class:`GroundTruth`.
    score : array_like, shape (n,)
        Finite confidence scores; higher is more confident.
    box_format : {"xywh", "xyxy"}, default "xywh"
    segmentation : sequence, shape (n,), optional
        Each detection's mask for ``iou_type="segm"`` (an RLE, or polygons).
    keypoints : array_like, shape (n, 3K), optional
        Each detection's keypoints for ``iou_type="keypoints"``.
    area : array_like, shape (n,), optional
        The area COCO's area ranges test for an unmatched detection; default
        the box's width * height (pycocotools' ``loadRes`` takes the mask's
        area only for results that have no ``bbox``).

    Examples
    --------
    >>> from prcurve.detection import Detections
    >>> dt = Detections([1, 1], [3, 3], [[0, 0, 10, 10], [1, 1, 5, 5]], [0.9, 0.4])
    >>> len(dt), dt.score.tolist()
    (2, [0.9, 0.4])
    """

    __slots__ = ("area", "boxes", "boxes_from_masks", "category_id", "image_id", "keypoints",
                 "score", "segmentation")

    image_id: NDArray[Any]
    category_id: NDArray[Any]
    boxes: F64
    score: F64
    area: F64
    segmentation: Any  # per-row objects (NDArray of object), decoded RunLengths, or None
    boxes_from_masks: bool
    keypoints: F64 | None

    def __init__(self, image_id: ArrayLike, category_id: ArrayLike, boxes: ArrayLike,
                 score: ArrayLike, *, box_format: str = "xywh", segmentation: Any = None,
                 area: ArrayLike | None = None, boxes_from_masks: bool = False,
                 keypoints: ArrayLike | None = None) -> None:
        image = _checks.check_ids("image_id", image_id)
        n = image.shape[0]
        category = _checks.check_ids("category_id", category_id, n)
        box = _checks.check_boxes("boxes", boxes, box_format, n)
        scores = _checks.check_scores("score", score, n)
        areas = box[:, 2] * box[:, 3] if area is None else _checks.check_areas("area", area, n)
        self._set(image, category, box, scores, areas,
                  _checks.check_objects("segmentation", segmentation, n), bool(boxes_from_masks))
        self.keypoints = None if keypoints is None else _keypoint_checks.check_keypoints(
            "keypoints", keypoints, n, None)

    def _set(self, image: NDArray[Any], category: NDArray[Any], box: F64, score: F64,
             area: F64, segmentation: NDArray[Any] | None, boxes_from_masks: bool) -> None:
        _readonly(image, category, box, score, area)
        self.image_id, self.category_id, self.boxes, self.score = image, category, box, score
        self.area, self.segmentation, self.boxes_from_masks = area, segmentation, boxes_from_masks

    def __len__(self) -> int:
        return int(self.image_id.shape[0])

    def __repr__(self) -> str:
        return f"Detections({len(self)} boxes)"

    def select(self, rows: NDArray[Any]) -> Detections:
        """The detections at ``rows`` (a boolean mask or indices)."""
        out = Detections.__new__(Detections)
        out._set(self.image_id[rows], self.category_id[rows], self.boxes[rows], self.score[rows],
                 self.area[rows],
                 None if self.segmentation is None else self.segmentation[rows],
                 self.boxes_from_masks)
        out.keypoints = None if self.keypoints is None else self.keypoints[rows]
        return out

    def for_images(self, images: ArrayLike) -> Detections:
        """The detections on some of the images.

        Examples
        --------
        >>> from prcurve.detection import Detections
        >>> dt = Detections([1, 2], [3, 3], [[0, 0, 1, 1]] * 2, [0.9, 0.4])
        >>> dt.for_images([2]).score.tolist()
        [0.4]
        """
        wanted = _checks.check_ids("images", images)
        return self.select(np.isin(self.image_id, wanted))

    @classmethod
    def from_coco(cls, source: str | Path | Sequence[Mapping[str, Any]]) -> Detections:
        """From a COCO results file (path) or its parsed list of
        ``{"image_id", "category_id", "bbox", "score"}`` objects (not modified).

        Examples
        --------
        >>> from prcurve.detection import Detections
        >>> dt = Detections.from_coco([{"image_id": 1, "category_id": 3,
        ...                             "bbox": [10, 10, 20, 20], "score": 0.8}])
        >>> dt.boxes.tolist()
        [[10.0, 10.0, 20.0, 20.0]]
        """
        from prcurve.detection.coco_json import results_fields

        return cls(**results_fields(source))

    @classmethod
    def from_table(cls, table: Any, *, box_format: str = "xywh",
                   columns: Mapping[str, Any] | None = None) -> Detections:
        """From a pandas DataFrame, a pyarrow Table or a dict of columns:
        ``image_id``, ``category_id``, ``score`` and the box (as for
        :meth:`GroundTruth.from_table`).

        Examples
        --------
        >>> import pyarrow as pa
        >>> from prcurve.detection import Detections
        >>> table = pa.table({"image_id": [1], "category_id": [2], "score": [0.5],
        ...                   "bbox": [[0.0, 0.0, 3.0, 4.0]]})
        >>> Detections.from_table(table).boxes.tolist()
        [[0.0, 0.0, 3.0, 4.0]]
        """
        read = _TableReader(table, "detections", columns)
        return cls(read.ids("image_id"), read.ids("category_id"), read.boxes(box_format),
                   read.column("score"), box_format=box_format)

    @classmethod
    def from_images(
        cls, predictions: Sequence[Mapping[str, Any]], *, box_format: str = "xywh",
        image_ids: Sequence[Any] | None = None,
    ) -> Detections:
        """From one dict per image: ``boxes`` (k, 4), ``scores`` (k,), ``labels``
        (k,) and optionally ``image_id`` (torchmetrics' prediction format).

        Examples
        --------
        >>> from prcurve.detection import Detections
        >>> dt = Detections.from_images([{"boxes": [[0, 0, 2, 2]], "scores": [0.7],
        ...                                "labels": [1]}], image_ids=["a.jpg"])
        >>> dt.image_id.tolist()
        ['a.jpg']
        """
        ids = _image_ids("detections", predictions, image_ids)
        parts = [_image_part("detections", i, p, box_format, ("scores",))
                 for i, p in enumerate(predictions)]
        for index, part in enumerate(parts):
            if part["scores"] is None:
                raise _checks.image_batch("detections", index, "has no 'scores'",
                                          "give one score per detected box")
        counts = [p["boxes"].shape[0] for p in parts]
        if not parts:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 4)),
                       np.zeros(0))
        return cls(np.repeat(ids, counts), np.concatenate([p["labels"] for p in parts]),
                   np.concatenate([p["boxes"] for p in parts]),
                   np.concatenate([p["scores"] for p in parts]))


# -- helpers: per-image dicts and tables ---------------------------------------------------------


def _image_ids(argument: str, items: Any, image_ids: Sequence[Any] | None) -> NDArray[Any]:
    if isinstance(items, Mapping) or not isinstance(items, Sequence):
        raise _checks.wrong_type(argument, items, "a list with one dict per image")
    if image_ids is not None:
        ids = _checks.check_ids("image_ids", list(image_ids) if not isinstance(
            image_ids, np.ndarray) else image_ids, len(items))
    elif items and all(isinstance(t, Mapping) and "image_id" in t for t in items):
        ids = _checks.check_ids(f"{argument} image_id", [_scalar(t["image_id"]) for t in items])
    else:
        ids = np.arange(len(items), dtype=np.int64)
    _checks.check_unique(f"{argument} image ids", ids, "image")
    return ids


def _scalar(value: Any) -> Any:
    """A 0-d array or tensor as a Python scalar."""
    if hasattr(value, "item") and getattr(value, "ndim", 0) == 0:
        return value.item()
    return value


def _image_part(argument: str, index: int, item: Any, box_format: str,
                optional: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise _checks.image_batch(argument, index, f"is {type(item).__name__}",
                                  "pass one dict per image with 'boxes' and 'labels'")
    for key in ("boxes", "labels"):
        if key not in item:
            raise _checks.image_batch(argument, index, f"has no {key!r} (keys {list(item)!r})",
                                      "pass one dict per image with 'boxes' and 'labels'")
    boxes = _checks.check_boxes(f"{argument}[{index}]['boxes']", np.asarray(item["boxes"]),
                                box_format)
    n = boxes.shape[0]
    labels = _checks.check_ids(f"{argument}[{index}]['labels']", np.asarray(item["labels"]), n)
    part: dict[str, Any] = {"boxes": boxes, "labels": labels}
    for key in optional:
        value = item.get(key)
        part[key] = None if value is None else _checks.as_1d(
            f"{argument}[{index}][{key!r}]", np.asarray(value), n)
    return part


def _arrow_column(values: Any) -> NDArray[Any]:
    """A pyarrow column as pyarrow's ``to_numpy`` gives it, without importing pandas as
    ``to_numpy`` does: numbers as a view of their buffer (a missing one NaN), anything
    else (text, lists of box coordinates) as Python objects, a missing one None."""
    pa: Any = importlib.import_module("pyarrow")
    kind = values.type
    if pa.types.is_boolean(kind) and not values.null_count:
        return primitive_numpy(pa, values)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        if values.null_count:
            compute: Any = importlib.import_module("pyarrow.compute")
            values = compute.fill_null(values.cast(pa.float64()), math.nan)
        return primitive_numpy(pa, values)
    items = values.to_pylist()
    return np.fromiter(items, dtype=object, count=len(items))


_BOX_COLUMNS = {"xywh": ("x", "y", "width", "height"), "xyxy": ("x1", "y1", "x2", "y2")}


class _TableReader:
    """Named columns of a DataFrame, pyarrow Table or dict, as numpy arrays."""

    def __init__(self, table: Any, argument: str, columns: Mapping[str, Any] | None) -> None:
        if hasattr(table, "column_names"):  # pyarrow
            names = list(table.column_names)
        elif hasattr(table, "columns"):  # pandas
            names = [str(c) for c in table.columns]
        elif isinstance(table, Mapping):
            names = [str(c) for c in table]
        else:
            raise _checks.wrong_type(argument, table,
                                     "a pandas DataFrame, a pyarrow Table or a dict of columns")
        self.table = table
        self.argument = argument
        self.names = names
        self.renamed = dict(columns or {})

    def _name(self, key: str) -> Any:
        return self.renamed.get(key, key)

    def has(self, key: str) -> bool:
        return str(self._name(key)) in self.names

    def column(self, key: str) -> NDArray[Any]:
        name = self._name(key)
        if str(name) not in self.names:
            raise _checks.missing_columns(self.argument, [str(name)], self.names)
        values = self.table[name]
        if type(values).__module__.startswith("pyarrow"):
            return _arrow_column(values)
        if hasattr(values, "to_numpy"):
            try:
                return np.asarray(values.to_numpy())
            except TypeError:  # pyarrow ChunkedArray of lists wants zero_copy_only=False
                return np.asarray(values.to_numpy(zero_copy_only=False))
        return np.asarray(values)

    def ids(self, key: str) -> NDArray[Any]:
        return _checks.check_ids(f"{self.argument} column {self._name(key)!r}", self.column(key))

    def optional(self, key: str) -> NDArray[Any] | None:
        return self.column(key) if self.has(key) else None

    def boxes(self, box_format: str) -> NDArray[Any]:
        fmt = _checks.check_choice("box_format", box_format, _checks.BOX_FORMATS)
        if self.has("bbox"):
            values = self.column("bbox")
            if values.dtype == object:
                return np.array([np.asarray(v, dtype=np.float64) for v in values]).reshape(-1, 4) \
                    if values.shape[0] else np.zeros((0, 4))
            return values
        wanted = _BOX_COLUMNS[fmt]
        missing = [str(self._name(k)) for k in wanted if not self.has(k)]
        if missing:
            raise _checks.missing_columns(self.argument, ["bbox"] if len(missing) == 4 else
                                          missing, self.names)
        return np.stack([self.column(k).astype(np.float64) for k in wanted], axis=1)

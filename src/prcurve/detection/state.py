"""The mergeable detection state: matched detections and ground-truth counts per image.

Matching is per image, so images are independent: a batch of whole images
(every ground truth box and every detection of each) is matched once into a
chunk of records, and the state of a data set is the concatenation of its
chunks, in any order and any grouping. :meth:`DetectionState.merge` is that
concatenation (associative; commutative up to the order of the records,
which :meth:`compute` sorts away), so batches of an evaluation loop, Dask
partitions or shards of a data set combine into exactly the state of
evaluating everything at once.

A record is one kept detection: its image, category, score, rank within its
(image, category) group and box area; its matches are a sparse list of
(detection, area range, IoU threshold, ignored ground truth?). COCO's
numbers depend on the order of tied scores across images (ties are broken by
image id, then rank), so the state keeps the records themselves rather than
tie-grouped counts; the per-category :class:`~prcurve.ThresholdCounts` are
views of it. Memory: about 40 bytes per kept detection plus 12 per match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection._sorting import sorted_distinct
from prcurve.detection.inputs import Detections, GroundTruth
from prcurve.detection.matching import BoxArrays, match
from prcurve.detection.protocol import COCOProtocol, VOCProtocol
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks
from prcurve.validation import lvis as _lvis_checks
from prcurve.validation import masks as _mask_checks

if TYPE_CHECKING:
    from prcurve.detection.coco import COCOEvaluation
    from prcurve.detection.voc import VOCEvaluation

__all__ = ["DetectionEvaluator", "DetectionState"]

Protocol = COCOProtocol | VOCProtocol
F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]


def concat_ids(*arrays: NDArray[Any] | None) -> NDArray[Any]:
    """Concatenate id arrays, skipping empty ones (an empty int array next to strings)."""
    parts = [a for a in arrays if a is not None and a.shape[0]]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    joined: NDArray[Any] = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return joined


def _id_kind(*arrays: NDArray[Any] | None) -> str | None:
    for array in arrays:
        if array is not None and array.shape[0]:
            return "str" if array.dtype.kind == "U" else "int"
    return None


@dataclass(frozen=True)
class Records:
    """Matched detections and ground-truth counts (one chunk, or all chunks joined).

    Per kept detection i: ``image_id[i]``, ``category_id[i]``, ``score[i]``,
    ``rank[i]`` and ``area[i]`` (its box's width * height). Match e: detection
    ``match_detection[e]`` matched at area range ``match_area[e]`` and IoU
    threshold ``match_threshold[e]``; ``match_ignored[e]`` when the ground
    truth is ignored there. Per (image, category) group j with ground truth:
    ``gt_image_id[j]``, ``gt_category_id[j]`` and ``gt_count[a, j]``, the boxes
    that count in area range a. ``images``: every image evaluated.
    """

    image_id: NDArray[Any]
    category_id: NDArray[Any]
    score: F64
    rank: NDArray[np.int32]
    area: F64
    match_detection: I64
    match_area: NDArray[np.int8]
    match_threshold: NDArray[np.int16]
    match_ignored: Bool
    gt_image_id: NDArray[Any]
    gt_category_id: NDArray[Any]
    gt_count: I64
    images: NDArray[Any]
    # The input row of each kept detection (its place in the file), for VOC's devkit tie
    # order (evaluate_voc's ties="file-order"); joined chunks follow one another.
    row: I64 | None = None

    @classmethod
    def join(cls, chunks: Sequence[Records], n_areas: int) -> Records:
        if len(chunks) == 1:
            return chunks[0]
        if not chunks:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(0),
                       empty, np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int16),
                       np.zeros(0, dtype=bool), empty, empty,
                       np.zeros((n_areas, 0), dtype=np.int64), empty)
        offsets = np.cumsum([0] + [c.score.shape[0] for c in chunks[:-1]])
        return cls(
            concat_ids(*(c.image_id for c in chunks)),
            concat_ids(*(c.category_id for c in chunks)),
            np.concatenate([c.score for c in chunks]),
            np.concatenate([c.rank for c in chunks]),
            np.concatenate([c.area for c in chunks]),
            np.concatenate([c.match_detection + offset
                            for c, offset in zip(chunks, offsets, strict=True)]),
            np.concatenate([c.match_area for c in chunks]),
            np.concatenate([c.match_threshold for c in chunks]),
            np.concatenate([c.match_ignored for c in chunks]),
            concat_ids(*(c.gt_image_id for c in chunks)),
            concat_ids(*(c.gt_category_id for c in chunks)),
            np.concatenate([c.gt_count for c in chunks], axis=1),
            concat_ids(*(c.images for c in chunks)),
            _joined_rows(chunks),
        )


def _joined_rows(chunks: Sequence[Records]) -> I64 | None:
    """The chunks' input rows as one order: each chunk's after the rows of those before."""
    if any(c.row is None for c in chunks):
        return None
    rows: list[I64] = []
    offset = 0
    for c in chunks:
        row: I64 = c.row  # type: ignore[assignment]  # checked above
        rows.append(row + offset)
        offset += int(row.max(initial=-1)) + 1
    return np.concatenate(rows)


def evaluate_batch(ground_truth: GroundTruth, detections: Detections,
                   protocol: Protocol) -> Records:
    """Match one batch of whole images into records."""
    gt, dt = ground_truth, detections
    _checks.check_same_id_kind("ground_truth image ids", concat_ids(gt.image_id, gt.images),
                               "detections image_id", dt.image_id)
    _checks.check_same_id_kind("ground_truth category ids",
                               concat_ids(gt.category_id, gt.categories),
                               "detections category_id", dt.category_id)
    if gt.images is not None:
        _checks.check_known("detections image_id", dt.image_id, gt.images, "images",
                            "the ground truth")
        images = sorted_distinct(gt.images)
    else:
        images = sorted_distinct(concat_ids(gt.image_id, dt.image_id))
    if gt.categories is not None:
        _checks.check_known("detections category_id", dt.category_id, gt.categories,
                            "categories", "the ground truth")
    categories = sorted_distinct(concat_ids(gt.category_id, dt.category_id))
    n_categories = max(categories.shape[0], 1)

    def group(image_id: NDArray[Any], category_id: NDArray[Any]) -> I64:
        if image_id.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        image_code = np.searchsorted(images, image_id).astype(np.int64)
        category_code = np.searchsorted(categories, category_id).astype(np.int64)
        key: I64 = image_code * n_categories + category_code
        return key

    # VOC: difficult or crowd; LVIS (no crowds): its `ignore` field, read into difficult.
    always_ignored = gt.iscrowd | gt.difficult if isinstance(protocol, VOCProtocol) or (
        protocol.name == "lvis") else gt.iscrowd
    iou_type = getattr(protocol, "iou_type", "bbox")
    similarity = None
    if iou_type == "segm":
        similarity = _mask_similarity(gt, dt)
    elif iou_type == "keypoints" and isinstance(protocol, COCOProtocol):
        similarity = _keypoint_similarity(gt, dt, protocol.oks_sigmas)
        labeled = _keypoint_checks.need_num_keypoints(gt.num_keypoints)
        always_ignored = always_ignored | (labeled == 0)
    elif dt.boxes_from_masks and len(dt):
        raise _mask_checks.segmentation_without_boxes("detections", 0)
    arrays = BoxArrays(
        gt_group=group(gt.image_id, gt.category_id), gt_boxes=gt.boxes, gt_area=gt.area,
        gt_ignore=always_ignored, gt_crowd=gt.iscrowd,
        dt_group=group(dt.image_id, dt.category_id), dt_boxes=dt.boxes, dt_score=dt.score,
        similarity=similarity,
    )
    matched = match(arrays, protocol)
    rows = matched.detection
    return Records(
        image_id=dt.image_id[rows], category_id=dt.category_id[rows], score=dt.score[rows],
        rank=matched.rank, area=dt.area[rows],
        match_detection=matched.match_detection, match_area=matched.match_area,
        match_threshold=matched.match_threshold, match_ignored=matched.match_ignored,
        gt_image_id=images[matched.group // n_categories],
        gt_category_id=categories[matched.group % n_categories],
        gt_count=matched.gt_count, images=images, row=rows.astype(np.int64, copy=False),
    )


def _mask_similarity(gt: GroundTruth, dt: Detections) -> Callable[[I64, I64, Bool], F64]:
    """Masks' IoU of (detection, ground truth) rows, the masks converted once."""
    from prcurve.detection.mask_inputs import batch_masks
    from prcurve.detection.rle import gated_mask_iou

    gt_masks, dt_masks = batch_masks(gt.segmentation, gt.image_id, dt.segmentation,
                                     dt.image_id, gt.image_sizes)
    return lambda d, g, crowd: gated_mask_iou(dt_masks, d, gt_masks, g, crowd)


def _keypoint_similarity(gt: GroundTruth, dt: Detections,
                         sigmas: tuple[float, ...]) -> Callable[[I64, I64, Bool], F64]:
    """OKS of (detection, ground truth) rows (pycocotools' ``computeOks``)."""
    from prcurve.detection.keypoints import PairOKS

    k = len(sigmas)
    gt_kp = _keypoint_checks.need_keypoints("ground_truth", gt.keypoints, len(gt), k)
    dt_kp = _keypoint_checks.need_keypoints("detections", dt.keypoints, len(dt), k)
    sigma = np.asarray(sigmas)
    oks = PairOKS(dt_kp, gt_kp, gt.boxes, gt.area, sigma)
    return lambda d, g, crowd: oks(d, g)


class DetectionState:
    """Matched detections of a set of images, under one protocol; mergeable.

    Build one per batch with :meth:`from_batch` (or let
    :class:`DetectionEvaluator` do it), combine with :meth:`merge`, and get
    the evaluation with :meth:`compute`. Immutable.

    Examples
    --------
    >>> from prcurve.detection import DetectionState, Detections, GroundTruth
    >>> gt = GroundTruth([1, 2], [1, 1], [[0, 0, 10, 10], [0, 0, 10, 10]])
    >>> dt = Detections([1, 2], [1, 1], [[0, 0, 10, 10], [50, 50, 5, 5]], [0.9, 0.8])
    >>> whole = DetectionState.from_batch(gt, dt)
    >>> parts = [DetectionState.from_batch(gt.for_images([i]), dt.for_images([i])) for i in (1, 2)]
    >>> merged = parts[1].merge(parts[0])
    >>> bool(merged.compute().stats[1] == whole.compute().stats[1])
    True
    """

    def __init__(self, protocol: Protocol | None = None) -> None:
        self.protocol: Protocol = COCOProtocol() if protocol is None else _check_protocol(
            protocol)
        self._chunks: tuple[Records, ...] = ()
        self._categories: NDArray[Any] | None = None
        self._category_names: dict[Any, str] = {}
        self._image_kind: tuple[str | None, str | None] = (None, None)
        # The batches themselves, for analyses that need every pair of a batch's images
        # (TIDE's error types, the confusion matrix; prcurve.detection.tide).
        self._sources: tuple[tuple[GroundTruth, Detections], ...] = ()

    @classmethod
    def from_batch(cls, ground_truth: GroundTruth, detections: Detections,
                   protocol: Protocol | None = None) -> DetectionState:
        """Match a batch of whole images (all their ground truth and detections)."""
        if not isinstance(ground_truth, GroundTruth):
            raise _checks.wrong_type("ground_truth", ground_truth, "a GroundTruth")
        if not isinstance(detections, Detections):
            raise _checks.wrong_type("detections", detections, "a Detections")
        state = cls(protocol)
        chunk = evaluate_batch(ground_truth, detections, state.protocol)
        state._chunks = (chunk,)
        state._sources = ((ground_truth, detections),)
        state._categories = ground_truth.categories
        state._category_names = dict(ground_truth.category_names)
        state._image_kind = (_id_kind(chunk.images),
                             _id_kind(chunk.category_id, chunk.gt_category_id,
                                      ground_truth.categories))
        return state

    @property
    def n_images(self) -> int:
        return int(sum(c.images.shape[0] for c in self._chunks))

    @property
    def n_detections(self) -> int:
        """Kept detections (within the per-image limit)."""
        return int(sum(c.score.shape[0] for c in self._chunks))

    def __repr__(self) -> str:
        return (f"DetectionState({self.protocol.name}, {self.n_images} images, "
                f"{self.n_detections} detections)")

    def merge(self, other: DetectionState) -> DetectionState:
        """The state of both sets of images (they must not share an image)."""
        if not isinstance(other, DetectionState):
            raise _checks.wrong_type("other", other, "a DetectionState")
        if other.protocol != self.protocol:
            raise _checks.different_protocols(self.protocol, other.protocol)
        for index, what in ((0, "image ids"), (1, "category ids")):
            mine, theirs = self._image_kind[index], other._image_kind[index]
            if mine is not None and theirs is not None and mine != theirs:
                raise _checks.mixed_id_kinds(what, theirs, mine)
        mine_images = concat_ids(*(c.images for c in self._chunks))
        their_images = concat_ids(*(c.images for c in other._chunks))
        if mine_images.shape[0] and their_images.shape[0]:
            shared = np.intersect1d(mine_images, their_images)
            if shared.shape[0]:
                raise _checks.images_evaluated_twice(shared)
        merged = DetectionState(self.protocol)
        merged._chunks = self._chunks + other._chunks
        merged._sources = self._sources + other._sources
        declared = [c for c in (self._categories, other._categories) if c is not None]
        merged._categories = sorted_distinct(concat_ids(*declared)) if declared else None
        merged._category_names = {**self._category_names, **other._category_names}
        merged._image_kind = tuple(  # type: ignore[assignment]
            a if a is not None else b
            for a, b in zip(self._image_kind, other._image_kind, strict=True))
        return merged

    @cached_property
    def records(self) -> Records:
        """Every chunk joined (computed once)."""
        return Records.join(self._chunks, self.protocol.n_areas)

    @property
    def sources(self) -> tuple[tuple[GroundTruth, Detections], ...]:
        """The (ground truth, detections) batches matched into this state, in merge order."""
        return self._sources

    @property
    def categories(self) -> NDArray[Any]:
        """The evaluated categories, sorted: declared by the ground truth, else every
        category a box or detection names."""
        if self._categories is not None:
            return sorted_distinct(self._categories)
        records = self.records
        return sorted_distinct(concat_ids(records.category_id, records.gt_category_id))

    @property
    def category_names(self) -> dict[Any, str]:
        return dict(self._category_names)

    def compute(self) -> COCOEvaluation | VOCEvaluation:
        """The evaluation of every image in the state, under its protocol."""
        if isinstance(self.protocol, VOCProtocol):
            from prcurve.detection.voc import VOCEvaluation

            return VOCEvaluation.from_state(self)
        if self.protocol.name == "lvis":  # the federated lists live outside the state
            raise _lvis_checks.lvis_state()
        from prcurve.detection.coco import COCOEvaluation

        return COCOEvaluation.from_state(self)


def _check_protocol(protocol: Any) -> Protocol:
    if isinstance(protocol, (COCOProtocol, VOCProtocol)):
        return protocol
    if protocol == "coco":
        return COCOProtocol()
    if protocol == "voc":
        return VOCProtocol()
    raise _checks.wrong_type("protocol", protocol, "'coco', 'voc', a COCOProtocol or a VOCProtocol")


def make_protocol(protocol: Any, parameters: Mapping[str, Any]) -> Protocol:
    """A protocol from its name and keyword parameters (or a protocol object alone)."""
    if isinstance(protocol, (COCOProtocol, VOCProtocol)):
        if parameters:
            raise _checks.protocol_and_parameters(type(protocol).__name__, list(parameters))
        return protocol
    name = _checks.check_choice("protocol", protocol, ("coco", "voc"))
    try:
        return COCOProtocol(**parameters) if name == "coco" else VOCProtocol(**parameters)
    except TypeError as error:
        raise _checks.bad_protocol_parameters(name, error) from None


class DetectionEvaluator:
    """An evaluation loop's metric: ``update`` with batches of images, then ``compute``.

    Parameters
    ----------
    protocol : {"coco", "voc"} or a protocol object, default "coco"
    categories : array_like, optional
        Every category of the data set (default: those the batches name;
        the COCO numbers are the same either way, absent categories are -1).
    box_format : {"xywh", "xyxy"}, default "xywh"
        For batches given as per-image dicts.
    **parameters
        The protocol's parameters (:class:`COCOProtocol`, :class:`VOCProtocol`).

    Examples
    --------
    >>> from prcurve.detection import DetectionEvaluator
    >>> metric = DetectionEvaluator("coco", box_format="xyxy")
    >>> for start in (0, 2):  # two batches of two images
    ...     targets = [{"boxes": [[0, 0, 10, 10]], "labels": [1]}] * 2
    ...     preds = [{"boxes": [[0, 0, 10, 10]], "scores": [0.9], "labels": [1]},
    ...              {"boxes": [[20, 20, 30, 30]], "scores": [0.8], "labels": [1]}]
    ...     metric.update(targets, preds)
    >>> result = metric.compute()
    >>> result.n_images, round(float(result.stats[1]), 4)  # AP50: 2 of 4 found, first
    (4, 0.5)
    """

    def __init__(self, protocol: Any = "coco", *, categories: Any = None,
                 box_format: str = "xywh", **parameters: Any) -> None:
        self._protocol = make_protocol(protocol, parameters)
        self._box_format = _checks.check_choice("box_format", box_format, _checks.BOX_FORMATS)
        self._categories = None if categories is None else _checks.check_ids(
            "categories", categories)
        self.reset()

    def reset(self) -> None:
        """Forget every batch."""
        self._state = DetectionState(self._protocol)
        self._seen: set[Any] = set()
        self._next_id = 0

    @property
    def state(self) -> DetectionState:
        return self._state

    def update(self, ground_truth: Any, detections: Any) -> None:
        """Add a batch of whole images.

        Either a :class:`GroundTruth` and a :class:`Detections`, or two lists
        with one dict per image in the same order (``{"boxes", "labels",
        ...}`` and ``{"boxes", "scores", "labels"}``); images without an
        ``image_id`` are numbered on from the last batch.
        """
        if isinstance(ground_truth, GroundTruth) and isinstance(detections, Detections):
            gt, dt = ground_truth, detections
            if self._categories is not None and gt.categories is None:
                gt = GroundTruth(gt.image_id, gt.category_id, gt.boxes, area=gt.area,
                                 iscrowd=gt.iscrowd, difficult=gt.difficult,
                                 annotation_id=gt.annotation_id, images=gt.images,
                                 categories=self._categories,
                                 category_names=gt.category_names)
        else:
            gt, dt = self._from_lists(ground_truth, detections)
        state = DetectionState.from_batch(gt, dt, self._protocol)
        images = state.records.images.tolist()
        repeated = [i for i in images if i in self._seen]
        if repeated:
            raise _checks.images_evaluated_twice(np.array(repeated))
        self._state = self._state.merge(state) if self._state._chunks else state
        self._seen.update(images)

    def _from_lists(self, targets: Any, predictions: Any) -> tuple[GroundTruth, Detections]:
        if isinstance(targets, GroundTruth) or isinstance(predictions, Detections):
            raise _checks.wrong_type("detections" if isinstance(targets, GroundTruth)
                                     else "ground_truth",
                                     predictions if isinstance(targets, GroundTruth)
                                     else targets, "the same form as the other argument")
        if not isinstance(targets, Sequence) or not isinstance(predictions, Sequence):
            raise _checks.wrong_type("ground_truth", targets,
                                     "a GroundTruth, or a list with one dict per image")
        if len(targets) != len(predictions):
            raise _checks.batch_lengths(len(targets), len(predictions))
        named = targets and all(isinstance(t, Mapping) and "image_id" in t for t in targets)
        ids = None
        if not named:
            ids = list(range(self._next_id, self._next_id + len(targets)))
            self._next_id += len(targets)
        gt = GroundTruth.from_images(targets, box_format=self._box_format, image_ids=ids,
                                     categories=self._categories)
        dt = Detections.from_images(predictions, box_format=self._box_format,
                                    image_ids=list(gt.images) if gt.images is not None else ids)
        return gt, dt

    def merge(self, other: DetectionEvaluator) -> None:
        """Add another evaluator's images (e.g. from another process)."""
        if not isinstance(other, DetectionEvaluator):
            raise _checks.wrong_type("other", other, "a DetectionEvaluator")
        self._state = self._state.merge(other._state)
        self._seen.update(other._seen)

    def compute(self) -> COCOEvaluation | VOCEvaluation:
        """The evaluation of every image added so far."""
        return self._state.compute()

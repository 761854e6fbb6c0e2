"""LVIS: the federated protocol of lvis-api's ``LVISEval`` (docs/detection.md, "LVIS").

LVIS (Gupta, Dollár and Girshick, "LVIS: A Dataset for Large Vocabulary
Instance Segmentation") annotates each category on a subset of images only,
so an image says, besides its objects, which categories were verified absent
(``neg_category_ids``) and which were not annotated exhaustively
(``not_exhaustive_category_ids``). lvis-api's rules, as ``LVISResults`` and
``LVISEval`` apply them, in order:

1. At most ``max_dets`` (300) detections per image, across categories: an
   image's results sorted by decreasing score with a stable sort (ties keep
   the file's order), the first 300 kept. Then objects and detections of
   area 0 are left out (lvis-api reads both through ``get_ann_ids``, which
   keeps ``0 < area``).
2. A detection of category c on image i is evaluated only if c has ground
   truth on i (the image's positive set) or c is in i's ``neg_category_ids``;
   the others are dropped before anything is computed.
3. Matching is COCO's (pycocotools ``evaluateImg``) per image and category,
   with every detection of the pair (no per-category limit), no crowd
   regions (``iscrowd`` is not read), and ground truth ignored when its
   ``ignore`` field is set or its ``area`` lies outside the area range.
4. An unmatched detection is ignored when its area lies outside the area
   range (COCO's rule) or its category is in the image's
   ``not_exhaustive_category_ids``.
5. Accumulation is COCO's (the same sorts, ``tp / (tp + fp + eps)``, the
   envelope, 101 recall thresholds), giving ``precision[T, R, K, A]`` and
   ``recall[T, K, A]``; the summary averages the entries > -1 as COCO's does,
   and APr, APc and APf average over the rare, common and frequent categories
   (each category's ``frequency``).

Steps 3 and 5 are prcurve's COCO matching and accumulation
(:mod:`prcurve.detection.matching`, :mod:`prcurve.detection.coco`) under
:class:`LVISProtocol`; steps 1, 2 and 4 are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.curve import PRCurve
from prcurve.core.table import Table
from prcurve.core.undefined import ZeroDivision
from prcurve.detection._sorting import descending_rank, stable_order
from prcurve.detection.coco import COCOEvaluation, SortedRecords, accumulate
from prcurve.detection.coco_json import ground_truth_fields, read_json
from prcurve.detection.inputs import Detections, GroundTruth
from prcurve.detection.protocol import COCOProtocol
from prcurve.detection.state import DetectionState
from prcurve.detection.views import json_value
from prcurve.validation import boxes as _checks
from prcurve.validation import lvis as _lvis_checks

__all__ = ["LVIS_STAT_NAMES", "LVISEvaluation", "LVISGroundTruth", "LVISProtocol",
           "evaluate_lvis"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]


class LVISProtocol(COCOProtocol):
    """LVIS's parameters (lvis-api ``Params``): COCO's IoU and recall thresholds and
    area ranges, ``max_dets`` detections per image across categories.

    Parameters
    ----------
    iou_type : {"bbox", "segm"}, default "bbox"
    max_dets : int, default 300
        Detections kept per image, highest scores first (lvis-api's
        ``LVISResults(..., max_dets=300)``); none is cut per category.

    Examples
    --------
    >>> from prcurve.detection import LVISProtocol
    >>> p = LVISProtocol(iou_type="segm")
    >>> p.name, p.max_dets, p.keep_per_image, len(p.iou_thresholds)
    ('lvis', (300,), None, 10)
    """

    name = "lvis"

    def __init__(self, iou_type: str = "bbox", max_dets: Any = 300) -> None:
        kind = _checks.check_choice("iou_type", iou_type, ("bbox", "segm"))
        super().__init__(max_dets=(_lvis_checks.check_lvis_max_dets(max_dets),),
                         iou_type=kind)

    @property
    def keep_per_image(self) -> int | None:
        """No limit per (image, category): the limit is per image, applied when read."""
        return None

    @property
    def max_dets_per_image(self) -> int:
        return self.max_dets[0]


@dataclass(frozen=True)
class LVISGroundTruth:
    """An LVIS ground-truth file read: COCO's fields plus the federated ones.

    ``ground_truth``: the objects, with no crowd regions and LVIS's ``ignore``
    field as the always-ignored flag (``difficult``). ``negative`` and
    ``not_exhaustive``: (image id, category id) pairs of each image's lists.
    ``frequency``: per category of ``ground_truth.categories`` (file order),
    0 rare, 1 common, 2 frequent. ``images`` and ``categories``: every id of
    the file, sorted.
    """

    ground_truth: GroundTruth
    negative: tuple[NDArray[Any], NDArray[Any]]
    not_exhaustive: tuple[NDArray[Any], NDArray[Any]]
    frequency: NDArray[np.int8]
    images: NDArray[Any]
    categories: NDArray[Any]

    @classmethod
    def read(cls, source: str | Path | Mapping[str, Any]) -> LVISGroundTruth:
        """From an LVIS annotation file (path) or its parsed object (not modified).

        Examples
        --------
        >>> from prcurve.detection.lvis import LVISGroundTruth
        >>> data = {"images": [{"id": 1, "neg_category_ids": [2],
        ...                     "not_exhaustive_category_ids": []}],
        ...         "categories": [{"id": 1, "frequency": "f"}, {"id": 2, "frequency": "r"}],
        ...         "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
        ...                          "bbox": [0, 0, 4, 4], "area": 16}]}
        >>> lvis = LVISGroundTruth.read(data)
        >>> lvis.negative[1].tolist(), lvis.frequency.tolist()
        ([2], [2, 0])
        """
        argument = "ground_truth"
        data = source
        if isinstance(source, (str, Path)):
            data = read_json(source, argument)
            argument = f"ground_truth ({source})"
        fields = ground_truth_fields(data)  # a COCO object: images, annotations, categories
        if not isinstance(data, Mapping):  # pragma: no cover - checked by ground_truth_fields
            raise _checks.not_ground_truth(argument, _checks.describe(data))
        annotations = data["annotations"]
        # lvis-api: `ignore` when present (else 0); `iscrowd` is never read.
        ignore = [a.get("ignore", 0) for a in annotations]
        fields["iscrowd"] = None
        fields["difficult"] = _checks.check_flags(f"{argument} annotations[*]['ignore']",
                                                  ignore, len(ignore))
        ground_truth = GroundTruth(**fields)
        # lvis-api reads annotations through get_ann_ids(img_ids, cat_ids), which keeps
        # only 0 < area < inf: an object of area 0 is not there at all (nor positive).
        if (ground_truth.area <= 0).any():
            ground_truth = ground_truth.select(ground_truth.area > 0, ground_truth.images)
        images = ground_truth.images
        categories = ground_truth.categories
        if images is None or categories is None:  # pragma: no cover - from_coco sets both
            raise _checks.not_ground_truth(argument, "no image or category list")
        kind = str if categories.dtype.kind == "U" else int
        pairs = []
        for key in _lvis_checks.FEDERATED_FIELDS:
            rows, ids = _lvis_checks.federated_pairs(argument, data["images"], key, kind)
            category = np.asarray(ids) if ids else categories[:0]
            pairs.append((images[rows], category))
        frequency = _lvis_checks.check_frequencies(argument, data["categories"])
        return cls(ground_truth, pairs[0], pairs[1], frequency, np.unique(images),
                   np.unique(categories))


def _codes(values: NDArray[Any], sorted_ids: NDArray[Any]) -> I64:
    codes: I64 = np.searchsorted(sorted_ids, values).astype(np.int64)
    return codes


def _pair_keys(pairs: tuple[NDArray[Any], NDArray[Any]], images: NDArray[Any],
               categories: NDArray[Any]) -> I64:
    """image code * K + category code of (image, category) pairs of known categories."""
    image, category = pairs
    known = np.isin(category, categories)
    keys: I64 = _codes(image[known], images) * categories.shape[0] + _codes(
        category[known], categories)
    return keys


def top_per_image(image_code: I64, score: F64, limit: int) -> Bool:
    """The detections among the ``limit`` highest scores of their image (lvis-api's
    ``limit_dets_per_image``: a stable sort by decreasing score, ties in input order)."""
    n = image_code.shape[0]
    keep = np.ones(n, dtype=bool)
    counts = np.bincount(image_code)
    if counts.shape[0] == 0 or counts.max() <= limit:
        return keep
    score_rank, n_scores = descending_rank(score)
    order = stable_order([(image_code, counts.shape[0]), (score_rank, n_scores)])
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(n) - starts[image_code[order]]
    keep[order[rank >= limit]] = False
    return keep


def federated_detections(lvis: LVISGroundTruth, detections: Detections,
                         protocol: LVISProtocol) -> Detections:
    """Steps 1 and 2 of the module docstring: the detections lvis-api evaluates."""
    gt = lvis.ground_truth
    images, categories = lvis.images, lvis.categories
    _checks.check_same_id_kind("ground_truth image ids", images, "detections image_id",
                               detections.image_id)
    _checks.check_same_id_kind("ground_truth category ids", categories,
                               "detections category_id", detections.category_id)
    _checks.check_known("detections image_id", detections.image_id, images, "images",
                        "the ground truth")
    _checks.check_known("detections category_id", detections.category_id, categories,
                        "categories", "the ground truth")
    image = _codes(detections.image_id, images)
    kept = top_per_image(image, detections.score, protocol.max_dets_per_image)
    kept &= detections.area > 0  # lvis-api's get_ann_ids: 0 < area, after the cut
    key = image * categories.shape[0] + _codes(detections.category_id, categories)
    positive = _pair_keys((gt.image_id, gt.category_id), images, categories)
    negative = _pair_keys(lvis.negative, images, categories)
    kept &= np.isin(key, np.concatenate([positive, negative]))
    return detections.select(kept)


def not_exhaustive_outside(records: SortedRecords, lvis: LVISGroundTruth) -> SortedRecords:
    """Step 4: unmatched detections of not-exhaustive (image, category) pairs are
    ignored at every area range, as those outside the range are."""
    keys = _pair_keys(lvis.not_exhaustive, records.images, records.categories)
    flag = np.isin(records.image * records.categories.shape[0] + records.category, keys)
    return replace(records, outside=records.outside | flag[None, :])


LVIS_STAT_NAMES = ("AP", "AP50", "AP75", "APs", "APm", "APl", "APr", "APc", "APf",
                   "AR", "ARs", "ARm", "ARl")
"""Short names of the 13 LVIS statistics, in lvis-api's order (AR at ``max_dets``)."""

# (ap, iou, area, frequency group), lvis-api's summarize.
_STATS: tuple[tuple[bool, float | None, str, int | None], ...] = (
    (True, None, "all", None), (True, 0.5, "all", None), (True, 0.75, "all", None),
    (True, None, "small", None), (True, None, "medium", None), (True, None, "large", None),
    (True, None, "all", 0), (True, None, "all", 1), (True, None, "all", 2),
    (False, None, "all", None), (False, None, "small", None), (False, None, "medium", None),
    (False, None, "large", None),
)


def _mean_defined(values: F64) -> float:
    kept = values[values > -1]
    return -1.0 if kept.shape[0] == 0 else float(np.mean(kept))


class LVISEvaluation:
    """LVIS's evaluation of a detector: lvis-api's arrays, results and printed summary.

    Attributes
    ----------
    protocol : LVISProtocol
    categories : ndarray, shape (K,)
        Category ids, increasing (lvis-api's ``cat_ids``).
    images : ndarray
        Image ids, increasing.
    frequency : ndarray of str, shape (K,)
        Each category's ``"r"``, ``"c"`` or ``"f"``.
    precision : ndarray, shape (T, R, K, A)
        lvis-api's ``eval['precision']``; -1 where a category has no ground
        truth that counts in an area range.
    recall : ndarray, shape (T, K, A)
        lvis-api's ``eval['recall']``.
    stats : ndarray, shape (13,)
        lvis-api's ``results`` values (names :data:`LVIS_STAT_NAMES`).
    coco : COCOEvaluation
        The same matched detections as a COCO evaluation with one ``max_dets``
        (its per-category curves, tables and plots; not its statistics).

    Examples
    --------
    >>> from prcurve.detection import evaluate_lvis
    >>> gt = {"images": [{"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": []}],
    ...       "categories": [{"id": 1, "frequency": "f"}, {"id": 2, "frequency": "r"},
    ...                      {"id": 3, "frequency": "c"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 10], "area": 100}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9},
    ...       {"image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10], "score": 0.8}]
    >>> result = evaluate_lvis(gt, dt)  # category 3: neither on the image nor verified absent
    >>> result.results()["AP"], result.results()["APr"]
    (1.0, -1.0)
    """

    def __init__(self, state: DetectionState, records: SortedRecords, frequency: NDArray[Any],
                 precision: F64, recall: F64, scores: F64) -> None:
        protocol = state.protocol
        if not isinstance(protocol, LVISProtocol):
            raise _checks.wrong_type("state", state, "a state under the LVIS protocol")
        self.protocol: LVISProtocol = protocol
        self.coco = COCOEvaluation(state, records, precision, recall, scores)
        self.categories = records.categories
        self.images = records.images
        self.frequency = frequency
        self.precision: F64 = precision[..., 0]
        self.recall: F64 = recall[..., 0]

    @property
    def n_images(self) -> int:
        return int(self.images.shape[0])

    def __repr__(self) -> str:
        return (f"LVISEvaluation({self.n_images} images, {self.categories.shape[0]} "
                f"categories, AP={self.stats[0]:.4f})")

    def _statistic(self, ap: bool, iou: float | None, area: str, group: int | None) -> float:
        """One of lvis-api's ``_summarize`` values (the same slicing, the same mean)."""
        a = self.protocol.area_labels.index(area)
        s = self.precision if ap else self.recall
        if iou is not None:
            s = s[np.where(iou == np.asarray(self.protocol.iou_thresholds))[0]]
        if not ap:
            return _mean_defined(s[:, :, a])
        if group is None:
            return _mean_defined(s[:, :, :, a])
        in_group = self.frequency == _lvis_checks.FREQUENCIES[group]
        return _mean_defined(s[:, :, in_group, a])

    @cached_property
    def stats(self) -> F64:
        """The 13 values of lvis-api's ``results`` (-1 where undefined)."""
        return np.array([self._statistic(*spec) for spec in _STATS])

    def results(self) -> dict[str, float]:
        """lvis-api's ``get_results()``: ``{"AP": ..., "APr": ..., "AR@300": ...}``."""
        max_dets = self.protocol.max_dets_per_image
        names = [name if not name.startswith("AR") else f"{name}@{max_dets}"
                 for name in LVIS_STAT_NAMES]
        return {name: float(v) for name, v in zip(names, self.stats, strict=True)}

    def _repr_html_(self) -> str:
        """Notebook display (:func:`prcurve.detection.views.evaluation_html`)."""
        from prcurve.detection.views import evaluation_html

        return evaluation_html(self.protocol, self.summary(), self.per_category())

    def summary(self) -> str:
        """The 13 lines lvis-api's ``print_results`` prints, byte for byte."""
        line = (" {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} catIds={:>3s}] "
                "= {:0.3f}")
        thresholds = self.protocol.iou_thresholds
        lines = []
        for (ap, iou, area, group), value in zip(_STATS, self.stats, strict=True):
            iou_text = f"{thresholds[0]:0.2f}:{thresholds[-1]:0.2f}" if iou is None else (
                f"{iou:0.2f}")
            lines.append(line.format(
                "Average Precision" if ap else "Average Recall", "(AP)" if ap else "(AR)",
                iou_text, area if area == "all" else area[0],
                self.protocol.max_dets_per_image,
                "all" if group is None else _lvis_checks.FREQUENCIES[group], value))
        return "\n".join(lines)

    # -- per category ---------------------------------------------------------------------

    def average_precision(self, category: Any = None, *, iou_threshold: float | None = None,
                          area: str = "all") -> float:
        """LVIS AP (mean of ``precision`` entries > -1) of one category or all; NaN
        when nothing is defined."""
        return self.coco.average_precision(category, iou_threshold=iou_threshold, area=area)

    def curve(self, category: Any, *, iou_threshold: float = 0.5, area: str = "all",
              zero_division: ZeroDivision = "nan") -> PRCurve:
        """One category's precision–recall curve (:meth:`COCOEvaluation.curve`; detections
        ignored by the federated rules are left out)."""
        return self.coco.curve(category, iou_threshold=iou_threshold, area=area,
                               zero_division=zero_division)

    def per_category(self) -> Table:
        """:meth:`COCOEvaluation.per_category` with each category's ``frequency``."""
        table = self.coco.per_category()
        columns = {name: table[name] for name in table.columns}
        columns = {"category_id": columns.pop("category_id"), "name": columns.pop("name"),
                   "frequency": self.frequency.astype(object), **columns}
        return Table(columns)

    def best_f(self, *, iou_threshold: float = 0.5, area: str = "all",
               beta: float = 1.0) -> Table:
        """Per category, the score threshold of maximal F-beta (:meth:`COCOEvaluation.best_f`)."""
        return self.coco.best_f(iou_threshold=iou_threshold, area=area, beta=beta)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: protocol, lvis-api's results, the printed lines,
        per-category rows with best-F1 points."""
        rows = self.coco._category_rows(self.per_category(), self.best_f())
        return {
            "protocol": "lvis",
            "iou_type": self.protocol.iou_type,
            "parameters": {
                "iou_thresholds": list(self.protocol.iou_thresholds),
                "recall_thresholds": len(self.protocol.recall_thresholds),
                "max_dets": self.protocol.max_dets_per_image,
                "area_ranges": {label: [lo, hi] for label, lo, hi in self.protocol.area_ranges},
            },
            "n_images": self.n_images,
            "n_categories": int(self.categories.shape[0]),
            "stats": {name: json_value(v) for name, v in self.results().items()},
            "summary": self.summary().splitlines(),
            "per_category": rows,
        }


def evaluate_lvis(ground_truth: Any, detections: Any, *, iou_type: str = "bbox",
                  max_dets: int = 300) -> LVISEvaluation:
    """LVIS's federated evaluation, equal to lvis-api's ``LVISEval`` (evaluate,
    accumulate, summarize) on the same files.

    Parameters
    ----------
    ground_truth : path or dict
        An LVIS annotation file or its parsed object: COCO's fields plus each
        image's ``neg_category_ids`` and ``not_exhaustive_category_ids`` and
        each category's ``frequency``.
    detections : Detections, path or list
        LVIS (COCO) results: ``image_id``, ``category_id``, ``score`` and
        ``bbox`` and/or ``segmentation`` (RLE).
    iou_type : {"bbox", "segm"}, default "bbox"
    max_dets : int, default 300
        Detections kept per image, across categories.

    Returns
    -------
    LVISEvaluation
        ``precision`` [T, R, K, A], ``recall`` [T, K, A], ``results()``,
        ``summary()``, per-category tables and curves.

    Examples
    --------
    >>> from prcurve.detection import evaluate_lvis
    >>> gt = {"images": [{"id": 1, "neg_category_ids": [], "not_exhaustive_category_ids": [1]}],
    ...       "categories": [{"id": 1, "frequency": "c"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 10], "area": 100}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [50, 50, 10, 10], "score": 0.9},
    ...       {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.8}]
    >>> evaluate_lvis(gt, dt).results()["AP50"]  # the miss is ignored: not exhaustive
    1.0
    """
    protocol = LVISProtocol(iou_type=iou_type, max_dets=max_dets)
    lvis = LVISGroundTruth.read(ground_truth) if not isinstance(
        ground_truth, LVISGroundTruth) else ground_truth
    dt = detections if isinstance(detections, Detections) else Detections.from_coco(
        detections) if isinstance(detections, (str, Path, list, tuple)) else None
    if dt is None:
        raise _checks.wrong_type("detections", detections,
                                 "a Detections, an LVIS results JSON path or its parsed list")
    kept = federated_detections(lvis, dt, protocol)
    state = DetectionState.from_batch(lvis.ground_truth, kept, protocol)
    records = not_exhaustive_outside(SortedRecords.from_state(state), lvis)
    precision, recall, scores = accumulate(records, protocol)
    file_order = lvis.ground_truth.categories
    letters = np.asarray(_lvis_checks.FREQUENCIES)[lvis.frequency]
    frequency = letters if file_order is None else letters[np.argsort(file_order,
                                                                      kind="stable")]
    return LVISEvaluation(state, records, frequency, precision, recall, scores)

"""The two evaluation protocols and their parameters (docs/detection.md).

:class:`COCOProtocol` is pycocotools' ``Params`` for ``iouType='bbox'``: the
same default thresholds, built the same way (``numpy.linspace``, so 0.75 is
exactly one of them), the same area ranges and maximum detections.
:class:`VOCProtocol` is the PASCAL VOC devkit's: one IoU threshold (0.5),
inclusive pixel coordinates, difficult objects ignored, and the AP method
(``"interpolated"``: VOC 2010+ all-point; ``"11point"``: VOC 2007).
Both are frozen and compare by value: states merge only under equal protocols.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.detection.keypoints import COCO_SIGMAS
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks

__all__ = ["SIMILARITY_NAMES", "COCOProtocol", "VOCProtocol", "similarity_name"]

SIMILARITY_NAMES = {"bbox": "box IoU", "segm": "mask IoU", "keypoints": "OKS"}
"""What each ``iou_type`` compares, as plots, tables and summaries name it."""


def similarity_name(iou_type: str) -> str:
    """``"box IoU"``, ``"mask IoU"`` or ``"OKS"`` (keypoints' object keypoint similarity).

    >>> similarity_name("segm")
    'mask IoU'
    """
    return SIMILARITY_NAMES.get(iou_type, f"{iou_type} IoU")

# pycocotools' Params.setDetParams: linspace, "np.arange causes trouble".
_COCO_IOU = tuple(float(t) for t in np.linspace(
    0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True))
_COCO_RECALL = tuple(float(r) for r in np.linspace(
    0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True))
# pycocotools' setKpParams: no small range, 20 detections per image.
_KEYPOINT_AREAS = (("all", 0.0, 1e5**2), ("medium", 32.0**2, 96.0**2), ("large", 96.0**2, 1e5**2))
_COCO_AREAS = (("all", 0.0, 1e5**2), ("small", 0.0, 32.0**2), ("medium", 32.0**2, 96.0**2),
               ("large", 96.0**2, 1e5**2))

INTERVALS = ("percentile", "basic")
"""The bootstrap intervals of :mod:`prcurve.detection.bootstrap` (here, so that the
command line checks ``--interval`` without loading the bootstrap)."""

VOC_AP_METHODS = ("interpolated", "11point", "step", "trapezoid", "101point", "davis_goadrich")


@dataclass(frozen=True)
class COCOProtocol:
    """COCO's box protocol and its parameters (pycocotools ``Params``, ``iouType='bbox'``).

    Parameters
    ----------
    iou_thresholds : array_like, default 0.50:0.05:0.95
        Increasing IoU thresholds T; a match needs IoU >= t (capped at 1 - 1e-10).
    recall_thresholds : array_like, default 0:0.01:1
        The R recall levels at which precision is read (101 points).
    max_dets : sequence of int, default (1, 10, 100)
        Detections kept per image and category, highest scores first (sorted).
    area_ranges : mapping or sequence, default all/small/medium/large
        ``{label: (low, high)}``: ground truth whose ``area`` lies outside
        ``[low, high]`` is ignored, and so are unmatched detections whose box
        area does.
    iou_type : {"bbox", "segm", "keypoints"}, default "bbox"
        What IoU compares: boxes, instance masks, or keypoints by their object
        keypoint similarity (pycocotools ``iouType``). Keypoints change the
        defaults as pycocotools' ``setKpParams`` does: ``max_dets=(20,)`` and
        the area ranges all, medium and large.
    oks_sigmas : sequence of float, optional
        Keypoints only: one constant per keypoint (default COCO's 17,
        :data:`prcurve.detection.keypoints.COCO_SIGMAS`).

    Examples
    --------
    >>> from prcurve.detection import COCOProtocol
    >>> p = COCOProtocol()
    >>> len(p.iou_thresholds), len(p.recall_thresholds), p.max_dets, p.area_labels
    (10, 101, (1, 10, 100), ('all', 'small', 'medium', 'large'))
    """

    iou_thresholds: tuple[float, ...] = _COCO_IOU
    recall_thresholds: tuple[float, ...] = _COCO_RECALL
    max_dets: tuple[int, ...] = (1, 10, 100)
    area_ranges: tuple[tuple[str, float, float], ...] = field(default=_COCO_AREAS)
    iou_type: str = "bbox"
    oks_sigmas: tuple[float, ...] = ()

    name = "coco"

    def __init__(self, iou_thresholds: ArrayLike = _COCO_IOU,
                 recall_thresholds: ArrayLike = _COCO_RECALL, max_dets: Any = None,
                 area_ranges: Any = None, iou_type: str = "bbox",
                 oks_sigmas: Any = None) -> None:
        kind = _checks.check_iou_type(iou_type)
        keypoints = kind == "keypoints"
        if max_dets is None:
            max_dets = (20,) if keypoints else (1, 10, 100)
        if area_ranges is None:
            area_ranges = _KEYPOINT_AREAS if keypoints else _COCO_AREAS
        sigmas = (_keypoint_checks.check_sigmas(oks_sigmas) if oks_sigmas is not None
                  else COCO_SIGMAS) if keypoints else ()
        ious = _checks.check_thresholds("iou_thresholds", iou_thresholds)
        recalls = _checks.check_thresholds("recall_thresholds", recall_thresholds)
        object.__setattr__(self, "iou_thresholds", tuple(float(t) for t in ious))
        object.__setattr__(self, "recall_thresholds", tuple(float(r) for r in recalls))
        object.__setattr__(self, "max_dets", _checks.check_max_dets(max_dets))
        object.__setattr__(self, "area_ranges", _checks.check_area_ranges(area_ranges))
        object.__setattr__(self, "iou_type", kind)
        object.__setattr__(self, "oks_sigmas", sigmas)

    @property
    def area_labels(self) -> tuple[str, ...]:
        return tuple(label for label, _, _ in self.area_ranges)

    @property
    def n_areas(self) -> int:
        return len(self.area_ranges)

    @property
    def keep_per_image(self) -> int | None:
        """Detections kept per image and category (the largest ``max_dets``)."""
        return self.max_dets[-1]

    def outside(self, area: NDArray[np.float64]) -> NDArray[np.bool_]:
        """``[a, i]``: area ``i`` lies outside area range ``a`` (an unmatched detection
        there is ignored)."""
        low = np.array([lo for _, lo, _ in self.area_ranges])[:, None]
        high = np.array([hi for _, _, hi in self.area_ranges])[:, None]
        out: NDArray[np.bool_] = (area[None, :] < low) | (area[None, :] > high)
        return out


@dataclass(frozen=True)
class VOCProtocol:
    """PASCAL VOC's protocol (the devkit's ``VOCevaldet.m``) and its parameters.

    Parameters
    ----------
    iou_threshold : float or sequence of float, default 0.5
        A detection matches when its overlap with the best ground truth is
        ``>= iou_threshold`` (one threshold, or several evaluated side by side).
    ap_method : str, default "interpolated"
        ``"interpolated"`` (VOC 2010+ all-point), ``"11point"`` (VOC 2007) or
        any other prcurve AP method.
    inclusive_pixels : bool, default True
        The devkit's pixel convention: widths and heights are ``x2 - x1 + 1``.
        False for continuous coordinates.

    Examples
    --------
    >>> from prcurve.detection import VOCProtocol
    >>> VOCProtocol(ap_method="11point").iou_thresholds
    (0.5,)
    """

    iou_thresholds: tuple[float, ...] = (0.5,)
    ap_method: str = "interpolated"
    inclusive_pixels: bool = True

    name = "voc"

    def __init__(self, iou_threshold: Any = 0.5, ap_method: str = "interpolated",
                 inclusive_pixels: bool = True) -> None:
        ious = _checks.check_thresholds("iou_threshold", iou_threshold)
        object.__setattr__(self, "iou_thresholds", tuple(float(t) for t in ious))
        object.__setattr__(self, "ap_method",
                           _checks.check_choice("ap_method", ap_method, VOC_AP_METHODS))
        if not isinstance(inclusive_pixels, bool):
            raise _checks.wrong_type("inclusive_pixels", inclusive_pixels, "True or False")
        object.__setattr__(self, "inclusive_pixels", inclusive_pixels)

    @property
    def area_labels(self) -> tuple[str, ...]:
        return ("all",)

    @property
    def n_areas(self) -> int:
        return 1

    @property
    def keep_per_image(self) -> int | None:
        return None

    def outside(self, area: NDArray[np.float64]) -> NDArray[np.bool_]:
        """VOC has no area ranges: nothing is outside."""
        return np.zeros((1, area.shape[0]), dtype=bool)


Protocol = COCOProtocol | VOCProtocol

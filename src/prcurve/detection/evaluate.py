"""``evaluate_coco`` and ``evaluate_voc``: a whole data set in one call."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prcurve.detection.coco import COCOEvaluation
from prcurve.detection.inputs import Detections, GroundTruth
from prcurve.detection.protocol import COCOProtocol, VOCProtocol
from prcurve.detection.state import DetectionState
from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from prcurve.detection.voc import VOCEvaluation

__all__ = ["evaluate_coco", "evaluate_voc"]


def as_ground_truth(value: Any) -> GroundTruth:
    """A GroundTruth, a COCO instances file or its parsed object."""
    if isinstance(value, GroundTruth):
        return value
    if isinstance(value, (str, Path, Mapping)):
        return GroundTruth.from_coco(value)
    raise _checks.wrong_type("ground_truth", value,
                             "a GroundTruth, a COCO instances JSON path or its parsed dict")


def as_detections(value: Any) -> Detections:
    """A Detections, a COCO results file or its parsed list."""
    if isinstance(value, Detections):
        return value
    if isinstance(value, (str, Path, list, tuple)):
        return Detections.from_coco(value)
    raise _checks.wrong_type("detections", value,
                             "a Detections, a COCO results JSON path or its parsed list")


def evaluate_coco(
    ground_truth: Any,
    detections: Any,
    *,
    iou_type: str | None = None,
    protocol: COCOProtocol | None = None,
    **parameters: Any,
) -> COCOEvaluation:
    """COCO's box evaluation, equal to pycocotools' ``COCOeval`` (evaluate, accumulate,
    summarize) on the same input.

    Parameters
    ----------
    ground_truth : GroundTruth, path or dict
        The ground truth, or a COCO instances JSON file (path) or its parsed object.
    detections : Detections, path or list
        The detections, or a COCO results JSON file (path) or its parsed list.
    iou_type : {"bbox", "segm", "keypoints"}, optional
        Boxes (the default), instance masks (``segmentation`` of the ground
        truth and of the results; equal to ``COCOeval(..., 'segm')``) or
        keypoints (``keypoints``, OKS; ``COCOeval(..., 'keypoints')``).
        Default: the protocol's, ``"bbox"`` without one.
    protocol : COCOProtocol, optional
        Non-default parameters as an object; or pass them as keywords:
    **parameters
        ``iou_thresholds``, ``recall_thresholds``, ``max_dets``,
        ``area_ranges`` (:class:`COCOProtocol`).

    Returns
    -------
    COCOEvaluation
        ``precision`` [T, R, K, A, M], ``recall`` [T, K, A, M], ``stats`` (12),
        ``summary()``, per-category curves and tables.

    Examples
    --------
    >>> from prcurve.detection import evaluate_coco
    >>> gt = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 10], "area": 100, "iscrowd": 0}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 9], "score": 0.9}]
    >>> result = evaluate_coco(gt, dt)
    >>> [round(float(s), 3) for s in result.stats[:3]]  # AP, AP50, AP75 (IoU 0.9)
    [0.9, 1.0, 1.0]
    """
    if protocol is None:
        protocol = COCOProtocol(**parameters, iou_type=iou_type or "bbox")
    elif parameters:
        raise _checks.protocol_and_parameters("COCOProtocol", list(parameters))
    elif not isinstance(protocol, COCOProtocol):
        raise _checks.wrong_type("protocol", protocol, "a COCOProtocol")
    elif iou_type is not None and _checks.check_iou_type(iou_type) != protocol.iou_type:
        # Boxes and masks share every parameter; keypoints have their own defaults.
        if "keypoints" in (iou_type, protocol.iou_type):
            raise _checks.iou_type_and_protocol(iou_type, protocol.iou_type)
        protocol = dataclasses.replace(protocol, iou_type=iou_type)
    gt = as_ground_truth(ground_truth)
    dt = as_detections(detections)
    evaluation = DetectionState.from_batch(gt, dt, protocol).compute()
    if not isinstance(evaluation, COCOEvaluation):  # pragma: no cover - protocol is COCO
        raise TypeError("expected a COCO evaluation")
    return evaluation


def evaluate_voc(
    ground_truth: Any,
    detections: Any,
    *,
    iou_threshold: Any = 0.5,
    ap_method: str = "interpolated",
    inclusive_pixels: bool = True,
    ties: str = "grouped",
) -> VOCEvaluation:
    """PASCAL VOC's evaluation: per-class AP at IoU >= 0.5 and their mean.

    Parameters
    ----------
    ground_truth, detections
        As for :func:`evaluate_coco` (``difficult`` flags are read from the
        ground truth; crowd regions count as difficult).
    iou_threshold : float or sequence of float, default 0.5
    ap_method : str, default "interpolated"
        ``"interpolated"`` (VOC 2010+ all-point) or ``"11point"`` (VOC 2007).
    inclusive_pixels : bool, default True
        The devkit's ``+ 1`` pixel convention for widths and heights.
    ties : {"grouped", "file-order"}, default "grouped"
        How the AP walks tied scores: ``"grouped"``, one operating point per distinct
        score (prcurve's convention); ``"file-order"``, one point per detection with
        tied detections in the order of the input (the order of a COCO results file),
        which is the devkit's walk (``VOCevaldet.m``'s stable ``sort(-confidence)``):
        its AP exactly. Curves and best-F views stay grouped (docs/detection.md).

    Returns
    -------
    VOCEvaluation

    Examples
    --------
    >>> from prcurve.detection import evaluate_voc, GroundTruth, Detections
    >>> gt = GroundTruth([1, 1], [1, 1], [[0, 0, 9, 9], [0, 20, 9, 9]], difficult=[0, 1])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 9, 9], [0, 20, 9, 9]], [0.9, 0.8])
    >>> evaluate_voc(gt, dt, ap_method="11point").ap.tolist()  # the difficult hit is ignored
    [[1.0]]
    """
    from prcurve.detection.voc import VOCEvaluation  # not loaded by `prcurve coco`

    protocol = VOCProtocol(iou_threshold, ap_method, inclusive_pixels)
    gt = as_ground_truth(ground_truth)
    dt = as_detections(detections)
    return VOCEvaluation.from_state(DetectionState.from_batch(gt, dt, protocol), ties)

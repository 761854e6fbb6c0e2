"""Object detection: COCO and PASCAL VOC mean average precision, exact and fast.

Boxes -> IoU -> greedy matching -> one count state per (category, IoU
threshold, area range, maximum detections) -> the views prcurve has for any
count state. Protocols and conventions: docs/detection.md.

- :func:`evaluate_coco`: pycocotools' ``COCOeval`` (bbox) to the last bit:
  ``precision`` [T, R, K, A, M], ``recall``, the 12 statistics and the
  printed summary; plus per-category :class:`~prcurve.PRCurve` objects,
  best-F thresholds and plots.
- ``iou_type="segm"``: instance masks, equal to ``COCOeval(..., 'segm')``;
  :mod:`prcurve.detection.masks` has pycocotools.mask's operations.
- :func:`evaluate_lvis`: lvis-api's federated ``LVISEval`` (bbox, segm):
  APr/APc/APf and its printed summary.
- :func:`evaluate_voc`: the PASCAL VOC devkit's AP at IoU >= 0.5 (all-point
  or 11-point), difficult objects ignored.
- :class:`DetectionEvaluator`: ``update(ground_truth, detections)`` per
  batch of images, ``compute()`` at the end; :class:`DetectionState` merges.
- :func:`bootstrap_detection` and :func:`compare_detectors`: image-level
  bootstrap intervals for mAP and AP50, and a paired comparison.

Inputs are :class:`GroundTruth` and :class:`Detections` (arrays, tables,
COCO JSON, per-image dicts). Needs numpy only; matplotlib for plots.
"""

from typing import TYPE_CHECKING

from prcurve._lazy import lazy_attributes

if TYPE_CHECKING:  # the type checker sees every name; at run time __getattr__ loads it
    from prcurve.detection.bootstrap import bootstrap_detection, compare_detectors
    from prcurve.detection.boxes import box_iou
    from prcurve.detection.coco import STAT_NAMES, COCOEvaluation
    from prcurve.detection.evaluate import evaluate_coco, evaluate_voc
    from prcurve.detection.inputs import Detections, GroundTruth
    from prcurve.detection.lvis import (
        LVIS_STAT_NAMES,
        LVISEvaluation,
        LVISProtocol,
        evaluate_lvis,
    )
    from prcurve.detection.protocol import COCOProtocol, VOCProtocol
    from prcurve.detection.state import DetectionEvaluator, DetectionState
    from prcurve.detection.voc import VOCEvaluation

# Each public name: the module defining it. Lazy (PEP 562) because importing one module
# of this package imports the package first: eager imports here made `prcurve coco`
# load the bootstrap (and prcurve.space.intervals), LVIS and VOC to evaluate boxes
# (issue 26, item 2). Kept equal to the TYPE_CHECKING imports above
# (tests/test_coco_startup.py).
_LAZY: dict[str, str] = {
    **dict.fromkeys(("bootstrap_detection", "compare_detectors"),
                    "prcurve.detection.bootstrap"),
    "box_iou": "prcurve.detection.boxes",
    **dict.fromkeys(("STAT_NAMES", "COCOEvaluation"), "prcurve.detection.coco"),
    **dict.fromkeys(("evaluate_coco", "evaluate_voc"), "prcurve.detection.evaluate"),
    **dict.fromkeys(("Detections", "GroundTruth"), "prcurve.detection.inputs"),
    **dict.fromkeys(("LVIS_STAT_NAMES", "LVISEvaluation", "LVISProtocol", "evaluate_lvis"),
                    "prcurve.detection.lvis"),
    **dict.fromkeys(("COCOProtocol", "VOCProtocol"), "prcurve.detection.protocol"),
    **dict.fromkeys(("DetectionEvaluator", "DetectionState"), "prcurve.detection.state"),
    "VOCEvaluation": "prcurve.detection.voc",
}


# Public names and submodules loaded on first use (PEP 562) and kept.
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())


__all__ = [
    "LVIS_STAT_NAMES",
    "STAT_NAMES",
    "COCOEvaluation",
    "COCOProtocol",
    "DetectionEvaluator",
    "DetectionState",
    "Detections",
    "GroundTruth",
    "LVISEvaluation",
    "LVISProtocol",
    "VOCEvaluation",
    "VOCProtocol",
    "bootstrap_detection",
    "box_iou",
    "compare_detectors",
    "evaluate_coco",
    "evaluate_lvis",
    "evaluate_voc",
]

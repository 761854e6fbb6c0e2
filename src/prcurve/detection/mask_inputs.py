"""The masks of one batch for the ``segm`` evaluation (pycocotools ``COCOeval`` with ``'segm'``).

Ground truth is read as COCO's ``annToRLE`` does: polygons (a list of
``[x1, y1, x2, y2, ...]``) are rasterized on the image's grid and merged
into one mask; a run-length encoding (compressed string, or a list of run
lengths as crowd regions carry) is taken as it is. Detections are RLEs (as
pycocotools' ``loadRes`` requires) or polygons. Every mask must have its
image's size: pycocotools compares masks of other sizes wrongly (IoU -1), so
prcurve refuses them. Masks are converted once per batch, when evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection import masks as _masks
from prcurve.detection.rle import MaskSet, counts_from_string, polygon_counts
from prcurve.validation import masks as _checks

__all__ = ["batch_masks", "segmentation_counts"]

U32 = NDArray[np.uint32]


def segmentation_counts(segmentation: Any, h: int, w: int, argument: str) -> tuple[U32, int, int]:
    """Run lengths and size of one segmentation drawn on an h x w image (``annToRLE``)."""
    if isinstance(segmentation, list):
        if not segmentation:
            raise _checks.bad_polygon(argument, 0, segmentation)
        polygons = [polygon_counts(_checks.check_polygon(argument, i, p), h, w)
                    for i, p in enumerate(segmentation)]
        if len(polygons) == 1:
            return polygons[0].astype(np.uint32), h, w
        merged = _masks.merge([{"size": [h, w], "counts": p.tolist()} for p in polygons])
        return counts_from_string(merged["counts"]), h, w
    if not _checks.is_rle(segmentation):
        raise _checks.not_an_rle(argument, segmentation)
    return _masks.read_rle(segmentation, argument)


def _set(segmentation: NDArray[Any] | None, image_id: NDArray[Any],
         sizes: Mapping[Any, tuple[int, int]], argument: str, field: str) -> MaskSet:
    n = image_id.shape[0]
    if segmentation is None and n:
        raise _checks.missing_segmentation(argument, field, 0, "segm")
    counts, shapes = [], []
    for i in range(n):
        value = segmentation[i] if segmentation is not None else None
        if value is None:
            raise _checks.missing_segmentation(argument, field, i, "segm")
        image = image_id[i].item() if isinstance(image_id[i], np.generic) else image_id[i]
        if image not in sizes:
            raise _checks.missing_image_size(argument, image)
        h, w = sizes[image]
        c, rh, rw = segmentation_counts(value, h, w, f"{argument} {field}[{i}]['segmentation']")
        if (rh, rw) != (h, w):
            raise _checks.size_not_image(argument, i, (rh, rw), (h, w), image)
        counts.append(c)
        shapes.append((h, w))
    return MaskSet.of(counts, shapes)


def batch_masks(gt_segmentation: NDArray[Any] | None, gt_image_id: NDArray[Any],
                dt_segmentation: NDArray[Any] | None, dt_image_id: NDArray[Any],
                sizes: Mapping[Any, tuple[int, int]]) -> tuple[MaskSet, MaskSet]:
    """The ground truth's and the detections' masks, row for row."""
    return (_set(gt_segmentation, gt_image_id, sizes, "ground_truth", "annotations"),
            _set(dt_segmentation, dt_image_id, sizes, "detections", "results"))

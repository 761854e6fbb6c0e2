"""What COCO's and VOC's evaluations share: category lookup, best-F tables, JSON cleaning."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from prcurve.core.curve import PRCurve
    from prcurve.core.table import Table
    from prcurve.detection.coco import SortedRecords
    from prcurve.detection.state import DetectionState

__all__ = ["CategoryViews", "evaluation_html", "json_value"]


def evaluation_html(protocol: Any, summary: str, per_category: Table) -> str:
    """A detection evaluation in a notebook: which protocol and similarity (box IoU,
    mask IoU or OKS), the printed summary, and the per-category table (its first and
    last 10 rows when longer)."""
    import html

    from prcurve.detection.protocol import similarity_name

    name = str(getattr(protocol, "name", "detection")).upper()
    kind = similarity_name(str(getattr(protocol, "iou_type", "bbox")))
    return (f"<div><p><b>{html.escape(name)} evaluation ({html.escape(kind)})</b></p>"
            f"<pre>{html.escape(summary)}</pre>{per_category.to_html(max_rows=20)}</div>")


def json_value(value: Any) -> Any:
    """NaN as None (JSON's null); anything else unchanged."""
    return None if isinstance(value, float) and math.isnan(value) else value


class CategoryViews:
    """Category lookup by id or name, and per-category tables of a detection evaluation."""

    categories: NDArray[Any]
    images: NDArray[Any]
    category_names: dict[Any, str]
    protocol: Any
    state: DetectionState
    _records: SortedRecords

    def _repr_html_(self) -> str:
        """Notebook display (:func:`evaluation_html`)."""
        evaluation: Any = self  # COCOEvaluation or VOCEvaluation: summary, per_category
        return evaluation_html(self.protocol, evaluation.summary(), evaluation.per_category())

    def _adopt(self, state: DetectionState, records: SortedRecords) -> None:
        """The attributes both evaluations take from the state and its sorted records."""
        self.state = state
        self._records = records
        self.categories = records.categories
        self.images = records.images
        self.category_names = state.category_names

    def _t(self, iou_threshold: float) -> int:
        """The index of an IoU threshold of the protocol (given to within 1e-9)."""
        thresholds = np.asarray(self.protocol.iou_thresholds)
        value = _checks.check_fraction("iou_threshold", iou_threshold)
        close = np.flatnonzero(np.abs(thresholds - value) < 1e-9)
        if close.shape[0] == 0:
            raise _checks.unknown_setting("iou_threshold", iou_threshold,
                                          [round(t, 4) for t in thresholds.tolist()])
        return int(close[0])

    def _k(self, category: Any) -> int:
        """The index of a category given by id, or else by name."""
        for k, value in enumerate(self.categories.tolist()):
            if value == category and not isinstance(category, bool):
                return k
        for cid, name in self.category_names.items():
            if name == category:
                return self._k(cid)
        raise _checks.unknown_category(category, self.categories)

    def _name(self, k: int) -> str:
        cid = self.categories[k].item()
        return self.category_names.get(cid, str(cid))

    def _best_f_table(self, curve_of: Callable[[int], PRCurve], beta: Any) -> Table:
        """Per category, the threshold of maximal F-beta on ``curve_of(k)`` and its
        precision and recall (NaN without ground truth or detections)."""
        b = _checks.check_positive_number("beta", beta)
        name = f"f{b:g}"
        rows: dict[str, list[Any]] = {"category_id": [], "name": [], "threshold": [],
                                      name: [], "precision": [], "recall": []}
        for k in range(self.categories.shape[0]):
            curve = curve_of(k)
            if curve.n_pos == 0 or len(curve) == 0:
                point = (math.nan,) * 4
            else:
                best = curve.best_f(b)
                point = (best.threshold, best.value, best.precision, best.recall)
            rows["category_id"].append(self.categories[k].item())
            rows["name"].append(self._name(k))
            for key, value in zip(("threshold", name, "precision", "recall"), point,
                                  strict=True):
                rows[key].append(value)
        from prcurve.core.table import Table  # loaded by a view, not by the summary

        return Table({key: np.asarray(values, dtype=object if key == "name" else None)
                      for key, values in rows.items()})

    def _category_rows(self, per_category: Table, best: Table) -> list[dict[str, Any]]:
        """JSON rows: each category's table entries and its best-F1 point."""
        table = per_category.to_dict()
        points = best.to_dict()
        return [
            {**{key: json_value(table[key][k]) for key in table},
             "best_f1": {key: json_value(points[key][k])
                         for key in ("threshold", "f1", "precision", "recall")}}
            for k in range(self.categories.shape[0])
        ]

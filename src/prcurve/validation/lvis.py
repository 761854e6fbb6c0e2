"""Every check of LVIS input: the federated fields of an LVIS ground-truth file.

LVIS files are COCO files with three more fields that lvis-api's ``LVISEval``
reads: per image ``neg_category_ids`` (categories verified absent) and
``not_exhaustive_category_ids`` (categories whose instances are not all
annotated), and per category ``frequency`` (``"r"``, ``"c"`` or ``"f"``).
lvis-api fails on a file without them with a ``KeyError`` deep in its
evaluation; here each is one :class:`~prcurve.errors.InvalidInputError`
naming the record. Nothing here modifies its input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError

__all__ = [
    "FEDERATED_FIELDS",
    "FREQUENCIES",
    "check_frequencies",
    "check_lvis_max_dets",
    "federated_pairs",
    "lvis_state",
]

FEDERATED_FIELDS = ("neg_category_ids", "not_exhaustive_category_ids")
FREQUENCIES = ("r", "c", "f")

_WHY = ("LVIS's federated protocol needs, per image, the categories verified absent "
        "('neg_category_ids') and those not exhaustively annotated "
        "('not_exhaustive_category_ids'), [] when none")


def _is_id(value: Any, kind: type) -> bool:
    return type(value) is kind


def federated_pairs(argument: str, images: Sequence[Any], key: str,
                    category_kind: type) -> tuple[NDArray[np.int64], list[Any]]:
    """Image ``key``'s category lists flattened: (index of the image, category id) pairs.

    Every image record must carry ``key`` as a list of ids of the categories' kind
    (``category_kind``: ``int`` or ``str``).
    """
    rows: list[int] = []
    ids: list[Any] = []
    for index, record in enumerate(images):
        if not isinstance(record, dict) or key not in record:
            found = f"has no {key!r}" if isinstance(record, dict) else "is not a JSON object"
            raise InvalidInputError(argument, f"images[{index}] {found} (an LVIS file is "
                                    "needed)", _WHY)
        values = record[key]
        if not isinstance(values, list) or not all(_is_id(v, category_kind) for v in values):
            shown = repr(values)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise InvalidInputError(
                argument, f"images[{index}][{key!r}] is {shown}",
                f"give it a list of category ids ({category_kind.__name__}s, as the "
                "categories' ids are)")
        rows.extend([index] * len(values))
        ids.extend(values)
    return np.asarray(rows, dtype=np.int64), ids


def check_frequencies(argument: str, categories: Sequence[Any]) -> NDArray[np.int8]:
    """Each category's ``frequency`` as 0 (rare), 1 (common) or 2 (frequent)."""
    codes = np.zeros(len(categories), dtype=np.int8)
    for index, record in enumerate(categories):
        value = record.get("frequency") if isinstance(record, dict) else None
        if value not in FREQUENCIES:
            found = ("has no 'frequency'" if isinstance(record, dict) and (
                "frequency" not in record) else f"['frequency'] is {value!r}")
            raise InvalidInputError(
                argument, f"categories[{index}] {found} (an LVIS file is needed)",
                "give every category its 'frequency': 'r' (rare), 'c' (common) or "
                "'f' (frequent), which LVIS's APr, APc and APf group by")
        codes[index] = FREQUENCIES.index(value)
    return codes


def check_lvis_max_dets(value: Any) -> int:
    """Detections kept per image (lvis-api's ``max_dets``): a whole number >= 1."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1:
        return int(value)
    raise InvalidInputError("max_dets", f"found {value!r}",
                            "give the detections kept per image as a whole number >= 1 "
                            "(LVIS: 300)")


def lvis_state() -> InvalidInputError:
    """A state under the LVIS protocol computed alone (without the federated lists)."""
    return InvalidInputError(
        "protocol", "an LVISProtocol state cannot be computed on its own",
        "evaluate LVIS with prcurve.detection.evaluate_lvis(ground_truth, detections), which "
        "reads each image's neg_category_ids and not_exhaustive_category_ids")

"""COCO JSON: the instances file (ground truth) and the results list (detections).

Files are read as UTF-8 JSON (``json`` is imported here, when a file is
read), gzip-compressed or not (``instances.json.gz``, known by its first bytes); a
parse error names the file, the line, the column and the character.
Records are turned into arrays in one pass per field; only when that pass
fails are the records scanned one by one, to name the first bad one
(``annotations[12]['bbox']``). The parsed objects are never modified
(pycocotools' ``loadRes`` adds ``area``, ``id`` and ``segmentation`` to the
caller's dicts; prcurve computes the same values on the side).
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from prcurve.core.gc_pause import no_cycle_collection
from prcurve.detection.json_parts import PART_BYTES, array_parts
from prcurve.validation import boxes as _checks

__all__ = ["ground_truth_fields", "read_json", "results_fields"]


_GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of every gzip file (RFC 1952)."""


def read_json(path: str | Path, argument: str) -> Any:
    """Parse a JSON file, gzip-compressed or not (``.json.gz``); errors name the file and
    the position."""
    import json

    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise _checks.unreadable_file(argument, name, error.strerror or str(error)) from None
    if raw[:2] == _GZIP_MAGIC:  # instances.json.gz: known by its bytes, whatever its name
        import gzip
        import zlib

        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise _checks.unreadable_file(argument, name, f"not a whole gzip file: {error}"
                                          ) from None
    with no_cycle_collection():
        fast = _orjson_loads(raw)
    if fast is not _NOT_READ:
        return fast
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _checks.not_utf8(argument, name, error.start) from None
    del raw  # the bytes and the text are not held together while json parses
    try:
        with no_cycle_collection():
            return json.loads(text)
    except json.JSONDecodeError as error:
        raise _checks.malformed_json(argument, name, error.msg, error.lineno, error.colno,
                                     error.pos) from None
    except RecursionError:
        raise _checks.malformed_json(argument, name, "nested too deeply", 1, 1, 0) from None


_NOT_READ: Any = object()
_BOM = b"\xef\xbb\xbf"


def _orjson_loads(raw: bytes) -> Any:
    """The file parsed by orjson when it is installed and accepts it, else ``_NOT_READ``.

    orjson (the optional ``json`` extra) parses about twice as fast as the standard library
    and from the bytes, without a decoded copy of the text; a large array is parsed in
    parts, so that its tree and the Python objects are not held whole together. What it
    accepts it reads as ``json.loads`` does (the same dicts, lists, strings, ints and
    correctly rounded floats; the last of duplicate keys). What it refuses (``NaN``,
    integers beyond 64 bits, text that is not UTF-8, errors) goes to the standard library,
    whose reading and error messages (file, line, column) stay the only ones users see.
    """
    try:
        import orjson
    except ImportError:
        return _NOT_READ
    body = memoryview(raw)[3:] if raw[:3] == _BOM else memoryview(raw)
    try:
        # A large array (a results file) in parts: one part's orjson tree at a time
        # (prcurve.detection.json_parts); the same records, in order.
        parts = array_parts(body, PART_BYTES) if len(body) > 2 * PART_BYTES else None
        if parts is None:
            return orjson.loads(body)
        records: list[Any] = []
        for start, stop in parts:
            records.extend(orjson.loads(b"[" + body[start:stop] + b"]"))
        return records
    except ValueError:  # orjson.JSONDecodeError
        return _NOT_READ


def _load(source: Any, argument: str) -> tuple[Any, str]:
    if isinstance(source, (str, Path)):
        return read_json(source, argument), f"{argument} ({source})"
    return source, argument


class _Records:
    """A list of JSON objects read field by field, with exact error locations."""

    def __init__(self, records: Any, argument: str, field: str) -> None:
        if not isinstance(records, list):
            raise _checks.not_ground_truth(argument, f"{field!r} as {_checks.describe(records)}") \
                if field != "results" else _checks.not_results(argument,
                                                               _checks.describe(records))
        self.records = records
        self.argument = argument
        self.field = field
        self._keys: set[str] | None = None  # every key any record has, found in one pass

    def __len__(self) -> int:
        return len(self.records)

    def _locate(self, key: str, ok: Callable[[Any], bool], expected: str) -> Exception:
        """The error for the first record whose ``key`` is missing or not ``ok``."""
        for index, record in enumerate(self.records):
            if not isinstance(record, dict):
                return _checks.not_a_record(self.argument, self.field, index, record)
            if key not in record:
                return _checks.missing_key(self.argument, self.field, index, key, record)
            if not ok(record[key]):
                return _checks.bad_record(self.argument, self.field, index, key, record[key],
                                          expected)
        return _checks.bad_record(self.argument, self.field, 0, key, "?", expected)

    def values(self, key: str) -> list[Any]:
        try:
            return [record[key] for record in self.records]
        except (KeyError, TypeError):
            raise self._locate(key, lambda v: True, "a value") from None

    def has_any(self, key: str) -> bool:
        if self._keys is None:  # one pass over the records, not one per optional key
            self._keys = set().union(*self._dicts())
        return key in self._keys

    def _dicts(self) -> list[Any]:
        """The records that are dicts (all of them, tested by one pass over their types)."""
        if set(map(type, self.records)) <= {dict}:
            return self.records
        return [r for r in self.records if isinstance(r, dict)]

    def ids(self, key: str) -> NDArray[Any]:
        values = self.values(key)
        kinds = set(map(type, values))
        if kinds <= {int} or kinds <= {str}:
            return _checks.check_ids(f"{self.argument} {self.field}[*][{key!r}]", values)
        first = type(values[0])
        if first not in (int, str):
            raise _checks.bad_record(self.argument, self.field, 0, key, values[0],
                                     "an integer or string id")
        index = next(i for i, v in enumerate(values) if type(v) is not first)
        if type(values[index]) in (int, str):
            raise _checks.mixed_record_ids(self.argument, self.field, key, index,
                                           values[index], values[0])
        raise _checks.bad_record(self.argument, self.field, index, key, values[index],
                                 "an integer or string id")

    def numbers(self, key: str, *, default: Callable[[], NDArray[Any]] | None = None,
                expected: str = "a finite number") -> NDArray[np.float64]:
        if default is not None and not self.has_any(key):
            return default()
        values = self.values(key)
        try:
            array = np.array(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int past 1.8e308
            array = np.zeros((0, 0))
        # A string or a boolean would convert silently: only JSON numbers are numbers.
        if array.ndim != 1 or not np.isfinite(array).all() or not set(map(type, values)) <= {
                int, float}:
            raise self._locate(key, _finite_number, expected)
        return array

    def boxes(self) -> NDArray[np.float64]:
        values = self.values("bbox")
        try:
            array = np.array(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int past 1.8e308
            array = np.zeros((0, 0))
        if len(values) == 0:
            return np.zeros((0, 4))
        if array.ndim != 2 or array.shape[1] != 4 or not np.isfinite(array).all() or not set(
                map(type, itertools.chain.from_iterable(values))) <= {int, float}:
            raise self._locate("bbox", _box, "4 finite numbers [x, y, width, height]")
        negative = (array[:, 2] < 0) | (array[:, 3] < 0)
        if negative.any():
            index = int(np.flatnonzero(negative)[0])
            raise _checks.bad_record(self.argument, self.field, index, "bbox", values[index],
                                     "a non-negative width and height ([x, y, width, height])")
        return array

    def optional_objects(self, key: str) -> list[Any] | None:
        """Each record's ``key`` (None where absent), or None when no record has it."""
        if not self.has_any(key):
            return None
        if self._dicts() is self.records:
            return list(map(operator.methodcaller("get", key), self.records))
        return [record.get(key) if isinstance(record, dict) else None for record in self.records]

    def keypoints(self) -> NDArray[np.float64] | None:
        """Every record's ``keypoints`` as rows of equal length, or None when none has them."""
        values = self.optional_objects("keypoints")
        if values is None:
            return None
        try:
            array = np.array(values, dtype=np.float64)
        except (TypeError, ValueError):
            array = np.zeros((0, 0))
        if array.ndim == 2 and array.shape[0] == len(values) and array.shape[1] % 3 == 0 and (
                np.isfinite(array).all()):
            return array
        width = len(values[0]) if isinstance(values[0], list) else -1
        return self._fail("keypoints", lambda v: isinstance(v, list) and len(v) == width
                          and len(v) % 3 == 0 and all(map(_finite_number, v)),
                          f"{width if width > 0 else 'a multiple of 3'} finite numbers "
                          "[x1, y1, v1, ...], as the first record has")

    def _fail(self, key: str, ok: Callable[[Any], bool], expected: str) -> NoReturn:
        raise self._locate(key, ok, expected)

    def flags(self, key: str) -> NDArray[np.bool_] | None:
        if not self.has_any(key):
            return None
        values = [record.get(key, 0) for record in self.records]
        array = np.array(values, dtype=object)
        ok = [v in (0, 1) and not isinstance(v, float) for v in values]
        if not all(ok):
            index = ok.index(False)
            raise _checks.bad_record(self.argument, self.field, index, key, values[index],
                                     "0 or 1 (or true/false)")
        return array.astype(bool)


def _finite_number(value: Any) -> bool:
    """A JSON number that is a finite float64 (not 1e400, which json reads as inf, nor
    an integer of 400 digits, which float() cannot convert)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _box(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 4 and all(map(_finite_number, value))


def ground_truth_fields(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`~prcurve.detection.GroundTruth` arguments of a COCO instances object."""
    data, argument = _load(source, "ground_truth")
    if not isinstance(data, dict) or not all(
            key in data for key in ("images", "annotations", "categories")):
        found = _checks.describe(data)
        raise _checks.not_ground_truth(argument, found)
    images = _Records(data["images"], argument, "images")
    categories = _Records(data["categories"], argument, "categories")
    annotations = _Records(data["annotations"], argument, "annotations")
    image_list = images.ids("id")
    _checks.check_unique(f"{argument} images", image_list, "image")
    category_list = categories.ids("id")
    _checks.check_unique(f"{argument} categories", category_list, "category")
    names = {}
    for record in categories.records:
        if "name" in record:
            names[record["id"]] = str(record["name"])
    image_id = annotations.ids("image_id")
    category_id = annotations.ids("category_id")
    boxes = annotations.boxes()
    area = annotations.numbers("area", default=lambda: boxes[:, 2] * boxes[:, 3],
                               expected="the annotation's area, a finite number >= 0")
    if (area < 0).any():
        index = int(np.flatnonzero(area < 0)[0])
        raise _checks.bad_record(argument, "annotations", index, "area", float(area[index]),
                                 "a finite number >= 0")
    annotation_id = annotations.ids("id") if annotations.has_any("id") else None
    if annotation_id is not None:
        _checks.check_unique(f"{argument} annotations", annotation_id, "annotation")
    for name, values, known, what in (
            ("image_id", image_id, image_list, "images"),
            ("category_id", category_id, category_list, "categories")):
        _checks.check_same_id_kind(f"{argument} {what}", known, f"{argument} annotations {name}",
                                   values)
        _checks.check_known(f"{argument} annotations {name}", values, known, what,
                            f"the file's {what!r}")
    sizes = {}
    for record in images.records:
        height, width = record.get("height"), record.get("width")
        if isinstance(height, int) and isinstance(width, int):
            sizes[record["id"]] = (height, width)
    return {
        "image_id": image_id, "category_id": category_id, "boxes": boxes, "area": area,
        "iscrowd": annotations.flags("iscrowd"), "difficult": annotations.flags("difficult"),
        "annotation_id": annotation_id, "images": image_list, "categories": category_list,
        "category_names": names, "segmentation": annotations.optional_objects("segmentation"),
        "image_sizes": sizes, "keypoints": annotations.keypoints(),
        "num_keypoints": annotations.numbers("num_keypoints", expected="a whole number >= 0")
        if annotations.has_any("num_keypoints") else None,
    }


def results_fields(source: str | Path | Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The :class:`~prcurve.detection.Detections` arguments of a COCO results list."""
    data, argument = _load(source, "detections")
    if isinstance(data, dict):
        raise _checks.not_results(argument, _checks.describe(data))
    records = _Records(data, argument, "results")
    segmentation = records.optional_objects("segmentation")
    keypoints = records.keypoints()
    fields: dict[str, Any] = {
        "image_id": records.ids("image_id"),
        "category_id": records.ids("category_id"),
        "score": records.numbers("score", expected="a finite confidence score"),
        "segmentation": segmentation,
        "keypoints": keypoints,
    }
    # pycocotools' loadRes: results with boxes keep them (area = width * height); results
    # with masks alone get the mask's box and area.
    if segmentation is not None and not records.has_any("bbox"):
        from prcurve.detection.mask_inputs import result_masks

        masks = result_masks(segmentation, argument)
        decoded = masks.mask_set()
        fields["boxes"], fields["area"] = decoded.box, decoded.area.astype(np.float64)
        fields["segmentation"] = masks
        fields["boxes_from_masks"] = True
    elif keypoints is not None and not records.has_any("bbox"):
        from prcurve.detection.keypoints import result_boxes

        fields["boxes"], fields["area"] = result_boxes(keypoints)
    else:
        fields["boxes"] = records.boxes()
    return fields

"""Every check of detection input, and every message about bad detection input.

The one place in :mod:`prcurve.detection` that raises
:class:`~prcurve.errors.InvalidInputError`: ground-truth and detection arrays,
COCO JSON records, protocol parameters, batches of an evaluation loop and the
options of the bootstrap. Each message names the argument, says what was
found and how to fix it; the checks every domain shares come from
:mod:`prcurve.validation.arrays` and :mod:`prcurve.validation.space`. Nothing
here modifies its input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError

# The checks every domain shares, used by the detection package through this module.
from prcurve.validation.arrays import check_choice as check_choice
from prcurve.validation.arrays import check_fraction as check_fraction
from prcurve.validation.arrays import check_positive_number as check_positive_number
from prcurve.validation.arrays import wrong_type as wrong_type
from prcurve.validation.ranking import unreadable_file as unreadable_file
from prcurve.validation.space import check_level as check_level
from prcurve.validation.space import check_n_resamples as check_n_resamples
from prcurve.validation.space import check_seed as check_seed

F64 = NDArray[np.float64]

_SHOWN = 5  # values quoted in a message


def _quote(values: Iterable[Any]) -> str:
    """Up to ``_SHOWN`` values, ``repr``-quoted, then how many more."""
    items = list(values)
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v)
                      for v in items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return shown + more


def _rows(mask: NDArray[np.bool_]) -> str:
    where = np.flatnonzero(mask)
    shown = ", ".join(str(int(i)) for i in where[:_SHOWN])
    more = f" and {where.shape[0] - _SHOWN} more" if where.shape[0] > _SHOWN else ""
    return shown + more


# -- generic values ------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(
        value, (int, float, np.integer, np.floating))


# -- arrays of ground truth and detections -------------------------------------------------------


def as_1d(name: str, values: ArrayLike, n: int | None = None) -> NDArray[Any]:
    """``values`` as a 1-D array (of length ``n`` when given)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise InvalidInputError(name, f"cannot be read as an array ({error})",
                                "pass one value per box as a 1-D array or list") from None
    if array.ndim != 1:
        raise InvalidInputError(name, f"expected a 1-D array, found shape {array.shape}",
                                "pass one value per box as a 1-D array or list")
    if n is not None and array.shape[0] != n:
        raise InvalidInputError(name, f"has {array.shape[0]} values for {n} boxes",
                                "pass exactly one value per box")
    return array


def check_ids(name: str, values: ArrayLike, n: int | None = None) -> NDArray[Any]:
    """Identifiers: integers (as int64) or strings (as a numpy str array)."""
    if isinstance(values, (list, tuple)):
        # numpy would turn [1, "a"] into strings: read the Python types first.
        types = set(map(type, values))
        if types <= {int}:
            try:
                values = np.array(values, dtype=np.int64) if values else np.zeros(0, np.int64)
            except OverflowError:
                raise InvalidInputError(name, "has integers outside the int64 range",
                                        "use smaller integer ids or strings") from None
        elif types <= {str}:
            values = np.array(values, dtype=str)
        elif str not in types and all(issubclass(t, (int, float, np.number, np.bool_))
                                      for t in types):
            values = np.asarray(values)  # floats or booleans: the messages below
        else:
            values = np.array(values, dtype=object)
    array = as_1d(name, values, n)
    kind = array.dtype.kind
    if array.shape[0] == 0 and kind != "U":
        return np.zeros(0, dtype=np.int64)  # e.g. np.asarray([]) is float64
    if kind in "iu":
        if kind == "u" and array.shape[0] and int(array.max()) > np.iinfo(np.int64).max:
            raise InvalidInputError(name, "has integers above 2**63 - 1",
                                    "use smaller integer ids or strings")
        return array.astype(np.int64, copy=False)
    if kind == "U":
        return array
    if kind == "S":
        return array.astype(str)
    if kind == "O":
        items = array.tolist()
        kinds = [_id_kind(v) for v in items]
        first = kinds[0] if kinds else "int"
        bad = next((i for i, k in enumerate(kinds) if k is None or k != first), None)
        if bad is None:
            return check_ids(name, np.array(items, dtype=np.int64 if first == "int" else str))
        raise InvalidInputError(
            name, f"expected integer or string ids of one kind, found {items[bad]!r} at index "
            f"{bad} (index 0 holds {items[0]!r})",
            "use integers for every id, or strings for every id")
    found = "booleans" if kind == "b" else f"{array.dtype} values"
    if kind == "f" and array.shape[0] and np.all(np.isfinite(array)) and np.all(
            array == np.round(array)):
        fix = "convert them to integers (e.g. .astype('int64'); a column of floats often " \
              "comes from missing values in a DataFrame)"
    else:
        fix = "pass integer or string ids"
    raise InvalidInputError(name, f"expected integer or string ids, found {found}", fix)


def _id_kind(value: Any) -> str | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return "int"
    return "str" if isinstance(value, str) else None


def check_same_id_kind(name_a: str, a: NDArray[Any], name_b: str, b: NDArray[Any]) -> None:
    """Ids that are compared must be all integers or all strings."""
    if a.shape[0] and b.shape[0] and (a.dtype.kind == "U") != (b.dtype.kind == "U"):
        kind_a = "strings" if a.dtype.kind == "U" else "integers"
        kind_b = "strings" if b.dtype.kind == "U" else "integers"
        raise InvalidInputError(
            name_b, f"are {kind_b} while {name_a} are {kind_a}",
            "use the same kind of id (integers or strings) in the ground truth and the "
            "detections")


BOX_FORMATS = ("xywh", "xyxy")


def check_boxes(name: str, boxes: ArrayLike, box_format: str, n: int | None = None) -> F64:
    """Boxes as an (n, 4) float64 array of COCO's [x, y, width, height].

    ``box_format`` "xywh" takes [x, y, width, height] (COCO), "xyxy" takes
    [x1, y1, x2, y2] and returns ``[x1, y1, x2 - x1, y2 - y1]``. Coordinates must
    be finite and sizes non-negative.
    """
    fmt = check_choice("box_format", box_format, BOX_FORMATS)
    try:
        array = np.asarray(boxes, dtype=np.float64)
    except OverflowError:  # a Python int past float64's range (10**400)
        raise InvalidInputError(name, "holds a number beyond float64's range (+-1.8e308)",
                                "pass finite box coordinates") from None
    except (TypeError, ValueError) as error:
        raise InvalidInputError(name, f"cannot be read as numbers ({error})",
                                "pass an (n, 4) array of box coordinates") from None
    if array.ndim == 1 and array.shape[0] == 0:
        array = array.reshape(0, 4)
    if array.ndim != 2 or array.shape[1] != 4:
        raise InvalidInputError(name, f"expected shape (n, 4), found {array.shape}",
                                f"pass one row of 4 coordinates per box ({_layout(fmt)})")
    if n is not None and array.shape[0] != n:
        raise InvalidInputError(name, f"has {array.shape[0]} boxes for {n} ids",
                                "pass exactly one box per id")
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        raise InvalidInputError(
            name, f"has NaN or infinite coordinates in rows {_rows(np.logical_not(finite))}",
            "remove or fix those boxes")
    if fmt == "xyxy":
        out = np.empty_like(array)
        out[:, :2] = array[:, :2]
        np.subtract(array[:, 2:], array[:, :2], out=out[:, 2:])
        array = out
    negative = (array[:, 2] < 0) | (array[:, 3] < 0)
    if negative.any():
        what = "x2 < x1 or y2 < y1" if fmt == "xyxy" else "a negative width or height"
        raise InvalidInputError(
            name, f"has {int(negative.sum())} boxes with {what} (rows {_rows(negative)})",
            f"boxes are {_layout(fmt)}; pass box_format='{'xywh' if fmt == 'xyxy' else 'xyxy'}'"
            " if yours are the other layout, else fix those boxes")
    return np.ascontiguousarray(array)


def _layout(fmt: str) -> str:
    return "[x, y, width, height]" if fmt == "xywh" else "[x1, y1, x2, y2]"


def check_scores(name: str, values: ArrayLike, n: int) -> F64:
    array = as_1d(name, values, n)
    if array.dtype.kind not in "iuf" or array.dtype.kind == "b":
        raise InvalidInputError(name, f"expected numbers, found {array.dtype} values",
                                "pass one finite confidence score per detection")
    scores = array.astype(np.float64, copy=False)
    bad = ~np.isfinite(scores)
    if bad.any():
        raise InvalidInputError(
            name, f"has {int(bad.sum())} scores that are not finite (NaN or infinite) at rows "
            f"{_rows(bad)}", "give every detection a finite confidence score")
    return scores


def check_flags(name: str, values: ArrayLike | None, n: int) -> NDArray[np.bool_]:
    """0/1 or boolean flags (``iscrowd``, ``difficult``); all False when None."""
    if values is None:
        return np.zeros(n, dtype=bool)
    array = as_1d(name, values, n)
    if array.dtype.kind == "b":
        return array.astype(bool, copy=False)
    if array.dtype.kind in "iuf":
        bad = (array != 0) & (array != 1)
        if bad.any():
            raise InvalidInputError(
                name, f"expected 0/1 or booleans, found {_quote(np.unique(array[bad]))} at rows "
                f"{_rows(bad)}", "mark each box with 0 (no) or 1 (yes)")
        flags: NDArray[np.bool_] = np.equal(array, 1)
        return flags
    raise InvalidInputError(name, f"expected 0/1 or booleans, found {array.dtype} values",
                            "mark each box with 0 (no) or 1 (yes)")


def check_areas(name: str, values: ArrayLike, n: int) -> F64:
    array = as_1d(name, values, n)
    if array.dtype.kind not in "iuf":
        raise InvalidInputError(name, f"expected numbers, found {array.dtype} values",
                                "pass each annotation's area in square pixels")
    area = array.astype(np.float64, copy=False)
    bad = ~np.isfinite(area) | (area < 0)
    if bad.any():
        raise InvalidInputError(
            name, f"has {int(bad.sum())} areas that are negative, NaN or infinite (rows "
            f"{_rows(bad)})", "pass each annotation's area as a finite number >= 0")
    return area


def check_unique(name: str, values: NDArray[Any], owner: str) -> None:
    """No id twice: ``owner`` is what the ids name (annotation, image, category)."""
    if values.shape[0] < 2:
        return
    ordered = np.sort(values)
    twice = ordered[1:][ordered[1:] == ordered[:-1]]
    if twice.shape[0]:
        repeated = np.unique(twice)
        raise InvalidInputError(
            name, f"has duplicate {owner} ids: {_quote(repeated)}",
            f"give every {owner} a distinct id")


def check_known(name: str, values: NDArray[Any], known: NDArray[Any], what: str,
                where: str) -> None:
    """Every value names one of ``known`` (the ground truth's images or categories)."""
    if values.shape[0] == 0:
        return
    absent = ~np.isin(values, known)
    if absent.any():
        missing = np.unique(values[absent])
        rows = int(absent.sum())
        raise InvalidInputError(
            name, f"{rows} {'row names' if rows == 1 else 'rows name'} {what} absent from "
            f"{where}: {_quote(missing)}",
            f"evaluate against the ground truth these came from, or add those {what} to it")


# -- protocol parameters --------------------------------------------------------------------------


def check_iou_type(value: Any) -> str:
    return check_choice("iou_type", value, ("bbox", "segm", "keypoints"))


def iou_type_and_protocol(given: str, protocol: str) -> InvalidInputError:
    return InvalidInputError("iou_type", f"{given!r} while the protocol's is {protocol!r}",
                             "give COCOProtocol(iou_type=...) alone, or leave the protocol out")


def check_objects(name: str, values: Any, n: int) -> Any:
    """Per-row Python objects (masks as JSON gives them) as a 1-D object array, or None."""
    if values is None:
        return None
    if hasattr(values, "mask_set") and len(values) == n:  # masks already decoded
        return values
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        array = values
    else:
        if not isinstance(values, Sequence) or isinstance(values, (str, bytes)):
            raise wrong_type(name, values, "a sequence of one mask per row")
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
    if array.shape[0] != n:
        raise InvalidInputError(name, f"{array.shape[0]} masks for {n} rows",
                                "give one mask (or None) per row")
    return array


def check_thresholds(name: str, values: ArrayLike, *, increasing: bool = True) -> F64:
    """A non-empty 1-D list of numbers in [0, 1], strictly increasing."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.zeros((0, 0))
    if array.ndim == 0:
        array = array.reshape(1)
    ok = array.ndim == 1 and array.shape[0] > 0 and bool(
        np.all((array >= 0) & (array <= 1)))
    if ok and increasing and array.shape[0] > 1:
        ok = bool(np.all(np.diff(array) > 0))
    if not ok:
        raise InvalidInputError(
            name, f"expected increasing numbers in [0, 1], found {values!r}",
            "pass e.g. numpy.linspace(0.5, 0.95, 10)")
    return array


def check_max_dets(values: Any) -> tuple[int, ...]:
    """Positive integers, returned sorted (as pycocotools sorts them)."""
    items = [values] if isinstance(values, (int, np.integer)) else values
    try:
        numbers = list(items)
    except TypeError:
        numbers = []
    if not numbers or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1
            for v in numbers) or len(set(numbers)) != len(numbers):
        raise InvalidInputError("max_dets", f"expected distinct integers >= 1, found {values!r}",
                                "pass e.g. (1, 10, 100)")
    return tuple(sorted(int(v) for v in numbers))


def check_area_ranges(value: Any) -> tuple[tuple[str, float, float], ...]:
    """``{label: (low, high)}`` or ``[(label, low, high), ...]``; low <= high, low >= 0."""
    fix = "pass e.g. {'all': (0, 1e10), 'small': (0, 32**2)}"
    try:
        items = list(value.items()) if isinstance(value, Mapping) else [
            (entry[0], (entry[1], entry[2])) for entry in value]
    except (TypeError, IndexError, KeyError):
        raise InvalidInputError("area_ranges", f"cannot be read: {value!r}", fix) from None
    out: list[tuple[str, float, float]] = []
    for label, bounds in items:
        try:
            low, high = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise InvalidInputError("area_ranges", f"range {label!r} is {bounds!r}", fix) from None
        if not isinstance(label, str) or math.isnan(low) or math.isnan(high) or not (
                0 <= low <= high):
            raise InvalidInputError(
                "area_ranges", f"range {label!r} = {bounds!r} is not a labelled (low, high) "
                "with 0 <= low <= high", fix)
        out.append((label, low, high))
    labels = [label for label, _, _ in out]
    if not out or len(set(labels)) != len(labels):
        raise InvalidInputError("area_ranges", f"expected distinct labels, found {labels!r}", fix)
    return tuple(out)


def unknown_setting(name: str, value: Any, available: Sequence[Any]) -> InvalidInputError:
    listed = ", ".join(map(repr, available))
    return InvalidInputError(name, f"{value!r} is not one of this evaluation's settings",
                             f"use one of {listed}")


def unknown_category(value: Any, available: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "category", f"{value!r} is not a category of this evaluation",
        f"use one of its category ids ({_quote(available)}) or names")


def summary_needs_settings(missing: str) -> InvalidInputError:
    return InvalidInputError(
        "summary", f"the 12 COCO statistics need {missing}",
        "keep the default max_dets (1, 10, 100) and area ranges all/small/medium/large, or "
        "read .precision and .recall directly")


# -- COCO JSON files and records --------------------------------------------------------------


def malformed_json(argument: str, path: str, message: str, line: int, column: int,
                   position: int) -> InvalidInputError:
    return InvalidInputError(
        argument, f"{path!r} is not valid JSON: {message} at line {line}, column {column} "
        f"(character {position})", "fix the file there; COCO files are one JSON document")


def not_utf8(argument: str, path: str, position: int) -> InvalidInputError:
    return InvalidInputError(argument, f"{path!r} is not UTF-8 text (byte {position})",
                             "pass a COCO JSON file")


def not_ground_truth(argument: str, found: str) -> InvalidInputError:
    return InvalidInputError(
        argument, f"expected a COCO ground-truth object with lists 'images', 'annotations' and "
        f"'categories', found {found}",
        "pass the dataset's instances JSON (the results list is the detections argument)")


def not_results(argument: str, found: str) -> InvalidInputError:
    return InvalidInputError(
        argument, f"expected a COCO results list of detections, found {found}",
        "pass a JSON list of {'image_id', 'category_id', 'bbox', 'score'} objects")


def describe(value: Any) -> str:
    if isinstance(value, dict):
        keys = list(value)[:8]
        return f"an object with keys {keys!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return f"{type(value).__name__} {value!r}"[:80]


def bad_record(argument: str, field: str, index: int, key: str, found: Any,
               expected: str) -> InvalidInputError:
    shown = repr(found)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if _beyond_float64(found):  # JSON's 1e400 is read as inf; 10**400 cannot be a float
        shown += " (a number beyond float64's range, +-1.8e308)"
    return InvalidInputError(
        argument, f"{field}[{index}][{key!r}] is {shown}", f"give it {expected}")


def _beyond_float64(value: Any) -> bool:
    """Whether a JSON value is, or holds, a number no float64 can hold."""
    if isinstance(value, list):
        return any(_beyond_float64(v) for v in value)
    if isinstance(value, float):
        return math.isinf(value)
    return isinstance(value, int) and abs(value) > _LARGEST_INT


_LARGEST_INT = int(np.finfo(np.float64).max)


def mixed_record_ids(argument: str, field: str, key: str, index: int, value: Any,
                     first: Any) -> InvalidInputError:
    return InvalidInputError(
        argument, f"{field}[{index}][{key!r}] is {value!r} while {field}[0][{key!r}] is "
        f"{first!r}", "use integer ids everywhere, or string ids everywhere")


def missing_key(argument: str, field: str, index: int, key: str, record: Any) -> InvalidInputError:
    if key == "bbox" and isinstance(record, dict) and "segmentation" in record:
        return InvalidInputError(
            argument, f"{field}[{index}] has a 'segmentation' but no 'bbox'",
            "give every result a 'bbox', or evaluate masks with iou_type='segm' (--iou-type segm)")
    found = describe(record)
    return InvalidInputError(argument, f"{field}[{index}] has no {key!r} ({found})",
                             f"give every record a {key!r}")


def not_a_record(argument: str, field: str, index: int, record: Any) -> InvalidInputError:
    return InvalidInputError(argument, f"{field}[{index}] is {describe(record)}",
                             "make every entry a JSON object")


# -- batches, states and comparisons ----------------------------------------------------------


def images_evaluated_twice(images: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "ground_truth", f"images already evaluated in an earlier batch: {_quote(images)}",
        "pass each image (all its ground truth and all its detections) in exactly one batch")


def duplicate_images(argument: str, images: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(argument, f"lists images twice: {_quote(images)}",
                             "list every image once")


def different_protocols(first: Any, second: Any) -> InvalidInputError:
    return InvalidInputError(
        "other", f"was evaluated with {second!r}, this state with {first!r}",
        "merge states evaluated with the same protocol and parameters")


def different_images(name: str, only_a: int, only_b: int) -> InvalidInputError:
    return InvalidInputError(
        name, f"the two evaluations cover different images ({only_a} only in the first, "
        f"{only_b} only in the second)", "compare two detectors on the same ground truth")


def different_ground_truth(name: str) -> InvalidInputError:
    return InvalidInputError(
        name, "the two evaluations have different ground truth on the same images",
        "compare two detectors against the same ground-truth annotations")


def image_batch(argument: str, index: int, found: str, fix: str) -> InvalidInputError:
    return InvalidInputError(f"{argument}[{index}]", found, fix)


def batch_lengths(n_truth: int, n_detections: int) -> InvalidInputError:
    return InvalidInputError(
        "detections", f"has {n_detections} images for {n_truth} in ground_truth",
        "pass one entry per image in both lists, in the same order")


def missing_columns(argument: str, missing: Sequence[str], found: Sequence[str]) -> (
        InvalidInputError):
    return InvalidInputError(argument, f"missing columns {list(missing)!r} (found {list(found)!r})",
                             "name the columns with the columns= argument")


def mixed_id_kinds(what: str, theirs: str, mine: str) -> InvalidInputError:
    return InvalidInputError("other", f"has {theirs} {what} while this state has {mine} {what}",
                             "use the same kind of id in every batch")


def protocol_and_parameters(kind: str, parameters: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "protocol", f"is a {kind} and parameters {sorted(parameters)} were given too",
        "set every parameter on the protocol object, or pass keywords only")


def bad_protocol_parameters(name: str, error: Exception) -> InvalidInputError:
    return InvalidInputError("protocol", f"{name!r}: {error}",
                             "see COCOProtocol and VOCProtocol for the parameters")


def unsupported_resampling(method: str, supported: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "evaluation", f"uses the AP method {method!r}, which the image bootstrap does not "
        "recompute", f"evaluate with ap_method one of {', '.join(map(repr, supported))}")


def nothing_to_resample() -> InvalidInputError:
    return InvalidInputError("evaluation", "has no images", "evaluate at least one image")


def no_file_order() -> InvalidInputError:
    return InvalidInputError(
        "ties", "'file-order' needs the input row of every detection, which this state "
        "does not hold", "evaluate with evaluate_voc(ground_truth, detections, "
        "ties='file-order'), or use ties='grouped'")


def file_order_bootstrap() -> InvalidInputError:
    return InvalidInputError(
        "evaluation", "was computed with ties='file-order', but the bootstrap resamples "
        "tie groups (one point per distinct score)",
        "bootstrap an evaluation with ties='grouped' (the default)")

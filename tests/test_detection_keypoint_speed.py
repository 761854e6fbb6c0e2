"""The fast keypoint path equals its references: ``PairOKS`` against pycocotools'
``COCOeval.computeOks`` (bit for bit) and the readable ``pair_oks``; COCO JSON read by
orjson equals the standard library's reading, and what orjson refuses still reads (or
fails) as before. Never skipped: pycocotools and orjson are in the test extra.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import SLOW

from prcurve.detection import coco_json
from prcurve.detection.keypoints import COCO_SIGMAS, PAIRS_AT_ONCE, PairOKS, pair_oks
from prcurve.errors import InvalidInputError


def _people(rng: np.random.Generator, n: int, k: int, unlabeled: float) -> dict[str, Any]:
    boxes = np.column_stack((rng.uniform(0, 300, (n, 2)), rng.uniform(1, 200, (n, 2))))
    points = np.stack((boxes[:, :1] + rng.random((n, k)) * boxes[:, 2:3],
                       boxes[:, 1:2] + rng.random((n, k)) * boxes[:, 3:4],
                       rng.choice([0, 1, 2], (n, k), p=[0.3, 0.2, 0.5])), axis=2)
    points[rng.random(n) < unlabeled, :, 2] = 0
    points[points[:, :, 2] == 0, :2] = 0.0
    area = boxes[:, 2] * boxes[:, 3] * rng.uniform(0.3, 1.0, n)
    return {"keypoints": points.reshape(n, 3 * k), "boxes": boxes, "area": area}


def _compute_oks(gt: dict[str, Any], dt: np.ndarray, sigmas: np.ndarray) -> np.ndarray:
    """pycocotools' computeOks on one image: every (detection, ground truth) pair."""
    from pycocotools.cocoeval import COCOeval

    evaluator = COCOeval(iouType="keypoints")
    evaluator.params.kpt_oks_sigmas = sigmas
    evaluator.params.maxDets = [dt.shape[0]]
    evaluator._gts = {(1, 1): [
        {"keypoints": kp.tolist(), "bbox": box.tolist(), "area": float(a)}
        for kp, box, a in zip(gt["keypoints"], gt["boxes"], gt["area"], strict=True)]}
    # Distinct decreasing scores: computeOks' sort keeps the rows in this order.
    evaluator._dts = {(1, 1): [{"keypoints": kp.tolist(), "score": 1.0 - i / (dt.shape[0] + 1)}
                               for i, kp in enumerate(dt)]}
    return np.asarray(evaluator.computeOks(1, 1))


@SLOW
@given(seed=st.integers(0, 2**32 - 1), n_gt=st.integers(1, 6), n_dt=st.integers(1, 12),
       k=st.sampled_from([17, 5, 1]), unlabeled=st.sampled_from([0.0, 0.3, 1.0]))
def test_pair_oks_equals_compute_oks(seed: int, n_gt: int, n_dt: int, k: int,
                                     unlabeled: float) -> None:
    rng = np.random.default_rng(seed)
    sigmas = np.asarray(COCO_SIGMAS) if k == 17 else rng.uniform(0.02, 0.2, k)
    gt = _people(rng, n_gt, k, unlabeled)
    dt = _people(rng, n_dt, k, 0.0)["keypoints"]
    dt[:, 2::3] = 1
    expected = _compute_oks(gt, dt, sigmas)
    d, g = (a.ravel() for a in np.meshgrid(np.arange(n_dt), np.arange(n_gt), indexing="ij"))
    fast = PairOKS(dt, gt["keypoints"], gt["boxes"], gt["area"], sigmas)(d, g)
    slow = pair_oks(dt[d], gt["keypoints"][g], gt["boxes"][g], gt["area"][g], sigmas)
    assert np.array_equal(fast.reshape(n_dt, n_gt), expected)
    assert np.array_equal(slow.reshape(n_dt, n_gt), expected)


def test_pair_oks_in_parts_equals_at_once() -> None:
    rng = np.random.default_rng(7)
    gt = _people(rng, 40, 17, 0.3)
    dt = _people(rng, 900, 17, 0.0)["keypoints"]
    n = 2 * PAIRS_AT_ONCE + 5  # three parts, the last of 5 pairs
    d, g = rng.integers(0, 900, n), rng.integers(0, 40, n)
    sigmas = np.asarray(COCO_SIGMAS)
    fast = PairOKS(dt, gt["keypoints"], gt["boxes"], gt["area"], sigmas)(d, g)
    assert fast.shape == (n,)
    assert np.array_equal(fast, pair_oks(dt[d], gt["keypoints"][g], gt["boxes"][g],
                                         gt["area"][g], sigmas))
    empty = PairOKS(dt, gt["keypoints"], gt["boxes"], gt["area"], sigmas)(
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert empty.shape == (0,)


_TEXTS = [
    '{"images": [{"id": 1, "file_name": "caf\\u00e9 \u00e9t\u00e9.jpg"}], "x": [0.1, 1e-300, '
    '-0.0, 12345678901234567, 3.141592653589793, 2.5e10], "d": {"a": 1, "a": 2}}',
    '[{"image_id": 1, "score": 0.30000000000000004, "bbox": [1.5, 2, 3e2, 4.0E-1]}]',
    '{"big": 123456789012345678901234567890, "n": NaN, "i": -Infinity}',  # orjson refuses
]


@pytest.mark.parametrize("text", _TEXTS)
@pytest.mark.parametrize("bom", [False, True])
def test_orjson_reads_as_json_does(text: str, bom: bool, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "file.json"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    with_orjson = coco_json.read_json(path, "ground_truth")
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson now fails
    without = coco_json.read_json(path, "ground_truth")
    expected = json.loads(text)
    assert repr(with_orjson) == repr(without) == repr(expected)  # nan == nan as text too


def test_orjson_is_used_when_installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import orjson

    calls: list[int] = []
    real = orjson.loads

    def loads(data: Any) -> Any:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(orjson, "loads", loads)
    path = tmp_path / "file.json"
    path.write_text('[{"a": 1}]')
    assert coco_json.read_json(path, "detections") == [{"a": 1}]
    assert calls == [1]


@pytest.mark.parametrize("orjson", [True, False])
@pytest.mark.parametrize(("raw", "message"), [
    (b'[{"a": 1},\n {"b": ]', r"line 2, column 8"),
    (b'[{"a": "\xff"}]', r"not UTF-8"),
])
def test_errors_are_the_standard_librarys(raw: bytes, message: str, orjson: bool,
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    if not orjson:
        monkeypatch.setitem(sys.modules, "orjson", None)
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(InvalidInputError, match=message):
        coco_json.read_json(path, "detections")

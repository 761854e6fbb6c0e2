"""COCO box evaluation speed and memory: prcurve vs pycocotools, faster-coco-eval, torchmetrics.

Usage::

    python benchmarks/bench_detection.py                  # the issue's data set, best of 3
    python benchmarks/bench_detection.py --images 500 --repeat 1   # a quick run
    python benchmarks/bench_detection.py --iou-type keypoints --images 3000  # keypoints

The keypoint case (``--iou-type keypoints``, :func:`make_keypoint_files`) times each
library from the two JSON files to the printed 10-line summary: prcurve (with orjson
when installed, and with the standard library's json), pycocotools'
``COCOeval(..., 'keypoints')`` and faster-coco-eval's; the statistics are compared
with pycocotools' first. What follows describes the box case.

Data (fixed seed, COCO-val-like): ``--images`` images (5,000), 80 categories
with a skewed frequency (the most common about 25% of the objects, as
"person"), Poisson(7) ground-truth boxes per image whose sizes give roughly
COCO's 41/34/24% small/medium/large split, 1% crowd regions, an ``area``
field smaller than the box (a mask's area), and 100 detections per image:
about three noisy copies of each object (a few with the wrong class), the rest
random boxes, scores higher for better boxes, stored as float32 (so scores
tie sometimes, as real results files do).

What is timed (best of ``--repeat``, one process, the inputs built before):

- prcurve: ``evaluate_coco`` on ``GroundTruth``/``Detections`` arrays
  (validation, matching, accumulate, summarize), and end to end from the
  parsed JSON objects (``evaluate_coco(gt_dict, results_list)``: building the
  arrays from the dicts included);
- pycocotools: ``COCOeval(gt, dt, 'bbox')``: evaluate + accumulate +
  summarize, on COCO objects built before (``COCO()`` + ``loadRes`` outside
  the timing);
- faster-coco-eval: ``COCOeval_faster`` the same way, where it is installed;
- torchmetrics: ``MeanAveragePrecision(backend="faster_coco_eval"/"pycocotools")``
  update + compute on per-image tensors, where torch and torchmetrics are
  installed.

Every library's 12 statistics are checked against pycocotools' (1e-12) before
any time is reported. Peak memory: the resident-set high-water mark during one
call above the resident set before it (Linux ``/proc/self/status`` VmHWM,
reset through ``/proc/self/clear_refs``), which counts C/C++ allocations
that tracemalloc does not see.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import gc
import io
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from prcurve.detection import Detections, GroundTruth, evaluate_coco


def make_data(n_images: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The COCO ground truth dict and results list (module docstring)."""
    rng = np.random.default_rng(seed)
    n_categories = 80
    frequency = 1.0 / np.arange(1, n_categories + 1) ** 0.9
    frequency[0] *= 4.0
    frequency /= frequency.sum()
    category_ids = np.array([c for c in range(1, 91) if c not in
                             (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)])  # COCO's 80 ids
    width = rng.integers(400, 641, n_images).astype(np.float64)
    height = rng.integers(300, 481, n_images).astype(np.float64)

    n_gt = rng.poisson(7.0, n_images)
    gt_image = np.repeat(np.arange(n_images), n_gt)
    g = gt_image.shape[0]
    side = np.exp(rng.normal(np.log(45.0), 0.95, g))  # sqrt(area): COCO-like size mix
    aspect = np.exp(rng.normal(0.0, 0.45, g))
    gw = np.clip(side * np.sqrt(aspect), 2.0, width[gt_image])
    gh = np.clip(side / np.sqrt(aspect), 2.0, height[gt_image])
    gx = rng.random(g) * (width[gt_image] - gw)
    gy = rng.random(g) * (height[gt_image] - gh)
    gt_box = np.stack([gx, gy, gw, gh], axis=1).round(2)
    gt_cat = rng.choice(n_categories, g, p=frequency)
    crowd = rng.random(g) < 0.01
    area = (gt_box[:, 2] * gt_box[:, 3] * rng.uniform(0.45, 0.9, g)).round(2)

    # ~3 noisy copies per object, then random boxes up to 100 per image.
    copies = np.minimum(rng.poisson(3.0, g), 8)
    near_gt = np.repeat(np.arange(g), copies)
    quality = rng.random(near_gt.shape[0])
    noise = rng.normal(0.0, 1.0, (near_gt.shape[0], 4)) * (0.02 + 0.25 * (1 - quality))[:, None]
    base = gt_box[near_gt]
    near_box = base.copy()
    near_box[:, 0] += noise[:, 0] * base[:, 2]
    near_box[:, 1] += noise[:, 1] * base[:, 3]
    near_box[:, 2] *= np.exp(noise[:, 2])
    near_box[:, 3] *= np.exp(noise[:, 3])
    near_cat = np.where(rng.random(near_gt.shape[0]) < 0.9, gt_cat[near_gt],
                        rng.choice(n_categories, near_gt.shape[0], p=frequency))
    near_score = np.clip(0.35 + 0.6 * quality + rng.normal(0, 0.1, near_gt.shape[0]), 0.01, 1)
    near_image = gt_image[near_gt]
    per_image = np.bincount(near_image, minlength=n_images)
    n_random = np.maximum(100 - per_image, 0)
    random_image = np.repeat(np.arange(n_images), n_random)
    r = random_image.shape[0]
    rw = np.exp(rng.normal(np.log(60.0), 0.9, r))
    rh = rw * np.exp(rng.normal(0.0, 0.5, r))
    rw = np.minimum(rw, width[random_image])
    rh = np.minimum(rh, height[random_image])
    random_box = np.stack([rng.random(r) * (width[random_image] - rw),
                           rng.random(r) * (height[random_image] - rh), rw, rh], axis=1)
    random_cat = rng.choice(n_categories, r, p=frequency)
    random_score = rng.beta(1.0, 6.0, r)

    dt_image = np.concatenate([near_image, random_image])
    dt_box = np.concatenate([near_box, random_box]).round(2)
    dt_box[:, 2:] = np.maximum(dt_box[:, 2:], 0.5)
    dt_cat = np.concatenate([near_cat, random_cat])
    dt_score = np.concatenate([near_score, random_score]).astype(np.float32).astype(np.float64)
    # Keep the 100 highest-scoring detections of each image, in image order.
    order = np.lexsort((-dt_score, dt_image))
    dt_image, dt_box, dt_cat, dt_score = dt_image[order], dt_box[order], dt_cat[order], \
        dt_score[order]
    start = np.searchsorted(dt_image, np.arange(n_images))
    keep = np.arange(dt_image.shape[0]) - start[dt_image] < 100
    dt_image, dt_box, dt_cat, dt_score = dt_image[keep], dt_box[keep], dt_cat[keep], \
        dt_score[keep]

    image_ids = (np.arange(n_images) * 7 + 139).tolist()
    images = [{"id": i, "width": int(w), "height": int(h)}
              for i, w, h in zip(image_ids, width, height, strict=True)]
    categories = [{"id": int(c), "name": f"class{c}"} for c in category_ids]
    gt_image_id = np.asarray(image_ids)[gt_image]
    annotations = [
        {"id": k + 1, "image_id": int(i), "category_id": int(category_ids[c]), "bbox": b,
         "area": float(a), "iscrowd": int(cr)}
        for k, (i, c, b, a, cr) in enumerate(zip(gt_image_id.tolist(), gt_cat.tolist(),
                                                 gt_box.tolist(), area.tolist(), crowd.tolist(),
                                                 strict=True))
    ]
    dt_image_id = np.asarray(image_ids)[dt_image]
    results = [
        {"image_id": int(i), "category_id": int(category_ids[c]), "bbox": b, "score": float(s)}
        for i, c, b, s in zip(dt_image_id.tolist(), dt_cat.tolist(), dt_box.tolist(),
                              dt_score.tolist(), strict=True)
    ]
    ground_truth = {"images": images, "categories": categories, "annotations": annotations}
    return ground_truth, results


# -- measuring -----------------------------------------------------------------------------------


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def peak_memory(function: Callable[[], Any]) -> tuple[int, Any]:
    """Peak resident set during ``function()`` above the resident set before it (bytes)."""
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    except OSError:
        return -1, function()
    before = _status("VmRSS")
    result = function()
    return _status("VmHWM") - before, result


def best(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def quiet(function: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            return function()
    return run


# -- the libraries -------------------------------------------------------------------------------


def prcurve_arrays(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> tuple[
        GroundTruth, Detections]:
    return GroundTruth.from_coco(ground_truth), Detections.from_coco(results)


def pycocotools_objects(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> Any:
    from pycocotools.coco import COCO

    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO()
        gt.dataset = copy.deepcopy(ground_truth)
        gt.createIndex()
        dt = gt.loadRes(copy.deepcopy(results))
    return gt, dt


def pycocotools_run(objects: Any) -> np.ndarray:
    from pycocotools.cocoeval import COCOeval

    evaluator = COCOeval(objects[0], objects[1], "bbox")
    evaluator.evaluate()
    evaluator.accumulate()
    evaluator.summarize()
    return np.asarray(evaluator.stats)


def faster_objects(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> Any:
    from faster_coco_eval import COCO

    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(copy.deepcopy(ground_truth))
        dt = gt.loadRes(copy.deepcopy(results))
    return gt, dt


def faster_run(objects: Any) -> np.ndarray:
    from faster_coco_eval import COCOeval_faster

    evaluator = COCOeval_faster(objects[0], objects[1], "bbox")
    evaluator.evaluate()
    evaluator.accumulate()
    evaluator.summarize()
    return np.asarray(evaluator.stats[:12])


def torchmetrics_inputs(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> Any:
    import torch

    by_image: dict[int, dict[str, list[Any]]] = {
        img["id"]: {"boxes": [], "labels": [], "iscrowd": [], "area": [], "dboxes": [],
                    "scores": [], "dlabels": []} for img in ground_truth["images"]}
    for a in ground_truth["annotations"]:
        entry = by_image[a["image_id"]]
        entry["boxes"].append(a["bbox"])
        entry["labels"].append(a["category_id"])
        entry["iscrowd"].append(a["iscrowd"])
        entry["area"].append(a["area"])
    for d in results:
        entry = by_image[d["image_id"]]
        entry["dboxes"].append(d["bbox"])
        entry["scores"].append(d["score"])
        entry["dlabels"].append(d["category_id"])

    def boxes(values: list[Any]) -> Any:
        return torch.tensor(values, dtype=torch.float64).reshape(-1, 4)

    targets = [{"boxes": boxes(e["boxes"]), "labels": torch.tensor(e["labels"], dtype=torch.long),
                "iscrowd": torch.tensor(e["iscrowd"], dtype=torch.long),
                "area": torch.tensor(e["area"], dtype=torch.float64)} for e in by_image.values()]
    preds = [{"boxes": boxes(e["dboxes"]), "scores": torch.tensor(e["scores"],
                                                                  dtype=torch.float64),
              "labels": torch.tensor(e["dlabels"], dtype=torch.long)} for e in by_image.values()]
    return preds, targets


def torchmetrics_run(inputs: Any, backend: str) -> np.ndarray:
    from torchmetrics.detection import MeanAveragePrecision

    metric = MeanAveragePrecision(box_format="xywh", iou_type="bbox", backend=backend)
    metric.update(*inputs)
    out = metric.compute()
    names = ["map", "map_50", "map_75", "map_small", "map_medium", "map_large", "mar_1",
             "mar_10", "mar_100", "mar_small", "mar_medium", "mar_large"]
    return np.array([float(out[n]) for n in names])


def bootstrap_report(gt: GroundTruth, dt: Detections, n_resamples: int) -> None:
    """Time the image bootstrap of mAP and AP50, and say where the resamples lie."""
    from prcurve.detection import bootstrap_detection
    from prcurve.detection.bootstrap import _Resampler, _statistic, _weights

    evaluation = evaluate_coco(gt, dt)
    start = time.perf_counter()
    intervals = bootstrap_detection(evaluation, n_resamples=n_resamples, seed=0)
    seconds = time.perf_counter() - start
    peak, _ = peak_memory(lambda: bootstrap_detection(evaluation, n_resamples=n_resamples,
                                                      seed=0))
    resampler = _Resampler(evaluation)
    weights = _weights(np.random.default_rng(0), n_resamples, resampler.n_images)
    values = _statistic(*resampler.ap(weights), None)
    ci = intervals["mAP"]
    print(f"bootstrap_detection, {n_resamples} resamples (mAP and AP50): {seconds:.2f} s, "
          f"peak {peak / 1e6:.0f} MB; mAP {ci.estimate:.4f}, 95% interval "
          f"[{ci.lower:.4f}, {ci.upper:.4f}], resample median {np.median(values):.4f}",
          flush=True)


def _torchmetrics_missing() -> str | None:
    """Why torchmetrics' MeanAveragePrecision cannot run here, or None when it can."""
    try:
        from torchmetrics.detection import MeanAveragePrecision  # noqa: F401
    except Exception as error:  # ImportError, or torchvision failing to load its operators
        return f"{type(error).__name__}: {error}"
    return None


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _git() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


# -- keypoints (COCOeval(..., 'keypoints')) -------------------------------------------------------


def make_keypoint_files(folder: Path, n_images: int, seed: int = 0) -> tuple[Path, Path]:
    """A person-keypoints ground truth file and results file (COCO-val-person-like).

    ``n_images`` images of 640x480; per image Poisson(2.5) people, boxes of COCO-like
    sizes, 17 keypoints each labeled (v = 2, 55%), occluded (v = 1, 15%) or unlabeled
    (v = 0 at 0, 0), a third of the people (the small ones more often) with no labeled
    keypoint (``num_keypoints == 0``, ignored by the protocol), 1% crowds (no
    keypoints); ``area`` below the box's. Results (no ``bbox``, as pose models write
    them; pycocotools' ``loadRes`` then takes the keypoints' extent): Poisson(1.5) noisy
    copies of each person (all 17 points, noise from a few pixels to a third of the
    person's size) and false people elsewhere, 30 + Poisson(5) per image (more than
    maxDets 20), float32 scores (some ties).
    """
    rng = np.random.default_rng(seed)
    k = 17
    width, height = 640.0, 480.0
    images, annotations, results = [], [], []

    def person_points(x: float, y: float, w: float, h: float, n: int) -> np.ndarray:
        return np.stack((x + rng.random((n, k)) * w, y + rng.random((n, k)) * h), axis=2)

    for image in range(1, n_images + 1):
        images.append({"id": image, "width": int(width), "height": int(height)})
        dets: list[tuple[np.ndarray, float]] = []
        for _ in range(int(rng.poisson(2.5))):
            side = float(np.clip(np.exp(rng.normal(np.log(90.0), 0.8)), 8.0, 460.0))
            w = min(side * float(np.exp(rng.normal(-0.4, 0.3))), width - 1)
            h = min(side, height - 1)
            x, y = float(rng.uniform(0, width - w)), float(rng.uniform(0, height - h))
            crowd = bool(rng.random() < 0.01)
            xy = person_points(x, y, w, h, 1)[0]
            v = rng.choice([0, 1, 2], k, p=[0.3, 0.15, 0.55])
            if crowd or rng.random() < (0.6 if side < 40 else 0.2):
                v[:] = 0
            xy[v == 0] = 0.0
            keypoints = np.column_stack((xy.round(1), v)).ravel()
            annotations.append({
                "id": len(annotations) + 1, "image_id": image, "category_id": 1,
                "bbox": [round(x, 2), round(y, 2), round(w, 2), round(h, 2)],
                "area": round(w * h * float(rng.uniform(0.4, 0.9)), 2), "iscrowd": int(crowd),
                "keypoints": keypoints.tolist(), "num_keypoints": int((v > 0).sum())})
            if crowd:
                continue
            truth = person_points(x, y, w, h, 1)[0]
            truth[v > 0] = xy[v > 0]
            for _ in range(int(rng.poisson(1.5))):
                quality = float(rng.random())
                noise = rng.normal(0, (0.01 + 0.3 * (1 - quality)) * np.sqrt(w * h), (k, 2))
                score = float(np.clip(0.3 + 0.65 * quality + rng.normal(0, 0.1), 0.01, 1.0))
                dets.append((truth + noise, score))
        for _ in range(max(0, 30 + int(rng.poisson(5)) - len(dets))):
            w, h = (float(s) for s in rng.uniform(10, 200, 2))
            x, y = float(rng.uniform(0, width - w)), float(rng.uniform(0, height - h))
            dets.append((person_points(x, y, w, h, 1)[0], float(rng.beta(1.0, 5.0))))
        for xy, score in dets:
            points = np.column_stack((xy.round(2), np.ones(k))).ravel()
            results.append({"image_id": image, "category_id": 1, "keypoints": points.tolist(),
                            "score": float(np.float32(score))})
    gt_path, dt_path = folder / "person_keypoints.json", folder / "keypoint_results.json"
    gt_path.write_text(json.dumps({
        "images": images, "annotations": annotations,
        "categories": [{"id": 1, "name": "person", "supercategory": "person",
                        "keypoints": [f"k{i}" for i in range(k)], "skeleton": []}]}))
    dt_path.write_text(json.dumps(results))
    return gt_path, dt_path


def keypoints_prcurve(gt: Path, dt: Path) -> np.ndarray:
    """From the two files to the printed 10-line summary (printing captured)."""
    result = evaluate_coco(gt, dt, iou_type="keypoints")
    with contextlib.redirect_stdout(io.StringIO()):
        print(result.summary())
    return np.asarray(result.stats)


def without_orjson(function: Callable[[], Any]) -> Any:
    """``function()`` with ``import orjson`` failing: prcurve's standard-library reading."""
    saved = sys.modules.get("orjson")
    sys.modules["orjson"] = None  # type: ignore[assignment]
    try:
        return function()
    finally:
        if saved is None:
            del sys.modules["orjson"]
        else:
            sys.modules["orjson"] = saved


def keypoints_reference(module: str, gt: Path, dt: Path) -> np.ndarray:
    """pycocotools or faster-coco-eval from the two files to ``summarize()``."""
    if module == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval as Eval
    else:
        from faster_coco_eval import COCO
        from faster_coco_eval import COCOeval_faster as Eval
    with contextlib.redirect_stdout(io.StringIO()):
        ground_truth = COCO(str(gt))
        evaluator = Eval(ground_truth, ground_truth.loadRes(str(dt)), "keypoints")
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return np.asarray(evaluator.stats[:10])


def keypoints_main(n_images: int, repeat: int, seed: int, skip: list[str]) -> None:
    """The keypoint case: every library from the files to the summary, checked first."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        gt, dt = make_keypoint_files(Path(folder), n_images, seed)
        annotations = json.loads(gt.read_text())["annotations"]
        n_dt = len(json.loads(dt.read_text()))
        print(f"data: {n_images} images, person, 17 keypoints, {len(annotations)} ground truth "
              f"({sum(a['num_keypoints'] == 0 for a in annotations)} with num_keypoints 0, "
              f"{sum(a['iscrowd'] for a in annotations)} crowd), {n_dt} results "
              f"({n_dt / n_images:.1f} per image), files {gt.stat().st_size / 1e6:.1f} + "
              f"{dt.stat().st_size / 1e6:.1f} MB", flush=True)
        runs = {"prcurve": lambda: keypoints_prcurve(gt, dt)}
        if "stdlib" not in skip and _available("orjson"):
            runs["prcurve, standard-library json"] = lambda: without_orjson(
                lambda: keypoints_prcurve(gt, dt))
        if "pycocotools" not in skip:
            runs["pycocotools"] = lambda: keypoints_reference("pycocotools", gt, dt)
        if "faster" not in skip and _available("faster_coco_eval"):
            runs["faster-coco-eval"] = lambda: keypoints_reference("faster_coco_eval", gt, dt)
        reference = (runs.get("pycocotools") or runs["prcurve"])()
        rows = []
        for name, run in runs.items():
            peak, stats = peak_memory(run)
            diff = float(np.max(np.abs(stats - reference)))
            if diff > 1e-12:
                print(f"WARNING: {name}'s statistics differ from pycocotools' by {diff:.1e}",
                      file=sys.stderr)
            seconds, _ = best(run, repeat)
            rows.append((name, seconds, peak, diff))
            print(f"{name}: {seconds:.3f} s", flush=True)
    ours = rows[0][1]
    print("\n| library | seconds | ratio to prcurve | peak MB | max stat diff vs pycocotools |")
    print("|:--|--:|--:|--:|--:|")
    for name, seconds, peak, diff in rows:
        peak_text = "n/a" if peak < 0 else f"{peak / 1e6:.0f}"
        print(f"| {name} | {seconds:.3f} | {seconds / ours:.1f}x | {peak_text} | {diff:.1e} |")
    load = os.getloadavg()
    print(f"\n- load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} at the end; "
          f"python {platform.python_version()}, numpy {np.__version__}, prcurve git {_git()}; "
          f"best of {repeat}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", action="append", default=[],
                        help="a library to leave out: pycocotools, faster, torchmetrics; "
                        "stdlib: prcurve without orjson (keypoints)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="also time bootstrap_detection with N resamples (no peer has one)")
    parser.add_argument("--iou-type", default="bbox", choices=("bbox", "segm", "keypoints"),
                        help="keypoints: the person-keypoint case (make_keypoint_files), "
                        "from the JSON files to the printed summary; segm: bench_masks.py's "
                        "case (3,000 images unless --images is given)")
    args = parser.parse_args()
    if args.iou_type == "segm":
        import bench_masks

        images = ["--images", str(args.images)] if "--images" in sys.argv else []
        bench_masks.main([*images, "--repeat", str(args.repeat)])
        return
    if args.iou_type == "keypoints":
        keypoints_main(args.images, args.repeat, args.seed, args.skip)
        return
    started = time.perf_counter()
    ground_truth, results = make_data(args.images, args.seed)
    n_gt = len(ground_truth["annotations"])
    print(f"data: {args.images} images, 80 categories, {n_gt} ground truth "
          f"({n_gt / args.images:.2f} per image, "
          f"{sum(a['iscrowd'] for a in ground_truth['annotations'])} crowd), "
          f"{len(results)} detections ({len(results) / args.images:.1f} per image)",
          flush=True)
    rows: list[tuple[str, float, int, np.ndarray]] = []

    gt, dt = prcurve_arrays(ground_truth, results)
    seconds, out = best(lambda: evaluate_coco(gt, dt).stats, args.repeat)
    peak, _ = peak_memory(lambda: evaluate_coco(gt, dt).stats)
    rows.append(("prcurve (arrays)", seconds, peak, out))
    print(f"prcurve arrays: {seconds:.3f} s", flush=True)
    seconds, out = best(lambda: evaluate_coco(ground_truth, results).stats, args.repeat)
    peak, _ = peak_memory(lambda: evaluate_coco(ground_truth, results).stats)
    rows.append(("prcurve (from the JSON objects)", seconds, peak, out))
    print(f"prcurve json objects: {seconds:.3f} s", flush=True)

    if "pycocotools" not in args.skip:
        objects = pycocotools_objects(ground_truth, results)
        seconds, out = best(quiet(lambda: pycocotools_run(objects)), args.repeat)
        peak, _ = peak_memory(quiet(lambda: pycocotools_run(objects)))
        rows.append(("pycocotools", seconds, peak, out))
        print(f"pycocotools: {seconds:.3f} s", flush=True)
        del objects
    if "faster" not in args.skip and _available("faster_coco_eval"):
        objects = faster_objects(ground_truth, results)
        seconds, out = best(quiet(lambda: faster_run(objects)), args.repeat)
        peak, _ = peak_memory(quiet(lambda: faster_run(objects)))
        rows.append(("faster-coco-eval", seconds, peak, out))
        print(f"faster-coco-eval: {seconds:.3f} s", flush=True)
        del objects
    torchmetrics_note = _torchmetrics_missing() if "torchmetrics" not in args.skip else None
    if "torchmetrics" not in args.skip and torchmetrics_note is None:
        inputs = torchmetrics_inputs(ground_truth, results)
        for backend in ("faster_coco_eval", "pycocotools"):
            if backend == "pycocotools" and "pycocotools" in args.skip:
                continue
            seconds, out = best(quiet(lambda b=backend: torchmetrics_run(inputs, b)),
                                args.repeat)
            peak, _ = peak_memory(quiet(lambda b=backend: torchmetrics_run(inputs, b)))
            rows.append((f"torchmetrics ({backend} backend)", seconds, peak, out))
            print(f"torchmetrics {backend}: {seconds:.3f} s", flush=True)

    if args.bootstrap:
        bootstrap_report(gt, dt, args.bootstrap)
    reference = next((r[3] for r in rows if r[0] == "pycocotools"), rows[0][3])
    ours = rows[0][1]
    print()
    print("| library | seconds | ratio to prcurve (arrays) | peak MB | max stat diff vs "
          "pycocotools |")
    print("|:--|--:|--:|--:|--:|")
    for name, seconds, peak, stats in rows:
        diff = float(np.max(np.abs(stats - reference)))
        peak_text = "n/a" if peak < 0 else f"{peak / 1e6:.0f}"
        print(f"| {name} | {seconds:.3f} | {seconds / ours:.1f}x | {peak_text} | {diff:.1e} |")
    print()
    load = os.getloadavg()
    print(f"- platform: {platform.platform()}, CPU count {os.cpu_count()}, load average "
          f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min) at the end")
    versions = [f"python {platform.python_version()}", f"numpy {np.__version__}"]
    for module in ("pycocotools", "faster_coco_eval", "torchmetrics", "torch"):
        if _available(module):
            from importlib.metadata import PackageNotFoundError, version

            try:
                versions.append(f"{module} {version(module.replace('_', '-'))}")
            except PackageNotFoundError:
                versions.append(f"{module} ?")
    print(f"- {', '.join(versions)}, prcurve git {_git()}")
    if torchmetrics_note is not None:
        print(f"- torchmetrics MeanAveragePrecision not measured: {torchmetrics_note}")
    print(f"- best of {args.repeat}; total wall time {time.perf_counter() - started:.0f} s")
    stats_ok = all(float(np.max(np.abs(r[3] - reference))) <= 1e-12 for r in rows
                   if not r[0].startswith("torchmetrics"))
    if not stats_ok:
        print("WARNING: a library's statistics differ from pycocotools' by more than 1e-12",
              file=sys.stderr)


if __name__ == "__main__":
    main()

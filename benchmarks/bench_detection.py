"""COCO box evaluation speed and memory: prcurve vs pycocotools, faster-coco-eval, torchmetrics.

Usage::

    python benchmarks/bench_detection.py                  # the issue's data set, best of 3
    python benchmarks/bench_detection.py --images 500 --repeat 1   # a quick run

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", action="append", default=[],
                        help="a library to leave out: pycocotools, faster, torchmetrics")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="also time bootstrap_detection with N resamples (no peer has one)")
    args = parser.parse_args()
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

"""LVIS federated evaluation speed: prcurve's ``evaluate_lvis`` vs lvis-api's ``LVISEval``.

Usage::

    python benchmarks/bench_lvis.py                         # 2,000 images, best of 1
    python benchmarks/bench_lvis.py --images 300 --repeat 1 # a quick run
    python benchmarks/bench_lvis.py --iou-type segm         # masks (RLE results)

Data (fixed seed, LVIS-v1-val-like): ``--images`` images of 640x480, 1,000
categories (28% rare, 38% common, 34% frequent, as LVIS v1's 337/461/405 of
1,203), per image 1 + Poisson(3) positive categories (frequent ones more
likely) with 1 + Poisson(2) objects each, 1 + Poisson(7) verified-absent
categories (``neg_category_ids``) and each positive one not exhaustive with
probability 0.15. Detections: about four noisy copies of each object (a
fifth with the wrong class) and random boxes of random categories, 320 per
image before lvis-api's cut to 300, float32 scores (some ties). With
``--iou-type segm``: each object's mask is the octagon inscribed in its box
(polygons), each result's the same for its box as a compressed RLE string,
and results keep their ``bbox`` (as detectron2 writes LVIS results).

What is timed (best of ``--repeat``, one process, from the files on disk to
the printed summary, JSON parsing included in both):

- prcurve: ``evaluate_lvis(gt_path, dt_path).summary()``;
- lvis-api: ``LVIS(gt_path)``, ``LVISResults(gt, dt_path)``, ``LVISEval(gt,
  dt, 'bbox').run()``, ``print_results()`` (its printout captured).

The 13 results must agree to 1e-12 before any time is reported. lvis-api
needs ``np.float`` (removed in numpy 1.24), set here before it is imported.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from prcurve.detection import evaluate_lvis

WIDTH, HEIGHT = 640, 480


def octagon(box: list[float]) -> list[float]:
    x, y, w, h = box
    angles = np.arange(8) * np.pi / 4
    px = np.clip(x + w / 2 + w / 2 * np.cos(angles), 0, WIDTH)
    py = np.clip(y + h / 2 + h / 2 * np.sin(angles), 0, HEIGHT)
    return np.round(np.stack((px, py), axis=1).ravel(), 2).tolist()  # type: ignore[no-any-return]


def add_masks(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> None:
    """Polygons for the objects, compressed RLE strings for the results (in place)."""
    import pycocotools.mask as coco_mask

    for ann in ground_truth["annotations"]:
        ann["segmentation"] = [octagon(ann["bbox"])]
    for result in results:
        rle = coco_mask.frPyObjects([octagon(result["bbox"])], HEIGHT, WIDTH)[0]
        result["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}


def make_data(n_images: int, n_categories: int = 1000, dets_per_image: int = 320,
              seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The LVIS ground truth dict and results list (module docstring)."""
    rng = np.random.default_rng(seed)
    cat_ids = np.arange(1, n_categories + 1)
    frequency = rng.choice(np.array(["r", "c", "f"]), n_categories, p=[0.28, 0.38, 0.34])
    weight = np.where(frequency == "f", 20.0, np.where(frequency == "c", 3.0, 0.3))
    weight /= weight.sum()
    categories = [{"id": int(c), "name": f"cat{c}", "frequency": str(f)}
                  for c, f in zip(cat_ids, frequency, strict=True)]
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def boxes(n: int) -> np.ndarray:
        side = np.exp(rng.uniform(np.log(8), np.log(400), n))
        w = side * rng.uniform(0.6, 1.4, n)
        h = side * rng.uniform(0.6, 1.4, n)
        x = rng.uniform(0, WIDTH - 8, n)
        y = rng.uniform(0, HEIGHT - 8, n)
        w = np.minimum(w, WIDTH - x)
        h = np.minimum(h, HEIGHT - y)
        return np.round(np.stack([x, y, w, h], axis=1), 2)

    ann_id = 1
    for image_id in range(1, n_images + 1):
        positive = rng.choice(cat_ids, 1 + rng.poisson(3), replace=False, p=weight)
        n_objects = 1 + rng.poisson(2, positive.shape[0])
        obj_cat = np.repeat(positive, n_objects)
        obj_box = boxes(obj_cat.shape[0])
        for c, b in zip(obj_cat.tolist(), obj_box.tolist(), strict=True):
            annotations.append({"id": ann_id, "image_id": image_id, "category_id": c,
                                "bbox": b, "area": round(b[2] * b[3] * 0.7, 2)})
            ann_id += 1
        others = np.setdiff1d(cat_ids, positive)
        negative = rng.choice(others, min(1 + rng.poisson(7), others.shape[0]), replace=False)
        not_exhaustive = positive[rng.random(positive.shape[0]) < 0.15]
        images.append({"id": image_id, "width": WIDTH, "height": HEIGHT,
                       "neg_category_ids": negative.tolist(),
                       "not_exhaustive_category_ids": not_exhaustive.tolist()})
        # About four noisy copies of each object, a fifth of them with another class.
        copies = np.repeat(np.arange(obj_cat.shape[0]), 4)
        jitter = rng.normal(0, 0.1, (copies.shape[0], 4)) * np.repeat(obj_box[copies][:, 2:],
                                                                        2, axis=1)
        det_box = np.round(np.abs(obj_box[copies] + jitter), 2)
        det_cat = np.where(rng.random(copies.shape[0]) < 0.2,
                           rng.choice(cat_ids, copies.shape[0], p=weight), obj_cat[copies])
        det_score = rng.uniform(0.3, 1.0, copies.shape[0])
        n_random = max(dets_per_image - copies.shape[0], 0)
        det_box = np.concatenate([det_box, boxes(n_random)])[:dets_per_image]
        det_cat = np.concatenate([det_cat, rng.choice(cat_ids, n_random, p=weight)])[
            :dets_per_image]
        det_score = np.concatenate([det_score, rng.uniform(0, 0.6, n_random)])[
            :dets_per_image].astype(np.float32).astype(np.float64)
        for c, b, s in zip(det_cat.tolist(), det_box.tolist(), det_score.tolist(), strict=True):
            results.append({"image_id": image_id, "category_id": c, "bbox": b, "score": s})
    return {"images": images, "annotations": annotations, "categories": categories}, results


def lvis_api() -> Any:
    if np.__dict__.get("float") is not float:
        setattr(np, "float", float)  # noqa: B010 - numpy >= 1.24 has no np.float
    import lvis

    return lvis


def run_lvis_api(gt_path: Path, dt_path: Path, iou_type: str) -> dict[str, float]:
    lvis = lvis_api()
    ground_truth = lvis.LVIS(str(gt_path))
    results = lvis.LVISResults(ground_truth, str(dt_path))
    evaluation = lvis.LVISEval(ground_truth, results, iou_type=iou_type)
    evaluation.run()
    with contextlib.redirect_stdout(io.StringIO()):
        evaluation.print_results()
    return {k: float(v) for k, v in evaluation.get_results().items()}


def run_prcurve(gt_path: Path, dt_path: Path, iou_type: str) -> dict[str, float]:
    result = evaluate_lvis(gt_path, dt_path, iou_type=iou_type)
    result.summary()
    return result.results()


def best_of(repeat: int, run: Callable[[], dict[str, float]]) -> tuple[float, dict[str, float]]:
    times, out = [], {}
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--categories", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--iou-type", default="bbox", choices=("bbox", "segm"))
    args = parser.parse_args()
    import logging

    logging.getLogger("lvis").setLevel(logging.ERROR)
    ground_truth, results = make_data(args.images, args.categories)
    if args.iou_type == "segm":
        add_masks(ground_truth, results)
    with tempfile.TemporaryDirectory() as folder:
        gt_path, dt_path = Path(folder) / "gt.json", Path(folder) / "dt.json"
        gt_path.write_text(json.dumps(ground_truth))
        dt_path.write_text(json.dumps(results))
        print(f"{args.images} images, {args.categories} categories, "
              f"{len(ground_truth['annotations'])} objects, {len(results)} results "
              f"({args.iou_type}) "
              f"({dt_path.stat().st_size / 2**20:.0f} MiB); python {platform.python_version()}, "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        ours_time, ours = best_of(args.repeat, lambda: run_prcurve(gt_path, dt_path,
                                                                   args.iou_type))
        print(f"prcurve evaluate_lvis: {ours_time:.2f} s", flush=True)
        theirs_time, theirs = best_of(args.repeat, lambda: run_lvis_api(gt_path, dt_path,
                                                                      args.iou_type))
        print(f"lvis-api LVISEval:     {theirs_time:.2f} s", flush=True)
    worst = max(abs(ours[k] - theirs[k]) for k in theirs)
    if list(ours) != list(theirs) or worst > 1e-12:
        sys.exit(f"results differ from lvis-api (largest difference {worst:g})")
    print(f"results equal to lvis-api (largest difference {worst:g}); "
          f"speed-up {theirs_time / ours_time:.1f}x; AP {ours['AP']:.4f}, "
          f"APr {ours['APr']:.4f}; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

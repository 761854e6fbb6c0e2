"""COCO instance masks (segm) from the JSON files: prcurve vs pycocotools, faster-coco-eval.

Usage::

    python benchmarks/bench_masks.py                       # 3,000 images, best of 3
    python benchmarks/bench_masks.py --images 300 --repeat 1

Data (fixed seed, written to a temporary folder): ``--images`` images of 640 x
480, 20 categories, 1-11 objects per image, each a polygon of 6-19 vertices
(the ground truth, as COCO stores it, ``area`` the mask's), 0-2 results near
each object (the same shape moved by a few pixels, sometimes another class)
and 0-7 elsewhere, every result a compressed RLE string without ``bbox``
(as detectron2 and mmdetection write them).

What is timed (best of ``--repeat``, one process, wall and CPU time, each
library's runs in a row): from the two JSON files to
the printed summary, for each library: reading the files, converting the
masks, evaluate, accumulate and summarize. The 12 statistics of every library
are checked against pycocotools' first. Peak memory: the resident-set
high-water mark above the resident set before the call (bench_detection's
``peak_memory``).
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
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_detection import best, peak_memory
from prcurve.detection import evaluate_coco

HEIGHT, WIDTH = 480, 640


def make_files(folder: Path, n_images: int, seed: int = 0) -> tuple[Path, Path]:
    """The ground truth and results files (module docstring)."""
    import pycocotools.mask as coco_mask

    rng = np.random.default_rng(seed)

    def polygon(x: float, y: float, w: float, h: float) -> list[float]:
        k = int(rng.integers(6, 20))
        angle = np.sort(rng.uniform(0, 2 * np.pi, k))
        radius = rng.uniform(0.6, 1.0, k)
        xy = np.stack((x + w / 2 + w / 2 * radius * np.cos(angle),
                       y + h / 2 + h / 2 * radius * np.sin(angle)), axis=1)
        return xy.ravel().round(2).tolist()  # type: ignore[no-any-return]

    def rle(points: list[float]) -> dict[str, Any]:
        encoded = coco_mask.frPyObjects([points], HEIGHT, WIDTH)[0]
        return {"size": [HEIGHT, WIDTH], "counts": encoded["counts"].decode()}

    images, annotations, results = [], [], []
    for image in range(1, n_images + 1):
        images.append({"id": image, "height": HEIGHT, "width": WIDTH})
        for _ in range(int(rng.integers(1, 12))):
            w, h = rng.uniform(10, 250, 2)
            x, y = rng.uniform(0, WIDTH - w), rng.uniform(0, HEIGHT - h)
            points = polygon(x, y, w, h)
            mask = coco_mask.frPyObjects([points], HEIGHT, WIDTH)[0]
            category = int(rng.integers(1, 21))
            annotations.append({"id": len(annotations) + 1, "image_id": image,
                                "category_id": category, "segmentation": [points],
                                "area": float(coco_mask.area(mask)),
                                "bbox": coco_mask.toBbox(mask).tolist(), "iscrowd": 0})
            for _ in range(int(rng.integers(0, 3))):
                dx, dy = rng.normal(0, 0.05 * w), rng.normal(0, 0.05 * h)
                results.append({
                    "image_id": image, "score": float(rng.random()),
                    "category_id": category if rng.random() < 0.9 else int(rng.integers(1, 21)),
                    "segmentation": rle(polygon(x + dx, y + dy, w, h))})
        for _ in range(int(rng.integers(0, 8))):
            w, h = rng.uniform(10, 200, 2)
            x, y = rng.uniform(0, WIDTH - w), rng.uniform(0, HEIGHT - h)
            results.append({"image_id": image, "category_id": int(rng.integers(1, 21)),
                            "segmentation": rle(polygon(x, y, w, h)),
                            "score": float(rng.random())})
    gt_path, dt_path = folder / "instances.json", folder / "results.json"
    gt_path.write_text(json.dumps({"images": images, "annotations": annotations,
                                   "categories": [{"id": c, "name": f"class{c}"}
                                                  for c in range(1, 21)]}))
    dt_path.write_text(json.dumps(results))
    return gt_path, dt_path


def run_prcurve(gt: Path, dt: Path) -> np.ndarray:
    result = evaluate_coco(gt, dt, iou_type="segm")
    result.summary()
    return np.asarray(result.stats)


def run_reference(module: str, gt: Path, dt: Path) -> np.ndarray:
    if module == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval as Eval
    else:
        from faster_coco_eval import COCO
        from faster_coco_eval import COCOeval_faster as Eval
    with contextlib.redirect_stdout(io.StringIO()):
        ground_truth = COCO(str(gt))
        evaluator = Eval(ground_truth, ground_truth.loadRes(str(dt)), "segm")
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return np.asarray(evaluator.stats)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)  # pycocotools' decode on numpy 2
    with tempfile.TemporaryDirectory() as folder:
        gt, dt = make_files(Path(folder), args.images)
        n_gt = len(json.loads(gt.read_text())["annotations"])
        n_dt = len(json.loads(dt.read_text()))
        print(f"{args.images} images of {WIDTH}x{HEIGHT}, {n_gt} polygon objects, {n_dt} RLE "
              f"results; Python {platform.python_version()}, numpy {np.__version__}")
        runs = {"prcurve": lambda: run_prcurve(gt, dt),
                "pycocotools": lambda: run_reference("pycocotools", gt, dt)}
        with contextlib.suppress(ImportError):
            import faster_coco_eval  # noqa: F401

            runs["faster-coco-eval"] = lambda: run_reference("faster_coco_eval", gt, dt)
        print(f"load {os.getloadavg()[0]:.2f}", flush=True)
        reference = runs["pycocotools"]()
        times, cpu = {}, {}
        for name, run in runs.items():
            memory, stats = peak_memory(run)
            if not np.allclose(stats, reference, rtol=0, atol=1e-12):
                raise SystemExit(f"{name}'s statistics differ from pycocotools': {stats}")
            seconds, _ = best(run, args.repeat)
            # CPU time (user + sys of this process, best of repeat): on a shared machine
            # the wall time is mostly waiting for a core.
            cpu[name] = min(_cpu_seconds(run) for _ in range(args.repeat))
            times[name] = seconds
            print(f"{name:18s} {seconds:8.2f} s  cpu {cpu[name]:7.2f} s  "
                  f"peak {memory / 2**20:7.0f} MiB", flush=True)
        for name, seconds in times.items():
            if name != "prcurve":
                print(f"prcurve vs {name}: {seconds / times['prcurve']:.2f}x (cpu "
                      f"{cpu[name] / cpu['prcurve']:.2f}x)")
        print(f"load {os.getloadavg()[0]:.2f}")


def _cpu_seconds(run: Any) -> float:
    gc.collect()
    start = time.process_time()
    run()
    return time.process_time() - start


if __name__ == "__main__":
    main()

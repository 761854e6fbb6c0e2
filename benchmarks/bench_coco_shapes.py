"""``prcurve coco`` on 100 images of every shape users bring (issue 26, item 2): whole processes.

Usage::

    python benchmarks/bench_coco_shapes.py --list
    python benchmarks/bench_coco_shapes.py --repeat 5 [--only TEXT ...] [--before PYTHON]

bench_everyday.py times one COCO shape (bench_detection's generator, 100 images, 80
categories, 100 boxes an image). Here each shape's name states what it holds; every
shape is 100 images of 640 x 480 unless its name says otherwise:

- boxes, 80 categories and few boxes each (Poisson(1.5) objects an image, 6 detections);
- boxes, 1 category and many boxes (Poisson(15) objects, 300 detections an image: the
  cut to maxDets 100 decides what is kept);
- boxes with 20% crowd regions (iscrowd 1, each with an uncompressed-RLE
  ``segmentation`` as COCO's crowds have) and an ``ignore`` field on 5% of the others
  (pycocotools and faster-coco-eval overwrite it by ``iscrowd``; so does prcurve);
- ``segm``: polygon ground truth (bench_masks' generator) and, second, the same masks as
  compressed-RLE strings with 10% crowds in uncompressed RLE; results compressed-RLE
  strings without ``bbox`` in both;
- ``keypoints``: bench_detection's person-keypoint generator (17 keypoints, 30+ results
  an image, maxDets 20);
- boxes of bench_detection's generator with results written with 17-digit floats
  (boxes and scores as float64 ``repr``), against the same results rounded (the
  generator's 2-decimal boxes, float32 scores);
- bench_detection's generator at 100, 500 and 5,000 images (the trend);
- LVIS (``prcurve lvis``, bench_lvis' generator: 1,000 categories, 320 results an image
  cut to 300) against an lvis-api process (``LVIS``, ``LVISResults``, ``LVISEval.run``,
  ``print_results``); faster-coco-eval's ``lvis_style`` is timed beside it, not checked
  (its protocol is not lvis-api's: the numbers differ).

``prcurve coco`` runs twice: as installed with the test extra (orjson parses the JSON)
and, as a plain install would, without orjson (``import orjson`` made to fail; the
standard library's ``json`` reads).

Every number is one whole process (start-up, reading, computing, printing), best of
``--repeat`` (wall: the least; CPU, user + system from ``wait4``: the least; peak resident
set: the largest), rounds alternating the tools of a shape; ``--slow-repeat`` runs of
pycocotools and lvis-api. The statistics of ``prcurve coco --json`` (``prcurve lvis
--json``) are checked equal to pycocotools' and faster-coco-eval's (lvis-api's) to 1e-12
before a shape's row is printed. Inputs are written by a child process under
``--folder`` (default: a temporary folder, deleted afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_shapes import COCO, PEERS, print_table, timed_rounds
from bench_trec import CHILD_ENV

PY = sys.executable

LVIS_API = """
import sys
import numpy as np
np.float = float  # lvis-api uses np.float (removed in numpy 1.24)
import lvis
gt = lvis.LVIS(sys.argv[1])
e = lvis.LVISEval(gt, lvis.LVISResults(gt, sys.argv[2]), sys.argv[3])
e.run(); e.print_results()
print("STATS " + " ".join(repr(float(v)) for v in e.get_results().values()))
"""

LVIS_FASTER = """
import sys
from faster_coco_eval import COCO, COCOeval_faster
gt = COCO(sys.argv[1])
e = COCOeval_faster(gt, gt.loadRes(sys.argv[2]), sys.argv[3], lvis_style=True)
e.params.maxDets = [300]
e.evaluate(); e.accumulate(); e.summarize()
print("STATS " + " ".join(repr(float(v)) for v in e.stats))
"""

WITHOUT_ORJSON = """
import runpy, sys
sys.modules["orjson"] = None  # import orjson fails: the standard library's json reads
sys.argv = ["prcurve", *sys.argv[1:]]
runpy.run_module("prcurve", run_name="__main__", alter_sys=True)
"""
"""``python -m prcurve ARGS`` as a process without orjson installed (the same entry point,
``prcurve.__main__``)."""

# name: (file stem, generator, iou type, command)
SHAPES: dict[str, tuple[str, str, str, str]] = {
    "boxes, the everyday shape (bench_detection: 80 categories, Poisson(7) objects, 100 "
    "detections an image)": ("everyday", "make_data 100", "bbox", "coco"),
    "(a) boxes, 80 categories, few boxes each (Poisson(1.5) objects, 6 detections an image)":
    ("few", "few", "bbox", "coco"),
    "(b) boxes, 1 category, many boxes (Poisson(15) objects, 300 detections an image; "
    "maxDets 100)": ("many", "many", "bbox", "coco"),
    "(c) boxes, 20% crowd regions (uncompressed RLE) and 5% 'ignore' fields (80 categories, "
    "100 detections an image)": ("crowd", "crowd", "bbox", "coco"),
    "(d) segm, polygon ground truth (20 categories, 1-11 objects, RLE results)": (
        "polygons", "polygons", "segm", "coco"),
    "(d) segm, RLE ground truth (compressed strings; 10% crowds uncompressed)": (
        "rle", "rle", "segm", "coco"),
    "(e) keypoints (person, 17 keypoints, Poisson(2.5) people, 30+ results an image)": (
        "keypoints", "keypoints", "keypoints", "coco"),
    "(f) boxes, results with 17-digit floats (the everyday shape's, float64 repr)": (
        "digits", "digits", "bbox", "coco"),
    "(g) boxes, the everyday shape at 500 images": ("everyday500", "make_data 500", "bbox",
                                                    "coco"),
    "(g) boxes, the everyday shape at 5,000 images": ("everyday5000", "make_data 5000", "bbox",
                                                      "coco"),
    "(h) LVIS boxes (1,000 categories, 320 results an image cut to 300)": (
        "lvis", "lvis", "bbox", "lvis"),
}


# ---------------------------------------------------------------- the files

def _dump(folder: Path, stem: str, ground_truth: Any, results: Any) -> None:
    (folder / f"{stem}.gt.json").write_text(json.dumps(ground_truth))
    (folder / f"{stem}.dt.json").write_text(json.dumps(results))


def _uncompressed(mask: Any) -> dict[str, Any]:
    """A binary mask as COCO's uncompressed RLE (column-major runs, starting with 0s)."""
    import numpy as np

    flat = np.asfortranarray(mask).ravel(order="F").astype(np.int8)
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate(([0], change, [flat.shape[0]]))
    counts = np.diff(bounds).tolist()
    if flat[0] == 1:
        counts = [0, *counts]
    return {"size": list(mask.shape), "counts": counts}


def write(folder: Path, generator: str, stem: str) -> None:
    """Write ``stem``.gt.json and ``stem``.dt.json with ``generator``."""
    import numpy as np

    import bench_detection
    import bench_lvis
    import bench_masks
    from bench_shapes import coco_files

    gt_path, dt_path = folder / f"{stem}.gt.json", folder / f"{stem}.dt.json"
    if gt_path.exists() and dt_path.exists():
        return
    rng = np.random.default_rng(1)
    if generator.startswith("make_data"):
        _dump(folder, stem, *bench_detection.make_data(int(generator.split()[1])))
    elif generator in ("few", "many", "crowd"):
        arguments = {"few": {"objects": 1.5, "dets": 6},
                     "many": {"categories": 1, "objects": 15.0, "dets": 300},
                     "crowd": {"crowd": 0.2}}[generator]
        gt, dt = coco_files(folder, stem, 100, **arguments)
        if generator == "crowd":
            data = json.loads(gt.read_text())
            for a in data["annotations"]:
                if a["iscrowd"]:
                    x, y, w, h = (int(v) for v in a["bbox"])
                    mask = np.zeros((480, 640), np.uint8)
                    mask[y:y + max(h, 1), x:x + max(w, 1)] = 1
                    a["segmentation"] = _uncompressed(mask)
                elif rng.random() < 0.05:
                    a["ignore"] = 1
            gt.write_text(json.dumps(data))
    elif generator in ("polygons", "rle"):
        gt, dt = bench_masks.make_files(folder, 100)
        gt.rename(gt_path)
        dt.rename(dt_path)
        if generator == "rle":
            import pycocotools.mask as coco_mask

            data = json.loads(gt_path.read_text())
            for a in data["annotations"]:
                rle = coco_mask.merge(coco_mask.frPyObjects(a["segmentation"], 480, 640))
                if rng.random() < 0.1:
                    a["iscrowd"] = 1
                    a["segmentation"] = _uncompressed(coco_mask.decode(rle))
                else:
                    a["segmentation"] = {"size": [480, 640], "counts": rle["counts"].decode()}
            gt_path.write_text(json.dumps(data))
    elif generator == "keypoints":
        gt, dt = bench_detection.make_keypoint_files(folder, 100)
        gt.rename(gt_path)
        dt.rename(dt_path)
    elif generator == "digits":
        ground_truth, results = bench_detection.make_data(100)
        for r in results:
            r["bbox"] = [v + float(rng.random()) * 1e-2 for v in r["bbox"]]
            r["score"] = float(np.clip(r["score"] + rng.normal(0, 1e-3), 1e-6, 1.0))
        _dump(folder, stem, ground_truth, results)
    elif generator == "lvis":
        _dump(folder, stem, *bench_lvis.make_data(100))
    else:
        raise SystemExit(f"unknown generator {generator}")


# ---------------------------------------------------------------- the tools

def tools_of(name: str, folder: Path, python: str, before: str | None,
             skip: list[str]) -> dict[str, list[str]]:
    stem, _, iou_type, command = SHAPES[name]
    gt, dt = str(folder / f"{stem}.gt.json"), str(folder / f"{stem}.dt.json")
    ours = [python, "-m", "prcurve", command, "--iou-type", iou_type, gt, dt]
    tools = {f"prcurve {command}": ours}
    if before is not None:
        tools[f"prcurve {command} [before]"] = [before, *ours[1:]]
    if "no-orjson" not in skip:  # a plain install: orjson is the optional `json` extra
        tools[f"prcurve {command}, without orjson"] = [python, "-c", WITHOUT_ORJSON,
                                                       *ours[3:]]
    if command == "lvis":
        if "faster-coco-eval" not in skip:
            tools["faster-coco-eval lvis_style process (not checked)"] = [
                python, "-c", LVIS_FASTER, gt, dt, iou_type]
        if "lvis-api" not in skip:
            tools["lvis-api process"] = [python, "-c", LVIS_API, gt, dt, iou_type]
        return tools
    for peer, imports in PEERS.items():
        if peer not in skip:
            tools[f"{peer} process"] = [python, "-c", COCO.format(imports=imports), gt, dt,
                                        iou_type]
    return tools


def check(name: str, folder: Path, python: str, outputs: dict[str, bytes]) -> str:
    """prcurve's statistics (from --json) against each checked peer's, to 1e-12."""
    stem, _, iou_type, command = SHAPES[name]
    done = subprocess.run([python, "-m", "prcurve", command, "--json", "--iou-type", iou_type,
                           str(folder / f"{stem}.gt.json"), str(folder / f"{stem}.dt.json")],
                          capture_output=True, check=True, env=CHILD_ENV)
    ours = list(json.loads(done.stdout)["stats"].values())
    notes = []
    for tool, out in outputs.items():
        if tool.startswith("prcurve") or "not checked" in tool:
            continue
        line = [row for row in out.decode().splitlines() if row.startswith("STATS ")][-1]
        theirs = [float(v) for v in line.split()[1:]][:len(ours)]
        worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
        if worst > 1e-12 or len(theirs) != len(ours):
            raise SystemExit(f"{name}: statistics differ from {tool}'s by {worst}: "
                             f"{ours} {theirs}")
        notes.append(f"{tool.split()[0]} {worst:.1e}")
    return (f"{len(ours)} statistics equal to 1e-12 (largest difference: "
            + ", ".join(notes) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--slow-repeat", type=int, default=2,
                        help="runs of the pycocotools and lvis-api processes")
    parser.add_argument("--only", nargs="*", default=None, metavar="TEXT",
                        help="only the shapes whose name contains one of these")
    parser.add_argument("--skip", nargs="*", default=[], metavar="TOOL",
                        help="tools left out: pycocotools, faster-coco-eval, lvis-api, "
                        "no-orjson (prcurve's run without orjson)")
    parser.add_argument("--before", default=None, metavar="PYTHON",
                        help="also time every prcurve command with this interpreter")
    parser.add_argument("--folder", default=None, help="keep the inputs here")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--write", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.list:
        print("\n".join(SHAPES))
        return
    if args.write:  # the child that writes the inputs (this process stays small)
        for name in args.write[1:]:
            write(Path(args.write[0]), SHAPES[name][1], SHAPES[name][0])
        return
    chosen = [n for n in SHAPES if args.only is None or any(t in n for t in args.only)]
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.folder or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([PY, __file__, "--write", str(folder), *chosen], check=True)
        print(f"# load average before: {os.getloadavg()}", flush=True)
        rows = []
        for name in chosen:
            tools = tools_of(name, folder, PY, args.before, args.skip)
            slow = {t for t in tools if t.startswith(("pycocotools", "lvis-api"))}
            results = timed_rounds(name, tools, slow, folder, args.repeat, args.slow_repeat)
            note = check(name, folder, PY, {t: r[-1]["stdout"] for t, r in results.items()})
            sizes = sum((folder / f"{SHAPES[name][0]}.{k}.json").stat().st_size
                        for k in ("gt", "dt"))
            print(f"# {name}: {note}; files {sizes / 2**20:.1f} MiB", flush=True)
            rows.append((name, results))
        print(f"# load average after: {os.getloadavg()}; CPU cores: {os.cpu_count()}; "
              f"{platform.platform()}; Python {platform.python_version()}; best of "
              f"{args.repeat} ({args.slow_repeat} for pycocotools and lvis-api)\n")
    print_table(rows, milliseconds=True)

if __name__ == "__main__":
    main()

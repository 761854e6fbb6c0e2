"""Before/after on one machine: the same files timed under two checkouts' Python, alternating.

Usage::

    python benchmarks/bench_before_after.py lvis --iou-type segm --images 2000 \\
        --python /work/main/.venv/bin/python --python .venv/bin/python --rounds 2

Writes the files once (``bench_lvis.make_data``, and ``add_masks`` for
``segm``; or ``bench_masks.make_files`` for ``masks``), then runs, for each
round, each interpreter in a fresh child process (each one imports its own
checkout's prcurve) and, once, the reference tool (lvis-api's ``LVISEval``,
or pycocotools' ``COCOeval``) under the first interpreter. Each child reports
its CPU time (user + sys, ``time.process_time``), wall time and peak resident
set above the start of the call; the table gives the best of the rounds. On a
shared machine the CPU times are the numbers to compare: the wall time is
mostly waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent

CHILD = r"""
import contextlib, gc, io, json, sys, time, warnings
from pathlib import Path
sys.path.insert(0, {here!r})
warnings.simplefilter("ignore", DeprecationWarning)
from bench_detection import peak_memory
kind, tool, iou_type, gt, dt = {args!r}
# Imported before the clock starts (as bench_lvis and bench_masks do).
if tool == "prcurve":
    import prcurve.detection, prcurve.detection.mask_inputs, prcurve.detection.lvis
elif kind == "lvis":
    import numpy as np
    np.float = float
    import lvis
else:
    import pycocotools.coco, pycocotools.cocoeval

def run():
    if kind == "lvis" and tool == "prcurve":
        from prcurve.detection import evaluate_lvis
        evaluate_lvis(gt, dt, iou_type=iou_type).summary()
    elif kind == "lvis":
        import numpy as np
        np.float = float
        import logging
        logging.getLogger("lvis").setLevel(logging.ERROR)
        import lvis
        g = lvis.LVIS(gt)
        e = lvis.LVISEval(g, lvis.LVISResults(g, dt), iou_type=iou_type)
        e.run()
        with contextlib.redirect_stdout(io.StringIO()):
            e.print_results()
    elif tool == "prcurve":
        from prcurve.detection import evaluate_coco
        evaluate_coco(gt, dt, iou_type="segm").summary()
    else:
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
        with contextlib.redirect_stdout(io.StringIO()):
            g = COCO(gt)
            e = COCOeval(g, g.loadRes(dt), "segm")
            e.evaluate(); e.accumulate(); e.summarize()

gc.collect()
cpu, wall = time.process_time(), time.perf_counter()
memory, _ = peak_memory(run)
print(json.dumps({{"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "peak_mib": memory / 2**20}}))
"""


def child(python: str, kind: str, tool: str, iou_type: str, gt: Path, dt: Path) -> dict[str, float]:
    code = CHILD.format(here=str(HERE), args=(kind, tool, iou_type, str(gt), str(dt)))
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True,
                         cwd=tempfile.gettempdir())
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("lvis", "masks"))
    parser.add_argument("--iou-type", default="segm", choices=("bbox", "segm"))
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--python", action="append", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    with tempfile.TemporaryDirectory() as folder:
        if args.kind == "lvis":
            import bench_lvis

            ground_truth, results = bench_lvis.make_data(args.images)
            if args.iou_type == "segm":
                bench_lvis.add_masks(ground_truth, results)
            gt, dt = Path(folder) / "gt.json", Path(folder) / "dt.json"
            gt.write_text(json.dumps(ground_truth))
            dt.write_text(json.dumps(results))
            del ground_truth, results
        else:
            import bench_masks

            gt, dt = bench_masks.make_files(Path(folder), args.images)
        print(f"{args.kind} {args.iou_type if args.kind == 'lvis' else 'segm'}, {args.images} "
              f"images, results file {dt.stat().st_size / 2**20:.0f} MiB; load "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.rounds):
            for python in args.python:
                got = child(python, args.kind, "prcurve", args.iou_type, gt, dt)
                print(f"  prcurve under {python}: {got}", flush=True)
                old = best.setdefault(python, got)
                best[python] = {k: min(old[k], got[k]) for k in got}
        if not args.no_reference:
            reference = child(args.python[0], args.kind, "reference", args.iou_type, gt, dt)
            print(f"  reference: {reference}", flush=True)
        for python, got in best.items():
            line = (f"{python}: cpu {got['cpu']:.2f} s, wall {got['wall']:.2f} s, "
                    f"peak {got['peak_mib']:.0f} MiB")
            if not args.no_reference:
                line += (f"; reference / prcurve: cpu {reference['cpu'] / got['cpu']:.2f}x, "
                         f"wall {reference['wall'] / got['wall']:.2f}x")
            print(line)
        print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

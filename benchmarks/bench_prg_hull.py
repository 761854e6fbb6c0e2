"""The PRG convex hull before and after session 36's pruning (issue 26, item 3).

Generates issue 15's layout (benchmarks/bench_scale.py ``generate_float64_file``: one
Parquet file, int64 labels with 5% positives, float64 scores all distinct) at each
``--rows`` size, then, alternating ``--before PYTHON`` (main's interpreter, its own
checkout installed) and this interpreter, each in a fresh process, best of ``--repeat``:

- ``hull``: ``PRGCurve.convex_hull()`` alone (CPU of that call, ``time.process_time``,
  the curve built before it), with the hull's vertices' digest to check both agree;
- ``report``: ``prcurve report FILE --out DIR`` with its pictures, a whole process (CPU:
  user + sys of the process and its drawing child, ``bench_report_large.run``).

The machine's load (``os.getloadavg``) is printed before and after.

Run: ``python benchmarks/bench_prg_hull.py --rows 1e5 --rows 1e6 --rows 1e7
--before /work/main/.venv/bin/python [--repeat 3] [--no-report]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_report_large import run
from bench_scale import generate_float64_file

HULL = """
import hashlib, sys, time
import pyarrow.parquet as pq
import prcurve
table = pq.read_table(sys.argv[1])
prg = prcurve.pr_curve(table.column("label").to_numpy(), table.column("score").to_numpy()).prg()
start = time.process_time()
hull = prg.convex_hull()
cpu = time.process_time() - start
digest = hashlib.sha1(hull["recall_gain"].tobytes() + hull["precision_gain"].tobytes())
print(cpu, len(prg), len(hull["recall_gain"]), digest.hexdigest()[:12])
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", action="append", type=float, required=True)
    parser.add_argument("--before", required=True, help="main's interpreter")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-report", action="store_true")
    args = parser.parse_args()
    pythons = {"before": args.before, "after": sys.executable}
    print("load before", os.getloadavg())
    for rows in (int(r) for r in args.rows):
        with tempfile.TemporaryDirectory() as place:
            folder = Path(place)
            generate_float64_file(folder, rows)
            data = str(folder / "scores.parquet")
            hull: dict[str, list[float]] = {"before": [], "after": []}
            report: dict[str, list[float]] = {"before": [], "after": []}
            seen: dict[str, str] = {}
            for _ in range(args.repeat):
                for name, python in pythons.items():
                    # Each in its own folder: the other checkout's modules never mix in.
                    done = subprocess.run([python, "-c", HULL, data], capture_output=True,
                                          text=True, check=True, cwd=place)
                    cpu, n, vertices, digest = done.stdout.split()
                    hull[name].append(float(cpu))
                    seen[name] = f"{vertices} vertices, {digest}"
                    if not args.no_report:
                        out = folder / f"out-{name}"
                        _, total, _, _ = run([python, "-m", "prcurve", "report", data,
                                              "--out", str(out), "--ci", "none"])
                        report[name].append(total)
            same = "same" if seen["before"] == seen["after"] else "DIFFERENT"
            print(f"rows {rows:.0e} thresholds {n}: hull {seen['after']} ({same})")
            print(f"  convex_hull CPU s best of {args.repeat}: before "
                  f"{min(hull['before']):.3f} after {min(hull['after']):.3f} ratio "
                  f"{min(hull['before']) / min(hull['after']):.1f}x")
            if not args.no_report:
                print(f"  report --out CPU s best of {args.repeat}: before "
                      f"{min(report['before']):.2f} after {min(report['after']):.2f} "
                      f"ratio {min(report['before']) / min(report['after']):.2f}x")
    print("load after", os.getloadavg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

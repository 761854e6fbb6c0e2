"""`prcurve report FILE` from 10^6 to 10^8 rows, whole processes (issue 26, items 6 and 7).

Generates issue 15's layout (benchmarks/bench_scale.py ``generate_float64_file``: one
Parquet file, int64 labels with 5% positives, float64 scores all distinct, row groups
of 2^20 rows) at each ``--rows`` size, then times, each in a fresh process, rounds
alternating the commands, best of ``--repeat``:

- ``floor``: reading the file (every column, ``pyarrow.parquet.read_table``) and one
  ``np.sort`` of the scores: the floor of an exact report (issue 26, item 6);
- ``before``: ``prcurve report FILE --format json`` run by ``--before PYTHON`` (main's
  interpreter, its own checkout installed), when given;
- ``after``: the same command by this interpreter;
- with ``--workers N``: ``prcurve report FILE --workers N`` by this interpreter (and by
  ``--before``), whose report.json must hold the single process's numbers (item 7); with
  ``--pool-always`` also with the pool forced where one process would run instead
  (``prcurve.io.pool_rule.one_process_reason``).

Time is wall and CPU (user + sys of the process and every descendant: this script
adopts orphans (``PR_SET_CHILD_SUBREAPER``) and reaps them, so the workers of
``--workers``, children of a fork server, and Dask's are counted), peak memory the
process's own ``VmHWM`` (for ``--workers``: the parent's alone; the floor's is
``ru_maxrss``). The machine's load
(``os.getloadavg``) is printed before and after. Files are deleted at the end unless
``--keep DIR`` keeps them there (and reuses them on the next run).

Run: ``python benchmarks/bench_report_large.py --rows 1e6 --rows 1e7 --rows 3e7
[--before /work/main/.venv/bin/python] [--workers 2] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import generate_float64_file

FLOOR = """
import sys, numpy as np, pyarrow.parquet as pq
scores = pq.read_table(sys.argv[1]).column("score").to_numpy()
np.sort(scores)
"""

# prcurve's command line, then this process's own peak (VmHWM) on standard error: the
# parent's alone (wait4's ru_maxrss also covers the reaped children: Dask's workers).
COMMAND = """
import sys
from prcurve.cli import main
if sys.argv[1] == "--pool-always":  # the pool whatever the cores and rows (session 33)
    from prcurve.io import pool_rule
    pool_rule.POOL_MIN_CORES, pool_rule.POOL_MIN_ROWS = 1, 0
    del sys.argv[1]
code = main(sys.argv[1:])
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        sys.stderr.write(f"VmHWM {int(line.split()[1]) / 1024}\\n")
sys.exit(code)
"""

NUMBERS = ("average_precision", "ap", "aucpr", "min_ap", "normalized_ap", "min_aucpr",
           "aucnpr", "roc_auc", "best_f", "precision_at_recall", "recall_at_precision",
           "positives", "negatives", "rows")


def _adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux
    ``PR_SET_CHILD_SUBREAPER``): the workers of ``--workers`` are children of a fork
    server, not of the command, and their CPU time reaches us only when we reap them."""
    import ctypes

    try:
        return int(ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def run(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (the process and every descendant), peak RSS in MB (the
    process's own) and standard output of one process."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        while True:  # descendants left behind (a fork server and its workers): reap them
            try:
                os.wait()
            except ChildProcessError:
                break
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(command)}\n{errors}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
    peak = usage.ru_maxrss / 1024
    for line in errors.splitlines():
        if line.startswith("VmHWM "):
            peak = float(line.split()[1])
    return wall, cpu, peak, text


def numbers(text: str) -> list[Any]:
    report = json.loads(text)
    return [{k: m.get(k) for k in NUMBERS} for m in report["models"]]


def _flat(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flat(value[k])]
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    return [value]


def difference(a: str, b: str) -> str:
    """"identical", or the largest relative difference of two reports' numbers."""
    x, y = _flat(numbers(a)), _flat(numbers(b))
    if x == y:
        return "identical"
    if len(x) != len(y) or any(type(p) is not type(q) for p, q in zip(x, y, strict=True)):
        return "different fields"
    worst = max((abs(p - q) / max(abs(p), abs(q), 1e-300) for p, q in zip(x, y, strict=True)
                 if isinstance(p, float) and p != q), default=0.0)
    unequal = [p for p, q in zip(x, y, strict=True) if not isinstance(p, float) and p != q]
    return f"largest relative difference {worst:.1e}" + (f", {len(unequal)} other values "
                                                         "differ" if unequal else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="append", type=float, default=[])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="the Python of the code to compare with (main)")
    parser.add_argument("--workers", type=int, help="also time --workers N")
    parser.add_argument("--skip-floor", action="store_true")
    parser.add_argument("--skip-before-workers", action="store_true",
                        help="not --workers by --before (main's exact state of 10^8 rows "
                        "on workers needs about 10 GB)")
    parser.add_argument("--keep", help="keep (and reuse) the generated files in this folder")
    parser.add_argument("--pool-always", action="store_true",
                        help="also time this interpreter's --workers N with the pool forced "
                        "(prcurve.io.pool_rule.POOL_MIN_CORES and POOL_MIN_ROWS set aside), "
                        "where one process would run instead")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="prcurve-large-"))
    adopted = _adopt_orphans()
    print(f"load before: {os.getloadavg()}; descendants' CPU counted: {adopted}", flush=True)
    try:
        for rows in [int(r) for r in args.rows or [1e6, 1e7, 3e7]]:
            place = folder / f"r{rows}"
            path = place / "scores.parquet"
            if not path.exists():
                place.mkdir(parents=True, exist_ok=True)
                generate_float64_file(place, rows)
            size = path.stat().st_size / 2**20
            report = ["report", str(path), "--label", "label", "--score", "score",
                      "--format", "json"]
            commands: dict[str, list[str]] = {}
            if not args.skip_floor:
                commands["floor"] = [sys.executable, "-c", FLOOR, str(path)]
            if args.before:
                commands["before"] = [args.before, "-c", COMMAND, *report]
            commands["after"] = [sys.executable, "-c", COMMAND, *report]
            if args.workers:
                extra = ["--workers", str(args.workers)]
                if args.before and not args.skip_before_workers:
                    commands[f"before --workers {args.workers}"] = [
                        args.before, "-c", COMMAND, *report, *extra]
                commands[f"after --workers {args.workers}"] = [
                    sys.executable, "-c", COMMAND, *report, *extra]
                if args.pool_always:
                    commands[f"after --workers {args.workers} pool"] = [
                        sys.executable, "-c", COMMAND, "--pool-always", *report, *extra]
            best: dict[str, list[float]] = {}
            outputs: dict[str, str] = {}
            for _ in range(args.repeat):
                for name, command in commands.items():
                    wall, cpu, peak, text = run(command)
                    old = best.get(name)
                    best[name] = [min(wall, old[0]) if old else wall,
                                  min(cpu, old[1]) if old else cpu,
                                  max(peak, old[2]) if old else peak]
                    outputs[name] = text
            print(f"\n{rows:,} rows ({size:,.0f} MiB), best of {args.repeat}, "
                  f"load {os.getloadavg()[0]:.1f}:")
            floor = best.get("floor")
            for name, (wall, cpu, peak) in best.items():
                ratio = (f"  {wall / floor[0]:4.2f}x floor wall, {cpu / floor[1]:4.2f}x "
                         "floor CPU" if floor and name != "floor" else "")
                print(f"  {name:22s} wall {wall:7.2f} s  CPU {cpu:7.2f} s  peak "
                      f"{peak:7.0f} MB{ratio}", flush=True)
            for name, text in outputs.items():
                if name.startswith(("after --workers", "before")):
                    print(f"  {name} against after: {difference(text, outputs['after'])}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

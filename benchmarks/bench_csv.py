"""Benchmark curve CSVs (issue 15, item 5): ``PRCurve.to_table().to_csv()`` through
pyarrow's CSV writer against the Python ``repr`` path, in one process.

A curve with 10^7 distinct thresholds (fixed seed), its default table (threshold,
precision, recall) and the report's six columns (threshold, precision, recall, tp,
fp, f1) written as CSV text (``to_csv``, a str) and as a file (``write_csv``, what
``prcurve report --out`` does, into a temporary directory); the Python path is timed
on the first 10^6 rows (it is linear). Best of ``--repeats``, with the CPU seconds of
that run. Target: the 10^7-point curve CSV in under 2 s.

    .venv/bin/python benchmarks/bench_csv.py --rows 1e7
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import prcurve
from prcurve.core import table as table_module
from prcurve.core.table import Table


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """The best wall time of ``repeats`` calls and the CPU seconds of that call."""
    best, best_cpu = float("inf"), 0.0
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        seconds = time.perf_counter() - start
        if seconds < best:
            best, best_cpu = seconds, time.process_time() - cpu
    return best, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    n = int(args.rows)
    y = rng.random(n) < 0.1
    curve = prcurve.pr_curve(y, rng.random(n) + 0.2 * y)
    print(f"{len(curve.thresholds)} thresholds; load {os.getloadavg()}")
    for columns in (None, ("threshold", "precision", "recall", "tp", "fp", "f1")):
        table = curve.to_table() if columns is None else curve.to_table(columns)
        fast, fast_cpu = best_of(table.to_csv, args.repeats)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "curve.csv"
            to_file, file_cpu = best_of(partial(table.write_csv, path), args.repeats)
            size = path.stat().st_size
        head = Table({name: table[name][:1_000_000] for name in table.columns})
        arrow = table_module._arrow_csv
        table_module._arrow_csv = lambda cols: None  # type: ignore[assignment]
        try:
            slow = best_of(head.to_csv, 1)[0] * len(table) / len(head)
        finally:
            table_module._arrow_csv = arrow
        print(f"{len(table.columns)} columns: pyarrow to_csv {fast:.2f} s (CPU {fast_cpu:.2f} s), "
              f"write_csv {to_file:.2f} s (CPU {file_cpu:.2f} s, {size / 2**20:.0f} MiB); "
              f"Python repr {slow:.1f} s (extrapolated from 10^6 rows): {slow / fast:.0f}x")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

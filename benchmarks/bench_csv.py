"""Benchmark curve CSVs (issue 15, item 5): ``PRCurve.to_table().to_csv()`` through
pyarrow's CSV writer against the Python ``repr`` path, in one process.

A curve with 10^7 distinct thresholds (fixed seed), its default table (threshold,
precision, recall) and the report's six columns (threshold, precision, recall, tp,
fp, f1) written as CSV text; the Python path is timed on the first 10^6 rows (it is
linear). Best of ``--repeats``. Target: the 10^7-point curve CSV in under 2 s.

    .venv/bin/python benchmarks/bench_csv.py --rows 1e7
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import prcurve
from prcurve.core import table as table_module
from prcurve.core.table import Table


def best_of(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


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
        fast = best_of(table.to_csv, args.repeats)
        head = Table({name: table[name][:1_000_000] for name in table.columns})
        arrow = table_module._arrow_csv
        table_module._arrow_csv = lambda cols: None  # type: ignore[assignment]
        try:
            slow = best_of(head.to_csv, 1) * len(table) / len(head)
        finally:
            table_module._arrow_csv = arrow
        print(f"{len(table.columns)} columns: pyarrow {fast:.2f} s; Python repr "
              f"{slow:.1f} s (extrapolated from 10^6 rows): {slow / fast:.0f}x")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

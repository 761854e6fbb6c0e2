"""Benchmark curve CSVs (issue 15, item 5): ``PRCurve.to_table()`` written by polars' and
pyarrow's CSV writers and by the Python ``repr`` path, in one process.

A curve with 10^7 distinct thresholds (fixed seed), its default table (threshold,
precision, recall) and the report's six columns (threshold, precision, recall, tp,
fp, f1) written as a file (``write_csv``, what ``prcurve report --out`` does, into a
temporary directory) and as text (``to_csv``, a str), by each writer in turn
(``set_csv_writer``); the two writers' files are compared byte for byte. The Python
path is timed on the first 10^6 rows (it is linear). Best of ``--repeats``, with the
CPU seconds of that run and the load before and after. Also: polars' import time in a
fresh interpreter (``auto`` imports it for a large table). Target: the 10^7-point
curve CSV in under 2 s.

    .venv/bin/python benchmarks/bench_csv.py --rows 1e7
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import prcurve
from prcurve.core.csv_writers import set_csv_writer
from prcurve.core.table import Table

WRITERS = ("polars", "pyarrow")


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


def import_seconds(module: str) -> float:
    """The best of three imports of ``module`` in a fresh interpreter."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout) for _ in range(3))


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    n = int(args.rows)
    y = rng.random(n) < 0.1
    curve = prcurve.pr_curve(y, rng.random(n) + 0.2 * y)
    print(f"{len(curve.thresholds)} thresholds; {os.cpu_count()} cores; load {load()}; "
          f"import polars {import_seconds('polars'):.2f} s, "
          f"pyarrow.csv {import_seconds('pyarrow.csv'):.2f} s (fresh interpreter)")
    for columns in (None, ("threshold", "precision", "recall", "tp", "fp", "f1")):
        table = curve.to_table() if columns is None else curve.to_table(columns)
        results: dict[str, tuple[float, float, float, float]] = {}
        with tempfile.TemporaryDirectory() as folder:
            for writer in WRITERS:
                set_csv_writer(writer)
                path = Path(folder) / f"{writer}.csv"
                to_file, file_cpu = best_of(partial(table.write_csv, path), args.repeats)
                text, text_cpu = best_of(table.to_csv, args.repeats)
                results[writer] = (to_file, file_cpu, text, text_cpu)
            size = (Path(folder) / "polars.csv").stat().st_size
            same = filecmp.cmp(Path(folder) / "polars.csv", Path(folder) / "pyarrow.csv",
                               shallow=False)
        head = Table({name: table[name][:1_000_000] for name in table.columns})
        set_csv_writer("python")
        slow = best_of(head.to_csv, 1)[0] * len(table) / len(head)
        set_csv_writer(None)
        print(f"{len(table.columns)} columns ({size / 2**20:.0f} MiB; polars file == pyarrow "
              f"file: {same}); load {load()}")
        for writer, (to_file, file_cpu, text, text_cpu) in results.items():
            print(f"  {writer:8s} write_csv {to_file:.2f} s (CPU {file_cpu:.2f}), "
                  f"to_csv {text:.2f} s (CPU {text_cpu:.2f})")
        ratio = results["pyarrow"][0] / results["polars"][0]
        print(f"  pyarrow / polars (write_csv): {ratio:.2f}x; Python repr {slow:.1f} s "
              f"(extrapolated from 10^6 rows)")


if __name__ == "__main__":
    main()

"""Benchmark exact streaming: batches folded into one exact state (issue 15, item 2).

In one process, batches of ``--batch`` rows (default 2^20) generated beforehand from a
fixed seed (5% positives) are folded into one exact state, three ways:

- ``accumulator``: :class:`prcurve.core.merge.ExactAccumulator` (compact states, merge
  of sorted runs, one ThresholdCounts at the end), with its sorts and merges on one
  thread and on ``--threads`` threads (``prcurve.core.sorting.set_sort_threads``);
- ``stack of ThresholdCounts``: what ``prcurve.stream`` does (a size-tiered stack of
  ``ThresholdCounts`` merged with ``ThresholdCounts.merge``);
- the floor: ``np.sort`` of every batch (counting needs at least that).

Cases: ``--case uniform32`` (uniform float32 scores, kept exact: ~10^7 distinct at
10^8 rows) and ``--case distinct1e6`` (float64 scores drawn from 10^6 distinct values).
Peak memory is tracemalloc's above the batches, compared with the final state's size
(``3 * 8`` bytes per threshold). Every way must give the identical state. Wall and CPU
seconds are printed for each repeat (CPU above wall: the threads ran at once).

Run from the repository root (10^8 rows need ~1 GB for the batches)::

    .venv/bin/python benchmarks/bench_merge.py --rows 1e8 --case uniform32
    .venv/bin/python benchmarks/bench_merge.py --rows 1e8 --case distinct1e6
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from prcurve import ThresholdCounts
from prcurve.core.merge import ExactAccumulator
from prcurve.core.sorting import set_sort_threads
from prcurve.validation.labels import BinaryLabels

SEED = 20240601


def make_batches(rows: int, batch: int, case: str) -> list[tuple[np.ndarray, BinaryLabels]]:
    rng = np.random.default_rng(SEED)
    pool = rng.random(1_000_000) if case == "distinct1e6" else None
    out = []
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        positive = rng.random(n, dtype=np.float32) < 0.05
        if pool is None:
            scores = rng.random(n, dtype=np.float32)
            scores[positive] = np.sqrt(scores[positive])  # positives score higher
        else:
            scores = pool[rng.integers(0, pool.shape[0], n)]
        out.append((scores, BinaryLabels(positive, None)))
    return out


def accumulator(batches: list[tuple[np.ndarray, BinaryLabels]]) -> ThresholdCounts:
    acc = ExactAccumulator()
    for scores, labels in batches:
        acc.add(scores, labels, None)
    return acc.counts()


def threshold_stack(batches: list[tuple[np.ndarray, BinaryLabels]]) -> ThresholdCounts:
    stack: list[ThresholdCounts] = []
    for scores, labels in batches:
        stack.append(ThresholdCounts._from_checked(scores, labels, None))
        while len(stack) >= 2 and len(stack[-2]) <= 2 * len(stack[-1]):
            top = stack.pop()
            stack[-1] = stack[-1].merge(top)
    total = ThresholdCounts.empty()
    for state in reversed(stack):
        total = state.merge(total) if len(total) else state
    return total


def sort_floor(batches: list[tuple[np.ndarray, BinaryLabels]]) -> None:
    for scores, _ in batches:
        np.sort(scores)


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - start, time.process_time() - cpu, result


def on_threads(threads: int, fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        set_sort_threads(threads)
        try:
            return fn()
        finally:
            set_sort_threads(None)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--batch", type=int, default=1 << 20)
    parser.add_argument("--case", choices=["uniform32", "distinct1e6"], default="uniform32")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-stack", action="store_true")
    args = parser.parse_args()
    rows = int(args.rows)
    batches = make_batches(rows, args.batch, args.case)
    print(f"{args.case}: {rows:.0e} rows in batches of {args.batch}; "
          f"load {os.getloadavg()}")
    results = {}
    ways: list[tuple[str, Callable[[], Any]]] = [
        ("sort floor", lambda: sort_floor(batches)),
        ("accumulator, 1 thread", on_threads(1, lambda: accumulator(batches))),
        (f"accumulator, {args.threads} threads",
         on_threads(args.threads, lambda: accumulator(batches))),
    ]
    if not args.skip_stack:
        ways.append(("stack of ThresholdCounts", lambda: threshold_stack(batches)))
    for name, fn in ways:
        best, walls = float("inf"), []
        for _ in range(args.repeats):
            seconds, cpu, result = timed(fn)
            walls.append(f"{seconds:.2f}/{cpu:.2f}")
            best = min(best, seconds)
        gc.collect()
        tracemalloc.start()
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        results[name] = result
        size = 24 * len(result) if result is not None else 0
        ratio = f"{peak / size:.2f}x the final state" if size else ""
        print(f"{name}: {best:.2f} s (wall/CPU s: {', '.join(walls)}), "
              f"{rows / best / 1e6:.1f} M rows/s, peak {peak / 1e6:.0f} MB "
              f"{ratio}" + (f" ({len(result)} thresholds, {size / 1e6:.0f} MB)" if size else ""))
    states = [state for name, state in results.items() if name != "sort floor"]
    for other in states[1:]:
        for name in ("thresholds", "tp", "fp"):
            if not np.array_equal(getattr(states[0], name), getattr(other, name)):
                raise SystemExit(f"the states differ in {name}")
    print(f"identical states ({len(states)} ways)")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Benchmark the sort-bound paths on several cores (issue 15, item 6).

In one process, 10^7 float64 scores (5% positives, fixed seed): exact AP
(``prcurve.average_precision``) and the exact PR curve (``prcurve.pr_curve``) with the
sort on one thread and on ``--threads`` threads, against one single-threaded
``np.sort`` of the scores (the target: faster than it) and scikit-learn's
``average_precision_score``. Best of ``--repeats``, with the CPU seconds of that run
(CPU above wall: the threads ran at once); peak memory is tracemalloc's; the numbers on
one and on many threads must be equal to the last bit. A control shows what the machine
gives a second thread at the moment: ``np.sort`` of the two halves of the scores, one
per thread, against the same two sorts one after the other.

Run from the repository root::

    .venv/bin/python benchmarks/bench_threads.py --rows 1e7 --threads 2
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

import prcurve
from prcurve.core.sorting import set_sort_threads

SEED = 20240601


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any, float]:
    best, result, best_cpu = float("inf"), None, 0.0
    for _ in range(repeats):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        seconds = time.perf_counter() - start
        if seconds < best:
            best, best_cpu = seconds, time.process_time() - cpu
    return best, result, best_cpu


def peak(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    fn()
    size = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sklearn", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    n = int(args.rows)
    y = rng.random(n) < 0.05
    scores = rng.random(n) + 0.5 * y
    print(f"{n:.0e} rows, {os.cpu_count()} cores, load {os.getloadavg()}")
    sort_s, _, _ = best_of(lambda: np.sort(scores), args.repeats)
    print(f"np.sort (one thread): {sort_s:.3f} s")
    halves = (scores[: n // 2], scores[n // 2:])
    one_s, _, _ = best_of(lambda: [np.sort(h) for h in halves], args.repeats)
    with ThreadPoolExecutor(max_workers=2) as pool:
        two_s, _, two_cpu = best_of(lambda: list(pool.map(np.sort, halves)), args.repeats)
    print(f"control, np.sort of two halves: {one_s:.3f} s one after the other, {two_s:.3f} s "
          f"on 2 threads (CPU {two_cpu:.3f} s): the second thread gives {one_s / two_s:.2f}x")
    results: dict[tuple[str, int], Any] = {}
    for threads in (1, args.threads):
        set_sort_threads(threads)
        for name, fn in (("exact AP", lambda: prcurve.average_precision(y, scores)),
                         ("exact PR curve", lambda: prcurve.pr_curve(y, scores))):
            seconds, result, cpu = best_of(fn, args.repeats)
            results[(name, threads)] = result
            print(f"{name}, {threads} thread(s): {seconds:.3f} s, CPU {cpu:.3f} s "
                  f"({seconds / sort_s:.2f}x np.sort), peak {peak(fn) / 1e6:.0f} MB")
    set_sort_threads(None)
    if results[("exact AP", 1)] != results[("exact AP", args.threads)]:
        raise SystemExit("AP differs between thread counts")
    one, many = results[("exact PR curve", 1)], results[("exact PR curve", args.threads)]
    for field in ("thresholds", "precision", "recall"):
        if not np.array_equal(getattr(one, field), getattr(many, field)):
            raise SystemExit(f"PR curve's {field} differs between thread counts")
    print("same numbers to the last bit on 1 and", args.threads, "threads")
    if args.sklearn:
        from sklearn.metrics import average_precision_score
        seconds, _, _ = best_of(lambda: average_precision_score(y, scores), args.repeats)
        print(f"scikit-learn average_precision_score: {seconds:.3f} s")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

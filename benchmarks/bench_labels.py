"""Benchmark the label metrics (precision, recall, F-beta from predicted labels) against
scikit-learn and against the counting floor (issue 15, item 1).

In one process, on the same in-memory arrays (fixed seed, 30% positives, predictions
agreeing with the labels 80% of the time), for each case::

    prcurve.f_beta(y, p, beta=1)           vs  sklearn.metrics.fbeta_score(y, p, beta=1)
    the counting floor                     :   count_nonzero(y), count_nonzero(p),
                                               count_nonzero(y & p)   (no checks at all)

Cases: boolean labels, int64 {0, 1} labels, int64 labels with float64 weights, and
five classes (int64 codes) with ``average="macro"``. Peak memory is tracemalloc's,
above the inputs (the arrays are allocated before). Both libraries must agree to
1e-12 before anything is reported. Times are the best of ``--repeats``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_labels.py              # n = 10^7
    .venv/bin/python benchmarks/bench_labels.py --n 1e6 --repeats 9
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
import sklearn
import sklearn.metrics

import prcurve

SEED = 20240601


def best_of(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def peak_bytes(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def floor(y: np.ndarray, p: np.ndarray) -> tuple[int, int, int]:
    both = (y & p) if y.dtype == bool else np.logical_and(y, p)
    return int(np.count_nonzero(y)), int(np.count_nonzero(p)), int(np.count_nonzero(both))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = int(args.n)
    rng = np.random.default_rng(SEED)
    y_bool = rng.random(n) < 0.3
    p_bool = np.where(rng.random(n) < 0.8, y_bool, ~y_bool)
    y_int, p_int = y_bool.astype(np.int64), p_bool.astype(np.int64)
    weights = rng.random(n)
    y_cls = rng.integers(0, 5, n)
    p_cls = np.where(rng.random(n) < 0.6, y_cls, rng.integers(0, 5, n))
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any] | None]] = [
        ("F1, bool labels",
         lambda: prcurve.f_beta(y_bool, p_bool, beta=1.0),
         lambda: sklearn.metrics.fbeta_score(y_bool, p_bool, beta=1.0),
         lambda: floor(y_bool, p_bool)),
        ("F1, int64 {0, 1} labels",
         lambda: prcurve.f_beta(y_int, p_int, beta=1.0),
         lambda: sklearn.metrics.fbeta_score(y_int, p_int, beta=1.0),
         lambda: floor(y_int, p_int)),
        ("F1, bool labels, float64 weights",
         lambda: prcurve.f_beta(y_bool, p_bool, beta=1.0, sample_weight=weights),
         lambda: sklearn.metrics.fbeta_score(y_bool, p_bool, beta=1.0, sample_weight=weights),
         None),
        ("F1 macro, 5 classes (int64)",
         lambda: prcurve.f_beta(y_cls, p_cls, beta=1.0, average="macro"),
         lambda: sklearn.metrics.fbeta_score(y_cls, p_cls, beta=1.0, average="macro"),
         None),
        ("P, R and F1: one confusion_matrix, int64",
         lambda: (lambda cm: (cm.precision, cm.recall, cm.f1))(
             prcurve.confusion_matrix(y_int, p_int)),
         lambda: sklearn.metrics.precision_recall_fscore_support(y_int, p_int,
                                                                 average="binary")[:3],
         None),
    ]
    print(f"n = {n:.0e}, best of {args.repeats}; load before: {os.getloadavg()}")
    print(f"numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
          f"prcurve {prcurve.__version__}\n")
    print("| case | prcurve s | sklearn s | floor s | sklearn / prcurve | prcurve / floor "
          "| prcurve peak MB | sklearn peak MB |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|")
    for name, ours, theirs, counting in cases:
        a, b = ours(), theirs()
        if not np.allclose(a, b, rtol=1e-12, atol=0):
            raise SystemExit(f"{name}: prcurve {a} != scikit-learn {b}")
        t_ours = best_of(ours, args.repeats)
        t_theirs = best_of(theirs, max(2, args.repeats // 2))
        t_floor = best_of(counting, args.repeats) if counting else float("nan")
        m_ours, m_theirs = peak_bytes(ours) / 1e6, peak_bytes(theirs) / 1e6
        print(f"| {name} | {t_ours:.4f} | {t_theirs:.3f} | {t_floor:.4f} | "
              f"{t_theirs / t_ours:.0f}x | {t_ours / t_floor:.1f}x | {m_ours:.1f} | "
              f"{m_theirs:.0f} |")
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

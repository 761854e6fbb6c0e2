"""Benchmark prcurve's exact AP and exact PR curve against scikit-learn.

Times, in one process and on the same in-memory data, ::

    prcurve.average_precision(y, s)          vs  sklearn.metrics.average_precision_score(y, s)
    prcurve.pr_curve(y, s) + .precision      vs  sklearn.metrics.precision_recall_curve(y, s)
      and .recall (computed lazily)

on synthetic data generated with a fixed seed: boolean labels with 30%
positives and float64 scores ``normal noise + label`` ("continuous": almost
every score distinct), plus a "tied" variant with the scores rounded to 3
decimals (a few thousand distinct values, many ties).

Each call is run once under :mod:`tracemalloc` for its peak memory (numpy
reports its array allocations to tracemalloc; the inputs are allocated
before, the returned arrays count) and then, with tracemalloc off, timed as
the best of ``--repeats`` runs (default 5 at n <= 10^6, 3 above). Before
anything is reported the two libraries must agree: AP to 1e-9, and the
curves (thresholds, precision, recall) point by point to 1e-9; otherwise the
script exits with status 1 and a message that says how to reproduce the
disagreement.

Run it from the repository root (about a minute at default settings on a 2-core
machine; under 3 minutes)::

    .venv/bin/python benchmarks/bench_core.py                  # n = 10^6 and 10^7
    .venv/bin/python benchmarks/bench_core.py --quick          # smoke run, n = 10^5
    .venv/bin/python benchmarks/bench_core.py --sizes 1e6 --repeats 10

It prints a Markdown table (speed ratio = sklearn seconds / prcurve seconds,
memory ratio = prcurve peak / sklearn peak) and the machine it ran on.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
import sklearn.metrics
from numpy.typing import NDArray

import prcurve

SEED = 20240601
POSITIVE_FRACTION = 0.3
TIE_DECIMALS = 3
AP_TOLERANCE = 1e-9
CURVE_TOLERANCE = 1e-9
MB = 1e6


@dataclass(frozen=True)
class Data:
    """One synthetic data set: boolean labels and float64 scores."""

    kind: str  # "continuous" or "tied"
    y: NDArray[np.bool_]
    s: NDArray[np.float64]


@dataclass(frozen=True)
class Row:
    """One line of the result table."""

    case: str
    n: int
    prcurve_seconds: float
    sklearn_seconds: float
    prcurve_peak_bytes: int
    sklearn_peak_bytes: int


class DisagreementError(RuntimeError):
    """prcurve and scikit-learn computed different results."""


def make_data(n: int, seed: int = SEED) -> tuple[Data, Data]:
    """The continuous and the tied data set of size ``n`` (fixed seed)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < POSITIVE_FRACTION
    s = rng.standard_normal(n) + y
    return Data("continuous", y, s), Data("tied", y, np.round(s, TIE_DECIMALS))


# -- the calls under test --------------------------------------------------------------


def prcurve_ap(data: Data) -> float:
    return prcurve.average_precision(data.y, data.s)


def sklearn_ap(data: Data) -> float:
    return float(sklearn.metrics.average_precision_score(data.y, data.s))


def prcurve_curve(data: Data) -> tuple[Any, ...]:
    curve = prcurve.pr_curve(data.y, data.s)
    # precision and recall are computed on first access: include them.
    return curve.thresholds, curve.precision, curve.recall


def sklearn_curve(data: Data) -> tuple[Any, ...]:
    precision, recall, thresholds = sklearn.metrics.precision_recall_curve(data.y, data.s)
    return thresholds, precision, recall


# -- measuring -----------------------------------------------------------------------


def peak_memory(fn: Callable[[Data], Any], data: Data) -> tuple[int, Any]:
    """Peak bytes traced during ``fn(data)`` above what was allocated before, and its result."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        result = fn(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before, result


def best_time(fn: Callable[[Data], Any], data: Data, repeats: int) -> float:
    """The smallest wall time of ``repeats`` calls, in seconds (tracemalloc off)."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn(data)
        elapsed = time.perf_counter() - start
        del result
        best = min(best, elapsed)
    return best


# -- agreement ------------------------------------------------------------------------


def reproducer(data: Data, call: str) -> str:
    n = data.y.shape[0]
    rounding = f"; s = np.round(s, {TIE_DECIMALS})" if data.kind == "tied" else ""
    return (
        "Reproduce with:\n"
        "  import numpy as np, prcurve, sklearn.metrics\n"
        f"  rng = np.random.default_rng({SEED}); n = {n}\n"
        f"  y = rng.random(n) < {POSITIVE_FRACTION}; s = rng.standard_normal(n) + y{rounding}\n"
        f"  {call}"
    )


def check_ap(data: Data, ours: float, theirs: float) -> None:
    if not abs(ours - theirs) <= AP_TOLERANCE:
        raise DisagreementError(
            f"AP disagrees on {data.kind} data, n={data.y.shape[0]}: prcurve {ours!r}, "
            f"sklearn {theirs!r} (|diff| = {abs(ours - theirs):.3g} > {AP_TOLERANCE:g}).\n"
            + reproducer(
                data,
                "print(prcurve.average_precision(y, s), "
                "sklearn.metrics.average_precision_score(y, s))",
            )
        )


def check_curve(data: Data, ours: tuple[Any, ...], theirs: tuple[Any, ...]) -> None:
    # sklearn: thresholds increasing; precision and recall one longer, ending at (1, 0).
    # prcurve: thresholds decreasing, one point per threshold.
    t_sk, p_sk, r_sk = theirs
    expected = (t_sk[::-1], p_sk[:-1][::-1], r_sk[:-1][::-1])
    call = (
        "c = prcurve.pr_curve(y, s); p, r, t = sklearn.metrics.precision_recall_curve(y, s)\n"
        "  print(np.abs(c.precision - p[-2::-1]).max(), np.abs(c.recall - r[-2::-1]).max())"
    )
    for name, mine, other in zip(("thresholds", "precision", "recall"), ours, expected,
                                 strict=True):
        if mine.shape != other.shape:
            raise DisagreementError(
                f"PR curve {name} differ in length on {data.kind} data, "
                f"n={data.y.shape[0]}: prcurve {mine.shape[0]}, sklearn {other.shape[0]}.\n"
                + reproducer(data, call)
            )
        worst = float(np.max(np.abs(mine - other))) if mine.shape[0] else 0.0
        if not worst <= CURVE_TOLERANCE:
            raise DisagreementError(
                f"PR curve {name} disagree on {data.kind} data, n={data.y.shape[0]}: "
                f"max |diff| = {worst:.3g} > {CURVE_TOLERANCE:g}.\n" + reproducer(data, call)
            )


# -- running --------------------------------------------------------------------------


def bench_pair(
    case: str,
    data: Data,
    ours: Callable[[Data], Any],
    theirs: Callable[[Data], Any],
    check: Callable[[Data, Any, Any], None],
    repeats: int,
) -> Row:
    """Memory (and results, checked for agreement) first, then the timings."""
    # Peaks are measured above the memory in use before each call, so the first
    # result staying alive does not count against the second call.
    ours_peak, ours_result = peak_memory(ours, data)
    theirs_peak, theirs_result = peak_memory(theirs, data)
    check(data, ours_result, theirs_result)
    del ours_result, theirs_result
    return Row(
        case=case,
        n=data.y.shape[0],
        prcurve_seconds=best_time(ours, data, repeats),
        sklearn_seconds=best_time(theirs, data, repeats),
        prcurve_peak_bytes=ours_peak,
        sklearn_peak_bytes=theirs_peak,
    )


def format_n(n: int) -> str:
    exponent = round(np.log10(n)) if n > 0 else 0
    return f"10^{exponent}" if 10**exponent == n else f"{n:,}"


def table(rows: list[Row]) -> str:
    header = (
        "| case | n | prcurve s | sklearn s | speed ratio (sklearn/prcurve) "
        "| prcurve peak MB | sklearn peak MB | memory ratio (prcurve/sklearn) |"
    )
    lines = [header, "|:--|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append(
            f"| {r.case} | {format_n(r.n)} | {r.prcurve_seconds:.3f} | {r.sklearn_seconds:.3f} "
            f"| {r.sklearn_seconds / r.prcurve_seconds:.1f}x "
            f"| {r.prcurve_peak_bytes / MB:.1f} | {r.sklearn_peak_bytes / MB:.1f} "
            f"| {r.prcurve_peak_bytes / r.sklearn_peak_bytes:.3f} |"
        )
    return "\n".join(lines)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def prcurve_revision() -> str:
    """The git commit of the prcurve source imported, and whether src/ had local changes."""
    source = Path(prcurve.__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=source, capture_output=True,
            text=True, check=True, timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "."], cwd=source, capture_output=True,
            text=True, check=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return f"git {head}" + (", with uncommitted changes in src/" if dirty else "")


def machine() -> str:
    return "\n".join((
        f"- platform: {platform.platform()} ({platform.machine()}), CPU: {cpu_model()}, "
        f"CPU count: {os.cpu_count()}",
        f"- python {platform.python_version()}, numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}, prcurve {prcurve.__version__} "
        f"({prcurve_revision()})",
    ))


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(float(part)) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--sizes takes comma-separated sample counts such as 1e6,1e7; got {text!r}"
        ) from None
    if not sizes or min(sizes) < 2:
        raise argparse.ArgumentTypeError(f"--sizes needs counts >= 2; got {text!r}")
    return sizes


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time and measure prcurve's exact AP and PR curve against scikit-learn.",
    )
    parser.add_argument("--sizes", type=parse_sizes, default=[10**6, 10**7],
                        help="comma-separated sample counts (default: 1e6,1e7)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="timed repeats per call, best kept "
                             "(default: 5 for n <= 10^6, 3 above)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: n = 10^5 only, 1 repeat")
    args = parser.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.quick:
        args.sizes, args.repeats = [10**5], 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    rows: list[Row] = []
    for n in args.sizes:
        repeats = args.repeats if args.repeats is not None else (5 if n <= 10**6 else 3)
        for data in make_data(n):
            try:
                rows.append(bench_pair(f"AP, {data.kind}", data, prcurve_ap, sklearn_ap,
                                       check_ap, repeats))
                rows.append(bench_pair(f"PR curve, {data.kind}", data, prcurve_curve,
                                       sklearn_curve, check_curve, repeats))
            except DisagreementError as error:
                print(f"FAILED: prcurve and scikit-learn disagree.\n{error}", file=sys.stderr)
                return 1
            distinct = np.unique(data.s).shape[0]
            print(f"done: {data.kind}, n={n:,} ({distinct:,} distinct scores), "
                  f"best of {repeats}", file=sys.stderr)
    print(table(rows))
    print()
    print(f"Data: seed {SEED}, {POSITIVE_FRACTION:.0%} positives (boolean labels), scores "
          f"standard normal + label (float64); tied = scores rounded to {TIE_DECIMALS} "
          "decimals. Times: best of the repeats, tracemalloc off. Peak memory: tracemalloc, "
          "above the inputs, results included; MB = 10^6 bytes. Both libraries agree "
          f"(AP to {AP_TOLERANCE:g}, curves point by point to {CURVE_TOLERANCE:g}).")
    print()
    print(machine())
    print(f"- total benchmark wall time: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

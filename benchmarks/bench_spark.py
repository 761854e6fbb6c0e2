"""Benchmark ``prcurve.spark`` against MLlib's ``BinaryClassificationMetrics`` (issue 15,
item 4) on the same Spark DataFrame.

One Parquet file of ``--rows`` rows (fixed seed, 5% positives, float64 scores rounded to
``--digits`` decimals, so about 10^digits distinct values; int64 labels) is written to a
temporary folder and read by a ``local[2]`` SparkSession (Java from Debian). Each way is
timed on the same DataFrame, the session started and every import done, best of
``--repeats``:

- ``prcurve.spark.pr_counts(frame, ...)``: the exact state (sorted runs merged in a tree)
  and 2^10 equal-width bins (added in a tree); the step and trapezoid AP of each;
- MLlib's ``BinaryClassificationMetrics`` on the same DataFrame, through spark.ml's
  ``BinaryClassificationEvaluator(metricName="areaUnderPR")`` (the DataFrame itself: no
  Python rows), with ``numBins=0`` (every distinct score) and ``numBins=1000`` (the
  evaluator's default): its ``areaUnderPR``, the trapezoid area.

The exact trapezoid AP of both must agree to 1e-12 before anything is reported; MLlib's
binned area is printed beside prcurve's exact AP and its bounds from the bins, to show
what each binning does to the number (docs/scale.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_spark.py --rows 1e7
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SEED = 20261126


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def write_data(folder: Path, rows: int, digits: int) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(SEED)
    path = folder / "scores.parquet"
    writer = None
    for start in range(0, rows, 1 << 22):
        n = min(1 << 22, rows - start)
        y = (rng.random(n) < 0.05).astype(np.int64)
        # Scores rounded to `digits` decimals; + 0.0 keeps -0.0 out (MLlib counts -0.0 and
        # 0.0 as two thresholds: docs/scale.md).
        s = np.round(rng.normal(size=n) + 1.5 * y, digits) + 0.0
        table = pa.table({"label": y, "score": s})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=1 << 20)
    assert writer is not None
    writer.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--digits", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default="6g",
                        help="the JVM's heap (spark.driver.memory); less on a shared machine")
    args = parser.parse_args()
    rows = int(args.rows)

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only
    from pyspark.sql import SparkSession

    import prcurve
    from prcurve.core.binned import ap_bounds
    from prcurve.spark import pr_counts

    folder = Path(tempfile.mkdtemp(prefix="prcurve-bench-spark-"))
    try:
        path = write_data(folder, rows, args.digits)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spark = (SparkSession.builder.master("local[2]").appName("prcurve-bench-spark")
                     .config("spark.ui.enabled", "false")
                     .config("spark.ui.showConsoleProgress", "false")
                     .config("spark.driver.host", "127.0.0.1")
                     .config("spark.driver.bindAddress", "127.0.0.1")
                     .config("spark.driver.memory", args.driver_memory)
                     .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        frame = spark.read.parquet(str(path)).cache()
        count = frame.count()  # read once, cached: every way starts from the same memory
        print(f"{count:.0e} rows, {frame.rdd.getNumPartitions()} partitions, local[2], "
              f"{os.cpu_count()} cores, load {os.getloadavg()}")
        from pyspark.ml.evaluation import BinaryClassificationEvaluator

        pairs = frame.selectExpr("cast(score as double) as score",
                                 "cast(label as double) as label")

        def mllib_area(num_bins: int) -> float:
            # spark.ml's evaluator on the DataFrame itself: MLlib's
            # BinaryClassificationMetrics(numBins) and its areaUnderPR, no Python rows.
            evaluator = BinaryClassificationEvaluator(
                rawPredictionCol="score", labelCol="label", metricName="areaUnderPR",
                numBins=num_bins)
            return float(evaluator.evaluate(pairs))

        results = {}
        for name, fn in (
            ("prcurve.spark exact", lambda: prcurve.PRCurve(
                pr_counts(frame, label="label", score="score"))),
            ("prcurve.spark 2^10 bins", lambda: pr_counts(frame, label="label",
                                                          score="score", bins=1024)),
            ("MLlib numBins=0 (exact)", lambda: mllib_area(0)),
            ("MLlib numBins=1000", lambda: mllib_area(1000)),
        ):
            seconds, result = best_of(fn, args.repeats)
            results[name] = (seconds, result)
        exact_curve = results["prcurve.spark exact"][1]
        trapezoid = exact_curve.average_precision("trapezoid")
        step = exact_curve.average_precision("step")
        mllib_exact = results["MLlib numBins=0 (exact)"][1]
        if abs(trapezoid - mllib_exact) > 1e-12 * abs(mllib_exact):
            raise SystemExit(f"trapezoid AP {trapezoid!r} != MLlib's {mllib_exact!r}")
        binned = results["prcurve.spark 2^10 bins"][1]
        bounds = ap_bounds(binned)
        low, high = bounds.lower, bounds.upper
        mllib_seconds = results["MLlib numBins=0 (exact)"][0]
        print(f"distinct scores: {exact_curve.counts.thresholds.shape[0]}")
        print("| way | seconds | vs MLlib exact | area |")
        print("|:--|--:|--:|:--|")
        for name, (seconds, result) in results.items():
            if name == "prcurve.spark exact":
                area = f"step AP {step:.10f}, trapezoid {trapezoid:.15f}"
            elif name == "prcurve.spark 2^10 bins":
                area = f"step AP in [{low:.6f}, {high:.6f}]"
            else:
                area = f"areaUnderPR {result:.15f}"
            print(f"| {name} | {seconds:.2f} | {mllib_seconds / seconds:.2f}x | {area} |")
        print(f"trapezoid AP equal to MLlib's exact areaUnderPR to 1e-12; load after "
              f"{os.getloadavg()}")
        spark.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Scale benchmark: streaming and Dask on a generated Parquet data set (issue 6).

Generates ``--rows`` rows (default 10^8; 5% positives; float32 scores, the
probabilities of a logistic model, so many ties) as Parquet files in a
temporary folder, deleted afterwards, and measures, each in a fresh process
(so that its peak RSS is its own):

1. ``binned report``: ``prcurve report FOLDER --bins 1048576`` end to end
   (edges from the Parquet statistics, then one streamed pass), rows/s and
   peak RSS;
2. ``default report``: ``prcurve report FOLDER`` with the default budget
   (exact while at most 2^24 distinct scores, then 2^20 bins);
3. ``exact stream``: ``stream_counts(..., max_distinct=None)``, the exact
   state of the float32 scores and its step AP; checks that the binned AP of
   (1) is within its bounds of this exact AP;
4. ``dask``: ``prcurve.io.dask.pr_counts(folder, bins=2^20)`` on a LocalCluster
   with 2 worker processes against ``stream_counts(..., bins=2^20)`` in one process.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--rows 100000000]``.
Results are printed as a table and as JSON (``--json PATH``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

BINS = 1 << 20


def peak_rss_bytes() -> int:
    """This process's peak resident set since it started (VmHWM).

    Not ``getrusage(...).ru_maxrss``: on Linux that keeps the high-water mark
    of the parent at fork time across exec, so a child of a large parent
    seems large.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def generate(folder: Path, rows: int, files: int, seed: int = 0) -> float:
    """Write ``rows`` rows in ``files`` Parquet files; returns the bytes written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    per_file = -(-rows // files)
    written = 0
    for i in range(files):
        n = min(per_file, rows - i * per_file)
        if n <= 0:
            break
        y = rng.random(n, dtype=np.float32) < 0.05
        logit = rng.standard_normal(n, dtype=np.float32) * 1.5 - 3.5 + 2.5 * y
        score = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        path = folder / f"part{i:04d}.parquet"
        pq.write_table(pa.table({"label": y, "score": score}), path, row_group_size=1 << 20)
        written += path.stat().st_size
    return float(written)


def generate_float64_file(folder: Path, rows: int, seed: int = 0) -> float:
    """Issue 15's layout: one Parquet file of ``rows`` rows, int64 labels (5% positives)
    and float64 scores (all distinct), row groups of 2^20 rows; returns its bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    path = folder / "scores.parquet"
    writer = None
    for start in range(0, rows, 10_000_000):
        n = min(10_000_000, rows - start)
        y = rng.random(n) < 0.05
        table = pa.table({"label": y.astype(np.int64),
                          "score": rng.standard_normal(n) + 1.5 * y})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=1 << 20)
    if writer is not None:
        writer.close()
    return float(path.stat().st_size)


# -- the measured steps, each run in a child process ------------------------------------


def _child_report(folder: str, extra: list[str]) -> dict[str, Any]:
    import contextlib
    import io

    from prcurve.cli import main

    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = main(["report", folder, "--label", "label", "--score", "score", "--format",
                     "json", *extra])
    seconds = time.perf_counter() - start
    report = json.loads(out.getvalue())
    model = report["models"][0]
    return {"exit": code, "seconds": seconds, "rows": model["rows"],
            "ap_step": model["average_precision"]["step"], "state": model.get("state"),
            "curve": model["curve"]}


def _child_report_files(folder: str, extra: list[str]) -> dict[str, Any]:
    """``prcurve report INPUT --out DIR``: every file (curve CSV, JSON, PNG, SVG, HTML)."""
    import contextlib
    import io

    from prcurve.cli import main

    out_dir = tempfile.mkdtemp(prefix="prcurve-bench-out-")
    try:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(["report", folder, "--out", out_dir, *extra])
        seconds = time.perf_counter() - start
        report = json.loads((Path(out_dir) / "report.json").read_text())
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    model = report["models"][0]
    return {"exit": code, "seconds": seconds, "rows": model["rows"],
            "ap_step": model["average_precision"]["step"], "state": model.get("state")}


def _child_dask_workers(folder: str, extra: list[str]) -> dict[str, Any]:
    """The binned counts on a LocalCluster of ``extra[0]`` single-threaded worker processes
    (``prcurve report --dask``'s path), timed on a started cluster: best of 5."""
    import distributed

    from prcurve import PRCurve
    from prcurve.io.batches import choose_columns, input_files, open_dataset
    from prcurve.io.dask import dask_scores

    workers = int(extra[0])
    files, fmt, name = input_files(folder, None)
    columns = choose_columns(open_dataset(files, fmt).schema, name, "label", ["score"], None)
    times = []
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: __import__("prcurve.io.dask"))  # imports outside the timing
        for _ in range(5):
            start = time.perf_counter()
            result = dask_scores(files, name, columns, bins=BINS)
            times.append(time.perf_counter() - start)
    counts = result.models[0].counts
    return {"seconds": min(times), "all_seconds": times, "rows": int(counts.n_pos + counts.n_neg),
            "ap_step": PRCurve.from_counts(counts).average_precision("step"),
            "digest": hashlib.sha256(counts.pos.tobytes() + counts.neg.tobytes()).hexdigest(),
            "note": "peak RSS of the client process only (workers are separate processes)"}


def _child_exact(folder: str) -> dict[str, Any]:
    from prcurve.io.stream import stream_counts

    start = time.perf_counter()
    streamed = stream_counts(folder, label="label", score="score", max_distinct=None)
    ap = streamed.curve().average_precision("step")
    return {"seconds": time.perf_counter() - start, "rows": streamed.rows,
            "distinct": len(streamed.counts), "ap_step": ap}


def _child_single(folder: str) -> dict[str, Any]:
    from prcurve.io.stream import stream_counts

    start = time.perf_counter()
    streamed = stream_counts(folder, label="label", score="score", bins=BINS)
    return {"seconds": time.perf_counter() - start, "rows": streamed.rows,
            "ap_step": streamed.curve().average_precision("step")}


def _child_dask(folder: str) -> dict[str, Any]:
    import distributed

    from prcurve import PRCurve
    from prcurve.io.dask import pr_counts

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        start = time.perf_counter()
        counts = pr_counts(folder, label="label", score="score", bins=BINS)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "rows": int(counts.n_pos + counts.n_neg),
            "ap_step": PRCurve.from_counts(counts).average_precision("step"),
            "note": "peak RSS of the client process only (workers are separate processes)"}


CHILDREN = {"report": _child_report, "exact": _child_exact, "single": _child_single,
            "dask": _child_dask, "report_files": _child_report_files,
            "dask_workers": _child_dask_workers}
WITH_EXTRA = ("report", "report_files", "dask_workers")


def _run_child(name: str, folder: Path, *extra: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", name, str(folder), *extra]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _run_steps(steps: list[tuple[str, str, list[str]]], data: Path,
               results: dict[str, Any]) -> None:
    """Each step in its fresh process; its result (and rows/s) printed and kept."""
    for label, child, extra in steps:
        result = _run_child(child, data, *extra)
        result["rows_per_second"] = result["rows"] / result["seconds"]
        results[label] = result
        print(f"{label:32s} {result['seconds']:7.2f} s  "
              f"{result['rows_per_second'] / 1e6:7.1f} M rows/s  "
              f"peak RSS {result['peak_rss_mb']:6.0f} MB  AP(step) {result['ap_step']:.8f}",
              flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--skip", action="append", default=[],
                        choices=["default", "exact", "dask"], help="skip a step")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--float64-file", action="store_true",
                        help="issue 15's case: one Parquet file, float64 scores, int64 labels; "
                        "times `prcurve report FILE` (text), `--out DIR` (every file) and the "
                        "Dask binned counts on 1 and 2 workers")
    if sys.argv[1:2] == ["--child"]:  # one measured step, in this fresh process
        name, folder, *extra = sys.argv[2:]
        result = CHILDREN[name](folder, extra) if name in WITH_EXTRA else CHILDREN[name](folder)
        result["peak_rss_mb"] = peak_rss_bytes() / 2**20
        print(json.dumps(result))
        return 0
    args = parser.parse_args()

    if args.float64_file:
        return _float64_file(args.rows, args.json, args.skip)
    folder = Path(tempfile.mkdtemp(prefix="prcurve-bench-scale-"))
    results: dict[str, Any] = {"rows": args.rows, "files": args.files}
    try:
        start = time.perf_counter()
        results["bytes_on_disk"] = generate(folder, args.rows, args.files)
        results["generate_seconds"] = time.perf_counter() - start
        print(f"generated {args.rows:,} rows, {results['bytes_on_disk'] / 2**20:,.0f} MiB "
              f"in {results['generate_seconds']:.1f} s", flush=True)
        steps: list[tuple[str, str, list[str]]] = [
            ("binned report", "report", ["--bins", str(BINS)])]
        if "default" not in args.skip:
            steps.append(("default report", "report", []))
        if "exact" not in args.skip:
            steps.append(("exact stream", "exact", []))
        if "dask" not in args.skip:
            steps.extend([("single process binned", "single", []),
                          ("dask 2 workers binned", "dask", [])])
        _run_steps(steps, folder, results)
        binned = results["binned report"]
        bounds = binned["state"]["ap_bounds"]
        print(f"binned AP bounds [{bounds['lower']:.6f}, {bounds['upper']:.6f}], "
              f"largest possible error {bounds['max_error']:.2e}")
        if "exact stream" in results:
            exact = results["exact stream"]["ap_step"]
            inside = bounds["lower"] <= exact <= bounds["upper"]
            results["binned_within_bounds_of_exact"] = inside
            print(f"exact AP (step) {exact:.6f}: binned AP error "
                  f"{abs(binned['ap_step'] - exact):.2e}, within bounds: {inside}")
        rate = binned["rows_per_second"]
        print(f"targets: binned report >= 20 M rows/s: {rate >= 20e6} ({rate / 1e6:.1f}); "
              f"peak RSS < 1 GB: {binned['peak_rss_mb'] < 1024} "
              f"({binned['peak_rss_mb']:.0f} MB)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _float64_file(rows: int, json_path: str | None, skip: list[str]) -> int:
    """Issue 15, items 3 and 5, on one float64 Parquet file; ``--skip dask`` leaves out
    the two Dask steps (``default`` and ``exact`` name steps this case does not have)."""
    import os

    folder = Path(tempfile.mkdtemp(prefix="prcurve-bench-scale-"))
    results: dict[str, Any] = {"rows": rows, "load_before": os.getloadavg()}
    try:
        size = generate_float64_file(folder, rows)
        path = folder / "scores.parquet"
        print(f"generated {rows:,} rows in one file, {size / 2**20:,.0f} MiB", flush=True)
        steps = [("report (stdout, no files)", "report", []),
                 ("report --out (every file)", "report_files", [])]
        if "dask" not in skip:
            steps += [("dask, 1 worker, binned", "dask_workers", ["1"]),
                      ("dask, 2 workers, binned", "dask_workers", ["2"])]
        _run_steps(steps, path, results)
        if "dask" not in skip:
            one, two = results["dask, 1 worker, binned"], results["dask, 2 workers, binned"]
            same = one["digest"] == two["digest"] and one["ap_step"] == two["ap_step"]
            print(f"2 workers vs 1: {one['seconds'] / two['seconds']:.2f}x; "
                  f"identical bins: {same}")
        results["load_after"] = os.getloadavg()
        print(f"load before {results['load_before']}, after {results['load_after']}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

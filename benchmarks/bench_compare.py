"""Comparing systems with significance tests: prcurve.compare_runs vs ranx's compare (issue 28).

Usage::

    python benchmarks/bench_compare.py [--runs 10] [--queries 1000] [--docs 100]
        [--permutations 1000] [--repeat 3]

The work, the same on both sides: 10 TREC run files of 1,000 queries (100
documents each, no tied scores) and one qrels file, read from disk; MAP, nDCG and P@10 of every
run; every pair of runs (45) compared on each measure with Fisher's
randomization test, 1,000 permutations, no correction (ranx has none). Times are
warm (best of ``--repeat`` after one untimed call: ranx's numba kernels are
compiled, prcurve's imports done): end to end from the files, and also each
library's comparison alone on qrels and runs already read; wall and CPU time (user +
system of every thread) are printed, each the best of its calls. Before any time is
reported the two libraries' means of every measure must agree to 1e-9 and
their p-values within Monte Carlo error (both sample 1,000 sign patterns).
prcurve also computes each difference's bootstrap interval (1,000 resamples),
which ranx does not.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import prcurve

OURS = ["AP", "ndcg", "P@10"]
THEIRS = ["map", "ndcg", "precision@10"]


def best(function: Callable[[], Any], repeat: int) -> tuple[float, Any, float]:
    """The least wall time of ``repeat`` calls, the last result, the least CPU time
    (user + system of every thread of this process: on a shared machine the wall
    time is mostly waiting)."""
    times, cpu, result = [], [], None
    for _ in range(repeat):
        result = None
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = function()
        cpu.append(time.process_time() - start_cpu)
        times.append(time.perf_counter() - start)
    return min(times), result, min(cpu)


def write_files(folder: str, n_runs: int, n_queries: int, n_docs: int) -> tuple[str, list[str]]:
    """One qrels file and ``n_runs`` run files; run r is a little better than run r − 1."""
    rng = np.random.default_rng(0)
    pool = 3 * n_docs
    grades = rng.choice([0, 0, 0, 1, 2], size=(n_queries, pool))
    qrels = os.path.join(folder, "qrels.txt")
    with open(qrels, "w") as out:
        for q in range(n_queries):
            judged = np.flatnonzero(rng.random(pool) < 0.3)
            out.writelines(f"q{q} 0 d{d} {grades[q, d]}\n" for d in judged)
    paths = []
    for r in range(n_runs):
        path = os.path.join(folder, f"run{r}.txt")
        with open(path, "w") as out:
            for q in range(n_queries):
                docs = rng.choice(pool, size=n_docs, replace=False)
                # no tied scores: ranx breaks ties otherwise than trec_eval (and prcurve)
                scores = rng.random(n_docs) + (0.05 + 0.02 * r) * grades[q, docs]
                order = np.argsort(-scores, kind="stable")
                out.writelines(f"q{q} Q0 d{docs[i]} {k + 1} {float(scores[i])!r} run{r}\n"
                               for k, i in enumerate(order))
        paths.append(path)
    return qrels, paths


def ours(qrels: Any, runs: dict[str, Any], permutations: int) -> prcurve.RunComparison:
    return prcurve.compare_runs(qrels, runs, OURS, test="randomization", correction="none",
                                permutations=permutations, seed=0)


def theirs(ranx: Any, qrels: Any, runs: list[Any], permutations: int) -> Any:
    return ranx.compare(qrels, runs, THEIRS, stat_test="fisher", n_permutations=permutations,
                        max_p=0.05, random_seed=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with warnings.catch_warnings():  # ranx (numba, its imports) warns on import and first use
        warnings.simplefilter("ignore")
        import ranx
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, paths = write_files(folder, args.runs, args.queries, args.docs)
        names = [f"run{r}" for r in range(args.runs)]

        def ours_files() -> prcurve.RunComparison:
            return ours(qrels_path, dict(zip(names, paths, strict=True)), args.permutations)

        def theirs_files() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
                runs = [ranx.Run.from_file(p, kind="trec") for p in paths]
                for name, run in zip(names, runs, strict=True):
                    run.name = name
                return theirs(ranx, qrels, runs, args.permutations)

        our_qrels = prcurve.read_qrels(qrels_path)
        our_runs = {n: prcurve.read_run(p) for n, p in zip(names, paths, strict=True)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            their_qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
            their_runs = [ranx.Run.from_file(p, kind="trec") for p in paths]
            for name, run in zip(names, their_runs, strict=True):
                run.name = name

        def ours_built() -> prcurve.RunComparison:
            return ours(our_qrels, our_runs, args.permutations)

        def theirs_built() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return theirs(ranx, their_qrels, their_runs, args.permutations)

        mine, report = ours_files(), theirs_files()  # warm-up, and the check
        check(mine, report, names, args.permutations)
        timings, cpu = {}, {}
        for label, function in [("prcurve, from the files", ours_files),
                                ("ranx, from the files", theirs_files),
                                ("prcurve, files already read", ours_built),
                                ("ranx, files already read", theirs_built)]:
            timings[label], _, cpu[label] = best(function, args.repeat)
    pairs = args.runs * (args.runs - 1) // 2
    print(f"{args.runs} runs x {args.queries} queries x {args.docs} documents, 3 measures, "
          f"{pairs} pairs, {args.permutations} permutations (Fisher randomization)\n")
    print("| case | prcurve (s) | ranx (s) | ranx / prcurve | prcurve CPU (s) | ranx CPU (s) |\n"
          "|:--|--:|--:|--:|--:|--:|")
    for case in ("from the files", "files already read"):
        a, b = timings[f"prcurve, {case}"], timings[f"ranx, {case}"]
        print(f"| {case} | {a:.3f} | {b:.3f} | {b / a:.1f}x | {cpu[f'prcurve, {case}']:.3f} | "
              f"{cpu[f'ranx, {case}']:.3f} |")
    print(f"\nmachine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")


def check(mine: prcurve.RunComparison, report: Any, names: list[str], permutations: int) -> None:
    """Means equal to 1e-9; p-values within Monte Carlo error of each other."""
    for our, their in zip(OURS, THEIRS, strict=True):
        for i, name in enumerate(names):
            want = report.results[name][their]
            got = float(mine.means[our][i])
            if abs(got - want) > 1e-9:
                raise SystemExit(f"{our} of {name}: prcurve {got!r}, ranx {want!r}")
    table = mine.to_table()
    worst = 0.0
    for row in range(len(table)):
        our = table["measure"][row]
        their = THEIRS[OURS.index(our)]
        a, b = table["system"][row], table["versus"][row]
        p = float(table["p_value"][row])
        q = float(report.comparisons[a, b][their]["p_value"])
        # both are estimates from 1,000 random sign patterns: a few standard errors apart
        sigma = np.sqrt(max(p, q, 1.0 / permutations) * (1 - min(p, q)) / permutations)
        worst = max(worst, abs(p - q) / sigma)
        if abs(p - q) > 6 * sigma + 2.0 / permutations:
            raise SystemExit(f"{our} {a} vs {b}: p prcurve {p}, ranx {q}")
    print(f"check: means equal to 1e-9; p-values at most {worst:.1f} standard errors apart")


if __name__ == "__main__":
    main()

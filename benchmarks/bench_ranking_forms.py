"""CPU time of ``evaluate`` from each column form, against pytrec_eval given the same
arrays (its dicts and evaluator built inside its timing): issue 26, item 5.

Usage::

    python benchmarks/bench_ranking_forms.py [--ids distinct|pooled] [--ties]
        [--queries Q --docs D | --sizes QxD,QxD,...] [--repeat N] [CASE ...]

CASE: numpy, numpy_int (the same ids as int64 numbers: the query and document
numbers without their ``q`` and ``d``, which sort as the text does), pyarrow,
pandas_str (``string[pyarrow]``), pandas_object, pytrec_eval_from_columns, dicts
(``evaluate`` on pytrec_eval's dict of dicts, built before the timing),
pytrec_eval_dicts (pytrec_eval's ``RelevanceEvaluator`` + ``evaluate`` on the same dicts:
its own input form; issue 26, session 34) (default: all).
``--ties`` rounds the scores to 2 decimals (about 100 values a query: most rows tie);
``--repeat N`` runs the cases N times, alternating, and prints each one's best; the
resident set's peak (``ru_maxrss``) is printed before and after each case, and the
system part of the CPU time (mostly page faults of fresh memory); ``--trace``
also prints the most each call allocates (tracemalloc: numpy arrays and Python objects).
``--sizes`` runs each shape in turn in the one process (each shape's data made and
dropped before the next; session 35's sweep of item 2), printing a line ``best CPU s``
per shape.
Data: ``bench_ranking.py``'s, 10^4 queries x 10^3 documents, MAP + P@10 + AP@100; each
case once, its tables built before the timing; CPU time of the process over the call
(every thread), which a loaded machine disturbs less than wall time. Run it with main's
Python and this branch's, alternating, to compare (docs/benchmarks.md, issue 26, session
31).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from bench_ranking import MEASURES, make_data, to_dicts

CASES = ["numpy", "numpy_int", "pyarrow", "pandas_str", "pandas_object",
         "pytrec_eval_from_columns", "dicts", "pytrec_eval_dicts"]


def checksum(result: Any) -> str:
    """The results in a few numbers, to compare runs and forms for equality: each
    measure's sum over the queries (17 digits; ``math.fsum``, exact, so that forms whose
    queries come in another order, int64 ids by value, agree) and the number of queries.
    pytrec_eval's names (map, P_10, map_cut_100) stand for prcurve's (AP, P@10, AP@100)."""
    if isinstance(result, dict):  # pytrec_eval: {query: {measure: value}}
        names = {"AP": "map", "P@10": "P_10", "AP@100": "map_cut_100"}
        sums = {m: math.fsum(r[names[m]] for r in result.values()) for m in MEASURES}
        n = len(result)
    else:
        sums = {m: math.fsum(result.per_query[m].tolist()) for m in MEASURES}
        n = int(result.n_queries)
    return f"queries {n}, " + ", ".join(f"sum {m} {v:.17g}" for m, v in sums.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", choices=["distinct", "pooled"], default="distinct")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--sizes", default=None,
                        help="shapes QxD, comma-separated (instead of --queries and --docs)")
    parser.add_argument("--ties", action="store_true", help="scores rounded to 2 decimals")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--trace", action="store_true",
                        help="the peak each call allocates (tracemalloc; slower: not timed)")
    parser.add_argument("cases", nargs="*", help=f"any of {CASES} (default: all)")
    args = parser.parse_args()
    if not set(args.cases) <= set(CASES):
        parser.error(f"cases: choose from {CASES}")
    args.cases = args.cases or CASES
    shapes = ([(args.queries, args.docs)] if args.sizes is None else
              [(int(q), int(d)) for q, d in (size.split("x") for size in args.sizes.split(","))])
    for queries, docs in shapes:
        run_shape(args, queries, docs)
        gc.collect()


def run_shape(args: argparse.Namespace, n_queries: int, n_docs: int) -> None:
    """Every case of ``args.cases`` on one shape, ``args.repeat`` rounds, alternating."""
    data = make_data(n_queries, n_docs, False, False, ids=args.ids)
    if args.ties:
        q, d, score = data["run"]
        data["run"] = (q, d, np.round(score, 2))
    print(f"# {n_queries:,} x {n_docs:,}: {data['rows']:,} rows; {args.ids} ids: "
          f"{data['distinct_docs']:,} distinct document ids, {n_queries:,} query ids; scores "
          f"{'2' if args.ties else '4'}-decimal; load {os.getloadavg()}")
    dicts = to_dicts(data) if {"dicts", "pytrec_eval_dicts"} & set(args.cases) else None
    if set(args.cases) <= {"dicts", "pytrec_eval_dicts"}:
        data.clear()  # the columns are not needed: a lower base for the peaks (10^7 rows)
        gc.collect()
    import pandas as pd
    import pyarrow as pa

    from prcurve.ranking import evaluate

    frames = [{"query_id": q, "doc_id": d, name: v} for (q, d, v), name in
              ((data["qrels"], "relevance"), (data["run"], "score"))] if data else []
    text = {"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}

    def tables(name: str) -> Any:
        if name == "numpy":
            return data["qrels"], data["run"]
        if name == "numpy_int":  # the numbers of the ids, as int64 (no text)
            return tuple((numbers(q), numbers(d), v) for q, d, v in (data["qrels"], data["run"]))
        if name == "pandas_str":
            return tuple(pd.DataFrame(f).astype(text) for f in frames)
        if name == "pandas_object":
            return tuple(pd.DataFrame(f).astype({"query_id": object, "doc_id": object})
                         for f in frames)
        if name == "pyarrow":
            return tuple(pa.table(f) for f in frames)
        return None

    def numbers(ids: np.ndarray) -> np.ndarray:
        return np.strings.slice(ids, 1, None).astype(np.int64)  # "d123" -> 123

    def pytrec() -> Any:
        import pytrec_eval

        qrels, run = to_dicts(data)
        return pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "map_cut_100"}
                                              ).evaluate(run)

    def pytrec_dicts() -> Any:
        import pytrec_eval

        return pytrec_eval.RelevanceEvaluator(dicts[0], {"map", "P_10", "map_cut_100"}
                                              ).evaluate(dicts[1])

    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for name in args.cases:
            given = dicts if name == "dicts" else tables(name)
            gc.collect()
            if args.trace:
                tracemalloc.start()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            times, cpu, wall = os.times(), time.process_time(), time.perf_counter()
            result = (pytrec() if name == "pytrec_eval_from_columns"
                      else pytrec_dicts() if name == "pytrec_eval_dicts"
                      else evaluate(*given, MEASURES))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            system = os.times().system - times.system  # page faults of fresh memory, mostly
            best[name] = min(best.get(name, cpu), cpu)
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            if args.trace:
                print(f"{name}: allocated at most {tracemalloc.get_traced_memory()[1] / 2**20:.1f}"
                      " MiB (tracemalloc)")
                tracemalloc.stop()
            print(f"{name}: CPU {cpu:.2f} s (system {system:.2f}), wall {wall:.2f} s; "
                  f"peak RSS {peak:.0f} -> {after:.0f} MiB; {checksum(result)}", flush=True)
            del given, result
    if args.repeat > 1 or args.sizes is not None:
        print(f"best CPU s ({n_queries}x{n_docs}): "
              + ", ".join(f"{k} {v:.3f}" for k, v in best.items()))


if __name__ == "__main__":
    main()

"""Ranking evaluation speed: prcurve vs pytrec_eval and ranx, MAP + P@10 + AP@100, one process.

Usage::

    python benchmarks/bench_ranking.py --queries 10000 --docs 1000 [--ragged] [--shuffled]
    python benchmarks/bench_ranking.py --queries 100000 --docs 100 --trec-file

Data: each query retrieves ``docs`` documents (``--ragged``: uniformly 1 to
2 * docs - 1). ``--ids distinct`` (the default, issue 26: real runs name about as
many documents as they have rows, MS MARCO 8.8 x 10^6 passages): each query's
documents are drawn from a collection of 5 x 10^7 ids, so the run's distinct
document ids are about as many as its rows; ``--ids pooled`` (the case of earlier
rounds): from a pool of 10 * docs ids shared across queries. Scores are
float64 rounded to 4 decimals (so ties occur), rows are in rank order (as run
files are) or shuffled (``--shuffled``). About 10% of retrieved documents are
judged, a third of those relevant with grades 1-2, plus unretrieved relevant
documents. Ids are strings for every library.

Timings (best of ``--repeat`` alternating rounds, each round running every
case once in its own shuffled order, so that the machine's load, and the memory
state a case inherits from the one before it, hit every case alike): prcurve from
arrays end to end (encode the ids + rank + join + measures); the construction
of its Qrels and Run (the ids dictionary-encoded and checked for duplicates)
and ``evaluate`` on those built tables (rank + join + measures), the
counterpart of ranx's warm evaluate on its built Qrels and Run and of
pytrec_eval's evaluate on its dicts; prcurve's measures on an already judged
run; prcurve from pandas DataFrames (pandas' default text dtype, and object
columns) and pyarrow Tables of the same columns,
and from the same dicts the peers get; pytrec_eval's evaluate (its evaluator
built outside the timing); ranx's evaluate cold (first call, JIT) and warm
(second call), its Qrels/Run construction reported apart. The values are
checked against each other before any time is reported. ``--trec-file`` also
times ``prcurve trec`` end to end on a run file written to a temporary directory.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from prcurve.ranking import Qrels, Run, evaluate, judge

MEASURES = ["AP", "P@10", "AP@100"]


def best(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        result = None  # free the last result first: every run starts from the same memory
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


COLLECTION = 50_000_000  # document ids of the distinct case are drawn from this many


def make_data(n_queries: int, n_docs: int, ragged: bool, shuffled: bool, seed: int = 0,
              ids: str = "distinct") -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 2 * n_docs, n_queries) if ragged else np.full(n_queries, n_docs)
    n = int(lengths.sum())
    query = np.repeat(np.arange(n_queries), lengths)
    start = np.cumsum(lengths) - lengths
    # Distinct documents within a query: an offset permutation of a shared pool.
    rank = np.arange(n) - start[query]
    pool = 10 * n_docs
    if ids == "pooled":
        doc = (rank * 7 + rng.integers(0, pool, n_queries)[query]) % pool
    else:
        # Distinct within a query: rank * step + offset modulo the collection, with a step
        # prime to it (2^7 * 5^8): a permutation of the collection, so no repeats.
        pool = COLLECTION
        step = (rng.integers(1, 1 << 20, n_queries) * 10
                + rng.choice(np.array([1, 3, 7, 9]), n_queries))[query]
        doc = (rank * step + rng.integers(0, pool, n_queries)[query]) % pool
    score = np.round(rng.random(n), 4)
    order = np.lexsort((-doc, -score, query))  # rank order
    if shuffled:
        order = rng.permutation(n)
    query, doc, score = query[order], doc[order], score[order]
    judged = rng.random(n) < 0.1
    grade = np.where(rng.random(n) < 1 / 3, rng.integers(1, 3, n), 0)[judged]
    extra = rng.integers(0, 3, n_queries)  # unretrieved relevant documents
    extra_query = np.repeat(np.arange(n_queries), extra)
    extra_doc = pool + np.arange(extra_query.shape[0])
    q_query = np.concatenate((query[judged], extra_query))
    q_doc = np.concatenate((doc[judged], extra_doc))
    q_grade = np.concatenate((grade, np.ones(extra_query.shape[0], dtype=np.int64)))
    def as_text(prefix: str, values: np.ndarray) -> np.ndarray:
        text = np.char.add(prefix, values.astype(str))
        return text.astype(f"U{int(np.char.str_len(text).max())}")  # as tight as read ids

    return {
        "run": (as_text("q", query), as_text("d", doc), score),
        "qrels": (as_text("q", q_query), as_text("d", q_doc), q_grade),
        "rows": n,
        "distinct_docs": int(np.unique(doc).shape[0]),
    }


def to_dicts(data: dict[str, Any]) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in zip(*(c.tolist() for c in data["qrels"]), strict=True):
        qrels.setdefault(q, {})[d] = g
    run: dict[str, dict[str, float]] = {}
    for q, d, s in zip(*(c.tolist() for c in data["run"]), strict=True):
        run.setdefault(q, {})[d] = s
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--ragged", action="store_true")
    parser.add_argument("--shuffled", action="store_true")
    parser.add_argument("--ids", choices=["distinct", "pooled"], default="distinct",
                        help="document ids: drawn from a 5*10^7 collection (about one per "
                             "row, the default) or from a pool of 10 x docs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--skip-ranx", action="store_true", help="pytrec_eval only")
    parser.add_argument("--trec-file", action="store_true")
    args = parser.parse_args()

    data = make_data(args.queries, args.docs, args.ragged, args.shuffled, ids=args.ids)
    label = (f"{args.queries} queries x {'ragged ~' if args.ragged else ''}{args.docs} docs"
             f" ({data['rows']:,} rows, {'shuffled' if args.shuffled else 'rank order'}; "
             f"{args.ids} ids: {data['distinct_docs']:,} distinct document ids, "
             f"{args.queries:,} query ids)")
    print(f"# {label}; CPU cores: {os.cpu_count()}; load average {os.getloadavg()}")
    import pandas as pd
    import pyarrow as pa

    # Every case is timed in alternating rounds (one run of each per round, best
    # of --repeat), so that a change in the machine's load hits every case alike.
    cases: list[tuple[str, Callable[[], Any]]] = []
    qrels, run = Qrels.from_arrays(*data["qrels"]), Run.from_arrays(*data["run"])
    judged = judge(qrels, run)
    frames = [{"query_id": q, "doc_id": d, name: v} for (q, d, v), name in
              ((data["qrels"], "relevance"), (data["run"], "score"))]
    pandas_frames = [pd.DataFrame(f) for f in frames]
    object_frames = [frame.astype({"query_id": object, "doc_id": object})
                     for frame in pandas_frames]
    arrow_tables = [pa.table(f) for f in frames]
    qrels_dict, run_dict = to_dicts(data)
    cases += [
        ("prcurve evaluate, arrays, end to end",
         lambda: evaluate(data["qrels"], data["run"], MEASURES)),
        ("prcurve Qrels + Run construction (ids encoded)",
         lambda: (Qrels.from_arrays(*data["qrels"]), Run.from_arrays(*data["run"]))),
        ("prcurve evaluate, built Qrels + Run", lambda: evaluate(qrels, run, MEASURES)),
        ("prcurve measures on a judged run", lambda: judged.evaluate(MEASURES)),
        (f"prcurve evaluate, pandas DataFrames ({pandas_frames[1]['doc_id'].dtype} ids), "
         "end to end", lambda: evaluate(*pandas_frames, MEASURES)),
        ("prcurve evaluate, pandas DataFrames (object ids), end to end",
         lambda: evaluate(*object_frames, MEASURES)),
        ("prcurve evaluate, pyarrow Tables, end to end",
         lambda: evaluate(*arrow_tables, MEASURES)),
        ("prcurve evaluate, dicts, end to end", lambda: evaluate(qrels_dict, run_dict, MEASURES)),
    ]
    rows: list[tuple[str, float]] = []
    if not args.no_peers:
        import pytrec_eval

        pytrec_measures = {"map", "P_10", "map_cut_100"}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, pytrec_measures)
        cases.append(("pytrec_eval evaluate", lambda: evaluator.evaluate(run_dict)))

        def pytrec_from_columns() -> Any:
            # issue 26: pytrec_eval given the same columns as prcurve, its dicts built
            # (and its evaluator) inside the timing.
            qrels_of, run_of = to_dicts(data)
            return pytrec_eval.RelevanceEvaluator(qrels_of, pytrec_measures).evaluate(run_of)

        cases.append(("pytrec_eval from the arrays (dicts built + evaluate)",
                      pytrec_from_columns))
    if not args.no_peers and not args.skip_ranx:
        import ranx

        start = time.perf_counter()
        ranx_qrels, ranx_run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
        rows.append(("ranx Qrels + Run construction", time.perf_counter() - start))
        ranx_measures = ["map", "precision@10", "map@100"]
        start = time.perf_counter()
        ranx.evaluate(ranx_qrels, ranx_run, ranx_measures, make_comparable=True)
        rows.append(("ranx evaluate, cold (first call)", time.perf_counter() - start))
        cases.append(("ranx evaluate, warm", lambda: ranx.evaluate(
            ranx_qrels, ranx_run, ranx_measures, make_comparable=True)))

    times: dict[str, list[float]] = {name: [] for name, _ in cases}
    results: dict[str, Any] = {}
    for round_index in range(args.repeat):
        # Each round in its own order: a case runs in the memory state the case before it
        # leaves (freed blocks, trimmed heaps: up to 0.1 s here), and a fixed order
        # would hand one case the same neighbour every round.
        for name, function in random.Random(round_index).sample(cases, len(cases)):
            t, results[name] = best(function, 1)
            times[name].append(t)
    rows = [(name, min(times[name])) for name, _ in cases] + rows
    ours = results["prcurve evaluate, arrays, end to end"]
    for name, result in results.items():
        if name.startswith("prcurve evaluate"):
            assert result.summary == ours.summary, name
    if not args.no_peers:
        reference = results["pytrec_eval evaluate"]
        v9 = evaluate(qrels_dict, run_dict, MEASURES, score_precision="float32")
        for theirs, mine in (("map", "AP"), ("P_10", "P@10"), ("map_cut_100", "AP@100")):
            want = np.array([reference[q][theirs] for q in v9.query_ids.tolist()])
            assert np.abs(want - v9.per_query[mine]).max() <= 1e-9, theirs
        with_ranx = "ranx evaluate, warm" in results
        if with_ranx:
            # ranx breaks score ties its own way (not by document id), so with ties its
            # numbers differ slightly; without ties they agree to 1e-9.
            from_ranx = results["ranx evaluate, warm"]
            gap = max(abs(float(from_ranx[n]) - ours[m])
                      for n, m in zip(ranx_measures, MEASURES, strict=True))
            print(f"ranx vs prcurve, largest summary difference: {gap:.2e}")
        columns = min(times["pytrec_eval from the arrays (dicts built + evaluate)"])
        for name in [n for n, _ in cases if n.startswith("prcurve evaluate")]:
            mine = min(times[name])
            print(f"# {name}: {min(times['pytrec_eval evaluate']) / mine:.1f}x pytrec_eval, "
                  f"{columns / mine:.1f}x pytrec_eval from the columns"
                  + (f", {min(times['ranx evaluate, warm']) / mine:.1f}x ranx warm"
                     if with_ranx else ""))

    if args.trec_file:
        with tempfile.TemporaryDirectory() as folder:
            qrels_path = os.path.join(folder, "qrels")
            run_path = os.path.join(folder, "run")
            with open(qrels_path, "w") as out:
                out.writelines(f"{q} 0 {d} {g}\n" for q, d, g in
                               zip(*(c.tolist() for c in data["qrels"]), strict=True))
            with open(run_path, "w") as out:
                out.writelines(f"{q} Q0 {d} 0 {s} bench\n" for q, d, s in
                               zip(*(c.tolist() for c in data["run"]), strict=True))
            command = [sys.executable, "-m", "prcurve", "trec", "-m", "map", "-m", "P.10",
                       "-m", "map_cut.100", qrels_path, run_path]
            t, done = best(lambda: subprocess.run(command, capture_output=True, check=True),
                           args.repeat)
            rows.append((f"prcurve trec, run file of {os.path.getsize(run_path) >> 20} MiB", t))
            print(done.stdout.decode(), end="")

    print(f"\nMAP {ours['AP']:.6f}  P@10 {ours['P@10']:.6f}  AP@100 {ours['AP@100']:.6f}")
    print("| what | seconds |\n|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} |")


if __name__ == "__main__":
    main()

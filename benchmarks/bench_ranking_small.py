"""``evaluate`` at small and medium sizes, every column form against pytrec_eval given
the same columns (its dicts built in its timing): issue 26, item 5 (session 37).

Usage::

    python benchmarks/bench_ranking_small.py [--sizes QxD,...] [--repeat R] [--ties both|yes|no]

Data: ``bench_ranking.py``'s (ids as distinct as the rows: document ids drawn from a
collection of 5 x 10^7), MAP + P@10 + AP@100; ``--ties``: scores rounded to 2 decimals
(most rows tie) as well as the default 4. Forms: numpy ``U`` arrays, int64 ids (the
numbers of the ids), a pyarrow Table, pandas ``string[pyarrow]`` and ``object``
columns, and pytrec_eval (``RelevanceEvaluator`` + ``evaluate``, its dicts built from
the numpy columns inside the timing). Each timing is the CPU time of the process
(``time.process_time``) over ``calls`` calls in a row (as many as make about 2 * 10^5
rows, so that the clock's resolution does not show), divided by ``calls``; the best of
``--repeat`` rounds, each round running every form once, alternating. Every form's
sums of each measure (``math.fsum``, 17 digits) are checked equal to pytrec_eval's
before a line is printed. Run it with main's Python and a branch's, alternating
processes, to compare (docs/benchmarks.md, session 37).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from bench_ranking import MEASURES, make_data, to_dicts
from bench_ranking_forms import checksum


def forms(data: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The same columns in each form ``evaluate`` takes."""
    import pandas as pd
    import pyarrow as pa

    frames = [{"query_id": q, "doc_id": d, name: v} for (q, d, v), name in
              ((data["qrels"], "relevance"), (data["run"], "score"))]

    def numbers(ids: np.ndarray) -> np.ndarray:
        return np.strings.slice(ids, 1, None).astype(np.int64)  # "d123" -> 123

    text = {"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}
    objects = {"query_id": object, "doc_id": object}
    qrels, run = (pa.table(f) for f in frames)
    return {
        "numpy": (data["qrels"], data["run"]),
        "int64": tuple((numbers(q), numbers(d), v) for q, d, v in (data["qrels"], data["run"])),
        "pyarrow": (qrels, run),
        "pandas_str": tuple(pd.DataFrame(f).astype(text) for f in frames),
        "pandas_object": tuple(pd.DataFrame(f).astype(objects) for f in frames),
    }


def run_shape(n_queries: int, n_docs: int, ties: bool, repeat: int) -> None:
    import pytrec_eval

    from prcurve.ranking import evaluate

    data = make_data(n_queries, n_docs, False, False)
    if ties:
        q, d, score = data["run"]
        data["run"] = (q, d, np.round(score, 2))

    def pytrec() -> Any:
        qrels, run = to_dicts(data)
        return pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "map_cut_100"}
                                              ).evaluate(run)

    calls: dict[str, Any] = {name: (lambda given=given: evaluate(*given, MEASURES))
                             for name, given in forms(data).items()}
    calls["pytrec_eval"] = pytrec
    times = max(1, 200_000 // data["rows"])
    best = dict.fromkeys(calls, math.inf)
    sums: dict[str, str] = {}
    for _ in range(repeat):
        for name, call in calls.items():
            gc.collect()
            start = time.process_time()
            for _ in range(times):
                result = call()
            best[name] = min(best[name], (time.process_time() - start) / times)
            sums[name] = checksum(result)
            del result
    if len(set(sums.values())) != 1:
        raise SystemExit(f"sums differ: {sums}")
    reference = best["pytrec_eval"]
    print(f"{n_queries}x{n_docs} ({data['rows']:,} rows, {data['distinct_docs']:,} distinct "
          f"docs), {'2' if ties else '4'}-decimal, {times} calls, load "
          f"{os.getloadavg()[0]:.1f}: " + ", ".join(
              f"{name} {seconds * 1e3:.3f} ms ({reference / seconds:.2f}x)"
              for name, seconds in best.items()) + f" | {sums['pytrec_eval']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10x100,100x100,1000x100,10000x100")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--ties", choices=["both", "yes", "no"], default="both")
    args = parser.parse_args()
    for size in args.sizes.split(","):
        q, d = (int(v) for v in size.split("x"))
        for ties in {"both": (False, True), "yes": (True,), "no": (False,)}[args.ties]:
            run_shape(q, d, ties, args.repeat)
            gc.collect()


if __name__ == "__main__":
    main()

"""`prcurve trec -m all_trec` end to end on TREC files, against trec_eval (C), pytrec_eval, ranx.

Usage::

    python benchmarks/bench_trec.py [--topics 1000] [--docs 10000] [--repeat 3]
        [--trec-eval PATH]     # a trec_eval binary, or a trec_eval source folder to build
                               # with make (in a temporary copy); also $TREC_EVAL

Data (written once to a temporary folder, deleted afterwards): a run of
``topics x docs`` lines (issue 14's case: 1,000 x 10,000 = 10^7 lines, 323 MB)
in trec_eval's format, ``301 Q0 d12345 7 19.9969 bench``, each topic retrieving
``docs`` documents of its pool of 5 x docs, scores with 4 decimals (ties occur);
qrels with docs / 10 judgments per topic from the same pool, 30% relevant (grades
1 and 2). ``--ids distinct`` (the default, issue 26): each topic's pool is its own
slice of a collection of 5 x 10^7 ids (``d`` + up to 8 digits), so the run's
distinct document ids are about as many as its lines, as in real runs;
``--ids pooled`` (earlier rounds): one pool of 5 x docs ids (``d0`` ..) shared by
every topic. The id cardinality is printed with the table.

Each tool runs in a fresh process, so that its time and peak memory include
everything a user waits for (start-up, reading, evaluation, output); rounds
alternate the tools, so they share the machine's load; best of ``--repeat``.
Peak memory is the process's maximum resident set (getrusage of the child).
Children run with Python's bytecode cache (``PYTHONDONTWRITEBYTECODE`` removed
from their environment, the cache written by an untimed run), as a user's do.

- prcurve: ``python -m prcurve trec -m all_trec QRELS RUN`` (trec_eval 10's
  output: checked identical to the C trec_eval's, byte for byte);
- trec_eval: ``trec_eval -m all_trec QRELS RUN``, skipped with a note when no
  binary or source is given;
- pytrec_eval: ``parse_qrel`` + ``parse_run`` (its file parsers) +
  ``RelevanceEvaluator(qrels, <every measure of all_trec it has>).evaluate``;
- ranx: ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate`` of its
  counterparts (map, ndcg, ndcg@10, precision@10, recall@100, mrr, r-precision,
  bpref), first call (numba compiles) and second.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


COLLECTION = 50_000_000  # document ids of the distinct case are drawn from this many


def write_files(folder: Path, topics: int, docs: int, seed: int = 0,
                ids: str = "distinct") -> tuple[Path, Path]:
    """The run and qrels files, written with pyarrow's CSV writer (fast); run in a
    child process, so that this one stays small (a child's peak memory counts
    the memory of the process it was forked from)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    pool = 5 * docs
    run_path, qrels_path = folder / "run", folder / "qrels"
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")

    def text(prefix: str, values: Any) -> Any:
        return pc.binary_join_element_wise(prefix, pc.cast(pa.array(values), pa.string()), "")

    # Each topic's pool: positions 0 .. pool - 1 mapped to document numbers, the same
    # numbers for every topic (pooled) or position * step + offset modulo the
    # collection, with a step prime to it (2^7 * 5^8): distinct within the topic,
    # nearly all distinct across topics (distinct).
    steps = rng.integers(1, 1 << 20, topics) * 10 + rng.choice(np.array([1, 3, 7, 9]), topics)
    offsets = rng.integers(0, COLLECTION, topics)

    def numbers(topic_index: Any, position: Any) -> Any:
        if ids == "pooled":
            return position
        return (position * steps[topic_index] + offsets[topic_index]) % COLLECTION

    with pacsv.CSVWriter(run_path, pa.schema([(c, pa.string()) for c in "qzdkst"]),
                         write_options=options) as writer:
        for begin in range(0, topics, 50):
            n = min(50, topics - begin)
            topic = np.repeat(np.arange(begin, begin + n) + 301, docs)
            doc = numbers(np.repeat(np.arange(begin, begin + n), docs),
                          np.concatenate([rng.permutation(pool)[:docs] for _ in range(n)]))
            score = -np.sort(-np.round(rng.random((n, docs)) * 20, 4), axis=1).ravel()
            rank = np.tile(np.arange(1, docs + 1), n)
            writer.write_table(pa.table({
                "q": pc.cast(pa.array(topic), pa.string()), "z": pa.array(["Q0"] * (n * docs)),
                "d": text("d", doc), "k": pc.cast(pa.array(rank), pa.string()),
                "s": pc.cast(pa.array(score), pa.string()),
                "t": pa.array(["bench"] * (n * docs)),
            }))
    judged_per_topic = docs // 10
    topic = np.repeat(np.arange(topics) + 301, judged_per_topic)
    doc = numbers(np.repeat(np.arange(topics), judged_per_topic),
                  np.concatenate([rng.permutation(pool)[:judged_per_topic]
                                  for _ in range(topics)]))
    grade = np.where(rng.random(topic.shape[0]) < 0.3, rng.integers(1, 3, topic.shape[0]), 0)
    pacsv.write_csv(pa.table({
        "q": pc.cast(pa.array(topic), pa.string()), "i": pa.array(["0"] * topic.shape[0]),
        "d": text("d", doc), "r": pc.cast(pa.array(grade), pa.string()),
    }), qrels_path, write_options=options)
    return qrels_path, run_path


def distinct_documents(run: Path) -> int:
    """The run file's distinct document ids (third column), counted in a child process
    (this one stays small: a child's peak memory counts its parent's)."""
    code = ("import sys, pyarrow.csv as c, pyarrow.compute as pc; t = c.read_csv(sys.argv[1], "
            "read_options=c.ReadOptions(column_names=list('qzdkst')), parse_options="
            "c.ParseOptions(delimiter=' '), convert_options=c.ConvertOptions("
            "include_columns=['d'])); print(pc.count_distinct(t['d']).as_py())")
    done = subprocess.run([sys.executable, "-c", code, str(run)], check=True,
                          capture_output=True, text=True)
    return int(done.stdout)


def trec_eval_binary(given: str | None, folder: Path) -> Path | None:
    """The trec_eval to compare with: a binary, or a source folder built with make."""
    if not given:
        return None
    path = Path(given)
    if path.is_dir():
        build = folder / "trec_eval_src"
        shutil.copytree(path, build)
        subprocess.run(["make"], cwd=build, check=True, capture_output=True)
        return build / "trec_eval"
    return path


PYTREC_SCRIPT = """
import json, sys, time
import pytrec_eval
start = time.perf_counter()
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
parsed = time.perf_counter()
measures = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref",
            "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
            "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
            "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"}
result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
done = time.perf_counter()
print(json.dumps({"parse": parsed - start, "evaluate": done - parsed,
                  "map": sum(v["map"] for v in result.values()) / len(result)}))
"""

RANX_SCRIPT = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
start = time.perf_counter()
import ranx
imported = time.perf_counter()
qrels = ranx.Qrels.from_file(sys.argv[1], kind="trec")
run = ranx.Run.from_file(sys.argv[2], kind="trec")
loaded = time.perf_counter()
metrics = ["map", "ndcg", "ndcg@10", "precision@10", "recall@100", "mrr", "r-precision",
           "bpref"]
first = ranx.evaluate(qrels, run, metrics, make_comparable=True)
cold = time.perf_counter()
ranx.evaluate(qrels, run, metrics, make_comparable=True)
warm = time.perf_counter()
print(json.dumps({"import": imported - start, "load": loaded - imported,
                  "evaluate_cold": cold - loaded, "evaluate_warm": warm - cold,
                  "map": float(first["map"])}))
"""


# Children run as a user's would: with Python's bytecode cache (an environment that
# sets PYTHONDONTWRITEBYTECODE makes every start of a Python tool compile its modules
# again, 0.2-0.3 s for prcurve); a first, untimed run of each Python tool writes it.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], folder: Path) -> dict[str, Any]:
    """Run a command; its wall time, CPU time (user + system) and peak RSS (its own
    rusage, from wait4)."""
    with open(folder / "out", "wb") as out, open(folder / "err", "wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=CHILD_ENV)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024, "code": process.returncode,
            "stdout": (folder / "out").read_bytes(), "stderr": (folder / "err").read_bytes()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of prcurve and trec_eval")
    parser.add_argument("--peer-repeat", type=int, default=1,
                        help="runs of pytrec_eval and ranx (several times slower)")
    parser.add_argument("--write", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--ids", choices=["distinct", "pooled"], default="distinct",
                        help="document ids: each topic's own slice of a 5*10^7 collection "
                             "(about one per line, the default) or one pool of 5 x docs")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    parser.add_argument("--skip", nargs="*", default=[], choices=["pytrec_eval", "ranx"])
    args = parser.parse_args()
    if args.write:  # the child that writes the files
        write_files(Path(args.write[0]), int(args.write[1]), args.docs, ids=args.ids)
        return

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        subprocess.run([sys.executable, __file__, "--write", name, str(args.topics),
                        "--docs", str(args.docs), "--ids", args.ids], check=True)
        qrels, run = folder / "qrels", folder / "run"
        binary = trec_eval_binary(args.trec_eval, folder)
        print(f"# run: {args.topics} topics x {args.docs} documents = "
              f"{args.topics * args.docs:,} lines, {run.stat().st_size / 2**20:.0f} MiB; "
              f"qrels {qrels.stat().st_size / 2**20:.0f} MiB; {args.ids} ids: "
              f"{distinct_documents(run):,} distinct document ids, {args.topics:,} topics")
        tools: dict[str, list[str]] = {
            "prcurve trec -m all_trec": [sys.executable, "-m", "prcurve", "trec", "-m",
                                         "all_trec", str(qrels), str(run)],
        }
        if binary is not None:
            tools["trec_eval -m all_trec (C)"] = [str(binary), "-m", "all_trec", str(qrels),
                                                  str(run)]
        else:
            print("# trec_eval: skipped (give --trec-eval PATH or set TREC_EVAL: a binary, or "
                  "usnistgov/trec_eval's source folder to build with make)")
        if "pytrec_eval" not in args.skip:
            tools["pytrec_eval parse + evaluate"] = [sys.executable, "-c", PYTREC_SCRIPT,
                                                     str(qrels), str(run)]
        if "ranx" not in args.skip:
            tools["ranx from_file + evaluate"] = [sys.executable, "-c", RANX_SCRIPT, str(qrels),
                                                  str(run)]
        # Bytecode caches written (see CHILD_ENV) by a run on one-line files: not timed.
        (folder / "small_qrels").write_text("301 0 d1 1\n")
        (folder / "small_run").write_text("301 Q0 d1 1 1.5 r\n")
        subprocess.run([sys.executable, "-m", "prcurve", "trec", "-m", "all_trec",
                        str(folder / "small_qrels"), str(folder / "small_run")],
                       env=CHILD_ENV, check=True, capture_output=True)
        results: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
        outputs: dict[str, bytes] = {}
        slow = ("pytrec_eval parse + evaluate", "ranx from_file + evaluate")
        for round_number in range(args.repeat):
            for tool, command in tools.items():
                if tool in slow and round_number >= args.peer_repeat:
                    continue
                done = timed(command, folder)
                if done["code"] != 0:
                    raise SystemExit(f"{tool} failed: {done['stderr'].decode()[-2000:]}")
                results[tool].append(done)
                outputs[tool] = done["stdout"]
                print(f"# round {round_number + 1} {tool}: {done['wall']:.2f} s", flush=True)
        ours = outputs["prcurve trec -m all_trec"]
        if binary is not None:
            theirs = outputs["trec_eval -m all_trec (C)"]
            lines = len(ours.splitlines())
            print(f"# prcurve output identical to trec_eval's: {ours == theirs} ({lines} lines)")
            if ours != theirs:
                raise SystemExit("outputs differ")

    print(f"\nload average before/after: {os.getloadavg()}; CPU cores: {os.cpu_count()}; "
          f"{platform.platform()}; Python {platform.python_version()}")
    best = {tool: min(runs, key=lambda r: r["wall"]) for tool, runs in results.items()}
    base = best["prcurve trec -m all_trec"]["wall"]
    print("\n| tool | wall s (best of runs) | CPU s (best) | peak RSS MiB (max) | "
          "wall / prcurve's |")
    print("|---|---:|---:|---:|---:|")
    for tool, run_result in best.items():
        cpu = min(r["cpu"] for r in results[tool])
        rss = max(r["rss"] for r in results[tool])
        print(f"| {tool} | {run_result['wall']:.2f} | {cpu:.2f} | {rss:.0f} | "
              f"{run_result['wall'] / base:.1f}x |")
    for tool in ("pytrec_eval parse + evaluate", "ranx from_file + evaluate"):
        if tool in results:
            parts = json.loads(best[tool]["stdout"].decode().strip().splitlines()[-1])
            print(f"# {tool} detail: " + ", ".join(
                f"{k} {v:.2f} s" for k, v in parts.items() if k != "map"))


if __name__ == "__main__":
    main()

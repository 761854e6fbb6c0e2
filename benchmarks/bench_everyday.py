"""Everyday sizes, whole processes (issue 26): start-up, a typical TREC run, 100 COCO images,
a report of 10^4 rows, each tool against its peers on the same inputs.

Usage::

    python benchmarks/bench_everyday.py [--repeat 7] [--trec-eval PATH]  # or $TREC_EVAL
    python benchmarks/bench_everyday.py --only report --before main/.venv/bin/python

Every number is one whole process (start-up, reading, computing, output), as a
user or a shell loop waits for it; rounds alternate the tools of a case, so they
share the machine's load, and each tool's best wall time of ``--repeat`` runs is
kept (its CPU time the least, its peak resident set the largest, from
``wait4``). Children keep Python's bytecode cache (bench_trec.CHILD_ENV; a first
untimed run writes it). The load average is printed before and after: on a
shared machine compare the ratios within a case, not the seconds.

Cases (data written to a temporary folder, deleted afterwards):

- start-up: ``python -c "import numpy"`` (the reference), ``import prcurve``,
  ``prcurve --version``, ``prcurve --help``;
- TREC, 50 topics x 1,000 documents (bench_trec's generator, 1.5 MB: document ids
  "d<number>" drawn per topic from a 5*10^7 collection, so about 50,000 distinct;
  scores in [0, 20) with 4 decimals, a few ties per topic; 5,000 judgments, 30% of
  them relevant, grades 1-2):
  ``prcurve trec -m all_trec`` (output checked identical, byte for byte, to the C
  trec_eval's), the C trec_eval (skipped with a line when no binary or source is
  given), a pytrec_eval process (its file parsers and every measure of all_trec
  it has);
- TREC, the same run as 10 files (issue 26, item 2: an IR researcher's loop over runs):
  ``prcurve trec -m all_trec QRELS RUN1 ... RUN10`` in one process against a shell loop
  of a process per run, of prcurve, of the C trec_eval and of pytrec_eval (the loop's
  CPU time and peak memory are the shell's and its children's, from ``wait4``); the
  one process's output, less its ``==> RUN <==`` headers, checked identical to the C
  loop's;
- COCO, 100 images (bench_detection's generator: 80 categories, 100 detections
  per image): ``prcurve coco GT DT``, a faster-coco-eval process and a pycocotools
  process (``COCO`` + ``loadRes`` + evaluate, accumulate, summarize); the 12
  printed statistics checked equal across the three;
- report, 10^4 rows of a CSV (label, score): ``prcurve report FILE`` (text, the
  default 95% bootstrap interval of 1,000 resamples), the same with ``--ci
  none``, and a scikit-learn process reading the file with numpy and computing
  ``average_precision_score`` and ``precision_recall_curve``; AP checked equal to
  scikit-learn's (4 decimals, as printed);
- report, the same 10^4 rows from every input format the report reads (:data:`FORMATS`:
  CSV; TSV with string labels and ``--positive pos``; JSON Lines, plain and gzip'd;
  Parquet (int64 labels, float64 scores, one row group); ``.npz``; gzip'd CSV) and two
  more shapes of the CSV (a weight column; three models), against ``import numpy``
  (issue 26, item 3: text <= 3x); the one model's report checked identical from every
  format (less the lines naming the file), and with ``--before`` each output identical
  to the [before] one, byte for byte;
- report with plots and HTML from every input format, against the drawing imports below
  (with ``--before``, each standard output checked identical to the [before] one);
- report with plots and HTML, the same 10^4 rows: ``prcurve report FILE --out DIR``
  (the default plots: pr_curve.png and .svg, threshold.png, prg_curve.png, and
  report.html; the folder written over on every run after the first) against the
  reference of issue 26, item 3: a process importing the libraries the report draws
  with (:data:`DRAWING_IMPORTS`: matplotlib with the Agg backend and pyplot, and the
  bokeh modules of ``prcurve.present.html``); the files checked written. The report
  draws its pictures in a second process when a core is free for it
  (``prcurve.present.picture_process``); two more rows force each way
  (``PRCURVE_PICTURES=child`` and ``here``). A process's CPU time from ``wait4``
  includes the children it waited for (the drawing process), its peak resident set is
  the larger of the two.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_trec import CHILD_ENV, PYTREC_SCRIPT, timed, trec_eval_binary, write_files

PY = sys.executable
SLOW = {"pycocotools process"}
RUNS = 10  # files of the several-runs case

LOOP = 'q=$1; shift; for r in "$@"; do "$0" "$q" "$r" || exit 1; done'
"""A shell loop of a process per run: ``sh -c LOOP COMMAND... QRELS RUN...``, the command
given as an executable (a one-line script of several words, below)."""

COCO_SCRIPT = """
import sys
{imports}
gt = COCO(sys.argv[1])
dt = gt.loadRes(sys.argv[2])
e = COCOeval(gt, dt, "bbox")
e.evaluate(); e.accumulate(); e.summarize()
if {print_stats}:  # faster-coco-eval logs its summary (not shown): its 12 statistics
    print("\\n".join(f"] = {{v:0.3f}}" for v in e.stats))
"""

DRAWING_IMPORTS = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot; "
                   "import matplotlib.backends.backend_agg, matplotlib.backends.backend_svg; "
                   "import bokeh.embed, bokeh.layouts, bokeh.models, bokeh.plotting, "
                   "bokeh.resources")
"""The reference of the report with plots: importing what it draws with (matplotlib's
figures, its PNG and SVG writers, and the bokeh modules ``prcurve.present.html`` imports;
``prcurve.present.files._PICTURE_MODULES``)."""

REPORT_FILES = ("pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png",
                "report.html", "report.json")

SKLEARN_SCRIPT = """
import sys
import numpy as np
from sklearn.metrics import average_precision_score, precision_recall_curve
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
y, s = data[:, 0], data[:, 1]
precision, recall, thresholds = precision_recall_curve(y, s)
print(f"AP {average_precision_score(y, s):.4f} thresholds {thresholds.shape[0]}")
"""


def write_inputs(folder: Path) -> dict[str, Path]:
    """The TREC, COCO and CSV inputs (in a child process: this one stays small)."""
    import json

    import numpy as np

    import bench_detection

    qrels, run = write_files(folder, 50, 1000)
    for k in range(RUNS):  # the same run as RUNS files (the several-runs case)
        (folder / f"run{k}").write_bytes(run.read_bytes())
    ground_truth, results = bench_detection.make_data(100)
    (folder / "gt.json").write_text(json.dumps(ground_truth))
    (folder / "dt.json").write_text(json.dumps(results))
    rng = np.random.default_rng(0)
    labels = rng.random(10_000) < 0.3
    scores = np.round(rng.normal(labels * 1.0, 1.0), 6)
    with open(folder / "scores.csv", "w") as f:
        f.write("label,score\n")
        f.writelines(f"{int(a)},{b!r}\n" for a, b in zip(labels, scores.tolist(), strict=True))
    write_formats(folder, labels, scores)
    return {"qrels": qrels, "run": run, "gt": folder / "gt.json", "dt": folder / "dt.json",
            "csv": folder / "scores.csv"}


def write_formats(folder: Path, labels: Any, scores: Any) -> None:
    """The rows of scores.csv in every format the report reads (:data:`FORMATS`), and two
    more shapes of the CSV: three models, and a weight column."""
    import gzip
    import json

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = scores.tolist()
    ints = labels.astype(np.int64)
    with open(folder / "scores.tsv", "w") as f:  # string labels: --positive pos
        f.write("label\tscore\n")
        f.writelines(f"{'pos' if a else 'neg'}\t{b!r}\n"
                     for a, b in zip(labels, values, strict=True))
    lines = "".join(json.dumps({"label": int(a), "score": b}) + "\n"
                    for a, b in zip(labels, values, strict=True))
    (folder / "scores.jsonl").write_text(lines)
    (folder / "scores.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    (folder / "scores.csv.gz").write_bytes(gzip.compress((folder / "scores.csv").read_bytes()))
    pq.write_table(pa.table({"label": ints, "score": scores}), folder / "scores.parquet")
    np.savez(folder / "scores.npz", label=ints, score=scores)
    rng = np.random.default_rng(1)  # two more models, weaker, and weights in [0.5, 2)
    b = np.round(rng.normal(labels * 0.8, 1.0), 6).tolist()
    c = np.round(rng.normal(labels * 0.5, 1.0), 6).tolist()
    weights = np.round(rng.uniform(0.5, 2.0, labels.shape[0]), 3).tolist()
    with open(folder / "models.csv", "w") as f:
        f.write("label,a,b,c\n")
        f.writelines(f"{int(y)},{x!r},{u!r},{v!r}\n"
                     for y, x, u, v in zip(labels, values, b, c, strict=True))
    with open(folder / "weighted.csv", "w") as f:
        f.write("label,score,weight\n")
        f.writelines(f"{int(y)},{x!r},{w!r}\n"
                     for y, x, w in zip(labels, values, weights, strict=True))


FORMATS = {  # the file of each input-format row, and its options
    "CSV": ("scores.csv", []),
    "TSV, string labels, --positive pos": ("scores.tsv", ["--positive", "pos"]),
    "JSON Lines": ("scores.jsonl", []),
    "JSON Lines, gzip'd": ("scores.jsonl.gz", []),
    "Parquet": ("scores.parquet", []),
    ".npz": ("scores.npz", []),
    "CSV, gzip'd": ("scores.csv.gz", []),
    "CSV, a weight column (--weight weight)": ("weighted.csv", ["--weight", "weight"]),
    "CSV, three models (a, b, c)": ("models.csv", []),
}
"""The input-format rows (issue 26, item 3, on every input): the same 10^4 rows (those of
scores.csv), and two shapes of them. The weighted report has no bootstrap interval (the
bootstrap resamples unweighted samples: noted in the report); the three models' report
compares each pair by a paired bootstrap (AP and AUCPR, 1,000 resamples each)."""


def cases(files: dict[str, Path], binary: Path | None, python: str = PY
          ) -> dict[str, dict[str, list[str]]]:
    PY = python  # the interpreter of every timed process
    qrels, run = str(files["qrels"]), str(files["run"])
    gt, dt, csv = str(files["gt"]), str(files["dt"]), str(files["csv"])
    folder = files["csv"].parent
    trec = {"prcurve trec -m all_trec": [PY, "-m", "prcurve", "trec", "-m", "all_trec", qrels,
                                         run]}
    if binary is not None:
        trec["trec_eval -m all_trec (C)"] = [str(binary), "-m", "all_trec", qrels, run]
    trec["pytrec_eval process"] = [PY, "-c", PYTREC_SCRIPT, qrels, run]
    return {
        "start-up": {
            "import numpy": [PY, "-c", "import numpy"],
            "import prcurve": [PY, "-c", "import prcurve"],
            "prcurve --version": [PY, "-m", "prcurve", "--version"],
            "prcurve --help": [PY, "-m", "prcurve", "--help"],
        },
        "TREC, 50 topics x 1,000 documents (1.5 MB; ~50,000 distinct ids; 4-decimal scores)": trec,
        f"TREC, {RUNS} runs of 50 x 1,000: one process or a process each": several(
            files, binary, PY),
        "COCO boxes, 100 images, 80 categories, 10,000 detections": {
            "prcurve coco": [PY, "-m", "prcurve", "coco", gt, dt],
            "faster-coco-eval process": [PY, "-c", COCO_SCRIPT.format(
                imports="from faster_coco_eval import COCO, COCOeval_faster as COCOeval",
                print_stats=True),
                gt, dt],
            "pycocotools process": [PY, "-c", COCO_SCRIPT.format(
                imports="from pycocotools.coco import COCO\n"
                        "from pycocotools.cocoeval import COCOeval", print_stats=False), gt, dt],
        },
        "report, 10^4 rows (CSV; 30% positives; float64 scores, 6 decimals, nearly all distinct)": {
            "import numpy": [PY, "-c", "import numpy"],
            "prcurve report FILE (text, 95% CI)": [PY, "-m", "prcurve", "report", csv],
            "prcurve report FILE --ci none": [PY, "-m", "prcurve", "report", csv, "--ci",
                                              "none"],
            "scikit-learn process (AP + curve)": [PY, "-c", SKLEARN_SCRIPT, csv],
        },
        "report, 10^4 rows, each input format (text, 95% CI)": {
            "import numpy": [PY, "-c", "import numpy"],
            **{f"prcurve report FILE ({name})": [PY, "-m", "prcurve", "report",
                                                 str(folder / file), *options]
               for name, (file, options) in FORMATS.items()},
        },
        "report with plots and HTML, 10^4 rows, each input format": {
            "import matplotlib, pyplot (Agg) and bokeh": [PY, "-c", DRAWING_IMPORTS],
            **{f"prcurve report FILE --out DIR ({name})": [
                PY, "-m", "prcurve", "report", str(folder / file), *options, "--out",
                str(files["out"])] for name, (file, options) in FORMATS.items()},
        },
        "report with plots and HTML, 10^4 rows (CSV; the same file)": {
            "import matplotlib, pyplot (Agg) and bokeh": [PY, "-c", DRAWING_IMPORTS],
            "prcurve report FILE --out DIR": [PY, "-m", "prcurve", "report", csv, "--out",
                                              str(files["out"])],
            # Each way of drawing, whatever the load (prcurve.present.picture_process):
            **{f"prcurve report FILE --out DIR, PRCURVE_PICTURES={how}": [
                "env", f"PRCURVE_PICTURES={how}", PY, "-m", "prcurve", "report", csv,
                "--out", str(files["out"])] for how in ("child", "here")},
        },
    }


def several(files: dict[str, Path], binary: Path | None, python: str,
            before: str | None = None) -> dict[str, list[str]]:
    """The several-runs case: prcurve's one process, and shell loops of a process per run
    (each tool a small executable script taking QRELS RUN, written next to the data)."""
    folder = files["qrels"].parent
    qrels = str(files["qrels"])
    runs = [str(folder / f"run{k}") for k in range(RUNS)]

    def script(name: str, line: str) -> str:
        path = folder / name
        path.write_text(f'#!/bin/sh\nexec {line} "$@"\n')
        path.chmod(0o755)
        return str(path)

    tools = {f"prcurve trec -m all_trec, {RUNS} runs in one process":
             [python, "-m", "prcurve", "trec", "-m", "all_trec", qrels, *runs]}
    loops = {"prcurve trec -m all_trec": f"{python} -m prcurve trec -m all_trec"}
    if before is not None:
        loops["prcurve trec -m all_trec [before]"] = f"{before} -m prcurve trec -m all_trec"
    if binary is not None:
        loops["trec_eval -m all_trec (C)"] = f"{binary} -m all_trec"
    pytrec = folder / "pytrec.py"
    pytrec.write_text(PYTREC_SCRIPT)
    loops["pytrec_eval"] = f"{python} {pytrec}"
    for k, (tool, line) in enumerate(loops.items()):
        tools[f"{tool}, a process per run"] = ["sh", "-c", LOOP, script(f"tool{k}.sh", line),
                                               qrels, *runs]
    return tools


def with_before(tools: dict[str, list[str]], python: str, before: str
                ) -> dict[str, list[str]]:
    """``tools`` with each prcurve command also run by the interpreter ``before``, next to
    it (a before/after in the same rounds, under the same load)."""
    out = {}
    for tool, command in tools.items():
        out[tool] = command
        if command[:3] == [python, "-m", "prcurve"]:
            out[f"{tool} [before]"] = [before, *command[1:]]
    return out


def check(case: str, outputs: dict[str, bytes]) -> str:
    """The agreement this case checks, as a line; stops the benchmark if it fails."""
    if case.startswith(f"TREC, {RUNS} runs"):
        c = outputs.get("trec_eval -m all_trec (C), a process per run")
        ours = next(iter(outputs.values()))
        if c is None:
            return "no C trec_eval to compare with"
        body = b"".join(line for line in ours.splitlines(keepends=True)
                        if not line.startswith(b"==> ") and line != b"\n")
        if body != c or ours.count(b"==> ") != RUNS:
            raise SystemExit("prcurve's output of several runs differs from trec_eval's")
        return f"prcurve's output, less its headers, identical to trec_eval's ({RUNS} runs)"
    if case.startswith("TREC"):
        c = outputs.get("trec_eval -m all_trec (C)")
        if c is None:
            return "no C trec_eval to compare with"
        if outputs["prcurve trec -m all_trec"] != c:
            raise SystemExit("prcurve's trec output differs from trec_eval's")
        return f"prcurve's output identical to trec_eval's ({len(c.splitlines())} lines)"
    if case.startswith("COCO"):
        stats = {tool: re.findall(rb"\] = (-?[0-9.]+)", out) for tool, out in outputs.items()}
        values = list(stats.values())
        if any(len(v) != 12 for v in values) or any(v != values[0] for v in values):
            raise SystemExit(f"COCO statistics differ: {stats}")
        return "the 12 statistics equal across the three tools (as printed)"
    if case.startswith("report, 10^4 rows, each input format"):
        return same_across_formats(outputs)
    if case.startswith("report with plots"):
        return "wrote " + ", ".join(REPORT_FILES)
    if case.startswith("report"):
        ours = re.search(rb"AP \(step\) +([0-9.]+)", outputs["prcurve report FILE --ci none"])
        theirs = re.search(rb"AP ([0-9.]+)", outputs["scikit-learn process (AP + curve)"])
        if ours is None or theirs is None or ours.group(1) != theirs.group(1):
            raise SystemExit(f"AP differs: {ours} vs {theirs}")
        return f"AP {ours.group(1).decode()} = scikit-learn's average_precision_score"
    return ""


def same_across_formats(outputs: dict[str, bytes]) -> str:
    """The text report of one model is the same from every format (less the lines naming
    the file and its format); stops the benchmark if not."""
    def body(out: bytes) -> bytes:
        return b"".join(line for line in out.splitlines(keepends=True)
                        if not line.startswith((b"input ", b"model score (")))

    single = {tool: body(out) for tool, out in outputs.items() if tool.startswith(
        "prcurve report FILE (") and "three models" not in tool and "weight" not in tool}
    first = next(iter(single.values()))
    differ = [tool for tool, out in single.items() if out != first]
    if differ or b"AP (step)" not in first:
        raise SystemExit(f"the report differs between formats: {differ}")
    return f"the report of the one model identical from the {len(single)} formats"


def same_before_after(outputs: dict[str, bytes]) -> str:
    """Each command's output identical, byte for byte, to the same command's ``[before]``;
    stops the benchmark if not."""
    pairs = [(tool, f"{tool} [before]") for tool in outputs if f"{tool} [before]" in outputs]
    differ = [tool for tool, before in pairs if outputs[tool] != outputs[before]]
    if differ:
        raise SystemExit(f"output differs from [before]: {differ}")
    return f"; {len(pairs)} outputs identical to [before]" if pairs else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--slow-repeat", type=int, default=2,
                        help="runs of the pycocotools process (seconds each)")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    parser.add_argument("--only", nargs="*", default=None, metavar="TEXT",
                        help="run only the cases whose name starts with one of these "
                        "(e.g. 'report')")
    parser.add_argument("--python", default=PY,
                        help="the interpreter of the timed processes (another checkout's "
                        "environment, for a before/after)")
    parser.add_argument("--before", default=None, metavar="PYTHON",
                        help="also time every prcurve command with this interpreter (e.g. "
                        "main's environment), in the same rounds: rows marked [before]")
    parser.add_argument("--write", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        write_inputs(Path(args.write))
        return
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        subprocess.run([PY, __file__, "--write", name], check=True)
        files = {"qrels": folder / "qrels", "run": folder / "run", "gt": folder / "gt.json",
                 "dt": folder / "dt.json", "csv": folder / "scores.csv",
                 "out": folder / "report_out"}
        binary = trec_eval_binary(args.trec_eval, folder)
        if binary is None:
            print("# trec_eval: skipped (give --trec-eval PATH or set TREC_EVAL: a binary, or "
                  "usnistgov/trec_eval's source folder to build with make)")
        load_before = os.getloadavg()
        tables = []
        for case, tools in cases(files, binary, args.python).items():
            if args.only is not None and not case.startswith(tuple(args.only)):
                continue
            if args.before is not None and case.startswith(f"TREC, {RUNS} runs"):
                tools = several(files, binary, args.python, args.before)
            elif args.before is not None:
                tools = with_before(tools, args.python, args.before)
            for command in tools.values():  # bytecode caches written; not timed
                subprocess.run(command, env=CHILD_ENV, capture_output=True, check=False)
            results: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
            for round_number in range(args.repeat):
                for tool, command in tools.items():
                    if tool in SLOW and round_number >= args.slow_repeat:
                        continue
                    done = timed(command, folder)
                    if done["code"] != 0:
                        raise SystemExit(f"{tool} failed: {done['stderr'].decode()[-2000:]}")
                    results[tool].append(done)
            last = {tool: runs[-1]["stdout"] for tool, runs in results.items()}
            note = check(case, {tool: out for tool, out in last.items()
                                if not tool.endswith(" [before]")})
            if case.startswith(("report, 10^4 rows, each input format",
                                "report with plots and HTML, 10^4 rows, each")):
                note += same_before_after(last)
            missing = [n for n in REPORT_FILES if case.startswith("report with plots")
                       and not (files["out"] / n).is_file()]
            if missing:
                raise SystemExit(f"prcurve report --out did not write {missing}")
            tables.append((case, results, note))
            print(f"# {case}: done; {note}", flush=True)
        load_after = os.getloadavg()
    print(f"\nload average before {load_before}, after {load_after}; CPU cores: "
          f"{os.cpu_count()}; {platform.platform()}; Python {platform.python_version()}; "
          f"best of {args.repeat} runs each "
          f"({args.slow_repeat} of {', '.join(sorted(SLOW))})\n")
    print("| case | tool | wall ms | CPU ms | peak RSS MiB | wall / first row's | "
          "CPU / first row's |")
    print("|:--|:--|--:|--:|--:|--:|--:|")
    for case, results, _ in tables:
        first = next(iter(results.values()))
        base = min(r["wall"] for r in first)
        base_cpu = min(r["cpu"] for r in first)
        for tool, runs in results.items():
            wall = min(r["wall"] for r in runs)
            cpu = min(r["cpu"] for r in runs)
            rss = max(r["rss"] for r in runs)
            print(f"| {case} | {tool} | {wall * 1e3:.0f} | {cpu * 1e3:.0f} | {rss:.0f} | "
                  f"{wall / base:.2f}x | {cpu / base_cpu:.2f}x |")


if __name__ == "__main__":
    main()

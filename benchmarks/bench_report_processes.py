"""Per-process CPU of ``prcurve report FILE --out DIR`` with its drawing process (issue 26,
item 3): the parent's own CPU time and the drawing child's, so that the command's wall
time on an idle 2-core machine can be estimated on a loaded one (wall times there are
mostly waiting for a core; CPU times are not).

Usage::

    python benchmarks/bench_report_processes.py [--repeat 7] [--before OTHER_PYTHON]

The input is bench_everyday's 10^4-row CSV (30% positives, float64 scores rounded to 6
decimals). Each run is the program itself (``prcurve.cli.main.run`` with ``sys.argv``,
so the drawing process starts as it does for a user) with ``PRCURVE_PICTURES=child``,
inside a wrapper that prints, at exit, ``resource.getrusage`` of itself (the parent) and
of its children (the drawing process, waited for). With ``--before`` the same runs of
another interpreter (another checkout) alternate with this one's. Printed: best and
median of each, and the reference (importing matplotlib, pyplot and Bokeh,
bench_everyday.DRAWING_IMPORTS) in the same rounds.

On an idle 2-core machine the command takes about the longer of its two processes: the
parent's CPU time, or the child's start (the parent's CPU time until it starts the
child: about 0.03 s since session 33, when it starts before NumPy loads; 0.18 s before)
plus the child's CPU time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_everyday import DRAWING_IMPORTS

WRAPPER = """
import atexit, resource, sys
def show():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("CPU", me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)
atexit.register(show)
sys.argv = ["prcurve", "report", sys.argv[1], "--out", sys.argv[2]]
from prcurve.cli.main import run
run()
"""


def write_csv(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)  # bench_everyday.write_inputs' report input
    labels = rng.random(10_000) < 0.3
    scores = np.round(rng.normal(labels * 1.0, 1.0), 6)
    with open(path, "w") as f:
        f.write("label,score\n")
        f.writelines(f"{int(a)},{b!r}\n" for a, b in zip(labels, scores.tolist(), strict=True))


def one_run(python: str, csv: Path, out: Path, env: dict[str, str]) -> tuple[float, float]:
    done = subprocess.run([python, "-c", WRAPPER, str(csv), str(out)], env=env,
                          capture_output=True, text=True, check=True)
    line = [w for w in done.stderr.splitlines() if w.startswith("CPU ")][-1].split()
    return float(line[1]), float(line[2])


def reference(env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", DRAWING_IMPORTS], env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", default=None, help="another checkout's interpreter")
    args = parser.parse_args()
    pythons = {"this": sys.executable}
    if args.before:
        pythons["before"] = args.before
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PRCURVE_PICTURES"] = "child"
    print(f"load average before {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        csv = Path(folder) / "scores.csv"
        write_csv(csv)
        runs: dict[str, list[tuple[float, float]]] = {k: [] for k in pythons}
        imports: list[float] = []
        for name, python in pythons.items():  # untimed: bytecode caches written
            one_run(python, csv, Path(folder) / name, env)
        for _ in range(args.repeat):
            imports.append(reference(env))
            for name, python in pythons.items():
                runs[name].append(one_run(python, csv, Path(folder) / name, env))
    print(f"load average after {os.getloadavg()}; {os.cpu_count()} CPUs; best and median "
          f"of {args.repeat} runs, CPU seconds (user + system)")
    print(f"reference (import matplotlib, pyplot and Bokeh): best {min(imports):.3f} "
          f"median {statistics.median(imports):.3f}")
    for name, values in runs.items():
        parent = [p for p, _ in values]
        child = [c for _, c in values]
        print(f"{name}: parent best {min(parent):.3f} median {statistics.median(parent):.3f}; "
              f"drawing child best {min(child):.3f} median {statistics.median(child):.3f}")


if __name__ == "__main__":
    main()

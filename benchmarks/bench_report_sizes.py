"""`prcurve report FILE` over sizes and shapes, against the floor (issue 26, items 6 and 7).

Session 35's sweep: for each shape and each ``--rows`` size one generated file, then, in
fresh processes under ``/usr/bin/time -f "%e %U %S %M"``, rounds alternating:

- ``floor``: reading the file with the library prcurve reads it with (every column:
  ``pyarrow.parquet.read_table`` or ``pyarrow.csv.read_csv``) and one ``np.sort`` of the
  scores (issue 26, item 6's floor; as ``bench_report_large.py``);
- ``text``: ``prcurve report FILE --label label --score score [--positive/--weight]``;
- ``json``: the same with ``--format json``;
- with ``--workers N``: the json command with ``--workers N`` (item 7), whose numbers
  must equal the single process's;
- with ``--before PYTHON``: the json command by another interpreter (main's checkout),
  whose report.json must be byte for byte this one's.

Best of ``--repeat`` for time (wall; CPU = user + sys, the process and its waited-for
children as ``time`` reports them), the largest ``%M`` (peak resident, MiB) for memory.
Printed per row: time / floor (wall and CPU) and peak MB, and the machine's load
(``os.getloadavg``) before and after each size. Files live in ``--folder``
(default /tmp/prcurve-sizes) and are reused; ``--clean`` deletes each after its size.

Shapes (``--shape``, repeatable; default all):

- ``a``: issue 15's: int64 labels with 5% positives, float64 scores all distinct
  (N(0, 1) + 1.5 for positives), Parquet, row groups of 2^20;
- ``ties2``: as ``a``, scores rounded to 2 decimals (a few hundred distinct);
- ``ties4``: as ``a``, scores rounded to 4 decimals (up to about 10^5 distinct: the
  report's default bootstrap interval is computed up to 100,000 thresholds);
- ``ties_int``: as ``a``, int64 scores 0-100;
- ``f32``: as ``a``, float32 scores;
- ``pos50``: as ``a``, 50% positives;
- ``strlab``: as ``a``, string labels "pos"/"neg" (``--positive pos``);
- ``csv``: as ``a``, written as CSV (pyarrow's writer);
- ``weight``: as ``a``, plus a float64 weight column in [0.5, 2) (``--weight weight``).

Run: ``python benchmarks/bench_report_sizes.py --rows 1e4 --rows 1e5 ... [--shape a]
[--repeat 2] [--workers 2] [--before /work/main/.venv/bin/python]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SHAPES = ("a", "ties2", "ties4", "ties_int", "f32", "pos50", "strlab", "csv", "weight")

FLOOR = """
import sys, numpy as np
path, score = sys.argv[1], sys.argv[2]
if path.endswith(".csv"):
    import pyarrow.csv as pc
    table = pc.read_csv(path)
else:
    import pyarrow.parquet as pq
    table = pq.read_table(path)
np.sort(table.column(score).to_numpy())
"""


def generate(shape: str, rows: int, path: Path, seed: int = 0) -> None:
    """Write one file of ``shape`` with ``rows`` rows at ``path`` (10^7 rows at a time)."""
    import pyarrow as pa
    import pyarrow.csv as pc
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    writer: pq.ParquetWriter | pc.CSVWriter | None = None
    for start in range(0, rows, 10_000_000):
        n = min(10_000_000, rows - start)
        y = rng.random(n) < (0.5 if shape == "pos50" else 0.05)
        score = rng.standard_normal(n) + 1.5 * y
        columns: dict[str, object] = {"label": y.astype(np.int64), "score": score}
        if shape in ("ties2", "ties4"):
            columns["score"] = np.round(score, int(shape[-1]))
        elif shape == "ties_int":
            columns["score"] = np.clip(np.round(score * 20 + 40), 0, 100).astype(np.int64)
        elif shape == "f32":
            columns["score"] = score.astype(np.float32)
        elif shape == "strlab":
            columns["label"] = pa.array(np.where(y, "pos", "neg"), pa.string())
        elif shape == "weight":
            columns["weight"] = 0.5 + 1.5 * rng.random(n)
        table = pa.table(columns)
        if writer is None:
            writer = (pc.CSVWriter(path, table.schema) if shape == "csv"
                      else pq.ParquetWriter(path, table.schema))
        if isinstance(writer, pq.ParquetWriter):
            writer.write_table(table, row_group_size=1 << 20)
        else:
            writer.write_table(table)
    if writer is not None:
        writer.close()


def options(shape: str) -> list[str]:
    extra = ["--label", "label", "--score", "score"]
    if shape == "strlab":
        extra += ["--positive", "pos"]
    if shape == "weight":
        extra += ["--weight", "weight"]
    return extra


def timed(command: list[str]) -> tuple[float, float, float, bytes]:
    """Wall s, CPU s (user + sys), peak MiB and standard output of one process."""
    with tempfile.NamedTemporaryFile("r") as times, tempfile.TemporaryFile() as out:
        done = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", times.name,
                               *command], stdout=out, stderr=subprocess.PIPE, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n"
                             f"{done.stderr.decode()[-2000:]}")
        wall, user, system, peak = times.read().split()[-4:]
        out.seek(0)
        return float(wall), float(user) + float(system), int(peak) / 1024, out.read()



def best_of(commands: dict[str, list[str]], repeat: int,
            ) -> tuple[dict[str, list[float]], dict[str, bytes]]:
    """``repeat`` rounds of the commands, alternating: each one's least wall and CPU
    seconds, its largest peak MiB (:func:`timed`), and its last standard output."""
    best: dict[str, list[float]] = {}
    outputs: dict[str, bytes] = {}
    for _ in range(repeat):
        for name, command in commands.items():
            wall, cpu, peak, text = timed(command)
            old = best.setdefault(name, [wall, cpu, peak])
            best[name] = [min(wall, old[0]), min(cpu, old[1]), max(peak, old[2])]
            outputs[name] = text
    return best, outputs

def numbers(text: bytes) -> str:
    """The report's numbers (the models without the inputs' engine notes) as one text."""
    report = json.loads(text)
    return json.dumps([{k: v for k, v in m.items() if k not in ("engine", "notes")}
                       for m in report["models"]], sort_keys=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="append", type=float, default=[])
    parser.add_argument("--shape", action="append", choices=SHAPES, default=[])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--before", help="another interpreter (main's) for the json command")
    parser.add_argument("--no-text", action="store_true", help="only the json command")
    parser.add_argument("--folder", default="/tmp/prcurve-sizes")
    parser.add_argument("--clean", action="store_true", help="delete each file after its size")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    prcurve = [sys.executable, "-m", "prcurve", "report"]
    print("| shape | rows | MiB | command | wall s | CPU s | peak MB | wall / floor | "
          "CPU / floor | load before, after | numbers |")
    print("|:--|--:|--:|:--|--:|--:|--:|--:|--:|:--|:--|", flush=True)
    for shape in args.shape or list(SHAPES):
        for rows in [int(r) for r in args.rows or [1e4, 1e5, 1e6]]:
            if shape == "csv" and rows > 10**7:  # a CSV that large streams (over 512 MiB)
                continue
            path = folder / f"{shape}-{rows}.{'csv' if shape == 'csv' else 'parquet'}"
            if not path.exists():
                generate(shape, rows, path)
            extra = options(shape)
            commands = {"floor": [sys.executable, "-c", FLOOR, str(path), "score"]}
            if not args.no_text:
                commands["text"] = [*prcurve, str(path), *extra]
            commands["json"] = [*prcurve, str(path), *extra, "--format", "json"]
            if args.workers:
                commands[f"json --workers {args.workers}"] = [
                    *commands["json"], "--workers", str(args.workers)]
            if args.before:
                commands["main json"] = [args.before, "-m", "prcurve", "report", str(path),
                                         *extra, "--format", "json"]
            load = os.getloadavg()[0]
            best, outputs = best_of(commands, args.repeat)
            after = os.getloadavg()[0]
            floor = best["floor"]
            for name, (wall, cpu, peak) in best.items():
                same = ""
                if name.startswith("json --workers"):
                    same = ("identical" if numbers(outputs[name]) == numbers(outputs["json"])
                            else "DIFFERENT")
                elif name == "main json":
                    same = ("byte-identical" if outputs[name] == outputs["json"] else
                            "numbers identical" if numbers(outputs[name]) ==
                            numbers(outputs["json"]) else "DIFFERENT")
                elif name == "json":
                    same = hashlib.sha256(outputs[name]).hexdigest()[:12]
                ratio = ("" if name == "floor" else
                         f"{wall / floor[0]:.2f}x | {cpu / floor[1]:.2f}x")
                print(f"| {shape} | {rows:.0e} | {path.stat().st_size / 2**20:,.1f} | {name} "
                      f"| {wall:.2f} | {cpu:.2f} | {peak:,.0f} | "
                      f"{ratio if ratio else '- | -'} | {load:.1f}, {after:.1f} | {same} |",
                      flush=True)
            if args.clean:
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

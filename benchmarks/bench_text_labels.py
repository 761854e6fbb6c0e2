"""`prcurve report FILE --positive pos` of text labels from every format, before and after
(issue 26, item 6, session 36: text labels read as codes by every reader).

For each format (CSV, Parquet, JSON Lines), shape and ``--rows`` size one generated file,
then, in fresh processes under ``/usr/bin/time``, rounds alternating:

- ``floor``: reading the file with pyarrow (``pyarrow.csv.read_csv``,
  ``pyarrow.parquet.read_table``, ``pyarrow.json.read_json``: every column) and one
  ``np.sort`` of the scores, as ``bench_report_sizes.py``'s floor;
- ``after``: ``prcurve report FILE --label label --score score --positive pos --format
  json`` by this interpreter (``--drop-invalid`` for the shape with missing labels);
- ``before``: the same command by ``--before`` (main's interpreter), whose report.json
  must be byte for byte this one's.

Shapes: ``two`` ("pos"/"neg", 5% positives), ``three`` ("pos", "neg", "other"), ``null``
("pos"/"neg" with 1% missing labels: an empty field in CSV, null in JSON and Parquet).
Scores N(0, 1) + 1.5 for positives, float64. Best of ``--repeat`` for time, largest
``%M`` for memory; the load (``os.getloadavg``) before and after each size.

Run: ``python benchmarks/bench_text_labels.py --rows 1e4 --rows 1e6 --before
/work/main/.venv/bin/python [--format csv] [--shape two]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report_sizes import best_of

FORMATS = ("csv", "parquet", "jsonl")
SHAPES = ("two", "three", "null")

FLOOR = """
import sys, numpy as np
path = sys.argv[1]
if path.endswith(".csv"):
    import pyarrow.csv as reader
    table = reader.read_csv(path)
elif path.endswith(".jsonl"):
    import pyarrow.json as reader
    table = reader.read_json(path)
else:
    import pyarrow.parquet as reader
    table = reader.read_table(path)
np.sort(table.column("score").to_numpy())
"""


def generate(fmt: str, shape: str, rows: int, path: Path, seed: int = 0) -> None:
    """Write one file (10^6 rows at a time)."""
    import pyarrow as pa
    import pyarrow.csv as pc
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    writer: Any = None
    with open(path, "w", encoding="utf-8") if fmt == "jsonl" else open(os.devnull) as lines:
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            y = rng.random(n) < 0.05
            score = rng.standard_normal(n) + 1.5 * y
            labels = np.where(y, "pos", "neg").astype(object)
            if shape == "three":
                labels[(~y) & (rng.random(n) < 0.3)] = "other"
            if shape == "null":
                labels[rng.random(n) < 0.01] = None
            if fmt == "jsonl":
                lines.write("".join(
                    '{"label": ' + ("null" if v is None else f'"{v}"') + f', "score": {s!r}}}\n'
                    for v, s in zip(labels.tolist(), score.tolist(), strict=True)))
                continue
            table = pa.table({"label": pa.array(labels.tolist(), pa.string()), "score": score})
            if writer is None:
                writer = (pc.CSVWriter(path, table.schema) if fmt == "csv"
                          else pq.ParquetWriter(path, table.schema))
            if isinstance(writer, pq.ParquetWriter):
                writer.write_table(table, row_group_size=1 << 20)
            else:
                writer.write_table(table)
    if writer is not None:
        writer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="append", type=float, default=[])
    parser.add_argument("--format", action="append", choices=FORMATS, default=[])
    parser.add_argument("--shape", action="append", choices=SHAPES, default=[])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--before", required=True, help="main's interpreter")
    parser.add_argument("--folder", default="/tmp/prcurve-text-labels")
    parser.add_argument("--clean", action="store_true", help="delete each file after its size")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    print("| format | shape | rows | MiB | command | wall s | CPU s | peak MB | CPU / floor | "
          "load before, after | report.json |")
    print("|:--|:--|--:|--:|:--|--:|--:|--:|--:|:--|:--|", flush=True)
    for fmt in args.format or list(FORMATS):
        for shape in args.shape or list(SHAPES):
            for rows in [int(r) for r in args.rows or [1e4, 1e6]]:
                path = folder / f"{shape}-{rows}.{fmt}"
                if not path.exists():
                    generate(fmt, shape, rows, path)
                extra = [str(path), "--label", "label", "--score", "score", "--positive", "pos",
                         "--format", "json", *(["--drop-invalid"] if shape == "null" else [])]
                commands = {"floor": [sys.executable, "-c", FLOOR, str(path)],
                            "before": [args.before, "-m", "prcurve", "report", *extra],
                            "after": [sys.executable, "-m", "prcurve", "report", *extra]}
                load = os.getloadavg()[0]
                best, outputs = best_of(commands, args.repeat)
                after = os.getloadavg()[0]
                same = ("byte-identical" if outputs["before"] == outputs["after"]
                        else "DIFFERENT")
                for name, (wall, cpu, peak) in best.items():
                    ratio = "-" if name == "floor" else f"{cpu / best['floor'][1]:.2f}x"
                    print(f"| {fmt} | {shape} | {rows:.0e} | {path.stat().st_size / 2**20:,.1f} "
                          f"| {name} | {wall:.2f} | {cpu:.2f} | {peak:,.0f} | {ratio} | "
                          f"{load:.1f}, {after:.1f} | {same if name == 'after' else ''} |",
                          flush=True)
                if args.clean:
                    path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

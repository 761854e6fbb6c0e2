"""Shapes the other benchmarks do not measure (issue 26): whole processes against the peers.

Usage::

    python benchmarks/bench_shapes.py --list                      # the shapes' names
    python benchmarks/bench_shapes.py --trec-eval /tmp/te/trec_eval --repeat 3 [--only NAME ...]
    python benchmarks/bench_shapes.py --only coco --before /work/main/.venv/bin/python

bench_everyday.py times everyday sizes (50 x 1,000 TREC runs, 100 COCO images),
bench_trec.py and bench_ranking.py 10^6-10^7-line runs, bench_detection.py 5,000 COCO
images. This script times the shapes between and beside them that users run (each
shape's name states its size, id cardinality, ties and dtype):

- TREC (``prcurve trec`` against the C trec_eval and a pytrec_eval process, both
  reading the same files; prcurve's output checked identical to the C program's, byte
  for byte, in every shape the C program reads): many shallow topics (5,000 x 10), MS
  MARCO dev's shape (6,980 queries x 1,000), one topic of 10^6 documents, every score
  equal, two score values, ties at every rank, qrels of 10^6 judgments against a run of
  10^4 lines, long string ids (40-byte URLs and 36-byte UUIDs) against numbers, CRLF
  line endings, 17-digit scores, a gzip-compressed run (prcurve only; its output checked
  equal to its output on the plain file), and the options ``-q``, ``-m ndcg_cut.5,10 -m
  P.10``, ``-c``, ``-J``, ``-M 100``;
- ``evaluate_ranking`` from Python on pytrec_eval's dict-of-dicts (10^3 queries x 100)
  and on int64 id arrays, against pytrec_eval's ``RelevanceEvaluator`` given the same
  dicts (both in the timing of one process, imports included);
- COCO boxes (``prcurve coco`` against a faster-coco-eval and a pycocotools process; the
  12 statistics checked equal to 1e-12 against pycocotools', from ``prcurve coco
  --json``): 1,000 categories over 1,000 images (LVIS-like), 1,000 detections an image,
  half the images without ground truth, 10% crowd regions, 10^6 detections, and
  ``--iou-type segm`` on 100 images of polygons.

Every number is one whole process, best of ``--repeat`` (wall: the least; CPU, user +
system from ``wait4``: the least; peak resident set: the largest), rounds alternating
the tools of a shape. Inputs are written under ``--folder`` (default: a temporary
folder, deleted afterwards).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_trec import CHILD_ENV, timed

PY = sys.executable

PYTREC = """
import json, sys
import pytrec_eval
measures = set(json.loads(sys.argv[3]))
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
print(sum(v.get("map", 0.0) for v in result.values()) / max(len(result), 1))
"""

ALL_TREC = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult",
            "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
            "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall",
            "set_map", "set_F", "num_nonrel_judged_ret"]
"""Every measure of all_trec that pytrec_eval has (bench_trec.PYTREC_SCRIPT's)."""

DICTS = """
import sys, time
import numpy as np
tool, n_queries, depth, form = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(0)
# distinct ids of a 5*10^7 collection (7919 is prime to it)
docs = (np.arange(n_queries * depth) * 7919 + 12345) % 50_000_000
docs = docs.reshape(n_queries, depth)
scores = np.round(rng.random((n_queries, depth)) * 20, 4)
rel = ((rng.random((n_queries, depth)) < 0.1).astype(np.int64)
       * rng.integers(1, 3, (n_queries, depth)))
start = time.process_time()
if form == "dicts":
    run = {f"q{q}": {f"d{d}": s for d, s in zip(docs[q].tolist(), scores[q].tolist())}
           for q in range(n_queries)}
    qrels = {f"q{q}": {f"d{d}": r for d, r in zip(docs[q, ::2].tolist(), rel[q, ::2].tolist())}
             for q in range(n_queries)}
built = time.process_time()
if tool == "prcurve":
    import prcurve.ranking as pr
    if form == "dicts":
        result = pr.evaluate(qrels, run, ["map", "ndcg", "P@10", "recall@100"],
                             score_precision="float32")  # pytrec_eval's float32 scores
    else:  # int64 columns: no text at all
        qid = np.repeat(np.arange(n_queries, dtype=np.int64), depth)
        result = pr.evaluate(
            (np.repeat(np.arange(n_queries, dtype=np.int64), (depth + 1) // 2),
             docs[:, ::2].ravel(), rel[:, ::2].ravel()),
            (qid, docs.ravel(), scores.ravel()),
            ["map", "ndcg", "P@10", "recall@100"], score_precision="float32")
    value = result["map"]
else:
    import pytrec_eval
    if form != "dicts":  # pytrec_eval takes dicts of str: built from the same int64 arrays
        run = {str(q): {str(d): s for d, s in zip(docs[q].tolist(), scores[q].tolist())}
               for q in range(n_queries)}
        qrels = {str(q): {str(d): r for d, r in zip(docs[q, ::2].tolist(), rel[q, ::2].tolist())}
                 for q in range(n_queries)}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "P.10", "recall.100"}
                                            ).evaluate(run)
    value = sum(v["map"] for v in result.values()) / len(result)
done = time.process_time()
print(f"map {value:.12f} build {built - start:.3f} evaluate {done - built:.3f}")
"""

COCO = """
import sys
{imports}
gt = COCO(sys.argv[1])
dt = gt.loadRes(sys.argv[2])
e = COCOeval(gt, dt, sys.argv[3])
e.evaluate(); e.accumulate(); e.summarize()
print("STATS " + " ".join(repr(float(v)) for v in e.stats))
"""
PEERS = {"faster-coco-eval": "from faster_coco_eval import COCO, COCOeval_faster as COCOeval",
         "pycocotools": "from pycocotools.coco import COCO\n"
                        "from pycocotools.cocoeval import COCOeval"}


# ---------------------------------------------------------------- the TREC files

def trec_files(folder: Path, name: str, topics: int, docs: int, *, ids: str = "distinct",
               scores: str = "dec4", judged: int | None = None, newline: str = "\n",
               seed: int = 0) -> tuple[Path, Path]:
    """A run of ``topics x docs`` lines and its qrels (``judged`` judgments a topic,
    default docs // 2 + 1, drawn from the run's documents and as many others; 30% of them
    relevant, grades 1-2). ids: "distinct" (``d`` + a number of a 5*10^7 collection,
    about one id a line), "url" (40-byte URLs), "uuid" (36-byte UUIDs), "numeric" (bare
    numbers). scores: "dec4" (4 decimals in [0, 20): few ties), "equal" (every score
    1.5), "two" (0 or 1), "rank_ties" (20 values: runs of ties at every depth),
    "digits17" (float64 ``repr`` of 17 significant digits)."""
    import numpy as np

    qrels_path, run_path = folder / f"{name}.qrels", folder / f"{name}.run"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    judged = docs // 2 + 1 if judged is None else judged
    n = topics * docs
    numbers = rng.choice(50_000_000, size=n + topics * judged, replace=False)

    def names(values: Any) -> list[str]:
        if ids == "url":
            return [f"http://example.org/doc/{v:017d}" for v in values.tolist()]
        if ids == "uuid":
            return [f"{v:08x}-{v % 65521:04x}-4{v % 4093:03x}-a{v % 4091:03x}-{v * 7919:012x}"
                    for v in values.tolist()]
        if ids == "numeric":
            return [str(v) for v in values.tolist()]
        return [f"d{v}" for v in values.tolist()]

    run_docs = numbers[:n].reshape(topics, docs)
    if scores == "equal":
        s = np.full((topics, docs), 1.5)
    elif scores == "two":
        s = (rng.random((topics, docs)) < 0.2).astype(np.float64)
    elif scores == "rank_ties":
        s = np.floor(rng.random((topics, docs)) * 20)
    elif scores == "digits17":
        s = rng.random((topics, docs)) * 20
    else:
        s = np.round(rng.random((topics, docs)) * 20, 4)
    s = -np.sort(-s, axis=1)
    text = [repr(v) if scores == "digits17" else f"{v:g}" for v in s.ravel().tolist()]
    qid = [str(t) for t in range(301, 301 + topics)]
    doc_names = names(run_docs.ravel())
    with open(run_path, "w", newline="") as f:
        k = 0
        for t in range(topics):
            q = qid[t]
            f.writelines(f"{q} Q0 {doc_names[k + r]} {r + 1} {text[k + r]} shapes{newline}"
                         for r in range(docs))
            k += docs
    # Judgments: half of them the run's documents (when the run has that many), the rest
    # documents the run does not retrieve.
    from_run = min(judged // 2, docs)
    judged_docs = np.concatenate([run_docs[:, :from_run],
                                  numbers[n:].reshape(topics, judged)[:, : judged - from_run]],
                                 axis=1)
    grade = np.where(rng.random(judged_docs.shape) < 0.3,
                     rng.integers(1, 3, judged_docs.shape), 0)
    judged_names = names(judged_docs.ravel())
    with open(qrels_path, "w", newline="") as f:
        f.writelines(f"{qid[k // judged]} 0 {d} {g}{newline}"
                     for k, (d, g) in enumerate(zip(judged_names, grade.ravel().tolist(),
                                                    strict=True)))
    return qrels_path, run_path


def gzipped(path: Path) -> Path:
    out = path.with_name(path.name + ".gz")
    if not out.exists():
        with open(path, "rb") as f, gzip.open(out, "wb", compresslevel=6) as g:
            g.write(f.read())
    return out


TrecShape = tuple[str, dict[str, Any], list[str]]
TREC_SHAPES: dict[str, TrecShape] = {
    # name: (file name, trec_files arguments, options)
    "trec shallow: 5,000 topics x 10 docs (5*10^4 lines; distinct 'd'+number ids; 4-decimal "
    "scores)": ("shallow", {"topics": 5000, "docs": 10, "judged": 20}, ["-m", "all_trec"]),
    "trec MS MARCO dev: 6,980 queries x 1,000 docs (7.0*10^6 lines; distinct numeric ids; "
    "4-decimal scores; 1-2 judgments a query)": (
        "msmarco", {"topics": 6980, "docs": 1000, "judged": 2, "ids": "numeric"},
        ["-m", "all_trec"]),
    "trec 10^5 topics x 100 docs (10^7 lines; distinct numeric ids; 4-decimal scores; 1-2 "
    "judgments a topic)": ("wide", {"topics": 100_000, "docs": 100, "judged": 2,
                                    "ids": "numeric"}, ["-m", "all_trec"]),
    "trec one topic x 10^6 docs (distinct ids; 4-decimal scores in [0, 20): ~8*10^5 tied "
    "neighbours; 5*10^5 judgments)": ("deep", {"topics": 1, "docs": 1_000_000}, ["-m", "all_trec"]),
    "trec every score equal: 50 x 1,000 (distinct ids)": (
        "equal", {"topics": 50, "docs": 1000, "scores": "equal"}, ["-m", "all_trec"]),
    "trec two score values (0/1): 50 x 1,000 (distinct ids)": (
        "two", {"topics": 50, "docs": 1000, "scores": "two"}, ["-m", "all_trec"]),
    "trec ties at every rank (20 integer scores): 300 x 1,000 (distinct ids)": (
        "rankties", {"topics": 300, "docs": 1000, "scores": "rank_ties"}, ["-m", "all_trec"]),
    "trec qrels of 10^6 judgments, run of 10^4 lines (100 x 100; distinct ids)": (
        "bigqrels", {"topics": 100, "docs": 100, "judged": 10_000}, ["-m", "all_trec"]),
    "trec 40-byte URL ids: 300 x 1,000 (distinct; 4-decimal scores)": (
        "url", {"topics": 300, "docs": 1000, "ids": "url"}, ["-m", "all_trec"]),
    "trec 36-byte UUID ids: 300 x 1,000 (distinct; 4-decimal scores)": (
        "uuid", {"topics": 300, "docs": 1000, "ids": "uuid"}, ["-m", "all_trec"]),
    "trec numeric ids: 300 x 1,000 (distinct; 4-decimal scores)": (
        "numeric", {"topics": 300, "docs": 1000, "ids": "numeric"}, ["-m", "all_trec"]),
    "trec 'd'+number ids: 300 x 1,000 (distinct; 4-decimal scores)": (
        "dnum", {"topics": 300, "docs": 1000}, ["-m", "all_trec"]),
    "trec CRLF line endings: 300 x 1,000 (distinct ids; 4-decimal scores)": (
        "crlf", {"topics": 300, "docs": 1000, "newline": "\r\n"}, ["-m", "all_trec"]),
    "trec 17-digit scores (float64 repr): 300 x 1,000 (distinct ids)": (
        "digits17", {"topics": 300, "docs": 1000, "scores": "digits17"}, ["-m", "all_trec"]),
    "trec -q (per query): 300 x 1,000 (distinct ids; 4-decimal scores)": (
        "dnum", {"topics": 300, "docs": 1000}, ["-q", "-m", "all_trec"]),
    "trec -m ndcg_cut.5,10 -m P.10: 300 x 1,000": (
        "dnum", {"topics": 300, "docs": 1000}, ["-m", "ndcg_cut.5,10", "-m", "P.10"]),
    "trec -c: 300 x 1,000 (qrels of 330 topics)": (
        "dnum", {"topics": 300, "docs": 1000}, ["-c", "-m", "all_trec"]),
    "trec -J: 300 x 1,000": ("dnum", {"topics": 300, "docs": 1000}, ["-J", "-m", "all_trec"]),
    "trec -M 100: 300 x 1,000": ("dnum", {"topics": 300, "docs": 1000},
                                 ["-M", "100", "-m", "all_trec"]),
    "trec gzip-compressed run: 300 x 1,000 (prcurve on .gz vs on the plain file)": (
        "dnum", {"topics": 300, "docs": 1000}, ["-m", "all_trec"]),
}


def pytrec_measures(options: list[str]) -> list[str] | None:
    """pytrec_eval's measures for the options, None when it has no counterpart."""
    if any(o in options for o in ("-c", "-J", "-M")):
        return None
    wanted = [options[k + 1] for k, o in enumerate(options) if o == "-m"]
    return ALL_TREC if wanted == ["all_trec"] else wanted


Check = Callable[[dict[str, bytes]], str]


def trec_tools(name: str, shape: TrecShape, folder: Path, binary: Path | None,
               python: str, before: str | None, skip: list[str]
               ) -> tuple[dict[str, list[str]], Check]:
    file_name, arguments, options = shape
    qrels, run = trec_files(folder, file_name, **arguments)
    if name.startswith("trec -c"):  # judged topics the run does not have
        extra = folder / "dnum_c.qrels"
        if not extra.exists():
            extra.write_bytes(qrels.read_bytes() + b"".join(
                f"{t} 0 dx{t} 1\n".encode() for t in range(2001, 2031)))
        qrels = extra
    tools: dict[str, list[str]] = {}
    gz = name.startswith("trec gzip")
    target = gzipped(run) if gz else run
    tools["prcurve trec"] = [python, "-m", "prcurve", "trec", *options, str(qrels), str(target)]
    if before is not None:
        tools["prcurve trec [before]"] = [before, *tools["prcurve trec"][1:]]
    if gz:
        tools["prcurve trec, plain file"] = [python, "-m", "prcurve", "trec", *options,
                                             str(qrels), str(run)]
    if binary is not None:
        tools["trec_eval (C)"] = [str(binary), *options, str(qrels), str(run)]
    measures = pytrec_measures(options)
    if measures is not None and "pytrec_eval" not in skip:
        tools["pytrec_eval process"] = [python, "-c", PYTREC, str(qrels), str(run),
                                        json.dumps(measures)]

    def check(outputs: dict[str, bytes]) -> str:
        reference = outputs.get("trec_eval (C)")
        ours = outputs["prcurve trec"]
        if gz and ours != outputs["prcurve trec, plain file"]:
            raise SystemExit(f"{name}: output on the .gz differs from the plain file's")
        if reference is None:
            return "no C trec_eval to compare with"
        for tool, out in outputs.items():
            if tool.startswith("prcurve") and out != reference:
                raise SystemExit(f"{name}: {tool}'s output differs from trec_eval's")
        return f"prcurve's output identical to trec_eval's ({len(reference.splitlines())} lines)"

    return tools, check


# ---------------------------------------------------------------- the COCO files

def coco_files(folder: Path, name: str, images: int, categories: int = 80,
               objects: float = 7.0, dets: int = 100, empty: float = 0.0, crowd: float = 0.01,
               segm: bool = False, seed: int = 0) -> tuple[Path, Path]:
    """A COCO ground truth and results file: ``images`` images, ``categories`` categories
    (Zipf-like frequencies), Poisson(``objects``) boxes an image (none on a share
    ``empty`` of the images), a share ``crowd`` of them crowd regions, ``dets`` detections
    an image (noisy copies of the objects, the rest random boxes; float32 scores);
    ``segm``: every box also a 4-point polygon (its ``segmentation``)."""
    import numpy as np

    gt_path, dt_path = folder / f"{name}.gt.json", folder / f"{name}.dt.json"
    if gt_path.exists() and dt_path.exists():
        return gt_path, dt_path
    rng = np.random.default_rng(seed)
    frequency = 1.0 / np.arange(1, categories + 1) ** 0.9
    frequency /= frequency.sum()
    width, height = 640.0, 480.0
    n_gt = rng.poisson(objects, images) * (rng.random(images) >= empty)
    annotations, results = [], []

    def box() -> list[float]:
        w = float(np.exp(rng.uniform(np.log(8), np.log(300))))
        h = float(np.exp(rng.uniform(np.log(8), np.log(300))))
        return [float(rng.uniform(0, width - w)), float(rng.uniform(0, height - h)), w, h]

    def polygon(b: list[float]) -> list[list[float]]:
        x, y, w, h = b
        return [[x, y, x + w, y, x + w, y + h, x, y + h]]

    for image in range(images):
        objects_here = []
        for _ in range(int(n_gt[image])):
            b = box()
            c = int(rng.choice(categories, p=frequency)) + 1
            a = {"id": len(annotations) + 1, "image_id": image + 1, "category_id": c,
                 "bbox": b, "area": b[2] * b[3] * 0.8,
                 "iscrowd": int(rng.random() < crowd)}
            if segm:
                a["segmentation"] = polygon(b)
            annotations.append(a)
            objects_here.append((b, c))
        for k in range(dets):
            if objects_here and k < 3 * len(objects_here):
                b, c = objects_here[k % len(objects_here)]
                noise = rng.normal(0, 0.1, 4) * [b[2], b[3], b[2], b[3]]
                b = [b[0] + noise[0], b[1] + noise[1], max(b[2] + noise[2], 1.0),
                     max(b[3] + noise[3], 1.0)]
                score = float(np.float32(rng.uniform(0.3, 1.0)))
                if rng.random() < 0.05:
                    c = int(rng.integers(1, categories + 1))
            else:
                b, c = box(), int(rng.choice(categories, p=frequency)) + 1
                score = float(np.float32(rng.uniform(0.0, 0.6)))
            r = {"image_id": image + 1, "category_id": c, "bbox": [round(v, 2) for v in b],
                 "score": score}
            if segm:
                r["segmentation"] = polygon(r["bbox"])
            results.append(r)
    ground_truth = {"images": [{"id": i + 1, "width": 640, "height": 480}
                               for i in range(images)],
                    "annotations": annotations,
                    "categories": [{"id": c + 1, "name": f"c{c + 1}"} for c in range(categories)]}
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    return gt_path, dt_path


COCO_SHAPES: dict[str, tuple[str, dict[str, Any], str]] = {
    "coco LVIS-like: 1,000 categories over 1,000 images (Poisson(7) objects, 100 detections "
    "an image)": ("lvislike", {"images": 1000, "categories": 1000}, "bbox"),
    "coco 1,000 detections an image: 100 images (80 categories; maxDets 100)": (
        "manydets", {"images": 100, "dets": 1000}, "bbox"),
    "coco half the images without ground truth: 1,000 images (80 categories, 100 "
    "detections an image)": ("empty", {"images": 1000, "empty": 0.5}, "bbox"),
    "coco 10% crowd regions: 1,000 images (80 categories, 100 detections an image)": (
        "crowd", {"images": 1000, "crowd": 0.1}, "bbox"),
    "coco 10^6 detections: 1,000 images x 1,000 (80 categories)": (
        "million", {"images": 1000, "dets": 1000}, "bbox"),
    "coco segm (polygons): 100 images (80 categories, 100 detections an image)": (
        "segm", {"images": 100, "segm": True}, "segm"),
}


def coco_tools(name: str, shape: tuple[str, dict[str, Any], str], folder: Path, python: str,
               before: str | None, skip: list[str]) -> tuple[dict[str, list[str]], Callable[
                   [dict[str, bytes]], str]]:
    file_name, arguments, iou_type = shape
    gt, dt = coco_files(folder, file_name, **arguments)
    tools = {"prcurve coco": [python, "-m", "prcurve", "coco", "--iou-type", iou_type,
                              str(gt), str(dt)]}
    if before is not None:
        tools["prcurve coco [before]"] = [before, *tools["prcurve coco"][1:]]
    for peer, imports in PEERS.items():
        if peer not in skip:
            tools[f"{peer} process"] = [python, "-c", COCO.format(imports=imports), str(gt),
                                        str(dt), iou_type]

    def check(outputs: dict[str, bytes]) -> str:
        done = subprocess.run([python, "-m", "prcurve", "coco", "--json", "--iou-type",
                               iou_type, str(gt), str(dt)], capture_output=True, check=True,
                              env=CHILD_ENV)
        ours = list(json.loads(done.stdout)["stats"].values())
        notes = []
        for tool, out in outputs.items():
            if tool.startswith("prcurve"):
                continue
            line = [row for row in out.decode().splitlines() if row.startswith("STATS ")][-1]
            theirs = [float(v) for v in line.split()[1:]]
            worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
            if worst > 1e-12:
                raise SystemExit(f"{name}: statistics differ from {tool}'s by {worst}: "
                                 f"{ours} {theirs}")
            notes.append(f"{tool.split()[0]} {worst:.1e}")
        return "12 statistics equal to 1e-12 (largest difference: " + ", ".join(notes) + ")"

    return tools, check


# ---------------------------------------------------------------- evaluate_ranking

RANKING_SHAPES = {
    "evaluate_ranking, pytrec_eval's dict of dicts: 10^3 queries x 100 (distinct 'd'+number "
    "ids, 4-decimal scores; map, ndcg, P@10, recall@100; the dicts built in the timing)":
    ("1000", "100", "dicts"),
    "evaluate_ranking, int64 id arrays: 10^3 queries x 100 (distinct ids; pytrec_eval given "
    "str dicts built from them)": ("1000", "100", "int64"),
}


def ranking_tools(name: str, shape: tuple[str, str, str], python: str, before: str | None
                  ) -> tuple[dict[str, list[str]], Callable[[dict[str, bytes]], str]]:
    tools = {"prcurve evaluate_ranking": [python, "-c", DICTS, "prcurve", *shape]}
    if before is not None:
        tools["prcurve evaluate_ranking [before]"] = [before, "-c", DICTS, "prcurve", *shape]
    tools["pytrec_eval process"] = [python, "-c", DICTS, "pytrec_eval", *shape]

    def check(outputs: dict[str, bytes]) -> str:
        values = {tool: float(out.split()[1]) for tool, out in outputs.items()}
        reference = values["pytrec_eval process"]
        worst = max(abs(v - reference) for v in values.values())
        if worst > 1e-12:
            raise SystemExit(f"{name}: mean AP differs: {values}")
        return f"mean AP equal to pytrec_eval's (largest difference {worst:.1e})"

    return tools, check



def timed_rounds(name: str, tools: dict[str, list[str]], slow: set[str], folder: Path,
                 repeat: int, slow_repeat: int) -> dict[str, list[dict[str, Any]]]:
    """Each tool's runs: one untimed run each (bytecode caches, page cache), then
    ``repeat`` rounds alternating the tools (the ``slow`` ones in the first
    ``slow_repeat`` rounds only); a tool that fails stops the benchmark."""
    results: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
    for command in tools.values():
        subprocess.run(command, env=CHILD_ENV, capture_output=True, check=False)
    for round_number in range(repeat):
        for tool, command in tools.items():
            if tool in slow and round_number >= slow_repeat:
                continue
            done = timed(command, folder)
            if done["code"] != 0:
                raise SystemExit(f"{name}: {tool} failed: {done['stderr'].decode()[-2000:]}")
            results[tool].append(done)
    return results

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slow-repeat", type=int, default=1,
                        help="runs of the pycocotools and pytrec_eval processes")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    parser.add_argument("--only", nargs="*", default=None, metavar="TEXT",
                        help="only the shapes whose name contains one of these")
    parser.add_argument("--skip", nargs="*", default=[], metavar="TOOL",
                        help="peers left out: pycocotools, faster-coco-eval, pytrec_eval")
    parser.add_argument("--before", default=None, metavar="PYTHON",
                        help="also time every prcurve command with this interpreter")
    parser.add_argument("--folder", default=None, help="keep the inputs here")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--write", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [*TREC_SHAPES, *RANKING_SHAPES, *COCO_SHAPES]
    if args.list:
        print("\n".join(names))
        return
    if args.write:  # the child that writes the inputs (this process stays small)
        folder = Path(args.write[0])
        for name in args.write[1:]:
            if name in TREC_SHAPES:
                trec_files(folder, TREC_SHAPES[name][0], **TREC_SHAPES[name][1])
            elif name in COCO_SHAPES:
                coco_files(folder, COCO_SHAPES[name][0], **COCO_SHAPES[name][1])
        return
    chosen = [n for n in names if args.only is None or any(t in n for t in args.only)]
    binary = Path(args.trec_eval) if args.trec_eval else None
    if binary is None:
        print("# trec_eval: skipped (give --trec-eval PATH or set TREC_EVAL)")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.folder or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        # Written by a child: a forked child's peak resident set counts its parent's.
        subprocess.run([PY, __file__, "--write", str(folder), *chosen], check=True)
        print(f"# load average before: {os.getloadavg()}", flush=True)
        rows = []
        for name in chosen:
            if name in TREC_SHAPES:
                tools, check = trec_tools(name, TREC_SHAPES[name], folder, binary, PY,
                                          args.before, args.skip)
            elif name in RANKING_SHAPES:
                tools, check = ranking_tools(name, RANKING_SHAPES[name], PY, args.before)
            else:
                tools, check = coco_tools(name, COCO_SHAPES[name], folder, PY, args.before,
                                          args.skip)
            slow = {t for t in tools if t.startswith(("pycocotools", "pytrec_eval"))}
            results = timed_rounds(name, tools, slow, folder, args.repeat, args.slow_repeat)
            note = check({tool: runs[-1]["stdout"] for tool, runs in results.items()})
            print(f"# {name}: {note}", flush=True)
            rows.append((name, results))
        print(f"# load average after: {os.getloadavg()}; CPU cores: {os.cpu_count()}; "
              f"{platform.platform()}; Python {platform.python_version()}; best of "
              f"{args.repeat} ({args.slow_repeat} for pycocotools and pytrec_eval)\n")
    print_table(rows)


def print_table(rows: list[tuple[str, dict[str, list[dict[str, Any]]]]], *,
                milliseconds: bool = False) -> None:
    """The markdown table of the rows (shape, {tool: timed runs}): each tool's best wall
    and CPU time, peak RSS, and its ratios to the first tool's (prcurve's)."""
    unit, scale, digits = ("ms", 1e3, 0) if milliseconds else ("s", 1.0, 3)
    print(f"| shape | tool | wall {unit} | CPU {unit} | peak RSS MiB | wall / prcurve's | "
          "CPU / prcurve's |")
    print("|:--|:--|--:|--:|--:|--:|--:|")
    for name, results in rows:
        first = next(iter(results.values()))
        base, base_cpu = min(r["wall"] for r in first), min(r["cpu"] for r in first)
        for tool, runs in results.items():
            wall, cpu = min(r["wall"] for r in runs), min(r["cpu"] for r in runs)
            rss = max(r["rss"] for r in runs)
            print(f"| {name} | {tool} | {wall * scale:.{digits}f} | {cpu * scale:.{digits}f} | "
                  f"{rss:.0f} | {wall / base:.2f}x | {cpu / base_cpu:.2f}x |", flush=True)


if __name__ == "__main__":
    main()

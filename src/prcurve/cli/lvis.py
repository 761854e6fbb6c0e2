"""The ``prcurve lvis`` command: lvis-api's federated LVIS evaluation.

``prcurve lvis GT.json DT.json [--iou-type bbox|segm]`` prints the 13 lines
lvis-api's ``LVISEval.print_results()`` prints (AP, AP50, AP75, APs/m/l,
APr/c/f, AR@300 and by area). ``--json`` prints the report as JSON instead;
``--per-class`` adds each category's AP and best-F1 threshold; ``--out DIR``
writes report.json, per_class.csv, pr_iou.png and pr_classes.png (as ``prcurve
coco`` does; ``--no-plots`` leaves the plots out). Bad input
(an LVIS field missing, say) is one line on standard error and exit status 2.
Usage: docs/cli.md, protocol: docs/detection.md.

Examples
--------
>>> from prcurve.cli import main
>>> main(["lvis", "no-such-gt.json", "no-such-dt.json"])  # the error goes to stderr
2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from prcurve.cli.common import guard as _guard
from prcurve.cli.detection import (
    _coco_class_lines,
    _csv,
    _emit,
    _flat,
    _integer,
    _out_folder,
    _plot,
    _write,
)
from prcurve.validation import boxes as _checks

__all__ = ["register", "run_lvis"]


def register(subparsers: Any) -> None:
    """Add the ``lvis`` subcommand to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "lvis",
        help="LVIS federated evaluation (AP, APr/APc/APf), lvis-api's printed results",
        description=(
            "Evaluate LVIS results against an LVIS annotation file with lvis-api's federated "
            "protocol (neg_category_ids, not_exhaustive_category_ids, 300 detections per "
            "image) and print the 13 lines LVISEval.print_results() prints. See "
            "docs/detection.md."
        ),
    )
    parser.add_argument("ground_truth", metavar="GT.json",
                        help="LVIS annotation file: images (with neg_category_ids and "
                        "not_exhaustive_category_ids), annotations, categories (with frequency)")
    parser.add_argument("detections", metavar="DT.json",
                        help="results: a list of {image_id, category_id, bbox and/or "
                        "segmentation, score}")
    parser.add_argument("--iou-type", default="bbox", metavar="TYPE",
                        help="bbox (default) or segm (each annotation's and result's "
                        "'segmentation', as LVISEval's 'segm')")
    parser.add_argument("--max-dets", default="300", metavar="N",
                        help="detections kept per image, across categories (default 300)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON instead of the summary")
    parser.add_argument("--out", metavar="DIR",
                        help="write report.json, per_class.csv and the plots (pr_iou.png, "
                        "pr_classes.png) to DIR")
    parser.add_argument("--no-plots", action="store_true",
                        help="with --out, write report.json and per_class.csv but no plots")
    parser.add_argument("--per-class", action="store_true",
                        help="also print AP, AP50, AP75 and the best-F1 score threshold per "
                        "class")
    parser.set_defaults(handler=run_lvis)


def _lvis(args: argparse.Namespace) -> int:
    from prcurve.detection import evaluate_lvis

    iou_type = _checks.check_choice("--iou-type", args.iou_type, ("bbox", "segm"))
    max_dets = _integer("--max-dets", args.max_dets, 1)
    out = _out_folder(args)
    evaluation = evaluate_lvis(args.ground_truth, args.detections, iou_type=iou_type,
                               max_dets=max_dets)
    report = evaluation.to_dict()
    report["inputs"] = {"ground_truth": args.ground_truth, "detections": args.detections}
    if out is not None:
        # The plots of the same matched detections as a COCO evaluation (LVISEvaluation.coco):
        # lvis-api's precision array, one max_dets.
        figures = [] if args.no_plots else [
            ("pr_iou.png", lambda: _plot(evaluation.coco.plot_iou_curves)),
            ("pr_classes.png", lambda: _plot(evaluation.coco.plot_class_curves))]
        _write(out, report, _csv([_flat(row) for row in report["per_category"]]), figures,
               [Path(args.ground_truth), Path(args.detections)])
    if args.json:
        _emit(json.dumps(report, indent=2, allow_nan=False) + "\n")
        return 0
    lines = evaluation.summary().splitlines()
    if args.per_class:
        lines.append("")
        lines.extend(_coco_class_lines(report))
    _emit("\n".join(lines) + "\n")
    return 0


def run_lvis(args: argparse.Namespace) -> int:
    """The ``lvis`` handler: returns the exit status."""
    return _guard(lambda: _lvis(args))

"""The ``prcurve coco`` and ``prcurve voc`` commands.

``prcurve coco GT.json DT.json`` prints the 12 lines pycocotools'
``COCOeval.summarize()`` prints (same labels, same 3-decimal numbers) for the
box protocol; ``prcurve voc GT.json DT.json`` prints PASCAL VOC's mAP and the
AP of each class. Both read COCO JSON (the instances file and the results
list). ``--json`` prints the report as JSON instead; ``--out DIR`` writes
report.json, per_class.csv and the plots; ``--bootstrap N`` adds image-level
intervals for mAP and AP50 (COCO). Bad input is one line on standard error
and exit status 2. Usage: docs/cli.md, protocols: docs/detection.md.

Examples
--------
>>> from prcurve.cli import main
>>> main(["coco", "no-such-gt.json", "no-such-dt.json"])  # the error goes to stderr
2
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, cast

from prcurve.cli.common import UsageError as _UsageError
from prcurve.cli.common import guard as _guard
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks

# What only --out needs (prcurve.cli.report, prcurve.present.files, the CSV writer,
# prcurve.validation.files) is imported where it is used: a plain `prcurve coco` prints
# the summary and loads none of it (issue 26, item 2; tests/test_coco_startup.py).

__all__ = ["register", "run_coco", "run_voc"]

DPI = 150


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ground_truth", metavar="GT.json",
                        help="COCO instances file: images, annotations, categories")
    parser.add_argument("detections", metavar="DT.json", nargs="+",
                        help="COCO results file: a list of {image_id, category_id, bbox, score}; "
                        "two or more files are compared (the verdict, docs/detection.md)")
    parser.add_argument("--baseline", default=None, metavar="NAME",
                        help="with several DT.json, compare each with detector NAME (its file "
                        "name without .json; default: all pairs)")
    parser.add_argument("--correction", default="holm", metavar="NAME",
                        help="correction of the comparisons' p-values: holm (default), "
                        "bonferroni, bh or none")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON instead of the summary")
    parser.add_argument("--out", metavar="DIR",
                        help="write report.json, per_class.csv and the plots to DIR")
    parser.add_argument("--no-plots", action="store_true",
                        help="with --out, write report.json and per_class.csv but no plots")
    parser.add_argument("--bootstrap", default=None, metavar="N",
                        help="add image-level bootstrap intervals for mAP (and AP50 for COCO) "
                        "with N resamples")
    parser.add_argument("--level", default="0.95", metavar="L",
                        help="confidence level of the bootstrap intervals (default 0.95)")
    parser.add_argument("--seed", default="0", metavar="S",
                        help="seed of the bootstrap resamples (default 0)")
    parser.add_argument("--interval", default="percentile", metavar="KIND",
                        help="percentile (default) or basic: the bootstrap interval "
                        "(docs/detection.md)")


def register(subparsers: Any) -> None:
    """Add the ``coco`` and ``voc`` subcommands to an argparse subparsers object."""
    coco = subparsers.add_parser(
        "coco",
        help="COCO evaluation of boxes, masks or keypoints (mAP, AP50, ...), pycocotools' summary",
        description=(
            "Evaluate COCO-format detections against COCO ground truth with COCO's box "
            "protocol and print the 12 lines pycocotools' COCOeval.summarize() prints. "
            "See docs/detection.md."
        ),
    )
    _common(coco)
    coco.add_argument("--iou-type", default="bbox", metavar="TYPE",
                      help="bbox (default); segm: instance masks (each annotation's and "
                           "result's 'segmentation', as COCOeval's 'segm'); keypoints: OKS of "
                           "each 'keypoints' (COCO's 17 sigmas, 20 detections per image, "
                           "the 10-line summary)")
    coco.add_argument("--per-class", action="store_true",
                      help="also print AP, AP50, AP75 and the best-F1 score threshold per class")
    coco.add_argument("--errors", action="store_true",
                      help="also print TIDE's error breakdown: the AP (points, 0-100) gained by "
                           "fixing each error type (Cls, Loc, Both, Dupe, Bkg, Miss; foreground "
                           "IoU 0.5, background 0.1) and the FalsePos/FalseNeg oracles, as the "
                           "tidecv package computes them (bbox or segm)")
    coco.add_argument("--confusion", action="store_true",
                      help="also print the per-class confusion matrix with a background row "
                           "and column (rows: ground truth; with --out: confusion.png; bbox "
                           "or segm)")
    coco.add_argument("--confusion-iou", default="0.5", metavar="T",
                      help="IoU a detection needs to take a ground-truth object in the "
                           "confusion matrix (default 0.5)")
    coco.add_argument("--confusion-score", default="0.5", metavar="S",
                      help="detections scored below S are left out of the confusion matrix "
                           "(default 0.5)")
    coco.set_defaults(handler=run_coco)

    voc = subparsers.add_parser(
        "voc",
        help="PASCAL VOC evaluation (AP at IoU >= 0.5 per class, mAP)",
        description=(
            "Evaluate COCO-format detections against ground truth with PASCAL VOC's protocol "
            "(difficult objects ignored, duplicates false positives) and print mAP and each "
            "class's AP. See docs/detection.md."
        ),
    )
    _common(voc)
    voc.add_argument("--iou-threshold", default="0.5", metavar="T",
                     help="minimum overlap of a match (default 0.5)")
    voc.add_argument("--ap-method", default="interpolated", metavar="METHOD",
                     help="interpolated (VOC 2010+ all-point, default) or 11point (VOC 2007)")
    voc.add_argument("--continuous-pixels", action="store_true",
                     help="no '+ 1' in widths and heights (the devkit counts pixels inclusively)")
    voc.add_argument("--ties", default="grouped", metavar="HOW",
                     help="tied scores in the AP: grouped (default; one point per distinct "
                     "score, prcurve's convention) or file-order (one point per detection, "
                     "tied ones in the order of DT.json: the devkit's VOCevaldet.m, its "
                     "numbers exactly; with --bootstrap only grouped)")
    voc.set_defaults(handler=run_voc)


# -- options ------------------------------------------------------------------------------


def _number(option: str, text: str, low: float, high: float, *, open_low: bool = False,
            open_high: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    ok = math.isfinite(value) and (value > low if open_low else value >= low) and (
        value < high if open_high else value <= high)
    if not ok:
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        raise _UsageError(f"{option}: expected a number in {interval}, found {text!r}")
    return value


def _integer(option: str, text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low:
        raise _UsageError(f"{option}: expected an integer >= {low}, found {text!r}")
    return value


# -- output ------------------------------------------------------------------------------


def _out_folder(args: argparse.Namespace) -> Path | None:
    """``--out`` checked (neither is, holds nor lies inside an input) and created."""
    if args.out is None:
        return None
    from prcurve.cli.report import prepare_out
    from prcurve.validation.files import check_out_folder

    detections = [args.detections] if isinstance(args.detections, str) else args.detections
    check_out_folder(args.out, [args.ground_truth, *detections])
    return prepare_out(args.out)


def _emit(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`
        pass


def _write(out: Path, report: dict[str, Any], table_csv: str, figures: list[tuple[str, Any]],
           inputs: list[Path]) -> list[Path]:
    """per_class.csv, the plots and report.json, all or none (present.files.write_files);
    then the files an earlier run listed in report.json and this one does not write."""
    import matplotlib.pyplot as plt

    from prcurve.present.files import figure_writer, remove_stale, stale_outputs, write_files
    from prcurve.present.style import drawing_style

    with drawing_style():  # matplotlib's defaults, not the user's (saved so too)
        drawn = [(name, make()) for name, make in figures]
    try:
        files = [("per_class.csv", lambda temp: temp.write_text(table_csv, encoding="utf-8"))]
        files.extend((name, figure_writer(figure, name, dpi=DPI)) for name, figure in drawn)
        report = dict(report, files=[name for name, _ in files] + ["report.json"])
        text = json.dumps(report, indent=2, allow_nan=False) + "\n"
        files.append(("report.json", lambda temp: temp.write_text(text, encoding="utf-8")))
        stale = stale_outputs(out, [name for name, _ in files], _OUTPUT_PATTERNS)
        written = write_files(out, files, inputs=inputs)
    finally:
        for _, figure in drawn:
            plt.close(figure)
    remove_stale(stale, inputs)
    for path in written:
        print(f"prcurve: wrote {path}", file=sys.stderr)
    return written


_OUTPUT_PATTERNS = ("per_class.csv", "pr_iou.png", "pr_classes.png", "report.json")
"""The names ``coco`` and ``voc`` write: an earlier run's that a later one does not
write are removed (docs/report.md, "Files")."""


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return str(value)


def _csv(rows: list[dict[str, Any]]) -> str:
    """Comma-separated rows; a name is quoted when it holds a comma, a quote, a line feed
    or a carriage return (:func:`prcurve.core.csv_writers.csv_cell`)."""
    from prcurve.core.csv_writers import csv_line

    columns = list(rows[0]) if rows else []

    lines = [csv_line(columns)]
    lines.extend(csv_line("" if row[c] is None else _fmt(row[c]) for c in columns)
                 for row in rows)
    return "\n".join(lines) + "\n"


def _bootstrap_options(args: argparse.Namespace) -> tuple[int | None, float, int, str]:
    from prcurve.detection.protocol import INTERVALS

    resamples = None if args.bootstrap is None else _integer("--bootstrap", args.bootstrap, 1)
    if resamples is not None:  # the most any interval allows, before reading the files
        _checks.check_n_resamples(resamples, name="--bootstrap")
    level = _number("--level", args.level, 0.0, 1.0, open_low=True, open_high=True)
    seed = _integer("--seed", args.seed, 0)
    kind = _checks.check_choice("--interval", args.interval, INTERVALS)
    return resamples, level, seed, kind


def _add_intervals(evaluation: Any, statistics: tuple[str, ...], options: tuple[
        int | None, float, int, str], report: dict[str, Any], lines: list[str]) -> None:
    """Bootstrap intervals into the report and the printed lines (when asked for)."""
    resamples, level, seed, kind = options
    if resamples is None:
        return
    from prcurve.detection.bootstrap import bootstrap_detection, resample_bytes

    # The image weights of every resample in memory at once: the limit for these images.
    _checks.check_n_resamples(resamples, name="--bootstrap",
                              bytes_each=resample_bytes(evaluation.n_images),
                              held=f"3 int64 weights for each of {evaluation.n_images} image(s)")
    intervals = bootstrap_detection(evaluation, statistics=statistics, n_resamples=resamples,
                                    level=level, seed=seed, interval=kind)
    report["intervals"] = {
        name: {"statistic": ci.statistic, "estimate": ci.estimate, "lower": ci.lower,
               "upper": ci.upper, "method": ci.method, "level": ci.level,
               "n_resamples": ci.n_resamples}
        for name, ci in intervals.items()}
    for name, ci in intervals.items():
        lines.append(f" {name:<5} {ci.estimate:0.3f}, {100 * level:g}% interval "
                     f"[{ci.lower:0.3f}, {ci.upper:0.3f}] ({ci.method}, "
                     f"{ci.n_resamples} resamples, seed {seed})")


# -- coco ---------------------------------------------------------------------------------


def _coco(args: argparse.Namespace) -> int:
    from prcurve.detection import evaluate_coco

    iou_type = _checks.check_iou_type(args.iou_type)
    for option, asked in (("--errors", args.errors), ("--confusion", args.confusion)):
        if asked:  # before the files are read
            _keypoint_checks.check_not_keypoints(option, iou_type)
    options = _bootstrap_options(args)
    if len(args.detections) > 1 or args.baseline is not None:
        return _several(args, options, ("mAP", "AP50"), lambda dt: evaluate_coco(
            args.ground_truth, dt, iou_type=iou_type))
    args.detections = args.detections[0]
    out = _out_folder(args)
    inputs = [Path(args.ground_truth), Path(args.detections)]
    evaluation = evaluate_coco(args.ground_truth, args.detections, iou_type=iou_type)
    # The full report (per category: every AP and the best-F1 point, two fifths of a
    # 100-image run) only when something shows it: the summary alone does not.
    wanted = args.per_class or out is not None or args.json
    report = evaluation.to_dict() if wanted else {}
    report["inputs"] = {"ground_truth": args.ground_truth, "detections": args.detections}
    lines = evaluation.summary().splitlines()
    _add_intervals(evaluation, ("mAP", "AP50"), options, report, lines)
    if args.per_class:
        lines.append("")
        lines.extend(_coco_class_lines(report))
    confusion = None
    if args.confusion:
        confusion = evaluation.confusion_matrix(
            iou_threshold=_number("--confusion-iou", args.confusion_iou, 0.0, 1.0),
            score_threshold=_number("--confusion-score", args.confusion_score, -math.inf,
                                    math.inf))
        report["confusion"] = confusion.to_dict()
        lines.extend(["", confusion.text()])
    errors = None
    if args.errors:
        errors = evaluation.errors()
        report["errors"] = errors.to_dict()
        lines.extend(["", "TIDE errors (Bolya et al., ECCV 2020)", errors.summary()])
    if out is not None:
        figures = [] if args.no_plots else [
            ("pr_iou.png", lambda: _plot(evaluation.plot_iou_curves)),
            ("pr_classes.png", lambda: _plot(evaluation.plot_class_curves))]
        if confusion is not None and not args.no_plots:
            figures.append(("confusion.png", lambda: _plot(confusion.plot)))
        if errors is not None and not args.no_plots:
            figures.append(("errors.png", lambda: _plot(errors.plot)))
        _write(out, report, _csv([_flat(row) for row in report["per_category"]]), figures,
               inputs)
    if args.json:
        _emit(json.dumps(report, indent=2, allow_nan=False) + "\n")
    else:
        _emit("\n".join(lines) + "\n")
    return 0


def _plot(draw: Any) -> Any:
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        matplotlib.use("Agg")
    return draw()


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    """A per-category row with its best-F1 point as four columns."""
    flat = {k: v for k, v in row.items() if not isinstance(v, dict)}
    best = row.get("best_f1", {})
    for key in ("threshold", "f1", "precision", "recall"):
        flat[f"best_f1_{key}"] = best.get(key)
    return flat


def _coco_class_lines(report: dict[str, Any]) -> list[str]:
    rows = report["per_category"]
    width = max([len(str(r["name"])) for r in rows] + [8])

    def show(value: Any) -> str:
        return "    -" if value is None else f"{value:0.3f}"

    header = (f" {'category':<{width}}  {'AP':>5}  {'AP50':>5}  {'AP75':>5}  {'n_gt':>6}  "
              f"best F1 at score (precision, recall)")
    lines = [header]
    for r in rows:
        best = r["best_f1"]
        point = ("-" if best["threshold"] is None else
                 f"{best['f1']:0.3f} at {best['threshold']:.4g} "
                 f"({best['precision']:0.3f}, {best['recall']:0.3f})")
        lines.append(f" {r['name']!s:<{width}}  {show(r['AP'])}  {show(r.get('AP50'))}  "
                     f"{show(r.get('AP75'))}  {r['n_gt']:>6}  {point}")
    from prcurve.detection.protocol import similarity_name

    kind = similarity_name(str(report.get("iou_type", "bbox")))
    lines.append(f" ({kind} 0.50 for best F1; AP per class: mean over {kind} 0.50:0.95, "
                 "101-point)")
    return lines


def _detector_names(paths: list[str]) -> list[str]:
    """Each detection file's name without .json; the path where two files share a name."""
    stems = [Path(p).name.removesuffix(".json") for p in paths]
    return [stem if stems.count(stem) == 1 else path for stem, path in zip(
        stems, paths, strict=True)]


def _several(args: argparse.Namespace, options: tuple[int | None, float, int, str],
             statistics: tuple[str, ...], evaluate: Any, **plot_options: Any) -> int:
    """Several detection files: each one's summary, then the verdict (the image bootstrap
    of :func:`prcurve.detection.compare_detectors`, corrected across detectors)."""
    from prcurve.detection import compare_detectors
    from prcurve.present.verdict import text_lines
    from prcurve.space.model_comparison import model_pairs, verdict_of
    from prcurve.validation.significance import check_model_baseline

    names = _detector_names(list(args.detections))
    baseline = check_model_baseline("--baseline", args.baseline, names, "detectors")
    correction = _checks.check_choice("--correction", args.correction,
                                      ("holm", "bonferroni", "bh", "none"))
    out = _out_folder(args)
    inputs = [Path(args.ground_truth), *map(Path, args.detections)]
    evaluations = {name: evaluate(path) for name, path in zip(names, args.detections,
                                                              strict=True)}
    resamples, level, seed, kind = options
    b = 1000 if resamples is None else resamples
    results = [(statistic, a, other, compare_detectors(
        evaluations[a], evaluations[other], statistic=statistic, n_resamples=b, level=level,
        seed=seed, interval=kind)) for statistic in statistics
        for a, other in model_pairs(names, baseline)]
    verdict = verdict_of(results, models=names, baseline=baseline,
                         method=f"paired {kind} bootstrap of images "
                         "(prcurve.detection.compare_detectors)", correction=cast(Any, correction),
                         level=level, resamples=b, seed=seed).to_dict()
    detectors: dict[str, Any] = {}
    lines: list[str] = []
    for name, path in zip(names, args.detections, strict=True):
        evaluation = evaluations[name]
        report = evaluation.to_dict()
        report["inputs"] = {"ground_truth": args.ground_truth, "detections": path}
        lines.extend(["", f"detector {name} ({path})"] if lines
                     else [f"detector {name} ({path})"])
        own = evaluation.summary().splitlines()
        _add_intervals(evaluation, statistics, options, report, own)
        if getattr(args, "per_class", False):  # coco's --per-class, for each detector
            own.extend(["", *_coco_class_lines(report)])
        lines.extend(own)
        detectors[name] = report
    lines.extend(["", *text_lines(verdict)])
    combined = {"detectors": detectors, "comparison": verdict}
    if out is not None:
        rows = [{"detector": name, **_flat(row)} for name, report in detectors.items()
                for row in report["per_category"]]
        figures = [] if args.no_plots else [
            (f"pr_classes_{_file_part(name)}.png",
             (lambda e: lambda: _plot(lambda: e.plot_class_curves(**plot_options)))(
                 evaluations[name]))
            for name in names]
        _write(out, combined, _csv(rows), figures, inputs)
    if args.json:
        _emit(json.dumps(combined, indent=2, allow_nan=False) + "\n")
    else:
        _emit("\n".join(lines) + "\n")
    return 0


def _file_part(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "detector"


def run_coco(args: argparse.Namespace) -> int:
    """The ``coco`` handler: returns the exit status."""
    return _guard(lambda: _coco(args))


# -- voc ----------------------------------------------------------------------------------


def _voc(args: argparse.Namespace) -> int:
    from prcurve.detection import evaluate_voc
    from prcurve.detection.protocol import VOC_AP_METHODS
    from prcurve.detection.voc import VOC_TIES

    threshold = _number("--iou-threshold", args.iou_threshold, 0.0, 1.0)
    method = _checks.check_choice("--ap-method", args.ap_method, VOC_AP_METHODS)
    ties = _checks.check_choice("--ties", args.ties, VOC_TIES)
    options = _bootstrap_options(args)
    if ties != "grouped" and options[0] is not None:
        raise _UsageError("--ties: file-order with --bootstrap; the bootstrap resamples tie "
                          "groups. Drop one of them")
    if len(args.detections) > 1 or args.baseline is not None:
        return _several(args, options, ("mAP",), lambda dt: evaluate_voc(
            args.ground_truth, dt, iou_threshold=threshold, ap_method=method,
            inclusive_pixels=not args.continuous_pixels), iou_threshold=threshold)
    args.detections = args.detections[0]
    out = _out_folder(args)
    inputs = [Path(args.ground_truth), Path(args.detections)]
    evaluation = evaluate_voc(args.ground_truth, args.detections, iou_threshold=threshold,
                              ap_method=method, inclusive_pixels=not args.continuous_pixels,
                              ties=ties)
    report = evaluation.to_dict()
    report["inputs"] = {"ground_truth": args.ground_truth, "detections": args.detections}
    lines = evaluation.summary().splitlines()
    _add_intervals(evaluation, ("mAP",), options, report, lines)
    if out is not None:
        _write(out, report, _csv([_flat(row) for row in report["per_category"]]),
               [] if args.no_plots else [
                   ("pr_classes.png", lambda: _plot(lambda: evaluation.plot_class_curves(
                       iou_threshold=threshold)))],
               inputs)
    if args.json:
        _emit(json.dumps(report, indent=2, allow_nan=False) + "\n")
    else:
        _emit("\n".join(lines) + "\n")
    return 0


def run_voc(args: argparse.Namespace) -> int:
    """The ``voc`` handler: returns the exit status."""
    return _guard(lambda: _voc(args))

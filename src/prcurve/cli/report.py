"""The ``prcurve report`` command: files of labels and scores to a report.

``register(subparsers)`` adds it to the ``prcurve`` command line; it sets
``handler``, a function of the parsed arguments that returns the exit status:
0 done, 1 a ``--fail-under`` gate failed, 2 bad input (one line on standard
error, never a traceback). :func:`prcurve.cli.main` runs them. Usage: docs/cli.md.

Examples
--------
>>> from prcurve.cli import main
>>> main(["report", "no-such-file.csv"])  # the error goes to stderr
2
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import IO, Any

from prcurve.cli.common import guard, is_terminal, say
from prcurve.core.average_precision import AP_METHODS
from prcurve.core.safe_files import check_writable_folder
from prcurve.validation.arrays import check_choice
from prcurve.validation.files import (
    bad_option,
    check_distinct_labels,
    check_out_folder,
    classes_in_memory_only,
    classes_need_exact,
    unwritable_output,
)
from prcurve.validation.paths import check_distinct_files, check_pictures_setting
from prcurve.validation.space import check_n_resamples
from prcurve.validation.workers import check_workers

__all__ = [
    "MAX_BINS",
    "STREAM_ABOVE_BYTES",
    "add_output_options",
    "check_output_options",
    "execute",
    "prepare_out",
    "register",
    "run_report",
]

STREAM_ABOVE_BYTES = 512 << 20
"""``prcurve report`` streams a file larger than this (and any folder) without --stream."""

MAX_BINS = 1 << 26
"""The most bins ``--bins`` and ``--switch-bins`` accept (67,108,864: about 1.6 GB of
edges and counts); more would exhaust memory rather than bin more finely."""


# -- arguments ----------------------------------------------------------------------------


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ap-method", default="step", metavar="METHOD",
        help=f"the headline AP method: {', '.join(AP_METHODS)} (default step; every method "
        "is in report.json)",
    )
    parser.add_argument("--beta", default="1", metavar="B",
                        help="F-beta for the best threshold and the iso-F lines (default 1)")
    parser.add_argument("--bins", default=None, metavar="N",
                        help="use the binned curve: N equal-width bins over the observed scores")
    parser.add_argument("--recall-level", default="0.9", metavar="R",
                        help="report the precision at recall >= R (default 0.9)")
    parser.add_argument("--precision-level", default="0.9", metavar="P",
                        help="report the recall at precision >= P (default 0.9)")
    parser.add_argument("--ci", default=None, metavar="LEVEL",
                        help="bootstrap confidence interval of the headline AP at LEVEL, e.g. "
                        "0.95; 'none' for no interval (default: 0.95 when the curve has at most "
                        "100000 thresholds, noted otherwise)")
    parser.add_argument("--resamples", default="1000", metavar="N",
                        help="bootstrap resamples for --ci (default 1000; seed 0)")
    parser.add_argument("--format", default="text", metavar="FORMAT",
                        help="standard output: text (default), json or csv")
    parser.add_argument(
        "--fail-under", action="append", default=[], metavar="METRIC=VALUE",
        help="exit 1 when a model's METRIC is below VALUE (repeatable); METRIC: ap, "
        "ap_<method>, aucpr, normalized_ap, aucnpr, best_f, precision_at_recall, "
        "recall_at_precision",
    )
    parser.add_argument("--no-plots", action="store_true",
                        help="with --out, write report.json and the curves but no plots and "
                        "no report.html")


def register(subparsers: Any) -> None:
    """Add the ``report`` subcommand to an argparse subparsers object."""
    report = subparsers.add_parser(
        "report",
        help="from files of labels and scores to a report with plots",
        description=(
            "Read labels and model scores (CSV, TSV, Parquet, JSON Lines or .npz) and report, "
            "per model, AP with its method, the Davis-Goadrich area, the unachievable-region "
            "bounds, the best-F threshold, precision at a recall and recall at a precision. "
            "See docs/cli.md."
        ),
    )
    report.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="files with one row per sample; each score column is a model")
    report.add_argument("--label", action="append", default=None, metavar="COL",
                        help="label column (default: label, y, y_true, target or truth); "
                        "repeat it for a multi-label input, one 0/1 column per class")
    report.add_argument("--score", action="append", default=[], metavar="COL",
                        help="score column, one per model (repeatable; default: every other "
                        "numeric column)")
    report.add_argument("--weight", metavar="COL", help="column of sample weights")
    report.add_argument("--positive", metavar="VALUE",
                        help="label value of the positive class (needed unless labels are "
                        "0/1, -1/1 or booleans)")
    report.add_argument("--drop-invalid", action="store_true",
                        help="skip rows with a missing, NaN or non-numeric score, label or "
                        "weight, and count them in the report")
    report.add_argument("--input-format", metavar="FORMAT",
                        help="csv, tsv, parquet, jsonl or npz, when the file name does not say")
    report.add_argument("--delimiter", metavar="CHAR",
                        help="CSV/TSV: the character between fields, e.g. ';' or tab (default: "
                        "found from the first lines: ',' or tab, else ';', tab or '|')")
    report.add_argument("--decimal", default=".", metavar="MARK",
                        help="CSV/TSV: the decimal mark of the numbers, '.' (default) or ',' "
                        "for numbers written 0,93")
    report.add_argument("--out", metavar="DIR",
                        help="write report.json, curve_<model>.csv, pr_curve.png/.svg, "
                        "threshold.png and the interactive report.html to DIR")
    report.add_argument("--baseline", default=None, metavar="NAME",
                        help="with two or more models, compare each with model NAME (default: "
                        "all pairs): the AP difference, its paired bootstrap interval and "
                        "p-value (docs/report.md)")
    report.add_argument("--correction", default="holm", metavar="NAME",
                        help="multiple-testing correction of the comparisons' p-values: holm "
                        "(default), bonferroni, bh or none")
    scale = report.add_argument_group("large inputs (docs/scale.md)")
    scale.add_argument("--stream", action="store_true",
                       help="read the inputs in batches, memory bounded by the count state "
                       "(automatic for a folder and for files over "
                       f"{STREAM_ABOVE_BYTES >> 20} MiB)")
    scale.add_argument("--max-distinct", default=None, metavar="N",
                       help="when streaming, keep a model exact up to N distinct scores, then "
                       "switch to bins (default 4194304 = 2^22; 'none' for no limit)")
    scale.add_argument("--switch-bins", default=None, metavar="N",
                       help="the equal-width bins after such a switch, over the full score "
                       "range (default 1048576 = 2^20)")
    scale.add_argument("--dask", default=None, metavar="ADDRESS",
                       help="compute the counts of Parquet inputs on the Dask scheduler at "
                       "ADDRESS (e.g. tcp://10.0.0.5:8786)")
    scale.add_argument("--workers", default=None, metavar="N",
                       help="count Parquet inputs on N local worker processes (no Dask); "
                       "for one worker, under 4 cores or under 2^23 rows, one process is "
                       "faster and runs instead, the same numbers (docs/scale.md; the report "
                       "says so)")
    add_output_options(report)
    report.set_defaults(handler=run_report)


# -- option checks -------------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> Any:
    from prcurve.present.report import ReportSettings

    method = check_choice("--ap-method", args.ap_method, AP_METHODS)
    beta = _number("--beta", args.beta, "a number > 0", lambda x: x > 0)
    bins = _integer_option("--bins", args.bins, None, maximum=MAX_BINS)
    recall = _number("--recall-level", args.recall_level, "a number in [0, 1]",
                     lambda x: 0 <= x <= 1)
    precision = _number("--precision-level", args.precision_level, "a number in [0, 1]",
                        lambda x: 0 <= x <= 1)
    check_choice("--format", args.format, ("text", "json", "csv"))
    resamples = _integer_option("--resamples", args.resamples, 1000)
    # Resamples that cannot fit in memory are refused before anything is read.
    check_n_resamples(resamples, name="--resamples")
    ci: float | None = 0.95
    cap: int | None = 100_000  # the default interval only where it is cheap
    if args.ci is not None:
        cap = None
        ci = None if args.ci.strip().lower() == "none" else _number(
            "--ci", args.ci, "a level in (0, 1), e.g. 0.95, or 'none'", lambda x: 0 < x < 1)
    return ReportSettings(ap_method=method, beta=beta, bins=bins,  # type: ignore[arg-type]
                          recall_level=recall, precision_level=precision, ci_level=ci,
                          resamples=int(resamples or 1000), ci_max_cells=cap)


def check_output_options(args: argparse.Namespace) -> None:
    """Check the output options (the settings and every ``--fail-under`` gate) before
    anything is written: ``prcurve demo`` calls it before it writes its data."""
    from prcurve.present.report import parse_fail_under

    _settings(args)
    for text in args.fail_under:
        parse_fail_under(text)


def _number(option: str, text: str, expected: str, ok: Callable[[float], bool]) -> float:
    try:
        value = float(text)
    except ValueError:
        raise bad_option(option, text, expected) from None
    if not (math.isfinite(value) and ok(value)):
        raise bad_option(option, text, expected)
    return value


def prepare_out(folder: str) -> Path:
    """Check, before any input is read, that files can be written in the output folder;
    a folder created for the check is removed again (the writer creates it when every
    file is ready: a failed run leaves no empty ``--out``)."""
    check_writable_folder(folder)
    return Path(folder)


# -- progress ---------------------------------------------------------------------------


@contextmanager
def _progress(path: str, stream: IO[str]) -> Iterator[Callable[[int], None] | None]:
    """A rows-read progress bar on ``stream`` when it is a terminal; None otherwise."""
    if not is_terminal(stream):
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        Progress,
        ProgressColumn,
        SpinnerColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class RowsPerSecond(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            if speed is None and task.elapsed:
                speed = task.completed / task.elapsed
            return Text("" if speed is None else f"{speed:,.0f} rows/s", style="cyan")

    console = Console(file=stream)
    columns = (SpinnerColumn(), TextColumn("reading {task.description}"),
               TextColumn("{task.completed:,.0f} rows"), RowsPerSecond(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(Path(path).name, total=None)

        def advance(rows: int) -> None:
            if rows < 0:
                bar.reset(task)
            else:
                bar.update(task, advance=rows)

        yield advance


# -- running -----------------------------------------------------------------------------


def _load(args: argparse.Namespace, *, binned: bool = False) -> tuple[list[Any], list[str]]:
    from prcurve.io.class_columns import LoadedClasses, load_input

    loaded = []
    notes = []
    for path in args.inputs:
        with _progress(path, sys.stderr) as on_rows:
            one = load_input(path, labels=args.labels, scores=args.score, weight=args.weight,
                             positive=args.positive, drop_invalid=args.drop_invalid,
                             input_format=args.input_format, on_rows=on_rows,
                             delimiter=args.delimiter, decimal=args.decimal)
        if binned and isinstance(one, LoadedClasses):
            raise classes_need_exact("--bins")
        notes.extend(_class_notes(one) if isinstance(one, LoadedClasses) else _input_notes(one))
        loaded.append(one)
    return loaded, notes


def _say_label(one: Any, name: str) -> None:
    if one.label_chosen == "auto":
        say(f"{name}: label column {one.label_column!r} (found automatically; "
             "--label to choose another)")


def _class_notes(one: Any) -> list[str]:
    """Say which column scores which class, and what was dropped (a multi-class input)."""
    name = Path(one.path).name
    _say_label(one, name)
    how = ("named after the class" if one.matched_by == "name"
           else "--score in the classes' sorted order")
    pairs = ", ".join(f"{cls} <- {column}" for cls, column in
                      zip(one.classes, one.score_columns, strict=True))
    say(f"{name}: {one.kind}, {len(one.classes)} classes scored one-vs-rest ({how}): {pairs}")
    notes = []
    if one.unscored_note is not None:  # also in the report's notes (build_report)
        say(one.unscored_note)
    if one.rows_dropped:
        note = (f"{name}: --drop-invalid skipped {one.rows_dropped} of {one.n_rows} rows "
                "(the same rows for every class)")
        say(note)
        notes.append(note)
    return notes


def _integer_option(option: str, text: str | None, default: int | None,
                    allow_none: bool = False, maximum: int | None = None) -> int | None:
    if text is None:
        return default
    if allow_none and text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or (maximum is not None and value > maximum):
        expected = ("an integer >= 1" if maximum is None
                    else f"an integer from 1 to {maximum}") + (" or 'none'" if allow_none else "")
        raise bad_option(option, text, expected)
    return value


def _wants_streaming(args: argparse.Namespace) -> bool:
    """Stream when asked, for Dask, for a folder, or for a file over STREAM_ABOVE_BYTES."""
    if args.dask is not None or args.workers is not None:
        return True
    return _single_streams(args)


def _single_streams(args: argparse.Namespace) -> bool:
    """Whether one process (without --dask or --workers) streams these inputs: then it
    keeps the distinct-score budget, and so does Dask (issue 26, item 7)."""
    if args.stream:
        return True
    for path in args.inputs:
        file = Path(path)
        if file.is_dir():
            return True
        if file.is_file() and file.stat().st_size > STREAM_ABOVE_BYTES:
            return True
    return False


def _budget(args: argparse.Namespace) -> tuple[int | None, int]:
    """--max-distinct and --switch-bins (their defaults: the streaming ones)."""
    from prcurve.io.stream import DEFAULT_MAX_DISTINCT, DEFAULT_SWITCH_BINS

    max_distinct = _integer_option("--max-distinct", args.max_distinct, DEFAULT_MAX_DISTINCT,
                                   allow_none=True)
    switch_bins = int(_integer_option("--switch-bins", args.switch_bins, DEFAULT_SWITCH_BINS,
                                      maximum=MAX_BINS) or DEFAULT_SWITCH_BINS)
    return max_distinct, switch_bins


def _cluster_budget(args: argparse.Namespace) -> tuple[int | None, int]:
    """The single process's state policy for the pool and Dask: the distinct-score
    budget where it would stream, exact (None) where it would read the inputs whole
    (issue 26, item 7)."""
    max_distinct, switch_bins = _budget(args)
    return (max_distinct if _single_streams(args) else None), switch_bins


def _load_streamed(args: argparse.Namespace, bins: int | None) -> tuple[list[Any], list[str]]:
    from prcurve.io.stream import stream_scores

    max_distinct, switch_bins = _budget(args)
    streamed, notes = [], []
    for path in args.inputs:
        with _progress(path, sys.stderr) as on_rows:
            one = stream_scores(path, label=args.label, scores=args.score, weight=args.weight,
                                positive=args.positive, max_distinct=max_distinct,
                                switch_bins=switch_bins, bins=bins,
                                drop_invalid=args.drop_invalid,
                                input_format=args.input_format, on_rows=on_rows,
                                delimiter=args.delimiter, decimal=args.decimal)
        notes.extend(_input_notes(one))
        streamed.append(one)
    return streamed, notes


def _input_notes(one: Any) -> list[str]:
    """Say which columns were chosen and what was dropped or binned; the notes for
    the report. ``one`` is a loaded or streamed input (the same fields)."""
    name = Path(one.path).name
    _say_label(one, name)
    if one.scores_chosen == "auto":
        columns = ", ".join(repr(m.column) for m in one.models)
        skipped = (f"; not numeric, skipped: {', '.join(map(repr, one.skipped_columns))}"
                   if one.skipped_columns else "")
        say(f"{name}: scoring columns {columns} (every other numeric column; --score to "
             f"choose){skipped}")
    notes = []
    for model in one.models:
        if model.rows_dropped:
            note = (f"{name}: --drop-invalid skipped {model.rows_dropped} of {one.n_rows} "
                    f"rows for column {model.column!r}")
            say(note)
            notes.append(note)
        if getattr(model, "mode", "exact") == "binned" and model.switched_at_row is not None:
            bounds = model.ap_bounds
            note = (f"{name}: column {model.column!r} has more than {model.max_distinct} "
                    f"distinct scores; its numbers come from {model.counts.n_bins} bins "
                    f"(exact step AP within [{bounds.lower:.6f}, {bounds.upper:.6f}])")
            say(note)
            notes.append(note)
    return notes


def _one_process_notes(args: argparse.Namespace) -> list[str]:
    note = getattr(args, "one_process_note", None)
    if note is not None:
        say(note)
    return [] if note is None else [note]


def _emit(report: Any, args: argparse.Namespace, files: Sequence[str]) -> None:
    if args.format == "json":
        sys.stdout.write(report.to_json(files))
    elif args.format == "csv":
        sys.stdout.write(report.to_csv())
    elif is_terminal(sys.stdout):
        from prcurve.present.terminal import report_console

        report.print_rich(report_console(sys.stdout))
    else:
        sys.stdout.write(report.to_text())
    sys.stdout.flush()


def execute(args: argparse.Namespace, loaded_inputs: list[Any] | None = None,
             listing: bool = False) -> int:
    one_process = None
    if loaded_inputs is None and getattr(args, "workers", None) is not None:
        from prcurve.io.pool_rule import one_process_note

        n_workers = check_workers(args.workers)  # with --dask: the pool's path refuses it
        one_process = None if args.dask is not None else one_process_note(
            args.inputs, args.input_format, n_workers)
        if one_process is None:
            from prcurve.io.workers import start_fork_server

            start_fork_server()  # its imports overlap this process's own until the workers start
    from prcurve.present.report import parse_fail_under

    labels = list(getattr(args, "labels", None) or getattr(args, "label", None) or [])
    args.labels, args.label = labels, (labels[0] if len(labels) == 1 else None)
    check_distinct_labels(labels)
    if len(labels) > 1 and loaded_inputs is None and _wants_streaming(args):
        raise classes_in_memory_only("--label", "--label " + " --label ".join(labels))
    if one_process is not None:  # the single process's code: the same numbers, sooner
        args.workers, args.one_process_note = None, one_process
    settings = _settings(args)
    baseline = getattr(args, "baseline", None)
    correction = check_choice("--correction", getattr(args, "correction", "holm"),
                              ("holm", "bonferroni", "bh", "none"))
    gates = [parse_fail_under(text) for text in args.fail_under]
    if loaded_inputs is None:
        check_distinct_files(args.inputs, "its models would be reported twice")
    if args.out is not None and loaded_inputs is None:  # never write into or over an input
        check_out_folder(args.out, args.inputs)
    if args.out is not None and not args.no_plots:  # before the folder is made
        check_pictures_setting(os.environ.get("PRCURVE_PICTURES"))
    out = prepare_out(args.out) if args.out is not None else None
    with ExitStack() as stack:
        stack.callback(_finish_preloading)  # no import left running when the command returns
        drawing = None
        if out is not None and not args.no_plots:
            drawing = stack.enter_context(_start_drawing(args, loaded_inputs))
        return _execute(args, loaded_inputs, listing, settings, baseline, correction, gates,
                        out, drawing)


def _finish_preloading() -> None:
    """:func:`prcurve.present.files.finish_preloading`, where that module is loaded (only
    then can a preload have started)."""
    files = sys.modules.get("prcurve.present.files")
    if files is not None:
        files.finish_preloading()


def _start_drawing(args: argparse.Namespace, loaded_inputs: list[Any] | None) -> Any:
    """For inputs read whole, start the second process that draws the pictures (it
    imports matplotlib while the inputs are read; present/picture_process.py). This
    process imports Bokeh after the report is sent: the child waits for it, and an
    import in a thread meanwhile would slow the counting (the GIL). Streamed inputs are
    large: their pictures are drawn here, their modules imported in a thread now."""
    from prcurve.present.files import preload_picture_modules
    from prcurve.present.picture_process import PictureProcess, stop_early

    if loaded_inputs is None and _wants_streaming(args):
        stop_early()  # started from the words (a folder, a large file): not needed
        preload_picture_modules()
        return nullcontext(None)
    return PictureProcess.start()


def _execute(args: argparse.Namespace, loaded_inputs: list[Any] | None, listing: bool,
             settings: Any, baseline: str | None, correction: str, gates: list[Any],
             out: Path | None, drawing: Any) -> int:
    from prcurve.present.report_build import build_report, build_streamed_report

    if loaded_inputs is None and _wants_streaming(args):
        if args.dask is not None or args.workers is not None:
            from prcurve.cli.report_cluster import load_cluster

            streamed, notes = load_cluster(args, settings.bins, lambda: _cluster_budget(args),
                                           _input_notes)
        else:
            streamed, notes = _load_streamed(args, settings.bins)
        notes[:0] = _one_process_notes(args)
        if baseline is not None:
            notes.append(f"--baseline {baseline}: streamed inputs keep counts, not scores, "
                         "so their models are not compared")
        report = build_streamed_report(streamed, settings, notes)
    else:
        if loaded_inputs is None:
            loaded_inputs, notes = _load(args, binned=settings.bins is not None)
            notes[:0] = _one_process_notes(args)
        else:
            notes = []
        report = build_report(loaded_inputs, settings, notes, baseline=baseline,
                              correction=correction, baseline_argument="--baseline")
    failures = report.failures(gates)  # an unavailable metric is an error before any output
    written: list[Path] = []
    if out is not None:
        try:
            written = report.write(out, plots=not args.no_plots, inputs=args.inputs,
                                   pictures=None if drawing is None else drawing.draw(report))
        except OSError as error:
            raise unwritable_output(str(out), error.strerror or str(error)) from None
    _emit(report, args, [p.name for p in written])
    if written:
        if listing and args.format == "text":
            print(f"\nprcurve demo wrote {len(written)} files to {out}{os.sep}:")
            for path in written:
                print(f"  {path}")
        else:
            for path in written:
                say(f"wrote {path}")
    for line in failures:
        say(f"fail-under: {line}")
    return 1 if failures else 0


def run_report(args: argparse.Namespace) -> int:
    """The ``report`` handler: returns the exit status."""
    return guard(lambda: execute(args))

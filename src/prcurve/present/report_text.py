"""The report as text: the plain table per model, the side-by-side comparison, rich
tables for a terminal, and CSV (one row per model).

Functions of a :class:`~prcurve.present.report.Report`, which calls them from its
methods (``to_text``, ``print_rich``, ``to_csv``, ``comparison_table``); they
format the numbers the report already holds and compute none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prcurve._version import __version__
from prcurve.core.average_precision import AP_METHODS
from prcurve.core.csv_writers import csv_line
from prcurve.core.table import Table

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table as RichTable

    from prcurve.present.report import InputSummary, ModelReport, Report

__all__ = [
    "average_label",
    "class_tables",
    "comparison_table",
    "csv_rows",
    "curve_kind",
    "header_lines",
    "positive_text",
    "print_rich",
    "rich_tables",
    "rows",
    "title",
    "to_csv",
    "to_text",
]


def average_label(label: str, classes: Sequence[str]) -> str:
    """``label`` (an average's name: ``micro``, ``macro average`` ...) made distinct from
    every class's name: in parentheses, as often as needed, when a class is named so.
    A class literally named ``micro`` (or ``macro``, ``weighted``) thus never shares a
    name with an average (docs/report.md).

    Examples
    --------
    >>> from prcurve.present.report_text import average_label
    >>> average_label("micro", ["cat", "dog"]), average_label("micro", ["micro", "dog"])
    ('micro', '(micro)')
    >>> average_label("macro average", ["macro average", "(macro average)"])
    '((macro average))'
    """
    taken = set(classes)
    while label in taken:
        label = f"({label})"
    return label


def rows(report: Report, model: ModelReport) -> list[tuple[str, str, str, str]]:
    """The table of one model: (metric, value, threshold, operating point)."""
    v = model.values
    method = report.settings.ap_method
    beta = report.settings.beta
    rows = [
        ("rows", f"{v['rows']}", "", _dropped_text(v)),
        ("positives", _count(v["positives"]), "", f"negatives {_count(v['negatives'])}"),
        ("prevalence", _fmt(v["prevalence"]), "", ""),
        (f"AP ({method})", _fmt(v["ap"]["value"]), "", _curve_text(v["curve"])),
    ]
    interval = v.get("ap_interval")
    if interval is not None:
        level = f"{interval['level']:.0%}" if interval.get("level") else ""
        rows.append((f"AP ({method}) {level} CI".replace("  ", " "),
                     _interval_text(interval), "", _interval_note(interval)))
    rows += [
        ("AUCPR (davis_goadrich)", _fmt(v["aucpr"]["value"]), "", ""),
        (f"min AP ({method}) for these counts", _fmt_entry(v["min_ap"]), "",
         _note(v["min_ap"])),
        (f"normalized AP ({method})", _fmt_entry(v["normalized_ap"]), "",
         _note(v["normalized_ap"])),
        ("min AUCPR (davis_goadrich)", _fmt_entry(v["min_aucpr"]), "", _note(v["min_aucpr"])),
        ("AUCNPR (davis_goadrich)", _fmt_entry(v["aucnpr"]), "", _note(v["aucnpr"])),
    ]
    if "roc_auc" in v:
        rows.append(("ROC AUC", _fmt(v["roc_auc"]), "", "the same counts, ROC view"))
    if "state" in v:
        state = v["state"]
        rows.append(("state", state["mode"], "", _state_text(state)))
        bounds = state["ap_bounds"]
        if bounds is not None:
            rows.append((f"exact AP ({bounds['method']}) bounds", _bounds_text(bounds), "",
                         f"binned AP ({bounds['method']}) {_fmt(bounds['binned'])}, "
                         f"largest possible error {_fmt(bounds['max_error'])}"))
    best = v["best_f"]
    rows.append((f"best F{beta:g}", _fmt(best["value"]), _fmt_threshold(best["threshold"]),
                 _pr_text(best)))
    par = v["precision_at_recall"]
    rows.append((f"precision at recall >= {par['level']:g}", _fmt_entry(par),
                 _fmt_threshold(par["threshold"]), _pr_text(par)))
    rap = v["recall_at_precision"]
    rows.append((f"recall at precision >= {rap['level']:g}", _fmt_entry(rap),
                 _fmt_threshold(rap["threshold"]), _pr_text(rap)))
    return rows

def comparison_table(report: Report, *, every_method: bool = False) -> Table:
    """The models side by side, one row each, numbers as text (4 decimals).

    Compact by default (prevalence π, the headline AP with its interval, the
    region's minimum AP and AUCNPR, ROC AUC, best F and its threshold) so
    that the text report fits 100 columns; ``every_method`` shows the AP of
    all six methods instead of the headline one (the HTML page).
    """
    method = report.settings.ap_method
    columns: dict[str, list[str]] = {"model": [], "rows": [], "π": []}
    if every_method:
        for m in AP_METHODS:
            columns[f"AP ({m})"] = []
    else:
        columns[f"AP ({method})"] = []
    has_ci = any((m.values.get("ap_interval") or {}).get("low") is not None for m in report.models)
    if has_ci:
        level = next(m.values["ap_interval"]["level"] for m in report.models
                     if (m.values.get("ap_interval") or {}).get("low") is not None)
        columns[f"{level:.0%} CI"] = []
    if every_method:
        columns["AUCPR (DG)"] = []
    columns.update({"min AP": [], "AUCNPR": [], "ROC AUC": [],
                    f"best F{report.settings.beta:g}": [], "at t": []})
    for model in report.models:
        v = model.values
        columns["model"].append(model.name)
        columns["rows"].append(str(v["rows"]))
        columns["π"].append(_fmt(v["prevalence"]))
        if every_method:
            for m in AP_METHODS:
                columns[f"AP ({m})"].append(_fmt(v["average_precision"][m]))
        else:
            columns[f"AP ({method})"].append(_fmt(v["ap"]["value"]))
        if has_ci:
            interval = v.get("ap_interval") or {}
            columns[next(k for k in columns if k.endswith("CI"))].append(
                "" if interval.get("low") is None
                else f"{interval['low']:.3f}–{interval['high']:.3f}")
        if every_method:
            columns["AUCPR (DG)"].append(_fmt(v["aucpr"]["value"]))
        columns["min AP"].append(_fmt_entry(v["min_ap"]))
        columns["AUCNPR"].append(_fmt_entry(v["aucnpr"]))
        columns["ROC AUC"].append(_fmt(v.get("roc_auc")))
        columns[f"best F{report.settings.beta:g}"].append(_fmt(v["best_f"]["value"]))
        threshold = v["best_f"]["threshold"]
        columns["at t"].append("" if threshold is None else f"{threshold:.4g}")
    return Table({k: np.array(cells, dtype=object) for k, cells in columns.items()})

def class_tables(report: Report) -> list[tuple[str, Table]]:
    """Per multi-class or multi-label model: a title and its classes with the averages.

    One row per class (support, the headline AP, ROC AUC), then the macro,
    weighted and micro averages (:class:`~prcurve.present.report.ClassAverages`).
    """
    method = report.settings.ap_method
    by_name = {m.name: m for m in report.models}
    out = []
    for group in report.class_averages:
        columns: dict[str, list[str]] = {"class": [], "support": [], f"AP ({method})": [],
                                         "ROC AUC": [], "model in this report": []}
        for cls, support, member in zip(group.classes, group.support,
                                        group.members[:len(group.classes)], strict=True):
            values = by_name[member].values
            columns["class"].append(cls)
            columns["support"].append(_count(support))
            columns[f"AP ({method})"].append(_fmt(values["ap"]["value"]))
            columns["ROC AUC"].append(_fmt(values.get("roc_auc")))
            columns["model in this report"].append(member)
        for average in ("macro", "weighted", "micro"):
            columns["class"].append(average_label(f"{average} average", group.classes))
            columns["support"].append(_count(sum(group.support)) if average != "macro" else "")
            columns[f"AP ({method})"].append(_fmt(group.average_precision[method][average]))
            columns["ROC AUC"].append(_fmt(group.roc_auc[average]))
            columns["model in this report"].append(group.members[-1] if average == "micro"
                                                    else "")
        heading = (f"classes of model {group.model} ({group.input}; {group.kind}, "
                   "one-vs-rest; weighted by support; micro pools every sample-class cell)")
        out.append((heading, Table({k: np.array(v, dtype=object) for k, v in columns.items()})))
    return out


def title(model: ModelReport) -> str:
    column = f", column {model.score_column!r}" if model.score_column else ""
    return f"model {model.name} ({model.input.name}{column})"

def curve_kind(report: Report) -> str:
    """Which curve the report's numbers come from, for its header (text and page)."""
    s = report.settings
    if s.bins is not None:
        return f"binned, {s.bins} equal-width bins"
    if any("state" in m.values for m in report.models):
        return "exact, or binned past the distinct-score budget (each model's state)"
    return "exact"


def header_lines(report: Report) -> list[str]:
    curve = curve_kind(report)
    lines = [
        f"prcurve {__version__} report (schema {report.schema})",
        f"predicted positive: score >= threshold; ties: one operating point; curve: {curve}",
    ]
    for summary in report.inputs:
        if summary.path is None:
            continue
        label_how = ("found automatically" if summary.label_chosen == "auto"
                     else "chosen with --label")
        weight = f"; weights {summary.weight_column!r}" if summary.weight_column else ""
        how = ""
        if summary.engine == "stream":
            how = f" streamed from {summary.files} file(s) in {summary.batches} batches"
        elif summary.engine in _READ_BY:
            how = f" read by {_READ_BY[summary.engine]} from {summary.files} file(s)"
        lines.append(
            f"input {summary.name}: {summary.format}, {summary.rows} rows{how}; label "
            f"{summary.label_column!r} ({label_how}), {positive_text(summary)}{weight}"
        )
    lines.extend(f"note: {note}" for note in report.notes)
    return lines

def to_text(report: Report) -> str:
    """Plain, stable text: one aligned table per model (for files, pipes and tests)."""
    from prcurve.present.verdict import text_lines

    out = list(header_lines(report))
    out += ["", *text_lines(report.comparison)] if report.comparison is not None else []
    if len(report.models) > 1:
        out += ["", "models side by side", comparison_table(report).to_text()]
    for heading, table in class_tables(report):
        out += ["", heading, table.to_text()]
    for model in report.models:
        lines = [(metric, value, f"at threshold {t}" if t else "", detail)
                 for metric, value, t, detail in rows(report, model)]
        widths = [max(len(r[i]) for r in lines) for i in range(3)]
        out.append("")
        out.append(title(model))
        for metric, value, at, detail in lines:
            line = (f"  {metric.ljust(widths[0])}  {value.rjust(widths[1])}  "
                    f"{at.ljust(widths[2])}  {detail}")
            out.append(line.rstrip())
    return "\n".join(out) + "\n"

def rich_tables(report: Report) -> list[RichTable]:
    """One rich table per model (for a terminal)."""
    from rich.table import Table as RichTable

    tables = []
    for model in report.models:
        table = RichTable(title=title(model), title_justify="left")
        table.add_column("metric")
        table.add_column("value", justify="right")
        table.add_column("at threshold", justify="right")
        table.add_column("operating point / note")
        for row in rows(report, model):
            table.add_row(*row)
        tables.append(table)
    return tables

def print_rich(report: Report, console: Console) -> None:
    """Print the header and the rich tables to ``console``."""
    from prcurve.present.verdict import text_lines

    for line in header_lines(report):
        console.print(line, highlight=False, markup=False)
    for line in ["", *text_lines(report.comparison)] if report.comparison is not None else []:
        console.print(line, highlight=False, markup=False)
    sections = [("models side by side", comparison_table(report))] if len(
        report.models) > 1 else []
    for heading, text_table in [*sections, *class_tables(report)]:
        console.print()
        console.print(_rich_of(heading, text_table))
    for table in rich_tables(report):
        console.print()
        console.print(table)


def _rich_of(heading: str, table: Table) -> RichTable:
    """A text :class:`~prcurve.core.table.Table` as a rich table, its first column left."""
    from rich.table import Table as RichTable

    out = RichTable(title=heading, title_justify="left")
    for k, name in enumerate(table.columns):
        out.add_column(name, justify="left" if k == 0 else "right")
    for row in zip(*(table[c].tolist() for c in table.columns), strict=True):
        out.add_row(*row)
    return out


def csv_rows(report: Report) -> list[dict[str, Any]]:
    """One flat row per model; an empty cell is undefined or not available."""
    out = []
    for m in report.models:
        v = m.values
        row: dict[str, Any] = {
            "input": m.input.name,
            "model": m.name,
            "score_column": m.score_column,
            **({"class": v.get("class")} if report.class_averages else {}),
            "rows": v["rows"],
            "rows_dropped": v["rows_dropped"],
            "positives": v["positives"],
            "negatives": v["negatives"],
            "prevalence": v["prevalence"],
            "curve": v["curve"]["kind"],
            "ap_method": v["ap"]["method"],
            "ap": v["ap"]["value"],
            **{f"ap_{k}": value for k, value in v["average_precision"].items()},
            "min_ap": v["min_ap"]["value"],
            "normalized_ap": v["normalized_ap"]["value"],
            "min_aucpr_davis_goadrich": v["min_aucpr"]["value"],
            "aucnpr_davis_goadrich": v["aucnpr"]["value"],
            "roc_auc": v.get("roc_auc"),
            "ap_ci_level": (v.get("ap_interval") or {}).get("level"),
            "ap_ci_low": (v.get("ap_interval") or {}).get("low"),
            "ap_ci_high": (v.get("ap_interval") or {}).get("high"),
            "best_f_beta": v["best_f"]["beta"],
        }
        for key in ("best_f", "precision_at_recall", "recall_at_precision"):
            entry = v[key]
            if "level" in entry:
                row[f"{key}_level"] = entry["level"]
            for part in ("value", "threshold", "precision", "recall"):
                row[key if part == "value" else f"{key}_{part}"] = entry[part]
        out.append(row)
    return out

def to_csv(report: Report) -> str:
    """One line per model (:func:`csv_rows`); every name quoted by
    :func:`prcurve.core.csv_writers.csv_cell` (a carriage return included)."""
    rows = csv_rows(report)
    lines = [csv_line(rows[0])]
    lines.extend(csv_line("" if v is None else (repr(v) if isinstance(v, float) else str(v))
                          for v in row.values()) for row in rows)
    return "\n".join(lines) + "\n"


# -- formatting helpers -----------------------------------------------------------------


def positive_text(summary: InputSummary) -> str:
    """``positive = 1``, or, for a multi-class or multi-label input, its one-vs-rest rule."""
    if summary.positive_label is None:
        return "positive = each class in turn (one-vs-rest)"
    return f"positive = {_plain(summary.positive_label)!r}"


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def _fmt_entry(entry: Mapping[str, Any]) -> str:
    if entry["value"] is None:
        note = str(entry.get("note", "undefined"))
        return "not available" if note.startswith("not available") else "undefined"
    return f"{entry['value']:.4f}"


def _interval_text(interval: Mapping[str, Any] | None) -> str:
    if not interval or interval.get("low") is None:
        return "" if not interval else "not computed"
    return f"[{interval['low']:.4f}, {interval['high']:.4f}]"


def _interval_note(interval: Mapping[str, Any]) -> str:
    if interval.get("low") is None:
        return str(interval.get("note", ""))
    return f"{interval['method']}, {interval['resamples']} resamples, seed {interval['seed']}"


def _fmt_threshold(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _count(value: float) -> str:
    return f"{int(value)}" if float(value).is_integer() else f"{value:.6g}"


def _note(entry: Mapping[str, Any]) -> str:
    return str(entry.get("note", "")) if entry["value"] is None else ""


def _pr_text(entry: Mapping[str, Any]) -> str:
    if entry["value"] is None:
        return str(entry.get("note", "undefined"))
    return f"precision {_fmt(entry['precision'])}, recall {_fmt(entry['recall'])}"


def _curve_text(curve: Mapping[str, Any]) -> str:
    if curve["kind"] == "binned":
        return f"binned curve: {curve['bins']} bins, {curve['thresholds']} thresholds"
    return f"exact curve: {curve['thresholds']} thresholds"


_READ_BY = {"dask": "Dask", "workers": "local worker processes (--workers)"}
"""Who read an input's rows, by its ``engine`` (a single process streams them)."""

_STATE_ENGINE = {"stream": "streamed", "dask": "Dask", "workers": "local workers"}
"""The count state's engine as the text names it."""


def _state_text(state: Mapping[str, Any]) -> str:
    engine = _STATE_ENGINE.get(state["engine"], "streamed")
    if state["mode"] == "exact":
        return f"{engine}, exact: every distinct score kept"
    if state["switched_at_row"] is not None:
        return (f"{engine}, binned: more than {state['max_distinct']} distinct scores "
                f"after {state['switched_at_row']} rows")
    return f"{engine}, binned as asked (--bins)"


def _bounds_text(bounds: Mapping[str, Any]) -> str:
    if bounds["lower"] is None:
        return "undefined"
    return f"[{bounds['lower']:.4f}, {bounds['upper']:.4f}]"


def _dropped_text(values: Mapping[str, Any]) -> str:
    if not values["rows_dropped"]:
        return ""
    reasons = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in values["dropped"].items())
    return f"{values['rows_dropped']} dropped by --drop-invalid ({reasons})"

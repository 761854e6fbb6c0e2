"""The report of ``prcurve report``: every number for every model, with its method.

A :class:`Report` holds, for each model (one score column of one input), its
:class:`~prcurve.PRCurve` and the numbers read off it: average precision in
every named method, the Davis–Goadrich area, the minimum AP and AUCNPR of the
unachievable region, the best F-beta threshold, precision at a recall level
and recall at a precision level, each with its threshold. It computes nothing
itself: every number comes from a view of the curve
(:mod:`prcurve.present.report_build` reads them off), and this module only
arranges and formats them (plain text, rich tables, JSON, CSV, files).

``report.json`` follows the schema :data:`REPORT_SCHEMA`, documented in
docs/report.md.

Examples
--------
>>> import numpy as np
>>> from prcurve.present.report import ReportSettings
>>> from prcurve.present.report_build import evaluate
>>> rng = np.random.default_rng(0)
>>> y = np.r_[np.ones(300, bool), np.zeros(500, bool)]
>>> s = np.r_[rng.normal(0, 1, 300), rng.normal(-2, 1, 500)]
>>> report = evaluate({"model": (y, s)}, ReportSettings(ap_method="step"))
>>> model = report.models[0]
>>> model.values["ap"]["method"], round(model.values["ap"]["value"], 4)
('step', 0.8885)
>>> model.values["best_f"]["beta"], model.values["prevalence"]
(1.0, 0.375)
"""

from __future__ import annotations

import csv
import io as _io
import json
import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve._version import __version__
from prcurve.core.average_precision import AP_METHODS, APMethod
from prcurve.core.curve import PRCurve
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.files import replace_file, write_plots
from prcurve.validation.files import (
    bad_fail_under,
    check_not_an_input,
    gate_out_of_range,
    metric_not_available,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table as RichTable

    from prcurve.io import LoadedInput
    from prcurve.io.stream import StreamedInput

__all__ = [
    "FAIL_UNDER_METRICS",
    "FAIL_UNDER_RANGE",
    "REPORT_SCHEMA",
    "InputSummary",
    "ModelReport",
    "Report",
    "ReportSettings",
    "parse_fail_under",
]

REPORT_SCHEMA = "prcurve.report/1"


F64 = NDArray[np.float64]


FAIL_UNDER_METRICS: tuple[str, ...] = (
    "ap",
    *(f"ap_{m}" for m in AP_METHODS),
    "aucpr",
    "normalized_ap",
    "aucnpr",
    "best_f",
    "precision_at_recall",
    "recall_at_precision",
)


FAIL_UNDER_RANGE: tuple[float, float] = (0.0, 1.0)
"""Every ``--fail-under`` metric lies in [0, 1] (an AP, an area, a normalized area, an F,
a precision, a recall); a gate outside it is refused."""


@dataclass(frozen=True)
class ReportSettings:
    """What the report computes.

    ``ap_method`` names the headline AP (every method is in report.json);
    ``beta`` the F-beta of the best threshold; ``bins`` None for the exact
    curve or a number of equal-width bins over the observed scores;
    ``recall_level`` and ``precision_level`` the levels of "precision at
    recall" and "recall at precision".
    """

    ap_method: APMethod = "step"
    beta: float = 1.0
    bins: int | None = None
    recall_level: float = 0.9
    precision_level: float = 0.9

    def to_dict(self) -> dict[str, Any]:
        return {
            "ap_method": self.ap_method,
            "beta": self.beta,
            "curve": "exact" if self.bins is None else "binned",
            "bins": self.bins,
            "recall_level": self.recall_level,
            "precision_level": self.precision_level,
        }


@dataclass(frozen=True)
class InputSummary:
    """Where a model's data came from (an input file, or arrays)."""

    name: str
    path: str | None = None
    format: str | None = None
    rows: int | None = None
    label_column: str | None = None
    label_chosen: str | None = None
    positive_label: Any = None
    weight_column: str | None = None
    scores_chosen: str | None = None
    skipped_columns: tuple[str, ...] = ()
    engine: str = "memory"
    files: int | None = None
    batches: int | None = None

    @classmethod
    def of(cls, source: LoadedInput | StreamedInput) -> InputSummary:
        """The summary of a loaded (in-memory) or streamed input."""
        streamed = getattr(source, "batches", None) is not None
        several_files = streamed and getattr(source, "files", 1) != 1
        return cls(
            name=source.path if several_files else Path(source.path).name,
            path=source.path,
            format=source.format,
            rows=source.n_rows,
            label_column=source.label_column,
            label_chosen=source.label_chosen,
            positive_label=source.positive_label,
            weight_column=source.weight_column,
            scores_chosen=source.scores_chosen,
            skipped_columns=tuple(source.skipped_columns),
            engine=getattr(source, "engine", "memory"),
            files=getattr(source, "files", None),
            batches=getattr(source, "batches", None),
        )

    def to_dict(self) -> dict[str, Any]:
        positive = self.positive_label
        if isinstance(positive, np.generic):
            positive = positive.item()
        return {
            "name": self.name,
            "path": self.path,
            "format": self.format,
            "rows": self.rows,
            "label_column": self.label_column,
            "label_column_chosen": self.label_chosen,
            "positive_label": positive,
            "weight_column": self.weight_column,
            "score_columns_chosen": self.scores_chosen,
            "skipped_columns": list(self.skipped_columns),
            # Added in prcurve.report/1 for streamed and Dask inputs only (docs/report.md).
            **({"engine": self.engine, "files": self.files, "batches": self.batches}
               if self.engine != "memory" else {}),
        }


@dataclass(frozen=True)
class ModelReport:
    """One model: its curve and its numbers (``values``, the JSON-ready layout)."""

    name: str
    input: InputSummary
    score_column: str | None
    curve: PRCurve
    values: dict[str, Any]
    curve_file: str = ""


def _safe_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


@dataclass(frozen=True)
class Report:
    """The numbers of every model, and their formats (text, rich, JSON, CSV, files)."""

    settings: ReportSettings
    inputs: list[InputSummary]
    models: list[ModelReport]
    notes: list[str] = field(default_factory=list)

    # -- JSON -------------------------------------------------------------------------------

    def to_dict(self, files: Sequence[str] = ()) -> dict[str, Any]:
        """The report as report.json's layout (schema :data:`REPORT_SCHEMA`)."""
        return {
            "schema": REPORT_SCHEMA,
            "prcurve_version": __version__,
            "settings": self.settings.to_dict(),
            "conventions": {
                "predicted_positive": "score >= threshold",
                "ties": "tied scores are one operating point",
                "undefined": "null, with a note saying why",
                "definitions": "docs/definitions.md",
            },
            "inputs": [i.to_dict() for i in self.inputs],
            "models": [
                {
                    "name": m.name,
                    "input": m.input.name,
                    "score_column": m.score_column,
                    **m.values,
                    "curve_file": m.curve_file or None,
                }
                for m in self.models
            ],
            "files": list(files),
            "notes": list(self.notes),
        }

    def to_json(self, files: Sequence[str] = ()) -> str:
        """report.json's text: indented, NaN never written (undefined is null)."""
        return json.dumps(self.to_dict(files), indent=2, allow_nan=False) + "\n"

    # -- tables -------------------------------------------------------------------------

    def rows(self, model: ModelReport) -> list[tuple[str, str, str, str]]:
        """The table of one model: (metric, value, threshold, operating point)."""
        v = model.values
        method = self.settings.ap_method
        beta = self.settings.beta
        rows = [
            ("rows", f"{v['rows']}", "", _dropped_text(v)),
            ("positives", _count(v["positives"]), "", f"negatives {_count(v['negatives'])}"),
            ("prevalence", _fmt(v["prevalence"]), "", ""),
            (f"AP ({method})", _fmt(v["ap"]["value"]), "", _curve_text(v["curve"])),
            ("AUCPR (davis_goadrich)", _fmt(v["aucpr"]["value"]), "", ""),
            (f"min AP ({method}) for these counts", _fmt_entry(v["min_ap"]), "",
             _note(v["min_ap"])),
            (f"normalized AP ({method})", _fmt_entry(v["normalized_ap"]), "",
             _note(v["normalized_ap"])),
            ("min AUCPR (davis_goadrich)", _fmt_entry(v["min_aucpr"]), "", _note(v["min_aucpr"])),
            ("AUCNPR (davis_goadrich)", _fmt_entry(v["aucnpr"]), "", _note(v["aucnpr"])),
        ]
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

    def _title(self, model: ModelReport) -> str:
        column = f", column {model.score_column!r}" if model.score_column else ""
        return f"model {model.name} ({model.input.name}{column})"

    def header_lines(self) -> list[str]:
        s = self.settings
        curve = "exact" if s.bins is None else f"binned, {s.bins} equal-width bins"
        if s.bins is None and any("state" in m.values for m in self.models):
            curve = "exact, or binned past the distinct-score budget (each model's state)"
        lines = [
            f"prcurve {__version__} report (schema {REPORT_SCHEMA})",
            f"predicted positive: score >= threshold; ties: one operating point; curve: {curve}",
        ]
        for summary in self.inputs:
            if summary.path is None:
                continue
            label_how = ("found automatically" if summary.label_chosen == "auto"
                         else "chosen with --label")
            weight = f"; weights {summary.weight_column!r}" if summary.weight_column else ""
            how = ""
            if summary.engine == "stream":
                how = f" streamed from {summary.files} file(s) in {summary.batches} batches"
            elif summary.engine == "dask":
                how = f" read by Dask from {summary.files} file(s)"
            lines.append(
                f"input {summary.name}: {summary.format}, {summary.rows} rows{how}; label "
                f"{summary.label_column!r} ({label_how}), positive = "
                f"{_plain(summary.positive_label)!r}{weight}"
            )
        lines.extend(f"note: {note}" for note in self.notes)
        return lines

    def to_text(self) -> str:
        """Plain, stable text: one aligned table per model (for files, pipes and tests)."""
        out = list(self.header_lines())
        for model in self.models:
            rows = [(metric, value, f"at threshold {t}" if t else "", detail)
                    for metric, value, t, detail in self.rows(model)]
            widths = [max(len(r[i]) for r in rows) for i in range(3)]
            out.append("")
            out.append(self._title(model))
            for metric, value, at, detail in rows:
                line = (f"  {metric.ljust(widths[0])}  {value.rjust(widths[1])}  "
                        f"{at.ljust(widths[2])}  {detail}")
                out.append(line.rstrip())
        return "\n".join(out) + "\n"

    def rich_tables(self) -> list[RichTable]:
        """One rich table per model (for a terminal)."""
        from rich.table import Table as RichTable

        tables = []
        for model in self.models:
            table = RichTable(title=self._title(model), title_justify="left")
            table.add_column("metric")
            table.add_column("value", justify="right")
            table.add_column("at threshold", justify="right")
            table.add_column("operating point / note")
            for row in self.rows(model):
                table.add_row(*row)
            tables.append(table)
        return tables

    def print_rich(self, console: Console) -> None:
        """Print the header and the rich tables to ``console``."""
        for line in self.header_lines():
            console.print(line, highlight=False, markup=False)
        for table in self.rich_tables():
            console.print()
            console.print(table)

    # -- CSV -----------------------------------------------------------------------------

    def csv_rows(self) -> list[dict[str, Any]]:
        """One flat row per model; an empty cell is undefined or not available."""
        out = []
        for m in self.models:
            v = m.values
            row: dict[str, Any] = {
                "input": m.input.name,
                "model": m.name,
                "score_column": m.score_column,
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

    def to_csv(self) -> str:
        rows = self.csv_rows()
        buffer = _io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else (repr(v) if isinstance(v, float) else v)
                             for k, v in row.items()})
        return buffer.getvalue()

    # -- fail-under ------------------------------------------------------------------------

    def metric(self, model: ModelReport, name: str) -> tuple[float | None, str]:
        """The value of a ``--fail-under`` metric for one model and its full name."""
        v = model.values
        method = self.settings.ap_method
        if name == "ap":
            return v["ap"]["value"], f"AP ({method})"
        if name.startswith("ap_"):
            return v["average_precision"][name[3:]], f"AP ({name[3:]})"
        if name == "aucpr":
            return v["aucpr"]["value"], "AUCPR (davis_goadrich)"
        if name in ("aucnpr", "normalized_ap"):
            entry = v[name]
            if entry["value"] is None and entry.get("note", "").startswith("not available"):
                raise metric_not_available("--fail-under", name, entry["note"])
            label = ("AUCNPR (davis_goadrich)" if name == "aucnpr"
                     else f"normalized AP ({method})")
            return entry["value"], label
        if name == "best_f":
            return v["best_f"]["value"], f"best F{self.settings.beta:g}"
        if name == "precision_at_recall":
            entry = v[name]
            return entry["value"], f"precision at recall >= {entry['level']:g}"
        entry = v["recall_at_precision"]
        return entry["value"], f"recall at precision >= {entry['level']:g}"

    def failures(self, gates: Sequence[tuple[str, float]]) -> list[str]:
        """One line per (model, gate) that fails: value below the bound, or undefined."""
        lines = []
        for name, bound in gates:
            for model in self.models:
                value, label = self.metric(model, name)
                if value is None:
                    lines.append(f"model {model.name}: {label} is undefined, below {bound:g} "
                                 f"(--fail-under {name}={bound:g})")
                elif value < bound:
                    lines.append(f"model {model.name}: {label} = {value:.6g} < {bound:g} "
                                 f"(--fail-under {name}={bound:g})")
        return lines

    # -- files -----------------------------------------------------------------------------

    def write(self, out_dir: str | Path, *, plots: bool = True,
              inputs: Sequence[str | Path] | None = None) -> list[Path]:
        """Write report.json, curve_<model>.csv, pr_curve.png/.svg and threshold.png.

        The folder is created if needed. No input is ever written over:
        ``inputs`` (default: the paths of the report's inputs) are compared
        with each file to be written, by resolved path and by
        :func:`os.path.samefile`, and each file is written beside its target
        and then renamed onto it, so an existing file or link in the folder is
        replaced, never written through. The files are the same bytes on every
        run (no dates in the pictures).

        Returns the paths written, report.json last.

        Raises
        ------
        InvalidInputError
            A file to be written is an input (or a link to one).
        """
        folder = Path(out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        protected = [i.path for i in self.inputs if i.path] if inputs is None else list(inputs)
        names: set[str] = set()
        planned: list[tuple[ModelReport, Path]] = []
        for model in self.models:
            stem = _safe_file_name(model.name)
            candidate, k = stem, 2
            while candidate in names:
                candidate, k = f"{stem}_{k}", k + 1
            names.add(candidate)
            planned.append((model, folder / f"curve_{candidate}.csv"))
        pictures = ["pr_curve.png", "pr_curve.svg", "threshold.png"] if plots else []
        for target in [*(p for _, p in planned), *(folder / n for n in pictures),
                       folder / "report.json"]:
            check_not_an_input(target, protected)
        written: list[Path] = []
        models = []
        for model, path in planned:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                table = model.curve.to_table(("threshold", "precision", "recall", "tp", "fp",
                                              "f1"))
            text = table.to_csv()
            replace_file(path, lambda temp, text=text: temp.write_text(text))  # type: ignore[misc]
            written.append(path)
            models.append(ModelReport(model.name, model.input, model.score_column, model.curve,
                                      model.values, curve_file=path.name))
        if plots:
            written.extend(write_plots(
                folder, {m.name: m.curve for m in self.models},
                {m.name: m.input.name for m in self.models},
                ap_method=self.settings.ap_method, beta=self.settings.beta))
        final = Report(self.settings, self.inputs, models, self.notes)
        report_path = folder / "report.json"
        names_written = [p.name for p in written] + [report_path.name]
        report_text = final.to_json(files=names_written)
        replace_file(report_path, lambda temp: temp.write_text(report_text))
        written.append(report_path)
        return written


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def _fmt_entry(entry: Mapping[str, Any]) -> str:
    if entry["value"] is None:
        note = str(entry.get("note", "undefined"))
        return "not available" if note.startswith("not available") else "undefined"
    return f"{entry['value']:.4f}"


def _fmt_threshold(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _count(value: float) -> str:
    return f"{int(value)}" if float(value).is_integer() else f"{value:.6g}"


def _note(entry: Mapping[str, Any]) -> str:
    return str(entry.get("note", "")) if entry["value"] is None else ""


def _pr_text(entry: Mapping[str, Any]) -> str:
    if entry["value"] is None:
        return str(entry.get("note", "undefined"))
    return f"precision {entry['precision']:.4f}, recall {entry['recall']:.4f}"


def _curve_text(curve: Mapping[str, Any]) -> str:
    if curve["kind"] == "binned":
        return f"binned curve: {curve['bins']} bins, {curve['thresholds']} thresholds"
    return f"exact curve: {curve['thresholds']} thresholds"


def _state_text(state: Mapping[str, Any]) -> str:
    engine = "Dask" if state["engine"] == "dask" else "streamed"
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


def parse_fail_under(text: str) -> tuple[str, float]:
    """``METRIC=VALUE`` as (metric, value); the metric one of :data:`FAIL_UNDER_METRICS`.

    Examples
    --------
    >>> from prcurve.present.report import parse_fail_under
    >>> parse_fail_under("ap=0.8"), parse_fail_under("ap_davis_goadrich = 0.75")
    (('ap', 0.8), ('ap_davis_goadrich', 0.75))
    """
    metric, sep, number = text.partition("=")
    metric = metric.strip()
    try:
        value = float(number)
    except ValueError:
        raise bad_fail_under(text, FAIL_UNDER_METRICS) from None
    if not sep or metric not in FAIL_UNDER_METRICS or not math.isfinite(value):
        raise bad_fail_under(text, FAIL_UNDER_METRICS)
    low, high = FAIL_UNDER_RANGE
    if not low <= value <= high:  # a gate that could never pass (or never fail)
        raise gate_out_of_range(text, metric, low, high)
    return metric, value

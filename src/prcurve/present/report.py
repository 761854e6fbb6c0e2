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

import json
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve._version import __version__
from prcurve.core.average_precision import AP_METHODS, APMethod
from prcurve.core.curve import PRCurve
from prcurve.core.table import Table
from prcurve.errors import UndefinedMetricWarning
from prcurve.present import report_text
from prcurve.present.files import finish_preloading, remove_stale, stale_outputs, write_files
from prcurve.validation.files import (
    bad_fail_under,
    gate_out_of_range,
    metric_not_available,
    no_class_average,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console
    from rich.table import Table as RichTable

    from prcurve.io import LoadedInput
    from prcurve.io.class_columns import LoadedClasses
    from prcurve.io.stream import StreamedInput
    from prcurve.present.picture_process import PictureSource
    from prcurve.space.intervals import CurveInterval

__all__ = [
    "FAIL_UNDER_METRICS",
    "FAIL_UNDER_RANGE",
    "REPORT_SCHEMA",
    "ClassAverages",
    "InputSummary",
    "ModelReport",
    "Report",
    "ReportSettings",
    "curve_file_names",
    "parse_fail_under",
]

REPORT_SCHEMA = "prcurve.report/1"

OUTPUT_PATTERNS = ("curve_*.csv", "pr_curve.png", "pr_curve.svg", "threshold.png", "prg_curve.png",
                   "report.html", "report.json")
"""The names of the files :meth:`Report.write` writes: an earlier report's files of these
names that a later one does not write are removed (docs/report.md, "Files")."""


F64 = NDArray[np.float64]


CLASS_AVERAGES: tuple[str, ...] = ("macro", "weighted", "micro")
"""How the per-class values of a multi-class or multi-label model are averaged."""

FAIL_UNDER_METRICS: tuple[str, ...] = (
    "ap",
    *(f"ap_{m}" for m in AP_METHODS),
    *(f"{average}_ap" for average in CLASS_AVERAGES),
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

    ``ci_level`` is the level of the headline AP's stratified bootstrap
    interval (None: no interval) from ``resamples`` resamples drawn with
    ``seed``; ``ci_max_cells`` skips it, with a note, for states with more
    cells than that (the bootstrap's cost grows with them: about 10^5 cells
    and 1000 resamples take a few seconds on one core); None computes it always.
    """

    ap_method: APMethod = "step"
    beta: float = 1.0
    bins: int | None = None
    recall_level: float = 0.9
    precision_level: float = 0.9
    ci_level: float | None = 0.95
    resamples: int = 1000
    seed: int = 0
    ci_max_cells: int | None = 100_000

    def to_dict(self) -> dict[str, Any]:
        return {
            "ap_method": self.ap_method,
            "beta": self.beta,
            "curve": "exact" if self.bins is None else "binned",
            "bins": self.bins,
            "recall_level": self.recall_level,
            "precision_level": self.precision_level,
            # Added within prcurve.report/1 (docs/report.md).
            "ci_level": self.ci_level,
            "resamples": self.resamples,
            "seed": self.seed,
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
    def of(cls, source: LoadedInput | LoadedClasses | StreamedInput) -> InputSummary:
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


@dataclass(frozen=True)
class ClassAverages:
    """The classes of one multi-class or multi-label model, scored one-vs-rest.

    Each class is also a model of the report (``members``, named
    ``model[class]``), and so is the pooled ``model[micro]`` curve. Here are
    the averages over classes (:class:`prcurve.OneVsRest`): ``macro`` the mean
    of the classes' values, ``weighted`` their mean weighted by support
    (positive weight), ``micro`` the value of every (sample, class) cell pooled.
    ``average_precision`` maps each AP method to its three averages,
    ``roc_auc`` holds the three ROC AUC averages; None is undefined.
    """

    model: str
    input: str
    kind: str
    classes: list[str]
    support: list[float]
    members: list[str]
    average_precision: dict[str, dict[str, float | None]]
    roc_auc: dict[str, float | None]
    score_columns: list[str | None] = field(default_factory=list)
    macro_curve: CurveInterval | None = None  # drawn only (report_build._macro_curve)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "input": self.input,
            "kind": self.kind,
            "scoring": "one-vs-rest",
            "classes": [
                {"class": cls, "support": support, "model": member,
                 **({"score_column": column} if self.score_columns else {})}
                for cls, support, member, column in zip(
                    self.classes, self.support, self.members[:len(self.classes)],
                    self.score_columns or [None] * len(self.classes), strict=True)
            ],
            "micro_model": self.members[-1],
            "average_precision": self.average_precision,
            "roc_auc": self.roc_auc,
            "averages": {
                "macro": "mean over classes",
                "weighted": "mean over classes weighted by support (positive weight)",
                "micro": "every (sample, class) cell pooled into one curve",
            },
        }


def _curve_writer(curve: PRCurve) -> Any:
    """Writes a model's curve_<model>.csv when its turn comes, one model's at a time, a
    block of thresholds at a time (:func:`prcurve.core.curve_csv.write_curve_csv`: the
    bytes of its table's CSV without the table, 1.4 GB at 3*10^7 thresholds)."""

    def write(path: Path) -> None:
        from prcurve.core.curve_csv import write_curve_csv

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            write_curve_csv(curve, path, ("threshold", "precision", "recall", "tp", "fp", "f1"))

    return write


def _safe_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


def curve_file_names(models: Sequence[ModelReport]) -> list[str]:
    """Each model's ``curve_<model>.csv`` name, distinct (``_2``, ``_3``... on a clash):
    the names :meth:`Report.write` writes, and report.json's ``curve_file``.

    Examples
    --------
    >>> from prcurve.present.report import curve_file_names
    >>> from prcurve.present.report_build import evaluate
    >>> data = ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> curve_file_names(evaluate({"a b": data, "a/b": data, "c": data}).models)
    ['curve_a_b.csv', 'curve_a_b_2.csv', 'curve_c.csv']
    """
    names: set[str] = set()
    out = []
    for model in models:
        stem = _safe_file_name(model.name)
        candidate, k = stem, 2
        while candidate in names:
            candidate, k = f"{stem}_{k}", k + 1
        names.add(candidate)
        out.append(f"curve_{candidate}.csv")
    return out


@dataclass(frozen=True)
class Report:
    """The numbers of every model, and their formats (text, rich, JSON, CSV, files)."""

    settings: ReportSettings
    inputs: list[InputSummary]
    models: list[ModelReport]
    notes: list[str] = field(default_factory=list)
    class_averages: list[ClassAverages] = field(default_factory=list)
    comparison: dict[str, Any] | None = None  # the verdict (prcurve.present.verdict)

    @property
    def schema(self) -> str:
        """The version of report.json's layout, :data:`REPORT_SCHEMA`."""
        return REPORT_SCHEMA

    # -- JSON -------------------------------------------------------------------------------

    def to_dict(self, files: Sequence[str] = ()) -> dict[str, Any]:
        """The report as report.json's layout (schema :data:`REPORT_SCHEMA`).

        ``files``: the files written with it (report.json's manifest); a model's
        ``curve_file`` is its curve CSV when that is among them (so that ``--format json
        --out DIR`` prints what DIR/report.json holds), else ``null``."""
        written = set(files)
        curve_files = [m.curve_file or (name if name in written else "")
                       for m, name in zip(self.models, curve_file_names(self.models),
                                          strict=True)]
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
                    "curve_file": curve_file or None,
                }
                for m, curve_file in zip(self.models, curve_files, strict=True)
            ],
            # Added within prcurve.report/1 for multi-class and multi-label inputs.
            **({"class_averages": [c.to_dict() for c in self.class_averages]}
               if self.class_averages else {}),
            **({"comparison": self.comparison} if self.comparison is not None else {}),
            "files": list(files),
            "notes": list(self.notes),
        }

    def to_json(self, files: Sequence[str] = ()) -> str:
        """report.json's text: indented, NaN never written (undefined is null)."""
        return json.dumps(self.to_dict(files), indent=2, allow_nan=False) + "\n"

    def rows(self, model: ModelReport) -> list[tuple[str, str, str, str]]:
        """The table of one model: (metric, value, threshold, operating point)."""
        return report_text.rows(self, model)

    def comparison_table(self, *, every_method: bool = False) -> Table:
        """The models side by side (:func:`prcurve.present.report_text.comparison_table`)."""
        return report_text.comparison_table(self, every_method=every_method)

    def header_lines(self) -> list[str]:
        return report_text.header_lines(self)

    def to_text(self) -> str:
        """Plain, stable text: the models side by side, then one table per model."""
        return report_text.to_text(self)

    def rich_tables(self) -> list[RichTable]:
        """One rich table per model (for a terminal)."""
        return report_text.rich_tables(self)

    def print_rich(self, console: Console) -> None:
        """Print the header, the comparison and the rich tables to ``console``."""
        report_text.print_rich(self, console)

    def csv_rows(self) -> list[dict[str, Any]]:
        """One flat row per model; an empty cell is undefined or not available."""
        return report_text.csv_rows(self)

    def to_csv(self) -> str:
        return report_text.to_csv(self)

    def metric(self, model: ModelReport, name: str) -> tuple[float | None, str]:
        """The value of a ``--fail-under`` metric for one model and its full name."""
        v = model.values
        method = self.settings.ap_method
        if name.endswith("_ap") and name[:-3] in CLASS_AVERAGES:
            raise no_class_average("--fail-under", name)  # not one model's value: failures()
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
            if name.endswith("_ap") and name[:-3] in CLASS_AVERAGES:
                lines.extend(self._class_failures(name, bound))
                continue
            for model in self.models:
                value, label = self.metric(model, name)
                if value is None:
                    lines.append(f"model {model.name}: {label} is undefined, below {bound:g} "
                                 f"(--fail-under {name}={bound:g})")
                elif value < bound:
                    lines.append(f"model {model.name}: {label} = {value:.6g} < {bound:g} "
                                 f"(--fail-under {name}={bound:g})")
        return lines

    def _class_failures(self, name: str, bound: float) -> list[str]:
        """``--fail-under macro_ap=V`` (or weighted, micro): each class group's average of
        the headline AP method; an error when the report has no multi-class model."""
        average, method = name[:-3], self.settings.ap_method
        if not self.class_averages:
            raise no_class_average("--fail-under", name)
        lines = []
        for group in self.class_averages:
            value = group.average_precision[method][average]
            label = f"{average} AP ({method})"
            if value is None:
                lines.append(f"model {group.model}: {label} is undefined, below {bound:g} "
                             f"(--fail-under {name}={bound:g})")
            elif value < bound:
                lines.append(f"model {group.model}: {label} = {value:.6g} < {bound:g} "
                             f"(--fail-under {name}={bound:g})")
        return lines

    # -- files -----------------------------------------------------------------------------

    def to_html(self, *, title: str = "prcurve report") -> str:
        """The report as one self-contained, interactive HTML page
        (:func:`prcurve.present.html.render_html`; needs bokeh, in the ``report`` extra)."""
        from prcurve.present.html import render_html

        return render_html(self, title=title)

    def write(self, out_dir: str | Path, *, plots: bool = True,
              inputs: Sequence[str | Path] | None = None,
              pictures: PictureSource | None = None) -> list[Path]:
        """Write report.json, curve_<model>.csv and, with ``plots``, pr_curve.png/.svg,
        threshold.png, prg_curve.png (precision-recall-gain) and the interactive report.html.

        The files are written all or none, through
        :func:`prcurve.present.files.write_files`: each to a temporary beside its
        target, renamed into place only when all are written, so a failure
        leaves the folder as it was (and removes the folder if this call
        created it). No input is ever written over: ``inputs`` (default: the
        paths of the report's inputs) are compared with each file to be
        written, by resolved path and by :func:`os.path.samefile`; an existing
        file or link in the folder is replaced, never written through. The
        files an earlier report listed in the folder's report.json and this one
        does not write (a model or the plots left out) are then removed, our own
        file names only (docs/report.md, "Files"). The files are the same bytes
        on every run (no dates in the pictures). ``pictures``: where the drawn pictures
        come from (``prcurve report``'s second process,
        :mod:`prcurve.present.picture_process`); by default they are drawn here.

        Returns the paths written, report.json last.

        Raises
        ------
        InvalidInputError
            A file to be written is an input (or a link to one), or a folder.
        """
        folder = Path(out_dir)
        protected = [i.path for i in self.inputs if i.path] if inputs is None else list(inputs)
        files: list[tuple[str, Any]] = []
        models = []
        for model, name in zip(self.models, curve_file_names(self.models), strict=True):
            files.append((name, _curve_writer(model.curve)))
            models.append(ModelReport(model.name, model.input, model.score_column, model.curve,
                                      model.values, curve_file=name))
        final = replace(self, models=models)
        if plots:
            # Each figure drawn and laid out once (present/report_figures.py), here (all of
            # them when the page asks for the PRG figure's SVG) or in a second process that
            # draws while the page is built here (its files are waited for when written,
            # after the curves); the page shows the same PRG drawing as SVG.
            finish_preloading()  # its imports, not this thread's at the same time
            from prcurve.present.html import render_html
            from prcurve.present.picture_process import InProcessPictures, picture_writer
            from prcurve.present.report_figures import PICTURE_FILES

            source = InProcessPictures(self) if pictures is None else pictures
            page = render_html(final, prg_svg=source.prg_svg)
            files.extend((name, picture_writer(source, name)) for name in PICTURE_FILES)
            files.append(("report.html", lambda temp: temp.write_text(page, encoding="utf-8")))
        report_text = final.to_json(files=[n for n, _ in files] + ["report.json"])
        files.append(("report.json", lambda temp: temp.write_text(report_text, encoding="utf-8")))
        stale = stale_outputs(folder, [n for n, _ in files], OUTPUT_PATTERNS)
        written = write_files(folder, files, inputs=protected)
        remove_stale(stale, protected)
        return written

    def _repr_html_(self) -> str:
        """Notebook display: the header, the models side by side and the PR plot (SVG).

        The interactive page is :meth:`to_html`; this needs no script to show. Column
        names carry their glossary entry as hover text (:mod:`prcurve.present.glossary`)."""
        import html

        from prcurve.present.glossary import GLOSSARY_POINTER, with_titles
        from prcurve.present.verdict import html_section

        parts = [f"<p>{html.escape(line)}</p>" for line in [*self.header_lines(),
                                                               GLOSSARY_POINTER]]
        parts.append(html_section(self.comparison, "h3"))
        parts.append(with_titles(self.comparison_table().to_html(digits=None, caption="models")))
        parts.extend(with_titles(table.to_html(digits=None, caption=heading))
                     for heading, table in report_text.class_tables(self))
        try:
            from prcurve.present.plot_setup import svg_text

            parts.append(svg_text(self.pr_figure()))
        except ImportError:  # no matplotlib: the numbers alone
            parts.append("<p>(install matplotlib to see the plot)</p>")
        return "\n".join(parts)

    def model_colors(self) -> dict[str, str]:
        """Each model's colour by name, by its place in the report: the same in every
        picture, in report.html and in the notebook (:mod:`prcurve.present.style`)."""
        from prcurve.present.style import model_color

        return {m.name: model_color(i) for i, m in enumerate(self.models)}

    def pr_figure(self) -> Figure:
        """The report's PR figure (pr_curve.png): one panel per prevalence, each with its
        unachievable region (:func:`prcurve.present.report_figures.pr_figure`)."""
        from prcurve.present.report_figures import pr_figure

        return pr_figure(self)


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

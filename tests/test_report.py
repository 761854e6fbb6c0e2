"""prcurve.report: report.json's numbers are the library's, for every input format."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prcurve
from prcurve import AP_METHODS, pr_curve
from prcurve.cli import main
from prcurve.present.report import (
    FAIL_UNDER_METRICS,
    REPORT_SCHEMA,
    ReportSettings,
    parse_fail_under,
)
from prcurve.present.report_build import evaluate
from prcurve.space import bounds

RNG = np.random.default_rng(4)
N_POS, N_NEG = 60, 140
LABELS = np.r_[np.ones(N_POS, dtype=np.int64), np.zeros(N_NEG, dtype=np.int64)]
STRONG = np.round(np.r_[RNG.normal(0, 1, N_POS), RNG.normal(-2, 1, N_NEG)], 2)  # with ties
WEAK = np.round(np.r_[RNG.normal(0, 1, N_POS), RNG.normal(-0.5, 1, N_NEG)], 3)


def write_formats(folder: Path) -> list[Path]:
    columns = {"label": LABELS, "strong": STRONG, "weak": WEAK}
    rows = list(zip(*(v.tolist() for v in columns.values()), strict=True))
    paths = []
    for name, sep in (("data.csv", ","), ("data.tsv", "\t")):
        text = sep.join(columns) + "\n" + "".join(sep.join(map(repr, r)) + "\n" for r in rows)
        (folder / name).write_text(text)
        paths.append(folder / name)
    (folder / "data.csv.gz").write_bytes(gzip.compress((folder / "data.csv").read_bytes()))
    pq.write_table(pa.table(columns), folder / "data.parquet")
    (folder / "data.jsonl").write_text(
        "".join(json.dumps(dict(zip(columns, r, strict=True))) + "\n" for r in rows))
    np.savez(folder / "data.npz", **columns)
    return [*paths, folder / "data.csv.gz", folder / "data.parquet", folder / "data.jsonl",
            folder / "data.npz"]


def none_if_nan(*values: float) -> tuple[float | None, ...]:
    return tuple(None if math.isnan(v) else v for v in values)


def expected_numbers(y: np.ndarray, s: np.ndarray, method: str = "step") -> dict[str, Any]:
    curve = pr_curve(y, s)
    best = curve.best_f(1.0)
    at_recall = curve.precision_at_recall(0.9)
    with warnings.catch_warnings():  # undefined (NaN) is None in the report
        warnings.simplefilter("ignore", prcurve.UndefinedMetricWarning)
        at_precision = curve.recall_at_precision(0.9)
    aucpr = curve.average_precision("davis_goadrich")
    pi = curve.prevalence
    return {
        "average_precision": {m: prcurve.average_precision(y, s, method=m) for m in AP_METHODS},
        "ap": curve.average_precision(method),
        "aucpr": aucpr,
        "min_ap": bounds.min_average_precision(N_POS, N_NEG, method),
        "normalized_ap": bounds.normalized_average_precision(
            curve.average_precision(method), N_POS, N_NEG, method),
        "min_aucpr": bounds.min_aucpr(pi),
        "aucnpr": bounds.aucnpr(aucpr, pi),
        "best_f": (best.value, best.threshold, best.precision, best.recall),
        "precision_at_recall": (at_recall.value, at_recall.threshold),
        "recall_at_precision": none_if_nan(at_precision.value, at_precision.threshold),
        "prevalence": pi,
        "thresholds": len(curve),
    }


def check_model(model: dict[str, Any], expected: dict[str, Any], method: str) -> None:
    assert model["average_precision"] == expected["average_precision"]
    assert model["ap"] == {"method": method, "value": expected["ap"]}
    assert model["aucpr"] == {"method": "davis_goadrich", "value": expected["aucpr"]}
    for key in ("min_ap", "normalized_ap", "min_aucpr", "aucnpr"):
        assert model[key]["value"] == expected[key], key
        assert model[key]["method"] == (method if "ap" in key[-2:] else "davis_goadrich")
        assert "source" in model[key]
    best = model["best_f"]
    assert (best["value"], best["threshold"], best["precision"], best["recall"]) == expected[
        "best_f"]
    assert best["beta"] == 1.0
    par = model["precision_at_recall"]
    assert (par["value"], par["threshold"]) == expected["precision_at_recall"]
    assert par["level"] == 0.9
    rap = model["recall_at_precision"]
    assert (rap["value"], rap["threshold"]) == expected["recall_at_precision"]
    assert model["prevalence"] == expected["prevalence"]
    assert model["curve"] == {"kind": "exact", "thresholds": expected["thresholds"]}
    assert model["positives"] == N_POS
    assert model["negatives"] == N_NEG
    assert model["rows"] == N_POS + N_NEG
    assert model["rows_dropped"] == 0


@pytest.mark.parametrize("method", ["step", "davis_goadrich"])
def test_report_json_equals_the_library_for_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str
) -> None:
    expected = {"strong": expected_numbers(LABELS, STRONG, method),
                "weak": expected_numbers(LABELS, WEAK, method)}
    for path in write_formats(tmp_path):
        assert main(["report", str(path), "--format", "json", "--ap-method", method]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["schema"] == REPORT_SCHEMA
        assert report["prcurve_version"] == prcurve.__version__
        assert report["inputs"][0]["name"] == path.name
        assert report["inputs"][0]["rows"] == N_POS + N_NEG
        assert report["settings"]["ap_method"] == method
        assert [m["name"] for m in report["models"]] == ["strong", "weak"]
        for model in report["models"]:
            check_model(model, expected[model["name"]], method)


def test_report_json_file_and_curve_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    path = write_formats(tmp_path)[0]
    out = tmp_path / "out"
    assert main(["report", str(path), "--out", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    assert report["files"] == ["curve_strong.csv", "curve_weak.csv", "report.json"]
    assert report["models"][0]["curve_file"] == "curve_strong.csv"
    with (out / "curve_strong.csv").open() as f:
        rows = list(csv.DictReader(f))
    curve = pr_curve(LABELS, STRONG)
    table = curve.to_table(("threshold", "precision", "recall", "tp", "fp", "f1"))
    assert (out / "curve_strong.csv").read_text() == table.to_csv()
    assert list(rows[0]) == ["threshold", "precision", "recall", "tp", "fp", "f1"]
    np.testing.assert_array_equal([float(r["threshold"]) for r in rows], curve.thresholds)
    np.testing.assert_array_equal([float(r["precision"]) for r in rows], curve.precision)
    np.testing.assert_array_equal([float(r["recall"]) for r in rows], curve.recall)
    np.testing.assert_array_equal([float(r["tp"]) for r in rows], curve.tp)
    np.testing.assert_array_equal([float(r["fp"]) for r in rows], curve.fp)
    np.testing.assert_array_equal([float(r["f1"]) for r in rows], curve.f_beta(1.0))


def test_binned_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_formats(tmp_path)[0]
    assert main(["report", str(path), "--bins", "20", "--format", "json", "--beta", "2"]) == 0
    model = json.loads(capsys.readouterr().out)["models"][0]
    curve = pr_curve(LABELS, STRONG, bins=20)
    assert model["curve"]["kind"] == "binned"
    assert model["curve"]["bins"] == 20
    assert model["ap"]["value"] == curve.average_precision("step")
    assert model["best_f"]["beta"] == 2.0
    assert model["best_f"]["value"] == curve.best_f(2.0).value


def test_evaluate_and_text_layout() -> None:
    report = evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])})
    text = report.to_text()
    # The interval is the library's bootstrap with the report's seed; ROC AUC its roc_auc.
    interval = prcurve.bootstrap_average_precision(pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]),
                                                   n_resamples=1000, seed=0)
    ci = f"[{interval.lower:.4f}, {interval.upper:.4f}]"
    auc = prcurve.roc_auc([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    assert text.splitlines()[3:] == [
        "model a (arrays)",
        "  rows                                           4",
        "  positives                                      2                    negatives 2",
        "  prevalence                                0.5000",
        "  AP (step)                                 0.8333                    exact curve: 4 "
        "thresholds",
        f"  AP (step) 95% CI                {ci}                    percentile bootstrap "
        "(stratified), 1000 resamples, seed 0",
        "  AUCPR (davis_goadrich)                    0.7973",
        "  min AP (step) for these counts            0.4167",
        "  normalized AP (step)                      0.7143",
        "  min AUCPR (davis_goadrich)                0.3069",
        "  AUCNPR (davis_goadrich)                   0.7075",
        f"  ROC AUC                                   {auc:.4f}                    the same "
        "counts, ROC view",
        "  best F1                                   0.8000  at threshold 0.7  precision 0.6667, "
        "recall 1.0000",
        "  precision at recall >= 0.9                0.6667  at threshold 0.7  precision 0.6667, "
        "recall 1.0000",
        "  recall at precision >= 0.9                0.5000  at threshold 0.9  precision 1.0000, "
        "recall 0.5000",
    ]


def test_undefined_is_null_with_a_note() -> None:
    report = evaluate({"a": ([1, 0, 0], [0.1, 0.9, 0.8])})
    model = report.to_dict()["models"][0]
    entry = model["recall_at_precision"]
    assert entry["value"] is None
    assert entry["threshold"] is None
    assert entry["note"] == "undefined: no threshold reaches precision 0.9"
    assert "NaN" not in report.to_json()
    assert "undefined: no threshold reaches precision 0.9" in report.to_text()


def test_non_integer_weights_say_why_min_ap_is_missing() -> None:
    report = evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], [0.5, 1, 1, 1])})
    model = report.models[0].values
    assert model["min_ap"]["value"] is None
    assert model["min_ap"]["note"].startswith("not available: ")
    assert model["aucnpr"]["value"] == bounds.aucnpr(model["aucpr"]["value"],
                                                     model["prevalence"])


def test_csv_rows_name_their_methods() -> None:
    report = evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])},
                      ReportSettings(ap_method="interpolated"))
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert rows[0]["ap_method"] == "interpolated"
    assert float(rows[0]["ap"]) == float(rows[0]["ap_interpolated"])
    assert {f"ap_{m}" for m in AP_METHODS} <= set(rows[0])
    assert rows[0]["recall_at_precision_level"] == "0.9"


def test_fail_under_parsing_and_failures() -> None:
    assert parse_fail_under("aucnpr=0.5") == ("aucnpr", 0.5)
    for bad in ("ap", "ap=x", "nope=0.1", "ap=nan"):
        with pytest.raises(prcurve.InvalidInputError, match="--fail-under"):
            parse_fail_under(bad)
    report = evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]),
                       "b": ([1, 0, 0], [0.1, 0.9, 0.8])})
    assert report.failures([("ap", 0.5)]) == [
        "model b: AP (step) = 0.333333 < 0.5 (--fail-under ap=0.5)"]
    assert report.failures([("recall_at_precision", 0.1)]) == [
        "model b: recall at precision >= 0.9 is undefined, below 0.1 "
        "(--fail-under recall_at_precision=0.1)"]
    for metric in FAIL_UNDER_METRICS:
        value, label = report.metric(report.models[0], metric)
        assert value is not None
        assert math.isfinite(value)
        assert label


# -- intervals, ROC AUC and the side-by-side table -------------------------------------------


def test_interval_and_roc_auc_are_the_librarys(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = write_formats(tmp_path)[0]
    assert main(["report", str(path), "--format", "json", "--ci", "0.9", "--resamples",
                 "300"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    for model, scores in zip(models, (STRONG, WEAK), strict=True):
        curve = pr_curve(LABELS, scores)
        expected = prcurve.bootstrap_average_precision(curve, n_resamples=300, level=0.9,
                                                       seed=0)
        interval = model["ap_interval"]
        assert (interval["low"], interval["high"]) == (expected.lower, expected.upper)
        assert interval["level"] == 0.9
        assert interval["resamples"] == 300
        assert interval["method"] == "percentile bootstrap (stratified)"
        assert model["roc_auc"] == prcurve.roc_auc(LABELS, scores)
    assert main(["report", str(path), "--format", "json", "--ci", "none"]) == 0
    assert json.loads(capsys.readouterr().out)["models"][0]["ap_interval"] is None


def test_interval_is_skipped_with_a_note_when_it_would_be_slow_or_impossible() -> None:
    from prcurve.present.report import ReportSettings as Settings

    few_cells = Settings(ci_max_cells=3)
    model = evaluate({"a": (LABELS, STRONG)}, few_cells).models[0].values
    assert model["ap_interval"]["low"] is None
    assert "--ci 0.95 to compute it" in model["ap_interval"]["note"]
    weighted = evaluate({"a": (LABELS, STRONG, np.full(LABELS.shape, 0.5))}).models[0].values
    assert weighted["ap_interval"]["low"] is None
    assert weighted["ap_interval"]["note"].startswith("not available")


def test_models_side_by_side_fit_100_columns() -> None:
    report = evaluate({"seed000:strong": (LABELS, STRONG), "seed000:weak": (LABELS, WEAK)})
    text = report.to_text()
    assert "models side by side" in text
    table = report.comparison_table()
    assert table["model"].tolist() == ["seed000:strong", "seed000:weak"]
    assert table["AP (step)"].tolist() == [f"{report.models[0].values['ap']['value']:.4f}",
                                           f"{report.models[1].values['ap']['value']:.4f}"]
    assert max(len(line) for line in table.to_text().splitlines()) <= 100
    every = report.comparison_table(every_method=True)
    assert [f"AP ({m})" for m in AP_METHODS] == [c for c in every.columns if c.startswith("AP (")]

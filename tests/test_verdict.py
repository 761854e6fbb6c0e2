"""The verdict of two or more models (issue 28, item 4): ``prcurve report`` and ``prcurve coco``.

References: every pair's numbers equal :func:`prcurve.space.intervals.compare_average_precision`
(classifiers) and :func:`prcurve.detection.compare_detectors` (detectors) called directly with
the same seed; the corrected p-values equal statsmodels' ``multipletests``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

import prcurve
from prcurve.cli import main
from prcurve.detection import compare_detectors, evaluate_coco
from prcurve.errors import InvalidInputError
from prcurve.present import verdict as show
from prcurve.space.intervals import Interval, PairedComparison, compare_average_precision
from prcurve.space.model_comparison import compare_scores, model_pairs, verdict_of

STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def _models(n: int = 300, seed: int = 0) -> tuple[Any, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return y, {"good": rng.normal(size=n) + 2.0 * y, "close": rng.normal(size=n) + 1.8 * y,
               "weak": rng.normal(size=n) + 0.3 * y}


# -- the computation --------------------------------------------------------------------------


@pytest.mark.parametrize("baseline", [None, "weak"])
@pytest.mark.parametrize("method", ["step", "davis_goadrich", "interpolated"])
def test_pairs_equal_compare_average_precision(baseline: str | None, method: str) -> None:
    y, scores = _models()
    verdict = compare_scores(y, scores, methods=[method], baseline=baseline, n_resamples=200,
                             seed=7, correction="none")
    expected_pairs = ([("good", "weak"), ("close", "weak")] if baseline else
                      [("good", "close"), ("good", "weak"), ("close", "weak")])
    assert [(r.a, r.b) for r in verdict.rows] == expected_pairs
    for row in verdict.rows:
        direct = compare_average_precision(y, scores[row.a], scores[row.b], method=method,
                                           n_resamples=200, seed=7)
        assert (row.value_a, row.value_b) == (direct.estimate_a, direct.estimate_b)
        assert (row.difference, row.low, row.high) == (
            direct.difference.estimate, direct.difference.lower, direct.difference.upper)
        assert row.p_value == direct.p_value == row.p_adjusted  # correction "none"
        assert row.better == (row.a if row.difference > 0 else row.b)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_corrections_equal_statsmodels(correction: str) -> None:
    y, scores = _models(n=120, seed=3)
    verdict = compare_scores(y, scores, methods=["step", "davis_goadrich"], n_resamples=200,
                             seed=1, correction=correction)  # type: ignore[arg-type]
    for measure in verdict.measures:  # one family per measure
        rows = [r for r in verdict.rows if r.measure == measure]
        raw = np.array([r.p_value for r in rows])
        reject, adjusted, _, _ = multipletests(raw, alpha=0.05, method=STATSMODELS[correction])
        assert [r.p_adjusted for r in rows] == pytest.approx(adjusted.tolist(), abs=1e-12)
        assert [r.significant for r in rows] == reject.tolist()


def _comparison(p: float, estimate: float = 0.1) -> PairedComparison:
    interval = Interval("d", estimate, estimate - 0.1, estimate + 0.1, "paired", 0.95, 10)
    return PairedComparison("d", 0.5 + estimate, 0.5, interval, p)


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12),
       st.sampled_from(["holm", "bonferroni", "bh"]))
def test_verdict_of_corrects_one_family_as_statsmodels(p_values: list[float],
                                                       correction: str) -> None:
    results = [("AP", f"m{i}", "base", _comparison(p)) for i, p in enumerate(p_values)]
    results += [("other", f"m{i}", "base", _comparison(1.0)) for i in range(3)]  # own family
    verdict = verdict_of(results, models=[], baseline="base",
                         method="test", correction=correction)  # type: ignore[arg-type]
    reject, adjusted, _, _ = multipletests(p_values, alpha=0.05,
                                           method=STATSMODELS[correction])
    first = verdict.rows[:len(p_values)]
    assert [r.p_adjusted for r in first] == pytest.approx(adjusted.tolist(), abs=1e-12)
    assert [r.significant for r in first] == reject.tolist()
    assert all(r.p_adjusted >= r.p_value - 1e-15 for r in verdict.rows)
    assert [r.p_adjusted for r in verdict.rows[len(p_values):]] == [1.0, 1.0, 1.0]


def test_model_pairs_and_baseline_errors() -> None:
    assert model_pairs(["a", "b"], None) == [("a", "b")]
    assert model_pairs(["a", "b", "c"], "c") == [("a", "c"), ("b", "c")]
    y, scores = _models(n=60)
    with pytest.raises(InvalidInputError, match="baseline: 'x' is not one of the models"):
        compare_scores(y, scores, baseline="x")
    with pytest.raises(InvalidInputError, match="only one of the models"):
        compare_scores(y, {"good": scores["good"]}, baseline="good")
    with pytest.raises(InvalidInputError, match="correction"):
        compare_scores(y, scores, correction="sidak")  # type: ignore[arg-type]


# -- the report ------------------------------------------------------------------------------


def test_report_comparison_equals_compare_scores_and_shows_it() -> None:
    y, scores = _models()
    r = prcurve.report(y, scores, resamples=200, baseline="weak", ap_method="interpolated")
    direct = compare_scores(y, scores, methods=["interpolated", "davis_goadrich"],
                            baseline="weak", n_resamples=200, seed=0).to_dict()
    assert r.comparison is not None
    assert r.comparison["rows"] == direct["rows"]
    assert r.comparison["measures"] == ["AP (interpolated)", "AUCPR (davis_goadrich)"]
    document = json.loads(r.to_json())["comparison"]
    assert set(document) >= {"models", "baseline", "pairs", "measures", "method", "correction",
                             "alpha", "level", "resamples", "seed", "rows", "notes"}
    assert set(document["rows"][0]) == {"measure", "a", "b", "value_a", "value_b",
                                        "difference", "ci_low", "ci_high", "p_value",
                                        "p_adjusted", "significant", "better"}
    sentence = show.headline(r.comparison)
    assert sentence.startswith("Against the baseline weak (AP (interpolated)")
    assert "significantly higher: good (+" in sentence
    assert sentence in r.to_text()
    assert html.escape(sentence) in r._repr_html_()


def test_report_without_comparison_and_with_unpairable_models() -> None:
    y, scores = _models(n=50)
    assert prcurve.report(y, scores["good"], ci=None).comparison is None  # one model
    assert "verdict" not in prcurve.report(y, scores["good"], ci=None).to_text()
    weights = np.ones(50)
    r = prcurve.report(y, {"a": scores["good"], "b": scores["weak"]}, sample_weight=weights,
                       ci=None)
    assert r.comparison is not None
    assert r.comparison["rows"] == []
    assert any("sample weights" in note for note in r.comparison["notes"])
    with pytest.raises(InvalidInputError, match="baseline: 'a' is not one of the models "
                       "that can be compared"):
        prcurve.report(y, {"a": scores["good"], "b": scores["weak"]}, sample_weight=weights,
                       ci=None, baseline="a")


def test_large_comparisons_are_skipped_by_default_with_a_note() -> None:
    from prcurve.present.report import ReportSettings
    from prcurve.present.report_build import evaluate

    y, scores = _models(n=80)
    models = {name: (y, s) for name, s in scores.items()}  # 3 pairs of 80 distinct scores
    skipped = evaluate(models, ReportSettings(ci_level=None, ci_max_cells=200))
    assert skipped.comparison is not None
    assert skipped.comparison["rows"] == []
    assert "not computed by default: 3 pair(s)" in skipped.comparison["notes"][-1]
    assert "No comparison: not computed by default" in skipped.to_text()
    assert skipped.to_text().count("not computed by default: 3 pair(s)") == 1
    one_pair = evaluate(models, ReportSettings(ci_level=None, ci_max_cells=200, resamples=50),
                        baseline="weak")  # 2 pairs x 80 <= 200
    assert one_pair.comparison is not None
    assert len(one_pair.comparison["rows"]) == 4
    uncapped = evaluate(models, ReportSettings(ci_level=0.9, ci_max_cells=None, resamples=50))
    assert uncapped.comparison is not None
    assert uncapped.comparison["level"] == 0.9
    assert len(uncapped.comparison["rows"]) == 6


def test_undefined_values_are_said() -> None:
    rows = [{"measure": "AP", "a": a, "b": b, "value_a": None, "value_b": None,
             "difference": None, "ci_low": None, "ci_high": None, "p_value": None,
             "p_adjusted": None, "significant": False, "better": None}
            for a, b in model_pairs(["x", "y", "z"], None)]
    comparison = {"rows": rows, "alpha": 0.05, "level": 0.95, "correction": "holm",
                  "baseline": None, "method": "m", "resamples": 10, "seed": 0, "notes": []}
    assert show.headline(comparison) == "No model has a defined AP; nothing to compare."
    assert "undefined" in "\n".join(show.text_lines(comparison))


def test_report_without_positives_says_undefined() -> None:
    r = prcurve.report([0, 0, 0, 0], {"a": [.1, .2, .3, .4], "b": [.4, .3, .2, .1]}, ci=None)
    assert r.comparison is not None
    assert [row["value_a"] for row in r.comparison["rows"]] == [None, None]
    assert "No model has a defined AP (step)" in r.to_text()


def test_headline_names_the_best_of_all_pairs() -> None:
    y, scores = _models(n=400, seed=2)
    r = prcurve.report(y, scores, resamples=200)
    sentence = show.headline(r.comparison)
    best = max(scores, key=lambda n: prcurve.average_precision(y, scores[n]))
    assert sentence.startswith(f"{best} has the highest AP (step)")
    assert "weak" in sentence.split("significantly better than")[1] or (
        "every model" in sentence)


def test_html_page_states_the_verdict() -> None:
    pytest.importorskip("bokeh")
    y, scores = _models(n=200)
    r = prcurve.report(y, scores, resamples=100)
    page = r.to_html()
    assert html.escape(show.headline(r.comparison)) in page
    assert "prc-verdict-table" in page


# -- the command line ------------------------------------------------------------------------


def _csv(folder: Path, n: int = 250) -> Path:
    y, scores = _models(n=n, seed=5)
    path = folder / "scores.csv"
    lines = ["label,good,close,weak"] + [
        f"{int(y[i])},{float(scores['good'][i])!r},{float(scores['close'][i])!r},"
        f"{float(scores['weak'][i])!r}"
        for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_report_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path)
    assert main(["report", str(path), "--resamples", "100", "--baseline", "weak",
                 "--format", "json", "--correction", "bonferroni"]) == 0
    document = json.loads(capsys.readouterr().out)["comparison"]
    assert document["baseline"] == "weak"
    assert document["pairs"] == "baseline"
    assert document["correction"] == "bonferroni"
    assert document["resamples"] == 100
    assert [(r["a"], r["b"]) for r in document["rows"]] == [("good", "weak"), ("close", "weak")] * 2
    assert main(["report", str(path), "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "\nverdict\n" in out
    assert "has the highest AP (step)" in out
    assert main(["report", str(path), "--resamples", "100", "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    written = json.loads((tmp_path / "o" / "report.json").read_text())
    assert written["comparison"]["pairs"] == "all"
    page = (tmp_path / "o" / "report.html").read_text()
    assert html.escape(show.headline(written["comparison"])) in page


@pytest.mark.parametrize(("extra", "message"), [
    (["--baseline", "nope"], "--baseline: 'nope' is not one of the models"),
    (["--score", "good", "--baseline", "good"], "--baseline: 'good' is the only one"),
    (["--correction", "sidak"], "--correction: unknown value 'sidak'"),
])
def test_cli_report_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              extra: list[str], message: str) -> None:
    path = _csv(tmp_path, n=30)
    assert main(["report", str(path), "--ci", "none", *extra]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1
    assert message in errors[0]
    assert "Traceback" not in err


# -- detectors -------------------------------------------------------------------------------


def _detection_files(folder: Path) -> tuple[str, list[str]]:
    rng = np.random.default_rng(3)
    images = [{"id": i, "width": 500, "height": 500} for i in range(1, 31)]
    annotations = []
    for image in images:
        for _ in range(int(rng.integers(1, 5))):
            x, y = rng.uniform(0, 400, 2)
            w, h = rng.uniform(20, 80, 2)
            annotations.append({"id": len(annotations) + 1, "image_id": image["id"],
                                "category_id": int(rng.integers(1, 3)),
                                "bbox": [x, y, w, h], "area": w * h, "iscrowd": 0})
    gt = folder / "gt.json"
    gt.write_text(json.dumps({"images": images, "annotations": annotations, "categories": [
        {"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}]}))
    paths = []
    for name, noise in (("sharp", 1.0), ("blurry", 4.0), ("bad", 8.0)):
        results = [{"image_id": a["image_id"], "category_id": a["category_id"],
                    "bbox": (np.array(a["bbox"]) + np.r_[rng.normal(0, noise, 2), 0, 0]
                             ).tolist(), "score": float(rng.random())}
                   for a in annotations if rng.random() < 0.9]
        (folder / f"{name}.json").write_text(json.dumps(results))
        paths.append(str(folder / f"{name}.json"))
    return str(gt), paths


def test_coco_several_detectors_equal_compare_detectors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt, paths = _detection_files(tmp_path)
    assert main(["coco", gt, *paths, "--json", "--bootstrap", "150", "--seed", "4",
                 "--baseline", "bad"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document["detectors"]) == ["sharp", "blurry", "bad"]
    comparison = document["comparison"]
    assert comparison["measures"] == ["mAP", "AP50"]
    evaluations = {Path(p).stem: evaluate_coco(gt, p) for p in paths}
    raw = []
    for row in comparison["rows"]:
        direct = compare_detectors(evaluations[row["a"]], evaluations[row["b"]],
                                   statistic=row["measure"], n_resamples=150, seed=4)
        assert row["b"] == "bad"
        assert (row["value_a"], row["value_b"], row["difference"]) == pytest.approx(
            (direct.estimate_a, direct.estimate_b, direct.difference.estimate), abs=0)
        assert (row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
            (direct.difference.lower, direct.difference.upper, direct.p_value), abs=0)
        raw.append(row["p_value"])
    for start in (0, 2):  # mAP's family, AP50's family
        _, adjusted, _, _ = multipletests(raw[start:start + 2], method="holm")
        assert [r["p_adjusted"] for r in comparison["rows"][start:start + 2]] == (
            pytest.approx(adjusted.tolist(), abs=1e-12))


def test_coco_several_detectors_text_and_out(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    gt, paths = _detection_files(tmp_path)
    out = tmp_path / "out"
    assert main(["coco", gt, *paths, "--bootstrap", "100", "--out", str(out),
                 "--no-plots", "--per-class"]) == 0
    printed = capsys.readouterr().out
    assert "detector sharp (" in printed
    assert "\nverdict\n" in printed
    assert "sharp has the highest mAP" in printed
    assert printed.count("best F1 at score") == 3  # --per-class: one table per detector
    assert sorted(p.name for p in out.iterdir()) == ["per_class.csv", "report.json"]
    assert (out / "per_class.csv").read_text().startswith("detector,category_id,name")
    assert json.loads((out / "report.json").read_text())["comparison"]["pairs"] == "all"


@pytest.mark.parametrize(("command", "extra", "message"), [
    ("coco", ["--baseline", "nope"], "--baseline: 'nope' is not one of the detectors"),
    ("voc", ["--baseline", "nope"], "--baseline: 'nope' is not one of the detectors"),
    ("coco", ["--correction", "x"], "--correction: unknown value 'x'"),
])
def test_coco_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
                        extra: list[str], message: str) -> None:
    gt, paths = _detection_files(tmp_path)
    assert main([command, gt, *paths[:2], *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert message in err[0]


def test_coco_one_detector_with_baseline(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    gt, paths = _detection_files(tmp_path)
    assert main(["coco", gt, paths[0], "--baseline", "sharp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "'sharp' is the only one of the detectors" in err[0]

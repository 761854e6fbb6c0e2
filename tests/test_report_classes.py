"""Multi-class and multi-label reports: one-vs-rest per class, macro/weighted/micro averages.

Every average is checked against scikit-learn's ``average_precision_score`` and
``roc_auc_score`` on the binarized labels (the independent reference); the
page's per-class confusion matrices against the library in headless Chromium.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.preprocessing import label_binarize

import prcurve
from prcurve import InvalidInputError, UndefinedMetricWarning
from prcurve.present.report import ReportSettings
from prcurve.present.report_build import evaluate

RNG = np.random.default_rng(12)
CLASSES = np.array(["bird", "cat", "dog"])
N = 600
LABELS = RNG.choice(CLASSES, N, p=[0.2, 0.5, 0.3])
SCORES = np.round(RNG.random((N, 3)), 2)  # ties on purpose
SCORES[np.arange(N), np.searchsorted(CLASSES, LABELS)] += 0.25
WEIGHTS = RNG.choice([0.5, 1.0, 3.0], N)


def multiclass(**keywords: Any) -> Any:
    return prcurve.report(LABELS, SCORES, ci=None, **keywords)


def test_each_class_and_every_average_equal_scikit_learn() -> None:
    report = multiclass(sample_weight=WEIGHTS)
    truth = label_binarize(LABELS, classes=CLASSES)
    (group,) = report.class_averages
    assert group.kind == "multi-class"
    assert group.classes == CLASSES.tolist()
    assert group.members == ["model[bird]", "model[cat]", "model[dog]", "model[micro]"]
    by_name = {m.name: m for m in report.models}
    for j, cls in enumerate(CLASSES):
        expected = average_precision_score(truth[:, j], SCORES[:, j], sample_weight=WEIGHTS)
        assert by_name[f"model[{cls}]"].values["ap"]["value"] == pytest.approx(expected,
                                                                                abs=1e-12)
        assert group.support[j] == pytest.approx(WEIGHTS[cls == LABELS].sum(), abs=1e-9)
    for average in ("macro", "weighted", "micro"):
        ap = average_precision_score(truth, SCORES, average=average, sample_weight=WEIGHTS)
        auc = roc_auc_score(truth, SCORES, average=average, sample_weight=WEIGHTS)
        assert group.average_precision["step"][average] == pytest.approx(ap, abs=1e-12)
        assert group.roc_auc[average] == pytest.approx(auc, abs=1e-12)
    # The micro model is the pooled curve: its AP is the micro average.
    assert by_name["model[micro]"].values["ap"]["value"] == pytest.approx(
        group.average_precision["step"]["micro"], abs=1e-15)


def test_every_ap_method_is_averaged_from_the_per_class_values() -> None:
    report = multiclass()
    (group,) = report.class_averages
    members = [m for m in report.models if m.name in group.members[:-1]]
    support = np.array(group.support)
    for method, averages in group.average_precision.items():
        values = np.array([m.values["average_precision"][method] for m in members])
        assert averages["macro"] == pytest.approx(values.mean(), abs=1e-12)
        assert averages["weighted"] == pytest.approx(np.dot(values, support) / support.sum(),
                                                     abs=1e-12)
        micro = report.models[-1].values["average_precision"][method]
        assert averages["micro"] == pytest.approx(micro, abs=1e-15)


def test_multilabel_indicator_matrix_equals_scikit_learn() -> None:
    truth = (RNG.random((N, 4)) < [0.1, 0.3, 0.5, 0.05]).astype(int)
    scores = np.round(RNG.random((N, 4)) + 0.3 * truth, 2)
    report = prcurve.report(truth, {"tagger": scores}, ci=None)
    (group,) = report.class_averages
    assert group.kind == "multi-label"
    assert group.classes == ["0", "1", "2", "3"]
    for average in ("macro", "weighted", "micro"):
        expected = average_precision_score(truth, scores, average=average)
        assert group.average_precision["step"][average] == pytest.approx(expected, abs=1e-12)


def test_a_class_without_positives_is_undefined_not_zero() -> None:
    truth = (RNG.random((50, 3)) < 0.4).astype(int)
    truth[:, 2] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = prcurve.report(truth, RNG.random((50, 3)), ci=None)
    (group,) = report.class_averages
    assert report.models[2].values["ap"]["value"] is None
    assert group.average_precision["step"]["macro"] is None  # a mean over an undefined class
    assert group.average_precision["step"]["weighted"] is not None  # support 0: weight 0
    data = json.loads(report.to_json())
    assert data["class_averages"][0]["average_precision"]["step"]["macro"] is None
    assert "recall undefined" in report.to_text()  # its best F's operating point
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=200)
    report.print_rich(console)
    assert "macro average" in console.file.getvalue()  # type: ignore[attr-defined]
    assert "classes of model model" in report.to_html()


def test_outputs_name_the_classes_and_the_averages(tmp_path: Path) -> None:
    report = multiclass()
    text = report.to_text()
    assert "classes of model model (arrays; multi-class, one-vs-rest" in text
    for line in ("macro average", "weighted average", "micro average"):
        assert line in text
    assert max(len(line) for line in text.splitlines()) <= 120
    data = json.loads(report.to_json())
    (group,) = data["class_averages"]
    assert [c["class"] for c in group["classes"]] == CLASSES.tolist()
    assert group["micro_model"] == "model[micro]"
    rows = report.to_csv().splitlines()
    assert rows[0].split(",")[3] == "class"
    assert [r.split(",")[3] for r in rows[1:]] == [*CLASSES.tolist(), "micro"]
    assert "macro average" in report._repr_html_()


def test_class_average_gates() -> None:
    report = multiclass()
    macro = report.class_averages[0].average_precision["step"]["macro"]
    assert report.failures([("macro_ap", macro - 0.01)]) == []
    (line,) = report.failures([("macro_ap", macro + 0.01)])
    assert line.startswith("model model: macro AP (step) = ")
    binary = evaluate({"a": ([1, 0, 1], [0.9, 0.5, 0.1])}, ReportSettings(ci_level=None))
    with pytest.raises(InvalidInputError, match="macro_ap is an average over the classes"):
        binary.failures([("macro_ap", 0.5)])


def test_bins_with_classes_are_refused_as_by_pr_curve() -> None:
    with pytest.raises(InvalidInputError, match="bins"):
        multiclass(bins=10)


def test_two_models_without_an_interval_print() -> None:
    # Regression: ci=None left ap_interval None, and the comparison table failed on it.
    report = prcurve.report([1, 0, 1, 0], {"a": [0.9, 0.8, 0.7, 0.6], "b": [1, 2, 3, 4]},
                            ci=None)
    assert "models side by side" in report.to_text()


def test_page_lists_the_classes_and_their_averages() -> None:
    page = multiclass().to_html()  # bokeh: in the test extra
    assert "classes of model model" in page
    # One row of the classes table; the page's glossary (at its end) explains the term.
    tables, glossary = page.rsplit('class="prc-glossary"', 1)
    assert tables.count("macro average") == 1
    assert "macro average" in glossary


# -- data frames -----------------------------------------------------------------------------


def test_a_data_frame_is_read_as_a_file_is() -> None:
    import pandas as pd

    frame = pd.DataFrame({"label": LABELS, "w": WEIGHTS, **{
        f"p_{c}": SCORES[:, j] for j, c in enumerate(CLASSES)}})
    report = prcurve.report(frame, sample_weight="w", ci=None)
    (group,) = report.class_averages
    truth = label_binarize(LABELS, classes=CLASSES)
    expected = average_precision_score(truth, SCORES, average="macro", sample_weight=WEIGHTS)
    assert group.average_precision["step"]["macro"] == pytest.approx(expected, abs=1e-12)
    assert group.score_columns == ["p_bird", "p_cat", "p_dog"]
    # A binary frame: text labels with pos_label, score columns named.
    binary = pd.DataFrame({"y": ["p", "n", "p", "n"], "s": [0.9, 0.8, 0.7, 0.6]})
    one = prcurve.report(binary, "s", pos_label="p", ci=None)
    assert one.models[0].values["ap"]["value"] == pytest.approx(
        average_precision_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]), abs=1e-15)


def test_a_missing_label_in_a_frame_is_refused_or_dropped() -> None:
    import pandas as pd

    frame = pd.DataFrame({"y": pd.Series(["p", None, "n", "p"], dtype="string"),
                          "s": [0.9, 0.8, 0.7, 0.6]})
    with pytest.raises(InvalidInputError, match="missing label"):
        prcurve.report(frame, pos_label="p", ci=None)
    kept = prcurve.report(frame, pos_label="p", drop_invalid=True, ci=None)
    assert kept.models[0].values["rows_dropped"] == 1
    assert kept.models[0].values["ap"]["value"] == pytest.approx(
        average_precision_score([1, 0, 1], [0.9, 0.7, 0.6]), abs=1e-15)


def test_frame_options_with_arrays_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="label: names a column"):
        prcurve.report([1, 0], [0.5, 0.2], label="y")
    with pytest.raises(InvalidInputError, match="pos_label"):
        prcurve.report(["a", "b"], [0.5, 0.2], pos_label="a")
    import pandas as pd

    with pytest.raises(InvalidInputError, match="y_score: with a data frame"):
        prcurve.report(pd.DataFrame({"y": [1, 0], "s": [0.4, 0.1]}), np.array([0.4, 0.1]))

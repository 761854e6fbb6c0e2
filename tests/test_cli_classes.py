"""``prcurve report`` on multi-class and multi-label files: one-vs-rest per class.

The class averages are checked against scikit-learn on the same rows (the
independent reference); bad inputs give one line on stderr and exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.preprocessing import label_binarize

from prcurve.cli import main
from prcurve.io.class_columns import match_names, varying_part

RNG = np.random.default_rng(21)
CLASSES = np.array(["bird", "cat", "dog"])
N = 300
LABELS = RNG.choice(CLASSES, N, p=[0.2, 0.5, 0.3])
SCORES = np.round(RNG.random((N, 3)), 3)
SCORES[np.arange(N), np.searchsorted(CLASSES, LABELS)] += 0.3
WEIGHTS = RNG.choice([1.0, 2.0, 0.5], N)


def write(path: Path, header: list[str], columns: list[np.ndarray]) -> Path:
    rows = zip(*(c.tolist() for c in columns), strict=True)
    path.write_text(",".join(header) + "\n"
                    + "".join(",".join("" if v is None else str(v) for v in row) + "\n"
                              for row in rows))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def averages(out: str) -> dict[str, float]:
    (group,) = json.loads(out)["class_averages"]
    return group["average_precision"]["step"] | {
        f"roc_{k}": v for k, v in group["roc_auc"].items()}


def expect(truth: np.ndarray, scores: np.ndarray, weights: np.ndarray | None = None
           ) -> dict[str, float]:
    out = {}
    for average in ("macro", "weighted", "micro"):
        out[average] = average_precision_score(truth, scores, average=average,
                                               sample_weight=weights)
        out[f"roc_{average}"] = roc_auc_score(truth, scores, average=average,
                                              sample_weight=weights)
    return out


def test_columns_named_after_the_classes(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "m.csv", ["label", "w", "p_dog", "p_bird", "p_cat"],
                 [LABELS, WEIGHTS, SCORES[:, 2], SCORES[:, 0], SCORES[:, 1]])
    code, out, err = run(capsys, "report", str(path), "--weight", "w", "--format", "json",
                         "--ci", "none")
    assert code == 0, err
    assert "bird <- p_bird, cat <- p_cat, dog <- p_dog" in err
    got = averages(out)
    truth = label_binarize(LABELS, classes=CLASSES)
    for key, value in expect(truth, SCORES, WEIGHTS).items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    data = json.loads(out)
    assert [m["name"] for m in data["models"]] == ["m[bird]", "m[cat]", "m[dog]", "m[micro]"]
    assert data["inputs"][0]["positive_label"] is None


def test_score_options_in_the_classes_sorted_order(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "o.csv", ["y", "s1", "s2", "s3"],
                 [LABELS, SCORES[:, 0], SCORES[:, 1], SCORES[:, 2]])
    code, out, err = run(capsys, "report", str(path), "--score", "s1", "--score", "s2",
                         "--score", "s3", "--format", "json", "--ci", "none")
    assert code == 0, err
    assert "sorted order): bird <- s1, cat <- s2, dog <- s3" in err
    truth = label_binarize(LABELS, classes=CLASSES)
    assert averages(out)["macro"] == pytest.approx(expect(truth, SCORES)["macro"], abs=1e-12)


def test_unmatched_columns_are_one_clear_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "o.csv", ["y", "s1", "s2", "s3"],
                 [LABELS, SCORES[:, 0], SCORES[:, 1], SCORES[:, 2]])
    code, out, err = run(capsys, "report", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "holds 3 classes (bird, cat, dog)" in err
    assert "--score once per class" in err


def test_multilabel_columns_paired_by_name_and_by_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    truth = (RNG.random((N, 3)) < [0.1, 0.3, 0.5]).astype(int)
    scores = np.round(RNG.random((N, 3)) + 0.3 * truth, 3)
    path = write(tmp_path / "ml.csv", ["y_a", "y_b", "y_c", "p_c", "p_a", "p_b"],
                 [truth[:, 0], truth[:, 1], truth[:, 2], scores[:, 2], scores[:, 0],
                  scores[:, 1]])
    labels = ["--label", "y_a", "--label", "y_b", "--label", "y_c"]
    code, out, err = run(capsys, "report", str(path), *labels, "--format", "json",
                         "--ci", "none")
    assert code == 0, err
    got = averages(out)
    for key, value in expect(truth, scores).items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    code, out, _ = run(capsys, "report", str(path), *labels, "--score", "p_a", "--score",
                       "p_b", "--score", "p_c", "--format", "json", "--ci", "none")
    assert code == 0
    assert averages(out)["macro"] == pytest.approx(expect(truth, scores)["macro"], abs=1e-12)


def test_drop_invalid_drops_a_row_from_every_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    labels = LABELS.astype(object)
    labels[5] = None
    cat = SCORES[:, 1].astype(object)
    cat[9] = "oops"
    path = write(tmp_path / "d.csv", ["label", "bird", "cat", "dog"],
                 [labels, SCORES[:, 0], cat, SCORES[:, 2]])
    code, _, err = run(capsys, "report", str(path))
    assert code == 2
    assert "missing label" in err
    assert err.count("\n") == 1
    code, out, err = run(capsys, "report", str(path), "--drop-invalid", "--format", "json",
                         "--ci", "none")
    assert code == 0, err
    assert "skipped 2 of 300 rows (the same rows for every class)" in err
    keep = np.ones(N, dtype=bool)
    keep[[5, 9]] = False
    truth = label_binarize(LABELS[keep], classes=CLASSES)
    got = averages(out)
    for key, value in expect(truth, SCORES[keep]).items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    assert json.loads(out)["models"][0]["rows"] == N - 2


@pytest.mark.parametrize(("extra", "message"), [
    (["--bins", "10"], "--bins: is not supported for a multi-class"),
    (["--stream"], "for a report per class"),
])
def test_options_that_need_a_binary_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          extra: list[str], message: str) -> None:
    path = write(tmp_path / "m.csv", ["label", "p_bird", "p_cat", "p_dog"],
                 [LABELS, SCORES[:, 0], SCORES[:, 1], SCORES[:, 2]])
    code, out, err = run(capsys, "report", str(path), *extra)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert message in err


def test_multilabel_is_read_in_memory(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "ml.csv", ["y_a", "y_b", "p_a", "p_b"],
                 [np.array([1, 0]), np.array([0, 1]), np.array([0.9, 0.1]),
                  np.array([0.2, 0.8])])
    code, _, err = run(capsys, "report", str(path), "--label", "y_a", "--label", "y_b",
                       "--stream")
    assert code == 2
    assert "read in memory" in err
    assert err.count("\n") == 1


def test_class_average_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "m.csv", ["label", "p_bird", "p_cat", "p_dog"],
                 [LABELS, SCORES[:, 0], SCORES[:, 1], SCORES[:, 2]])
    code, _, err = run(capsys, "report", str(path), "--fail-under", "macro_ap=0.99",
                       "--ci", "none")
    assert code == 1
    assert "fail-under: model m: macro AP (step) = " in err
    assert run(capsys, "report", str(path), "--fail-under", "macro_ap=0.1",
               "--ci", "none")[0] == 0


def test_two_text_classes_still_ask_for_the_positive_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = write(tmp_path / "b.csv", ["label", "score"],
                 [np.array(["a", "b", "a"]), np.array([0.9, 0.3, 0.6])])
    code, _, err = run(capsys, "report", str(path))
    assert code == 2
    assert "--positive VALUE" in err
    # Named after both classes, the same two classes are scored one-vs-rest.
    path = write(tmp_path / "c.csv", ["label", "a", "b"],
                 [np.array(["a", "b", "a"]), np.array([0.9, 0.3, 0.6]),
                  np.array([0.1, 0.7, 0.4])])
    code, out, err = run(capsys, "report", str(path), "--format", "json", "--ci", "none")
    assert code == 0, err
    assert json.loads(out)["class_averages"][0]["average_precision"]["step"]["macro"] == 1.0


def test_name_matching_rules() -> None:
    assert match_names(["1", "2"], ["p1", "p2", "q1"]) == ["p1", "p2"]
    assert match_names(["a", "b"], ["xa", "xb", "ya", "yb"]) is None  # two namings: ambiguous
    assert match_names(["a", "b"], ["a", "b", "pa"]) == ["a", "b"]
    assert match_names(["cat", "dog"], ["cat_score", "dog_score"]) == ["cat_score",
                                                                       "dog_score"]
    assert varying_part(["label_1", "label_10"]) == ["1", "10"]
    assert varying_part(["a", "ab"]) == ["a", "ab"]


def test_dropped_rows_are_counted_by_reason_across_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    labels = LABELS.astype(object)
    labels[3] = None
    bird, dog = SCORES[:, 0].astype(object), SCORES[:, 2].astype(object)
    bird[20], dog[21] = None, None  # a missing score in two different columns
    path = write(tmp_path / "d.csv", ["label", "bird", "cat", "dog"],
                 [labels, bird, SCORES[:, 1], dog])
    code, out, err = run(capsys, "report", str(path), "--drop-invalid", "--format", "json",
                         "--ci", "none")
    assert code == 0, err
    model = json.loads(out)["models"][0]
    assert model["rows_dropped"] == 3
    assert model["dropped"] == {"label_missing": 1, "score_missing_or_nan": 2}
    # Multi-label: a missing label in each of two label columns, and the scores once.
    truth = (RNG.random((N, 2)) < 0.4).astype(object)
    truth[4, 0], truth[7, 1] = None, None
    path = write(tmp_path / "ml.csv", ["y_a", "y_b", "p_a", "p_b"],
                 [truth[:, 0].astype(object), truth[:, 1].astype(object), bird, dog])
    code, out, err = run(capsys, "report", str(path), "--label", "y_a", "--label", "y_b",
                         "--drop-invalid", "--format", "json", "--ci", "none")
    assert code == 0, err
    model = json.loads(out)["models"][0]
    assert model["rows_dropped"] == 4
    assert model["dropped"] == {"label_missing": 2, "score_missing_or_nan": 2}

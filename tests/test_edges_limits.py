"""Issue 25, item 2: numbers at the edges, each class on every path.

- equal-width bins over a score range whose width overflows float64 (+-1e308): edges
  computed without overflow, in the library, ``prcurve report`` (``--bins``, the
  automatic switch of ``--stream``), Dask and Spark; no numpy warning (pytest turns any
  warning into a failure);
- integer labels beyond float precision: CSV labels above int64 and ``--positive
  9223372036854775807`` compared exactly;
- Dask refuses {0, 1} in one partition and {-1, 1} in another, as Spark does.

References: scikit-learn's average precision of the bin indices (a binned curve is the
exact curve of the scores replaced by their bins), brute-force counts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm

import prcurve
from prcurve import BinnedCounts, InvalidInputError
from prcurve.cli import main
from prcurve.core.bin_edges import equal_width_edges

BIG = np.finfo(np.float64).max


def _bin_reference_ap(y: list[int], s: list[float], edges: np.ndarray) -> float:
    """AP of the binned curve, independently: scikit-learn on each score's bin index
    (bins searched among the edges by Python's comparisons, the last bin closed)."""
    index = [max(j for j in range(len(edges) - 1) if edges[j] <= v or j == 0) for v in s]
    return float(skm.average_precision_score(y, index))


WIDE = [(-1e308, 1e308), (-BIG, BIG), (-BIG, 0.0), (-1.0, BIG)]


@pytest.mark.parametrize(("low", "high"), WIDE)
@pytest.mark.parametrize("n", [1, 2, 7, 1024])
def test_equal_width_edges_of_an_overflowing_range(low: float, high: float, n: int) -> None:
    edges = equal_width_edges(low, high, n)
    assert edges[0] == low
    assert edges[-1] == high
    assert np.isfinite(edges).all()
    assert (np.diff(edges / 2) > 0).all()  # halves: the width itself may overflow
    # Equal widths, to rounding: each width against the exact width (in halves, finite).
    half = (np.diff(edges / 2)) / ((high / 2 - low / 2) / n)
    np.testing.assert_allclose(half, 1.0, rtol=1e-9)


def test_equal_width_edges_are_linspace_below_half_the_float_limit() -> None:
    for low, high, n in [(0.0, 1.0, 10), (-3.5, 1e300, 7), (1e307, 5e307, 3), (-4e307, 4e307, 9)]:
        assert np.array_equal(equal_width_edges(low, high, n), np.linspace(low, high, n + 1))


Y = [1, 0, 1, 0, 1, 0, 1, 0]
S = [1e308, -1e308, 0.5, 0.1, -1.7e308, 1.7e308, 3e307, -2e307]


@pytest.mark.parametrize("bins", [2, 4, 16])
def test_binned_ap_over_the_widest_range(bins: int) -> None:
    edges = equal_width_edges(min(S), max(S), bins)
    reference = _bin_reference_ap(Y, S, edges)
    assert prcurve.average_precision(Y, S, bins=bins) == pytest.approx(reference, abs=1e-12)
    curve = prcurve.pr_curve(Y, S, bins=bins)
    assert curve.average_precision() == pytest.approx(reference, abs=1e-12)
    state = BinnedCounts.from_scores(Y, S, edges)
    assert state.to_threshold_counts().n_pos == 4.0
    assert np.array_equal(BinnedCounts.uniform(bins, min(S), max(S)).edges, edges)
    roc = prcurve.roc_curve(Y, S, bins=bins)
    assert len(roc) >= 2


def _csv(path: Path, rows: list[tuple[Any, ...]], header: str = "label,score") -> Path:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any],
                                                                            str]:
    code = main([*argv, "--format", "json", "--no-plots"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


@pytest.mark.parametrize("extra", [["--bins", "4"], ["--stream", "--max-distinct", "2",
                                                      "--switch-bins", "4"]])
def test_report_bins_over_the_widest_range(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           extra: list[str]) -> None:
    path = _csv(tmp_path / "wide.csv", list(zip(Y, S, strict=True)))
    code, report, err = _report(["report", str(path), "--out", str(tmp_path / "o"), *extra],
                                capsys)
    assert code == 0, err
    edges = equal_width_edges(min(S), max(S), 4)
    ap = report["models"][0]["average_precision"]["step"]
    assert ap == pytest.approx(_bin_reference_ap(Y, S, edges), abs=1e-12)
    assert "NaN or infinite" not in err
    assert "Warning" not in err


def test_report_plots_scores_near_the_float_limit(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "wide.csv", list(zip(Y, S, strict=True)))
    code = main(["report", str(path), "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert (tmp_path / "o" / "threshold.png").stat().st_size > 0


# -- integer labels beyond float precision ---------------------------------------------------

TWO64 = 2**64


def test_csv_labels_beyond_int64_are_two_classes(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rows = [(TWO64, 0.9), (TWO64 + 1, 0.8), (TWO64, 0.7), (TWO64 + 1, 0.2), (TWO64 + 1, 0.1)]
    path = _csv(tmp_path / "y.csv", rows)
    for positive in (TWO64, TWO64 + 1):
        code, report, err = _report(["report", str(path), "--positive", str(positive),
                                     "--out", str(tmp_path / "o")], capsys)
        assert code == 0, err
        y = [int(label == positive) for label, _ in rows]
        model = report["models"][0]
        assert report["inputs"][0]["positive_label"] == positive
        assert model["positives"] == sum(y)
        expected = skm.average_precision_score(y, [s for _, s in rows])
        assert model["average_precision"]["step"] == pytest.approx(expected, abs=1e-12)
    # Without --positive the two labels are two values, not one class.
    code, _, err = _report(["report", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert "18446744073709551616, 18446744073709551617} (2 distinct)" in err


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_positive_at_the_int64_limit_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              stream: list[str]) -> None:
    top = np.iinfo(np.int64).max
    rows = [(top, 0.9), (0, 0.8), (top - 1, 0.7), (top, 0.2)]
    path = _csv(tmp_path / "y.csv", rows)
    code, report, err = _report(["report", str(path), "--positive", str(top), *stream,
                                 "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert report["models"][0]["positives"] == 2  # top - 1 is not top
    assert report["inputs"][0]["positive_label"] == top


def test_streamed_csv_labels_beyond_int64_refuse_a_rounded_match(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "y.csv", [(TWO64, 0.9), (TWO64 + 1, 0.8), (TWO64, 0.1)])
    code, _, err = _report(["report", str(path), "--positive", str(TWO64 + 1), "--stream",
                            "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "beyond float64's exact range" in err


# -- Dask: one labelling across partitions ---------------------------------------------------


def test_dask_library_refuses_two_labellings(tmp_path: Path) -> None:
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    from prcurve.dask import pr_counts

    a = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.8, 0.7, 0.6]})
    b = pd.DataFrame({"label": [1, -1, 1, -1], "score": [0.5, 0.4, 0.3, 0.2]})
    frame = dd.concat([dd.from_pandas(a, npartitions=1), dd.from_pandas(b, npartitions=1)])
    for part in (a, b):
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False),
                       tmp_path / f"{len(list(tmp_path.iterdir()))}.parquet")
    files = sorted(str(p) for p in tmp_path.iterdir())
    for data in (frame, files):
        with pytest.raises(InvalidInputError, match="not binary"):
            pr_counts(data, label="label", score="score", scheduler="sync")
    # One labelling in every partition is fine, and equals the in-memory state.
    same = dd.concat([dd.from_pandas(a, npartitions=1), dd.from_pandas(a, npartitions=1)])
    got = pr_counts(same, label="label", score="score", scheduler="sync")
    both = pd.concat([a, a])
    assert got.n_pos == 4
    assert got.n_neg == 4
    assert prcurve.PRCurve(got).average_precision() == pytest.approx(
        skm.average_precision_score(both["label"], both["score"]))


def test_dask_bins_over_the_widest_range(tmp_path: Path) -> None:
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from prcurve.dask import pr_counts

    frame = dd.from_pandas(pd.DataFrame({"label": Y, "score": S}), npartitions=3)
    got = pr_counts(frame, label="label", score="score", bins=4, scheduler="sync")
    edges = equal_width_edges(min(S), max(S), 4)
    assert isinstance(got, BinnedCounts)
    assert np.array_equal(got.edges, edges)
    assert prcurve.PRCurve(got.to_threshold_counts()).average_precision() == pytest.approx(
        _bin_reference_ap(Y, S, edges), abs=1e-12)


# -- JSON numbers too large for a float in COCO/VOC files -------------------------------------

HUGE_INT = "1" + "0" * 400  # an integer no float64 holds (float() raises OverflowError)
GT = {"images": [{"id": 1, "width": 100, "height": 100}],
      "categories": [{"id": 1, "name": "a"}],
      "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20],
                       "area": 400, "iscrowd": 0}]}
DT = [{"image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20], "score": 0.9}]


@pytest.mark.parametrize("command", ["coco", "voc"])
@pytest.mark.parametrize("literal", ["1e400", "-1e400", HUGE_INT])
@pytest.mark.parametrize("where", ["score", "bbox", "area"])
def test_json_numbers_beyond_float64(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     command: str, literal: str, where: str) -> None:
    gt: Any = json.loads(json.dumps(GT))
    dt: Any = json.loads(json.dumps(DT))
    if where == "score":
        dt[0]["score"] = 7777777
    elif where == "bbox":
        dt[0]["bbox"][2] = 7777777
    else:
        gt["annotations"][0]["area"] = 7777777
    # The literal written as text: json.dumps cannot write 1e400 (nor 400 digits as a number).
    (tmp_path / "gt.json").write_text(json.dumps(gt).replace("7777777", literal))
    (tmp_path / "dt.json").write_text(json.dumps(dt).replace("7777777", literal))
    code = main([command, str(tmp_path / "gt.json"), str(tmp_path / "dt.json"),
                 "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1
    assert f"['{where}'] is" in err
    assert "beyond float64's range" in err
    assert "internal error" not in err


def test_library_boxes_beyond_float64() -> None:
    from prcurve.detection import Detections, GroundTruth

    big = int(HUGE_INT)
    with pytest.raises(InvalidInputError, match="beyond float64's range"):
        GroundTruth.from_images([{"image_id": 1, "boxes": [[0, 0, big, 4]], "labels": [1]}])
    with pytest.raises(InvalidInputError, match="beyond float64's range"):
        Detections.from_images([{"image_id": 1, "boxes": [[0, 0, big, 4]], "labels": [1],
                                 "scores": [0.5]}])
    with pytest.raises(InvalidInputError, match="score"):
        Detections.from_images([{"image_id": 1, "boxes": [[0, 0, 3, 4]], "labels": [1],
                                 "scores": [big]}])


# -- resample counts that cannot fit in memory -----------------------------------------------

CURVE_Y = [1, 0, 1, 1, 0, 0, 1, 0] * 5
CURVE_S = [8, 7, 6, 5, 4, 3, 2, 1] * 5


def test_resample_limit_is_the_memory_budget() -> None:
    from prcurve.validation.space import MAX_RESAMPLES, RESAMPLE_MEMORY, check_n_resamples

    assert MAX_RESAMPLES * 8 == RESAMPLE_MEMORY
    assert check_n_resamples(MAX_RESAMPLES) == MAX_RESAMPLES
    with pytest.raises(InvalidInputError, match=f"at most {MAX_RESAMPLES} resamples"):
        check_n_resamples(MAX_RESAMPLES + 1)
    assert check_n_resamples(1000, bytes_each=RESAMPLE_MEMORY // 1000) == 1000
    with pytest.raises(InvalidInputError, match="at most 999 resamples"):
        check_n_resamples(1000, bytes_each=RESAMPLE_MEMORY // 999)


@pytest.mark.parametrize("n", [10**12, 2**63 - 1, 10**30])
def test_library_resamples_beyond_memory_are_refused_at_once(n: int) -> None:
    from prcurve.space import intervals

    curve = prcurve.pr_curve(CURVE_Y, CURVE_S)
    calls = [
        lambda: intervals.bootstrap_average_precision(curve, n_resamples=n),
        lambda: intervals.bootstrap_threshold(curve, 5, n_resamples=n),
        lambda: intervals.bootstrap_curve(curve, n_resamples=n),
        lambda: intervals.compare_average_precision(CURVE_Y, CURVE_S, CURVE_S[::-1],
                                                    n_resamples=n),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError, match="more than the 1 GiB"):
            call()


def test_bootstrap_curve_limit_counts_its_levels() -> None:
    from prcurve.space import intervals
    from prcurve.validation.space import MAX_RESAMPLES

    curve = prcurve.pr_curve(CURVE_Y, CURVE_S)
    # 101 recall levels by default: 101 float64 per resample.
    with pytest.raises(InvalidInputError, match=f"at most {MAX_RESAMPLES // 101} resamples"):
        intervals.bootstrap_curve(curve, n_resamples=MAX_RESAMPLES // 101 + 1)


def _detections(n_images: int) -> tuple[Any, Any]:
    from prcurve.detection import Detections, GroundTruth

    ids = np.arange(n_images)
    boxes = np.tile([0.0, 0.0, 10.0, 10.0], (n_images, 1))
    gt = GroundTruth(ids, np.zeros(n_images, int), boxes)
    dt = Detections(ids, np.zeros(n_images, int), boxes + 1.0, np.linspace(0.1, 0.9, n_images))
    return gt, dt


def test_detection_resamples_beyond_memory_are_refused_at_once() -> None:
    from prcurve.detection import bootstrap_detection, compare_detectors, evaluate_coco
    from prcurve.validation.space import RESAMPLE_MEMORY

    gt, dt = _detections(50)
    evaluation = evaluate_coco(gt, dt)
    limit = RESAMPLE_MEMORY // (3 * 8 * 50)  # three int64 weights of each image per resample
    for call in (lambda n: bootstrap_detection(evaluation, n_resamples=n),
                 lambda n: compare_detectors(evaluation, evaluation, n_resamples=n)):
        with pytest.raises(InvalidInputError, match=f"at most {limit} resamples"):
            call(limit + 1)
        with pytest.raises(InvalidInputError, match="more than the 1 GiB"):
            call(10**20)


def test_cli_resamples_beyond_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "s.csv", list(zip(CURVE_Y, CURVE_S, strict=True)))
    for n in ("1000000000000", "100000000000000000000"):
        code = main(["report", str(path), "--resamples", n, "--out", str(tmp_path / "o")])
        _, err = capsys.readouterr()
        assert code == 2
        assert err.count("\n") == 1
        assert err.startswith("prcurve: error: --resamples: ")
        assert "at most 134217728 resamples" in err
    assert not (tmp_path / "o").exists()  # refused before anything was read or written


@pytest.mark.parametrize("command", ["coco", "voc"])
def test_cli_bootstrap_beyond_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     command: str) -> None:
    (tmp_path / "gt.json").write_text(json.dumps(GT))
    (tmp_path / "dt.json").write_text(json.dumps(DT))
    argv = [command, str(tmp_path / "gt.json"), str(tmp_path / "dt.json")]
    # Past the limit of any interval: refused before the files are read.
    code = main([*argv, "--bootstrap", "100000000000000000000"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "--bootstrap: " in err
    assert "at most 134217728 resamples" in err
    # Past the limit for these images (one image: 24 bytes per resample).
    code = main([*argv, "--bootstrap", str((1 << 30) // 24 + 1)])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1
    assert f"at most {(1 << 30) // 24} resamples" in err


# -- integer scores beyond 2^53 --------------------------------------------------------------

BASE = 2**60  # nanosecond timestamps are about 2^60.6
TIED_BY_FLOAT = np.array([BASE + 3, BASE + 1, BASE + 2, BASE, BASE + 5, BASE + 4], np.int64)
EXACT_BIG = BASE + 256 * np.array([3, 1, 2, 0, 5, 4], np.int64)  # float64 holds these
Y6 = np.array([1, 0, 1, 0, 0, 1])


def test_scikit_learn_orders_big_integers_exactly() -> None:
    # The reference: scikit-learn sorts the integers themselves, so 2^60 + k are six
    # distinct scores; as float64 they would be one tied score (AP 0.5).
    exact = skm.average_precision_score(Y6, TIED_BY_FLOAT)
    assert exact == pytest.approx(skm.average_precision_score(Y6, np.arange(6)[[3, 1, 2, 0, 5, 4]]))
    assert exact != skm.average_precision_score(Y6, TIED_BY_FLOAT.astype(np.float64))


W6 = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_big_integer_scores_ordered_as_scikit_learn_orders_them(dtype: Any) -> None:
    # The exact state orders integers as integers (dense ranks, thresholds the integers).
    scores = TIED_BY_FLOAT.astype(dtype) + (dtype(2**62) if dtype is np.uint64 else 0)
    for weights in (None, W6):
        reference = skm.average_precision_score(Y6, scores, sample_weight=weights)
        assert prcurve.average_precision(Y6, scores, sample_weight=weights) == pytest.approx(
            reference, abs=1e-15)
        curve = prcurve.pr_curve(Y6, scores, sample_weight=weights)
        precision, recall, thresholds = skm.precision_recall_curve(Y6, scores,
                                                                   sample_weight=weights)
        assert curve.thresholds.dtype == np.int64
        assert curve.thresholds.tolist() == thresholds[::-1].tolist()  # exact integers
        np.testing.assert_allclose(curve.precision, precision[::-1][1:], atol=1e-15)
        np.testing.assert_allclose(curve.recall, recall[::-1][1:], atol=1e-15)
        assert curve.average_precision("step") == pytest.approx(reference, abs=1e-15)
        roc = prcurve.roc_curve(Y6, scores, sample_weight=weights)
        assert roc.auc() == pytest.approx(skm.roc_auc_score(Y6, scores, sample_weight=weights))
    curve = prcurve.pr_curve(Y6, scores)
    # Operating points at and between the integers, compared as integers.
    for t in range(-1, 7):
        threshold = int(scores.min()) + t
        predicted = scores >= threshold
        cells = curve.at_threshold(threshold)
        assert (cells.tp, cells.fp) == (int((predicted & (Y6 == 1)).sum()),
                                        int((predicted & (Y6 == 0)).sum()))
    assert curve.best_f().threshold == int(TIED_BY_FLOAT[2]) + (2**62 if dtype is np.uint64
                                                                 else 0)
    # Parts merge exactly, whether float64 holds a part's scores or not.
    parts = [prcurve.ThresholdCounts.from_scores(Y6[i:i + 1], scores[i:i + 1])
             for i in range(6)]
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    assert merged.thresholds.tolist() == curve.thresholds.tolist()
    assert merged.tp.tolist() == curve.tp.tolist()
    assert merged.fp.tolist() == curve.fp.tolist()


def _refusing_calls(scores: Any) -> list[Any]:
    """The paths that compute in float64 (bins, score matrices) refuse such integers."""
    return [
        lambda: prcurve.average_precision(Y6, scores, bins=4),
        lambda: prcurve.pr_curve(Y6, scores, bins=4),
        lambda: BinnedCounts.from_scores(Y6, scores, [0.0, 1.0]),
        lambda: prcurve.roc_curve(Y6, scores, bins=4),
        lambda: prcurve.average_precision(np.array([0, 1, 2, 0, 1, 2]),
                                          np.c_[scores, scores, scores]),
        lambda: prcurve.ThresholdCounts.from_scores(Y6, scores).to_binned([0.0, 1.0]),
        lambda: prcurve.ThresholdCounts.from_scores(Y6, scores).merge(
            prcurve.ThresholdCounts.from_scores([1], [0.5])),
    ]


def test_big_integer_scores_are_never_rounded_into_ties() -> None:
    for call in _refusing_calls(TIED_BY_FLOAT):
        with pytest.raises(InvalidInputError, match="beyond 2\\^53"):
            call()
    # uint64 above int64: no exact path (int64 holds the integer thresholds).
    with pytest.raises(InvalidInputError, match="beyond 2\\^53"):
        prcurve.average_precision(Y6, TIED_BY_FLOAT.astype(np.uint64) + np.uint64(2**63))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_big_integers_that_float64_holds_equal_scikit_learn(dtype: Any) -> None:
    scores = EXACT_BIG.astype(dtype)
    reference = skm.average_precision_score(Y6, scores)
    assert prcurve.average_precision(Y6, scores) == pytest.approx(reference, abs=1e-15)
    curve = prcurve.pr_curve(Y6, scores)
    thresholds = skm.precision_recall_curve(Y6, scores)[2]
    assert curve.thresholds.tolist() == [float(t) for t in thresholds[::-1]]
    # The offset the message suggests gives the exact numbers of the tied-by-float data.
    shifted = TIED_BY_FLOAT - TIED_BY_FLOAT.min()
    assert prcurve.average_precision(Y6, shifted) == pytest.approx(
        skm.average_precision_score(Y6, TIED_BY_FLOAT), abs=1e-15)


def test_inexact_integers_against_python() -> None:
    from prcurve.validation.arrays import inexact_integers

    values = [0, 2**53, 2**53 + 1, -(2**53) - 1, 2**62 + 2**9, 2**62 + 2**10, 2**63 - 1,
              -(2**63), 2**60 + 1]
    got = inexact_integers(np.array(values, dtype=np.int64))
    assert got is not None
    assert got.tolist() == [int(float(v)) != v for v in values]
    unsigned = [2**64 - 1, 2**64 - 2**11, 2**63 + 1, 5, 2**53 + 2]
    got = inexact_integers(np.array(unsigned, dtype=np.uint64))
    assert got is not None
    assert got.tolist() == [int(float(v)) != v for v in unsigned]


@pytest.mark.parametrize("how", [[], ["--stream"]])
def test_report_big_integer_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   how: list[str]) -> None:
    tied = _csv(tmp_path / "t.csv", list(zip(Y6, TIED_BY_FLOAT.tolist(), strict=True)))
    code, _, err = _report(["report", str(tied), *how, "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "beyond 2^53" in err
    exact = _csv(tmp_path / "e.csv", list(zip(Y6, EXACT_BIG.tolist(), strict=True)))
    code, report, err = _report(["report", str(exact), "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert report["models"][0]["average_precision"]["step"] == pytest.approx(
        skm.average_precision_score(Y6, EXACT_BIG), abs=1e-15)


@pytest.mark.parametrize("how", [[], ["--stream"], ["--workers", "1"]])
def test_report_big_integer_parquet_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           how: list[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for name, scores, ok in (("t", TIED_BY_FLOAT, False), ("u", TIED_BY_FLOAT.astype(
            np.uint64) + np.uint64(2**63), False), ("e", EXACT_BIG, True)):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"label": Y6, "score": scores}), path)
        code, report, err = _report(["report", str(path), *how, "--out", str(tmp_path / "o")],
                                    capsys)
        if not ok:
            assert code == 2
            assert err.count("\n") == 1
            assert "beyond 2^53" in err
        else:
            assert code == 0, err
            assert report["models"][0]["average_precision"]["step"] == pytest.approx(
                skm.average_precision_score(Y6, scores), abs=1e-15)


def test_dask_big_integer_scores() -> None:
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from prcurve.dask import pr_counts

    # One value per partition: no partition alone holds a tie, the whole would as float64;
    # the exact states of the parts (integer thresholds) merge into the integers' order.
    frame = dd.from_pandas(pd.DataFrame({"label": Y6, "score": TIED_BY_FLOAT}), npartitions=6)
    got = pr_counts(frame, label="label", score="score", scheduler="sync")
    assert prcurve.PRCurve(got).average_precision() == pytest.approx(
        skm.average_precision_score(Y6, TIED_BY_FLOAT), abs=1e-15)
    # Bins are float64 edges: over [2^60, 2^60 + 5] they cannot be told apart.
    with pytest.raises(InvalidInputError, match="narrower than float64 can tell apart"):
        pr_counts(frame, label="label", score="score", bins=4, scheduler="sync")


@pytest.mark.parametrize("kind", ["jsonl", "csv-with-text"])
def test_labels_beyond_int64_in_json_lines_and_text_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    labels: list[Any] = [TWO64, TWO64 + 1, TWO64, TWO64 + 1]
    scores = [0.9, 0.8, 0.2, 0.1]
    if kind == "jsonl":
        path = tmp_path / "y.jsonl"
        path.write_text("".join(json.dumps({"label": y, "score": s}) + "\n"
                                for y, s in zip(labels, scores, strict=True)))
    else:  # a word among the labels: the column is typed as text, whole
        labels.append("other")
        scores.append(0.5)
        path = _csv(tmp_path / "y.csv", list(zip(labels, scores, strict=True)))
    code, report, err = _report(["report", str(path), "--positive", str(TWO64 + 1),
                                 "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    y = [int(v == TWO64 + 1) for v in labels]
    assert report["models"][0]["positives"] == 2
    assert report["models"][0]["average_precision"]["step"] == pytest.approx(
        skm.average_precision_score(y, scores), abs=1e-12)


def test_bins_narrower_than_float64_spacing_say_so() -> None:
    scores = [1e18, 1e18 + 128, 1e18 + 256]
    with pytest.raises(InvalidInputError, match="1000 equal-width bins over the score range"):
        prcurve.average_precision([1, 0, 1], scores, bins=1000)
    # Two bins fit (float64's spacing at 1e18 is 128): bins 0, 1, 1.
    assert prcurve.average_precision([1, 0, 1], scores, bins=2) == pytest.approx(
        skm.average_precision_score([1, 0, 1], [0, 1, 1]), abs=1e-12)


def test_threshold_intervals_of_integer_thresholds_equal_the_offset_data() -> None:
    from prcurve.space import intervals

    y = np.tile(Y6, 10)
    scores = np.tile(TIED_BY_FLOAT, 10)
    offset = scores - int(TIED_BY_FLOAT.min())  # float64 holds these: the reference
    for k in range(-1, 6):  # above the largest score precision is 0/0
        exact = intervals.bootstrap_threshold(prcurve.pr_curve(y, scores), BASE + k,
                                              n_resamples=50, seed=1)
        shifted = intervals.bootstrap_threshold(prcurve.pr_curve(y, offset), k,
                                                n_resamples=50, seed=1)
        for name in ("precision", "recall"):
            a, b = getattr(exact, name), getattr(shifted, name)
            assert (a.estimate, a.lower, a.upper) == (b.estimate, b.lower, b.upper)

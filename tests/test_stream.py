"""prcurve.stream: streamed states equal the in-memory ones; AP bounds; memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

from prcurve import BinnedCounts, PRCurve, ThresholdCounts
from prcurve.core.binned import resolve_edges
from prcurve.errors import InvalidInputError
from prcurve.io.stream import DEFAULT_MAX_DISTINCT, ap_bounds, stream_counts, stream_scores


def _data(n: int, seed: int = 0, *, distinct: int | None = None, float32: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    s = rng.normal(size=n) + y
    if distinct is not None:
        s = np.round(s * distinct) / distinct
    if float32:
        s = s.astype(np.float32)
    w = rng.integers(0, 4, size=n).astype(np.float64)
    return y, s, w


def _write_parts(folder: Path, y, s, w, parts: int, fmt: str = "parquet") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, idx in enumerate(np.array_split(np.arange(len(y)), parts)):
        table = pa.table({"label": y[idx].astype(np.int64), "score": s[idx], "w": w[idx]})
        path = folder / f"part{i:03d}.{fmt}"
        if fmt == "parquet":
            pq.write_table(table, path, row_group_size=500)
        elif fmt == "csv":
            pacsv.write_csv(table, path)
        else:
            with open(path, "w") as f:
                for row in table.to_pylist():
                    f.write(json.dumps(row) + "\n")
        paths.append(path)
    return paths


def _same_exact(a: ThresholdCounts, b: ThresholdCounts, rtol: float = 0.0) -> None:
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_allclose(a.tp, b.tp, rtol=rtol, atol=0)
    np.testing.assert_allclose(a.fp, b.fp, rtol=rtol, atol=0)
    assert a.n_pos == pytest.approx(b.n_pos, rel=rtol, abs=0)
    assert a.n_neg == pytest.approx(b.n_neg, rel=rtol, abs=0)


# -- exact streaming equals in memory --------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
@pytest.mark.parametrize("batch_rows", [1, 97, 1 << 20])
def test_exact_stream_equals_in_memory(tmp_path: Path, fmt: str, batch_rows: int) -> None:
    n = 600 if batch_rows == 1 else 5000
    y, s, w = _data(n, distinct=50)
    _write_parts(tmp_path / "d", y, s, w, parts=3, fmt=fmt)
    streamed = stream_counts(tmp_path / "d", label="label", score="score", batch_rows=batch_rows)
    assert streamed.mode == "exact"
    assert streamed.rows == n
    assert streamed.ap_bounds is None
    _same_exact(streamed.counts, ThresholdCounts.from_scores(y, s))


def test_exact_stream_with_weights_file_list_and_float32(tmp_path: Path) -> None:
    y, s, w = _data(20000, seed=3, float32=True)
    paths = _write_parts(tmp_path, y, s, w, parts=4)
    streamed = stream_counts(paths, label="label", score="score", weight="w", batch_rows=1000)
    assert streamed.counts.thresholds.dtype == np.float64
    _same_exact(streamed.counts, ThresholdCounts.from_scores(y, s, sample_weight=w), 1e-12)


def test_stream_scores_several_columns_and_choices(tmp_path: Path) -> None:
    y, s, _ = _data(3000, seed=5)
    table = pa.table({"y": y, "a": s, "b": -s, "note": ["x"] * 3000})
    pq.write_table(table, tmp_path / "t.parquet")
    streamed = stream_scores(tmp_path / "t.parquet", batch_rows=512)
    assert streamed.label_column == "y"
    assert streamed.label_chosen == "auto"
    assert [m.column for m in streamed.models] == ["a", "b"]
    assert streamed.skipped_columns == ["note"]
    assert streamed.positive_label is True
    assert streamed.batches == 6
    assert streamed.n_rows == 3000
    _same_exact(streamed.models[1].counts, ThresholdCounts.from_scores(y, -s))


# -- binned: the switch, bins from the start -------------------------------------------


def test_switch_to_binned_equals_binning_all_rows(tmp_path: Path) -> None:
    y, s, w = _data(30000, seed=1)
    _write_parts(tmp_path, y, s, w, parts=3)
    streamed = stream_counts(tmp_path, label="label", score="score", max_distinct=5000,
                             switch_bins=300, batch_rows=1024)
    assert streamed.mode == "binned"
    assert streamed.switched_at_row is not None
    assert streamed.switched_at_row < 30000
    expected = ThresholdCounts.from_scores(y, s).to_binned(resolve_edges(300, s))
    binned = streamed.counts
    assert isinstance(binned, BinnedCounts)
    np.testing.assert_array_equal(binned.edges, expected.edges)
    np.testing.assert_array_equal(binned.pos, expected.pos)
    np.testing.assert_array_equal(binned.neg, expected.neg)
    exact_ap = PRCurve.from_counts(ThresholdCounts.from_scores(y, s)).average_precision()
    bounds = streamed.ap_bounds
    assert bounds is not None
    assert bounds.lower <= exact_ap <= bounds.upper
    assert bounds.binned == pytest.approx(streamed.curve().average_precision(), abs=1e-12)


def test_budget_is_the_number_of_distinct_scores(tmp_path: Path) -> None:
    """The first rows past the budget are screened by a count of their distinct scores
    (-0.0 is 0.0): exactly max_distinct distinct scores stay exact; more repeats first and
    new scores later switch later; more at once switch at the screen."""
    rng = np.random.default_rng(12)
    values = np.r_[np.arange(1.0, 100.0), 0.0]  # 100 distinct, 0.0 among them
    s = np.r_[values, -0.0, rng.choice(values, 400)]  # -0.0: no new score
    y = rng.random(s.shape[0]) < 0.4
    y[:2] = True, False
    cases = [("exact", s, None), ("later", np.r_[s, np.arange(200.0, 260.0)], 561),
             ("screen", np.r_[np.arange(1000.0, 1200.0), s], 150)]
    for name, scores, row in cases:
        labels = np.resize(y, scores.shape[0])
        folder = tmp_path / name
        folder.mkdir()
        pq.write_table(pa.table({"label": labels, "score": scores}), folder / "p.parquet")
        streamed = stream_counts(folder, label="label", score="score", max_distinct=100,
                                 switch_bins=16, batch_rows=50)
        if name == "exact":
            assert streamed.mode == "exact"
            assert len(streamed.counts) == 100
            continue
        assert streamed.mode == "binned"
        # The row of the check that found more than 100 distinct scores: the screen of the
        # first 150 rows, or a later count once the upper bound passed 1.5 x 100.
        assert streamed.switched_at_row == row
        expected = ThresholdCounts.from_scores(labels, scores).to_binned(
            resolve_edges(16, scores))
        np.testing.assert_array_equal(streamed.counts.pos, expected.pos)
        np.testing.assert_array_equal(streamed.counts.neg, expected.neg)


@pytest.mark.parametrize("bins", [64, [-10.0, -1.0, 0.0, 0.5, 1.0, 10.0]])
def test_bins_from_the_start_equal_in_memory(tmp_path: Path, bins) -> None:
    y, s, w = _data(8000, seed=2)
    _write_parts(tmp_path, y, s, w, parts=2, fmt="csv")
    streamed = stream_counts(tmp_path, label="label", score="score", weight="w", bins=bins,
                             batch_rows=999)
    expected = BinnedCounts.from_scores(y, s, resolve_edges(bins, s), sample_weight=w)
    assert streamed.mode == "binned"
    assert streamed.switched_at_row is None
    np.testing.assert_array_equal(streamed.counts.edges, expected.edges)
    np.testing.assert_allclose(streamed.counts.pos, expected.pos, rtol=1e-12)
    np.testing.assert_allclose(streamed.counts.neg, expected.neg, rtol=1e-12)


def test_no_budget_keeps_exact(tmp_path: Path) -> None:
    y, s, w = _data(4000, seed=4)
    _write_parts(tmp_path, y, s, w, parts=1)
    streamed = stream_counts(tmp_path, label="label", score="score", max_distinct=None,
                             batch_rows=100)
    assert streamed.mode == "exact"
    assert len(streamed.counts) == len(np.unique(s))


# -- AP bounds -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300), n_bins=st.integers(1, 40), seed=st.integers(0, 10**6),
    weighted=st.booleans(), ties=st.booleans(),
)
def test_ap_bounds_contain_exact_ap(n: int, n_bins: int, seed: int, weighted: bool,
                                    ties: bool) -> None:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.05, 0.9)
    y[0] = True
    s = rng.random(n)
    if ties:
        s = np.round(s, 1)
    w = rng.uniform(0, 3, n) if weighted else None
    exact = PRCurve.from_counts(ThresholdCounts.from_scores(y, s, sample_weight=w))
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    binned = BinnedCounts.from_scores(y, s, edges, sample_weight=w)
    bounds = ap_bounds(binned)
    ap = exact.average_precision("step")
    assert bounds.lower - 1e-12 <= ap <= bounds.upper + 1e-12
    assert bounds.lower <= bounds.binned <= bounds.upper
    assert bounds.binned == pytest.approx(PRCurve.from_counts(binned).average_precision(),
                                          abs=1e-12)
    assert bounds.max_error >= 0


def test_ap_bounds_upper_reached_and_tighten_with_bins() -> None:
    # Positives first in every bin: the exact AP is the upper bound.
    y = np.array([1, 1, 0, 1, 0, 0], dtype=bool)
    s = np.array([0.95, 0.9, 0.8, 0.45, 0.4, 0.3])
    binned = BinnedCounts.from_scores(y, s, [0.0, 0.5, 1.0])
    exact = PRCurve.from_counts(ThresholdCounts.from_scores(y, s)).average_precision()
    assert ap_bounds(binned).upper == pytest.approx(exact, abs=1e-15)
    yy, ss, _ = _data(200000, seed=9)
    widths = [ap_bounds(BinnedCounts.from_scores(yy, ss, resolve_edges(k, ss)))
              for k in (100, 10000)]
    assert widths[1].upper - widths[1].lower < (widths[0].upper - widths[0].lower) / 10


def test_ap_bounds_without_positives_are_nan() -> None:
    bounds = ap_bounds(BinnedCounts.from_scores([0, 0], [0.1, 0.2], [0, 1]))
    assert np.isnan(bounds.lower)
    assert bounds.to_dict()["lower"] is None


# -- bin_index: the arithmetic index equals the search -------------------------------------


@pytest.mark.parametrize(("n_bins", "low", "high"), [
    (2, 0.0, 1.0), (10, 0.0, 1.0), (7, -3.3, 2.9), (1000, 1e-9, 1e-9 + 1e-6),
    (1 << 16, -1.0, 1.0), (3, 0.1, 0.7), (1 << 20, -6.0, 8.0), (1 << 20, 1e6, 1e6 + 1.0),
    (1000, 1e15, 1e15 + 1e3),  # edges tiny against their magnitude: every score checked
    (1 << 18, -1e300, 1e300), (5, -1e-300, 1e-300),
])
def test_uniform_bin_index_equals_searchsorted(n_bins: int, low: float, high: float) -> None:
    b = BinnedCounts.uniform(n_bins, low, high)
    e = b.edges
    rng = np.random.default_rng(n_bins)
    s = np.concatenate([e, np.nextafter(e, np.inf), np.nextafter(e, -np.inf),
                        rng.uniform(low - 1, high + 1, 20000), [-3e38, 3e38]])
    fits_float32 = np.abs(e).max() < 1e38
    for scores in (s, *([s.astype(np.float32)] if fits_float32 else [])):
        expected = np.searchsorted(e[1:-1], scores, side="right")
        np.testing.assert_array_equal(b.bin_index(scores), expected)
        # The counting path's codes: 2 * bin + label, in one pass.
        positive = rng.random(scores.shape[0]) < 0.3
        np.testing.assert_array_equal(b._codes(scores, positive), 2 * expected + positive)
    irregular = BinnedCounts([0.0, 0.1, 0.5, 1.0])  # not uniform: the search itself
    positive = np.arange(s.shape[0]) % 3 == 0
    np.testing.assert_array_equal(irregular._codes(s, positive),
                                  2 * np.searchsorted([0.1, 0.5], s, side="right") + positive)
    np.testing.assert_array_equal(irregular.bin_index(s),
                                  np.searchsorted([0.1, 0.5], s, side="right"))


def _uniform_or_reject(n_bins: int, low: float, high: float) -> BinnedCounts:
    """``BinnedCounts.uniform``, or Hypothesis's reject() where the bins are narrower than
    float64 can tell apart over ``[low, high]`` (refused by design: core.bin_edges; the
    refusal itself is tested by test_narrow_equal_width_bins_are_a_clear_error)."""
    try:
        return BinnedCounts.uniform(n_bins, low, high)
    except InvalidInputError as error:
        if error.argument != "bins" or "narrower than float64" not in str(error):
            raise
        reject()


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 1 << 20), st.floats(-1e300, 1e300) | st.sampled_from([7e15, -1e18, 0.0]),
       st.integers(1, 1 << 22) | st.floats(2.0**-40, 1e300))
def test_narrow_equal_width_bins_are_a_clear_error(n_bins: int, low: float,
                                                    width: int | float) -> None:
    """Equal-width bins over any finite range, a few float64 spacings wide or wider:
    strictly increasing edges, or, exactly where float64 cannot hold them apart, an
    InvalidInputError naming ``bins``, the count and the range, and saying what to do
    (never repeated edges)."""
    if isinstance(width, int):  # this many float64 spacings at low
        width = width * float(np.spacing(abs(low)))
    high = low + width
    assume(high > low and np.isfinite(high))
    with np.errstate(over="ignore"):
        span_overflows = not (high - low) < np.finfo(np.float64).max / 2
    t = np.arange(n_bins + 1, dtype=np.float64) / n_bins
    edges = (np.linspace(low, high, n_bins + 1) if not span_overflows
             else low * (1.0 - t) + high * t)
    edges[0], edges[-1] = low, high
    repeats = not bool(np.all(edges[1:] > edges[:-1]))
    if not repeats:
        made = BinnedCounts.uniform(n_bins, low, high).edges
        assert bool(np.all(made[1:] > made[:-1]))
        return
    with pytest.raises(InvalidInputError) as refused:
        BinnedCounts.uniform(n_bins, low, high)
    assert refused.value.argument == "bins"
    assert str(refused.value).startswith(
        f"bins: {n_bins} equal-width bins over the score range [{low!r}, {high!r}] are "
        "narrower than float64")
    assert "Use fewer bins, the exact state (no bins)" in str(refused.value)


def test_one_huge_score_gets_its_bins_or_a_clear_bins_error() -> None:
    """Every score 7e15 (float64's spacing there is 1): the one score's range is the
    neighbouring floats [7e15 - 1, 7e15 + 1] (half a unit each side would round back to
    the score itself), so 1 and 2 bins are made, each row in the bin of its score; 3
    bins are narrower than float64's spacing and refused, naming ``bins`` (never
    ``edges``, which the caller did not pass)."""
    import prcurve

    for n_bins in (1, 2):
        curve = prcurve.pr_curve([1, 0, 1], [7e15, 7e15, 7e15], bins=n_bins)
        assert (curve.n_pos, curve.n_neg) == (2, 1)
        assert curve.thresholds.tolist() == [7e15 - 1 if n_bins == 1 else 7e15]
    with pytest.raises(InvalidInputError, match=r"^bins: 3 equal-width bins over the score "
                       r"range \[6999999999999999\.0, 7000000000000001\.0\] are narrower "
                       r"than float64 can tell apart there.*Use fewer bins"):
        prcurve.pr_curve([1, 0, 1], [7e15, 7e15, 7e15], bins=3)
    # Below 2^53 a lone score keeps half a unit each side, as before.
    assert prcurve.pr_curve([1, 0], [2.0, 2.0], bins=1).thresholds.tolist() == [1.5]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 1 << 20), st.floats(-1e12, 1e12), st.floats(1e-9, 1e12),
       st.integers(0, 2**32 - 1))
def test_uniform_bin_index_near_edges_equals_searchsorted(n_bins: int, low: float, width: float,
                                                          seed: int) -> None:
    """Scores on, just above and just below edges, and a NaN: the search's bin every time."""
    high = low + width
    assume(high > low)  # low + width rounds back to low beyond |low| ~ 1e7 with width 1e-9
    b = _uniform_or_reject(n_bins, low, high)
    e = b.edges
    rng = np.random.default_rng(seed)
    picked = e[rng.integers(0, e.shape[0], 3000)]
    s = np.concatenate([picked, np.nextafter(picked, np.inf), np.nextafter(picked, -np.inf),
                        rng.uniform(low, high, 3000), [np.nan]])
    expected = np.searchsorted(e[1:-1], s, side="right")
    np.testing.assert_array_equal(b.bin_index(s), expected)
    positive = rng.random(s.shape[0]) < 0.5
    np.testing.assert_array_equal(b._codes(s, positive), 2 * expected + positive)


# -- errors ---------------------------------------------------------------------------------


def test_bad_inputs_raise_invalid_input(tmp_path: Path) -> None:
    y, s, w = _data(100)
    _write_parts(tmp_path / "ok", y, s, w, parts=1)
    with pytest.raises(InvalidInputError, match="no column 'nope'"):
        stream_counts(tmp_path / "ok", label="label", score="nope")
    with pytest.raises(InvalidInputError, match="max_distinct"):
        stream_counts(tmp_path / "ok", label="label", score="score", max_distinct=0)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInputError, match="is a folder, not a file, and holds no file"):
        stream_counts(tmp_path / "empty", label="label", score="score")
    np.savez(tmp_path / "x.npz", label=y, score=s)
    with pytest.raises(InvalidInputError, match="cannot be read in batches"):
        stream_counts(tmp_path / "x.npz", label="label", score="score")
    with pytest.raises(InvalidInputError, match="no such file"):
        stream_counts(tmp_path / "missing.parquet", label="label", score="score")
    mixed = [*_write_parts(tmp_path / "m1", y, s, w, 1), *_write_parts(tmp_path / "m2", y, s,
                                                                      w, 1, "csv")]
    with pytest.raises(InvalidInputError, match="different formats"):
        stream_counts(mixed, label="label", score="score")


def test_invalid_rows_error_or_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("label,score\n1,0.9\n0,\n1,0.2\n0,nan\n1,0.3\n0,0.1\n")
    with pytest.raises(InvalidInputError, match=r"1 NaN or missing score\(s\) \(row 2\)"):
        stream_counts(path, label="label", score="score", batch_rows=2)
    streamed = stream_counts(path, label="label", score="score", batch_rows=2,
                             drop_invalid=True)
    assert streamed.rows == 4
    assert streamed.rows_dropped == 2
    assert streamed.dropped == {"score_missing_or_nan": 2}
    _same_exact(streamed.counts, ThresholdCounts.from_scores([1, 1, 1, 0], [0.9, 0.2, 0.3, 0.1]))


def test_labels_checked_across_batches(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("label,score\n1,0.9\n0,0.5\n-1,0.2\n1,0.3\n")
    with pytest.raises(InvalidInputError, match="not one binary labelling"):
        stream_counts(path, label="label", score="score", batch_rows=2)
    words = tmp_path / "words.csv"
    words.write_text("label,score\ncat,0.9\ndog,0.5\ncat,0.2\n")
    with pytest.raises(InvalidInputError, match="not a 0/1 or boolean label"):
        stream_counts(words, label="label", score="score")
    streamed = stream_counts(words, label="label", score="score", positive="cat", batch_rows=1)
    assert streamed.counts.n_pos == 2
    assert streamed.counts.n_neg == 1
    none = tmp_path / "none.csv"
    none.write_text("label,score\n0,0.9\n0,0.5\n")
    with pytest.raises(InvalidInputError, match="no positive"):
        stream_counts(none, label="label", score="score")


# -- memory does not grow with the number of rows ----------------------------------------


_MEMORY_SCRIPT = textwrap.dedent("""
    import json, sys, tracemalloc
    from prcurve.io.stream import stream_counts
    tracemalloc.start()
    streamed = stream_counts(sys.argv[1], label="label", score="score",
                             batch_rows=1 << 16, max_distinct=1 << 12, switch_bins=1024)
    _, peak = tracemalloc.get_traced_memory()
    # VmHWM, not ru_maxrss: Linux keeps the parent's high-water mark across fork + exec.
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    print(json.dumps({"mode": streamed.mode, "rows": streamed.rows,
                      "traced_peak": peak, "rss_peak": rss}))
""")


def _peak(path: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(path)], check=True,
                         capture_output=True, text=True, timeout=120)
    result: dict[str, float] = json.loads(out.stdout)
    return result


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_streaming_memory_does_not_grow_with_rows(tmp_path: Path) -> None:
    # Both past the allocators' warm-up (RSS levels off by 4 million rows).
    sizes = (2_000_000, 8_000_000)
    peaks = []
    rng = np.random.default_rng(0)
    for n in sizes:
        folder = tmp_path / f"n{n}"
        folder.mkdir()
        for part in range(n // 500_000):
            y = rng.random(500_000) < 0.05
            table = pa.table({"label": y.astype(np.int64), "score": rng.random(500_000)})
            pq.write_table(table, folder / f"p{part}.parquet", row_group_size=1 << 16)
        peaks.append(_peak(folder))
    small, large = peaks
    assert small["mode"] == large["mode"] == "binned"
    assert large["rows"] == 4 * small["rows"]
    # Holding the scores and labels of 6 million more rows takes 96 MB (float64 +
    # int64); the streamed peaks must stay within a small fraction of that.
    assert large["traced_peak"] < small["traced_peak"] + 8e6
    assert large["rss_peak"] < small["rss_peak"] + 24e6


# -- prcurve report on streamed inputs ------------------------------------------------------


def _report_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:  # type: ignore[type-arg]
    from prcurve.cli import main

    assert main(argv) == 0
    out: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return out


def test_report_streams_a_folder_with_the_in_memory_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    y, s, w = _data(6000, seed=11, distinct=100)
    _write_parts(tmp_path / "d", y, s, w, parts=3)
    pq.write_table(pa.table({"label": y.astype(np.int64), "score": s, "w": w}),
                   tmp_path / "all.parquet")
    common = ["--score", "score", "--weight", "w", "--format", "json"]
    streamed = _report_json(capsys, ["report", str(tmp_path / "d"), *common])
    memory = _report_json(capsys, ["report", str(tmp_path / "all.parquet"), *common])
    a, b = streamed["models"][0], memory["models"][0]
    assert a["state"] == {"engine": "stream", "mode": "exact", "max_distinct": DEFAULT_MAX_DISTINCT,
                          "switched_at_row": None, "ap_bounds": None}
    assert "state" not in b
    assert "engine" not in memory["inputs"][0]
    assert streamed["inputs"][0]["engine"] == "stream"
    assert streamed["inputs"][0]["files"] == 3
    for method, value in b["average_precision"].items():
        assert a["average_precision"][method] == pytest.approx(value, abs=1e-12)
    assert a["best_f"] == pytest.approx(b["best_f"])
    assert a["rows"] == b["rows"] == 6000


def test_report_switches_to_bins_and_reports_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prcurve.cli import main

    y, s, w = _data(20000, seed=12)
    _write_parts(tmp_path, y, s, w, parts=2)
    report = _report_json(capsys, ["report", str(tmp_path), "--score", "score",
                                   "--max-distinct", "1000", "--switch-bins", "512",
                                   "--format", "json"])
    model = report["models"][0]
    state = model["state"]
    assert state["mode"] == "binned"
    assert model["curve"]["kind"] == "binned"
    assert model["curve"]["bins"] == 512
    exact = PRCurve.from_counts(ThresholdCounts.from_scores(y, s)).average_precision()
    bounds = state["ap_bounds"]
    assert bounds["lower"] <= exact <= bounds["upper"]
    assert bounds["binned"] == pytest.approx(model["average_precision"]["step"], abs=1e-12)
    assert any("distinct scores" in note for note in report["notes"])
    assert main(["report", str(tmp_path), "--score", "score", "--max-distinct", "1000"]) == 0
    text = capsys.readouterr().out
    assert "exact AP (step) bounds" in text
    assert "binned" in text
    # The page's header says the same of its curve as the text (one sentence, one place).
    budget = "curve: exact, or binned past the distinct-score budget (each model's state)"
    assert budget in text
    out = tmp_path.parent / f"{tmp_path.name}-out"
    assert main(["report", str(tmp_path), "--score", "score", "--max-distinct", "1000",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "curve: exact, or binned past the distinct-score budget (each model" in page
    assert "curve: exact;" not in page


@pytest.mark.parametrize(("argv_tail", "message"), [
    (["--max-distinct", "0"], "--max-distinct: expected an integer >= 1 or 'none'"),
    (["--switch-bins", "many"], "--switch-bins: expected an integer from 1 to 67108864"),
    (["--workers", "2", "--dask", "tcp://x:1"], "--dask: given together with --workers"),
    (["--workers", "0"], "--workers: expected an integer >= 1, found '0'"),
    (["--workers", "two"], "--workers: expected an integer >= 1, found 'two'"),
])
def test_report_streaming_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      argv_tail: list[str], message: str) -> None:
    from prcurve.cli import main

    y, s, w = _data(100)
    _write_parts(tmp_path, y, s, w, parts=1)
    assert main(["report", str(tmp_path), *argv_tail]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert message in lines[0]


def test_report_stream_refuses_npz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prcurve.cli import main

    np.savez(tmp_path / "x.npz", label=np.array([1, 0]), score=np.array([0.5, 0.2]))
    assert main(["report", str(tmp_path / "x.npz"), "--stream"]) == 2
    assert "cannot be read in batches" in capsys.readouterr().err


def test_range_from_parquet_statistics_equals_a_pass(tmp_path: Path) -> None:
    from prcurve.io.batches import BatchReader as _Reader
    from prcurve.io.batches import LabelRule as _Labels
    from prcurve.io.batches import _parquet_range
    from prcurve.io.batches import choose_columns as _choose_columns
    from prcurve.io.batches import open_dataset as _dataset

    y, s, w = _data(5000, seed=21, float32=True)
    s[0] = 0.0
    paths = _write_parts(tmp_path, y, s, w, parts=3)
    files = [str(p) for p in paths]
    columns = _choose_columns(_dataset(files, "parquet").schema, "x", "label", ["score"], None)
    reader = _Reader(files, "parquet", "x", columns, _Labels("label", None), False, 1000)
    assert _parquet_range(reader, "score") == (float(s.min()), float(s.max()))
    streamed = stream_counts(paths, label="label", score="score", bins=1000)
    np.testing.assert_array_equal(streamed.counts.edges, resolve_edges(1000, s))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_text_integers_then_fractions_in_a_later_batch(tmp_path: Path, fmt: str) -> None:
    n = 200_000  # more than pyarrow's first block
    y = np.arange(n) % 7 == 0
    s = (np.arange(n) % 1000).astype(np.float64)
    s[-1] = 0.5  # the only fraction, in the last block
    path = tmp_path / f"late.{fmt}"
    if fmt == "csv":
        text = "label,score\n" + "\n".join(
            f"{int(a)},{int(b) if b.is_integer() else b}" for a, b in zip(y, s, strict=True))
    else:
        text = "\n".join(
            json.dumps({"label": int(a), "score": int(b) if b.is_integer() else b})
            for a, b in zip(y, s, strict=True))
    path.write_text(text + "\n")
    streamed = stream_counts(path, label="label", score="score", batch_rows=4096)
    _same_exact(streamed.counts, ThresholdCounts.from_scores(y, s))


def test_drop_invalid_labels_weights_and_a_batch_left_empty(tmp_path: Path) -> None:
    path = tmp_path / "holes.csv"
    path.write_text("label,score,w\n,0.9,1\n1,0.8,\n1,0.7,2\n0,0.6,1\n1,0.5,3\n0,0.4,0.5\n")
    streamed = stream_counts(path, label="label", score="score", weight="w", batch_rows=2,
                             drop_invalid=True)
    assert streamed.rows == 4
    assert streamed.rows_dropped == 2
    assert streamed.dropped == {"label_missing": 1, "weight_missing_or_nan": 1}
    _same_exact(streamed.counts, ThresholdCounts.from_scores(
        [1, 0, 1, 0], [0.7, 0.6, 0.5, 0.4], sample_weight=[2, 1, 3, 0.5]))


def test_positive_value_for_numeric_labels(tmp_path: Path) -> None:
    path = tmp_path / "classes.csv"
    path.write_text("label,score\n2,0.9\n1,0.8\n3,0.7\n2,0.2\n")
    streamed = stream_counts(path, label="label", score="score", positive="2", batch_rows=1)
    _same_exact(streamed.counts, ThresholdCounts.from_scores([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.2]))


def test_report_positive_label_keeps_the_column_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.csv").write_text("label,score\n2,0.9\n1,0.8\n3,0.7\n2,0.2\n")
    (tmp_path / "b.csv").write_text("label,score\n2,0.9\n1,0.8\n3,0.7\n2,0.2\n")
    streamed = _report_json(capsys, ["report", str(tmp_path / "d"), "--positive", "2",
                                     "--format", "json"])
    memory = _report_json(capsys, ["report", str(tmp_path / "b.csv"), "--positive", "2",
                                   "--format", "json"])
    assert streamed["inputs"][0]["positive_label"] == memory["inputs"][0]["positive_label"] == 2
    assert streamed["models"][0]["ap"] == memory["models"][0]["ap"]


# -- a partial state crossing processes ----------------------------------------------------


@pytest.mark.parametrize("edges", [np.linspace(-6.0, 8.0, (1 << 20) + 1),
                                   np.array([0.0, 0.1, 0.5, 1.0])])
def test_binned_state_pickles_small_and_whole(edges: np.ndarray) -> None:
    import pickle

    rng = np.random.default_rng(4)
    state = BinnedCounts(edges).update(rng.random(5000) < 0.3, rng.normal(size=5000),
                                       rng.random(5000))
    data = pickle.dumps(state)
    if edges.shape[0] > 1000:  # equal-width: the counts and (low, high, bins) only
        assert len(data) < 16 * 2**20 + 4096
    back = pickle.loads(data)
    again = pickle.loads(data)
    np.testing.assert_array_equal(back.edges, state.edges)
    np.testing.assert_array_equal(back.pos, state.pos)
    np.testing.assert_array_equal(back.neg, state.neg)
    y, s = rng.random(300) < 0.5, rng.normal(size=300)
    for copy in (back, again):  # each keeps its own counts, whatever they share
        copy.update(y, s)
    expected = BinnedCounts(edges).update(y, s).merge(state)
    np.testing.assert_array_equal(back.pos, expected.pos)
    np.testing.assert_array_equal(again.neg, expected.neg)
    np.testing.assert_array_equal(back.bin_index(s), expected.bin_index(s))
    np.testing.assert_array_equal(state.pos, pickle.loads(data).pos)  # the original unchanged


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["rows", "many rows", "weights", "huge", "fraction"]),
       seed=st.integers(0, 2**32 - 1))
def test_binned_counts_pickle_narrow_and_come_back_bit_for_bit(kind: str, seed: int) -> None:
    """Whole counts below 2^32 cross processes in the narrowest unsigned integer type (a
    state of fewer than 256 rows a bin: one byte a count, not eight; 2 MiB, not 16, for
    2^20 bins); weights, fractions and counts of 2^32 or more stay float64; every count
    comes back bit for bit. Checked on 2^16 bins (the sizes below scale with them; the
    pickling is the same for any number of bins, and 2^20 cost 16 times the time)."""
    import pickle

    rng = np.random.default_rng(seed)
    bins = 1 << 16
    state = BinnedCounts.uniform(bins, -4.0, 4.0)
    n = 3000
    y, s = rng.random(n) < 0.3, rng.normal(size=n)
    if kind == "rows":
        state.update(y, s)
    elif kind == "many rows":
        state.update(y, np.full(n, 0.5))  # 3000 rows in one bin: uint16
    elif kind == "weights":
        state.update(y, s, rng.random(n))
    elif kind == "huge":
        state.update(y, s, np.full(n, 2.0**32))  # whole, but 2^32 or more
    else:
        state.update(y, s, np.full(n, 0.5))
    data = pickle.dumps(state)
    narrow = {"rows": 2 * bins, "many rows": 4 * bins}.get(kind)  # uint8, uint16
    if narrow is None:
        assert len(data) > 16 * bins  # float64
    else:
        assert len(data) < narrow + 4096
    back = pickle.loads(data)
    assert back.pos.dtype == back.neg.dtype == np.float64
    np.testing.assert_array_equal(back.pos.view(np.uint64), state.pos.view(np.uint64))
    np.testing.assert_array_equal(back.neg.view(np.uint64), state.neg.view(np.uint64))


def test_merging_several_binned_states_equals_merging_pairs() -> None:
    """merge(a, b, c, ...) adds into one new pair of arrays, left to right: bit for bit
    the pairwise merges; a state over other edges anywhere in the list is refused, and
    the inputs are left as they were."""
    rng = np.random.default_rng(9)
    states = [BinnedCounts.uniform(64).update(rng.random(200) < 0.4, rng.random(200),
                                               rng.random(200) * 10**k) for k in range(5)]
    before = [(s.pos.copy(), s.neg.copy()) for s in states]
    pairwise = states[0]
    for one in states[1:]:
        pairwise = pairwise.merge(one)
    merged = states[0].merge(*states[1:])
    np.testing.assert_array_equal(merged.pos.view(np.uint64), pairwise.pos.view(np.uint64))
    np.testing.assert_array_equal(merged.neg.view(np.uint64), pairwise.neg.view(np.uint64))
    for state, (pos, neg) in zip(states, before, strict=True):
        np.testing.assert_array_equal(state.pos, pos)
        np.testing.assert_array_equal(state.neg, neg)
    with pytest.raises(InvalidInputError, match="edges differ"):
        states[0].merge(states[1], BinnedCounts.uniform(32))


@pytest.mark.parametrize("name", ["scores.csv", "scores.tsv.gz"])
def test_streaming_delimited_text_leaves_pandas_unimported(tmp_path: Path, name: str) -> None:
    """CSV and TSV stream through pyarrow's CSV reader, not pyarrow.dataset (which
    imports pandas: about a second of start-up); the counts equal the in-memory ones."""
    import gzip

    text = "label\tscore\tother\n" + "".join(
        f"{i % 3 == 0:d}\t{(i * 7919) % 101 / 100}\t{i}\n" for i in range(500))
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text.replace("\t", ","))
    code = (
        "import sys, json\n"
        "from prcurve.io.stream import stream_scores\n"
        f"result = stream_scores({str(path)!r}, scores=['score'], batch_rows=64)\n"
        "counts = result.models[0].counts\n"
        "print(json.dumps({'pandas': 'pandas' in sys.modules,\n"
        "                  'tp': counts.tp.tolist(), 'fp': counts.fp.tolist()}))\n"
    )
    out = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                    capture_output=True, text=True, timeout=120).stdout)
    assert out["pandas"] is False
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    expected = ThresholdCounts.from_scores([int(r[0]) for r in rows],
                                           [float(r[1]) for r in rows])
    assert out["tp"] == expected.tp.tolist()
    assert out["fp"] == expected.fp.tolist()


def test_a_word_in_a_streamed_number_column_is_named_with_its_row(tmp_path: Path) -> None:
    """pyarrow's CSV reader on its threads does not say which row held the value; the
    error still names it (the file is read again on one thread, an error path only)."""
    lines = ["label,score", *(f"{i % 2},{i / 1e6}" for i in range(200_000))]
    lines[150_001] = "1,abc"  # data row 150001 (the header is line 1)
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidInputError, match=r"holds 'abc' at row 150001"):
        stream_scores(path, scores=["score"])

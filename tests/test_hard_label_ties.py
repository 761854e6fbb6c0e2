"""The exact state of hard labels with ties, or float32 scores, in about 20 bytes a row
(issue 26, item 6, session 35).

Issue 15's files have float64 scores all distinct, where the sorted copy becomes the
thresholds and the spare copy holds the counts. A single tie (or float32 scores, or
scores rounded to 6-7 digits) took another path that kept the sorted copy, the spare,
intp run starts, a gathered copy of the distinct values, new thresholds and new counts
at once: a peak of 42-49 bytes a row (main, measured), 1.3-1.5 GB more at 3*10^7 rows.
Checked here: the same state as the definitions (tests/oracles.py) and as the weighted
(float64) path bit for bit with every chunk and thread count made small; and the traced
peak.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.oracles import threshold_counts
from tests.test_state_memory import small_blocks
from tests.traced import traced

from prcurve import ThresholdCounts
from prcurve.core import hard_labels
from prcurve.core.sorting import _run_starts


@st.composite
def tied_data(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Hard labels with scores that tie: a few values, or distinct values with some
    repeated; float64 or float32."""
    n = draw(st.integers(1, 80))
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    pool = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False,
                                    width=32), min_size=1, max_size=n, unique=True))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return labels, np.array([pool[i] for i in picks], dtype=dtype)


@contextlib.contextmanager
def chunks(size: int) -> Iterator[None]:
    """The fill's chunks and the run-start search's blocks ``size`` values long."""
    saved = hard_labels._FILL_CHUNK, hard_labels._STARTS_BLOCK
    hard_labels._FILL_CHUNK = hard_labels._STARTS_BLOCK = size
    try:
        yield
    finally:
        hard_labels._FILL_CHUNK, hard_labels._STARTS_BLOCK = saved


def _bits(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype=np.float64).tobytes()


@settings(max_examples=60)
@given(tied_data(), st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 5]))
def test_tied_state_is_the_definition(data: tuple[np.ndarray, np.ndarray], threads: int,
                                      block: int) -> None:
    labels, scores = data
    with small_blocks(threads, block), chunks(block):
        compact = ThresholdCounts.from_scores(labels, scores)
    weighted = ThresholdCounts.from_scores(labels, scores, sample_weight=np.ones(len(labels)))
    oracle = threshold_counts(labels.astype(float), scores.astype(float))
    assert compact.thresholds.tolist() == oracle.thresholds
    assert compact.tp.tolist() == oracle.tp
    assert compact.fp.tolist() == oracle.fp
    for a, b in ((compact.thresholds, weighted.thresholds), (compact.tp, weighted.tp),
                 (compact.fp, weighted.fp)):
        assert _bits(a) == _bits(b)
    assert (compact.n_pos, compact.n_neg) == (oracle.n_pos, oracle.n_neg)


@settings(max_examples=60)
@given(st.lists(st.integers(-4, 4), max_size=60), st.sampled_from([1, 2, 3, 7, 1 << 16]))
def test_compact_run_starts_are_the_run_starts(values: list[int], block: int) -> None:
    ordered = np.sort(np.array(values, dtype=np.float64))
    with chunks(block):
        compact = hard_labels._compact_run_starts(ordered)
    whole = _run_starts(ordered)
    if whole is None:
        assert compact is None
    else:
        assert compact is not None
        assert compact.dtype == np.int32
        assert compact.tolist() == whole.tolist()


def _traced_peak(scores: np.ndarray, positive: np.ndarray) -> tuple[ThresholdCounts, int]:
    counts, _, peak = traced(lambda: ThresholdCounts.from_scores(positive, scores))
    return counts, peak


@pytest.mark.parametrize(("shape", "bound"), [
    ("one tie", 21), ("7 decimals", 24), ("float32", 23), ("6 decimals", 27)])
def test_tied_state_peak(shape: str, bound: int) -> None:
    # Main's peaks (bytes a row, measured at 2^22 rows): one tie 42.2, 7 decimals 48.8,
    # float32 37.6, 6 decimals 37.9; all distinct float64 18.1 (unchanged).
    n = 1 << 21
    rng = np.random.default_rng(0)
    base, positive = rng.standard_normal(n), rng.random(n) < 0.05
    scores = {"one tie": np.concatenate([base[:-1], base[:1]]),
              "7 decimals": np.round(base, 7), "6 decimals": np.round(base, 6),
              "float32": base.astype(np.float32)}[shape]
    counts, peak = _traced_peak(scores, positive)
    assert peak <= bound * n
    assert counts._tp.dtype == np.uint32

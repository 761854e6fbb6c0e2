"""The merge of exact states as a merge of sorted runs, and the accumulator that folds
batches into one state (issue 15, item 2): equal to counting all rows at once, bit for
bit without weights, on empty, single-row and single-class batches."""

from __future__ import annotations

import contextlib
import itertools
from unittest import mock

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from tests.strategies import FAST, Scored, scored

from prcurve import ThresholdCounts
from prcurve.core import merge as merge_module
from prcurve.core import packed as packed_module
from prcurve.core import sorting
from prcurve.core.counts import merge_cumulative
from prcurve.core.merge import ExactAccumulator, merge_runs
from prcurve.core.sorting import set_sort_threads
from prcurve.validation.labels import BinaryLabels, check_labels


def assert_equal_states(got: ThresholdCounts, want: ThresholdCounts, exact: bool) -> None:
    assert_array_equal(got.thresholds, want.thresholds)
    if exact:
        assert_array_equal(got.tp, want.tp)
        assert_array_equal(got.fp, want.fp)
        assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)
    else:
        scale = max(want.n_pos + want.n_neg, 1.0)
        assert_allclose(got.tp, want.tp, rtol=1e-12, atol=1e-12 * scale)
        assert_allclose(got.fp, want.fp, rtol=1e-12, atol=1e-12 * scale)
        assert_allclose([got.n_pos, got.n_neg], [want.n_pos, want.n_neg], rtol=1e-12,
                        atol=1e-12 * scale)


@st.composite
def split_data(draw):
    """A data set and cut points that split it into batches (empty ones included)."""
    data = draw(scored(min_size=1, max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, data.n), max_size=6)))
    return data, [0, *cuts, data.n]


def batches(data: Scored, bounds: list[int], dtype=np.float64):
    labels = check_labels("y_true", data.y_true)
    for start, stop in itertools.pairwise(bounds):
        part = slice(start, stop)
        positive = None if labels.positive is None else labels.positive[part]
        soft = None if labels.soft is None else labels.soft[part]
        weights = None if data.sample_weight is None else data.sample_weight[part]
        yield data.y_score[part].astype(dtype), BinaryLabels(positive, soft), weights


@FAST
@given(split=split_data(), float32=st.booleans(), run_rows=st.integers(1, 30))
def test_accumulator_equals_counting_all_rows(split, float32, run_rows) -> None:
    data, bounds = split
    dtype = np.float32 if float32 else np.float64
    acc = ExactAccumulator(run_rows=run_rows)
    with mock.patch.object(merge_module, "MERGE_PIECE", 3):  # many pieces per merge
        for scores, labels, weights in batches(data, bounds, dtype):
            acc.add(scores, labels, weights)
    want = ThresholdCounts.from_scores(data.y_true, data.y_score.astype(dtype),
                                       sample_weight=data.sample_weight)
    with mock.patch.object(merge_module, "MERGE_PIECE", 3):
        assert_equal_states(acc.counts(), want, data.exact)


@FAST
@given(split=split_data())
def test_merging_batch_states_equals_counting_all_rows(split) -> None:
    data, bounds = split
    merged = ThresholdCounts.empty()
    for scores, labels, weights in batches(data, bounds):
        part = ThresholdCounts._from_checked(scores, labels, weights)
        merged = merged.merge(part)
        assert_array_equal(part.merge(merged.merge(ThresholdCounts.empty())).thresholds,
                           merged.thresholds)
    want = ThresholdCounts.from_scores(data.y_true, data.y_score,
                                       sample_weight=data.sample_weight)
    assert_equal_states(merged, want, data.exact)


@FAST
@given(a=scored(), b=scored())
def test_merge_is_commutative_bit_for_bit(a: Scored, b: Scored) -> None:
    ca = ThresholdCounts.from_scores(a.y_true, a.y_score, sample_weight=a.sample_weight)
    cb = ThresholdCounts.from_scores(b.y_true, b.y_score, sample_weight=b.sample_weight)
    ab, ba = ca.merge(cb), cb.merge(ca)
    for name in ("thresholds", "tp", "fp"):
        assert_array_equal(getattr(ab, name), getattr(ba, name))
    assert (ab.n_pos, ab.n_neg) == (ba.n_pos, ba.n_neg)


def test_merge_cumulative_by_hand() -> None:
    # Runs sharing 0.5 and 0.0 (given as -0.0 on one side): one threshold each.
    v, tp, fp = merge_cumulative(
        np.array([0.9, 0.5, -0.0]), np.array([1, 1, 2], np.uint32), np.array([0, 1, 1], np.uint32),
        np.array([0.7, 0.5, 0.0]), np.array([0, 1, 1], np.uint32), np.array([1, 1, 3], np.uint32))
    assert v.tolist() == [0.9, 0.7, 0.5, 0.0]
    assert tp.tolist() == [1, 1, 2, 3]
    assert fp.tolist() == [0, 1, 2, 4]
    assert tp.dtype == np.uint32
    # Counts past 2**32 move to int64.
    big = np.array([2**31], np.uint32)
    _, tp, _ = merge_cumulative(np.array([1.0]), big, big, np.array([2.0]), big, big)
    assert tp.dtype == np.int64
    assert tp.tolist() == [2**31, 2**32]


def test_merge_runs_past_uint32() -> None:
    big = np.array([2**31], np.uint32)
    _, pos, neg = merge_runs((np.array([1.0]), big, big), (np.array([1.0]), big, big))
    assert pos.dtype == np.int64
    assert (pos.tolist(), neg.tolist()) == ([2**32], [2**32])


def test_accumulator_of_nothing_and_of_one_class() -> None:
    assert len(ExactAccumulator().counts()) == 0
    acc = ExactAccumulator(run_rows=1)
    acc.add(np.array([0.3, 0.3, 0.1]), BinaryLabels(np.array([False, False, False]), None),
            None)
    acc.add(np.zeros(0), BinaryLabels(np.zeros(0, bool), None), None)
    acc.add(np.array([0.2]), BinaryLabels(np.array([False]), None), None)
    c = acc.counts()
    assert c.thresholds.tolist() == [0.3, 0.2, 0.1]
    assert c.tp.tolist() == [0.0, 0.0, 0.0]
    assert c.fp.tolist() == [2.0, 3.0, 4.0]
    assert (c.n_pos, c.n_neg) == (0.0, 4.0)


def test_many_batches_of_float32_scores_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    scores = rng.random(300_000).astype(np.float32)
    positive = rng.random(300_000) < 0.05
    acc = ExactAccumulator(run_rows=20_000)
    for start in range(0, scores.shape[0], 7_919):
        part = slice(start, start + 7_919)
        acc.add(scores[part], BinaryLabels(positive[part], None), None)
    want = ThresholdCounts.from_scores(positive, scores)
    assert_equal_states(acc.counts(), want, exact=True)


@FAST
@given(split=split_data(), switch=st.integers(0, 6), run_rows=st.integers(1, 30))
def test_accumulator_leaves_the_packed_path_midway(split, switch, run_rows) -> None:
    """float32 batches take the packed path; a later float64 batch moves every run to
    the general one, and the state still equals counting all rows."""
    data, bounds = split
    acc = ExactAccumulator(run_rows=run_rows)
    with mock.patch.object(merge_module, "MERGE_PIECE", 2):
        for k, (scores, labels, weights) in enumerate(batches(data, bounds, np.float32)):
            acc.add(scores.astype(np.float64) if k >= switch else scores, labels, weights)
        got = acc.counts()
    want = ThresholdCounts.from_scores(data.y_true, data.y_score.astype(np.float32),
                                       sample_weight=data.sample_weight)
    assert_equal_states(got, want, data.exact)


def test_packed_keys_keep_the_order_of_float32_scores() -> None:
    """Signed zeros, negatives, subnormals and infinities: keys sort as the floats do,
    and turn back into the same floats (-0.0 into 0.0)."""
    scores = np.array([-np.inf, -3.5, -1e-45, -0.0, 0.0, 1e-45, 0.25, 3.4e38, np.inf],
                      dtype=np.float32)
    keys = packed_module._float32_keys(scores)
    assert np.all(np.diff(keys.astype(np.int64)) >= 0)
    assert keys[3] == keys[4]
    back = packed_module._key_floats(keys.astype(np.uint64))
    assert_array_equal(back, scores + np.float32(0.0))
    assert not np.signbit(back[3])


@FAST
@given(data=st.data(), n=st.integers(1, 150), piece=st.integers(1, 6),
       kind=st.sampled_from(["mixed", "all positive", "all negative"]),
       threads=st.integers(1, 4), min_parallel=st.integers(1, 40))
def test_packed_state_equals_the_general_path_and_counts_can_be_taken_midway(
        data, n, piece, kind, threads, min_parallel) -> None:
    """The packed path's join (a range of keys at a time, PACKED_PIECE keys of each run)
    and its merges and sorts on several threads, against the general weighted path, bit
    for bit: ties within and across classes, -0.0 and 0.0, one class only; counts()
    midway leaves the accumulator usable."""
    pool = np.array([-0.0, 0.0, 0.5, -1.5, 2.0, 1e-45, 3.0e38], dtype=np.float32)
    scores = np.where(data.draw(arrays(np.bool_, n)), pool[data.draw(
        arrays(np.intp, n, elements=st.integers(0, pool.shape[0] - 1)))],
        data.draw(arrays(np.float32, n, elements=st.floats(-10, 10, width=32))))
    positive = data.draw(arrays(np.bool_, n)) if kind == "mixed" else np.full(
        n, kind == "all positive")
    middle = data.draw(st.integers(0, n))
    acc = ExactAccumulator(run_rows=data.draw(st.integers(1, 40)))
    set_sort_threads(threads)
    with mock.patch.object(packed_module, "PACKED_PIECE", piece), mock.patch.object(
            sorting, "MIN_PARALLEL", min_parallel), _default_threads_after():
        for start, stop in ((0, middle), (middle, n)):
            for cut in range(start, stop, 7):
                part = slice(cut, min(cut + 7, stop))
                acc.add(scores[part], BinaryLabels(positive[part], None), None)
            got = acc.counts()
            if stop == 0:
                assert len(got) == 0
                continue
            want = ThresholdCounts.from_scores(positive[:stop], scores[:stop],
                                               sample_weight=np.ones(stop))
            for name in ("thresholds", "tp", "fp"):
                assert_array_equal(getattr(got, name).view(np.uint64),
                                   getattr(want, name).view(np.uint64))
            assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)


@contextlib.contextmanager
def _default_threads_after():
    try:
        yield
    finally:
        set_sort_threads(None)


def test_many_batches_of_float32_scores_on_threads_bit_for_bit() -> None:
    """Runs sorted and merged on 2 and 3 threads (ranges of keys), joined a range at a
    time: the same state as the general path's."""
    rng = np.random.default_rng(8)
    scores = (rng.random(200_000) * 4096).astype(np.int64).astype(np.float32) / 64
    scores[::11] = -0.0
    positive = rng.random(200_000) < 0.3
    want = ThresholdCounts.from_scores(positive, scores, sample_weight=np.ones(200_000))
    for threads in (2, 3):
        set_sort_threads(threads)
        with mock.patch.object(sorting, "MIN_PARALLEL", 1000), _default_threads_after():
            acc = ExactAccumulator(run_rows=15_000)
            for start in range(0, scores.shape[0], 7_919):
                part = slice(start, start + 7_919)
                acc.add(scores[part], BinaryLabels(positive[part], None), None)
            assert_equal_states(acc.counts(), want, exact=True)


@FAST
@given(data=st.data(), n=st.integers(1, 200), threads=st.integers(1, 4),
       min_parallel=st.integers(1, 40), run_rows=st.integers(1, 60))
def test_float64_runs_on_threads_equal_the_general_path(
        data, n, threads, min_parallel, run_rows) -> None:
    """float64 runs counted on several threads (ranges of values, split_sort) and merged
    by search where the scores repeat (merge_runs' absorption) or by sort: the same state
    as the general weighted path, bit for bit; ties within and across batches, -0.0 and
    0.0, one class only."""
    pool = np.array([-0.0, 0.0, 0.5, -1.5, 2.0, 5e-324, 1e300, 0.25])
    fresh = data.draw(arrays(np.float64, n, elements=st.floats(-10, 10)))
    scores = np.where(data.draw(arrays(np.bool_, n)), pool[data.draw(
        arrays(np.intp, n, elements=st.integers(0, pool.shape[0] - 1)))], fresh)
    positive = data.draw(arrays(np.bool_, n))
    acc = ExactAccumulator(run_rows=run_rows)
    set_sort_threads(threads)
    with mock.patch.object(sorting, "MIN_PARALLEL", min_parallel), \
            _default_threads_after():
        for start in range(0, n, 5):
            part = slice(start, start + 5)
            acc.add(scores[part], BinaryLabels(positive[part], None), None)
        got = acc.counts()
    want = ThresholdCounts.from_scores(positive, scores, sample_weight=np.ones(n))
    for name in ("thresholds", "tp", "fp"):
        assert_array_equal(getattr(got, name).view(np.uint64),
                           getattr(want, name).view(np.uint64))
    assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)


def _oracle_union(a, b):
    """The union of two runs by a dict of the scores (the slow, readable way)."""
    total: dict[float, list[float]] = {}
    for values, pos, neg in (a, b):
        for v, p, q in zip(values.tolist(), pos.tolist(), neg.tolist(), strict=True):
            cell = total.setdefault(v + 0.0, [0.0, 0.0])
            cell[0] += p
            cell[1] += q
    keys = sorted(total)
    return keys, [total[k][0] for k in keys], [total[k][1] for k in keys]


@FAST
@given(data=st.data(), few_new=st.sampled_from([1, 2, 8, 10**9]))
def test_merge_runs_by_search_or_sort_equals_a_dict(data, few_new) -> None:
    """merge_runs absorbs a run whose scores are (nearly all) in the other run by a
    search and an insertion, else merges by sort: both equal a dict of the scores
    (``_FEW_NEW`` varied so both ways run on every kind of pair)."""
    pool = data.draw(st.lists(st.floats(-5, 5), min_size=1, max_size=30, unique=True))

    def run():
        values = np.unique(np.array(data.draw(st.lists(st.sampled_from(pool), max_size=30)),
                                    dtype=np.float64))
        counts = arrays(np.uint32, values.shape[0], elements=st.integers(0, 1000))
        return values, data.draw(counts), data.draw(counts)

    a, b = run(), run()
    before = [x.copy() for x in (*a, *b)]
    with mock.patch.object(merge_module, "_FEW_NEW", few_new):
        values, pos, neg = merge_runs(a, b)
    keys, want_pos, want_neg = _oracle_union(a, b)
    assert (values + 0.0).tolist() == keys
    assert pos.tolist() == want_pos
    assert neg.tolist() == want_neg
    for x, y in zip(before, (*a, *b), strict=True):  # the inputs are left as they were
        assert_array_equal(x, y)

"""Label metrics at the floor (issue 15): the chunked counting equals the general path on
every dtype, the class averages equal scikit-learn's, and memory stays below one byte per
sample above the inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from sklearn.metrics import fbeta_score, precision_score, recall_score
from tests.strategies import FAST, SLOW
from tests.traced import traced

import prcurve
from prcurve.errors import InvalidInputError
from prcurve.validation.label_codes import CHUNK, resolve_hard_labels
from prcurve.validation.labels import check_label_pair

# Every dtype a label column arrives in, with the values that make it binary.
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint16", "uint64",
          "float16", "float32", "float64", "object"]


def general_cells(y_true, y_pred, weights=None, pos_label=None):
    """The general path, written out: check_labels' positive masks, then masked sums."""
    truth, predicted = check_label_pair(y_true, y_pred, pos_label)
    fraction = truth.positive_fraction()
    pred = predicted.positive
    w = np.ones(truth.n) if weights is None else np.asarray(weights, dtype=np.float64)
    pos_w, neg_w = w * fraction, w * (1.0 - fraction)
    return (float(pos_w[pred].sum()), float(neg_w[pred].sum()),
            float(pos_w[~pred].sum()), float(neg_w[~pred].sum()))


def cells(cm):
    return (cm.tp, cm.fp, cm.fn, cm.tn)


def as_dtype(values, dtype, minus_one=False):
    array = np.asarray(values, dtype=np.int64)
    if minus_one:
        array = 2 * array - 1
    if dtype == "bool":
        return array == 1
    if dtype == "object":
        return array.astype(object)
    return array.astype(dtype)


@st.composite
def label_pairs(draw, max_size=60):
    n = draw(st.integers(0, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["none", "integer", "float"]))
    weights = None
    if kind == "integer":
        weights = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
    elif kind == "float":
        weights = np.array(draw(st.lists(st.floats(0.0, 10.0), min_size=n, max_size=n)))
    if weights is not None and n and not weights.any():
        weights[0] = 1.0
    return y, p, weights


@FAST
@given(data=label_pairs(), dtype=st.sampled_from(DTYPES), minus_one=st.booleans())
def test_fast_path_equals_general_path_on_every_dtype(data, dtype, minus_one) -> None:
    y, p, weights = data
    if minus_one and dtype in ("bool", "uint8", "uint16", "uint64"):
        minus_one = False
    y_true, y_pred = as_dtype(y, dtype, minus_one), as_dtype(p, dtype, minus_one)
    want = general_cells(y_true, y_pred, weights)
    got = cells(prcurve.confusion_matrix(y_true, y_pred, sample_weight=weights))
    if weights is None or np.array_equal(weights, np.round(weights)):
        assert got == want  # integer counts: exact to the last bit
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@FAST
@given(data=label_pairs(), dtype=st.sampled_from(DTYPES), pos_value=st.sampled_from([0, 1]))
def test_pos_label_fast_path_equals_general_path(data, dtype, pos_value) -> None:
    y, p, weights = data
    if not any(y) and not any(p) and pos_value == 1:
        return  # pos_label absent from both: the rule tested below
    if all(y) and all(p) and pos_value == 0:
        return
    y_true, y_pred = as_dtype(y, dtype), as_dtype(p, dtype)
    pos_label = bool(pos_value) if dtype == "bool" else pos_value
    want = general_cells(y_true, y_pred, weights, pos_label=pos_label)
    got = cells(prcurve.confusion_matrix(y_true, y_pred, sample_weight=weights,
                                         pos_label=pos_label))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    if weights is None:
        assert got == want


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_across_chunks_exact(dtype: str) -> None:
    # More samples than one chunk, and a length that is not a multiple of it.
    rng = np.random.default_rng(7)
    n = 2 * CHUNK + 123
    y, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    y_true, y_pred = as_dtype(y, dtype), as_dtype(p, dtype)
    cm = prcurve.confusion_matrix(y_true, y_pred)
    assert cells(cm) == general_cells(y_true, y_pred)
    sk = sk_confusion_matrix(y, p, labels=[0, 1])
    assert cells(cm) == (sk[1, 1], sk[0, 1], sk[1, 0], sk[0, 0])
    weights = rng.random(n)
    weighted = prcurve.confusion_matrix(y_true, y_pred, sample_weight=weights)
    np.testing.assert_allclose(cells(weighted), general_cells(y_true, y_pred, weights),
                               rtol=1e-12)


def test_labels_are_resolved_without_copies() -> None:
    y = np.array([0, 1, 1, 0], dtype=np.int64)
    resolved = resolve_hard_labels("y_true", y)
    assert resolved is not None
    assert resolved.values is y
    assert resolved.rule == "nonzero"
    small = np.array([0, 1, 1], dtype=np.uint8)
    view = resolve_hard_labels("y_true", small)
    assert view is not None
    assert view.rule == "mask"
    assert np.shares_memory(view.values, small)
    # Soft labels and labels that are not binary go to the general check.
    assert resolve_hard_labels("y_true", np.array([0.5, 1.0])) is None
    assert resolve_hard_labels("y_true", np.array([0, 2])) is None
    assert resolve_hard_labels("y_true", np.array([-1, 0, 1])) is None
    assert resolve_hard_labels("y_true", np.array([0.0, np.nan])) is None


@pytest.mark.parametrize(("y_true", "y_pred"), [
    ([], []), ([1], [1]), ([0], [1]), ([1, 1, 1], [1, 0, 1]), ([0, 0], [0, 0]),
])
def test_empty_single_row_and_single_class(y_true, y_pred) -> None:
    for dtype in ("bool", "int64", "float64"):
        yt, yp = as_dtype(y_true, dtype), as_dtype(y_pred, dtype)
        assert cells(prcurve.confusion_matrix(yt, yp)) == general_cells(yt, yp)


def test_errors_stay_those_of_the_general_check() -> None:
    with pytest.raises(prcurve.InvalidInputError, match=r"y_true.*missing"):
        prcurve.precision(np.array([1.0, np.nan]), [1, 0])
    with pytest.raises(prcurve.InvalidInputError, match=r"y_pred.*not binary"):
        prcurve.precision([1, 0], np.array([0.5, 1.0]))
    with pytest.raises(prcurve.InvalidInputError, match=r"y_true.*not binary"):
        prcurve.recall([0, 2, 1], [0, 1, 1])
    with pytest.raises(prcurve.InvalidInputError, match=r"sample_weight.*negative"):
        prcurve.f1([1, 0], [1, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(prcurve.InvalidInputError, match=r"sample_weight.*NaN"):
        prcurve.f1([1, 0], [1, 1], sample_weight=[1.0, np.nan])
    with pytest.raises(prcurve.InvalidInputError, match=r"pos_label.*does not occur"):
        prcurve.precision([3, 4, 3], [4, 3, 3], pos_label=1)
    with pytest.raises(prcurve.InvalidInputError, match=r"pos_label.*does not occur"):
        prcurve.precision([3, 4], [4, 3], pos_label=1, sample_weight=[1.0, 2.0])
    with pytest.raises(prcurve.InvalidInputError, match=r"labels.*average='binary'"):
        prcurve.precision([0, 1], [1, 1], labels=[0, 1])
    with pytest.raises(prcurve.InvalidInputError, match=r"pos_label.*'macro'"):
        prcurve.precision([0, 1], [1, 1], average="macro", pos_label=1)
    with pytest.raises(prcurve.InvalidInputError, match=r"y_true.*mixed kinds"):
        prcurve.precision(np.array(["a", 1], dtype=object), np.array(["a", 1], dtype=object),
                          average="macro")
    with pytest.raises(prcurve.InvalidInputError, match=r"labels.*repeated"):
        prcurve.class_confusion([0, 1], [1, 1], labels=[1, 1])


# -- classes ---------------------------------------------------------------------------


@st.composite
def class_pairs(draw):
    n = draw(st.integers(1, 40))
    pool = draw(st.sampled_from(["small", "large", "text", "bool"]))
    values = {"small": [0, 1, 2, 3], "large": [5, 2000, 7], "text": ["a", "b", "c"],
              "bool": [False, True]}[pool]
    y = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), float)
    labels = None
    if draw(st.booleans()):
        labels = draw(st.lists(st.sampled_from(values), min_size=1, max_size=len(values),
                               unique=True))
    return np.array(y), np.array(p), weights, labels


@SLOW
@given(data=class_pairs(), average=st.sampled_from(["micro", "macro", "weighted", None]),
       beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_class_averages_equal_scikit_learn(data, average, beta) -> None:
    y, p, weights, labels = data
    kwargs = {"sample_weight": weights, "average": average, "labels": labels,
              "zero_division": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's own warnings about its labels
        want_p = precision_score(y, p, **kwargs)
        want_r = recall_score(y, p, **kwargs)
        want_f = fbeta_score(y, p, beta=beta, **kwargs)
    np.testing.assert_allclose(prcurve.precision(y, p, **kwargs), want_p, rtol=1e-12)
    np.testing.assert_allclose(prcurve.recall(y, p, **kwargs), want_r, rtol=1e-12)
    np.testing.assert_allclose(prcurve.f_beta(y, p, beta=beta, **kwargs), want_f, rtol=1e-12)


def test_class_confusion_against_scikit_learn_matrix() -> None:
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 5, 3 * CHUNK), rng.integers(0, 5, 3 * CHUNK)
    w = rng.integers(0, 3, y.shape[0]).astype(float)
    cc = prcurve.class_confusion(y, p, sample_weight=w)
    sk = sk_confusion_matrix(y, p, sample_weight=w)
    assert np.array_equal(cc.matrix, sk)
    assert cc.tp.tolist() == np.diag(sk).tolist()
    assert cc.fp.tolist() == (sk.sum(axis=0) - np.diag(sk)).tolist()
    assert cc.fn.tolist() == (sk.sum(axis=1) - np.diag(sk)).tolist()
    assert (cc.tp + cc.fp + cc.fn + cc.tn).tolist() == [w.sum()] * 5
    # The same labels as text take the np.unique path: the same counts.
    text = np.array(list("abcde"))
    cc_text = prcurve.class_confusion(text[y], text[p], sample_weight=w)
    assert cc_text.classes.tolist() == list("abcde")
    assert np.array_equal(cc_text.matrix, cc.matrix)
    # Per class, the binary path with pos_label gives the same cells.
    for j, cm in enumerate(cc.per_class()):
        binary = prcurve.confusion_matrix(y == j, p == j, sample_weight=w)
        assert cells(cm) == cells(binary)


def test_class_rates_of_every_name_match_per_class_matrices() -> None:
    y = np.array([0, 1, 2, 2, 1, 0, 0, 2])
    p = np.array([0, 2, 2, 1, 1, 0, 1, 2])
    cc = prcurve.class_confusion(y, p)
    per_class = cc.per_class()
    for name in per_class[0].metrics():
        if "(" in name:
            continue
        want = [getattr(cm, name) for cm in per_class]
        assert cc.rate(name, None).tolist() == want
        assert cc.rate(name, "macro") == pytest.approx(np.mean(want))


def test_labels_absent_from_the_data_and_unlisted_classes() -> None:
    y, p = [0, 1, 1, 2], [0, 1, 2, 2]
    cc = prcurve.class_confusion(y, p, labels=[2, 9, 0], zero_division=0)
    assert cc.classes.tolist() == [2, 9, 0]
    assert cc.tp.tolist() == [1.0, 0.0, 1.0]
    assert cc.fp.tolist() == [1.0, 0.0, 0.0]
    assert cc.precision(None).tolist() == [0.5, 0.0, 1.0]


def test_memory_is_a_few_chunks_whatever_the_size() -> None:
    # The target is at most one byte per sample above the inputs; the counting
    # holds a few chunks (about 2 MB), whatever the number of samples.
    rng = np.random.default_rng(1)
    limit = 2 * 1024 * 1024
    for n in (1_000_000, 3_000_000):
        for dtype in ("bool", "int64", "float64"):
            y = as_dtype(rng.integers(0, 2, n), dtype)
            p = as_dtype(rng.integers(0, 2, n), dtype)
            for kwargs in ({}, {"sample_weight": rng.random(n)}):
                _, _, peak = traced(lambda: prcurve.f1(y, p, **kwargs))  # noqa: B023
                assert peak <= limit, (n, dtype, kwargs, peak)
        y, p = rng.integers(0, 7, n), rng.integers(0, 7, n)
        _, _, peak = traced(lambda: prcurve.f1(y, p, average="macro"))  # noqa: B023
        assert peak <= limit, (n, "classes", peak)


@pytest.mark.parametrize("dtype", [*DTYPES, "str"])
def test_empty_labels_of_every_dtype_are_an_empty_matrix(dtype: str) -> None:
    """No label to judge: an empty array of any dtype (object and text included, which
    were refused as "not binary ... the labels are text") gives the empty matrix, as the
    numeric dtypes always did; the Hypothesis test above draws such arrays."""
    empty = np.array([], dtype=dtype)
    assert cells(prcurve.confusion_matrix(empty, empty)) == (0.0, 0.0, 0.0, 0.0)


def test_a_non_binary_text_message_never_claims_text_of_no_values() -> None:
    """The "labels are text" advice names values like "0"/"1"; numbers 0-5 get the
    pos_label advice."""
    with pytest.raises(InvalidInputError, match=r"Pass pos_label=<the value"):
        prcurve.confusion_matrix(np.array([0, 5]), np.array([0, 1]))
    with pytest.raises(InvalidInputError, match="The labels are text"):
        prcurve.confusion_matrix(np.array(["0", "1"]), np.array([0, 1]))

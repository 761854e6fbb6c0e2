"""Every check of user input, and every message about bad input.

This module is the only place in prcurve that raises
:class:`~prcurve.errors.InvalidInputError`. Each message names the argument,
says what was found and how to fix it. Nothing here modifies its input: arrays
are converted with ``np.asarray`` (no copy when the dtype already fits) and
only read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError

_MAX_LISTED = 10


def _first_indices(mask: NDArray[np.bool_], limit: int = 5) -> str:
    where = np.flatnonzero(mask)[:limit]
    return ", ".join(str(int(i)) for i in where)


def _describe_values(values: NDArray[Any]) -> str:
    """The distinct values of an array, at most ``_MAX_LISTED`` of them."""
    try:
        distinct = np.unique(values)
    except TypeError:  # mixed, unorderable objects
        distinct = np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in distinct[:_MAX_LISTED])
    more = f" and {len(distinct) - _MAX_LISTED} more" if len(distinct) > _MAX_LISTED else ""
    return f"{{{shown}{more}}} ({len(distinct)} distinct)"


def as_1d(name: str, values: ArrayLike) -> NDArray[Any]:
    """``values`` as a 1-D array, or an error naming ``name``."""
    array = np.asarray(values)
    if array.ndim != 1:
        hint = (
            "pass a flat sequence of one value per sample"
            if array.ndim == 0
            else "pass one value per sample as a 1-D array (for a column vector use .ravel())"
        )
        raise InvalidInputError(name, f"expected a 1-D array, found shape {array.shape}", hint)
    return array


def check_not_empty(name: str, array: NDArray[Any]) -> None:
    if array.shape[0] == 0:
        raise InvalidInputError(
            name, "is empty (0 samples)", "pass at least one sample; metrics need data"
        )


def check_same_length(**arrays: NDArray[Any] | None) -> None:
    """All given arrays have the same first dimension."""
    present = {name: a for name, a in arrays.items() if a is not None}
    lengths = {name: a.shape[0] for name, a in present.items()}
    if len(set(lengths.values())) > 1:
        found = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        names = list(lengths)
        raise InvalidInputError(
            names[-1],
            f"length mismatch: {found} samples",
            "pass arrays with one entry per sample, all of the same length",
        )


def check_finite_numbers(name: str, values: NDArray[Any]) -> NDArray[np.floating[Any]]:
    """``values`` as a floating array with no NaN or infinity.

    float32 and float64 are kept as they are (every float32 is exactly a
    float64, so no threshold changes); integers and booleans become float64.
    """
    if values.dtype.kind not in "biuf":
        raise InvalidInputError(
            name,
            f"expected numbers, found dtype {values.dtype} (e.g. {values[:3].tolist()!r})",
            "convert the scores to a numeric array (float) first",
        )
    floats: NDArray[np.floating[Any]]
    if values.dtype.kind == "f" and values.dtype.itemsize >= 4:
        floats = values
    else:
        floats = values.astype(np.float64)
    finite = np.isfinite(floats)
    if not finite.all():
        bad = ~finite
        n_nan = int(np.isnan(floats).sum())
        n_inf = int(bad.sum()) - n_nan
        parts = [f"{n_nan} NaN" if n_nan else "", f"{n_inf} infinite" if n_inf else ""]
        found = " and ".join(p for p in parts if p)
        raise InvalidInputError(
            name,
            f"found {found} value(s) (first at index {_first_indices(bad)})",
            "remove those samples or replace them with finite numbers",
        )
    return floats


def check_scores(name: str, values: ArrayLike) -> NDArray[np.floating[Any]]:
    """A non-empty 1-D array of finite scores (float32 or float64)."""
    array = as_1d(name, values)
    check_not_empty(name, array)
    return check_finite_numbers(name, array)


@dataclass(frozen=True)
class BinaryLabels:
    """Validated labels: hard (a boolean mask of positives) or soft (floats in [0, 1]).

    Exactly one of ``positive`` and ``soft`` is set.
    """

    positive: NDArray[np.bool_] | None
    soft: NDArray[np.float64] | None

    @property
    def n(self) -> int:
        array = self.positive if self.positive is not None else self.soft
        return 0 if array is None else int(array.shape[0])

    def positive_fraction(self) -> NDArray[np.float64]:
        """Each sample's share of positive weight: 1/0 for hard labels, y for soft."""
        if self.soft is not None:
            return self.soft
        if self.positive is None:  # unreachable by construction
            raise TypeError("BinaryLabels holds neither hard nor soft labels")
        return self.positive.astype(np.float64)


def check_labels(
    name: str, values: ArrayLike, pos_label: Any = None, *, allow_soft: bool = True
) -> BinaryLabels:
    """Validate binary labels.

    Accepted without ``pos_label``: booleans; numbers in {0, 1} or {-1, 1}
    (1 is positive); and, if ``allow_soft``, floats in [0, 1] as soft labels.
    With ``pos_label``, a sample is positive exactly when it equals ``pos_label``.
    """
    array = as_1d(name, values)
    if pos_label is not None:
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise InvalidInputError(
                name,
                f"found NaN labels (first at index {_first_indices(np.isnan(array))})",
                "remove those samples or give them a label",
            )
        positive = np.asarray(array == pos_label)
        if positive.shape != array.shape:
            raise InvalidInputError(
                "pos_label", f"cannot be compared with {name} ({pos_label!r})", "pass a scalar"
            )
        if array.shape[0] and not positive.any():
            raise InvalidInputError(
                "pos_label",
                f"{pos_label!r} does not occur in {name}, whose values are "
                f"{_describe_values(array)}",
                "pass one of those values as pos_label",
            )
        return BinaryLabels(positive=positive.astype(bool, copy=False), soft=None)

    kind = array.dtype.kind
    if kind == "b":
        return BinaryLabels(positive=array, soft=None)
    if kind not in "iuf":
        raise InvalidInputError(
            name,
            f"labels are not binary: values {_describe_values(array)} and no pos_label",
            "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
        )
    if kind == "f" and np.isnan(array).any():
        raise InvalidInputError(
            name,
            f"found NaN labels (first at index {_first_indices(np.isnan(array))})",
            "remove those samples or give them a label in {0, 1}",
        )
    is_zero = array == 0
    is_one = array == 1
    if (is_zero | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if ((array == -1) | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if kind == "f" and allow_soft:
        outside = (array < 0) | (array > 1)
        if outside.any():
            raise InvalidInputError(
                name,
                f"soft labels must lie in [0, 1], found {int(outside.sum())} outside "
                f"(first at index {_first_indices(outside)}; values {_describe_values(array)})",
                "pass probabilities of the positive class in [0, 1], hard labels in {0, 1}, "
                "or pos_label=<the value of the positive class>",
            )
        return BinaryLabels(positive=None, soft=array.astype(np.float64, copy=False))
    raise InvalidInputError(
        name,
        f"labels are not binary: values {_describe_values(array)} and no pos_label",
        "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
    )


def check_weights(
    name: str, values: ArrayLike | None, n_samples: int
) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 weights, one per sample, or None."""
    if values is None:
        return None
    array = as_1d(name, values)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(
            name, f"expected numbers, found dtype {array.dtype}", "pass numeric weights"
        )
    weights = array.astype(np.float64, copy=False)
    if weights.shape[0] != n_samples:
        raise InvalidInputError(
            name,
            f"length mismatch: {weights.shape[0]} weights for {n_samples} samples",
            "pass one weight per sample",
        )
    bad = ~np.isfinite(weights)
    if bad.any():
        raise InvalidInputError(
            name,
            f"found {int(bad.sum())} NaN or infinite weight(s) (first at index "
            f"{_first_indices(bad)})",
            "pass finite, non-negative weights",
        )
    negative = weights < 0
    if negative.any():
        raise InvalidInputError(
            name,
            f"found {int(negative.sum())} negative weight(s) (first at index "
            f"{_first_indices(negative)})",
            "pass non-negative weights; a weight of 0 removes a sample",
        )
    return weights


def check_edges(name: str, edges: ArrayLike) -> NDArray[np.float64]:
    """At least two finite, strictly increasing bin edges as float64."""
    array = as_1d(name, edges)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(
            name, f"expected numbers, found dtype {array.dtype}", "pass numeric bin edges"
        )
    floats = array.astype(np.float64)
    if floats.shape[0] < 2:
        raise InvalidInputError(
            name,
            f"found {floats.shape[0]} edge(s)",
            "pass at least two edges (n bins need n + 1 edges)",
        )
    if not np.isfinite(floats).all():
        raise InvalidInputError(name, "found NaN or infinite edges", "pass finite edges")
    steps = np.diff(floats)
    if (steps <= 0).any():
        i = int(np.flatnonzero(steps <= 0)[0])
        raise InvalidInputError(
            name,
            f"edges are not strictly increasing (edge {i} = {float(floats[i])!r}, "
            f"edge {i + 1} = {float(floats[i + 1])!r})",
            "pass sorted, distinct edges (e.g. np.linspace(low, high, n + 1))",
        )
    return floats


def check_n_bins(name: str, n_bins: Any) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise InvalidInputError(
            name, f"expected a positive integer number of bins, found {n_bins!r}",
            "pass an int >= 1 or an array of edges",
        )
    return int(n_bins)


def check_range(name: str, low: float, high: float) -> tuple[float, float]:
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise InvalidInputError(
            name, f"expected finite low < high, found ({low!r}, {high!r})", "pass (low, high)"
        )
    return lo, hi


_Choice = TypeVar("_Choice")


def check_choice(name: str, value: Any, choices: Sequence[_Choice]) -> _Choice:
    """``value`` is one of ``choices`` (strings, numbers or None; compared with ==).

    ``True``/``False`` never match (they would equal 1/0)."""
    try:
        found = not isinstance(value, bool) and value in choices
    except (TypeError, ValueError):  # e.g. an array: its == is element-wise
        found = False
    if not found:
        raise InvalidInputError(
            name, f"unknown value {value!r}", f"use one of {', '.join(map(repr, choices))}"
        )
    chosen: _Choice = value
    return chosen


def check_positive_number(name: str, value: Any) -> float:
    """A finite number > 0 (e.g. F-beta's beta)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number, found {value!r}", "pass a float > 0")
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise InvalidInputError(name, f"expected a finite number > 0, found {value!r}",
                                "pass a float > 0")
    return number


def check_fraction(name: str, value: Any) -> float:
    """A number in [0, 1] (a recall, a precision, van Rijsbergen's alpha)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number in [0, 1], found {value!r}",
                                "pass a float in [0, 1]")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(name, f"expected a number in [0, 1], found {value!r}",
                                "pass a float in [0, 1]")
    return number


def check_finite_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(name, f"expected a number, found {value!r}", "pass a float")
    number = float(value)
    if math.isnan(number):
        raise InvalidInputError(name, "found NaN", "pass a number")
    return number


def check_zero_division(value: Any) -> None:
    """``zero_division`` is "nan", NaN, 0, 1 or "raise"."""
    if isinstance(value, str):
        if value in ("nan", "raise"):
            return
    elif (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and (math.isnan(float(value)) or float(value) in (0.0, 1.0))
    ):
        return
    raise InvalidInputError(
        "zero_division",
        f"unknown policy {value!r}",
        'use "nan" (default), 0, 1 or "raise"',
    )


def check_count(name: str, value: Any) -> float:
    """A finite, non-negative (weighted) count."""
    number = check_finite_number(name, value)
    if not math.isfinite(number) or number < 0:
        raise InvalidInputError(
            name, f"expected a finite count >= 0, found {value!r}", "pass a non-negative number"
        )
    return number


def check_scored_labels(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    pos_label: Any,
    *,
    true_name: str = "y_true",
    score_name: str = "y_score",
) -> tuple[NDArray[np.floating[Any]], BinaryLabels, NDArray[np.float64] | None]:
    """The common checks of (y_true, y_score, sample_weight, pos_label)."""
    scores = check_scores(score_name, y_score)
    labels_array = as_1d(true_name, y_true)
    check_same_length(**{true_name: labels_array, score_name: scores})
    labels = check_labels(true_name, labels_array, pos_label)
    weights = check_weights("sample_weight", sample_weight, scores.shape[0])
    return scores, labels, weights


def check_threshold_counts(
    thresholds: ArrayLike, tp: ArrayLike, fp: ArrayLike, n_pos: Any, n_neg: Any
) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float, float
]:
    """The invariants of a count state built outside ``from_scores``.

    Returns fresh float64 copies that the state may own.
    """
    arrays = {}
    for name, values in (("thresholds", thresholds), ("tp", tp), ("fp", fp)):
        array = as_1d(name, values)
        if array.dtype.kind not in "biuf":
            raise InvalidInputError(name, f"expected numbers, found dtype {array.dtype}",
                                    "pass a numeric array")
        arrays[name] = np.array(array, dtype=np.float64)
    check_same_length(**arrays)
    t, p, f = arrays["thresholds"], arrays["tp"], arrays["fp"]
    if not np.isfinite(t).all():
        raise InvalidInputError("thresholds", "found NaN or infinite thresholds",
                                "pass finite thresholds")
    if (np.diff(t) >= 0).any():
        raise InvalidInputError("thresholds", "thresholds are not strictly decreasing",
                                "sort distinct thresholds from high to low")
    for name, array in (("tp", p), ("fp", f)):
        if not np.isfinite(array).all() or (array < 0).any():
            raise InvalidInputError(name, "found negative, NaN or infinite counts",
                                    "pass finite cumulative weights >= 0")
        if (np.diff(array) < 0).any():
            raise InvalidInputError(
                name, "counts decrease as the threshold falls",
                "pass cumulative counts (weight with score >= threshold), e.g. np.cumsum",
            )
    total_pos = check_count("n_pos", n_pos)
    total_neg = check_count("n_neg", n_neg)
    for name, total, array in (("n_pos", total_pos, p), ("n_neg", total_neg, f)):
        last = float(array[-1]) if array.shape[0] else 0.0
        if last > total * (1 + 1e-12) + 1e-12:
            raise InvalidInputError(
                name, f"total {total!r} is below the cumulative count {last!r}",
                "pass the total weight of the class, at least the last cumulative count",
            )
    return t, p, f, total_pos, total_neg


def wrong_type(name: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(
        name, f"expected {expected}, found {type(value).__name__}", f"pass a {expected}"
    )


# -- ranked retrieval (prcurve.ranking, prcurve.trec) ---------------------------------


def check_cutoff(name: str, value: Any) -> int:
    """A rank cutoff ``k``: an integer >= 1 (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(
            name, f"expected an integer rank cutoff >= 1, found {value!r}", "pass an int such as 10"
        )
    if value < 1:
        raise InvalidInputError(
            name, f"expected a rank cutoff >= 1, found {value!r}",
            "pass k >= 1 (the number of top-ranked documents to look at)",
        )
    return int(value)


def check_optional_cutoff(name: str, value: Any) -> int | None:
    """``None`` (no cutoff) or a rank cutoff >= 1."""
    return None if value is None else check_cutoff(name, value)


def check_relevance_level(value: Any) -> int:
    """The smallest grade that counts as relevant: an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidInputError(
            "relevance_level",
            f"expected an integer >= 0, found {value!r}",
            "pass the smallest relevance grade that counts as relevant (trec_eval's -l; default 1)",
        )
    return int(value)


def check_n_relevant(value: Any, n_retrieved_relevant: int) -> int:
    """The total number of relevant documents, at least the relevant ones retrieved."""
    if value is None:
        return n_retrieved_relevant
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(
            "n_relevant", f"expected an integer count, found {value!r}",
            "pass the number of relevant documents for the query (retrieved or not)",
        )
    if value < n_retrieved_relevant:
        raise InvalidInputError(
            "n_relevant",
            f"{int(value)} is below the {n_retrieved_relevant} relevant documents in y_true",
            "pass the total number of relevant documents, retrieved or not, or leave it None",
        )
    return int(value)


def check_ranking(
    y_true: ArrayLike, y_score: ArrayLike, pos_label: Any, doc_ids: ArrayLike | None
) -> tuple[NDArray[np.bool_], NDArray[np.floating[Any]], NDArray[Any] | None]:
    """One query's ranking: binary labels, finite scores, optional unique document ids.

    An empty ranking (nothing retrieved) is allowed: every measure is then 0.
    """
    scores = check_finite_numbers("y_score", as_1d("y_score", y_score))
    labels_array = as_1d("y_true", y_true)
    ids = None if doc_ids is None else as_1d("doc_ids", doc_ids)
    check_same_length(y_true=labels_array, y_score=scores, doc_ids=ids)
    labels = check_labels("y_true", labels_array, pos_label, allow_soft=False)
    if labels.positive is None:  # allow_soft=False: hard labels only
        raise TypeError("check_labels returned soft labels with allow_soft=False")
    if ids is not None and ids.shape[0] > 1:
        distinct = np.unique(ids)
        if distinct.shape[0] != ids.shape[0]:
            _, first, counts = np.unique(ids, return_index=True, return_counts=True)
            dup = ids[first[counts > 1][0]]
            raise InvalidInputError(
                "doc_ids", f"document {dup!r} appears more than once in one ranking",
                "pass each document once per query",
            )
    return labels.positive, scores, ids


def check_level_fraction(name: str, value: Any) -> float:
    """A recall level in [0, 1], as for interpolated precision."""
    return check_fraction(name, value)


def unknown_measure(text: Any, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "measures",
        f"unknown measure {text!r}",
        f"use one of {', '.join(known)} (a cutoff after '@', e.g. 'P@10', 'iprec@0.5')",
    )


def bad_measure_parameter(text: str, found: str, fix: str) -> InvalidInputError:
    return InvalidInputError("measures", f"{text!r}: {found}", fix)


def check_id_column(name: str, values: ArrayLike, n: int | None = None) -> NDArray[Any]:
    """Query or document identifiers: a 1-D array of strings, bytes or integers."""
    array = as_1d(name, values)
    if array.shape[0] == 0:
        return array.astype(str)
    if array.dtype.kind == "O":
        kinds = {type(v) for v in array.tolist()}
        if kinds <= {str}:
            return array.astype(str)
        if kinds <= {bytes}:
            return array.astype(bytes)
        if all(issubclass(k, (int, np.integer)) and not issubclass(k, bool) for k in kinds):
            return array.astype(np.int64)
        raise InvalidInputError(
            name, f"expected string or integer ids, found {sorted(k.__name__ for k in kinds)}",
            "pass ids as strings (or all integers)",
        )
    if array.dtype.kind not in "USiu":
        raise InvalidInputError(
            name, f"expected string or integer ids, found dtype {array.dtype}",
            "pass ids as strings (or integers)",
        )
    if n is not None and array.shape[0] != n:
        raise InvalidInputError(
            name, f"length mismatch: {array.shape[0]} ids for {n} rows",
            "pass one id per row, all columns of the same length",
        )
    return array


def check_grades(name: str, values: ArrayLike) -> NDArray[np.int64]:
    """Relevance grades: integers (negative grades mean judged-but-unusable, as in trec_eval)."""
    array = as_1d(name, values)
    if array.dtype.kind in "iub":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "f":
        ints = np.isfinite(array) & (array == np.round(array))
        if ints.all():
            return array.astype(np.int64)
        raise InvalidInputError(
            name, f"expected integer grades, found {array[~ints][:3].tolist()!r} "
            f"(first at index {_first_indices(~ints)})",
            "pass integer relevance grades (0 = not relevant, >= 1 relevant)",
        )
    if array.dtype.kind == "O" and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in array.tolist()
    ):
        return array.astype(np.int64)
    raise InvalidInputError(
        name, f"expected integer grades, found dtype {array.dtype}", "pass integer grades"
    )


def check_columns(argument: str, found: Sequence[str], wanted: dict[str, Sequence[str]]) -> dict[
    str, str
]:
    """Pick a column for each role of a table; an error lists what is missing and found.

    ``wanted`` maps a role to its accepted column names, in order of preference.
    """
    chosen: dict[str, str] = {}
    missing: list[str] = []
    for role, names in wanted.items():
        match = next((n for n in names if n in found), None)
        if match is None:
            missing.append(" or ".join(repr(n) for n in names))
        else:
            chosen[role] = match
    if missing:
        raise InvalidInputError(
            argument,
            f"table missing columns: {', '.join(missing)} (found {list(found)!r})",
            "rename the columns or pass arrays",
        )
    return chosen


def duplicate_document(
    argument: str, query: Any, doc: Any, source: str | None, line: int | None
) -> InvalidInputError:
    """A document listed twice for one query, named with its file and line when known."""
    where = f" ({source}, line {line})" if source is not None and line is not None else ""
    return InvalidInputError(
        argument,
        f"document {_plain(doc)!r} appears twice for query {_plain(query)!r}{where}",
        "list each document once per query",
    )


def _plain(value: Any) -> Any:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return value.item()
    return value


def malformed_line(
    argument: str, source: str, line: int, found: str, fix: str
) -> InvalidInputError:
    return InvalidInputError(argument, f"{source}, line {line}: {found}", fix)


def unreadable_file(argument: str, path: str, reason: str) -> InvalidInputError:
    return InvalidInputError(argument, f"cannot read {path!r} ({reason})", "check the path")


def no_queries_to_evaluate(n_run: int, n_qrels: int) -> InvalidInputError:
    return InvalidInputError(
        "run",
        f"no query has both results and relevance judgments ({n_run} queries in the run, "
        f"{n_qrels} in the judgments)",
        "check that the run and the judgments use the same query ids",
    )


def wrong_table_type(argument: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(argument, f"cannot read a {type(value).__name__} as {expected}",
                             f"pass {expected}")


def unsupported_trec_measure(text: str, supported: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "measures",
        f"trec_eval measure {text!r} is not computed by prcurve",
        f"use one of {', '.join(supported)}, or the nicknames official, all_trec, set",
    )


def unknown_trec_measure(text: str, supported: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "measures",
        f"unknown trec_eval measure {text!r}",
        f"use one of {', '.join(supported)}, or the nicknames official, all_trec, set "
        "(parameters after a dot: P.5,10)",
    )


# -- files and the report command (prcurve.io, prcurve.report, prcurve._cli_report) --------
# Arguments are named as the user typed them: the file (INPUT) or the option (--score).
# Row numbers in messages count data rows from 1 (row 1 is line 2 of a CSV with a header).


def _rows_text(rows: Sequence[int], total: int) -> str:
    shown = ", ".join(str(r) for r in rows)
    return f"row {shown}" if total == 1 else f"first at rows {shown}"


def _columns_text(found: Sequence[str]) -> str:
    return "[" + ", ".join(repr(c) for c in found) + "]"


def missing_file(path: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"no such file {path!r}",
        "check the path; a relative path starts at the current folder",
    )


def not_a_file(path: str) -> InvalidInputError:
    return InvalidInputError("INPUT", f"{path!r} is a folder, not a file",
                             "pass the file of scores inside it")


def unknown_file_format(path: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT",
        f"cannot tell the format of {path!r} from its name",
        f"use a file ending in {', '.join(known)}, or pass --input-format "
        "csv|tsv|parquet|jsonl|npz",
    )


def unreadable_input(path: str, file_format: str, reason: str) -> InvalidInputError:
    first_line = reason.strip().splitlines()[0] if reason.strip() else "unknown reason"
    return InvalidInputError(
        "INPUT", f"cannot read {path!r} as {file_format} ({first_line})",
        f"check that the file is valid {file_format}, or pass --input-format",
    )


def empty_input(path: str, detail: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} has no data ({detail})",
        "pass a file with at least one row of labels and scores",
    )


def ragged_npz(path: str, shapes: dict[str, tuple[int, ...]]) -> InvalidInputError:
    found = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
    return InvalidInputError(
        "INPUT", f"the arrays of {path!r} are not columns of one length ({found})",
        "save one 1-D array per column, all of the same length (np.savez(path, label=y, "
        "score=s))",
    )


def missing_column(option: str, column: str, path: str, found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        option, f"no column {column!r} in {path!r} (found {_columns_text(found)})",
        f"pass {option} with one of the columns found",
    )


def no_label_column(
    path: str, candidates: Sequence[str], found: Sequence[str]
) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"{path!r} has none of the usual label columns {', '.join(candidates)} "
        f"(found {_columns_text(found)})",
        "pass --label COL naming the column of true labels",
    )


def no_score_columns(path: str, found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "--score",
        f"{path!r} has no numeric column left to score once the label and weight are set "
        f"aside (found {_columns_text(found)})",
        "pass --score COL naming a column of model scores",
    )


def labels_not_binary(column: str, path: str, values: NDArray[Any]) -> InvalidInputError:
    desc = _describe_values(values)
    shown = np.unique(values)
    example = str(shown[-1].item() if hasattr(shown[-1], "item") else shown[-1])
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} is not a 0/1 or boolean label: values {desc}",
        f"pass --positive VALUE naming the positive class (e.g. --positive {example}); "
        "every other value is negative",
    )


def positive_not_found(value: str, column: str, values: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "--positive",
        f"{value!r} does not occur in label column {column!r}, whose values are "
        f"{_describe_values(values)}",
        "pass one of those values",
    )


def no_positives(column: str, path: str, values: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} has no positive sample (values "
        f"{_describe_values(values)}), so recall and every AP are undefined",
        "check --label and --positive; the positive class must occur",
    )


def missing_labels(column: str, path: str, count: int, rows: Sequence[int]) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} has {count} missing label(s) "
        f"({_rows_text(rows, count)})",
        "fill them in, or pass --drop-invalid to skip those rows (the report counts them)",
    )


def invalid_scores(
    column: str, path: str, n_missing: int, n_non_numeric: int, n_infinite: int,
    rows: Sequence[int],
) -> InvalidInputError:
    parts = [
        f"{n_missing} NaN or missing" if n_missing else "",
        f"{n_non_numeric} non-numeric" if n_non_numeric else "",
        f"{n_infinite} infinite" if n_infinite else "",
    ]
    found = " and ".join(p for p in parts if p)
    total = n_missing + n_non_numeric + n_infinite
    return InvalidInputError(
        "--score",
        f"column {column!r} of {path!r} has {found} score(s) ({_rows_text(rows, total)})",
        "fix or remove those rows, or pass --drop-invalid to skip them (the report counts them)",
    )


def invalid_weights(column: str, path: str, found: str, rows: Sequence[int],
                    count: int) -> InvalidInputError:
    return InvalidInputError(
        "--weight",
        f"column {column!r} of {path!r} has {count} {found} weight(s) ({_rows_text(rows, count)})",
        "weights must be finite numbers >= 0; a missing weight is skipped with --drop-invalid",
    )


def no_rows_left(column: str, path: str, dropped: int) -> InvalidInputError:
    return InvalidInputError(
        "--drop-invalid",
        f"all {dropped} rows of {path!r} were invalid for column {column!r}, none is left",
        "fix the input; the messages without --drop-invalid list the bad rows",
    )


def unwritable_output(path: str, reason: str) -> InvalidInputError:
    return InvalidInputError("--out", f"cannot write to {path!r} ({reason})",
                             "choose a folder you can write to")


def bad_option(option: str, value: Any, expected: str) -> InvalidInputError:
    return InvalidInputError(option, f"expected {expected}, found {value!r}",
                             f"pass {option} with {expected}")


def bad_fail_under(text: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "--fail-under",
        f"cannot read {text!r}",
        f"write METRIC=VALUE with VALUE a number and METRIC one of {', '.join(known)}",
    )


def metric_not_available(option: str, metric: str, why: str) -> InvalidInputError:
    return InvalidInputError(option, f"{metric} is not available ({why})",
                             "choose another metric or install the module it needs")


# -- PR space: bounds, aggregation, intervals (prcurve.bounds, .aggregate, .intervals) --


def check_fractions(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Numbers in [0, 1] of any shape (a recall, precision or prevalence), as float64."""
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(name, f"expected numbers in [0, 1], found dtype {array.dtype}",
                                "pass floats in [0, 1]")
    floats = array.astype(np.float64)
    bad = np.isnan(floats) | (floats < 0) | (floats > 1)
    if bad.any():
        flat = np.ravel(bad)
        shown = np.ravel(floats)[flat][:3].tolist()
        raise InvalidInputError(
            name, f"expected numbers in [0, 1], found {shown!r} (first at flat index "
            f"{_first_indices(flat)})", "pass floats in [0, 1]",
        )
    return floats


def check_recall_range(value: Any) -> tuple[float, float]:
    """A recall range ``(a, b)`` with ``0 <= a < b <= 1``."""
    try:
        low, high = value
    except (TypeError, ValueError):
        raise InvalidInputError(
            "recall_range", f"expected a pair (a, b), found {value!r}",
            "pass two recalls such as (0.0, 1.0) or (0.8, 1.0)",
        ) from None
    a = check_fraction("recall_range", low)
    b = check_fraction("recall_range", high)
    if not a < b:
        raise InvalidInputError(
            "recall_range", f"expected a < b, found ({a!r}, {b!r})",
            "pass the lower recall first, e.g. (0.8, 1.0)",
        )
    return a, b


def check_class_total(name: str, value: Any, *, integer: bool, purpose: str = "") -> float:
    """A class total (``n_pos``, ``n_neg``): finite and >= 0; an integer when ``integer``."""
    number = check_count(name, value)
    if integer and number != math.floor(number):
        raise InvalidInputError(
            name, f"expected a whole number of samples, found {value!r}{purpose}",
            "pass integer class counts (unweighted samples), or use method='davis_goadrich' "
            "or 'interpolated', whose minimum depends only on the prevalence",
        )
    return number


def method_without_recall_range(method: str) -> InvalidInputError:
    return InvalidInputError(
        "recall_range", f"method {method!r} averages precision at fixed recall levels and has "
        "no area over a restricted recall range",
        "use recall_range=(0.0, 1.0) with this method, or a method with an area: 'step', "
        "'trapezoid', 'interpolated' or 'davis_goadrich'",
    )


def check_integer_state(name: str, pos: NDArray[np.float64], neg: NDArray[np.float64],
                        purpose: str) -> None:
    """Every tie group holds a whole number of positives and negatives (unweighted data)."""
    for kind, array in (("positive", pos), ("negative", neg)):
        fractional = array != np.floor(array)
        if fractional.any():
            raise InvalidInputError(
                name, f"found a fractional {kind} count in {int(fractional.sum())} tie group(s) "
                f"(e.g. {float(array[fractional][0])!r}); {purpose} resamples whole samples",
                "build the counts from unweighted hard labels (integer weights count as "
                "repeated samples); weighted or soft-labelled data cannot be resampled from "
                "its counts",
            )


def check_n_resamples(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(
            "n_resamples", f"expected an integer >= 1, found {value!r}",
            "pass the number of bootstrap resamples, e.g. 1000",
        )
    return int(value)


def check_level(value: Any) -> float:
    """A confidence level strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError("level", f"expected a number in (0, 1), found {value!r}",
                                "pass a confidence level such as 0.95")
    number = float(value)
    if not 0.0 < number < 1.0:
        raise InvalidInputError("level", f"expected a number in (0, 1), found {value!r}",
                                "pass a confidence level such as 0.95")
    return number


def check_seed(value: Any) -> Any:
    """None, a non-negative int, a numpy SeedSequence or Generator."""
    if value is None or isinstance(value, (np.random.SeedSequence, np.random.Generator)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise InvalidInputError(
        "seed", f"expected None, an int >= 0, a numpy SeedSequence or Generator, found {value!r}",
        "pass an integer seed such as 0 for reproducible resamples",
    )


def check_state_source(name: str, value: Any, allowed: str) -> None:
    raise InvalidInputError(
        name, f"expected {allowed}, found {type(value).__name__}", f"pass {allowed}"
    )


def check_score_matrix(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    labels: ArrayLike | None,
) -> tuple[
    NDArray[np.float64], NDArray[np.floating[Any]], NDArray[Any], NDArray[np.float64] | None
]:
    """One-vs-rest input: an (n, k) score matrix with class labels or an (n, k) indicator matrix.

    Returns the (n, k) positive share of each sample for each class (0/1, or a
    soft label in [0, 1]), the scores, the class of each column and the weights.
    """
    scores = np.asarray(y_score)
    if scores.ndim != 2:
        raise InvalidInputError(
            "y_score", f"expected an (n_samples, n_classes) matrix, found shape {scores.shape}",
            "pass one score column per class",
        )
    n, k = scores.shape
    if n == 0 or k == 0:
        raise InvalidInputError("y_score", f"is empty (shape {scores.shape})",
                                "pass at least one sample and one class")
    flat = check_finite_numbers("y_score", scores.reshape(-1))
    scores = flat.reshape(n, k)
    truth = np.asarray(y_true)
    if truth.ndim == 2:
        if truth.shape != (n, k):
            raise InvalidInputError(
                "y_true", f"indicator matrix of shape {truth.shape} for y_score of shape "
                f"{scores.shape}", "pass one indicator column per score column",
            )
        share = np.empty((n, k), dtype=np.float64)
        for j in range(k):
            column = check_labels("y_true", truth[:, j])
            share[:, j] = column.positive_fraction()
        classes: NDArray[Any] = (
            np.arange(k) if labels is None else as_1d("labels", labels)
        )
        if classes.shape[0] != k:
            raise InvalidInputError(
                "labels", f"found {classes.shape[0]} labels for {k} score columns",
                "pass one label per column",
            )
    elif truth.ndim == 1:
        if truth.shape[0] != n:
            raise InvalidInputError(
                "y_score", f"expected 1-D scores or an (n_samples, n_classes) matrix with one row "
                f"per label, found shape {scores.shape} for {truth.shape[0]} labels in y_true",
                "pass one score per sample for binary labels, or one row of class scores per "
                "sample",
            )
        if truth.dtype.kind == "f" and np.isnan(truth).any():
            raise InvalidInputError(
                "y_true", f"found NaN labels (first at index {_first_indices(np.isnan(truth))})",
                "remove those samples or give them a class",
            )
        if labels is None:
            classes = np.unique(truth)
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "y_score", f"{k} score columns for the {classes.shape[0]} classes found in "
                    f"y_true {_describe_values(truth)}",
                    "pass one column per class in sorted class order, or pass labels=<the class "
                    "of each column> (classes absent from y_true are allowed there)",
                )
        else:
            classes = as_1d("labels", labels)
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "labels", f"found {classes.shape[0]} labels for {k} score columns",
                    "pass one label per score column",
                )
            if np.unique(classes).shape[0] != k:
                raise InvalidInputError("labels", "found repeated labels",
                                        "pass each class once")
            unknown = ~np.isin(truth, classes)
            if unknown.any():
                raise InvalidInputError(
                    "y_true", f"found classes not in labels: "
                    f"{_describe_values(truth[unknown])}", "add them to labels",
                )
        share = (truth[:, None] == classes[None, :]).astype(np.float64)
    else:
        raise InvalidInputError(
            "y_true", f"expected class labels (n,) or an indicator matrix (n, k), found shape "
            f"{truth.shape}", "pass one label per sample or one indicator row per sample",
        )
    weights = check_weights("sample_weight", sample_weight, n)
    return share, scores, classes, weights


def check_parts(name: str, parts: Any) -> list[Any]:
    """A non-empty sequence (the curves or count states to aggregate)."""
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise InvalidInputError(name, f"expected a list, found {type(parts).__name__}",
                                "pass a list of PRCurve or ThresholdCounts")
    items = list(parts)
    if not items:
        raise InvalidInputError(name, "is empty", "pass at least one curve or count state")
    return items


def check_recall_grid(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Recall levels: a non-empty 1-D, strictly increasing array in [0, 1]."""
    array = as_1d(name, values)
    check_not_empty(name, array)
    levels = check_fractions(name, array)
    if (np.diff(levels) <= 0).any():
        raise InvalidInputError(name, "recall levels are not strictly increasing",
                                "pass sorted, distinct levels such as np.linspace(0, 1, 101)")
    return levels


def unsupported_with_score_matrix(argument: str) -> InvalidInputError:
    return InvalidInputError(
        argument, "is not supported with an (n_samples, n_classes) score matrix",
        f"leave {argument} unset: the classes come from y_true (or labels=), one score "
        "column per class, exact counts per class",
    )


def check_min_curve_arguments(prevalence: Any, recall: Any, n_pos: Any, n_neg: Any) -> None:
    """``min_pr_curve`` takes a prevalence (and recall levels) or (n_pos, n_neg)."""
    if prevalence is not None and (n_pos is not None or n_neg is not None):
        raise InvalidInputError(
            "prevalence", "given together with n_pos/n_neg",
            "pass either a prevalence (continuous curve) or n_pos and n_neg (discrete)",
        )
    if prevalence is None and (n_pos is None or n_neg is None):
        raise InvalidInputError(
            "prevalence", "no prevalence and no (n_pos, n_neg)",
            "pass a prevalence for the continuous curve or n_pos and n_neg for the discrete one",
        )
    if prevalence is None and recall is not None:
        raise InvalidInputError(
            "recall", "recall levels given for the discrete curve",
            "the discrete curve has its own recalls i / n_pos; omit recall",
        )
    if prevalence is None and isinstance(n_pos, (int, float, np.integer, np.floating)) and (
        not isinstance(n_pos, bool) and float(n_pos) == 0
    ):
        raise InvalidInputError("n_pos", "found 0 positives",
                                "the minimum curve needs at least one positive")


def check_n_threads(value: Any) -> int:
    """Worker threads: None (every CPU) or an integer >= 1."""
    if value is None:
        import os

        return max(1, os.cpu_count() or 1)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError("n_threads", f"expected an integer >= 1 or None, found {value!r}",
                                "pass the number of threads, e.g. 2, or None for every CPU")
    return int(value)


def check_hard_labels(name: str, labels: BinaryLabels, purpose: str) -> NDArray[np.bool_]:
    """The positive mask of hard labels; soft labels cannot be resampled as samples."""
    if labels.positive is None:
        raise InvalidInputError(
            name, f"found soft labels; {purpose} resamples whole samples of each class",
            "pass hard labels (0/1, booleans, or pos_label=...)",
        )
    return labels.positive


# -- streaming and Dask (prcurve.stream, prcurve.dask) ------------------------------------


def check_max_distinct(name: str, value: Any) -> int | None:
    """The exact-state budget: an integer >= 1, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(
            name, f"expected an integer >= 1 or None, found {value!r}",
            "pass the largest number of distinct scores to keep exactly, e.g. 16777216",
        )
    return int(value)


def check_batch_rows(name: str, value: Any) -> int:
    """Rows per streamed batch: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(name, f"expected an integer >= 1, found {value!r}",
                                "pass the number of rows to read at a time, e.g. 1048576")
    return int(value)


def no_input_files(path: str, known: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} is a folder, not a file, and holds no file ending in "
        f"{', '.join(known)}",
        "pass a folder of CSV, TSV, Parquet or JSON Lines files, or the files themselves",
    )


def mixed_formats(formats: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"the files have different formats ({', '.join(sorted(set(formats)))})",
        "stream files of one format at a time",
    )


def cannot_stream(path: str, file_format: str) -> InvalidInputError:
    return InvalidInputError(
        "INPUT", f"{path!r} is {file_format}, which cannot be read in batches",
        "stream CSV, TSV, Parquet or JSON Lines files (an .npz file is read whole)",
    )


def inconsistent_labels(column: str, path: str) -> InvalidInputError:
    return InvalidInputError(
        "--label",
        f"column {column!r} of {path!r} holds 1 with both 0 and -1 across its batches, "
        "so it is not one binary labelling",
        "pass --positive VALUE naming the positive class; every other value is negative",
    )


def not_a_dask_input(value: Any) -> InvalidInputError:
    return InvalidInputError(
        "data", f"expected a Dask DataFrame or the path of Parquet data, found "
        f"{type(value).__name__}",
        "pass dask.dataframe.read_parquet(...) or a path to Parquet files",
    )


def dask_missing_columns(missing: Sequence[str], found: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "data", f"no column(s) {list(missing)} (found {list(found)})",
        "pass label=, score= and weight= naming columns of the data",
    )


def dask_options_conflict() -> InvalidInputError:
    return InvalidInputError("--dask", "given together with --workers",
                             "pass --dask ADDRESS for an existing cluster or --workers N "
                             "for a local one, not both")


def check_workers(value: Any) -> int:
    """Local Dask workers for ``--workers``: an integer >= 1."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(number) != str(value).strip():
        raise InvalidInputError("--workers", f"expected an integer >= 1, found {value!r}",
                                "pass the number of local worker processes, e.g. 2")
    return number


def unsupported_with_dask(option: str) -> InvalidInputError:
    return InvalidInputError(option, "is not supported with --dask or --workers",
                             f"clean the data first, or run without --dask/--workers to use "
                             f"{option} (streaming on one machine supports it)")


def dask_needs_parquet(path: str, file_format: str) -> InvalidInputError:
    return InvalidInputError("INPUT", f"{path!r} is {file_format}; --dask and --workers read "
                             "Parquet", "convert the data to Parquet, or run without --dask "
                             "to stream it on this machine")

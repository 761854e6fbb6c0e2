"""Checks of ranked-retrieval input: cutoffs, measures, id columns, TREC files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import (
    as_1d,
    check_finite_numbers,
    check_fraction,
    check_same_length,
    first_indices,
)


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


def check_flag(name: str, value: Any) -> bool:
    """A yes/no option: True or False (numpy booleans too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(name, f"expected True or False, found {value!r}",
                                "pass a bool")
    return bool(value)


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
    from prcurve.validation.labels import check_labels  # one ranking only: not for files

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
        listed = array.tolist()
        kinds = {type(v) for v in listed}
        if kinds - {str} and all(issubclass(k, str) for k in kinds):
            # Subclasses of str (numpy.str_, a str Enum): the text they hold, as a
            # pyarrow column, pandas and a dict's keys read them (str() of an Enum
            # member would be its name).
            listed = [str.__str__(v) for v in listed]
            array, kinds = np.array(listed, dtype=object), {str}
        elif kinds - {bytes} and all(issubclass(k, bytes) for k in kinds):
            array, kinds = np.array([bytes(v) for v in listed], dtype=object), {bytes}
        if kinds <= {str}:
            # numpy's str arrays drop a string's trailing NULs: "a\0" would become "a".
            if "\0" in "".join(listed) and any(v.endswith("\0") for v in listed):
                raise InvalidInputError(
                    name, "an id ending with a NUL character ('\\0')",
                    "remove the NUL characters from the ids",
                )
            return array.astype(str)
        if kinds <= {bytes}:
            return array.astype(bytes)
        if all(issubclass(k, (int, np.integer)) and not issubclass(k, bool) for k in kinds):
            try:
                return array.astype(np.int64)
            except OverflowError:  # a Python int beyond int64 (was a traceback)
                raise InvalidInputError(
                    name, "integer ids beyond the int64 range",
                    "pass such ids as strings",
                ) from None
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


def check_id_labels(name: str, labels: ArrayLike) -> NDArray[Any]:
    """The distinct ids of a column (strings, bytes or integers, one kind)."""
    return check_id_column(name, labels)


def missing_ids(name: str, rows: NDArray[Any]) -> InvalidInputError:
    return InvalidInputError(
        name, f"{rows.shape[0]} missing ids (None or NaN; first at row {int(rows[0])})",
        "give every row a query and a document id",
    )


def empty_trec_file(argument: str, source: str, detail: str) -> InvalidInputError:
    return InvalidInputError(argument, f"{source}: {detail}",
                             f"check that this is the {argument} file you meant")


def check_grades(name: str, values: ArrayLike) -> NDArray[np.int64]:
    """Relevance grades: integers (negative grades mean judged-but-unusable, as in trec_eval)."""
    array = as_1d(name, values)
    if array.dtype.kind in "iub":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "f":
        # whole numbers within int64 (a cast beyond it is undefined)
        ints = np.isfinite(array) & (array == np.round(array)) & (np.abs(array) < 2.0**63)
        if ints.all():
            return array.astype(np.int64)
        raise InvalidInputError(
            name, f"expected integer grades, found {array[~ints][:3].tolist()!r} "
            f"(first at index {first_indices(~ints)})",
            "pass integer relevance grades (0 = not relevant, >= 1 relevant)",
        )
    if array.dtype.kind == "O" and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in array.tolist()
    ):
        wide = [v for v in array.tolist() if not -(2**63) <= v < 2**63]
        if wide:  # (an OverflowError escaped the cast before)
            raise InvalidInputError(
                name, f"a grade beyond 64-bit integers: {wide[0]!r}",
                "pass integer relevance grades between -2^63 and 2^63 - 1",
            )
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


def trec_measure_not_in_version(
    text: str, version: int, supported: Sequence[str]
) -> InvalidInputError:
    return InvalidInputError(
        "measures", f"trec_eval {version} has no measure {text!r}",
        f"use trec_eval 10 (the default), or one of {', '.join(supported)}",
    )


def bad_trec_option(option: str, value: Any, fix: str) -> InvalidInputError:
    return InvalidInputError(option, f"unsupported value {value!r}", fix)


def bad_zscores(source: str, line: int | None, found: str, fix: str) -> InvalidInputError:
    where = f"{source}, line {line}: " if line is not None else f"{source}: "
    return InvalidInputError("zscores", where + found, fix)


def unknown_trec_measure(text: str, supported: Sequence[str]) -> InvalidInputError:
    return InvalidInputError(
        "measures",
        f"unknown trec_eval measure {text!r}",
        f"use one of {', '.join(supported)}, or the nicknames official, all_trec, set "
        "(parameters after a dot: P.5,10)",
    )


def with_swap_hint(
    error: InvalidInputError, qrels: str, run: str, qrels_fields: int | None,
    run_fields: int | None,
) -> InvalidInputError:
    """``error`` (from reading QRELS or RUN) with a hint when the two look swapped:
    the first data line of the qrels file has a run's 6 or more fields
    (``qrels_fields``), the run's the 4 of judgments."""
    if qrels_fields is None or run_fields is None or not (qrels_fields >= 6 and run_fields == 4):
        return error
    found = str(error)[len(error.argument) + 2:].rstrip(".")
    return InvalidInputError(
        error.argument, found,
        f"did you swap QRELS and RUN? {qrels!r} looks like a run (6 fields per line) and "
        f"{run!r} like judgments (4); the command is prcurve trec QRELS RUN",
    )


# -- trec_eval's preference and judgment-group formats (-R prefs, qrels_prefs, qrels_jg) --

REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


def check_rel_format(value: Any) -> str:
    """trec_eval's -R: the format of the relevance file."""
    if not isinstance(value, str) or value not in REL_FORMATS:
        raise InvalidInputError(
            "-R", f"unsupported value {value!r}",
            f"give one of {', '.join(REL_FORMATS)} (trec_eval's relevance formats)",
        )
    return value


def measure_needs_format(text: str, needs: Sequence[str], found: str) -> InvalidInputError:
    """A trec_eval measure asked for with a relevance format it cannot use."""
    return InvalidInputError(
        "measures",
        f"trec_eval measure {text!r} needs -R {' or '.join(needs)} input (found -R {found})",
        "with -R prefs or qrels_prefs use -m all_prefs (or prefs_* measures), with -R qrels_jg "
        "-m qrels_jg (or the *_avgjg measures), with -R qrels every other measure",
    )


def bad_preference(source: str, query: Any, group: Any, found: str, fix: str) -> InvalidInputError:
    """Preferences of one judgment group that trec_eval refuses (form_prefs_counts.c)."""
    return InvalidInputError(
        "qrels", f"{source}: query {_plain(query)!r}, judgment group {_plain(group)!r}: {found}",
        fix,
    )

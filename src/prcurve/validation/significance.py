"""Checks of the arguments of the paired significance tests and of ``compare_runs``."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import as_1d, check_choice, check_finite_numbers

__all__ = [
    "check_alpha",
    "check_baseline",
    "check_correction",
    "check_paired_values",
    "check_permutations",
    "check_systems",
    "check_test",
    "different_query_sets",
    "not_comparable_measure",
    "too_few_queries",
]

_TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
_CORRECTIONS = ("none", "bonferroni", "holm", "bh")


def check_test(value: Any, *, tukey: bool = False) -> Any:
    """A test name; ``"tukey"`` (randomized Tukey HSD) only where all pairs are compared."""
    return check_choice("test", value, (*_TESTS, "tukey") if tukey else _TESTS)


def check_correction(value: Any) -> Any:
    return check_choice("correction", value, _CORRECTIONS)


def check_permutations(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(
            "permutations", f"expected an integer >= 1, found {value!r}",
            "pass the number of sign patterns or resamples, e.g. 10000",
        )
    return int(value)


def check_alpha(value: Any) -> float:
    """The significance level, strictly between 0 and 1."""
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
            or not 0.0 < float(value) < 1.0):
        raise InvalidInputError("alpha", f"expected a number in (0, 1), found {value!r}",
                                "pass a significance level such as 0.05")
    return float(value)


def too_few_queries(n: int, what: str = "queries") -> InvalidInputError:
    if n == 1:
        what = what.replace("queries", "query").replace("values", "value")
    return InvalidInputError(
        "qrels", f"{n} {what} to compare on; a paired test needs at least 2",
        "judge at least 2 queries that the runs answer",
    )


def check_paired_values(name: str, values: ArrayLike, n: int | None = None) -> NDArray[np.float64]:
    """Finite numbers, one per unit; at least 2, and ``n`` of them when ``n`` is given."""
    array = check_finite_numbers(name, as_1d(name, values)).astype(np.float64)
    if n is not None and array.shape[0] != n:
        raise InvalidInputError(name, f"{array.shape[0]} values against {n} in a",
                                "pass one value per unit in the same order for both systems")
    if array.shape[0] < 2:
        raise too_few_queries(array.shape[0], "values")
    return array


def check_systems(runs: Any) -> dict[str, list[Any]]:
    """``{name: run or list of runs}`` with at least two systems -> ``{name: [runs]}``.

    A plain sequence of runs names each by its file name (paths) or ``run1``,
    ``run2``, ... (other runs), one run per system.
    """
    if isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        named: dict[str, Any] = {}
        for i, run in enumerate(runs):
            name = (os.path.basename(os.fspath(run)) if isinstance(run, (str, os.PathLike))
                    else f"run{i + 1}")
            named[name if name and name not in named else f"run{i + 1}"] = run
        runs = named
    if not isinstance(runs, Mapping):
        raise InvalidInputError(
            "runs", f"expected a mapping of system name to run, found {type(runs).__name__}",
            "pass e.g. {'bm25': 'bm25.run', 'dense': ['seed1.run', 'seed2.run']}",
        )
    systems: dict[str, list[Any]] = {}
    for name, value in runs.items():
        if not isinstance(name, str) or not name:
            raise InvalidInputError("runs", f"system name {name!r} is not a non-empty string",
                                    "name each system with a string")
        many = isinstance(value, Sequence) and not isinstance(value, (str, bytes))
        members = list(value) if many else [value]
        if not members:
            raise InvalidInputError("runs", f"system {name!r} has an empty list of runs",
                                    "give each system one run or a list of its runs (seeds)")
        systems[name] = members
    if len(systems) < 2:
        raise InvalidInputError(
            "runs", f"{len(systems)} system{'' if len(systems) == 1 else 's'} given",
            "pass at least two runs to compare",
        )
    return systems


def check_baseline(value: Any, names: Sequence[str]) -> str | None:
    if value is None:
        return None
    if value not in names:
        raise InvalidInputError("baseline", f"{value!r} is not one of the runs",
                                f"use one of {', '.join(map(repr, names))}, or None for all pairs")
    chosen: str = value
    return chosen


def different_query_sets(missing: Mapping[str, Sequence[str]]) -> InvalidInputError:
    """The runs answer different queries and ``missing_queries="refuse"`` was asked."""
    parts = [f"{name} lacks {len(ids)} ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''})"
             for name, ids in missing.items() if ids]
    return InvalidInputError(
        "runs", "the runs answer different judged queries: " + "; ".join(parts),
        "score missing queries as 0 (missing_queries='zero', trec_eval -c) or give runs "
        "that answer the same queries",
    )


def not_comparable_measure(name: str) -> InvalidInputError:
    return InvalidInputError("measures", f"{name} is text, not a number to compare",
                             "compare numeric measures such as 'AP' or 'P@10'")


def check_model_baseline(argument: str, value: Any, names: Sequence[str],
                         what: str = "models") -> str | None:
    """A baseline among ``names`` (the models or detectors compared), or None for all pairs.

    ``argument`` is the name the caller knows (``"--baseline"`` on the command line).
    A baseline needs at least one other model to compare with.
    """
    if value is None:
        return None
    if value not in names:
        listed = f" ({', '.join(map(repr, names))})" if names else ""
        raise InvalidInputError(argument, f"{value!r} is not one of the {what}{listed}",
                                f"name one of the {what} as the baseline, or leave it out "
                                "to compare all pairs")
    if len(names) < 2:
        raise InvalidInputError(argument, f"{value!r} is the only one of the {what}, so "
                                "there is nothing to compare with it",
                                f"give two or more {what}, or leave the baseline out")
    chosen: str = value
    return chosen

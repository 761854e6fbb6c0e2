"""Which ranking system is better, and is it real: :func:`compare_runs` and its result.

Every run is judged against the same qrels with trec_eval's ``-c`` rule: a
judged query a run does not answer scores 0 in every measure, so all runs are
measured on the same queries (the judged ones) and every comparison is paired
by query. A system given as a list of runs (seeds, folds) is compared on its
mean per query over those runs; the spread of its runs' means (standard
deviation, ``n − 1``) is shown beside its mean. The tests, corrections and
Tukey's HSD are those of :mod:`prcurve.space.significance` (docs/ranking.md,
"Comparing systems").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from prcurve.core.table import Table
from prcurve.ranking.compare_text import comparison_json, paper_table
from prcurve.ranking.evaluation import judge
from prcurve.ranking.measures import TEXT_MEASURES, Measure, parse_measures
from prcurve.ranking.tables import Qrels, Run
from prcurve.ranking.trec_reader import prepare_job
from prcurve.space.significance import adjust_p_values, paired_tests, tukey_hsd
from prcurve.validation.arrays import check_choice
from prcurve.validation.significance import (
    check_alpha,
    check_baseline,
    check_correction,
    check_permutations,
    check_systems,
    check_test,
    different_query_sets,
    not_comparable_measure,
    too_few_queries,
)

__all__ = ["RunComparison", "compare_runs"]

F64 = NDArray[np.float64]
MissingRule = Literal["zero", "refuse"]


@dataclass(frozen=True, eq=False)
class RunComparison:
    """Systems compared on per-query values: means, differences, intervals, p-values.

    ``rows`` holds the long table of :meth:`to_table`; ``means[m][i]`` and
    ``spread[m][i]`` are system ``systems[i]``'s mean of measure ``m`` over the
    ``n_queries`` queries and the standard deviation of its runs' means (NaN for
    a single run); ``per_query[m]`` is the ``n_queries × k`` matrix the tests
    read; ``missing[s]`` lists the judged queries some run of system ``s`` does
    not answer (scored 0).
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    permutations: int
    n_queries: int
    query_ids: NDArray[Any] = field(repr=False)
    runs_per_system: Mapping[str, int] = field(repr=False)
    means: Mapping[str, F64] = field(repr=False)
    spread: Mapping[str, F64] = field(repr=False)
    per_query: Mapping[str, F64] = field(repr=False)
    missing: Mapping[str, tuple[str, ...]] = field(repr=False)
    rows: Mapping[str, NDArray[Any]] = field(repr=False)
    method: str = ""

    def to_table(self) -> Table:
        """One row per (measure, system) — per (measure, system, versus) for all pairs.

        Columns ``measure, system, mean, difference, ci_low, ci_high, p_value,
        p_adjusted, significant``, then ``versus`` (the other system of the
        pair) and ``spread`` (the standard deviation of a system's runs'
        means; NaN for one run): ``difference`` is mean(system) − mean(versus);
        with a baseline, the baseline's own row has NaN in the comparison
        columns.
        """
        return Table(self.rows)

    def to_pandas(self) -> Any:
        """:meth:`to_table` as a pandas DataFrame (needs pandas)."""
        return self.to_table().to_pandas()

    def to_markdown(self) -> str:
        """The table IR papers print: means with significance marks, then a legend."""
        return paper_table(self, "markdown")

    def to_latex(self) -> str:
        """The same table as a LaTeX ``tabular`` (booktabs rules) with its legend."""
        return paper_table(self, "latex")

    def to_text(self) -> str:
        return paper_table(self, "text")

    def to_dict(self) -> dict[str, Any]:
        """Settings, systems, missing queries and the rows, JSON-ready (NaN as None)."""
        return comparison_json(self)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return paper_table(self, "html") + self.to_table().to_html(max_rows=30)


def compare_runs(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure] = ("AP", "ndcg", "P@10"),
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    permutations: int = 10000,
    seed: Any = None,
    *,
    alpha: float = 0.05,
    missing_queries: MissingRule = "zero",
    relevance_level: int = 1,
) -> RunComparison:
    """Compare ranking systems query by query, with paired tests and a correction.

    Parameters
    ----------
    qrels : Qrels, dict, table or path
        The judgments (any form :func:`prcurve.ranking.evaluate` accepts).
    runs : mapping of name to run, or to a list of runs
        Each system's run (a :class:`Run`, dict, table or path); a list of runs
        (seeds, folds) is compared on its mean per query. A plain list of runs
        is one run per system, named by file name (paths) or ``run1``, ``run2``, ...
    measures : str, Measure or iterable, default ("AP", "ndcg", "P@10")
        Any numeric measure of :func:`prcurve.ranking.evaluate`.
    baseline : str, optional
        Compare each system with this one; None compares all pairs.
    test : {"t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"}
        The paired test (:mod:`prcurve.space.significance`); ``"tukey"`` is the
        randomized Tukey HSD, one family of all pairs (its p-values are already
        adjusted; ``correction`` is not applied).
    correction : {"none", "bonferroni", "holm", "bh"}, default "holm"
        Over the comparisons of one measure.
    permutations : int, default 10000
        Sign patterns (randomization), resamples (bootstrap and every interval
        but the t test's) or trials (Tukey).
    seed : int, SeedSequence or Generator, optional
        For the resampling tests and intervals.
    alpha : float, default 0.05
        ``significant`` is ``p_adjusted < alpha``; intervals are ``1 − alpha``.
    missing_queries : {"zero", "refuse"}, default "zero"
        "zero" scores a judged query a run does not answer 0 (trec_eval -c);
        "refuse" raises when the runs answer different judged queries.
    relevance_level : int, default 1
        Smallest relevant grade (trec_eval -l).

    Returns
    -------
    RunComparison

    Examples
    --------
    >>> from prcurve.ranking.compare import compare_runs
    >>> qrels = {f"q{i}": {"a": 1, "b": 1, "c": 0} for i in range(6)}
    >>> good = {f"q{i}": {"a": 0.9, "b": 0.8, "c": 0.1} for i in range(6)}
    >>> weak = {f"q{i}": {"c": 0.9, "a": 0.8, "b": 0.1 * i} for i in range(6)}
    >>> result = compare_runs(qrels, {"good": good, "weak": weak}, ["P@1"], test="sign")
    >>> table = result.to_table()
    >>> table["difference"].tolist(), round(float(table["p_value"][0]), 6)
    ([1.0], 0.03125)
    """
    systems = check_systems(runs)
    names = tuple(systems)
    chosen_test = check_test(test, tukey=True)
    chosen_correction = check_correction(correction)
    count = check_permutations(permutations)
    level = 1.0 - check_alpha(alpha)
    base = check_baseline(baseline, names)
    check_choice("missing_queries", missing_queries, ("zero", "refuse"))
    parsed = parse_measures(measures)
    for measure in parsed:
        if measure.name in TEXT_MEASURES:
            raise not_comparable_measure(str(measure))
    # Files: pyarrow's reader for all of them where the job loads pyarrow anyway
    # (trec_reader.prepare_job; issue 26, session 34).
    prepare_job([(qrels, "qrels"), *((m, "run") for ms in systems.values() for m in ms)])
    judgments = Qrels.coerce(qrels)
    labels = [str(m) for m in parsed]
    query_ids: NDArray[Any] | None = None
    values: dict[str, list[F64]] = {label: [] for label in labels}  # one (n, k) column each
    spread: dict[str, list[float]] = {label: [] for label in labels}
    answered: dict[str, list[frozenset[Any]]] = {}
    missing: dict[str, tuple[str, ...]] = {}
    for name, members in systems.items():
        per_run: dict[str, list[F64]] = {label: [] for label in labels}
        lacking: set[Any] = set()
        answered[name] = []
        for member in members:
            judged = judge(judgments, Run.coerce(member), relevance_level=relevance_level,
                           queries_without_results="zero")
            result = judged.evaluate(parsed)
            if query_ids is None:
                query_ids = result.query_ids
            elif not np.array_equal(query_ids, result.query_ids):  # the qrels decide: a bug
                raise RuntimeError("runs judged on different query sets")
            for label in labels:
                per_run[label].append(np.asarray(result.per_query[label], dtype=np.float64))
            ids = result.query_ids
            answered[name].append(frozenset(ids[result.has_results].tolist()))
            lacking.update(ids[~result.has_results].tolist())
        missing[name] = tuple(sorted(_text(q) for q in lacking))
        for label in labels:
            stacked = np.stack(per_run[label])  # runs × queries
            values[label].append(stacked.mean(axis=0))
            spread[label].append(float(stacked.mean(axis=1).std(ddof=1))
                                 if len(members) > 1 else float("nan"))
    if query_ids is None or query_ids.shape[0] < 2:
        raise too_few_queries(0 if query_ids is None else int(query_ids.shape[0]))
    if missing_queries == "refuse" and len({s for sets in answered.values() for s in sets}) > 1:
        raise different_query_sets(missing)
    matrices = {label: np.column_stack(values[label]) for label in labels}
    pairs = _pairs(names, base)
    rows, method = _rows(matrices, names, base, pairs, chosen_test, chosen_correction, count,
                         seed, level, check_alpha(alpha), spread)
    return RunComparison(
        measures=tuple(labels), systems=names, baseline=base, test=chosen_test,
        correction="tukey-hsd" if chosen_test == "tukey" else chosen_correction,
        alpha=check_alpha(alpha), permutations=count, n_queries=int(query_ids.shape[0]),
        query_ids=query_ids, runs_per_system={n: len(m) for n, m in systems.items()},
        means={label: m.mean(axis=0) for label, m in matrices.items()},
        spread={label: np.array(s) for label, s in spread.items()},
        per_query=matrices, missing=missing, rows=rows, method=method,
    )


def _text(query: Any) -> str:
    return query.decode("utf-8", "backslashreplace") if isinstance(query, bytes) else str(query)


def _pairs(names: tuple[str, ...], baseline: str | None) -> list[tuple[int, int]]:
    """(system, versus) index pairs: each system against the baseline, or every i < j."""
    if baseline is not None:
        b = names.index(baseline)
        return [(i, b) for i in range(len(names)) if i != b]
    return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]


def _rows(
    matrices: dict[str, F64], names: tuple[str, ...], baseline: str | None,
    pairs: list[tuple[int, int]], test: str, correction: str, count: int, seed: Any,
    level: float, alpha: float, spread: dict[str, list[float]],
) -> tuple[dict[str, NDArray[Any]], str]:
    labels = list(matrices)
    # Every comparison of every measure is one column of D: the resampling tests draw
    # their sign patterns or resamples once, for all of them (one matrix product).
    d = np.column_stack([matrices[label][:, i] - matrices[label][:, j]
                         for label in labels for i, j in pairs])
    rng = np.random.default_rng(seed)
    tested = paired_tests(d, "bootstrap" if test == "tukey" else test,  # type: ignore[arg-type]
                          permutations=count,
                          level=level, seed=rng)
    p = tested["p_value"].reshape(len(labels), len(pairs))
    if test == "tukey":
        adjusted = np.empty_like(p)
        for m, label in enumerate(labels):
            hsd = tukey_hsd(matrices[label], permutations=count, seed=rng)
            adjusted[m] = [hsd[i, j] for i, j in pairs]
        p = adjusted
    else:
        adjusted = np.vstack([adjust_p_values(row, correction) for row in p])  # type: ignore[arg-type]
    out: dict[str, list[Any]] = {c: [] for c in (
        "measure", "system", "mean", "difference", "ci_low", "ci_high", "p_value",
        "p_adjusted", "significant", "versus", "spread")}
    nan = float("nan")
    for m, label in enumerate(labels):
        means = matrices[label].mean(axis=0)
        entries: list[tuple[int, int | None, int | None]] = []
        if baseline is not None:
            b = names.index(baseline)
            by_system = {i: c for c, (i, _) in enumerate(pairs)}
            entries = [(i, b if i != b else None, by_system.get(i)) for i in range(len(names))]
        else:
            entries = [(i, j, c) for c, (i, j) in enumerate(pairs)]
        for i, j, c in entries:
            column = m * len(pairs) + c if c is not None else None
            out["measure"].append(label)
            out["system"].append(names[i])
            out["versus"].append(names[j] if j is not None else "")
            out["mean"].append(float(means[i]))
            out["spread"].append(spread[label][i])
            if column is None or c is None:
                for key in ("difference", "ci_low", "ci_high", "p_value", "p_adjusted"):
                    out[key].append(nan)
                out["significant"].append(False)
                continue
            out["difference"].append(float(tested["difference"][column]))
            out["ci_low"].append(float(tested["ci_low"][column]))
            out["ci_high"].append(float(tested["ci_high"][column]))
            out["p_value"].append(float(p[m, c]))
            out["p_adjusted"].append(float(adjusted[m, c]))
            out["significant"].append(bool(adjusted[m, c] < alpha))
    if test == "tukey":
        method = f"randomized Tukey HSD, {count} trials"
    else:
        method = "; ".join(dict.fromkeys(str(text) for text in tested["method"]))
    kinds = {"measure": object, "system": object, "versus": object, "significant": bool}
    return {key: np.array(value, dtype=kinds.get(key, np.float64))
            for key, value in out.items()}, method

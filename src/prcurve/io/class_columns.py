"""Which score column scores which class: matching columns to classes by name.

A multi-class input has one label column with more than two classes and one
score column per class; a multi-label input has one 0/1 label column per class
and a score column for each. :func:`match_names` pairs them by name: a score
column named after the class (``cat``), or the class inside one prefix and
suffix shared by every class (``p_cat``, ``score_cat_v2``). Nothing is guessed
beyond that: an ambiguous or partial match is no match, and the caller asks
for ``--score`` in the classes' order.

Examples
--------
>>> from prcurve.io.class_columns import match_names, varying_part
>>> match_names(["bird", "cat", "dog"], ["id", "p_dog", "p_cat", "p_bird"])
['p_bird', 'p_cat', 'p_dog']
>>> match_names(["a", "b"], ["x", "y"]) is None
True
>>> varying_part(["y_cat", "y_dog", "y_bird"])
['cat', 'dog', 'bird']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.io.columns import (
    LoadedInput,
    check_roles,
    choose_label,
    choose_scores,
    scores_of_table,
)
from prcurve.io.label_rows import Labels
from prcurve.io.parquet_memory import release_freed_memory
from prcurve.io.readers import RawTable, RowsCallback, read_table
from prcurve.io.rows import (
    CheckedBlock,
    LabelRule,
    RowProblem,
    check_block,
    check_weight_totals,
    coded_labels,
)
from prcurve.io.text_codes import CodedText
from prcurve.validation.files import (
    check_distinct_labels,
    missing_column,
    no_class_columns,
    no_label_score_pairs,
    no_rows_left,
)

__all__ = [
    "LoadedClasses",
    "classes_of_table",
    "input_of_table",
    "load_input",
    "match_names",
    "varying_part",
]


def match_names(keys: Sequence[str], columns: Sequence[str]) -> list[str] | None:
    """The column of each key, by name; None unless exactly one naming fits every key.

    A key matches the column of the same name, or else every key matches
    ``prefix + key + suffix`` for one (prefix, suffix) found from the first
    key; two such namings that both fit are ambiguous (None).
    """
    if not keys:
        return None
    available = set(columns)
    if all(key in available for key in keys):
        return list(keys)
    first = keys[0]
    namings: set[tuple[str, str]] = set()
    for column in columns:
        start = column.find(first)
        while start >= 0:
            prefix, suffix = column[:start], column[start + len(first):]
            if all(f"{prefix}{key}{suffix}" in available for key in keys):
                namings.add((prefix, suffix))
            start = column.find(first, start + 1)
    if len(namings) != 1:
        return None
    ((prefix, suffix),) = namings
    return [f"{prefix}{key}{suffix}" for key in keys]


def _common_start(texts: list[str]) -> str:
    """The longest text that every one of ``texts`` starts with (character by character)."""
    shortest = min(texts, key=len)
    for i, char in enumerate(shortest):
        if any(t[i] != char for t in texts):
            return shortest[:i]
    return shortest


def varying_part(names: Sequence[str]) -> list[str]:
    """Each name without the prefix and suffix that all the names share.

    The shared parts stop short of leaving any name empty.
    """
    if len(names) < 2:
        return list(names)
    prefix = _common_start(list(names))
    suffix = _common_start([n[len(prefix):][::-1] for n in names])[::-1]
    shortest = min(len(n) for n in names)
    prefix = prefix[:max(0, min(len(prefix), shortest - 1))]
    suffix = suffix[:max(0, min(len(suffix), shortest - len(prefix) - 1))]
    return [n[len(prefix):len(n) - len(suffix)] for n in names]


@dataclass(frozen=True)
class LoadedClasses:
    """One multi-class or multi-label input file, checked, with its classes' score columns.

    ``y_true`` holds each kept row's class (multi-class) or an (n, k) 0/1
    indicator matrix (multi-label); ``scores`` the (n, k) matrix whose column
    ``j`` scores ``classes[j]`` and comes from ``score_columns[j]``;
    ``matched_by`` says how: ``"name"`` (the column is named after the class)
    or ``"order"`` (``--score`` given once per class, in the classes' order).
    The other fields are those of :class:`prcurve.io.LoadedInput`.
    """

    path: str
    format: str
    n_rows: int
    kind: str
    label_column: str
    label_chosen: str
    weight_column: str | None
    scores_chosen: str
    skipped_columns: list[str]
    classes: list[str]
    class_values: NDArray[Any]
    score_columns: list[str]
    matched_by: str
    y_true: NDArray[Any]
    scores: NDArray[np.float64]
    weights: NDArray[np.float64] | None
    rows_dropped: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    positive_label: Any = None
    models: tuple[()] = ()  # no binary models: the report scores the classes
    unscored_columns: list[str] = field(default_factory=list)

    @property
    def unscored_note(self) -> str | None:
        """The note naming score columns named like the classes' (``p_<name>``) whose
        name is no class of the label column: not scored, and said (never silently)."""
        if not self.unscored_columns:
            return None
        shown = ", ".join(map(repr, self.unscored_columns))
        return (f"{Path(self.path).name}: score column(s) {shown} named like the classes' "
                f"columns name no class of {self.label_column!r} (classes "
                f"{', '.join(self.classes)}): not scored")

    @property
    def label_columns(self) -> list[str]:
        return self.label_column.split(", ")


def _binary_like(values: Labels, column: str) -> bool:
    """Labels that :class:`prcurve.io.rows.LabelRule` reads without ``--positive`` (its rule,
    not a copy of it)."""
    try:
        LabelRule(column).mask(values)
    except RowProblem:
        return False
    return True


def classes_of_table(
    table: RawTable,
    *,
    labels: Sequence[str] = (),
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    drop_invalid: bool = False,
) -> LoadedClasses | None:
    """The classes of a multi-class or multi-label table; None when it is a binary one.

    Several ``labels`` are a multi-label input: each a binary label column
    (read as ``prcurve report`` reads one, ``positive`` for all), scored by
    the ``scores`` given in the same order or by the score column named like
    it (``y_cat`` and ``p_cat``). One label column (or none: found as for a
    binary input) without ``positive`` is multi-class when its values are not
    booleans, {0, 1} or {-1, 1} and either there are more than two classes or
    a score column is named after each class (:func:`match_names`); with
    ``scores`` given once per class and no such names, column ``j`` scores
    the ``j``-th class in sorted order.
    """
    names = list(table.columns)
    if len(labels) > 1:
        return _multilabel(table, list(labels), scores, weight, positive, drop_invalid)
    if positive is not None:
        return None
    label_column, label_chosen = choose_label(table.path, names, labels[0] if labels else None)
    if weight is not None and weight not in table.columns:
        raise missing_column("--weight", weight, table.path, names)
    try:
        present, missing = coded_labels(table.labels(label_column), label_column)
    except RowProblem as problem:
        raise problem.error(table.path) from None
    if present.shape[0] == 0 or _binary_like(present, label_column):
        return None
    try:  # text as codes: its few distinct values (each used by some row)
        class_values = np.unique(present.categories if isinstance(present, CodedText)
                                 else present)
    except TypeError:
        return None  # mixed kinds: the binary path explains
    classes = [str(v) for v in class_values.tolist()]
    used = {label_column} | ({weight} if weight is not None else set())
    if scores:
        check_roles(label_column, label_chosen, weight, scores, "option")
    candidates, scores_chosen, skipped = choose_scores(table, scores, used)
    check_roles(label_column, label_chosen, weight, candidates, scores_chosen)
    columns, matched_by = match_names(classes, candidates), "name"
    if columns is None and scores_chosen == "option" and len(candidates) == len(classes):
        columns, matched_by = list(candidates), "order"
    if columns is None:
        if len(classes) == 2 or len(candidates) < len(classes):
            return None  # a binary input whose positive class is missing (--positive)
        raise no_class_columns(label_column, table.path, classes, candidates)
    skipped = [*skipped, *(c for c in candidates if c not in columns)]
    rule = LabelRule(label_column, classes[0])  # the positive mask is not used
    block = _checked(table, label_column, rule, weight, columns, drop_invalid)
    full = np.empty(table.n_rows, dtype=present.dtype)
    full[~missing] = present.values() if isinstance(present, CodedText) else present
    loaded = _loaded(table, "multi-class", label_column, label_chosen, weight, scores_chosen,
                     skipped, classes, class_values, columns, matched_by, full, [block])
    unscored = _named_like(classes, columns, candidates) if matched_by == "name" else []
    return replace(loaded, unscored_columns=unscored) if unscored else loaded


def _named_like(keys: Sequence[str], columns: Sequence[str],
                candidates: Sequence[str]) -> list[str]:
    """The ``candidates`` not in ``columns`` that are named as ``columns`` name ``keys``
    (``prefix + name + suffix``, e.g. ``p_zzz`` beside ``p_a`` ... for classes a ...):
    a class's score column whose class does not occur. Empty when the columns are the
    keys themselves (then any other column could be anything)."""
    start = columns[0].find(keys[0])
    prefix, suffix = columns[0][:start], columns[0][start + len(keys[0]):]
    if not (prefix or suffix) or any(c != f"{prefix}{k}{suffix}"
                                     for k, c in zip(keys, columns, strict=True)):
        return []
    chosen = set(columns)
    return [c for c in candidates if c not in chosen and len(c) > len(prefix) + len(suffix)
            and c.startswith(prefix) and c.endswith(suffix)]


def _multilabel(table: RawTable, labels: list[str], scores: Sequence[str],
                weight: str | None, positive: str | None,
                drop_invalid: bool) -> LoadedClasses:
    names = list(table.columns)
    check_distinct_labels(labels)
    for column in labels:
        if column not in table.columns:
            raise missing_column("--label", column, table.path, names)
    if weight is not None and weight not in table.columns:
        raise missing_column("--weight", weight, table.path, names)
    used = {*labels} | ({weight} if weight is not None else set())
    candidates, scores_chosen, skipped = choose_scores(table, scores, used)
    for column in labels:
        check_roles(column, "option", weight, candidates, scores_chosen)
    keys = varying_part(labels)
    if scores_chosen == "option" and len(candidates) == len(labels):
        columns, matched_by = list(candidates), "order"
    else:
        found = match_names(keys, candidates)
        if found is None:
            raise no_label_score_pairs(labels, table.path, candidates)
        columns, matched_by = found, "name"
    skipped = [*skipped, *(c for c in candidates if c not in columns)]
    # The score columns are checked with the first label column; each other label column
    # with one score column only, for its own missing labels (the scores once, not k times).
    blocks = [_checked(table, column, LabelRule(column, positive), weight,
                       columns if k == 0 else columns[:1], drop_invalid)
              for k, column in enumerate(labels)]
    matrix = np.column_stack([block.positive for block in blocks]).astype(np.int8)
    loaded = _loaded(table, "multi-label", ", ".join(labels), "option", weight,
                     scores_chosen, skipped, keys, np.array(keys, dtype=object), columns,
                     matched_by, matrix, blocks)
    unscored = _named_like(keys, columns, candidates) if matched_by == "name" else []
    return replace(loaded, unscored_columns=unscored) if unscored else loaded


def _checked(table: RawTable, label: str, rule: LabelRule, weight: str | None,
             columns: Sequence[str], drop_invalid: bool) -> CheckedBlock:
    try:
        return check_block(table.labels(label), rule,
                           None if weight is None else table.columns[weight], weight,
                           {c: table.columns[c] for c in columns}, drop_invalid)
    except RowProblem as problem:
        raise problem.error(table.path) from None


def _kept(blocks: Sequence[CheckedBlock]) -> NDArray[np.bool_]:
    """The rows every class keeps: one-vs-rest needs the same samples in every class."""
    keep = np.ones(blocks[0].positive.shape[0], dtype=bool)
    for block in blocks:
        for mask in block.keep.values():
            if mask is not None:
                keep &= mask
    return keep


def _dropped(blocks: Sequence[CheckedBlock]) -> dict[str, int]:
    """Rows dropped, by reason: a missing or bad score once per score column it is in, a
    missing label once per label column, a missing weight once.

    The first block checks every score column; each other block one score column, for
    its label column's missing labels. Label and weight reasons repeat in every column of
    a block, so they are read from its first column.
    """
    out: dict[str, int] = {}
    once = ("label_missing", "weight_missing_or_nan")
    for k, block in enumerate(blocks):
        for n, counts in enumerate(block.dropped.values()):
            for reason, count in counts.items():
                first_column = n == 0
                kept = (reason == "label_missing" and first_column) if k else (
                    first_column or reason not in once)
                if kept:
                    out[reason] = out.get(reason, 0) + count
    return out


def _loaded(table: RawTable, kind: str, label: str, label_chosen: str, weight: str | None,
            scores_chosen: str, skipped: list[str], classes: list[str],
            class_values: NDArray[Any], columns: list[str], matched_by: str,
            y_true: NDArray[Any], blocks: Sequence[CheckedBlock]) -> LoadedClasses:
    keep, block = _kept(blocks), blocks[0]
    if not keep.any():
        raise no_rows_left(columns[0], table.path, table.n_rows)
    matrix = np.column_stack([np.asarray(block.scores[c], dtype=np.float64) for c in columns])
    weights = None if block.weights is None else block.weights[keep]
    if weights is not None:  # all-zero weights; a class without positive weight is undefined
        total = float(weights.sum())
        check_weight_totals(weight, table.path, total, total)
    return LoadedClasses(
        path=table.path, format=table.format, n_rows=table.n_rows, kind=kind,
        label_column=label, label_chosen=label_chosen, weight_column=weight,
        scores_chosen=scores_chosen, skipped_columns=skipped, classes=classes,
        class_values=class_values, score_columns=columns, matched_by=matched_by,
        y_true=y_true[keep], scores=matrix[keep], weights=weights,
        rows_dropped=int(np.count_nonzero(~keep)), dropped=_dropped(blocks),
    )


def load_input(
    path: str,
    *,
    labels: Sequence[str] = (),
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    drop_invalid: bool = False,
    input_format: str | None = None,
    on_rows: RowsCallback | None = None,
    delimiter: str | None = None,
    decimal: str = ".",
) -> LoadedInput | LoadedClasses:
    """Read a file once: a binary input (:func:`prcurve.io.load_scores`), or a multi-class or
    multi-label one (:func:`classes_of_table`, which says which)."""
    table = read_table(path, input_format=input_format, on_rows=on_rows, delimiter=delimiter,
                       decimal=decimal)
    rows = table.n_rows
    loaded = input_of_table(table, labels=labels, scores=scores, weight=weight,
                            positive=positive, drop_invalid=drop_invalid)
    del table  # the columns no model keeps (the labels), before the memory is given back
    release_freed_memory(rows)
    return loaded


def input_of_table(
    table: RawTable,
    *,
    labels: Sequence[str] = (),
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    drop_invalid: bool = False,
) -> LoadedInput | LoadedClasses:
    """:func:`load_input` of a table already read (a file, or a data frame)."""
    found = classes_of_table(table, labels=labels, scores=scores, weight=weight,
                             positive=positive, drop_invalid=drop_invalid)
    if found is not None:
        return found
    return scores_of_table(table, label=labels[0] if labels else None, scores=scores,
                           weight=weight, positive=positive, drop_invalid=drop_invalid)

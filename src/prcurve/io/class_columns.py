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

import os
from collections.abc import Sequence

__all__ = ["match_names", "varying_part"]


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


def varying_part(names: Sequence[str]) -> list[str]:
    """Each name without the prefix and suffix that all the names share.

    The shared parts stop short of leaving any name empty.
    """
    if len(names) < 2:
        return list(names)
    prefix = os.path.commonprefix(list(names))
    suffix = os.path.commonprefix([n[len(prefix):][::-1] for n in names])[::-1]
    shortest = min(len(n) for n in names)
    prefix = prefix[:max(0, min(len(prefix), shortest - 1))]
    suffix = suffix[:max(0, min(len(suffix), shortest - len(prefix) - 1))]
    return [n[len(prefix):len(n) - len(suffix)] for n in names]

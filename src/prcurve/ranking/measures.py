"""Ranking measures as values: the measure grammar and the evaluation conventions.

A :class:`Measure` is a name and a parameter (``P@10``, ``iprec@0.5``) with a
canonical text form that :meth:`Measure.parse` reads back. This module also
names the conventions an evaluation can follow (trec_eval 10 or 9, float64 or
float32 scores, skipping or zero-scoring queries without results).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from prcurve.validation.arrays import check_positive_number
from prcurve.validation.ranking import (
    bad_measure_parameter,
    check_cutoff,
    check_level_fraction,
    unknown_measure,
)

__all__ = [
    "CONVENTIONS",
    "MEASURE_NAMES",
    "MISSING_QUERIES",
    "SCORE_PRECISIONS",
    "SUMMED_MEASURES",
    "Convention",
    "Measure",
    "MissingQueries",
    "ScorePrecision",
    "parse_measures",
]



Convention = Literal["trec_eval_10", "trec_eval_9"]


CONVENTIONS: tuple[str, ...] = ("trec_eval_10", "trec_eval_9")


ScorePrecision = Literal["float64", "float32"]


SCORE_PRECISIONS: tuple[str, ...] = ("float64", "float32")


MissingQueries = Literal["skip", "zero"]


MISSING_QUERIES: tuple[str, ...] = ("skip", "zero")


# name -> the parameter it takes after "@": None, "k" (int >= 1, required),
# "k?" (optional int) or "r" (a recall level in [0, 1], required).
_PARAMETERS: dict[str, str | None] = {
    "AP": "k?",
    "AP_min_k_relevant": "k",
    "P": "k",
    "R": "k",
    "R-prec": None,
    "RR": None,
    "iprec": "r",
    "11pt": None,
    "bpref": None,
    "gm_AP": None,
    "num_ret": None,
    "num_rel": None,
    "num_rel_ret": None,
    "set_P": None,
    "set_R": None,
    "set_F": "x?",
}


MEASURE_NAMES: tuple[str, ...] = tuple(_PARAMETERS)


SUMMED_MEASURES = frozenset({"num_ret", "num_rel", "num_rel_ret"})


def _known_forms() -> list[str]:
    forms = {"k": "@k", "k?": "[@k]", "r": "@r", "x?": "[@x]"}
    return [name + forms.get(kind or "", "") for name, kind in _PARAMETERS.items()]


@dataclass(frozen=True)
class Measure:
    """A ranking measure as a value: a name and its parameter.

    ``str(m)`` is canonical and :meth:`parse` reads it back, so
    ``Measure.parse(str(m)) == m``. Names (trec_eval's in brackets):
    ``AP`` [map], ``AP@k`` [map_cut.k], ``AP_min_k_relevant@k`` (the Precision And Recall tutorial's
    AP@k, divided by min(k, R)), ``P@k`` [P.k], ``R@k`` [recall.k], ``R-prec``
    [Rprec], ``RR`` [recip_rank], ``iprec@r`` [iprec_at_recall.r], ``11pt``
    [11pt_avg], ``bpref``, ``gm_AP`` [gm_map], ``num_ret``, ``num_rel``,
    ``num_rel_ret``, ``set_P``, ``set_R`` [set_recall], ``set_F`` and
    ``set_F@x`` [set_F.x: (x + 1) P R / (x P + R), x = 1 by default].

    Examples
    --------
    >>> from prcurve.ranking import Measure
    >>> Measure.parse("P@10")
    Measure('P@10')
    >>> str(Measure("iprec", 0.5)), Measure.parse("AP") == Measure("AP")
    ('iprec@0.5', True)
    """

    name: str
    cutoff: int | float | None = None

    def __str__(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff!r}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @classmethod
    def parse(cls, text: str | Measure) -> Measure:
        """Read a measure such as ``"AP"``, ``"P@10"`` or ``"iprec@0.5"``."""
        if isinstance(text, Measure):
            return text
        if not isinstance(text, str):
            raise unknown_measure(text, _known_forms())
        name, at, parameter = text.strip().partition("@")
        if name not in _PARAMETERS:
            raise unknown_measure(text, _known_forms())
        kind = _PARAMETERS[name]
        if not at:
            if kind in ("k", "r"):
                what = (
                    "a rank cutoff, e.g. 'P@10'" if kind == "k"
                    else "a recall level, e.g. 'iprec@0.5'"
                )
                raise bad_measure_parameter(
                    text, "missing its parameter", f"add {what}"
                )
            return cls(name)
        if kind is None:
            raise bad_measure_parameter(
                text, f"{name} takes no parameter", f"write {name!r}"
            )
        try:
            value: int | float = float(parameter) if kind in ("r", "x?") else int(parameter)
        except ValueError:
            raise bad_measure_parameter(
                text, f"cannot read the parameter {parameter!r}",
                "write an integer cutoff (P@10)" if kind != "r" else "write a level (iprec@0.5)",
            ) from None
        if kind == "r":
            return cls(name, check_level_fraction("measures", value))
        if kind == "x?":
            return cls(name, check_positive_number("measures", value))
        return cls(name, check_cutoff("measures", value))


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> tuple[Measure, ...]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = tuple(dict.fromkeys(Measure.parse(m) for m in measures))
    if not parsed:
        raise bad_measure_parameter("", "no measures given", "pass e.g. ['AP', 'P@10']")
    return parsed

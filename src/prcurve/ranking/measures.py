"""Ranking measures as values: the measure grammar and the evaluation conventions.

A :class:`Measure` is a name, keyword parameters and a cutoff (``P@10``,
``iprec@0.5``, ``ndcg_cut@10``, ``rbp(p=0.8)``,
``ndcg(gains={1: 1.0, 2: 3.0})``) with a canonical text form that
:meth:`Measure.parse` reads back (parameters are read with :mod:`ast`, never
evaluated). trec_eval's own names are accepted too (``map``, ``map_cut@10``,
``recip_rank``, ...) and stand for the same measure. This module also names
the conventions an evaluation can follow (trec_eval 10 or 9, float64 or
float32 scores, skipping or zero-scoring queries without results).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from prcurve.validation.arrays import check_positive_number
from prcurve.validation.ranking import (
    bad_measure_parameter,
    check_cutoff,
    check_level_fraction,
    unknown_measure,
)

__all__ = [
    "ALIASES",
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
# "k?" (optional int), "r" (a recall level in [0, 1], required), "x?" (optional
# number > 0), "m" (a multiple of R, a number >= 0, required) or "n" (a length,
# an int >= 0, required).
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
    # trec_eval's measures under their trec_eval names.
    "relstring": "n",
    "infAP": None,
    "gm_bpref": None,
    "Rprec_mult": "m",
    "utility": None,
    "binG": None,
    "G": None,
    "dcg": None,
    "ideal_dcg": None,
    "ndcg": None,
    "ndcg_rel": None,
    "Rndcg": None,
    "ndcg_cut": "k",
    "relative_P": "k",
    "success": "k",
    "set_relative_P": None,
    "set_map": None,
    "num_nonrel_judged_ret": None,
    "yaap": None,
    "rbp": None,
    "rbp_resid": None,
    "unj": "k",
}


_GAINS: dict[str, Any] = {"gains": ()}


# name -> its keyword parameters and their defaults (a default is never stored).
_KEYWORDS: dict[str, dict[str, Any]] = {
    "ndcg": _GAINS,
    "ndcg_rel": _GAINS,
    "Rndcg": _GAINS,
    "G": _GAINS,
    "dcg": _GAINS,
    "ideal_dcg": _GAINS,
    "rbp": {"p": 0.9, "gains": ()},
    "rbp_resid": {"p": 0.9},
    # trec_eval's utility.p1,p2,p3,p4 and -N: weights of the relevant retrieved,
    # non-relevant retrieved, relevant not retrieved and non-relevant not
    # retrieved documents, and the number of documents in the collection.
    "utility": {"rel_ret": 1.0, "nonrel_ret": -1.0, "rel_unret": 0.0, "nonrel_unret": 0.0,
                "collection_size": 0},
}


# trec_eval's names of the measures prcurve names otherwise: trec_eval name ->
# (prcurve name, parameter kind under the trec_eval name).
ALIASES: dict[str, tuple[str, str | None]] = {
    "map": ("AP", None),
    "map_cut": ("AP", "k"),
    "recall": ("R", "k"),
    "Rprec": ("R-prec", None),
    "recip_rank": ("RR", None),
    "iprec_at_recall": ("iprec", "r"),
    "11pt_avg": ("11pt", None),
    "gm_map": ("gm_AP", None),
    "set_recall": ("set_R", None),
}


MEASURE_NAMES: tuple[str, ...] = tuple(_PARAMETERS)


SUMMED_MEASURES = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})


# Measures whose summary is a geometric mean: exp(mean(log(max(value, 1e-5)))).
GEOMETRIC_MEASURES = frozenset({"gm_AP", "gm_bpref"})


# Measures with a text value per query and no summary.
TEXT_MEASURES = frozenset({"relstring"})


_FORMS = {"k": "@k", "k?": "[@k]", "r": "@r", "x?": "[@x]", "m": "@m", "n": "@n"}


def _known_forms() -> list[str]:
    return [name + _FORMS.get(kind or "", "") for name, kind in _PARAMETERS.items()]


def _format_value(value: Any) -> str:
    if isinstance(value, tuple):  # gains: ((level, gain), ...)
        return "{" + ", ".join(f"{level}: {gain!r}" for level, gain in value) + "}"
    return repr(value)


@dataclass(frozen=True)
class Measure:
    """A ranking measure as a value: a name, keyword parameters and a cutoff.

    ``str(m)`` is canonical and :meth:`parse` reads it back, so
    ``Measure.parse(str(m)) == m``. Names (trec_eval's in brackets, which
    :meth:`parse` accepts too): ``AP`` [map], ``AP@k`` [map_cut.k],
    ``AP_min_k_relevant@k`` (the Precision And Recall tutorial's AP@k, divided
    by min(k, R)), ``P@k`` [P.k], ``R@k`` [recall.k], ``R-prec`` [Rprec], ``RR`` [recip_rank],
    ``iprec@r`` [iprec_at_recall.r], ``11pt`` [11pt_avg], ``bpref``,
    ``gm_AP`` [gm_map], ``num_ret``, ``num_rel``, ``num_rel_ret``, ``set_P``,
    ``set_R`` [set_recall], ``set_F`` and ``set_F@x`` [set_F.x]; and under
    trec_eval's names: ``ndcg``, ``ndcg_cut@k``, ``ndcg_rel``, ``Rndcg``,
    ``dcg``, ``ideal_dcg``, ``G`` (these take ``gains={grade: gain, ...}``),
    ``binG``, ``infAP``, ``gm_bpref``, ``Rprec_mult@m``, ``relative_P@k``,
    ``success@k``, ``unj@k``, ``set_map``, ``set_relative_P``,
    ``num_nonrel_judged_ret``, ``yaap``, ``rbp`` (``p=0.9``, ``gains``),
    ``rbp_resid`` (``p``), ``utility`` (``rel_ret=1, nonrel_ret=-1,
    rel_unret=0, nonrel_unret=0, collection_size=0``) and ``relstring@n``
    (the grades of the top n documents as text). docs/ranking.md defines each.

    Examples
    --------
    >>> from prcurve.ranking import Measure
    >>> Measure.parse("P@10")
    Measure('P@10')
    >>> str(Measure("iprec", 0.5)), Measure.parse("map") == Measure("AP")
    ('iprec@0.5', True)
    >>> Measure.parse("ndcg(gains={1: 3, 2: 9})"), Measure.parse("rbp(p=0.9)")
    (Measure('ndcg(gains={1: 3.0, 2: 9.0})'), Measure('rbp'))
    """

    name: str
    cutoff: int | float | None = None
    params: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ", ".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        return text if self.cutoff is None else f"{text}@{self.cutoff!r}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def param(self, key: str) -> Any:
        """The value of a keyword parameter, its default when not given."""
        return dict(self.params).get(key, _KEYWORDS[self.name][key])

    @classmethod
    def parse(cls, text: str | Measure) -> Measure:
        """Read a measure such as ``"AP"``, ``"P@10"``, ``"iprec@0.5"``,
        ``"map_cut@10"`` or ``"rbp(p=0.8)"``."""
        if isinstance(text, Measure):
            return text
        if not isinstance(text, str):
            raise unknown_measure(text, _known_forms())
        head, keywords, parameter, at = _split(text)
        name, kind = _resolve(head, text)
        params = _keywords(name, keywords, text) if keywords is not None else ()
        if not at:
            if kind in ("k", "r", "m", "n"):
                what = {
                    "k": "a rank cutoff, e.g. 'P@10'", "r": "a recall level, e.g. 'iprec@0.5'",
                    "m": "a multiple of R, e.g. 'Rprec_mult@0.5'",
                    "n": "a number of documents, e.g. 'relstring@10'",
                }[kind]
                raise bad_measure_parameter(text, "missing its parameter", f"add {what}")
            return cls(name, None, params)
        if kind is None:
            raise bad_measure_parameter(
                text, f"{head} takes no parameter after '@'", f"write {head!r}"
            )
        try:
            value: int | float = (
                float(parameter) if kind in ("r", "x?", "m") else int(parameter)
            )
        except ValueError:
            raise bad_measure_parameter(
                text, f"cannot read the parameter {parameter!r}",
                "write a level (iprec@0.5)" if kind in ("r", "x?", "m")
                else "write an integer cutoff (P@10)",
            ) from None
        return cls(name, _checked_cutoff(kind, value, text), params)


def _split(text: str) -> tuple[str, str | None, str, bool]:
    """name, keyword text (None without parentheses), parameter after '@', '@' present."""
    text = text.strip()
    if "(" in text:
        close = text.rfind(")")
        if close < 0:
            raise bad_measure_parameter(text, "a '(' is never closed", "write e.g. 'rbp(p=0.8)'")
        head, keywords = text[:text.index("(")], text[text.index("(") + 1:close]
        rest = text[close + 1:]
        if rest and not rest.startswith("@"):
            raise bad_measure_parameter(
                text, f"unexpected {rest!r} after the parameters", "write e.g. 'rbp(p=0.8)'"
            )
        return head.strip(), keywords, rest[1:], bool(rest)
    head, at, parameter = text.partition("@")
    return head, None, parameter, bool(at)


def _resolve(head: str, text: str) -> tuple[str, str | None]:
    if head in _PARAMETERS:
        return head, _PARAMETERS[head]
    if head in ALIASES:
        return ALIASES[head]
    raise unknown_measure(text, _known_forms())


def _checked_cutoff(kind: str, value: float, text: str) -> int | float:
    if kind == "r":
        return check_level_fraction("measures", value)
    if kind == "x?":
        return check_positive_number("measures", value)
    if kind == "m":
        if not (math.isfinite(value) and value >= 0):
            raise bad_measure_parameter(text, f"expected a multiple of R >= 0, found {value!r}",
                                        "write e.g. 'Rprec_mult@0.5'")
        return float(value)
    if kind == "n":
        if value < 0:
            raise bad_measure_parameter(text, f"expected a length >= 0, found {value!r}",
                                        "write e.g. 'relstring@10'")
        return int(value)
    return check_cutoff("measures", value)


def _keywords(name: str, text: str, whole: str) -> tuple[tuple[str, Any], ...]:
    """Keyword parameters ``k=literal, ...`` read with ast (literals only)."""
    allowed = _KEYWORDS.get(name, {})
    if not allowed:
        raise bad_measure_parameter(whole, f"{name} takes no keyword parameters",
                                    f"write {name!r}")
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or call.args:
            raise ValueError("positional arguments")
        values = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError):
        raise bad_measure_parameter(
            whole, f"cannot read the parameters {text!r}",
            f"write keyword=literal pairs from {', '.join(allowed)}",
        ) from None
    return _normalized(name, values, whole)


def _normalized(name: str, values: Mapping[Any, Any], whole: str) -> tuple[tuple[str, Any], ...]:
    allowed = _KEYWORDS[name]
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in allowed:
            raise bad_measure_parameter(
                whole, f"{name} has no parameter {key!r}", f"use {', '.join(allowed)}"
            )
        if key == "gains":
            out[key] = _gains(value, whole)
        elif key == "collection_size":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise bad_measure_parameter(whole, f"collection_size={value!r}",
                                            "pass the number of documents, an integer >= 0")
            out[key] = int(value)
        elif key == "p":
            number = _number(value, whole, key)
            if not 0.0 < number < 1.0:
                raise bad_measure_parameter(whole, f"p={value!r} is not in (0, 1)",
                                            "pass a persistence such as p=0.9")
            out[key] = number
        else:
            out[key] = _number(value, whole, key)
    return tuple(sorted((k, v) for k, v in out.items() if v != allowed[k]))


def _number(value: Any, whole: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
        value
    ):
        raise bad_measure_parameter(whole, f"{key}={value!r} is not a finite number",
                                    f"pass {key} as a number")
    return float(value)


def _gains(value: Any, whole: str) -> tuple[tuple[int, float], ...]:
    pairs = list(value.items()) if isinstance(value, Mapping) else value
    try:
        out = tuple((level, gain) for level, gain in pairs)
    except (TypeError, ValueError):
        raise bad_measure_parameter(whole, f"gains={value!r}",
                                    "pass gains as {grade: gain}, e.g. {1: 1.0, 2: 3.0}") from None
    levels = [level for level, _ in out]
    if any(isinstance(level, bool) or not isinstance(level, int) for level in levels):
        raise bad_measure_parameter(whole, f"gains={value!r}: grades must be integers",
                                    "pass gains as {grade: gain}, e.g. {1: 1.0, 2: 3.0}")
    if len(set(levels)) != len(levels):
        raise bad_measure_parameter(whole, f"gains={value!r} names a grade twice",
                                    "give each grade one gain")
    return tuple((int(level), _number(gain, whole, f"gains[{level}]")) for level, gain in out)


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> tuple[Measure, ...]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = tuple(dict.fromkeys(Measure.parse(m) for m in measures))
    if not parsed:
        raise bad_measure_parameter("", "no measures given", "pass e.g. ['AP', 'P@10']")
    return parsed


def with_params(name: str, cutoff: int | float | None = None, **values: Any) -> Measure:
    """A measure with keyword parameters given as Python values (checked and
    normalised as :meth:`Measure.parse` would)."""
    resolved, kind = _resolve(name, name)
    params = _normalized(resolved, values, name) if values else ()
    if cutoff is not None and kind is not None:
        cutoff = _checked_cutoff(kind, cutoff, f"{name}@{cutoff!r}")
    return Measure(resolved, cutoff, params)

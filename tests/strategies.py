"""Hypothesis strategies for scored labels, weights and bin edges, in one place.

:func:`scored` draws a :class:`Scored` data set: labels (hard 0/1 or soft in
[0, 1]), scores (from a small set of well-separated values, so ties are
frequent, or continuous) and optional non-negative weights (integers or
floats, zeros included, never all zero). ``Scored.exact`` says whether every weighted sum over
the data is exact in float64 (integer weights and dyadic labels), so a test can
demand bit-for-bit equality there and a tolerance elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

__all__ = [
    "FAST",
    "ID_TEXT",
    "SLOW",
    "TIE_POOL",
    "CountState",
    "Scored",
    "bin_edges",
    "count_states",
    "fresh_python",
    "grown",
    "id_columns",
    "scored",
]

FAST = settings(max_examples=100, deadline=None)
"""Settings for properties whose body is cheap."""

SLOW = settings(max_examples=50, deadline=None)
"""Settings for properties that call the pure-Python oracles or scikit-learn."""

TIE_POOL: tuple[float, ...] = tuple(k / 8 for k in range(-16, 17))
"""Well-separated scores (multiples of 1/8 in [-2, 2]): a strictly increasing
transform such as exp, 3x + 1 or x**3 keeps them distinct, exactly for the last two."""

DYADIC_SOFT: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)

LabelKind = Literal["hard", "soft", "any"]
ScoreKind = Literal["tied", "continuous", "any"]
WeightKind = Literal["none", "integer", "float", "any"]


@dataclass(frozen=True)
class Scored:
    """One data set: labels, scores and optional weights, all length n."""

    y_true: np.ndarray
    y_score: np.ndarray
    sample_weight: np.ndarray | None
    exact: bool

    @property
    def n(self) -> int:
        return int(self.y_score.shape[0])

    @property
    def hard(self) -> bool:
        return self.y_true.dtype.kind in "iub"

    @property
    def weights(self) -> np.ndarray:
        """The weights, ones when none were drawn."""
        return np.ones(self.n) if self.sample_weight is None else self.sample_weight

    @property
    def positive_weight(self) -> float:
        return float(np.sum(self.weights * self.y_true))

    @property
    def negative_weight(self) -> float:
        return float(np.sum(self.weights * (1.0 - self.y_true)))

    def take(self, index: np.ndarray) -> Scored:
        """The samples at ``index`` (a permutation, a mask, a subset)."""
        weight = None if self.sample_weight is None else self.sample_weight[index]
        return Scored(self.y_true[index], self.y_score[index], weight, self.exact)

    def kwargs(self) -> dict[str, np.ndarray | None]:
        return {"sample_weight": self.sample_weight}


def _float_scores() -> st.SearchStrategy[float]:
    return st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def scored(
    draw: st.DrawFn,
    *,
    labels: LabelKind = "any",
    scores: ScoreKind = "any",
    weights: WeightKind = "any",
    min_size: int = 1,
    max_size: int = 40,
) -> Scored:
    """A data set of scored labels with the requested kinds of labels, scores and weights.

    Tied scores come from 1 to 6 values of :data:`TIE_POOL`; continuous ones
    are any finite floats in [-1000, 1000] (0.0 and -0.0 included). Integer
    weights are 0..4; float weights are 0 or in [0.01, 10]. Soft labels are
    dyadic (0, 1/4, ..., 1) or any float in [0, 1].
    """
    n = draw(st.integers(min_size, max_size))
    label_kind = draw(st.sampled_from(["hard", "soft"])) if labels == "any" else labels
    score_kind = draw(st.sampled_from(["tied", "continuous"])) if scores == "any" else scores
    weight_kind = (
        draw(st.sampled_from(["none", "integer", "float"])) if weights == "any" else weights
    )
    exact = True

    if score_kind == "tied":
        values = draw(st.lists(st.sampled_from(TIE_POOL), min_size=1, max_size=6, unique=True))
        score_list = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    else:
        score_list = draw(st.lists(_float_scores(), min_size=n, max_size=n))
    y_score = np.array(score_list, dtype=np.float64)

    if label_kind == "hard":
        y_true = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    else:
        dyadic = draw(st.booleans())
        element = (
            st.sampled_from(DYADIC_SOFT) if dyadic else st.floats(0.0, 1.0, allow_subnormal=False)
        )
        y_true = np.array(draw(st.lists(element, min_size=n, max_size=n)), dtype=np.float64)
        exact = exact and dyadic

    sample_weight: np.ndarray | None
    if weight_kind == "none":
        sample_weight = None
    elif weight_kind == "integer":
        sample_weight = np.array(
            draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.float64
        )
    else:
        element = st.one_of(st.just(0.0), st.floats(0.01, 10.0))
        sample_weight = np.array(draw(st.lists(element, min_size=n, max_size=n)))
        exact = False
    if sample_weight is not None and not sample_weight.any():
        # A whole data set whose weights are all 0 is refused (issue 10; tested in
        # test_edges_numbers.py): keep one sample so every drawn set can be measured.
        sample_weight[draw(st.integers(0, n - 1))] = 1.0
    return Scored(y_true, y_score, sample_weight, exact)


@st.composite
def bin_edges(draw: st.DrawFn, *, max_edges: int = 8) -> np.ndarray:
    """Strictly increasing edges (2 to ``max_edges``), often equal to tied scores.

    Edges mix values of :data:`TIE_POOL` (so scores fall exactly on edges) and
    floats in [-3, 3] (so scores may lie outside the edges on either side).
    """
    element = st.one_of(
        st.sampled_from(TIE_POOL),
        st.floats(-3.0, 3.0, allow_nan=False, allow_subnormal=False),
    )
    values = draw(st.lists(element, min_size=2, max_size=max_edges, unique=True))
    edges = np.unique(np.array(values, dtype=np.float64) + 0.0)
    if edges.shape[0] < 2:  # 0.0 and -0.0 were both drawn
        edges = np.array([edges[0], edges[0] + 1.0])
    return edges


@dataclass(frozen=True)
class CountState:
    """The arguments of ``ThresholdCounts(thresholds, tp, fp, n_pos, n_neg)``, built
    directly: per-row weights plus weight below every threshold (a truncated ranking)."""

    thresholds: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    pos_below: float
    neg_below: float

    @property
    def tp(self) -> np.ndarray:
        return np.cumsum(self.pos)

    @property
    def fp(self) -> np.ndarray:
        return np.cumsum(self.neg)

    @property
    def n_pos(self) -> float:
        return float(self.pos.sum()) + self.pos_below

    @property
    def n_neg(self) -> float:
        return float(self.neg.sum()) + self.neg_below


# Small and very large integer row weights: exact in float64, and far from the
# counts' usual scale (closed forms such as Davis–Goadrich's lose digits there).
_row_weight = st.sampled_from([0, 0, 1, 1, 2, 3, 1000, 10**6])


@st.composite
def count_states(draw: st.DrawFn, *, max_rows: int = 12) -> CountState:
    """Integer count states (row weights up to 10^6), each row with weight, possibly
    with weight below the last row."""
    thresholds = draw(
        st.lists(st.sampled_from(TIE_POOL), min_size=0, max_size=max_rows, unique=True)
    )
    rows = draw(
        st.lists(
            st.tuples(_row_weight, _row_weight).filter(lambda r: r[0] + r[1] > 0),
            min_size=len(thresholds),
            max_size=len(thresholds),
        )
    )
    pos = np.array([r[0] for r in rows], dtype=np.float64)
    neg = np.array([r[1] for r in rows], dtype=np.float64)
    return CountState(
        np.array(sorted(thresholds, reverse=True), dtype=np.float64),
        pos,
        neg,
        float(draw(st.integers(0, 3))),
        float(draw(st.integers(0, 3))),
    )


ID_TEXT = st.sampled_from("ab#-Z9\u00e9\u4e2d")
"""Id characters: non-ASCII (Latin-1 and beyond), '#', '-', digits."""


@st.composite
def id_columns(draw: st.DrawFn, max_text: int = 6, wide: bool = False) -> np.ndarray:
    """A column of document or query ids with repeats: numpy text (``U``), UTF-8 bytes
    (``S``) or int64 (distinct values then repeats of them); with ``wide``, also text of
    30 to 40 characters (ids longer than the encoders' short-id words)."""
    kind = draw(st.sampled_from(["U", "S", "int", *(["wide"] if wide else [])]))
    if kind == "int":
        values = draw(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40))
        pool = draw(st.lists(st.sampled_from(values), max_size=60)) if values else []
        return np.array(values + pool, dtype=np.int64)
    text = st.text(alphabet=st.sampled_from("ab\u00e9\u4e2d"), min_size=30, max_size=40) \
        if kind == "wide" else st.text(alphabet=ID_TEXT, max_size=max_text)
    words = draw(st.lists(text, min_size=1, max_size=12))
    column = draw(st.lists(st.sampled_from(words), max_size=60))
    array = np.array(column, dtype=str) if column else np.zeros(0, dtype="U1")
    return np.char.encode(array, "utf-8") if kind == "S" else array


def grown(mask: np.ndarray) -> np.ndarray:
    """Every pixel within one pixel of ``mask`` (a drawn line, as a boolean image): a
    drawing lies within one pixel of another when ``drawing & ~grown(other)`` is empty."""
    out = mask.copy()
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            out |= np.roll(np.roll(mask, dx, 0), dy, 1)
    return out


_ARROW_PRELUDE = (
    "import sys\n"
    "import numpy as np, pyarrow as pa\n"
    "from prcurve.core.arrow import numpy_to_arrow\n"
    "def table(**columns):\n"
    "    return pa.Table.from_arrays([numpy_to_arrow(pa, np.asarray(v))\n"
    "                                 for v in columns.values()], names=list(columns))\n"
)


def fresh_python(code: str) -> tuple[list[str], bool]:
    """Run ``code`` in a new interpreter (nothing imported yet): its printed words, and
    whether pandas was imported by the end. ``code`` may call ``table(**columns)``, a
    pyarrow Table built from buffers (``pa.table`` of Python lists imports pandas)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _ARROW_PRELUDE + code + "\nprint('pandas' in sys.modules)\n"],
        capture_output=True, text=True, check=True)
    *words, pandas = done.stdout.split()
    return words, pandas == "True"


@dataclass(frozen=True)
class PreferenceCase:
    """Preference lines (query, group, sub-group, document, level) and a run's rows
    (query, document, score) over a few documents, for trec_eval's prefs_* measures."""

    lines: list[tuple[str, str, str, str, float]]
    run: list[tuple[str, str, float]]


@st.composite
def preference_cases(draw: st.DrawFn, *, max_docs: int = 7) -> PreferenceCase:
    """Up to 3 queries of up to 3 judgment groups; a group of several sub-groups takes
    its levels from one level per document (a consistent order: no cycles, and no
    document both 0 and > 0), a group of one sub-group any levels (a document once)."""
    docs = [f"d{i}" for i in range(max_docs)]
    lines: list[tuple[str, str, str, str, float]] = []
    run: list[tuple[str, str, float]] = []
    for q in draw(st.lists(st.sampled_from(["1", "2", "10"]), min_size=1, max_size=3,
                           unique=True)):
        for g in range(draw(st.integers(1, 3))):
            n_sub = draw(st.integers(1, 3))
            level_of = {d: float(draw(st.integers(0, 3))) for d in docs}
            for s in range(n_sub):
                chosen = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=max_docs,
                                       unique=True))
                for d in chosen:
                    level = level_of[d] if n_sub > 1 else float(draw(st.integers(0, 3)))
                    lines.append((q, f"g{g}", f"s{s}", d, level))
        retrieved = draw(st.lists(st.sampled_from([*docs, "x1", "x2"]), max_size=max_docs + 2,
                                  unique=True))
        run.extend((q, d, float(draw(st.integers(0, 4)))) for d in retrieved)
    return PreferenceCase(lines, run)

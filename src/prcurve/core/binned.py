"""The binned state: positive and negative weight per bin over fixed edges.

This is the binning approximation of the PR curve of the Recall and Precision at k
note, in the convention
that a sample is predicted positive when its score is ``>=`` a threshold
(docs/definitions.md, "Binned counts"):

- edges ``e_0 < e_1 < ... < e_K`` define ``K`` bins; bin ``j`` holds the scores
  in ``[e_j, e_{j+1})`` and the last bin holds ``[e_{K-1}, e_K]``, so each bin
  is closed on its lower edge;
- scores below ``e_0`` go to the first bin and scores above ``e_K`` to the
  last one: they are counted, never dropped;
- scores are used as given: no sigmoid, no rescaling.

So the cumulative weight of bins ``j..K-1`` is exactly the weight of samples
with score ``>= e_j`` for every ``j >= 1``, and the binned curve is the exact
curve evaluated at the thresholds ``e_1, ..., e_{K-1}`` plus the point at
which everything is predicted positive. Memory is O(K) whatever the number of
samples; :meth:`BinnedCounts.update` folds in streaming batches and
:meth:`BinnedCounts.merge` adds two states over the same edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.bin_edges import equal_width_edges, range_around, width_overflows
from prcurve.core.counts import ThresholdCounts, scale_exponent
from prcurve.core.sorting import sort_threads
from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import check_edges, check_n_bins, check_range, wrong_type
from prcurve.validation.labels import BinaryLabels, check_scored_labels, weight_overflow

__all__ = ["BinnedCounts"]

F64 = NDArray[np.float64]

_CHUNK = 1 << 16
"""Rows binned at a time by the equal-width index: its passes stay in cache."""

_EDGE_SLOTS = ("_edges", "_inner_edges", "_lower", "_upper", "_uniform", "_slack")
"""What a state's edges are: shared, read-only, between states over the same edges."""

_THREADED_ROWS = 1 << 18
"""Rows per thread at least when binning on several threads."""

_MAX_SLACK = 0.25
"""Beyond this slack (edges tiny against their magnitude) every score is checked."""


class BinnedCounts:
    """Weighted positive and negative counts per bin over increasing edges.

    Parameters
    ----------
    edges : array_like of float, shape (K + 1,)
        Strictly increasing, finite bin edges. Bin ``j`` holds scores in
        ``[edges[j], edges[j+1])``; the last bin also holds ``edges[K]``.
        Scores outside the edges go to the end bins.

    Examples
    --------
    >>> from prcurve import BinnedCounts
    >>> b = BinnedCounts.uniform(4, low=0.0, high=1.0)
    >>> b.update([1, 0, 1], [0.9, 0.3, 0.25]).update([0], [1.7])
    BinnedCounts(4 bins over [0, 1], n_pos=2, n_neg=2)
    >>> b.pos.tolist(), b.neg.tolist()
    ([0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0])
    """

    __slots__ = ("_edges", "_inner_edges", "_lower", "_neg", "_pos", "_slack", "_uniform",
                 "_upper")

    def __init__(self, edges: ArrayLike) -> None:
        self._edges = check_edges("edges", edges)
        self._edges.setflags(write=False)
        self._set_edges()

    def _set_edges(self) -> None:
        """The search and arithmetic views of ``_edges`` (read-only, shareable), empty counts."""
        self._inner_edges = self._edges[1:-1]
        n_bins = self._edges.shape[0] - 1
        # Equal-width edges (np.linspace's, finite width) get an arithmetic bin_index.
        self._uniform: tuple[float, float] | None = None
        self._slack = math.inf
        self._lower = self._upper = self._edges
        low, high = float(self._edges[0]), float(self._edges[-1])
        if n_bins >= 2 and not width_overflows(low, high) and np.array_equal(
                self._edges, np.linspace(low, high, n_bins + 1)):
            self._uniform = (low, n_bins / (high - low))
            # How far (in bins) the arithmetic estimate of a score's position may be from
            # its position among the edges: the rounding of s - low and of the product
            # (a few ulps of at most K bins) plus linspace's rounding of each edge (an
            # ulp of the largest magnitude, in bins), with a factor 4 to spare.
            # Estimates within it of an integer are checked against the edges (bin_index).
            magnitude = max(abs(low), abs(high)) + (high - low)
            self._slack = 2.0**-48 * n_bins * magnitude / (high - low)
            # Bin j holds lower[j] <= s < upper[j]; the end bins are open-ended: a NaN
            # bound compares False either way (so does a NaN score), even for s = ±inf.
            self._lower = np.concatenate(([np.nan], self._edges[1:-1]))
            self._upper = np.concatenate((self._edges[1:-1], [np.nan]))
            self._lower.setflags(write=False)
            self._upper.setflags(write=False)
        self._pos = np.zeros(n_bins, dtype=np.float64)
        self._neg = np.zeros(n_bins, dtype=np.float64)

    def _sharing_edges(self) -> BinnedCounts:
        """A new state over the same edges, sharing their read-only arrays (no checks
        again); its counts are not set."""
        state = BinnedCounts.__new__(BinnedCounts)
        for name in _EDGE_SLOTS:
            setattr(state, name, getattr(self, name))
        return state

    def _empty_like(self) -> BinnedCounts:
        """A new, empty state over the same edges (shared, not checked again)."""
        state = self._sharing_edges()
        state._pos = np.zeros(self.n_bins, dtype=np.float64)
        state._neg = np.zeros(self.n_bins, dtype=np.float64)
        return state

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the counts and the edges, or, for equal-width edges, the counts and
        ``(low, high, bins)``: 16 MiB for 2^20 bins rather than 48 (a Dask or Spark
        partial state crosses the network as this); whole counts below 2^32 (without
        weights) in the narrowest unsigned integer type that holds them exactly, 2 MiB
        for 2^20 bins of fewer than 256 rows each."""
        pos, neg = _narrow(self._pos), _narrow(self._neg)
        if self._uniform is not None:
            low, high = float(self._edges[0]), float(self._edges[-1])
            return (_unpickle, ((low, high, self.n_bins), pos, neg))
        return (_unpickle, (self._edges, pos, neg))

    @classmethod
    def uniform(cls, n_bins: int, low: float = 0.0, high: float = 1.0) -> BinnedCounts:
        """``n_bins`` equal-width bins over ``[low, high]``.

        Examples
        --------
        >>> from prcurve import BinnedCounts
        >>> BinnedCounts.uniform(2, -1.0, 1.0).edges.tolist()
        [-1.0, 0.0, 1.0]
        """
        n = check_n_bins("n_bins", n_bins)
        lo, hi = check_range("(low, high)", low, high)
        return cls(equal_width_edges(lo, hi, n))

    @classmethod
    def from_scores(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike,
        edges: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        pos_label: Any = None,
    ) -> BinnedCounts:
        """Bin the scored labels over ``edges`` (labels as in
        :meth:`prcurve.ThresholdCounts.from_scores`).

        Examples
        --------
        >>> from prcurve import BinnedCounts
        >>> BinnedCounts.from_scores([1, 0], [0.75, 0.25], [0.0, 0.5, 1.0]).pos.tolist()
        [0.0, 1.0]
        """
        binned = cls(edges)
        return binned.update(y_true, y_score, sample_weight, pos_label=pos_label)

    @classmethod
    def from_threshold_counts(cls, counts: ThresholdCounts, edges: ArrayLike) -> BinnedCounts:
        """The exact state ``counts`` binned over ``edges``, equal to binning the raw data.

        Each threshold's weight goes to the bin that holds its score; weight
        below every threshold (``n_pos - tp[-1]``) goes to the lowest bin.
        :meth:`prcurve.ThresholdCounts.to_binned` is the same.

        Examples
        --------
        >>> from prcurve import BinnedCounts, ThresholdCounts
        >>> c = ThresholdCounts.from_scores([1, 0, 1], [0.9, 0.4, 0.2])
        >>> BinnedCounts.from_threshold_counts(c, [0.0, 0.5, 1.0]).pos.tolist()
        [1.0, 1.0]
        """
        if not isinstance(counts, ThresholdCounts):
            raise wrong_type("counts", counts, "ThresholdCounts")
        binned = cls(edges)
        binned._add(counts.thresholds, counts.pos_weight(), counts.neg_weight())
        binned._add_to_lowest(counts._weight_below(counts.n_pos, counts._tp),
                              counts._weight_below(counts.n_neg, counts._fp))
        return binned

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        pos_label: Any = None,
    ) -> BinnedCounts:
        """Add one batch of scored labels in place; returns ``self``.

        A batch is part of the data: its weights may all be 0 (it adds nothing).
        """
        scores, labels, weights = check_scored_labels(
            y_true, y_score, sample_weight, pos_label, whole=False
        )
        self._add_checked(scores, labels, weights)
        return self

    def _add_checked(
        self,
        scores: NDArray[np.floating[Any]],
        labels: BinaryLabels,
        weights: F64 | None,
        threads: int | None = None,
    ) -> None:
        n_bins = self.n_bins
        if weights is None and labels.positive is not None:
            self._add_codes(self._codes(scores, labels.positive, threads=threads))
            return
        index = self.bin_index(scores)
        fraction = labels.positive_fraction()
        w = np.ones(scores.shape[0]) if weights is None else weights
        with np.errstate(over="ignore"):
            pos = self._pos + np.bincount(index, weights=w * fraction, minlength=n_bins)
            neg = self._neg + np.bincount(index, weights=w * (1.0 - fraction), minlength=n_bins)
            total = float(pos.sum() + neg.sum())
        if not math.isfinite(total):  # checked before the state changes (issue 10)
            raise weight_overflow("sample_weight", float(w.max()))
        self._pos, self._neg = pos, neg

    def _add_codes(self, codes: NDArray[np.intp]) -> None:
        """Add rows given as codes ``2 * bin + positive`` (:meth:`_codes`): one count over
        the codes, even ones negatives, odd ones positives (exact: integer counts)."""
        self._add_code_counts(np.bincount(codes, minlength=2 * self.n_bins))

    def _add_code_counts(self, counts: NDArray[np.int64]) -> None:
        """Add the counts of codes ``2 * bin + positive`` (``bincount`` of :meth:`_codes`)."""
        self._neg += counts[0::2]
        self._pos += counts[1::2]

    def _add(self, scores: F64, pos: F64, neg: F64) -> None:
        """Add per-score weights (already aggregated) to their bins."""
        index = self.bin_index(scores)
        self._pos += np.bincount(index, weights=pos, minlength=self.n_bins)
        self._neg += np.bincount(index, weights=neg, minlength=self.n_bins)

    def _add_to_lowest(self, pos: float, neg: float) -> None:
        self._pos[0] += pos
        self._neg[0] += neg

    def bin_index(self, scores: ArrayLike) -> NDArray[np.intp]:
        """The bin of each score: ``j`` for ``edges[j] <= s < edges[j+1]``,
        clipped to the end bins for scores outside the edges.

        Examples
        --------
        >>> from prcurve import BinnedCounts
        >>> BinnedCounts([0.0, 0.5, 1.0]).bin_index([-3.0, 0.0, 0.5, 1.0, 9.0]).tolist()
        [0, 0, 1, 1, 1]
        """
        values = np.asarray(scores)
        if self._uniform is None or values.ndim != 1 or values.dtype.kind != "f":
            # The number of inner edges <= s is the bin, already clipped to [0, K-1].
            return np.searchsorted(self._inner_edges, values, side="right")
        return self._uniform_index(values.astype(np.float64, copy=False))

    def _codes(self, scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_],
               out: NDArray[np.intp] | None = None, threads: int | None = None
               ) -> NDArray[np.intp]:
        """``2 * bin_index(scores) + positive``: the bin and the label of each row in one
        code (written into ``out`` when given, of the scores' length), on ``threads``
        threads (default :func:`~prcurve.core.sorting.sort_threads`)."""
        values = np.asarray(scores)
        if self._uniform is not None and self._slack < _MAX_SLACK and values.dtype.kind == "f":
            return self._uniform_index(values.astype(np.float64, copy=False), positive, out,
                                       threads)
        codes = self.bin_index(values)
        codes *= 2
        codes += positive
        if out is None:
            return codes
        out[...] = codes
        return out

    def _uniform_index(self, values: F64, positive: NDArray[np.bool_] | None = None,
                       out: NDArray[np.intp] | None = None, threads: int | None = None
                       ) -> NDArray[np.intp]:
        """``bin_index`` for equal-width edges: floor((s - low) / width), then checked.

        The estimate can be one bin off only where rounding puts ``s`` next to
        an edge (np.linspace's edges are not exactly ``low + j * width``): within
        ``_slack`` bins of one. Those few estimates (and NaN, which goes last as
        in the search) are replaced by the search over the edges, so the result
        is the search's bin for every score. A chunk of rows at a time, so the
        passes stay in cache. With ``positive``, returns ``2 * bin + positive``.
        """
        if self._slack >= _MAX_SLACK:
            return self._checked_index(values) if positive is None else self._codes(
                values, positive, out)
        low, scale = self._uniform  # type: ignore[misc]
        last = float(self.n_bins - 1)
        inside = 0.5 - self._slack
        n = values.shape[0]
        index = np.empty(n, dtype=np.intp) if out is None else out

        def fill(first: int, stop: int) -> None:
            buffer = np.empty(min(stop - first, _CHUNK), dtype=np.float64)
            ok = np.empty(buffer.shape[0], dtype=bool)
            # NaN, or an overflow far outside the edges: a meaningless estimate, replaced
            # below. (errstate is per thread: set here.)
            with np.errstate(invalid="ignore", over="ignore"):
                for start in range(first, stop, _CHUNK):
                    chunk = values[start:min(start + _CHUNK, stop)]
                    k = chunk.shape[0]
                    estimate, bins, good = buffer[:k], index[start:start + k], ok[:k]
                    np.subtract(chunk, low, out=estimate)
                    estimate *= scale
                    np.clip(estimate, 0.0, last, out=estimate)
                    np.copyto(bins, estimate, casting="unsafe")  # truncation: floor on [0, last]
                    # |fraction - 1/2| <= 1/2 - slack: slack from both integers (NaN: no).
                    np.subtract(estimate, bins, out=estimate)
                    estimate -= 0.5
                    np.abs(estimate, out=estimate)
                    np.less_equal(estimate, inside, out=good)
                    if not good.all():
                        near = np.flatnonzero(~good)
                        bins[near] = np.searchsorted(self._inner_edges, chunk[near],
                                                     side="right")
                    if positive is not None:
                        bins *= 2
                        bins += positive[start:start + k]

        # Large batches on several threads: NumPy's loops release the GIL.
        threads = sort_threads() if threads is None else threads
        threads = min(threads, n // _THREADED_ROWS) if n >= 2 * _THREADED_ROWS else 1
        if threads <= 1:
            fill(0, n)
            return index
        step = -(-n // (threads * _CHUNK)) * _CHUNK
        from concurrent.futures import ThreadPoolExecutor  # where threads start: issue 26
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(lambda first: fill(first, min(first + step, n)), range(0, n, step)))
        return index

    def _checked_index(self, values: F64) -> NDArray[np.intp]:
        """``bin_index`` for equal-width edges whose slack is too large for the fast check:
        the estimate corrected against the edges of every score."""
        low, scale = self._uniform  # type: ignore[misc]
        last = self.n_bins - 1
        estimate = np.subtract(values, low)
        estimate *= scale
        np.clip(estimate, 0.0, float(last), out=estimate)
        estimate[np.isnan(estimate)] = float(last)  # the search puts NaN last
        index = estimate.astype(np.intp)  # truncation = floor on [0, last]
        del estimate
        while True:  # one round in practice; each round moves a score at most one bin
            down = values < self._lower[index]
            up = values >= self._upper[index]
            if not (down.any() or up.any()):
                return index
            index -= down
            index += up

    def merge(self, other: BinnedCounts, *more: BinnedCounts) -> BinnedCounts:
        """A new state holding all of them: bin-wise addition (same edges required).

        Several states are added into one pair of new arrays (a merge of a Dask or
        Spark tree adds eight at once), in the order given.
        """
        others = (other, *more)
        for one in others:
            if not isinstance(one, BinnedCounts):
                raise wrong_type("other", one, "BinnedCounts")
            if one._edges is not self._edges and not np.array_equal(self._edges, one._edges):
                raise InvalidInputError(
                    "other",
                    f"edges differ ({self.n_bins} bins over [{self._edges[0]:g}, "
                    f"{self._edges[-1]:g}] vs {one.n_bins} bins over "
                    f"[{one._edges[0]:g}, {one._edges[-1]:g}])",
                    "bin every part over the same edges before merging",
                )
        merged = self._sharing_edges()
        with np.errstate(over="ignore"):
            merged._pos = self._pos + other._pos
            merged._neg = self._neg + other._neg
            for one in more:  # left to right, as pairwise merges would add
                merged._pos += one._pos
                merged._neg += one._neg
            total = float(merged._pos.sum() + merged._neg.sum())
        if not math.isfinite(total):
            raise weight_overflow("other", max(max(one.n_pos, one.n_neg)
                                               for one in (self, *others)))
        return merged

    def to_threshold_counts(self) -> ThresholdCounts:
        """The cumulative view: one threshold per non-empty bin, its lower edge.

        ``tp[i]`` is the positive weight in the bins at or above the bin whose
        lower edge is ``thresholds[i]``. Empty bins are skipped: they add no
        operating point.
        """
        return ThresholdCounts._from_ascending(self._edges[:-1].copy(), self._pos.copy(),
                                               self._neg.copy())

    @property
    def edges(self) -> F64:
        """The bin edges, strictly increasing (read-only)."""
        return self._edges

    @property
    def n_bins(self) -> int:
        return int(self._pos.shape[0])

    @property
    def pos(self) -> F64:
        """Positive weight per bin (a copy)."""
        return np.array(self._pos)

    @property
    def neg(self) -> F64:
        """Negative weight per bin (a copy)."""
        return np.array(self._neg)

    @property
    def n_pos(self) -> float:
        return float(self._pos.sum())

    @property
    def n_neg(self) -> float:
        return float(self._neg.sum())

    def __repr__(self) -> str:
        return (
            f"BinnedCounts({self.n_bins} bins over [{self._edges[0]:g}, {self._edges[-1]:g}], "
            f"n_pos={self.n_pos:g}, n_neg={self.n_neg:g})"
        )


def resolve_edges(bins: int | ArrayLike, scores: NDArray[np.floating[Any]]) -> F64:
    """Edges of a ``bins`` argument: an int (equal bins over the scores' range) or edges."""
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        n = check_n_bins("bins", bins)
        low, high = float(scores.min()), float(scores.max())
        if low == high:  # one distinct score: one bin around it, at any magnitude
            low, high = range_around(low)
        return equal_width_edges(low, high, n)  # no overflow at a range of +-1e308
    if isinstance(bins, bool):
        check_n_bins("bins", bins)
    return check_edges("bins", bins)


# -- AP bounds of a binned state ------------------------------------------------------


@dataclass(frozen=True)
class APBounds:
    """Where the exact AP of binned data can lie.

    ``binned`` is the AP of the binned curve (each bin one tie group);
    ``lower`` and ``upper`` bound the AP of the exact, unbinned data whatever
    the order of the samples inside each bin. ``max_error`` is the largest
    possible ``|binned - exact|``.
    """

    method: str
    binned: float
    lower: float
    upper: float

    @property
    def max_error(self) -> float:
        return max(self.binned - self.lower, self.upper - self.binned)

    def to_dict(self) -> dict[str, Any]:
        def number(x: float) -> float | None:
            return None if math.isnan(x) else float(x)

        return {"method": self.method, "binned": number(self.binned),
                "lower": number(self.lower), "upper": number(self.upper),
                "max_error": number(self.max_error)}


def ap_bounds(binned: BinnedCounts) -> APBounds:
    """Lower and upper bounds on the exact step AP of the data behind ``binned``.

    Inside a bin the order of positives and negatives is unknown; the bins
    themselves are ordered (a score above the edges goes to the top bin, so
    clipping keeps the order). With ``T`` (``B``) the positive (all) weight in
    the bins above and ``p``, ``n`` the bin's weights, a positive group
    entering after positive weight ``x`` of its bin has precision

    - at most ``(T + x) / (B + x) <= (T + p) / (B + p)``: the bin's positives
      all ranked above its negatives, as one group. Summed, this is the step
      AP of that ordering: ``upper``.
    - at least ``f(x) = (T + x) / (B + n + x)``: all of the bin's negatives
      ranked above. ``f`` increases, so the step sum is at least
      ``∫_0^p f(x) dx = p - (B + n - T) ln((B + n + p) / (B + n))``, the
      Davis–Goadrich area of the "negatives first" ordering: ``lower``.

    Both hold for any weights, ties and soft labels; ``lower <= binned <= upper``.

    Examples
    --------
    >>> from prcurve import BinnedCounts
    >>> from prcurve.core.binned import ap_bounds
    >>> b = BinnedCounts.from_scores([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.2], [0, 0.5, 1])
    >>> bounds = ap_bounds(b)
    >>> round(bounds.lower, 4), round(bounds.binned, 4), round(bounds.upper, 4)
    (0.3657, 0.5, 0.8333)

    The exact step AP of these four samples is 0.8333: they are in the best
    order inside each bin. With few samples per bin the lower bound is loose
    (it allows positives of any weight); it tightens as bins fill.
    """
    if not isinstance(binned, BinnedCounts):
        raise wrong_type("binned", binned, "BinnedCounts")
    pos = binned.pos[::-1]  # highest bin first
    neg = binned.neg[::-1]
    k = scale_exponent(float(pos.sum() + neg.sum()))
    if k:  # weights of extreme size: products below stay finite in an exact power-of-two unit
        pos, neg = np.ldexp(pos, k), np.ldexp(neg, k)
    n_pos = float(pos.sum())
    if n_pos == 0:
        return APBounds("step", math.nan, math.nan, math.nan)
    T = np.cumsum(pos) - pos  # positive weight above each bin
    B = np.cumsum(pos + neg) - (pos + neg)  # all weight above each bin
    has = pos > 0
    T, B, p, n = T[has], B[has], pos[has], neg[has]
    upper = float(np.sum(p * (T + p) / (B + p)) / n_pos)
    binned_ap = float(np.sum(p * (T + p) / (B + n + p)) / n_pos)
    D = B + n
    with np.errstate(divide="ignore", invalid="ignore"):
        # D = 0 only for the first weighted bin without negatives (T = 0): f = 1.
        area = np.where(D > 0, p - (D - T) * np.log1p(p / np.where(D > 0, D, 1.0)), p)
    lower = float(np.sum(area) / n_pos)
    # Rounding can cross a bound by an ulp; the bound is the mathematical one.
    lower = min(lower, binned_ap)
    upper = max(upper, binned_ap)
    return APBounds("step", binned_ap, lower, upper)


_SHARED_EDGES: dict[tuple[float, float, int], BinnedCounts] = {}
"""The last equal-width edges unpickled, with their views: states unpickled over the same
edges share them (read-only arrays) rather than each building its own."""


_UINT32_MAX = float((1 << 32) - 1)


def _narrow(counts: F64) -> NDArray[Any]:
    """``counts`` in the narrowest unsigned integer type that holds every one exactly
    when all are whole numbers below 2^32 (counts of rows), else ``counts`` itself."""
    top = float(counts.max()) if counts.shape[0] else math.nan
    if not 0 <= top <= _UINT32_MAX:  # NaN (or no counts) fails too
        return counts
    narrow = counts.astype(np.min_scalar_type(int(top)))
    # Negative or fractional counts (weights) do not come back equal.
    return narrow if np.array_equal(narrow, counts) else counts


def _unpickle(edges: tuple[float, float, int] | F64, pos: NDArray[Any],
              neg: NDArray[Any]) -> BinnedCounts:
    """A :class:`BinnedCounts` from :meth:`BinnedCounts.__reduce__`'s parts (counts
    pickled as integers are float64 again: whole numbers below 2^32, exact)."""
    if isinstance(edges, tuple):
        template = _SHARED_EDGES.get(edges)
        if template is None:
            low, high, n_bins = edges
            template = BinnedCounts(equal_width_edges(low, high, n_bins))
            _SHARED_EDGES.clear()
            _SHARED_EDGES[edges] = template
        state = template._sharing_edges()
    else:
        state = BinnedCounts(edges)
    state._pos = pos if pos.dtype == np.float64 else pos.astype(np.float64)
    state._neg = neg if neg.dtype == np.float64 else neg.astype(np.float64)
    return state


_TEMPLATES: dict[int, tuple[F64, BinnedCounts]] = {}
"""Edges arrays seen by :func:`empty_over` (by identity) and a state over each."""


def empty_over(edges: F64) -> BinnedCounts:
    """An empty state over ``edges``, an array used again and again (a Dask task's spec:
    a worker passes every task the same object): the edges are checked once per array,
    and the states share them."""
    found = _TEMPLATES.get(id(edges))
    if found is None or found[0] is not edges:
        if len(_TEMPLATES) > 8:
            _TEMPLATES.clear()
        found = _TEMPLATES[id(edges)] = (edges, BinnedCounts(edges))
    return found[1]._empty_like()

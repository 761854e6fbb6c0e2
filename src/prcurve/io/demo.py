"""The data of ``prcurve demo``: simulated scores, generated from a fixed seed.

Two test sets, each scored by two models (the Precision And Recall tutorial's simulation, rounded to
three decimals as in its R code, so that tied scores occur):

``balanced``
    3,000 positives and 5,000 negatives (prevalence 0.375). ``strong``
    scores positives from N(0, 1) and negatives from N(−2, 1), the Precision And Recall tutorial's
    example; ``weak`` scores negatives from N(−0.75, 1), so the classes overlap
    more.
``skewed``
    the same two models on a much more skewed problem: 150 positives and
    15,000 negatives (prevalence 0.0099). The same score distributions give a
    far lower precision, which is what the unachievable region and the random
    baseline at the prevalence make visible.

Nothing is downloaded and nothing is shipped: :func:`demo_columns` makes the
same numbers on every machine from :data:`DEMO_SEED` (NumPy's PCG64 stream).

Examples
--------
>>> from prcurve.io.demo import demo_columns
>>> data = demo_columns()
>>> sorted(data), sorted(data["balanced"])
(['balanced', 'skewed'], ['label', 'strong', 'weak'])
>>> int(data["balanced"]["label"].sum()), len(data["balanced"]["label"])
(3000, 8000)
>>> int(data["skewed"]["label"].sum()), len(data["skewed"]["label"])
(150, 15150)
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from prcurve.core.safe_files import write_files

__all__ = ["DEMO_SEED", "DEMO_SETS", "demo_columns", "write_demo_data"]

DEMO_SEED = 2012
"""The seed of the demo's random numbers."""

DEMO_SETS: dict[str, tuple[int, int]] = {"balanced": (3000, 5000), "skewed": (150, 15000)}
"""Each demo test set's (positives, negatives)."""

# Each model's (mean of the positives, mean of the negatives); standard deviation 1.
_MODELS: dict[str, tuple[float, float]] = {"strong": (0.0, -2.0), "weak": (0.0, -0.75)}


def demo_columns(seed: int = DEMO_SEED) -> dict[str, dict[str, NDArray[np.float64]]]:
    """The demo's test sets: ``{set: {"label": ..., "strong": ..., "weak": ...}}``.

    Labels are 1 for the positives (which come first) and 0 for the negatives;
    scores are rounded to three decimals.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, dict[str, NDArray[np.float64]]] = {}
    for name, (n_pos, n_neg) in DEMO_SETS.items():
        columns = {"label": np.r_[np.ones(n_pos), np.zeros(n_neg)]}
        for model, (mu_pos, mu_neg) in _MODELS.items():
            scores = np.r_[rng.normal(mu_pos, 1.0, n_pos), rng.normal(mu_neg, 1.0, n_neg)]
            columns[model] = np.round(scores, 3)
        out[name] = columns
    return out


def write_demo_data(folder: str | Path, seed: int = DEMO_SEED) -> list[Path]:
    """Write each demo test set as ``<folder>/<set>.csv``; returns the paths.

    Both files are written by :func:`prcurve.core.safe_files.write_files`: all or
    none, renamed into place, never through an existing link.

    Examples
    --------
    >>> import tempfile
    >>> from prcurve.io.demo import write_demo_data
    >>> [p.name for p in write_demo_data(tempfile.mkdtemp())]
    ['balanced.csv', 'skewed.csv']
    """
    files = []
    for name, columns in demo_columns(seed).items():
        lines = ["label,strong,weak"]
        lines.extend(
            f"{int(y)},{a:.3f},{b:.3f}"
            for y, a, b in zip(columns["label"].tolist(), columns["strong"].tolist(),
                               columns["weak"].tolist(), strict=True)
        )
        text = "\n".join(lines) + "\n"
        files.append((f"{name}.csv", partial(Path.write_text, data=text, encoding="utf-8")))
    # Through the one safe writer: a file or link already there is replaced, never
    # written through (a link's target is untouched); a folder there is refused.
    return write_files(folder, files)

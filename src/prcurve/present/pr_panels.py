"""The report's PR panels: curves grouped by prevalence (one unachievable region and
one baseline a panel), each panel's title, and the size of their grid, for
:func:`prcurve.present.plot.plot_pr_curves_grid` (no matplotlib here).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from prcurve.core.curve import PRCurve

__all__ = ["group_by_prevalence", "panel_titles", "pr_grid_size"]


def group_by_prevalence(curves: Mapping[str, PRCurve]) -> list[dict[str, PRCurve]]:
    """The curves in groups of equal prevalence (to 1e-12), in order of first appearance.

    Curves of different prevalence have different unachievable regions and
    baselines (Boyd et al. 2012), so the report draws each group on its own axes.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.plot import group_by_prevalence
    >>> groups = group_by_prevalence({"a": pr_curve([1, 0], [0.9, 0.1]),
    ...                               "b": pr_curve([1, 0, 0], [0.9, 0.5, 0.1]),
    ...                               "c": pr_curve([0, 1], [0.3, 0.2])})
    >>> [sorted(g) for g in groups]
    [['a', 'c'], ['b']]
    """
    groups: list[tuple[float, dict[str, PRCurve]]] = []
    for name, curve in curves.items():
        pi = curve.prevalence
        for key, members in groups:
            if math.isclose(pi, key, rel_tol=1e-12) or (math.isnan(pi) and math.isnan(key)):
                members[name] = curve
                break
        else:
            groups.append((pi, {name: curve}))
    return [members for _, members in groups]


def panel_titles(groups: Sequence[Mapping[str, PRCurve]], inputs: Mapping[str, str]
                 ) -> list[str]:
    """The report's title of each panel of :func:`group_by_prevalence` groups: the input
    whose models all share the panel's prevalence names it; otherwise (the classes of a
    multi-class input, say) the models do; then the prevalence.

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.present.plot import panel_titles
    >>> a, b = pr_curve([1, 0], [0.9, 0.1]), pr_curve([1, 0, 0], [0.9, 0.5, 0.1])
    >>> panel_titles([{"x": a, "y": a}, {"z": b}], {"x": "one.csv", "y": "one.csv",
    ...                                             "z": "two.csv"})
    ['one.csv (π = 0.5)', 'two.csv (π = 0.333)']
    """
    per_input: dict[str, int] = {}
    for input_name in inputs.values():
        per_input[input_name] = per_input.get(input_name, 0) + 1
    titles = []
    for group in groups:
        whole = all(sum(inputs[n] == inputs[name] for n in group) == per_input[inputs[name]]
                    for name in group)
        names = ", ".join(dict.fromkeys(inputs[name] for name in group) if whole else group)
        titles.append(f"{names} (π = {next(iter(group.values())).prevalence:.3g})")
    return titles


def pr_grid_size(n_panels: int, ncols: int = 2) -> tuple[float, float]:
    """The size in inches of :func:`plot_pr_curves_grid`'s figure for ``n_panels`` panels."""
    n = max(n_panels, 1)
    cols = min(ncols, n)
    return (6.5 * cols, 7.6 * math.ceil(n / cols))

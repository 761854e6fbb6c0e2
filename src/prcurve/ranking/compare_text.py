"""A system comparison as IR papers print it (text, Markdown, LaTeX, HTML) and as JSON.

One row per system, one column per measure: the mean over queries (``± sd``
across a system's runs when it has several), the best mean of each measure in
bold, and after each mean the letters of the systems it is significantly better
than (the better system of a significant pair carries the other's letter).
A legend names the letters, the test, the correction, ``alpha``, the number of
queries and the queries scored 0 because a run does not answer them.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prcurve.ranking.compare import RunComparison

__all__ = ["comparison_json", "letters", "paper_table"]

_TESTS = {
    "t": "paired t test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "Fisher's randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "randomized Tukey HSD (all pairs, one family)",
}
_CORRECTIONS = {
    "none": "no correction",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini-Hochberg correction",
    "tukey-hsd": "adjusted by the HSD",
}


def letters(k: int) -> list[str]:
    """``a, b, …, z, aa, ab, …``: one short label per system.

    Examples
    --------
    >>> from prcurve.ranking.compare_text import letters
    >>> letters(3), letters(28)[-2:]
    (['a', 'b', 'c'], ['aa', 'ab'])
    """
    out = []
    for i in range(k):
        label, number = "", i
        while True:
            label = chr(ord("a") + number % 26) + label
            number = number // 26 - 1
            if number < 0:
                break
        out.append(label)
    return out


def _marks(result: RunComparison) -> dict[tuple[str, str], list[str]]:
    """(measure, system) -> letters of the systems it is significantly better than."""
    label = dict(zip(result.systems, letters(len(result.systems)), strict=True))
    marks: dict[tuple[str, str], list[str]] = {}
    rows = result.rows
    for measure, system, versus, difference, significant in zip(
            rows["measure"], rows["system"], rows["versus"], rows["difference"],
            rows["significant"], strict=True):
        if not significant or not versus:
            continue
        better, worse = (system, versus) if difference > 0 else (versus, system)
        marks.setdefault((measure, better), []).append(label[worse])
    return {key: sorted(value, key=lambda x: (len(x), x)) for key, value in marks.items()}


def _legend(result: RunComparison, style: str) -> list[str]:
    names = ", ".join(f"{code} = {name}" + (f" ({result.runs_per_system[name]} runs)"
                                            if result.runs_per_system[name] > 1 else "")
                      for code, name in zip(letters(len(result.systems)), result.systems,
                                            strict=True))
    against = (f"each system against the baseline {result.baseline}" if result.baseline
               else "all pairs")
    family = ("" if result.correction in ("none", "tukey-hsd")
              else " over the comparisons of each measure")
    lines = [
        f"Systems: {names}.",
        f"A letter after a mean: significantly better than that system ({against}; "
        f"{_TESTS[result.test]}, {_CORRECTIONS[result.correction]}{family}, "
        f"alpha = {result.alpha:g})" + ("." if style == "text" else "; bold: the best mean."),
        f"Means over {result.n_queries} judged queries."
        + (" Several runs per system: mean per query over its runs, ± the standard deviation "
           "of its runs' means." if any(v > 1 for v in result.runs_per_system.values()) else ""),
    ]
    lacking = [f"{name} {len(ids)} ({', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''})"
               for name, ids in result.missing.items() if ids]
    if lacking:
        lines.append("Judged queries a run does not answer are scored 0 (trec_eval -c): "
                     + "; ".join(lacking) + ".")
    return lines


def _cells(result: RunComparison, style: str) -> list[list[str]]:
    marks = _marks(result)
    table = []
    for i, system in enumerate(result.systems):
        row = []
        for measure in result.measures:
            means = result.means[measure]
            value = f"{means[i]:.4f}"
            sd = float(result.spread[measure][i])
            if not math.isnan(sd):
                value += (r" $\pm$ " if style == "latex" else " ± ") + f"{sd:.4f}"
            best = bool(means[i] == means.max())
            found = "".join(marks.get((measure, system), []))
            if style == "latex":
                value = (rf"\textbf{{{value}}}" if best else value) + (
                    f"$^{{{found}}}$" if found else "")
            elif style == "markdown":
                value = (f"**{value}**" if best else value) + (
                    f"<sup>{found}</sup>" if found else "")
            elif style == "html":
                value = (f"<b>{html.escape(value)}</b>" if best else html.escape(value)) + (
                    f"<sup>{found}</sup>" if found else "")
            else:
                value += f" ^{found}" if found else ""
            row.append(value)
        table.append(row)
    return table


def paper_table(result: RunComparison, style: str) -> str:
    """The comparison as ``style``: ``"text"``, ``"markdown"``, ``"latex"`` or ``"html"``."""
    codes = letters(len(result.systems))
    cells = _cells(result, style)
    legend = _legend(result, style)
    heads = ["system", *result.measures]
    names = [f"({code}) {name}" for code, name in zip(codes, result.systems, strict=True)]
    if style == "latex":
        def tex(text: str) -> str:
            for char in "\\&%$#_{}":
                text = text.replace(char, "\\" + char)
            return text

        lines = [r"\begin{tabular}{l" + "r" * len(result.measures) + "}", r"\toprule",
                 " & ".join(map(tex, heads)) + r" \\", r"\midrule"]
        lines += [" & ".join([tex(name), *row]) + r" \\"
                  for name, row in zip(names, cells, strict=True)]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines + ["% " + line for line in legend]) + "\n"
    if style == "html":
        head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
        body = "".join("<tr><td>" + html.escape(name) + "</td>"
                       + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                       for name, row in zip(names, cells, strict=True))
        notes = "".join(f"<p>{html.escape(line)}</p>" for line in legend)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}"
    rows = [heads] + [[name, *row] for name, row in zip(names, cells, strict=True)]
    widths = [max(len(row[c]) for row in rows) for c in range(len(heads))]
    if style == "markdown":
        lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                 + " |" for row in rows]
        lines.insert(1, "|" + "|".join([":" + "-" * (widths[0] + 1)]
                                       + ["-" * (w + 1) + ":" for w in widths[1:]]) + "|")
        return "\n".join(lines) + "\n\n" + "\n".join(legend) + "\n"
    lines = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                       for c, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    return "\n".join(lines) + "\n\n" + "\n".join(legend) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def comparison_json(result: RunComparison) -> dict[str, Any]:
    """Settings, systems (with their missing queries) and the rows; NaN as None."""
    table = result.to_table()
    columns = table.columns
    rows = [dict(zip(columns, (_plain(v) for v in row), strict=True))
            for row in zip(*(table[c].tolist() for c in columns), strict=True)]
    return {
        "test": result.test, "correction": result.correction, "alpha": result.alpha,
        "permutations": result.permutations, "baseline": result.baseline,
        "method": result.method, "n_queries": result.n_queries,
        "missing_queries_scored": 0,
        "systems": [{"name": name, "label": code, "runs": result.runs_per_system[name],
                     "queries_not_answered": list(result.missing[name])}
                    for code, name in zip(letters(len(result.systems)), result.systems,
                                          strict=True)],
        "rows": rows,
    }

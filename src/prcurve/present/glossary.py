"""The report's terms in plain words: hover text for the page and the notebook tables.

A newcomer meets "AUCNPR", "min AP", "π", "Davis–Goadrich" and "at t" in the
report's tables and plots. :data:`TERMS` says what each means in one or two
sentences; docs/glossary.md holds the same entries (tests/test_glossary.py keeps
the two equal). The page must fetch nothing, so the words travel inside it:
:func:`with_titles` gives each table header a ``title`` attribute (the browser's
hover text) and :func:`glossary_html` writes the whole glossary into the page,
each term with an anchor that the headers link to.

Examples
--------
>>> from prcurve.present.glossary import term_of, with_titles
>>> term_of("AP (step)"), term_of("95% CI"), term_of("model")
('AP', 'CI', None)
>>> 'title="The prevalence' in with_titles("<th>π</th>")
True
"""

from __future__ import annotations

import html
import re

__all__ = ["FIGURE_NOTE", "GLOSSARY_POINTER", "TERMS", "glossary_html", "term_of", "title_of",
           "with_titles"]

GLOSSARY_POINTER = ("Terms (π, min AP, AUCNPR, Davis–Goadrich, at t, ...): hover a column "
                    "name, or see docs/glossary.md.")
"""The line that points a reader of the notebook display to the glossary."""

FIGURE_NOTE = ("π: prevalence, the fraction of positives (a random classifier's precision).  "
               "min AP: the lowest AP any ranking can get at this π.\n"
               "t: the threshold (predict positive when score ≥ t).  More terms: "
               "docs/glossary.md")
"""The words under the report's PR figure (pr_curve.png and .svg)."""

TERMS: dict[str, str] = {
    "π": "The prevalence: the fraction of positives, positives / (positives + negatives), "
         "weighted when the samples are. A random classifier's precision is π at every "
         "recall, so a PR curve is judged against π, not 0.",
    "AP": "Average precision: the area under the PR curve, computed by the named method "
          "(step, the default, is scikit-learn's: the sum of (r_i − r_(i−1)) · p_i over "
          "thresholds). Higher is better; a random classifier scores about π.",
    "min AP": "The lowest AP that any ranking of these positives and negatives can get "
              "(Boyd et al. 2012, Theorem 3 for the step method). It is above 0 because "
              "part of PR space cannot be reached: the unachievable region.",
    "unachievable region": "The part of PR space below the minimum PR curve "
                           "p_min(r) = rπ / (1 − π + rπ): no ranking of data with "
                           "prevalence π has an operating point there (Boyd et al. 2012, "
                           "Theorem 1). It is large when π is large and a sliver when "
                           "positives are rare.",
    "normalized AP": "(AP − min AP) / (1 − min AP): 0 for the worst ranking, 1 for a "
                     "perfect one, whatever the prevalence.",
    "Davis–Goadrich": "The interpolation between two operating points of Davis and Goadrich "
                      "(2006), \"The Relationship Between Precision-Recall and ROC "
                      "Curves\": true and false positives grow together linearly, so "
                      "precision follows a curve, not a straight line, in PR space. "
                      "\"DG\" in a column name.",
    "AUCPR (DG)": "The area under the PR curve drawn with the Davis–Goadrich interpolation "
                  "(PRROC's auc.integral), the AUCPR of Boyd et al. 2012.",
    "AUCNPR": "The normalized area under the PR curve: (AUCPR − AUCPR_min) / "
              "(1 − AUCPR_min), with the Davis–Goadrich area. 0 for the worst ranking, 1 "
              "for a perfect one; Boyd et al. 2012 recommend it for comparing data sets of "
              "different prevalence.",
    "ROC AUC": "The area under the ROC curve of the same counts: the probability that a "
               "random positive scores above a random negative (ties count one half). It "
               "does not move with π, so it can look good where precision is poor.",
    "best F": "The highest F-beta over all thresholds, F = (1 + β²) · P · R / (β² · P + R) "
              "(F1: β = 1, the harmonic mean of precision and recall).",
    "at t": "The threshold t of that operating point: a sample is predicted positive when "
            "its score is ≥ t.",
    "CI": "The bootstrap confidence interval of the headline AP: samples redrawn within each "
          "class (the report's seed, 0 by default), the percentile interval of the "
          "resampled APs.",
    "support": "The class's number (or total weight) of positive samples.",
    "micro average": "Every (sample, class) cell pooled into one binary problem, then AP "
                     "(scikit-learn's average=\"micro\").",
    "macro average": "The plain mean over classes (scikit-learn's average=\"macro\"); the "
                     "macro-average PR curve is the mean over classes of each class's "
                     "interpolated precision at each recall level.",
    "weighted average": "The mean over classes weighted by each class's support.",
    "iso-F line": "The points of PR space with the same F-beta; the line labelled F1=0.8 "
                  "joins every (recall, precision) pair whose F1 is 0.8.",
    "operating point": "One threshold t and the confusion matrix it gives (predict positive "
                       "when score ≥ t): one point of the PR curve.",
}
"""Term -> what it means, in the order of the page's glossary (and docs/glossary.md)."""

# Column names of the report's tables -> their term. Checked in order; first match wins.
_COLUMNS: tuple[tuple[str, str], ...] = (
    (r"^π$|^prevalence$", "π"),
    (r"^min AP\b", "min AP"),
    (r"^normalized AP\b", "normalized AP"),
    (r"^AUCPR \(DG\)$|^AUCPR\b", "AUCPR (DG)"),
    (r"^AUCNPR\b", "AUCNPR"),
    (r"^AP \(davis_goadrich\)$", "Davis–Goadrich"),
    (r"^AP\b", "AP"),
    (r"^ROC AUC$", "ROC AUC"),
    (r"^best F", "best F"),
    (r"^at t$", "at t"),
    (r"\bCI$", "CI"),
    (r"^support$", "support"),
    (r"^micro average$", "micro average"),
    (r"^macro average$", "macro average"),
    (r"^weighted average$", "weighted average"),
)


def term_of(name: str) -> str | None:
    """The glossary term that explains a table column or row name, or None."""
    for pattern, term in _COLUMNS:
        if re.search(pattern, name):
            return term
    return None


def title_of(name: str) -> str | None:
    """The hover text of a column or row name: its term's words, or None."""
    term = term_of(name)
    return None if term is None else TERMS[term]


def anchor(term: str) -> str:
    """The id of a term's entry in the page's glossary (ASCII letters, digits, dashes)."""
    plain = {"π": "prevalence", "Davis–Goadrich": "davis-goadrich"}.get(term, term)
    return "glossary-" + re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


_CELL = re.compile(r"<(th|td)((?: [^>]*)?)>([^<]*)</\1>")


def with_titles(table_html: str, *, link: bool = False) -> str:
    """``table_html`` with a ``title`` (hover text) on every header cell and row name
    that names a glossary term; with ``link``, the name also links to the term's entry
    in the page (:func:`glossary_html`), which needs no network."""

    def titled(match: re.Match[str]) -> str:
        tag, attributes, text = match.group(1), match.group(2), match.group(3)
        term = term_of(html.unescape(text))
        if term is None or "title=" in attributes:
            return match.group(0)
        words = html.escape(TERMS[term], quote=True)
        shown = f'<a href="#{anchor(term)}">{text}</a>' if link else text
        return f'<{tag}{attributes} title="{words}" class="prc-term">{shown}</{tag}>'

    return _CELL.sub(titled, table_html)


def glossary_html() -> str:
    """The glossary as an HTML section: one entry per term, each with its anchor."""
    entries = "".join(
        f'<dt id="{anchor(term)}">{html.escape(term)}</dt><dd>{html.escape(words)}</dd>'
        for term, words in TERMS.items())
    return (f'<details class="prc-glossary" id="glossary" open><summary>Glossary (also '
            f"docs/glossary.md; hover a column name for its entry)</summary>"
            f"<dl>{entries}</dl></details>")

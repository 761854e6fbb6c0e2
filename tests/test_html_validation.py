"""report.html is made without Bokeh's document validation (a tenth of the page's time;
issue 26, item 3): the page is validated here instead, and a user's own setting wins."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import pytest

pytest.importorskip("bokeh")

from bokeh.core.validation.check import check_integrity
from bokeh.document import Document
from bokeh.settings import SettingProvenance, settings

from prcurve.present import html
from prcurve.present.report_build import evaluate

RNG = np.random.default_rng(33)
Y = (RNG.random(400) < 0.3).astype(int)
A, B = RNG.normal(Y, 1.0), RNG.normal(Y * 0.4, 1.0)


def _report() -> Any:
    return evaluate({"a": (Y, A), "b": (Y, B)})


def _renumbered(page: str) -> str:
    ids: dict[str, str] = {}
    return re.sub(r'"p(\d+)"', lambda m: ids.setdefault(m.group(0), f'"m{len(ids)}"'), page)


def _validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    validate = Document.validate

    def counted(self: Document) -> None:
        calls.append(1)
        validate(self)

    monkeypatch.setattr(Document, "validate", counted)
    return calls


def _rendered_documents(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The Bokeh documents the page is rendered from, appended as ``file_html`` gets them;
    the process's environment is left alone while it renders them."""
    import bokeh.embed

    documents: list[Any] = []
    file_html = bokeh.embed.file_html

    def kept(document: Any, *args: Any, **kwargs: Any) -> str:
        assert os.environ.get("BOKEH_VALIDATE_DOC") != "false"  # (what it was set to)
        documents.append(document)
        return file_html(document, *args, **kwargs)

    monkeypatch.setattr(bokeh.embed, "file_html", kept)
    return documents


def _provenance() -> SettingProvenance:
    return settings.perform_document_validation.get_value_with_provenance()[1]


def test_the_page_is_valid_and_not_validated_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOKEH_VALIDATE_DOC", raising=False)
    unchosen = _provenance()  # Bokeh's own default: nobody set it
    assert unchosen in (SettingProvenance.DEFAULT, SettingProvenance.GLOBAL_DEFAULT)
    documents = _rendered_documents(monkeypatch)
    calls = _validations(monkeypatch)
    report = _report()
    page = html.render_html(report)
    assert calls == []  # skipped ...
    assert _provenance() is unchosen  # ... for the call only
    assert "BOKEH_VALIDATE_DOC" not in os.environ  # through Bokeh's setting, not os.environ
    issues = check_integrity(documents[0].models)  # ... and done here: nothing found
    assert issues.error == []
    assert issues.warning == []
    monkeypatch.setenv("BOKEH_VALIDATE_DOC", "true")  # the same page when validated
    assert _renumbered(html.render_html(report)) == _renumbered(page)
    assert calls == [1]


def test_a_users_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOKEH_VALIDATE_DOC", "true")
    calls = _validations(monkeypatch)
    html.render_html(_report())
    assert calls == [1]
    assert os.environ["BOKEH_VALIDATE_DOC"] == "true"


@pytest.mark.parametrize("environment", [None, "false"])
def test_a_value_set_in_code_wins_and_stays(monkeypatch: pytest.MonkeyPatch,
                                            environment: str | None) -> None:
    """``settings.perform_document_validation.set_value(True)`` beats the variable and is
    the user's still after the call (not unset by it)."""
    if environment is None:
        monkeypatch.delenv("BOKEH_VALIDATE_DOC", raising=False)
    else:
        monkeypatch.setenv("BOKEH_VALIDATE_DOC", environment)
    calls = _validations(monkeypatch)
    settings.perform_document_validation.set_value(True)
    try:
        html.render_html(_report())
        assert calls == [1]
        assert _provenance() is SettingProvenance.USER_SET
        assert settings.perform_document_validation() is True
    finally:
        settings.perform_document_validation.unset_value()


def test_the_iso_f_lines_are_one_renderer_of_every_level(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # One MultiLine for the four iso-F lines (session 33: 27 fewer Bokeh models); each of
    # its lines is F1 = f, checked against the formula: p = f r / (2 r - f).
    from bokeh.models import GlyphRenderer, MultiLine

    documents = _rendered_documents(monkeypatch)
    html.render_html(_report())
    lines = [r.data_source.data for r in documents[0].models
             if isinstance(r, GlyphRenderer) and isinstance(r.glyph, MultiLine)]
    assert len(lines) == 1  # the page's one PR plot
    xs, ys = lines[0]["xs"], lines[0]["ys"]
    assert len(xs) == len(ys) == 4
    for f, r, p in zip((0.2, 0.4, 0.6, 0.8), xs, ys, strict=True):
        r, p = np.asarray(r), np.asarray(p)
        assert r.min() >= f / 2 - 1e-12  # where p = 1
        assert r.max() == pytest.approx(1.0)
        np.testing.assert_allclose(p, f * r / (2 * r - f), rtol=1e-12)

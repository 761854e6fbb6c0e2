"""The shortcuts of report.html's making (issue 26, item 3, session 33's second round):
Bokeh's property validation switched off while the page is serialised, and Bokeh's random
ids found by ``str.find`` instead of a regular expression. Each is checked against the
slow, plain way it replaces: the page with validation on, and the regular expression
(session 33's first round's code) as an oracle."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from prcurve.present import html as page_module
from prcurve.present import html_document
from prcurve.present.report_build import evaluate

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_ORACLE = re.compile(  # the three places of Bokeh's random ids, as one regular expression
    rf'<div id="({_UUID})" data-root-id=|<script type="application/json" id="({_UUID})">'
    rf'|\{{"({_UUID})":\{{"version"')


def oracle_ids(page: str) -> list[str]:
    return list(dict.fromkeys(u for m in _ORACLE.finditer(page) for u in m.groups() if u))


_PIECES = (
    '<div id="{u}" data-root-id="p1">', '<script type="application/json" id="{u}">',
    '{{"{u}":{{"version":"3"}}', '<div id="{u}" data-x=', '<script id="{u}">',
    '"{u}":{{"name"', '{u}', '<div id="{u}x" data-root-id=', '{{"{u}"', '">', '{{"',
    '" data-root-id=', '":{{"version"', "plain text ", '<div id="',
)


@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(range(4)),
                          st.booleans()), max_size=12))
def test_random_ids_as_the_regular_expression(parts: list[tuple[str, int, bool]]) -> None:
    ids = [str(uuid.UUID(int=k * 0x1234567890ABCDEF + 7)) for k in range(4)]
    page = "".join(piece.format(u=ids[k].upper() if upper else ids[k])
                   for piece, k, upper in parts)
    assert html_document._random_ids(page) == oracle_ids(page)


def _numbered(page: str) -> str:
    """``page`` with Bokeh's model ids (``p123``, counted per process) renumbered in order
    of appearance, so that two pages made in one process compare."""
    seen: dict[str, str] = {}
    return re.sub(r'"p\d+"', lambda m: seen.setdefault(m.group(0), f'"m{len(seen)}"'), page)


@pytest.mark.parametrize("models", [1, 3])
def test_page_the_same_with_property_validation(models: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from bokeh.core.property import validation

    rng = np.random.default_rng(3)
    labels = rng.random(2_000) < 0.3
    report = evaluate({f"m{k}": (labels.astype(int), rng.normal(labels * (k + 1.0), 1.0))
                       for k in range(models)})
    fast = page_module.render_html(report, prg_svg=lambda: "<svg/>")
    switched: list[bool] = []

    @contextlib.contextmanager
    def validated(value: bool) -> Iterator[None]:  # the page's switch, left on
        switched.append(value)
        yield

    monkeypatch.setattr(validation, "validate", validated)
    slow = page_module.render_html(report, prg_svg=lambda: "<svg/>")
    assert switched == [False]  # the switch was asked for, once, and refused here
    assert _numbered(fast) == _numbered(slow)
    assert fast != slow  # two pages of one process: only the renumbering makes them equal

"""Bokeh for report.html (:mod:`prcurve.present.html`): its modules loaded on first use,
its validation switched off while the page is made, and its random ids replaced by fixed
ones so that two runs write the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__: list[str] = []


def _bokeh() -> Any:
    try:
        import bokeh
    except ImportError as error:
        raise ImportError(
            "the HTML report needs bokeh, which is not installed: pip install 'prcurve[report]'"
        ) from error
    import bokeh.embed
    import bokeh.layouts
    import bokeh.models
    import bokeh.plotting
    import bokeh.resources

    return bokeh


@contextmanager
def _without_document_validation() -> Iterator[None]:
    """Bokeh without its document validation (``check_integrity``, which only logs what
    it finds) while the page is made: a tenth of the page's time (about 40 ms of 0.4 s at
    10^4 rows; issue 26, item 3). The page is the same; tests/test_html_validation.py
    validates it instead. Through Bokeh's own setting, ``settings.perform_document_validation``,
    set for the call and unset after, only when nobody chose it (its provenance a default):
    a value set in code, in ``BOKEH_VALIDATE_DOC`` or in a Bokeh config file comes first
    (docs/report.md). Property validation is
    off too (``validate(False)``): serialising checks every default again (14 ms more);
    only here, as while models are built it converts values (a title into a ``Title``)."""
    from bokeh.core.property.validation import validate
    from bokeh.settings import SettingProvenance, settings

    setting = settings.perform_document_validation
    unchosen = setting.get_value_with_provenance()[1] in (
        SettingProvenance.DEFAULT, SettingProvenance.DEV_DEFAULT, SettingProvenance.GLOBAL_DEFAULT)
    if unchosen:
        setting.set_value(False)
    try:
        with validate(False):
            yield
    finally:
        if unchosen:
            setting.unset_value()


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_RANDOM_ID_PLACES = (  # the three ids Bokeh draws at random for a standalone page
    ('<div id="', '" data-root-id='), ('<script type="application/json" id="', '">'),
    ('{"', '":{"version"'))


def _random_ids(page: str) -> list[str]:
    """The uuids between the texts of :data:`_RANDOM_ID_PLACES`, in page order, each once:
    found by ``str.find`` of each place's longer text (a regular expression of the three
    scanned the 2.2 MB page in 14 ms; this takes about 1 ms)."""
    found = []
    for before, after in _RANDOM_ID_PLACES:
        anchor, shift = (after, -36) if len(after) > len(before) else (before, len(before))
        at = page.find(anchor)
        while at >= 0:
            start = at + shift  # where the uuid would start: 36 characters, then `after`
            if (start >= len(before) and page.startswith(before, start - len(before))
                    and page.startswith(after, start + 36)
                    and _UUID.fullmatch(page, start, start + 36)):
                found.append((start, page[start:start + 36]))
            at = page.find(anchor, at + 1)
    return list(dict.fromkeys(uuid for _, uuid in sorted(found)))


def _fixed_ids(page: str) -> str:
    """``page`` with Bokeh's random element and document ids replaced by fixed ones, so
    that two runs of a command write the same bytes (the model ids count from a fixed
    start in each process). Only the ids found where Bokeh puts them are replaced."""
    for k, uuid in enumerate(_random_ids(page)):
        page = page.replace(uuid, f"prcurve-{k}")
    return page

"""The rich console of ``prcurve report``'s terminal output (issue 26, item 6).

A report printed to a terminal is rich tables (``Report.print_rich``); what it prints
is plain text the report has already formatted: numbers, column and file names. So its
console parses no markup and replaces no emoji codes (each table cell and title would
otherwise go through rich's markup parser, and the first header line would load rich's
table of 3,600 emoji names), highlights nothing (each printed line is already printed
with ``highlight=False``), and reads the terminal's size once (rich's ``Console.size``
asks the operating system for it on every ``print``, trying standard input, output and
error in turn, unless both ``COLUMNS`` and ``LINES`` are set).

For the report's own strings the bytes are the same as a default console's
(tests/test_terminal_report.py compares them); a name that looks like markup
(``[bold]x``) or an emoji code (``:smile:``) is now printed as it is written, where a
default console would have turned it into a style or an emoji.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["report_console"]


def report_console(stream: IO[str]) -> Console:
    """A rich console on ``stream`` for the report's plain strings (module docstring).

    Examples
    --------
    >>> import io
    >>> from prcurve.present.terminal import report_console
    >>> console = report_console(io.StringIO())
    >>> console.print("[bold]x :smile:")
    >>> console.file.getvalue()
    '[bold]x :smile:\\n'
    """
    from rich.console import Console

    console = Console(file=stream, markup=False, emoji=False, highlight=False)
    console.size = console.size  # probed once, kept (the setter fixes width and height)
    return console

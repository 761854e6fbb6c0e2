"""What every subcommand shares: the parser class, usage errors, and the guard that
turns any error into one line on standard error and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import IO, Any, NoReturn

from prcurve.errors import InvalidInputError

__all__ = ["Formatter", "Parser", "UsageError", "guard", "is_terminal", "say",
           "terminal_columns"]


class UsageError(Exception):
    """A command-line error, reported in one line."""


def terminal_columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` gives it: ``$COLUMNS``,
    else standard output's terminal, else 80.

    Not shutil's own: importing shutil imports zlib, bz2 and lzma, and argparse's
    help formatter imports it when a parser is built (each ``add_argument`` makes
    one), about 3% of a small ``prcurve trec`` (issue 26).
    """
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, its width from :func:`terminal_columns` (as
    argparse's: the terminal's columns less 2)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (one line, exit 2);
    its help formatter is :class:`Formatter` unless given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def say(message: str) -> None:
    """A note for the user on standard error, prefixed ``prcurve:``."""
    print(f"prcurve: {message}", file=sys.stderr)


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def guard(run: Callable[[], int]) -> int:
    """Run a command: bad input is one line on stderr and exit 2, never a traceback."""
    try:
        return run()
    except (UsageError, InvalidInputError) as error:
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # an optional dependency is missing
        print(f"prcurve: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except Exception as error:  # a bug; still one line, never a traceback
        print(f"prcurve: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2

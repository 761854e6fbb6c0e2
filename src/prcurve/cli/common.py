"""What every subcommand shares: the parser class, usage errors, and the guard that
turns any error into one line on standard error and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import IO, NoReturn

from prcurve.errors import InvalidInputError

__all__ = ["Parser", "UsageError", "guard", "is_terminal", "say"]


class UsageError(Exception):
    """A command-line error, reported in one line."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (one line, exit 2)."""

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

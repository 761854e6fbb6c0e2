"""What every subcommand shares: the parser class, usage errors, and the guard that
turns any error into one line on standard error and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import IO, NoReturn

from prcurve.errors import InvalidInputError

__all__ = ["Parser", "UsageError", "guard", "is_terminal", "reuse_freed_memory", "say"]


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


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
_KEEP = 1 << 30  # blocks up to 1 GiB come from malloc's heap, and stay there when freed


def reuse_freed_memory() -> bool:
    """Let this process reuse the memory of freed large arrays: glibc's ``malloc``
    serves blocks up to 1 GiB from its heap and keeps freed memory there
    (``mallopt``: ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``). True when set;
    False where the C library is not glibc (nothing changes).

    By default glibc maps each block above a threshold (32 MiB at most) freshly
    from the kernel and unmaps it when freed, so every large temporary NumPy array
    is faulted in and zeroed by the kernel again: about 0.3-0.5 s of system time
    in ``prcurve trec`` on a 10^7-line run (docs/benchmarks.md). Peak memory is
    that of the arrays alive at once, as before. The command line sets it for its
    own process (``prcurve trec``), never when prcurve is imported as a library.
    """
    import ctypes  # here, not at the top: `prcurve --help` needs no C library

    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError):  # not glibc
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _KEEP)) and bool(mallopt(_M_TRIM_THRESHOLD, _KEEP))

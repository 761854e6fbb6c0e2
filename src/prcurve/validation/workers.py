"""Checks of ``prcurve report --workers N``'s local worker processes (issue 26, item 7;
docs/scale.md): the number asked for, and a fork server that cannot start.

Examples
--------
>>> from prcurve.validation.workers import check_workers
>>> check_workers("2")
2
"""

from __future__ import annotations

from typing import Any

from prcurve.errors import InvalidInputError

__all__ = ["check_workers", "workers_unstartable"]


def check_workers(value: Any) -> int:
    """``--workers N``, the local worker processes (prcurve.io.workers): an integer >= 1."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(number) != str(value).strip():
        raise InvalidInputError("--workers", f"expected an integer >= 1, found {value!r}",
                                "pass the number of local worker processes, e.g. 2")
    return number


def workers_unstartable(folder: str, reason: str) -> InvalidInputError:
    """The worker processes' fork server could not start in this temporary folder (its
    Unix socket's path is too long, or the folder is not writable)."""
    return InvalidInputError(
        "--workers", f"cannot start the worker processes in the temporary folder {folder!r}: "
        f"{reason}", "set TMPDIR to a short, writable folder (e.g. /tmp), or run without "
        "--workers")

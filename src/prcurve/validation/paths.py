"""Messages and checks about lists of files and output names: a file listed twice, an
empty list, an output file whose name a folder takes (docs/cli.md, "Files"); and the
``PRCURVE_PICTURES`` setting of how a report's picture files are drawn (docs/report.md,
"Two processes")."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from prcurve.errors import InvalidInputError

__all__ = ["PICTURES_SETTINGS", "check_distinct_files", "check_pictures_setting",
           "no_files_given", "output_is_folder", "output_not_a_folder"]

PICTURES_SETTINGS = ("child", "here")
"""The values of the environment variable ``PRCURVE_PICTURES`` (besides unset or empty)."""


def check_pictures_setting(value: str | None) -> str | None:
    """The environment variable ``PRCURVE_PICTURES`` (``value``: its text, None when
    unset): ``"child"`` (draw a report's pictures in a second process), ``"here"`` (in
    this one) or None (unset or blank: a second process when a core is free), case and
    surrounding spaces ignored. Anything else is refused: a misspelt value would
    otherwise silently mean the default.

    Examples
    --------
    >>> check_pictures_setting(" Child "), check_pictures_setting(None), check_pictures_setting("")
    ('child', None, None)
    >>> check_pictures_setting("chld")
    Traceback (most recent call last):
    ...
    prcurve.errors.InvalidInputError: PRCURVE_PICTURES: unknown value 'chld' (an environment \
variable). Set it to 'child' (draw the pictures in a second process) or 'here' (in this \
process), or unset it (a second process when a core is free).
    """
    if value is None or not value.strip():
        return None
    setting = value.strip().lower()
    if setting not in PICTURES_SETTINGS:
        raise InvalidInputError(
            "PRCURVE_PICTURES", f"unknown value {value!r} (an environment variable)",
            "set it to 'child' (draw the pictures in a second process) or 'here' (in this "
            "process), or unset it (a second process when a core is free)")
    return setting


def no_files_given(argument: str = "source") -> InvalidInputError:
    """An empty list of files (``stream_counts([])``)."""
    return InvalidInputError(argument, "no file given (an empty list)",
                             "pass a file, a list of files or a folder of them")


def check_distinct_files(files: Sequence[str | Path],
                         why: str = "its rows would count twice") -> None:
    """Refuse a file listed twice: the same file (device and inode, so a link or another
    spelling of the path is caught; one ``stat`` per file) or the same path, a folder's
    files included. ``why`` says what would happen otherwise.

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.validation.paths import check_distinct_files
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> open(path, "w").close()
    >>> from prcurve.errors import InvalidInputError
    >>> try:
    ...     check_distinct_files([path, os.path.join(os.path.dirname(path), ".", "a.csv")])
    ... except InvalidInputError as error:
    ...     print(str(error).split(" (also")[0].endswith("a.csv' is listed twice"))
    True
    """
    seen: dict[object, str] = {}
    folders: list[Path] = []
    for one in files:
        try:
            status = os.stat(one)
            key: object = (status.st_dev, status.st_ino)
            if stat.S_ISDIR(status.st_mode):
                folders.append(Path(one).resolve())
        except OSError:  # missing: reported where it is read; compared by its path here
            key = os.path.abspath(one)
        earlier = seen.get(key)
        if earlier is not None:
            also = "" if earlier == str(one) else f" (also as {earlier!r})"
            raise InvalidInputError(
                "INPUT", f"{str(one)!r} is listed twice{also}: {why}",
                "list each file once")
        seen[key] = str(one)
    for one in files if folders else ():  # inside a listed folder: its rows read twice
        real = Path(one).resolve()
        inside = next((f for f in folders if real != f and real.is_relative_to(f)), None)
        if inside is not None:
            raise InvalidInputError(
                "INPUT", f"{str(one)!r} is listed twice (also inside the folder "
                f"{str(inside)!r}): {why}", "list each file once")


def output_is_folder(path: str, argument: str = "--out") -> InvalidInputError:
    """A file prcurve writes whose name is taken by a folder (never replaced)."""
    return InvalidInputError(
        argument, f"the output file {path!r} is a folder; nothing was written",
        "remove or rename that folder, or choose another output folder")


def output_not_a_folder(path: str, argument: str = "--out") -> InvalidInputError:
    """An output folder (or one of its parents) that is a file."""
    return InvalidInputError(
        argument, f"{path!r} is a file, not a folder; nothing was written",
        "choose a folder (it is created if missing)")

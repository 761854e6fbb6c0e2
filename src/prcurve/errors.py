"""The exception and warning classes that prcurve raises.

Every error about a user's input is an :class:`InvalidInputError`, a subclass
of :class:`ValueError`; it is raised from one place, the :mod:`prcurve.validation` package.
Every undefined value (0/0) is handled by one policy (see
:mod:`prcurve.core.undefined`), which warns with :class:`UndefinedMetricWarning` or
raises :class:`UndefinedMetricError`.
"""

from __future__ import annotations

__all__ = ["InvalidInputError", "UndefinedMetricError", "UndefinedMetricWarning"]


class InvalidInputError(ValueError):
    """An argument has a value prcurve cannot compute with.

    The message names the argument, says what was found and how to fix it.

    Attributes
    ----------
    argument : str
        The name of the offending argument, as the caller spelled it.
    """

    def __init__(self, argument: str, found: str, fix: str) -> None:
        self.argument = argument
        super().__init__(f"{argument}: {found}. {fix[:1].upper()}{fix[1:]}.")


class UndefinedMetricError(ZeroDivisionError, ValueError):
    """A metric is 0/0 and ``zero_division="raise"`` was requested."""


class UndefinedMetricWarning(UserWarning):
    """A metric is 0/0 and was set to NaN (the default ``zero_division``)."""

"""Lazy public names and submodules of a package (PEP 562), for the packages whose
``import`` must stay light (issue 26, item 1): ``prcurve.ranking`` and
``prcurve.detection`` import nothing of their own until a name is used.

Examples
--------
>>> from prcurve._lazy import lazy_attributes
>>> namespace = {"__all__": ["dumps"]}
>>> getattr_, dir_ = lazy_attributes("json", {"dumps": "json"}, namespace)
>>> getattr_("dumps")([1]), "dumps" in namespace, dir_()
('[1]', True, ['dumps'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(
    package: str, lazy: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    ``__getattr__(name)`` loads ``name`` from the module ``lazy[name]`` names, or else
    the submodule ``package.name``, and keeps it in ``namespace`` (the package's
    globals), so later look-ups never call it again; a name that is neither is an
    ``AttributeError``, while a missing module that the submodule itself imports
    propagates. ``__dir__()`` lists ``namespace["__all__"]`` and the public names
    loaded so far.
    """

    def load(name: str) -> Any:
        if name in lazy:
            value = getattr(import_module(lazy[name]), name)
        else:
            try:
                value = import_module(f"{package}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{package}.{name}":
                    raise  # a module it imports is missing: not this attribute's problem
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace["__all__"])
                      | {name for name in namespace if not name.startswith("_")})

    return load, names

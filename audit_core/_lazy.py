"""Lazy package exports (PEP 562), so that importing a package costs nothing until a name is used.

``audit_core.sequential.AuditParams`` and ``from audit_core.analyses import replay_run`` work as
before; the submodule defining the name is imported on first use. A command-line call, a page or
a notebook therefore pays only for the engines it touches (``audit label`` never loads the
synthesis solver; ``--help`` loads no numpy).
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence


class _LazyPackage(types.ModuleType):
    """A package whose exported function may share its submodule's name (``sequential.replay``).

    The import system binds a submodule on its package once loaded; an eager ``from .replay import
    replay`` then rebinds the name to the function. Here the binding is redirected to the function
    so that the package attribute means the same whichever import ran first.
    """

    def __setattr__(self, name: str, value) -> None:
        shadowed = self.__dict__.get("_lazy_shadowed", ())
        if name in shadowed and isinstance(value, types.ModuleType) and value.__name__ == f"{self.__name__}.{name}":
            value = getattr(value, name)
        super().__setattr__(name, value)


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]) -> tuple[Callable, Callable]:
    """``(__getattr__, __dir__)`` for ``package`` whose ``exports`` map a module to the names taken
    from it: a submodule (``"replay"``) or, for a re-export, a full module name (``"audit_core.presets"``)."""
    where = {name: sub if "." in sub else f"{package}.{sub}" for sub, names in exports.items() for name in names}
    module = sys.modules[package]
    module.__class__ = _LazyPackage
    module._lazy_shadowed = tuple(sub for sub, names in exports.items() if "." not in sub and sub in names)

    def __getattr__(name: str):
        target = where.get(name)
        if target is None and name.startswith("__"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if target is None:
            # A submodule not loaded yet (``analyses.live``): the eager package had loaded them all.
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(target), name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | set(where))

    return __getattr__, __dir__

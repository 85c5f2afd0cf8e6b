"""Our import-linter contract types, and the configuration every front end reads.

Register them in the project's import-linter configuration::

    contract_types =
        boundary: domain_fence.integrations.importlinter.BoundaryContract
        vocabulary: domain_fence.integrations.importlinter.VocabularyContract
        placement: domain_fence.integrations.importlinter.PlacementContract
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from domain_fence.core.index.isolation import tool_imports_only

if TYPE_CHECKING:
    from .boundary import BoundaryContract
    from .placement import PlacementContract
    from .vocabulary import VocabularyContract

# lint-imports has put the current directory on sys.path before it imports us: what
# our contract types import (now, or later while checking) comes from the interpreter,
# never from a module of the project named like it.
with tool_imports_only():
    from . import session  # noqa: F401  (what check() asks, imported before any project path)

__all__ = ["BoundaryContract", "PlacementContract", "VocabularyContract"]
_MODULE_OF = {"BoundaryContract": "boundary", "PlacementContract": "placement", "VocabularyContract": "vocabulary"}


def __getattr__(name: str) -> Any:
    # A contract type is imported when import-linter asks for it: a configuration that
    # uses one family imports no other.
    if name in _MODULE_OF:
        with tool_imports_only():
            module = importlib.import_module(f"{__name__}.{_MODULE_OF[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

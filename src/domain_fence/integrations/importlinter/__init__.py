"""Our import-linter contract types, and the configuration every front end reads.

Register them in the project's import-linter configuration::

    contract_types =
        boundary: domain_fence.integrations.importlinter.BoundaryContract
        vocabulary: domain_fence.integrations.importlinter.VocabularyContract
        placement: domain_fence.integrations.importlinter.PlacementContract
"""

from domain_fence.core.index.isolation import WORKER_MODULES, preload, tool_imports_only

# lint-imports has put the current directory on sys.path before it imports us: what
# our contract types import (now, or later while checking) comes from the interpreter,
# never from a module of the project named like it.
with tool_imports_only():
    from . import session  # noqa: F401  (what check() asks, imported before any project path)
    from .boundary import BoundaryContract
    from .placement import PlacementContract
    from .vocabulary import VocabularyContract
preload(WORKER_MODULES)

__all__ = ["BoundaryContract", "PlacementContract", "VocabularyContract"]

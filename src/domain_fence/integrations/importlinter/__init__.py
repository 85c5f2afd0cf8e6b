"""Our import-linter contract types, and the configuration every front end reads.

Register them in the project's import-linter configuration::

    contract_types =
        boundary: domain_fence.integrations.importlinter.BoundaryContract
        vocabulary: domain_fence.integrations.importlinter.VocabularyContract
        placement: domain_fence.integrations.importlinter.PlacementContract
"""

from .boundary import BoundaryContract
from .placement import PlacementContract
from .vocabulary import VocabularyContract

__all__ = ["BoundaryContract", "PlacementContract", "VocabularyContract"]

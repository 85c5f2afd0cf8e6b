"""The contract families, each behind the protocol of :mod:`.base`."""

from __future__ import annotations

from .base import Context, Family, GraphUnavailableError, Option, ProjectOutcome
from .boundary import BOUNDARY
from .placement import PLACEMENT
from .vocabulary import VOCABULARY

FAMILIES: dict[str, Family] = {family.name: family for family in (BOUNDARY, VOCABULARY, PLACEMENT)}

__all__ = ["FAMILIES", "Context", "Family", "GraphUnavailableError", "Option", "ProjectOutcome"]

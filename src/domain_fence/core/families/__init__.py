"""The contract families, each behind the protocol of :mod:`.base`."""

from __future__ import annotations

from .base import Context, Family, GraphUnavailableError, Option, ProjectOutcome
from .boundary import BOUNDARY
from .placement import PLACEMENT
from .vocabulary import VOCABULARY

_ALL: tuple[Family, ...] = (BOUNDARY, VOCABULARY, PLACEMENT)
FAMILIES: dict[str, Family] = {family.name: family for family in _ALL}

__all__ = ["FAMILIES", "Context", "Family", "GraphUnavailableError", "Option", "ProjectOutcome"]

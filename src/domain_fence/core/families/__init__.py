"""The contract families, each behind the protocol of :mod:`.base`."""

from __future__ import annotations

from domain_fence.core.families.base import Context, Family, GraphUnavailableError, Option, ProjectOutcome
from domain_fence.core.families.boundary import BOUNDARY
from domain_fence.core.families.placement import PLACEMENT
from domain_fence.core.families.vocabulary import VOCABULARY

_ALL: tuple[Family, ...] = (BOUNDARY, VOCABULARY, PLACEMENT)
FAMILIES: dict[str, Family] = {family.name: family for family in _ALL}

__all__ = ["FAMILIES", "Context", "Family", "GraphUnavailableError", "Option", "ProjectOutcome"]

"""The contract families, each behind the protocol of :mod:`.base`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain_fence.core.families.base import Context, Family, GraphUnavailableError, Option, ProjectOutcome

__all__ = ["FAMILIES", "Context", "Family", "GraphUnavailableError", "Option", "ProjectOutcome"]
FAMILIES: dict[str, Family]


def __getattr__(name: str) -> Any:
    # Imported when first used: the configuration's parsing (``.config``, which ``init``
    # and a replayed run read) needs none of the families.
    if name == "FAMILIES":
        from domain_fence.core.families.boundary import BOUNDARY
        from domain_fence.core.families.placement import PLACEMENT
        from domain_fence.core.families.vocabulary import VOCABULARY

        families: tuple[Family, ...] = (BOUNDARY, VOCABULARY, PLACEMENT)
        globals()["FAMILIES"] = {family.name: family for family in families}
        return globals()["FAMILIES"]
    if name in __all__:
        from domain_fence.core.families import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The contract families, each behind the protocol of :mod:`.base`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain_fence.core.families.base import Context, Family, GraphUnavailableError, Option, ProjectOutcome

__all__ = ["FAMILIES", "Context", "Family", "GraphUnavailableError", "Option", "ProjectOutcome", "family_named"]
FAMILIES: dict[str, Family]
FAMILY_NAMES = ("boundary", "vocabulary", "placement")


def family_named(name: str) -> Family:
    """The family called ``name`` (KeyError when none is), imported when first named: a
    check imports only the families its contracts use."""
    if name == "boundary":
        from domain_fence.core.families.boundary import BOUNDARY

        return BOUNDARY
    if name == "vocabulary":
        from domain_fence.core.families.vocabulary import VOCABULARY

        return VOCABULARY
    if name == "placement":
        from domain_fence.core.families.placement import PLACEMENT

        return PLACEMENT
    raise KeyError(name)


def __getattr__(name: str) -> Any:
    # Imported when first used: the configuration's parsing (``.config``, which ``init``
    # and a replayed run read) needs none of the families.
    if name == "FAMILIES":
        globals()["FAMILIES"] = {family_name: family_named(family_name) for family_name in FAMILY_NAMES}
        return globals()["FAMILIES"]
    if name in __all__:
        from domain_fence.core.families import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The one engine every front end calls (:mod:`.engine`), and what it applies to every
finding: the baseline (:mod:`.baseline`), ``noqa`` comments (:mod:`.noqa`), re-keyed
entries (:mod:`.rekey`), and the caches of its results (:mod:`.runcache`,
:mod:`.resultcache`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain_fence.core.engine.engine import (
        ConfigurationProblems,
        ContractSpec,
        Engine,
        FileFindings,
        Settings,
        stale_message,
    )

__all__ = ["ConfigurationProblems", "ContractSpec", "Engine", "FileFindings", "Settings", "stale_message"]


def __getattr__(name: str) -> Any:
    # Imported when first used: a replayed run (the run cache, in this package) and the
    # baseline's error need none of the families the engine runs.
    if name in __all__:
        from domain_fence.core.engine import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

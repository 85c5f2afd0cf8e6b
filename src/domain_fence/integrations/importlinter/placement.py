"""The ``placement`` contract type: symbols matching ``symbols`` are defined only
under ``allowed_modules``.

Its options are the placement family's; the check is the engine's
(:mod:`domain_fence.core.families.placement`). It reads sources, not the import graph.
"""

from __future__ import annotations

from domain_fence.core.families.placement import PLACEMENT

from .base import FenceContract


class PlacementContract(FenceContract):
    """Functions and classes whose names match ``symbols`` (fnmatch patterns,
    case-sensitive) may be defined only in ``allowed_modules``.

    Options: ``symbols``, ``allowed_modules``, ``kinds``, ``require_match``,
    ``baseline`` and ``unmatched_baseline_alerting`` (see the README).
    """

    type_name = "placement"
    family = PLACEMENT


__all__ = ["PlacementContract"]

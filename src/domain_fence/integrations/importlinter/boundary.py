"""The ``boundary`` contract type: import-linter's ``forbidden`` plus a baseline.

Its options are the ``forbidden`` contract's (declared by import-linter) and the
boundary family's; the check is the engine's (:mod:`domain_fence.core.families.boundary`).
"""

from __future__ import annotations

from grimp import ImportGraph
from importlinter.contracts.forbidden import ForbiddenContract

from domain_fence.core.engine import ContractSpec, Engine
from domain_fence.core.families.boundary import BOUNDARY, nothing_to_check, unmatched_wildcards

from .base import FenceContract


class BoundaryContract(FenceContract, ForbiddenContract):
    """Source modules must not import forbidden modules, directly or through chains.

    Options: those of import-linter's ``forbidden`` contract, plus ``baseline`` (path
    of the baseline file) and ``unmatched_baseline_alerting`` (error, warn, none).
    """

    type_name = "boundary"
    family = BOUNDARY

    def problems(self, engine: Engine, spec: ContractSpec, graph: ImportGraph) -> list[str]:
        """Plain module names of the root packages missing from the graph, as
        import-linter's ``forbidden`` reports them."""
        roots = self.root_packages
        missing = []
        for option in ("source_modules", "forbidden_modules"):
            for expression in getattr(self.config, option):
                name = str(expression)
                inside = any(name == root or name.startswith(root + ".") for root in roots)
                if inside and not expression.has_wildcard and name not in graph.modules:
                    missing.append(f"{option}: module {name!r} does not exist")
        missing += unmatched_wildcards(self.config, graph.modules, roots)
        missing = missing or nothing_to_check(self.config, graph.modules)
        return missing + BOUNDARY.unclassified_problems(self.config, engine.context)


__all__ = ["BoundaryContract"]

"""The ``boundary`` contract: import-linter's ``forbidden`` plus a baseline.

A violation is a *crossing import*: an import by which a source module leaves the
source modules towards a forbidden module (directly, or through modules outside the
source). Every chain import-linter would report runs through one. The baseline records
crossing imports, so a recorded one passes with every chain through it, as if listed
in ``ignore_imports``; an entry that is no longer a crossing import is stale and breaks
the contract (or warns, or is ignored, per ``unmatched_baseline_alerting``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter import ContractCheck
from importlinter.contracts.forbidden import ForbiddenContract

from domain_fence.core.baseline import BaselineEntry, apply_baseline
from domain_fence.core.boundary import chain_finding, edge_fingerprint
from domain_fence.core.config import BoundaryConfig, parse_boundary
from domain_fence.core.findings import Finding
from domain_fence.core.index import ProjectIndex
from domain_fence.core.modules import matches_any

from .base import FenceContract, current_root, shared_index
from .caching import fence_cache_dir


class BoundaryContract(FenceContract[BoundaryConfig], ForbiddenContract):
    """Source modules must not import forbidden modules, directly or through chains.

    Options: those of import-linter's ``forbidden`` contract, plus ``baseline`` (path
    of the baseline file) and ``unmatched_baseline_alerting`` (error, warn, none).
    """

    type_name = "boundary"
    family = "boundary"

    def parse_config(self, contract: str, name: str, options: Mapping[str, Any], root: Path) -> BoundaryConfig:
        return parse_boundary(contract, name, options, root)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        # import-linter's own check validates the modules and removes ignore_imports
        # from the graph; its chains are not used: where several shortest chains tie,
        # grimp's pick varies from run to run, and so would our fingerprints.
        forbidden = ForbiddenContract.check(self, graph, verbose)
        recorded = self.load_baseline().fingerprints(self.contract_id)
        chains = self.crossing_chains(graph)
        ratchet = apply_baseline(chains, recorded)
        new_chains = [chains[f] for f in ratchet.new]
        result = self.ratchet_result(
            ratchet.new, ratchet.baselined, ratchet.stale, {"invalid_chains": _by_pair(new_chains)}
        )
        result.metadata["baselined_edges"] = sorted(f.fingerprint for f in ratchet.baselined)
        result.warnings = list(forbidden.warnings) + result.warnings
        result.ignored_import_count = forbidden.ignored_import_count
        return result

    def violations(self, graph: ImportGraph | None) -> list[BaselineEntry]:
        """The entries that make this contract pass on ``graph``: one per crossing import."""
        if graph is None:  # needs_graph is True: the front ends always build it
            raise TypeError("a boundary contract needs the import graph")
        ForbiddenContract.check(self, graph, False)  # validates, and removes ignore_imports
        return sorted(
            BaselineEntry(self.contract_id, f.fingerprint, f"{f.code} {f.message}") for f in self.crossing_chains(graph)
        )

    def crossing_chains(self, graph: ImportGraph) -> dict[Finding, list[dict[str, Any]]]:
        """One finding (and its chain) per import by which a source module leaves the
        source modules towards a forbidden module, shown with a shortest route to it.

        The set of such imports does not depend on which of several equally short
        chains a search happens to find, so fingerprints, and the baseline, are the
        same on every run; ties between routes are broken by module name.
        """
        path_of = _ModulePaths(self.root_packages)
        routes = _RoutesToForbidden(graph, self.in_source, self.is_forbidden, self.config.allow_indirect_imports)
        chains = {}
        for importer in sorted(m for m in graph.modules if self.in_source(m) and not self.is_forbidden(m)):
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                route = routes.from_module(imported)
                if route is None:
                    continue
                modules = [importer, *route]
                chain = [_link(graph, a, b) for a, b in itertools.pairwise(modules)]
                chains[chain_finding(self.contract_id, chain, path_of, self.in_source)] = chain
        return dict(sorted(chains.items()))

    def in_source(self, module: str) -> bool:
        return matches_any(module, self.config.source_modules)

    def is_forbidden(self, module: str) -> bool:
        return matches_any(module, self.config.forbidden_modules)


class _RoutesToForbidden:
    """For each module outside the source modules, a shortest route to a forbidden
    module that does not pass back through the source modules (a route that does is
    blamed on the source module it passes through, at its own crossing import).

    One breadth-first search backwards from the forbidden modules, visiting importers
    in name order: grimp's chain searches break ties differently from run to run.
    """

    def __init__(
        self,
        graph: ImportGraph,
        in_source: Callable[[str], bool],
        is_forbidden: Callable[[str], bool],
        direct_only: bool,
    ) -> None:
        self.next_hop: dict[str, str | None] = {}
        frontier = sorted(m for m in graph.modules if is_forbidden(m))
        self.next_hop.update((m, None) for m in frontier)
        while frontier and not direct_only:
            following = []
            for module in frontier:
                for importer in sorted(graph.find_modules_that_directly_import(module)):
                    if importer not in self.next_hop and not in_source(importer):
                        self.next_hop[importer] = module
                        following.append(importer)
            frontier = following

    def from_module(self, module: str) -> list[str] | None:
        if module not in self.next_hop:
            return None
        route = [module]
        while (hop := self.next_hop[route[-1]]) is not None:
            route.append(hop)
        return route


def _by_pair(chains: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Chains grouped as import-linter's forbidden contract reports them."""
    pairs: dict[tuple[str, str], list[list[dict[str, Any]]]] = {}
    for chain in chains:
        pairs.setdefault((chain[-1]["imported"], chain[0]["importer"]), []).append(chain)
    return [
        {"upstream_module": upstream, "downstream_module": downstream, "chains": pairs[upstream, downstream]}
        for upstream, downstream in sorted(pairs)
    ]


def _link(graph: ImportGraph, importer: str, imported: str) -> dict[str, Any]:
    details = graph.get_import_details(importer=importer, imported=imported)
    lines = tuple(sorted({d["line_number"] for d in details if d.get("line_number")}))
    return {"importer": importer, "imported": imported, "line_numbers": lines}


class _ModulePaths:
    """Module name -> file relative to the project root, located only when asked."""

    def __init__(self, root_packages: list[str]) -> None:
        self.root_packages = root_packages
        self._index: ProjectIndex | None = None

    def __call__(self, module: str) -> str:
        if self._index is None:
            shared = shared_index.get()  # the run's index, when a front end shares one
            same = shared is not None and shared.root == current_root()
            if shared is not None and same:
                self._index = shared
            else:
                root = current_root()
                self._index = ProjectIndex.build(root, self.root_packages, cache_dir=fence_cache_dir(root))
        if module in self._index.modules:
            return self._index.relative_path(module)
        return module.replace(".", "/") + ".py"


__all__ = ["BoundaryContract", "edge_fingerprint"]

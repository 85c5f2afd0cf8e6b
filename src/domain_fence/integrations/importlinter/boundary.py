"""The ``boundary`` contract: import-linter's ``forbidden`` plus a baseline.

Baselined import edges are removed from the graph before the forbidden check runs,
exactly as ``ignore_imports`` would, so chains through them pass too. An entry whose
import no longer exists is stale and breaks the contract (or warns, or is ignored,
per ``unmatched_baseline_alerting``).
"""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter import ContractCheck
from importlinter.contracts.forbidden import ForbiddenContract

from domain_fence.core.baseline import BaselineEntry
from domain_fence.core.boundary import chain_finding, edge_fingerprint, parse_edge_fingerprint
from domain_fence.core.config import parse_boundary
from domain_fence.core.findings import Finding
from domain_fence.core.index import ProjectIndex
from domain_fence.core.modules import matches_any

from .base import FenceContract, current_root, shared_index


class BoundaryContract(FenceContract, ForbiddenContract):
    """Source modules must not import forbidden modules, directly or through chains.

    Options: those of import-linter's ``forbidden`` contract, plus ``baseline`` (path
    of the baseline file) and ``unmatched_baseline_alerting`` (error, warn, none).
    """

    type_name = "boundary"
    family = "boundary"
    parse_config = staticmethod(parse_boundary)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        recorded = self.load_baseline().fingerprints(self.contract_id)
        obsolete = [f for f in sorted(recorded) if not self.still_violates(graph, f)]
        stale = sorted(set(obsolete) | set(remove_edges(graph, set(recorded) - set(obsolete))))
        forbidden = ForbiddenContract.check(self, graph, verbose)
        findings = self.chain_findings(forbidden.metadata["invalid_chains"])
        baselined = sorted(recorded - set(stale))
        result = self.ratchet_result(findings, (), stale, {"invalid_chains": forbidden.metadata["invalid_chains"]})
        result.metadata["baselined_edges"] = baselined
        result.warnings = list(forbidden.warnings) + result.warnings
        result.ignored_import_count = forbidden.ignored_import_count
        return result

    def violations(self, graph: ImportGraph) -> list[BaselineEntry]:
        """Every import edge to baseline for this contract to pass on ``graph``.

        import-linter reports one shortest chain per (source, forbidden) pair; once its
        crossing link is set aside another chain may appear, so repeat until none does.
        """
        edges: set[str] = set()
        descriptions: dict[str, str] = {}
        while True:
            trial = deepcopy(graph)
            remove_edges(trial, edges)
            chains = ForbiddenContract.check(self, trial, False).metadata["invalid_chains"]
            found = {f.fingerprint: f for f in self.chain_findings(chains)}
            if not found.keys() - edges:
                break
            for fingerprint, finding in found.items():
                edges.add(fingerprint)
                descriptions.setdefault(fingerprint, f"{finding.code} {finding.message}")
        return sorted(BaselineEntry(self.contract_id, e, descriptions[e]) for e in edges)

    def chain_findings(self, invalid_chains: list[dict[str, Any]]) -> list[Finding]:
        """One finding per crossing link: chains through the same import are one
        violation, shown with the shortest of them."""
        path_of = _ModulePaths(self.root_packages)
        by_crossing: dict[str, Finding] = {}
        for pair in invalid_chains:
            for chain in pair["chains"]:
                finding = chain_finding(self.contract_id, chain, path_of, self.in_source)
                known = by_crossing.get(finding.fingerprint)
                if known is None or (len(finding.details), finding) < (len(known.details), known):
                    by_crossing[finding.fingerprint] = finding
        return sorted(by_crossing.values())

    def in_source(self, module: str) -> bool:
        return matches_any(module, self.config.source_modules)

    def still_violates(self, graph: ImportGraph, fingerprint: str) -> bool:
        """Whether a baselined import still exists and still starts a forbidden route:
        from a source module, to a forbidden module or to one that reaches it. An entry
        that no longer does is stale, even when the import itself remains."""
        edge = parse_edge_fingerprint(fingerprint)
        if edge is None or edge[0] not in graph.modules or edge[1] not in graph.modules:
            return False
        importer, imported = edge
        if not (self.in_source(importer) and graph.direct_import_exists(importer=importer, imported=imported)):
            return False
        reached = {imported}
        if not self.config.allow_indirect_imports:
            reached |= graph.find_upstream_modules(imported)
        return any(matches_any(module, self.config.forbidden_modules) for module in reached)


def remove_edges(graph: ImportGraph, fingerprints) -> list[str]:
    """Remove the boundary edges named by ``fingerprints``; return those not in the graph."""
    missing = []
    for fingerprint in sorted(fingerprints):
        edge = parse_edge_fingerprint(fingerprint)
        if edge and edge[0] in graph.modules and graph.direct_import_exists(importer=edge[0], imported=edge[1]):
            graph.remove_import(importer=edge[0], imported=edge[1])
        else:
            missing.append(fingerprint)
    return missing


class _ModulePaths:
    """Module name -> file relative to the project root, located only when asked."""

    def __init__(self, root_packages: list[str]) -> None:
        self.root_packages = root_packages
        self._index: ProjectIndex | None = None

    def __call__(self, module: str) -> str:
        if self._index is None:
            shared = shared_index.get()  # the run's index, when a front end shares one
            same = shared is not None and shared.root == current_root()
            self._index = shared if same else ProjectIndex.build(current_root(), self.root_packages)
        if module in self._index.modules:
            return self._index.relative_path(module)
        return module.replace(".", "/") + ".py"


__all__ = ["BoundaryContract", "edge_fingerprint"]

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

from .base import FenceContract, current_root


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
        stale = remove_edges(graph, recorded)
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
        first link is set aside another chain may appear, so repeat until none does.
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
        path_of = _ModulePaths(self.root_packages)
        return sorted(
            chain_finding(self.contract_id, chain, path_of)
            for pair in invalid_chains
            for chain in pair["chains"]
        )


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
            self._index = ProjectIndex.build(current_root(), self.root_packages)
        if module in self._index.modules:
            return self._index.relative_path(module)
        return module.replace(".", "/") + ".py"


__all__ = ["BoundaryContract", "edge_fingerprint"]

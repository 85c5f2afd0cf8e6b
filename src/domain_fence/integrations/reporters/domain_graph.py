"""The domains section of the Markdown report: a Mermaid graph of the imports that
cross from runtime to experiment code, with a legend and a table of the crossings.

The runtime groups (a boundary's sources) and the experiment groups (its forbidden
modules) are drawn as two subgraphs; only groups with a crossing are drawn, the others
are named in a line below. New crossings come first, red and solid; baselined ones
follow, grey and dotted. Labels stay short (a count) so that renderers keep them on
their arrows; the first importing module of each crossing is in the table.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from domain_fence.core.model.report import ContractResult, Report
from domain_fence.core.source.modules import ModuleExpression

RUNTIME, EXPERIMENT = "runtime", "experiment"
NEW_LINK_STYLE = "stroke:#cf222e,stroke-width:3px"
BASELINED_LINK_STYLE = "stroke:#8c959f,stroke-width:1px,stroke-dasharray:3 3"
NODE_STYLES = {RUNTIME: "fill:#ddf4ff,stroke:#0969da", EXPERIMENT: "fill:#fff8c5,stroke:#9a6700"}
LEGEND = (
    "Legend: **red solid** arrows are new crossing imports (they fail), **grey dotted** arrows "
    "baselined ones (recorded, they pass); each label counts imports. "
    "Blue boxes are runtime, yellow boxes experiment."
)


@dataclass(eq=False)  # a holder never compared: no __eq__ compiled on import
class Crossing:
    """The imports from one runtime group into one experiment group."""

    new: int = 0
    baselined: int = 0
    first_new: str = ""  # the first importing module, alphabetically
    first_baselined: str = ""

    def add(self, baselined: bool, count: int, first: str) -> None:
        if baselined:
            self.baselined += count
            self.first_baselined = min(self.first_baselined or first, first)
        else:
            self.new += count
            self.first_new = min(self.first_new or first, first)


@dataclass(eq=False)  # a holder never compared: no __eq__ compiled on import
class DomainGraph:
    """Module groups of boundary contracts by domain, and the crossings between them."""

    domains: dict[str, str] = field(default_factory=dict)  # group -> RUNTIME / EXPERIMENT
    crossings: dict[tuple[str, str], Crossing] = field(default_factory=lambda: defaultdict(Crossing))

    @classmethod
    def of(cls, report: Report) -> DomainGraph:
        graph = cls()
        for contract in report.contracts:
            if contract.domains is not None:
                graph.add_contract(contract)
        return graph

    def add_contract(self, contract: ContractResult) -> None:
        assert contract.domains is not None
        sources, forbidden = contract.domains.sources, contract.domains.forbidden
        for group in sources:
            self.domains.setdefault(group, RUNTIME)
        for group in forbidden:
            self.domains.setdefault(group, EXPERIMENT)
        for dependency in contract.dependencies:
            imports = {(chain[0].importer, chain[0].imported) for chain in dependency.chains}
            self._add(group_of(dependency.importer, sources), group_of(dependency.imported, forbidden), False, imports)
        for importer, imported in contract.baselined_edges:
            self._add(group_of(importer, sources), group_of(imported, forbidden), True, {(importer, imported)})

    def _add(self, source: str, target: str, baselined: bool, imports: set[tuple[str, str]]) -> None:
        self.domains.setdefault(source, RUNTIME)
        self.domains.setdefault(target, EXPERIMENT)
        self.crossings[source, target].add(baselined, len(imports), min(importer for importer, _ in imports))

    @property
    def new_links(self) -> list[tuple[str, str]]:
        return sorted(pair for pair, crossing in self.crossings.items() if crossing.new)

    @property
    def baselined_links(self) -> list[tuple[str, str]]:
        return sorted(pair for pair, crossing in self.crossings.items() if crossing.baselined)

    @property
    def drawn(self) -> list[str]:
        """The groups with a crossing, sorted."""
        return sorted({group for pair in self.crossings for group in pair})

    @property
    def left_out(self) -> list[str]:
        drawn = set(self.drawn)
        return sorted(group for group in self.domains if group not in drawn)

    def mermaid(self) -> list[str]:
        by_domain = {d: [group for group in self.drawn if self.domains[group] == d] for d in (RUNTIME, EXPERIMENT)}
        ordered = by_domain[RUNTIME] + by_domain[EXPERIMENT]
        ids = {group: f"n{number}" for number, group in enumerate(ordered, start=1)}
        lines = ["```mermaid", "graph LR"]
        for domain, members in by_domain.items():
            if members:
                lines.append(f'  subgraph {domain}_domain["{domain}"]')
                lines += [f'    {ids[group]}["{label(group)}"]' for group in members]
                lines.append("  end")
        new, baselined = self.new_links, self.baselined_links
        lines += [f'  {ids[s]} -->|"{self.crossings[s, t].new} new"| {ids[t]}' for s, t in new]
        lines += [f'  {ids[s]} -.->|"{self.crossings[s, t].baselined} baselined"| {ids[t]}' for s, t in baselined]
        for domain, style in NODE_STYLES.items():
            if by_domain[domain]:
                classed = ",".join(ids[group] for group in by_domain[domain])
                lines += [f"  classDef {domain} {style}", f"  class {classed} {domain}"]
        if new:
            lines.append(f"  linkStyle {','.join(str(i) for i in range(len(new)))} {NEW_LINK_STYLE}")
        if baselined:
            indexes = range(len(new), len(new) + len(baselined))
            lines.append(f"  linkStyle {','.join(str(i) for i in indexes)} {BASELINED_LINK_STYLE}")
        lines.append("```")
        return lines

    def table(self) -> list[str]:
        """The crossings, new ones first: what imports what, how often, from where."""
        rows = ["| from (runtime) | to (experiment) | new | baselined | first importer |", "|---|---|---:|---:|---|"]
        ordered = self.new_links + [pair for pair in self.baselined_links if not self.crossings[pair].new]
        for source, target in ordered:
            crossing = self.crossings[source, target]
            first = crossing.first_new or crossing.first_baselined
            rows.append(f"| `{source}` | `{target}` | {crossing.new} | {crossing.baselined} | `{first}` |")
        return rows


def domains_section(report: Report) -> list[str]:
    """The report's ``### Domains`` section; empty without a boundary contract."""
    graph = DomainGraph.of(report)
    if not graph.domains:
        return []
    lines = ["### Domains", ""]
    if not graph.crossings:
        return [*lines, f"No import crosses the domains ({_names(sorted(graph.domains))})."]
    lines += [*graph.mermaid(), "", LEGEND]
    if graph.left_out:
        lines += ["", f"Without a crossing, not drawn: {_names(graph.left_out)}."]
    return [*lines, "", *graph.table()]


def _names(groups: list[str]) -> str:
    return ", ".join(f"`{group}`" for group in groups)


def group_of(module: str, groups: tuple[str, ...]) -> str:
    """The declared group (module expression) ``module`` belongs to, else the module."""
    for group in groups:
        if ModuleExpression(group).matches(module):
            return group
    return module


def label(text: str) -> str:
    return text.replace('"', "#quot;")

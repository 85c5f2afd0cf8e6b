"""Markdown for a CI job page (``$GITHUB_STEP_SUMMARY``): counts per contract, the
findings table, each vocabulary contract's census, and a Mermaid graph of the domains
each boundary separates with the offending imports between them drawn and labelled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from domain_fence.core.census import Census, Tally
from domain_fence.core.findings import Finding
from domain_fence.core.modules import ModuleExpression
from domain_fence.core.report import ContractResult, Report

from .options import RenderOptions

NEW_EDGE_STYLE = "stroke:#cf222e,stroke-width:2px"
FOLDED_MODULES = 10  # a longer module table is folded in a <details> block


def render(report: Report, options: RenderOptions) -> str:
    summary = report.summary()
    if summary.broken:
        heading = f"## domain-fence: {summary.broken} of {summary.contracts} contracts broken"
    else:
        heading = f"## domain-fence: all {summary.contracts} contracts kept"
    parts = [heading, "", report.summary_line() + "."]
    if not options.quiet:
        parts += ["", *contracts_table(report)]
    if report.failing:
        parts += ["", "### Findings", "", *findings_table(report.failing)]
    baselined = [f for contract in report.contracts for f in contract.baselined]
    if options.verbose and baselined:
        parts += [
            "",
            "<details><summary>Baselined findings</summary>",
            "",
            *findings_table(sorted(baselined)),
            "",
            "</details>",
        ]
    if not options.quiet:
        for contract in report.contracts:
            if contract.census is not None:
                parts += ["", *census_section(contract, contract.census, options)]
    graph = DomainGraph.of(report)
    if graph.nodes and not options.quiet:
        parts += ["", "### Domains", "", *graph.mermaid()]
    return "\n".join(parts) + "\n"


def contracts_table(report: Report) -> list[str]:
    rows = ["| contract | type | status | new | baselined | stale |", "|---|---|---|---:|---:|---:|"]
    for c in report.contracts:
        status = "✅ kept" if c.kept else "❌ broken"
        counts = f"{len(c.findings)} | {len(c.baselined)} | {len(c.stale)}"
        rows.append(f"| {cell(c.name)} (`{cell(c.id)}`) | {cell(c.type)} | {status} | {counts} |")
    return rows


def findings_table(findings: Iterable[Finding]) -> list[str]:
    rows = ["| location | code | message | contract |", "|---|---|---|---|"]
    for f in findings:
        rows.append(
            f"| `{cell(f'{f.path}:{f.line}:{f.col + 1}')}` | {f.code} | {cell(f.message)} | {cell(f.contract)} |"
        )
    return rows


def census_section(contract: ContractResult, census: Census, options: RenderOptions) -> list[str]:
    """A vocabulary contract's leaks by module and by word, and its baseline's movement."""
    headline = census.describe()
    lines = [
        f"### Vocabulary census: {cell(contract.name)} (`{cell(contract.id)}`)",
        "",
        f"{headline[0].upper()}{headline[1:]}. Baseline: {census.baseline.describe()}.",
    ]
    fixed = census.baseline.fixed
    if fixed:
        entries, pronoun = ("entry", "it") if fixed == 1 else ("entries", "them")
        lines += [
            "",
            f"> {fixed} {entries} fixed since recording: "
            f"strike {pronoun} with `{options.prune_command}` and commit the baseline.",
        ]
    if not census.findings:
        return lines
    modules = tally_table("module", census.modules, code=True)
    if len(census.modules) > FOLDED_MODULES:
        modules = [f"<details><summary>{len(census.modules)} modules</summary>", "", *modules, "", "</details>"]
    return [*lines, "", *modules, "", *tally_table("word", census.words, code=False)]


def tally_table(what: str, tallies: tuple[Tally, ...], code: bool) -> list[str]:
    rows = [f"| {what} | findings |", "|---|---:|"]
    for tally in tallies:
        name = f"`{cell(tally.name)}`" if code else cell(tally.name)
        rows.append(f"| {name} | {tally.count} |")
    return rows


def cell(text: str) -> str:
    """Text safe inside a table cell: no row breaks, no column breaks, no HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("\n", " ")


@dataclass
class Edge:
    count: int = 0
    first: str = ""  # the first importing module, alphabetically

    def add(self, count: int, first: str) -> None:
        self.count += count
        self.first = min(self.first, first) if self.first else first


@dataclass
class DomainGraph:
    """Nodes are the module groups of boundary (and forbidden) contracts; edges are the
    imports that cross them: new ones solid and red, baselined ones dashed."""

    nodes: dict[str, str] = field(default_factory=dict)  # module group -> "source" / "forbidden"
    new: dict[tuple[str, str], Edge] = field(default_factory=lambda: defaultdict(Edge))
    baselined: dict[tuple[str, str], Edge] = field(default_factory=lambda: defaultdict(Edge))

    @classmethod
    def of(cls, report: Report) -> DomainGraph:
        graph = cls()
        for contract in report.contracts:
            if contract.domains is not None:
                graph.add_contract(contract)
        return graph

    def add_contract(self, contract: ContractResult) -> None:
        assert contract.domains is not None  # from_report passes only contracts with domains
        sources, forbidden = contract.domains.sources, contract.domains.forbidden
        for group in sources:
            self.nodes.setdefault(group, "source")
        for group in forbidden:
            self.nodes.setdefault(group, "forbidden")
        for dependency in contract.dependencies:
            firsts = sorted({chain[0].importer for chain in dependency.chains})
            imports = {(chain[0].importer, chain[0].imported) for chain in dependency.chains}
            edge = (group_of(dependency.importer, sources), group_of(dependency.imported, forbidden))
            self.nodes.setdefault(edge[0], "source")
            self.nodes.setdefault(edge[1], "forbidden")
            self.new[edge].add(len(imports), firsts[0])
        for importer, imported in contract.baselined_edges:
            edge = (group_of(importer, sources), group_of(imported, forbidden))
            self.nodes.setdefault(edge[0], "source")
            self.nodes.setdefault(edge[1], "forbidden")
            self.baselined[edge].add(1, importer)

    def mermaid(self) -> list[str]:
        ids = {group: f"n{number}" for number, group in enumerate(sorted(self.nodes), start=1)}
        lines = ["```mermaid", "graph LR"]
        lines += [f'  {ids[group]}["{label(group)}"]' for group in sorted(self.nodes)]
        new_edges = sorted(self.new.items())
        for (source, target), edge in new_edges:
            lines.append(
                f'  {ids[source]} -->|"{edge.count} {imports(edge.count)}, first {label(edge.first)}"| {ids[target]}'
            )
        for (source, target), edge in sorted(self.baselined.items()):
            lines.append(f'  {ids[source]} -.->|"{edge.count} baselined"| {ids[target]}')
        lines += ["  classDef source fill:#ddf4ff,stroke:#0969da", "  classDef forbidden fill:#fff8c5,stroke:#9a6700"]
        for kind in ("source", "forbidden"):
            members = [ids[group] for group in sorted(self.nodes) if self.nodes[group] == kind]
            if members:
                lines.append(f"  class {','.join(members)} {kind}")
        if new_edges:
            lines.append(f"  linkStyle {','.join(str(i) for i in range(len(new_edges)))} {NEW_EDGE_STYLE}")
        lines.append("```")
        return lines


def group_of(module: str, groups: tuple[str, ...]) -> str:
    """The declared group (module expression) ``module`` belongs to, else the module."""
    for group in groups:
        if ModuleExpression(group).matches(module):
            return group
    return module


def imports(count: int) -> str:
    return "import" if count == 1 else "imports"


def label(text: str) -> str:
    return text.replace('"', "#quot;")

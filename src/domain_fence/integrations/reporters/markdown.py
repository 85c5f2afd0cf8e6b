"""Markdown for a CI job page (``$GITHUB_STEP_SUMMARY``): counts per contract, the
baseline entries added since ``--ratchet-since``'s revision, the findings table, each vocabulary contract's census, and a Mermaid graph of the domains
each boundary separates with the imports crossing between them (:mod:`.domain_graph`).
"""

from __future__ import annotations

from collections.abc import Iterable

from domain_fence.core.model.census import Census, Tally
from domain_fence.core.model.findings import FINDING_ORDER, Finding
from domain_fence.core.model.report import ContractResult, Ratchet, Report

from .domain_graph import domains_section
from .options import RenderOptions

FOLDED_MODULES = 10  # a longer module table is folded in a <details> block


def render(report: Report, options: RenderOptions) -> str:
    parts = [heading(report), "", report.summary_line() + "."]
    if not options.quiet:
        parts += ["", *contracts_table(report)]
    if report.ratchet is not None and report.ratchet.added:
        parts += ["", *ratchet_section(report.ratchet)]
    if report.failing:
        parts += ["", "### Findings", "", *findings_table(report.failing_by_contracts())]
    failures = [f"- `{cell(c.id)}`: {cell(failure)}" for c in report.contracts for failure in c.failures]
    if failures:
        parts += ["", f"### Failures (in `{cell(report.config)}`)", "", *failures]
    baselined = [f for contract in report.contracts for f in contract.baselined]
    if options.verbose and baselined:
        parts += [
            "",
            "<details><summary>Baselined findings</summary>",
            "",
            *findings_table((f, (f.contract,)) for f in sorted(baselined, key=FINDING_ORDER)),
            "",
            "</details>",
        ]
    if not options.quiet:
        for contract in report.contracts:
            if contract.census is not None:
                parts += ["", *census_section(contract, contract.census, options)]
    domains = domains_section(report) if not options.quiet else []
    if domains:
        parts += ["", *domains]
    return "\n".join(parts) + "\n"


def heading(report: Report) -> str:
    """What the run says, ❌ first when it fails: contracts broken, or entries added to
    the baseline since ``--ratchet-since``'s revision (every contract kept even so)."""
    summary = report.summary()
    contracts = (
        f"{summary.broken} of {summary.contracts} contracts broken"
        if summary.broken
        else f"all {summary.contracts} contracts kept"
    )
    if report.ratchet is None or not report.ratchet.added:
        return f"## domain-fence: {'❌ ' if summary.broken else ''}{contracts}"
    entries = "baseline entry" if summary.ratchet_added == 1 else "baseline entries"
    added = f"{summary.ratchet_added} {entries} added since `{cell(report.ratchet.since)}`"
    return (
        f"## domain-fence: ❌ {contracts}, {added}" if summary.broken else f"## domain-fence: ❌ {added}; {contracts}"
    )


def ratchet_section(ratchet: Ratchet) -> list[str]:
    """The baseline entries added since the ratchet's revision, each at its line."""
    return [
        f"### Baseline entries added since `{cell(ratchet.since)}`",
        "",
        "The baseline may only shrink: fix the new findings instead of recording them.",
        "",
        *findings_table((f, (f.contract,)) for f in ratchet.added),
    ]


def contracts_table(report: Report) -> list[str]:
    rows = ["| contract | type | status | new | baselined | stale |", "|---|---|---|---:|---:|---:|"]
    for c in report.contracts:
        status = "✅ kept" if c.kept else "❌ broken"
        counts = f"{len(c.findings)} | {len(c.baselined)} | {len(c.stale)}"
        rows.append(f"| {cell(c.name)} (`{cell(c.id)}`) | {cell(c.type)} | {status} | {counts} |")
    return rows


def findings_table(findings: Iterable[tuple[Finding, tuple[str, ...]]]) -> list[str]:
    """One row per finding, naming every contract that reports it."""
    rows = ["| location | code | message | contract |", "|---|---|---|---|"]
    for f, contracts in findings:
        location = cell(f"{f.path}:{f.line}:{f.col + 1}")
        rows.append(f"| `{location}` | {f.code} | {cell(f.message)} | {cell(', '.join(contracts))} |")
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

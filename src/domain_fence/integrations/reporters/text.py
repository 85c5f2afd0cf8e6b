"""Plain text for a terminal or a CI log: per contract KEPT or BROKEN, each finding as a
greppable ``path:line:col: CODE message`` line with its import chain below it, and a
summary line.

With ``quiet`` only the finding lines are printed; with ``verbose`` baselined findings
are listed too.
"""

from __future__ import annotations

from domain_fence.core.report import ContractResult, Report

from .options import RenderOptions

CHAIN_INDENT = " " * 6


def render(report: Report, options: RenderOptions) -> str:
    if options.quiet:
        return "".join(finding.describe() + "\n" for finding in report.failing)
    lines: list[str] = []
    for result in report.contracts:
        lines += contract_lines(result, options)
    lines += ["", report.summary_line()]
    return "\n".join(lines) + "\n"


def contract_lines(result: ContractResult, options: RenderOptions) -> list[str]:
    status = "KEPT" if result.kept else "BROKEN"
    lines = [f"{result.name} [{result.id}: {result.type}] {status}"]
    for finding in result.failing:
        lines.append("  " + finding.describe())
        lines += [CHAIN_INDENT + detail for detail in finding.details]
    if result.guidance and not result.kept:
        lines += ["  " + line for line in result.guidance.strip().splitlines()]
    lines += [f"  warning: {warning}" for warning in result.warnings]
    if result.baselined:
        if options.verbose:
            lines += [f"  baselined: {finding.describe()}" for finding in result.baselined]
        else:
            count = len(result.baselined)
            verb = "passes" if count == 1 else "pass"
            lines.append(f"  {count} baselined finding{'s' if count != 1 else ''} {verb} (--verbose lists them)")
    return lines

"""Plain text for a terminal or a CI log: per contract KEPT or BROKEN, each finding as a
greppable ``path:line:col: CODE message`` line with its import chain below it, and a
summary line.

A vocabulary contract with leaks found or recorded ends with its census: the leaks
by module and by word, and how its baseline moved since it was recorded.

With ``quiet`` only the finding lines are printed, and each failure that is no finding
(``configuration: contract: failure``); with ``verbose`` baselined findings
(and every module of a census) are listed too.

What ``--ratchet-since`` found is no contract's: :func:`ratchet_text` renders it apart,
``baseline:line: message`` for each entry added and a closing line, for stderr (or
after the report in a file).
"""

from __future__ import annotations

from domain_fence.core.model.census import Census, Tally, plural
from domain_fence.core.model.report import ContractResult, Ratchet, Report

from .options import RenderOptions

CHAIN_INDENT = " " * 6
CENSUS_MODULES = 10  # modules listed without --verbose


def render(report: Report, options: RenderOptions) -> str:
    if options.quiet:
        failures = [f"{report.config}: {c.id}: {failure}" for c in report.contracts for failure in c.failures]
        return "".join(line + "\n" for line in [finding.describe() for finding in report.failing] + failures)
    lines: list[str] = []
    for result in report.contracts:
        lines += contract_lines(result, options)
    lines += ["", report.summary_line()]
    return "\n".join(lines) + "\n"


def ratchet_text(ratchet: Ratchet | None) -> str:
    """A report's :attr:`~Report.ratchet`: a line for each baseline entry added since its
    revision, then how many ('' for none)."""
    if ratchet is None or not ratchet.added:
        return ""
    lines = [f"{f.path}:{f.line}: {f.message}" for f in ratchet.added]
    lines.append(ratchet.closing_line())
    return "".join(line + "\n" for line in lines)


def contract_lines(result: ContractResult, options: RenderOptions) -> list[str]:
    status = "KEPT" if result.kept else "BROKEN"
    lines = [f"{result.name} [{result.id}: {result.type}] {status}"]
    for finding in result.failing:
        lines.append("  " + finding.describe())
        lines += [CHAIN_INDENT + detail for detail in finding.details]
    if result.guidance and not result.kept:
        lines += ["  " + line for line in result.guidance.strip().splitlines()]
    lines += [f"  error: {failure}" for failure in result.failures]
    lines += [f"  warning: {warning}" for warning in result.warnings]
    if result.suppressed:
        if options.verbose:
            lines += [f"  noqa: {finding.describe()}" for finding in result.suppressed]
        else:
            count = len(result.suppressed)
            lines.append(f"  {count} finding{'s' if count != 1 else ''} silenced by noqa (--verbose lists them)")
    if result.baselined:
        if options.verbose:
            lines += [f"  baselined: {finding.describe()}" for finding in result.baselined]
        else:
            count = len(result.baselined)
            verb = "passes" if count == 1 else "pass"
            lines.append(f"  {count} baselined finding{'s' if count != 1 else ''} {verb} (--verbose lists them)")
    if result.census is not None:
        lines += ["  " + line for line in census_lines(result.census, options)]
    return lines


def census_lines(census: Census, options: RenderOptions) -> list[str]:
    """A vocabulary contract's leaks by module and by word, and its baseline's movement."""
    lines = [f"census: {census.describe()}"]
    if census.findings:
        shown = census.modules if options.verbose else census.modules[:CENSUS_MODULES]
        lines += ["  by module:", *tally_lines(shown, width=_widest(census.modules))]
        if len(shown) < len(census.modules):
            hidden = len(census.modules) - len(shown)
            lines.append(f"    … {plural(hidden, 'more module')} (--verbose lists all)")
        lines += ["  by word:", *tally_lines(census.words, width=_widest(census.words))]
    lines.append(f"  baseline: {census.baseline.describe()}")
    fixed = census.baseline.fixed
    if fixed:
        pronoun = "it" if fixed == 1 else "them"
        lines.append(f"  {fixed} fixed since recording: strike {pronoun} with '{options.prune_command}'")
    return lines


def tally_lines(tallies: tuple[Tally, ...], width: int) -> list[str]:
    return [f"    {tally.count:>{width}}  {tally.name}" for tally in tallies]


def _widest(tallies: tuple[Tally, ...]) -> int:
    return max((len(str(tally.count)) for tally in tallies), default=1)

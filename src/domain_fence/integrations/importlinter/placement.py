"""The ``placement`` contract: symbols matching ``symbols`` are defined only under
``allowed_modules``.

It reads source files, not the import graph: importing or re-exporting a symbol is not
defining it. A pattern that matches no definition anywhere is a warning (a typo must
not pass silently), or breaks the contract with ``require_match = true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from rich.markup import escape

from domain_fence.core.baseline import BaselineEntry
from domain_fence.core.config import PlacementConfig, parse_placement
from domain_fence.core.placement import PlacementResult, check_placement

from .base import FenceContract


class RawOption(fields.Field[str | list[str]]):
    """An option passed through as written; ``parse_placement`` validates it, with
    every other option, and reports all problems at once."""

    def parse(self, raw_data: str | list[str]) -> str | list[str]:
        return raw_data


class PlacementContract(FenceContract[PlacementConfig]):
    """Module-level functions and classes whose names match ``symbols`` (fnmatch
    patterns, case-sensitive) may be defined only in ``allowed_modules``.

    Options: ``symbols``, ``allowed_modules`` (module expressions, ``*``/``**``),
    ``kinds`` (function, class; default both), ``require_match`` (default false),
    ``baseline`` and ``unmatched_baseline_alerting``.
    """

    type_name = "placement"
    family = "placement"
    needs_graph = False

    def parse_config(self, contract: str, name: str, options: Mapping[str, Any], root: Path) -> PlacementConfig:
        return parse_placement(contract, name, options, root)

    symbols = RawOption(required=True)
    allowed_modules = RawOption(required=True)
    kinds = RawOption(required=False)
    require_match = RawOption(required=False)

    def check(self, graph: ImportGraph | None, verbose: bool) -> ContractCheck:
        result = self.placement()
        unmatched = list(result.unmatched_patterns)
        check = self.ratchet_check(list(result.findings), {"unmatched_patterns": unmatched})
        if unmatched and self.config.require_match:
            check.kept = False
        elif unmatched:
            check.warnings = [escape(unmatched_message(p, self.config.kinds)) for p in unmatched] + check.warnings
        return check

    def placement(self) -> PlacementResult:
        return check_placement(self.config, self.project_index())

    def render_broken_contract(self, check: ContractCheck) -> None:
        failing = check.metadata.get("unmatched_patterns", []) if self.config.require_match else []
        for pattern in failing:
            output.console.print(
                unmatched_message(pattern, self.config.kinds) + " (require_match = true)",
                style="red",
                soft_wrap=True,
                markup=False,
                highlight=False,
            )
        super().render_broken_contract(check)

    def violations(self, graph: ImportGraph | None) -> list[BaselineEntry]:
        """The entries ``domain-fence baseline`` records: one per misplaced definition
        (and per unreadable file). Unmatched patterns are configuration mistakes, not
        violations, so they are never recorded."""
        return sorted(
            {BaselineEntry(self.contract_id, f.fingerprint, f"{f.code} {f.message}") for f in self.placement().findings}
        )


def unmatched_message(pattern: str, kinds: frozenset[str]) -> str:
    what = next(iter(kinds)) if len(kinds) == 1 else "function or class"
    return f"symbols: {pattern!r} matches no module-level {what}; is it misspelt?"


__all__ = ["PlacementContract", "unmatched_message"]

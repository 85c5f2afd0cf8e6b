"""The ``vocabulary`` contract: runtime events carry no experiment vocabulary.

It reads source files, not the import graph; findings are the same the flake8
plugin reports (DOM101-DOM104, DOM111-DOM113 as ``scope`` asks, DOM001 for a file
that cannot be parsed), split by the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter import ContractCheck, output

from domain_fence.core.baseline import BaselineEntry
from domain_fence.core.config import VocabularyConfig, parse_vocabulary
from domain_fence.core.events import all_vocabulary_findings, unmatched_event_bases, unmatched_module_expressions
from domain_fence.core.findings import Finding

from .base import FenceContract
from .placement import RawOption


class VocabularyContract(FenceContract[VocabularyConfig]):
    """Events defined in ``modules`` and deriving from ``event_bases`` must not use
    the experiment ``words`` in their field names, class names, kind strings, or the
    keywords runtime code passes when constructing them; with a wider ``scope``, no
    attribute, parameter or definition in ``modules`` may use them either.

    Options: ``modules`` (module expressions, ``*``/``**``), ``event_bases`` (dotted
    class paths; required when ``scope`` includes ``events``), ``words`` (one entry per
    line; ``a b -> c`` names a replacement), ``allow`` (identifiers exempted; a dotted
    entry such as ``GetGoodView.target`` exempts ``target`` only within
    ``GetGoodView``), ``kind_attributes`` (default ``KIND`` and ``kind``), ``scope``
    (any of ``events``, the default, ``attributes``, ``parameters``, ``definitions``),
    ``baseline`` and ``unmatched_baseline_alerting``.
    """

    type_name = "vocabulary"
    family = "vocabulary"
    needs_graph = False

    def parse_config(self, contract: str, name: str, options: Mapping[str, Any], root: Path) -> VocabularyConfig:
        return parse_vocabulary(contract, name, options, root)

    # All optional here: parse_vocabulary reports missing and invalid options together.
    modules = RawOption(required=False)
    event_bases = RawOption(required=False)
    words = RawOption(required=False)
    allow = RawOption(required=False)
    kind_attributes = RawOption(required=False)
    scope = RawOption(required=False)

    def check(self, graph: ImportGraph | None, verbose: bool) -> ContractCheck:
        index = self.project_index()
        unmatched = unmatched_module_expressions(self.config, index)
        missing_bases = unmatched_event_bases(self.config, index)
        metadata = {"unmatched_modules": unmatched, "unmatched_event_bases": missing_bases}
        check = self.ratchet_check(all_vocabulary_findings(self.config, index), metadata)
        if unmatched or missing_bases:
            check.kept = False
        return check

    def render_broken_contract(self, check: ContractCheck) -> None:
        problems = [unmatched_message(e) for e in check.metadata.get("unmatched_modules", [])]
        problems += [unmatched_base_message(b) for b in check.metadata.get("unmatched_event_bases", [])]
        for problem in problems:
            output.console.print(problem, style="red", soft_wrap=True, markup=False, highlight=False)
        super().render_broken_contract(check)

    def findings(self) -> list[Finding]:
        return all_vocabulary_findings(self.config, self.project_index())

    def violations(self, graph: ImportGraph | None) -> list[BaselineEntry]:
        """The entries ``domain-fence baseline`` records: one per finding fingerprint."""
        return sorted(
            {BaselineEntry(self.contract_id, f.fingerprint, f"{f.code} {f.message}") for f in self.findings()}
        )


def unmatched_message(expression: str) -> str:
    return f"modules: {expression!r} matches no module of the root packages; is it misspelt?"


def unmatched_base_message(base: str) -> str:
    return f"event_bases: {base!r} names no class of the project; is it misspelt?"


__all__ = ["VocabularyContract", "unmatched_base_message", "unmatched_message"]

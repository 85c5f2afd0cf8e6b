"""The vocabulary family: runtime events (and, with a wider ``scope``, the runtime's
attributes, parameters and definitions) carry no experiment vocabulary.

The rules themselves live in :mod:`..events` (DOM101-DOM104) and
:mod:`..declarations` (DOM111-DOM113); this module is their face to the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from domain_fence.core.families.base import Context, Option, ProjectOutcome
from domain_fence.core.families.config import EVENTS_SCOPE, VocabularyConfig, parse_vocabulary
from domain_fence.core.families.vocabulary.events import (
    VocabularyChecker,
    hint_flows,
    prefetch_covered,
    unmatched_event_bases,
    unmatched_module_expressions,
)
from domain_fence.core.families.vocabulary.mixins import Mixins, Place, Statement
from domain_fence.core.families.vocabulary.prefilter import Prefilter
from domain_fence.core.model.findings import Finding

# The view of a module the contract did not read (see VocabularyChecker.passed_over).
PASSED_OVER = ("passed over",)


class VocabularyFamily:
    name = "vocabulary"
    needs_graph = False
    census = True  # reports count its leaks by module and word
    options: tuple[Option, ...] = (
        Option("modules", "where runtime events live: module expressions (`*` one segment, `**` one or more)"),
        Option("exclude_modules", "module expressions inside `modules` that are not checked"),
        Option("event_bases", "dotted paths of the event base classes (needed with the `events` scope)"),
        Option("words", "experiment words, one entry per line; `a -> b` names a replacement"),
        Option("allow", "identifiers exempted; a dotted entry exempts within that module, class or function"),
        Option("kind_attributes", "class attributes holding an event's kind string (default KIND, kind)"),
        Option("scope", "events (default), attributes, parameters, definitions"),
        Option(
            "emit_functions",
            "callees whose keyword arguments (and mappings unpacked) are an emitted event's fields and kind "
            "(DOM103-DOM105; values given by position too), `*` wildcards",
        ),
    )

    def parse(self, contract: str, name: str, raw: Mapping[str, Any], root: Path) -> VocabularyConfig:
        return parse_vocabulary(contract, name, raw, root)

    def problems(self, config: VocabularyConfig, context: Context) -> list[str]:
        # Before any contract parses the covered files (the boundary's may come first).
        hint_flows(config, context.index)
        problems = [
            f"modules: {expression!r} matches no module of the root packages; is it misspelt?"
            for expression in unmatched_module_expressions(config, context.index)
        ]
        problems += [
            f"exclude_modules: {str(expression)!r} matches no module of the root packages; is it misspelt?"
            for expression in config.exclude_modules
            if not expression.matches_some([*context.index.modules.keys(), *context.index.skipped_names()])
        ]
        if not problems and context.index.modules and not any(map(config.covers, context.index.modules)):
            # Kept whatever the project holds: a problem of the configuration, not a pass.
            problems.append("exclude_modules: no module is left to check once they are taken out of modules")
        problems += [
            f"event_bases: {base!r} names no class of the project; is it misspelt?"
            for base in unmatched_event_bases(config, context.index)
        ]
        # It tells the index which files its declaration scopes read (once the event
        # bases' modules, which it resolves, are read, together).
        self.checker(config, context)
        return problems

    def covered(self, config: VocabularyConfig, context: Context) -> list[str]:
        """The modules the contract covers (a mixin of their events is reported where it
        is declared when the contract covers it, else where a covered class inherits it)."""
        if EVENTS_SCOPE in config.scope:  # which of them are read is known before any is (see .prefilter)
            self.checker(config, context).covered()
        return sorted(module for module in context.index.modules if config.covers(module))

    def prepare(self, config: VocabularyConfig, context: Context, modules: list[str]) -> None:
        checker = self.checker(config, context)
        prefetch_covered(config, context.index, among=modules, accepts=checker.accepts)
        checker.read_ahead_flows(module for module in modules if checker.accepts(module))

    def check_module(self, config: VocabularyConfig, context: Context, module: str) -> list[Finding]:
        return sorted(self.checker(config, context).module(module))

    def checker(self, config: VocabularyConfig, context: Context) -> VocabularyChecker:
        # Asked for every module checked: found by the configuration's identity first,
        # since hashing it hashes every word and module expression.
        same = context.memo.get(("vocabulary-checker-of", id(config)))
        if same is not None and same[0] is config:
            return same[1]  # type: ignore[no-any-return]
        key = ("vocabulary-checker", config)
        if key not in context.memo:
            context.memo[key] = VocabularyChecker(config, context.index)
        checker: VocabularyChecker = context.memo[key]
        context.memo[("vocabulary-checker-of", id(config))] = (config, checker)
        return checker

    def module_view(self, config: VocabularyConfig, context: Context, module: str, read: bool) -> object:
        checker = self.checker(config, context)
        if checker.passed_over(module):
            return PASSED_OVER
        facts = context.index.file_facts(module) if read else context.index.known_facts(module)
        if facts is None:
            return ("no source",) if read else None
        return checker.view(facts)

    def answers(self, config: VocabularyConfig, context: Context) -> object:
        checker = self.checker(config, context)
        mixins = (tuple(checker.mixins.receiver.items()), tuple(checker.mixins.borrowed.items()))
        consulted = tuple(
            sorted((module, tuple(sorted(names))) for module, names in checker.consulted.items() if names)
        )
        prefilter = checker.prefilter
        kept: tuple[tuple[str, ...], bool, tuple[str, ...]] | None = None
        read: tuple[str, ...] = ()
        if prefilter is not None:
            # What decided which files are read, and the files read all the same: a later
            # run gives a changed file the view this run gave it (see module_view).
            spellings = tuple(spelling.decode() for spelling in prefilter.spellings)
            kept = (tuple(sorted(prefilter.names)), prefilter.everything, spellings)
            read = tuple(sorted(checker.resolver.read | checker.read_before))
        return (mixins, consulted, kept, read)

    def reuse_answers(self, config: VocabularyConfig, context: Context, answers: object) -> None:
        mixins: tuple[tuple[tuple[Place, str], ...], tuple[tuple[Statement, tuple[Place, ...]], ...]]
        consulted: tuple[tuple[str, tuple[str, ...]], ...]
        kept: tuple[tuple[str, ...], bool, tuple[str, ...]] | None
        read: tuple[str, ...]
        mixins, consulted, kept, read = answers  # type: ignore[misc]
        checker = self.checker(config, context)
        receivers, borrowed = mixins
        checker.use_mixins(Mixins(dict(receivers), dict(borrowed)))
        for module, names in consulted:
            checker.consulted.setdefault(module, set()).update(names)
        if kept is not None:
            names, everything, spellings = kept
            found = Prefilter(frozenset(names), everything, tuple(s.encode() for s in spellings), None)
            checker.use_prefilter(found, frozenset(read))

    def outcome(self, config: VocabularyConfig, context: Context, findings: list[Finding]) -> ProjectOutcome:
        return ProjectOutcome(tuple(findings))


VOCABULARY = VocabularyFamily()

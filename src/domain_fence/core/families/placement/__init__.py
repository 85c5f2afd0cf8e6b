"""The placement family: symbols matching ``symbols`` are defined only under
``allowed_modules``; the rule itself (DOM201) lives in :mod:`..placement`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from domain_fence.core.families.base import Context, Option, ProjectOutcome
from domain_fence.core.families.config import PlacementConfig, parse_placement
from domain_fence.core.families.placement.definitions import (
    PlacementResult,
    bytes_filter,
    check_placement,
    facts_definitions,
    matched_patterns,
    module_placement_findings,
    passes_filter,
    prefetch_candidates,
)
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.findings import Finding
from domain_fence.core.source.modules import matches_any
from domain_fence.core.source.reading import read_file


class PlacementFamily:
    name = "placement"
    needs_graph = False
    options: tuple[Option, ...] = (
        Option("symbols", "fnmatch patterns (case-sensitive) on the names of definitions", required=True),
        Option("allowed_modules", "module expressions where those may be defined", required=True),
        Option("kinds", "function, class, method (default all)"),
        Option("require_match", "true: fail, not just warn, when a pattern matches no definition"),
        Option("unmatched_symbols_alerting", "warn (default), error (as require_match) or none"),
    )

    def parse(self, contract: str, name: str, raw: Mapping[str, Any], root: Path) -> PlacementConfig:
        return parse_placement(contract, name, raw, root)

    def problems(self, config: PlacementConfig, context: Context) -> list[str]:
        modules = context.index.modules
        if modules and all(matches_any(module, config.allowed_modules) for module in modules):
            # Kept whatever the project defines: a problem of the configuration, not a pass.
            return [
                "allowed_modules: every module of the root packages is allowed; no definition can break the contract"
            ]
        return []

    def covered(self, config: PlacementConfig, context: Context) -> list[str]:
        return list(context.index.modules)

    def prepare(self, config: PlacementConfig, context: Context, modules: list[str]) -> None:
        # The bytes prefilter decides which files are parsed at all; those outside the
        # allowed modules are parsed together. An allowed module's file is parsed only
        # while a pattern it may define is matched nowhere yet (check_placement).
        index = context.index
        allowed = {module for module in modules if matches_any(module, config.allowed_modules)}
        outside = prefetch_candidates(index, [m for m in modules if m not in allowed], config.symbols)
        could_match = bytes_filter(config.symbols)
        candidates = outside + [
            m for m in modules if m in allowed and passes_filter(index, m, config.symbols, could_match)
        ]
        # Which files the filter let through: a module's view need not read it again.
        _memo(context, config).judged = (frozenset(modules), frozenset(candidates))
        if index.modules.keys() <= set(modules):
            # The whole project, as a check asks: the project-wide scan now, from the
            # candidates just found, and each module's findings taken from it.
            self._keep_scan(config, context, check_placement(config, index, outside))

    def check_module(self, config: PlacementConfig, context: Context, module: str) -> list[Finding]:
        if not matches_any(module, config.allowed_modules):
            scanned = _memo(context, config).scan
            if scanned is not None and not context.index.has_buffer(module):
                return list(scanned.outside_findings.get(module, ()))
            return module_placement_findings(config, context.index, module)
        known = context.index.known_facts(module)
        if known is not None and known.unreadable is None:
            return []  # only an unreadable allowed module can be a finding
        # An unreadable allowed module is a finding when it may hide a pattern's only match.
        path = context.index.relative_path(module) if module in context.index.modules else ""
        return [f for f in self.scan(config, context).findings if f.code == "DOM001" and f.path == path]

    def scan(self, config: PlacementConfig, context: Context) -> PlacementResult:
        result = _memo(context, config).scan
        if result is None:
            result = self._keep_scan(config, context, check_placement(config, context.index))
        return result

    def _keep_scan(self, config: PlacementConfig, context: Context, result: PlacementResult) -> PlacementResult:
        memo = _memo(context, config)
        memo.scan, memo.examined = result, frozenset(result.examined)
        return result

    def module_view(self, config: PlacementConfig, context: Context, module: str, read: bool) -> object:
        """The patterns the module's definitions match, or that it cannot be read: all
        that the project-wide answers (which patterns match nothing, which unreadable
        allowed module may hide a match) read of it. ``read`` makes no difference:
        every file's bytes are read, to skip those that cannot match.

        An allowed module the check did not read (:meth:`answers`: the modules it read)
        has for its view the patterns its bytes may define: it was not read because
        each of them was matched already, by a module whose own view is what it
        matches, so while that module's view and these patterns stay as they are, no
        answer can change. Whether another contract parsed it makes no difference."""
        index = context.index
        facts = index.known_facts(module)
        buffer = index.has_buffer(module)
        memo = _memo(context, config)
        judged = memo.judged
        if facts is None and not buffer and judged and module in judged[0] and module not in judged[1]:
            return ()  # its file cannot define a match (read in this run: unchanged since)
        examined = memo.examined
        allowed = matches_any(module, config.allowed_modules)
        not_read = allowed and examined is not None and module not in examined and not buffer
        if facts is None or facts.unreadable is not None or not_read:
            data = None if buffer else _bytes(index, module)
            if data is not None and not bytes_filter(config.symbols)(data):
                return ()
            if data is not None and not_read:
                return ("not read", tuple(p for p in config.symbols if bytes_filter((p,))(data)))
            facts = index.file_facts(module)
            if facts is None:
                return ()
        if facts.unreadable is not None:
            return ("unreadable",)
        scanned = memo.scan
        if scanned is not None and not allowed and not buffer:
            # The scan found every definition of it that matches a pattern.
            definitions = list(scanned.outside_matches.get(module, ()))
        else:
            definitions = facts_definitions(module, "", facts)
        kept = [d for d in definitions if d.counted_in(config.kinds)]
        matched = {
            pattern for d in kept for pattern in matched_patterns(d.name, d.owner, tuple(config.symbols), d.renames)
        }
        return tuple(pattern for pattern in config.symbols if pattern in matched)

    def answers(self, config: PlacementConfig, context: Context) -> object:
        """The allowed modules the check read (what decides their views' form)."""
        examined = _memo(context, config).examined
        return None if examined is None else tuple(sorted(examined))

    def reuse_answers(self, config: PlacementConfig, context: Context, answers: object) -> None:
        if isinstance(answers, tuple) and all(isinstance(module, str) for module in answers):
            memo = _memo(context, config)
            if memo.examined is None:
                memo.examined = frozenset(answers)

    def outcome(self, config: PlacementConfig, context: Context, findings: list[Finding]) -> ProjectOutcome:
        unmatched = self.scan(config, context).unmatched_patterns
        messages = tuple(unmatched_message(pattern, config.kinds) for pattern in unmatched)
        if config.unmatched == "error":
            why = "require_match = true" if config.require_match else "unmatched_symbols_alerting = error"
            return ProjectOutcome(tuple(findings), failures=tuple(f"{m} ({why})" for m in messages))
        if config.unmatched == "warn":
            return ProjectOutcome(tuple(findings), warnings=messages)
        return ProjectOutcome(tuple(findings))


def unmatched_message(pattern: str, kinds: frozenset[str]) -> str:
    if "." in pattern:
        what = "method or class-level binding"  # only those have a qualified name
    else:
        names = [kind for kind in ("function", "class", "method") if kind in kinds] + ["binding"]
        what = " or ".join([", ".join(names[:-1]), names[-1]])
    return f"symbols: {pattern!r} matches no {what}; is it misspelt?"


PLACEMENT = PlacementFamily()


class _Memo:
    """What the check of one contract learnt of the project, kept until it changes."""

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    __slots__ = ("examined", "judged", "scan")

    def __init__(self) -> None:
        # the modules prepare judged, and those of them the bytes filter let through
        self.judged: tuple[frozenset[str], frozenset[str]] | None = None
        self.scan: PlacementResult | None = None
        self.examined: frozenset[str] | None = None  # the allowed modules the scan read


def _memo(context: Context, config: PlacementConfig) -> _Memo:
    """The contract's :class:`_Memo`: asked for every module, so found by the
    configuration's identity first (hashing it hashes every pattern and expression)."""
    same = context.memo.get(("placement-of", id(config)))
    if same is not None and same[0] is config:
        return same[1]  # type: ignore[no-any-return]
    memo = context.memo.setdefault(("placement", config), _Memo())
    context.memo[("placement-of", id(config))] = (config, memo)
    return memo  # type: ignore[no-any-return]


def _bytes(index: ProjectIndex, module: str) -> bytes | None:
    path = index.modules.get(module)
    try:
        return read_file(path) if path is not None else None
    except OSError:
        return None

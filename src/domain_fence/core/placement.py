"""Where symbols are defined: module-level functions and classes, and the ``placement``
rule (DOM201) that some of them live only under allowed modules.

Only *definitions* count. ``from x import init_telemetry`` or a re-export in an
``__init__`` binds a name without defining anything, and a method is not a
module-level symbol. A definition inside an ``if``/``try``/``with``/``for``/``while``/
``match`` block at module level is module-level: it binds a module global.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from .config import PlacementConfig
from .findings import Finding, sorted_findings
from .index import ProjectIndex
from .modules import matches_any
from .rules import get_rule
from .source import Unreadable

_KINDS = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class"}


@dataclass(frozen=True, order=True)
class Definition:
    """A module-level function or class: where it is, what it is, what it is called."""

    module: str
    path: str  # posix, relative to the project root
    line: int  # 1-based line of the ``def``/``class`` keyword (after any decorators)
    col: int  # 0-based column of that keyword (of ``async`` for ``async def``)
    kind: str  # "function" or "class"
    name: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def qualified_name(self) -> str:
        return f"{self.module}.{self.name}"


def definitions_in(module: str, path: str, tree: ast.Module) -> list[Definition]:
    """Every module-level function and class of ``tree``, in source order."""
    return [
        Definition(module, path, node.lineno, node.col_offset, _KINDS[type(node)], node.name)
        for node in _module_level_definitions(tree.body)
    ]


def _module_level_definitions(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if type(node) in _KINDS:
            yield node  # its body is a new scope: nothing in it is module-level
        elif isinstance(node, ast.Match):
            for case in node.cases:
                yield from _module_level_definitions(case.body)
        else:
            # if/try/with/for/while blocks run in the module's scope.
            for block in ("body", "orelse", "finalbody"):
                yield from _module_level_definitions(getattr(node, block, ()))
            for handler in getattr(node, "handlers", ()):
                yield from _module_level_definitions(handler.body)


def matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def bytes_filter(patterns: Iterable[str]) -> Callable[[bytes], bool]:
    """A cheap test of a file's bytes: False only when no name in the file can match.

    A name matching ``*PostEpisode*`` contains the bytes ``PostEpisode``, so a file
    without them is never parsed. Non-ASCII files are always parsed: identifiers are
    NFKC-normalised, so their bytes need not spell the name.
    """
    needles = [_longest_literal(pattern).encode() for pattern in patterns]
    if any(not needle for needle in needles):
        return lambda data: True
    return lambda data: not data.isascii() or any(needle in data for needle in needles)


def _longest_literal(pattern: str) -> str:
    """The longest run of ``pattern`` every matching name contains verbatim.

    Bracket sets have subtle edge cases (``[]a]``), so only the part before the first
    ``[`` is used: a shorter literal only means fewer files are skipped.
    """
    before_brackets = pattern.split("[", 1)[0]
    return max(re.split(r"[*?]", before_brackets), key=len)


@dataclass(frozen=True)
class Scan:
    """Definitions whose names match, and the files that could not be analysed."""

    definitions: tuple[Definition, ...]
    unreadable: tuple[Finding, ...]  # DOM001, one per file that might hold a match


def scan_definitions(index: ProjectIndex, patterns: Sequence[str], contract: str = "") -> Scan:
    """Every module-level definition in the project whose name matches a pattern."""
    could_match = bytes_filter(patterns)
    found: list[Definition] = []
    unreadable: list[Finding] = []
    for module in index.modules:
        scan = _scan_module(index, module, patterns, could_match, contract)
        found += scan.definitions
        unreadable += scan.unreadable
    return Scan(tuple(sorted(found)), tuple(sorted(unreadable)))


def _scan_module(
    index: ProjectIndex, module: str, patterns: Sequence[str], could_match: Callable[[bytes], bool], contract: str
) -> Scan:
    file = index.modules.get(module)
    if file is None or file.is_dir():
        return Scan((), ())  # unknown, or a namespace package root without source
    try:
        if not could_match(file.read_bytes()):
            return Scan((), ())
    except OSError:
        pass  # the index reads it again and reports why it cannot
    tree = index.tree(module)
    if isinstance(tree, Unreadable):
        return Scan((), (unreadable_finding(index, module, tree, contract),))
    if tree is None:
        return Scan((), ())
    definitions = definitions_in(module, index.relative_path(module), tree)
    return Scan(tuple(d for d in definitions if matches(d.name, patterns)), ())


def unreadable_finding(index: ProjectIndex, module: str, problem: Unreadable, contract: str = "") -> Finding:
    return Finding(
        path=index.relative_path(module),
        line=problem.line,
        col=0,
        code="DOM001",
        message=get_rule("DOM001").format(reason=problem.reason),
        symbol=module,
        fingerprint=f"DOM001:{module}",
        contract=contract,
    )


@dataclass(frozen=True)
class PlacementResult:
    findings: tuple[Finding, ...]  # DOM201 for misplaced definitions, DOM001 for unreadable files
    unmatched_patterns: tuple[str, ...]  # patterns matching no definition of the allowed kinds


def check_placement(config: PlacementConfig, index: ProjectIndex) -> PlacementResult:
    """Check one placement contract over the whole project."""
    scan = scan_definitions(index, config.symbols, config.contract)
    relevant = [d for d in scan.definitions if d.kind in config.kinds]
    unmatched = tuple(p for p in config.symbols if not any(fnmatchcase(d.name, p) for d in relevant))
    findings = placement_findings(config, relevant)
    return PlacementResult(tuple(sorted_findings([*findings, *scan.unreadable])), unmatched)


def placement_findings(config: PlacementConfig, definitions: Iterable[Definition]) -> list[Finding]:
    """DOM201 for each of ``definitions`` the contract does not allow where it is."""
    rule = get_rule("DOM201")
    allowed = ", ".join(str(expression) for expression in config.allowed_modules)
    return sorted(
        Finding(
            path=d.path,
            line=d.line,
            col=d.col,
            code=rule.code,
            message=rule.format(kind=d.kind, name=d.name, allowed=allowed),
            symbol=d.qualified_name,
            fingerprint=f"{rule.code}:{d.module}:{d.name}",
            contract=config.contract,
        )
        for d in definitions
        if d.kind in config.kinds
        and matches(d.name, config.symbols)
        and not matches_any(d.module, config.allowed_modules)
    )


def module_placement_findings(config: PlacementConfig, index: ProjectIndex, module: str) -> list[Finding]:
    """The findings of one contract in one module: the per-file view flake8 reports,
    exactly the project-wide check's findings for that module."""
    scan = _scan_module(index, module, config.symbols, bytes_filter(config.symbols), config.contract)
    return sorted([*placement_findings(config, scan.definitions), *scan.unreadable])

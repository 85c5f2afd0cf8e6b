"""Boundary findings: import chains from source to forbidden modules, identified by
their crossing link, the import that leaves the source modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .config import BoundaryConfig
from .findings import Finding
from .index import ProjectIndex
from .modules import matches_any
from .pyfacts import ImportFact
from .rules import get_rule

PREFIX = "boundary:"


def edge_fingerprint(importer: str, imported: str) -> str:
    return f"{PREFIX}{importer}->{imported}"


def parse_edge_fingerprint(fingerprint: str) -> tuple[str, str] | None:
    """``(importer, imported)`` for a boundary fingerprint, None for any other."""
    if not fingerprint.startswith(PREFIX):
        return None
    importer, arrow, imported = fingerprint[len(PREFIX) :].partition("->")
    return (importer, imported) if arrow and importer and imported else None


def format_link(importer: str, imported: str, line_numbers: Sequence[int]) -> str:
    lines = ", ".join(f"l.{n}" for n in sorted(line_numbers)) or "l.?"
    return f"{importer} -> {imported} ({lines})"


def crossing_link(chain: Sequence[Mapping[str, Any]], in_source: Callable[[str], bool] | None = None) -> int:
    """The index of the link where the chain leaves the source modules: the last link
    whose importer is a source module (the first link when ``in_source`` is None).

    That import is the violation: in ``runtime.a -> runtime.b -> experiment`` it is
    ``runtime.b -> experiment``, and setting it aside clears every chain through it;
    in ``runtime.a -> shared -> experiment`` it is ``runtime.a -> shared``.
    """
    if in_source is None:
        return 0
    inside = [i for i, link in enumerate(chain) if in_source(link["importer"])]
    return inside[-1] if inside else 0


def chain_finding(
    contract: str,
    chain: Sequence[Mapping[str, Any]],
    path_of: Callable[[str], str],
    in_source: Callable[[str], bool] | None = None,
) -> Finding:
    """The finding for one chain of ``{importer, imported, line_numbers}`` links,
    placed and fingerprinted at its crossing link (see :func:`crossing_link`).

    ``path_of(module)`` gives the module's file relative to the project root.
    """
    crossing = chain[crossing_link(chain, in_source)]
    rest = chain[chain.index(crossing) :]
    importer, imported = crossing["importer"], crossing["imported"]
    line = min(crossing["line_numbers"], default=1)
    if len(rest) == 1:
        code = "DOM301"
        message = get_rule(code).format(importer=importer, imported=imported)
    else:
        code = "DOM302"
        via = " -> ".join(link["imported"] for link in rest[:-1])
        message = get_rule(code).format(importer=importer, imported=rest[-1]["imported"], chain=via)
    return Finding(
        path=path_of(importer),
        line=line,
        col=0,
        code=code,
        message=message,
        symbol=importer,
        fingerprint=edge_fingerprint(importer, imported),
        contract=contract,
        details=tuple(format_link(link["importer"], link["imported"], link["line_numbers"]) for link in chain),
    )


def direct_import_findings(
    config: BoundaryConfig, index: ProjectIndex, module: str, exclude_type_checking: bool = False
) -> list[Finding]:
    """DOM301 for each import in ``module`` that leaves a source module for a forbidden
    one: the per-file view of a boundary contract (indirect chains need the graph).

    Imports are named the way grimp names them, so ``ignore_imports`` and the baseline
    match the same edges as in ``lint-imports``: ``from a import b`` is an import of
    ``a.b`` when that is a module and of ``a`` otherwise, and a module outside the
    project counts as its top-level package.
    """
    if not matches_any(module, config.source_modules):
        return []
    facts = index.file_facts(module)
    if facts is None or facts.unreadable is not None:
        return []
    findings = []
    for fact in facts.imports:
        if exclude_type_checking and fact.type_checking:
            continue
        imported = _imported_module(fact, index)
        if imported == module or not matches_any(imported, config.forbidden_modules):
            continue
        if any(expression.matches(module, imported) for expression in config.ignore_imports):
            continue
        findings.append(
            Finding(
                path=index.relative_path(module),
                line=fact.line,
                col=fact.col,
                code="DOM301",
                message=get_rule("DOM301").format(importer=module, imported=imported),
                symbol=module,
                fingerprint=edge_fingerprint(module, imported),
                contract=config.contract,
            )
        )
    return sorted(set(findings))


def _imported_module(fact: ImportFact, index: ProjectIndex) -> str:
    """The module an import reaches: ``from a import b`` reaches ``a.b`` when that is a
    module of the project, else ``a``."""
    if fact.name is not None:
        submodule = f"{fact.source}.{fact.name}"
        if submodule in index.modules:
            return submodule
    return _project_module(fact.source, index)


def _project_module(name: str, index: ProjectIndex) -> str:
    """The module an import of ``name`` reaches, as grimp records it."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in index.modules:
            return candidate
    return parts[0]  # outside the project: grimp squashes it to its top-level package

"""What must hold before a per-file view of the contracts means anything.

``lint-imports`` and ``domain-fence check`` fail when a root package cannot be found,
a boundary names a module that does not exist, or a vocabulary contract's modules or
event bases match nothing. A front end that only sees one file at a time (flake8)
would instead find nothing wrong in every file and pass: it asks here first.
"""

from __future__ import annotations

from typing import Any

from domain_fence.core.events import unmatched_event_bases, unmatched_module_expressions
from domain_fence.core.index import ProjectIndex

from .base import FenceContract
from .configuration import Configuration
from .vocabulary import unmatched_base_message, unmatched_message


def preflight_problems(
    configuration: Configuration, contracts: list[FenceContract[Any]], index: ProjectIndex
) -> list[str]:
    """One line per problem, each naming the file, the section and the option."""
    path = configuration.path
    if index.missing:
        return [
            f"{path}: [importlinter] root_packages: cannot find {', '.join(sorted(index.missing))} "
            f"(looked in {configuration.root}, its src/ and sys.path)"
        ]
    problems = []
    for contract in contracts:
        section = configuration.section(contract.contract_options)
        if contract.family == "boundary":
            problems += [
                f"{path}: {section} {line}" for line in _missing_boundary_modules(contract, configuration, index)
            ]
        elif contract.family == "vocabulary":
            problems += [
                f"{path}: {section} {unmatched_message(e)}"
                for e in unmatched_module_expressions(contract.config, index)
            ]
            problems += [
                f"{path}: {section} {unmatched_base_message(b)}" for b in unmatched_event_bases(contract.config, index)
            ]
    return problems


def _missing_boundary_modules(
    contract: FenceContract[Any], configuration: Configuration, index: ProjectIndex
) -> list[str]:
    """Plain module names of the project that do not exist, as import-linter's
    ``forbidden`` reports them (a wildcard may match nothing; an external module
    may be absent)."""
    roots = configuration.root_packages
    missing = []
    for option in ("source_modules", "forbidden_modules"):
        for expression in getattr(contract.config, option):
            name = str(expression)
            inside = any(name == root or name.startswith(root + ".") for root in roots)
            if expression.has_wildcard or not inside or name in index.modules:
                continue
            missing.append(f"{option}: module {name!r} does not exist")
    return missing

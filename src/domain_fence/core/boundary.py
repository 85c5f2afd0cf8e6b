"""Boundary findings: import chains from source to forbidden modules, identified by
their first link, the import that leaves the source package."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .findings import Finding
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


def chain_finding(contract: str, chain: Sequence[Mapping], path_of) -> Finding:
    """The finding for one chain of ``{importer, imported, line_numbers}`` links.

    ``path_of(module)`` gives the module's file relative to the project root.
    """
    first, last = chain[0], chain[-1]
    importer, imported = first["importer"], first["imported"]
    line = min(first["line_numbers"], default=1)
    if len(chain) == 1:
        code = "DOM301"
        message = get_rule(code).format(importer=importer, imported=imported)
    else:
        code = "DOM302"
        via = " -> ".join(link["imported"] for link in chain[:-1])
        message = get_rule(code).format(importer=importer, imported=last["imported"], chain=via)
    return Finding(
        path=path_of(importer),
        line=line,
        col=0,
        code=code,
        message=message,
        symbol=importer,
        fingerprint=edge_fingerprint(importer, imported),
        contract=contract,
        details=tuple(format_link(l["importer"], l["imported"], l["line_numbers"]) for l in chain),
    )

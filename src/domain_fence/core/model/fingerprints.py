"""Every fingerprint, built and parsed in one place.

A fingerprint identifies a finding without its line, so a baseline entry survives
edits around it. The on-disk shapes are part of the baseline format and never change:
``CODE:module:rest`` for a finding located in a module's source (``rest`` names what
is wrong in it), ``boundary:importer->imported`` for a crossing import,
``DOM002:contract:fingerprint`` for a stale entry (``DOM003:...`` for one added since a
review's revision, never itself recorded) and ``type:...`` for a broken
import-linter contract. A located fingerprint repeated in one module is numbered from
its second copy, ``CODE:module:rest#2`` (see :func:`~.findings.numbered_repeats`).
"""

from typing import NamedTuple

BOUNDARY_PREFIX = "boundary:"
STALE = "DOM002"
ADDED = "DOM003"
UNANALYSABLE = "DOM001"


def located(code: str, module: str, rest: str) -> str:
    """``CODE:module:rest``: a finding in ``module``'s source (vocabulary, placement)."""
    return f"{code}:{module}:{rest}"


def unanalysable(symbol: str) -> str:
    """DOM001 for a file that could not be analysed (its module, or its path)."""
    return f"{UNANALYSABLE}:{symbol}"


def edge(importer: str, imported: str) -> str:
    """A crossing import of a boundary contract."""
    return f"{BOUNDARY_PREFIX}{importer}->{imported}"


def stale(contract: str, fingerprint: str) -> str:
    return f"{STALE}:{contract}:{fingerprint}"


def added(contract: str, fingerprint: str) -> str:
    """DOM003 for an entry of ``contract`` added to the baseline since a review's revision."""
    return f"{ADDED}:{contract}:{fingerprint}"


def import_contract_chain(contract_type: str, importer: str, imported: str) -> str:
    """DOM303 for an import-linter contract broken by an import chain, at its first link."""
    return f"{contract_type}:{importer}->{imported}"


def import_contract_other(contract_type: str, contract: str, what: str) -> str:
    """DOM303 for an import-linter contract broken otherwise."""
    return f"{contract_type}:{contract}:{what}"


# Parsing.


class Parsed(NamedTuple):
    """What a fingerprint says: its code (``boundary`` for an edge), the module it is
    located in (the importer for an edge; empty when it names none) and the rest."""

    code: str
    module: str
    rest: str


def parse(fingerprint: str) -> Parsed:
    if fingerprint.startswith(BOUNDARY_PREFIX):
        importer, _, imported = fingerprint[len(BOUNDARY_PREFIX) :].partition("->")
        return Parsed("boundary", importer, imported)
    code, _, remainder = fingerprint.partition(":")
    module, colon, rest = remainder.partition(":")
    if not colon:  # DOM001:module
        return Parsed(code, remainder, "")
    return Parsed(code, module, rest)


def module_of(fingerprint: str) -> str:
    """:func:`parse`'s module, without a :class:`Parsed` made: asked of every leak a
    census counts."""
    if fingerprint.startswith(BOUNDARY_PREFIX):
        return fingerprint[len(BOUNDARY_PREFIX) :].partition("->")[0]
    remainder = fingerprint.partition(":")[2]
    module, colon, _ = remainder.partition(":")
    return module if colon else remainder


def parse_edge(fingerprint: str) -> tuple[str, str] | None:
    """``(importer, imported)`` for a crossing-import fingerprint, None for any other."""
    if not fingerprint.startswith(BOUNDARY_PREFIX):
        return None
    importer, arrow, imported = fingerprint[len(BOUNDARY_PREFIX) :].partition("->")
    return (importer, imported) if arrow and importer and imported else None


def is_unanalysable(fingerprint: str) -> bool:
    return fingerprint.startswith(UNANALYSABLE + ":")


def with_module(fingerprint: str, old: str, new: str) -> str | None:
    """``fingerprint`` re-keyed from module ``old`` (or a module below it) to ``new``;
    None when it is not located there. What a renamed module's entries become."""

    def moved(module: str) -> str | None:
        if module == old:
            return new
        if module.startswith(old + "."):
            return new + module[len(old) :]
        return None

    edge_parts = parse_edge(fingerprint)
    if edge_parts is not None:
        importer = moved(edge_parts[0])
        return edge(importer, edge_parts[1]) if importer else None
    parsed = parse(fingerprint)
    module = moved(parsed.module)
    if module is None:
        return None
    return located(parsed.code, module, parsed.rest) if parsed.rest else f"{parsed.code}:{module}"

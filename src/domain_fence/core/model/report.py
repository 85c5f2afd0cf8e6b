"""The outcome of checking a configuration: one result per contract, in the shape
every reporter (text, JSON, SARIF, GitHub, Markdown) formats.

Everything here is plain sorted data, so two runs over the same tree produce the same
report, whatever order import-linter happened to find things in.
"""

# Annotations evaluated, not postponed (no ``from __future__ import annotations``):
# typing.NamedTuple compiles each postponed one into a ForwardRef as the module is
# imported, on every run: about a third of what creating these classes costs.
import contextlib
import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from domain_fence.core.model import fingerprints
from domain_fence.core.model.census import Census
from domain_fence.core.model.findings import FINDING_ORDER, Finding
from domain_fence.core.model.rules import get_rule


class Link(NamedTuple):
    """One import: ``importer`` imports ``imported`` at ``line_numbers`` (empty: unknown)."""

    importer: str
    imported: str
    line_numbers: tuple[int, ...] = ()

    def describe(self) -> str:
        lines = ", ".join(f"l.{n}" for n in sorted(self.line_numbers)) or "l.?"
        return f"{self.importer} -> {self.imported} ({lines})"


Chain = tuple[Link, ...]


class Dependency(NamedTuple):
    """An illegal dependency between two module groups, shown by its import chains.

    ``importer`` is the group that must not depend on ``imported`` (a source and a
    forbidden module of a boundary, a lower and a higher layer, ...).
    """

    importer: str
    imported: str
    chains: tuple[Chain, ...]


class Domains(NamedTuple):
    """The module groups a boundary separates, as written in the configuration."""

    sources: tuple[str, ...]
    forbidden: tuple[str, ...]


class ContractResult(NamedTuple):
    """One contract checked: whether it is kept, and its findings by what becomes of them."""

    id: str
    name: str
    type: str
    kept: bool
    findings: tuple[Finding, ...] = ()  # new violations: they break the contract
    baselined: tuple[Finding, ...] = ()  # recorded in the baseline: they pass
    stale: tuple[Finding, ...] = ()  # DOM002, located at the baseline entry
    suppressed: tuple[Finding, ...] = ()  # silenced by a noqa comment: they pass
    warnings: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()  # what breaks the contract but is no finding (require_match)
    dependencies: tuple[Dependency, ...] = ()
    domains: Domains | None = None
    baselined_edges: tuple[tuple[str, str], ...] = ()  # (importer, imported) set aside
    guidance: str = ""  # the contract's broken_contract_guidance
    baseline: str = ""  # our contract types: the baseline file, relative to the root
    census: Census | None = None  # vocabulary contracts with leaks found or recorded

    @property
    def failing(self) -> tuple[Finding, ...]:
        """What breaks the contract: new findings and stale baseline entries, sorted."""
        return tuple(sorted(self.findings + self.stale, key=FINDING_ORDER))


class Ratchet(NamedTuple):
    """What ``check --ratchet-since REV`` found: each baseline entry the baseline files
    hold that they did not hold at git revision ``since``, as a DOM003 finding located
    at the entry's line of its baseline file, sorted. Any of them fails the run."""

    since: str  # the revision as given (``origin/main``)
    added: tuple[Finding, ...] = ()

    def closing_line(self) -> str:
        """``domain-fence: 2 baseline entries added since main: fix the new findings ...``."""
        entries = _count(len(self.added), "baseline entry", "baseline entries")
        return f"domain-fence: {entries} added since {self.since}: fix the new findings instead of recording them"


class Summary(NamedTuple):
    """The counts of a report's last line."""

    contracts: int
    kept: int
    broken: int
    findings: int
    baselined: int
    stale: int
    warnings: int
    ratchet_added: int  # baseline entries added since the revision of --ratchet-since (0 without)
    passed: bool  # every contract kept and no baseline entry added: exit status 0


class Report(NamedTuple):
    """Every contract of a configuration checked: what every reporter renders."""

    root: str  # absolute posix path of the project root; finding paths are relative to it
    config: str  # the configuration file, relative to the root
    contracts: tuple[ContractResult, ...] = ()
    ratchet: Ratchet | None = None  # with --ratchet-since: what it found

    @property
    def kept(self) -> bool:
        """Every contract kept (what the ratchet found aside: see :attr:`passed`)."""
        return all(result.kept for result in self.contracts)

    @property
    def added(self) -> tuple[Finding, ...]:
        """The baseline entries added since the ratchet's revision (none without one)."""
        return self.ratchet.added if self.ratchet is not None else ()

    @property
    def passed(self) -> bool:
        """Whether the run passes (exit status 0): every contract kept, no entry added."""
        return self.kept and not self.added

    @property
    def failing(self) -> tuple[Finding, ...]:
        """What fails, over every contract, sorted: a finding several contracts report
        alike (a file none can read is each one's DOM001) once, as flake8 and the editor
        show it (the first contract's)."""
        return tuple(finding for finding, _ in self.failing_by_contracts())

    def failing_by_contracts(self) -> tuple[tuple[Finding, tuple[str, ...]], ...]:
        """Each distinct failing finding, sorted, with the ids of the contracts that
        report it, in the configuration's order."""
        distinct: dict[tuple[str, int, int, str, str], tuple[Finding, list[str]]] = {}
        for result in self.contracts:
            for f in result.failing:
                distinct.setdefault((f.path, f.line, f.col, f.code, f.message), (f, []))[1].append(result.id)
        ordered = sorted(distinct.values(), key=lambda item: FINDING_ORDER(item[0]))
        return tuple((finding, tuple(dict.fromkeys(ids))) for finding, ids in ordered)

    def summary(self) -> Summary:
        kept = sum(result.kept for result in self.contracts)
        return Summary(
            contracts=len(self.contracts),
            kept=kept,
            broken=len(self.contracts) - kept,
            findings=sum(len(r.findings) for r in self.contracts),
            baselined=sum(len(r.baselined) for r in self.contracts),
            stale=sum(len(r.stale) for r in self.contracts),
            warnings=sum(len(r.warnings) for r in self.contracts),
            ratchet_added=len(self.added),
            passed=self.passed,
        )

    def summary_line(self) -> str:
        """``3 contracts: 2 kept, 1 broken; 1 finding, 0 stale baseline entries, 4 baselined``."""
        s = self.summary()
        return (
            f"{_count(s.contracts, 'contract')}: {s.kept} kept, {s.broken} broken; "
            f"{_count(s.findings, 'finding')}, {_count(s.stale, 'stale baseline entry', 'stale baseline entries')}, "
            f"{s.baselined} baselined"
        )


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"


def stale_finding(
    contract: str, fingerprint: str, baseline_path: str, line: int, of: str = "", why: str = "not in the configuration"
) -> Finding:
    """DOM002 for a baseline entry of ``contract`` that matched nothing; reported by
    ``contract`` for an entry ``of`` another contract that does not read the file
    (``why``: not in the configuration, or whose baseline is another file)."""
    shown = fingerprint if not of or of == contract else f"{fingerprint} (of contract {of!r}, {why})"
    return Finding(
        path=baseline_path,
        line=line,
        col=0,
        code="DOM002",
        message=get_rule("DOM002").format(fingerprint=shown),
        symbol=fingerprint,
        fingerprint=fingerprints.stale(of or contract, fingerprint),
        contract=contract,
    )


def added_finding(contract: str, fingerprint: str, baseline_path: str, line: int, since: str) -> Finding:
    """DOM003 for the entry of ``contract`` at ``line`` of a baseline file that the
    file did not hold at revision ``since``."""
    return Finding(
        path=baseline_path,
        line=line,
        col=0,
        code="DOM003",
        message=get_rule("DOM003").format(revision=since, contract=contract, fingerprint=fingerprint),
        symbol=fingerprint,
        fingerprint=fingerprints.added(contract, fingerprint),
        contract=contract,
    )


def baseline_entry_lines(text: str) -> dict[tuple[str, str], int]:
    """``(contract, fingerprint) -> line`` of each entry in a baseline file's text: the
    line of its ``"fingerprint"`` key, however the file is laid out (one field per line,
    as ``core.baseline.render`` writes it, or an entry on one line). The JSON is walked
    once, member by member, each value decoded by ``json``'s scanner; what follows a
    place that is not JSON (a file being edited) is absent from the result."""
    places: dict[tuple[str, str], int] = {}
    lines = _Lines(text)

    def entries(key: str, key_at: int, at: int) -> int:
        if key != "entries" or text[at] != "[":
            return _skip(text, at)
        at = _space(text, at + 1)
        if text[at] == "]":
            return at + 1
        while True:
            fields: dict[str, tuple[object, int]] = {}
            at = _members(text, at, functools.partial(_field, text, fields))
            contract, fingerprint = fields.get("contract"), fields.get("fingerprint")
            if contract and fingerprint and isinstance(contract[0], str) and isinstance(fingerprint[0], str):
                places.setdefault((contract[0], fingerprint[0]), lines.at(fingerprint[1]))
            at = _space(text, at)
            if text[at] == "]":
                return at + 1
            at = _space(text, _expect(text, at, ","))

    with contextlib.suppress(ValueError, IndexError):  # ValueError: json's too
        _members(text, _space(text, 1 if text.startswith("\ufeff") else 0), entries)
    return places


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace


class _Lines:
    """The line of each place of ``text``, asked in increasing order: counted once."""

    __slots__ = ("line", "place", "text")

    def __init__(self, text: str) -> None:
        self.text, self.place, self.line = text, 0, 1

    def at(self, place: int) -> int:
        self.line += self.text.count("\n", self.place, place)
        self.place = place
        return self.line


def _space(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found else at


def _expect(text: str, at: int, character: str) -> int:
    if text[at] != character:
        raise ValueError(f"expected {character!r}")
    return at + 1


def _skip(text: str, at: int) -> int:
    """Where the JSON value at ``at`` ends."""
    end: int = _DECODER.raw_decode(text, at)[1]
    return end


def _field(text: str, fields: dict[str, tuple[object, int]], key: str, key_at: int, at: int) -> int:
    value, end = _DECODER.raw_decode(text, at)
    fields.setdefault(key, (value, key_at))
    return int(end)


def _members(text: str, at: int, value: Callable[[str, int, int], int]) -> int:
    """Walk the JSON object at ``at``: ``value(key, key's place, value's place)`` reads
    each member's value and returns where it ends. Returns where the object ends."""
    at = _space(text, _expect(text, at, "{"))
    if text[at] == "}":
        return at + 1
    while True:
        key, after = _DECODER.raw_decode(text, at)
        if not isinstance(key, str):
            raise ValueError("a key is a string")
        at = _space(text, value(key, at, _space(text, _expect(text, _space(text, after), ":"))))
        if text[at] == "}":
            return at + 1
        at = _space(text, _expect(text, at, ","))


def chain_lines(chain: Sequence[Link]) -> tuple[str, ...]:
    return tuple(link.describe() for link in chain)


def import_contract_finding(
    contract: str, contract_type: str, chain: Sequence[Link], path: str, place: tuple[int, int, int] | None = None
) -> Finding:
    """DOM303 for an import chain breaking an import-linter contract, located at its
    first import (``place``: the line, column and end column of its imported name)."""
    first, last = chain[0], chain[-1]
    line, col, end_col = place or (min(first.line_numbers, default=1), 0, 0)
    what = f"{first.importer} imports {last.imported}"
    if len(chain) > 1:
        what += " via " + " -> ".join(link.imported for link in chain[:-1])
    return Finding(
        path=path,
        line=line,
        col=col,
        code="DOM303",
        message=get_rule("DOM303").format(type=contract_type, contract=contract, what=what),
        symbol=first.importer,
        fingerprint=fingerprints.import_contract_chain(contract_type, first.importer, first.imported),
        contract=contract,
        details=chain_lines(chain),
        end_line=line if end_col else 0,
        end_col=end_col,
    )


def contract_broken_finding(
    contract: str, contract_type: str, what: str, path: str, line: int, details: Iterable[str] = ()
) -> Finding:
    """DOM303 for a broken import-linter contract whose report has no import chain,
    located at the contract's section of the configuration."""
    return Finding(
        path=path,
        line=line,
        col=0,
        code="DOM303",
        message=get_rule("DOM303").format(type=contract_type, contract=contract, what=what),
        symbol=contract,
        fingerprint=fingerprints.import_contract_other(contract_type, contract, what),
        contract=contract,
        details=tuple(details),
    )

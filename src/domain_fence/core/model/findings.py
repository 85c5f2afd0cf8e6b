"""The one structured result every front end formats."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from itertools import islice
from operator import attrgetter, lt

from domain_fence.core.model.fingerprints import BOUNDARY_PREFIX, UNANALYSABLE


@dataclass(frozen=True, order=True)
class Finding:
    """A rule broken at one place.

    Field order is the sort order: by file, then position, then code, so that every
    front end prints the same findings in the same order.
    """

    path: str  # posix path relative to the project root
    line: int  # 1-based
    col: int  # 0-based, in characters of the line (the AST counts UTF-8 bytes: see in_characters)
    code: str
    message: str  # without the code: "event field 'episode' ..."
    symbol: str  # dotted name of what is wrong, e.g. "pkg.events.Stats.episode"
    fingerprint: str  # line-independent identity, used by the baseline
    contract: str = ""  # id of the contract that produced it
    details: tuple[str, ...] = ()  # further lines, e.g. each link of an import chain
    # End of the offending token: 1-based line and 0-based exclusive column, in
    # characters; 0 means unknown (the reports then find the token's end on the line).
    end_line: int = 0
    end_col: int = 0
    # The fields its message was rendered from (word, name, owner, kind, ...), sorted.
    fields: tuple[tuple[str, str], ...] = ()

    def field(self, name: str) -> str | None:
        return dict(self.fields).get(name)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def describe(self) -> str:
        """`path:line:col: CODE message`, the flake8 shape (1-based column for humans)."""
        return f"{self.path}:{self.line}:{self.col + 1}: {self.code} {self.message}"


# The order ``order=True`` gives, as a key: one tuple per finding built in C, rather
# than two per comparison in the generated ``__lt__`` (a report sorts thousands).
FINDING_ORDER = attrgetter(*(field.name for field in fields(Finding) if field.compare))


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` without duplicates, in their order."""
    # Told apart by their keys, which hash in C (a finding hashes through a generated
    # method); equal findings have equal keys, and the first of them is kept, as a set keeps it.
    found = list(findings)
    keys = list(map(FINDING_ORDER, found))
    # Most come in order and distinct already (a module's, then the next module's), which
    # one comparison of each key with the next tells: half the cost of sorting them.
    if all(map(lt, keys, islice(keys, 1, None))):
        return found
    by_key = dict(zip(reversed(keys), reversed(found), strict=True))
    return [by_key[key] for key in sorted(by_key)]


def numbered_repeats(findings: list[Finding], quiet: Callable[[Finding], bool] = lambda f: False) -> list[Finding]:
    """One module's findings, each repeat of a fingerprint numbered in source order
    (``...#2``, ``...#3``): a baseline then records every copy, and a copy added beside a
    recorded one is new. A crossing import's fingerprint names a dependency, and DOM001's
    a file: more statements make neither more of them. The ``quiet`` ones (silenced by a
    noqa comment) are neither numbered nor counted; asked only when a fingerprint repeats."""
    counted: dict[str, int] = {}
    for finding in findings:
        counted[finding.fingerprint] = counted.get(finding.fingerprint, 0) + 1
    if all(count == 1 for count in counted.values()):
        return findings
    seen: dict[str, int] = {}
    numbered = {}
    for finding in sorted(set(findings), key=FINDING_ORDER):
        fingerprint = finding.fingerprint
        if counted[fingerprint] == 1 or fingerprint.startswith((BOUNDARY_PREFIX, UNANALYSABLE)) or quiet(finding):
            continue
        seen[fingerprint] = seen.get(fingerprint, 0) + 1
        if seen[fingerprint] > 1:
            numbered[finding] = replace(finding, fingerprint=f"{fingerprint}#{seen[fingerprint]}")
    return [numbered.get(finding, finding) for finding in findings]


def in_characters(findings: list[Finding], path: str, text: str | None) -> list[Finding]:
    """``findings`` whose columns the AST gave in UTF-8 bytes, counted in characters on
    the lines of ``text`` (the file at ``path``), so that every report, flake8's among
    them, points at the same character. Only a non-ASCII line differs."""
    if text is None or text.isascii() or not findings:
        return findings
    column = character_columns(text)
    return [
        replace(f, col=column(f.line, f.col), end_col=column(f.end_line, f.end_col)) if f.path == path else f
        for f in findings
    ]


def character_columns(text: str | None) -> Callable[[int, int], int]:
    """What turns a 1-based line and a column in UTF-8 bytes of ``text`` (as the AST
    gives it) into a column in characters; the same column on an ASCII line, or
    where the text is unknown."""
    if text is None or text.isascii():
        return lambda line, col: col
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def column(line: int, col: int) -> int:
        if not col or not 0 < line <= len(lines) or lines[line - 1].isascii():
            return col
        return len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))

    return column

"""``# noqa`` comments, honoured by every front end the same way.

The grammar is flake8's (``flake8.defaults.NOQA_INLINE_REGEXP`` and
``Violation.is_inline_ignored``): a bare ``# noqa`` silences every code on its line,
``# noqa: DOM101,DOM112`` the codes listed, and a listed prefix the codes it starts
(``# noqa: DOM1``). flake8 cannot be imported here; a test holds the two to agreement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain_fence.core.model.findings import Finding

_NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_SEPARATOR = re.compile(r"[,\s]")

ALL = None  # a bare noqa comment: every code


@dataclass(frozen=True)
class NoqaComments:
    """The noqa comment of each line of one file: line -> codes (None: every code)."""

    lines: dict[int, frozenset[str] | None]

    @classmethod
    def of(cls, text: str) -> NoqaComments:
        found: dict[int, frozenset[str] | None] = {}
        if "noqa" not in text.lower():  # the usual case, at the cost of one scan
            return cls(found)
        for number, line in enumerate(text.splitlines(), start=1):
            if _NOQA.search(line):
                found[number] = codes_of(line)
        return cls(found)

    def suppresses(self, line: int, code: str) -> bool:
        if line not in self.lines:
            return False
        codes = self.lines[line]
        return codes is None or code in codes or code.startswith(tuple(codes))


def codes_of(line: str) -> frozenset[str] | None:
    """The codes the noqa comment of ``line`` names; None for a bare ``# noqa`` (every
    code), and for a line with no noqa comment (ask :data:`_NOQA` first)."""
    match = _NOQA.search(line)
    if match is None:
        return ALL
    codes = match.group("codes")
    if codes is None:
        return ALL
    return frozenset(code.strip() for code in _SEPARATOR.split(codes) if code.strip())


def split_suppressed(findings: Iterable[Finding], comments: NoqaComments) -> tuple[list[Finding], list[Finding]]:
    """``(kept, suppressed)``."""
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    for finding in findings:
        (suppressed if comments.suppresses(finding.line, finding.code) else kept).append(finding)
    return kept, suppressed

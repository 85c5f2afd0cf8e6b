"""Expected findings written beside the offending lines of fixture files.

Grammar of a trailing comment (nothing else may follow it on the line)::

    expectation := "#" code [":" column] ("," code [":" column])*
    code        := "DOM" digit digit digit
    column      := digits           (0-based, as the AST and flake8 plugins count)

A comment that mentions a DOM code without following the grammar is an error, so a
typo cannot silently expect nothing.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

_ITEM = r"DOM\d{3}(?::\d+)?"
_EXPECTATION = re.compile(rf"#\s*(?P<items>{_ITEM}(?:\s*,\s*{_ITEM})*)\s*\Z")
_ITEM_PARTS = re.compile(r"(DOM\d{3})(?::(\d+))?")


@dataclass(frozen=True, order=True)
class Expected:
    line: int
    code: str
    col: int | None = None  # None: any column

    def matches(self, line: int, code: str, col: int) -> bool:
        return (self.line, self.code) == (line, code) and self.col in (None, col)


def expectations(path: Path) -> list[Expected]:
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type != tokenize.COMMENT or "DOM" not in token.string:
            continue
        match = _EXPECTATION.match(token.string)
        if match is None:
            raise ValueError(f"{path}:{token.start[0]}: malformed expectation {token.string!r}")
        for code, col in _ITEM_PARTS.findall(match["items"]):
            found.append(Expected(token.start[0], code, int(col) if col else None))
    return sorted(found)


def unmet(expected: list[Expected], actual: list[tuple[int, str, int]]) -> tuple[list, list]:
    """(expectations no finding met, findings no expectation allowed), pairing one to one."""
    remaining = list(actual)
    missing = []
    for expectation in sorted(expected, key=lambda e: e.col is None):  # exact columns first
        for index, (line, code, col) in enumerate(remaining):
            if expectation.matches(line, code, col):
                del remaining[index]
                break
        else:
            missing.append(expectation)
    return missing, remaining


# A finding as flake8 and domain-fence print it: ``path:line:col: CODE message``.
FINDING_LINE = re.compile(
    r"^(?P<path>[\w/.]+\.py):(?P<line>\d+):(?P<col>\d+): (?P<code>DOM\d{3}) (?P<message>.*)$", re.M
)


def annotated(root: Path) -> set[tuple[str, int, int, str]]:
    """(path relative to ``root``, line, 1-based column, code) of every annotation of
    the Python files below ``root``."""
    return {
        (path.relative_to(root).as_posix(), e.line, e.col + 1, e.code)
        for path in root.rglob("*.py")
        for e in expectations(path)
    }


def reported(output: str) -> list[tuple[str, int, int, str, str]]:
    """(path, line, 1-based column, code, message) of every finding line of ``output``."""
    return [(m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in FINDING_LINE.finditer(output)]

"""The import statements on given lines of a file, each parsed alone.

A boundary finding is placed at the imported name of the statement the import graph
names (grimp records only the statement's line). The modules with crossing imports are
often a project's largest: parsing each whole for a few statements is most of what a
boundary-only check costs. Here the logical line starting at each such line (the
physical line when it parses alone, else cut out with the tokenizer) is parsed alone,
giving the same facts the whole file's walk gives for those statements (``type_checking`` aside: that needs the enclosing ``if``). When a
statement cannot be parsed alone (one following ``else:`` on its line, or starting
inside another statement), the caller reads the whole file.
"""

from __future__ import annotations

import ast
import tokenize
import warnings
from collections.abc import Iterable, Iterator

from domain_fence.core.source.facts import ImportFact, import_fact, import_source


def statement_imports(module: str, is_package: bool, text: str, lines: Iterable[int]) -> list[ImportFact] | None:
    """The facts of the imports in the logical lines starting on ``lines`` of ``text``
    (``module``'s source), in line order; None when one cannot be parsed alone."""
    physical = _PhysicalLines(text)
    found: dict[tuple[int, int], ImportFact] = {}
    for line in sorted(set(lines)):
        parsed = _statement(physical, line)
        if parsed is None:
            return None
        for node in _imports(parsed):
            if isinstance(node, ast.Import):
                facts = [import_fact(node.lineno, alias, alias.name, None, False) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = import_source(module, is_package, node)
                if source is None:
                    return None  # above the top-level package: the whole file says how
                facts = [import_fact(node.lineno, alias, source, alias.name, False) for alias in node.names]
            found.update(((fact.at_line, fact.col), fact) for fact in facts)
    return [found[place] for place in sorted(found)]


def _imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree``, in the blocks of its compound statements too
    (``if x: import y``); expressions hold none."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            for block in _BLOCKS:
                pending.extend(getattr(node, block, ()))


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statement(physical: _PhysicalLines, line: int) -> ast.Module | None:
    """The logical line starting on ``line`` (1-based), parsed with its line numbers."""
    if not 0 < line <= physical.count(line):
        return None
    # Most statements are their physical line: one that parses alone is its logical
    # line whole (an open bracket or a continuation backslash would not parse).
    alone = _parsed(physical.lines[line - 1], line)
    return alone if alone is not None else _parsed(_logical_line(physical, line), line)


def _logical_line(physical: _PhysicalLines, line: int) -> str:
    """The physical lines of the logical line starting on ``line``, cut by the tokenizer."""
    rest = physical.starting(line)
    end = 0
    try:
        for token in tokenize.generate_tokens(lambda: next(rest, "")):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                end = token.end[0]
                break
    except (tokenize.TokenError, SyntaxError):
        return ""  # parses as no statement: the caller reads the whole file
    physical.count(line - 1 + max(end, 1))
    return "".join(physical.lines[line - 1 : line - 1 + max(end, 1)])


def _parsed(segment: str, line: int) -> ast.Module | None:
    """``segment``, the source from ``line`` on, parsed with its line numbers; None when
    it is not one or more whole statements."""
    if not segment.strip():
        return None
    # An indented statement (in a function, under ``if``) parses as the body of one.
    indented = segment.lstrip("\f")[:1] in (" ", "\t")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse("if 1:\n" + segment if indented else segment)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    offset = line - 1 - (1 if indented else 0)
    for node in _imports(tree):  # the only nodes read: their lines, and their names'
        for located in (node, *node.names):
            located.lineno += offset
            if located.end_lineno is not None:
                located.end_lineno += offset
    return tree


class _PhysicalLines:
    """The lines of a text as Python numbers them (only ``\n``, ``\r\n`` and ``\r`` end
    one), with their ends, as ``\n``; split only as far as asked: the statements read
    are mostly near a file's top, and the rest of a large file need not be split."""

    def __init__(self, text: str) -> None:
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines: list[str] = []
        self._rest: str | None = text  # the text after the lines split so far; None: none

    def count(self, wanted: int) -> int:
        """How many lines are split, ``wanted`` at least unless the text has fewer."""
        while self._rest is not None and len(self.lines) < wanted:
            self._split(max(wanted - len(self.lines), len(self.lines), 64))
        return len(self.lines)

    def starting(self, line: int) -> Iterator[str]:
        """The lines from ``line`` (1-based) on, split as they are read."""
        number = line
        while number <= self.count(number):
            yield self.lines[number - 1]
            number += 1

    def _split(self, more: int) -> None:
        assert self._rest is not None
        parts = self._rest.split("\n", more)
        if len(parts) > more:  # the text goes on after these
            self._rest = parts.pop()
            self.lines += [part + "\n" for part in parts]
            return
        self._rest = None
        self.lines += [part + "\n" for part in parts]
        self.lines[-1] = self.lines[-1][:-1]
        if not self.lines[-1]:
            self.lines.pop()

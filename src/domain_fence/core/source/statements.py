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
    physical = _physical_lines(text)
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


def _statement(physical: list[str], line: int) -> ast.Module | None:
    """The logical line starting on ``line`` (1-based), parsed with its line numbers."""
    if not 0 < line <= len(physical):
        return None
    # Most statements are their physical line: one that parses alone is its logical
    # line whole (an open bracket or a continuation backslash would not parse).
    alone = _parsed(physical[line - 1], line)
    return alone if alone is not None else _parsed(_logical_line(physical, line), line)


def _logical_line(physical: list[str], line: int) -> str:
    """The physical lines of the logical line starting on ``line``, cut by the tokenizer."""
    rest = iter(physical[line - 1 :])
    end = 0
    try:
        for token in tokenize.generate_tokens(lambda: next(rest, "")):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                end = token.end[0]
                break
    except (tokenize.TokenError, SyntaxError):
        return ""  # parses as no statement: the caller reads the whole file
    return "".join(physical[line - 1 : line - 1 + max(end, 1)])


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


def _physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python numbers them (only ``\n``, ``\r\n`` and ``\r``
    end one), with their ends, as ``\n``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]

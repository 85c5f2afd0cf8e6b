"""A module's string constants and tables of strings, as written: the module-level names
assigned what may be a string, or a dict display of literal keys; a table's entries,
spelled as the subscript reading them; and the names some use may change. What each
holds, for certain, the resolver works out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from domain_fence.core.source.facts.folding import _literal_text, _may_spell
from domain_fence.core.source.facts.scopes import _children, _run_time_blocks
from domain_fence.core.source.facts.syntax import _simple_assignment


def _string_constants(tree: ast.Module, aliases: frozenset[str]) -> tuple[dict[str, ast.expr], dict[str, ast.Dict]]:
    """Module-level names assigned what may be a string (``KIND = "post_episode"``,
    ``END_KIND = PREFIX + "End"``, ``f"{PREFIX}Start"``, ``KIND = OTHER``), in source
    order, outside the blocks that run for type checkers only (``aliases``: the module's
    other names of ``TYPE_CHECKING``; and in ``if``/``try``
    blocks, as before: not in loops or ``with``); and those assigned a dict display
    whose keys are all literals, which may be a table of strings (``KINDS = {"reset":
    "EpisodeReset"}``). What each holds, and whether it is bound only there, is asked
    later (:meth:`_Resolver.string_constant`, :meth:`_Resolver.table_constants`)."""
    found: dict[str, ast.expr] = {}
    tables: dict[str, ast.Dict] = {}
    pending = list(reversed(tree.body))  # in source order
    while pending:
        statement = pending.pop()
        kind = type(statement)
        if kind is ast.If or kind is ast.Try or kind is ast.TryStar:
            for block in reversed(list(_run_time_blocks(statement, aliases))):
                pending += reversed(block)
            continue
        target, value = _simple_assignment(statement)
        if target and (_may_spell(value) or type(value) is ast.Name):
            found[target] = value
        elif target and type(value) is ast.Dict and value.keys and all(type(k) is ast.Constant for k in value.keys):
            tables[target] = value
    return found, tables


def _table_entries(display: ast.Dict, constant: Callable[[str], str | None]) -> dict[str, str]:
    """The string each string key of a table's display holds: what its last value
    spells (:func:`_literal_text`, the module's constants folded in), a key whose last
    value spells none left out."""
    entries: dict[str, str] = {}
    for key, value in zip(display.keys, display.values, strict=True):
        if type(key) is ast.Constant and type(key.value) is str:
            text = _literal_text(value, constant)
            if text is None:
                entries.pop(key.value, None)
            else:
                entries[key.value] = text
    return entries


def _table_spelled(name: str, key: str) -> str:
    """How a table's entry is spelled in the facts, fingerprints and messages: as the
    subscript reading it, the key's quotes as ``repr`` writes them (``KINDS['reset']``)."""
    return f"{name}[{key!r}]"


def _is_table_spelled(text: str) -> bool:
    """Whether a name as kept is a table's entry (:func:`_table_spelled`): no name is."""
    return text.endswith("]")


def _table_subscript(value: ast.expr) -> str | None:
    """``NAME["key"]`` spelled as a table's entry (:func:`_table_spelled`): a name
    subscripted with a literal string; else None."""
    if type(value) is not ast.Subscript:
        return None
    table, key = value.value, value.slice
    if type(table) is not ast.Name or type(key) is not ast.Constant or type(key.value) is not str:
        return None
    return _table_spelled(table.id, key.value)


# The methods of a dict that only read it: what a table's uses may call (and a
# followed local dict's, see local_dicts).
_DICT_READERS = frozenset({"get", "keys", "values", "items", "copy"})


def _changing_uses(tree: ast.Module) -> frozenset[str]:
    """The names some use in the module may change what they hold by, or give it to
    other code that might: every read of a name but as the mapping a subscript reads
    (``KINDS["reset"]``, not ``KINDS["reset"] = ...`` or ``del``), the object of a
    method that only reads (``get``, ``keys``, ``values``, ``items``, ``copy``), the
    container ``in`` looks into, or a mapping unpacked (``{**KINDS}``, ``f(**KINDS)``:
    a copy of its items). Binding a name (``KINDS |= ...`` too) is counted apart
    (:meth:`_Resolver.binding_counts`)."""
    allowed: set[int] = set()  # ids of the Name nodes read so
    reads: list[ast.Name] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                reads.append(node)  # type: ignore[arg-type]
            continue
        if kind is ast.Subscript:
            if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                allowed.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            if node.attr in _DICT_READERS:  # type: ignore[attr-defined]
                allowed.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Compare:
            compared = zip(node.ops, node.comparators, strict=True)  # type: ignore[attr-defined]
            allowed.update(id(c) for op, c in compared if type(op) in (ast.In, ast.NotIn))
        elif kind is ast.Dict:  # ``{**KINDS}`` copies it
            allowed.update(id(v) for k, v in zip(node.keys, node.values, strict=True) if k is None)  # type: ignore[attr-defined]
        elif kind is ast.keyword and node.arg is None:  # type: ignore[attr-defined]  # ``f(**KINDS)`` too
            allowed.add(id(node.value))  # type: ignore[attr-defined]
        pending += _children(node)
    return frozenset(read.id for read in reads if id(read) not in allowed)

"""Small questions asked of one node by every part of the extraction: the dotted name it
spells, its place as a :class:`~.records.Text`, a simple assignment's target and value,
a function's parameters and receiver, where an import's names come from.
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.records import ImportFact, Text
from domain_fence.core.source.modules import resolve_relative


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.C`` for a Name or a chain of Attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _text(node: ast.stmt | ast.expr | ast.arg, text: str) -> Text:
    return Text(text, node.lineno, node.col_offset)


def _simple_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
        return statement.target.id, statement.value
    return None, None


def _resolve(reference: str, bindings: dict[str, str], module: str, local_classes: set[str]) -> str:
    head, dot, rest = reference.partition(".")
    if head in local_classes:
        return f"{module}.{reference}"
    if head in bindings:
        return bindings[head] + dot + rest
    return reference


def _is_name(node: ast.expr, name: str) -> bool:
    return type(node) is ast.Name and node.id == name


def _is_dict(value: ast.expr) -> bool:
    """A dict display, or a ``dict(...)`` call."""
    if type(value) is ast.Dict:
        return True
    return type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "dict"


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _target_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _is_type_checking(test: ast.expr, aliases: frozenset[str] = frozenset()) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:`` (any module's, as grimp
    reads it); or ``if TC:`` for one of ``aliases``, the other names the module's imports
    give it (:func:`type_checking_aliases`), which grimp does not read."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING" or test.id in aliases
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def type_checking_aliases(body: list[ast.stmt]) -> frozenset[str]:
    """The names module-level statements (in its ``if`` and ``try`` blocks too) give
    ``TYPE_CHECKING`` besides its own: an import, ``from typing import TYPE_CHECKING as
    TC``, from any module, as a bare ``TYPE_CHECKING`` is read whatever it was imported
    from; an assignment, ``TC = typing.TYPE_CHECKING`` (or of a name given so above it).
    Only the module's statements are looked at, not its expressions: most bind none."""
    found: set[str] = set()
    pending = list(reversed(body))  # in source order: an alias of an alias follows it
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.ImportFrom):
            found.update(
                alias.asname
                for alias in statement.names
                if alias.name == "TYPE_CHECKING" and alias.asname and alias.asname != "TYPE_CHECKING"
            )
        elif isinstance(statement, ast.Assign) and _is_type_checking(statement.value, frozenset(found)):
            found.update(target.id for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.If):
            pending += reversed(statement.body + statement.orelse)
        elif isinstance(statement, (ast.Try, ast.TryStar)):
            blocks = statement.body + statement.orelse + [s for h in statement.handlers for s in h.body]
            pending += reversed(blocks + statement.finalbody)
    found.discard("TYPE_CHECKING")
    return frozenset(found)


def _contains(outer: ast.stmt, inner: ast.expr) -> bool:
    start = (outer.lineno, outer.col_offset)
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return start <= (inner.lineno, inner.col_offset) <= end


def _end(statement: ast.stmt) -> tuple[int, int]:
    return statement.end_lineno or statement.lineno, statement.end_col_offset or 0


def _argument_nodes(arguments: ast.arguments) -> list[ast.arg]:
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return [arg for arg in every if arg is not None]


def _parameters(arguments: ast.arguments) -> tuple[Text, ...]:
    return tuple(_text(arg, arg.arg) for arg in _argument_nodes(arguments))


def _receiver(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of a method's ``self`` (or ``cls``); None for a static method."""
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or "staticmethod" in _decorator_names(method):
        return None
    return positional[0].arg


def _decorator_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Last parts of the decorators' names: ``staticmethod``, ``setter``, ``cache``."""
    names = (dotted_name(d.func if isinstance(d, ast.Call) else d) for d in function.decorator_list)
    return {name.rsplit(".", 1)[-1] for name in names if name}


def import_source(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    return resolve_relative(module, is_package, node.level, node.module)


def import_fact(line: int, alias: ast.alias, source: str, name: str | None, type_checking: bool) -> ImportFact:
    name_line = alias.lineno if alias.lineno != line else 0
    return ImportFact(line, alias.col_offset, source, name, type_checking, name_line, alias.end_col_offset or 0)

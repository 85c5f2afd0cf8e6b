"""Which nodes lie below a node and which statements a scope holds: the children the
walks visit (the fields that never hold a node skipped), the places that bind a name,
the blocks of a compound statement (those that run too, not those for type checkers
only), a function's, a class's and a module's own statements, and whether one statement
may have run when another runs.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

from domain_fence.core.source.facts.syntax import _end, _is_type_checking

# Fields that never hold a node: skipping them (and the operator and context nodes)
# keeps the walk over expressions to the nodes that can hold a call.
_NOT_NODES = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "arg",
        "kind",
        "conversion",
        "type_comment",
        "level",
        "module",
        "name",
        "asname",
        "rest",
        "kwd_attrs",
        "is_async",
        "simple",
        "tag",
        "str",  # a t-string's Interpolation (Python 3.14): the text of its expression
    }
)
_LEAVES = (ast.Constant, ast.MatchSingleton)
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _children(node: ast.AST) -> list[ast.AST]:
    """The nodes right below ``node`` (the walk's hot loop inlines this)."""
    children: list[ast.AST] = []
    for name in _node_fields(type(node)):
        value = getattr(node, name)
        if type(value) is list:
            # Only a dict's keys hold a non-node (None, for ``**spread``): the fields
            # holding names are not walked (_NOT_NODES).
            children += value if None not in value else [item for item in value if item is not None]
        elif value is not None:
            children.append(value)
    return children


def _node_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        if not issubclass(kind, ast.AST):  # None, or a string in a list of names
            fields = ()
        else:
            fields = () if issubclass(kind, _LEAVES) else tuple(f for f in kind._fields if f not in _NOT_NODES)
        _FIELDS[kind] = fields
    return fields


_TYPE_PARAMETERS = tuple(getattr(ast, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(ast, name))


# The nodes below a statement that bind a name (see _bound_name).
_BINDING_NODES = frozenset({ast.arg, ast.alias, ast.MatchAs, ast.MatchStar, ast.MatchMapping, *_TYPE_PARAMETERS})


def _bound_name(node: ast.AST) -> str | None:
    """The name one of the _BINDING_NODES binds (None: none, as ``import *``)."""
    kind = type(node)
    if kind is ast.arg:
        return node.arg  # type: ignore[attr-defined, no-any-return]
    if kind is ast.alias:
        if node.name == "*":  # type: ignore[attr-defined]
            return None
        return node.asname or node.name.split(".", 1)[0]  # type: ignore[attr-defined, no-any-return]
    if kind is ast.MatchMapping:
        return node.rest  # type: ignore[attr-defined, no-any-return]
    return node.name  # type: ignore[attr-defined, no-any-return]


def _binding_sites(root: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Every place in ``root`` (nested scopes included) that binds a name: assigned,
    deleted, a parameter, imported, defined, caught, captured by a pattern, declared
    ``global`` or ``nonlocal``, a type parameter."""
    pending = [root]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                yield node.id, node  # type: ignore[attr-defined]
            continue
        if kind is ast.arg:
            yield node.arg, node  # type: ignore[attr-defined]
        elif kind is ast.alias:
            if node.name != "*":  # type: ignore[attr-defined]
                yield (node.asname or node.name.split(".", 1)[0]), node  # type: ignore[attr-defined]
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) or kind in _TYPE_PARAMETERS:
            yield node.name, node  # type: ignore[attr-defined]
        elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
            if node.name:  # type: ignore[attr-defined]
                yield node.name, node  # type: ignore[attr-defined]
        elif kind is ast.MatchMapping:
            if node.rest:  # type: ignore[attr-defined]
                yield node.rest, node  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in node.names:  # type: ignore[attr-defined]
                yield name, node
        pending += _children(node)


_BLOCK_STATEMENTS = frozenset(
    {ast.If, ast.Try, ast.TryStar, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match}
)


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists of a compound statement that are not a new scope."""
    if type(node) not in _BLOCK_STATEMENTS:  # most statements: asked of each one
        return
    if isinstance(node, ast.Match):
        for case in node.cases:
            yield case.body
        return
    for block in ("body", "orelse", "finalbody"):
        statements = getattr(node, block, None)
        if isinstance(statements, list):
            yield statements
    for handler in getattr(node, "handlers", ()):
        yield handler.body


def _run_time_blocks(node: ast.stmt, aliases: frozenset[str]) -> Iterator[list[ast.stmt]]:
    """The blocks of a compound statement that run: not the branch of ``if
    TYPE_CHECKING:`` (nor the ``else`` of ``if not TYPE_CHECKING:``) that exists for type
    checkers only; ``aliases``: the module's other names of ``TYPE_CHECKING`` (see
    :func:`~.syntax.type_checking_aliases`)."""
    if isinstance(node, ast.If):
        if _is_type_checking(node.test, aliases):
            yield node.orelse
            return
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_type_checking(test.operand, aliases):
            yield node.body
            return
    yield from _blocks(node)


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a function's own scope: in its blocks, not in nested
    functions or classes."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        yield statement
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in _blocks(statement):
                pending += reversed(block)


def _module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Module-level statements, including those inside ``if``/``try`` blocks."""
    pending = deque(tree.body)  # a queue: list.pop(0) is quadratic on machine-written modules
    while pending:
        statement = pending.popleft()
        yield statement
        if isinstance(statement, ast.If):
            pending += statement.body + statement.orelse
        elif isinstance(statement, ast.Try):
            pending += statement.body + statement.orelse + statement.finalbody
            for handler in statement.handlers:
                pending += handler.body


_CLASS_BODY_BLOCKS = (
    ast.If,
    ast.Try,
    ast.TryStar,
    ast.With,
    ast.AsyncWith,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Match,
)


def _class_scope(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a class body and of its own blocks (``if``, ``try``, ``with``...:
    the class's scope), in source order."""
    pending = list(reversed(body))  # a stack in source order (pop(0) is quadratic)
    while pending:
        statement = pending.pop()
        if isinstance(statement, _CLASS_BODY_BLOCKS):
            inner = sorted((s for block in _blocks(statement) for s in block), key=lambda s: (s.lineno, s.col_offset))
            pending += reversed(inner)
        else:
            yield statement


# A statement's place among a function's blocks: each compound statement around it, and
# which of its blocks holds it ("body", "orelse", "finalbody", a handler's or a case's index).
_Path = list[tuple[ast.stmt, str | int]]


def _block_path(body: list[ast.stmt], position: tuple[int, int]) -> _Path:
    """The compound statements around ``position`` in ``body`` (not entering nested
    functions or classes), outermost first, with the block of each that holds it."""
    path: _Path = []
    block: list[ast.stmt] | None = body
    while block is not None:
        around = next((s for s in block if (s.lineno, s.col_offset) <= position <= _end(s)), None)
        block = None
        if around is None or type(around) not in _BLOCK_STATEMENTS:
            break
        for which, statements in _named_blocks(around):
            if statements and (statements[0].lineno, statements[0].col_offset) <= position <= _end(statements[-1]):
                path.append((around, which))
                block = statements
                break
    return path


def _named_blocks(statement: ast.stmt) -> Iterator[tuple[str | int, list[ast.stmt]]]:
    if type(statement) is ast.Match:
        for index, case in enumerate(statement.cases):
            yield index, case.body
        return
    for name in ("body", "orelse", "finalbody"):
        yield name, getattr(statement, name, [])
    for index, handler in enumerate(getattr(statement, "handlers", ())):
        yield index, handler.body


def _may_precede(statement: ast.stmt, body: list[ast.stmt], at_call: _Path) -> bool:
    """Whether ``statement``, which ends before the call, may have run when the call runs:
    not when the two are in blocks of one statement that exclude each other (``if`` and
    ``else``, two ``case``s, an ``except`` and the ``else`` or another ``except``). A
    loop around both could run the first in an earlier pass: that is not followed."""
    here = _block_path(body, (statement.lineno, statement.col_offset))
    for (around, which), (call_around, call_which) in zip(here, at_call, strict=False):
        if around is not call_around:
            return True  # the statement's block ends before the call's begins
        if which == call_which:
            continue
        kind = type(around)
        if kind is ast.If or kind is ast.Match:
            return False
        if kind is ast.Try or kind is ast.TryStar:  # a handler may follow part of the body
            return which == "body" or call_which == "finalbody"
        return True  # a loop's ``else`` after its body
    return True

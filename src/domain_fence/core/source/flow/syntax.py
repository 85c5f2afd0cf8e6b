"""Questions asked of the syntax tree while tracing: names as written and shown,
what a statement holds and binds, what a definition takes."""

import ast
import builtins
import sys
from collections.abc import Iterable

from domain_fence.core.source.flow.records import POST_INIT_METHODS, VALIDATOR_DECORATORS

# Methods that put their arguments into the object they are called on.
_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})
# The forms of the constructions whose call returns no instance of the class (the facts'
# PARTIAL and SUPER_INIT): a partial (``partial``, ``partial(cls)``, ...; not a call of a
# name bound to one, ``partial Name``), and what ``__init__`` returns.
_NO_INSTANCE = ("partial(", "super().__init__")


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)

# Mapping methods that read the value of the key they are given first.
_KEY_READERS = frozenset({"get", "pop", "setdefault"})


def _key_read(node: ast.Call) -> str | None:
    """The key ``stats.get("epoch")`` reads (so do ``pop`` and ``setdefault``), as
    ``stats["epoch"]`` does; None for any other call."""
    func, given = node.func, node.args
    if type(func) is not ast.Attribute or func.attr not in _KEY_READERS or not given:
        return None
    key = given[0]
    if type(key) is ast.Constant and isinstance(key.value, str) and key.value.isidentifier():
        return key.value
    return None


def _bound_names(targets: Iterable[ast.expr]) -> set[str]:
    """The names assigning to ``targets`` binds (``for a, (b, *c) in ...``)."""
    names: set[str] = set()
    pending = list(targets)
    while pending:
        target = pending.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pending.extend(target.elts)
        elif isinstance(target, ast.Starred):
            pending.append(target.value)
    return names


_BUILTINS = frozenset(dir(builtins)) - {"__name__", "__file__", "__doc__"}
_NOT_EXPRESSIONS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "conversion", "type_comment"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _expression_fields(kind: type) -> tuple[str, ...]:
    """The fields of an expression kind that may hold expressions (or keywords)."""
    fields = _FIELDS.get(kind)
    if fields is None:
        every: tuple[str, ...] = getattr(kind, "_fields", ())
        fields = _FIELDS[kind] = tuple(f for f in every if f not in _NOT_EXPRESSIONS)
    return fields


def _intern(text: str) -> str:
    # Interned strings are one object, which pickle writes once per file.
    return sys.intern(text)


def _dotted(node: ast.expr) -> str | None:
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined, no-any-return]
    parts = []
    while kind is ast.Attribute:
        parts.append(node.attr)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
        kind = type(node)
    if kind is not ast.Name:
        return None
    parts.append(node.id)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def _shown(node: ast.expr) -> str:
    """``self.primary_target``, ``lm.graph[...]``, ``stats()``: short, for messages."""
    reference = _dotted(node)
    if reference is not None:
        return _shorten(reference)
    if isinstance(node, ast.Attribute):
        return f"{_shown_base(node.value)}.{node.attr}"
    return _shown_base(node)


def _shown_base(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        return f"{_shorten(base)}[...]" if base else "(...)[...]"
    if isinstance(node, ast.Call):
        base = _dotted(node.func)
        return f"{_shorten(base)}()" if base else "(...)()"
    return _shorten(_dotted(node) or "(...)")


def _shorten(reference: str) -> str:
    """The last three parts of a long dotted name."""
    parts = reference.split(".")
    return reference if len(parts) <= 3 else "..." + ".".join(parts[-3:])


def _prefixes(scopes: Iterable[str]) -> set[str]:
    """The scopes and every scope around them: ``A.f.g`` -> ``A``, ``A.f``, ``A.f.g``."""
    found: set[str] = set()
    for scope in scopes:
        parts = scope.split(".")
        found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return found


# The blocks of statements each kind of statement holds (a nested definition's are its own).
_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.TryStar: ("body", "handlers", "orelse", "finalbody"),
    ast.ExceptHandler: ("body",),
    ast.Match: ("cases",),
    ast.match_case: ("body",),
}

# Statements without a body: a sliced function skips those that cannot matter.
_SIMPLE = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Delete, ast.Raise, ast.Assert})


def _captures(pattern: ast.pattern) -> list[str]:
    return [
        name
        for node in ast.walk(pattern)
        for name in (getattr(node, "name", None), getattr(node, "rest", None))
        if isinstance(name, str)
    ]


def _arguments(arguments: ast.arguments) -> list[ast.arg]:
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return [arg for arg in every if arg is not None]


def _receiver(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or any(_dotted(d) == "staticmethod" for d in method.decorator_list):
        return None
    return positional[0].arg


def _field_method(method: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...] | None:
    """For ``__post_init__``: (); for a validator: the fields it names (its return value
    becomes their value); None for any other method."""
    if method.name in POST_INIT_METHODS:
        return ()
    for decorator in method.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = (_dotted(func) or "").rsplit(".", 1)[-1]
        if name in VALIDATOR_DECORATORS:
            args = decorator.args if isinstance(decorator, ast.Call) else []
            return tuple(a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return None


def _field_assignment(statement: ast.stmt) -> tuple[ast.Name | None, ast.expr | None]:
    """A class-level ``name = value`` or ``name: T = value`` (not a method alias)."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target, statement.value
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and not isinstance(statement.value, ast.Lambda)
    ):
        return statement.targets[0], statement.value
    return None, None

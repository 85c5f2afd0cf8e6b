"""The definitions placement and the census count: the module-level functions and
classes, the methods and nested classes of the module-level classes, and the names bound
by assignment (re-exports among them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from domain_fence.core.source.facts.class_body import _is_method_like, _names_functional_class
from domain_fence.core.source.facts.records import (
    BoundName,
    MethodDefinition,
    NestedClassDefinition,
    TopLevelDefinition,
)
from domain_fence.core.source.facts.scopes import _blocks, _run_time_blocks
from domain_fence.core.source.facts.syntax import _is_dunder, _simple_assignment, dotted_name, type_checking_aliases


def _top_level_classes(statements: list[ast.stmt]) -> set[str]:
    """Names of the classes a module defines at its top level, functional forms too."""
    names = set()
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            names.add(statement.name)
        target, value = _simple_assignment(statement)
        if target and isinstance(value, ast.Call) and _names_functional_class(value):
            names.add(target)
    return names


def top_level_definitions(body: list[ast.stmt]) -> Iterator[TopLevelDefinition]:
    """Module-level functions and classes, for placement. A definition inside an
    ``if``/``try``/``with``/``for``/``while``/``match`` block at module level binds a
    module global, so it is module-level; a function or class body is a new scope."""
    for node in body:
        if type(node) is ast.ClassDef:
            yield TopLevelDefinition("class", node.name, node.lineno, node.col_offset)
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            if not _is_overload(node):
                yield TopLevelDefinition("function", node.name, node.lineno, node.col_offset)
        elif type(node) is ast.Match:
            for case in node.cases:
                yield from top_level_definitions(case.body)
        else:
            for block in ("body", "orelse", "finalbody"):
                yield from top_level_definitions(getattr(node, block, []))
            for handler in getattr(node, "handlers", ()):
                yield from top_level_definitions(handler.body)


def bound_names(body: list[ast.stmt]) -> Iterator[BoundName]:
    """The names bound by assignment that placement counts as definitions, in source
    order (see :func:`_bindings`)."""
    for binding in _bindings(body, type_checking_aliases(body)):
        yield binding.fact


class _Binding(NamedTuple):
    """A name bound, and whether it evidently names a function, class or method."""

    fact: BoundName
    # Evidently a function, class or method: at module level a lambda, a partial or a
    # module's own function or class under another name (:func:`_defines_function`),
    # in a class body what is no attribute but a method (``staticmethod(f)``, an alias
    # of a method: :func:`_is_method_like`).
    evident: bool


def _bindings(body: list[ast.stmt], aliases: frozenset[str]) -> list[_Binding]:
    """Names bound by assignment (``=`` with plain names as targets, in tuples and
    lists too, starred or not, and annotated assignments with a value) at module level
    and in the bodies of the module-level classes and of the classes nested in them;
    where :func:`top_level_definitions` and :func:`method_definitions` find the
    ``def``s and ``class``es, in the same blocks.

    Not bindings: what a function body binds (local), augmented assignments (they
    rebind a name bound already), annotations without a value, what is bound under
    ``if TYPE_CHECKING:`` (never at run time; or under one of ``aliases``, the module's
    other names for it), and dunders (``__all__``). At module
    level, an assignment that only names something imported (``Alias =
    imported.Handler``: the head of the reference is bound by an import and by no
    ``def`` or ``class`` of the module) is a re-export, as ``from x import Handler as
    Alias`` is: a binding that names what it re-exports (``BoundName.renames``, through
    the module's own import aliases), which defines nothing unless it gives a name a
    pattern matches to something no pattern names. A class body re-exports nothing:
    what it binds is an attribute of the class.
    """
    imported, local = _module_names(body)
    reexported = {name: imported[name] for name in imported.keys() - local}
    found = _module_bindings(body, reexported, local, set(), aliases)
    return sorted(found, key=lambda binding: (binding.fact.line, binding.fact.col))


def _module_names(body: list[ast.stmt]) -> tuple[dict[str, str], set[str]]:
    """The names module-level imports bind (each with the name of what it binds: ``b``
    for ``from a import b as c`` or ``import a.b as c``), and those module-level ``def``
    and ``class`` statements bind."""
    imported: dict[str, str] = {}
    local: set[str] = set()
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:
                    imported[alias.name.split(".")[0]] = alias.name.split(".")[0]
                else:
                    imported[alias.asname] = alias.name.rsplit(".", 1)[-1]
        elif isinstance(node, ast.ImportFrom):
            imported.update((alias.asname or alias.name, alias.name) for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(node.name)
        else:
            for block in _blocks(node):
                pending += block
    return imported, local


def _assigned(node: ast.stmt) -> tuple[list[ast.expr], ast.expr] | None:
    """The targets and value of an assignment that binds (``=``, or an annotated
    assignment with a value); None for any other statement."""
    if type(node) is ast.Assign:
        return node.targets, node.value
    if type(node) is ast.AnnAssign and node.value is not None:
        return [node.target], node.value
    return None


def _bound_targets(target: ast.expr) -> Iterator[ast.Name]:
    """The plain names a target binds: ``a``, ``a, (b, *c)``, ``[a, b]``; not
    ``a.b`` or ``a[0]``, which bind no name, nor a dunder (``__all__``, ``__slots__``:
    what Python reads of a module or class, not a symbol it defines)."""
    if isinstance(target, ast.Name):
        if not _is_dunder(target.id):
            yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_targets(target.value)


def _module_bindings(
    body: list[ast.stmt], reexported: dict[str, str], local: set[str], plain_classes: set[str], aliases: frozenset[str]
) -> Iterator[_Binding]:
    """The bindings of module-level ``body``; ``plain_classes`` gets the names of the
    plain classes it defines (:func:`_is_plain`), in source order: a subclass follows."""
    for node in body:
        assigned = _assigned(node)
        if assigned is not None:
            targets, value = assigned
            reference = dotted_name(value)
            renames = ""
            if reference is not None and reference.split(".", 1)[0] in reexported:  # a re-export
                head, dot, rest = reference.partition(".")
                renames = rest.rsplit(".", 1)[-1] if dot else reexported[head]
            if _is_data(value):
                continue  # a constant: data, which nothing calls (``POST_EPISODE_TIMEOUT = 10``)
            evident = not renames and _defines_function(value, local)
            for target in targets:
                for name in _bound_targets(target):
                    yield _Binding(BoundName("", name.id, name.lineno, name.col_offset, renames), evident)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from _renaming_imports(node)
        elif isinstance(node, ast.ClassDef):
            plain = _is_plain(node, plain_classes)
            if plain:
                plain_classes.add(node.name)
            yield from _class_bindings(node.body, node.name, plain_classes, aliases, enum=_is_enum(node), plain=plain)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # a new scope: what it binds is local
        else:
            for block in _run_time_blocks(node, aliases):
                yield from _module_bindings(block, reexported, local, plain_classes, aliases)


def _renaming_imports(node: ast.Import | ast.ImportFrom) -> Iterator[_Binding]:
    """The names a module-level import binds under a name of its own (``import a.b as
    c``, ``from a import b as c``): re-exports, which define nothing unless the new name
    matches a pattern the old one does not (see :class:`BoundName`)."""
    for alias in node.names:
        original = alias.name.rsplit(".", 1)[-1]
        if alias.asname is None or alias.asname == original or _is_dunder(alias.asname):
            continue
        # The new name ends the alias (``b as c``), unless the alias spans lines.
        if alias.end_lineno == alias.lineno and alias.end_col_offset is not None:
            line, col = alias.lineno, alias.end_col_offset - len(alias.asname)
        else:
            line, col = alias.lineno, alias.col_offset
        yield _Binding(BoundName("", alias.asname, line, col, original), False)


def _is_data(value: ast.expr) -> bool:
    """A constant (a number, string, bytes or bool; ``None`` and ``...`` stand for what
    is assigned later) or a display of constants: data, not something to call."""
    if type(value) is ast.Constant:
        return value.value is not None and value.value is not Ellipsis
    if type(value) is ast.UnaryOp and type(value.operand) is ast.Constant:
        return isinstance(value.operand.value, (int, float, complex)) and not isinstance(value.operand.value, bool)
    if type(value) in (ast.Tuple, ast.List, ast.Set):
        return all(map(_is_data, value.elts))  # type: ignore[attr-defined]
    if type(value) is ast.Dict:
        return all(k is not None and _is_data(k) for k in value.keys) and all(map(_is_data, value.values))
    if type(value) is ast.JoinedStr:
        return all(type(part) is ast.Constant for part in value.values)
    return False


# Bases whose subclasses' plain class attributes are their members (data).
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})


def _is_enum(node: ast.ClassDef) -> bool:
    """A class derived from one of the standard enumerations, by the name written."""
    return any((dotted_name(base) or "").rsplit(".", 1)[-1] in _ENUM_BASES for base in node.bases)


def _defines_function(value: ast.expr, local: set[str]) -> bool:
    """A module-level value that evidently is a function or class: a lambda, a
    ``partial(...)``, or a function or class of the module's own (``local``) by name."""
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Call):
        return (dotted_name(value.func) or "").rsplit(".", 1)[-1] == "partial"
    return isinstance(value, ast.Name) and value.id in local


# Bases that make no field of an annotated assignment (``Generic[T]`` written subscripted).
_PLAIN_BASES = frozenset({"object", "ABC", "Generic", "Protocol"})


def _is_plain(node: ast.ClassDef, plain_classes: set[str]) -> bool:
    """A class whose annotated assignments bind class attributes as plain ones do
    (``init_telemetry: Callable = _setup`` makes a method): no decorator (a dataclass's
    or attrs' make fields of them), no keyword (a metaclass may), and no base but
    :data:`_PLAIN_BASES` and the module's plain classes (``plain_classes``). A base read
    elsewhere may be a pydantic model, a NamedTuple, a TypedDict: not plain."""
    if node.decorator_list or node.keywords:
        return False
    for base in node.bases:
        name = dotted_name(base.value if type(base) is ast.Subscript else base)
        if name is None or (name.rsplit(".", 1)[-1] not in _PLAIN_BASES and name not in plain_classes):
            return False
    return True


def _is_class_var(annotation: ast.expr) -> bool:
    """``ClassVar[...]`` (``typing.ClassVar``, or written as a string): an attribute of
    the class in a dataclass, a model or a named tuple too, no field."""
    if type(annotation) is ast.Constant and isinstance(annotation.value, str):
        name: str | None = annotation.value.split("[", 1)[0].strip()
    else:
        name = dotted_name(annotation.value if type(annotation) is ast.Subscript else annotation)
    return name is not None and name.rsplit(".", 1)[-1] == "ClassVar"


def _class_bindings(
    body: list[ast.stmt],
    owner: str,
    plain_classes: set[str],
    aliases: frozenset[str],
    methods: set[str] | None = None,
    enum: bool = False,
    plain: bool = False,
) -> Iterator[_Binding]:
    """The bindings of a class body, and those of the classes it nests (``enum``: the
    body is an enumeration's; ``plain``: a plain class's, see :func:`_is_plain`, whose
    annotated assignments bind as plain ones do)."""
    if methods is None:
        methods = {s.name for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in body:
        assigned = _assigned(node)
        if assigned is not None:
            targets, value = assigned
            # What DOM111 leaves out as no attribute (``_attributes``): a method.
            method_like = _is_method_like(value, methods)
            if type(node) is ast.AnnAssign and not (method_like or plain or _is_class_var(node.annotation)):
                continue  # an annotated field (a dataclass's, a model's): an attribute, not a definition
            if not method_like and (enum or _is_data(value)):
                continue  # an enumeration's member, a constant: data, which nothing calls
            method_like = method_like and type(node) is ast.Assign
            for target in targets:
                for name in _bound_targets(target):
                    yield _Binding(BoundName(owner, name.id, name.lineno, name.col_offset), method_like)
        elif isinstance(node, ast.ClassDef):
            nested, plain_nested = f"{owner}.{node.name}", _is_plain(node, plain_classes)
            yield from _class_bindings(
                node.body, nested, plain_classes, aliases, enum=_is_enum(node), plain=plain_nested
            )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            for block in _run_time_blocks(node, aliases):
                yield from _class_bindings(block, owner, plain_classes, aliases, methods, enum, plain)


def method_definitions(body: list[ast.stmt]) -> Iterator[MethodDefinition]:
    """The methods of the module-level classes (those :func:`top_level_definitions`
    finds) and of the classes nested in them, in source order."""
    for node in _module_level_classes(body):
        yield from _methods(node.body, node.name)


def nested_class_definitions(body: list[ast.stmt]) -> Iterator[NestedClassDefinition]:
    """The classes defined in the bodies of the module-level classes (in their
    ``if``/``try`` blocks too) and of the classes nested in them, in source order: not
    those a method's body defines, which are local to it."""
    for node in _module_level_classes(body):
        yield from _nested_classes(node.body, node.name)


def _nested_classes(body: list[ast.stmt], owner: str) -> Iterator[NestedClassDefinition]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield NestedClassDefinition(owner, node.name, node.lineno, node.col_offset)
            yield from _nested_classes(node.body, f"{owner}.{node.name}")
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for block in _blocks(node):
                yield from _nested_classes(block, owner)


def _module_level_classes(body: list[ast.stmt]) -> Iterator[ast.ClassDef]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for block in _blocks(node):
                yield from _module_level_classes(block)


def _methods(body: list[ast.stmt], owner: str) -> Iterator[MethodDefinition]:
    """Functions of a class body (in ``if``/``try`` blocks of it too), and those of
    the classes it nests; what a method's own body defines is local, not a method."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _is_overload(node):
                yield MethodDefinition(owner, node.name, node.lineno, node.col_offset)
        elif isinstance(node, ast.ClassDef):
            yield from _methods(node.body, f"{owner}.{node.name}")
        else:
            for block in _blocks(node):
                yield from _methods(block, owner)


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An ``@overload`` (``@typing.overload``) signature: for type checkers only, replaced
    at run time by the implementation that follows, which alone is the definition."""
    return any((dotted_name(d) or "").rsplit(".", 1)[-1] == "overload" for d in node.decorator_list)

"""How a class takes positional arguments, as far as its own statement tells (see
``_Resolver.init_order``): whether its body defines a constructor, and the fields a
dataclass's or a NamedTuple's body declares, each with whether ``__init__`` takes it by
position.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from domain_fence.core.source.facts.scopes import _BLOCK_STATEMENTS, _blocks
from domain_fence.core.source.facts.syntax import _target_names

if TYPE_CHECKING:
    from domain_fence.core.source.facts.resolver import _Resolver


_DATACLASS_DECORATOR = "dataclasses.dataclass"
_DATACLASS_FIELD = "dataclasses.field"
_NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
_GENERIC_BASES = frozenset({"typing.Generic", "typing_extensions.Generic"})
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__init_subclass__"})
# What an annotation's outermost name says of the attribute it annotates, in a dataclass.
_NOT_A_FIELD, _KEYWORDS_AFTER = "ClassVar", "KW_ONLY"
_MARKERS = (_NOT_A_FIELD, _KEYWORDS_AFTER, "InitVar")


def _unsubscripted(node: ast.expr) -> ast.expr:
    return node.value if type(node) is ast.Subscript else node


def _is_constant(node: ast.expr, value: bool) -> bool:
    return type(node) is ast.Constant and node.value is value


def _defines_constructor(body: list[ast.stmt]) -> bool:
    """A class body that defines or binds ``__init__``, ``__new__`` or
    ``__init_subclass__``, in any of its blocks."""
    for statement in body:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if statement.name in _CONSTRUCTORS:  # type: ignore[attr-defined]
                return True
        elif kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            targets = statement.targets if kind is ast.Assign else [statement.target]  # type: ignore[attr-defined]
            if any(name.id in _CONSTRUCTORS for target in targets for name in _target_names(target)):
                return True
        elif kind in _BLOCK_STATEMENTS and any(_defines_constructor(block) for block in _blocks(statement)):
            return True
    return False


def _declared_fields(body: list[ast.stmt], resolver: _Resolver, dataclass: bool) -> tuple[tuple[str, bool], ...] | None:
    """The fields a dataclass's (or a NamedTuple's) own body declares, in order, each
    with whether ``__init__`` takes it by position; None when that is not certain.

    A field is an annotated name (``kind: str``, with a value or not), ``InitVar``
    included, ``ClassVar`` not; after ``_: KW_ONLY``, or given ``field(kw_only=True)``
    or ``field(init=False)``, it is not taken by position. Not certain: a statement
    that may declare one out of sight (an ``if``, ``try``, ``for``, ``with`` or
    ``match`` block), an annotation written as a string naming ``ClassVar``,
    ``InitVar`` or ``KW_ONLY``, options given to ``field(...)`` that are not literal
    booleans, and in a NamedTuple any such marker."""
    fields: list[tuple[str, bool]] = []
    keywords_only = False
    for statement in body:
        kind = type(statement)
        if kind is not ast.AnnAssign:
            if kind in _BLOCK_STATEMENTS:
                return None
            continue
        target = statement.target  # type: ignore[attr-defined]
        if type(target) is not ast.Name:
            continue
        marker = _annotation_marker(statement.annotation, resolver)  # type: ignore[attr-defined]
        if marker is None or (marker and not dataclass):
            return None
        if marker == _NOT_A_FIELD:
            continue
        if marker == _KEYWORDS_AFTER:
            keywords_only = True
            continue
        by_position, init = not keywords_only, True
        value = statement.value  # type: ignore[attr-defined]
        if dataclass and type(value) is ast.Call and resolver.resolve(value.func) == _DATACLASS_FIELD:
            for keyword in value.keywords:
                if keyword.arg is None:
                    return None
                if keyword.arg in ("init", "kw_only"):
                    given = keyword.value
                    if not (type(given) is ast.Constant and type(given.value) is bool):
                        return None
                    if keyword.arg == "init":
                        init = given.value
                    else:  # ``kw_only`` given to the field overrides KW_ONLY
                        by_position = not given.value
        fields.append((target.id, by_position and init))
    return tuple(fields)


def _annotation_marker(annotation: ast.expr, resolver: _Resolver) -> str | None:
    """``ClassVar``, ``KW_ONLY`` or ``InitVar`` when the annotation is one of them (or
    a subscript of one), "" when it is none, None when a string names one."""
    if type(annotation) is ast.Constant and type(annotation.value) is str:
        return None if any(marker in annotation.value for marker in _MARKERS) else ""
    name = resolver.resolve(_unsubscripted(annotation))
    last = name.rpartition(".")[2] if name else ""
    return last if last in _MARKERS else ""

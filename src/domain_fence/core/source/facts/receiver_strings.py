"""The strings the methods of a class set on their instance, or a class method on its
class (see ReceiverStringFact).
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.constructions import _Constructions, _finder
from domain_fence.core.source.facts.local_strings import _LocalStrings
from domain_fence.core.source.facts.records import ReceiverStringFact, Text
from domain_fence.core.source.facts.resolver import _Kept, _Resolver
from domain_fence.core.source.facts.syntax import _contains
from domain_fence.core.source.facts.walk import _Walk


def _receiver_strings(
    walk: _Walk, resolver: _Resolver, held: _LocalStrings | None = None
) -> dict[ast.ClassDef, tuple[ReceiverStringFact, ...]]:
    """The strings the methods of each class statement set on their instance, or a class
    method on its class (see ReceiverStringFact): the receiver must be the method's own
    (nothing else in it binds the name, :meth:`_Constructions.receiver_class`), the
    function setting it the builtin (bound nowhere in the module, which star-imports
    nothing; on a class, ``setattr`` alone: ``object.__setattr__`` and
    ``super().__setattr__`` set no class's attribute); the strings are read as a
    keyword's kind is (:meth:`_Resolver.keep_string`), each branch of a conditional
    expression on its own, a local variable's through ``held``, and a value that holds
    none is left out."""
    if not walk.receiver_sets:
        return {}
    finder: _Constructions | None = None
    statements: dict[str, list[ast.ClassDef]] = {}  # qualname -> the class statements binding it
    for node, scope, _ in walk.classes:
        statements.setdefault(".".join((*scope, node.name)), []).append(node)
    found: dict[ast.ClassDef, list[ReceiverStringFact]] = {}
    for owner, scope, receiver, name, value, through in walk.receiver_sets:
        if through and (resolver.unbound_prefix or resolver.binding_counts().get(through)):
            continue  # ``setattr``, ``object`` or ``super`` may not be the builtin
        if not _may_be_kept(value, resolver, held):
            continue  # ``self.name = name``, ``self.size = other.size``: most are neither
        kept = _Kept()
        pending = [value]
        while pending:  # a conditional expression's branches, in source order
            current = pending.pop()
            if type(current) is ast.IfExp:
                pending += [current.orelse, current.body]
            else:
                resolver.keep_string(kept, 0, current, held, current, scope)
        strings: list[tuple[str | None, Text]] = [(None, text) for _, text in kept.strings]
        strings += [(constant, text) for _, constant, text in kept.constants]
        # Folded from module constants (noted ""), or held by a local variable.
        strings += [(None, text) for _, _, note, text in kept.held if not note]
        locals_held = [(spelled, note, text) for _, spelled, note, text in kept.held if note]
        references = [(reference, written) for _, reference, written in kept.references]
        templates = [(template, written) for _, template, written in kept.templates]
        if not strings and not references and not locals_held and not templates:
            continue  # most values are no strings (``self.name = name``): turned away first
        finder = finder or _finder(walk, resolver)
        on_class = False
        if finder.receiver_class(receiver, value, scope, classes=False) is None:
            if through in ("object", "super") or finder.receiver_class(receiver, value, scope, classes=True) is None:
                continue  # not the method's own instance, nor its own class
            on_class = True
        statement = next((node for node in statements.get(owner, ()) if _contains(node, value)), None)
        if statement is not None:
            ordered = tuple(sorted(strings, key=_string_place))
            fact = ReceiverStringFact(
                ".".join(scope),
                name,
                ordered,
                tuple(references),
                tuple(sorted(locals_held, key=lambda h: (h[2].line, h[2].col))),
                on_class,
                tuple(templates),
            )
            found.setdefault(statement, []).append(fact)
    return {node: tuple(sorted(facts, key=lambda f: (f.name.line, f.name.col))) for node, facts in found.items()}


def _may_be_kept(value: ast.expr, resolver: _Resolver, held: _LocalStrings | None = None) -> bool:
    """Whether :meth:`_Resolver.keep_string` may note anything of ``value``: not for a
    name the module binds neither to a string constant nor by an import, an alias or a
    class, and that no statement assigns what may be a string (a local's, ``held``),
    nor for an attribute of such a name, nor for a subscript of anything but a name the
    module binds to a dict display or by an import (a table's entry, maybe)."""
    kind = type(value)
    if kind is ast.Name:
        name = value.id  # type: ignore[attr-defined]
        return name in resolver.constants or name in resolver.bindings or (held is not None and name in held.candidates)
    if kind is ast.Subscript:
        table = value.value  # type: ignore[attr-defined]
        return type(table) is ast.Name and (table.id in resolver.tables or table.id in resolver.bindings)
    if kind is ast.Attribute:
        head = value
        while type(head) is ast.Attribute:
            head = head.value
        return type(head) is ast.Name and head.id in resolver.bindings
    return True


def _string_place(held: tuple[str | None, Text]) -> tuple[int, int]:
    return held[1].line, held[1].col

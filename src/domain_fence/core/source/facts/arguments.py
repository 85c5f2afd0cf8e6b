"""Calls given arguments by position: the strings given to what may build an instance of
a class (see PositionalFact), and the calls whose values DOM105 traces.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

from domain_fence.core.source.facts.constructions import (
    BOUND_PARTIAL,
    CLS,
    LOCAL,
    PARTIAL,
    SELF_CLASS,
    SUPER_INIT,
    TYPE_SELF,
    _finder,
)
from domain_fence.core.source.facts.records import MODULE_SCOPE, PositionalFact
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.syntax import dotted_name
from domain_fence.core.source.facts.walk import _Walk
from domain_fence.core.source.flow import RAISED


def _positional(walk: _Walk, resolver: _Resolver) -> Iterator[tuple[ast.Call, str, str, str, int]]:
    """(call, scope, form, class, arguments before the fields) of each call among the
    walk's that gives strings by position to what may be a class: a capitalized name
    (not an exception's or a warning's), or a construction that passes its positional
    arguments on to the class's (``cls``, ``type(self)``, ``self.__class__``,
    ``partial``, a local alias of the class: see :class:`_Constructions`)."""
    finder = _finder(walk, resolver) if walk.positional_calls else None
    for call, scope in walk.positional_calls:
        func = call.func
        last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else ""
        if last[:1].isupper() and not last.endswith(RAISED):
            built = resolver.resolve(func)
            if built:
                yield call, ".".join(scope) or MODULE_SCOPE, "", built, 0
            if type(func) is not ast.Name or func.id not in walk.alias_locals:
                continue  # a local alias's call is the class's too (below)
        construction = finder.construction(call, scope) if finder is not None else None
        if construction is None:
            continue
        form, built = construction
        aliased = form.startswith(LOCAL) and "." not in form  # ``Event(...)``, not ``Event.model_construct(...)``
        if _of_partial(form) or form in (CLS, TYPE_SELF, SELF_CLASS) or aliased:
            yield call, ".".join(scope) or MODULE_SCOPE, form, built, int(_of_partial(form))


# (call, scope, form, what it builds or calls, arguments before the fields): see _arguments_given
_ArgumentCall = tuple[ast.Call, str, str, str, int]
# The constructions that pass their positional arguments on to the class they build
# (``partial`` after the class, and a call of a local alias of the class): the others
# take none of its fields by position.
_PASSING_ON = frozenset({CLS, TYPE_SELF, SELF_CLASS, SUPER_INIT})
_BUILTIN_NAMES = frozenset(dir(builtins))


def _arguments_given(walk: _Walk, resolver: _Resolver) -> list[_ArgumentCall]:
    """(call, scope, form, target, arguments before the fields) of each call the walk saw
    given arguments by position whose values may be an event's fields (DOM105): a call
    of a dotted name (the target as resolved through the module's imports, the form
    ""), but a builtin's the module binds nowhere; or a construction that passes its
    positional arguments on to the class it builds (``cls``, ``type(self)``,
    ``self.__class__``, ``super().__init__``, ``partial(X, ...)`` after ``X``, a local
    alias of the class: see :class:`_Constructions`), the target the class. Once per
    walk (the facts and the flow facts both ask)."""
    if walk.found_arguments is None:
        found: list[_ArgumentCall] = []
        finder = _finder(walk, resolver) if walk.argument_calls else None
        counts = resolver.binding_counts()
        resolved: dict[str, str] = {}  # a file calls the same few names again and again
        for call, scope in walk.argument_calls:
            func = call.func
            # A builtin the module binds nowhere (``len(x)``) builds nothing: no construction
            # is called by such a name (``cls``, a local alias, ``partial`` are none).
            if type(func) is ast.Name and func.id in _BUILTIN_NAMES and not counts.get(func.id):
                continue
            where = ".".join(scope) or MODULE_SCOPE
            construction = finder.construction(call, scope) if finder is not None else None
            if construction is not None:
                form, built = construction
                aliased = (
                    form.startswith(LOCAL) and "." not in form
                )  # ``Event(...)``, not ``Event.model_construct(...)``
                if form in _PASSING_ON or _of_partial(form) or aliased:
                    found.append((call, where, form, built, int(_of_partial(form))))
                continue
            reference = dotted_name(func)
            if reference is not None:
                target = resolved.get(reference)
                if target is None:
                    target = resolved[reference] = resolver.resolve_dotted(reference)
                found.append((call, where, "", target, 0))
        walk.found_arguments = found
    return walk.found_arguments


def _of_partial(form: str) -> bool:
    """Whether ``form`` is a call of ``partial`` itself (``partial(X, ...)``, given the
    class first), not a call of a name bound to one (``partial Name``, whose positional
    arguments follow those the partial holds: not read)."""
    return form.startswith(PARTIAL) and not form.startswith(BOUND_PARTIAL)


def _positions(fact: PositionalFact) -> list[tuple[int, int]]:
    return [(text.line, text.col) for _, text in fact.strings]

"""The module's own functions and methods as its calls reach them: the module-level
functions whose definition is certain, the parameters each takes by position and the
classes it constructs from its own ``**`` parameter (an emit function's), the methods
that do so too and the calls of them on their class's own instance, the parameters of
the method ``self.name(...)`` calls, and the methods a decorator makes a property.
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.constructions import _finder
from domain_fence.core.source.facts.records import MODULE_SCOPE, EmitterFact
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.scopes import _binding_sites, _class_scope
from domain_fence.core.source.facts.syntax import _contains, _is_name
from domain_fence.core.source.facts.walk import _Walk
from domain_fence.core.source.flow import MAPPING_VALIDATORS

# A module-level function whose definition is certain (see _certain_functions): its name, its ``def``
_Certain = tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]


def _certain_functions(walk: _Walk, resolver: _Resolver) -> list[_Certain]:
    """The functions the module defines at module level whose definition is certain:
    one ``def`` binds its name (``async def`` too, in a module-level ``if`` or ``try``
    too), with no decorator (a decorator may take other parameters, or build nothing),
    nothing else in the module binds it, and the module star-imports nothing."""
    if walk.stars:
        return []
    counts = resolver.binding_counts()
    found = []
    for scope, functions in walk.functions.items():
        if len(scope) != 1 or len(functions) != 1 or counts.get(scope[0]) != 1:
            continue
        function = functions[0]
        if function not in walk.methods and not function.decorator_list:
            found.append((scope[0], function))
    return found


def _signatures(certain: list[_Certain]) -> dict[str, tuple[str, ...]]:
    """The parameters each function the module defines at module level takes by
    position (positional-only, then the others before ``*``), in order, where that is
    certain (:func:`_certain_functions`). Which parameter an argument given by position
    binds, in a call of an emit function (a kind given by position: DOM103)."""
    found = {
        name: tuple(a.arg for a in (*function.args.posonlyargs, *function.args.args)) for name, function in certain
    }
    return dict(sorted(found.items()))


def _emitters(walk: _Walk, resolver: _Resolver, certain: list[_Certain]) -> dict[str, EmitterFact]:
    """The module-level functions, certain as for their signatures
    (:func:`_certain_functions`), that construct a class unpacking their own ``**``
    parameter in their own body (not a nested function's), which nothing there binds
    again: ``X(**fields)``, ``X(kind=kind, **fields)`` or ``X.model_validate(fields)``
    (see EmitterFact). Read from the calls the walk found in their scope: no walk of
    its own, but of the body of a function found so, for what binds the parameter."""
    spreads: dict[tuple[str, ...], str] = {
        (name,): function.args.kwarg.arg for name, function in certain if function.args.kwarg is not None
    }
    if not spreads:
        return {}
    built: dict[str, set[str]] = {}
    passed: dict[str, set[str]] = {}
    for call, scope in walk.calls:
        spread = spreads.get(scope)
        found = _built_from(call, spread, resolver) if spread is not None else None
        if found is not None:
            built.setdefault(scope[0], set()).add(found)
            named = passed.setdefault(scope[0], set())
            named.update(k.arg for k in call.keywords if k.arg is not None and _is_name(k.value, k.arg))
    return {
        name: _emitter(walk.functions[(name,)][0], classes, passed[name])
        for name, classes in sorted(built.items())
        if _bound_once(walk.functions[(name,)][0], spreads[(name,)])
    }


def _method_emitters(walk: _Walk, resolver: _Resolver) -> tuple[dict[str, EmitterFact], dict[tuple[str, str], str]]:
    """The methods that construct a class unpacking their own ``**`` parameter, as
    :func:`_emitters` finds a function's (``Class.name`` -> EmitterFact, ``self`` no
    parameter of it), and the calls of one on its class's own instance: (scope, the
    callee as written, ``self._publish``) -> the method. A method is one of a class
    defined outside any function, its name bound in the class's scope once, by one
    ``def`` with no decorator (no ``staticmethod``), and set on no instance
    (:func:`_own_method` says so of the calls, as for a kind given by position). Read from
    the calls the walk found: none where no method has a ``**`` parameter. Only the
    methods so called are kept."""
    spreads = {
        (*owner.split("."), method.name): (method, method.args.kwarg.arg)
        for method, owner in walk.methods.items()
        if method.args.kwarg is not None and not method.decorator_list
    }
    if not spreads:
        return {}, {}
    built: dict[tuple[str, ...], set[str]] = {}
    passed: dict[tuple[str, ...], set[str]] = {}
    for call, scope in walk.calls:
        method = spreads.get(scope)
        found = _built_from(call, method[1], resolver) if method is not None else None
        if found is not None:
            built.setdefault(scope, set()).add(found)
            named = passed.setdefault(scope, set())
            named.update(k.arg for k in call.keywords if k.arg is not None and _is_name(k.value, k.arg))
    candidates = {".".join(scope): scope for scope in built}
    names = {scope[-1] for scope in built}
    calls = {}
    # Given keywords, or only arguments by position (``self._publish("EpisodeReset")``).
    for call, scope in (*walk.calls, *walk.argument_calls):
        func = call.func
        if type(func) is ast.Attribute and func.attr in names and type(func.value) is ast.Name:
            owner, _ = _own_method(walk, resolver, call, ".".join(scope))
            if owner and f"{owner}.{func.attr}" in candidates:
                calls[(".".join(scope), f"{func.value.id}.{func.attr}")] = f"{owner}.{func.attr}"
    # Only the methods so called (no other module's call reaches one), and of those the
    # ones whose body binds the parameter nowhere else: the body is walked for that last.
    emitters = {}
    for qualname in sorted(set(calls.values())):
        definition, spread = spreads[candidates[qualname]]
        if _bound_once(definition, spread):
            scope = candidates[qualname]
            emitters[qualname] = _emitter(definition, built[scope], passed[scope], receiver=True)
    return emitters, dict(sorted(item for item in calls.items() if item[1] in emitters))


def _emitter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, built: set[str], passed: set[str], receiver: bool = False
) -> EmitterFact:
    """``receiver``: a method's, whose first parameter the call does not give."""
    arguments = function.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))[int(receiver) :]
    named = tuple(sorted({*positional, *(a.arg for a in arguments.kwonlyargs)}))
    return EmitterFact(tuple(sorted(built)), tuple(sorted(passed)), named, positional)


def _bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef, parameter: str) -> bool:
    """Nothing in ``function`` binds ``parameter`` but the parameter itself."""
    return sum(1 for bound, _ in _binding_sites(function) if bound == parameter) == 1


def _built_from(call: ast.Call, spread: str, resolver: _Resolver) -> str | None:
    """The class ``call`` constructs from the mapping ``spread`` names, resolved through
    the module's imports: ``X(..., **spread)``, ``X.model_validate(spread)``; else None."""
    func = call.func
    if any(k.arg is None and _is_name(k.value, spread) for k in call.keywords):
        return resolver.resolve(func)
    if type(func) is ast.Attribute and func.attr in MAPPING_VALIDATORS and call.args and _is_name(call.args[0], spread):
        return resolver.resolve(func.value)
    return None


def _own_method(walk: _Walk, resolver: _Resolver, call: ast.Call, scope: str) -> tuple[str, tuple[str, ...]]:
    """(the class, the parameters after ``self``) when ``call`` is ``self.name(...)``
    on the instance of a method's class (``self`` as :meth:`_Constructions.receiver_class`
    knows it: a method of a class defined outside any function, its receiver bound
    nowhere else in it), and that class statement's own scope binds ``name`` once, by
    one ``def`` in its body with no decorator (a decorator may take other parameters),
    which no method of it sets on ``self`` (an instance's attribute hides the method);
    else ("", ()). Its parameters are those taken by position, as a function's are
    (see :func:`_signatures`), but the first: ``self``, which the call does not give.
    Which method an instance of a subclass overriding it calls is not known: the
    class's own is taken, as DOM105 takes ``self.helper()`` (see ``derived``)."""
    func = call.func
    if type(func) is not ast.Attribute or type(func.value) is not ast.Name or scope == MODULE_SCOPE:
        return "", ()
    owner = _finder(walk, resolver).receiver_class(func.value.id, call, tuple(scope.split(".")), classes=False)
    if owner is None:
        return "", ()
    qualname, name = owner.removeprefix(f"{resolver.module}."), func.attr
    for node, outer, _ in walk.classes:
        if ".".join((*outer, node.name)) == qualname and _contains(node, call):
            parameters = _method_parameters(node, name)
            if parameters is None or _set_on_instances(walk, qualname, name):
                return "", ()
            return qualname, parameters
    return "", ()


def _method_parameters(node: ast.ClassDef, name: str) -> tuple[str, ...] | None:
    """The parameters the method ``name`` of the class statement ``node`` takes by
    position after its receiver, when its scope binds ``name`` once, by a ``def`` in
    its body with no decorator; else None."""
    defined = [
        s for s in node.body if (type(s) is ast.FunctionDef or type(s) is ast.AsyncFunctionDef) and s.name == name
    ]
    if len(defined) != 1 or defined[0].decorator_list:
        return None
    bound = 0
    for statement in _class_scope(node.body):
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            bound += statement.name == name  # type: ignore[attr-defined]
        else:
            bound += sum(1 for bound_name, _ in _binding_sites(statement) if bound_name == name)
    arguments = defined[0].args
    positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
    return tuple(positional[1:]) if bound == 1 and positional else None


def _set_on_instances(walk: _Walk, owner: str, name: str) -> bool:
    """Whether a method of the class ``owner`` sets the attribute ``name`` on its instance."""
    return any(
        not member.class_level and member.owner == owner and member.name.text == name
        for member in (*walk.members, *walk.other_members)
    )


# What a decorator making a method a property resolves to: the builtin (bound by no
# import), and the standard library's caching one.
_PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property"})


def _properties(walk: _Walk, resolver: _Resolver) -> tuple[str, ...]:
    """The qualnames of the methods (of classes defined outside any function) that a
    decorator makes a property: ``@property``, ``@functools.cached_property`` (``from
    functools import cached_property as memoized`` too). A module binding ``property``
    itself, or star-importing, gives it another meaning, or none known."""
    found = set()
    for method, owner in walk.methods.items():
        for decorator in method.decorator_list:
            if resolver.resolve(decorator) in _PROPERTY_DECORATORS:
                found.add(f"{owner}.{method.name}")
                break
    return tuple(sorted(found))

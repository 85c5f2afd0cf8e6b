"""Calls that build an instance of a class other than by calling the class by name (see
ConstructionFact), as :class:`_Constructions` finds them, once per walk; and the
attributes set on a local holding one (see AttributeSetFact).
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.records import MODULE_SCOPE, OBJECT_SETATTR, SETATTR, AttributeSetFact, Text
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.scopes import _binding_sites, _module_statements, _own_statements
from domain_fence.core.source.facts.syntax import (
    _contains,
    _decorator_names,
    _receiver,
    _simple_assignment,
    dotted_name,
)
from domain_fence.core.source.facts.walk import _Walk
from domain_fence.core.source.flow import JSON_VALIDATOR, MAPPING_VALIDATORS, key_written

# Pydantic's class methods that build an instance from the fields they are given.
MODEL_CONSTRUCT, MODEL_VALIDATE, MODEL_COPY = "model_construct", "model_validate", "model_copy"
_BUILDING_METHODS = (MODEL_CONSTRUCT, *MAPPING_VALIDATORS, JSON_VALIDATOR)
# What a method's receiver stands for, as the form of a construction names it.
CLS, TYPE_SELF, SELF_CLASS = "cls", "type(self)", "self.__class__"
# How a construction through a local alias of a class names it (``local Event``): no
# name of Python, nor any other form.
LOCAL = "local"
SUPER_INIT = "super().__init__"
PARTIAL, REPLACE = "partial", "replace"
_PARTIALS = frozenset({"functools.partial"})
_REPLACES = frozenset({"dataclasses.replace", "copy.replace"})
_PARTIALS_REPLACES = _PARTIALS | _REPLACES
# How a call of a module-level name bound to a partial of a class (``Resampled =
# partial(Event, ...)``; ``Resampled(...)``) names it: ``partial Resampled``. No other
# form starts so: a partial's own are ``partial`` and ``partial(cls)``, ...
BOUND_PARTIAL = f"{PARTIAL} "
# Methods whose first parameter is the class (implicitly, for the dunders).
_CLASS_RECEIVING = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


def _constructions(walk: _Walk, resolver: _Resolver, tree: ast.Module) -> list[tuple[ast.Call, str, str, str]]:
    """(call, scope, form, class built) of each construction among the calls the walk
    found, once per walk (the facts and the flow facts both ask)."""
    if walk.found_constructions is None:
        finder = _finder(walk, resolver)
        found = []
        for call, scope in walk.calls:
            construction = finder.construction(call, scope)
            if construction is not None:
                found.append((call, ".".join(scope) or MODULE_SCOPE, *construction))
        walk.found_constructions = found
    return walk.found_constructions


def _finder(walk: _Walk, resolver: _Resolver) -> _Constructions:
    """The walk's finder of constructions, made once (it keeps what it found)."""
    if walk.finder is None:
        walk.finder = _Constructions(walk, resolver)
    return walk.finder


class _Constructions:
    """Which calls build an instance of a class other than by calling it by name, and
    of which class, from this module alone (whether it is an event is the check's
    question). Only what is known soundly:

    - a class method's ``cls`` is its class, a method's ``self`` an instance of it,
      for the methods of a class defined outside any function, when nothing else in
      the method (nested functions included) binds that name (``type(self)`` also
      needs ``type`` bound nowhere in the module); a subclass's instance is one of
      an event when the class is an event; so is what such a method's
      ``super().__init__(...)`` initializes (``super`` bound nowhere in the module);
    - a local variable holds an instance of X when every binding of its name in the
      function (nested scopes included) is an assignment, in the function's own
      scope, of ``X(...)``, ``X.model_construct(...)`` or ``X.model_validate(...)``,
      with the same X, and the name is no parameter (a ``global`` or ``nonlocal``
      declaration counts as a binding);
    - a local variable is an alias of X when its one binding in the function is an
      assignment of X, a dotted name the function binds nowhere (``Event =
      TelemetryEvent``; see :meth:`local_alias`): a call of it (``Event(...)``,
      ``Event.model_construct(...)``, ``partial(Event, ...)``) builds an X, with the
      form ``local Event``;
    - a call of a module-level name bound to ``functools.partial(X, ...)`` builds an
      X, with the form ``partial Name`` (see :meth:`bound_partials`).
    """

    def __init__(self, walk: _Walk, resolver: _Resolver) -> None:
        # What it reads of the walk, not the walk: the walk keeps this finder, and a
        # reference cycle would outlive the file in a process whose cyclic collector
        # is off (the console script's and its parsing workers': each file's tree kept).
        self.functions = walk.functions
        self.methods = walk.methods
        self.resolver = resolver
        self.receivers = {_receiver(method) for method in walk.methods}
        self._bound: dict[ast.AST, dict[str, int]] = {}  # node -> bindings of each name in it
        self._locals: dict[tuple[ast.AST, str], str | None] = {}
        self.aliases = walk.alias_locals
        self._aliases: dict[tuple[ast.AST, str], str | None] = {}  # see alias
        self._partials: dict[str, str] | None = None  # see bound_partials

    def construction(self, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """(form, class) when ``call`` is a construction; on the path of every call with
        keywords, so most are turned away by their callee's shape."""
        func = call.func
        kind = type(func)
        if kind is ast.Attribute:
            attr = func.attr  # type: ignore[attr-defined]
            if attr in _BUILDING_METHODS:
                found = self.class_of(func.value, call, scope)  # type: ignore[attr-defined]
                if found is None:
                    return None
                label, built = found
                return (f"{label}.{attr}" if label else attr), built
            if attr == MODEL_COPY:
                if not any(keyword.arg == "update" for keyword in call.keywords):
                    return None
                instance = self.instance_of(func.value, call, scope)  # type: ignore[attr-defined]
                return None if instance is None else (MODEL_COPY, instance)
            if attr == "__class__":
                found = self.class_of(func, call, scope)
                return None if found is None or not found[0] else found
            if attr == "__init__":
                return self.initialized(func.value, call, scope)  # type: ignore[attr-defined]
            if attr not in (PARTIAL, REPLACE):
                return None
        elif kind is ast.Name:
            name = func.id  # type: ignore[attr-defined]
            if name in self.receivers or name in self.aliases:
                found = self.class_of(func, call, scope)
                if found is not None and found[0]:
                    return found
                if name in self.receivers:
                    return None
            # ``partial``/``replace``, or either imported under another name (``from
            # functools import partial as p``): resolved below.
            if name not in (PARTIAL, REPLACE) and self.resolver.bindings.get(name) not in _PARTIALS_REPLACES:
                bound = self.bound_partials().get(name)
                return None if bound is None else (f"{BOUND_PARTIAL}{name}", bound)
        elif kind is ast.Call:
            found = self.class_of(func, call, scope)
            return None if found is None or not found[0] else found
        else:
            return None
        callee = self.resolver.resolve(func)
        if callee in _PARTIALS and call.args:
            found = self.class_of(call.args[0], call, scope)
            if found is None:
                return None
            label, built = found
            return (f"{PARTIAL}({label})" if label else PARTIAL), built
        if callee in _REPLACES and call.args:
            instance = self.instance_of(call.args[0], call, scope)
            return None if instance is None else (REPLACE, instance)
        return None

    def bound_partials(self) -> dict[str, str]:
        """The class each module-level name bound to a partial of one builds when called
        (``Resampled = partial(Event, kind="Resampled")``), worked out once, when first
        asked: the name is bound once in the whole module (no other assignment, import,
        parameter or local of a function), by a simple assignment among the module's
        statements of a call of ``functools.partial`` (under any name the module imports
        it by, bound once too) whose first argument is a dotted name. Whether that names
        a class, an event, is the check's question."""
        if self._partials is None:
            self._partials = {}
            resolver = self.resolver
            counts = resolver.binding_counts()
            for statement in _module_statements(resolver.tree) if resolver.tree is not None else ():
                target, value = _simple_assignment(statement)
                if target is None or type(value) is not ast.Call or not value.args or counts.get(target) != 1:
                    continue
                callee = dotted_name(value.func)
                class_name = dotted_name(value.args[0])
                if callee and class_name and resolver.imported_reference(callee) in _PARTIALS:
                    self._partials[target] = resolver.resolve_dotted(class_name)
        return self._partials

    def initialized(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """``super().__init__(...)`` called by a method of its own (not a nested
        function's), with the builtin ``super``: it initializes an instance of the
        method's class, given the fields it names."""
        if not (
            type(node) is ast.Call
            and type(node.func) is ast.Name
            and node.func.id == "super"
            and not node.args
            and not node.keywords
        ):
            return None
        function = self.innermost(call, scope)
        owner = self.methods.get(function) if function is not None else None
        if owner is None or self.resolver.binding_counts().get("super"):
            return None
        return SUPER_INIT, f"{self.resolver.module}.{owner}"

    def class_of(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """(how it is named, the class) for an expression naming a class: a dotted name
        (named as written: ""), a class method's ``cls``, ``type(self)`` or
        ``self.__class__`` in a method."""
        kind = type(node)
        if kind is ast.Name and node.id in self.receivers:  # type: ignore[attr-defined]
            owner = self.receiver_class(node.id, call, scope, classes=True)  # type: ignore[attr-defined]
            if owner is not None:
                return CLS, owner
        elif kind is ast.Attribute and node.attr == "__class__" and type(node.value) is ast.Name:  # type: ignore[attr-defined]
            owner = self.receiver_class(node.value.id, call, scope, classes=False)  # type: ignore[attr-defined]
            return None if owner is None else (SELF_CLASS, owner)
        elif kind is ast.Call:
            if not (
                type(node.func) is ast.Name  # type: ignore[attr-defined]
                and node.func.id == "type"  # type: ignore[attr-defined]
                and len(node.args) == 1  # type: ignore[attr-defined]
                and not node.keywords  # type: ignore[attr-defined]
                and type(node.args[0]) is ast.Name  # type: ignore[attr-defined]
            ):
                return None
            owner = self.receiver_class(node.args[0].id, call, scope, classes=False)  # type: ignore[attr-defined]
            if owner is None or self.resolver.binding_counts().get("type"):
                return None  # not a method's receiver, or not the builtin ``type``
            return TYPE_SELF, owner
        if kind is ast.Name and node.id in self.aliases:  # type: ignore[attr-defined]
            aliased = self.alias(node.id, call, scope)  # type: ignore[attr-defined]
            if aliased is not None:
                return f"{LOCAL} {node.id}", aliased  # type: ignore[attr-defined]
        reference = dotted_name(node)
        return None if reference is None else ("", self.resolver.resolve_dotted(reference))

    def alias(self, name: str, node: ast.expr, scope: tuple[str, ...]) -> str | None:
        """What the local variable ``name`` is an alias of where ``node`` is (in the
        function ``scope`` names): see :meth:`local_alias`."""
        function = self.innermost(node, scope)
        if function is None:
            return None
        key = (function, name)
        if key not in self._aliases:
            self._aliases[key] = self.local_alias(function, name)
        return self._aliases[key]

    def local_alias(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
        """The dotted name, resolved as a callee is, that ``function`` binds the local
        ``name`` to (``Event = TelemetryEvent``, ``make = events.StepEvent``), when that
        is its only binding in the function (nested scopes included: no parameter, no
        second assignment, loop, import or ``global``), a simple assignment in the
        function's own statements, of a name or an attribute of one the function binds
        nowhere (``cls_ = self.event_type``, an alias of another local: not followed).
        Whether it names a class, an event, is the check's question."""
        bound = self.bindings(function)
        if bound.get(name) != 1:
            return None
        for statement in _own_statements(function.body):
            target, value = _simple_assignment(statement)
            if target != name:
                continue
            reference = dotted_name(value) if type(value) is ast.Name or type(value) is ast.Attribute else None
            if reference is None or bound.get(reference.partition(".")[0]):
                return None
            return self.resolver.resolve_dotted(reference)
        return None  # bound otherwise: a parameter, a loop, an import, ...

    def instance_of(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> str | None:
        """The class ``node`` holds an instance of: a method's ``self``, a local variable
        assigned constructions of one class alone, or a construction itself
        (``X(...)``, ``X.model_construct(...)``, ``X.model_validate(...)``)."""
        if type(node) is ast.Call:
            return self.constructed_class(node)
        if type(node) is not ast.Name:
            return None
        name = node.id
        if name in self.receivers:
            owner = self.receiver_class(name, call, scope, classes=False)
            if owner is not None:
                return owner
        return self.local_instance(name, call, scope)

    def local_instance(self, name: str, node: ast.expr, scope: tuple[str, ...]) -> str | None:
        """The class the local variable ``name`` holds an instance of where ``node`` is
        (in the function ``scope`` names): see :meth:`local_class`."""
        function = self.innermost(node, scope)
        if function is None:
            return None
        key = (function, name)
        if key not in self._locals:
            self._locals[key] = self.local_class(function, name)
        return self._locals[key]

    def constructed_class(self, value: ast.Call) -> str | None:
        """The class a call of a dotted name builds, as :meth:`local_class` reads an
        assignment's value: ``X(...)``, ``X.model_construct(...)``, ``X.model_validate(...)``
        (whether X is a class, an event, is the check's question)."""
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _BUILDING_METHODS:
            func = func.value
        reference = dotted_name(func)
        return None if reference is None else self.resolver.resolve_dotted(reference)

    def receiver_class(self, name: str, call: ast.expr, scope: tuple[str, ...], classes: bool) -> str | None:
        """The class (``module.Qualname``) of the method ``call`` is in (or nested in)
        whose receiver ``name`` is, when it receives the class (``classes``) or an
        instance, and nothing else in it binds ``name``."""
        for end in range(len(scope), 0, -1):
            for function in self.functions.get(scope[:end], ()):
                if not _contains(function, call):
                    continue
                owner = self.methods.get(function)
                if owner is None:
                    break  # a nested function: its receiver is the enclosing method's
                if _receiver(function) != name or _receives_class(function) != classes:
                    return None
                if self.bindings(function).get(name) != 1:  # its parameter alone
                    return None
                return f"{self.resolver.module}.{owner}"
        return None

    def innermost(self, node: ast.expr, scope: tuple[str, ...]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for function in self.functions.get(scope, ()):
            if _contains(function, node):
                return function
        return None

    def local_class(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
        assigned = {}  # target node -> the class reference assigned, as written
        for statement in _own_statements(function.body):
            target, value = _simple_assignment(statement)
            if target != name or not isinstance(value, ast.Call):
                continue
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in _BUILDING_METHODS:
                func = func.value
            reference = dotted_name(func)
            node = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target  # type: ignore[attr-defined]
            if reference is None:
                return None
            assigned[node] = reference
        if len(set(assigned.values())) != 1:
            return None
        if self.bindings(function).get(name) != len(assigned):
            return None  # bound otherwise too (a parameter, a loop, a nested scope, ...)
        return self.resolver.resolve_dotted(next(iter(assigned.values())))

    def bindings(self, node: ast.AST) -> dict[str, int]:
        found = self._bound.get(node)
        if found is None:
            found = self._bound[node] = {}
            for name, _ in _binding_sites(node):
                found[name] = found.get(name, 0) + 1
        return found


def _receives_class(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return method.name in _CLASS_RECEIVING or "classmethod" in _decorator_names(method)


def _attribute_sets(walk: _Walk, resolver: _Resolver) -> list[AttributeSetFact]:
    """The attributes the walk saw set on a local variable of a function that holds an
    instance of one class wherever the function reads it (:meth:`_Constructions.local_instance`,
    asked only of the locals the same scope assigns a call): ``event.episode = n``,
    ``setattr(event, "epoch", n)``, ``object.__setattr__(event, "epoch", n)`` (``setattr``
    and ``object`` the builtins: bound nowhere in the module, which star-imports nothing)."""
    if not walk.attribute_sets:
        return []
    assigned = {(scope, local) for scope, local, _ in walk.assigned_calls}
    finder: _Constructions | None = None
    found = []
    for node, scope in walk.attribute_sets:
        if isinstance(node, ast.Attribute):
            holder, attribute = node.value, node.attr
            width = len(attribute.encode("utf-8"))
            line, col = node.end_lineno or node.lineno, (node.end_col_offset or 0) - width
            form = ""
        else:
            holder, key = node.args[0], node.args[1]  # see _Walk.set_through_call
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()):
                continue
            attribute, written = key.value, key_written(key)
            line, col = written.lineno, written.col_offset
            form = SETATTR if type(node.func) is ast.Name else OBJECT_SETATTR
        if type(holder) is not ast.Name or (scope, holder.id) not in assigned:
            continue
        if form and (resolver.unbound_prefix or resolver.binding_counts().get(form.partition(".")[0])):
            continue  # ``setattr`` or ``object`` may not be the builtin
        finder = finder or _finder(walk, resolver)
        built = finder.local_instance(holder.id, holder, scope)
        if built:
            where = Text(holder.id, holder.lineno, holder.col_offset)
            found.append(
                AttributeSetFact(built, form, ".".join(scope) or MODULE_SCOPE, where, Text(attribute, line, col))
            )
    return found

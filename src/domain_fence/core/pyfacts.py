"""What one module says about names: its imports, its classes and their attributes,
and the calls it makes with keyword arguments.

:func:`module_facts` is a pure function of the module's name, whether it is a
package, and its tree, so the index can cache its result per file version and the
cross-module questions of :mod:`.events` never parse a file twice. Names are
resolved only as far as this module can see (``from .base import Event as E`` makes
``E`` mean ``pkg.base.Event``); following re-exports into other modules is left to
the caller, which has the whole project.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .modules import resolve_relative
from .source import Unreadable

MODULE_SCOPE = "<module>"
ALIAS_KEYWORDS = ("alias", "validation_alias", "serialization_alias")
FUNCTIONAL_CLASS_FACTORIES = ("TypedDict", "NamedTuple", "namedtuple")
_METHOD_FACTORIES = ("property", "staticmethod", "classmethod", "cached_property")
_FACTORY_OPTIONS = ("total", "rename", "defaults", "module", "closed", "extra_items")


@dataclass(frozen=True)
class Text:
    """A string or a name at a place in the file (1-based line, 0-based column)."""

    text: str
    line: int
    col: int


@dataclass(frozen=True)
class AttributeFact:
    """A class-level attribute: annotated, assigned, or a functional-form field."""

    name: Text
    strings: tuple[Text, ...] = ()  # string values: ``= "x"``, ``Literal["x"]``
    aliases: tuple[Text, ...] = ()  # ``Field(alias="x", validation_alias=...)`` strings


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # "Outer.Inner"; a class in a function is "function.Inner"
    line: int
    col: int
    bases: tuple[str, ...]  # dotted references, resolved through this module's imports
    attributes: tuple[AttributeFact, ...]


@dataclass(frozen=True)
class CallFact:
    """A call with keyword arguments whose callee is a dotted name."""

    callee: str  # resolved through this module's imports
    scope: str  # qualname of the enclosing function or class, or MODULE_SCOPE
    keywords: tuple[Text, ...]


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    unreadable: Unreadable | None = None
    classes: dict[str, ClassFact] = field(default_factory=dict)  # qualname -> fact
    bindings: dict[str, str] = field(default_factory=dict)  # top-level name -> dotted target
    star_imports: tuple[str, ...] = ()  # modules imported with ``from x import *``
    calls: tuple[CallFact, ...] = ()


@dataclass(frozen=True)
class DefinitionFact:
    """A class, function or method defined outside any function body."""

    kind: str  # "class", "function" or "method"
    qualname: str  # "Outer.method"
    name: Text  # at the ``class``/``def`` keyword (or the assignment of a functional class)
    parameters: tuple[Text, ...] = ()  # every parameter of a function or method, in order


@dataclass(frozen=True)
class MemberFact:
    """An attribute a class declares, at its first declaration."""

    owner: str  # qualname of the class
    name: Text
    class_level: bool  # in the class body; False for ``self.<name> = ...`` in a method


@dataclass(frozen=True)
class DeclarationFacts:
    """Every name a module declares outside function bodies (locals are not declarations)."""

    module: str
    unreadable: Unreadable | None = None
    definitions: tuple[DefinitionFact, ...] = ()  # in source order
    members: tuple[MemberFact, ...] = ()  # one per (owner, name), in source order


def module_facts(module: str, is_package: bool, tree: ast.Module | Unreadable | None) -> ModuleFacts:
    if tree is None:
        return ModuleFacts(module)
    if isinstance(tree, Unreadable):
        return ModuleFacts(module, unreadable=tree)
    local_classes = _top_level_classes(tree)
    bindings, stars = _bindings(module, is_package, tree, local_classes)
    collector = _Collector(module, bindings, local_classes, bool(stars))
    collector.visit(tree)
    return ModuleFacts(
        module=module,
        # A class defined twice counts as its last definition, as at run time.
        classes={fact.qualname: fact for fact in sorted(collector.classes, key=lambda f: (f.line, f.col))},
        bindings=bindings,
        star_imports=tuple(stars),
        calls=tuple(sorted(collector.calls, key=lambda c: [(k.line, k.col) for k in c.keywords])),
    )


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


def _top_level_classes(tree: ast.Module) -> set[str]:
    """Names of the classes a module defines at its top level, functional forms too."""
    names = set()
    for statement in _module_statements(tree):
        if isinstance(statement, ast.ClassDef):
            names.add(statement.name)
        target, value = _simple_assignment(statement)
        if target and isinstance(value, ast.Call):
            callee = dotted_name(value.func)
            if callee and callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES:
                names.add(target)
    return names


def _bindings(
    module: str, is_package: bool, tree: ast.Module, local_classes: set[str]
) -> tuple[dict[str, str], list[str]]:
    """What each top-level name refers to: local classes, names imported anywhere in the
    module (module level first: ast.walk is breadth first), and module-level aliases
    such as ``Event = schemas.TelemetryEvent``."""
    bindings: dict[str, str] = {name: f"{module}.{name}" for name in sorted(local_classes)}
    stars: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bindings.setdefault(alias.asname, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    bindings.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom):
            source = _import_source(module, is_package, node)
            if source is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    stars.append(source)
                else:
                    bindings.setdefault(alias.asname or alias.name, f"{source}.{alias.name}")
    for statement in _module_statements(tree):
        target, value = _simple_assignment(statement)
        if target and isinstance(value, (ast.Name, ast.Attribute)):
            reference = dotted_name(value)
            if reference and reference != target:
                bindings.setdefault(target, _resolve(reference, bindings, module, local_classes))
    return bindings, stars


def _import_source(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    return resolve_relative(module, is_package, node.level, node.module)


def _module_statements(tree: ast.Module):
    """Module-level statements, including those inside ``if``/``try`` blocks."""
    pending = list(tree.body)
    while pending:
        statement = pending.pop(0)
        yield statement
        if isinstance(statement, ast.If):
            pending += statement.body + statement.orelse
        elif isinstance(statement, ast.Try):
            pending += statement.body + statement.orelse + statement.finalbody
            for handler in statement.handlers:
                pending += handler.body


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


class _Collector:
    """Classes (with their attributes) and keyword calls, with their enclosing scope.

    An explicit stack rather than ast.NodeVisitor: machine-written code nests deep
    enough to exhaust Python's recursion limit.
    """

    def __init__(self, module: str, bindings: dict[str, str], local_classes: set[str], has_star_imports: bool) -> None:
        self.module = module
        self.bindings = bindings
        self.local_classes = local_classes
        # An unbound name may come from a star import: keep it module-qualified so the
        # resolver can look for it there.
        self.unbound_prefix = f"{module}." if has_star_imports else ""
        self.classes: list[ClassFact] = []
        self.calls: list[CallFact] = []

    def visit(self, tree: ast.Module) -> None:
        for statement in _module_statements(tree):
            self._functional_class(statement)
        pending: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
        while pending:
            node, scope = pending.pop()
            inner = scope
            if isinstance(node, ast.ClassDef):
                self._class(node, scope)
                inner = (*scope, node.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = (*scope, node.name)
            elif isinstance(node, ast.Call):
                self._call(node, scope)
            pending.extend((child, inner) for child in ast.iter_child_nodes(node))

    def resolve(self, node: ast.expr) -> str | None:
        reference = dotted_name(node)
        if reference is None:
            return None
        head = reference.split(".", 1)[0]
        if head not in self.bindings and head not in self.local_classes:
            return self.unbound_prefix + reference
        return _resolve(reference, self.bindings, self.module, self.local_classes)

    def _class(self, node: ast.ClassDef, scope: tuple[str, ...]) -> None:
        bases = []
        for base in node.bases:
            if isinstance(base, ast.Subscript):  # Generic[T], BaseModel[...]
                base = base.value
            reference = self.resolve(base)
            if reference:
                bases.append(reference)
        qualname = ".".join((*scope, node.name))
        self.classes.append(ClassFact(qualname, node.lineno, node.col_offset, tuple(bases), tuple(_attributes(node.body))))

    def _call(self, node: ast.Call, scope: tuple[str, ...]) -> None:
        keywords = tuple(Text(k.arg, k.lineno, k.col_offset) for k in node.keywords if k.arg is not None)
        callee = self.resolve(node.func) if keywords else None
        if callee:
            self.calls.append(CallFact(callee, ".".join(scope) or MODULE_SCOPE, keywords))

    def _functional_class(self, statement: ast.stmt) -> None:
        """``X = TypedDict("X", {...})`` and the NamedTuple/namedtuple forms."""
        target, value = _simple_assignment(statement)
        if not (target and isinstance(value, ast.Call)):
            return
        callee = self.resolve(value.func)
        if not callee or callee.rsplit(".", 1)[-1] not in FUNCTIONAL_CLASS_FACTORIES:
            return
        self.classes.append(
            ClassFact(target, statement.lineno, statement.col_offset, (callee,), tuple(_functional_fields(value)))
        )


def _attributes(body: list[ast.stmt]):
    """Class-level attributes that are not methods or dunders."""
    methods = {s.name for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    pending = list(body)
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, ast.If):
            pending[:0] = statement.body + statement.orelse
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name = statement.target
            if not _is_dunder(name.id):
                strings = _distinct(_literal_strings(statement.annotation) + _string_value(statement.value))
                yield AttributeFact(_text(name, name.id), strings, _aliases(statement.value))
        elif isinstance(statement, ast.Assign):
            if _is_method_like(statement.value, methods):
                continue
            for target in statement.targets:
                for name in _target_names(target):
                    if not _is_dunder(name.id):
                        yield AttributeFact(_text(name, name.id), _string_value(statement.value), _aliases(statement.value))


def _target_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_method_like(value: ast.expr, methods: set[str]) -> bool:
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name) and value.id in methods:
        return True  # an alias of a method defined in the class
    if isinstance(value, ast.Call):
        callee = dotted_name(value.func)
        return callee is not None and callee.rsplit(".", 1)[-1] in _METHOD_FACTORIES
    return False


def _text(node: ast.AST, text: str) -> Text:
    return Text(text, node.lineno, node.col_offset)


def _string_value(value: ast.expr | None) -> tuple[Text, ...]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return (_text(value, value.value),)
    return ()


def _distinct(texts: tuple[Text, ...]) -> tuple[Text, ...]:
    """One of each string: ``kind: Literal["x"] = "x"`` names one kind."""
    first: dict[str, Text] = {}
    for text in texts:
        first.setdefault(text.text, text)
    return tuple(first.values())


def _literal_strings(annotation: ast.expr) -> tuple[Text, ...]:
    """The strings of ``Literal["a", "b"]`` (also inside ``ClassVar[Literal[...]]``)."""
    found = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.Subscript) and (dotted_name(node.value) or "").rsplit(".", 1)[-1] == "Literal":
            found += [
                _text(item, item.value)
                for item in ast.walk(node.slice)
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
    return tuple(found)


def _aliases(value: ast.expr | None) -> tuple[Text, ...]:
    """String aliases given to a field specifier: ``Field(alias="a")``,
    ``validation_alias=AliasChoices("b", AliasPath("c", 0))``, ``serialization_alias``."""
    if not isinstance(value, ast.Call):
        return ()
    return tuple(
        _text(node, node.value)
        for keyword in value.keywords
        if keyword.arg in ALIAS_KEYWORDS
        for node in ast.walk(keyword.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _functional_fields(call: ast.Call):
    """Field names of ``TypedDict("X", {"a": int})``, ``NamedTuple("X", [("a", int)])``,
    ``namedtuple("X", "a b")`` / ``namedtuple("X", ["a", "b"])`` and keyword forms."""
    spec = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg in ("fields", "field_names"):
            spec = keyword.value
        elif keyword.arg and keyword.arg not in _FACTORY_OPTIONS:
            yield AttributeFact(Text(keyword.arg, keyword.lineno, keyword.col_offset))
    if isinstance(spec, ast.Dict):
        for key in spec.keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield AttributeFact(_text(key, key.value))
    elif isinstance(spec, (ast.List, ast.Tuple)):
        for element in spec.elts:
            if isinstance(element, (ast.Tuple, ast.List)) and element.elts:
                element = element.elts[0]
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                yield AttributeFact(_text(element, element.value))
    elif isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        for name in spec.value.replace(",", " ").split():
            yield AttributeFact(_text(spec, name))


def declaration_facts(module: str, is_package: bool, tree: ast.Module | Unreadable | None) -> DeclarationFacts:
    """The classes, functions, methods, parameters and attributes ``module`` declares.

    Like :func:`module_facts`, a pure function of its arguments, so the index caches it
    per file version. What is inside a function body is local and left out, except the
    ``self.<name> = ...`` assignments of a method: those declare attributes of its class.
    """
    if tree is None:
        return DeclarationFacts(module)
    if isinstance(tree, Unreadable):
        return DeclarationFacts(module, unreadable=tree)
    definitions: list[DefinitionFact] = []
    members: list[MemberFact] = []
    for statement in _module_statements(tree):
        target, value = _simple_assignment(statement)
        if target and isinstance(value, ast.Call) and _names_functional_class(value):
            definitions.append(DefinitionFact("class", target, _text(statement, target)))
            members += [MemberFact(target, field.name, True) for field in _functional_fields(value)]
    # An explicit stack (see _Collector): (node, qualname parts, enclosing class or None).
    pending: list[tuple[ast.AST, tuple[str, ...], str | None]] = [(tree, (), None)]
    while pending:
        node, scope, owner = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                qualname = ".".join((*scope, child.name))
                definitions.append(DefinitionFact("class", qualname, _text(child, child.name)))
                members += [MemberFact(qualname, a.name, True) for a in _attributes(child.body)]
                pending.append((child, (*scope, child.name), qualname))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = ".".join((*scope, child.name))
                kind = "method" if owner else "function"
                definitions.append(DefinitionFact(kind, qualname, _text(child, child.name), _parameters(child.args)))
                if owner:
                    members += [MemberFact(owner, name, False) for name in _instance_attributes(child)]
            elif not isinstance(child, ast.Lambda):  # a function body is local; so is a lambda's
                pending.append((child, scope, owner))
    first: dict[tuple[str, str], MemberFact] = {}
    for member in sorted(members, key=lambda m: (m.name.line, m.name.col)):
        first.setdefault((member.owner, member.name.text), member)
    return DeclarationFacts(
        module=module,
        definitions=tuple(sorted(definitions, key=lambda d: (d.name.line, d.name.col))),
        members=tuple(first.values()),
    )


def _names_functional_class(call: ast.Call) -> bool:
    callee = dotted_name(call.func)
    return callee is not None and callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES


def _parameters(arguments: ast.arguments) -> tuple[Text, ...]:
    return tuple(_text(arg, arg.arg) for arg in _argument_nodes(arguments))


def _argument_nodes(arguments: ast.arguments) -> list[ast.arg]:
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return [arg for arg in every if arg is not None]


def _instance_attributes(method: ast.FunctionDef | ast.AsyncFunctionDef):
    """Names assigned as ``self.<name> = ...`` (or ``cls.<name>`` in a classmethod)
    anywhere in the method, closures included unless they rebind ``self``."""
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or "staticmethod" in _decorator_names(method):
        return
    receiver = positional[0].arg
    pending: list[ast.AST] = list(method.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            targets = []
        for target in targets:
            yield from _receiver_attributes(target, receiver)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if any(arg.arg == receiver for arg in _argument_nodes(node.args)):
                continue  # a nested function with its own ``self``
        pending.extend(ast.iter_child_nodes(node))


def _decorator_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Last parts of the decorators' names: ``staticmethod``, ``setter``, ``cache``."""
    names = (dotted_name(d.func if isinstance(d, ast.Call) else d) for d in function.decorator_list)
    return {name.rsplit(".", 1)[-1] for name in names if name}


def _receiver_attributes(target: ast.expr, receiver: str):
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
        yield _text(target, target.attr)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _receiver_attributes(element, receiver)
    elif isinstance(target, ast.Starred):
        yield from _receiver_attributes(target.value, receiver)

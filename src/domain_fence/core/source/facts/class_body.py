"""What a class body declares: its attributes (annotated, assigned, a functional form's
fields, ``__slots__``) with the strings, aliases and names their values and field
specifiers give, the values that may be folded from names, and the names the body binds
to a string for certain.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from domain_fence.core.source.facts.folding import _literal_text, _may_spell, _string_value
from domain_fence.core.source.facts.module_constants import _table_subscript
from domain_fence.core.source.facts.records import ALIAS_KEYWORDS, FUNCTIONAL_CLASS_FACTORIES, AttributeFact, Text
from domain_fence.core.source.facts.scopes import _binding_sites, _class_scope
from domain_fence.core.source.facts.syntax import (
    _argument_nodes,
    _is_dunder,
    _simple_assignment,
    _target_names,
    _text,
    dotted_name,
)

_METHOD_FACTORIES = ("property", "staticmethod", "classmethod", "cached_property")
_FIELD_SPECIFIERS = ("Field", "field", "attrib", "ib")  # pydantic, dataclasses, attrs
_FACTORY_KEYWORDS = ("default_factory", "factory")  # pydantic and dataclasses, attrs
_FACTORY_OPTIONS = ("total", "rename", "defaults", "module", "closed", "extra_items")


def _attributes(body: list[ast.stmt]) -> Iterator[AttributeFact]:
    """Class-level attributes that are not methods or dunders."""
    methods = {s.name for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for statement in _class_scope(body):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name = statement.target
            if not _is_dunder(name.id):
                literals, specifiers = _annotation_parts(statement.annotation)
                default = _default_value(statement.value) if statement.value else _annotated_default(specifiers)
                strings = literals + _string_value(default)
                aliases = _aliases(statement.value) + tuple(text for call in specifiers for text in _aliases(call))
                yield AttributeFact(_text(name, name.id), _distinct(strings), aliases, _default_constant(default))
        elif isinstance(statement, ast.Assign):
            if _is_method_like(statement.value, methods):
                continue
            default = _default_value(statement.value)
            for target in statement.targets:
                for name in _target_names(target):
                    if not _is_dunder(name.id):
                        yield AttributeFact(
                            _text(name, name.id),
                            _string_value(default),
                            _aliases(statement.value),
                            _default_constant(default),
                        )


def _is_method_like(value: ast.expr, methods: set[str]) -> bool:
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name) and value.id in methods:
        return True  # an alias of a method defined in the class
    if isinstance(value, ast.Call):
        callee = dotted_name(value.func)
        return callee is not None and callee.rsplit(".", 1)[-1] in _METHOD_FACTORIES
    return False


def _distinct(texts: tuple[Text, ...]) -> tuple[Text, ...]:
    """One of each string: ``kind: Literal["x"] = "x"`` names one kind."""
    first: dict[str, Text] = {}
    for text in texts:
        first.setdefault(text.text, text)
    return tuple(first.values())


def _default_constant(default: ast.expr | None) -> Text | None:
    """The name a field defaults to (``= KIND``, ``Field(default=KIND)``, see
    :func:`_default_value`), which may be a module-level string constant; or the dotted
    name (``= Kinds.RESET``), which may name another module's, or a class's; or a name
    subscripted with a literal string, spelled as a table's entry (``= KINDS["reset"]``:
    ``KINDS['reset']``), which may be one of the module's tables or another module's."""
    if type(default) is ast.Name:
        return _text(default, default.id)
    if type(default) is ast.Subscript:  # ``= KINDS["reset"]``: a table's entry, maybe
        spelled = _table_subscript(default)
        return _text(default, spelled) if spelled else None
    dotted = dotted_name(default) if type(default) is ast.Attribute else None
    return _text(default, dotted) if default is not None and dotted else None


def _annotated_default(calls: list[ast.Call]) -> ast.expr | None:
    """The default the ``Field(...)`` calls of ``Annotated[...]``'s metadata give
    (``Annotated[str, Field(default="x")]``, ``Field("x")``, a factory): pydantic merges
    them, the last one giving a default wins, and a value assigned overrides them all."""
    for call in reversed(calls):
        if (dotted_name(call.func) or "").rsplit(".", 1)[-1] == "Field":
            default = _default_value(call)
            if default is not None:
                return default
    return None


def _default_value(value: ast.expr | None) -> ast.expr | None:
    """What a field defaults to: the value assigned, or given to a field specifier as
    its default, or returned by the lambda without parameters given as its factory
    (``Field(default_factory=lambda: "x")``, attrs' ``factory``)."""
    if isinstance(value, ast.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1] in _FIELD_SPECIFIERS:
        defaults = [keyword.value for keyword in value.keywords if keyword.arg == "default"]
        if defaults or value.args:
            return defaults[0] if defaults else value.args[0]
        factories = [keyword.value for keyword in value.keywords if keyword.arg in _FACTORY_KEYWORDS]
        factory = factories[0] if factories else None
        if type(factory) is ast.Lambda and not _argument_nodes(factory.args):
            return factory.body
        return None
    return value


def _annotation_parts(annotation: ast.expr) -> tuple[tuple[Text, ...], list[ast.Call]]:
    """The strings of ``Literal["a", "b"]`` (also inside ``ClassVar[Literal[...]]``),
    and the calls in ``Annotated[...]``'s metadata (``Annotated[str, Field(alias="a")]``:
    pydantic reads a field's aliases there as from its value); of a string annotation
    too (``"Literal['EpisodeEnd']"``)."""
    found, calls = [], []
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        parsed = _parsed_annotation(annotation)
        if parsed is None:
            return (), []
        annotation = parsed
    for node in ast.walk(annotation):
        if not isinstance(node, ast.Subscript):
            continue
        name = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
        if name == "Literal":
            found += [
                _text(item, item.value)
                for item in ast.walk(node.slice)
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
        elif name == "Annotated" and isinstance(node.slice, ast.Tuple):
            calls += [item for item in node.slice.elts[1:] if isinstance(item, ast.Call)]
    return tuple(found), calls


def _parsed_annotation(written: ast.Constant) -> ast.expr | None:
    """The expression a string annotation holds, its nodes placed in the file: where
    they are written, inside a plain one-line string; else at the string's quote."""
    text = str(written.value)
    plain = (
        written.lineno == written.end_lineno
        and (written.end_col_offset or 0) - written.col_offset == len(text.encode("utf-8")) + 2
    )
    parsed = _expression(text) if plain else None
    if parsed is None:  # escapes, lines, or spaces around it (``" Literal['x']"``)
        plain, parsed = False, _expression(text.strip())
        if parsed is None:
            return None
    for node in ast.walk(parsed):
        if isinstance(node, (ast.expr, ast.keyword)):
            if plain:  # the string's characters, one line, after its quote
                node.lineno = node.end_lineno = written.lineno
                node.col_offset += written.col_offset + 1
                node.end_col_offset = (node.end_col_offset or 0) + written.col_offset + 1
            else:
                node.lineno, node.col_offset = written.lineno, written.col_offset
                node.end_lineno, node.end_col_offset = written.end_lineno, written.end_col_offset
    return parsed


def _expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # no expression: no annotation to read
        return None


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


def _functional_fields(call: ast.Call) -> Iterator[AttributeFact]:
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


def _names_functional_class(call: ast.Call) -> bool:
    callee = dotted_name(call.func)
    return callee is not None and callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES


def _slots(body: list[ast.stmt]) -> Iterator[Text]:
    """The names ``__slots__`` lists in a class body (as ``_attributes`` reads it, in
    ``if`` branches too): a string, or strings in a tuple, list or set display, or the
    keys of a dict display (``{"name": "its docstring"}``); ``__dict__`` and
    ``__weakref__`` are no attributes of their own."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.If):
            pending += reversed(statement.body + statement.orelse)
            continue
        target, value = _simple_assignment(statement)
        if target != "__slots__" or value is None:
            continue
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            elements = value.elts
        elif isinstance(value, ast.Dict):
            elements = [key for key in value.keys if key is not None]
        else:
            elements = [value]
        for element in elements:
            if isinstance(element, ast.Constant) and isinstance(element.value, str) and not _is_dunder(element.value):
                yield _text(element, element.value)


def _folding_values(statements: list[ast.stmt]) -> dict[tuple[int, int], ast.expr]:
    """The values that the statements of a class's scope (:func:`_class_scope`) assign,
    or give a field specifier as its default (see :func:`_default_value`; with no value,
    in ``Annotated``: :func:`_annotated_default`), that may be
    folded from names (``PREFIX + "Done"``, ``f"{PREFIX}Done"``, ``"{}Done".format(PREFIX)``;
    not a literal alone), by where each name they are assigned to is written."""
    found: dict[tuple[int, int], ast.expr] = {}
    for statement in statements:
        if type(statement) is ast.Assign:
            targets = statement.targets
        elif type(statement) is ast.AnnAssign:
            targets = [statement.target]
        else:
            continue
        value = _default_value(statement.value)
        if value is None and type(statement) is ast.AnnAssign:
            value = _annotated_default(_annotation_parts(statement.annotation)[1])
        if value is None or type(value) is ast.Constant or not _may_spell(value):
            continue
        for target in targets:
            for name in _target_names(target):
                found[(name.lineno, name.col_offset)] = value
    return found


# The names that decide what an enumeration's member holds, bound in a class of it.
_VALUE_HOOKS = frozenset({"__new__", "__init__", "_generate_next_value_"})


def _binds_value_hooks(statements: list[ast.stmt], walrus: bool) -> bool:
    """Whether the statements of a class's scope (:func:`_class_scope`) bind one of
    :data:`_VALUE_HOOKS`, in any way (a ``def``, an assignment, an import, ...). An
    assignment's value binds a name of the scope only by an assignment expression
    (``walrus``: the scope holds one): else its targets alone are looked at (a class
    body assigns many values, and each would be walked)."""
    for statement in statements:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            names: Iterable[str] = (statement.name,)  # type: ignore[attr-defined]
        elif not walrus and (kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign):
            targets = statement.targets if kind is ast.Assign else [statement.target]  # type: ignore[attr-defined]
            names = (name for target in targets for name, _ in _binding_sites(target))
        else:
            names = (name for name, _ in _binding_sites(statement))
        if any(name in _VALUE_HOOKS for name in names):
            return True
    return False


def _class_constants(body: list[ast.stmt], constant: Callable[[str], str | None]) -> tuple[tuple[str, str], ...]:
    """The names a class body binds to a string, each for certain: by one simple
    assignment in the body itself (not in an ``if``, a loop or a method), of a literal
    or one folded from the module's string constants (``DONE = PREFIX + "Done"``;
    ``constant``), where nothing else in the class's scope binds the name."""
    candidates: list[tuple[str, str]] = []
    for statement in body:
        target, value = _simple_assignment(statement)
        if target and (_may_spell(value) or type(value) is ast.Name):
            text = _literal_text(value, constant)
            if text is not None:
                candidates.append((target, text))
    if not candidates:  # the usual class: no second look at its body
        return ()
    counts: dict[str, int] = {}
    for statement in body:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            names = [statement.name]  # type: ignore[attr-defined]
        else:  # a definition nested in a block counts its own names too: only fewer are kept
            names = [name for name, _ in _binding_sites(statement)]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return tuple((name, text) for name, text in candidates if counts.get(name) == 1)

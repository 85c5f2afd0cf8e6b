"""The names of one module resolved through its bindings (:class:`_Resolver`), and the
facts that need them: its classes, and the keywords of its calls and constructions with
the strings, constants, references, templates and keys they are given; the strings its
constants and tables hold for certain.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from domain_fence.core.source.facts.class_body import (
    _VALUE_HOOKS,
    _aliases,
    _binds_value_hooks,
    _class_constants,
    _folding_values,
    _functional_fields,
)
from domain_fence.core.source.facts.folding import _STRING_NODES, _is_str_format, _literal_text, _string_value
from domain_fence.core.source.facts.init_order import (
    _DATACLASS_DECORATOR,
    _GENERIC_BASES,
    _NAMEDTUPLE_BASES,
    _NOT_A_FIELD,
    _declared_fields,
    _defines_constructor,
    _is_constant,
    _unsubscripted,
)
from domain_fence.core.source.facts.module_constants import (
    _changing_uses,
    _is_table_spelled,
    _table_entries,
    _table_spelled,
    _table_subscript,
)
from domain_fence.core.source.facts.records import (
    DATACLASS,
    FUNCTIONAL_CLASS_FACTORIES,
    INHERITED,
    MODULE_SCOPE,
    NAMEDTUPLE,
    AttributeFact,
    CallFact,
    ClassFact,
    ConstructionFact,
    PositionalFact,
    ReceiverStringFact,
    Text,
)
from domain_fence.core.source.facts.scopes import _binding_sites, _class_scope
from domain_fence.core.source.facts.syntax import _is_dict, _is_dunder, _resolve, _simple_assignment, _text, dotted_name
from domain_fence.core.source.flow import (
    JSON_VALIDATOR,
    construction_keywords,
    construction_spreads,
    is_spread,
    union_keywords,
    unpacked_keywords,
)
from domain_fence.core.source.keys import json_keys, nested_keys

if TYPE_CHECKING:
    from domain_fence.core.source.facts.local_dicts import PayloadEntry, _Payloads
    from domain_fence.core.source.facts.local_strings import _LocalStrings


# Marks a name's slot in a string folded from imported names (see _Resolver.template).
_SLOT = "\x00"


_COMPUTED_FIELD = "computed_field"
# Compiled by re's cache when first used: most modules hold no string annotation.
# The dotted name a string annotation starts with (``"ClassVar[int]"``, ``"typing.ClassVar"``).
_STRING_ANNOTATION = r"\s*([^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)"
# The dotted name a subscript in a string annotation starts with (``[ClassVar[int], ...]``).
_STRING_SUBSCRIPT = r"\s*\[\s*([^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)"
_ANNOTATED = "Annotated"
_ATTRS_MODULES = frozenset({"attr", "attrs"})


class _Resolver:
    """Names of this module resolved through its bindings."""

    def __init__(
        self,
        module: str,
        bindings: dict[str, str],
        local_classes: set[str],
        has_star_imports: bool,
        tree: ast.Module | None = None,
        constants: dict[str, ast.expr] | None = None,
        tables: dict[str, ast.Dict] | None = None,
    ) -> None:
        self.module = module
        self.bindings = bindings
        self.local_classes = local_classes
        # An unbound name may come from a star import: keep it module-qualified so the
        # resolver of the whole project can look for it there.
        self.unbound_prefix = f"{module}." if has_star_imports else ""
        self.tree = tree
        self.constants = constants or {}  # module-level name -> the string expression assigned to it
        self.tables = tables or {}  # module-level name -> the dict display assigned to it
        self._binding_counts: dict[str, int] | None = None
        self._folded: dict[str, str] | None = None  # see string_constant
        self._tables: dict[str, str] | None = None  # see table_constants
        self._changed: frozenset[str] | None = None  # see only_read

    def binding_counts(self) -> dict[str, int]:
        """How many times each name is bound anywhere in the module (in any scope),
        counted once, when first asked: only a module that may use what it tells does."""
        if self._binding_counts is None:
            counts: dict[str, int] = {}
            for name, _ in _binding_sites(self.tree) if self.tree is not None else ():
                counts[name] = counts.get(name, 0) + 1
            self._binding_counts = counts
        return self._binding_counts

    def string_constant(self, name: str) -> str | None:
        """The string ``name`` holds wherever the module reads it: it is bound once in the
        whole module, at module level (not for type checkers only), to a literal string
        (``KIND = "post_episode"``) or one folded from literals and such constants
        (``END_KIND = PREFIX + "End"``, ``f"{PREFIX}Start"``, ``KIND = OTHER``: see
        :func:`_literal_text`), and the module star-imports nothing, so no other binding
        can shadow it."""
        if name not in self.constants:
            return None
        return self.string_constants().get(name)

    def string_constants(self) -> dict[str, str]:
        """Every module-level name :meth:`string_constant` gives a string."""
        if self._folded is None:
            # Every constant at once, in source order, each from those before it (at
            # module level a name read before it is bound is not bound yet): no chain
            # of constants is followed by recursion.
            counts = self.binding_counts()
            folded: dict[str, str] = {}
            for constant, value in self.constants.items():
                if counts.get(constant) == 1:
                    text = _literal_text(value, folded.get)
                    if text is not None:
                        folded[constant] = text
            self._folded = folded
        return self._folded

    def table_constants(self) -> dict[str, str]:
        """The string each entry of each table of strings the module holds, spelled as
        the subscript that reads it (``KINDS['reset']``, the key's ``repr``): a
        module-level name bound once in the whole module, as a constant is
        (:meth:`string_constant`), to a dict display whose keys are all literals, which
        every use of the name in the module only reads (:meth:`only_read`). Each string
        key is an entry, holding the string its last value spells (a literal, or one
        folded from the module's constants); a key whose last value is no such string
        holds none known. Worked out once, when first asked."""
        if self._tables is None:
            counts = self.binding_counts()
            found: dict[str, str] = {}
            for name, display in self.tables.items():
                if counts.get(name) == 1 and self.only_read(name):
                    for key, text in _table_entries(display, self.string_constant).items():
                        found[_table_spelled(name, key)] = text
            self._tables = found
        return self._tables

    def table_string(self, spelled: str) -> str | None:
        """The string a table of the module holds at ``spelled`` (``KINDS['reset']``, see
        :func:`_table_spelled`), or None."""
        if spelled.partition("[")[0] not in self.tables:  # most subscripts read no table
            return None
        return self.table_constants().get(spelled)

    def table_reference(self, spelled: str) -> str | None:
        """``spelled`` (``KINDS['reset']``) resolved through the module's imports, when
        the table is a name the module imports (:meth:`imported_reference`) and only
        reads (:meth:`only_read`): another module's table it may name is the check's
        question (what that module changes of it is its own: see
        :meth:`table_constants`). An attribute of an imported module
        (``kinds.KINDS['reset']``) is not read."""
        name, bracket, key = spelled.partition("[")
        reference = self.imported_reference(name)
        return f"{reference}{bracket}{key}" if reference is not None and self.only_read(name) else None

    def only_read(self, name: str) -> bool:
        """Whether every use of the module-level name ``name`` in the module reads what
        it holds and gives it to no other code (:func:`_changing_uses`), worked out for
        every name at once, by one walk of the module, when a module with a table first
        asks."""
        if self._changed is None:
            self._changed = _changing_uses(self.tree) if self.tree is not None else frozenset()
        return name not in self._changed

    def imported_reference(self, reference: str) -> str | None:
        """What the dotted name ``reference`` names, resolved through this module's
        bindings (``END_OF_RUN``, ``Kinds.RESET``, ``kinds.END_OF_RUN``), when the
        module binds its first name once, by an import, an alias or a class statement:
        nothing else (a parameter, a local variable, a second import) can give it
        another value. Another module's constant it may name is the check's question."""
        head = reference.partition(".")[0]
        if head not in self.bindings or self.binding_counts().get(head) != 1:
            return None
        return self.resolve_dotted(reference)

    def resolve(self, node: ast.expr) -> str | None:
        reference = dotted_name(node)
        if reference is None:
            return None
        return self.resolve_dotted(reference)

    def resolve_dotted(self, reference: str) -> str:
        head = reference.split(".", 1)[0]
        if head not in self.bindings and head not in self.local_classes:
            return self.unbound_prefix + reference
        return _resolve(reference, self.bindings, self.module, self.local_classes)

    def class_fact(
        self,
        node: ast.ClassDef,
        scope: tuple[str, ...],
        attributes: tuple[AttributeFact, ...],
        receiver_strings: tuple[ReceiverStringFact, ...] = (),
        walrus: bool = False,  # the class's scope holds an assignment expression
    ) -> ClassFact:
        bases = []
        for base in node.bases:
            if isinstance(base, ast.Subscript):  # Generic[T], BaseModel[...]
                base = base.value
            reference = self.resolve(base)
            if reference:
                bases.append(reference)
        qualname = ".".join((*scope, node.name))
        statements = list(_class_scope(node.body))  # read by both, walked once
        annotated = not self.collects_fields(node)
        class_vars = {(t.line, t.col) for t in self.class_variables(statements, annotated)}
        folding = _folding_values(statements) if self.constants or self.bindings else {}
        attributes = tuple(
            a._replace(class_var=True) if (a.name.line, a.name.col) in class_vars else a
            for a in (self.folded_value(self.constant_value(a), folding) for a in attributes)
        )
        attributes += tuple(self.computed_fields(statements))
        init, fields = self.init_order(node)
        counts = self.binding_counts()
        # ``Class.NAME`` is this class's only where nothing else binds its name (nor
        # that of a class it is nested in).
        named_once = all(counts.get(part) == 1 for part in qualname.split("."))
        constants = _class_constants(node.body, self.string_constant) if named_once else ()
        hooks = any(counts.get(name) for name in _VALUE_HOOKS) and _binds_value_hooks(statements, walrus)
        return ClassFact(
            qualname,
            node.lineno,
            node.col_offset,
            tuple(bases),
            attributes,
            init,
            fields,
            receiver_strings,
            constants,
            hooks,
        )

    def class_variables(self, statements: list[ast.stmt], annotated: bool = False) -> Iterator[Text]:
        """The names the statements of a class's scope (:func:`_class_scope`) annotate
        ``ClassVar`` (or ``ClassVar[...]``: ``typing.ClassVar``, or imported under another
        name; in a string, as ``dataclasses`` reads one: the dotted name it starts with).
        With ``annotated``, also those annotated ``Annotated[ClassVar[...], ...]`` (any
        module's ``Annotated``, nested in another too; in a string, the dotted names of
        ``"Annotated[ClassVar[...`` as pydantic reads one), which a pydantic model takes
        as a class variable and a dataclass or an attrs class as a field (see
        :meth:`collects_fields`)."""
        for statement in statements:
            if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name:
                annotation = statement.annotation
                if type(annotation) is ast.Constant and type(annotation.value) is str:
                    name = self.string_annotation(annotation.value, annotated)
                else:
                    name = self.resolve(_unsubscripted(annotation)) or ""
                    while annotated and name.rpartition(".")[2] == _ANNOTATED and type(annotation) is ast.Subscript:
                        inner = annotation.slice
                        annotation = inner.elts[0] if type(inner) is ast.Tuple and inner.elts else inner
                        name = self.resolve(_unsubscripted(annotation)) or ""
                if name.rpartition(".")[2] == _NOT_A_FIELD:
                    yield _text(statement.target, statement.target.id)

    def string_annotation(self, written: str, annotated: bool) -> str:
        """The name a string annotation starts with, resolved (``"ClassVar[int]"``); with
        ``annotated``, past ``Annotated[`` (``"Annotated[ClassVar[int], ...]"``)."""
        found = re.match(_STRING_ANNOTATION, written)
        name = self.resolve_dotted("".join(found[1].split())) if found else ""
        while found and annotated and name.rpartition(".")[2] == _ANNOTATED:
            found = re.compile(_STRING_SUBSCRIPT).match(written, found.end())
            name = self.resolve_dotted("".join(found[1].split())) if found else ""
        return name

    def collects_fields(self, node: ast.ClassDef) -> bool:
        """Whether a decorator of the class statement collects its fields as dataclasses
        and attrs do: a ``dataclass`` of any module (``dataclasses``', pydantic's), or one
        of ``attr``'s or ``attrs``' (``attrs.define``, ``attr.s``). These take an
        attribute annotated ``Annotated[ClassVar[...], ...]`` as a field; pydantic's
        models (no decorator) take it as a class variable."""
        for decorator in node.decorator_list:
            name = self.resolve(decorator.func if type(decorator) is ast.Call else decorator) or ""
            if name.rpartition(".")[2] == "dataclass" or name.partition(".")[0] in _ATTRS_MODULES:
                return True
        return False

    def computed_fields(self, statements: list[ast.stmt]) -> Iterator[AttributeFact]:
        """The methods among the statements of a class's scope (:func:`_class_scope`)
        decorated by pydantic's ``computed_field`` (``@computed_field``,
        ``@pydantic.computed_field``, ``@computed_field(alias="...")``, under another name
        too): fields of what the model serializes, named where the ``def`` names them
        (after ``def`` and one space: the tree holds no place for a function's name)."""
        for statement in statements:
            if type(statement) is not ast.FunctionDef and type(statement) is not ast.AsyncFunctionDef:
                continue
            if _is_dunder(statement.name):
                continue
            for decorator in statement.decorator_list:
                call = decorator if type(decorator) is ast.Call else None
                name = self.resolve(call.func if call is not None else decorator) or ""
                if name.rpartition(".")[2] == _COMPUTED_FIELD:
                    keyword = "async def " if type(statement) is ast.AsyncFunctionDef else "def "
                    method = _text(statement, statement.name)
                    written = Text(statement.name, method.line, method.col + len(keyword))
                    yield AttributeFact(written, aliases=_aliases(call), method=method)
                    break

    def constant_value(self, attribute: AttributeFact) -> AttributeFact:
        """A class-level value naming a module constant (``kind = KIND``) holds its string
        (:meth:`string_constant`), read where the name is written; or nothing known."""
        named = attribute.constant
        if named is None:
            return attribute
        found: Callable[[str], str | None]  # what another module's it may name resolves to
        if _is_table_spelled(named.text):  # ``kind = KINDS["reset"]``
            text = self.table_string(named.text)
            found = self.table_reference
        else:
            text = self.string_constant(named.text)
            found = self.imported_reference
        if text is None:
            reference = found(named.text)
            return attribute._replace(constant=named if reference else None, reference=reference or "")
        return attribute._replace(strings=(*attribute.strings, Text(text, named.line, named.col)))

    def folded_value(self, attribute: AttributeFact, folding: dict[tuple[int, int], ast.expr]) -> AttributeFact:
        """A class-level value folded from constants (``kind = PREFIX + "Done"``,
        ``f"{PREFIX}Done"``, a literal formatted; ``folding``: such values, by where the
        name they are assigned to is written), read as a keyword's kind is
        (:meth:`keep_string`): from the module's constants, its string among ``strings``
        where the value is written, unless its literal parts alone spell it; from names
        the module imports, a template (``templates``)."""
        value = folding.get((attribute.name.line, attribute.name.col))
        if value is None:
            return attribute
        place = (value.lineno, value.col_offset)
        folded = _literal_text(value, self.string_constant) if self.constants else None
        if folded is not None and all(folded != t.text for t in attribute.strings if (t.line, t.col) == place):
            return attribute._replace(strings=(*attribute.strings, _text(value, folded)))
        template = self.template(value) if self.bindings else None
        if template is None:
            return attribute
        return attribute._replace(templates=((template, _text(value, "".join(template[::2]))),))

    def call(
        self,
        node: ast.Call,
        scope: tuple[str, ...],
        held: _LocalStrings | None = None,
        dicts: _Payloads | None = None,
    ) -> CallFact | None:
        """The keywords a call names, the strings they are given (:meth:`keep_string`;
        a local variable's through ``held``) and the keys their values hold
        (:func:`_given_keys`; a local dict's through ``dicts``)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        for keyword in node.keywords:
            if keyword.arg is not None:
                self.keep_string(kept, len(found), keyword.value, held, node, scope)
                found.append(Text(keyword.arg, keyword.lineno, keyword.col_offset))
                keys += _given_keys(keyword.arg, keyword.value, dicts, node, scope)
                continue
            # ``**{"episode": n}`` names its keywords too, and ``**(base | {"episode": n})``
            for name, at, value in unpacked_keywords(keyword.value) + union_keywords(keyword.value):
                self.keep_string(kept, len(found), value, held, node, scope)
                found.append(Text(name, at.lineno, at.col_offset))
                keys += _given_keys(name, value, dicts, node, scope)
        keywords = tuple(found)
        callee = self.resolve(node.func) if node.keywords else None
        if not callee:
            return None
        return CallFact(callee, ".".join(scope) or MODULE_SCOPE, keywords, *kept.facts(), keys=tuple(keys))

    def construction(
        self,
        node: ast.Call,
        scope: str,
        form: str,
        built: str,
        held: _LocalStrings | None = None,
        dicts: _Payloads | None = None,
    ) -> ConstructionFact | None:
        """The fields a construction names (:func:`~.flow.construction_keywords`), read
        as a call's keywords are; those a JSON literal given to ``model_validate_json``
        names, and the keys below them (:func:`~.keys.json_keys`)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        where = () if scope == MODULE_SCOPE else tuple(scope.split("."))
        for name, at, value in construction_keywords(node, form, unions=True):
            self.keep_string(kept, len(found), value, held, node, where)
            found.append(Text(name, at.lineno, at.col_offset))
            keys += _given_keys(name, value, dicts, node, where)
        if form.rpartition(".")[2] == JSON_VALIDATOR:
            for field_name, (path, key, line, col) in json_keys(node.args[0]):
                if not field_name:
                    if key.isidentifier():
                        found.append(Text(key, line, col))
                elif field_name.isidentifier():
                    keys.append((field_name, f"{field_name}{path}[{key!r}]", Text(key, line, col)))
        if not found and not keys and not construction_spreads(node, form):  # no field, not even an unknown mapping's
            return None
        return ConstructionFact(built, form, scope, tuple(found), *kept.facts(), keys=tuple(keys))

    def payload(self, built: str, form: str, scope: str, entries: tuple[PayloadEntry, ...]) -> ConstructionFact | None:
        """The keys of a local dict unpacked into a call (:class:`_Payloads`), read as a
        construction's fields are, where each is written (a value that names another
        local variable is not followed); None when it holds none (a mapping whose keys
        are not known put in names none)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        for name, at, value, _ in entries:
            if is_spread(name):
                continue
            self.keep_string(kept, len(found), value)
            found.append(Text(name, at.lineno, at.col_offset))
            keys += _given_keys(name, value)
        return ConstructionFact(built, form, scope, tuple(found), *kept.facts(), keys=tuple(keys)) if found else None

    def positional(self, call: ast.Call, scope: str, form: str, built: str, skip: int) -> PositionalFact | None:
        """The literal strings ``call`` gives by position (after the first ``skip``
        arguments: ``partial``'s class); None when it gives none."""
        strings: list[tuple[int, Text]] = []
        for position, argument in enumerate(call.args[skip:]):
            if type(argument) is ast.Starred:
                break  # where the arguments after it go is not known
            if isinstance(argument, _STRING_NODES):
                strings += [(position, text) for text in _string_value(argument)]
        return PositionalFact(built, form, scope, tuple(strings)) if strings else None

    def init_order(self, node: ast.ClassDef) -> tuple[str, tuple[tuple[str, bool], ...]]:
        """How the class takes positional arguments, as far as its statement tells:
        (DATACLASS or NAMEDTUPLE, its own fields in order), (INHERITED, ()), or ("", ())
        when it is not certain: a metaclass or class arguments, a constructor of its own
        (``__init__``, ``__new__``, ``__init_subclass__``), another decorator than
        ``dataclasses.dataclass``, one given ``init``, ``kw_only`` or arguments it cannot
        read, or a body whose fields it cannot read (see :func:`_declared_fields`)."""
        if node.keywords or _defines_constructor(node.body):
            return "", ()
        if not node.decorator_list:
            # ``class Pair(NamedTuple, Generic[T])`` (Python 3.11): Generic adds no field.
            bases = [self.resolve(_unsubscripted(base)) for base in node.bases]
            named = [base for base in bases if base not in _GENERIC_BASES]
            if len(named) == 1 and named[0] in _NAMEDTUPLE_BASES:
                fields = _declared_fields(node.body, self, dataclass=False)
                return ("", ()) if fields is None else (NAMEDTUPLE, fields)
            return INHERITED, ()
        if len(node.decorator_list) != 1:
            return "", ()
        decorator = node.decorator_list[0]
        options = decorator if type(decorator) is ast.Call else None
        if self.resolve(options.func if options is not None else decorator) != _DATACLASS_DECORATOR:
            return "", ()
        if options is not None and (
            options.args
            or any(
                keyword.arg is None
                or (keyword.arg == "init" and not _is_constant(keyword.value, True))
                or (keyword.arg == "kw_only" and not _is_constant(keyword.value, False))
                for keyword in options.keywords
            )
        ):
            return "", ()
        fields = _declared_fields(node.body, self, dataclass=True)
        return ("", ()) if fields is None else (DATACLASS, fields)

    def keep_string(
        self,
        kept: _Kept,
        position: int,
        value: ast.expr,
        held: _LocalStrings | None = None,
        call: ast.expr | None = None,
        scope: tuple[str, ...] = (),
    ) -> None:
        """Note the string a keyword is given, read as a kind string in a class body is:
        a literal (its literal parts, an interpolated value read as a space: ``strings``),
        or a module-level constant holding one (``constants``); and in ``held``, the
        string of such a literal folded from module constants (``f"{PREFIX}Start"``,
        ``PREFIX + "Start"``), and those a local variable of ``call``'s function holds
        (:class:`_LocalStrings`; ``call``: the call given it, or the value a method sets
        on its receiver). A literal formatted (``"{}Start".format(PREFIX)``, ``"%sStart"
        % PREFIX``) is folded as an f-string is; one folded from names the module imports
        is kept as a template (``templates``, see :meth:`template`)."""
        kind = type(value)
        if kind is ast.Constant or kind is ast.JoinedStr or kind is ast.BinOp or _is_str_format(value):
            # most values are names, attributes or calls: skipped at once
            texts = _string_value(value)
            kept.strings += [(position, text) for text in texts]
            if kind is ast.Constant:
                return
            folded = _literal_text(value, self.string_constant) if self.constants else None
            # what the literal parts alone spell is kept as it was (its fingerprint
            # too): the folded string is reported where they are not.
            if folded is not None and all(folded != text.text for text in texts):
                kept.held.append((position, repr(folded), "", _text(value, folded)))
            elif self.bindings:
                template = self.template(value)
                if template is not None:
                    kept.templates.append((position, template, _text(value, "".join(template[::2]))))
        elif kind is ast.Name:
            name = value.id  # type: ignore[attr-defined]
            text = self.string_constant(name) if name in self.constants else None
            if text is not None:
                kept.constants.append((position, name, Text(text, value.lineno, value.col_offset)))
                return
            if held is not None and call is not None:
                for constant, string in held.strings(name, call, scope):
                    spelled = f"{name}:{constant or repr(string.text)}"
                    note = f" (from {constant}, through local {name})" if constant else f" (through local {name})"
                    kept.held.append((position, spelled, note, string))
            self.keep_reference(kept, position, value)
        elif kind is ast.Attribute:
            self.keep_reference(kept, position, value)
        elif kind is ast.Subscript:
            self.keep_table_string(kept, position, value)  # type: ignore[arg-type]

    def keep_table_string(self, kept: _Kept, position: int, value: ast.Subscript) -> None:
        """Note the string a table of the module holds where a keyword is given one of
        its entries (``kind=KINDS["reset"]``: ``constants``, spelled ``KINDS['reset']``,
        see :meth:`table_constants`), or the entry of a table the module imports
        (``references``, see :meth:`table_reference`), at the subscript."""
        spelled = _table_subscript(value)
        if spelled is None:
            return
        text = self.table_string(spelled)
        if text is not None:
            kept.constants.append((position, spelled, Text(text, value.lineno, value.col_offset)))
            return
        reference = self.table_reference(spelled)
        if reference is not None:
            kept.references.append((position, reference, Text(spelled, value.lineno, value.col_offset)))

    def template(self, value: ast.expr) -> tuple[str, ...] | None:
        """What ``value`` spells when folded (:func:`_literal_text`) from the module's
        string constants and names it imports (:meth:`imported_reference`), these left
        as slots: the literal parts, each name as resolved between them (``("",
        "pkg.kinds.PREFIX", "Start")`` for ``f"{PREFIX}Start"``); None when it names no
        such name, or folds to no string. A name that holds no string (as the check finds
        it) leaves the string unknown, an f-string's too."""
        references: list[str] = []

        def slot(name: str) -> str | None:
            text = self.string_constant(name)
            if text is not None:
                return text
            reference = self.imported_reference(name)
            if reference is None:
                return None
            references.append(reference)
            return f"{_SLOT}{len(references) - 1}{_SLOT}"

        folded = _literal_text(value, slot)
        if folded is None or not references:
            return None
        pieces = folded.split(_SLOT)
        for index in range(1, len(pieces), 2):
            if not pieces[index].isdecimal() or int(pieces[index]) >= len(references):
                return None  # a literal holding the slot's mark: not read
            pieces[index] = references[int(pieces[index])]
        return tuple(pieces) if len(pieces) % 2 else None

    def keep_reference(self, kept: _Kept, position: int, value: ast.expr) -> None:
        """Note a name the module imports (or an attribute of one) a keyword is given:
        it may name another module's string constant (:meth:`imported_reference`)."""
        written = dotted_name(value)
        reference = self.imported_reference(written) if written else None
        if written and reference:
            kept.references.append((position, reference, Text(written, value.lineno, value.col_offset)))

    def functional_class(self, statement: ast.stmt) -> ClassFact | None:
        """``X = TypedDict("X", {...})`` and the NamedTuple/namedtuple forms."""
        target, value = _simple_assignment(statement)
        if not (target and isinstance(value, ast.Call)):
            return None
        callee = self.resolve(value.func)
        if not callee or callee.rsplit(".", 1)[-1] not in FUNCTIONAL_CLASS_FACTORIES:
            return None
        return ClassFact(target, statement.lineno, statement.col_offset, (callee,), tuple(_functional_fields(value)))


class _Kept:
    """The strings the keywords of one call are given (see _Resolver.keep_string)."""

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    __slots__ = ("constants", "held", "references", "strings", "templates")

    def __init__(self) -> None:
        self.strings: list[tuple[int, Text]] = []
        self.constants: list[tuple[int, str, Text]] = []
        self.held: list[tuple[int, str, str, Text]] = []
        self.references: list[tuple[int, str, Text]] = []
        self.templates: list[tuple[int, tuple[str, ...], Text]] = []

    def facts(
        self,
    ) -> tuple[
        tuple[tuple[int, Text], ...],
        tuple[tuple[int, str, Text], ...],
        tuple[tuple[int, str, str, Text], ...],
        tuple[tuple[int, str, Text], ...],
        tuple[tuple[int, tuple[str, ...], Text], ...],
    ]:
        return (
            tuple(self.strings),
            tuple(self.constants),
            tuple(self.held),
            tuple(self.references),
            tuple(self.templates),
        )


def _given_keys(
    keyword: str,
    value: ast.expr,
    dicts: _Payloads | None = None,
    call: ast.Call | None = None,
    scope: tuple[str, ...] = (),
) -> list[tuple[str, str, Text]]:
    """(``keyword``, how a fingerprint spells the key's place, the key where it is
    written) for each key ``value`` holds (see CallFact.keys): written in it
    (:func:`~.keys.nested_keys`), or, given ``dicts``, put into the local dict ``value``
    names where ``call`` is given it (and the keys written in what each is given)."""
    if type(value) is ast.Name:  # on the path of every keyword: most values are names, or hold no key
        if dicts is None or call is None or value.id not in dicts.candidates:
            return []
        found: list[tuple[str, str, Text]] = []
        for name, at, item, _ in dicts.given_as_value(value, call, scope) or ():
            if not is_spread(name):
                spelled = f"{keyword}[{name!r}]"
                found.append((keyword, spelled, Text(name, at.lineno, at.col_offset)))
                found += _written_keys(keyword, spelled, item)
        return found
    if type(value) in _HOLDING_KEYS or _is_dict(value):
        return _written_keys(keyword, keyword, value)
    return []


def _written_keys(keyword: str, spelled: str, value: ast.expr) -> list[tuple[str, str, Text]]:
    """The keys written in ``value``, given to ``keyword`` at the place ``spelled``."""
    return [(keyword, f"{spelled}{path}[{key!r}]", Text(key, line, col)) for path, key, line, col in nested_keys(value)]


# What may hold keys written in it, besides a ``dict(...)`` call (see keys.nested_keys).
_HOLDING_KEYS = frozenset({ast.Dict, ast.List, ast.Tuple, ast.ListComp})

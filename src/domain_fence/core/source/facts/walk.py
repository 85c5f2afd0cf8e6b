"""One walk over a module's statements (:class:`_Walk`), collecting the raw material of
its facts: imports, classes, definitions and members, the calls given keywords or
arguments by position, the locals assigned calls, strings and dicts, the attributes set
on them and the functions attached to classes. :class:`_StatementsOnly` walks the
statements alone, for a module's imports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from domain_fence.core.source.facts.class_body import _attributes, _functional_fields, _names_functional_class, _slots
from domain_fence.core.source.facts.folding import _is_str_format
from domain_fence.core.source.facts.records import (
    SETATTR,
    AttributeFact,
    DeclarationFacts,
    DefinitionFact,
    ImportFact,
    MemberFact,
    Text,
)
from domain_fence.core.source.facts.scopes import _BINDING_NODES, _FIELDS, _bound_name, _node_fields
from domain_fence.core.source.facts.syntax import (
    _argument_nodes,
    _is_name,
    _is_type_checking,
    _parameters,
    _receiver,
    _resolve,
    _simple_assignment,
    _text,
    dotted_name,
    import_fact,
    import_source,
)
from domain_fence.core.source.flow import JSON_VALIDATOR, MAPPING_VALIDATORS

if TYPE_CHECKING:
    from domain_fence.core.source.facts.arguments import _ArgumentCall
    from domain_fence.core.source.facts.constructions import _Constructions
    from domain_fence.core.source.facts.local_dicts import _Payload


class _Context(NamedTuple):
    """Where a statement is, for the facts that depend on it."""

    in_function: bool = False  # inside a function body: nothing here is declared
    owner: str | None = None  # qualname of the class whose methods are declared here
    receiver: str | None = None  # ``self`` of the method whose attributes are assigned here
    member_owner: str | None = None  # the class those attributes belong to
    # Under ``if TYPE_CHECKING:`` as grimp reads it: what an import's fact says, so that
    # every front end leaves out the imports the graph leaves out.
    type_checking: bool = False
    # Under it or under another name the module gives it (``if TC:``): never runs.
    checkers_only: bool = False


class _Walk:
    """One walk over a module's statements, collecting the raw material of its facts.

    Statement nesting is bounded by the parser (100 levels), so the walk over
    statements recurses; expressions, which machine-written code nests arbitrarily
    deep, are walked with an explicit stack.
    """

    def __init__(self, module: str, is_package: bool, aliases: frozenset[str] = frozenset()) -> None:
        self.module = module
        self.is_package = is_package
        self.type_checking_aliases = aliases  # the module's other names of TYPE_CHECKING
        # How many times each name is bound anywhere in the module, as _binding_sites
        # counts them, counted on the way (a walk of its own costs more than this one).
        self.bound: dict[str, int] = {}
        self.imports: list[tuple[int, int, ast.Import | ast.ImportFrom]] = []  # (depth, order, node)
        self.import_facts: list[ImportFact] = []
        self.escaping: list[int] = []
        self.classes: list[tuple[ast.ClassDef, tuple[str, ...], tuple[AttributeFact, ...]]] = []
        self.calls: list[tuple[ast.Call, tuple[str, ...]]] = []
        self.definitions: list[DefinitionFact] = []
        self.members: list[MemberFact] = []  # declared by an assignment (or in the class body)
        # Declared otherwise (``__slots__``, ``for self.x in``, ``with ... as self.x``,
        # ``self.x += 1``, ``setattr(self, "x", v)``): a name's member where no assignment
        # declares it, so that those already reported stay where they are.
        self.other_members: list[MemberFact] = []
        self.stars: list[str] = []  # modules star-imported, once the bindings are known
        # ``local = call(...)`` and ``local.attribute = ...``, by scope (see ``constructed``)
        self.assigned_calls: list[tuple[tuple[str, ...], str, ast.expr]] = []  # (scope, local, callee)
        self.attribute_holders: set[tuple[tuple[str, ...], str]] = set()  # (scope, local)
        # ``local.name = ...`` (an Attribute target) and ``setattr(local, "name", ...)``,
        # ``object.__setattr__(local, "name", ...)`` (a Call), by scope (see _attribute_sets)
        self.attribute_sets: list[tuple[ast.Attribute | ast.Call, tuple[str, ...]]] = []
        self.walrus_scopes: set[tuple[str, ...]] = set()  # scopes with an assignment expression
        # Every function by its scope, and the class of each method of a class defined
        # outside any function (what ``cls`` and ``self`` are: see _Constructions).
        self.functions: dict[tuple[str, ...], list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, str] = {}
        self.found_constructions: list[tuple[ast.Call, str, str, str]] | None = None  # see _constructions
        self.found_payloads: list[_Payload] | None = None  # see _payloads
        self.finder: _Constructions | None = None  # see _finder
        self.positional_calls: list[tuple[ast.Call, tuple[str, ...]]] = []  # given a string by position
        # Given arguments by position (the first not starred): see _arguments_given.
        self.argument_calls: list[tuple[ast.Call, tuple[str, ...]]] = []
        self.found_arguments: list[_ArgumentCall] | None = None  # see _arguments_given
        # Names some statement assigns what may be a string (see _LocalStrings): only a
        # keyword given one of these may be given a local variable's string.
        self.string_locals: set[str] = set()
        # Names some statement assigns a name or an attribute (see _Constructions.alias):
        # only a call of one of these may be a call of a local alias of a class.
        self.alias_locals: set[str] = set()
        # Names some statement assigns a dict display or a ``dict(...)`` call: only a
        # keyword given one of these may be given a local dict's keys (see _Payloads).
        self.dict_locals: set[str] = set()
        # What may be a string set on a method's receiver (see _receiver_strings):
        # (class qualname, scope, receiver, the attribute, the value, how it is set).
        self.receiver_sets: list[tuple[str, tuple[str, ...], str, Text, ast.expr, str]] = []
        # ``holder.name = value`` (an Attribute target) and ``setattr(holder, "name",
        # value)`` (a Call) that run, with what is set, by scope: what may attach a
        # function to a class (see _attached).
        self.attachments: list[tuple[ast.Attribute | ast.Call, ast.expr, tuple[str, ...]]] = []

    def constructed(self) -> list[ast.expr]:
        """The callees of calls assigned to a local that the same scope sets an attribute
        of: the objects whose attributes the flow facts may make sinks (``ATTRIBUTE``)."""
        return [callee for scope, local, callee in self.assigned_calls if (scope, local) in self.attribute_holders]

    def functional_classes(self, statements: list[ast.stmt]) -> None:
        """``X = TypedDict("X", {...})`` at module level declares class X and its fields."""
        for statement in statements:
            target, value = _simple_assignment(statement)
            if target and isinstance(value, ast.Call) and _names_functional_class(value):
                self.definitions.append(DefinitionFact("class", target, _text(statement, target)))
                self.members += [MemberFact(target, f.name, True) for f in _functional_fields(value)]

    def body(self, statements: list[ast.stmt], depth: int, scope: tuple[str, ...], context: _Context) -> None:
        for statement in statements:
            self.statement(statement, depth, scope, context)

    def statement(self, node: ast.stmt, depth: int, scope: tuple[str, ...], context: _Context) -> None:
        # `type(node) is`: faster than isinstance on this hot path, and mypy narrows it
        inner, inner_context = scope, context
        kind = type(node)
        if kind is ast.ClassDef or kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.bound[node.name] = self.bound.get(node.name, 0) + 1  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in node.names:  # type: ignore[attr-defined]
                self.bound[name] = self.bound.get(name, 0) + 1
        if type(node) is ast.ClassDef:
            inner = (*scope, node.name)
            attributes = tuple(_attributes(node.body))
            self.classes.append((node, scope, attributes))
            if not context.in_function:
                qualname = ".".join(inner)
                self.definitions.append(DefinitionFact("class", qualname, _text(node, node.name)))
                self.members += [MemberFact(qualname, a.name, True) for a in attributes]
                self.other_members += [MemberFact(qualname, slot, True) for slot in _slots(node.body)]
                inner_context = _Context(
                    owner=qualname, type_checking=context.type_checking, checkers_only=context.checkers_only
                )
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            inner = (*scope, node.name)
            self.functions.setdefault(inner, []).append(node)
            inner_context = self.function(node, inner, context)
        elif type(node) is ast.Import or type(node) is ast.ImportFrom:
            self.import_statement(node, depth, context)
        elif context.receiver and type(node) in _DECLARING_MEMBERS:
            owner = context.member_owner or ""  # set with the receiver
            self.receiver_members(node, context.receiver, owner, scope, context.checkers_only)
        elif (
            not context.in_function
            and not context.checkers_only  # bound for type checkers only: never called
            and (type(node) is ast.Assign or type(node) is ast.AnnAssign)
            and type(node.value) is ast.Lambda
        ):  # ``name = lambda ...:`` defines a function (a method in a class)
            self.bound_lambda(node, node.value, scope)
        if type(node) in _ASSIGNING:
            self.local_assignment(node, scope)
            if (kind is ast.Assign or kind is ast.AnnAssign) and not context.checkers_only:
                self.attachment(node, scope)  # type: ignore[arg-type]
        elif type(node) is ast.Expr and type(node.value) is ast.Call and len(node.value.args) == 3:
            self.set_through_call(node.value, scope)
            if not context.checkers_only:
                self.attachment_through_call(node.value, scope)
        for name in node._fields:
            value = getattr(node, name)
            if type(value) is list:
                if not value:
                    continue
                first = value[0]
                if isinstance(first, ast.stmt):
                    self.body(value, depth + 1, inner, self.block_context(node, name, inner_context))
                elif isinstance(first, (ast.excepthandler, ast.match_case)):
                    for item in value:  # ``except E:`` and ``case P if G:`` hold statements too
                        handler = type(item) is ast.ExceptHandler
                        if handler and item.name:
                            self.bound[item.name] = self.bound.get(item.name, 0) + 1
                        for expression in (item.type,) if handler else (item.pattern, item.guard):
                            self.expressions(expression, inner)
                        self.body(item.body, depth + 2, inner, inner_context)
                else:
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.expressions(item, inner)
            elif isinstance(value, ast.AST):
                self.expressions(value, inner)

    def block_context(self, node: ast.stmt, field_name: str, context: _Context) -> _Context:
        if type(node) is not ast.If or field_name != "body":
            return context
        if not context.type_checking and _is_type_checking(node.test):
            return _Context(context.in_function, context.owner, context.receiver, context.member_owner, True, True)
        if not context.checkers_only and _is_type_checking(node.test, self.type_checking_aliases):
            return _Context(
                context.in_function, context.owner, context.receiver, context.member_owner, context.type_checking, True
            )
        return context

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, inner: tuple[str, ...], context: _Context
    ) -> _Context:
        """Declare a function or method; the context of its body."""
        if not context.in_function:
            kind = "method" if context.owner else "function"
            if context.owner:
                self.methods[node] = context.owner
            name = _text(node, node.name)
            self.definitions.append(DefinitionFact(kind, ".".join(inner), name, _parameters(node.args)))
            receiver = _receiver(node) if context.owner else None
            owner = context.owner if receiver else None
            return _Context(True, None, receiver, owner, context.type_checking, context.checkers_only)
        if context.receiver and any(arg.arg == context.receiver for arg in _argument_nodes(node.args)):
            # a nested function with its own ``self``
            return _Context(True, None, None, None, context.type_checking, context.checkers_only)
        return context

    def bound_lambda(self, node: ast.Assign | ast.AnnAssign, value: ast.Lambda, scope: tuple[str, ...]) -> None:
        """The parameters of ``name = lambda ...:`` outside a function body, as those of
        a function (or a method) of that name."""
        parameters = _parameters(value.args)
        # ``a = b = lambda x: ...`` binds one function under two names: its parameters
        # are declared once, under the first.
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if type(target) is ast.Name:
                name = _text(target, target.id)
                self.definitions.append(DefinitionFact("lambda", ".".join((*scope, target.id)), name, parameters))
                return

    def receiver_members(
        self, node: ast.stmt, receiver: str, owner: str, scope: tuple[str, ...] = (), type_checking: bool = False
    ) -> None:
        """The attributes of ``owner`` a statement of its method declares on ``receiver``,
        and the values that may be strings it sets them to (not in a method defined for
        type checkers only: it never runs)."""
        if type(node) is ast.Assign or type(node) is ast.AnnAssign:
            value = node.value
            may_be_string = value is not None and (type(value) in _SET_VALUES or _is_str_format(value))
            strings = value if may_be_string and not type_checking else None
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                self.members += [MemberFact(owner, a, False) for a in _receiver_attributes(target, receiver)]
                if strings is not None and type(target) is ast.Attribute and _is_name(target.value, receiver):
                    self.receiver_sets.append((owner, scope, receiver, _text(target, target.attr), strings, ""))
            return
        if type(node) is ast.Expr:
            found = _setattr_call(node.value, receiver)
            if found is not None:
                named, value, through = found
                self.other_members.append(MemberFact(owner, named, False))
                if (type(value) in _SET_VALUES or _is_str_format(value)) and not type_checking:
                    self.receiver_sets.append((owner, scope, receiver, named, value, through))
            return
        if type(node) is ast.AugAssign or type(node) is ast.For or type(node) is ast.AsyncFor:
            targets = [node.target]
        else:  # ``with ... as self.x``
            targets = [item.optional_vars for item in getattr(node, "items", ()) if item.optional_vars is not None]
        for target in targets:
            self.other_members += [MemberFact(owner, a, False) for a in _receiver_attributes(target, receiver)]

    def local_assignment(self, node: ast.stmt, scope: tuple[str, ...]) -> None:
        """Note ``local = call(...)`` and the locals whose attributes ``node`` assigns
        (on the hot path: the usual ``name = value`` costs two type checks)."""
        value: ast.expr | None = None
        sets = True  # an assignment sets an attribute target; a loop's or a ``with``'s, not here
        if type(node) is ast.Assign:
            targets, value = node.targets, node.value
        elif type(node) is ast.AnnAssign:
            targets, value = [node.target], node.value
            sets = value is not None
        elif type(node) is ast.AugAssign:
            targets = [node.target]
        elif type(node) is ast.For or type(node) is ast.AsyncFor:
            targets, sets = [node.target], False
        else:
            targets = [item.optional_vars for item in getattr(node, "items", ()) if item.optional_vars is not None]
            sets = False
        for target in targets:
            kind = type(target)
            if kind is ast.Attribute:
                if type(target.value) is ast.Name:  # type: ignore[attr-defined]
                    self.attribute_holders.add((scope, target.value.id))  # type: ignore[attr-defined]
                    if sets:
                        self.attribute_sets.append((target, scope))  # type: ignore[arg-type]
            elif kind is not ast.Name:
                for attribute in _attribute_targets(target):
                    self.attribute_holders.add((scope, attribute.value.id))  # type: ignore[attr-defined]
                    if sets:
                        self.attribute_sets.append((attribute, scope))
        if type(value) is ast.Call:
            self.assigned_calls += [(scope, t.id, value.func) for t in targets if type(t) is ast.Name]
            if type(value.func) is ast.Name and value.func.id == "dict":
                self.dict_locals.update(t.id for t in targets if type(t) is ast.Name)
        elif type(value) is ast.Dict:
            self.dict_locals.update(t.id for t in targets if type(t) is ast.Name)
        elif type(value) is ast.Tuple or type(value) is ast.List:
            self.assigned_calls += [(scope, local, call.func) for local, call in _calls_assigned(targets, value)]
        elif type(value) in _HELD_VALUES:
            names = [t.id for t in targets if type(t) is ast.Name]
            self.string_locals.update(names)
            if type(value) is ast.Name:
                self.alias_locals.update(names)
        elif type(value) is ast.Attribute:
            self.alias_locals.update(t.id for t in targets if type(t) is ast.Name)

    def set_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        """Note ``setattr(local, "name", v)`` and ``object.__setattr__(local, "name", v)``
        (a statement given three arguments)."""
        func, (holder, name, _) = call.func, call.args
        if type(holder) is not ast.Name or type(name) is not ast.Constant or type(name.value) is not str:
            return
        if (type(func) is ast.Name and func.id == SETATTR) or _setattr_through(func) == "object":
            self.attribute_sets.append((call, scope))

    def attachment(self, node: ast.Assign | ast.AnnAssign, scope: tuple[str, ...]) -> None:
        """Note ``holder.name = value`` where the value may be a function (``a.x, a.y =
        f, g`` pairs each target with its value)."""
        value = node.value
        if type(value) not in _ATTACHED_VALUES:  # None: an annotation alone
            return
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Attribute):
                self.attachments.append((target, value, scope))  # type: ignore[arg-type]
            elif (
                isinstance(target, _SEQUENCES) and isinstance(value, _SEQUENCES) and len(target.elts) == len(value.elts)
            ):
                pairs = zip(target.elts, value.elts, strict=True)
                self.attachments += [(t, v, scope) for t, v in pairs if isinstance(t, ast.Attribute)]

    def attachment_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        """Note ``setattr(holder, "name", value)`` (a statement given three arguments)."""
        func, (holder, name, value) = call.func, call.args
        named = type(name) is ast.Constant and type(name.value) is str
        if named and type(func) is ast.Name and func.id == SETATTR and type(holder) in (ast.Name, ast.Attribute):
            self.attachments.append((call, value, scope))

    def import_statement(self, node: ast.Import | ast.ImportFrom, depth: int, context: _Context) -> None:
        self.imports.append((depth, len(self.imports), node))
        line, type_checking = node.lineno, context.type_checking
        if not isinstance(node, ast.ImportFrom):
            self.import_facts += [import_fact(line, alias, alias.name, None, type_checking) for alias in node.names]
            return
        source = import_source(self.module, self.is_package, node)
        if source is None:
            self.escaping.append(line)
            return
        self.import_facts += [import_fact(line, alias, source, alias.name, type_checking) for alias in node.names]

    def expressions(self, node: ast.AST | None, scope: tuple[str, ...]) -> None:
        """Record the calls in an expression (a lambda is no new scope)."""
        if node is None:
            return
        pending = [node]
        bound = self.bound
        while pending:
            current = pending.pop()
            kind = type(current)
            if kind is ast.Name:
                if type(current.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    bound[current.id] = bound.get(current.id, 0) + 1  # type: ignore[attr-defined]
                continue  # its only child is its context
            if kind in _BINDING_NODES:
                name = _bound_name(current)
                if name:
                    bound[name] = bound.get(name, 0) + 1
            if kind is ast.Call:
                # Only those with keywords make CallFacts; ``X.model_validate({...})``
                # may make a ConstructionFact.
                if current.keywords or _validates_mapping(current):  # type: ignore[attr-defined, arg-type]
                    self.calls.append((current, scope))  # type: ignore[arg-type]
                given = current.args  # type: ignore[attr-defined]
                if given and type(given[0]) is not ast.Starred:
                    self.argument_calls.append((current, scope))  # type: ignore[arg-type]
                    if _may_pass_kinds(current):  # type: ignore[arg-type]
                        self.positional_calls.append((current, scope))  # type: ignore[arg-type]
            elif kind is ast.comprehension:  # ``[... for local.attribute in ...]`` assigns it too
                self.attribute_holders.update((scope, h) for h in _attribute_holders(current.target))  # type: ignore[attr-defined]
            elif kind is ast.NamedExpr:
                self.walrus_scopes.add(scope)
            fields = _FIELDS.get(kind)
            for name in _node_fields(kind) if fields is None else fields:
                value = getattr(current, name)
                if type(value) is list:
                    pending += value  # what is not a node (a dict's None key, a name) has no fields
                elif value is not None:
                    pending.append(value)

    def bindings(self, statements: list[ast.stmt], local_classes: set[str]) -> tuple[dict[str, str], list[str]]:
        """What each top-level name refers to: local classes, names imported anywhere in
        the module (module level first, breadth first), and module-level aliases such as
        ``Event = schemas.TelemetryEvent``."""
        bindings: dict[str, str] = {name: f"{self.module}.{name}" for name in sorted(local_classes)}
        stars: list[str] = []
        # Breadth-first order is (depth, order of the depth-first walk).
        for _, _, node in sorted(self.imports, key=lambda item: (item[0], item[1])):
            if not isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.asname:
                        bindings.setdefault(alias.asname, alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        bindings.setdefault(top, top)
                continue
            source = import_source(self.module, self.is_package, node)
            if source is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    stars.append(source)
                else:
                    bindings.setdefault(alias.asname or alias.name, f"{source}.{alias.name}")
        for statement in statements:
            target, value = _simple_assignment(statement)
            if target and isinstance(value, (ast.Name, ast.Attribute)):
                reference = dotted_name(value)
                if reference and reference != target:
                    bindings.setdefault(target, _resolve(reference, bindings, self.module, local_classes))
        return bindings, stars

    def declarations(self, bindings: list[DefinitionFact] | None = None) -> DeclarationFacts:
        """The module's declarations; ``bindings``: the definitions by assignment the
        census counts (see :func:`_bindings`)."""
        first: dict[tuple[str, str], MemberFact] = {}
        for members in (self.members, self.other_members):  # an assignment first, wherever it is
            for member in sorted(members, key=_place):
                first.setdefault((member.owner, member.name.text), member)
        definitions = [*self.definitions, *(bindings or ())]
        return DeclarationFacts(
            module=self.module,
            definitions=tuple(sorted(definitions, key=lambda d: (d.name.line, d.name.col))),
            members=tuple(sorted(first.values(), key=_place)),
        )


class _StatementsOnly(_Walk):
    """The walk over statements, without the expressions in them (the calls)."""

    def expressions(self, node: ast.AST | None, scope: tuple[str, ...]) -> None:
        return

    def local_assignment(self, node: ast.stmt, scope: tuple[str, ...]) -> None:
        return

    def set_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        return

    def attachment(self, node: ast.Assign | ast.AnnAssign, scope: tuple[str, ...]) -> None:
        return

    def attachment_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        return


def _validates_mapping(call: ast.Call) -> bool:
    """``X.model_validate({...})``, ``X.model_validate(dict(...))``: the mapping's keys
    name the fields, as keywords would; ``X.model_validate(payload)``: those of the
    local dict it holds may (see :class:`_Payloads`); ``X.model_validate(stats)``: a
    mapping whose keys are not known gives the fields all the same (DOM105 traces it).
    ``model_validate_strings`` alike; ``X.model_validate_json('{...}')``: the keys of
    the JSON object a literal holds name them."""
    func = call.func
    if type(func) is not ast.Attribute or not call.args:
        return False
    if func.attr == JSON_VALIDATOR:
        return type(call.args[0]) is ast.Constant
    return func.attr in MAPPING_VALIDATORS and type(call.args[0]) is not ast.Starred


def _may_pass_kinds(call: ast.Call) -> bool:
    """Whether ``call`` may build an instance of a class given a literal string by
    position: it is given one before any starred argument, and its callee is a name or
    attribute (the class, ``cls``, ``partial``, ``self.__class__``) or a call
    (``type(self)``). Most are not: :func:`_positional` keeps those that are."""
    kind = type(call.func)
    if kind is not ast.Name and kind is not ast.Attribute and kind is not ast.Call:
        return False
    for argument in call.args:
        argument_kind = type(argument)
        if argument_kind is ast.Starred:
            return False
        if argument_kind is ast.Constant:
            if type(argument.value) is str:  # type: ignore[attr-defined]
                return True
        elif argument_kind is ast.JoinedStr or argument_kind is ast.BinOp:  # ``f"..."``, ``"a" + "b"``
            return True
    return False


# What a local variable whose strings are read may be assigned (see _LocalStrings).
_HELD_VALUES = frozenset({ast.Constant, ast.JoinedStr, ast.BinOp, ast.IfExp, ast.Name})
# What a method may set on its instance that may be a kind (see _receiver_strings): those,
# an attribute of an imported name (``self.kind = Kinds.RESET``), and a table's entry
# (``self.kind = KINDS["reset"]``).
_SET_VALUES = _HELD_VALUES | {ast.Attribute, ast.Subscript}


# What an assignment may set that can be a function: a lambda, a name, an attribute, a
# call; a tuple or list pairs targets with values (``a.x, a.y = f, g``).
_ATTACHED_VALUES = frozenset({ast.Lambda, ast.Name, ast.Attribute, ast.Call, ast.Tuple, ast.List})
_SEQUENCES = (ast.Tuple, ast.List)


_ASSIGNING = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith})
_DECLARING_MEMBERS = _ASSIGNING | {ast.Expr}  # in a method: ``self.x = ...`` and the like, ``setattr(self, ...)``


def _place(member: MemberFact) -> tuple[int, int]:
    return member.name.line, member.name.col


def _setattr_call(call: ast.expr, receiver: str) -> tuple[Text, ast.expr, str] | None:
    """(the literal name, the value, the function as its builtin is named: ``setattr``,
    ``object`` or ``super``) of ``setattr(self, "x", v)``, ``object.__setattr__(self,
    "x", v)`` or ``super().__setattr__("x", v)`` on ``receiver`` (the name at its string)."""
    if type(call) is not ast.Call or len(call.args) < 2 or call.keywords:
        return None
    function, (first, second, *rest) = call.func, call.args
    through = SETATTR if isinstance(function, ast.Name) and function.id == SETATTR else _setattr_through(function)
    if through == SETATTR or through == "object":
        on_receiver, name, value = isinstance(first, ast.Name) and first.id == receiver and len(rest) == 1, second, rest
    elif through == "super()":  # bound to the receiver already
        on_receiver, name, value, through = not rest, first, [second], "super"
    else:
        return None
    if on_receiver and isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return _text(name, name.value), value[0], through
    return None


def _setattr_through(function: ast.expr) -> str | None:
    """``"object"`` for ``object.__setattr__``, ``"super()"`` for ``super().__setattr__``."""
    if not (isinstance(function, ast.Attribute) and function.attr == "__setattr__"):
        return None
    value = function.value
    if isinstance(value, ast.Name) and value.id == "object":
        return "object"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
        return "super()"
    return None


def _attribute_targets(target: ast.expr) -> Iterator[ast.Attribute]:
    """The attributes of locals a tuple, list or starred ``target`` assigns:
    ``event.label`` in ``event.label, count = ...``."""
    if isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name):
            yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _attribute_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _attribute_targets(target.value)


def _attribute_holders(target: ast.expr) -> Iterator[str]:
    """The locals ``target`` assigns an attribute of: ``event`` for ``event.label``."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        yield target.value.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _attribute_holders(element)
    elif isinstance(target, ast.Starred):
        yield from _attribute_holders(target.value)


def _calls_assigned(targets: list[ast.expr], value: ast.Tuple | ast.List) -> Iterator[tuple[str, ast.Call]]:
    """``(local, call)`` for ``a, b = f(), g()``, element by element, as the flow facts
    pair them (a starred element pairs nothing)."""
    if any(isinstance(element, ast.Starred) for element in value.elts):
        return
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            for element, item in zip(target.elts, value.elts, strict=True):
                if isinstance(element, ast.Name) and isinstance(item, ast.Call):
                    yield element.id, item


def _receiver_attributes(target: ast.expr, receiver: str) -> Iterator[Text]:
    """``self.<name>`` targets of an assignment, as Texts."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
        yield _text(target, target.attr)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _receiver_attributes(element, receiver)
    elif isinstance(target, ast.Starred):
        yield from _receiver_attributes(target.value, receiver)

"""What a value is derived from, expression by expression, and what binding it does."""

import ast

from domain_fence.core.source.flow.collector import _Collector
from domain_fence.core.source.flow.keywords import (
    construction_keywords,
    construction_spreads,
    spread_mappings,
    spread_name,
    unpacked_keywords,
)
from domain_fence.core.source.flow.records import (
    _EMPTY,
    ALL_CALLEES,
    ARGUMENT,
    ATTRIBUTE,
    CALL,
    FIELD,
    GOT,
    KEY,
    KEYWORD,
    MAX_NESTING,
    MODULE_SCOPE,
    NAMED,
    READ,
    Sources,
    _Raw,
    traced_callee,
)
from domain_fence.core.source.flow.shapes import _Slice
from domain_fence.core.source.flow.syntax import (
    _BUILTINS,
    _COMPREHENSIONS,
    _MUTATORS,
    _NO_INSTANCE,
    _arguments,
    _bound_names,
    _dotted,
    _expression_fields,
    _key_read,
)


class _Values:
    """One function body, class body or module top level: the sources of its local
    variables, what assigning to a target binds, and what an expression's value is
    derived from (calls with keywords inside it are sinks)."""

    def __init__(
        self,
        collector: _Collector,
        scope: tuple[str, ...],
        *,
        receiver: str | None = None,
        owner: str | None = None,
        methods_of: str | None = None,
        in_function: bool = False,
        env: dict[str, Sources] | None = None,
        field_method: tuple[str, ...] | None = None,
    ) -> None:
        self.collector = collector
        self.scope = scope
        self.qualname = ".".join(scope) or MODULE_SCOPE
        self.receiver = receiver  # ``self`` of a method
        self.owner = owner  # qualname of the class of a method
        self.methods_of = methods_of  # a class body: qualname of the class its ``def``s are methods of
        self.in_function = in_function  # a function body, or nested in one: nothing here is declared
        self.env: dict[str, Sources] = env if env is not None else {}
        self.built: dict[str, str] = {}  # local -> callee whose call result it holds
        # In __post_init__ (()) or a validator (the fields its return value goes to).
        self.field_method = field_method
        self.returned: set[_Raw] = set()
        self.loops = 0  # loops around the current statement
        self.last_call: tuple[ast.Call | None, str] = (None, "")  # the call evaluated last, resolved
        # In a function sliced by _Slice: the statements that can matter; None: all.
        self.slice: _Slice | None = None

    # Bindings -----------------------------------------------------------------

    def assign(self, target: ast.expr, sources: Sources, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = sources
            built = self.constructed(value)
            if built:
                self.built[target.id] = built
            else:
                self.built.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.assign(element, sources, None)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, sources, None)
        elif isinstance(target, ast.Attribute):
            self.attribute_assignment(target, sources)
        elif isinstance(target, ast.Subscript):
            self.value(target.slice)
            self.into(target.value, sources)

    def into(self, holder: ast.expr, sources: Sources) -> None:
        """``holder[key] = value``, ``holder.append(value)``: a local container holds it now."""
        if isinstance(holder, ast.Name) and holder.id in self.env:
            self.env[holder.id] = self.env.get(holder.id, _EMPTY) | sources
        else:
            self.value(holder)

    def attribute_assignment(self, target: ast.Attribute, sources: Sources) -> None:
        holder = target.value
        if not isinstance(holder, ast.Name):
            self.value(holder)
            return
        if holder.id in self.built:
            self.collector.sink(ATTRIBUTE, self.built[holder.id], self.qualname, target.attr, target, sources)
        elif self.field_method is not None and holder.id == self.receiver and self.owner is not None:
            self.collector.sink(FIELD, self.owner, self.qualname, target.attr, target, sources)

    def constructed(self, value: ast.expr | None) -> str:
        """The callee of ``value`` when it is a call of a dotted name (for ``x.f = ...``)."""
        if not isinstance(value, ast.Call):
            return ""
        call, resolved = self.last_call
        if call is value:
            return resolved
        reference = _dotted(value.func)
        return self.collector.resolve(reference) if reference else ""

    # Expressions ----------------------------------------------------------------

    def value(self, node: ast.expr) -> Sources:
        """What the value of ``node`` is derived from; calls with keywords inside it are sinks."""
        kind = type(node)
        if kind is ast.Constant:
            return _EMPTY
        if kind is ast.Name:
            return self.name(node.id, node)  # type: ignore[attr-defined]
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        if kind is ast.Attribute:
            found = self.attribute(node)  # type: ignore[arg-type]
        elif kind is ast.Call:
            found = self.call(node)  # type: ignore[arg-type]
        elif kind is ast.Subscript:
            found = self.subscript(node)  # type: ignore[arg-type]
        elif kind in _COMPREHENSIONS:
            found = self.comprehension(node)
        elif kind is ast.NamedExpr:
            found = self.value(node.value)  # type: ignore[attr-defined]
            self.env[node.target.id] = found  # type: ignore[attr-defined]
        elif kind is ast.Lambda:
            found = self.lambda_value(node)  # type: ignore[arg-type]
        else:
            found = _EMPTY
            for name in _expression_fields(kind):
                child = getattr(node, name)
                if type(child) is list:
                    for item in child:
                        if item is not None:
                            found = found | self.value(item.value if type(item) is ast.keyword else item)
                elif child is not None:
                    found = found | self.value(child)
        collector.nesting -= 1
        return found

    def name(self, name: str, node: ast.expr) -> Sources:
        found = self.env.get(name)
        if found is not None:
            return found
        if name in _BUILTINS:
            return _EMPTY  # no knowledge
        # A global, or (rarely) a local read before any assignment on this path: its name.
        return frozenset(((name, node, READ, ""),))

    def attribute(self, node: ast.Attribute) -> Sources:
        """Every attribute of a chain is read: ``self.config.episode`` reads ``config``
        and ``episode``. ``self.name`` in a method names, as its callee, the method
        ``self.name()`` would call (``module.Owner.name``): the check follows it as a
        call when that is a property."""
        attributes = []
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            attributes.append(base)
            base = base.value
        if isinstance(base, ast.Name):
            found = self.name(base.id, base)
            if base.id == self.receiver and self.owner is not None:
                first = attributes.pop()
                member = f"{self.collector.module}.{self.owner}.{first.attr}"
                found = found | {(first.attr, first, READ, member)}
        else:
            found = self.value(base)
        return found | frozenset((attribute.attr, attribute, READ, "") for attribute in attributes)

    def subscript(self, node: ast.Subscript) -> Sources:
        found = self.value(node.value) | self.value(node.slice)
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
            found |= {(key.value, node, KEY, "")}
        return found

    def call(self, node: ast.Call) -> Sources:
        func = node.func
        found: set[_Raw] = set()
        reference = _dotted(func)
        resolved = ""
        inherited = self.super_method(func)
        if inherited:
            found.add((func.attr, node, CALL, inherited))  # type: ignore[attr-defined]
        elif reference is None:
            found |= self.value(func)
        else:
            resolved = self.collector.resolve(reference)
            if isinstance(func, ast.Attribute):
                found |= self.value(func.value)
            elif func.id in self.env:  # type: ignore[attr-defined]
                found |= self.env[func.id]  # type: ignore[attr-defined]
            if not (isinstance(func, ast.Name) and func.id in _BUILTINS and func.id not in self.env):
                callee = self.collector.callee(reference, resolved, self.owner, self.receiver)
                name = reference.rsplit(".", 1)[-1]
                found.add((name, node, CALL, callee))
            elif func.id == "getattr" and self.collector.builtin_getattr:
                read = self.named_read(node)
                if read is not None:
                    found.add(read)
        arguments = [self.value(argument) for argument in node.args]
        for sources in arguments:
            found |= sources
        key = _key_read(node)
        if key is not None:
            found.add((key, node, GOT, ""))
        given = self.collector.arguments.get(node)
        if given is not None:
            self.given(node, arguments, *given)
        if self.field_method is not None and self.is_setattr_on_self(node):
            field_name = node.args[1].value  # type: ignore[attr-defined]
            self.collector.sink(FIELD, self.owner or "", self.qualname, field_name, node, arguments[2])
        given_by_name: list[Sources] = []
        for keyword in node.keywords:
            sources = self.value(keyword.value)
            given_by_name.append(sources)
            found |= sources
            if resolved and keyword.arg is not None:
                self.collector.sink(KEYWORD, resolved, self.qualname, keyword.arg, keyword, sources)
            elif resolved:
                for name, where, value in unpacked_keywords(keyword.value):
                    self.collector.sink(KEYWORD, resolved, self.qualname, name, where, self.value(value))
                for mapping in spread_mappings(keyword.value):
                    self.spread(resolved, mapping, sources if mapping is keyword.value else None)
        construction = self.collector.constructions.get(node)
        if construction is not None:  # the fields it names are the class's keywords
            form, built = construction
            for name, where, value in construction_keywords(node, form):
                self.collector.sink(KEYWORD, built, self.qualname, name, where, self.value(value), form)
            for mapping in construction_spreads(node, form):
                self.spread(built, mapping, None, form)
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS and isinstance(func.value, ast.Name):
            filled = [*arguments, *given_by_name]  # ``parts.update(v=...)`` fills it too
            self.into(func.value, frozenset().union(*filled) if filled else _EMPTY)
        self.last_call = (node, resolved)
        return frozenset(found)

    def named_read(self, node: ast.Call) -> _Raw | None:
        """``getattr(x, "name")`` or ``getattr(x, "name", default)``, the builtin given a
        literal identifier: a read of the attribute ``name`` of ``x``, as ``x.name`` is
        (:meth:`attribute`: in a method, ``self``'s names its member), at the call (what
        ``x`` and the default are derived from are the call's arguments')."""
        given = node.args
        if node.keywords or not 2 <= len(given) <= 3 or any(type(a) is ast.Starred for a in given):
            return None
        holder, key = given[0], given[1]
        if type(key) is not ast.Constant or type(key.value) is not str or not key.value.isidentifier():
            return None
        read = ast.copy_location(ast.Attribute(holder, key.value, ast.Load()), node)
        member = ""
        if type(holder) is ast.Name and holder.id == self.receiver and self.owner is not None:
            member = f"{self.collector.module}.{self.owner}.{key.value}"
        return (key.value, read, NAMED, member)

    def given(self, node: ast.Call, arguments: list[Sources], target: str, form: str, skip: int) -> None:
        """The values ``node`` gives by position, before any starred argument (where the
        others go is not known), each an ARGUMENT sink of ``target`` named by its position
        after the first ``skip`` (``partial``'s class)."""
        for position, argument in enumerate(node.args):
            if type(argument) is ast.Starred:
                break
            if position >= skip:
                name = str(position - skip)
                holds = self.instance(argument)
                self.collector.sink(ARGUMENT, target, self.qualname, name, argument, arguments[position], form, holds)

    def instance(self, node: ast.expr) -> str:
        """What ``node`` is an instance of, when a call builds it: the callee as resolved
        (the class, for a construction), of the call itself or of the one every path
        assigned the local it names; else ""."""
        if isinstance(node, ast.Name):
            return self.built.get(node.id, "")
        if not isinstance(node, ast.Call):
            return ""
        collector = self.collector
        if node in collector.constructions:
            form, built = collector.constructions[node]
        elif node in collector.arguments:
            built, form, _ = collector.arguments[node]
        else:
            reference = _dotted(node.func)
            return collector.resolve(reference) if reference else ""
        # ``partial(X, ...)`` builds no instance yet, ``super().__init__(...)`` returns none.
        return "" if form == "partial" or form.startswith(_NO_INSTANCE) else built

    def spread(self, target: str, mapping: ast.expr, sources: Sources | None, form: str = "") -> None:
        """A mapping whose keys are not known goes into ``target``: a keyword sink of its
        own (SPREAD), unless it is a local dict whose keys are traced where they are put
        in (a payload). ``sources``: what it is derived from, when already known."""
        collector = self.collector
        if mapping in collector.followed:
            return
        if collector.callees != ALL_CALLEES and not traced_callee(collector.callees, target):
            return  # no sink (see _Collector.sink): its name need not be spelt
        found = self.value(mapping) if sources is None else sources
        if found:
            collector.sink(KEYWORD, target, self.qualname, spread_name(mapping), mapping, found, form)

    def super_method(self, func: ast.expr) -> str:
        """``module.Owner.name`` for ``super().name`` (or ``super(Owner, self).name``) in
        a method of Owner, else "": the check looks for ``name`` in Owner's bases
        (the source's base is SUPER)."""
        if type(func) is not ast.Attribute or self.owner is None or self.receiver is None:
            return ""
        call = func.value
        if type(call) is not ast.Call or type(call.func) is not ast.Name or call.func.id != "super":
            return ""
        if "super" in self.env or call.keywords:
            return ""
        args = call.args
        if args and not (len(args) == 2 and type(args[0]) is ast.Name and args[0].id == self.owner.rsplit(".", 1)[-1]):
            return ""  # another class's bases
        return f"{self.collector.module}.{self.owner}.{func.attr}"

    def is_setattr_on_self(self, node: ast.Call) -> bool:
        """``object.__setattr__(self, "name", value)`` (frozen dataclasses)."""
        args = node.args
        return (
            len(args) == 3
            and _dotted(node.func) == "object.__setattr__"
            and isinstance(args[0], ast.Name)
            and args[0].id == self.receiver
            and isinstance(args[1], ast.Constant)
            and isinstance(args[1].value, str)
        )

    def comprehension(self, node: ast.expr) -> Sources:
        saved = dict(self.env)
        found: set[_Raw] = set()
        for generator in node.generators:  # type: ignore[attr-defined]
            each = self.value(generator.iter)
            found |= each
            self.assign(generator.target, each, None)
            for condition in generator.ifs:
                found |= self.value(condition)
        if isinstance(node, ast.DictComp):
            found |= self.value(node.key) | self.value(node.value)
        else:
            found |= self.value(node.elt)  # type: ignore[attr-defined]
        inner, self.env = self.env, saved
        # Its ``for`` targets are its own; what else it binds or fills is the function's:
        # ``(name := ...)`` binds in the enclosing function, ``out.append(...)`` fills a
        # local. It may run no iteration: what held before may hold after.
        own = _bound_names(generator.target for generator in node.generators)  # type: ignore[attr-defined]
        for name, sources in inner.items():
            if name not in own and saved.get(name) is not sources:
                self.env[name] = saved.get(name, _EMPTY) | sources
        return frozenset(found)

    def lambda_value(self, node: ast.Lambda) -> Sources:
        saved = dict(self.env)
        for parameter in _arguments(node.args):
            self.env[parameter.arg] = _EMPTY
        found = self.value(node.body)
        self.env = saved
        return found

"""What a statement-level scan of a function finds: the statements that can bear on a
sink (a slice), and what its locals are assigned and its return values read."""

import ast
from bisect import bisect_left
from collections.abc import Iterator

from domain_fence.core.source.flow.records import CALL, GOT, KEY, MAPPING_VALIDATORS, READ, _Raw
from domain_fence.core.source.flow.syntax import (
    _BLOCKS,
    _BUILTINS,
    _COMPREHENSIONS,
    _MUTATORS,
    _arguments,
    _bound_names,
    _dotted,
    _expression_fields,
    _key_read,
)


class _Slice:
    """The statements of a function that can bear on a sink: those holding a call with
    keywords, and those assigning (or filling, ``x.append(...)``, ``x[k] = ...``) a
    variable that a keyword value, an attribute value or an object set reads, or an
    object an attribute is set on, directly or through other variables. The rest change
    nothing a sink sees (the return value is traced apart, by
    :meth:`_Shape.returned_sources`). Every call with keywords seeds it, traced or not:
    which calls are traced must not change what a traced one's value is derived from.
    The values given by position seed it for the calls given traced arguments alone
    (``given``): seeding every call's would interpret most statements, and a value's
    sources are those of the statements its own names lead to, which every slice
    holding it interprets."""

    def __init__(
        self, calls: list[ast.Call], shape: "_Shape", receiver: str | None, given: list[ast.Call] | None = None
    ) -> None:
        given = given or []  # the calls given traced arguments (see module_flows)
        self.calls = sorted({(c.lineno, c.col_offset) for c in (*calls, *given)})
        seeds: list[ast.expr] = [k.value for c in calls for k in c.keywords] + shape.set_values
        seeds += [argument for c in given for argument in c.args]
        # ``X.model_validate({...})``: the mapping names fields (see construction_keywords)
        seeds += [
            c.args[0] for c in calls if c.args and type(c.func) is ast.Attribute and c.func.attr in MAPPING_VALIDATORS
        ]
        names: set[str] = set()
        pending = [*shape.holders, *(n for seed in seeds for n in _names_read(seed))]
        while pending:
            name = pending.pop()
            if name not in names:
                names.add(name)
                for value in shape.assigned.get(name, ()):
                    pending += _names_read(value)
        self.names = frozenset(names)

    def matters(self, node: ast.stmt) -> bool:
        start = bisect_left(self.calls, (node.lineno, node.col_offset))
        if start < len(self.calls) and self.calls[start] <= (node.end_lineno or 0, node.end_col_offset or 0):
            return True  # holds a call with keywords
        kind = type(node)
        if kind is ast.Assign:
            if any(self.assigns(target) for target in node.targets):  # type: ignore[attr-defined]
                return True
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            if self.assigns(node.target):  # type: ignore[attr-defined]
                return True
        elif kind is ast.Expr:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is ast.NamedExpr:
                return True
            func = value.func if type(value) is ast.Call else None
            if (
                type(func) is ast.Attribute
                and func.attr in _MUTATORS
                and type(func.value) is ast.Name
                and func.value.id in self.names
            ):
                return True
        # A comprehension filling a local, wherever it is (``_ = [out.append(x) for ...]``).
        return any(target.id in self.names for target, _ in _inner_bindings(node) if type(target) is ast.Name)

    def assigns(self, target: ast.expr) -> bool:
        kind = type(target)
        if kind is ast.Name:
            return target.id in self.names  # type: ignore[attr-defined]
        if kind is ast.Tuple or kind is ast.List:
            return any(self.assigns(element) for element in target.elts)  # type: ignore[attr-defined]
        if kind is ast.Starred:
            return self.assigns(target.value)  # type: ignore[attr-defined]
        if kind is ast.Attribute or kind is ast.Subscript:
            holder = target.value  # type: ignore[attr-defined]
            return type(holder) is not ast.Name or holder.id in self.names
        return True


def _names_read(node: ast.expr) -> list[str]:
    names = []
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        kind = type(current)
        if kind is ast.Name:
            names.append(current.id)  # type: ignore[attr-defined]
            continue
        for name in _expression_fields(kind):
            child = getattr(current, name)
            if type(child) is list:
                pending += [c for c in child if isinstance(c, ast.AST)]
            elif isinstance(child, ast.AST):
                pending.append(child)
    return names


class _Shape:
    """What one statement-level scan of a function finds: the locals it sets an
    attribute of (``event.label = ...``), its return values, and the values each local
    variable is assigned."""

    def __init__(self) -> None:
        self.holders: list[str] = []  # locals an attribute is set on
        self.set_values: list[ast.expr] = []  # the values set
        self.returns: list[ast.expr] = []
        self.assigned: dict[str, list[ast.expr]] = {}

    @classmethod
    def of(
        cls, function: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str | None, inner: bool = False
    ) -> "_Shape":
        """``inner``: also what the statements' expressions bind or fill (see
        :func:`_inner_bindings`), as a helper's return value needs."""
        shape = cls()
        pending: list[ast.AST] = list(function.body)
        while pending:
            statement = pending.pop()
            kind = type(statement)
            if inner:
                for target, values in _inner_bindings(statement):
                    for value in values:
                        shape.assign(target, value, receiver)
            if kind is ast.Return:
                value = statement.value  # type: ignore[attr-defined]
                if value is not None and type(value) is not ast.Constant:
                    shape.returns.append(value)
            elif kind is ast.Assign:
                for target in statement.targets:  # type: ignore[attr-defined]
                    shape.assign(target, statement.value, receiver)  # type: ignore[attr-defined]
            elif kind is ast.Expr and type(statement.value) is ast.NamedExpr and not inner:  # type: ignore[attr-defined]
                named = statement.value  # type: ignore[attr-defined]
                shape.assign(named.target, named.value, receiver)
            elif kind is ast.Expr and type(statement.value) is ast.Call:  # type: ignore[attr-defined]
                call = statement.value  # type: ignore[attr-defined]
                func = call.func
                if type(func) is ast.Attribute and func.attr in _MUTATORS and type(func.value) is ast.Name:
                    # ``x.append(value)`` fills x
                    filled = shape.assigned.setdefault(func.value.id, [])
                    filled += [*call.args, *(k.value for k in call.keywords)]
            elif kind is ast.AugAssign or kind is ast.AnnAssign:
                if statement.value is not None:  # type: ignore[attr-defined]
                    shape.assign(statement.target, statement.value, receiver)  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor:
                shape.assign(statement.target, statement.iter, receiver)  # type: ignore[attr-defined]
            elif kind is ast.With or kind is ast.AsyncWith:
                for item in statement.items:  # type: ignore[attr-defined]
                    if item.optional_vars is not None:
                        shape.assign(item.optional_vars, item.context_expr, receiver)
            for name in _BLOCKS.get(kind, ()):
                pending += getattr(statement, name)
        return shape

    def assign(self, target: ast.expr, value: ast.expr, receiver: str | None) -> None:
        kind = type(target)
        if kind is ast.Name:
            self.assigned.setdefault(target.id, []).append(value)  # type: ignore[attr-defined]
        elif kind is ast.Tuple or kind is ast.List:
            for element in target.elts:  # type: ignore[attr-defined]
                self.assign(element, value, receiver)
        elif kind is ast.Starred:
            self.assign(target.value, value, receiver)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:  # ``x[k] = value`` fills x
            container = target.value  # type: ignore[attr-defined]
            if isinstance(container, ast.Name):
                self.assigned.setdefault(container.id, []).append(value)
        elif kind is ast.Attribute:
            holder = target.value  # type: ignore[attr-defined]
            if isinstance(holder, ast.Name) and holder.id != receiver:
                self.holders.append(holder.id)
                self.set_values.append(value)

    def returned_sources(self, parameters: list[ast.arg]) -> set[_Raw]:
        """What the return values are derived from, flow-insensitively: a local stands
        for every value it is ever assigned. The parameters are the caller's business."""
        found: set[_Raw] = set()
        bound = {parameter.arg for parameter in parameters}
        followed: set[str] = set()
        pending: list[ast.AST] = list(self.returns)
        while pending:
            node = pending.pop()
            kind = type(node)
            if kind is ast.Name:
                name = node.id  # type: ignore[attr-defined]
                if name in self.assigned:
                    if name not in followed:
                        followed.add(name)
                        pending += self.assigned[name]
                elif name not in bound and name not in _BUILTINS:
                    found.add((name, node, READ, ""))  # type: ignore[arg-type]
                continue
            if kind is ast.Constant:
                continue
            if kind is ast.Attribute:
                found.add((node.attr, node, READ, ""))  # type: ignore[attr-defined, arg-type]
            elif kind is ast.Subscript:
                key = node.slice  # type: ignore[attr-defined]
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
                    found.add((key.value, node, KEY, ""))  # type: ignore[arg-type]
            elif kind is ast.Call:
                key = _key_read(node)  # type: ignore[arg-type]
                if key is not None:
                    found.add((key, node, GOT, ""))  # type: ignore[arg-type]
                reference = _dotted(node.func)  # type: ignore[attr-defined]
                if reference is not None and reference not in _BUILTINS:
                    found.add((reference.rsplit(".", 1)[-1], node, CALL, ""))  # type: ignore[arg-type]
                    if type(node.func) is ast.Name:  # type: ignore[attr-defined]
                        pending += node.args + [k.value for k in node.keywords]  # type: ignore[attr-defined]
                        continue
            elif kind in _COMPREHENSIONS:
                for generator in node.generators:  # type: ignore[attr-defined]
                    bound.update(n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name))
            elif kind is ast.Lambda:
                bound.update(parameter.arg for parameter in _arguments(node.args))  # type: ignore[attr-defined]
            for name in _expression_fields(kind):
                child = getattr(node, name)
                if type(child) is list:
                    pending += [c.value if type(c) is ast.keyword else c for c in child if isinstance(c, ast.AST)]
                elif isinstance(child, ast.AST):
                    pending.append(child)
        return found


def _inner_bindings(statement: ast.AST) -> Iterator[tuple[ast.expr, list[ast.expr]]]:
    """What the expressions of ``statement`` itself bind or fill, as (the local, its
    values): an assignment expression (``(name := value)``) anywhere in them, and a local
    container a comprehension fills (``[out.append(x) for ...]``); not in the statements it
    holds (walked on their own), nor in a function, class or lambda it defines (their
    own scopes)."""
    kind = type(statement)
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return
    blocks = _BLOCKS.get(kind, ())
    # (node, the names the comprehensions around it bind: None outside any)
    pending: list[tuple[ast.AST, frozenset[str] | None]] = []
    for name, child in ast.iter_fields(statement):
        if name not in blocks:
            pending += [
                (item, None) for item in (child if type(child) is list else [child]) if isinstance(item, ast.AST)
            ]
    while pending:
        node, own = pending.pop()
        kind = type(node)
        if kind is ast.NamedExpr:
            yield node.target, [node.value]  # type: ignore[attr-defined]
        elif kind is ast.Call and own is not None:
            func = node.func  # type: ignore[attr-defined]
            # A name a comprehension binds is its own (``[found.append(x) for found in ...]``).
            filled = func.value if type(func) is ast.Attribute and func.attr in _MUTATORS else None
            if type(filled) is ast.Name and filled.id not in own:
                yield filled, [*node.args, *(k.value for k in node.keywords)]  # type: ignore[attr-defined]
        if kind is not ast.Lambda:
            if kind in _COMPREHENSIONS:
                bound = _bound_names(generator.target for generator in node.generators)  # type: ignore[attr-defined]
                own = (own or frozenset()) | bound
            pending += [(child, own) for child in ast.iter_child_nodes(node)]

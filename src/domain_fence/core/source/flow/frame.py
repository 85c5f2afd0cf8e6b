"""Statements interpreted: assignments, branches merged, loops run to a fixpoint,
nested functions and classes traced in frames of their own."""

import ast
from collections.abc import Iterable

from domain_fence.core.source.flow.records import (
    _EMPTY,
    FIELD,
    KEYWORD,
    MAX_NESTING,
    PARAMETER,
    READ,
    RETURNED,
    Sources,
    _State,
)
from domain_fence.core.source.flow.shapes import _Shape, _Slice
from domain_fence.core.source.flow.sources import _compact, _merge_states
from domain_fence.core.source.flow.syntax import (
    _SIMPLE,
    _arguments,
    _captures,
    _field_assignment,
    _field_method,
    _intern,
    _receiver,
)
from domain_fence.core.source.flow.values import _Values


class _Frame(_Values):
    """One function body, class body or module top level, interpreted statement by
    statement over the sources of its local variables."""

    def run(self, statements: Iterable[ast.stmt]) -> None:
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        for statement in statements:
            self.statement(statement)
        collector.nesting -= 1

    def statement(self, node: ast.stmt) -> None:
        kind = type(node)
        payloads = self.collector.payloads
        if payloads and node in payloads:  # before it runs: what the value is derived from as it is put in
            for site in payloads[node]:
                sources = self.value(site.value)
                self.collector.sink(KEYWORD, site.target, self.qualname, site.name, site.where, sources, site.form)
        if self.slice is not None and kind in _SIMPLE and not self.slice.matters(node):
            return
        if kind is ast.Assign:
            self.assignment(node.targets, node.value)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            if node.value is not None:  # type: ignore[attr-defined]
                self.assignment([node.target], node.value)  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            sources = self.value(node.value)  # type: ignore[attr-defined]
            target = node.target  # type: ignore[attr-defined]
            if isinstance(target, ast.Name):
                self.env[target.id] = self.value(target) | sources
            else:
                self.assign(target, sources | self.value(target), None)
        elif kind is ast.Return:
            value = node.value  # type: ignore[attr-defined]
            if value is not None:
                sources = self.value(value)
                self.returned |= sources
                # A validator's value becomes its fields': each return is a sink of its own.
                for name in self.field_method or ():
                    self.collector.sink(FIELD, self.owner or "", self.qualname, name, value, sources, RETURNED)
        elif kind is ast.If:
            self.value(node.test)  # type: ignore[attr-defined]
            self.branches([node.body, node.orelse])  # type: ignore[attr-defined]
        elif kind is ast.While:
            self.value(node.test)  # type: ignore[attr-defined]
            self.loop(node.body, node.orelse, None, _EMPTY)  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.AsyncFor:
            self.loop(node.body, node.orelse, node.target, self.value(node.iter))  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                sources = self.value(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, sources, None)
            self.run(node.body)  # type: ignore[attr-defined]
        elif kind is ast.Try or kind is ast.TryStar:
            self.attempt(node)  # type: ignore[arg-type]
        elif kind is ast.Match:
            self.match(node)  # type: ignore[arg-type]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.function(node)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            self.klass(node)  # type: ignore[arg-type]
        elif kind is ast.Expr:
            self.value(node.value)  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                name = (alias.asname or alias.name).split(".", 1)[0]
                self.env[name] = frozenset(((name, node, READ, ""),))
        else:  # raise, assert, del, global, pass, ...
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.value(child)

    def assignment(self, targets: list[ast.expr], value: ast.expr) -> None:
        """``targets = value``: a literal tuple unpacked into a tuple of targets gives each
        its own element's sources."""
        if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
            parts = [self.value(element) for element in value.elts]
            whole = frozenset().union(*parts)
            for target in targets:
                if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(parts):
                    for element, item, sources in zip(target.elts, value.elts, parts, strict=True):
                        self.assign(element, sources, item)
                else:
                    self.assign(target, whole, value)
            return
        sources = self.value(value)
        for target in targets:
            self.assign(target, sources, value)

    def save(self) -> _State:
        return dict(self.env), dict(self.built)

    def restore(self, state: _State) -> None:
        self.env, self.built = dict(state[0]), dict(state[1])

    def branches(self, blocks: list[list[ast.stmt]], exhaustive: bool = True) -> None:
        """Run each block from the same state; afterwards a variable holds what any
        block (or, when no block need run, the state before) left in it."""
        before = self.save()
        ends = [] if exhaustive else [before]
        for block in blocks:
            self.restore(before)
            self.run(block)
            ends.append((self.env, self.built))
        self.env, self.built = _merge_states(ends)

    def loop(self, body: list[ast.stmt], orelse: list[ast.stmt], target: ast.expr | None, each: Sources) -> None:
        """Run the body until the variables hold nothing new (it may also run zero
        times). Nested loops get fewer passes, so the cost stays bounded."""
        self.loops += 1
        passes = 4 if self.loops <= 2 else 2 if self.loops <= 4 else 1
        for _ in range(passes):
            before = self.save()
            if target is not None:
                self.assign(target, each, None)
            self.run(body)
            self.env, self.built = _merge_states([before, (self.env, self.built)])
            if self.env == before[0]:
                break
        self.loops -= 1
        self.run(orelse)

    def attempt(self, node: ast.Try | ast.TryStar) -> None:
        before = self.save()
        self.run(node.body)
        self.run(node.orelse)
        ends = [(self.env, self.built)]
        for handler in node.handlers:
            # A handler may start anywhere in the body: from what the body may have left.
            self.env, self.built = _merge_states([before, ends[0]])
            if handler.type is not None:
                self.value(handler.type)
            if handler.name:
                self.env[handler.name] = _EMPTY
            self.run(handler.body)
            ends.append((self.env, self.built))
        self.env, self.built = _merge_states(ends)
        self.run(node.finalbody)

    def match(self, node: ast.Match) -> None:
        subject = self.value(node.subject)
        for case in node.cases:
            for capture in _captures(case.pattern):
                self.env[capture] = self.env.get(capture, _EMPTY) | subject
            if case.guard is not None:
                self.value(case.guard)
        self.branches([case.body for case in node.cases], exhaustive=False)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expression in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expression is not None:
                self.value(expression)
        self.env[node.name] = _EMPTY
        owner = self.methods_of
        receiver = _receiver(node) if owner else None
        declared = not self.in_function
        field_method = _field_method(node) if owner else None
        qualname = ".".join((*self.scope, node.name))
        if field_method is None:
            # What a caller may want, the return value, is found quickly (flow-insensitively),
            # when it is wanted: see _Collector.facts.
            self.collector.untraced.setdefault(_intern(qualname), []).append((node, receiver))
            if qualname not in self.collector.keyword_scopes and qualname not in self.collector.other_sink_scopes:
                return  # no sink here
        frame = _Frame(
            self.collector,
            (*self.scope, node.name),
            receiver=receiver,
            owner=owner,
            in_function=True,
            # A nested function reads its enclosing function's variables as they are here.
            env=dict(self.env) if self.in_function else {},
            field_method=field_method,
        )
        for parameter in _arguments(node.args):
            name = parameter.arg
            kind = PARAMETER if declared else READ
            frame.env[name] = _EMPTY if name == receiver else frozenset(((name, parameter, kind, ""),))
        # Run whole when a scope inside it may hold a sink (it reads this one's variables),
        # or when an expression assigns a variable (``f((label := ...))``), which a slice
        # of statements would miss.
        whole = qualname in self.collector.around_sink_scopes or qualname in self.collector.walrus_scopes
        if field_method is None and not whole:
            shape = _Shape.of(node, receiver)
            calls, given = self.collector.keyword_calls, self.collector.argument_calls
            frame.slice = _Slice(calls.get(qualname, []), shape, receiver, given.get(qualname, []))
        nesting = self.collector.nesting
        try:
            frame.run(node.body)
        except RecursionError:  # nested deeper than MAX_NESTING: not traced
            self.collector.nesting = nesting
            return
        if frame.returned and field_method is not None:
            self.collector.returns[_intern(frame.qualname)] = _compact(frame.returned)

    def klass(self, node: ast.ClassDef) -> None:
        for expression in [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]:
            self.value(expression)
        self.env[node.name] = _EMPTY
        qualname = ".".join((*self.scope, node.name))
        body = _Frame(
            self.collector,
            (*self.scope, node.name),
            methods_of=qualname,
            in_function=self.in_function,
        )
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        for statement in node.body:
            target, value = _field_assignment(statement)
            if target is None or value is None:
                body.statement(statement)
                continue
            sources = body.value(value)  # a field default
            collector.sink(FIELD, qualname, qualname, target.id, target, sources)
            body.env[target.id] = sources
        collector.nesting -= 1

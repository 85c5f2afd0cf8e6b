"""What every frame of a module found, turned into the module's flow facts."""

import ast
from collections.abc import Iterable, Mapping

from domain_fence.core.source.flow.records import (
    ALL_CALLEES,
    ARGUMENT,
    CALL,
    KEYWORD,
    READ,
    FlowFacts,
    PayloadSite,
    Resolve,
    Sink,
    Source,
    Sources,
    _Positioned,
    _Raw,
    traced_callee,
)
from domain_fence.core.source.flow.shapes import _Shape
from domain_fence.core.source.flow.sources import _compact
from domain_fence.core.source.flow.syntax import _arguments, _intern, _prefixes


class _Collector:
    """What every frame of a module found."""

    def __init__(
        self,
        module: str,
        resolve: Resolve,
        functions: frozenset[str],
        keyword_calls: dict[str, list[ast.Call]],
        traced_calls: dict[str, list[ast.Call]],
        other_sink_scopes: Iterable[str],
        walrus_scopes: Iterable[str] = (),
        callees: tuple[str, ...] = ALL_CALLEES,
        constructions: Mapping[ast.Call, tuple[str, str]] | None = None,
        payloads: Mapping[ast.stmt, list[PayloadSite]] | None = None,
        followed: frozenset[ast.expr] = frozenset(),
        arguments: Mapping[ast.Call, tuple[str, str, int]] | None = None,
        argument_calls: Mapping[str, list[ast.Call]] | None = None,
        builtin_getattr: bool = False,
    ) -> None:
        self.module = module
        self.builtin_getattr = builtin_getattr  # ``getattr`` is the builtin: see values._Values.named_read
        self.arguments = arguments or {}  # call -> (target, form, skip): see module_flows
        self.argument_calls = argument_calls or {}  # scope -> its calls given traced arguments
        self.followed = followed  # local dicts given to a call whose keys are traced where put in
        self.constructions = constructions or {}  # call -> (form, class built): see module_flows
        self.payloads = payloads or {}  # statement -> the keys it puts into a dict a call is given
        self.walrus_scopes = frozenset(walrus_scopes)
        self.callees = callees
        self.keyword_calls = keyword_calls  # scope -> its calls with keywords
        self.traced_calls = traced_calls  # scope -> those of them whose keywords are traced
        # scopes with traced calls (or calls given traced arguments), and those around them
        self.keyword_scopes = _prefixes((*traced_calls, *self.argument_calls))
        other_sink_scopes = set(other_sink_scopes)
        self.other_sink_scopes = _prefixes(other_sink_scopes)  # see module_flows
        # Interpreted whole: a function nested in one reads its variables.
        self.around_sink_scopes = {
            p for s in (*keyword_calls, *self.argument_calls, *other_sink_scopes) for p in _prefixes((s,)) if p != s
        }
        self.resolve = resolve
        self.functions = functions  # module-level functions: a call to one is resolved to this module
        # A loop body runs more than once: one sink per place, with what every pass found.
        self.sinks: dict[tuple[str, str, str, str, int, int, str], set[_Raw]] = {}
        # An ARGUMENT sink's value built by a call, where every pass agrees (see Sink.holds).
        self.holds: dict[tuple[str, str, str, str, int, int, str], str] = {}
        self.returns: dict[str, tuple[Source, ...]] = {}
        self.nesting = 0  # expressions and blocks the frames are inside (see MAX_NESTING)
        # qualname -> (definition, receiver) of each: return values traced when wanted
        self.untraced: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]] = {}

    def sink(
        self,
        kind: str,
        target: str,
        scope: str,
        name: str,
        node: _Positioned,
        sources: Sources,
        form: str = "",
        holds: str = "",
    ) -> None:
        # A keyword of a call not traced may be met in a statement interpreted for
        # another: its value was not followed, so it is no sink.
        if kind == KEYWORD and self.callees != ALL_CALLEES and not traced_callee(self.callees, target):
            return
        if sources and target:
            key = (kind, _intern(target), _intern(scope), _intern(name), node.lineno, node.col_offset, form)
            self.sinks.setdefault(key, set()).update(sources)
            if kind == ARGUMENT:  # an instance known only when every pass agrees
                before = self.holds.get(key)
                self.holds[key] = holds if before is None or before == holds else ""

    def callee(self, reference: str, resolved: str, owner: str | None, receiver: str | None) -> str:
        """The callee of a call of ``reference``, for following it into a helper:
        ``self.helper`` of a method is the method of its class; a module-level function
        of this module is qualified with it."""
        head, dot, rest = reference.partition(".")
        if receiver is not None and owner is not None and head == receiver and dot and "." not in rest:
            return f"{self.module}.{owner}.{rest}"
        if head in self.functions:
            return f"{self.module}.{reference}"
        return resolved

    def facts(self, every_return: bool) -> FlowFacts:
        sinks = []
        for key, sources in self.sinks.items():
            kind, target, scope, name, line, col, form = key
            holds = _intern(self.holds.get(key, ""))
            sinks.append(Sink(kind, target, scope, name, line, col, _compact(sources), form, holds))
        sinks.sort(key=lambda s: (s.line, s.col, s.kind, s.name, s.target, s.scope, s.form))
        if every_return:
            wanted: Iterable[str] = self.untraced
        else:  # the helpers of this module a sink's value calls, as the check looks them up
            prefix = f"{self.module}."
            wanted = {
                _intern(s.callee[len(prefix) :])
                for sink in sinks
                for s in sink.sources
                if s.kind == CALL and s.callee.startswith(prefix)
            }
            # ``self.name`` read: a property of the class or of a base here, when a
            # method of that name is defined here at all.
            read = {s.callee.rpartition(".")[2] for sink in sinks for s in sink.sources if s.kind == READ and s.callee}
            wanted |= self.same_named_methods(wanted) | self.methods_named(read)
        for qualname in wanted:
            # Defined twice (a property's setter): the last definition that returns anything.
            for definition, receiver in self.untraced.get(qualname, ()):
                shape = _Shape.of(definition, receiver, inner=True)
                returned = shape.returned_sources(_arguments(definition.args))
                if returned:
                    self.returns[qualname] = _compact(returned)
            if not every_return:
                # Traced, and returns nothing; or not defined here (inherited, say): the
                # walk found every function whose return value it would trace.
                self.returns.setdefault(qualname, ())
        return FlowFacts(tuple(sinks), dict(sorted(self.returns.items())), every_return, self.callees)

    def same_named_methods(self, wanted: set[str]) -> set[str]:
        """The methods named as a wanted one is: ``self.name()`` or ``super().name()``
        may find a base's, here more often than not (else the module is traced again
        when the check looks it up)."""
        return self.methods_named({qualname.rpartition(".")[2] for qualname in wanted if "." in qualname})

    def methods_named(self, names: set[str]) -> set[str]:
        """The methods defined here whose own name is one of ``names``."""
        if not names:
            return set()
        return {qualname for qualname in self.untraced if "." in qualname and qualname.rpartition(".")[2] in names}

"""DOM105: a runtime event built from a value derived from experiment knowledge.

An innocently named keyword (``object_id=self.primary_target``) carries what the
runtime must not know as surely as ``episode=`` does. The flow facts of each module
(:mod:`.flow`) say which identifiers every keyword value, attribute assignment and field
default is derived from; here they are matched against the contract's words, for the
calls that construct an event (or go through a configured emit function), the
attributes set on a constructed event, and the fields of the module's event classes.

Reach: within one function, through its local variables, plus one call level into a
function or method of the project (its return value, traced the same way). Not
followed: values passed positionally, values stored on ``self`` in one method and
read in another, and calls more than one level deep.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from domain_fence.core.families.vocabulary.words import Match, Vocabulary
from domain_fence.core.source.flow import ATTRIBUTE, CALL, FIELD, KEYWORD, PARAMETER, Sink, Source, callee_names
from domain_fence.core.source.pyfacts import FUNCTIONAL_CLASS_FACTORIES, Text

if TYPE_CHECKING:
    from domain_fence.core.families.vocabulary.events import EventResolver
    from domain_fence.core.index.project import ProjectIndex

CODE = "DOM105"
_MAX_BASES = 32  # classes searched for an inherited helper method


@dataclass(frozen=True)
class Derived:
    """A value to report: where, what, and the message's fields."""

    where: Text
    symbol: str
    fingerprint: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Origin:
    """The source of a value that uses the vocabulary, perhaps read by a helper."""

    source: Source
    match: Match
    helper: Source | None = None  # the call whose return value it is

    @property
    def chain(self) -> str:
        read = f"{self.source.shown} (l.{self.source.line})"
        return read if self.helper is None else f"{self.helper.shown} reading {read}"

    @property
    def identifier(self) -> str:
        own = self.source.identifier
        return own if self.helper is None else f"{self.helper.identifier}().{own}"


class DerivedValues:
    """One contract's DOM105 check, module by module."""

    def __init__(
        self,
        index: ProjectIndex,
        resolver: EventResolver,
        vocabulary: Vocabulary,
        emit_functions: tuple[str, ...],
        census_parameters: bool,
    ) -> None:
        self.index = index
        self.resolver = resolver
        self.vocabulary = vocabulary
        self.emit_functions = emit_functions
        # The census reports a parameter named with a word (DOM112): a value read
        # straight from one is reported there, not twice.
        self.census_parameters = census_parameters
        self._returns: dict[str, tuple[str, tuple[Source, ...]] | None] = {}
        self._sink_callees: dict[str, tuple[str, ...]] = {}  # see sink_callees

    def forget_edited(self) -> None:
        """A module was edited: what its functions return, and which of its calls build
        an event, are found again when asked."""
        self._returns.clear()
        self._sink_callees.clear()

    def module(self, module: str, events: frozenset[str]) -> Iterator[Derived]:
        """The derived values of ``module``; ``events`` are the qualnames of its event classes."""
        needs = self.sink_callees(module)
        built = needs or events or self.sets_event_attributes(module)
        flows = self.index.flows(module, needs) if built else None
        if flows is None:
            return
        for sink in flows.sinks:
            target = self.target(module, sink, events)
            if target is None:
                continue
            how, symbol, place, name_checked = target
            if name_checked and self.vocabulary.match(sink.name):
                continue  # the name itself is reported (DOM101, DOM104)
            origin = self.origin(sink, f"{module}.{sink.scope}")
            if origin is None:
                continue
            yield Derived(
                Text(sink.name, sink.line, sink.col),
                symbol,
                f"{CODE}:{module}:{place}<-{origin.identifier}",
                {
                    "name": sink.name,
                    "how": how,
                    "chain": origin.chain,
                    "word": origin.match.word,
                    "hint": origin.match.hint,
                },
            )

    def may_build_events(self, module: str, events: frozenset[str]) -> bool:
        """Whether ``module`` can hold a sink :meth:`target` accepts, by its other facts:
        it defines an event (a field sink), calls an event or an emit function with
        keywords (a keyword sink), or sets an attribute of what a call it assigns to a
        local returns (an attribute sink). Only then are its flow facts read."""
        return bool(events or self.sink_callees(module) or self.sets_event_attributes(module))

    def sink_callees(self, module: str) -> tuple[str, ...]:
        """The last parts of the callees whose keywords the check of ``module`` reads:
        those of its calls that build an event or go through an emit function, as its
        facts resolve them (the flow facts need trace no other call's keywords)."""
        found = self._sink_callees.get(module)
        if found is None:
            facts = self.index.file_facts(module)
            names = set()
            for call in facts.names.calls if facts is not None else ():
                callee = self.resolver.canonical(call.callee)
                if self.resolver.is_event(callee) or self.is_emit_function(call.callee, callee):
                    names.add(call.callee.rpartition(".")[2])
            found = self._sink_callees[module] = callee_names(names)
        return found

    def sets_event_attributes(self, module: str) -> bool:
        """Whether ``module`` sets an attribute of an event it builds (flow facts trace
        those whatever the callees)."""
        facts = self.index.file_facts(module)
        constructed = facts.names.constructed if facts is not None else ()
        return any(self.resolver.is_event(self.resolver.canonical(c)) for c in constructed)

    def target(self, module: str, sink: Sink, events: frozenset[str]) -> tuple[str, str, str, bool] | None:
        """(how the message says it, the symbol, the fingerprint's place, whether
        another rule checks the name itself) when ``sink`` feeds an event; else None."""
        if sink.kind == FIELD:
            if sink.target not in events:
                return None
            owner = sink.target.rsplit(".", 1)[-1]
            return f"in {owner}", f"{module}.{sink.target}.{sink.name}", f"{sink.target}.{sink.name}", True
        callee = self.resolver.canonical(sink.target)
        owner = callee.rsplit(".", 1)[-1]
        if self.resolver.is_event(callee) and not self.defines_a_class(callee):
            if sink.kind == KEYWORD:
                return f"constructing {owner}", f"{callee}({sink.name})", f"{sink.scope}:{owner}({sink.name})", True
            if sink.kind == ATTRIBUTE:
                return f"set on {owner}", f"{callee}.{sink.name}", f"{sink.scope}:{owner}.{sink.name}", False
        if sink.kind == KEYWORD and self.is_emit_function(sink.target, callee):
            shown = ".".join(sink.target.rsplit(".", 2)[-2:])
            return f"emitted by {shown}", f"{callee}({sink.name})", f"{sink.scope}:{shown}({sink.name})", False
        return None

    def defines_a_class(self, callee: str) -> bool:
        """``NamedTuple("X", a=int)`` defines an event class; it constructs no event."""
        factory = callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES
        return factory and self.resolver.class_fact(callee) is None

    def is_emit_function(self, written: str, canonical: str) -> bool:
        return any(fnmatchcase(canonical, p) or fnmatchcase(written, p) for p in self.emit_functions)

    def origin(self, sink: Sink, context: str) -> _Origin | None:
        """The first source of the sink's value (by line) that uses the vocabulary,
        looking one call level into helpers."""
        for source in sink.sources:
            if source.kind == PARAMETER and self.census_parameters:
                continue
            match = self.vocabulary.match(source.identifier, context)
            if match:
                return _Origin(source, match)
            if source.kind == CALL and source.callee:
                found = self.through_helper(source)
                if found is not None:
                    return found
        return None

    def through_helper(self, call: Source) -> _Origin | None:
        helper = self.returns(call.callee)
        if helper is None:
            return None
        qualified, sources = helper
        for source in sources:
            if source.kind == PARAMETER:
                continue  # what the caller passed: the caller's own sources
            match = self.vocabulary.match(source.identifier, qualified)
            if match:
                return _Origin(source, match, call)
        return None

    def returns(self, callee: str) -> tuple[str, tuple[Source, ...]] | None:
        """(qualified name, return sources) of the project function or method
        ``callee`` names; a method may be inherited."""
        if callee not in self._returns:
            self._returns[callee] = self._find_returns(self.resolver.canonical(callee))
        return self._returns[callee]

    def _find_returns(self, canonical: str) -> tuple[str, tuple[Source, ...]] | None:
        module, rest = self.resolver.split(canonical)
        if not (module and rest):
            return None
        found = self.index.function_returns(module, rest)
        if found is not None:
            return canonical, found
        owner, dot, method = rest.rpartition(".")
        if not dot or self.index.flows(module, ()) is None:  # a method not of a project class
            return None
        # An inherited method: search the bases of the class, breadth first.
        pending, seen = [f"{module}.{owner}"], set[str]()
        while pending and len(seen) < _MAX_BASES:
            current = pending.pop(0)
            if current in seen:
                continue
            seen.add(current)
            for base in (base for fact in self.resolver.class_facts(current) for base in fact.bases):
                resolved = self.resolver.canonical(base)
                base_module, base_rest = self.resolver.split(resolved)
                inherited = (
                    self.index.function_returns(base_module, f"{base_rest}.{method}")
                    if base_module and base_rest
                    else None
                )
                if inherited is not None:
                    return f"{resolved}.{method}", inherited
                pending.append(resolved)
        return None

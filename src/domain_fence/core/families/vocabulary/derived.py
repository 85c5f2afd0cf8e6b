"""DOM105: a runtime event built from a value derived from experiment knowledge.

An innocently named keyword (``object_id=self.primary_target``) carries what the
runtime must not know as surely as ``episode=`` does. The flow facts of each module
(:mod:`.flow`) say which identifiers every keyword value, value given by position,
attribute assignment and field default is derived from; here they are matched against
the contract's words, for the calls that construct an event (or go through an emit
function: configured, or one its definition makes one, :meth:`DerivedValues.inferred_emitter`),
the attributes set on a constructed event, and the fields of the module's event classes.

Reach: within one function, through its local variables, plus one call level into a
function or method of the project (its return value, traced the same way); a method is
found where Python finds it (:func:`method_order`), ``super()``'s after its class. Not
followed: values unpacked from a sequence (``Event(*values)``: where each goes is not
known), values stored on ``self`` in one method and read in another, and calls more
than one level deep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, NamedTuple

from domain_fence.core.families.vocabulary.words import Match, Vocabulary
from domain_fence.core.model.text import line_reference
from domain_fence.core.source.facts import FUNCTIONAL_CLASS_FACTORIES, EmitterFact, FileFacts, Text
from domain_fence.core.source.flow import (
    ARGUMENT,
    ATTRIBUTE,
    CALL,
    FIELD,
    KEYWORD,
    LATE,
    NAMED,
    PARAMETER,
    READ,
    RETURNED,
    SPREAD,
    SUPER,
    Sink,
    Source,
    callee_names,
    is_spread,
)

if TYPE_CHECKING:
    from domain_fence.core.families.vocabulary.resolution import EventResolver
    from domain_fence.core.index.project import ProjectIndex

CODE = "DOM105"
_MAX_BASES = 32  # classes searched for an inherited helper method
# The form a value given by position names in its fingerprint (as a kind's, DOM103's),
# beside a construction's: no keyword's or mapping's fingerprint has it.
POSITIONAL = "positional"
# The key under which a property read's return sources are kept (see DerivedValues._returns).
PROPERTY_READ = "property"
# Pydantic's methods building an instance, as a call's callee ends (``X.model_construct``).
_BUILDING = (".model_construct", ".model_validate")

# (event class, how it is built, position) -> the name of the value given there: the
# field it binds, ``argument N``, or None where the class takes no such argument
ArgumentName = Callable[[str, str, int], "str | None"]


class Target(NamedTuple):
    """How a sink feeding an event is named: in the message, the symbol and the
    fingerprint; whether another rule checks its name; the name itself."""

    how: str
    symbol: str
    place: str
    checked: bool
    name: str


class Derived(NamedTuple):
    """A value to report: where, what, and the message's fields."""

    where: Text
    symbol: str
    fingerprint: str
    fields: dict[str, str]
    # Whether ``where`` spans the text it names (a keyword's, an attribute's, a field's
    # name); a mapping's is shortened (``**stats``), a validator's value returned is no
    # name: the reports take the token there.
    spans: bool = True


class _Origin(NamedTuple):
    """The source of a value that uses the vocabulary, perhaps read by a helper."""

    source: Source
    match: Match
    helper: Source | None = None  # the call whose return value it is

    @property
    def chain(self) -> str:
        read = f"{self.source.shown}{line_reference(self.source.line)}"
        return read if self.helper is None else f"{self.helper.shown} reading {read}"

    def order(self) -> tuple[str, int, str]:
        """Of several origins, the one to name: by identifier (what the fingerprint
        holds), then by place and what the message shows (only for determinism)."""
        return (self.identifier, self.source.line, self.chain)

    @property
    def identifier(self) -> str:
        own = self.source.identifier
        if self.helper is None:
            return own
        through = f"{SUPER}." if self.helper.base == SUPER else ""  # not the class's own method
        return f"{through}{self.helper.identifier}().{own}"


class DerivedValues:
    """One contract's DOM105 check, module by module."""

    def __init__(
        self,
        index: ProjectIndex,
        resolver: EventResolver,
        vocabulary: Vocabulary,
        emit_functions: tuple[str, ...],
        census_parameters: bool,
        argument_name: ArgumentName,
    ) -> None:
        self.index = index
        self.argument_name = argument_name  # see ArgumentName
        self.resolver = resolver
        self.vocabulary = vocabulary
        self.emit_functions = emit_functions
        # The census reports a parameter named with a word (DOM112): a value read
        # straight from one is reported there, not twice.
        self.census_parameters = census_parameters
        # (callee, bases only) -> see returns; (``module.Owner.name``, PROPERTY_READ) -> see through_property
        self._returns: dict[tuple[str, bool | str], tuple[str, tuple[Source, ...]] | None] = {}
        self._sink_callees: dict[str, tuple[str, ...]] = {}  # see sink_callees
        self._functions: dict[str, frozenset[str]] = {}  # see module_functions
        self._emitters: dict[str, EmitterFact | None] = {}  # see inferred_emitter
        self._methods: dict[str, EmitterFact | None] = {}  # ``module.Class.name`` -> see inferred_emitter

    def forget_edited(self) -> None:
        """A module was edited: what its functions return, which of its calls build
        an event, which functions it defines and which emit an event are found again
        when asked."""
        self._returns.clear()
        self._sink_callees.clear()
        self._functions.clear()
        self._emitters.clear()
        self._methods.clear()

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
            # A mapping whose keys are not known has no name to check, and is named shortened
            # (``**stats``); a value given by position, by the field it binds or its place;
            # a validator's, where it returns it, by the field.
            spread, by_position = is_spread(sink.name), sink.kind == ARGUMENT
            # A keyword named with a word is reported where it is written (DOM104); a field
            # so named, where it is declared (DOM101), not where a value is given it by
            # position: there the value is what the fix is about.
            if target.checked and not spread and not by_position and self.vocabulary.match(target.name):
                continue
            origin = self.origin(sink, f"{module}.{sink.scope}")
            if origin is None:
                continue
            yield Derived(
                Text(target.name, sink.line, sink.col),
                target.symbol,
                f"{CODE}:{module}:{target.place}<-{origin.identifier}",
                {
                    "name": target.name,
                    "how": target.how,
                    "chain": origin.chain,
                    "word": origin.match.word,
                    "hint": origin.match.hint,
                },
                spans=not (spread or by_position or sink.form == RETURNED),
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
                if self.resolver.is_event(callee) or self.is_emit_function(module, call.callee, callee, call.scope):
                    names.add(call.callee.rpartition(".")[2])
            for construction in facts.names.constructions if facts is not None else ():
                callee = self.resolver.canonical(construction.built)
                if self.resolver.is_event(callee) or (
                    unpacked_into_a_call(construction.form)
                    and self.is_emit_function(module, construction.built, callee, construction.scope)
                ):
                    names.add(construction.built.rpartition(".")[2])  # the sink's target (see flow.Sink)
            # Given arguments by position: an event's class (as a construction passing them
            # on builds it), or an emit function called by name.
            for target in facts.names.argument_callees if facts is not None else ():
                callee = self.resolver.canonical(target)
                if (self.resolver.is_event(callee) and not self.defines_a_class(callee)) or self.is_emit_function(
                    module, target, callee
                ):
                    names.add(target.rpartition(".")[2])
            # An emit method its class calls on its own instance, given arguments by position.
            for (scope, written), method in facts.names.own_emitter_calls.items() if facts is not None else ():
                if self.inferred_emitter(module, written, written, scope) is not None:
                    names.add(method.rpartition(".")[2])
            found = self._sink_callees[module] = callee_names(names)
        return found

    def sets_event_attributes(self, module: str) -> bool:
        """Whether ``module`` sets an attribute of an event it builds (flow facts trace
        those whatever the callees)."""
        facts = self.index.file_facts(module)
        constructed = facts.names.constructed if facts is not None else ()
        return any(self.resolver.is_event(self.resolver.canonical(c)) for c in constructed)

    def target(self, module: str, sink: Sink, events: frozenset[str]) -> Target | None:
        """How ``sink`` is named when it feeds an event (see Target); else None."""
        if sink.kind == FIELD:
            if sink.target not in events:
                return None
            owner = sink.target.rsplit(".", 1)[-1]
            return Target(
                f"in {owner}", f"{module}.{sink.target}.{sink.name}", f"{sink.target}.{sink.name}", True, sink.name
            )
        callee = self.resolver.canonical(sink.target)
        owner = callee.rsplit(".", 1)[-1]
        if sink.kind == ARGUMENT:
            return self.given(module, sink, callee)
        # A keyword's name; a mapping whose keys are not known is SPREAD alone, whatever
        # it is written as (no keyword is so named: no existing fingerprint is changed).
        name = SPREAD if sink.kind == KEYWORD and is_spread(sink.name) else sink.name
        if sink.form:  # a field named by another construction than a call by name (see flow.Sink)
            if sink.kind != KEYWORD:
                return None
            if self.resolver.is_event(callee) and not self.defines_a_class(callee):
                built = f"{sink.scope}:{owner}[{sink.form}]({name})"
                return Target(f"constructing {owner} ({sink.form})", f"{callee}({name})", built, True, sink.name)
            if (
                unpacked_into_a_call(sink.form)
                and self.is_emit_function(module, sink.target, callee, sink.scope)
                and self.carries(module, sink.target, callee, sink.name, sink.scope)
            ):
                shown = shown_callee(sink.target)
                place = f"{sink.scope}:{shown}[{sink.form}]({name})"
                emitter = self.defined_here(module, sink.target) or callee
                return Target(f"emitted by {shown} ({sink.form})", f"{emitter}({name})", place, True, sink.name)
            return None
        if self.resolver.is_event(callee) and not self.defines_a_class(callee):
            if sink.kind == KEYWORD:
                place = f"{sink.scope}:{owner}({name})"
                return Target(f"constructing {owner}", f"{callee}({name})", place, True, sink.name)
            if sink.kind == ATTRIBUTE:
                place = f"{sink.scope}:{owner}.{sink.name}"
                checked = self.attribute_checked(module, sink)
                return Target(f"set on {owner}", f"{callee}.{sink.name}", place, checked, sink.name)
        if (
            sink.kind == KEYWORD
            and self.is_emit_function(module, sink.target, callee, sink.scope)
            and self.carries(module, sink.target, callee, sink.name, sink.scope)
        ):
            # The fingerprint shows the callee as written (resolved through imports); the
            # symbol, the function called. A keyword named with a word is DOM104's, as
            # for a construction (VocabularyChecker.emitted).
            shown = shown_callee(sink.target)
            emitter = self.defined_here(module, sink.target) or callee
            place = f"{sink.scope}:{shown}({name})"
            return Target(f"emitted by {shown}", f"{emitter}({name})", place, True, sink.name)
        return None

    def given(self, module: str, sink: Sink, callee: str) -> Target | None:
        """How a value given by position (an ARGUMENT sink) to an event's construction,
        or to an emit function called by name, is named: by the field it binds where the
        order of the event's fields is certain (a field named with a word is DOM101's,
        where it is declared), else by its position from 1 (``argument 2``); the
        fingerprint names the form POSITIONAL, which no keyword's has
        (``MatchEvent[positional](object_id)``, ``emit_step[positional](2)``). Not one
        given to a class that takes no such argument (a pydantic model), nor an event
        itself (``emit(MatchEvent(...))``: its own construction is traced where it is
        built)."""
        holds = sink.holds
        for method in _BUILDING:
            holds = holds.removesuffix(method)
        if holds and self.resolver.is_event(self.resolver.canonical(holds)):
            return None
        position = int(sink.name)
        numbered = f"argument {position + 1}"
        if self.resolver.is_event(callee) and not self.defines_a_class(callee):
            name = self.argument_name(callee, sink.form, position)
            if name is None:
                return None
            field_name = name != numbered
            written = name if field_name else str(position + 1)
            owner = callee.rsplit(".", 1)[-1]
            form = f"{sink.form},{POSITIONAL}" if sink.form else POSITIONAL
            how = f"constructing {owner} ({form.replace(',', ', ')})"
            return Target(how, f"{callee}({written})", f"{sink.scope}:{owner}[{form}]({written})", field_name, name)
        if (
            not sink.form
            and self.is_emit_function(module, sink.target, callee, sink.scope)
            and self.carries_position(module, sink.target, callee, position, sink.scope)
        ):
            shown = shown_callee(sink.target)
            emitter = self.defined_here(module, sink.target) or callee
            place = f"{sink.scope}:{shown}[{POSITIONAL}]({position + 1})"
            how = f"emitted by {shown} ({POSITIONAL})"
            return Target(how, f"{emitter}({position + 1})", place, False, numbered)
        return None

    def attribute_checked(self, module: str, sink: Sink) -> bool:
        """Whether DOM104 checks the name of the attribute ``sink`` sets: the module's
        facts know the local it is set on to hold an event (facts.AttributeSetFact),
        as the flow facts do not always (they follow the local's last assignment)."""
        facts = self.index.file_facts(module)
        return facts is not None and any(
            not fact.form
            and fact.name.text == sink.name
            and (fact.holder.line, fact.holder.col) == (sink.line, sink.col)
            and self.resolver.is_event(self.resolver.canonical(fact.built))
            for fact in facts.names.attribute_sets
        )

    def defines_a_class(self, callee: str) -> bool:
        """``NamedTuple("X", a=int)`` defines an event class; it constructs no event."""
        factory = callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES
        return factory and self.resolver.class_fact(callee) is None

    def is_emit_function(self, module: str, written: str, canonical: str, scope: str = "") -> bool:
        """Whether a call in ``module`` of ``written`` (the callee resolved through the
        module's imports; ``canonical``, to where it is defined), made in ``scope``,
        goes through an emit function: one ``emit_functions`` names (:meth:`configured`),
        or one whose definition says so (:meth:`inferred_emitter`). Either is read
        alike: the same findings, under the same fingerprints."""
        return self.configured(module, written, canonical) or (
            self.inferred_emitter(module, written, canonical, scope) is not None
        )

    def configured(self, module: str, written: str, canonical: str) -> bool:
        """Whether a pattern of ``emit_functions`` matches the callee as written, where
        it is defined, or, for a function the module defines itself and calls by its
        bare name, as a module importing it would name it (``pkg.telemetry.emit_event``)."""
        here = self.defined_here(module, written)
        return any(
            fnmatchcase(canonical, p) or fnmatchcase(written, p) or (here and fnmatchcase(here, p))
            for p in self.emit_functions
        )

    def inferred_emitter(self, module: str, written: str, canonical: str, scope: str = "") -> EmitterFact | None:
        """What the function a call in ``module`` names constructs, where that makes it
        an emit function though no pattern names it: a module-level function of the
        project, certain as for its signature, that constructs an event unpacking its
        own ``**`` parameter (``def emit_reach(kind, **fields): return
        TelemetryEvent(kind=kind, **fields)``; see facts.EmitterFact); or a method so
        defined that its class calls on its own instance in ``scope`` (``self._publish(
        ...)``: facts.ModuleFacts.own_emitter_calls). One inherited, a decorated function
        or method, one bound twice or one outside the project is none: only
        ``emit_functions`` names those."""
        facts = self.index.file_facts(module) if scope and "." in written else None
        if facts is not None and (scope, written) in facts.names.own_emitter_calls:
            return self._method_emitter(facts, facts.names.own_emitter_calls[(scope, written)])
        target = self.defined_here(module, written) or canonical
        if target not in self._emitters:
            self._emitters[target] = self._find_emitter(target)
        return self._emitters[target]

    def carries(self, module: str, written: str, canonical: str, name: str, scope: str = "") -> bool:
        """Whether a keyword ``name`` given to the emit function a call names becomes a
        field of the event: always for one ``emit_functions`` names (configured, every
        keyword is a field); for one found by its definition, unless the function names
        a parameter so that it does not pass on (``throttle`` in ``publish(kind, *,
        throttle=0, **fields)``: it binds the parameter, not ``**fields``)."""
        if self.configured(module, written, canonical):
            return True
        emitter = self.inferred_emitter(module, written, canonical, scope)
        return emitter is None or name not in emitter.named or name in emitter.passed

    def carries_position(self, module: str, written: str, canonical: str, position: int, scope: str = "") -> bool:
        """Whether a value given by position to the emit function a call names reaches the
        event: always for a configured one; for one found by its definition, only where
        it binds a parameter passed on (``kind`` in ``emit(kind, **fields)``)."""
        if self.configured(module, written, canonical):
            return True
        emitter = self.inferred_emitter(module, written, canonical, scope)
        if emitter is None:
            return True
        return position < len(emitter.positional) and emitter.positional[position] in emitter.passed

    def _method_emitter(self, facts: FileFacts, method: str) -> EmitterFact | None:
        """The emit method ``method`` (``Class.name``) of the module ``facts`` are of."""
        key = f"{facts.module}.{method}"
        if key not in self._methods:
            self._methods[key] = self._event_emitter(facts.names.method_emitters.get(method))
        return self._methods[key]

    def _find_emitter(self, target: str) -> EmitterFact | None:
        owner, name = self.resolver.split(target)
        if not owner or not name or "." in name:
            return None
        facts = self.resolver.facts(owner)
        return self._event_emitter(facts.emitters.get(name) if facts is not None else None)

    def _event_emitter(self, emitter: EmitterFact | None) -> EmitterFact | None:
        """``emitter`` when a class it constructs is an event; else None."""
        if emitter is None:
            return None
        for built in emitter.built:
            event = self.resolver.canonical(built)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                return emitter
        return None

    def defined_here(self, module: str, written: str) -> str:
        """``module.written`` when ``written`` is a bare name (no import binds it: the
        module's facts resolve an imported name) of a function ``module`` defines at
        module level; else "". Its calls are calls of that function, as the flow facts
        take them (:meth:`flow.collector._Collector.callee`)."""
        if "." in written:
            return ""
        return f"{module}.{written}" if written in self.module_functions(module) else ""

    def module_functions(self, module: str) -> frozenset[str]:
        """The names of the functions ``module`` defines at module level (in the
        module's own ``if``/``try`` blocks too: they bind module globals)."""
        found = self._functions.get(module)
        if found is None:
            facts = self.index.file_facts(module)
            top_level = facts.top_level if facts is not None else ()
            found = self._functions[module] = frozenset(d.name for d in top_level if d.kind == "function")
        return found

    def origin(self, sink: Sink, context: str) -> _Origin | None:
        """The source of the sink's value that uses the vocabulary, looking one call
        level into helpers: of several, the first by identifier (the fingerprint names
        it), so that reordering the statements a value is computed from changes nothing.
        A property read (``self.expected``) is followed only when nothing else is found:
        a value reported before properties were followed keeps its fingerprint; an
        attribute read by ``getattr`` and a literal name (:data:`~.flow.NAMED`), read
        as any other attribute, only when nothing else is found at all, for the same
        reason (first itself, then the property it may name, then through a helper)."""
        found: list[_Origin] = []
        properties = []
        named: list[_Origin] = []
        named_properties = []
        for source in sink.sources:
            if source.kind == PARAMETER and self.census_parameters:
                continue
            match = self.vocabulary.match(source.identifier, context)
            if match:
                (named if source.kind in LATE else found).append(_Origin(source, match))
            elif source.kind == CALL and source.callee:
                through = self.through_helper(source)
                if through is not None:
                    (named if _named_read(through) else found).append(through)
            elif source.kind == READ and source.callee:
                properties.append(source)
            elif source.kind == NAMED and source.callee:
                named_properties.append(source)
        if not found:
            found = [o for o in map(self.through_property, properties) if o is not None]
        if not found:
            found = named or [o for o in map(self.through_property, named_properties) if o is not None]
        return min(found, key=_Origin.order) if found else None

    def through_property(self, read: Source) -> _Origin | None:
        """``self.name`` read in a method (its callee names ``module.Owner.name``): when
        the nearest definition of ``name`` in Owner's method resolution order is a
        property, what its return value is derived from, as for ``self.name()``."""
        key = (read.callee, PROPERTY_READ)
        if key not in self._returns:
            self._returns[key] = self._find_property(read.callee)
        return self.derived_from(read, self._returns[key])

    def _find_property(self, callee: str) -> tuple[str, tuple[Source, ...]] | None:
        module, rest = self.resolver.split(callee)
        owner, dot, name = rest.rpartition(".")
        if not (module and dot):
            return None
        for klass in method_order(self.resolver, f"{module}.{owner}"):
            class_module, qualname = self.resolver.split(klass)
            method = f"{qualname}.{name}"
            if class_module and qualname and self.index.defines_method(class_module, method):
                if not self.index.defines_property(class_module, method):
                    return None  # a method read, not called
                found = self.index.function_returns(class_module, method)
                return None if found is None else (f"{klass}.{name}", found)
        return None

    def through_helper(self, call: Source) -> _Origin | None:
        return self.derived_from(call, self.returns(call.callee, bases_only=call.base == SUPER))

    def derived_from(self, call: Source, helper: tuple[str, tuple[Source, ...]] | None) -> _Origin | None:
        """The origin of ``call``'s value in ``helper`` (qualified name, return sources)."""
        if helper is None:
            return None
        qualified, sources = helper
        found: list[_Origin] = []
        named: list[_Origin] = []  # read by ``getattr``: named only where nothing else is (see origin)
        for source in sources:
            if source.kind == PARAMETER:
                continue  # what the caller passed: the caller's own sources
            match = self.vocabulary.match(source.identifier, qualified)
            if match:
                (named if source.kind in LATE else found).append(_Origin(source, match, call))
        return min(found or named, key=_Origin.order) if found or named else None

    def returns(self, callee: str, bases_only: bool = False) -> tuple[str, tuple[Source, ...]] | None:
        """(qualified name, return sources) of the project function or method
        ``callee`` names; a method may be inherited. With ``bases_only`` (``super()``),
        the method of the bases of its class."""
        key = (callee, bases_only)
        if key not in self._returns:
            self._returns[key] = self._find_returns(self.resolver.canonical(callee), bases_only)
        return self._returns[key]

    def _find_returns(self, canonical: str, bases_only: bool) -> tuple[str, tuple[Source, ...]] | None:
        module, rest = self.resolver.split(canonical)
        if not (module and rest):
            return None
        if not bases_only:
            found = self.index.function_returns(module, rest)
            if found is not None:
                return canonical, found
        owner, dot, method = rest.rpartition(".")
        if not dot or self.index.flows(module, ()) is None:  # a method not of a project class
            return None
        # The nearest definition, as Python finds it: one that returns nothing derived
        # (an override that fixed a leak) hides those of the classes after it.
        order = method_order(self.resolver, f"{module}.{owner}")
        for klass in order[1:] if bases_only else order:
            class_module, qualname = self.resolver.split(klass)
            if class_module and qualname and self.index.defines_method(class_module, f"{qualname}.{method}"):
                inherited = self.index.function_returns(class_module, f"{qualname}.{method}")
                return None if inherited is None else (f"{klass}.{method}", inherited)
        return None


def shown_callee(written: str) -> str:
    """How fingerprints and messages name an emit function called as ``written`` (the
    callee resolved through the module's imports): its last two parts
    (``telemetry.emit_event`` for ``self.telemetry.emit_event``)."""
    return ".".join(written.rsplit(".", 2)[-2:])


def _named_read(origin: _Origin) -> bool:
    """Whether ``origin`` is an attribute read by ``getattr`` and a literal name, or a key
    read by ``get`` (:data:`~.flow.LATE`)."""
    return origin.source.kind in LATE


def unpacked_into_a_call(form: str) -> bool:
    """The form of a local dict unpacked into a call of the callee as written
    (``**payload``: facts.ConstructionFact), not into another construction."""
    return form.startswith("**")


def method_order(resolver: EventResolver, start: str) -> list[str]:
    """The project classes ``start`` and its bases, in the order Python looks a method
    up (C3, from the bases as written); in the order a depth-first search meets them
    when C3 finds none (a circular hierarchy, inconsistent bases). At most _MAX_BASES
    classes are read."""
    graph: dict[str, tuple[str, ...]] = {}
    pending = [start]
    while pending and len(graph) < _MAX_BASES:
        current = pending.pop(0)
        if current not in graph:
            written = (resolver.canonical(base) for fact in resolver.class_facts(current) for base in fact.bases)
            graph[current] = tuple(dict.fromkeys(written))
            pending += graph[current]
    return _c3(start, graph, {}, set()) or _depth_first(start, graph)


def _c3(
    klass: str, graph: dict[str, tuple[str, ...]], done: dict[str, list[str]], active: set[str]
) -> list[str] | None:
    """C3 linearisation of ``klass`` over ``graph`` (recursing at most as deep as the
    graph is large); None when there is none."""
    if klass in done:
        return done[klass]
    if klass in active:
        return None  # a cycle
    active.add(klass)
    parents = graph.get(klass, ())
    lists = [_c3(parent, graph, done, active) for parent in parents]
    active.discard(klass)
    if any(found is None for found in lists):
        return None
    merged = _merge([*(list(found) for found in lists if found), list(parents)])
    if merged is None:
        return None
    done[klass] = [klass, *merged]
    return done[klass]


def _merge(lists: list[list[str]]) -> list[str] | None:
    merged: list[str] = []
    lists = [found for found in lists if found]
    while lists:
        head = next((f[0] for f in lists if not any(f[0] in other[1:] for other in lists)), None)
        if head is None:
            return None  # inconsistent: Python refuses such a class
        merged.append(head)
        lists = [rest for rest in (f[1:] if f[0] == head else f for f in lists) if rest]
    return merged


def _depth_first(start: str, graph: dict[str, tuple[str, ...]]) -> list[str]:
    order: dict[str, None] = {}
    pending = [start]
    while pending:
        current = pending.pop()
        if current not in order:
            order[current] = None
            pending += reversed(graph.get(current, ()))
    return list(order)

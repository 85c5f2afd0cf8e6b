"""Runtime events and the experiment vocabulary in them (DOM101-DOM105).

A class is a runtime event when it is defined in the contract's ``modules`` and is one
of the ``event_bases`` or derives from one, through any chain of classes anywhere in
the project: bases are followed through imports, ``import x as y`` aliases, relative
imports and re-exports in ``__init__`` modules. Its own fields, its name and its kind
strings are checked; an inherited field is reported where it is declared. Runtime
modules are also checked for keyword arguments in calls that construct an event or go
through an emit function (configured, or a function constructing an event from its own
``**`` parameter: :meth:`.derived.DerivedValues.inferred_emitter`), and for the values
events are built from (DOM105, :mod:`.derived`).

That is the contract's default ``scope`` (``events``); the opt-in scopes of
:mod:`.declarations` (DOM111-DOM113) are checked here too, with the same vocabulary.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from domain_fence.core.families.config import EVENTS_SCOPE, VocabularyConfig
from domain_fence.core.families.vocabulary.declarations import CODES as DECLARATION_CODES
from domain_fence.core.families.vocabulary.declarations import PARAMETERS, declared_names
from domain_fence.core.families.vocabulary.derived import CODE as DERIVED_CODE
from domain_fence.core.families.vocabulary.derived import (
    POSITIONAL,
    DerivedValues,
    shown_callee,
    unpacked_into_a_call,
)
from domain_fence.core.families.vocabulary.mixins import NO_MIXINS, Mixins, find_mixins
from domain_fence.core.families.vocabulary.prefilter import (
    Prefilter,
    adds_names,
    declaration_spellings,
    declarations_reader,
    find_prefilter,
)
from domain_fence.core.families.vocabulary.resolution import EventResolver, constant_in, through_binding
from domain_fence.core.families.vocabulary.words import Vocabulary
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import fingerprints
from domain_fence.core.model.findings import FINDING_ORDER, Finding
from domain_fence.core.model.rules import get_rule
from domain_fence.core.source.facts import (
    DATACLASS,
    FUNCTIONAL_CLASS_FACTORIES,
    INHERITED,
    NAMEDTUPLE,
    SUPER_INIT,
    AttributeSetFact,
    CallFact,
    ClassFact,
    ConstructionFact,
    DeclarationFacts,
    FileFacts,
    ModuleFacts,
    PositionalFact,
    Text,
)
from domain_fence.core.source.flow import CALL, Source

# What an enumeration's member holds (``Kinds.RESET.value``), and the standard
# enumerations a class derives from to make its constants members.
ENUM_VALUE = "value"
_STANDARD_ENUMS = frozenset(f"enum.{name}" for name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"))
# What VocabularyChecker.enumeration says of a class: an enumeration whose members hold
# the values their class body gives them, one whose members' values are not known.
ENUMERATION, NOT_KNOWN = "enumeration", "not known"


def _once(findings: Iterable[Finding], seen: set[tuple[int, int, str]]) -> Iterator[Finding]:
    """The findings not yet in ``seen`` (by place and fingerprint), noting them there."""
    for finding in findings:
        key = (finding.line, finding.col, finding.fingerprint)
        if key not in seen:
            seen.add(key)
            yield finding


def vocabulary_findings(config: VocabularyConfig, index: ProjectIndex, module: str) -> list[Finding]:
    """The vocabulary findings of one module (none when it is outside ``modules``)."""
    return sorted(_checker(config, index).module(module), key=FINDING_ORDER)


# How a lookup of whether a class defines a method is noted among the functions consulted
# (no qualname has a space).
DEFINES = "def "
# How a lookup of a string constant (a module's, or a class's) is noted there.
CONSTANT = "const "
# How a lookup of the parameters a function takes by position is noted there.
SIGNATURE = "params "
# How a lookup of whether a method is a property is noted there.
PROPERTY = "property "
# Bases that add no field and take no argument: a class above them takes none of its own.
_NO_FIELDS = frozenset({"object", "builtins.object", "typing.Generic", "abc.ABC"})
_MAX_CHAIN = 32  # classes followed up to the one that says how arguments are taken
# Pydantic's base model, as imports name it: its ``__init__`` takes fields by keyword alone.
_PYDANTIC_MODELS = frozenset(
    {"pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.v1.BaseModel", "pydantic.v1.main.BaseModel"}
)
SET_ON_SELF = "self"  # the form a kind a method sets on its instance names in its fingerprint
SET_ON_CLASS = "class"  # and one a class method sets on its class (``cls.kind = ...``)
# The form a keyword (or a kind) given to an emit function names in its fingerprint: no
# construction's form, so no fingerprint of one (see VocabularyChecker.emitted).
EMITTED = "emitted"

# flake8 asks file by file: one checker per contract and index keeps what it resolved.
_CHECKERS: dict[tuple[VocabularyConfig, int], tuple[ProjectIndex, VocabularyChecker]] = {}


def _checker(config: VocabularyConfig, index: ProjectIndex) -> VocabularyChecker:
    found = _CHECKERS.get((config, id(index)))
    if found is None or found[0] is not index:
        if len(_CHECKERS) >= 16:
            _CHECKERS.clear()
        found = _CHECKERS[(config, id(index))] = (index, VocabularyChecker(config, index))
    return found[1]


def all_vocabulary_findings(config: VocabularyConfig, index: ProjectIndex) -> list[Finding]:
    """The vocabulary findings of every module the contract covers."""
    checker = VocabularyChecker(config, index)
    modules = sorted(checker.covered())
    return sorted((finding for module in modules for finding in checker.module(module)), key=FINDING_ORDER)


def prefetch_covered(
    config: VocabularyConfig,
    index: ProjectIndex,
    among: Iterable[str] | None = None,
    accepts: Callable[[str], bool] | None = None,
) -> list[str]:
    """The modules the contract covers, their facts made ready with those of the
    event bases' modules: in one go, so that many files are parsed in parallel.

    Those ``accepts`` passes over (see :mod:`.prefilter`) are not read: only whether
    Python can parse them is checked, together. With ``among``, only those of these
    modules."""
    covered = [module for module in (index.modules if among is None else among) if config.covers(module)]
    reading = covered if accepts is None else [module for module in covered if accepts(module)]
    if accepts is not None and len(reading) < len(covered):
        chosen = set(reading)
        index.read_imports(module for module in covered if module not in chosen)
    resolver = EventResolver(index, ())
    base_modules = [resolver.split(base)[0] for base in config.event_bases]
    hint_flows(config, index)
    index.prefetch([*reading, *(module for module in base_modules if module)])
    if EVENTS_SCOPE in config.scope:
        # Resolving every class's bases and every call's callee reads the modules they
        # name, then the modules those re-export from: read each step's modules together.
        pending = {reference for module in reading for reference in _references(resolver.facts(module))}
        seen = set(pending)
        while pending:
            index.prefetch(sorted({module for module in map(resolver.module_of, pending) if module}))
            pending = {hop for reference in pending for hop in resolver.hops(reference)} - seen
            seen |= pending
    return covered


def hint_flows(config: VocabularyConfig, index: ProjectIndex) -> None:
    """Before the covered files are parsed: the names that make a file likely to be
    asked for its flow facts (:func:`prime_flow_hints`), those the configuration
    names at once, those an ``event_bases`` pattern matches before many files are
    parsed together."""
    index.trace_when_mentioned(_likely_traced(config), among=config.covers)
    if config.event_base_patterns and EVENTS_SCOPE in config.scope:
        index.before_parsing(("flow hints", config), functools.partial(prime_flow_hints, config, index))


def prime_flow_hints(config: VocabularyConfig, index: ProjectIndex) -> None:
    """Before the covered files are parsed, tell the index which names make a file
    likely to be asked for its flow facts (DOM105), so that it is parsed once for both.

    Beside the event bases' and emit functions' own names (:func:`_likely_traced`), an
    ``event_bases`` pattern (``tbp.monty.**.telemetry:*Event``) names the classes it
    matches: the modules under its module part are read first (tracing those that
    mention the pattern's literal part: they may define an event), and the names of
    the events they define join the hint. Only a hint: what DOM105 finds never
    depends on it, a file it misses is traced when asked."""
    if EVENTS_SCOPE not in config.scope:
        return
    names = _likely_traced(config)
    if config.event_base_patterns:
        patterns = config.event_base_patterns
        under = [module for module in index.modules if any(p.covers_module(module) for p in patterns)]
        index.prefetch(under, mentioning=[*names, *(p.literal_part() for p in patterns)], among=config.covers)
        resolver = EventResolver(index, config.event_bases, patterns)
        for module in under:
            facts = resolver.facts(module)
            for qualname in facts.classes if facts is not None else ():
                if resolver.is_event(f"{module}.{qualname}"):
                    names.append(qualname.rsplit(".", 1)[-1])
    index.trace_when_mentioned(names, among=config.covers)  # DOM105 reports in the covered modules only


def _likely_traced(config: VocabularyConfig) -> list[str]:
    """Names whose mention makes a file likely to be asked for its flow facts (DOM105):
    the event bases' and the emit functions'. Only a hint, so that such a file is read
    once (what DOM105 finds never depends on it)."""
    if EVENTS_SCOPE not in config.scope:
        return []
    names = [base.rsplit(".", 1)[-1] for base in config.event_bases]
    names += [pattern.rsplit(".", 1)[-1] for pattern in config.emit_functions]
    return [name for name in names if name.isidentifier()]  # no wildcard


def _references(facts: ModuleFacts | None) -> Iterator[str]:
    if facts is None:
        return
    for fact in (*facts.classes.values(), *facts.redefined):
        yield from fact.bases
    for call in facts.calls:
        yield call.callee
    for construction in facts.constructions:
        yield construction.built
    for positional in facts.positional:
        yield positional.callee
    yield from facts.argument_callees


def unmatched_module_expressions(config: VocabularyConfig, index: ProjectIndex) -> list[str]:
    """Expressions in ``modules`` that match no module of the project (nor one it
    skipped: that is a DOM001, not a typo)."""
    names = [*index.modules.keys(), *index.skipped_names()]
    return [str(e) for e in config.modules if not e.matches_some(names)]


def unmatched_event_bases(config: VocabularyConfig, index: ProjectIndex) -> list[str]:
    """Event bases that name a module of the project but nothing it defines or binds:
    a misspelt base would make every event pass unchecked. A base outside the project
    (``pydantic.BaseModel``), or in a module that cannot be read (or was not: see
    ``ProjectIndex.names_skipped``) or that star-imports, cannot be told apart from a
    correct one and is not reported."""
    resolver = EventResolver(index, ())
    index.prefetch(module for module in (resolver.split(base)[0] for base in config.event_bases) if module)
    unmatched = []
    for base in config.event_bases:
        module, rest = resolver.split(base)
        facts = resolver.facts(module) if module and rest else None
        if facts is None or facts.unreadable is not None or facts.star_imports or index.names_skipped(base):
            continue
        if rest not in facts.classes and rest.split(".", 1)[0] not in facts.bindings:
            unmatched.append(base)
    return unmatched


class VocabularyChecker:
    """One contract's rules applied module by module."""

    def __init__(
        self, config: VocabularyConfig, index: ProjectIndex, carried: tuple[VocabularyChecker, str] | None = None
    ) -> None:
        self.config = config
        self.index = index
        # before the resolver reads the event bases
        index.trace_when_mentioned(_likely_traced(config), among=config.covers)
        self.resolver: EventResolver = (
            carried[0].resolver.reshaped(carried[1])
            if carried
            else EventResolver(index, config.event_bases, config.event_base_patterns)
        )
        before = carried[0] if carried else None
        self.vocabulary: Vocabulary = before.vocabulary if before else Vocabulary.compile(config.words, config.allow)
        self._covered: list[str] | None = before._covered if before else None
        self.kind_attributes = frozenset(config.kind_attributes)
        self.declaration_scope = any(scope in config.scope for scope in DECLARATION_CODES)
        # module -> the functions whose return facts a check looked up
        self.consulted: dict[str, set[str]] = {}
        self._positional: dict[str, tuple[str, ...] | None] = {}  # see positional_fields
        self._no_arguments: dict[str, bool] = {}  # see takes_no_arguments
        self._enumerations: dict[str, str] = {}  # see enumeration
        consulting = cast(ProjectIndex, _ConsultingIndex(index, self.consulted))
        self.derived = DerivedValues(
            consulting,
            self.resolver,
            self.vocabulary,
            config.emit_functions,
            PARAMETERS in config.scope,
            self.argument_name,
        )
        # Which modules are read (see .prefilter): found with the covered modules for the
        # events scope (which needs the whole project's names), at once for the others.
        self.prefilter: Prefilter | None = None
        # The contract's reader of declarations, by this configuration (read again, the
        # same contract id may cover other modules or have other words): by its identity,
        # as hashing it hashes every word and module expression, and the reader holds it,
        # so no other configuration takes its id.
        spellings = declaration_spellings(self.vocabulary)
        self.reader_key = ("declarations", config.contract, id(config))
        if self.declaration_scope:  # other contracts reading files in batches read these too
            index.read_also(self.reader_key, declarations_reader(config, self.vocabulary))
        if EVENTS_SCOPE not in config.scope:
            self.prefilter = Prefilter(frozenset(), False, spellings, None)
        self._accepts: dict[str, bool] = {}
        self.read_before: frozenset[str] = frozenset()  # what an earlier run read (see view)
        if before is not None and before.prefilter is not None and self.prefilter is None:
            self._carry_prefilter(before, carried[1] if carried else "")

    @functools.cached_property
    def mixins(self) -> Mixins:
        if EVENTS_SCOPE not in self.config.scope:
            return NO_MIXINS
        covered = [module for module in self.covered() if self.accepts(module)]
        return find_mixins(self.resolver, covered, self.config.covers)

    def covered(self) -> list[str]:
        """The modules the contract covers, those it must read read ahead when first
        asked (and, for the events scope, which those are found: see .prefilter)."""
        if self._covered is None:
            if self.prefilter is None:
                self.prefilter = find_prefilter(
                    self.config, self.index, self.vocabulary, self.declaration_scope, self.resolver.bases
                )
            self._covered = prefetch_covered(self.config, self.index, accepts=self.accepts)
        return self._covered

    def _carry_prefilter(self, before: VocabularyChecker, edited: str) -> None:
        """Keep the names that decide which modules are read unless the edited module
        adds one, or the event bases now resolve to a class of another name: then every
        other module's decision may change, and they are found again (with the facts
        read so far in memory, the cost is reading the bytes)."""
        assert before.prefilter is not None
        names = before.prefilter.names
        bases = {base.rsplit(".", 1)[-1] for base in self.resolver.bases}  # resolved again
        if not bases <= names or adds_names(self.config, self.index, names, edited):
            self._covered = None
            return
        self.prefilter = dataclasses.replace(before.prefilter, accepted=None)
        self._accepts = {module: found for module, found in before._accepts.items() if module != edited}
        self.read_before = before.read_before

    def accepts(self, module: str) -> bool:
        """Whether ``module`` must be read to be checked (see .prefilter); True until
        the events scope's names are known, and for a module checked from a buffer."""
        if self.prefilter is None or self.index.has_buffer(module):
            return True
        found = self._accepts.get(module)
        if found is None:
            accepted = self.prefilter.accepted
            if accepted is not None:
                found = module in accepted or self.index.modules.get(module) is None
            elif EVENTS_SCOPE not in self.config.scope:  # decided once for every contract
                found = self.config.covers(module) and self.index.read_by(self.reader_key, module)
            else:
                found = self.prefilter.accepts(self.config, module, self.index.source_bytes(module))
            self._accepts[module] = found
        return found

    def passed_over(self, module: str) -> bool:
        """``module`` is not read, and no finding of another module read it: what
        others' findings read of it (its view) is that alone."""
        return (
            self.prefilter is not None
            and module not in self.resolver.read
            and module not in self.read_before
            and module not in self.consulted
            and not self.accepts(module)
        )

    def use_prefilter(self, prefilter: Prefilter, read: frozenset[str]) -> None:
        """What decided which modules an earlier run read, and the modules it read
        (when no module's view changed since, they decide alike)."""
        self.prefilter, self.read_before = prefilter, read
        self._accepts.clear()

    def use_mixins(self, mixins: Mixins) -> None:
        """The mixins an earlier run found, when no class or base changed since."""
        self.__dict__["mixins"] = mixins

    def view(self, facts: FileFacts) -> object:
        """What other modules' findings read of a module: its classes and their bases,
        what its functions construct from their keywords (whether a caller elsewhere,
        perhaps one the contract passed over, calls an emit function), and whether it
        defines and what returns each function looked up so far (a method found where
        Python finds it: see .derived)."""
        names = facts.names
        consulted = sorted(self.consulted.get(facts.module, ()))
        methods = {method.qualname for method in facts.methods} if consulted else set()
        looked_up = [
            (q, q.removeprefix(DEFINES) in methods)
            if q.startswith(DEFINES)  # not what it returns: that is not traced unless looked up
            else (q, constant_in(names, q.removeprefix(CONSTANT)))
            if q.startswith(CONSTANT)  # the string it holds, or that it holds none
            else (q, names.signatures.get(q.removeprefix(SIGNATURE)))
            if q.startswith(SIGNATURE)  # the parameters it takes by position, if certain
            else (q, q.removeprefix(PROPERTY) in names.properties)
            if q.startswith(PROPERTY)  # whether reading it calls it
            else (q, self.index.function_returns(facts.module, q))
            for q in consulted
        ]
        return (
            names.unreadable is not None,
            # with how each takes positional arguments (a kind given by position: DOM103)
            # and whether a member's value is known (an enumeration's kind: DOM103)
            tuple(
                sorted(
                    (q, fact.bases, fact.init, fact.init_fields, fact.value_hooks) for q, fact in names.classes.items()
                )
            ),
            tuple((fact.qualname, fact.bases) for fact in names.redefined),
            tuple(sorted(names.bindings.items())),
            # what its functions construct from their keywords: whether each emits an
            # event, and so is read in its callers as an emit function
            tuple(
                (name, fact.built, fact.passed, fact.named, fact.positional)
                for name, fact in sorted(names.emitters.items())
            ),
            names.star_imports,
            tuple(looked_up),
            self.lent_view(facts),
        )

    def lent_view(self, facts: FileFacts) -> tuple[object, ...]:
        """What the findings of covered classes read of the classes an uncovered module
        lends them (see :mod:`.mixins`): all their statements say but where."""
        if self.config.covers(facts.module) or EVENTS_SCOPE not in self.config.scope:
            return ()
        return tuple(
            (qualname, _without_places(facts.names.statements(qualname)))
            for qualname in self.mixins.lent_by(facts.module)
        )

    def module(self, module: str) -> Iterator[Finding]:
        yield from self.mixin_findings(module)
        if not self.config.covers(module):
            return
        if not self.accepts(module):  # it can hold no finding but this one
            unreadable = self.index.unreadable(module)
            if unreadable is not None:
                where = Text(module, unreadable.line, 0)
                yield self.finding(
                    module, where, "DOM001", module, fingerprints.unanalysable(module), reason=unreadable.reason
                )
            return
        facts = self.resolver.facts(module) if EVENTS_SCOPE in self.config.scope else None
        declared = self.declarations(module) if self.declaration_scope else None
        either = facts or declared
        if either is None:
            return
        if either.unreadable is not None:
            unreadable = either.unreadable
            where = Text(module, unreadable.line, 0)
            yield self.finding(
                module, where, "DOM001", module, fingerprints.unanalysable(module), reason=unreadable.reason
            )
            return
        statements = self.event_statements(module, facts) if facts else []
        events = frozenset(fact.qualname for fact in statements)
        if facts is not None:
            yield from self.events(module, facts, statements)
            yield from self.derived_values(module, events)
        if declared is not None:
            checked = frozenset(text for fact in statements for text in _checked_names(fact))
            for item in declared_names(module, declared, self.config.scope, checked, self.vocabulary.may_match):
                yield from self.matched(module, item.where, item.code, item.symbol, item.fingerprint, **item.fields)

    def event_statements(self, module: str, facts: ModuleFacts) -> list[ClassFact]:
        """The module's class statements that define an event, in source order: each
        one, when a name is bound by several (``try``/``except``, ``if``/``else``)."""
        if not facts.redefined:  # the usual module: one statement per name
            return [f for q, f in facts.classes.items() if self.resolver.is_event(f"{module}.{q}")]
        found, after_event = [], set[str]()
        for fact in sorted((*facts.redefined, *facts.classes.values()), key=lambda f: (f.line, f.col)):
            canonical = f"{module}.{fact.qualname}"
            if self.resolver.is_event_statement(canonical, fact, fact.qualname in after_event):
                found.append(fact)
                after_event.add(fact.qualname)
        return found

    def declarations(self, module: str) -> DeclarationFacts | None:
        return self.index.declarations(module)

    def events(self, module: str, facts: ModuleFacts, statements: list[ClassFact]) -> Iterator[Finding]:
        """DOM101-DOM104: the module's event classes, and the events it constructs."""
        for fact in statements:
            yield from self.event(module, fact)
        # A local variable's string given to several constructions alike is reported once.
        kinds: set[tuple[int, int, str]] = set()
        for call in facts.calls:
            event = self.resolver.canonical(call.callee)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                yield from self.keywords(module, call, event)
                yield from _once(self.constructed_kinds(module, call, event), kinds)
            elif self.derived.is_emit_function(module, call.callee, event, call.scope):
                yield from self.emitted(module, call, call.callee, event, kinds)
        for construction in facts.constructions:
            event = self.resolver.canonical(construction.built)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                form = construction.form
                yield from self.keywords(module, construction, event, form)
                yield from _once(self.constructed_kinds(module, construction, event, form), kinds)
            elif unpacked_into_a_call(construction.form) and self.derived.is_emit_function(
                module, construction.built, event, construction.scope
            ):
                yield from self.emitted(module, construction, construction.built, event, kinds)
        for positional in facts.positional:
            event = self.resolver.canonical(positional.callee)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                yield from self.positional_kinds(module, positional, event)
        yield from _once(self.positional_emitted(module), kinds)
        for attribute in facts.attribute_sets:
            event = self.resolver.canonical(attribute.built)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                yield from self.attribute_set(module, attribute, event)

    def forget_module(self, module: str) -> None:
        """``module`` was edited, its classes, bases and bindings unchanged: the
        resolution and the mixins still hold; what helpers return, and which calls
        build an event, may not."""
        self.derived.forget_edited()

    def reshaped(self, module: str) -> VocabularyChecker:
        """The checker of the project after ``module``'s classes, bases or bindings
        changed: the mixins are found again, and of the event hierarchy what read the
        module; the vocabulary, the covered modules and what depends on module names
        alone are kept (the facts read ahead for the covered modules are still in
        memory: a module a new name leads to is read when asked for)."""
        return VocabularyChecker(self.config, self.index, carried=(self, module))

    def read_ahead_flows(self, modules: Iterable[str]) -> None:
        """DOM105 reads the flow facts of the modules that may build an event, then those
        of the helpers they call: each step's files traced together, not one by one."""
        if EVENTS_SCOPE not in self.config.scope:
            return
        builders: dict[str, frozenset[str]] = {}  # module -> its event classes
        needs: dict[str, tuple[str, ...]] = {}  # module -> the callees whose keywords it needs traced
        for module in modules:
            facts = self.resolver.facts(module) if self.config.covers(module) else None
            if facts is None or facts.unreadable is not None:
                continue
            events = frozenset(q for q in facts.classes if self.resolver.is_event(f"{module}.{q}"))
            if self.derived.may_build_events(module, events):
                builders[module], needs[module] = events, self.derived.sink_callees(module)
        self.index.prefetch_flows(builders, needs=needs)
        callees: set[str] = set()
        for module, events in builders.items():
            flows = self.index.flows(module, needs[module])
            for sink in flows.sinks if flows is not None else ():
                if self.derived.target(module, sink, events) is not None:  # what the check follows
                    callees.update(s.callee for s in sink.sources if s.kind == CALL and s.callee)
        # Finding which function a name is reads the module it names: read those first,
        # for their facts and flows at once (a helper's module, most often: every
        # return value traced, as the helpers' are looked up from other modules).
        named = {m for m in (self.resolver.split(c)[0] for c in callees) if m}
        self.index.prefetch_flows(sorted(named - builders.keys()), every_return=True, needs={})
        wanted: dict[str, set[str]] = {}
        for callee in callees:
            helper, qualname = self.resolver.split(self.resolver.canonical(callee))
            if helper and qualname:
                wanted.setdefault(helper, set()).add(qualname)
        # Those whose facts lack a helper looked up (a builder whose function another
        # module's event is built from) are traced whole, together.
        self.index.prefetch_flows(sorted(wanted), every_return=True, wanted=wanted, needs=needs)

    def derived_values(self, module: str, events: frozenset[str]) -> Iterator[Finding]:
        """DOM105: events built from values derived from experiment knowledge (:mod:`.derived`)."""
        for item in self.derived.module(module, events):
            found = self.finding(module, item.where, DERIVED_CODE, item.symbol, item.fingerprint, **item.fields)
            # A mapping is named shortened (``**stats``), a value returned by its field: the
            # reports take the token there.
            yield found if item.spans else dataclasses.replace(found, end_line=0, end_col=0)

    def defines_a_class(self, callee: str) -> bool:
        """``NamedTuple("X", a=int)`` defines an event class; it constructs no event."""
        factory = callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES
        return factory and self.resolver.class_fact(callee) is None

    def mixin_findings(self, module: str) -> Iterator[Finding]:
        """DOM101-DOM103 for the mixins ``module`` defines: classes an event inherits
        from that are not events themselves, wherever in the project they are."""
        receivers = self.mixins.in_module(module)
        facts = self.resolver.facts(module) if receivers else None
        for qualname, event in receivers:
            for fact in facts.statements(qualname) if facts else ():
                receiver = event.rsplit(".", 1)[-1]
                yield from self.event(module, fact, f" (mixin of {receiver})", f" (inherited by {receiver})")
        yield from self.borrowed_findings(module)

    def borrowed_findings(self, module: str) -> Iterator[Finding]:
        """DOM101-DOM103 for what the class statements of ``module`` inherit from modules
        the contract does not cover (see :mod:`.mixins`): at the statement, where the fix
        goes, the fingerprint naming the statement's class and the finding in the class
        borrowed (``Heir(Lent.field)``)."""
        borrowed = self.mixins.borrowed_in(module)
        facts = self.resolver.facts(module) if borrowed else None
        for qualname, at, places in borrowed:
            statements = facts.statements(qualname) if facts else ()
            if at >= len(statements):
                continue
            entry = statements[at]
            heir = qualname.rsplit(".", 1)[-1]
            path = self.index.relative_path(module)
            names = [lent.rsplit(".", 1)[-1] for _, lent in places]
            for lender, lent in places:
                lender_facts = self.resolver.facts(lender)
                name = lent.rsplit(".", 1)[-1]
                name = f"{lender}.{lent}" if names.count(name) > 1 else name  # two of one name: which
                for fact in lender_facts.statements(lent) if lender_facts else ():
                    for found in self.event(lender, fact, f" (base of {heir})", f" (inherited from {name})"):
                        yield dataclasses.replace(
                            found,
                            path=path,
                            line=entry.line,
                            col=entry.col,
                            end_line=0,
                            end_col=0,
                            # The lent class by its name, not its module: moving it
                            # within experiment code leaves the baseline's entries.
                            fingerprint=fingerprints.located(
                                found.code, module, f"{qualname}({found.fingerprint.split(':', 2)[2]})"
                            ),
                        )

    def event(self, module: str, fact: ClassFact, via_class: str = "", via: str = "") -> Iterator[Finding]:
        owner = fact.qualname.rsplit(".", 1)[-1]
        symbol = f"{module}.{fact.qualname}"
        place = Text(owner, fact.line, fact.col)
        yield from self.matched(
            module,
            place,
            "DOM102",
            symbol,
            fingerprints.located("DOM102", module, fact.qualname),
            name=owner,
            via=via_class,
        )
        for attribute in fact.attributes:
            name = attribute.name.text
            where = f"{fact.qualname}.{name}"
            if name in self.kind_attributes:
                named = attribute.constant  # ``kind = KIND``: its string is the last
                # A value whose literal parts are reported is not reported again as folded
                # from constants (see the facts' AttributeFact.templates).
                reported: set[tuple[int, int]] = set()
                for kind in attribute.strings:
                    if (kind.line, kind.col) in reported:
                        continue
                    from_constant = named is not None and (kind.line, kind.col) == (named.line, named.col)
                    for finding in self.matched(
                        module,
                        kind,
                        "DOM103",
                        f"{symbol}.{name}",
                        fingerprints.located("DOM103", module, where),
                        kind=kind.text,
                        via=f" (from {named.text}){via}" if from_constant and named is not None else via,
                    ):
                        reported.add((kind.line, kind.col))
                        yield finding
                # Strings the module alone does not hold, reported at ``place``.
                held: list[tuple[str, Text, str]] = []
                # ``kind = PREFIX + "Done"`` after ``from .kinds import PREFIX``: where it is written.
                for template, written in attribute.templates:
                    string = self.folded(template)
                    if string is not None and (written.line, written.col) not in reported:
                        held.append((string, written, via))
                # ``KIND = END_OF_RUN`` imported, ``kind: str = Kinds.RESET``: what it holds.
                string = self.project_constant(attribute.reference) if attribute.reference else None
                if string is not None and named is not None:
                    held.append((string, named, f" (from {named.text}){via}"))
                for string, place, shown in held:
                    yield from self.matched(
                        module,
                        Text(string, place.line, place.col),
                        "DOM103",
                        f"{symbol}.{name}",
                        fingerprints.located("DOM103", module, where),
                        kind=string,
                        via=shown,
                    )
                continue
            if attribute.class_var:
                continue  # no field: what the event emits holds none (the census's DOM111)
            yield from self.matched(
                module,
                attribute.name,
                "DOM101",
                f"{symbol}.{name}",
                fingerprints.located("DOM101", module, where),
                name=name,
                via=via,
            )
            for alias in attribute.aliases:
                alias_fingerprint = fingerprints.located("DOM101", module, f"{where}[{alias.text}]")
                yield from self.matched(
                    module, alias, "DOM101", f"{symbol}.{name}", alias_fingerprint, name=alias.text, via=via
                )
        yield from self.receiver_kinds(module, fact, via)

    def receiver_kinds(self, module: str, fact: ClassFact, via: str = "") -> Iterator[Finding]:
        """DOM103 for a kind a method of the class sets on its instance (``self.kind =
        "EpisodeEnd"`` in ``model_post_init``, a validator, ``__post_init__``, ...; see
        ReceiverStringFact), or a class method on its class (``cls.kind = ...``), at the
        string, once: a string whose literal parts are reported is not reported again as
        folded from module constants; a local variable's, at each literal assigned to it.
        The fingerprint names the method, the class, the attribute and the string (or the
        constant, or the local and its string), in the form of a kind given at
        construction (``Event.model_post_init:Event[self](kind='EpisodeEnd')``,
        ``Event.build:Event[class](kind='EpisodeEnd')``, ``Event.settle:Event[self](kind=
        kind:'EpisodeEnd')``): no other finding's."""
        owner = fact.qualname.rsplit(".", 1)[-1]
        reported: set[tuple[int, int]] = set()
        for assigned in fact.receiver_strings:
            name = assigned.name.text
            if name not in self.kind_attributes:
                continue
            method = assigned.scope.removeprefix(fact.qualname + ".")
            setting = f"set on cls in {method}" if assigned.on_class else f"set in {method}"
            form = SET_ON_CLASS if assigned.on_class else SET_ON_SELF
            # (how the fingerprint spells it, what the message notes, the string)
            given = [
                (constant or repr(kind.text), f" (from {constant})" if constant else "", kind)
                for constant, kind in assigned.strings
            ]
            # A constant of another module (or a class's) it names: at the name, as written.
            for reference, written in assigned.references:
                string = self.project_constant(reference)
                if string is not None:
                    given.append((written.text, f" (from {written.text})", Text(string, written.line, written.col)))
            # Folded from names the module imports, where the value is written.
            for template, written in assigned.templates:
                string = self.folded(template)
                if string is not None:
                    given.append((repr(string), "", Text(string, written.line, written.col)))
            # Held by a local variable of the method: at each literal assigned to it.
            given += assigned.held
            for spelled, noted, kind in given:
                if (kind.line, kind.col) in reported:
                    continue
                fingerprint = fingerprints.located(
                    "DOM103", module, f"{assigned.scope}:{owner}[{form}]({name}={spelled})"
                )
                note = f"{noted[:-1]}, {setting})" if noted else f" ({setting})"
                symbol = f"{module}.{fact.qualname}.{name}"
                for finding in self.matched(
                    module, kind, "DOM103", symbol, fingerprint, kind=kind.text, via=note + via
                ):
                    reported.add((kind.line, kind.col))
                    yield finding

    def keywords(self, module: str, call: CallFact | ConstructionFact, event: str, form: str = "") -> Iterator[Finding]:
        """DOM104 for the keywords constructing ``event``, and the keys nested in their
        values; ``form`` is how, when not by calling the class by name
        (``model_construct``, ``cls``: see ConstructionFact), which the fingerprint and
        the message name."""
        owner = event.rsplit(".", 1)[-1]
        built, shown = (f"{owner}[{form}]", f"{owner} ({form})") if form else (owner, owner)
        yield from self.given_keywords(module, call.scope, call.keywords, built, event, "constructing", shown)
        yield from self.given_keys(module, call, built, event, shown)

    def given_keys(
        self, module: str, call: CallFact | ConstructionFact, built: str, target: str, owner: str
    ) -> Iterator[Finding]:
        """DOM104 for the keys written in the values of the keywords given to ``target``
        (``stats={"episode": n}``, to any depth; see CallFact.keys): each reaches the
        event's subscribers as a field's name would. The fingerprint spells the key's
        place in the keyword's value as subscripts (``StepEvent(stats['episode'])``,
        ``(rows[]['epoch'])``): no keyword is spelled so. The message names the keyword
        (``key 'episode' in 'stats' given to StepEvent``). A key is no value: DOM105
        still traces the keyword's value whole, and reads no key of a display."""
        for keyword, spelled, key in call.keys:
            yield from self.given_name(
                module, call.scope, built, target, spelled, key, "key", f"in '{keyword}' given to", owner
            )

    def given_keywords(
        self, module: str, scope: str, keywords: tuple[Text, ...], built: str, target: str, how: str, owner: str
    ) -> Iterator[Finding]:
        """DOM104 for the keywords given to ``target`` (an event's class, an emit
        function), named ``built`` in the fingerprints and ``owner`` in the messages."""
        for keyword in keywords:
            yield from self.given_name(module, scope, built, target, keyword.text, keyword, "keyword", how, owner)

    def given_name(
        self, module: str, scope: str, built: str, target: str, spelled: str, at: Text, given: str, how: str, owner: str
    ) -> Iterator[Finding]:
        """DOM104 for the name ``at`` (a keyword, a key) given to ``target``, spelled so
        after ``built`` in the fingerprint."""
        fingerprint = fingerprints.located("DOM104", module, f"{scope}:{built}({spelled})")
        yield from self.matched(
            module, at, "DOM104", f"{target}({spelled})", fingerprint, given=given, name=at.text, how=how, owner=owner
        )

    def emitted(
        self,
        module: str,
        call: CallFact | ConstructionFact,
        written: str,
        canonical: str,
        kinds: set[tuple[int, int, str]],
    ) -> Iterator[Finding]:
        """DOM104 and DOM103 for a call of an emit function (configured, or found by its
        definition: the same findings either way), ``written`` as
        the module's imports resolve it, ``canonical`` where it is defined: its keywords
        (``emit_step("Stepped", episode=n)``, and the keys of a mapping unpacked into
        it, as :meth:`keywords` reads a construction's) become the fields of the event
        it emits, and a kind keyword's string (``emit_step(kind="EpisodeEnd")``, read as
        :meth:`constructed_kinds` reads a construction's) its kind. The fingerprints
        name the function as DOM105's do (its last two parts as written) with the form
        EMITTED, which no construction has (``step:emit_step[emitted](episode)``; a
        local dict unpacked, ``[emitted,**payload]``); the messages name it (``keyword
        'episode' given to emit_step``). A kind given by position is read apart, where
        the function's definition says which parameter it binds
        (:meth:`positional_emitted`)."""
        form = call.form if isinstance(call, ConstructionFact) else ""
        shown = shown_callee(written)
        built = f"{shown}[{EMITTED},{form}]" if form else f"{shown}[{EMITTED}]"
        emitter = self.derived.defined_here(module, written) or canonical
        owner = f"{shown} ({form})" if form else shown
        call = self.carried(module, call, written, canonical)
        keywords = tuple(k for k in call.keywords if k.text)
        yield from self.given_keywords(module, call.scope, keywords, built, emitter, "given to", owner)
        yield from self.given_keys(module, call, built, emitter, owner)
        kind_findings = self.given_kinds(module, call, built, lambda name: f"{emitter}({name})", given_to=shown)
        yield from _once(kind_findings, kinds)

    def carried(
        self, module: str, call: CallFact | ConstructionFact, written: str, canonical: str
    ) -> CallFact | ConstructionFact:
        """``call`` with only what reaches the event its emit function emits: a keyword
        binding a parameter of the function's own that it does not pass on (see
        DerivedValues.carries) is blanked, in place so that the positions the call's
        other facts give of its keywords still hold, and so are the keys in its value."""
        keywords = call.keywords
        kept = [self.derived.carries(module, written, canonical, k.text, call.scope) for k in keywords]
        if all(kept):
            return call
        blanked = tuple(k if keep else k._replace(text="") for k, keep in zip(keywords, kept, strict=True))
        dropped = {k.text for k, keep in zip(keywords, kept, strict=True) if not keep}
        return call._replace(keywords=blanked, keys=tuple(k for k in call.keys if k[0] not in dropped))

    def attribute_set(self, module: str, fact: AttributeSetFact, event: str) -> Iterator[Finding]:
        """DOM104 for an attribute set on a local known to hold an event (``event.episode
        = n``, ``setattr(event, "epoch", n)``): a field added to it, as a keyword would
        add it. The fingerprint (``Event.episode``, whatever the form) is none of a
        keyword's; the message names a form other than an assignment."""
        owner = event.rsplit(".", 1)[-1]
        name = fact.name.text
        fingerprint = fingerprints.located("DOM104", module, f"{fact.scope}:{owner}.{name}")
        shown = f"{owner} ({fact.form})" if fact.form else owner
        yield from self.matched(
            module,
            fact.name,
            "DOM104",
            f"{event}.{name}",
            fingerprint,
            given="attribute",
            name=name,
            how="set on",
            owner=shown,
        )

    def constructed_kinds(
        self, module: str, call: CallFact | ConstructionFact, event: str, form: str = ""
    ) -> Iterator[Finding]:
        """DOM103 for a kind given where an event is built (``Event(kind="post_episode")``),
        as for one its class body sets: the string names the finding, as the keyword
        names DOM104's (a scope may build events of several kinds); a module-level
        constant given for it (``kind=KIND``), its name."""
        owner = event.rsplit(".", 1)[-1]
        built = f"{owner}[{form}]" if form else owner
        return self.given_kinds(module, call, built, lambda name: f"{event}.{name}")

    def given_kinds(
        self,
        module: str,
        call: CallFact | ConstructionFact,
        built: str,
        symbol: Callable[[str], str],
        given_to: str = "",
    ) -> Iterator[Finding]:
        """DOM103 for the kinds ``call``'s kind keywords are given (see
        :meth:`constructed_kinds`), named ``built`` in the fingerprints; ``symbol``, the
        finding's symbol for a keyword; ``given_to``, the emit function the message
        names, if any."""
        given = [(position, repr(kind.text), kind, "", True) for position, kind in call.strings]
        given += [(position, c, kind, f" (from {c})", False) for position, c, kind in call.constants]
        # Folded from module constants, or held by a local variable (see CallFact.held):
        # a value whose literal parts alone are reported (as before) is not reported again.
        given += [(position, spelled, kind, via, False) for position, spelled, via, kind in call.held]
        # A constant of another module (or a class's) the keyword names, looked up for a
        # kind keyword only: the module holding it is read when a construction names it.
        for position, reference, named in call.references:
            if call.keywords[position].text in self.kind_attributes:
                string = self.project_constant(reference)
                if string is not None:
                    kind = Text(string, named.line, named.col)
                    given.append((position, named.text, kind, f" (from {named.text})", False))
        # Folded from names the module imports (see CallFact.templates), as from its own
        # constants: spelled as the string, where the value is written.
        for position, template, place in call.templates:
            if call.keywords[position].text in self.kind_attributes:
                string = self.folded(template)
                if string is not None:
                    given.append((position, repr(string), Text(string, place.line, place.col), "", False))
        written: set[int] = set()  # the positions whose literal parts are reported
        for position, spelled, kind, via, literal in given:
            name = call.keywords[position].text
            if name not in self.kind_attributes or position in written:
                continue
            fingerprint = fingerprints.located("DOM103", module, f"{call.scope}:{built}({name}={spelled})")
            if given_to:  # `` (from END_KIND, given to emit_step)``
                via = f"{via[:-1]}, given to {given_to})" if via else f" (given to {given_to})"
            for finding in self.matched(module, kind, "DOM103", symbol(name), fingerprint, kind=kind.text, via=via):
                if literal:
                    written.add(position)
                yield finding

    def folded(self, template: tuple[str, ...]) -> str | None:
        """The string a template spells (see CallFact.templates): its literal parts, and
        between them what each name holds (:meth:`project_constant`); None when one
        holds no string known."""
        parts = list(template)
        for index in range(1, len(parts), 2):
            string = self.project_constant(parts[index])
            if string is None:
                return None
            parts[index] = string
        return "".join(parts)

    def project_constant(self, reference: str, seen: set[str] | None = None) -> str | None:
        """The string a name given for a kind holds, when it names a string constant of
        a project module (``tbp.monty.telemetry.kinds.END_OF_RUN``), an entry of a table
        of strings one holds (``...kinds.KINDS['reset']``) or a constant of a class one
        defines (``...kinds.Kinds.RESET``: an Enum member's value too): followed
        through the imports and aliases of the modules it passes, and their star
        imports, as class names are (:meth:`EventResolver.canonical`); None when it
        names anything else or nothing known. What each module was asked is noted
        among the names consulted: its view holds what it answers now."""
        seen = set() if seen is None else seen
        if reference in seen or len(seen) >= _MAX_CHAIN:
            return None
        seen.add(reference)
        # A table's entry (``pkg.kinds.KINDS['reset']``): the table is followed as a
        # constant is, and the entry looked up where it is bound.
        name, bracket, key = reference.partition("[")
        entry = bracket + key
        module, rest = self.resolver.split(name)
        facts = self.resolver.facts(module) if module and rest else None
        if facts is None or facts.unreadable is not None:
            return None
        self.consulted.setdefault(facts.module, set()).add(CONSTANT + rest + entry)
        found = self.held_by(facts, rest + entry)
        if found is not None:
            return found
        target = through_binding(facts, rest)
        if target is not None:
            return self.project_constant(target + entry, seen)
        if rest.startswith("_"):  # a star import binds no private name
            return None
        for candidate in self.resolver.star_candidates(facts, rest):
            found = self.project_constant(candidate + entry, seen)
            if found is not None:
                return found
        return None

    def held_by(self, facts: ModuleFacts, rest: str) -> str | None:
        """The string ``rest`` holds in the module of ``facts``: a constant of the module
        or of one of its classes (:func:`constant_in`), but not the member of an
        enumeration whose members' values are not known; or the value of an
        enumeration's member (``Kinds.RESET.value``, see :meth:`enumeration`; ``.name``
        is not read). A member's lookup is noted among the names consulted."""
        found = constant_in(facts, rest)
        owner, dot, name = rest.rpartition(".")
        if found is not None:
            if dot and self.enumeration(f"{facts.module}.{owner}") == NOT_KNOWN:
                return None
            return found
        enum, dot, _ = owner.rpartition(".")
        if name != ENUM_VALUE or not dot:
            return None
        self.consulted.setdefault(facts.module, set()).add(CONSTANT + owner)
        member = constant_in(facts, owner)
        if member is None or self.enumeration(f"{facts.module}.{enum}") != ENUMERATION:
            return None
        return member

    def enumeration(self, canonical: str) -> str:
        """Whether the project class ``canonical`` is an enumeration (it or a class
        above it derives from a standard one: ``Enum``, ``StrEnum``, ``(str, Enum)``;
        its bases followed through the imports of each module, as an event's are), and
        whether its members hold the values its body gives them: ENUMERATION, or
        NOT_KNOWN when a class of the project on the way binds ``__new__``, ``__init__``
        or ``_generate_next_value_`` (the facts' ``value_hooks``), is bound by several
        class statements or is no class known; "" for any other class. A base outside
        the project (``str``) is taken as it is written."""
        found = self._enumerations.get(canonical)
        if found is None:
            found = self._enumerations[canonical] = self._find_enumeration(canonical)
        return found

    def _find_enumeration(self, start: str) -> str:
        derives, known = False, True
        pending, seen = [start], {start}
        while pending:
            statements = self.resolver.class_facts(pending.pop())
            if len(statements) != 1 or statements[0].value_hooks:
                known = False
            for base in (self.resolver.canonical(base) for fact in statements for base in fact.bases):
                if base in _STANDARD_ENUMS:
                    derives = True
                elif base not in seen and self.resolver.split(base)[0] is not None:
                    if len(seen) >= _MAX_CHAIN:
                        return NOT_KNOWN if derives else ""
                    seen.add(base)
                    pending.append(base)
        return "" if not derives else ENUMERATION if known else NOT_KNOWN

    def positional_kinds(self, module: str, fact: PositionalFact, event: str) -> Iterator[Finding]:
        """DOM103 for a kind given by position (``Stats("EpisodeEnd", 3)``), where the
        event's fields say which position is the kind (:meth:`positional_fields`). The
        other positions bind fields whose names DOM101 checks where they are declared."""
        fields = self.positional_fields(event)
        if not fields:
            return
        owner = event.rsplit(".", 1)[-1]
        built = f"{owner}[{fact.form},{POSITIONAL}]" if fact.form else f"{owner}[{POSITIONAL}]"
        for position, kind in fact.strings:
            name = fields[position] if position < len(fields) else ""
            if name not in self.kind_attributes:
                continue
            fingerprint = fingerprints.located("DOM103", module, f"{fact.scope}:{built}({name}={kind.text!r})")
            yield from self.matched(
                module, kind, "DOM103", f"{event}.{name}", fingerprint, kind=kind.text, via=f" ({POSITIONAL})"
            )

    def positional_emitted(self, module: str) -> Iterator[Finding]:
        """DOM103 for a kind given by position to an emit function called by name
        (``emit_step("EpisodeEnd", n)``), or to an emit method a class calls on its own
        instance (``self._emit("EpisodeEnd")``), where the definition says which
        parameter the position binds (:meth:`emit_parameters`; the class's own method,
        ``self`` aside, as the flow facts found it: see the facts' ``_own_method``) and that
        parameter is named in ``kind_attributes`` (and gives the event its kind:
        :meth:`kind_parameter`): a literal string (its literal parts), as a kind given by
        position to an event's class is read. The strings are the flow facts' (see
        FlowFacts.given), found where the calls' arguments are traced: the module's
        other facts hold no string given to a call of a lowercase name. The fingerprint
        has the forms EMITTED and POSITIONAL (``step:emit_step[emitted,positional](kind=
        'EpisodeEnd')``)."""
        needs = self.derived.sink_callees(module)
        flows = self.index.flows(module, needs) if needs else None
        for given in flows.given if flows is not None else ():
            canonical = self.resolver.canonical(given.target)
            emits = self.derived.is_emit_function(module, given.target, canonical, given.scope)
            if self.resolver.is_event(canonical) or not emits:
                continue
            if given.owner:  # ``self.emit(...)``: the class's own method
                parameters: tuple[str, ...] | None = given.parameters
                emitter = f"{module}.{given.owner}.{given.target.rpartition('.')[2]}"
            else:
                parameters = self.emit_parameters(module, given.target, canonical)
                emitter = self.derived.defined_here(module, given.target) or canonical
            name = parameters[given.position] if parameters and given.position < len(parameters) else ""
            if name not in self.kind_attributes or not self.kind_parameter(
                module, given.target, canonical, name, given.scope
            ):
                continue
            shown = shown_callee(given.target)
            place = f"{given.scope}:{shown}[{EMITTED},{POSITIONAL}]({name}={given.text!r})"
            yield from self.matched(
                module,
                Text(given.text, given.line, given.col),
                "DOM103",
                f"{emitter}({name})",
                fingerprints.located("DOM103", module, place),
                kind=given.text,
                via=f" ({POSITIONAL}, given to {shown})",
            )

    def kind_parameter(self, module: str, written: str, canonical: str, name: str, scope: str = "") -> bool:
        """Whether the kind parameter ``name`` of the emit function a call names gives the
        emitted event its kind: always for one ``emit_functions`` names; for one its
        definition makes an emit function, where that definition passes the parameter on
        under its name (``TelemetryEvent(kind=kind, **fields)``)."""
        if self.derived.configured(module, written, canonical):
            return True
        emitter = self.derived.inferred_emitter(module, written, canonical, scope)
        return emitter is not None and name in emitter.passed

    def emit_parameters(self, module: str, written: str, canonical: str) -> tuple[str, ...] | None:
        """The parameters the emit function a call in ``module`` names (``written`` as
        its imports resolve it, ``canonical`` where it is defined) takes by position, in
        order: where it is a module-level function of the project whose definition says
        so for certain (see the facts' ``_signatures``); None otherwise (a method, a
        function of another package, one decorated or bound again). What its module was
        asked is noted among the names consulted: its view holds what it answers now."""
        owner, name = self.resolver.split(self.derived.defined_here(module, written) or canonical)
        if not owner or not name or "." in name:
            return None
        facts = self.resolver.facts(owner)
        if facts is None:
            return None
        self.consulted.setdefault(owner, set()).add(SIGNATURE + name)
        return facts.signatures.get(name)

    def positional_fields(self, event: str) -> tuple[str, ...] | None:
        """The fields ``event``'s constructor takes by position, in order, when that is
        certain; else None."""
        if event not in self._positional:
            self._positional[event] = self._find_positional(event)
        return self._positional[event]

    def argument_name(self, event: str, form: str, position: int) -> str | None:
        """How DOM105 names the value given at ``position`` (from 0) to a construction of
        ``event`` (``form``: see ConstructionFact): the field it binds where the order
        of the fields is certain (:meth:`positional_fields`; None past the last: no field
        takes it), else its position from 1 (``argument 2``), as also for
        ``super().__init__(...)`` (which a base's constructor takes); None where the
        class takes no argument by position (:meth:`takes_no_arguments`)."""
        numbered = f"argument {position + 1}"
        if form == SUPER_INIT:
            return numbered
        if self.takes_no_arguments(event):
            return None
        fields = self.positional_fields(event)
        if fields is None:
            return numbered
        return fields[position] if position < len(fields) else None

    def takes_no_arguments(self, event: str) -> bool:
        """``event`` takes no argument by position for certain: a pydantic model whose
        classes, up to pydantic's ``BaseModel``, are the project's plain classes (no
        decorator, class argument or constructor of their own: see the facts'
        ``init_order``), one base each, each bound by one class statement."""
        if event not in self._no_arguments:
            chain = self._init_chain(event)
            self._no_arguments[event] = (
                chain is not None and chain[1] in _PYDANTIC_MODELS and all(f.init == INHERITED for f in chain[0])
            )
        return self._no_arguments[event]

    def _init_chain(self, start: str) -> tuple[list[ClassFact], str] | None:
        """The class and its bases, one each (``object``, ``Generic`` and ``ABC``
        aside), up to the class whose statement says how positional arguments are
        taken (a dataclass or a NamedTuple), through plain classes that define no
        constructor, or up to the first class outside the project (its name, with the
        classes before it); every project class on the way must be bound by one class
        statement, and certain (see the facts' ``init_order``). None otherwise."""
        chain: list[ClassFact] = []
        current, seen = start, set[str]()
        while True:
            if current in seen or len(seen) >= _MAX_CHAIN:
                return None
            seen.add(current)
            statements = self.resolver.class_facts(current)
            if not statements and chain and self.resolver.split(current)[0] is None:
                return chain, current  # outside the project
            if len(statements) != 1 or not statements[0].init:
                return None
            fact = statements[0]
            chain.append(fact)
            if fact.init == NAMEDTUPLE:
                return chain, ""
            bases = [base for base in map(self.resolver.canonical, fact.bases) if base not in _NO_FIELDS]
            if not bases:
                return chain, ""
            if len(bases) != 1:
                return None
            current = bases[0]

    def _find_positional(self, start: str) -> tuple[str, ...] | None:
        """The fields ``start`` takes by position, through :meth:`_init_chain` (not up to
        a class outside the project). A dataclass takes the fields of the dataclasses
        above it first, a field declared again keeping its place, as ``dataclasses``
        orders them."""
        found = self._init_chain(start)
        if found is None or found[1]:
            return None
        chain = found[0]
        for nearest, fact in enumerate(chain):
            if fact.init == NAMEDTUPLE:
                return tuple(name for name, _ in fact.init_fields)
            if fact.init == DATACLASS:
                order: dict[str, bool] = {}
                for above in reversed(chain[nearest:]):
                    if above.init == NAMEDTUPLE:
                        return None
                    for name, by_position in above.init_fields if above.init == DATACLASS else ():
                        order[name] = by_position
                return tuple(name for name, by_position in order.items() if by_position)
        return None  # plain classes up to the top: no constructor known

    def matched(
        self, module: str, text: Text, code: str, symbol: str, fingerprint: str, **fields: str
    ) -> Iterator[Finding]:
        """The finding for ``text`` when it uses the vocabulary."""
        # What encloses the name (``pkg.mod.Class`` for ``pkg.mod.Class.attr``), for
        # dotted ``allow`` entries; kind strings and call keywords have none.
        context = symbol[: -len(text.text) - 1] if symbol.endswith("." + text.text) else ""
        match = self.vocabulary.match(text.text, context)
        if match:
            yield self.finding(module, text, code, symbol, fingerprint, word=match.word, hint=match.hint, **fields)

    def finding(self, module: str, where: Text, code: str, symbol: str, fingerprint: str, **fields: str) -> Finding:
        # Where the text is the name itself its end is known; a class or definition sits
        # at its keyword, an attribute at its receiver (``self.``), a kind at its quote:
        # there the reports find the token's end on the line.
        spans = code in ("DOM101", "DOM104", "DOM105", "DOM112")
        return Finding(
            path=self.index.relative_path(module),
            line=where.line,
            col=where.col,
            code=code,
            message=get_rule(code).format(**fields),
            symbol=symbol,
            fingerprint=fingerprint,
            contract=self.config.contract,
            end_line=where.line if spans else 0,
            end_col=where.col + len(where.text) if spans else 0,
            fields=tuple(sorted((key, value) for key, value in fields.items() if key != "hint")),
        )


def _checked_names(fact: ClassFact) -> Iterator[Text]:
    """The names an event's own check reports (DOM102, DOM101), where the census's
    declarations have them: a computed field's at its ``def``, as its method's; a class
    variable is no field, and left to the census."""
    yield Text(fact.qualname.rsplit(".", 1)[-1], fact.line, fact.col)
    for attribute in fact.attributes:
        if not attribute.class_var:
            yield attribute.method or attribute.name


def _without_places(value: object) -> object:
    """``value`` with every :class:`Text` reduced to its text, recursively through
    tuples (named ones too): what it says, not where."""
    if isinstance(value, Text):
        return value.text
    if isinstance(value, tuple):
        return tuple(map(_without_places, value))
    return value


class _ConsultingIndex:
    """The project index as DOM105 reads it, noting in ``consulted`` each function
    whose return facts are looked up: another module's findings depend on exactly those."""

    def __init__(self, index: ProjectIndex, consulted: dict[str, set[str]]) -> None:
        self._index = index
        self._consulted = consulted

    def function_returns(self, module: str, qualname: str) -> tuple[Source, ...] | None:
        self._consulted.setdefault(module, set()).add(qualname)
        return self._index.function_returns(module, qualname)

    def defines_method(self, module: str, qualname: str) -> bool:
        self._consulted.setdefault(module, set()).add(DEFINES + qualname)
        return self._index.defines_method(module, qualname)

    def defines_property(self, module: str, qualname: str) -> bool:
        self._consulted.setdefault(module, set()).add(PROPERTY + qualname)
        return self._index.defines_property(module, qualname)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)

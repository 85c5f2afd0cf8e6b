"""Which classes are runtime events, and where a name is defined: the contract's
``event_bases`` matched against the classes of the project, their bases followed
through imports, ``import x as y`` aliases, relative imports, re-exports in
``__init__`` modules and star imports (:class:`EventResolver`); and the string
constants a module holds (:func:`constant_in`), which kinds are read from. Shared by
the events checks (:mod:`.events`), the values they trace (:mod:`.derived`) and the
mixins (:mod:`.mixins`).
"""

from __future__ import annotations

from collections.abc import Iterable

from domain_fence.core.families.config import EventBasePattern
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.facts import (
    ClassFact,
    ModuleFacts,
)

# Spellings that name the same class; event bases and references are compared in the
# first form.
_SAME_MODULE = {"typing_extensions": "typing"}


def normalise(dotted: str) -> str:
    head, dot, rest = dotted.partition(".")
    return _SAME_MODULE.get(head, head) + dot + rest


class EventResolver:
    """Answers "which class is this name?" and "is it an event?" across the project."""

    def __init__(
        self,
        index: ProjectIndex,
        event_bases: Iterable[str],
        patterns: Iterable[EventBasePattern] = (),
        carried: tuple[EventResolver, str] | None = None,
    ) -> None:
        self.index = index
        self.event_bases = tuple(event_bases)
        self.patterns = tuple(patterns)
        # The same names are resolved again and again (every base of every class).
        self._split: dict[str, tuple[str | None, str]] = {}
        self._pattern_matches: dict[str, bool] = {}
        self._canonical: dict[str, str] = {}
        self._events: dict[str, bool] = {}
        # A resolver for the project after an edit (``carried``: the one before, and the
        # module edited) records which modules' names each answer read, so that the
        # next one keeps the answers that did not read the module it is edited for.
        self._tracked = carried is not None
        self._reads: set[str] | None = None  # what the answer being found has read so far
        self._canonical_reads: dict[str, frozenset[str]] = {}
        self._event_reads: dict[str, frozenset[str]] = {}
        self._interned: dict[frozenset[str], frozenset[str]] = {}
        self.read: set[str] = set()  # the modules whose names were read (see VocabularyChecker.view)
        if carried is not None:
            self._carry(*carried)
        self.bases = frozenset(self.canonical(base) for base in self.event_bases)
        if carried is not None and self.bases != carried[0].bases:
            self._events.clear()  # every answer rests on the bases

    def reshaped(self, module: str) -> EventResolver:
        """The resolver of the project after ``module``'s classes, bases or bindings
        changed (or its file was read again)."""
        return EventResolver(self.index, self.event_bases, self.patterns, carried=(self, module))

    def _carry(self, before: EventResolver, edited: str) -> None:
        # Which prefix of a name is a module, and which names the patterns match, depend
        # on the module names alone.
        self._split, self._pattern_matches = before._split, before._pattern_matches
        self.read = set(before.read)
        if not before._tracked:
            return
        self._interned = before._interned
        stale = {reads for reads in self._interned if edited in reads}
        self._canonical_reads = {k: r for k, r in before._canonical_reads.items() if r not in stale}
        self._canonical = {k: before._canonical[k] for k in self._canonical_reads}
        self._event_reads = {k: r for k, r in before._event_reads.items() if r not in stale}
        self._events = {k: before._events[k] for k in self._event_reads}

    def _intern(self, reads: set[str]) -> frozenset[str]:
        frozen = frozenset(reads)
        return self._interned.setdefault(frozen, frozen)

    def facts(self, module: str) -> ModuleFacts | None:
        if self._reads is not None:
            self._reads.add(module)
        self.read.add(module)
        facts = self.index.file_facts(module)
        return facts.names if facts else None

    def split(self, dotted: str) -> tuple[str | None, str]:
        """The longest prefix of ``dotted`` that is a project module, and the rest."""
        found = self._split.get(dotted)
        if found is None:
            found = self._split[dotted] = self._longest_module(dotted)
        return found

    def _longest_module(self, dotted: str) -> tuple[str | None, str]:
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            module = ".".join(parts[:end])
            if module in self.index.modules:
                return module, ".".join(parts[end:])
        return None, dotted

    def canonical(self, dotted: str, seen: set[str] | None = None) -> str:
        """Where ``dotted`` is defined, following aliases and re-exports; a name outside
        the project (or not found) is returned as written."""
        if seen is not None:  # shared through star imports: no cycles
            return self._resolve(dotted, seen)
        found = self._canonical.get(dotted)
        if not self._tracked:
            if found is None:
                found = self._canonical[dotted] = self._resolve(dotted, set())
            return found
        if found is None:
            outer, self._reads = self._reads, set()
            try:
                found = self._resolve(dotted, set())
                reads = self._intern(self._reads)
            finally:
                self._reads = outer
            self._canonical[dotted], self._canonical_reads[dotted] = found, reads
        if self._reads is not None:
            self._reads |= self._canonical_reads[dotted]
        return found

    def _resolve(self, dotted: str, seen: set[str]) -> str:
        while dotted not in seen:
            seen.add(dotted)
            module, rest = self.split(dotted)
            facts = self.facts(module) if module and rest else None
            if facts is None or rest in facts.classes:
                break
            target = through_binding(facts, rest)
            if target is None:
                return self._through_star_imports(facts, rest, seen) or normalise(dotted)
            dotted = target
        return normalise(dotted)

    def module_of(self, dotted: str) -> str | None:
        """The project module resolving ``dotted`` reads first, if any."""
        module, rest = self.split(dotted)
        return module if rest else None

    def hops(self, dotted: str) -> list[str]:
        """The names resolving ``dotted`` reads next, from the facts already read (for
        reading ahead: what :meth:`_resolve` finds never depends on it)."""
        module, rest = self.split(dotted)
        known = self.index.known_facts(module) if module and rest else None
        facts = known.names if known else None
        if facts is None or rest in facts.classes:
            return []
        target = through_binding(facts, rest)
        return [target] if target is not None else self.star_candidates(facts, rest)

    def star_candidates(self, facts: ModuleFacts, rest: str) -> list[str]:
        """``rest`` in each project module ``facts``' module star-imports (a module
        outside the project has nothing to resolve through)."""
        return [f"{source}.{rest}" for source in facts.star_imports if source in self.index.modules]

    def _through_star_imports(self, facts: ModuleFacts, rest: str, seen: set[str]) -> str | None:
        for candidate in self.star_candidates(facts, rest):
            if candidate not in seen:
                resolved = self.canonical(candidate, seen)
                if self.class_fact(resolved) is not None:
                    return resolved
        return None

    def class_fact(self, canonical: str) -> ClassFact | None:
        module, rest = self.split(canonical)
        facts = self.facts(module) if module and rest else None
        return facts.classes.get(rest) if facts else None

    def class_facts(self, canonical: str) -> tuple[ClassFact, ...]:
        """Every class statement binding ``canonical``, in source order (a class may be
        defined in each branch of a ``try`` or an ``if``)."""
        module, rest = self.split(canonical)
        facts = self.facts(module) if module and rest else None
        return facts.statements(rest) if facts else ()

    def is_event(self, canonical: str) -> bool:
        """``canonical`` is an event base or derives from one, by any class statement
        binding it: which branch binds it at run time is not known (a circular
        hierarchy derives from nothing through its cycle)."""
        if canonical not in self._events:
            self._derives(canonical)
        return self._events[canonical]

    def is_event_statement(self, canonical: str, fact: ClassFact, after_event: bool) -> bool:
        """The class statement ``fact`` binding ``canonical`` defines an event: the name
        is an event base (or a pattern names it), or a base of this statement is an
        event. A base naming the class itself is the name's earlier binding, an event
        when ``after_event`` (an earlier statement binding it is one)."""
        if canonical in self.bases or self.matches_pattern(canonical):
            return True
        for base in fact.bases:
            resolved = self.canonical(base)
            if after_event if resolved == canonical else self.is_event(resolved):
                return True
        return False

    def matches_pattern(self, canonical: str) -> bool:
        """``canonical`` is a project class an ``event_bases`` pattern names."""
        if not self.patterns:
            return False
        module, rest = self.split(canonical)
        if module is None or self.class_fact(canonical) is None:
            return False
        found = self._pattern_matches.get(canonical)
        if found is None:
            found = self._pattern_matches[canonical] = any(pattern.matches(module, rest) for pattern in self.patterns)
        return found

    def _derives(self, start: str) -> None:
        """Search the bases of ``start`` and record the answer for every class whose
        answer the search settles. An explicit stack, not recursion: a machine-written
        hierarchy can be deeper than Python's recursion limit."""
        outer = self._reads
        reads: set[str] | None = set() if self._tracked else None
        self._reads = reads
        try:
            self._search(start, reads)
        finally:
            self._reads = outer

    def _search(self, start: str, reads: set[str] | None) -> None:
        parent: dict[str, str | None] = {start: None}
        pending = [start]
        while pending:
            current = pending.pop()
            known = self._events.get(current)
            if current in self.bases or known or self.matches_pattern(current):
                if known and reads is not None:
                    reads |= self._event_reads[current]
                derived: str | None = current
                while derived is not None:  # it and the chain leading to it derive
                    self._settle(derived, True, reads)
                    derived = parent[derived]
                return
            if known is not None:  # known not to derive
                if reads is not None:
                    reads |= self._event_reads[current]
                continue
            for base in (base for fact in self.class_facts(current) for base in fact.bases):
                resolved = self.canonical(base)
                if resolved not in parent:
                    parent[resolved] = current
                    pending.append(resolved)
        for visited in parent:  # nothing reachable from any of them is an event base
            self._settle(visited, False, reads)

    def _settle(self, canonical: str, derives: bool, reads: set[str] | None) -> None:
        self._events[canonical] = derives
        if reads is not None:
            self._event_reads[canonical] = self._intern(reads)


def through_binding(facts: ModuleFacts, rest: str) -> str | None:
    """``rest`` through the name its module binds (``E.x`` -> ``pkg.base.Event.x``
    after ``from .base import Event as E``), or None when its head is not bound."""
    head, dot, tail = rest.partition(".")
    target = facts.bindings.get(head)
    return None if target is None else target + dot + tail


def constant_in(facts: ModuleFacts, rest: str) -> str | None:
    """The string a module's constant ``rest`` holds (``END_OF_RUN``), or an entry of
    a table of strings it holds (``KINDS['reset']``), or a constant of a class the
    module binds by one class statement (``Kinds.RESET``); None when it holds none for
    certain (see the facts' ``string_constant``, ``table_constants`` and
    ``_class_constants``), as the module alone tells (an enumeration's member: see
    :meth:`VocabularyChecker.held_by`)."""
    found = facts.constants.get(rest)
    if found is not None or rest.endswith("]"):  # a table's entry (``KINDS['reset']``) is one or none
        return found
    owner, dot, name = rest.rpartition(".")
    statements = facts.statements(owner) if dot else ()
    return dict(statements[0].constants).get(name) if len(statements) == 1 else None

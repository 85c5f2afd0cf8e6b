"""Runtime events and the experiment vocabulary in them (DOM101-DOM104).

A class is a runtime event when it is defined in the contract's ``modules`` and is one
of the ``event_bases`` or derives from one, through any chain of classes anywhere in
the project: bases are followed through imports, ``import x as y`` aliases, relative
imports and re-exports in ``__init__`` modules. Its own fields, its name and its kind
strings are checked; an inherited field is reported where it is declared. Runtime
modules are also checked for keyword arguments in calls that construct an event.

That is the contract's default ``scope`` (``events``); the opt-in scopes of
:mod:`.declarations` (DOM111-DOM113) are checked here too, with the same vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .config import EVENTS_SCOPE, VocabularyConfig
from .declarations import CODES as DECLARATION_CODES
from .declarations import declared_names
from .findings import Finding
from .index import ProjectIndex
from .modules import matches_any
from .pyfacts import FUNCTIONAL_CLASS_FACTORIES, ClassFact, ModuleFacts, Text, declaration_facts, module_facts
from .rules import get_rule
from .vocabulary import Vocabulary

# Spellings that name the same class; event bases and references are compared in the
# first form.
_SAME_MODULE = {"typing_extensions": "typing"}


def normalise(dotted: str) -> str:
    head, dot, rest = dotted.partition(".")
    return _SAME_MODULE.get(head, head) + dot + rest


class EventResolver:
    """Answers "which class is this name?" and "is it an event?" across the project."""

    def __init__(self, index: ProjectIndex, event_bases: Iterable[str]) -> None:
        self.index = index
        self.bases = frozenset(self.canonical(base) for base in event_bases)
        self._events: dict[str, bool] = {}

    def facts(self, module: str) -> ModuleFacts | None:
        return self.index.facts(module, module_facts)

    def split(self, dotted: str) -> tuple[str | None, str]:
        """The longest prefix of ``dotted`` that is a project module, and the rest."""
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            module = ".".join(parts[:end])
            if module in self.index.modules:
                return module, ".".join(parts[end:])
        return None, dotted

    def canonical(self, dotted: str, seen: set[str] | None = None) -> str:
        """Where ``dotted`` is defined, following aliases and re-exports; a name outside
        the project (or not found) is returned as written."""
        seen = set() if seen is None else seen  # shared through star imports: no cycles
        while dotted not in seen:
            seen.add(dotted)
            module, rest = self.split(dotted)
            facts = self.facts(module) if module and rest else None
            if facts is None or rest in facts.classes:
                break
            head, dot, tail = rest.partition(".")
            target = facts.bindings.get(head)
            if target is None:
                return self._through_star_imports(facts, rest, seen) or normalise(dotted)
            dotted = target + dot + tail
        return normalise(dotted)

    def _through_star_imports(self, facts: ModuleFacts, rest: str, seen: set[str]) -> str | None:
        for source in facts.star_imports:
            if source not in self.index.modules:
                continue  # outside the project: nothing to resolve through
            candidate = f"{source}.{rest}"
            if candidate not in seen:
                resolved = self.canonical(candidate, seen)
                if self.class_fact(resolved) is not None:
                    return resolved
        return None

    def class_fact(self, canonical: str) -> ClassFact | None:
        module, rest = self.split(canonical)
        facts = self.facts(module) if module and rest else None
        return facts.classes.get(rest) if facts else None

    def is_event(self, canonical: str) -> bool:
        """``canonical`` is an event base or derives from one (a circular hierarchy
        derives from nothing through its cycle)."""
        if canonical not in self._events:
            self._events[canonical] = self._derives(canonical, frozenset())
        return self._events[canonical]

    def _derives(self, canonical: str, visiting: frozenset[str]) -> bool:
        if canonical in self.bases:
            return True
        if canonical in visiting:
            return False
        if self._events.get(canonical):
            return True
        fact = self.class_fact(canonical)
        if fact is None:
            return False
        visiting = visiting | {canonical}
        return any(self._derives(self.canonical(base), visiting) for base in fact.bases)


def vocabulary_findings(config: VocabularyConfig, index: ProjectIndex, module: str) -> list[Finding]:
    """The vocabulary findings of one module (none when it is outside ``modules``)."""
    return sorted(_Checker(config, index).module(module))


def all_vocabulary_findings(config: VocabularyConfig, index: ProjectIndex) -> list[Finding]:
    """The vocabulary findings of every module the contract covers."""
    checker = _Checker(config, index)
    return sorted(finding for module in index.modules for finding in checker.module(module))


def unmatched_module_expressions(config: VocabularyConfig, index: ProjectIndex) -> list[str]:
    """Expressions in ``modules`` that match no module of the project."""
    return [str(e) for e in config.modules if not any(e.matches(m) for m in index.modules)]


class _Checker:
    """One contract's rules applied module by module."""

    def __init__(self, config: VocabularyConfig, index: ProjectIndex) -> None:
        self.config = config
        self.index = index
        self.resolver = EventResolver(index, config.event_bases)
        self.vocabulary = Vocabulary.compile(config.words, config.allow)
        self.kind_attributes = frozenset(config.kind_attributes)
        self.declaration_scope = any(scope in config.scope for scope in DECLARATION_CODES)

    def module(self, module: str) -> Iterator[Finding]:
        if not matches_any(module, self.config.modules):
            return
        facts = self.resolver.facts(module) if EVENTS_SCOPE in self.config.scope else None
        declared = self.index.facts(module, declaration_facts) if self.declaration_scope else None
        either = facts or declared
        if either is None:
            return
        if either.unreadable is not None:
            unreadable = either.unreadable
            where = Text(module, unreadable.line, 0)
            yield self.finding(module, where, "DOM001", module, f"DOM001:{module}", reason=unreadable.reason)
            return
        events = frozenset(q for q in facts.classes if self.resolver.is_event(f"{module}.{q}")) if facts else frozenset()
        if facts is not None:
            yield from self.events(module, facts, events)
        if declared is not None:
            for item in declared_names(module, declared, self.config.scope, events):
                yield from self.matched(module, item.where, item.code, item.symbol, item.fingerprint, **item.fields)

    def events(self, module: str, facts: ModuleFacts, events: frozenset[str]) -> Iterator[Finding]:
        """DOM101-DOM104: the module's event classes, and the events it constructs."""
        for fact in facts.classes.values():
            if fact.qualname in events:
                yield from self.event(module, fact)
        for call in facts.calls:
            event = self.resolver.canonical(call.callee)
            if self.resolver.is_event(event) and not self.defines_a_class(event):
                yield from self.keywords(module, call.scope, event, call.keywords)

    def defines_a_class(self, callee: str) -> bool:
        """``NamedTuple("X", a=int)`` defines an event class; it constructs no event."""
        factory = callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES
        return factory and self.resolver.class_fact(callee) is None

    def event(self, module: str, fact: ClassFact) -> Iterator[Finding]:
        owner = fact.qualname.rsplit(".", 1)[-1]
        symbol = f"{module}.{fact.qualname}"
        place = Text(owner, fact.line, fact.col)
        yield from self.matched(module, place, "DOM102", symbol, f"DOM102:{module}:{fact.qualname}", name=owner)
        for attribute in fact.attributes:
            name = attribute.name.text
            fingerprint = f"{module}:{fact.qualname}.{name}"
            if name in self.kind_attributes:
                for kind in attribute.strings:
                    yield from self.matched(module, kind, "DOM103", f"{symbol}.{name}", f"DOM103:{fingerprint}", kind=kind.text)
                continue
            yield from self.matched(module, attribute.name, "DOM101", f"{symbol}.{name}", f"DOM101:{fingerprint}", name=name)
            for alias in attribute.aliases:
                alias_fingerprint = f"DOM101:{fingerprint}[{alias.text}]"
                yield from self.matched(module, alias, "DOM101", f"{symbol}.{name}", alias_fingerprint, name=alias.text)

    def keywords(self, module: str, scope: str, event: str, keywords: tuple[Text, ...]) -> Iterator[Finding]:
        owner = event.rsplit(".", 1)[-1]
        for keyword in keywords:
            fingerprint = f"DOM104:{module}:{scope}:{owner}({keyword.text})"
            yield from self.matched(
                module, keyword, "DOM104", f"{event}({keyword.text})", fingerprint, name=keyword.text, owner=owner
            )

    def matched(self, module: str, text: Text, code: str, symbol: str, fingerprint: str, **fields: str) -> Iterator[Finding]:
        """The finding for ``text`` when it uses the vocabulary."""
        # What encloses the name (``pkg.mod.Class`` for ``pkg.mod.Class.attr``), for
        # dotted ``allow`` entries; kind strings and call keywords have none.
        context = symbol[: -len(text.text) - 1] if symbol.endswith("." + text.text) else ""
        match = self.vocabulary.match(text.text, context)
        if match:
            yield self.finding(module, text, code, symbol, fingerprint, word=match.word, hint=match.hint, **fields)

    def finding(self, module: str, where: Text, code: str, symbol: str, fingerprint: str, **fields: str) -> Finding:
        return Finding(
            path=self.index.relative_path(module),
            line=where.line,
            col=where.col,
            code=code,
            message=get_rule(code).format(**fields),
            symbol=symbol,
            fingerprint=fingerprint,
            contract=self.config.contract,
        )

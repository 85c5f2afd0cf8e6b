"""The mixins of runtime events: classes an event inherits from that are not events.

``class StepEvent(TelemetryEvent, ContextMixin)`` receives ``ContextMixin``'s fields
as surely as its own, so they are checked as the event's. Where they are reported is
where the fix goes:

- a mixin the contract covers (runtime code) is checked where it is declared, once
  however many events inherit it;
- a mixin from a module the contract does not cover (experiment code, which may use
  the words freely) is *borrowed*: its fields are reported at each covered class
  statement that inherits it (the event's, or a covered mixin's), for the fix is to
  stop inheriting it there, not to rename experiment code.

An event outside the contract's modules is not checked, nor what it passes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from domain_fence.core.families.vocabulary.resolution import EventResolver

Place = tuple[str, str]  # (module, qualname)
# A covered class statement: its module, its qualname, and which of the statements
# binding that name (a class defined in each branch of a ``try`` or an ``if``).
Statement = tuple[str, str, int]


class Mixins(NamedTuple):
    """Each covered mixin, as ``(module, qualname)``, and the event named as receiving
    it: the first, by name, of the events that inherit it; and the classes each covered
    class statement borrows from modules the contract does not cover."""

    receiver: dict[Place, str]
    borrowed: dict[Statement, tuple[Place, ...]]

    def in_module(self, module: str) -> list[tuple[str, str]]:
        """``(qualname, receiving event)`` of the mixins defined in ``module``."""
        return sorted((qualname, event) for (found, qualname), event in self.receiver.items() if found == module)

    def borrowed_in(self, module: str) -> list[tuple[str, int, tuple[Place, ...]]]:
        """``(qualname, statement, borrowed classes)`` of the class statements of ``module``
        that inherit from modules the contract does not cover."""
        return sorted(
            (qualname, at, places) for (found, qualname, at), places in self.borrowed.items() if found == module
        )

    def lent_by(self, module: str) -> list[str]:
        """The qualnames of the classes ``module`` lends to covered classes."""
        return sorted({qualname for places in self.borrowed.values() for found, qualname in places if found == module})


NO_MIXINS = Mixins({}, {})


def find_mixins(resolver: EventResolver, covered: Iterable[str], covers: Callable[[str], bool]) -> Mixins:
    """The mixins of the events defined in ``covered``: every project class reachable
    through their bases, and through the bases of those, that is not a covered event
    (an event is checked on its own); those in modules ``covers`` refuses are borrowed
    by the covered class statements inheriting them."""
    receiver: dict[Place, str] = {}
    borrowed: dict[Statement, tuple[Place, ...]] = {}
    for module in sorted(covered):
        facts = resolver.facts(module)
        if facts is None or facts.unreadable is not None:
            continue
        for qualname in sorted(facts.classes):
            event = f"{module}.{qualname}"
            if not resolver.is_event(event):
                continue
            for found in _covered_ancestry(resolver, event, covers):
                where, rest = resolver.split(found)
                if found != event:
                    place = (where or "", rest)
                    if place not in receiver or event < receiver[place]:
                        receiver[place] = event
                for at, fact in enumerate(resolver.class_facts(found)):
                    outside = _uncovered_ancestors(resolver, fact.bases, covers)
                    if outside:
                        borrowed[(where or "", rest, at)] = outside
    return Mixins(dict(sorted(receiver.items())), dict(sorted(borrowed.items())))


def _covered_ancestry(resolver: EventResolver, event: str, covers: Callable[[str], bool]) -> list[str]:
    """``event`` and the covered project classes it inherits from, through project
    classes that are not events (a covered event is checked on its own, one outside the
    contract's modules not at all)."""
    found = [event]
    seen = {event}
    pending = [event]
    while pending:
        for base in (base for fact in resolver.class_facts(pending.pop()) for base in fact.bases):
            resolved = resolver.canonical(base)
            if resolved in seen:
                continue
            seen.add(resolved)
            if resolver.class_fact(resolved) is None:
                continue
            if resolver.is_event(resolved):
                continue
            if covers(resolver.split(resolved)[0] or ""):
                found.append(resolved)
            pending.append(resolved)
    return found


def _uncovered_ancestors(
    resolver: EventResolver, bases: tuple[str, ...], covers: Callable[[str], bool]
) -> tuple[Place, ...]:
    """The project classes of uncovered modules that ``bases`` name, and those they
    inherit from through uncovered classes only, sorted; not events."""
    found: set[Place] = set()
    pending = list(bases)
    seen: set[str] = set()
    while pending:
        resolved = resolver.canonical(pending.pop())
        if resolved in seen:
            continue
        seen.add(resolved)
        where, rest = resolver.split(resolved)
        if where is None or covers(where) or resolver.class_fact(resolved) is None or resolver.is_event(resolved):
            continue
        found.add((where, rest))
        pending.extend(base for fact in resolver.class_facts(resolved) for base in fact.bases)
    return tuple(sorted(found))

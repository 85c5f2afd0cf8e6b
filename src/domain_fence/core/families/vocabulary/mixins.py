"""The mixins of runtime events: classes an event inherits from that are not events.

``class StepEvent(TelemetryEvent, ContextMixin)`` receives ``ContextMixin``'s fields
as surely as its own, so they are checked as the event's, where they are declared
(in the mixin, in any module of the project), once however many events inherit them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from domain_fence.core.families.vocabulary.resolution import EventResolver


class Mixins(NamedTuple):
    """Each mixin, as ``(module, qualname)``, and the event named as receiving it: the
    first, by name, of the events that inherit it."""

    receiver: dict[tuple[str, str], str]

    def modules(self) -> set[str]:
        return {module for module, _ in self.receiver}

    def in_module(self, module: str) -> list[tuple[str, str]]:
        """``(qualname, receiving event)`` of the mixins defined in ``module``."""
        return sorted((qualname, event) for (found, qualname), event in self.receiver.items() if found == module)


def find_mixins(resolver: EventResolver, covered: Iterable[str]) -> Mixins:
    """The mixins of the events defined in ``covered``: every project class reachable
    through their bases, and through the bases of those, that is not an event itself
    (an event is checked on its own)."""
    receiver: dict[tuple[str, str], str] = {}
    for module in sorted(covered):
        facts = resolver.facts(module)
        if facts is None or facts.unreadable is not None:
            continue
        for qualname in sorted(facts.classes):
            event = f"{module}.{qualname}"
            if not resolver.is_event(event):
                continue
            for mixin in _ancestors(resolver, event):
                where, rest = resolver.split(mixin)
                place = (where or "", rest)
                if place not in receiver or event < receiver[place]:
                    receiver[place] = event
    return Mixins(dict(sorted(receiver.items())))


def _ancestors(resolver: EventResolver, event: str) -> list[str]:
    """The project classes ``event`` inherits from, through non-event classes only."""
    found: list[str] = []
    seen = {event}
    pending = [event]
    while pending:
        for base in (base for fact in resolver.class_facts(pending.pop()) for base in fact.bases):
            resolved = resolver.canonical(base)
            if resolved in seen:
                continue
            seen.add(resolved)
            if resolver.class_fact(resolved) is None or resolver.is_event(resolved):
                continue
            found.append(resolved)
            pending.append(resolved)
    return found

"""The wider, opt-in vocabulary scope: any attribute (DOM111), parameter (DOM112) or
definition name (DOM113) declared in the runtime, not only those of events.

A codebase without telemetry events still holds experiment knowledge in its runtime
objects (``self.primary_target``, ``min_train_steps``); listing those declarations,
each once and with a line-independent fingerprint, lets the baseline ratchet the
migration away from them. Names used only inside a function body (local variables,
nested helpers) are never declarations, and neither are keywords passed in calls. A
definition by assignment (DOM113, kind ``binding``) is one that evidently binds a
function, class or method: a lambda or one of the module's own functions or classes
under another name at module level, a method-like value in a class body (what DOM111
leaves out); module constants are not declarations.
"""

from collections.abc import Callable, Iterator
from typing import NamedTuple

from domain_fence.core.model import fingerprints
from domain_fence.core.source.facts import BINDING, DeclarationFacts, Text

ATTRIBUTES, PARAMETERS, DEFINITIONS = "attributes", "parameters", "definitions"
CODES = {ATTRIBUTES: "DOM111", PARAMETERS: "DOM112", DEFINITIONS: "DOM113"}


class Declared(NamedTuple):
    """A declared name to hold against the vocabulary."""

    code: str
    where: Text
    symbol: str  # qualified name: ``pkg.mod.Class.attr``, ``pkg.mod.function.parameter``
    fingerprint: str
    fields: dict[str, str]  # message fields besides word and hint


def declared_names(
    module: str,
    facts: DeclarationFacts,
    scope: tuple[str, ...],
    event_names: frozenset[Text] = frozenset(),
    may_match: Callable[[str], bool] = lambda name: True,
) -> Iterator[Declared]:
    """The names of ``module`` the ``scope`` covers, each fingerprint once.

    ``event_names`` are the names the contract already checks as events', where they
    are written: the class names and class-level fields of its event class statements
    (DOM102/DOM101), not reported twice. By place, not by qualname: of two classes of
    one name, one may be an event and the other not.
    Only the names ``may_match`` accepts are given: a project declares tens of
    thousands of names, and few hold a word (two declarations with one fingerprint
    have one name, so the first of them is the one given, as without the filter).
    """
    seen: set[str] = set()
    for item in _candidates(module, facts, scope, event_names, may_match):
        if item.fingerprint not in seen:
            seen.add(item.fingerprint)
            yield item


def _candidates(
    module: str,
    facts: DeclarationFacts,
    scope: tuple[str, ...],
    event_names: frozenset[Text],
    may_match: Callable[[str], bool],
) -> Iterator[Declared]:
    if ATTRIBUTES in scope:
        for member in facts.members:
            if member.class_level and member.name in event_names:
                continue
            name = member.name.text
            if not may_match(name):
                continue
            yield Declared(
                "DOM111",
                member.name,
                f"{module}.{member.owner}.{name}",
                fingerprints.located("DOM111", module, f"{member.owner}.{name}"),
                {"name": name, "owner": member.owner},
            )
    for definition in facts.definitions:
        if PARAMETERS in scope:
            for parameter in definition.parameters:
                if not may_match(parameter.text):
                    continue
                yield Declared(
                    "DOM112",
                    parameter,
                    f"{module}.{definition.qualname}.{parameter.text}",
                    fingerprints.located("DOM112", module, f"{definition.qualname}({parameter.text})"),
                    {"name": parameter.text, "owner": definition.qualname},
                )
        if (
            DEFINITIONS in scope
            and definition.kind != "lambda"  # ``name = lambda ...:`` is a definition for its parameters only
            and definition.name not in event_names
            and may_match(definition.name.text)
        ):
            # A binding's fingerprint is apart from a ``def`` of its name, as DOM201's is.
            rest = f"{definition.qualname}=" if definition.kind == BINDING else definition.qualname
            yield Declared(
                "DOM113",
                definition.name,
                f"{module}.{definition.qualname}",
                fingerprints.located("DOM113", module, rest),
                {"kind": definition.kind, "name": definition.qualname},
            )

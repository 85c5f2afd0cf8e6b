"""One module traced: the entry point, and room on the stack for deep nesting."""

import ast
import sys
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager

from domain_fence.core.source.flow.collector import _Collector
from domain_fence.core.source.flow.frame import _Frame
from domain_fence.core.source.flow.records import (
    _FRAMES_PER_LEVEL,
    _UNCOUNTED_FRAMES,
    ALL_CALLEES,
    MAX_NESTING,
    FlowFacts,
    PayloadSite,
    Resolve,
    callee_names,
    traced_callee,
)
from domain_fence.core.source.flow.syntax import _dotted


def module_flows(
    module: str,
    tree: ast.Module,
    resolve: Resolve,
    keyword_calls: Iterable[tuple[ast.Call, str]],
    other_sink_scopes: Iterable[str],
    every_return: bool = False,
    callees: tuple[str, ...] = ALL_CALLEES,
    walrus_scopes: Iterable[str] = (),
    constructions: Mapping[ast.Call, tuple[str, str]] | None = None,
    payloads: Mapping[ast.stmt, list[PayloadSite]] | None = None,
    followed: Collection[ast.expr] = (),
    argument_calls: Iterable[tuple[ast.Call, str, str, str, int]] = (),
    builtin_getattr: bool = False,
) -> FlowFacts:
    """The flow facts of one module's tree. ``resolve`` gives what a dotted name refers
    to through the module's imports; ``keyword_calls`` are the calls with keywords and
    the qualnames of the scopes they are in, ``other_sink_scopes`` those of the scopes
    that set an attribute of a local a call was assigned to, or define a class (both
    found by the module's fact walk; ``walrus_scopes``, those with an assignment
    expression). A function that is none of these, nor around
    one, holds no sink: only its return value is traced, quickly, when asked for
    (``every_return``, or a sink of the module calls it); in one that is, only the
    statements that can bear on a keyword's, an attribute's or the return value are
    interpreted.

    Only the keywords of calls to ``callees`` (:func:`traced_callee`, of the callee as
    resolved) are traced: a check needs those of the calls that build an event or
    emit one, a few of the many calls with keywords. What a traced keyword's value is
    derived from does not depend on which other calls are traced: which calls are
    traced decides which functions are interpreted and which keyword sinks are kept,
    but a function interpreted is sliced as if every call were (any call with keywords
    may assign a variable, ``f(x=(label := ...))``, or read one that matters).

    ``constructions`` are the calls that build an instance of a class other than by
    calling it by name, with their form and the class, as the module's facts find
    them (facts.ConstructionFact): the fields they name are keyword sinks of that
    class, traced when the class's name is among ``callees``. ``payloads`` are the
    statements that put a key into a local dict a call is given (facts.local_dicts._Payloads):
    the value is traced there, as it is when put in (a variable reassigned after it
    changes nothing the dict holds), a keyword sink of that call's.

    A mapping whose keys are not known, unpacked into a call (``X(**stats)``) or given to
    a construction as its fields (``X.model_validate(stats)``), is a keyword sink of its
    own (:data:`SPREAD`), at the mapping; but not a local dict of ``followed`` (the
    names, in the calls, of the local dicts that ``payloads`` reads where their keys
    are put in: a mapping put into one whose keys are not known is a payload site).

    ``argument_calls`` are the calls given arguments by position whose values may be
    fields, as (call, scope, form, target, arguments before the fields: ``partial``'s
    class), as the module's facts find them (facts.arguments._arguments_given): for a target
    among ``callees``, the value given at each position before any starred argument is
    an :data:`ARGUMENT` sink. Those values seed a sliced function's statements for the
    calls traced alone: a call not traced holds no sink, and what its arguments are
    derived from need not be followed (a traced value's sources are those of the
    statements its own names lead to, whichever others are interpreted).

    With ``builtin_getattr`` (the module binds no ``getattr`` of its own), a call of
    ``getattr`` given a literal name reads that attribute (:data:`NAMED`)."""
    callees = callee_names(callees)
    constructions = constructions or {}
    every: dict[str, list[ast.Call]] = {}
    traced: dict[str, list[ast.Call]] = {}
    given: dict[str, list[ast.Call]] = {}  # scope -> its calls given traced arguments
    arguments: dict[ast.Call, tuple[str, str, int]] = {}
    for call, scope, form, target, skip in argument_calls:
        if callees == ALL_CALLEES or traced_callee(callees, target):
            arguments[call] = (target, form, skip)
            given.setdefault(scope, []).append(call)
    for call, scope in keyword_calls:
        every.setdefault(scope, []).append(call)
        if callees != ALL_CALLEES:
            reference = _dotted(call.func)
            built = constructions.get(call)
            if not (
                (reference is not None and traced_callee(callees, resolve(reference)))
                or (built is not None and traced_callee(callees, built[1]))
            ):
                continue
        traced.setdefault(scope, []).append(call)
    functions = frozenset(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    collector = _Collector(
        module,
        resolve,
        functions,
        every,
        traced,
        other_sink_scopes,
        walrus_scopes,
        callees,
        constructions,
        payloads,
        frozenset(followed),
        arguments,
        given,
        builtin_getattr,
    )
    top = _Frame(collector, ())
    with _room_to_nest():
        for statement in tree.body:
            try:
                top.statement(statement)
            except RecursionError:  # nested deeper than MAX_NESTING: the rest of it is not traced
                collector.nesting = 0
    return collector.facts(every_return)


# The traces running in this process (threads may trace at once), and the recursion
# limit to put back when the last one ends.
_ROOM_LOCK = threading.Lock()
_room: dict[str, int] = {"traces": 0, "before": 0, "set": 0}


@contextmanager
def _room_to_nest() -> Iterator[None]:
    """Room on the interpreter's stack for MAX_NESTING levels above the current
    frame, so that only the nesting limit cuts a trace. The limit is shared by every
    thread: it is raised, never lowered, while any trace runs, and put back as it was
    when the last one ends (unless something else changed it meanwhile)."""
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + MAX_NESTING * _FRAMES_PER_LEVEL + _UNCOUNTED_FRAMES
    with _ROOM_LOCK:
        if _room["traces"] == 0:
            _room["before"] = _room["set"] = sys.getrecursionlimit()
        _room["traces"] += 1
        if needed > sys.getrecursionlimit():
            sys.setrecursionlimit(needed)
            _room["set"] = needed
    try:
        yield
    finally:
        with _ROOM_LOCK:
            _room["traces"] -= 1
            if _room["traces"] == 0 and sys.getrecursionlimit() == _room["set"]:
                sys.setrecursionlimit(_room["before"])

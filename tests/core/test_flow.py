"""The flow facts DOM105 reads: what each value passed is derived from, extracted once
per file (apart from its other facts, for the files that need them) and cached like
every other fact."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from domain_fence.core.source.factcache import decode_flows, encode
from domain_fence.core.source.facts import EmitterFact, Text, extract, flow_facts
from domain_fence.core.source.facts.extraction import _flows, _walked
from domain_fence.core.source.flow import (
    ALL_CALLEES,
    ARGUMENT,
    ATTRIBUTE,
    CALL,
    CAPITALIZED,
    FIELD,
    KEY,
    KEYWORD,
    MAX_NESTING,
    NAMED,
    PARAMETER,
    READ,
    FlowFacts,
    callee_names,
    traced_callee,
)
from domain_fence.core.source.flow.sources import _compact as compact

SOURCE = """
from pkg.events import Recognized as R


class Learner:
    def step(self, episode):
        target = self.targets[self.index]
        target = f"{target}!"
        clean = self.lm_id
        clean = "x"
        R(a=target, b=clean, c=episode, d=self.summary())

    def summary(self):
        total = 0
        for count in self.counts:
            total += count
        return total

    def quiet(self):
        self.value = 3
"""


def facts(source: str = SOURCE):
    """The module's facts (``names``) and its flow facts (``flows``), from one tree."""
    tree = ast.parse(textwrap.dedent(source))
    return SimpleNamespace(
        names=extract("pkg.learner", False, tree)[0].names, flows=flow_facts("pkg.learner", False, tree)
    )


def sources_of(flows, name):
    (sink,) = [s for s in flows.sinks if s.name == name]
    return sink, [(s.identifier, s.shown, s.kind) for s in sink.sources]


def test_keyword_values_are_traced_through_local_variables():
    flows = facts().flows
    sink, sources = sources_of(flows, "a")
    assert (sink.kind, sink.target, sink.scope, sink.line, sink.col) == (
        KEYWORD,
        "pkg.events.Recognized",
        "Learner.step",
        11,
        10,
    )
    assert sources == [("targets", "self.targets", READ), ("index", "self.index", READ)]
    # Reassigned from a constant before the call: nothing, so no sink at all.
    assert not [s for s in flows.sinks if s.name == "b"]
    assert sources_of(flows, "c")[1] == [("episode", "episode", PARAMETER)]
    sink, sources = sources_of(flows, "d")
    assert sources == [("summary", "self.summary()", CALL)]
    assert sink.sources[0].callee == "pkg.learner.Learner.summary"


def test_return_values_are_kept_for_helpers_and_loops_reach_a_fixpoint():
    returns = facts().flows.returns
    assert [(s.identifier, s.kind) for s in returns["Learner.summary"]] == [("counts", READ)]
    assert "Learner.quiet" not in returns and "Learner.step" not in returns


HELPERS = """
from pkg.events import Recognized


def labelled(lm):
    return lm.primary_target


def unused(lm):
    return lm.episode


class Learner(Base):
    def step(self):
        Recognized(a=labelled(self), b=self.inherited(), c=self.counted())

    def counted(self):
        return 3

    def other(self):
        return self.epoch
"""


def test_only_the_helpers_a_sink_of_the_module_calls_have_their_return_values_traced():
    tree = ast.parse(HELPERS)
    partial = flow_facts("pkg.learner", False, tree)
    assert not partial.every_return
    # Traced: the two helpers defined here (one returns nothing); not defined here, so
    # nothing to trace: the inherited one. The others are not traced.
    assert sorted(partial.returns) == ["Learner.counted", "Learner.inherited", "labelled"]
    assert partial.function_returns("labelled") == flow_facts("pkg.learner", False, tree, True).returns["labelled"]
    assert partial.function_returns("Learner.counted") is None  # traced: returns nothing
    assert partial.function_returns("Learner.inherited") is None  # no such method here
    assert partial.function_returns("unused") == ()  # not traced: the caller must trace it


def test_every_return_traces_each_function_and_agrees_where_the_partial_facts_tell():
    tree = ast.parse(HELPERS)
    partial, whole = flow_facts("pkg.learner", False, tree), flow_facts("pkg.learner", False, tree, True)
    assert whole.every_return and partial.sinks == whole.sinks
    assert sorted(whole.returns) == ["Learner.other", "labelled", "unused"]  # none kept empty
    for qualname in ("labelled", "unused", "Learner.counted", "Learner.other", "Learner.inherited", "nothing"):
        told = partial.function_returns(qualname)
        assert told == () or told == whole.function_returns(qualname)
    assert whole.function_returns("nothing") is None


def test_a_function_defined_twice_returns_what_the_last_definition_returning_anything_does():
    source = (
        "class A:\n    @property\n    def label(self):\n        return self.target\n"
        "    @label.setter\n    def label(self, value):\n        self._label = value\n"
        "    def step(self):\n        R(a=self.label())\n"
    )
    for every_return in (False, True):
        returns = flow_facts("pkg.a", False, ast.parse(source), every_return).returns
        assert [s.identifier for s in returns["A.label"]] == ["target"]


def test_fields_of_classes_are_sinks_too():
    flows = facts("class Stats:\n    label: str = DEFAULT_EPISODE\n    count = 0\n").flows
    assert [(s.kind, s.target, s.name, [x.identifier for x in s.sources]) for s in flows.sinks] == [
        (FIELD, "Stats", "label", ["DEFAULT_EPISODE"])
    ]


def test_flow_facts_go_through_the_fact_cache():
    original = facts()
    decoded = decode_flows(encode(original.flows))
    assert decoded is not None and decoded == original.flows


def _nested(terms: int) -> str:
    return "class A:\n    def g(self):\n        return R(a=" + " + ".join(["self.episode"] * terms) + ")\n"


def test_an_expression_too_deep_to_trace_leaves_the_rest_of_the_facts():
    assert [s.name for s in facts(_nested(MAX_NESTING - 10)).flows.sinks] == ["a"]
    deep = facts(_nested(MAX_NESTING + 10))  # parsed, but nested deeper than traced
    assert deep.flows.sinks == () and [c.callee for c in deep.names.calls] == ["R"]


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


# Nested matches, comprehensions assigning to subscripts, then a long sum: each kind of
# nesting takes more of the interpreter's stack per level than a plain expression.
_MIXED = (
    "def deep(y):\n"
    + "".join("    " * (level + 1) + "match y:\n" + "    " * (level + 2) + "case _:\n" for level in range(0, 90, 2))
    + "    " * 92
    + "return R(a="
    + "[" * 150
    + "0"
    + "".join(" for [...][0] in y]" for _ in range(150))
    + " + "
    + " + ".join(["y.episode"] * 90)
    + ")\n\n\ndef after(self):\n    return R(b=self.episode)\n"
)


@pytest.mark.parametrize("source", [_nested(MAX_NESTING - 10), _nested(MAX_NESTING + 10), _MIXED])
def test_the_facts_do_not_depend_on_how_deep_the_stack_is_when_they_are_traced(source):
    # A module is traced in a worker, or on the main thread deep inside a check, or in
    # a language server's thread: the same file must give the same facts everywhere.
    tree = ast.parse(source)
    walk, _, resolver = _walked("pkg.a", False, tree)  # the other facts' walk: not under test

    def trace() -> FlowFacts:
        return _flows("pkg.a", tree, walk, resolver)

    def deeper(levels: int) -> FlowFacts:
        return deeper(levels - 1) if levels else trace()

    shallow = trace()
    limit = sys.getrecursionlimit()
    assert deeper(limit - _stack_depth() - 60) == shallow  # within a few frames of the limit
    assert sys.getrecursionlimit() == limit
    sys.setrecursionlimit(100_000)  # a host that raised it: the same facts again
    try:
        assert trace() == shallow
    finally:
        sys.setrecursionlimit(limit)


def test_a_statement_nested_too_deep_leaves_the_module_s_other_statements_traced():
    too_deep = "X = R(c=1 + " + " + ".join(["y.epoch"] * (MAX_NESTING + 10)) + ")\n"
    flows = flow_facts("pkg.a", False, ast.parse(_MIXED + too_deep + "Y = R(d=z.epoch)\n"))
    assert [s.name for s in flows.sinks] == ["a", "b", "d"]  # not c


def test_subscript_keys_and_helpers_read_as_written():
    flows = facts("def f(lm):\n    return R(a=lm.stats['episode'], b=lm.store.get_epoch())\n").flows
    assert set(sources_of(flows, "a")[1]) == {
        ("lm", "lm", PARAMETER),
        ("stats", "lm.stats", READ),
        ("episode", "lm.stats['episode']", KEY),
    }
    assert set(sources_of(flows, "b")[1]) == {
        ("lm", "lm", PARAMETER),
        ("store", "lm.store", READ),
        ("get_epoch", "lm.store.get_epoch()", CALL),
    }


GETATTR = """
class Learner:
    def step(self, lm, name):
        R(a=getattr(lm, "primary_target"), b=getattr(self.lm, "episode", self.fallback))
        R(c=getattr(self, "ground_truth", None), d=getattr(lm, name), e=getattr(lm, "not one"))
        R(f=getattr(lm, "epoch", default=None), g=getattr(*lm))
"""


def test_an_attribute_read_by_getattr_and_a_literal_name_is_read_as_the_attribute():
    """The builtin ``getattr`` given a literal identifier reads that attribute, shown as
    the plain read is (``self``'s names its member, as ``self.name`` does), besides what
    its arguments are derived from; another name (a variable, no identifier) or
    arguments it does not take so are none."""
    flows = facts(GETATTR).flows
    assert set(sources_of(flows, "a")[1]) == {("lm", "lm", PARAMETER), ("primary_target", "lm.primary_target", NAMED)}
    assert set(sources_of(flows, "b")[1]) == {
        ("lm", "self.lm", READ),
        ("episode", "self.lm.episode", NAMED),
        ("fallback", "self.fallback", READ),
    }
    sink, sources = sources_of(flows, "c")
    assert sources == [("ground_truth", "self.ground_truth", NAMED)]
    assert sink.sources[0].callee == "pkg.learner.Learner.ground_truth"
    assert set(sources_of(flows, "d")[1]) == {("lm", "lm", PARAMETER), ("name", "name", PARAMETER)}
    assert set(sources_of(flows, "e")[1]) == {("lm", "lm", PARAMETER)}
    assert set(sources_of(flows, "f")[1]) == {("lm", "lm", PARAMETER)}
    assert set(sources_of(flows, "g")[1]) == {("lm", "lm", PARAMETER)}


@pytest.mark.parametrize(
    "binding",
    ["from builtins import getattr", "def getattr(o, n, d=None):\n    return d", "from pkg.helpers import *"],
)
def test_getattr_bound_by_the_module_reads_nothing_by_name(binding):
    flows = facts(f"{binding}\n{GETATTR}").flows
    assert set(sources_of(flows, "a")[1]) == {("lm", "lm", PARAMETER)}


FILTERED = """
from pkg.events import Recognized, ObjectEvent
from pkg.factories import make_event
from pkg import log

alias = Recognized  # resolved: its keywords are Recognized's


class Learner:
    def step(self):
        label = self.primary_target
        Recognized(label=label)
        ObjectEvent(label=label)
        alias(label=label)
        make_event(label=label)
        log.record(label=label)

    def attributes(self):
        event = helper_build()
        event.label = self.primary_target
"""


def keyword_targets(callees):
    flows = flow_facts("pkg.learner", False, ast.parse(FILTERED), callees=callees)
    return flows, sorted({s.target.rpartition(".")[2] for s in flows.sinks if s.kind == KEYWORD})


@pytest.mark.parametrize(
    ("callees", "traced"),
    [
        (ALL_CALLEES, ["ObjectEvent", "Recognized", "make_event", "record"]),
        (("Event",), ["ObjectEvent"]),  # a suffix of the last part, as resolved
        (("make_event", "Recognized"), ["Recognized", "make_event"]),
        ((CAPITALIZED,), ["ObjectEvent", "Recognized"]),
        ((), []),
    ],
)
def test_only_the_keywords_given_to_the_callees_asked_for_are_traced(callees, traced):
    flows, found = keyword_targets(callees)
    assert found == traced
    assert flows.callees == callee_names(callees)
    # Every other sink is the same whatever the callees: attribute sinks are kept.
    assert [s for s in flows.sinks if s.kind != KEYWORD] == [
        s for s in facts(FILTERED).flows.sinks if s.kind != KEYWORD
    ]
    assert [s.name for s in flows.sinks if s.kind != KEYWORD] == ["label"]


# A traced call beside calls that are not: in a closure, after an assignment inside
# another call's keyword, in a loop, in a nested function's enclosing scope.
ENTANGLED = """
from pkg.events import Recognized
from pkg.factories import make_event


def outer(agent):
    label = agent.primary_target

    def inner():
        event = Recognized()
        event.label = label
        agent.log(level=1)
        return make_event(label=label)

    return inner


def walrus(agent, compute):
    compute(flag=True, value=(label := agent.primary_target))
    return Recognized(label=label)


def loop(agent, items):
    total = agent.lm_id
    for item in items:
        agent.record(value=total)
        total = item.episode
    make_event(count=total)


def nested_only(agent):
    def inner():
        event = Recognized()
        event.label = agent.episode
        return event

    return inner
"""


@pytest.mark.parametrize("callees", [("make_event",), ("Recognized",), (CAPITALIZED,), ("Event", "log"), ()])
def test_a_traced_keyword_s_sources_do_not_depend_on_which_other_calls_are_traced(callees):
    tree = ast.parse(ENTANGLED)
    whole = flow_facts("pkg.learner", False, tree)
    part = flow_facts("pkg.learner", False, tree, callees=callees)
    assert part.sinks == tuple(
        s for s in whole.sinks if s.kind != KEYWORD or traced_callee(callee_names(callees), s.target)
    )
    assert {(s.scope, s.name, tuple(x.identifier for x in s.sources)) for s in whole.sinks} >= {
        ("outer.inner", "label", ("agent", "primary_target")),  # read in the enclosing function
        ("walrus", "label", ("agent", "primary_target")),
        ("loop", "count", ("agent", "items", "lm_id", "episode")),  # every pass
        ("nested_only.inner", "label", ("agent", "episode")),
    }


def test_flow_facts_say_which_callees_they_cover():
    flows, _ = keyword_targets(("Event", CAPITALIZED))
    assert flows.covers(["ObjectEvent", "Recognized", "CharField"])
    assert not flows.covers(["Recognized", "make_event"])
    # Exceptions and warnings are raised, not emitted: traced only when named.
    assert not flows.covers(["ValidationError"]) and not flows.covers(["UserWarning"])
    assert not flows.covers(["ConfigException"])
    assert flows.covers(["ErrorEvent", "SensorErrorEvent"])
    assert keyword_targets(("Error",))[0].covers(["ValidationError"])
    assert flows.covers([])
    assert keyword_targets(ALL_CALLEES)[0].covers(["make_event", ""])
    assert decode_flows(encode(flows)) == flows  # cached with what they cover
    assert callee_names(["b", "a", "b"]) == ("a", "b")
    assert callee_names(["a", ""]) == ALL_CALLEES


def test_a_function_is_interpreted_when_it_defines_a_class_or_sets_an_attribute_of_what_a_call_built():
    flows = facts(
        "def build(self):\n"
        "    class Local(Event):\n"
        "        label: str = EPISODE_LABEL\n"
        "    return Local\n\n\n"
        "def fill(self):\n"
        "    made = Made()\n"
        "    made.label = self.primary_target\n"
    ).flows
    assert [(s.kind, s.target, s.scope, s.name) for s in flows.sinks] == [
        (FIELD, "build.Local", "build.Local", "label"),
        (ATTRIBUTE, "Made", "fill", "label"),
    ]


# Statements a function's slice of statements once dropped: a value put into a container,
# a variable assigned inside an expression, an object an attribute is set on and then
# reassigned; and the variables of a function a traced call is nested in.
SLICED = """
from pkg.events import Recognized


def mutator(agent):
    value = agent.primary_target
    parts = []
    parts.append(value)
    return Recognized(label=parts)


def subscript(agent):
    value = agent.primary_target
    payload = {}
    payload["label"] = value
    return Recognized(data=payload)


def walrus(agent, compute):
    x = compute((label := agent.primary_target))
    return Recognized(label=label)


def holder(agent, finder):
    obj = agent.spawn()
    obj.visible = True
    target = agent.primary_target
    obj = finder(obj, target)
    return Recognized(object_id=obj)


def closure(agent):
    label = agent.primary_target

    def inner():
        return Recognized(label=label)

    return inner
"""


def test_a_sliced_function_follows_containers_assignment_expressions_and_reassigned_holders():
    flows = flow_facts("pkg.learner", False, ast.parse(SLICED))
    found = {s.scope: [x.identifier for x in s.sources] for s in flows.sinks if s.kind == KEYWORD}
    assert all("primary_target" in identifiers for identifiers in found.values()), found
    assert sorted(found) == ["closure.inner", "holder", "mutator", "subscript", "walrus"]


CALLEE_SETS = [
    (),
    (CAPITALIZED,),
    ("Event",),
    ("make_event",),
    ("Recognized",),
    ("Field", "log"),
    ("emit", CAPITALIZED),
]
FIXTURES = Path(__file__).parent.parent / "fixtures"
FLOW_SOURCES = sorted(FIXTURES.rglob("*.py"))


@pytest.mark.parametrize(
    "source",
    [ENTANGLED, SLICED, FILTERED, SOURCE, *(p.read_text(encoding="utf-8") for p in FLOW_SOURCES)],
    ids=["entangled", "sliced", "filtered", "source", *(str(p.relative_to(FIXTURES)) for p in FLOW_SOURCES)],
)
def test_what_a_traced_keyword_is_derived_from_does_not_depend_on_the_callees_traced(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:  # fixtures of unreadable files
        return
    whole = flow_facts("pkg.module", False, tree)
    for callees in CALLEE_SETS:
        part = flow_facts("pkg.module", False, tree, callees=callees)
        traced = callee_names(callees)
        # A value given by position too (ARGUMENT): seeded for the traced calls alone.
        called = (KEYWORD, ARGUMENT)
        assert part.sinks == tuple(s for s in whole.sinks if s.kind not in called or traced_callee(traced, s.target))
        assert part.given == tuple(g for g in whole.given if traced_callee(traced, g.target))
        assert all(part.returns[q] == whole.returns[q] for q in part.returns.keys() & whole.returns.keys())


# What a construction other than a call of the class by name builds is known only where
# nothing else can be bound to the name it goes through.
CONSTRUCTIONS = """
from pkg.events import Sensed

KIND = "EpisodeEnd"


class Built(Sensed):
    @classmethod
    def known(cls, n):
        return cls(label=n.target)

    @classmethod
    def rebound(cls, n):
        cls = n.kind
        return cls(label=n.target)

    def nested(self, n):
        def inner(self):
            return type(self)(label=n.target)

        return lambda: self.__class__(label=n.target)

    def closure(self, n):
        return lambda: type(self)(label=n.target)


def locals_(n, flag, given):
    made = Sensed(lm_id=1)
    if flag:
        made = Sensed.model_construct(lm_id=2)
    made.model_copy(update={"label": n.target})
    other = Sensed()
    for other in n.items:
        pass
    other.model_copy(update={"label": n.target})
    given.model_copy(update={"label": n.target})


def outer(n):
    made = Sensed()

    def inner():
        nonlocal made
        made = n
    return made.model_copy(update={"label": n.target})


def kinds(KIND_NAME):
    return Sensed(kind=KIND, other=KIND_NAME)
"""


def test_constructions_are_known_where_nothing_else_can_be_bound_to_the_name():
    found = facts(CONSTRUCTIONS)
    built = [(c.scope, c.form, c.built) for c in found.names.constructions]
    assert built == [
        ("Built.known", "cls", "pkg.learner.Built"),
        ("Built.closure", "type(self)", "pkg.learner.Built"),
        ("locals_", "model_construct", "pkg.events.Sensed"),
        ("locals_", "model_copy", "pkg.events.Sensed"),
    ]
    # The same, as the flow facts' keyword sinks of the class, with the form (a
    # constant value is derived from nothing: no sink).
    sinks = [(s.scope, s.form, s.target) for s in found.flows.sinks if s.form]
    assert sinks == [item for item in built if item[1] != "model_construct"]
    (kinds,) = [c for c in found.names.calls if c.scope == "kinds"]
    assert kinds.constants == ((0, "KIND", Text("EpisodeEnd", 49, 23)),) and not kinds.strings


def test_a_kind_constant_bound_again_anywhere_is_no_constant():
    shadowed = facts("KIND = 'EpisodeEnd'\n\n\ndef f():\n    return E(kind=KIND)\n\n\ndef g(KIND):\n    pass\n")
    assert [c.constants for c in shadowed.names.calls] == [()]
    starred = facts("from pkg import *\nKIND = 'EpisodeEnd'\nE(kind=KIND)\n")
    assert [c.constants for c in starred.names.calls] == [()]
    shadowed_type = facts("type = 3\n\n\nclass E(B):\n    def f(self):\n        return type(self)(a=1)\n")
    assert not shadowed_type.names.constructions


def test_a_mapping_whose_keys_are_not_known_is_a_sink_of_its_own():
    """Named ``**`` and the mapping as written, at the mapping; the keys of a dict display
    are read one by one as before, and a local dict whose keys are read is traced where
    each key (or mapping) is put in, not whole where it is given."""
    flows = facts(
        """
        from pkg.events import Recognized


        def build(learner):
            stats = learner.episode_stats()
            Recognized(**stats)
            Recognized(**{"label": learner.label, **learner.extra})
            Recognized.model_validate(learner.counts)
            payload = {"lm_id": learner.lm_id}
            payload.update(learner.more)
            Recognized(**payload)
        """
    ).flows
    assert [(s.name, s.line, s.col, s.form) for s in flows.sinks if s.kind == KEYWORD] == [
        ("**stats", 7, 17, ""),
        ("label", 8, 19, ""),
        ("**learner.extra", 8, 44, ""),
        ("**learner.counts", 9, 30, "model_validate"),
        ("lm_id", 10, 16, "**payload"),
        ("**learner.more", 11, 19, "**payload"),
    ]
    _, sources = sources_of(flows, "**stats")
    assert sources == [("learner", "learner", PARAMETER), ("episode_stats", "learner.episode_stats()", CALL)]


def test_a_value_given_by_position_is_a_sink_named_by_its_place():
    """Each value a call gives by position before any starred argument is an ARGUMENT sink
    of its callee, named by its position (``partial``'s after the class); what it is an
    instance of, when a call builds it, is kept (an event given whole is no field); the
    literal strings given by position to a call by name are kept apart. The module's
    facts name the callees so given arguments, and the parameters its functions take
    by position where that is certain."""
    found = facts(
        """
        import functools
        from pkg.events import Recognized, emit_step


        def emit_here(kind, value, *rest):
            pass


        @traced
        def decorated(kind):
            pass


        def rebound(kind):
            pass


        rebound = decorated


        class Learner:
            @classmethod
            def build(cls, learner):
                return cls(learner.lm_id, learner.primary_target)

            def step(self, stats):
                Recognized(self.lm_id, stats, *self.rest, self.after)
                functools.partial(Recognized, self.primary_target)
                emit_step("lm_step", stats)
                event = Recognized(self.primary_target)
                emit_step(event, Recognized(stats))
                print(self.primary_target)
        """
    )
    flows = found.flows
    sinks = [(s.target, s.name, s.line, s.col, s.form, s.holds) for s in flows.sinks if s.kind == ARGUMENT]
    assert sinks == [
        ("pkg.learner.Learner", "0", 25, 19, "cls", ""),
        ("pkg.learner.Learner", "1", 25, 34, "cls", ""),
        ("pkg.events.Recognized", "0", 28, 19, "", ""),
        ("pkg.events.Recognized", "1", 28, 31, "", ""),  # none after the starred argument
        ("pkg.events.Recognized", "0", 29, 38, "partial", ""),  # after the class
        ("pkg.events.emit_step", "1", 30, 29, "", ""),
        ("pkg.events.Recognized", "0", 31, 27, "", ""),
        ("pkg.events.emit_step", "0", 32, 18, "", "pkg.events.Recognized"),  # a local holding one
        ("pkg.events.emit_step", "1", 32, 25, "", "pkg.events.Recognized"),
        ("pkg.events.Recognized", "0", 32, 36, "", ""),
    ]
    assert [(g.target, g.position, g.text, g.line, g.col) for g in flows.given] == [
        ("pkg.events.emit_step", 0, "lm_step", 30, 18)
    ]
    names = found.names
    assert "pkg.events.Recognized" in names.argument_callees and "print" not in names.argument_callees
    assert names.signatures == {"emit_here": ("kind", "value")}  # one def, undecorated, bound once
    # Traced for some callees alone: those of the others are no sink, and no string is kept.
    tree = ast.parse(textwrap.dedent(SOURCE))
    assert not [s for s in flow_facts("pkg.learner", False, tree, callees=("Other",)).sinks if s.kind == ARGUMENT]


def test_the_facts_name_the_classes_a_function_builds_from_its_own_keywords():
    """A module-level function certain as for its signature that constructs a class
    unpacking its own ``**`` parameter (an emit function when that class is an event):
    the classes as the module's imports resolve them, and the parameters passed on
    under their own name. Not a different dict, a nested function's construction, a
    parameter bound again, a decorated function, one bound twice, a method."""
    names = facts(
        """
        import functools
        from pkg import events
        from pkg.events import Recognized as R


        def emit_reach(kind, note, **fields):
            return R(kind=kind, label=note, **fields)


        def validated(**values):
            if values:
                return events.Stats.model_validate(values)
            return R(**values)


        def other(kind, **fields):
            payload = dict(fields)
            return R(kind=kind, **payload)


        def nested(**fields):
            def inner():
                return R(**fields)
            return inner


        def rebound(**fields):
            fields = {}
            return R(**fields)


        @functools.cache
        def decorated(**fields):
            return R(**fields)


        def twice(**fields):
            return R(**fields)


        twice = functools.partial(twice)


        class Relay:
            def emit(self, **fields):
                return R(**fields)
        """
    ).names
    assert names.emitters == {
        # its own parameters, whose keywords reach the event only where passed on (kind)
        "emit_reach": EmitterFact(("pkg.events.Recognized",), ("kind",), ("kind", "note"), ("kind", "note")),
        "validated": EmitterFact(("pkg.events.Recognized", "pkg.events.Stats")),
    }


def test_which_of_two_same_named_reads_names_the_source_does_not_depend_on_set_order():
    # Each ``.filter`` of the chain starts where the chain does and ends at column 19;
    # only its end's line tells them apart. The sources come from a set (its order varies
    # with memory addresses): the one kept must not.
    tree = ast.parse(
        textwrap.dedent("""
        def f(self, q, **kwargs):
            return (
                self.manager.using(db)
                .filter(**kwargs)
                .filter(q)
            )
        """)
    )
    reads = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "filter"]
    raw = [("filter", node, READ, "") for node in reads]
    kept = [compact(order) for order in (raw, raw[::-1])]
    assert kept[0] == kept[1]
    assert [(s.identifier, s.base) for s in kept[0]] == [("filter", "self.manager.using()")]

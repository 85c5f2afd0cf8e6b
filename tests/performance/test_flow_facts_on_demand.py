"""DOM105's flow facts are extracted only for the modules that may build an event and
for the helpers those call (at once, from the same tree, for a file that mentions an
event base); once extracted, the fact cache serves them like any fact, so a warm run, a
restored cache or a one-file edit traces nothing it traced before. An editor's buffer
is traced from its text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from perf_support import edit, settle
from support import FIXTURES

from domain_fence.core.engine import Engine
from domain_fence.core.families.vocabulary import prefilter
from domain_fence.core.index import project as index_module
from domain_fence.core.source import factcache
from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

DERIVED = FIXTURES / "vocabulary" / "derived"
BUILDERS_AND_HELPERS = [
    "leaks.runtime.constructions",  # builds events other than by calling the class by name
    "leaks.runtime.emitted_names",  # gives keywords to emit functions (its own, one imported)
    "leaks.runtime.emitters",  # emits through a function it defines (and builds events in it)
    "leaks.runtime.emitting_methods",  # gives kinds by position to emit methods (``*._emit``)
    "leaks.runtime.events",  # defines the events (and their field defaults)
    "leaks.runtime.fields",  # defines events too
    "leaks.runtime.helpers",  # builds none, but the learners call its functions
    "leaks.runtime.learner",
    "leaks.runtime.overrides",  # once: the bases' methods it calls are traced with its own
    "leaks.runtime.positional",  # builds events from values given by position (and defines one)
    "leaks.runtime.properties",  # builds events from properties (one a helper's class defines)
    "leaks.runtime.rebound_getattr",  # builds one from what a getattr of its own returns
    "leaks.runtime.spreads",  # builds events from mappings whose keys are not known
    "leaks.runtime.traps",
    "leaks.runtime.unions",  # once, as traps: builds events, names no base
]
# Calls with keywords and sets attributes, with experiment words, and builds no event.
QUIET = """\
from leaks.runtime.helpers import summarize


def step(self, learner):
    record = dict(label=self.episode, stats=summarize(learner))
    holder = make_holder()
    holder.label = self.primary_target
    return record
"""


@pytest.fixture(autouse=True)
def new_process(monkeypatch):
    forget(monkeypatch)
    monkeypatch.setattr(index_module, "PRIME_AFTER", 2)  # this project is small: prime as a large one would


def forget(monkeypatch) -> None:
    """What a new process starts from: the cache on disk, nothing in memory."""
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(index_module, "_FLOWS", {})
    monkeypatch.setattr(index_module, "_WALKED", {})
    monkeypatch.setattr(factcache, "_OPEN", {})


@pytest.fixture
def traced(monkeypatch) -> list[str]:
    """The modules whose flow facts are extracted (rather than found in memory or the
    cache): when asked for, or with the module's other facts."""
    modules: list[str] = []
    for name in ("flow_facts", "extract_traced"):
        real = getattr(index_module, name)

        def recording(module, is_package, tree, *every_return, real=real):
            modules.append(module)
            return real(module, is_package, tree, *every_return)

        monkeypatch.setattr(index_module, name, recording)
    real_walked = index_module.walked_flows

    def from_the_walk(walked, *traced):  # the walk of its other facts
        modules.append(walked[0])
        return real_walked(walked, *traced)

    monkeypatch.setattr(index_module, "walked_flows", from_the_walk)
    return modules


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The files parsed, for their facts or their flow facts."""
    files: list[str] = []
    real_load, real_read = index_module.load_tree, index_module._read_tree

    def loading(path):
        files.append(Path(path).name)
        return real_load(path)

    def reading(path, stamp):
        files.append(Path(path).name)
        return real_read(path, stamp)

    monkeypatch.setattr(index_module, "load_tree", loading)
    monkeypatch.setattr(index_module, "_read_tree", reading)
    return files


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(DERIVED, root, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    (root / "leaks" / "runtime" / "quiet.py").write_text(QUIET, encoding="utf-8")
    settle(root)
    return root


def engine(root: Path, cached: bool = True) -> Engine:
    configuration = load_configuration(root / ".importlinter")
    configuration.cache_dir = root / ".cache" if cached else None
    return engine_for(configuration)


def check(root: Path, cached: bool = True) -> list[str]:
    """The fingerprints of every finding, the cache written as a run's exit writes it."""
    checker = engine(root, cached)
    checker.validate()  # as every front end does first
    found = [f.fingerprint for spec in checker.contracts for f in checker.check_contract(spec).findings]
    checker.save()
    return sorted(found)


def derived(fingerprints: list[str]) -> list[str]:
    return [f for f in fingerprints if f.startswith("DOM105:")]


def test_flow_facts_are_extracted_once_and_only_where_events_may_be_built(project, traced, parsed):
    found = check(project, cached=False)
    assert len(derived(found)) >= 25
    assert sorted(traced) == BUILDERS_AND_HELPERS
    # Those naming the event base were traced as they were parsed; only the others that
    # turned out to need it were read again.
    assert sorted(name for name in set(parsed) if parsed.count(name) > 1) == [
        "helpers.py",
        "overrides.py",
        "rebound_getattr.py",
        "traps.py",
        "unions.py",
    ]


def test_events_named_by_a_pattern_are_traced_as_their_builders_are_parsed(project, monkeypatch, traced, parsed):
    expected = check(project, cached=False)
    forget(monkeypatch)
    # Half of this small project's modules mention an emit function: the filter would
    # read them all at once (see prefilter._sources), where a large project's would not.
    monkeypatch.setattr(prefilter, "GIVE_UP_SHARE", 1)
    config = project / ".importlinter"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("leaks.runtime.events.Event", "leaks.runtime.events:Eve*"), encoding="utf-8")
    traced.clear()
    parsed.clear()
    assert check(project, cached=False) == expected
    assert sorted(traced) == BUILDERS_AND_HELPERS
    # The pattern's modules are read first; the events they define name the builders
    # to trace as they are parsed (traps.py builds a Recognized, and names no base).
    # Only the helper is read again, once the builders' flows say it is one, and the
    # module of the kind constants, once a kind given names one (it names no event:
    # first only its imports are read).
    assert sorted(name for name in set(parsed) if parsed.count(name) > 1) == ["helpers.py", "kinds.py"]


def test_a_run_that_parses_nothing_reads_no_module_for_the_hints(project, monkeypatch, traced, parsed):
    from domain_fence.core.families.vocabulary import events

    config = project / ".importlinter"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("leaks.runtime.events.Event", "leaks.runtime.events:Eve*"), encoding="utf-8")
    first = check(project)
    forget(monkeypatch)
    primed: list[str] = []
    real = events.prime_flow_hints

    def priming(config, index):
        primed.append(config.contract)
        real(config, index)

    monkeypatch.setattr(events, "prime_flow_hints", priming)
    traced.clear()
    parsed.clear()
    assert check(project) == first
    assert (primed, traced, parsed) == ([], [], [])  # every fact from the cache: no hint needed
    edit(project / "leaks" / "runtime" / "learner.py", "from leaks.runtime.events import Recognized\n")
    forget(monkeypatch)
    check(project)
    assert primed == []  # one file to parse: cheaper read twice than the hints read first
    forget(monkeypatch)
    check(project, cached=False)
    assert primed == ["runtime-events-speak-runtime"]  # once, before the files are parsed


@pytest.mark.parametrize("name", ["unions", "helpers"])  # builds events and names no base; a helper
def test_an_edited_file_no_hint_traces_is_parsed_once_for_its_flow_facts_too(
    project, monkeypatch, traced, parsed, name
):
    # Parsed alone for its facts (one file to parse primes no hint): its flow facts,
    # asked for next, come from the same walk.
    first = check(project)
    edited = project / "leaks" / "runtime" / f"{name}.py"
    edit(edited, edited.read_text(encoding="utf-8") + "\n# edited\n")
    forget(monkeypatch)
    traced.clear()
    parsed.clear()
    assert check(project) == first
    assert (traced, parsed) == ([f"leaks.runtime.{name}"], [f"{name}.py"])


def test_a_hint_traces_only_the_files_of_the_modules_it_is_for(project, traced):
    # DOM105 reports in the modules a contract covers: a file elsewhere that mentions
    # an event base (a web form naming a model's Field) is parsed for its facts alone.
    (project / "leaks" / "experiment" / "mentions.py").write_text(
        "from leaks.runtime.events import Event\n\nMADE = Event()\n", encoding="utf-8"
    )
    index = index_module.ProjectIndex.build(project, ["leaks"], cache_dir=None)
    index.trace_when_mentioned(["Event"], among=lambda module: module.startswith("leaks.runtime."))
    index.prefetch(["leaks.experiment.mentions", "leaks.runtime.fields", "leaks.runtime.helpers"])
    assert traced == ["leaks.runtime.fields"]
    index.prefetch(["leaks.experiment.episodes"], mentioning=["Event"], among=lambda module: True)
    index.prefetch(["leaks.runtime.events"], trace_all=True)
    assert traced == ["leaks.runtime.fields", "leaks.runtime.events"]


def test_a_module_setting_an_attribute_of_an_event_it_builds_is_traced(project, traced):
    # No keyword, no binding of the event class: only the module's own call says so.
    (project / "leaks" / "runtime" / "quiet.py").write_text(
        "from leaks.runtime import events as ev\n\n\ndef step(self):\n"
        "    made = ev.Recognized()\n    made.label = self.primary_target\n    return made\n",
        encoding="utf-8",
    )
    found = check(project, cached=False)
    assert "DOM105:leaks.runtime.quiet:step:Recognized.label<-primary_target" in found
    assert "leaks.runtime.quiet" in traced


THROUGH_FIRST = "DOM105:leaks.runtime.second:step:Recognized(object_id)<-label().primary_target"


def helper_in_a_builder(project: Path) -> None:
    """first.py builds an event, but none of its own sinks calls its helper ``label``;
    second.py builds one from it."""
    runtime = project / "leaks" / "runtime"
    (runtime / "first.py").write_text(
        "from leaks.runtime.events import Recognized\n\n\n"
        "def report(self):\n    return Recognized(lm_id=self.lm_id)\n\n\n"
        "def label(self):\n    return self.primary_target\n",
        encoding="utf-8",
    )
    (runtime / "second.py").write_text(
        "from leaks.runtime.events import Recognized\nfrom leaks.runtime.first import label\n\n\n"
        "def step(self):\n    return Recognized(object_id=label(self))\n",
        encoding="utf-8",
    )
    settle(project)


def batched_flows(monkeypatch) -> list[list[tuple[str, bool]]]:
    """The modules (and whether every return value is traced) of each batch of flow
    facts traced in parallel, with every batch worth the workers."""
    batches: list[list[tuple[str, bool]]] = []
    real = index_module._extract_all_flows

    def recording(jobs):
        batches.append(sorted((job.module, job.every_return) for job in jobs))
        return real(jobs)

    monkeypatch.setattr(index_module, "PARALLEL_MIN_FLOWS", 1)
    monkeypatch.setattr(index_module, "_extract_all_flows", recording)
    return batches


def test_a_builder_whose_helper_another_module_calls_is_traced_whole_once(project, monkeypatch, traced):
    # first.py builds an event, but none of its own sinks calls its helper: its flow
    # facts, traced with its other facts, hold no return value of it. When second.py's
    # sink calls it, first.py is traced again, whole; the fact cache keeps that.
    helper_in_a_builder(project)
    found = check(project)
    assert THROUGH_FIRST in found
    assert traced.count("leaks.runtime.first") == 2 and traced.count("leaks.runtime.second") == 1
    forget(monkeypatch)
    traced.clear()
    assert check(project) == found
    assert traced == []  # every return value of first.py came from the cache


def test_a_warm_run_traces_and_parses_nothing(project, monkeypatch, traced, parsed):
    first = check(project)
    assert sorted(traced) == BUILDERS_AND_HELPERS
    forget(monkeypatch)
    traced.clear()
    parsed.clear()
    assert check(project) == first
    assert traced == [] and parsed == []


def test_a_restored_cache_serves_the_flow_facts_of_every_unchanged_file(project, monkeypatch, traced, parsed):
    first = check(project)
    settle(project, when=1_700_000_000)  # a checkout: every file a new modification time
    forget(monkeypatch)
    traced.clear()
    parsed.clear()
    assert check(project) == first
    assert traced == [] and parsed == []


def test_an_edited_file_alone_is_parsed_and_traced_again(project, monkeypatch, traced, parsed):
    first = check(project)
    learner = project / "leaks" / "runtime" / "learner.py"
    edit(learner, learner.read_text(encoding="utf-8") + "\n# edited\n")
    quiet = project / "leaks" / "runtime" / "quiet.py"
    edit(quiet, quiet.read_text(encoding="utf-8") + "\n# edited\n")
    forget(monkeypatch)
    traced.clear()
    parsed.clear()
    assert check(project) == first
    assert sorted(parsed) == ["learner.py", "quiet.py"]
    assert traced == ["leaks.runtime.learner"]  # quiet.py builds no event: never traced


def test_flow_facts_of_a_buffer_come_from_its_text(project, traced):
    checker = engine(project)
    path = project / "leaks" / "runtime" / "quiet.py"
    leak = QUIET + (
        "\n\ndef report(self):\n    from leaks.runtime.events import Recognized\n\n"
        "    return Recognized(object_id=self.primary_target)\n"
    )
    assert derived([f.fingerprint for f in checker.findings_in(path).reported]) == []
    assert "leaks.runtime.quiet" not in traced
    reported = checker.findings_in(path, leak).reported
    assert derived([f.fingerprint for f in reported]) == [
        "DOM105:leaks.runtime.quiet:report:Recognized(object_id)<-primary_target"
    ]
    # The file on disk is as it was: dropping the buffer drops what its text said.
    checker.drop_buffer(path)
    assert derived([f.fingerprint for f in checker.findings_in(path).reported]) == []


def test_an_edited_helper_buffer_changes_what_its_callers_report(project):
    checker = engine(project)
    learner = project / "leaks" / "runtime" / "learner.py"
    helpers = project / "leaks" / "runtime" / "helpers.py"
    through = (
        "DOM105:leaks.runtime.learner:Learner.helper_in_another_module:Recognized(stats)<-summarize().primary_target"
    )
    assert through in [f.fingerprint for f in checker.findings_in(learner).reported]
    text = helpers.read_text(encoding="utf-8").replace("picked = learner.primary_target", "picked = learner.lm_id")
    checker.findings_in(helpers, text)
    assert through not in [f.fingerprint for f in checker.findings_in(learner).reported]


def test_many_flows_are_traced_together_builders_first_then_their_helpers(project, monkeypatch, traced):
    # Asked for one by one, a large project's builders and helpers would be traced one
    # by one; read ahead, each step's files go to the workers together.
    expected = check(project, cached=False)
    forget(monkeypatch)
    traced.clear()
    batches = batched_flows(monkeypatch)
    assert check(project, cached=False) == expected
    # The builders naming the event base were traced as they were parsed: the others
    # go first, then the helpers, every return value of theirs at once.
    builders = [
        ("leaks.runtime.overrides", False),
        ("leaks.runtime.rebound_getattr", False),
        ("leaks.runtime.traps", False),
        ("leaks.runtime.unions", False),
    ]
    assert batches == [builders, [("leaks.runtime.helpers", True)]]
    assert sorted(traced) == BUILDERS_AND_HELPERS  # none twice


def test_a_builder_whose_helper_another_module_calls_is_traced_again_with_the_helpers(project, monkeypatch, traced):
    helper_in_a_builder(project)
    batches = batched_flows(monkeypatch)
    found = check(project, cached=False)
    assert THROUGH_FIRST in found
    # first.py, traced in part as it was parsed, goes whole with the helpers' step.
    assert ("leaks.runtime.first", True) in batches[-1]
    assert traced.count("leaks.runtime.first") == 2


@pytest.mark.parametrize(
    ("source", "traced_at_once"),
    [
        (b"made = CharField(max_length=3)\n", True),  # a subclass, by the base's name
        (b"made = CharField(\n    max_length=3,\n)\n", True),
        (b"emit_event(kind=made)\n", True),
        (b"emit_event(made)\n", False),  # no keyword: nothing DOM105 follows
        (b"made = CharField()\n", False),
        (b"if CharField(max_length=3) == other:\n    pass\n", True),
        (b"if isinstance(made, Field):\n    made = Field(kind=3)\n", True),  # not the first mention
        (b"made = CharField(_('name'), max_length=3)\n", False),  # missed: traced when asked
        (b"class Moved(\n    Mixin,\n    models.Field,\n):\n    pass\n", True),
        (b'"""A Field, described."""\n', False),
        (b"if isinstance(value, Field):\n    pass\n", False),
        (b"from models import (\n    Field,\n)\n", False),
        (b"nothing of the kind\n", False),
    ],
)
def test_a_file_is_traced_as_it_is_parsed_when_it_names_a_hint_as_a_callee_with_keywords_or_a_base(
    source, traced_at_once
):
    # Only a hint: a file it passes by is traced when asked for its flow facts.
    assert index_module._may_build((b"Field", b"emit_event"), source) is traced_at_once
    assert index_module._may_build((b"",), source)  # every file, when asked for all


def _one_expression(names: tuple[bytes, ...], data: bytes) -> bool:
    """What :func:`_may_build` answers, as one regular expression says it (slower)."""
    mentioned = [re.escape(name) for name in names if name in data]
    if not mentioned:
        return False
    either = b"|".join(mentioned)
    pattern = rb"(?:%s)\w*\s*\([^()]*?\b[A-Za-z_]\w*\s*=(?!=)|\bclass\s+\w+\s*\([^:]*?(?:%s)" % (either, either)
    return re.search(pattern, data) is not None


_PIECES = [
    *(b"class Moved(", b"Mixin, ", b"Field", b"CharField", b"emit_event", b"(", b")", b"kind=", b"=", b"=="),
    *(b" ", b"\n", b":", b",", b"x", b"aa", b"a", b"_"),
]
# Names as a configuration gives them (identifiers), some inside others or themselves.
_NAMES = st.lists(st.sampled_from(["Field", "CharField", "emit_event", "a", "aa", "aaa", "_", "x_"]), min_size=1)


@settings(max_examples=500, deadline=None)
@given(_NAMES, st.lists(st.sampled_from(_PIECES), max_size=16))
@example(["emit_event", "Field"], [b"emit_event", b" ", b"Field", b"(", b"kind="])  # the second name builds
@example(["aa", "a"], [b"aa", b"a", b"(", b"kind="])  # one name inside another
def test_looking_where_a_name_occurs_answers_as_the_one_expression_does(names, pieces):
    data, hints = b"".join(pieces), tuple(name.encode() for name in names)
    assert index_module._may_build(hints, data) is _one_expression(hints, data)


def test_a_file_traced_as_it_was_parsed_for_other_callees_is_traced_again_for_the_ones_it_builds(
    project, monkeypatch, traced
):
    # Traced as it was parsed (it names the event base), before the event classes are
    # known: the keywords given to the classes (capitalized) and to the hinted names.
    # It builds an event of a lowercase class, whose keywords were not traced then.
    (project / "leaks" / "runtime" / "lowercase.py").write_text(
        "from leaks.runtime.events import Event, Recognized\n\n\n"
        "class telemetry_record(Event):\n    label: str = ''\n\n\n"
        "def step(self):\n"
        "    Recognized(lm_id=self.lm_id)\n"
        "    return telemetry_record(label=self.primary_target)\n",
        encoding="utf-8",
    )
    settle(project)
    found = check(project, cached=False)
    assert "DOM105:leaks.runtime.lowercase:step:telemetry_record(label)<-primary_target" in found
    assert traced.count("leaks.runtime.lowercase") == 2
    # The second trace covers both: a later process finds it in the cache as it is.
    forget(monkeypatch)
    traced.clear()
    assert check(project) == found
    assert traced.count("leaks.runtime.lowercase") == 2
    forget(monkeypatch)
    traced.clear()
    assert check(project) == found
    assert traced == []

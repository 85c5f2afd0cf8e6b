"""On generated projects, tracing flow facts only where an event may be built (and in
the helpers called from there) reports what tracing every module reports: the same
DOM105 findings, and the same everything else."""

from __future__ import annotations

import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import write_tree

from domain_fence.core.families.vocabulary.derived import DerivedValues
from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

CONFIG = """\
[importlinter]
root_package = app
contract_types =
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract

[importlinter:contract:events]
name = events
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.base.Event
words =
    episode
    primary target
emit_functions =
    *.emit_event
"""

MODULES = ["a", "b", "c"]
BASES = ["Event", "alias.Event", "base.Event", "Renamed", "Sub_a", "Plain"]
CALLEES = [*BASES, "dict", "make"]
VALUES = [
    "self.primary_target",
    "self.lm_id",
    "helper(self)",
    "util.get_episode(self)",
    "self.summary()",
    "1",
    "episode",
]
IMPORTS = [
    "from app.runtime.base import Event",
    "import app.runtime.base as alias",
    "from app.runtime import base",
    "from app.shared import util",
    "import functools",
    *(f"from app.runtime.{m} import Sub_{m} as Renamed" for m in MODULES),
    *(f"from app.runtime.{m} import helper" for m in MODULES),
    *(f"from app.runtime.{m} import *" for m in MODULES),
]

field_name = st.sampled_from(["label", "lm_id", "count"])
# Events built other than by calling the class by name (facts.ConstructionFact).
CONSTRUCTIONS = [
    "{callee}.model_construct({name}={value})",
    '{callee}.model_validate({{"{name}": {value}}})',
    "functools.partial({callee}, {name}={value})",
]
value = st.sampled_from(VALUES)
snippet = st.one_of(
    st.sampled_from(IMPORTS),
    st.builds(
        lambda module, base, name, default: f"class Sub_{module}({base}):\n    {name}: int = {default}",
        st.sampled_from(MODULES),
        st.sampled_from(BASES),
        field_name,
        st.sampled_from(["0", "EPISODE_COUNT", "util.primary_target()"]),
    ),
    st.builds(
        lambda callee, name, value: f"def build(self, episode):\n    return {callee}({name}={value})",
        st.sampled_from(CALLEES),
        field_name,
        value,
    ),
    st.builds(
        lambda callee, name, value: (
            f"def assemble(self, episode):\n    made = {callee}()\n    made.{name} = {value}\n    return made"
        ),
        st.sampled_from(CALLEES),
        field_name,
        value,
    ),
    st.builds(
        lambda construction, callee, name, value: (
            f"def built(self, episode):\n    return {construction.format(callee=callee, name=name, value=value)}"
        ),
        st.sampled_from(CONSTRUCTIONS),
        st.sampled_from(CALLEES),
        field_name,
        value,
    ),
    st.builds(
        lambda module, base, name, value: (
            f"class Sub_{module}({base}):\n    @classmethod\n    def make(cls, episode):\n"
            f"        return cls({name}={value})"
        ),
        st.sampled_from(MODULES),
        st.sampled_from(BASES),
        field_name,
        value,
    ),
    st.builds(lambda value: f"def send(self, episode):\n    telemetry.emit_event(label={value})", value),
    st.builds(  # values given by position, to an event or an emit function
        lambda callee, value: f"def given(self, episode):\n    return {callee}(self.lm_id, {value})",
        st.sampled_from([*CALLEES, "telemetry.emit_event"]),
        value,
    ),
    st.builds(  # the keys of a local dict unpacked into a call
        lambda callee, name, value: (
            f"def unpacked(self, episode):\n    payload = {{'{name}': {value}}}\n    return {callee}(**payload)"
        ),
        st.sampled_from([*CALLEES, "telemetry.emit_event"]),
        field_name,
        value,
    ),
    st.builds(
        lambda value: f"def helper(learner):\n    return learner.{value}", st.sampled_from(["primary_target", "x"])
    ),
    st.builds(lambda base: f"Renamed = {base}", st.sampled_from(BASES)),
    st.just("class Plain:\n    episode: int = 0"),
    st.just(
        "class Learner(Plain):\n    def summary(self):\n        return self.primary_target\n"
        "    def step(self):\n        return Event(label=self.summary())"
    ),
)
module_source = st.lists(snippet, max_size=6).map(lambda parts: "\n".join(parts) + "\n")
UTIL = "def get_episode(learner):\n    return learner.episode\n\n\ndef primary_target():\n    return 1\n"


def write_project(root: Path, sources: dict[str, str]) -> None:
    files = {
        ".importlinter": CONFIG,
        "app/__init__.py": "",
        "app/runtime/__init__.py": "",
        "app/runtime/base.py": "class Event:\n    pass\n",
        "app/shared/__init__.py": "",
        "app/shared/util.py": UTIL,
        **{f"app/runtime/{name}.py": source for name, source in sources.items()},
    }
    write_tree(root, files)


def findings(root: Path) -> list[tuple[str, int, int, str, str]]:
    configuration = load_configuration(root / ".importlinter")
    configuration.cache_dir = None
    engine = engine_for(configuration)
    return sorted(
        (f.path, f.line, f.col, f.code, f.message)
        for spec in engine.contracts
        for f in engine.check_contract(spec).findings
    )


@settings(max_examples=60, deadline=timedelta(seconds=20), suppress_health_check=[HealthCheck.too_slow])
@given(sources=st.fixed_dictionaries(dict.fromkeys(MODULES, module_source)))
def test_tracing_where_events_may_be_built_finds_what_tracing_everything_finds(sources):
    root = Path(tempfile.mkdtemp(prefix="flows-"))
    try:
        write_project(root, sources)
        on_demand = findings(root)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(DerivedValues, "may_build_events", lambda self, module, events: True)
            everywhere = findings(root)
        assert on_demand == everywhere
    finally:
        shutil.rmtree(root)


def test_the_generated_projects_reach_every_kind_of_sink(tmp_path: Path):
    """The strategies can build what the property is about: each kind of DOM105 sink."""
    write_project(
        tmp_path,
        {
            "a": "from app.runtime.base import Event\nclass Sub_a(Event):\n    label: int = EPISODE_COUNT\n",
            "b": "import app.runtime.base as alias\n"
            "def assemble(self, episode):\n    made = alias.Event()\n    made.label = self.primary_target\n",
            "c": "from app.shared import util\nfrom app.runtime.a import Sub_a as Renamed\n"
            "def build(self, episode):\n    return Renamed(count=util.get_episode(self))\n"
            "def send(self, episode):\n    telemetry.emit_event(label=self.primary_target)\n"
            "def built(self, episode):\n    return Renamed.model_construct(count=self.primary_target)\n"
            "def unpacked(self, episode):\n    payload = {'label': self.primary_target}\n    return Renamed(**payload)\n"
            "def given(self, episode):\n    return Renamed(self.lm_id, self.primary_target)\n",
        },
    )
    found = [(path, code) for path, _, _, code, _ in findings(tmp_path) if code == "DOM105"]
    assert found == [
        ("app/runtime/a.py", "DOM105"),
        ("app/runtime/b.py", "DOM105"),
        ("app/runtime/c.py", "DOM105"),
        ("app/runtime/c.py", "DOM105"),
        ("app/runtime/c.py", "DOM105"),
        ("app/runtime/c.py", "DOM105"),
        ("app/runtime/c.py", "DOM105"),
    ]

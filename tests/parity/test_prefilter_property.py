"""The vocabulary contracts read only the files whose bytes may hold a finding
(``families.vocabulary.prefilter``): on generated projects, what they report is what
they report when they read every covered file.

The projects mix what leads a name to an event class: subclasses in other modules and
outside the contract's modules, import aliases, module-level aliases, module aliases
(``import app.runtime.base as basemod``), star imports, emit functions (imported,
re-exported, or defined and called in the module: the keywords and kinds given to
them are DOM104's and DOM103's, a kind given by position too), functions no
configuration names that build an event from their own ``**`` parameter (emit
functions all the same, called from modules that name no event), values given by
position (DOM105); and what the declaration scopes report: parameters
and attributes named in any case and plural, fields named in strings, files that
cannot be parsed, bytes that are not ASCII.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support import write_tree

from domain_fence.core.families.vocabulary import prefilter
from domain_fence.core.families.vocabulary.events import VocabularyChecker
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
emit_functions =
    app.runtime.base.emit
    *.emit_here
words =
    episode
    primary target
    mode
    entry

[importlinter:contract:census]
name = census
type = vocabulary
modules =
    app.runtime
scope =
    attributes
    parameters
    definitions
words =
    episode
    target
    entry

[importlinter:contract:mixed]
name = mixed
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.base.Event
scope =
    events
    parameters
words =
    primary target
    step

[importlinter:contract:reexported]
name = reexported
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.reexport.Reexported
words =
    episode

[importlinter:contract:patterns]
name = patterns
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime:Tele.*
words =
    episode
"""

RUNTIME = ["a", "b", "c", "d"]
OTHERS = {"experiment": "x", "shared": "s"}  # outside the contracts' modules
MODULES = [*(f"app.runtime.{m}" for m in RUNTIME), *(f"app.{p}.{m}" for p, m in OTHERS.items())]
CLASSES = ["Rec", "Step", "Thing"]
ALIASES = ["Alias", "Other"]
IDENTIFIERS = [
    "lm_id",
    "episode",
    "primary_target",
    "numEpisodes",
    "EPISODE_LEN",
    "entries",
    "mode",
    "model",
    "targets",
]

# Functions that build what they are given (an event, or a class that is none) from
# their own ``**values``: emit functions when it is an event (see facts.EmitterFact).
HELPERS = ["relay", "send_now"]

names = st.sampled_from(CLASSES)
aliases = st.sampled_from(ALIASES)
helpers = st.sampled_from(HELPERS)
modules = st.sampled_from(MODULES)
identifiers = st.sampled_from(IDENTIFIERS)
# A name and the import that binds it: each snippet brings what it refers to, so that
# most resolve (to an event, or to a class that is none).
referred = st.one_of(
    st.just(("Event", "from app.runtime.base import Event")),
    st.just(("basemod.Event", "import app.runtime.base as basemod")),
    st.just(("base.Event", "from app.runtime import base")),
    st.just(("emit", "from app.runtime.base import emit")),
    st.builds(lambda m, n: (n, f"from {m} import {n}"), modules, names),
    st.builds(lambda m, n, a: (a, f"from {m} import {n} as {a}"), modules, names, aliases),
    st.builds(lambda m, n: (n, f"from {m} import *"), modules, names),
    st.builds(lambda m, n: (f"mm.{n}", f"import {m} as mm"), modules, names),
    names.map(lambda n: (n, "")),  # defined in the module itself, or nowhere
)

snippet = st.one_of(
    st.sampled_from(
        [
            "from typing import TypedDict\nTD = TypedDict('TD', {'epi' 'sode_id': int, 'lm_id': int})",
            "class Slotted:\n    __slots__ = ('epi' 'sode_n',)\n    def f(self):\n        setattr(self, 'tar' 'get_id', 1)",
            "def broken(:",
            "# caf\u00e9",
        ]
    ),
    st.builds(lambda r, a: f"{r[1]}\n{a} = {r[0]}", referred, aliases),
    st.builds(lambda r, n, f: f"{r[1]}\nclass {n}({r[0]}):\n    {f}: int = 0", referred, names, identifiers),
    st.builds("class {}:\n    {} = 1".format, names, identifiers),
    st.builds("class Tele:\n    class {}:\n        {}: int = 0".format, names, identifiers),
    st.builds(lambda r, k: f"{r[1]}\nx = {r[0]}({k}=1)", referred, identifiers),
    # a kind given by keyword (to an event, or an emit function); an emit function the
    # module defines and calls by its bare name
    st.builds(lambda r, k: f"{r[1]}\nx = {r[0]}(kind='{k}')", referred, identifiers),
    st.builds("def emit_here(**values):\n    pass\n\n\ndef go(n):\n    emit_here({}=n)".format, identifiers),
    # built other than by calling the class by name (facts.ConstructionFact)
    st.builds(lambda r, k: f"{r[1]}\nx = {r[0]}.model_validate({{'{k}': 1}})", referred, identifiers),
    # the keys written in a keyword's value, or a JSON literal's (a field's keys too)
    st.builds(lambda r, k: f"{r[1]}\nx = {r[0]}(stats=[{{'{k}': 1}}])", referred, identifiers),
    st.builds(lambda r, k: f'{r[1]}\nx = {r[0]}.model_validate_json(\'{{"s": {{"{k}": 1}}}}\')', referred, identifiers),
    st.builds(
        lambda r, n, k: f"{r[1]}\nclass {n}({r[0]}):\n    @classmethod\n    def make(cls):\n        return cls({k}=1)",
        referred,
        names,
        identifiers,
    ),
    st.builds(lambda r, k: f"{r[1]}\ndef g(o):\n    return {r[0]}(label=o.{k})", referred, identifiers),
    # the keys of a local dict unpacked into a call; a kind given by position to a dataclass
    st.builds(
        lambda r, k: f"{r[1]}\ndef h(n):\n    payload = {{'{k}': n}}\n    return {r[0]}(**payload)",
        referred,
        identifiers,
    ),
    st.builds(
        lambda r, n: f"{r[1]}\nimport dataclasses\n@dataclasses.dataclass\nclass {n}({r[0]}):\n    kind: str = ''",
        referred,
        names,
    ),
    st.builds(lambda r: f"{r[1]}\nx = {r[0]}('episode_end')", referred),
    # values given by position (DOM105); a kind given by position to an emit function
    # whose first parameter is the kind (base.emit's, DOM103)
    st.builds(lambda r, k: f"{r[1]}\ndef p(o):\n    return {r[0]}(o.lm_id, o.{k})", referred, identifiers),
    st.builds("def f({}): ...".format, identifiers),
    # a function building what it refers to from its own ``**values`` (passing its kind
    # parameter on, or not), and its calls: imported, under an alias, or by its bare name
    st.builds(
        lambda r, h: f"{r[1]}\ndef {h}(kind='', **values):\n    return {r[0]}(kind=kind, **values)", referred, helpers
    ),
    st.builds(
        lambda r, h: f"{r[1]}\ndef {h}(kind, **values):\n    return {r[0]}.model_validate(values)", referred, helpers
    ),
    st.builds(
        lambda m, h, k: f"from {m} import {h}\ndef go_{h}(o):\n    {h}('episode_end', {k}=o.{k})",
        modules,
        helpers,
        identifiers,
    ),
    st.builds(
        lambda m, h, a, k: f"from {m} import {h} as {a}\ndef via_{a}(n):\n    {a}(kind='mode_{k}', **{{'{k}': n}})",
        modules,
        helpers,
        aliases,
        identifiers,
    ),
    st.builds(lambda h, k: f"def call_{h}(o):\n    {h}({k}=o.{k})", helpers, identifiers),
    st.builds("class Holder:\n    def __init__(self):\n        self.{} = 1".format, identifiers),
)
module_source = st.lists(snippet, max_size=4).map(lambda parts: "\n".join(parts) + "\n")


def write_project(root: Path, sources: dict[str, str]) -> None:
    files = {
        ".importlinter": CONFIG,
        "app/__init__.py": "",
        "app/runtime/__init__.py": "",
        "app/runtime/base.py": "class Event:\n    pass\n\n\ndef emit(kind='', **values):\n    pass\n",
        "app/runtime/reexport.py": "from app.runtime.base import Event as Reexported\n",
        "app/experiment/__init__.py": "",
        "app/shared/__init__.py": "",
        **{f"{module.replace('.', '/')}.py": source for module, source in sources.items()},
    }
    write_tree(root, files)


def reported(root: Path) -> list[tuple[str, str, int, int, str, str]]:
    with pytest.MonkeyPatch.context() as patch:
        # Filter however many files mention a name (the tree is small: most do).
        patch.setattr(prefilter, "GIVE_UP_SHARE", 0)
        return _reported(root)


def _reported(root: Path) -> list[tuple[str, str, int, int, str, str]]:
    configuration = load_configuration(root / ".importlinter")
    configuration.cache_dir = None
    engine = engine_for(configuration)
    return sorted(
        (spec.id, f.path, f.line, f.col, f.code, f.message)
        for spec in engine.contracts
        for f in engine.check_contract(spec).findings
    )


def every_file_read(root: Path) -> list[tuple[str, str, int, int, str, str]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(VocabularyChecker, "accepts", lambda self, module: True)
        return _reported(root)


def project(**sources: str) -> dict[str, str]:
    """Every module, empty but those given (``runtime_b`` for ``app.runtime.b``)."""
    return {module: sources.get(module.split(".", 1)[1].replace(".", "_"), "") for module in MODULES}


EVENT = "from app.runtime.base import Event\n"


@example(  # a class outside the contract derives from an event: constructing it names only it
    sources=project(
        experiment_x=EVENT + "class Thing(Event):\n    pass\n",
        runtime_b="from app.experiment.x import Thing\nx = Thing(episode=1)\n",
    )
).via("a subclass's name")
@example(  # a name bound to an event class, then derived from elsewhere
    sources=project(
        runtime_a=EVENT + "Alias = Event\n",
        runtime_c="from app.runtime.a import Alias\nclass Rec(Alias):\n    episode: int = 0\n",
    )
).via("a module-level alias")
@example(
    sources=project(
        shared_s="from app.runtime.base import Event as Other\n",
        runtime_d="from app.shared.s import Other\nclass Rec(Other):\n    mode: int = 0\n",
    )
).via("an import alias re-exported")
@example(  # a module alias: the dotted name keeps the class's own name
    sources=project(
        runtime_a=EVENT + "class Rec(Event):\n    pass\n",
        runtime_b="import app.runtime.a as mm\ndef g(o):\n    return mm.Rec(label=o.primary_target)\n",
    )
).via("a module alias")
@example(
    sources=project(
        runtime_b="from typing import TypedDict\nTD = TypedDict('TD', {'epi' 'sode_id': int})\n",
        runtime_c="class Holder:\n    def __init__(self):\n        self.entries = 1\n",
        runtime_d="def broken(:\n",
    )
).via("declarations spelled apart, a plural, a file that cannot be parsed")
@example(
    sources=project(
        runtime_a="class Slotted:\n    __slots__ = ('epi' 'sode_n',)\n",
        runtime_b="class Holder:\n    def f(self):\n        setattr(self, 'tar' 'get_id', 1)\n",
        runtime_c="class Holder:\n    def f(self):\n        object.__setattr__(self, '\\x65pisode', 1)\n",
    )
).via("attributes named in strings spelled apart")
@example(
    sources=project(
        runtime_a="def f(\uff45pisode): ...\n",
        runtime_b="from app.runtime.base import \uff25vent\nx = \uff25vent(episode=1)\n",
    )
).via("identifiers spelled in other scripts")
@example(  # an emit function re-exported under another name: the caller names only that
    sources=project(
        shared_s="from app.runtime.base import emit as send\n",
        runtime_c="from app.shared.s import send\ndef go(n):\n    send(episode=n, kind='episode_end')\n",
    )
).via("an emit function re-exported")
@example(  # a pattern's class part with a dot: the file names each part, not the dotted whole
    sources=project(runtime_c="class Tele:\n    class Step:\n        episode: int = 0\n")
).via("a pattern naming nested classes")
@example(  # a function building an event from its **values, called where no event is named
    sources=project(
        runtime_a=EVENT + "def relay(kind, **values):\n    return Event(kind=kind, **values)\n",
        runtime_b="from app.runtime.a import relay as send\ndef go(o):\n    send('episode_end', lm_id=o.primary_target)\n",
    )
).via("an emit function no configuration names")
@settings(max_examples=150, deadline=timedelta(seconds=20), suppress_health_check=[HealthCheck.too_slow])
@given(sources=st.fixed_dictionaries(dict.fromkeys(MODULES, module_source)))
def test_the_contracts_find_what_reading_every_file_finds(sources):
    root = Path(tempfile.mkdtemp(prefix="prefilter-"))
    try:
        write_project(root, sources)
        assert reported(root) == every_file_read(root)
    finally:
        shutil.rmtree(root)


def test_a_module_calling_an_emit_function_by_a_re_exported_name_is_read(tmp_path):
    sources = project(
        shared_s="from app.runtime.base import emit as send\n",
        runtime_c="from app.shared.s import send\ndef go(n):\n    send(episode=n, kind='episode_end')\n",
    )
    write_project(tmp_path, sources)
    found = reported(tmp_path)
    assert sorted((path, code) for contract, path, _, _, code, _ in found if contract == "events") == [
        ("app/runtime/c.py", "DOM103"),
        ("app/runtime/c.py", "DOM104"),
    ]
    assert found == every_file_read(tmp_path)


def test_a_module_calling_a_function_that_builds_an_event_from_its_keywords_is_read(tmp_path):
    sources = project(
        shared_s=EVENT + "def relay(kind, **values):\n    return Event(kind=kind, **values)\n",
        runtime_c="from app.shared.s import relay\ndef go(o):\n    relay('episode_end', lm_id=o.primary_target)\n",
    )
    write_project(tmp_path, sources)
    found = reported(tmp_path)
    assert sorted((path, code) for contract, path, _, _, code, _ in found if contract == "events") == [
        ("app/runtime/c.py", "DOM103"),
        ("app/runtime/c.py", "DOM105"),
    ]
    assert found == every_file_read(tmp_path)

"""On generated projects, the whole-project check and the file-at-a-time view (what
flake8 and the editor ask) report the same findings: the engine's project check is the
union of its module checks, with the same baseline and noqa rules applied."""

from __future__ import annotations

import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import write_tree

from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

CONFIG = """\
[importlinter]
root_package = app
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract
    placement: domain_fence.integrations.importlinter.PlacementContract

[importlinter:contract:boundary]
name = boundary
type = boundary
source_modules =
    app.runtime
forbidden_modules =
    app.experiment

[importlinter:contract:events]
name = events
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.base.Event
scope =
    events
    attributes
    parameters
words =
    episode
    primary target

[importlinter:contract:placement]
name = placement
type = placement
symbols =
    init_telemetry
allowed_modules =
    app.experiment
"""

RUNTIME = ["a", "b", "c"]
IMPORTABLE = [
    *(f"app.runtime.{name}" for name in RUNTIME),
    "app.shared.util",
    "app.experiment.mode",
]
NAMES = ["lm_id", "episode", "primary_target", "step", "num_episodes"]
NOQA = ["", "  # noqa", "  # noqa: DOM101", "  # noqa: DOM3", "  # noqa: E501"]

line_of = st.one_of(
    st.builds(lambda m, q: f"import {m}{q}", st.sampled_from(IMPORTABLE), st.sampled_from(NOQA)),
    st.builds(
        lambda name, q: f"class E_{name}(Event):\n    {name}: int{q}", st.sampled_from(NAMES), st.sampled_from(NOQA)
    ),
    st.builds(lambda name, q: f"x = Event({name}=1){q}", st.sampled_from(NAMES), st.sampled_from(NOQA)),
    st.builds(lambda name: f"def f_{name}({name}): ...", st.sampled_from(NAMES)),
    st.just("def init_telemetry(): ..."),
    # Across modules: an event only while module a's class derives from Event.
    st.builds(
        lambda name: f"from app.runtime.a import E_episode\nclass Sub_{name}(E_episode):\n    {name}: int",
        st.sampled_from(NAMES),
    ),
    st.just("class E_episode:\n    episode: int"),
)
module_source = st.lists(line_of, max_size=5).map(
    lambda lines: "from app.runtime.base import Event\n" + "\n".join(lines) + "\n"
)


def write_project(root: Path, sources: dict[str, str], shared_imports_experiment: bool) -> None:
    files = {
        ".importlinter": CONFIG,
        "app/__init__.py": "",
        "app/runtime/__init__.py": "",
        "app/runtime/base.py": "class Event:\n    pass\n",
        "app/shared/__init__.py": "",
        "app/shared/util.py": "import app.experiment.mode\n" if shared_imports_experiment else "",
        "app/experiment/__init__.py": "",
        "app/experiment/mode.py": "",
        **{f"app/runtime/{name}.py": source for name, source in sources.items()},
    }
    write_tree(root, files)


def locations(findings) -> set[tuple[str, int, int, str]]:
    return {(f.path, f.line, f.col, f.code) for f in findings}


@settings(
    max_examples=25,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    sources=st.fixed_dictionaries(dict.fromkeys(RUNTIME, module_source)),
    shared_imports_experiment=st.booleans(),
    edit=st.tuples(st.sampled_from(RUNTIME), module_source),
)
def test_the_project_check_is_the_union_of_the_file_checks(sources, shared_imports_experiment, edit):
    root = Path(tempfile.mkdtemp(prefix="parity-"))
    try:
        write_project(root, sources, shared_imports_experiment)
        configuration = load_configuration(root / ".importlinter")
        configuration.cache_dir = None
        project = engine_for(configuration)
        whole = locations(f for spec in project.contracts for f in project.check_contract(spec).findings)
        files = [root / "app" / "runtime" / f"{name}.py" for name in [*RUNTIME, "base"]]
        per_file = engine_for(configuration)
        by_file = locations(f for path in files for f in per_file.findings_in(path).reported)
        buffers = engine_for(configuration)
        by_buffer = locations(
            f for path in files for f in buffers.findings_in(path, path.read_text(encoding="utf-8")).reported
        )
        assert whole == by_file == by_buffer
        # An editor's next keystroke, on the engine that checked the last one, reports
        # what a fresh check of the edited project reports.
        edited, text = root / "app" / "runtime" / f"{edit[0]}.py", edit[1]
        after_edit = locations(
            f for path in files for f in buffers.findings_in(path, text if path == edited else None).reported
        )
        edited.write_text(text, encoding="utf-8")
        fresh = engine_for(configuration)
        assert after_edit == locations(f for spec in fresh.contracts for f in fresh.check_contract(spec).findings)
    finally:
        shutil.rmtree(root)


def test_an_edit_that_changes_a_hierarchy_is_seen_by_the_other_modules(tmp_path: Path):
    sources = {
        "a": "from app.runtime.base import Event\nclass E_episode(Event):\n    lm_id: int\n",
        "b": "from app.runtime.a import E_episode\nclass Sub(E_episode):\n    episode: int\n",
        "c": "",
    }
    write_project(tmp_path, sources, False)
    configuration = load_configuration(tmp_path / ".importlinter")
    configuration.cache_dir = None
    engine = engine_for(configuration)
    a, b = tmp_path / "app/runtime/a.py", tmp_path / "app/runtime/b.py"
    assert [f.code for f in engine.findings_in(b).reported] == ["DOM101"]
    # A keystroke that keeps a's hierarchy keeps the answer, and costs one module.
    engine.findings_in(a, sources["a"] + "\n# a comment\n")
    assert [f.code for f in engine.findings_in(b).reported] == ["DOM101"]
    # One that makes a's class no event: b's subclass is no event either, and its field
    # is a plain attribute (the census scope's DOM111).
    engine.findings_in(a, "class E_episode:\n    lm_id: int\n")
    assert [f.code for f in engine.findings_in(b).reported] == ["DOM111"]

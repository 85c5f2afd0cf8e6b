"""Event hierarchies include their mixins: the fields of every class an event
inherits from (pydantic, dataclass, attrs or plain annotations). A mixin the contract
covers is reported once where it is declared, naming the event that receives it; a
class from a module it does not cover (experiment code) is reported where a covered
class inherits it. A mixin's name is checked like an event's. Annotated fixture files,
in-process and through flake8, lint-imports and ``domain-fence check``."""

from __future__ import annotations

import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from fixture_expectations import expectations, unmet
from support import FIXTURES, run_tool

from domain_fence.core.families.vocabulary.events import all_vocabulary_findings
from domain_fence.core.index.project import ProjectIndex
from domain_fence.integrations.importlinter.configuration import load_configuration

TREE = FIXTURES / "vocabulary" / "mixins"
FLAKE8_PLUGIN_INSTALLED = any(ep.name == "DOM" for ep in entry_points(group="flake8.extension"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "mixins"
    shutil.copytree(TREE, target, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    return target


def findings(root: Path):
    [contract] = load_configuration(root / ".importlinter").contracts()
    return all_vocabulary_findings(contract.config, ProjectIndex.build(root, ["mixed"], cache_dir=None))


def expected(root: Path) -> dict[str, list]:
    return {path.relative_to(root).as_posix(): expectations(path) for path in sorted(root.rglob("*.py"))}


def test_mixin_fields_and_names_match_the_annotations(project):
    found = findings(project)
    for path, wanted in expected(project).items():
        reported = [(f.line, f.code, f.col) for f in found if f.path == path]
        missing, unexpected = unmet(wanted, reported)
        assert not missing and not unexpected, (path, missing, unexpected)
    assert sum(len(w) for w in expected(project).values()) == 19


def test_a_mixin_field_names_the_event_receiving_it_once(project):
    messages = [f.describe() for f in findings(project)]
    mode = "DOM101 event field 'mode' (inherited by AnotherMatchEvent): experiment vocabulary 'mode'"
    assert f"mixed/context.py:17:5: {mode}" in messages
    assert (
        "mixed/context.py:16:1: DOM102 event class EpisodeContext (mixin of AnotherMatchEvent): experiment "
        "vocabulary 'episode'" in messages
    )
    assert sum("'mode'" in m for m in messages) == 1
    fingerprints = {f.fingerprint for f in findings(project)}
    assert "DOM101:mixed.context:EpisodeContext.mode" in fingerprints
    assert "DOM101:mixed.context:RunContext.epoch" in fingerprints  # a mixin's own mixin
    # A kind a mixin's method sets on its instance: the event's kind too.
    assert (
        "mixed/context.py:28:21: DOM103 event kind 'EpochTimed' (set in __post_init__) (inherited by TimedEvent): "
        "experiment vocabulary 'epoch'" in messages
    )
    assert "DOM103:mixed.context:TimingMixin.__post_init__:TimingMixin[self](kind='EpochTimed')" in fingerprints
    assert "DOM101:mixed.seeds:SeedMixin.step_seed" in fingerprints  # covered, reached through experiment code


def test_what_experiment_code_lends_is_reported_where_a_runtime_class_inherits_it(project):
    found = findings(project)
    assert not [f for f in found if f.path.startswith("mixed/experiment/")]
    messages = [f.describe() for f in found]
    assert (
        "mixed/telemetry/events.py:29:1: DOM101 event field 'episode_total' (inherited from ExperimentOnly): "
        "experiment vocabulary 'episode'" in messages
    )
    assert (
        "mixed/replay.py:14:1: DOM102 event class ExperimentStats (base of StatsEvent): experiment vocabulary "
        "'experiment'" in messages
    )
    fingerprints = {f.fingerprint for f in found}
    # Named by the inheriting class and the finding in the class it inherits, by that
    # class's name: moved to another experiment module, its entries stay.
    assert "DOM101:mixed.telemetry.events:TimedEvent(ExperimentOnly.episode_total)" in (fingerprints)
    assert "DOM101:mixed.replay:StatsEvent(EpochCounter.epoch_count)" in fingerprints
    assert "DOM101:mixed.context:CountingMixin(EpochCounter.epoch_count)" in fingerprints
    # The event inheriting the covered mixin that inherits experiment code: nothing more.
    assert not [f for f in found if f.fingerprint.startswith("DOM101:mixed.replay:CountedEvent")]


def test_a_noqa_on_the_inheriting_class_silences_what_it_borrows(project):
    replay = project / "mixed" / "replay.py"
    text = replay.read_text()
    replay.write_text(text.replace("Quiet):  # DOM101:0,DOM101:0,DOM102:0,DOM102:0", "Quiet):  # noqa: DOM101"))
    check = run_tool("domain-fence", "check", cwd=project)
    assert check.returncode == 1, check.output
    assert [line.split(" DOM")[1][:3] for line in check.stdout.splitlines() if "mixed/replay.py" in line] == [
        "102",
        "102",
    ]


def test_every_front_end_reports_the_mixin_fields(project):
    lines = sorted(f.describe() for f in findings(project))
    check = run_tool("domain-fence", "check", cwd=project)
    assert check.returncode == 1, check.output
    lint = run_tool("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == 1, lint.output
    for line in lines:
        assert "  " + line in check.stdout.splitlines(), line
        assert line in lint.stdout.splitlines(), line
    if FLAKE8_PLUGIN_INSTALLED:
        flake8 = run_tool("flake8", "--select", "DOM", "mixed", cwd=project)
        assert flake8.returncode == 1
        assert sorted(flake8.stdout.splitlines()) == lines


def test_a_lent_mixin_moved_within_experiment_code_keeps_its_baseline_entries(project):
    recorded = run_tool("domain-fence", "baseline", cwd=project)
    assert recorded.returncode == 0, recorded.output
    stats = project / "mixed" / "experiment" / "stats.py"
    moved = "class ExperimentOnly:\n    episode_total: int\n"
    assert moved in stats.read_text()
    stats.write_text(stats.read_text().replace(moved, ""))
    (project / "mixed" / "experiment" / "only.py").write_text(moved)
    events = project / "mixed" / "telemetry" / "events.py"
    events.write_text(
        events.read_text().replace("experiment.stats import ExperimentOnly", "experiment.only import ExperimentOnly")
    )
    check = run_tool("domain-fence", "check", cwd=project)
    assert check.returncode == 0, check.output


def test_two_lent_mixins_of_one_name_are_told_apart(project):
    for name in ("a", "b"):
        (project / "mixed" / "experiment" / f"{name}.py").write_text("class Lent:\n    episode_total: int\n")
    (project / "mixed" / "twins.py").write_text(
        "from mixed.experiment import a, b\nfrom mixed.telemetry.events import TelemetryEvent\n\n\n"
        "class TwinEvent(TelemetryEvent, a.Lent, b.Lent):\n    pass\n"
    )
    messages = [f.describe() for f in findings(project) if f.path == "mixed/twins.py"]
    assert messages == [
        f"mixed/twins.py:5:1: DOM101 event field 'episode_total' (inherited from mixed.experiment.{name}.Lent): "
        "experiment vocabulary 'episode'"
        for name in ("a", "b")
    ]

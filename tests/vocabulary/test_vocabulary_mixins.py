"""Event hierarchies include their mixins: the fields of every class an event
inherits from (pydantic, dataclass, attrs or plain annotations), reported once where
they are declared and naming the event that receives them; a mixin's name is
checked like an event's. Annotated fixture files, in-process and through flake8,
lint-imports and ``domain-fence check``."""

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
    assert sum(len(w) for w in expected(project).values()) == 12


def test_a_mixin_field_names_the_event_receiving_it_once(project):
    messages = [f.describe() for f in findings(project)]
    mode = "DOM101 event field 'mode' (inherited by AnotherMatchEvent): experiment vocabulary 'mode'"
    assert f"mixed/context.py:15:5: {mode}" in messages
    assert (
        "mixed/context.py:14:1: DOM102 event class EpisodeContext (mixin of AnotherMatchEvent): experiment "
        "vocabulary 'episode'" in messages
    )
    assert sum("'mode'" in m for m in messages) == 1
    fingerprints = {f.fingerprint for f in findings(project)}
    assert "DOM101:mixed.context:EpisodeContext.mode" in fingerprints
    assert "DOM101:mixed.context:RunContext.epoch" in fingerprints  # a mixin's own mixin
    # A kind a mixin's method sets on its instance: the event's kind too.
    assert (
        "mixed/context.py:26:21: DOM103 event kind 'EpochTimed' (set in __post_init__) (inherited by TimedEvent): "
        "experiment vocabulary 'epoch'" in messages
    )
    assert "DOM103:mixed.context:TimingMixin.__post_init__:TimingMixin[self](kind='EpochTimed')" in fingerprints
    assert "DOM101:mixed.experiment.stats:ExperimentOnly.episode_total" in fingerprints


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

"""A class name bound by several class statements (``try``/``except`` and
``if``/``else`` versions of a class): each statement deriving from an event base is
checked, and a name bound to an event in any branch constructs one. Through
``domain-fence check`` and flake8, on an annotated fixture tree."""

from __future__ import annotations

import json
import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from fixture_expectations import expectations, unmet
from support import FIXTURES, run_tool

TREE = FIXTURES / "vocabulary" / "redefined"
SENSORS = "sensed/sensors.py"
FLAKE8_PLUGIN_INSTALLED = any(ep.name == "DOM" for ep in entry_points(group="flake8.extension"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "redefined"
    shutil.copytree(TREE, target, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    return target


def check_findings(project: Path) -> list[dict]:
    result = run_tool("domain-fence", "check", "--format", "json", "--no-cache", cwd=project)
    assert result.returncode == 1, result.output
    [contract] = json.loads(result.stdout)["contracts"]
    return contract["findings"]


def test_check_reports_every_class_statement_of_a_name(project):
    found = check_findings(project)
    missing, unexpected = unmet(
        expectations(project / SENSORS), [(f["line"], f["code"], f["column"] - 1) for f in found]
    )
    assert not missing and not unexpected, (missing, unexpected)


def test_two_classes_of_one_name_have_distinct_stable_fingerprints(project):
    fingerprints = sorted(f["fingerprint"] for f in check_findings(project))
    assert fingerprints == [
        "DOM101:sensed.sensors:SensedEvent.target",
        "DOM102:sensed.sensors:EpochSummary",
        "DOM102:sensed.sensors:EpochSummary#2",
        "DOM104:sensed.sensors:emit:SensedEvent(episode)",
    ]


@pytest.mark.skipif(not FLAKE8_PLUGIN_INSTALLED, reason="the flake8 plugin is not installed")
def test_flake8_reports_the_same(project):
    result = run_tool("flake8", "--select", "DOM", "sensed", cwd=project)
    assert result.returncode == 1, result.output
    reported = []
    for line in result.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        assert path.removeprefix("./") == SENSORS, line
        reported.append((int(row), rest.split()[0], int(col) - 1))
    missing, unexpected = unmet(expectations(project / SENSORS), reported)
    assert not missing and not unexpected, (missing, unexpected)

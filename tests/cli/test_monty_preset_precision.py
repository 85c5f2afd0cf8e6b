"""The Monty preset, measured on tbp-monty 0.55.0: every finding ``init --preset monty``
records there is classified in tests/data (true or false positive), and the preset
stays within its false-positive budget.

The tree is tests/fixtures/cli/monty_distilled: the real sdist distilled by
scripts/distill_monty.py to what the contracts read (imports, the declarations that
use the vocabulary or bare ``target``/``step``, the schemas, event constructions),
so its findings carry the fingerprints the preset records on the real tree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import REPO, copy_fixture, domain_fence

CLASSIFICATION = json.loads((REPO / "tests/data/monty-0.55-classification.json").read_text())["entries"]
# Measured with this preset: 104 findings recorded, all true positives.
FALSE_POSITIVES = 0
MAX_SHARE = 0.05


@pytest.fixture
def monty(tmp_path: Path) -> Path:
    return copy_fixture("monty_distilled", tmp_path)


def recorded(project: Path) -> list[str]:
    entries = json.loads((project / ".domain-fence-baseline.json").read_text())["entries"]
    return sorted(entry["fingerprint"] for entry in entries)


def false_positives(fingerprints: list[str]) -> list[str]:
    unclassified = [f for f in fingerprints if f not in CLASSIFICATION]
    assert not unclassified, f"classify these in tests/data/monty-0.55-classification.json: {unclassified}"
    return [f for f in fingerprints if CLASSIFICATION[f]["verdict"] == "false positive"]


def test_the_preset_on_monty_records_only_classified_findings_within_budget(monty):
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 0, result.stderr
    fingerprints = recorded(monty)
    wrong = false_positives(fingerprints)
    assert len(wrong) <= FALSE_POSITIVES, wrong
    assert len(wrong) <= MAX_SHARE * len(fingerprints)
    assert len(fingerprints) == 104
    check = domain_fence("check", cwd=monty)
    assert check.returncode == 0, check.stdout
    assert "warning" not in check.stdout  # no telemetry yet: the symbols that name it are not typos
    assert (
        "DOM104:tbp.monty.frameworks.models.monty_base:MontyBase.update_step_counters:TelemetryEvent(matching_steps)"
        in (fingerprints)
    )


def test_bare_target_in_the_census_would_break_the_budget(monty):
    """The classification bites: the old preset's bare ``target`` flags motor and
    model targets (``_pad_to_target_length(target_length)``, ``target_fm``)."""
    assert domain_fence("init", "--preset", "monty", cwd=monty).returncode == 0
    config = monty / ".importlinter"
    census = "[importlinter:contract:runtime-holds-no-experiment-knowledge]"
    head, _, tail = config.read_text().partition(census)
    config.write_text(head + census + tail.replace("words =\n", "words =\n    target\n", 1))
    assert domain_fence("baseline", cwd=monty).returncode == 0
    wrong = false_positives(recorded(monty))
    assert len(wrong) == 8
    assert (
        "DOM112:tbp.monty.frameworks.models.buffer:FeatureAtLocationBuffer._pad_to_target_length(target_length)"
        in wrong
    )

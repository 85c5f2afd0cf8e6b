"""The census codes (DOM111-DOM113) end to end: a contract's `scope` decides, and real
`flake8`, `lint-imports` and `domain-fence check` report what it asks for (flake8's own
selection can still remove a code); the baseline ratchets them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import annotated, reported
from support import FIXTURES, run_tool

LEAKY = FIXTURES / "vocabulary" / "scope" / "leaky"
LEGACY = "minimonty/frameworks/models/legacy_lm.py"
CENSUS = "Runtime attributes and parameters carry no experiment vocabulary"


@pytest.fixture
def leaky(minimonty_copy: Path) -> Path:
    shutil.copytree(LEAKY, minimonty_copy, dirs_exist_ok=True)
    return minimonty_copy


def flake8(project: Path, *args: str):
    return run_tool("flake8", *args, "minimonty", cwd=project)


def test_the_annotations_cover_the_contract_scope():
    assert {code for *_, code in annotated(LEAKY)} == {"DOM111", "DOM112"}


def test_flake8_reports_what_the_scope_asks_for(leaky):
    result = flake8(leaky, "--select", "DOM")
    assert result.returncode == 1, result.output
    found = reported(result.stdout)
    assert {r[:4] for r in found} == annotated(LEAKY) and len(found) == len(annotated(LEAKY))
    assert f"{LEGACY}:32:9: DOM111 attribute LegacyLM.primary_target: experiment vocabulary 'primary target'" in (
        result.stdout.splitlines()
    )
    assert (
        f"{LEGACY}:25:36: DOM112 parameter 'min_train_steps' of LegacyLM.__init__: experiment vocabulary 'train'"
        in (result.stdout.splitlines())
    )
    # flake8's default selection is the same: the plugin ignores none of its codes.
    plain = flake8(leaky)
    assert sorted(r for r in reported(plain.stdout) if r[3].startswith("DOM")) == sorted(found)


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (("--select", "DOM11"), {"DOM111", "DOM112"}),
        (("--select", "DOM", "--extend-ignore", "DOM111"), {"DOM112"}),
        (("--select", "DOM2"), set()),
    ],
)
def test_flake8_selection_can_still_remove_codes(leaky, args, codes):
    assert {r[3] for r in reported(flake8(leaky, *args).stdout)} == codes


def test_a_contract_without_the_scope_reports_no_census_code(leaky):
    config = leaky / ".importlinter"
    config.write_text(config.read_text().replace("    attributes\n    parameters\n", "    events\n"))
    assert {r[3] for r in reported(flake8(leaky, "--select", "DOM").stdout)} & {"DOM111", "DOM112"} == set()


def test_lint_imports_reports_what_the_scope_asks_for(leaky):
    linted = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert linted.returncode == 1, linted.output
    assert f"{CENSUS} BROKEN" in linted.stdout
    assert "Runtime events carry no experiment vocabulary KEPT" in linted.stdout
    everything = flake8(leaky, "--select", "DOM")
    assert sorted(reported(linted.stdout)) == sorted(reported(everything.stdout))


def test_the_baseline_ratchets_the_census(leaky):
    recorded = run_tool("domain-fence", "baseline", cwd=leaky)
    assert recorded.returncode == 0, recorded.output
    assert run_tool("lint-imports", "--no-logo", cwd=leaky).returncode == 0
    selected = ("--select", "DOM")
    assert (flake8(leaky, *selected).returncode, flake8(leaky, *selected).stdout) == (0, "")

    # A new leak in a runtime module fails; moving the old ones does not.
    legacy = leaky / LEGACY
    legacy.write_text(
        "# moved down\n\n" + legacy.read_text().replace("        self.stepwise_target_object = None  # DOM111:8\n", "")
    )
    (leaky / "minimonty/frameworks/models/tracker.py").write_text(
        "class Tracker:\n    def __init__(self) -> None:\n        self.primary_target = None\n"
    )
    linted = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert linted.returncode == 1
    assert reported(linted.stdout) == [
        (
            "minimonty/frameworks/models/tracker.py",
            3,
            9,
            "DOM111",
            "attribute Tracker.primary_target: experiment vocabulary 'primary target'",
        )
    ]
    assert (
        "DOM002 baseline entry matches nothing: "
        "DOM111:minimonty.frameworks.models.legacy_lm:LegacyLM.stepwise_target_object"
    ) in linted.stdout
    assert [(r[0], r[3]) for r in reported(flake8(leaky, *selected).stdout)] == [
        ("minimonty/frameworks/models/tracker.py", "DOM111")
    ]

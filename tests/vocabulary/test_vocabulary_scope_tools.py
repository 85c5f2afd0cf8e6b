"""The census codes (DOM111-DOM113) end to end: real `flake8` keeps them off unless
they are selected by name, real `lint-imports` reports what a contract's `scope` asks
for, and the baseline ratchets them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import annotated, reported
from support import FIXTURES, run_tool

from domain_fence.integrations.flake8 import OFF_BY_DEFAULT, opt_in_prefix, opted_in

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


def test_flake8_leaves_the_census_codes_off_by_default(leaky):
    # Selecting DOM, as the usual configurations do, is not asking for them...
    assert (flake8(leaky, "--select", "DOM").returncode, flake8(leaky, "--select", "DOM").output) == (0, "")
    # ...and neither is flake8's default selection.
    assert [r for r in reported(flake8(leaky).stdout) if r[3].startswith("DOM")] == []


def test_flake8_reports_them_when_extend_select_names_them(leaky):
    result = flake8(leaky, "--select", "DOM", "--extend-select", "DOM111,DOM112,DOM113")
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
    # Without --select: flake8's own decision (the plugin extends its default ignore list).
    plain = flake8(leaky, "--extend-select", "DOM111,DOM112,DOM113")
    assert sorted(r for r in reported(plain.stdout) if r[3].startswith("DOM")) == sorted(found)


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (("--select", "DOM11"), {"DOM111", "DOM112"}),
        (("--select", "DOM", "--extend-select", "DOM112"), {"DOM112"}),
        (("--select", "DOM1"), set()),  # DOM1 selects the default vocabulary rules too
    ],
)
def test_only_a_prefix_naming_census_codes_alone_selects_them(leaky, args, codes):
    assert {r[3] for r in reported(flake8(leaky, *args).stdout)} == codes


def test_extend_select_in_the_flake8_configuration(leaky):
    (leaky / ".flake8").write_text("[flake8]\nselect = DOM\nextend-select = DOM111\n")
    assert {r[3] for r in reported(flake8(leaky).stdout)} == {"DOM111"}


def test_lint_imports_reports_what_the_scope_asks_for(leaky):
    linted = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert linted.returncode == 1, linted.output
    assert f"{CENSUS} BROKEN" in linted.stdout
    assert "Runtime events carry no experiment vocabulary KEPT" in linted.stdout
    everything = flake8(leaky, "--select", "DOM", "--extend-select", "DOM111,DOM112,DOM113")
    assert sorted(reported(linted.stdout)) == sorted(reported(everything.stdout))


def test_the_baseline_ratchets_the_census(leaky):
    recorded = run_tool("domain-fence", "baseline", cwd=leaky)
    assert recorded.returncode == 0, recorded.output
    assert run_tool("lint-imports", "--no-logo", cwd=leaky).returncode == 0
    selected = ("--select", "DOM", "--extend-select", "DOM11")
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


def test_the_opt_in_rule_follows_the_registry():
    assert OFF_BY_DEFAULT == ("DOM111", "DOM112", "DOM113")
    assert {opt_in_prefix(code) for code in OFF_BY_DEFAULT} == {"DOM11"}
    assert opted_in(["DOM"]) == opted_in(["DOM1", "E"]) == frozenset()
    assert opted_in(["DOM11"]) == frozenset(OFF_BY_DEFAULT)
    assert opted_in(["DOM", "DOM113"]) == {"DOM113"}

"""The vocabulary census in `domain-fence check`: rendered from hand-built reports, and
end to end on the state the census's baseline ratchet test builds (minimonty with the
leaky learning module, baselined, then one leak fixed and one added)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import REPO, domain_fence
from support import FIXTURES

from domain_fence.core.model.census import Census, Movement, Tally
from domain_fence.core.model.report import ContractResult, Report
from domain_fence.integrations.reporters import RenderOptions, render

LEAKY = FIXTURES / "vocabulary" / "scope" / "leaky"
LEGACY = "minimonty/frameworks/models/legacy_lm.py"
NAME = "Runtime attributes and parameters carry no experiment vocabulary"
ID = "runtime-holds-no-experiment-knowledge"
HEADER = f"{NAME} [{ID}: vocabulary]"

CENSUS_LINES = [
    "  census: 5 findings in 2 modules",
    "    by module:",
    "      4  minimonty.frameworks.models.legacy_lm",
    "      1  minimonty.frameworks.models.tracker",
    "    by word:",
    "      3  primary target",
    "      2  train",
    "    baseline: 5 recorded, 4 still present, 1 fixed since recording, 1 new",
]


def census_report(census: Census) -> Report:
    return Report("/p", ".importlinter", (ContractResult(ID, NAME, "vocabulary", True, census=census),))


def many_modules(count: int) -> Census:
    modules = tuple(Tally(f"pkg.m{n:02}", 12 if n == 0 else 1) for n in range(count))
    findings = sum(t.count for t in modules)
    return Census(findings, modules, (Tally("train", findings),), Movement(findings, findings, 0, 0))


def test_text_lists_ten_modules_unless_verbose():
    census = many_modules(12)
    lines = render(census_report(census), "text").splitlines()
    assert lines[1:5] == [
        "  census: 23 findings in 12 modules",
        "    by module:",
        "      12  pkg.m00",
        "       1  pkg.m01",
    ]
    assert lines[12:16] == [
        "       1  pkg.m09",
        "      … 2 more modules (--verbose lists all)",
        "    by word:",
        "      23  train",
    ]
    verbose = render(census_report(census), "text", RenderOptions(verbose=True)).splitlines()
    assert "       1  pkg.m11" in verbose and not any("more module" in line for line in verbose)
    assert render(census_report(many_modules(11)), "text").count("… 1 more module (") == 1


def test_text_once_every_leak_is_fixed():
    census = Census(0, (), (), Movement(recorded=2, still_present=0, fixed=2, new=0))
    options = RenderOptions(prune_command="domain-fence baseline --prune --config 'my dir/.importlinter'")
    assert render(census_report(census), "text", options).splitlines()[1:4] == [
        "  census: no findings",
        "    baseline: 2 recorded, 0 still present, 2 fixed since recording, 0 new",
        "    2 fixed since recording: strike them with 'domain-fence baseline --prune --config 'my dir/.importlinter''",
    ]
    markdown = render(census_report(census), "markdown", options)
    assert "No findings. Baseline: 2 recorded, 0 still present, 2 fixed since recording, 0 new.\n" in markdown
    assert (
        "> 2 entries fixed since recording: strike them with "
        "`domain-fence baseline --prune --config 'my dir/.importlinter'` and commit the baseline.\n"
    ) in markdown
    assert "| module |" not in markdown


def test_markdown_folds_a_long_module_table():
    text = render(census_report(many_modules(11)), "markdown")
    section = text[text.index("### Vocabulary census") :].splitlines()
    start = section.index("<details><summary>11 modules</summary>")
    assert section[start + 1 : start + 4] == ["", "| module | findings |", "|---|---:|"]
    assert section[start + 15 : start + 17] == ["", "</details>"]
    assert "| `pkg.m10` | 1 |" in section  # every row, only folded
    assert render(census_report(many_modules(10)), "markdown").count("<details>") == 0


def test_json_census_is_null_for_other_contracts():
    report = Report(
        "/p",
        ".importlinter",
        (
            ContractResult("fence", "Fence", "boundary", True),
            ContractResult(ID, NAME, "vocabulary", True, census=many_modules(2)),
        ),
    )
    fence, census = (contract["census"] for contract in json.loads(render(report, "json"))["contracts"])
    assert fence is None
    assert census == {
        "findings": 13,
        "modules": [{"module": "pkg.m00", "count": 12}, {"module": "pkg.m01", "count": 1}],
        "words": [{"word": "train", "count": 13}],
        "baseline": {"recorded": 13, "still_present": 13, "fixed": 0, "new": 0},
    }
    schema = (REPO / "docs" / "json-schema.md").read_text(encoding="utf-8")
    table = schema.split("\n## census\n", 1)[1].split("\n## ", 1)[0]
    assert [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")] == list(census)


@pytest.fixture
def ratcheted(minimonty_copy: Path) -> Path:
    """Baselined, then stepwise_target_object removed and a new primary_target added."""
    shutil.copytree(LEAKY, minimonty_copy, dirs_exist_ok=True)
    assert domain_fence("baseline", cwd=minimonty_copy).returncode == 0
    legacy = minimonty_copy / LEGACY
    legacy.write_text(legacy.read_text().replace("        self.stepwise_target_object = None  # DOM111:8\n", ""))
    (minimonty_copy / "minimonty/frameworks/models/tracker.py").write_text(
        "class Tracker:\n    def __init__(self) -> None:\n        self.primary_target = None\n"
    )
    return minimonty_copy


def test_check_prints_the_census_under_its_contract(ratcheted):
    result = domain_fence("check", cwd=ratcheted)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index(f"{HEADER} BROKEN")
    assert lines[start + 1].startswith("  .domain-fence-baseline.json:")
    assert lines[start + 2 : start + 14] == [
        "  minimonty/frameworks/models/tracker.py:3:9: DOM111 attribute Tracker.primary_target: "
        "experiment vocabulary 'primary target'",
        "  4 baselined findings pass (--verbose lists them)",
        *CENSUS_LINES,
        "    1 fixed since recording: strike it with 'domain-fence baseline --prune'",
        "",
    ]
    # The events contract found nothing and recorded nothing: no census.
    assert (
        lines[start - 1]
        == "Runtime events carry no experiment vocabulary [runtime-events-speak-runtime: vocabulary] KEPT"
    )
    assert lines[-1] == "2 contracts: 1 kept, 1 broken; 1 finding, 1 stale baseline entry, 4 baselined"


def test_the_census_does_not_depend_on_the_stale_alert_level(ratcheted):
    config = ratcheted / ".importlinter"
    config.write_text(config.read_text() + "unmatched_baseline_alerting = none\n")
    result = domain_fence("check", "--config", ".importlinter", cwd=ratcheted)
    assert "DOM002" not in result.stdout
    assert "\n".join(CENSUS_LINES) in result.stdout
    assert "    1 fixed since recording: strike it with 'domain-fence baseline --prune --config .importlinter'" in (
        result.stdout.splitlines()
    )


def test_check_markdown_has_a_census_section(ratcheted):
    result = domain_fence("check", "--format", "markdown", cwd=ratcheted)
    assert result.returncode == 1, result.stderr
    text = result.stdout
    assert text.index("### Findings") < text.index("### Vocabulary census")
    section = text[text.index("### Vocabulary census") :].splitlines()
    assert section == [
        f"### Vocabulary census: {NAME} (`{ID}`)",
        "",
        "5 findings in 2 modules. Baseline: 5 recorded, 4 still present, 1 fixed since recording, 1 new.",
        "",
        "> 1 entry fixed since recording: strike it with `domain-fence baseline --prune` and commit the baseline.",
        "",
        "| module | findings |",
        "|---|---:|",
        "| `minimonty.frameworks.models.legacy_lm` | 4 |",
        "| `minimonty.frameworks.models.tracker` | 1 |",
        "",
        "| word | findings |",
        "|---|---:|",
        "| primary target | 3 |",
        "| train | 2 |",
    ]


def test_quiet_leaves_the_census_out(ratcheted):
    for format_ in ("text", "markdown"):
        result = domain_fence("check", "--quiet", "--format", format_, cwd=ratcheted)
        assert result.returncode == 1 and "census" not in result.stdout.lower(), format_


def test_pruning_and_recording_settle_the_census(ratcheted):
    assert domain_fence("baseline", "--prune", cwd=ratcheted).returncode == 0
    pruned = domain_fence("check", "--format", "json", cwd=ratcheted)
    [census] = [c["census"] for c in json.loads(pruned.stdout)["contracts"] if c["census"]]
    assert census["baseline"] == {"recorded": 4, "still_present": 4, "fixed": 0, "new": 1}
    assert domain_fence("baseline", cwd=ratcheted).returncode == 0
    recorded = domain_fence("check", cwd=ratcheted)
    assert recorded.returncode == 0, recorded.stdout
    assert "    baseline: 5 recorded, 5 still present, 0 fixed since recording, 0 new" in recorded.stdout.splitlines()
    assert "strike" not in recorded.stdout

"""The placement contract in process: options, check(), rendering, the ratchet."""

from __future__ import annotations

from pathlib import Path

import importlinter.api  # noqa: F401  (configures import-linter's settings)
import pytest
from importlinter.application import output
from importlinter.domain.contract import InvalidContractOptions
from support import FIXTURES

from domain_fence.core.engine.baseline import Baseline, BaselineEntry, apply_baseline, load_baseline, write_baseline
from domain_fence.core.families.config import parse_placement
from domain_fence.core.families.placement.definitions import check_placement
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.report import baseline_entry_lines
from domain_fence.integrations.importlinter import PlacementContract
from domain_fence.integrations.importlinter.base import project_root

PROJECT = FIXTURES / "placement" / "monty"
CONTRACT = "experiment-owns-its-telemetry"
SETUP = "DOM201:tbp.monty.frameworks.telemetry.setup:init_telemetry"
BROKEN = "DOM001:tbp.monty.frameworks.models.broken"


@pytest.fixture(autouse=True)
def root(monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_FENCE_CACHE_DIR", str(tmp_path / "cache"))  # not into the repository's fixture
    token = project_root.set(PROJECT)
    yield PROJECT
    project_root.reset(token)


@pytest.fixture
def baseline_path(tmp_path: Path) -> Path:
    return tmp_path / "baseline.json"


def make_contract(baseline_path: Path, **options) -> PlacementContract:
    contract_options = {
        "id": CONTRACT,
        "name": "init_telemetry and post-episode handlers live under experiment",
        "type": "placement",
        "symbols": ["init_telemetry", "*PostEpisode*"],
        "allowed_modules": ["tbp.monty.experiment"],
        "baseline": str(baseline_path),
        **options,
    }
    return PlacementContract(
        name=contract_options["name"],
        session_options={"root_packages": ["tbp.monty"]},
        contract_options=contract_options,
    )


def rendered(contract: PlacementContract, check) -> list[str]:
    with output.console.capture() as captured:
        contract.render_broken_contract(check)
    return captured.get().splitlines()


def test_misplaced_definitions_break_the_contract_with_file_and_line(baseline_path):
    contract = make_contract(baseline_path)
    check = contract.check(None, verbose=False)
    assert not check.kept
    lines = rendered(contract, check)
    assert (
        "src/tbp/monty/frameworks/telemetry/setup.py:6:1: DOM201 function init_telemetry is defined "
        "outside tbp.monty.experiment; move it there"
    ) in lines
    assert (
        "src/tbp/monty/frameworks/models/broken.py:1:1: DOM001 skipped: syntax error at line 1: invalid syntax" in lines
    )
    positions = [(line.split(":")[0], int(line.split(":")[1])) for line in lines[:-1]]
    assert positions == sorted(positions) and lines[-1] == ""  # deterministic: by file and line
    assert {f["code"] for f in check.metadata["findings"]} == {"DOM001", "DOM201"}
    assert check.metadata["failures"] == [] and check.warnings == []


def test_a_kept_contract(baseline_path):
    contract = make_contract(
        baseline_path, symbols="*PostEpisode*", allowed_modules=["tbp.monty.experiment", "tbp.monty.frameworks"]
    )
    check = contract.check(None, verbose=False)
    assert check.kept, check.metadata


def test_an_unmatched_pattern_warns_by_default(baseline_path):
    contract = make_contract(baseline_path, symbols=["init_telemtry", "on_[ab]_PostEpsiode"])
    check = contract.check(None, verbose=False)
    assert check.kept and check.metadata["failures"] == []
    # Brackets are escaped: lint-imports prints warnings through rich markup.
    assert check.warnings == [
        "symbols: 'init_telemtry' matches no function, class, method or binding; is it misspelt?",
        "symbols: 'on_\\[ab]_PostEpsiode' matches no function, class, method or binding; is it misspelt?",
    ]


def test_an_unmatched_pattern_breaks_the_contract_with_require_match(baseline_path):
    contract = make_contract(baseline_path, symbols=["init_telemtry"], kinds="function", require_match="true")
    check = contract.check(None, verbose=False)
    assert not check.kept and check.warnings == []
    assert check.metadata["failures"] == [
        "symbols: 'init_telemtry' matches no function or binding; is it misspelt? (require_match = true)"
    ]
    assert rendered(contract, check) == [
        "symbols: 'init_telemtry' matches no function or binding; is it misspelt? (require_match = true)",
        "",
    ]


def test_every_option_error_is_reported_at_once(baseline_path):
    with pytest.raises(InvalidContractOptions) as raised:
        make_contract(
            baseline_path,
            symbols=["init telemetry"],
            allowed_modules=["tbp..monty"],
            kinds=["module"],
            require_match="yes",
            unmatched_baseline_alerting="loud",
            symbls="x",
        )
    assert set(raised.value.errors) == {
        "symbols",
        "allowed_modules",
        "kinds",
        "require_match",
        "unmatched_baseline_alerting",
        "symbls",
    }
    assert raised.value.errors["symbls"] == "Unrecognized option. Did you mean 'symbols'?"


def test_required_options(baseline_path):
    with pytest.raises(InvalidContractOptions) as raised:
        PlacementContract(name="n", session_options={"root_packages": ["tbp.monty"]}, contract_options={"id": "c"})
    assert raised.value.errors == {
        "allowed_modules": "This is a required field.",
        "symbols": "This is a required field.",
    }


# -- the ratchet -------------------------------------------------------------------------


def test_core_ratchet_splits_placement_findings_by_fingerprint():
    config = parse_placement(
        CONTRACT, "n", {"symbols": "init_telemetry", "allowed_modules": "tbp.monty.experiment"}, PROJECT
    )
    findings = check_placement(config, ProjectIndex.build(PROJECT, ["tbp.monty"], cache_dir=None)).findings
    gone = "DOM201:tbp.monty.frameworks.gone:init_telemetry"
    ratchet = apply_baseline(findings, frozenset({SETUP, gone}))
    assert [f.fingerprint for f in ratchet.baselined] == [SETUP]
    assert SETUP not in {f.fingerprint for f in ratchet.new} and ratchet.new
    assert ratchet.stale == (gone,)


def test_violations_record_every_finding_and_the_baseline_keeps_the_contract_but_unparsable_files(baseline_path):
    contract = make_contract(baseline_path)
    entries = contract.violations(None)
    assert (
        BaselineEntry(
            CONTRACT, SETUP, "DOM201 function init_telemetry is defined outside tbp.monty.experiment; move it there"
        )
        in entries
    )
    assert BROKEN in {e.fingerprint for e in entries}
    write_baseline(Baseline(baseline_path, tuple(entries)))

    check = make_contract(baseline_path).check(None, verbose=False)
    # A file that cannot be parsed may hide anything: no baseline accepts it.
    assert not check.kept
    assert [f["fingerprint"] for f in check.metadata["findings"]] == [BROKEN]
    # Two definitions of init_telemetry in hooks.py: an entry each, the second numbered.
    assert {f["fingerprint"] for f in check.metadata["baselined"]} == {e.fingerprint for e in entries} - {BROKEN}
    assert len(check.metadata["baselined"]) == len(entries) - 1
    assert "DOM201:tbp.monty.frameworks.models.hooks:init_telemetry#2" in {e.fingerprint for e in entries}
    # Six bindings of init_telemetry in bindings.py (one an import giving the name):
    # apart from the defs, numbered alike.
    bindings = "DOM201:tbp.monty.frameworks.telemetry.bindings:init_telemetry="
    recorded = {e.fingerprint for e in entries if e.fingerprint.startswith(bindings)}
    assert recorded == {bindings, *(f"{bindings}#{n}" for n in range(2, 7))}


def test_a_new_misplaced_definition_still_fails_and_stale_entries_fail(baseline_path):
    contract = make_contract(baseline_path)
    gone = "DOM201:tbp.monty.frameworks.gone:PostEpisodeGone"
    recorded = [e for e in contract.violations(None) if e.fingerprint != SETUP]
    write_baseline(Baseline(baseline_path, (*recorded, BaselineEntry(CONTRACT, gone, ""))))

    check = make_contract(baseline_path).check(None, verbose=False)
    assert not check.kept
    assert [f["fingerprint"] for f in check.metadata["findings"]] == [BROKEN, SETUP]
    assert check.metadata["stale"] == [gone]
    # At the entry's line of the baseline, as `check` prints it.
    line = baseline_entry_lines(baseline_path.read_text(encoding="utf-8"))[CONTRACT, gone]
    stale = f"DOM002 baseline entry matches nothing: {gone}; run 'domain-fence baseline --prune'"
    [shown] = [text for text in rendered(contract, check) if "DOM002" in text]
    assert shown.endswith(f"{baseline_path.name}:{line}:1: {stale}"), shown

    warned = make_contract(baseline_path, unmatched_baseline_alerting="warn").check(None, verbose=False)
    assert warned.metadata["stale"] == [] and any(gone in w for w in warned.warnings)
    assert load_baseline(baseline_path).fingerprints(CONTRACT) >= {gone}

"""`domain-fence check` end to end: the real command in a subprocess, on a leaky
fixture breaking every family of contract, on a clean project, and on broken input."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from cli_support import BIN, REPO, copy_fixture, domain_fence, run

FORMATS = ("text", "json", "sarif", "github", "markdown")
SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"

CLEAN_CONFIG = """\
[importlinter]
root_package = minimonty
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract
    placement: domain_fence.integrations.importlinter.PlacementContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    minimonty.frameworks
forbidden_modules =
    minimonty.experiment

[importlinter:contract:runtime-events-speak-runtime]
name = Runtime events carry no experiment vocabulary
type = vocabulary
modules =
    minimonty.frameworks
event_bases =
    minimonty.frameworks.telemetry.schemas.TelemetrySchema
words =
    episode
    primary target

[importlinter:contract:experiment-owns-its-telemetry]
name = init_telemetry lives under experiment
type = placement
symbols =
    init_telemetry
allowed_modules =
    minimonty.experiment

[importlinter:contract:layers]
name = Experiment above frameworks
type = layers
layers =
    minimonty.experiment
    minimonty.frameworks
"""


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    return copy_fixture("leaky", tmp_path)


@pytest.fixture
def clean(minimonty_copy: Path) -> Path:
    (minimonty_copy / ".importlinter").write_text(CLEAN_CONFIG)
    return minimonty_copy


def test_a_clean_project_passes_silently_on_stderr(clean):
    result = domain_fence("check", cwd=clean)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""  # no progress when stderr is not a terminal
    assert result.stdout.splitlines() == [
        "Runtime does not import experiment code [runtime-knows-no-experiment: boundary] KEPT",
        "Runtime events carry no experiment vocabulary [runtime-events-speak-runtime: vocabulary] KEPT",
        "init_telemetry lives under experiment [experiment-owns-its-telemetry: placement] KEPT",
        "Experiment above frameworks [layers: layers] KEPT",
        "",
        "4 contracts: 4 kept, 0 broken; 0 findings, 0 stale baseline entries, 0 baselined",
    ]


def test_the_leaky_project_reports_every_contract_in_one_text_report(leaky):
    result = domain_fence("check", cwd=leaky)
    assert result.returncode == 1
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    boundary = lines.index("Runtime does not import experiment code [runtime-knows-no-experiment: boundary] BROKEN")
    assert lines[boundary + 1 : boundary + 8] == [
        "  .domain-fence-baseline.json:7:1: DOM002 baseline entry matches nothing: "
        "boundary:leaky.runtime.gone->leaky.experiment; run 'domain-fence baseline --prune'",
        "  leaky/runtime/helper.py:3:8: DOM302 leaky.runtime.helper imports forbidden leaky.experiment.runner "
        "through leaky.shared",
        "      leaky.runtime.helper -> leaky.shared (l.3)",
        "      leaky.shared -> leaky.experiment.runner (l.3)",
        "  leaky/runtime/model.py:5:30: DOM301 leaky.runtime.model imports forbidden leaky.experiment.modes",
        "      leaky.runtime.model -> leaky.experiment.modes (l.5)",
        "  1 baselined finding passes (--verbose lists them)",
    ]
    assert "Runtime events carry no experiment vocabulary [runtime-events-speak-runtime: vocabulary] BROKEN" in lines
    assert any(line.startswith("  leaky/runtime/telemetry.py:11:5: DOM101 ") for line in lines)
    assert "init_telemetry lives under experiment [experiment-owns-its-telemetry: placement] BROKEN" in lines
    assert any(line.startswith("  leaky/runtime/setup.py:4:1: DOM201 ") for line in lines)
    layers = lines.index("Experiment sits above the runtime [experiment-above-runtime: layers] BROKEN")
    assert lines[layers + 1 : layers + 3] == [
        "  leaky/runtime/helper.py:3:8: DOM303 layers contract 'experiment-above-runtime' broken: "
        "leaky.runtime.helper imports leaky.experiment.runner via leaky.shared",
        "      leaky.runtime.helper -> leaky.shared (l.3)",
    ]
    assert "Experiment does not import the shared helpers [experiment-needs-no-shared: forbidden] KEPT" in lines
    assert lines[-1] == "5 contracts: 1 kept, 4 broken; 7 findings, 1 stale baseline entry, 1 baselined"


def run_with_terminal_stderr(*args: str, cwd: Path) -> tuple[int, str, bytes]:
    """Run the command with stderr on a pseudo-terminal; return status, stdout and
    everything written to the terminal."""
    controller, terminal = pty.openpty()
    completed = subprocess.run(
        [str(BIN / "domain-fence"), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=120
    )
    os.close(terminal)
    written = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal side is closed
            break
        if not chunk:
            break
        written += chunk
    os.close(controller)
    return completed.returncode, completed.stdout, written


def test_progress_appears_only_on_a_terminal_and_leaves_the_report_alone(leaky):
    plain = domain_fence("check", cwd=leaky)
    # --no-cache: a run of unchanged inputs replays the last report, with nothing to show progress of.
    status, stdout, terminal = run_with_terminal_stderr("check", "--no-cache", cwd=leaky)
    assert (status, stdout) == (plain.returncode, plain.stdout)
    assert b"Checking" in terminal or b"Building" in terminal or b"Reading" in terminal
    quiet_status, _, quiet_terminal = run_with_terminal_stderr("check", "--quiet", cwd=leaky)
    assert (quiet_status, quiet_terminal) == (1, b"")


def test_quiet_prints_only_the_failing_findings(leaky):
    result = domain_fence("check", "--quiet", cwd=leaky)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 8
    assert all(re.match(r"[\w./-]+:\d+:\d+: DOM\d{3} ", line) for line in lines), lines


def test_verbose_lists_baselined_findings(leaky):
    result = domain_fence("check", "--verbose", cwd=leaky)
    assert (
        "  baselined: leaky/runtime/legacy.py:3:8: DOM301 leaky.runtime.legacy imports forbidden "
        "leaky.experiment.runner" in result.stdout.splitlines()
    )


def test_json_report_follows_the_documented_schema(leaky):
    result = domain_fence("check", "--format", "json", cwd=leaky)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert (report["schema"], report["version"], report["config"]) == ("domain-fence-report", 1, ".importlinter")
    assert report["summary"] == {
        "contracts": 5,
        "kept": 1,
        "broken": 4,
        "findings": 7,
        "baselined": 1,
        "stale": 1,
        "warnings": 0,
        "ratchet_added": 0,
        "passed": False,
    }
    assert report["ratchet"] is None
    boundary = report["contracts"][0]
    assert (boundary["id"], boundary["type"], boundary["kept"]) == ("runtime-knows-no-experiment", "boundary", False)
    assert boundary["domains"] == {"sources": ["leaky.runtime"], "forbidden": ["leaky.experiment"]}
    assert boundary["baseline"] == ".domain-fence-baseline.json"
    assert [f["code"] for f in boundary["findings"]] == ["DOM302", "DOM301"]
    assert boundary["findings"][1] == {
        "path": "leaky/runtime/model.py",
        "line": 5,
        "column": 30,
        "code": "DOM301",
        "message": "leaky.runtime.model imports forbidden leaky.experiment.modes",
        "symbol": "leaky.runtime.model",
        "fingerprint": "boundary:leaky.runtime.model->leaky.experiment.modes",
        "contract": "runtime-knows-no-experiment",
        "details": ["leaky.runtime.model -> leaky.experiment.modes (l.5)"],
    }
    assert [f["fingerprint"] for f in boundary["baselined"]] == [
        "boundary:leaky.runtime.legacy->leaky.experiment.runner"
    ]
    assert [(f["code"], f["path"], f["line"]) for f in boundary["stale"]] == [
        ("DOM002", ".domain-fence-baseline.json", 7)
    ]
    layers = next(c for c in report["contracts"] if c["type"] == "layers")
    assert {f["code"] for f in layers["findings"]} == {"DOM303"}
    assert {(d["importer"], d["imported"]) for d in layers["dependencies"]} == {("leaky.runtime", "leaky.experiment")}


def test_sarif_validates_against_the_schema_and_leaves_the_baseline_out(leaky):
    result = domain_fence("check", "--format", "sarif", cwd=leaky)
    assert result.returncode == 1
    sarif = json.loads(result.stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert all({"id", "name", "shortDescription", "fullDescription", "help"} <= rule.keys() for rule in rules)
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == leaky.resolve().as_uri() + "/"  # no git: the project
    for item in run["results"]:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        location = item["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "SRCROOT" and not location["uri"].startswith("/")
    assert [item["baselineState"] for item in run["results"]] == ["new"] * 8
    assert all("suppressions" not in item for item in run["results"])


def test_sarif_verbose_keeps_the_baselined_findings_suppressed(leaky):
    result = domain_fence("check", "--format", "sarif", "--verbose", cwd=leaky)
    assert result.returncode == 1
    sarif = json.loads(result.stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    by_state: dict[str, list] = {}
    for item in sarif["runs"][0]["results"]:
        by_state.setdefault(item["baselineState"], []).append(item)
    assert len(by_state["new"]) == 8
    [baselined] = by_state["unchanged"]
    assert baselined["suppressions"] == [
        {"kind": "external", "justification": "recorded in .domain-fence-baseline.json"}
    ]
    assert baselined["partialFingerprints"] == {
        "domainFence/v1": "runtime-knows-no-experiment/boundary:leaky.runtime.legacy->leaky.experiment.runner"
    }
    assert all("suppressions" not in item for item in by_state["new"])


def test_github_annotations(leaky):
    result = domain_fence("check", "--format", "github", cwd=leaky)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert (
        "::error file=leaky/runtime/model.py,line=5,col=30,title=DOM301::leaky.runtime.model imports forbidden "
        "leaky.experiment.modes%0Aleaky.runtime.model -> leaky.experiment.modes (l.5)" in lines
    )
    assert sum(line.startswith("::error ") for line in lines) == 8
    assert lines[-1] == "domain-fence: 5 contracts: 1 kept, 4 broken; 7 findings, 1 stale baseline entry, 1 baselined"


def test_github_paths_are_relative_to_the_checkout(leaky):
    result = domain_fence("check", "--format", "github", cwd=leaky, env={"GITHUB_WORKSPACE": str(leaky.parent)})
    assert "::error file=leaky/leaky/runtime/model.py,line=5," in result.stdout


def test_markdown_summary_draws_the_domains(leaky):
    result = domain_fence("check", "--format", "markdown", cwd=leaky)
    assert result.returncode == 1
    text = result.stdout
    assert text.startswith("## domain-fence: ❌ 4 of 5 contracts broken\n")
    assert (
        "| Runtime does not import experiment code (`runtime-knows-no-experiment`) | boundary | ❌ broken | 2 | 1 | 1 |"
        in text
    )
    assert (
        "| `leaky/runtime/model.py:5:30` | DOM301 | leaky.runtime.model imports forbidden leaky.experiment.modes "
        "| runtime-knows-no-experiment |" in text
    )
    mermaid = text[text.index("```mermaid") :]
    assert '    n1["leaky.runtime"]' in mermaid and '    n2["leaky.experiment"]' in mermaid
    assert '  n1 -->|"2 new"| n2' in mermaid
    assert '  n1 -.->|"1 baselined"| n2' in mermaid
    assert "| `leaky.runtime` | `leaky.experiment` | 2 | 1 | `leaky.runtime.helper` |" in mermaid


def test_output_writes_the_report_to_a_file(leaky, tmp_path):
    target = tmp_path / "report.sarif"
    result = domain_fence("check", "--format", "sarif", "--output", str(target), cwd=leaky)
    assert result.returncode == 1
    assert result.stdout == ""
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_config_option_runs_from_elsewhere(leaky, tmp_path):
    result = domain_fence("check", "--quiet", "--config", str(leaky / ".importlinter"), cwd=tmp_path)
    assert result.returncode == 1
    assert "leaky/runtime/model.py:5:30: DOM301 " in result.stdout


@pytest.mark.parametrize("format", FORMATS)
def test_reports_are_byte_identical_across_runs_and_hash_seeds(leaky, format):
    runs = [
        domain_fence("check", "--format", format, "--verbose", cwd=leaky, env={"PYTHONHASHSEED": seed})
        for seed in ("0", "1", "random")
    ]
    assert {r.returncode for r in runs} == {1}
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout


BAD_INPUTS = {
    "missing configuration": (None, "no import-linter configuration found"),
    "unknown option": (
        ("    leaky.experiment\n\n", "    leaky.experiment\nallow_indirect_import = true\n\n"),
        "[importlinter:contract:runtime-knows-no-experiment] allow_indirect_import: Unrecognized option. "
        "Did you mean 'allow_indirect_imports'?",
    ),
    "contract_types line without a space": (
        ("boundary: domain_fence", "boundary:domain_fence"),
        "[importlinter] contract_types: 'boundary:domain_fence.integrations.importlinter.BoundaryContract'",
    ),
    "contract_types on the key's line": (
        (
            "contract_types =\n    boundary: domain_fence.integrations.importlinter.BoundaryContract\n    vocabulary: "
            "domain_fence.integrations.importlinter.VocabularyContract\n    placement: "
            "domain_fence.integrations.importlinter.PlacementContract\n",
            "contract_types = boundary: domain_fence.integrations.importlinter.BoundaryContract\n",
        ),
        "[importlinter] contract_types: put each entry on its own line below the key",
    ),
    "missing root package": (("root_package = leaky", "root_package = nowhere"), "[importlinter] root_packages:"),
    "missing module in a built-in contract": (
        ("    leaky.shared\n", "    leaky.gone\n"),
        "[importlinter:contract:experiment-needs-no-shared]: Module 'leaky.gone' does not exist.",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_configuration_exits_2_with_one_line(leaky, case):
    edit, expected = BAD_INPUTS[case]
    config = leaky / ".importlinter"
    if edit is None:
        config.unlink()
    else:
        text = config.read_text()
        assert edit[0] in text
        config.write_text(text.replace(edit[0], edit[1], 1))
    assert_one_line_error(domain_fence("check", cwd=leaky), expected)


def test_corrupt_baseline_exits_2_naming_the_file(leaky):
    (leaky / ".domain-fence-baseline.json").write_text("{not json")
    assert_one_line_error(domain_fence("check", cwd=leaky), ".domain-fence-baseline.json: baseline is not valid JSON")


def test_syntax_error_in_the_project_is_a_finding_and_the_rest_is_still_checked(leaky):
    # grimp cannot build the graph: contracts needing it report the file (DOM001) and
    # are not run; those reading sources run as usual. tests/reliability has the rest.
    (leaky / "leaky" / "runtime" / "broken.py").write_text("def broken(:\n")
    result = domain_fence("check", "--quiet", cwd=leaky)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert "leaky/runtime/broken.py:1:1: DOM001 skipped: syntax error at line 1: invalid syntax" in lines
    assert (
        "leaky/runtime/setup.py:4:1: DOM201 function init_telemetry is defined outside leaky.experiment; move it there"
        in lines
    )


@pytest.mark.parametrize(
    "args, expected",
    [
        (("check", "--bogus"), "No such option '--bogus'"),
        (("check", "--format", "xml"), "Invalid value for '--format'"),
        (("check", "--quiet", "--verbose"), "--quiet and --verbose exclude each other"),
        (("check", "--no-cache", "--cache-dir", "cache"), "--no-cache and --cache-dir exclude each other"),
        (("baseline", "--cache-dir", "cache", "--no-cache"), "--no-cache and --cache-dir exclude each other"),
        (("check", "--config", "missing.cfg"), "missing.cfg: configuration file not found"),
        ((), "error: missing command (see '"),  # click's own message: its whole help
    ],
)
def test_usage_errors_exit_2_with_one_line(leaky, args, expected):
    assert_one_line_error(domain_fence(*args, cwd=leaky), expected)


def assert_one_line_error(result, expected: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("domain-fence: error: ")
    assert expected in line


def test_a_noqa_comment_below_a_form_feed_silences_its_line_in_check_and_lint_imports(tmp_path):
    # A form feed (a page break) ends no line for Python: the comment must stay on the
    # line of the finding it names, in every front end the engine's noqa serves.
    root = copy_fixture("leaky", tmp_path)
    telemetry = root / "leaky" / "runtime" / "telemetry.py"
    text = telemetry.read_text().replace('"""Runtime telemetry events."""\n', '"""Runtime telemetry events."""\n\x0c\n')
    telemetry.write_text(text)
    finding = "leaky/runtime/telemetry.py:12:5: DOM101 event field 'episode'"
    for tool, args in (("domain-fence", ("check",)), ("lint-imports", ())):
        assert finding in run(tool, *args, cwd=root).stdout, tool
    telemetry.write_text(text.replace("    episode: int\n", "    episode: int  # noqa: DOM101\n"))
    for tool, args in (("domain-fence", ("check",)), ("lint-imports", ())):
        result = run(tool, *args, cwd=root)
        assert "DOM101 event field 'episode'" not in result.stdout and "Traceback" not in result.stderr, tool

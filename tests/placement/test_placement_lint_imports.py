"""The placement contract end to end: real `lint-imports` and `domain-fence baseline`
subprocesses on a copy of the reference codebase."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import placement_config, run_tool

CONFIG = placement_config("minimonty")

NAME = "init_telemetry and post-episode handlers live under experiment"
SETUP = "minimonty/frameworks/telemetry/setup.py"
CONSUMER = "minimonty/frameworks/telemetry/consumers.py"


@pytest.fixture
def project(minimonty_copy: Path) -> Path:
    (minimonty_copy / ".importlinter").write_text(CONFIG)
    return minimonty_copy


def lint(project: Path):
    # Findings are printed unwrapped; warnings go through rich, which wraps at COLUMNS.
    return run_tool("lint-imports", "--no-logo", cwd=project, env={"COLUMNS": "200"})


def test_the_reference_codebase_keeps_the_contract(project):
    result = lint(project)
    assert result.returncode == 0, result.output
    assert f"{NAME} KEPT" in result.stdout
    assert "warning" not in result.stdout.lower()


def test_misplaced_definitions_break_the_contract_with_file_and_line(project):
    (project / SETUP).write_text("import logging\n\n\ndef init_telemetry(config):\n    return config\n")
    (project / CONSUMER).write_text(
        "from minimonty.frameworks.telemetry.subscribers import TelemetrySubscriber\n\n\n"
        "class PostEpisodeTelemetryConsumer(TelemetrySubscriber):\n"
        "    def post_episode(self):\n"
        "        pass\n"
    )
    result = lint(project)
    assert result.returncode == 1, result.output
    assert f"{NAME} BROKEN" in result.stdout
    lines = result.stdout.splitlines()
    consumer = lines.index(
        f"{CONSUMER}:4:1: DOM201 class PostEpisodeTelemetryConsumer is defined outside minimonty.experiment; "
        "move it there"
    )
    setup = lines.index(
        f"{SETUP}:4:1: DOM201 function init_telemetry is defined outside minimonty.experiment; move it there"
    )
    assert consumer < setup  # sorted by file
    # The method post_episode and minimonty.experiment's re-exports are not definitions.
    assert sum("DOM201" in line for line in lines) == 2


def test_an_unmatched_pattern_is_a_warning(project):
    (project / ".importlinter").write_text(CONFIG.replace("    init_telemetry\n", "    init_telemtry\n"))
    result = lint(project)
    assert result.returncode == 0, result.output
    assert f"{NAME} KEPT (1 warning)" in result.stdout
    assert "- symbols: 'init_telemtry' matches no function, class, method or binding; is it misspelt?" in result.stdout


def test_a_pattern_an_unreadable_file_may_define_is_no_misspelling(project):
    # The only init_telemetry is in a file that cannot be parsed: its DOM001 says why the
    # pattern matched nothing, not a typo. (check: lint-imports stops at grimp's build.)
    telemetry = project / "minimonty/experiment/telemetry.py"
    telemetry.write_text(telemetry.read_text() + "\ndef broken(:\n")
    result = run_tool("domain-fence", "check", cwd=project)
    assert result.returncode == 1, result.output
    assert "minimonty/experiment/telemetry.py:116:1: DOM001" in result.stdout
    assert "misspelt" not in result.output


def test_an_unmatched_pattern_breaks_the_contract_with_require_match(project):
    config = CONFIG.replace("    init_telemetry\n", "    init_telemtry\n") + "require_match = true\n"
    (project / ".importlinter").write_text(config)
    result = lint(project)
    assert result.returncode == 1, result.output
    assert (
        "symbols: 'init_telemtry' matches no function, class, method or binding; is it misspelt? "
        "(require_match = true)" in result.stdout.splitlines()
    )


def test_invalid_options_are_all_reported(project):
    (project / ".importlinter").write_text(CONFIG + "kinds = module\nrequire_match = yes\n")
    result = lint(project)
    assert result.returncode == 1
    assert "kinds: Expected some of function, class, method, not 'module'." in result.stdout
    assert "require_match: Expected true or false, not 'yes'." in result.stdout
    assert "Traceback" not in result.output


def test_the_baseline_ratchet(project):
    (project / SETUP).write_text("def init_telemetry(config):\n    return config\n")
    assert lint(project).returncode == 1

    recorded = run_tool("domain-fence", "baseline", cwd=project)
    assert recorded.returncode == 0, recorded.output
    assert ".domain-fence-baseline.json: 1 recorded (1 added, 0 pruned, 0 still present); written" in recorded.stdout
    assert (
        "DOM201:minimonty.frameworks.telemetry.setup:init_telemetry"
        in (project / ".domain-fence-baseline.json").read_text()
    )

    # The fingerprint does not depend on the line: moving the definition keeps it baselined.
    (project / SETUP).write_text("import logging\n\n\ndef init_telemetry(config):\n    return config\n")
    kept = lint(project)
    assert kept.returncode == 0, kept.output

    (project / CONSUMER).write_text("class PostEpisodeTelemetryConsumer:\n    pass\n")
    new = lint(project)
    assert new.returncode == 1
    assert f"{CONSUMER}:1:1: DOM201 class PostEpisodeTelemetryConsumer" in new.stdout
    assert SETUP not in new.stdout  # the recorded violation stays quiet
    (project / CONSUMER).unlink()

    (project / SETUP).unlink()
    stale = lint(project)
    assert stale.returncode == 1
    assert (
        "DOM002 baseline entry matches nothing: DOM201:minimonty.frameworks.telemetry.setup:init_telemetry; "
        "run 'domain-fence baseline --prune'" in stale.stdout
    )
    pruned = run_tool("domain-fence", "baseline", "--prune", cwd=project)
    assert pruned.returncode == 0, pruned.output
    assert lint(project).returncode == 0

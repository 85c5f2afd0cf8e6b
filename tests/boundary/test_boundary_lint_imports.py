"""The ratchet end to end: real `lint-imports` and `domain-fence baseline` in subprocesses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import FIXTURES, run_tool

CONFIG = """\
[importlinter]
root_package = minimonty
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    minimonty.frameworks
forbidden_modules =
    minimonty.experiment
"""

MODEL = "minimonty/frameworks/models/learning_module.py"
SCHEMAS = "minimonty/frameworks/telemetry/schemas.py"


def prepend(path: Path, line: str) -> None:
    path.write_text(line + "\n" + path.read_text())


def drop_first_line(path: Path) -> None:
    path.write_text(path.read_text().split("\n", 1)[1])


@pytest.fixture
def project(minimonty_copy: Path) -> Path:
    (minimonty_copy / ".importlinter").write_text(CONFIG)
    return minimonty_copy


def test_the_reference_codebase_keeps_the_contract(project):
    result = run_tool("lint-imports", "--no-logo", cwd=project)
    assert result.returncode == 0, result.output
    assert "Runtime does not import experiment code KEPT" in result.stdout


def test_the_ratchet(project):
    prepend(project / MODEL, "import minimonty.experiment")

    broken = run_tool("lint-imports", "--no-logo", cwd=project)
    assert broken.returncode == 1
    assert (
        f"{MODEL}:1:8: DOM301 minimonty.frameworks.models.learning_module imports forbidden "
        "minimonty.experiment" in broken.stdout
    )
    assert "minimonty.frameworks.models.learning_module -> minimonty.experiment (l.1)" in broken.stdout

    recorded = run_tool("domain-fence", "baseline", cwd=project)
    assert recorded.returncode == 0, recorded.output
    assert ".domain-fence-baseline.json: 1 recorded (1 added, 0 pruned, 0 still present); written" in recorded.stdout
    assert run_tool("lint-imports", "--no-logo", cwd=project).returncode == 0

    prepend(project / SCHEMAS, "from minimonty.experiment import world")
    second = run_tool("lint-imports", "--no-logo", cwd=project)
    assert second.returncode == 1
    assert (
        f"{SCHEMAS}:1:34: DOM301 minimonty.frameworks.telemetry.schemas imports forbidden minimonty.experiment.world"
        in second.stdout
    )
    assert MODEL not in second.stdout  # the recorded violation stays quiet
    drop_first_line(project / SCHEMAS)

    drop_first_line(project / MODEL)
    stale = run_tool("lint-imports", "--no-logo", cwd=project)
    assert stale.returncode == 1
    assert (
        "DOM002 baseline entry matches nothing: "
        "boundary:minimonty.frameworks.models.learning_module->minimonty.experiment" in stale.stdout
    )

    pruned = run_tool("domain-fence", "baseline", "--prune", cwd=project)
    assert "0 recorded (0 added, 1 pruned, 0 still present); written" in pruned.stdout
    assert run_tool("lint-imports", "--no-logo", cwd=project).returncode == 0


def test_baseline_is_not_rewritten_when_nothing_changed(project):
    prepend(project / MODEL, "import minimonty.experiment")
    run_tool("domain-fence", "baseline", cwd=project)
    baseline = project / ".domain-fence-baseline.json"
    before = baseline.stat().st_mtime_ns, baseline.read_bytes()
    again = run_tool("domain-fence", "baseline", cwd=project)
    assert "unchanged" in again.stdout
    assert (baseline.stat().st_mtime_ns, baseline.read_bytes()) == before


def test_output_is_deterministic(project):
    prepend(project / MODEL, "import minimonty.experiment")
    prepend(project / SCHEMAS, "from minimonty.experiment import world")
    runs = {
        run_tool("lint-imports", "--no-logo", cwd=project, env={"PYTHONHASHSEED": seed}).stdout
        for seed in ("0", "1", "2")
    }
    assert len(runs) == 1


def test_namespace_root_package(tmp_path):
    project = tmp_path / "namespace"
    shutil.copytree(FIXTURES / "namespace", project)
    assert not (project / "src" / "tbp" / "__init__.py").exists()

    broken = run_tool("lint-imports", "--no-logo", cwd=project, env={"PYTHONPATH": "src"})
    assert broken.returncode == 1
    assert (
        "src/tbp/monty/frameworks/models/graph_matching.py:3:34: DOM301 "
        "tbp.monty.frameworks.models.graph_matching imports forbidden tbp.monty.experiment.modes"
    ) in broken.stdout

    # The CLI finds a src layout without PYTHONPATH.
    assert run_tool("domain-fence", "baseline", cwd=project).returncode == 0
    kept = run_tool("lint-imports", "--no-logo", cwd=project, env={"PYTHONPATH": "src"})
    assert kept.returncode == 0, kept.output

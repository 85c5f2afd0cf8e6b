"""domain-fence holds itself and its reference codebase to its own rules.

The checks at the repository root analyse the sources of this checkout
(``src/`` and ``examples/minimonty/src/``, both installed editable), not an installed
copy: a violation planted in ``examples/minimonty`` turns every front end red.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from support import REPO, run_tool

from domain_fence.core.source.modules import locate_package

LEARNING_MODULE = Path("examples/minimonty/src/minimonty/frameworks/models/learning_module.py")
PLANT = "import minimonty.experiment.world\n"
# What the checks at the root read: the configuration, both source trees.
CHECKED = (".importlinter", "setup.cfg", "pyproject.toml", "src", "examples/minimonty")


def test_the_reference_codebase_is_installed_from_this_checkout():
    # A copy in site-packages (a non-editable install) would be what the root checks read.
    assert locate_package("minimonty", sys.path) == [REPO / "examples" / "minimonty" / "src" / "minimonty"]
    assert locate_package("domain_fence", sys.path) == [REPO / "src" / "domain_fence"]


def test_lint_imports_passes_at_the_repository_root():
    result = run_tool("lint-imports", "--no-logo", cwd=REPO)
    assert result.returncode == 0, result.output
    assert "Contracts: 10 kept, 0 broken." in result.stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of what the root checks read, with its own sources first on the path,
    as an editable install of that copy puts them."""
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".domain_fence_cache")
    for name in CHECKED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def run_checks(root: Path) -> dict[str, tuple[int, str]]:
    path = os.pathsep.join([str(root / "src"), str(root / "examples/minimonty/src")])
    env = {"PYTHONPATH": path, "DOMAIN_FENCE_NO_CACHE": "1"}
    results = {
        "lint-imports": run_tool("lint-imports", "--no-logo", "--no-cache", cwd=root, env=env),
        "flake8": run_tool("flake8", cwd=root, env=env),
        "domain-fence": run_tool("domain-fence", "check", "--no-cache", cwd=root, env=env),
    }
    return {tool: (result.returncode, result.output) for tool, result in results.items()}


def test_every_front_end_at_the_root_sees_the_reference_codebase_itself(checkout: Path):
    clean = run_checks(checkout)
    assert {tool: status for tool, (status, _) in clean.items()} == dict.fromkeys(clean, 0), clean

    planted = checkout / LEARNING_MODULE
    line = len(planted.read_text(encoding="utf-8").splitlines()) + 1
    with planted.open("a", encoding="utf-8") as file:
        file.write(PLANT)
    red = run_checks(checkout)

    assert {tool: status for tool, (status, _) in red.items()} == dict.fromkeys(red, 1), red
    output = red["lint-imports"][1]
    assert "minimonty.frameworks.models.learning_module -> minimonty.experiment.world" in output
    assert "Contracts: 9 kept, 1 broken." in output
    finding = f"{LEARNING_MODULE.as_posix()}:{line}:8: DOM301 "  # at the imported name
    assert [ln for ln in red["flake8"][1].splitlines() if ln.removeprefix("./").startswith(finding)], red["flake8"][1]
    assert finding in red["domain-fence"][1]


def test_the_core_layering_is_enforced_on_the_core_itself(checkout: Path):
    # The finding model is the bottom layer: importing the engine from it breaks the
    # core's layers contract.
    model = checkout / "src/domain_fence/core/model/findings.py"
    model.write_text(model.read_text(encoding="utf-8") + "\nimport domain_fence.core.engine\n", encoding="utf-8")
    path = os.pathsep.join([str(checkout / "src"), str(checkout / "examples/minimonty/src")])
    result = run_tool("lint-imports", "--no-logo", "--no-cache", cwd=checkout, env={"PYTHONPATH": path})
    assert result.returncode == 1, result.output
    unwrapped = " ".join(result.stdout.split())  # rich wraps at 80 columns
    assert "on reading source, on the finding model BROKEN" in unwrapped
    assert "domain_fence.core.model.findings -> domain_fence.core.engine" in unwrapped


def test_the_facts_layering_is_enforced_on_the_facts_package(checkout: Path):
    # The fact records are the bottom layer of the facts package: importing the walk
    # from them breaks the facts' layers contract.
    records = checkout / "src/domain_fence/core/source/facts/records.py"
    planted = "\nimport domain_fence.core.source.facts.walk\n"
    records.write_text(records.read_text(encoding="utf-8") + planted, encoding="utf-8")
    path = os.pathsep.join([str(checkout / "src"), str(checkout / "examples/minimonty/src")])
    result = run_tool("lint-imports", "--no-logo", "--no-cache", cwd=checkout, env={"PYTHONPATH": path})
    assert result.returncode == 1, result.output
    unwrapped = " ".join(result.stdout.split())  # rich wraps at 80 columns
    assert "on the fact records BROKEN" in unwrapped
    assert "domain_fence.core.source.facts.records -> domain_fence.core.source.facts.walk" in unwrapped

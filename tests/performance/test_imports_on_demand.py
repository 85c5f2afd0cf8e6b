"""A check imports what its contracts use: a configuration of boundary contracts alone
imports neither the other families nor their contract types, nor the import-linter
types no contract of it has, and a check that parses too few files for workers
imports nothing of the workers' machinery."""

from __future__ import annotations

from pathlib import Path

import pytest
from perf_support import among, edit, imports_of_a_check, leaky_project

BOUNDARY_ONLY = """\
[importlinter]
root_package = leaky
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    leaky.runtime
forbidden_modules =
    leaky.experiment
"""

NOT_IMPORTED_FOR_BOUNDARY_ALONE = (
    "domain_fence.core.families.placement",
    "domain_fence.core.families.vocabulary",
    "domain_fence.integrations.importlinter.placement",
    "domain_fence.integrations.importlinter.vocabulary",
    "importlinter.contracts.acyclic_siblings",
    "importlinter.contracts.independence",
    "importlinter.contracts.layers",
    "importlinter.contracts.private_modules",
    "importlinter.contracts.protected",
    "concurrent.futures.process",
    "multiprocessing",
)


def check_in_a_fresh_interpreter(root: Path) -> tuple[object, list[str]]:
    """The status of ``domain-fence check`` in ``root``, and the modules it imported."""
    _, status, modules = imports_of_a_check("check", cwd=root)
    return status, modules


def unused(modules: list[str]) -> list[str]:
    return among(modules, NOT_IMPORTED_FOR_BOUNDARY_ALONE)


@pytest.fixture
def boundary_only(tmp_path) -> Path:
    root = leaky_project(tmp_path)
    edit(root / ".importlinter", BOUNDARY_ONLY)
    return root


def test_a_check_of_boundary_contracts_imports_no_other_family(boundary_only):
    status, modules = check_in_a_fresh_interpreter(boundary_only)
    assert status == 1  # leaky.runtime imports leaky.experiment
    assert "domain_fence.core.families.boundary" in modules
    assert unused(modules) == []


def test_a_check_from_recorded_settings_imports_no_other_family(boundary_only):
    first, _ = check_in_a_fresh_interpreter(boundary_only)
    edit(boundary_only / "leaky/runtime/helper.py")  # touched: the settings recorded serve
    status, modules = check_in_a_fresh_interpreter(boundary_only)
    assert (first, status) == (1, 1)
    assert "domain_fence.core.engine.recorded" in modules
    assert "domain_fence.integrations.importlinter.configuration" not in modules  # not read again
    assert unused(modules) == []


def test_a_check_whose_flow_facts_all_come_from_the_cache_loads_no_tracer(tmp_path):
    # DOM105's interpreter is imported when a body is traced, not to name the cache.
    root = leaky_project(tmp_path)
    first, modules = check_in_a_fresh_interpreter(root)
    assert "domain_fence.core.source.flow.tracing" in modules  # the first check traced bodies
    edit(root / "leaky/runtime/helper.py", "VALUE = 2\n")  # no event here: nothing to trace again
    status, modules = check_in_a_fresh_interpreter(root)
    assert status == first
    assert among(modules, ["domain_fence.core.source.flow.tracing", "domain_fence.core.source.flow.frame"]) == []

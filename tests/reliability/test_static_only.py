"""Static analysis only: the code under check is never imported or run.

Every module of the ``trap`` fixture package (its ``__init__``, its submodules, and a
``conftest.py`` written into the copy) writes an ``IMPORTED`` marker and kills the
process with status 3 when run. Every front end runs over it in a subprocess (so a
slip kills that process, not the test run) and the marker never appears.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_support import Result, edit_config, flake8, lint_imports, project, run

FINDINGS = [
    "trap/runtime/model.py:9:29: DOM301 trap.runtime.model imports forbidden trap.experiment.setup",
    "trap/runtime/model.py:9:29: DOM303 layers contract 'layers' broken: trap.runtime.model imports trap.experiment.setup",
    "trap/runtime/model.py:14:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    "trap/runtime/model.py:17:1: DOM201 function init_telemetry is defined outside trap.experiment; move it there",
]


@pytest.fixture
def trap(tmp_path: Path) -> Path:
    root = project(tmp_path, fixture="trap")
    # A conftest is run by pytest when it collects the directory: a trap for any tool
    # that imports what it finds. (Kept out of the repository, where pytest would run it.)
    shutil.copy(root / "trap" / "__init__.py", root / "trap" / "conftest.py")
    return root


def assert_never_imported(root: Path, *results: Result) -> None:
    assert sorted(root.rglob("IMPORTED")) == []
    for result in results:
        assert result.status != 3, result


# Runs every command of the CLI in one process, each in a fresh copy where it writes.
CLI_DRIVER = r"""
import contextlib, json, shutil, sys
from pathlib import Path
from click.testing import CliRunner
from domain_fence.integrations.cli import main

root = Path.cwd()
outcomes = {}

def invoke(name, args, cwd=root):
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, args)
    outcomes[name] = [result.exit_code, result.stdout, result.stderr, repr(result.exception)]

for format_ in ("text", "json", "sarif", "github", "markdown"):
    invoke(f"check {format_}", ["check", "--format", format_])
invoke("check verbose", ["check", "--verbose"])
invoke("explain", ["explain"])
invoke("explain DOM001", ["explain", "DOM001"])
shutil.copytree(root, root.parent / "for-baseline")
invoke("baseline", ["baseline"], root.parent / "for-baseline")
shutil.copytree(root, root.parent / "for-init", ignore=shutil.ignore_patterns(".importlinter"))
invoke("init", ["init"], root.parent / "for-init")
print(json.dumps(outcomes))
"""


def test_the_cli_never_imports_the_checked_code(trap):
    completed = subprocess.run(
        [sys.executable, "-c", CLI_DRIVER], cwd=trap, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    outcomes = json.loads(completed.stdout)
    for name, (status, stdout, stderr, exception) in outcomes.items():
        expected = 0 if name.startswith(("explain", "baseline", "init")) else 1
        assert (status, stderr) == (expected, ""), (name, stdout, stderr, exception)
    assert all(finding in outcomes["check text"][1] for finding in FINDINGS)
    assert outcomes["init"][1].startswith("wrote .importlinter: root package trap (detected)")
    for root in (trap, trap.parent / "for-baseline", trap.parent / "for-init"):
        assert_never_imported(root)


def test_a_root_package_under_a_regular_package_is_refused_unimported(trap):
    # grimp locates it with importlib, which would run trap/__init__.py first.
    edit_config(trap, "root_package = trap", "root_package = trap.runtime")
    result = run("domain-fence", "check", cwd=trap)
    assert result == Result(
        2,
        "",
        f"domain-fence: error: {trap / '.importlinter'}: [importlinter] root_packages: 'trap.runtime' is inside "
        "the regular package 'trap' (it has an __init__.py); name 'trap' instead\n",
    )
    assert_never_imported(trap, result)


def test_flake8_and_lint_imports_never_import_the_checked_code(trap):
    flake8_result = flake8("trap", cwd=trap)
    assert flake8_result == Result(1, "\n".join([FINDINGS[0], *FINDINGS[2:]]) + "\n", "")
    linted = lint_imports(cwd=trap)
    assert linted.status == 1 and FINDINGS[0] in linted.stdout
    assert_never_imported(trap, flake8_result, linted)


PYTEST_FILE = """
def test_findings(fence):
    assert [f.describe() for f in fence.findings()] == {findings!r}


def test_definitions(fence):
    assert [(d.module, d.name) for d in fence.definitions("init_*")] == [("trap.runtime.model", "init_telemetry")]


def test_check(fence):
    fence.check("vocabulary")
"""


def test_the_pytest_plugin_never_imports_the_checked_code(pytester, trap):
    for entry in trap.iterdir():
        target = pytester.path / entry.name
        (shutil.copytree if entry.is_dir() else shutil.copy)(entry, target)
    ours = [f for f in FINDINGS if "DOM303" not in f]  # layers is import-linter's own
    pytester.makepyfile(test_fence=PYTEST_FILE.format(findings=ours))
    # The test file and, named beside it, the configuration's contracts.
    result = pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", "test_fence.py", ".importlinter")
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_fence.py::test_check - Failed: Runtime events speak runtime BROKEN",
            "FAILED .importlinter::boundary - Runtime does not import experiment BROKEN",
            "FAILED .importlinter::vocabulary - Runtime events speak runtime BROKEN",
            "FAILED .importlinter::placement - init_telemetry lives under experiment BROKEN",
            "FAILED .importlinter::layers - Experiment sits above the runtime BROKEN",
        ]
    )
    assert result.ret == 1
    assert_never_imported(pytester.path)

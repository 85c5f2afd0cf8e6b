"""A repository can never run code in the tool's process: not through its packages
(see test_static_only), and not through a module named like one the tool itself
imports (``multiprocessing.py``, ``fcntl.py``, ``json.py`` ...) in the project root or
its ``src/``.

The names are not listed by hand: a driver runs every front end once and reports the
top-level names in ``sys.modules``; a canary named after each is written into a
project, and every front end runs over it in a subprocess. A canary that runs leaves
a marker and kills its process with status 3.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_support import flake8, project, run

# Slow: each front end started afresh in a project whose files shadow the tool's imports.
pytestmark = pytest.mark.slow

# Enough modules that the parse runs in worker processes (index.PARALLEL_MIN_FILES).
MANY = {f"app/runtime/m{number}.py": f"X = {number}\n" for number in range(80)}
LEAK = {"app/runtime/leak.py": "from app.experiment import setup\n"}

# Every front end once, in one process, over the project in the current directory.
NAMES_DRIVER = r"""
import contextlib, io, json, shutil, sys
from pathlib import Path
from click.testing import CliRunner
from domain_fence.integrations.cli import main

root = Path.cwd()
for args in (["check", "--no-cache"], ["baseline", "--no-cache"], ["check"], ["check", "--format", "sarif"]):
    CliRunner().invoke(main, args)
from flake8.main.cli import main as flake8_main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        flake8_main(["--select", "DOM", "app"])
    except SystemExit:
        pass
import pytest
with contextlib.redirect_stdout(io.StringIO()):
    pytest.main(["--domain-fence", "-p", "no:cacheprovider", "-q"])
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""

CANARY = (
    "import os\n"
    "open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'CANARY-RAN-' + __name__), 'w').close()\n"
    "os._exit(3)\n"
)


@pytest.fixture(scope="module")
def imported_names(tmp_path_factory) -> list[str]:
    root = project(tmp_path_factory.mktemp("names"), {**MANY, **LEAK})
    completed = subprocess.run(
        [sys.executable, "-c", NAMES_DRIVER], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    names = [n for n in json.loads(completed.stdout.splitlines()[-1]) if n.isidentifier() and not n.startswith("__")]
    assert {"multiprocessing", "fcntl", "concurrent", "json", "grimp", "importlinter", "rich"} <= set(names)
    return names


# pytest with the plugin disabled, over a failing test and a conftest.py: what pytest
# itself imports once it has put the rootdir on sys.path (pdb, when it configures its
# debugger) is pytest's to guard, not ours.
PYTEST_ALONE_DRIVER = r"""
import json, sys, pytest
pytest.main(["-p", "no:domain_fence", "-p", "no:cacheprovider", "-q"])
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""


@pytest.fixture(scope="module")
def pytest_own_names(tmp_path_factory) -> set[str]:
    root = tmp_path_factory.mktemp("pytest-alone")
    (root / "conftest.py").write_text("", encoding="utf-8")
    (root / "test_fails.py").write_text("def test_fails():\n    assert False\n", encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-c", PYTEST_ALONE_DRIVER], cwd=root, capture_output=True, text=True, timeout=300
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


@pytest.fixture
def canaries(tmp_path, imported_names) -> Path:
    root = project(tmp_path, {**MANY, **LEAK})
    for directory in (root, root / "src"):
        directory.mkdir(exist_ok=True)
        for name in imported_names:
            (directory / f"{name}.py").write_text(CANARY, encoding="utf-8")
    return root


def assert_no_canary_ran(root: Path, *results) -> None:
    assert sorted(p.name for p in root.rglob("CANARY-RAN-*")) == []
    for result in results:
        assert result.status != 3, result


LEAK_LINE = "app/runtime/leak.py:1:28: DOM301 app.runtime.leak imports forbidden app.experiment.setup"


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no cache", "cache"])
def test_check_and_baseline_never_import_a_module_of_the_project_named_like_ours(canaries, cache):
    checked = run("domain-fence", "check", "--quiet", *cache, cwd=canaries)
    assert_no_canary_ran(canaries, checked)
    assert checked.status == 1 and LEAK_LINE in checked.lines, checked
    recorded = run("domain-fence", "baseline", *cache, cwd=canaries)
    assert_no_canary_ran(canaries, recorded)
    assert recorded.status == 0, recorded


FENCE_TEST = """
def test_findings(fence):
    assert [f.code for f in fence.findings()] == ["DOM301"]
"""


@pytest.mark.parametrize("layout", ["bare", "rootdir conftest", "fence fixture"])
def test_the_pytest_plugin_never_imports_a_module_of_the_project_named_like_ours(canaries, layout, pytest_own_names):
    # A conftest.py or a test module in the root puts the root on sys.path (pytest's
    # prepend import mode) before the plugin imports what it needs.
    passed = 2
    if layout != "bare":
        (canaries / "conftest.py").write_text("", encoding="utf-8")
        for name in pytest_own_names:
            (canaries / f"{name}.py").unlink(missing_ok=True)
    if layout == "fence fixture":
        (canaries / "test_fence.py").write_text(FENCE_TEST, encoding="utf-8")
        passed = 3
    tested = run("pytest", "--domain-fence", "-p", "no:cacheprovider", "-q", cwd=canaries)
    assert_no_canary_ran(canaries, tested)
    assert tested.status == 1 and f"2 failed, {passed} passed" in tested.stdout, tested
    # flake8 never put the project on sys.path; it is checked all the same.
    linted = flake8("app", cwd=canaries)
    assert_no_canary_ran(canaries, linted)
    assert linted.lines == [LEAK_LINE], linted


# lint-imports alone (built-in contracts only): what it imports after putting the current
# directory on sys.path is import-linter's to guard, not ours.
LINT_IMPORTS_ALONE_DRIVER = r"""
import json, sys
from click.testing import CliRunner
from importlinter.cli import lint_imports_command
CliRunner().invoke(lint_imports_command, ["--no-cache"])
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""
LAYERS_ONLY = """\
[importlinter]
root_package = app

[importlinter:contract:layers]
name = layers
type = layers
layers =
    app.experiment
    app.runtime
"""


def test_lint_imports_never_imports_a_module_of_the_project_through_our_contract_types(canaries, tmp_path):
    alone = project(tmp_path / "alone", MANY)
    (alone / ".importlinter").write_text(LAYERS_ONLY, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS_ALONE_DRIVER], cwd=alone, capture_output=True, text=True, timeout=300
    )
    # import-linter imports our contract types by name from the current directory first:
    # a domain_fence.py there is import-linter's lookup, not ours.
    for name in [*json.loads(completed.stdout.splitlines()[-1]), "domain_fence"]:
        for directory in (canaries, canaries / "src"):
            (directory / f"{name}.py").unlink(missing_ok=True)
    linted = run("lint-imports", "--no-logo", "--no-cache", cwd=canaries)
    assert_no_canary_ran(canaries, linted)
    assert linted.status == 1 and "app.runtime.leak -> app.experiment.setup" in linted.stdout, linted

"""Hostile trees: whatever below a root package is not analysed is a DOM001 finding in
every front end, never a silent pass; and nothing hangs or reads without end.

Cases: a directory without ``__init__.py`` inside a package (Python imports its
files, grimp does not see them), an unreadable directory, a symlinked subpackage
(followed, as grimp follows it), a ``.py`` that is a FIFO or a device or too large,
``lm.py`` beside ``lm/__init__.py`` (Python imports the package), a symlinked file
(shown where the project has it), a wildcard module expression matching nothing, and
``__pycache__`` (no source, unless made a package).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_support import BIN, Result, cli, edit_config, flake8, lint_imports, project, run
from support import flake8_stdin, write_tree

from domain_fence.core.engine import runcache

CONFIG = ".importlinter"
STATS = "\n".join(
    [
        "from app.runtime.events import Event",
        "from app.experiment import setup",
        "",
        "",
        "class Stats(Event):",
        "    episode: int",
        "",
    ]
)


def dom001(path: str, reason: str, line: int = 1) -> str:
    return f"{path}:{line}:1: DOM001 skipped: {reason}"


def pytest_run(pytester, root: Path):
    """``pytest --domain-fence`` over a copy of ``root`` (symbolic links kept), in this
    process (a tree holding special files is tested in a subprocess, below)."""
    for entry in root.iterdir():
        target = pytester.path / entry.name
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True)
        else:
            shutil.copy(entry, target, follow_symlinks=False)
    return pytester.runpytest("--domain-fence", "-p", "no:cacheprovider", "-rf")


# -- a namespace directory inside a package ------------------------------------------------


NAMESPACE = "not analysed: ns/ has no __init__.py (a namespace directory inside a package)"


@pytest.mark.parametrize("file", ["app/runtime/ns/leak.py", "app/runtime/ns/deeper/leak.py"], ids=["one", "nested"])
def test_a_namespace_directory_inside_a_package_is_reported_everywhere(pytester, tmp_path, file):
    root = project(tmp_path, {file: STATS})
    finding = dom001(file, NAMESPACE)
    # boundary, vocabulary and placement each say so (layers is import-linter's own).
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")
    recorded = cli("baseline", cwd=root)
    assert recorded.status == 0
    assert recorded.lines[-1] == f"not recorded, fix it (no baseline accepts DOM001): {file}: skipped: {NAMESPACE}"
    assert flake8("app", cwd=root) == Result(1, finding + "\n", "")
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and finding in linted.stdout.replace("\n", "")
    tested = pytest_run(pytester, root)
    tested.assert_outcomes(passed=1, failed=3)
    assert finding in tested.stdout.lines


def test_a_linked_namespace_directory_inside_a_package_is_reported_by_flake8_too(tmp_path):
    # flake8 does not go through the directory link unless it is named: it shows the
    # files below at the package's __init__.py, and at each file when it is named.
    root = project(tmp_path)
    write_tree(tmp_path / "elsewhere", {"leak.py": STATS})
    os.symlink(tmp_path / "elsewhere", root / "app/runtime/ns")
    finding = dom001("app/runtime/ns/leak.py", NAMESPACE)
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")
    shown = dom001("app/runtime/__init__.py", f"app/runtime/ns/leak.py: {NAMESPACE}")
    assert flake8("app", cwd=root) == Result(1, f"{shown}\n", "")
    assert flake8("app/runtime/ns", cwd=root) == Result(1, f"{finding}\n", "")
    assert flake8("app/runtime/ns/leak.py", cwd=root) == Result(1, f"{finding}\n", "")


# -- __pycache__ ---------------------------------------------------------------------------


def settled(root: Path, *files: str) -> None:
    """``files`` below ``root`` (all by default) an hour old: a check's results are kept
    for the next run only when no file is a moment old."""
    for path in [root / file for file in files] or [path for path in root.rglob("*") if path.is_file()]:
        os.utime(path, (path.stat().st_mtime - 3600,) * 2)


@pytest.fixture
def checked_clean(tmp_path, monkeypatch) -> Path:
    """The app project, settled and checked once: its clean report kept for the next run."""
    monkeypatch.setattr(runcache, "TOOLS", ())  # a tool's file a moment old keeps no run
    root = project(tmp_path)
    settled(root)
    assert cli("check", "--quiet", cwd=root) == Result(0, "", "")
    return root


def assert_clean_everywhere(root: Path, package: str) -> None:
    """check kept from the last run and anew, flake8 and lint-imports: all clean."""
    assert cli("check", "--quiet", cwd=root) == Result(0, "", "")
    assert cli("check", "--quiet", "--no-cache", cwd=root) == Result(0, "", "")
    assert flake8(package, cwd=root) == Result(0, "", "")
    assert lint_imports(cwd=root).status == 0


@pytest.mark.parametrize(
    "file", ["app/runtime/__pycache__/leak.py", "app/runtime/ns/__pycache__/leak.py"], ids=["package", "namespace"]
)
def test_a_py_in_a_pycache_is_no_source_to_any_front_end(checked_clean, file):
    # Python writes compiled files there; flake8 and ruff pass it by, and so does the
    # run cache's look at the tree: a check kept from the last run and one anew agree.
    root = checked_clean
    (root / file).parent.mkdir(parents=True)
    (root / file).write_text(STATS, encoding="utf-8")
    settled(root, file)
    assert_clean_everywhere(root, "app")


def test_a_pycache_made_a_package_is_checked_as_grimp_sees_it(checked_clean):
    root = checked_clean
    (root / "app/runtime/__pycache__").mkdir()
    (root / "app/runtime/__pycache__/__init__.py").write_text(STATS, encoding="utf-8")
    settled(root, "app/runtime/__pycache__/__init__.py")
    kept = cli("check", "--quiet", cwd=root)
    assert kept.status == 1 and "app/runtime/__pycache__/__init__.py" in kept.stdout
    assert kept == cli("check", "--quiet", "--no-cache", cwd=root)
    assert lint_imports(cwd=root).status == 1


def test_a_pycache_whose_init_is_a_broken_link_is_looked_into(checked_clean):
    # grimp lists an __init__.py of any kind, and fails on it: no run replays a pass.
    root = checked_clean
    (root / "app/runtime/__pycache__").mkdir()
    (root / "app/runtime/__pycache__/__init__.py").symlink_to(root / "nowhere.py")
    failed = dom001(
        ".importlinter",
        f"the import graph cannot be built: [Errno 2] No such file or directory: "
        f"'{root / 'app/runtime/__pycache__/__init__.py'}'",
        line=36,
    )
    for options in ([], ["--no-cache"]):
        checked = cli("check", "--quiet", *options, cwd=root)
        assert checked.status == 1 and failed in checked.lines


# -- a namespace root ----------------------------------------------------------------------


NAMESPACE_ROOT = """[importlinter]
root_packages =
    nsp
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract

[importlinter:contract:runtime]
name = Runtime does not import experiment
type = boundary
source_modules =
    nsp
forbidden_modules =
    nsp.exp
"""


@pytest.mark.parametrize(
    "file",
    ["nsp/sub/evil.py", "nsp/__pycache__/evil.py", "nsp/shadowed/evil.py"],
    ids=["plain", "pycache", "beside a module of its name"],
)
def test_a_namespace_root_s_plain_directories_are_checked_as_grimp_sees_them(tmp_path, monkeypatch, file):
    # grimp finds modules in them (namespace packages): every run must see them change.
    monkeypatch.setattr(runcache, "TOOLS", ())
    tree = {
        ".importlinter": NAMESPACE_ROOT,
        "nsp/run/__init__.py": "",
        "nsp/exp/__init__.py": "",
        "nsp/shadowed.py": "",
        file: "import nsp.exp\n",
    }
    root = tmp_path / "project"
    write_tree(root, tree)
    settled(root)
    crossing = f"{file}:1:8: DOM301 {file[:-3].replace('/', '.')} imports forbidden nsp.exp"
    assert cli("check", "--quiet", cwd=root) == Result(1, crossing + "\n", "")
    assert cli("check", "--quiet", cwd=root) == Result(1, crossing + "\n", "")  # kept from the last run
    # flake8 leaves __pycache__ out of its files by default (its `exclude`): there it says nothing.
    assert flake8("nsp", cwd=root) == (Result(0, "", "") if "__pycache__" in file else Result(1, crossing + "\n", ""))
    assert lint_imports(cwd=root).status == 1
    (root / file).write_text("import nsp.run\n", encoding="utf-8")
    settled(root, file)
    assert_clean_everywhere(root, "nsp")


def test_a_symlink_loop_right_in_a_namespace_root_is_shown_by_flake8(tmp_path):
    # No package holds it, so no __init__.py: it is shown at the first file flake8
    # checks (or the one it reads), else the boundary, which cannot run, passes in silence.
    tree = {".importlinter": NAMESPACE_ROOT, "nsp/exp/__init__.py": "", "nsp/run/__init__.py": "", "nsp/run/a.py": ""}
    root = tmp_path / "project"
    write_tree(root, tree)
    os.symlink("..", root / "nsp/loop")
    assert cli("check", "--quiet", cwd=root) == Result(
        1, dom001("nsp/loop/nsp", "symlink loop: leads back to nsp") + "\n", ""
    )
    reason = "nsp/loop/nsp: symlink loop: leads back to nsp"
    assert flake8("nsp", cwd=root) == Result(1, dom001("nsp/exp/__init__.py", reason) + "\n", "")
    assert flake8("nsp/run/a.py", cwd=root) == Result(1, dom001("nsp/run/a.py", reason) + "\n", "")


# -- an unreadable directory --------------------------------------------------------------


def as_user(command: list[str]) -> list[str]:
    """``command`` without the power to read what permissions forbid (root has it)."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", *command]


def run_as_user(*command: str, cwd: Path) -> Result:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    completed = subprocess.run(
        as_user(list(command)), cwd=cwd, env=environment, capture_output=True, text=True, timeout=120
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


@pytest.fixture
def locked(tmp_path):
    root = project(tmp_path, {"app/runtime/locked/__init__.py": "", "app/runtime/locked/leak.py": STATS})
    (root / "app/runtime/locked").chmod(0o000)
    yield root
    (root / "app/runtime/locked").chmod(0o755)


def test_an_unreadable_directory_is_reported_everywhere(locked):
    root = locked
    finding = dom001("app/runtime/locked", "cannot read directory: Permission denied")
    # The graph cannot be built without it: boundary and layers are not run.
    checked = run_as_user(str(BIN / "domain-fence"), "check", "--quiet", "--no-cache", cwd=root)
    assert checked == Result(1, f"{finding}\n", "")
    recorded = run_as_user(str(BIN / "domain-fence"), "baseline", "--no-cache", cwd=root)
    assert recorded == Result(
        2,
        "",
        f"domain-fence: error: {root / CONFIG}: cannot build the import graph: "
        "app/runtime/locked:1: cannot read directory: Permission denied\n",
    )
    assert not (root / ".domain-fence-baseline.json").exists()
    linted = run_as_user(str(BIN / "flake8"), "--select", "DOM", "--jobs", "1", "app", cwd=root)
    assert linted == Result(
        1, dom001("app/runtime/__init__.py", "app/runtime/locked: cannot read directory: Permission denied") + "\n", ""
    )
    imports = run_as_user(str(BIN / "lint-imports"), "--no-logo", "--no-cache", cwd=root)
    assert imports.status == 1 and finding in imports.stdout
    # The configuration named: pytest's own collection would stop at the directory.
    tested = run_as_user(str(BIN / "pytest"), "--domain-fence", "-p", "no:cacheprovider", "-q", CONFIG, cwd=root)
    assert tested.status == 1 and finding in tested.lines


# -- a symlinked subpackage ----------------------------------------------------------------


@pytest.fixture
def linked(tmp_path):
    root = project(tmp_path)
    shared = tmp_path / "shared" / "linked"
    shared.mkdir(parents=True)
    (shared / "__init__.py").write_text("")
    (shared / "stats.py").write_text(STATS + "\n\ndef init_telemetry():\n    pass\n")
    os.symlink(shared, root / "app/runtime/linked")
    return root


LINKED = [
    "app/runtime/linked/stats.py:2:28: DOM301 app.runtime.linked.stats imports forbidden app.experiment.setup",
    "app/runtime/linked/stats.py:2:28: DOM303 layers contract 'layers' broken: "
    "app.runtime.linked.stats imports app.experiment.setup",
    "app/runtime/linked/stats.py:6:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    "app/runtime/linked/stats.py:9:1: DOM201 function init_telemetry is defined outside app.experiment; move it there",
]


def test_a_symlinked_subpackage_is_followed_by_every_front_end(pytester, linked):
    root = linked
    # Shown where the project has it, not at its target outside the project.
    assert cli("check", "--quiet", cwd=root) == Result(1, "\n".join(LINKED) + "\n", "")
    recorded = cli("baseline", cwd=root)
    summaries = [line for line in recorded.lines if not line.startswith("  ")]  # below: each entry added
    assert summaries == [".domain-fence-baseline.json: 3 recorded (3 added, 0 pruned, 0 still present); written"]
    (root / ".domain-fence-baseline.json").unlink()
    # flake8 does not enter directory links: it says so, and checks the link when named.
    assert flake8("app", cwd=root) == Result(
        1,
        dom001(
            "app/runtime/__init__.py",
            "app/runtime/linked/ is a symlinked subpackage, which flake8 does not enter; name it as a path",
        )
        + "\n",
        "",
    )
    assert flake8("app/runtime/linked", cwd=root) == Result(1, f"{LINKED[0]}\n{LINKED[2]}\n{LINKED[3]}\n", "")
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and LINKED[2] in linted.stdout
    tested = pytest_run(pytester, root)
    tested.assert_outcomes(failed=4)
    assert {LINKED[0], LINKED[2], LINKED[3]} <= set(tested.stdout.lines)


def test_a_symlinked_module_is_shown_where_the_project_has_it(tmp_path):
    root = project(tmp_path)
    target = tmp_path / "elsewhere.py"
    target.write_text(STATS)
    os.symlink(target, root / "app/runtime/stats.py")
    assert cli("check", "--quiet", cwd=root).lines == [
        "app/runtime/stats.py:2:28: DOM301 app.runtime.stats imports forbidden app.experiment.setup",
        "app/runtime/stats.py:2:28: DOM303 layers contract 'layers' broken: "
        "app.runtime.stats imports app.experiment.setup",
        "app/runtime/stats.py:6:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    ]


# -- files that are not regular, or too large ----------------------------------------------


SPECIAL = "not a regular file (a FIFO, device or socket)"


def special_file(root: Path, kind: str) -> None:
    path = root / "app/runtime/special.py"
    if kind == "fifo in a namespace directory":
        path = root / "app/runtime/ns/special.py"
        path.parent.mkdir(exist_ok=True)
        os.mkfifo(path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink(f"/dev/{kind}", path)


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs or /dev")
@pytest.mark.parametrize("kind", ["fifo", "zero", "null"])
def test_a_py_that_is_no_regular_file_is_never_read(pytester, tmp_path, kind):
    root = project(tmp_path)
    special_file(root, kind)
    finding = dom001("app/runtime/special.py", SPECIAL)
    checked = run("domain-fence", "check", "--quiet", cwd=root, timeout=60)
    assert checked == Result(1, f"{finding}\n", "")
    assert run("domain-fence", "baseline", cwd=root, timeout=60) == Result(
        2,
        "",
        f"domain-fence: error: {root / CONFIG}: cannot build the import graph: app/runtime/special.py:1: {SPECIAL}\n",
    )
    linted = run("flake8", "--select", "DOM", "--jobs", "1", "app", cwd=root, timeout=60)
    assert linted == Result(1, dom001("app/runtime/__init__.py", f"app/runtime/special.py: {SPECIAL}") + "\n", "")
    tested = pytest_run_with_special(pytester, root, kind)
    tested.assert_outcomes(failed=4)
    assert finding in tested.stdout.lines


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_a_fifo_is_never_read_through_a_linked_path(tmp_path):
    # flake8 matches its excludes against the path as it walks it: given the project
    # through a link (/tmp on macOS, a symlinked checkout), the FIFO is excluded there too.
    root = project(tmp_path)
    special_file(root, "fifo")
    os.symlink(root, tmp_path / "linked")
    shown = dom001(f"{tmp_path}/linked/app/runtime/__init__.py", f"app/runtime/special.py: {SPECIAL}")
    linted = run("flake8", "--select", "DOM", "--jobs", "1", str(tmp_path / "linked/app"), cwd=root, timeout=60)
    assert linted == Result(1, shown + "\n", "")


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_what_blocks_the_graph_is_shown_at_a_linked_module_flake8_is_given(tmp_path):
    # A module that is a link to a file elsewhere: the first (here only) file flake8
    # checks, where what lies in no checked package is shown.
    root = project(tmp_path)
    special_file(root, "fifo")
    (root / "shared.py").write_text("VALUE = 1\n", encoding="utf-8")
    os.symlink("../../shared.py", root / "app/runtime/linked.py")
    shown = dom001("app/runtime/linked.py", f"app/runtime/special.py: {SPECIAL}")
    linted = run("flake8", "--select", "DOM", "--jobs", "1", "app/runtime/linked.py", cwd=root, timeout=60)
    assert linted == Result(1, shown + "\n", "")


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_a_fifo_in_a_namespace_directory_is_never_read(tmp_path):
    root = project(tmp_path)
    special_file(root, "fifo in a namespace directory")
    finding = dom001("app/runtime/ns/special.py", NAMESPACE)
    assert run("domain-fence", "check", "--quiet", cwd=root, timeout=60) == Result(1, f"{finding}\n", "")
    linted = run("flake8", "--select", "DOM", "--jobs", "1", "app", cwd=root, timeout=60)
    reason = f"app/runtime/ns/special.py: {NAMESPACE}"
    assert linted == Result(1, dom001("app/runtime/__init__.py", reason) + "\n", "")


def pytest_run_with_special(pytester, root: Path, kind: str):
    (root / "app/runtime/special.py").unlink()
    try:
        for entry in root.iterdir():
            target = pytester.path / entry.name
            (shutil.copytree if entry.is_dir() else shutil.copy)(entry, target)
    finally:
        special_file(root, kind)
    special_file(pytester.path, kind)
    return pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", "-rf", timeout=120)


def test_a_file_above_the_size_limit_is_not_read(tmp_path):
    root = project(tmp_path, {"app/runtime/big.py": "X = 1\n" * 2000})
    reason = "larger than 1000 bytes (see DOMAIN_FENCE_MAX_FILE_SIZE)"
    environment = {"DOMAIN_FENCE_MAX_FILE_SIZE": "1000"}
    finding = dom001("app/runtime/big.py", reason)
    assert run("domain-fence", "check", "--quiet", cwd=root, env=environment) == Result(1, f"{finding}\n", "")
    # Kept from flake8's walk, which would read it whole (and parse it, and run every
    # check on it): shown at its package's __init__.py.
    assert flake8("app", cwd=root, env=environment) == Result(
        1, dom001("app/runtime/__init__.py", f"app/runtime/big.py: {reason}") + "\n", ""
    )
    # Named (pre-commit, a user), it is read as flake8 reads it without the plugin, and
    # shown at itself; else, given another file, at that file.
    assert flake8("app/runtime/big.py", cwd=root, env=environment) == Result(1, f"{finding}\n", "")
    both = flake8("app/runtime/big.py", "app/runtime/events.py", cwd=root, env=environment)
    assert both == Result(1, f"{finding}\n", "")
    other = flake8("app/runtime/events.py", cwd=root, env=environment)
    assert other == Result(1, dom001("app/runtime/events.py", f"app/runtime/big.py: {reason}") + "\n", "")
    # From stdin (an editor), flake8 excludes by the name it stands for: not left out.
    piped = subprocess.run(
        [str(BIN / "flake8"), "--select", "DOM", "--stdin-display-name=app/runtime/big.py", "-"],
        input=(root / "app/runtime/big.py").read_text(encoding="utf-8"),
        cwd=root,
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
    )
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, f"{finding}\n", "")


@pytest.mark.parametrize("named", ["app.runtime.events", "app.experiment.setup", "app.experiment.*"])
def test_a_module_the_configuration_names_is_skipped_not_called_misspelt(tmp_path, named):
    # The event base's module, or a forbidden one, too large to read: a DOM001 where it
    # is, never "names no class of the project" or "does not exist" (exit 2), which
    # would send the user hunting for a typo.
    root = project(tmp_path)
    path = named.replace(".*", ".setup").replace(".", "/") + ".py"  # a wildcard whose one match is skipped
    edit_config(
        root,
        "    app.experiment\n\n[importlinter:contract:vocabulary]",
        f"    {named}\n\n[importlinter:contract:vocabulary]",
    )
    environment = {"DOMAIN_FENCE_MAX_FILE_SIZE": str((root / path).stat().st_size - 1)}
    finding = dom001(path, f"larger than {(root / path).stat().st_size - 1} bytes (see DOMAIN_FENCE_MAX_FILE_SIZE)")
    checked = run("domain-fence", "check", "--quiet", cwd=root, env=environment)
    assert (checked.status, checked.stderr) == (1, "") and finding in checked.lines, checked
    package = path.rsplit("/", 1)[0]
    at_init = dom001(f"{package}/__init__.py", f"{path}: {finding.split('DOM001 skipped: ', 1)[1]}")
    linted = flake8("app", cwd=root, env=environment)
    assert (linted.status, linted.stderr) == (1, "") and at_init in linted.lines, linted


@pytest.mark.parametrize("limit", ["0", "-1", "many"])
def test_a_size_limit_that_is_no_positive_number_breaks_our_contracts_under_lint_imports(tmp_path, limit):
    # Taken as given, -1 would have every file skipped; taken as the default, a typo would
    # go unseen. domain-fence's own front ends refuse it (test_hostile_inputs).
    root = project(tmp_path)
    linted = lint_imports(cwd=root, env={"DOMAIN_FENCE_MAX_FILE_SIZE": limit})
    assert linted.status == 1
    assert f"DOMAIN_FENCE_MAX_FILE_SIZE={limit!r}: expected a positive whole number of bytes" in linted.stdout


# -- lm.py beside lm/__init__.py ---------------------------------------------------------


SHADOWED = "not analysed: shadowed by the package lm/ (Python imports the package)"


def test_a_module_shadowed_by_a_package_is_reported_not_blamed_on_the_package(pytester, tmp_path):
    root = project(
        tmp_path,
        {"app/runtime/lm/__init__.py": '"""The package."""\nimport os\n', "app/runtime/lm.py": STATS},
    )
    finding = dom001("app/runtime/lm.py", SHADOWED)
    # Never "lm/__init__.py:2" for an import that lives in lm.py.
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")
    assert flake8("app", cwd=root) == Result(1, finding + "\n", "")
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and finding in linted.stdout.replace("\n", "")
    tested = pytest_run(pytester, root)
    tested.assert_outcomes(failed=4)
    assert finding in tested.stdout.lines


def test_a_shadowed_module_keeps_the_boundary_from_running_wherever_it_is_checked(tmp_path):
    # It keeps the graph from being built: given changed files only (pre-commit) or stdin
    # (an editor), flake8 shows it at the file it checks, else a new crossing beside it
    # passes in silence; lint-imports, whose graph grimp built anyway, does not run the
    # contract on it either (a graph the other front ends refuse).
    changed = "app/runtime/leak.py"
    root = project(
        tmp_path, {"app/runtime/lm/__init__.py": "", "app/runtime/lm.py": "x = 1\n", changed: "import app.experiment\n"}
    )
    at_file = dom001(changed, f"app/runtime/lm.py: {SHADOWED}")
    assert flake8(changed, cwd=root) == Result(1, at_file + "\n", "")
    piped = flake8_stdin(root, changed, "import app.experiment\n")
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, at_file + "\n", "")
    assert flake8("app/runtime/lm.py", cwd=root) == Result(1, dom001("app/runtime/lm.py", SHADOWED) + "\n", "")
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and "DOM301" not in linted.stdout
    assert "contract not run" in linted.stdout


# -- a file named like no identifier -------------------------------------------------------


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside a package of its name"])
def test_a_module_named_like_no_identifier_is_checked_as_grimp_sees_it(checked_clean, beside):
    # No import statement can name my-mod.py, but grimp makes it a module of the graph
    # (a file not hidden, with no other dot): every front end reads it, at its own path.
    # grimp enters no directory so named: my-mod/__init__.py shadows nothing.
    root = checked_clean
    if beside:
        (root / "app/runtime/my-mod").mkdir()
        (root / "app/runtime/my-mod/__init__.py").write_text("", encoding="utf-8")
    (root / "app/runtime/my-mod.py").write_text(STATS, encoding="utf-8")
    settled(root)
    crossing = "app/runtime/my-mod.py:2:28: DOM301 app.runtime.my-mod imports forbidden app.experiment.setup"
    field = "app/runtime/my-mod.py:6:5: DOM101 "
    checked = cli("check", "--quiet", cwd=root)
    assert checked.status == 1 and crossing in checked.lines, checked.stdout
    assert any(line.startswith(field) for line in checked.lines), checked.stdout
    assert checked == cli("check", "--quiet", cwd=root)  # kept from the last run
    assert checked == cli("check", "--quiet", "--no-cache", cwd=root)
    flake8ed = flake8("app", cwd=root)
    assert flake8ed.status == 1 and crossing in flake8ed.lines
    assert any(line.startswith(field) for line in flake8ed.lines), flake8ed.stdout
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and crossing in linted.lines, linted.stdout


def test_a_module_named_like_no_identifier_can_be_named_in_a_contract(checked_clean):
    # Every contract reads it: each list must be able to name it.
    root = checked_clean
    (root / "app/runtime/my-mod.py").write_text(STATS, encoding="utf-8")
    settled(root)
    config = root / ".importlinter"
    text = config.read_text(encoding="utf-8")
    text = text.replace(
        "forbidden_modules =\n    app.experiment\n",
        "forbidden_modules =\n    app.experiment\nexclude_modules =\n    app.runtime.my-mod\n",
        1,
    )
    text = text.replace("words =\n", "exclude_modules =\n    app.runtime.my-mod\nwords =\n", 1)
    config.write_text(text, encoding="utf-8")
    # (Its import still breaks import-linter's own layers contract, which lists no exclusion.)
    for result in (cli("check", "--quiet", cwd=root), flake8("app", cwd=root)):
        assert result.stderr == "" and "DOM301" not in result.stdout and "DOM101" not in result.stdout, result


def test_a_file_grimp_does_not_read_as_a_module_is_no_source(checked_clean):
    # Hidden, or with another dot (some.module.py): grimp passes it by, and so does every front end.
    root = checked_clean
    for name in (".hidden.py", "some.module.py"):
        (root / "app/runtime" / name).write_text(STATS, encoding="utf-8")
    settled(root, "app/runtime/.hidden.py", "app/runtime/some.module.py")
    assert_clean_everywhere(root, "app")


# -- flake8 under `select = DOM` -------------------------------------------------------------


def test_flake8_never_passes_a_file_it_cannot_parse_whatever_it_selects(tmp_path):
    root = project(tmp_path, {"app/runtime/broken.py": "def broken(:\n"})
    assert run("flake8", "--select", "DOM", "app", cwd=root) == Result(
        1, "app/runtime/broken.py:1:13: E999 SyntaxError: invalid syntax\n", ""
    )
    (root / "setup.cfg").write_text("[flake8]\nselect = DOM\n")
    assert run("flake8", "app", cwd=root).status == 1


def test_flake8_never_passes_a_file_it_cannot_read_whatever_it_selects(tmp_path):
    root = project(tmp_path, {"app/runtime/secret.py": "X = 1\n"})
    (root / "app/runtime/secret.py").chmod(0o000)
    try:
        linted = run_as_user(str(BIN / "flake8"), "--select", "DOM", "--jobs", "1", "app", cwd=root)
    finally:
        (root / "app/runtime/secret.py").chmod(0o644)
    assert linted.status == 1
    assert linted.lines == [
        "app/runtime/secret.py:0:1: E902 PermissionError: [Errno 13] Permission denied: 'app/runtime/secret.py'"
    ]


# -- a wildcard that matches nothing ---------------------------------------------------------


@pytest.mark.parametrize(
    "option, expression",
    [("forbidden_modules", "app.experiments.**"), ("source_modules", "app.runtme.*")],
)
def test_a_wildcard_matching_no_module_is_a_configuration_error(pytester, tmp_path, option, expression):
    root = project(tmp_path)
    old = {
        "forbidden_modules": "forbidden_modules =\n    app.experiment\n",
        "source_modules": "source_modules =\n    app.runtime\n",
    }
    edit_config(root, old[option], f"{option} =\n    {expression}\n")
    problem = f"{option}: {expression!r} matches no module of the root packages; is it misspelt?"
    message = f"{root / CONFIG}: [importlinter:contract:boundary] {problem}"
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", f"domain-fence: error: {message}\n"), command
    assert flake8("app", cwd=root) == Result(
        2, "", f"flake8: domain-fence: error: {root / CONFIG}: [importlinter:contract:boundary] {problem}\n"
    )
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and "matches no module of the root packages" in linted.stdout
    tested = pytest_run(pytester, root)  # a usage error, as in every front end
    assert tested.ret == pytest.ExitCode.USAGE_ERROR and problem in tested.stderr.str()


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_a_fifo_added_while_the_editor_s_engine_runs_is_found_before_the_graph_is_built(tmp_path):
    # A run that checks once builds the graph from the files its engine found as it
    # started; the editor's engine lives on, so it looks at the files again each time.
    from domain_fence.core.families import GraphUnavailableError
    from domain_fence.integrations.lsp import analysis

    root = project(tmp_path)
    engine = analysis._engine(root / CONFIG)  # as the language server builds its engine
    special_file(root, "fifo")
    with pytest.raises(GraphUnavailableError) as raised:
        engine.context.graph()
    assert [(str(blocker.path), blocker.reason) for blocker in raised.value.blockers] == [
        ("app/runtime/special.py", SPECIAL)
    ]

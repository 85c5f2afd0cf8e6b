"""The hooks of `.pre-commit-hooks.yaml`, installed by real pre-commit (`try-repo`) from
a snapshot of this working tree into a fixture repository, flat and src layout (the
project itself is never installed in the hooks' environment).

pre-commit installs domain-fence and its dependencies from PyPI into its own
environment, so this test needs the network and takes a while (marked slow).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support import BIN, REPO

pytestmark = pytest.mark.slow

CONFIG = """\
[importlinter]
root_package = proj
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    proj.runtime
forbidden_modules =
    proj.experiment
"""

SOURCES = {
    "proj/__init__.py": "",
    "proj/runtime/__init__.py": "",
    "proj/runtime/model.py": "VALUE = 1\n",
    "proj/experiment/__init__.py": "",
    "proj/experiment/run.py": "from proj.runtime import model\n",
}
LAYOUTS = {"flat": "", "src": "src/"}
VIOLATION = "from proj.experiment import run\n\nVALUE = 1\n"


def git(*args: str, cwd: Path) -> str:
    identity = [
        "-c",
        "user.name=domain-fence tests",
        "-c",
        "user.email=tests@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    completed = subprocess.run(["git", *identity, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return completed.stdout.strip()


def commit_all(directory: Path) -> str:
    git("add", "-A", cwd=directory)
    git("commit", "-q", "-m", "snapshot", cwd=directory)
    return git("rev-parse", "HEAD", cwd=directory)


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory) -> tuple[Path, str]:
    """The working tree as it is now, committed to a fresh repository (the lead commits
    only now and then, and try-repo installs from a commit)."""
    snapshot = tmp_path_factory.mktemp("hooks") / "domain-fence"
    # What a checkout of the working tree holds: tracked files and new ones git does not ignore.
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO)
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is gone
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git("init", "-q", cwd=snapshot)
    return snapshot, commit_all(snapshot)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    """One pre-commit cache for the module: each hook environment is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(params=sorted(LAYOUTS))
def layout(request) -> str:
    return LAYOUTS[request.param]


@pytest.fixture
def project(tmp_path: Path, layout: str) -> Path:
    root = tmp_path / "project"
    files = {".importlinter": CONFIG, **{layout + name: text for name, text in SOURCES.items()}}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git("init", "-q", cwd=root)
    commit_all(root)
    return root


def try_repo(project: Path, hook_repository: tuple[Path, str], home: Path) -> subprocess.CompletedProcess[str]:
    repository, revision = hook_repository
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(
        [str(BIN / "pre-commit"), "try-repo", str(repository), "--ref", revision, "--all-files", "--color", "never"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )


def hook_status(output: str, hook: str) -> str | None:
    match = re.search(rf"^{re.escape(hook)}\.+(Passed|Failed)$", output, re.MULTILINE)
    return match[1] if match else None


def test_hooks_install_themselves_pass_on_a_clean_tree_and_fail_on_a_violating_one(
    project, layout, hook_repository, pre_commit_home
):
    clean = try_repo(project, hook_repository, pre_commit_home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert hook_status(clean.stdout, "domain-fence") == "Passed"
    assert hook_status(clean.stdout, "lint-imports") == "Passed"

    (project / layout / "proj/runtime/model.py").write_text(VIOLATION)
    git("add", "-A", cwd=project)
    violating = try_repo(project, hook_repository, pre_commit_home)
    assert violating.returncode == 1, violating.stdout + violating.stderr
    assert hook_status(violating.stdout, "domain-fence") == "Failed"
    assert hook_status(violating.stdout, "lint-imports") == "Failed"
    finding = f"{layout}proj/runtime/model.py:1:29: DOM301 proj.runtime.model imports forbidden proj.experiment.run"
    # Once from each hook: both found the package, wherever it lies.
    assert violating.stdout.count(finding) == 2, violating.stdout


def local_recipe() -> str:
    """The README's `repo: local` recipe, as written there."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", readme, re.DOTALL)
    [local] = [block for block in blocks if "repo: local" in block]
    return local


def test_the_readme_local_recipe_runs_the_installed_domain_fence(project, layout, pre_commit_home):
    (project / ".pre-commit-config.yaml").write_text(local_recipe())
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PRE_COMMIT_HOME"] = str(pre_commit_home)
    environment["PATH"] = f"{BIN}{os.pathsep}{environment.get('PATH', '')}"  # the development environment

    def run() -> subprocess.CompletedProcess[str]:
        git("add", "-A", cwd=project)
        command = [str(BIN / "pre-commit"), "run", "--all-files", "--color", "never"]
        return subprocess.run(command, cwd=project, env=environment, capture_output=True, text=True, timeout=300)

    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert hook_status(clean.stdout, "domain-fence") == "Passed"
    assert hook_status(clean.stdout, "lint-imports") == "Passed"
    (project / layout / "proj/runtime/model.py").write_text(VIOLATION)
    violating = run()
    assert violating.returncode == 1, violating.stdout + violating.stderr
    assert hook_status(violating.stdout, "domain-fence") == "Failed"
    assert hook_status(violating.stdout, "lint-imports") == "Failed"
    finding = f"{layout}proj/runtime/model.py:1:29: DOM301 proj.runtime.model imports forbidden proj.experiment.run"
    assert violating.stdout.count(finding) == 2, violating.stdout


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
@pytest.mark.parametrize("hook", ["ruff-check", "ruff-format", "domain-fence-flake8"])
def test_the_repository_s_own_hooks_pass_on_every_file(hook, tmp_path):
    """The hooks CONTRIBUTING asks for run on every file they are handed, the fixtures
    (code written to break the rules) included, as `pre-commit run --all-files` hands them."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    completed = subprocess.run(
        [str(BIN / "pre-commit"), "run", hook, "--all-files", "--color", "never"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr

"""The release installs: ``python -m build`` makes an sdist holding the whole project
and a wheel from it, both pass ``twine check --strict``, their metadata name no local
file, and the wheel installed into a clean virtual environment runs all four front
ends on a small project.

Slow (it builds, and installs the dependencies from the package index): run with
``pytest -m slow``; CI does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from support import FIXTURES, REPO

import domain_fence

pytestmark = pytest.mark.slow

VERSION = domain_fence.__version__
PLANT = "from app.experiment import setup\n"


def run(*command: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    completed = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600
    )
    if check:
        assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def checkout_snapshot(target: Path) -> Path:
    """What a checkout of the working tree holds (tracked files and new ones git does
    not ignore), so local caches cannot reach the sdist and the build writes nothing
    into the working tree."""
    listed = run("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is gone
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = checkout_snapshot(tmp_path_factory.mktemp("checkout") / "domain-fence")
    out = tmp_path_factory.mktemp("dist")
    # The wheel is built from the sdist, so a file the sdist lacks breaks the wheel.
    run(sys.executable, "-m", "build", "--outdir", out, source, cwd=out)
    return out


def only(directory: Path, pattern: str) -> Path:
    (found,) = directory.glob(pattern)
    return found


def test_both_archives_pass_twine_check_strict(dist: Path):
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def test_the_wheel_metadata_is_publishable(dist: Path):
    wheel = only(dist, f"domain_fence-{VERSION}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_text = archive.read(f"domain_fence-{VERSION}.dist-info/METADATA").decode()
    metadata = Parser().parsestr(metadata_text)
    assert "file://" not in metadata_text
    assert metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    assert metadata["License-File"] == "LICENSE"
    assert metadata["Author"] == "domain-fence developers"
    assert "Typing :: Typed" in metadata.get_all("Classifier")
    assert all(" @ " not in requirement for requirement in metadata.get_all("Requires-Dist"))
    assert f"domain_fence-{VERSION}.dist-info/licenses/LICENSE" in names
    assert "domain_fence/py.typed" in names
    assert not [name for name in names if name.startswith(("tests/", "examples/", "minimonty/"))]


def test_the_sdist_holds_the_tests_the_example_and_the_docs(dist: Path):
    sdist = only(dist, f"domain_fence-{VERSION}.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
    tracked = run("git", "ls-files", "tests", "examples", "docs", cwd=REPO).stdout.split()
    assert tracked and set(tracked) <= names, sorted(set(tracked) - names)
    assert {"LICENSE", "README.md", "CONTRIBUTING.md", ".importlinter", "setup.cfg"} <= names
    assert not [name for name in names if "__pycache__" in name or "_cache/" in name]


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a fresh virtual environment with the wheel (and pytest,
    which the pytest plugin runs in) installed."""
    venv = tmp_path_factory.mktemp("venv") / "clean"
    run(sys.executable, "-m", "venv", venv, cwd=dist)
    bin_dir = venv / "bin"
    wheel = only(dist, "*.whl")
    run(bin_dir / "python", "-m", "pip", "install", "--quiet", wheel, "pytest", cwd=dist)
    return bin_dir


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "app"
    shutil.copytree(FIXTURES / "reliability" / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_installed_wheel_runs_every_front_end(installed: Path, project: Path):
    python = installed / "python"
    where = run(python, "-c", "import domain_fence; print(domain_fence.__file__)", cwd=project).stdout
    assert Path(where.strip()).is_relative_to(installed.parent), where

    assert run(installed / "domain-fence", "--version", cwd=project).stdout.split()[-1] == VERSION
    assert f"domain-fence: {VERSION}" in run(installed / "flake8", "--version", cwd=project).stdout
    help_text = run(python, "-m", "pytest", "-p", "domain_fence", "--help", cwd=project).stdout
    assert "--domain-fence" in help_text

    assert "4 kept, 0 broken" in run(installed / "domain-fence", "check", "--no-cache", cwd=project).stdout
    assert "Contracts: 4 kept, 0 broken." in run(installed / "lint-imports", "--no-logo", cwd=project).stdout
    assert (
        "Contracts: 4 kept, 0 broken." in run(installed / "domain-fence-lint-imports", "--no-logo", cwd=project).stdout
    )

    model = project / "app" / "runtime" / "model.py"
    model.write_text(PLANT + model.read_text(encoding="utf-8"), encoding="utf-8")
    finding = "app/runtime/model.py:1:28: DOM301 app.runtime.model imports forbidden app.experiment"
    checked = run(installed / "domain-fence", "check", "--no-cache", "--quiet", cwd=project, check=False)
    assert checked.returncode == 1 and finding in checked.stdout, checked.stdout + checked.stderr
    linted = run(installed / "flake8", "--select", "DOM", "app", cwd=project, check=False)
    assert linted.returncode == 1 and finding in linted.stdout, linted.stdout + linted.stderr
    contracts = run(installed / "lint-imports", "--no-logo", cwd=project, check=False)
    assert contracts.returncode == 1 and "Runtime does not import experiment BROKEN" in contracts.stdout
    fenced = run(python, "-m", "pytest", "--domain-fence", "-p", "no:cacheprovider", "-q", cwd=project, check=False)
    assert fenced.returncode == 1 and "failed" in fenced.stdout, fenced.stdout + fenced.stderr

"""Fixtures shared by every test directory."""

from __future__ import annotations

import compileall
import shutil
from pathlib import Path

import pytest
from support import MINIMONTY_SRC, REPO

# Imported before any test runs pytest in this process (pytester): that run forgets the
# modules it imported, and a class it pickled would no longer be the class of its name.
import domain_fence.core.engine.engine  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    """Compile the package once, before any test starts the console scripts: with
    ``PYTHONDONTWRITEBYTECODE`` set (as on many CI machines) an editable install is
    never compiled, and each of the suite's hundreds of ``domain-fence``, flake8,
    lint-imports and pytest processes would compile it again (0.16 s each)."""
    if hasattr(config, "workerinput"):
        return  # pytest-xdist's workers start after the controller has compiled
    for tree in (REPO / "src", REPO / "examples" / "minimonty" / "src"):
        compileall.compile_dir(tree, quiet=2)


@pytest.fixture
def minimonty_copy(tmp_path: Path) -> Path:
    """A project directory holding a private copy of the reference codebase.

    The package sits at the project root, where lint-imports finds it (it puts the
    current directory first on sys.path, ahead of the installed minimonty).
    """
    shutil.copytree(MINIMONTY_SRC, tmp_path / "minimonty", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


@pytest.fixture(autouse=True)
def _same_output_on_every_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest prints each failure's whole message in the short summary when ``CI`` or
    ``BUILD_NUMBER`` is set; the tests count findings in pytester's output, which must
    not depend on the machine running them."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)


# The suite's own plugins that a pytest run of a test needs none of: a user of
# domain-fence meets its plugin beside their own, not beside pytest-lsp (which imports
# lsprotocol's types: 0.7 s of each run's start), hypothesis, asyncio or xdist.
UNNEEDED_PLUGINS = ("pytest-lsp", "hypothesispytest", "asyncio", "xdist", "xdist.looponfail")


@pytest.fixture(autouse=True)
def _lean_inner_pytest(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pytest a test runs (pytester, a subprocess) starts without the suite's own
    plugins; the suite's processes keep them, configured before this runs."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # which clears PYTEST_ADDOPTS as it starts
    # The blocks alone, as pytester leaves it: options of the suite's run (``-n 2``)
    # would name the plugins blocked.
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(f"-p no:{name}" for name in UNNEEDED_PLUGINS))

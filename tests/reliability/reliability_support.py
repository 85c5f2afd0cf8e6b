"""Helpers for the reliability tests: copies of small fixture projects with hostile
input added, and the front ends run in-process (cheap) or as real subprocesses (when
the process itself matters: native crashes, file descriptors, hash seeds, races)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner
from support import flake8_in_process

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "reliability"
BIN = Path(sys.executable).parent
IGNORED = shutil.ignore_patterns("__pycache__", ".import_linter_cache", ".domain_fence_cache")


@dataclass(frozen=True)
class Result:
    status: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def project(destination: Path, files: dict[str, str | bytes] | None = None, fixture: str = "app") -> Path:
    """A copy of ``tests/fixtures/reliability/<fixture>`` with ``files`` written into it."""
    root = destination / fixture
    shutil.copytree(FIXTURES / fixture, root, ignore=IGNORED)
    for name, content in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def edit_config(root: Path, old: str, new: str) -> None:
    config = root / ".importlinter"
    text = config.read_text(encoding="utf-8")
    assert old in text, old
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


def cli(*args: str, cwd: Path) -> Result:
    """``domain-fence ARGS`` in this process (click's runner), from ``cwd``."""
    from domain_fence.integrations.cli import main

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


def run(tool: str, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    """A console script of this environment in a subprocess, as a user runs it."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    environment.update(env or {})
    completed = subprocess.run(
        [str(BIN / tool), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


def flake8(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Result:
    """flake8 with the plugin, one job: in this process (its own ``main``, the plugin
    found through its entry point as the console script finds it), or in a subprocess
    when ``env`` must reach it."""
    argv = ["--select", "DOM,E9", "--jobs", "1", *args]
    if env:
        return run("flake8", *argv, cwd=cwd, env=env)
    done = flake8_in_process(*argv, cwd=cwd)
    return Result(done.returncode, done.stdout, done.stderr)


def lint_imports(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    return run("lint-imports", "--no-logo", "--no-cache", *args, cwd=cwd, env=env, timeout=timeout)

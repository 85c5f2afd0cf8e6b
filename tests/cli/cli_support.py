"""Helpers for the CLI tests: fixture projects copied to a temporary directory, and
the real console scripts run in subprocesses."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "cli"
BIN = Path(sys.executable).parent
IGNORED = shutil.ignore_patterns("__pycache__", ".import_linter_cache", ".domain_fence_cache")


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


def copy_fixture(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copytree(FIXTURES / name, target, ignore=IGNORED)
    return target


def run(tool: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> Result:
    """Run a console script of this environment as a user would, without the test
    process's PYTHONPATH."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    environment.update(env or {})
    completed = subprocess.run(
        [str(BIN / tool), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=300
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


def domain_fence(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Result:
    """``domain-fence ARGS`` from ``cwd``: in this process (click's runner; what the
    console script adds, its signals, collector and exit at a traceback, is the
    reliability tests' subject), or in a subprocess when ``env`` must reach it."""
    if env:
        return run("domain-fence", *args, cwd=cwd, env=env)
    from click.testing import CliRunner

    from domain_fence.integrations.cli import main

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


GIT_IDENTITY = (
    "-c",
    "user.name=domain-fence tests",
    "-c",
    "user.email=tests@example.invalid",
    "-c",
    "commit.gpgsign=false",
)


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` with a fixed identity; its output, stripped."""
    completed = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return completed.stdout.strip()


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")

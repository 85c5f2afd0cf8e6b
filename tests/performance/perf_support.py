"""Helpers of the cache and prefilter tests: a private copy of a small project whose
files have settled (caches never keep a file modified within the last two seconds)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from support import FIXTURES

LEAKY = FIXTURES / "cli" / "leaky"
SETTLED = time.time() - 3600  # an hour ago: older than any cache's racy window


def settle(root: Path, when: float = SETTLED) -> None:
    """Give every file below ``root`` an old modification time."""
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


def leaky_project(tmp_path: Path) -> Path:
    """A copy of the leaky fixture project (every family broken), settled."""
    root = tmp_path / "project"
    shutil.copytree(LEAKY, root, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    settle(root)
    return root


def edit(path: Path, text: str | None = None, when: float = SETTLED + 60) -> None:
    """Rewrite ``path`` (or only touch it), leaving it settled at ``when``."""
    if text is not None:
        path.write_text(text, encoding="utf-8")
    os.utime(path, (when, when))


def recorded(monkeypatch: Any, owner: object, name: str, *also: str) -> list[tuple[Any, Any]]:
    """``(argument, result)`` of every call of ``owner.name`` from now on (it still runs);
    ``also``: the dotted names of other bindings of the same function."""
    calls: list[tuple[Any, Any]] = []
    real: Callable[[Any], Any] = getattr(owner, name)

    def recording(argument: Any) -> Any:
        calls.append((argument, real(argument)))
        return calls[-1][1]

    monkeypatch.setattr(owner, name, recording)
    for binding in also:
        monkeypatch.setattr(binding, recording)
    return calls


def lint_imports_here(root: Path, files: dict[str, str], monkeypatch: Any) -> Path:
    """``files`` written below ``root``, ready for lint-imports to run in this process
    there, as from a fresh one: no facts in memory, no index or configuration kept."""
    from support import write_tree

    from domain_fence.core.index import project as index_module
    from domain_fence.integrations.importlinter import session

    write_tree(root, files)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(session, "_INDEXES", {})
    session._configuration.cache_clear()
    return root


# ``domain-fence ARGS`` run by main() in a fresh interpreter, which then prints its exit
# status and every module it imported, as JSON, on the last line of stderr.
CHECK_IN_A_FRESH_INTERPRETER = """
import json, sys
from domain_fence.integrations.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def python(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter of this environment, as the console script runs
    (output to a pipe, nothing in the environment asking for colours)."""
    hidden = ("PYTHONPATH", "FORCE_COLOR", "TTY_COMPATIBLE")
    environment = {name: value for name, value in os.environ.items() if name not in hidden}
    command = [sys.executable, "-c", script, *args]
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=120)


def imports_of_a_check(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], Any, list[str]]:
    """``domain-fence ARGS`` run in ``cwd`` by a fresh interpreter: the process, the
    command's exit status and the modules it imported."""
    ran = python(CHECK_IN_A_FRESH_INTERPRETER, *args, cwd=cwd)
    outcome = json.loads(ran.stderr.splitlines()[-1])
    return ran, outcome["status"], outcome["modules"]


def among(modules: Iterable[str], packages: Iterable[str]) -> list[str]:
    """The ``modules`` that are one of ``packages`` or inside one."""
    packages = tuple(packages)
    return [module for module in modules if any(module == p or module.startswith(p + ".") for p in packages)]

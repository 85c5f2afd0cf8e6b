"""Helpers of the cache and prefilter tests: a private copy of a small project whose
files have settled (caches never keep a file modified within the last two seconds)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
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

"""The tool's own imports come from the interpreter, never from the project.

A module imported lazily is looked up on ``sys.path``; with the project's directory on
it (pytest puts the rootdir there, ``python -m`` the current directory, grimp needs the
project there to locate the root packages) a ``multiprocessing.py`` or ``fcntl.py`` of
the project would be run in the tool's process. The tool's lazy imports therefore run
with ``sys.path`` cut down to the interpreter's own directories (its standard library
and site-packages, the user's site-packages) and the directory domain-fence itself was
imported from.
"""

from __future__ import annotations

import importlib
import os
import site
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

# What parsing in worker processes imports, loaded from the interpreter's directories
# before the first worker starts (and inherited by forked workers, which import nothing
# themselves).
WORKER_MODULES = (
    "concurrent.futures.process",
    "multiprocessing.connection",
    "multiprocessing.context",
    "multiprocessing.popen_fork",
    "multiprocessing.queues",
    "multiprocessing.reduction",
    "multiprocessing.synchronize",
    "multiprocessing.util",
    "ctypes",
    "fcntl",
    "signal",
)


def interpreter_paths() -> list[str]:
    """The entries of ``sys.path`` that belong to the interpreter or to domain-fence."""
    own = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    trusted = [os.path.abspath(p) for p in prefixes] + ([os.path.abspath(user_site)] if user_site else [])
    kept = []
    for entry in sys.path:
        if not entry:
            continue  # the current directory
        path = os.path.abspath(entry)
        if path == own or any(path == t or path.startswith(t.rstrip(os.sep) + os.sep) for t in trusted):
            kept.append(entry)
    return kept


@contextmanager
def tool_imports_only() -> Iterator[None]:
    """``sys.path`` holds only the interpreter's directories while the block runs."""
    saved = list(sys.path)
    sys.path[:] = interpreter_paths()
    try:
        yield
    finally:
        sys.path[:] = saved


def preload(names: Iterable[str]) -> None:
    """Import ``names`` from the interpreter's directories (an absent one is skipped:
    ``fcntl`` on Windows)."""
    with tool_imports_only():
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError:
                continue

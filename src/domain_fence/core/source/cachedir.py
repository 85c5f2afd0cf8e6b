"""Where a project's caches go: its own module, so that a replayed run (see
:mod:`domain_fence.core.engine.runcache`) finds them without importing the fact
cache and what it needs to decode facts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_DIRECTORY = ".domain_fence_cache"
CACHE_DIR_ENV = "DOMAIN_FENCE_CACHE_DIR"
NO_CACHE_ENV = "DOMAIN_FENCE_NO_CACHE"


def cache_directory(root: Path, environ: Mapping[str, str] | None = None) -> Path | None:
    """Where the caches of the project at ``root`` go, or None when caching is off:
    ``DOMAIN_FENCE_NO_CACHE`` (any value but empty, 0, false or no) turns it off,
    ``DOMAIN_FENCE_CACHE_DIR`` moves it (relative to the current directory)."""
    if environ is None:
        environ = os.environ
    if environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        return None
    relocated = environ.get(CACHE_DIR_ENV, "").strip()
    return Path(relocated).resolve() if relocated else Path(root) / DEFAULT_DIRECTORY

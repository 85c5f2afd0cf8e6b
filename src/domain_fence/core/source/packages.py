"""Where root packages are: their directories, found statically on the search paths.

Its own module, light to import: a replayed run (see
:mod:`domain_fence.core.engine.runcache`) locates the root packages to check that
nothing in them changed, and needs nothing else of :mod:`.modules`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from domain_fence.core.source.listing import located


class ModuleNotFound(Exception):
    """A root package could not be located."""


def locate_package(name: str, search_paths: list[str]) -> list[Path]:
    """Directories holding package ``name`` (several for a namespace package): once
    within the listings shared now (see :func:`.listing.located`).

    Raises ModuleNotFound when it is not found on ``search_paths``, or is a single
    module rather than a package.
    """
    known = located()
    key = (name, tuple(search_paths))
    found = known.get(key)
    if found is None:
        found = known[key] = tuple(_locate_package(name, search_paths))
    return list(found)


def _locate_package(name: str, search_paths: list[str]) -> list[Path]:
    top, *rest = name.split(".")
    spec = importlib.machinery.PathFinder.find_spec(top, search_paths)
    if spec is None:
        # Editable installs register finders on sys.meta_path instead of path entries.
        # find_spec on a top-level name locates it without executing it.
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):  # e.g. a module in sys.modules without a spec
            spec = None
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFound(f"root package {name!r} not found (searched {', '.join(search_paths) or 'nothing'})")
    directories = [Path(location) for location in spec.submodule_search_locations]
    for segment in rest:
        directories = [d / segment for d in directories if (d / segment).is_dir()]
        if not directories:
            raise ModuleNotFound(f"root package {name!r} not found below {top!r}")
    return directories


def default_search_paths(project_root: Path) -> list[str]:
    """Where root packages are looked for: the project root (as ``lint-imports`` does),
    its ``src`` directory when there is one, then ``sys.path``."""
    paths = [str(project_root)]
    if (project_root / "src").is_dir():
        paths.append(str(project_root / "src"))
    return paths + [p for p in sys.path if p not in paths]

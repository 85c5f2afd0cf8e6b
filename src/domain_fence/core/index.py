"""The project index: every module of the root packages, its file, and its parsed
tree, read lazily and at most once per process.

Every contract in a run, and flake8 across all the files of a run, share one index,
so cross-module questions (which classes derive from an event base?) are answered
without re-reading the project for each file.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .modules import ModuleNotFound, default_search_paths, discover_modules, locate_package
from .source import Unreadable, load_tree


@dataclass
class ProjectIndex:
    root: Path
    modules: dict[str, Path]  # dotted name -> file (or directory, for a namespace root)
    missing: dict[str, str] = field(default_factory=dict)  # root package -> why not found
    _trees: dict[str, ast.Module | Unreadable] = field(default_factory=dict, repr=False)
    _by_path: dict[Path, str] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, root: Path, root_packages, search_paths: list[str] | None = None) -> "ProjectIndex":
        root = root.resolve()
        paths = search_paths if search_paths is not None else default_search_paths(root)
        modules: dict[str, Path] = {}
        missing: dict[str, str] = {}
        for package in sorted(root_packages):
            try:
                directories = locate_package(package, paths)
            except ModuleNotFound as error:
                missing[package] = str(error)
                continue
            modules.update(discover_modules(package, directories))
        return cls(root=root, modules=dict(sorted(modules.items())), missing=missing)

    def is_package(self, module: str) -> bool:
        path = self.modules.get(module)
        return path is not None and (path.name == "__init__.py" or path.is_dir())

    def module_for_path(self, path: Path | str) -> str | None:
        """The module whose source is ``path``, or None when it is outside the project."""
        if not self._by_path:
            self._by_path = {p.resolve(): m for m, p in self.modules.items()}
        return self._by_path.get(Path(path).resolve())

    def tree(self, module: str) -> ast.Module | Unreadable | None:
        """The parsed module; None for a namespace directory or an unknown module."""
        if module not in self._trees:
            path = self.modules.get(module)
            if path is None or path.is_dir():
                return None
            self._trees[module] = _cached_tree(path)
        return self._trees[module]

    def facts(self, module: str, extract: Callable[[str, bool, ast.Module | Unreadable], T]) -> T | None:
        """``extract(module, is_package, tree)``, computed at most once per file version.

        ``extract`` must be a pure function of its arguments: its result is cached for
        the process, keyed by the extractor and the file's path, size and mtime, so every
        index and every contract of a run share it. None for a module without a file.
        """
        path = self.modules.get(module)
        if path is None or path.is_dir():
            return None
        version = _version(path)
        key = (extract, module, version)
        if key not in _FACTS:
            _FACTS[key] = extract(module, self.is_package(module), _cached_tree(path))
        return _FACTS[key]

    def relative_path(self, module: str) -> str:
        """The module's file relative to the project root, as posix (absolute if outside)."""
        path = self.modules[module].resolve()
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()


T = TypeVar("T")

# Process-wide caches keyed by file version, so indexes built by different contracts or
# front ends in one process parse each file once, and an edited file is parsed again.
_TREES: dict[tuple[Path, int, int], ast.Module | Unreadable] = {}
_FACTS: dict[tuple[Callable[..., Any], str, tuple[Path, int, int]], Any] = {}


def _version(path: Path) -> tuple[Path, int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, stat.st_size, stat.st_mtime_ns)


def _cached_tree(path: Path) -> ast.Module | Unreadable:
    version = _version(path)
    if version[1] < 0:
        return load_tree(path)  # unreadable: let load_tree say why, and do not cache
    if version not in _TREES:
        _TREES[version] = load_tree(path)
    return _TREES[version]

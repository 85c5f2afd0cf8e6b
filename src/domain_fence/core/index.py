"""The project index: every module of the root packages, its file, and its parsed
tree, read lazily and at most once per process.

Every contract in a run, and flake8 across all the files of a run, share one index,
so cross-module questions (which classes derive from an event base?) are answered
without re-reading the project for each file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

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
            self._trees[module] = load_tree(path)
        return self._trees[module]

    def relative_path(self, module: str) -> str:
        """The module's file relative to the project root, as posix (absolute if outside)."""
        path = self.modules[module].resolve()
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

"""Module names <-> files, found statically (src layouts and namespace packages too).

Nothing here imports the code being checked: top-level packages are located with
``importlib.machinery.PathFinder``, which reads directories but runs no code, and the
rest of a dotted name is resolved by walking those directories.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path


class ModuleNotFound(Exception):
    """A root package could not be located."""


@dataclass(frozen=True)
class ModuleExpression:
    """An import-linter module expression: ``*`` is one segment, ``**`` one or more.

    With ``with_descendants`` a plain name also matches the modules below it, which is
    what our own options mean by a plain name ("``pkg.runtime`` and everything in it").
    """

    text: str
    with_descendants: bool = True

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        parts = []
        for segment in self.text.split("."):
            if segment == "**":
                parts.append(r"[^.]+(?:\.[^.]+)*")
            elif segment == "*":
                parts.append(r"[^.]+")
            else:
                parts.append(re.escape(segment))
        pattern = r"\.".join(parts)
        if self.with_descendants and not self.has_wildcard:
            pattern += r"(?:\..+)?"
        return re.compile(pattern + r"\Z")

    @property
    def has_wildcard(self) -> bool:
        return "*" in self.text

    def matches(self, module: str) -> bool:
        return self._regex.match(module) is not None

    def __str__(self) -> str:
        return self.text


_SEGMENT = re.compile(r"(?:\*\*|\*|[A-Za-z_][A-Za-z0-9_]*)\Z")


def module_expression_error(text: str) -> str | None:
    """Why ``text`` is not a valid module expression, or None when it is."""
    if not text:
        return "empty module expression"
    for segment in text.split("."):
        if not _SEGMENT.match(segment):
            return f"invalid module expression {text!r}"
    return None


def matches_any(module: str, expressions: Iterable[ModuleExpression]) -> bool:
    return any(expression.matches(module) for expression in expressions)


def locate_package(name: str, search_paths: list[str]) -> list[Path]:
    """Directories holding package ``name`` (several for a namespace package).

    Raises ModuleNotFound when it is not found on ``search_paths``, or is a single
    module rather than a package.
    """
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


def regular_parent(name: str, search_paths: list[str]) -> str | None:
    """The outermost package above ``name`` that is a regular package (it has an
    ``__init__.py``), or None when every parent is a namespace or ``name`` is top-level.

    ``importlib.util.find_spec(name)`` imports, and so runs, such a parent: grimp
    calls it on each root package, so a front end must refuse the name first.
    """
    parts = name.split(".")
    for end in range(1, len(parts)):
        parent = ".".join(parts[:end])
        try:
            directories = locate_package(parent, search_paths)
        except ModuleNotFound:
            return None
        if any((directory / "__init__.py").is_file() for directory in directories):
            return parent
    return None


def discover_modules(root_package: str, directories: list[Path]) -> dict[str, Path]:
    """Every module of ``root_package``: its dotted name -> its source file.

    Like grimp, a subdirectory is a package only when it holds an ``__init__.py``; a
    namespace root maps to its directory. Symlinked directories are not followed, so a
    symlink loop cannot hang the walk.
    """
    found: dict[str, Path] = {}
    for directory in directories:
        init = directory / "__init__.py"
        found.setdefault(root_package, init if init.is_file() else directory)
        _walk(root_package, directory, found)
    return dict(sorted(found.items()))


def _walk(package: str, directory: Path, found: dict[str, Path]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if entry.is_dir(follow_symlinks=False):
            if name.isidentifier() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                found.setdefault(f"{package}.{name}", Path(entry.path) / "__init__.py")
                _walk(f"{package}.{name}", Path(entry.path), found)
        elif name.endswith(".py") and name != "__init__.py" and name[:-3].isidentifier():
            found.setdefault(f"{package}.{name[:-3]}", Path(entry.path))


def default_search_paths(project_root: Path) -> list[str]:
    """Where root packages are looked for: the project root (as ``lint-imports`` does),
    its ``src`` directory when there is one, then ``sys.path``."""
    import sys

    paths = [str(project_root)]
    if (project_root / "src").is_dir():
        paths.append(str(project_root / "src"))
    return paths + [p for p in sys.path if p not in paths]


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str | None:
    """The absolute name of ``from {'.' * level}{target} import ...`` in ``module``.

    None when the import climbs above the top-level package.
    """
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts) - 1 or (level - 1 >= len(parts)):
        return None
    base = parts[: len(parts) - (level - 1)]
    if not base:
        return None
    return ".".join(base + ([target] if target else []))

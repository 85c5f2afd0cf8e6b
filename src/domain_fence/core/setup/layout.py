"""What ``domain-fence init`` learns from a project's files: its root packages, their
modules, which packages hold experiment code, and the runtime's event base classes.

All of it is read from the directory tree and parsed source; nothing is imported.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from domain_fence.core.source.modules import discover_modules
from domain_fence.core.source.reading import Unreadable, load_tree, loads_toml

# Top-level directories that hold packages but are not the project's code.
NOT_PROJECT_CODE = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "scripts", "benchmarks", "build", "dist"}
)
EXPERIMENT_NAMES = frozenset({"experiment", "experiments"})
RUFF_FILES = ("ruff.toml", ".ruff.toml")


class LayoutError(Exception):
    """The project's layout cannot be read or does not fit; one line."""


@dataclass(frozen=True)
class Layout:
    directory: Path  # the project root
    source_dir: Path  # where the root packages are: the root, or its ``src``
    root_packages: tuple[str, ...]
    modules: dict[str, Path]  # dotted name -> file (a directory for a namespace root)

    @property
    def src_layout(self) -> bool:
        return self.source_dir != self.directory

    def exists(self, module: str) -> bool:
        return module in self.modules

    def is_package(self, module: str) -> bool:
        path = self.modules.get(module)
        return path is not None and (path.name == "__init__.py" or path.is_dir())

    def children(self, module: str) -> list[str]:
        depth = module.count(".") + 1
        return [m for m in self.modules if m.startswith(module + ".") and m.count(".") == depth]

    def descendants(self, module: str) -> list[str]:
        return [m for m in self.modules if m == module or m.startswith(module + ".")]

    def expand(self, pattern: str) -> list[str]:
        """Existing modules named by ``pattern``; ``*`` stays within one segment."""
        if "*" not in pattern:
            return [pattern] if pattern in self.modules else []
        depth = pattern.count(".")
        return [m for m in self.modules if m.count(".") == depth and fnmatchcase(m, pattern)]


def read_layout(directory: Path) -> Layout:
    """The project in ``directory``: root packages in ``src/`` when it holds any, else
    at the top; a directory without ``__init__.py`` holding packages is a namespace
    (``src/tbp/monty`` gives ``tbp.monty``)."""
    directory = directory.resolve()
    for source_dir in (directory / "src", directory):
        roots = root_packages_in(source_dir)
        if roots:
            break
    else:
        raise LayoutError(f"{directory}: no Python package found here or in src/ (a directory with __init__.py)")
    modules: dict[str, Path] = {}
    for root in roots:
        modules.update(discover_modules(root, [source_dir.joinpath(*root.split("."))]))
    return Layout(directory, source_dir, tuple(roots), dict(sorted(modules.items())))


def root_packages_in(source_dir: Path) -> list[str]:
    roots = []
    for entry in _package_dirs(source_dir):
        if entry.name in NOT_PROJECT_CODE:
            continue
        if (entry / "__init__.py").is_file():
            roots.append(entry.name)
        else:  # a namespace portion: its regular subpackages are the roots
            roots += [
                f"{entry.name}.{child.name}" for child in _package_dirs(entry) if (child / "__init__.py").is_file()
            ]
    return roots


def _package_dirs(directory: Path) -> list[Path]:
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    return [
        e for e in entries if e.is_dir() and not e.is_symlink() and e.name.isidentifier() and not e.name.startswith("_")
    ]


def experiment_packages(layout: Layout) -> list[str]:
    """Packages named ``experiment``/``experiments``, outermost only."""
    found: list[str] = []
    for module in layout.modules:
        named = module.rsplit(".", 1)[-1] in EXPERIMENT_NAMES and layout.is_package(module)
        if named and not any(module.startswith(outer + ".") for outer in found):
            found.append(module)
    return found


def runtime_partition(layout: Layout, experiment: Iterable[str], roots: Iterable[str] | None = None) -> list[str]:
    """The largest modules and packages holding no experiment code: below each root
    (default: every root package), a child is runtime unless it is, or contains, an
    experiment module."""
    experiment = list(experiment)
    runtime: list[str] = []

    def visit(package: str) -> None:
        for child in layout.children(package):
            last = child.rsplit(".", 1)[-1]
            if child in experiment or last in NOT_PROJECT_CODE or last == "__main__":
                continue
            if any(e.startswith(child + ".") for e in experiment):
                visit(child)
            else:
                runtime.append(child)

    for root in layout.root_packages if roots is None else roots:
        visit(root)
    return sorted(runtime)


def neither_side(layout: Layout, roots: Iterable[str] | None = None) -> list[str]:
    """Children of the roots that are neither runtime nor experiment code: tests,
    docs, scripts and the like, and ``__main__`` (what :func:`runtime_partition`
    leaves out of the runtime)."""
    found = []
    for root in layout.root_packages if roots is None else roots:
        for child in layout.children(root):
            last = child.rsplit(".", 1)[-1]
            if last in NOT_PROJECT_CODE or last == "__main__":
                found.append(child)
    return sorted(found)


@dataclass(frozen=True)
class ClassFacts:
    module: str
    name: str
    bases: frozenset[str]  # last segment of each base expression

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"


def event_bases(layout: Layout, packages: Iterable[str]) -> list[str]:
    """The runtime's event base classes: in ``packages`` (the telemetry packages), the
    roots of class hierarchies whose name says Schema or Event and that some class
    of the project derives from."""
    telemetry = [c for package in packages for m in layout.descendants(package) for c in _classes(layout, m)]
    names = {c.name for c in telemetry}
    roots = [c for c in telemetry if ("Schema" in c.name or "Event" in c.name) and not (c.bases & names)]
    mentioning = [m for m in layout.modules if _mentions_any(layout, m, roots)]
    derived_from = {base for m in mentioning for c in _classes(layout, m) for base in c.bases}
    return sorted({c.dotted for c in roots if c.name in derived_from})


def _mentions_any(layout: Layout, module: str, classes: list[ClassFacts]) -> bool:
    path = layout.modules[module]
    if path.is_dir() or not classes:
        return False
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return any(c.name.encode() in data for c in classes)


def _classes(layout: Layout, module: str) -> list[ClassFacts]:
    path = layout.modules[module]
    if path.is_dir():
        return []
    tree = load_tree(path)
    if isinstance(tree, Unreadable):
        return []
    return [
        ClassFacts(module, node.name, frozenset(_last_segment(base) for base in node.bases))
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    ]


def _last_segment(expression: ast.expr) -> str:
    if isinstance(expression, ast.Subscript):  # Generic[T], Base[Event]
        expression = expression.value
    if isinstance(expression, ast.Attribute):
        return expression.attr
    if isinstance(expression, ast.Name):
        return expression.id
    return ""


def ruff_configuration(directory: Path) -> Path | None:
    """The file configuring ruff for the project in ``directory`` (``ruff.toml``,
    ``.ruff.toml`` or a ``[tool.ruff]`` table in ``pyproject.toml``), if any."""
    for name in RUFF_FILES:
        if (directory / name).is_file():
            return directory / name
    pyproject = directory / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        document = loads_toml(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise LayoutError(f"{pyproject}: cannot read: {error}") from None
    tool = document.get("tool")
    return pyproject if isinstance(tool, dict) and "ruff" in tool else None

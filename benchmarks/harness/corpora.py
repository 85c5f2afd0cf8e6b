"""The code the tools are run on.

(a) ``minimonty``: the reference codebase, copied from ``examples/minimonty``.
(b) ``django``: Django as published on PyPI (pure Python, ~900 modules).
(c) ``django-xN``: generated trees of (b)'s shape, N renamed copies of a 70-file slice
    of Django. The copies sit inside each top-level package of the slice
    (``corpus.db.c01``, ``corpus.http.c01``, ``corpus.db.c02``...) and their imports
    are rewritten to match, so the boundary stays one rule over ever larger
    packages, as in a growing real project. (Copies as sibling top-level packages
    would make a ``forbidden`` contract check N x N package pairs instead.)

Each corpus is a directory holding ``src/`` and the tools' configuration files.
Trees are built once and reused while the recipe is unchanged (a stamp file).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .spec import MINIMONTY, RuleSpec, django_spec, scaled_django_spec

DJANGO_VERSION = "5.2.19"
SCALED_ROOT = "corpus"
RECIPE = "4"  # bump when the generated trees change shape

# The slice of Django copied into generated trees: the ORM's field machinery, the
# web layers it must not import, and dispatch (which both use); closed under star
# imports, so every re-export of a package resolves. 70 files, ~22k lines.
DJANGO_SLICE = (
    "db/__init__.py",
    "db/models/__init__.py",
    "db/models/aggregates.py",
    "db/models/fields/__init__.py",
    "db/models/fields/composite.py",
    "db/models/fields/files.py",
    "db/models/fields/generated.py",
    "db/models/fields/json.py",
    "db/models/fields/mixins.py",
    "db/models/fields/proxy.py",
    "db/models/constants.py",
    "db/models/constraints.py",
    "db/models/enums.py",
    "db/models/indexes.py",
    "db/models/query_utils.py",
    "db/models/signals.py",
    "db/models/utils.py",
    "dispatch/*.py",
    "forms/__init__.py",
    "forms/boundfield.py",
    "forms/fields.py",
    "forms/forms.py",
    "forms/formsets.py",
    "forms/models.py",
    "forms/renderers.py",
    "forms/utils.py",
    "forms/widgets.py",
    "http/*.py",
    "middleware/*.py",
    "urls/*.py",
    "views/**/*.py",
)
SLICE_PACKAGES = ("db", "dispatch", "forms", "http", "middleware", "urls", "views")


@dataclass(frozen=True)
class Corpus:
    name: str
    root: Path  # holds src/ and the configuration files
    spec: RuleSpec
    scale: int | None = None  # copies, for generated trees
    clean: bool = False  # every contract is expected to be kept
    tools: tuple[str, ...] | None = None  # the tools whose configuration it has (None: every tool)
    written: bool = False  # its configuration is written with the corpus, not from ``spec``

    @property
    def src(self) -> Path:
        return self.root / "src"

    def python_files(self) -> list[Path]:
        return sorted(self.src.rglob("*.py"))

    def size(self) -> tuple[int, int]:
        files = self.python_files()
        return len(files), sum(p.read_bytes().count(b"\n") for p in files)


def minimonty(work: Path, repo: Path) -> Corpus:
    root = work / "corpora" / "minimonty"
    source = repo / "examples" / "minimonty" / "src" / "minimonty"
    stamp = f"{RECIPE} {_tree_stamp(source)}"
    if _stale(root, stamp):
        _reset(root)
        shutil.copytree(source, root / "src" / "minimonty", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _stamp(root, stamp)
    return Corpus("minimonty", root, MINIMONTY, clean=True)


def django(work: Path) -> Corpus:
    root = work / "corpora" / "django"
    stamp = f"{RECIPE} django=={DJANGO_VERSION}"
    if _stale(root, stamp):
        _reset(root)
        _extract_django(_django_wheel(work), root / "src")
        _stamp(root, stamp)
    return Corpus("django", root, django_spec())


def scaled_django(work: Path, scale: int) -> Corpus:
    root = work / "corpora" / f"django-x{scale}"
    copies = [f"c{i:02d}" for i in range(1, scale + 1)]
    stamp = f"{RECIPE} django=={DJANGO_VERSION} x{scale}"
    if _stale(root, stamp):
        _reset(root)
        unit = _slice(django(work).src / "django")
        _write_copies(root / "src" / SCALED_ROOT, unit, copies)
        _stamp(root, stamp)
    return Corpus(f"django-x{scale}", root, scaled_django_spec(SCALED_ROOT, copies), scale=scale)


def _django_wheel(work: Path) -> Path:
    downloads = work / "downloads"
    wheels = sorted(downloads.glob(f"[Dd]jango-{DJANGO_VERSION}-*.whl"))
    if not wheels:
        downloads.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--dest",
                str(downloads),
                f"django=={DJANGO_VERSION}",
            ],
            check=True,
        )
        wheels = sorted(downloads.glob(f"[Dd]jango-{DJANGO_VERSION}-*.whl"))
    return wheels[0]


def _extract_django(wheel: Path, src: Path) -> None:
    """The package's source files, as ``pip install`` would lay them out."""
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("django/") and name.endswith(".py"):
                archive.extract(name, src)


def _slice(django_dir: Path) -> dict[str, str]:
    """Relative path (from the django directory) -> source text, for the slice."""
    files = sorted({p for pattern in DJANGO_SLICE for p in django_dir.glob(pattern)})
    return {p.relative_to(django_dir).as_posix(): p.read_text(encoding="utf-8") for p in files}


def _write_copies(target: Path, unit: dict[str, str], copies: list[str]) -> None:
    target.mkdir(parents=True)
    (target / "__init__.py").write_text('"""Generated benchmark tree: renamed copies of a slice of Django."""\n')
    for package in SLICE_PACKAGES:
        (target / package).mkdir()
        (target / package / "__init__.py").write_text(f'"""Copies of django.{package}."""\n')
    for copy in copies:
        for relative, text in unit.items():
            package, _, rest = relative.partition("/")
            path = target / package / copy / rest
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rename_imports(text, copy), encoding="utf-8")


def rename_imports(source: str, copy: str) -> str:
    """Point the imports of a slice module at the same copy's modules.

    ``django.<pkg>.<rest>`` becomes ``corpus.<pkg>.<copy>.<rest>`` for the packages of
    the slice; imports of the rest of Django are left alone (they stay external and
    are dropped by every tool alike). Statements are rewritten whole, one line each.
    """
    return rewrite_nodes(source, lambda node: _renamed(node, copy))


def rewrite_nodes(source: str, replacement_of: Callable[[ast.AST], str | None]) -> str:
    """``source`` with each node for which ``replacement_of`` gives a text replaced by it
    (whole statements, so positions never overlap); the result must parse."""
    tree = ast.parse(source)
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    data = source.encode("utf-8")
    edits = []
    for node in ast.walk(tree):
        replacement = replacement_of(node)
        if replacement is not None:
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            edits.append((start, end, replacement.encode("utf-8")))
    for start, end, replacement in sorted(edits, reverse=True):
        data = data[:start] + replacement + data[end:]
    result = data.decode("utf-8")
    ast.parse(result)  # a generator bug must not produce a tree the tools choke on
    return result


def _renamed(node: ast.AST, copy: str) -> str | None:
    if isinstance(node, ast.Import):
        names = [(_renamed_module(a.name, copy) or a.name, a.asname) for a in node.names]
        if all(_renamed_module(a.name, copy) is None for a in node.names):
            return None
        return "import " + ", ".join(_alias(n, a) for n, a in names)
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module == "django":
            moved = [a for a in node.names if a.name in SLICE_PACKAGES]
            if not moved:
                return None
            kept = [a for a in node.names if a.name not in SLICE_PACKAGES]
            statements = [f"from {SCALED_ROOT}.{a.name} import {copy} as {a.asname or a.name}" for a in moved]
            if kept:
                statements.append("from django import " + ", ".join(_alias(a.name, a.asname) for a in kept))
            return "; ".join(statements)
        module = _renamed_module(node.module, copy)
        if module is None:
            return None
        return f"from {module} import " + ", ".join(_alias(a.name, a.asname) for a in node.names)
    return None


def _renamed_module(name: str, copy: str) -> str | None:
    parts = name.split(".")
    if len(parts) >= 2 and parts[0] == "django" and parts[1] in SLICE_PACKAGES:
        return ".".join([SCALED_ROOT, parts[1], copy, *parts[2:]])
    return None


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname else name


def _tree_stamp(directory: Path) -> str:
    files = sorted(p for p in directory.rglob("*.py") if "__pycache__" not in p.parts)
    return str(sum(p.stat().st_size for p in files)) + ":" + str(len(files))


def _stale(root: Path, stamp: str) -> bool:
    marker = root / ".corpus-stamp"
    return not marker.is_file() or marker.read_text() != stamp


def _stamp(root: Path, stamp: str) -> None:
    (root / ".corpus-stamp").write_text(stamp)


def _reset(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)

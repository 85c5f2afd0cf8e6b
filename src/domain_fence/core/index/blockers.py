"""What keeps the import graph from being built, found statically.

grimp stops at the first file it cannot parse or decode, crashes on a relative import
above the top-level package and on a file name that is not UTF-8, and follows
symlinks without end. A front end that cannot have the graph still owes the user the
name of every file at fault (a DOM001 finding each) and the checks that need no
graph: these functions find the files, and :func:`blocker_finding` reports them.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import fingerprints
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.rules import get_rule
from domain_fence.core.source.listing import listing, sharing
from domain_fence.core.source.modules import (
    ModuleNotFound,
    Skipped,
    default_search_paths,
    locate_package,
    module_shaped,
    package_init,
    regular_parent,
)

NOT_RUN = "contract not run: the import graph cannot be built until this is fixed"


class Blocker(NamedTuple):
    """A file (or directory) the import graph cannot be built with, and why."""

    path: str  # printable posix path, relative to the project root when below it
    line: int
    reason: str
    symbol: str  # the module, or the path when it is not a module


def blocker_finding(blocker: Blocker, contract: str, details: tuple[str, ...] = (NOT_RUN,)) -> Finding:
    """DOM001 for ``blocker`` in a contract that could not run without the graph."""
    return Finding(
        path=blocker.path,
        line=blocker.line,
        col=0,
        code="DOM001",
        message=get_rule("DOM001").format(reason=blocker.reason),
        symbol=blocker.symbol,
        fingerprint=fingerprints.unanalysable(blocker.symbol),
        contract=contract,
        details=details,
    )


def shown_at(root: Path, path: Path | str, reason: str) -> Finding:
    """DOM001 of ``reason`` at the first line of the file at ``path``: what a front end
    that shows only the files it visits cannot show where it is."""
    shown = printable_path(root, Path(os.path.abspath(path)))
    return blocker_finding(Blocker(shown, 1, reason, shown), "", ())


def skipped_blockers(index: ProjectIndex, graph_only: bool = False) -> list[Blocker]:
    """What the index did not analyse (see :class:`~.modules.Skipped`), as blockers;
    with ``graph_only``, only what keeps the import graph from being built."""
    return sorted(
        _blocker(index.root, Path(os.path.abspath(s.path)), s.reason)
        for s in index.skipped
        if s.blocks_graph or not graph_only
    )


def skipped_findings(index: ProjectIndex, contract: str) -> list[Finding]:
    """A DOM001 for everything below the root packages the index did not analyse: a
    contract that passes without it would pass silently."""
    return [blocker_finding(blocker, contract, details=()) for blocker in skipped_blockers(index)]


def skipped_finding(index: ProjectIndex, skipped: Skipped, contract: str) -> Finding:
    """The DOM001 :func:`skipped_findings` reports for ``skipped`` (also for a file not
    saved yet, which the index will skip once it is)."""
    return blocker_finding(_blocker(index.root, Path(os.path.abspath(skipped.path)), skipped.reason), contract, ())


def walk_blockers(root: Path, directories: Iterable[Path]) -> list[Blocker]:
    """Symlink loops and non-UTF-8 file names below the package ``directories``.

    Found before the graph is built: grimp would walk a loop forever and crash on
    such a name. The walk follows symlinks the way grimp does (into directories
    named like identifiers, and within a package only into subpackages) but stops at
    a directory that is its own ancestor.
    """
    found: set[Blocker] = set()
    for top in directories:
        top_path = os.fspath(
            top
        )  # paths as text: thousands of directories, each made a Path costs more than its listing
        top_real = os.path.realpath(top_path)
        pending = [(top_path, top_real, frozenset({top_real}), package_init(top_path) is not None)]
        while pending:
            directory, directory_real, ancestors, in_package = pending.pop()
            try:
                entries = listing(directory)
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if name.endswith(".py"):  # no identifier: never a directory walked
                    if not name.isascii() and _is_python_file(name) and not is_utf8(name):
                        found.add(_blocker(root, Path(entry.path), "file name is not valid UTF-8"))
                elif name.isidentifier() and _is_directory(entry):
                    # Resolving costs a system call per path component: only for a link.
                    real = os.path.realpath(entry.path) if entry.is_symlink() else os.path.join(directory_real, name)
                    is_package = package_init(entry.path) is not None
                    if in_package and not is_package:
                        continue  # grimp goes no further into a plain directory of a package
                    if real in ancestors:
                        target = printable_path(root, Path(real))
                        found.add(_blocker(root, Path(entry.path), f"symlink loop: leads back to {target}"))
                    else:
                        pending.append((entry.path, real, ancestors | {real}, in_package or is_package))
    return sorted(found)


def graph_refused(index: ProjectIndex, root_packages: Iterable[str]) -> bool:
    """Whether building the import graph would stop before any file is parsed, as the
    front ends' builder checks first: a project path that is not UTF-8, a root package
    not found or inside a regular package, a symlink loop or a file name that is not
    UTF-8 below the packages, or a file the graph needs that the index could not read.
    Asked instead of building the graph when its result is kept from an earlier run."""
    if not is_utf8(str(index.root)) or skipped_blockers(index, graph_only=True):
        return True
    search_paths = default_search_paths(index.root)
    directories: list[Path] = []
    for package in root_packages:
        if regular_parent(package, search_paths) is not None:
            return True
        try:
            directories += locate_package(package, search_paths)
        except ModuleNotFound:
            return True
    if sharing() is not None and index.plain_in == (sharing(), frozenset(root_packages)):
        return False  # the discovery saw, in these very listings, nothing walk_blockers looks for
    return bool(walk_blockers(index.root, directories))


def source_blockers(index: ProjectIndex) -> list[Blocker]:
    """Every module of ``index`` that cannot be parsed, or that imports relatively
    from above its top-level package, from the index's facts (read together, in
    parallel when many): only asked when the graph could not be built."""
    sources = [module for module, path in index.modules.items() if path.name.endswith(".py")]
    index.prefetch(sources)
    found = []
    for module in sources:
        facts = index.file_facts(module)
        if facts is None:
            continue
        shown = printable_path(index.root, index.modules[module])
        if facts.unreadable is not None:
            found.append(Blocker(shown, facts.unreadable.line, facts.unreadable.reason, module))
        elif facts.escaping_imports:
            line = min(facts.escaping_imports)
            found.append(Blocker(shown, line, f"relative import beyond the top-level package at line {line}", module))
    return sorted(found)


def printable_path(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` when below it, posix, with any byte that is not
    UTF-8 (a surrogate escape) shown as ``\\xNN``: safe to print and to encode."""
    try:
        shown = path.relative_to(root).as_posix()
    except ValueError:
        shown = path.as_posix()
    return printable(shown, limit=None)


def printable(text: str, limit: int | None = 200) -> str:
    """``text`` as one short printable line: its first line, control characters and
    undecodable bytes escaped, cut at ``limit`` characters."""
    lines = str(text).splitlines() or [""]
    first = lines[0]
    if not is_utf8(first):
        first = os.fsencode(first).decode("utf-8", "backslashreplace")
    first = "".join(_escaped(character) for character in first)
    if limit is not None and len(first) > limit:
        first = first[: limit - 3] + "..."
    return first


def _escaped(character: str) -> str:
    if character == "\t" or unicodedata.category(character)[0] != "C":
        return character
    return character.encode("unicode_escape").decode("ascii")


def is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # surrogate escapes of bytes that are not UTF-8
        return False
    return True


def _is_python_file(name: str) -> bool:
    """What grimp reads as a module: ``name.py`` (see :func:`~.modules.module_shaped`)."""
    return name.endswith(".py") and module_shaped(name[:-3])


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks, as grimp's walk does
    except OSError:
        return False


def _blocker(root: Path, path: Path, reason: str) -> Blocker:
    shown = printable_path(root, path)
    return Blocker(shown, 1, reason, shown)

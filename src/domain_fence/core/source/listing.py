"""Directory listings that the walks of one run share.

A check walks the package directories three times before it reads a file: the run
cache's look at its inputs, module discovery and the search for what would stop the
import graph's build. Within :func:`shared_listings`, each directory is listed once
and each entry's status taken once (an ``os.DirEntry`` keeps it), so the walks see
one state of the tree, as it was at :func:`listed_since`. Anything that must see the
tree as it is now runs outside. What a walk of every entry below a directory found
in them is kept beside them (:func:`walked`), for a later walk to start from.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from operator import attrgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# Where Python writes compiled files. Every walk passes it by, as flake8 and ruff do,
# unless someone made it a package (then grimp sees it, and so do they).
COMPILED_DIRECTORY = "__pycache__"

_shared: dict[str, list[os.DirEntry[str]]] | None = None
_shared_since = 0  # when the shared listings began (ns): none of them is older
_sharing: object | None = None  # a token of the outermost shared_listings, while it lasts
# directory -> what the walk of every entry below it found (see :func:`walked`)
_walked: dict[str, tuple[str, list[os.DirEntry[str]]]] | None = None
# (package, search paths) -> its directories, as located in the listings shared now
_located: dict[tuple[str, tuple[str, ...]], tuple[Path, ...]] | None = None


@contextmanager
def shared_listings() -> Iterator[None]:
    """Within it, :func:`listing` lists each directory once (nested: the outermost's)."""
    global _shared, _shared_since, _sharing, _walked, _located
    if _shared is not None:
        yield
        return
    _shared, _shared_since, _sharing, _walked, _located = {}, time.time_ns(), object(), {}, {}
    try:
        yield
    finally:
        _shared = _sharing = _walked = _located = None


def walked() -> dict[str, tuple[str, list[os.DirEntry[str]]]]:
    """Directory -> a digest of the names and kinds of every entry below it, and the
    entries whose status the walk took (its stamped files) in the walk's order: the same
    digest lists the same such entries in the same order. For the trees walked whole in
    the listings shared now (none, and kept nowhere, when none are)."""
    return _walked if _walked is not None else {}


def located() -> dict[tuple[str, tuple[str, ...]], tuple[Path, ...]]:
    """(Package, search paths) -> the package's directories, for the packages located in
    the listings shared now (see :func:`~.packages.locate_package`; none, and kept
    nowhere, when none are): the run cache's look, the discovery and the graph's
    blockers each locate the root packages."""
    return _located if _located is not None else {}


def sharing() -> object | None:
    """What stands for the listings shared now (None when none are): what a walk found
    while the same one is returned was found in the state of the tree a walk now sees."""
    return _sharing


def listing(directory: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    """The entries of ``directory``, in name order; raises ``OSError`` as
    ``os.scandir`` does (a failure is not kept: the next walk tries again)."""
    path = os.fspath(directory)
    if _shared is None:
        return _scan(path)
    found = _shared.get(path)
    if found is None:
        found = _shared[path] = _scan(path)
    return found


def listed_entry(directory: str, name: str) -> os.DirEntry[str] | None:
    """The entry ``name`` of ``directory`` in the listing shared now (with the status an
    earlier walk took of it); None when no listing of ``directory`` is shared, or it has
    no entry of exactly that name."""
    entries = _shared.get(directory) if _shared is not None else None
    if not entries:
        return None
    at = bisect_left(entries, name, key=_BY_NAME)
    return entries[at] if at < len(entries) and entries[at].name == name else None


def listed_since() -> int:
    """A time (ns) no listing :func:`listing` gives now is older than."""
    return _shared_since if _shared is not None else time.time_ns()


_BY_NAME = attrgetter("name")


def _scan(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as entries:
        return sorted(entries, key=_BY_NAME)

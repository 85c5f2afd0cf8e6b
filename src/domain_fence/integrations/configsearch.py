"""Where the front ends look for the import-linter configuration of a directory: there,
then each parent, as flake8 looks for its own (:func:`configuration_directories`).

The flake8 plugin looks upward from its current directory and from the files it is
given, the language server from each open file's directory (no higher than its
workspace folder). Light: nothing of a host nor import-linter is imported here, so
flake8, which imports its plugins in every project, pays nothing for the search;
whether a directory holds a usable configuration is each front end's question (the
``holds`` of :func:`nearest_directory`).
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from domain_fence.core.engine.runcache import CONFIG_FILES
from domain_fence.core.source.files import read_regular_file


def configuration_directories(start: Path) -> Iterator[Path]:
    """Where the configuration is looked for, nearest first: ``start``, then each parent,
    as flake8 looks for its own configuration (and, as flake8, not in the home directory
    unless ``start`` is it), up to the repository's root (the first directory holding
    ``.git``) or the filesystem's.

    An editor runs flake8 from the directory of the file it shows: flake8 still finds
    the project's ``.flake8``, and the plugin the project's contracts. A configuration
    above the repository is not the project's."""
    home = _home(os.environ.get("HOME"))
    directory = Path(os.path.realpath(start))
    while True:
        yield directory
        if os.path.lexists(directory / ".git"):
            return
        parent = directory.parent
        if parent == directory or os.fspath(parent) == home:
            return
        directory = parent


@functools.lru_cache(maxsize=4)  # asked for each directory a search starts from
def _home(variable: str | None) -> str | None:
    """The home directory, resolved (``variable``: $HOME, which it follows)."""
    found = os.path.expanduser("~")  # "~" itself when there is none
    return os.path.realpath(found) if found != "~" else None


def may_hold_configuration(directory: Path) -> bool:
    """Whether ``directory`` may hold the configuration ``lint-imports`` reads: one of
    the files it looks at names ``importlinter`` (or cannot be read, which loading it
    then reports), and ``domain_fence``, whose contract types it registers: a project
    checked with import-linter alone is none of ours (its configuration may be one
    import-linter reads and domain-fence would refuse). One that is no file (a FIFO, a
    device, a loop of links) holds none: flake8 runs the plugin in every project, most
    of which have no configuration."""
    for name in CONFIG_FILES:
        try:
            data = read_regular_file(directory / name)
            if b"importlinter" in data and b"domain_fence" in data:
                return True
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        except OSError as error:
            if error.errno in (errno.EINVAL, errno.ELOOP):  # no file (a FIFO, a device, a loop of links)
                continue
            return True
    return False


def nearest_directory(
    start: Path, holds: Callable[[Path], bool], nearest: dict[Path, Path | None], below: Path | None = None
) -> Path | None:
    """The nearest of :func:`configuration_directories` from ``start`` for which ``holds``
    is true (only those strictly below ``below``, when given), noted in ``nearest`` for
    every directory passed on the way: the files of one directory, or of a project
    without configuration, read each directory's candidates once. A memo is only valid
    for one ``holds`` and one ``below`` per directory, until a configuration changes."""
    if start in nearest and (below is None or below in start.parents):
        return nearest[start]
    passed = []
    found = None
    for directory in configuration_directories(start):
        if below is not None and below not in directory.parents:
            break
        if directory in nearest:
            found = nearest[directory]
            break
        passed.append(directory)
        if holds(directory):
            found = directory
            break
    for directory in passed:
        nearest[directory] = found
    return found

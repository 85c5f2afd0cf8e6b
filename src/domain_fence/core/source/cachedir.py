"""Where a project's caches go, and how their files are written: its own module, so
that a replayed run (see :mod:`domain_fence.core.engine.runcache`) finds them without
importing the fact cache and what it needs to decode facts."""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import threading
import zlib
from contextlib import suppress
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
    if relocated:
        return usable_directory(Path(relocated))
    directory = Path(root) / DEFAULT_DIRECTORY
    return directory if _inspectable(directory) and not committed(directory) else None


def usable_directory(directory: Path) -> Path | None:
    """``directory`` made absolute, its links resolved (``Path.resolve`` raises on a
    loop), when it can be looked at and git tracks nothing in it; else None: see
    :func:`_inspectable` and :func:`committed`."""
    try:
        directory = Path(os.path.realpath(directory))
    except OSError:  # a link it may not read (under /proc, say)
        return None
    return directory if _inspectable(directory) and not committed(directory) else None


def committed(directory: Path) -> bool:
    """Whether git tracks files below ``directory``: a cache that comes with a checkout
    (added with ``git add -f`` to a pull request) could hold facts made up for the
    files beside it, which no checksum tells from ours, so it is not used (caching is
    off, which only costs time). Asked of git itself (``git ls-files``: whatever the
    index's version or layout, a submodule too, the name in any case, as a disk that
    ignores case reads it), of the work tree holding the directory as named (a link
    committed in its place) and of the one holding it as its links resolve, once per
    directory and process, only for a directory that is there. When git cannot answer
    (missing, refusing a checkout another user owns, an error), it is taken for tracked:
    caching is off."""
    try:
        named = Path(os.path.abspath(directory))
        resolved = Path(os.path.realpath(directory))
    except OSError:
        return False
    if not resolved.is_dir():
        return False  # nothing in it to trust, or it is made now
    for path in dict.fromkeys((named, resolved)):
        found = _work_tree(path)
        if found is None:
            continue
        top, git_dir = found
        try:
            relative = path.relative_to(top).as_posix()
        except ValueError:
            continue
        try:  # asked again once the index changes (a long-lived server; a test)
            index = os.stat(git_dir / "index")
            stamp = (index.st_mtime_ns, index.st_size, index.st_ino)
        except OSError:
            stamp = None  # nothing staged yet: ls-files says so
        if _tracked_below(top, git_dir, relative, stamp):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _tracked_below(top: Path, git_dir: Path, relative: str, index: tuple[int, int, int] | None) -> bool:
    # git finds the repository itself, from ``top``, with its own safety: it refuses one
    # another user owns (then the cache is not trusted, which only costs time). Nothing
    # of the environment redirects it (a hook's GIT_DIR); no fsmonitor command, no pager,
    # no fetch of a missing object through any transport (a partial clone's remote,
    # which a shipped .git/config may make a command), no stdin (the language server's
    # protocol, flake8's source), no terminal (its own session).
    kept = ("GIT_CEILING_DIRECTORIES", "GIT_CONFIG_NOSYSTEM")
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_") or name in kept}
    environment.update(
        GIT_OPTIONAL_LOCKS="0", GIT_ALLOW_PROTOCOL="none", GIT_NO_LAZY_FETCH="1", GIT_TERMINAL_PROMPT="0"
    )
    command = [
        "git",
        "--no-pager",
        "-c",
        "core.fsmonitor=",
        "ls-files",
        "-z",
        "--cached",
        "--",
        f":(literal,icase){relative}",
    ]
    try:
        listed = subprocess.run(
            command,
            cwd=top,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=environment,
            timeout=10,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError):
        return True  # not known: not trusted
    # An object it could not read (a partial clone's, not fetched) ends in no listing
    # and status 0: what it says on stderr says it could not answer.
    failed = any(line.startswith((b"error:", b"fatal:")) for line in listed.stderr.splitlines())
    return listed.returncode != 0 or bool(listed.stdout) or failed


def _work_tree(directory: Path) -> tuple[Path, Path] | None:
    """The top of the git work tree holding ``directory`` (its parents' links resolved,
    not its own) and its git directory (a worktree's ``.git`` file names it: git reads
    the file; one that names none is git's to refuse), or None."""
    try:
        current = Path(os.path.realpath(directory.parent))
    except OSError:
        return None
    for top in (current, *current.parents):
        marker = top / ".git"
        if marker.is_dir() or marker.is_file():
            return top, marker
    return None


def _inspectable(directory: Path) -> bool:
    """Whether ``directory`` can be looked at (missing is fine: it is made when first
    written to); not with a name too long, a parent that cannot be searched or a loop
    of links: caching is then off, which only costs time, as an unwritable cache does."""
    try:
        os.stat(directory)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return True


_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by domain-fence.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


_GITIGNORE = "# created by domain-fence\n*\n"
_TAG_SIGNATURE = _CACHEDIR_TAG.split("\n", 1)[0]


def make_cache_directory(directory: Path) -> None:
    """Make ``directory`` (if need be) with the markers of a cache directory: like
    pytest's and ruff's caches, never committed and skipped by backup tools. They go
    only into a cache directory: one made now, or an existing one that is empty, is
    marked already (see :func:`_is_cache_directory`) or holds nothing but marked
    caches (grimp's, made before ours in a new ``--cache-dir``). Never into another
    directory (``DOMAIN_FENCE_CACHE_DIR=src``, ``=$HOME``): its ``.gitignore`` would
    have git ignore everything there."""
    try:
        directory.mkdir(parents=True)
    except FileExistsError:
        if not _is_cache_directory(directory):
            return
    for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
        marker = directory / name
        if not marker.exists():
            write_atomically(marker, text.encode())


def _is_cache_directory(directory: Path) -> bool:
    """Whether the existing ``directory`` may be given the markers it lacks: it holds
    our ``.gitignore`` or a cache directory tag (ours, grimp's), or nothing but
    directories that hold one (each another tool's cache), or nothing at all."""
    try:
        if _marked(directory):
            return True
        with os.scandir(directory) as entries:
            return all(entry.is_dir() and _marked(Path(entry.path)) for entry in entries)
    except OSError:  # not a directory, or unreadable: nothing is written there
        return False


def _marked(directory: Path) -> bool:
    for name, first_line in ((".gitignore", _GITIGNORE.split("\n", 1)[0]), ("CACHEDIR.TAG", _TAG_SIGNATURE)):
        try:
            with open(directory / name, "rb") as marker:
                if marker.readline(256).rstrip(b"\r\n").decode("utf-8", "replace") == first_line:
                    return True
        except OSError:
            continue
    return False


_TEMPORARY_NUMBERS = itertools.count()


def sealed(data: bytes) -> bytes:
    """``data`` behind a checksum of it (CRC-32): a cache file whose bytes changed after
    they were written (a bit flipped on disk or in a copy) reads as missing, never as
    other facts (see :func:`unsealed`)."""
    return zlib.crc32(data).to_bytes(4, "big") + data


def unsealed(raw: bytes) -> bytes | None:
    """What :func:`sealed` wrapped; None when ``raw`` is not what it wrote."""
    data = memoryview(raw)[4:]
    if len(raw) < 4 or int.from_bytes(raw[:4], "big") != zlib.crc32(data):
        return None
    return data.tobytes()


def write_atomically(target: Path, data: bytes) -> None:
    """Make ``data`` the content of ``target`` at once for every reader: written to a
    new file beside it (readable by its owner only), then moved in place. Parallel
    processes (pre-commit runs hooks side by side) never see half of it."""
    while True:
        temporary = target.parent / f".tmp-{os.getpid()}-{threading.get_ident()}-{next(_TEMPORARY_NUMBERS)}"
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:  # left by a process that died with this one's number
            continue
        break
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise

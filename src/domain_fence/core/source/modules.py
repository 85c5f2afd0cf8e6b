"""Module names <-> files, found statically (src layouts and namespace packages too).

Nothing here imports the code being checked: top-level packages are located with
``importlib.machinery.PathFinder``, which reads directories but runs no code, and the
rest of a dotted name is resolved by walking those directories (:mod:`.packages`).

What a discovery found is kept in the cache directory, under the digest of the names
and kinds of every entry below the package's directories that the run cache's walk
took in the same listings (see :func:`discovered`): a run after an edit lists the
same names, and starts from it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import stat
import sys
from collections.abc import Collection, Iterable, Iterator, MutableMapping
from contextlib import suppress
from dataclasses import dataclass, fields
from functools import cached_property
from itertools import chain
from operator import attrgetter
from pathlib import Path

from domain_fence.core.source.cachedir import make_cache_directory, sealed, unsealed, write_atomically
from domain_fence.core.source.files import stamp_of
from domain_fence.core.source.listing import COMPILED_DIRECTORY, listed_entry, listing, walked
from domain_fence.core.source.packages import ModuleNotFound as ModuleNotFound
from domain_fence.core.source.packages import default_search_paths as default_search_paths
from domain_fence.core.source.packages import locate_package as locate_package
from domain_fence.core.source.plainpickle import plain_loads


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
        return re.compile(self._matching)

    @cached_property
    def _matching(self) -> str:
        # The text alone: a union of expressions (see _combined) compiles it once there.
        pattern = self._pattern
        if self.with_descendants and not self.has_wildcard:
            pattern += r"(?:\..+)?"
        return pattern + r"\Z"

    @cached_property
    def _or_below(self) -> re.Pattern[str]:
        # Segments match whole segments, so a dot after a match starts a descendant.
        return re.compile(self._pattern + r"(?:\..+)?\Z")

    @cached_property
    def _pattern(self) -> str:
        parts = []
        for segment in self.text.split("."):
            if segment == "**":
                parts.append(r"[^.]+(?:\.[^.]+)*")
            elif segment == "*":
                parts.append(r"[^.]+")
            else:
                parts.append(re.escape(segment))
        return r"\.".join(parts)

    @property
    def has_wildcard(self) -> bool:
        return "*" in self.text

    def matches(self, module: str) -> bool:
        return self._regex.match(module) is not None

    def matches_some(self, modules: Collection[str]) -> bool:
        """Whether ``modules`` holds a module it matches: a plain name that is one of them
        is, without a look at the others (a configuration names modules that exist)."""
        if not self.has_wildcard and self.text in modules:
            return True
        return any(map(self.matches, modules))

    def matches_or_below(self, module: str) -> bool:
        """``module`` is matched, or is below a module that is."""
        return self._or_below.match(module) is not None

    def __str__(self) -> str:
        return self.text


# A wildcard, or a name: an identifier, or a module's as grimp finds it (``my-mod``, a file
# no import can name but the graph holds, see is_module_stem), blanks and arrows aside.
_SEGMENT = re.compile(r"(?:\*\*|\*|[A-Za-z_][A-Za-z0-9_]*|[^\s.*<>]+)\Z")


def module_expression_error(text: str) -> str | None:
    """Why ``text`` is not a valid module expression, or None when it is."""
    if not text:
        return "empty module expression"
    for segment in text.split("."):
        if not _SEGMENT.match(segment):
            return f"invalid module expression {text!r}"
    return None


def matches_any(module: str, expressions: Iterable[ModuleExpression]) -> bool:
    if isinstance(expressions, tuple):  # a configuration's: one expression for them all
        either = _EITHER.get(id(expressions))
        if either is None or either.expressions is not expressions:
            either = _either(expressions)
        found = either.answers.get(module)
        if found is None:
            found = either.answers[module] = either.pattern.match(module) is not None
        return found
    return any(expression.matches(module) for expression in expressions)


class _Either:
    """One regular expression matching what any of ``expressions`` matches, and its
    answer for each module asked: a check asks of every module, several times, whether
    it is in a contract's lists."""

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    __slots__ = ("answers", "expressions", "pattern")

    def __init__(self, expressions: tuple[ModuleExpression, ...], pattern: re.Pattern[str]) -> None:
        self.expressions = expressions  # kept alive: found by their identity
        self.pattern = pattern
        self.answers: dict[str, bool] = {}


# id of a tuple of expressions -> what matches any of them
_EITHER: dict[int, _Either] = {}


def _either(expressions: tuple[ModuleExpression, ...]) -> _Either:
    """What matches any of ``expressions``, found by the tuple's identity: hashing every
    expression again would cost as much as matching."""
    if len(_EITHER) > 256:
        _EITHER.clear()
    either = _EITHER[id(expressions)] = _Either(expressions, _combined(expressions))
    return either


def _combined(expressions: tuple[ModuleExpression, ...]) -> re.Pattern[str]:
    if not expressions:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{expression._matching})" for expression in expressions))


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


@dataclass(frozen=True)
class Skipped:
    """Something below a root package that is not analysed, and why: a finding
    (DOM001) wherever it could hide an import or a definition."""

    path: Path  # as met below the package directory (symbolic links not resolved)
    reason: str
    # The import graph cannot be built without it (grimp would hang on a FIFO, read
    # another file than Python imports, or silently miss a directory).
    blocks_graph: bool = False
    # flake8 hands the file to the plugin (a regular .py file its walk reaches).
    seen_by_flake8: bool = False


# A skipped path's order: its fields in turn, as a sort key (the class generates no comparisons:
# each generated method is compiled as the module is imported, on every run).
SKIPPED_ORDER = attrgetter(*(field.name for field in fields(Skipped) if field.compare))


class ModuleFiles(MutableMapping[str, Path]):
    """Module -> its file (or a namespace root's directory), as a dict of them would
    be; each path is kept as text and made a ``Path`` when first asked for: a check
    after one file changed asks for a few of thousands, and making them all cost the
    discovery almost half its instructions."""

    __slots__ = ("_paths", "texts")

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self.texts = texts if texts is not None else {}  # module -> its path, as os.fspath gives it
        self._paths: dict[str, Path] = {}

    def __getitem__(self, module: str) -> Path:
        path = self._paths.get(module)
        if path is None:
            path = self._paths[module] = Path(self.texts[module])
        return path

    def __setitem__(self, module: str, path: Path) -> None:
        self.texts[module] = os.fspath(path)
        self._paths[module] = path

    def __delitem__(self, module: str) -> None:
        del self.texts[module]
        self._paths.pop(module, None)

    def __contains__(self, module: object) -> bool:
        return module in self.texts

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)

    def copy(self) -> ModuleFiles:
        """A map of the same paths that changes on its own, as ``dict.copy`` gives."""
        copied = ModuleFiles(dict(self.texts))
        copied._paths.update(self._paths)
        return copied

    __copy__ = copy

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.texts!r})"


class Discovery:
    """What the walk of the package directories found."""

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    __slots__ = ("absolute", "linked", "modules", "non_packages", "plain", "reusable", "skipped", "stamps")

    def __init__(self) -> None:
        self.modules = ModuleFiles()
        self.skipped: list[Skipped] = []
        # Symlinked subpackages: followed as grimp follows them; flake8 does not enter them.
        self.linked: list[Path] = []
        # module -> its file's (size, modification time, change time, inode) when the walk
        # met it (a namespace root has none)
        self.stamps: dict[str, tuple[int, int, int, int]] = {}
        # module -> its file (or directory) as an absolute path, as ``os.path.abspath`` gives it
        self.absolute: dict[str, str] = {}
        # Nothing the graph's blockers look for can be below the directories walked: no
        # symlinked directory, no directory outside a package (which the blockers' walk
        # enters and this one does not), no ``.py`` name that is not ASCII.
        self.plain = True
        # The directories below a package that are not packages, and whether each is
        # inside one: what they hide is looked at again when the discovery is reused.
        self.non_packages: list[tuple[str, bool]] = []
        # What was found follows from the names and kinds of the entries listed, given
        # that each module's file is a regular file within the size limit and the
        # non-packages are looked at again: no file was skipped, no link followed.
        self.reusable = True


MAX_FILE_SIZE_ENV = "DOMAIN_FENCE_MAX_FILE_SIZE"
DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024  # bytes: far above any hand-written module


def max_file_size() -> int:
    """The size above which a source file is not read (``$DOMAIN_FENCE_MAX_FILE_SIZE``
    in bytes, else 64 MiB: also for a value that is no positive number, which would
    have every file skipped; the front ends refuse one, see :func:`max_file_size_problem`)."""
    try:
        size = int(os.environ.get(MAX_FILE_SIZE_ENV, ""))
    except ValueError:
        return DEFAULT_MAX_FILE_SIZE
    return size if size > 0 else DEFAULT_MAX_FILE_SIZE


def max_file_size_problem() -> str | None:
    """What is wrong with ``$DOMAIN_FENCE_MAX_FILE_SIZE``, when set to no positive whole
    number of bytes (a typo would otherwise leave the limit at its default unseen)."""
    value = os.environ.get(MAX_FILE_SIZE_ENV, "")
    if not value.strip():
        return None
    try:
        if int(value) > 0:
            return None
    except ValueError:
        pass
    return f"{MAX_FILE_SIZE_ENV}={value!r}: expected a positive whole number of bytes"


def discover_modules(root_package: str, directories: list[Path], discovery: Discovery | None = None) -> ModuleFiles:
    """Every module of ``root_package``: its dotted name -> its source file.

    Like grimp, a subdirectory is a package only when it holds an ``__init__.py``; a
    namespace root maps to its directory. Symlinked subpackages are followed, as grimp
    follows them, but never into a directory that is its own ancestor. What is not
    analysed goes to ``discovery.skipped``: a directory without ``__init__.py`` inside
    a package (Python imports its files, grimp does not see them), an unreadable
    directory, a ``.py`` that is no regular file or is larger than :func:`max_file_size`,
    and a ``name.py`` beside a package ``name/`` (Python imports the package).
    """
    discovery = discovery if discovery is not None else Discovery()
    found = discovery.modules.texts
    limit = max_file_size()
    for directory in map(os.fspath, directories):
        init = package_init(directory)
        if root_package not in found:
            found[root_package] = os.path.join(directory, "__init__.py") if init is not None else directory
            discovery.absolute[root_package] = os.path.abspath(found[root_package])
            _keep_stamp(discovery.stamps, root_package, init)
        where, real = os.path.abspath(directory), os.path.realpath(directory)
        walk = _Walk(discovery, limit, listed_absolute=where == directory)
        inside, inside_real = os.path.join(where, ""), os.path.join(real, "")  # ending with a separator
        walk.below(root_package, directory, inside, inside_real, frozenset({real}), init is not None)
    names = sorted(found)  # as text, not as (name, path) pairs: thousands of them
    discovery.modules = ModuleFiles(dict(zip(names, map(found.__getitem__, names), strict=True)))
    return discovery.modules


KEPT_DISCOVERY_VERSION = 5  # 5: a file named like no identifier (my-mod.py) is a module, as grimp finds it; 4: a namespace root's namespace packages, as grimp finds them; 3: each module's file kept as its place among the walk's stamped entries


def discovered(package: str, directories: list[Path], cache_dir: Path | None) -> Discovery:
    """What :func:`discover_modules` finds of ``package`` in ``directories``. With a
    ``cache_dir``, what an earlier run found and kept there, when the walks of the
    listings shared now found the same names and kinds below ``directories`` as it did
    (see :func:`.listing.walked`), each module's file is still a regular file within
    the size limit and no directory that was not a package has become one."""
    key = _names_key(package, directories) if cache_dir is not None else None
    if cache_dir is None or key is None:
        return _discovered_now(package, directories)
    where = "\0".join([package, *map(os.fspath, directories)]).encode("utf-8", "surrogateescape")
    kept_at = cache_dir / f"discovery-{hashlib.sha256(where).hexdigest()[:16]}.pickle"
    # The entries whose status the run cache's walk took, in its order: the same names
    # and kinds below the directories (the key) list the same ones in the same order.
    stamped = list(chain.from_iterable(walked()[directory][1] for directory in map(os.fspath, directories)))
    reused = _reused(kept_at, package, key, stamped)
    if reused is not None:
        return reused
    discovery = _discovered_now(package, directories)
    kept = _kept(key, discovery, stamped) if discovery.reusable else None
    if kept is not None:
        with suppress(OSError):  # an unwritable cache: discovered again next time
            make_cache_directory(cache_dir)  # a first run's: the next, after an edit, reuses it
            write_atomically(kept_at, sealed(pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)))
    return discovery


def _kept(key: tuple[object, ...], discovery: Discovery, stamped: list[os.DirEntry[str]]) -> tuple[object, ...] | None:
    """What is kept of ``discovery`` under ``key``: its modules, each one's file as its
    place among the walk's ``stamped`` entries; None when one is not among them."""
    names = tuple(discovery.modules.texts)
    paths = tuple(discovery.modules.texts.values())
    absolute = tuple(map(discovery.absolute.__getitem__, names))
    place = {entry.path: at for at, entry in enumerate(stamped)}
    try:
        # A namespace package's directory has no stamp: its position is kept instead (few).
        unfiled = tuple(at for at, path in enumerate(paths) if not path.endswith(".py"))
        places = tuple(place[path] for at, path in enumerate(paths) if at not in unfiled)
    except KeyError:
        return None
    return (key, names, paths, absolute, discovery.plain, tuple(discovery.non_packages), unfiled, places)


def _discovered_now(package: str, directories: list[Path]) -> Discovery:
    discovery = Discovery()
    discover_modules(package, directories, discovery)
    return discovery


def _names_key(package: str, directories: list[Path]) -> tuple[object, ...] | None:
    """What the discovery of ``package`` in ``directories`` follows from, apart from the
    statuses of the files below them; None when a walk of the shared listings did not
    see all of it."""
    trees = walked()
    # Python's version too: which names are identifiers follows its Unicode tables, and
    # two versions may share one cache directory (tox, pre-commit beside CI).
    key: list[object] = [KEPT_DISCOVERY_VERSION, tuple(sys.version_info[:2]), package]
    for directory in map(os.fspath, directories):
        below = trees.get(directory)
        if below is None:
            return None
        key += (directory, os.path.abspath(directory), below[0], package_init(directory) is not None)
    return tuple(key)


def _reused(kept_at: Path, package: str, key: tuple[object, ...], stamped: list[os.DirEntry[str]]) -> Discovery | None:
    """The discovery of ``package`` kept at ``kept_at`` under ``key``, while it holds (see
    :func:`discovered`); ``stamped``: the entries the walk took the status of."""
    try:
        kept_key, names, paths, absolute, plain, non_packages, unfiled, places = plain_loads(
            unsealed(kept_at.read_bytes()) or b""
        )
        if kept_key != key:
            return None
        texts = dict(zip(names, paths, strict=True))
        filed = list(names)
        for at in reversed(unfiled):  # in C, each: thousands of names, a namespace package or two
            del filed[at]
        # Thousands of files, each's status as the walk took it, checked in C; each place
        # must be its file's (a damaged or planted file is a miss, not others' stamps).
        entries = list(map(stamped.__getitem__, places))
        if min(places, default=0) < 0 or list(map(attrgetter("path"), entries)) != list(map(texts.__getitem__, filed)):
            return None
        statuses = list(map(os.DirEntry.stat, entries))
        if not all(map(stat.S_ISREG, map(attrgetter("st_mode"), statuses))):
            return None
        if max(map(attrgetter("st_size"), statuses), default=0) > max_file_size():
            return None
        stamps = dict(zip(filed, map(stamp_of, statuses), strict=True))
        if not all(map(attrgetter("st_ino"), statuses)):  # as _keep_stamp keeps them
            stamps = {module: stamp for module, stamp in stamps.items() if stamp[3]}
        if any(package_init(directory) is not None for directory, _ in non_packages):
            return None
        discovery = Discovery()
        discovery.modules = ModuleFiles(texts)
        discovery.absolute = dict(zip(names, absolute, strict=True))
        discovery.stamps = stamps
        discovery.plain = bool(plain)
        for directory, in_package in non_packages:
            discovery.non_packages.append((directory, in_package))
            _look_into_non_package(directory, in_package, discovery)
    except Exception:  # noqa: BLE001 -- missing, unreadable, damaged or foreign: discovered again
        return None
    return discovery


class _Walk:
    """The walk of one directory of a root package: what it finds goes to ``discovery``."""

    __slots__ = ("discovery", "limit", "listed_absolute")

    def __init__(self, discovery: Discovery, limit: int, listed_absolute: bool) -> None:
        self.discovery = discovery
        self.limit = limit  # a file larger (bytes) is not read
        self.listed_absolute = listed_absolute  # the listings' paths are absolute already

    def below(
        self, package: str, directory: str, where: str, real: str, ancestors: frozenset[str], in_package: bool
    ) -> None:
        """Walk ``directory`` below ``package``. ``where`` is its absolute path and ``real``
        its resolved one, each ending with a separator: a path below them is one string
        away (``os.path.abspath`` and ``join`` for each of hundreds of directories cost
        the walk a sixth of its instructions)."""
        discovery = self.discovery
        try:
            entries = listing(directory)
        except OSError as error:
            reason = f"cannot read directory: {error.strerror or error}"
            discovery.skipped.append(Skipped(Path(directory), reason, blocks_graph=True))
            discovery.reusable = False
            return
        # Thousands of files: each entry is asked once whether it is a directory.
        kinds = [(entry, _is_directory(entry)) for entry in entries]
        if discovery.plain and not "".join([entry.name for entry in entries]).isascii():
            discovery.plain = False  # a name that is perhaps not UTF-8: the blockers' walk looks
        # name -> the status of its __init__.py, for the subdirectories that are packages
        # (grimp enters no directory named like no identifier: my-mod.py beside my-mod/ is a module)
        packages = {
            entry.name: init
            for entry, is_directory in kinds
            if is_directory and entry.name.isidentifier() and (init := package_init(entry.path)) is not None
        }
        modules, stamps, absolute = discovery.modules.texts, discovery.stamps, discovery.absolute
        names_here: set[str] | None = None  # made when first needed: few directories need it
        for entry, is_directory in kinds:
            name = entry.name
            if is_directory:
                if not name.isidentifier():
                    continue  # no module can be named so
                linked = entry.is_symlink()
                if linked or not (in_package or name in packages):
                    discovery.plain = False
                # Resolving costs a system call per path component: only for a link.
                below = os.path.realpath(entry.path) if linked else real + name
                if below in ancestors:
                    continue  # a symlink loop: reported before the graph is built (see blockers)
                if name in packages:
                    module = f"{package}.{name}"
                    inside = where + name + os.sep  # an identifier: added is joined, and stays normal
                    if module not in modules:
                        modules[module] = entry.path + os.sep + "__init__.py"
                        absolute[module] = inside + "__init__.py"
                        _keep_stamp(stamps, module, packages[name])
                    if linked:
                        discovery.linked.append(Path(entry.path))
                        discovery.reusable = False
                    below_real = os.path.join(below, "") if linked else below + os.sep
                    self.below(module, entry.path, inside, below_real, ancestors | {below}, True)
                elif not in_package:
                    # Outside any regular package (a namespace root's plain directories,
                    # __pycache__ too), grimp makes a directory a namespace package when a
                    # module is found below it: so must the modules the caches keep.
                    module = f"{package}.{name}"
                    names_here = {entry.name for entry in entries} if names_here is None else names_here
                    found = len(modules)
                    inside = where + name + os.sep
                    below_real = os.path.join(below, "") if linked else below + os.sep
                    self.below(module, entry.path, inside, below_real, ancestors | {below}, False)
                    # Beside name.py, which Python imports, grimp still lists the modules below.
                    if len(modules) > found and module not in modules and f"{name}.py" not in names_here:
                        modules[module] = entry.path
                        absolute[module] = where + name
                elif name != COMPILED_DIRECTORY:  # unless a package, it holds compiled files only
                    discovery.non_packages.append((entry.path, in_package))
                    _look_into_non_package(entry.path, in_package, discovery)
            elif name.endswith(".py") and name != "__init__.py" and is_module_stem(stem := name[:-3]):
                status = _source_status(entry, stem in packages, self.limit)
                if isinstance(status, Skipped):
                    discovery.skipped.append(status)
                    discovery.reusable = False
                elif (module := f"{package}.{stem}") not in modules:
                    modules[module] = entry.path
                    absolute[module] = entry.path if self.listed_absolute else where + name
                    _keep_stamp(stamps, module, status)


def module_shaped(stem: str) -> bool:
    """grimp's rule for a file ``stem.py``, whatever its name's encoding: not hidden
    (``.py``, ``.x.py``), and no other dot."""
    return bool(stem) and "." not in stem


def is_module_stem(stem: str) -> bool:
    """Whether a file ``stem.py`` is a module, as grimp finds modules: any name not
    hidden and without another dot. ``my-mod.py`` is one though no import statement can
    name it: grimp puts it in the graph, and lint-imports reports its imports, so every
    front end must read it too. A name that is not UTF-8 is not (grimp cannot read it:
    a blocker of the graph, see :mod:`..index.blockers`)."""
    if stem.isidentifier():  # nearly every file: no other question asked
        return True
    if not module_shaped(stem):
        return False
    try:
        stem.encode("utf-8")
    except UnicodeEncodeError:  # surrogate escapes of bytes that are not UTF-8
        return False
    return True


def _look_into_non_package(directory: str, in_package: bool, discovery: Discovery) -> None:
    """Report what ``directory``, below a package but not one, keeps from the analysis."""
    if not os.access(directory, os.R_OK | os.X_OK):
        # Whether it is a package cannot even be told: grimp passes it by silently.
        reason = "cannot read directory: Permission denied"
        discovery.skipped.append(Skipped(Path(directory), reason, blocks_graph=True))
    elif in_package:
        _namespace_inside_package(directory, discovery)


def _namespace_inside_package(directory: str, discovery: Discovery) -> None:
    """Python imports the files of a directory without ``__init__.py`` inside a package
    (a namespace portion); grimp does not see them: each is reported, not analysed.
    A path is made only for what is reported."""
    reason = namespace_reason(os.path.basename(directory))

    def unreadable(error: OSError) -> None:
        path = Path(error.filename or directory)
        discovery.skipped.append(Skipped(path, f"cannot read directory: {error.strerror or error}"))

    for top, directories, files in os.walk(directory, onerror=unreadable):
        directories[:] = sorted(
            name
            for name in directories
            if name != COMPILED_DIRECTORY or package_init(os.path.join(top, name)) is not None
        )
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(top) / name
                # flake8 reads what its walk reaches: never a FIFO or a device.
                discovery.skipped.append(Skipped(path, reason, seen_by_flake8=_is_regular(path)))


def namespace_reason(directory: str) -> str:
    """Why the files below ``directory`` (a directory without ``__init__.py`` right
    inside a package) are not analysed."""
    return f"not analysed: {directory}/ has no __init__.py (a namespace directory inside a package)"


def shadowed_reason(name: str) -> str:
    """Why ``name.py`` beside a package ``name/`` is not analysed."""
    return f"not analysed: shadowed by the package {name}/ (Python imports the package)"


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _source_status(entry: os.DirEntry[str], shadowed: bool, limit: int) -> os.stat_result | Skipped:
    """The status of the ``.py`` of ``entry`` when it is an ordinary file, else why it
    is not read."""
    if shadowed:
        return Skipped(Path(entry.path), shadowed_reason(entry.name[:-3]), blocks_graph=True, seen_by_flake8=True)
    try:
        status = entry.stat()  # through a symbolic link
    except OSError as error:
        return Skipped(Path(entry.path), f"cannot read: {error.strerror or error}", blocks_graph=True)
    if not stat.S_ISREG(status.st_mode):
        return Skipped(Path(entry.path), "not a regular file (a FIFO, device or socket)", blocks_graph=True)
    if status.st_size > limit:
        reason = f"larger than {limit} bytes (see {MAX_FILE_SIZE_ENV})"
        return Skipped(Path(entry.path), reason, blocks_graph=True)
    return status


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks, as grimp's walk does
    except OSError:
        return False


def package_init(directory: str) -> os.stat_result | None:
    """The status of ``directory``'s ``__init__.py`` (through a link) when it is a regular
    file, as Python requires of a package's; else None. Taken from the listing of
    ``directory`` a walk of this run shares, when it has one (no system call: the run
    cache's walk took it), else from the file now."""
    entry = listed_entry(directory, "__init__.py")
    try:
        status = entry.stat() if entry is not None else os.stat(os.path.join(directory, "__init__.py"))
    except OSError:
        return None
    return status if stat.S_ISREG(status.st_mode) else None


def _keep_stamp(stamps: dict[str, tuple[int, int, int, int]], module: str, status: os.stat_result | None) -> None:
    """Keep the stamp of ``module``'s file, from its ``status`` taken a moment ago."""
    if status is not None and status.st_ino:  # Windows gives a directory entry none: os.stat then
        stamps[module] = stamp_of(status)


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

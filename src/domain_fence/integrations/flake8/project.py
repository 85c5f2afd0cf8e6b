"""What the flake8 plugin checks with: the configuration found and its engine (imported
only when a configuration is found, see :mod:`domain_fence.integrations.flake8`)."""

from __future__ import annotations

import gc
import glob
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from domain_fence.core.engine import Engine
from domain_fence.core.index.blockers import Blocker, printable_path, shown_at
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.findings import Finding
from domain_fence.core.source.files import real_path
from domain_fence.integrations.importlinter.configuration import (
    Configuration,
    ConfigurationNotFound,
    find_configuration,
    load_configuration,
)
from domain_fence.integrations.importlinter.results import validate
from domain_fence.integrations.importlinter.session import engine_for

STDIN_NAMES = ("stdin", "-")


@dataclass(eq=False)  # a holder never compared: no __eq__ compiled on import
class Project:
    """One configuration and its engine."""

    configuration: Configuration
    engine: Engine
    paths: list[str] = field(default_factory=list)  # what flake8 was asked to check
    reads_stdin: bool = False  # else the engine reads each file's bytes as check does
    # The first file flake8 checks, by path: it shows what lies in no package (see findings).
    first_checked: str | None = None
    first_module: str | None = None
    checked: frozenset[str] = frozenset()  # the modules whose files flake8 checks (none read from stdin)
    named: frozenset[str] = frozenset()  # the paths flake8 was given, absolute
    # What the index skipped that flake8 checks, each at its own file (none read from stdin).
    checked_skipped: frozenset[Path] = frozenset()
    _unvisited: list[tuple[Path | None, str]] | None = None  # found once (see :func:`unvisited`)

    @classmethod
    def load(cls, path: Path | None) -> Project:
        """Raises ConfigurationError or BaselineError with one line per problem."""
        configuration = load_configuration(path)
        engine = engine_for(configuration)
        # Per file, a missing root package or a misspelt module would pass silently.
        validate(engine)
        return cls(configuration, engine)

    @property
    def index(self) -> ProjectIndex:
        return self.engine.index

    def must_not_read(self) -> list[str]:
        """Exclude patterns for the files flake8 would hang on or read without end: but
        for a regular file named on the command line (one over the size limit), which
        flake8 reads as it would without the plugin, and on which the DOM001 is shown."""
        return flake8_must_not_read(self.index, self.named, self.paths)

    def prepare(
        self, paths: list[str], excluded: Callable[[str], bool] = lambda path: False, display: str | None = None
    ) -> None:
        """Before flake8 starts its workers: learn what the files under ``paths`` will
        report (see :meth:`Engine.prepare`), then move what was read out of the cyclic
        garbage collector's sight.

        Kept for the whole run, those facts would otherwise be walked by every full
        collection that flake8's own work triggers: a cost growing with the files
        checked times the facts kept. Long-lived objects frozen before a fork is what
        ``gc.freeze`` is for; the workers inherit the facts instead of each reading
        its share. ``excluded``: flake8's test of a path against its ``exclude`` and
        ``extend-exclude`` patterns (see :func:`modules_below`)."""
        self.paths = [os.path.abspath(path) for path in paths or ["."]]
        self.named = frozenset()
        # A project is kept for the next run in this process: nothing of the last one stays.
        self.reads_stdin, self.checked, self.first_checked, self._unvisited = False, frozenset(), None, None
        self.first_module = None
        self.checked_skipped = frozenset()
        if any(path in STDIN_NAMES for path in paths):
            self.reads_stdin = True
            # flake8 applies its excludes to the name stdin stands for (``display``): the
            # file is not read from disk, so it is excluded for nothing.
            self.named = frozenset({os.path.abspath(display)}) if display and display != "stdin" else frozenset()
            return  # stdin: one file, read when checked
        kept = _through_links(paths or ["."], checks(paths or ["."], excluded))
        # A file among them is checked, whatever it is (by the path given and its real one).
        given = [path for path in self.paths if kept(path)]
        self.named = frozenset({*given, *real_paths(given)})
        under = [module for file, module in self.index.absolute_paths().items() if kept(file)]
        checked = self.checked = frozenset(under)
        self.checked_skipped = frozenset(
            s.path for s in self.index.skipped if s.seen_by_flake8 and kept(os.path.abspath(s.path))
        )
        files = self.index.absolute_paths().items()
        self.first_checked = min((f for f, module in files if module in checked and f.endswith(".py")), default=None)
        # Compared by module: flake8 names the file as given (a link, a path through one).
        self.first_module = self.index.module_for_path(self.first_checked) if self.first_checked else None
        self.engine.prepare(under)
        self.engine.graph_blockers()  # known before flake8 forks its workers
        global _FROZEN
        if not _FROZEN and len(under) >= FREEZE_AFTER:  # a handful of files costs the collector nothing
            gc.freeze()
            _FROZEN = True

    def findings(self, filename: str, text: str | None, noqa: bool = True) -> Iterator[Finding]:
        """The engine's findings for the file (``noqa=False``: those ``noqa`` comments
        suppress too), and the DOM001 of what flake8 never hands the plugin (see
        :func:`unvisited`): at a package's ``__init__.py``, of what lies right below it;
        at the first file flake8 checks (or the one it reads from stdin), of what lies in
        no package (right in a namespace root) or in a package whose ``__init__.py``
        flake8 does not check (it was given changed files only, or stdin)."""
        # flake8's text of a saved file is its own decoding (latin-1 when the file's
        # declared encoding fails): the engine decodes the bytes, as every front end does.
        yield from self.engine.findings_in(filename, text if self.reads_stdin else None, noqa).reported
        module = self.index.module_for_path(filename)
        if module is None:
            return
        package = self.index.modules[module].parent if self.index.is_package(module) else None
        first = self.reads_stdin or module == self.first_module
        if self._unvisited is None:
            blockers = self.engine.graph_blockers()
            self._unvisited = list(
                unvisited(self.index, self.paths, blockers, self.checked, self.checked_skipped, self.named)
            )
        for below, reason in self._unvisited:
            if (below == package) if self._checked_at(below) else first:
                yield shown_at(self.index.root, filename, reason)

    def _checked_at(self, package: Path | None) -> bool:
        """flake8 checks the ``__init__.py`` of the package whose directory is ``package``."""
        return package is not None and self.index.module_for_path(package / "__init__.py") in self.checked


def unvisited(
    index: ProjectIndex,
    paths: list[str],
    graph_blockers: Iterable[Blocker] = (),
    checked: frozenset[str] = frozenset(),
    checked_skipped: frozenset[Path] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> Iterator[tuple[Path | None, str]]:
    """What flake8 never hands the plugin, each with the directory of the innermost
    package holding it (None: none does, it lies right in a namespace root) and why:
    an unreadable directory, a FIFO, device or oversized file (kept from flake8, which
    would read it), a symlinked subpackage (flake8 does not enter directory links)
    unless it is named among flake8's paths, and what else keeps the import graph from
    being built that is no module's file (a symlink loop, a name that is not UTF-8:
    ``graph_blockers``), and a module's file among those that flake8 does not check
    (of the modules ``checked``: none when it reads stdin), or a file the index skipped
    that keeps the graph from being built, which flake8 reads but does not check in this
    run (not among ``checked_skipped``: a module shadowed by a package, given changed files
    only or stdin). The engine reports each where it is; flake8 can only show a finding
    in a file it checks."""
    for skipped in index.skipped:
        # Below a directory link (a namespace directory's, inside a package) flake8 does
        # not go unless it is named; a symlinked subpackage is shown on its own, below.
        link = _directory_link(index, skipped.path)
        hidden = link is not None and link not in index.linked and not _named(paths, link)
        handed = not skipped.seen_by_flake8 and _named_file(skipped.path, named)  # shown at itself
        unchecked = skipped.blocks_graph and skipped.path not in checked_skipped and not handed
        if (not skipped.seen_by_flake8 and not handed) or hidden or unchecked:
            yield _nearest_package(index, skipped.path), f"{_shown(index, skipped.path)}: {skipped.reason}"
    # What the index skipped is shown above, or at its own file; a module's file that
    # flake8 checks shows its own finding (or flake8's E999 when it cannot parse it).
    # One it does not check (given changed files only, or stdin) would block in silence.
    reported = {_shown(index, skipped.path) for skipped in index.skipped}
    for blocker in graph_blockers:
        path = index.root / blocker.path
        at_own_file = blocker.path.endswith(".py") and index.module_for_path(path) in checked
        if blocker.path not in reported and not at_own_file:
            reported.add(blocker.path)
            yield _nearest_package(index, path), f"{blocker.path}: {blocker.reason}"
    for link in index.linked:
        if not _named(paths, link):
            reason = f"{_shown(index, link)}/ is a symlinked subpackage, which flake8 does not enter; name it as a path"
            yield _nearest_package(index, link), reason


def _named(paths: list[str], link: Path) -> bool:
    """flake8 goes through ``link``: it is, or holds, one of the paths it was given."""
    return any(path == str(link) or path.startswith(str(link) + os.sep) for path in paths)


def _directory_link(index: ProjectIndex, path: Path) -> Path | None:
    """The outermost directory link between the project's root and ``path``."""
    found = None
    for parent in path.parents:
        if parent == index.root or index.root not in parent.parents:
            break
        if parent.is_symlink():
            found = parent
    return found


def _nearest_package(index: ProjectIndex, path: Path) -> Path | None:
    """The directory of the innermost package of ``index`` holding ``path``."""
    files = index.absolute_paths()
    for parent in path.parents:
        if os.path.join(os.path.abspath(parent), "__init__.py") in files:
            return parent
    return None


def flake8_must_not_read(
    index: ProjectIndex, named: frozenset[str] = frozenset(), paths: Sequence[str] = ()
) -> list[str]:
    """Exclude patterns for the files flake8 would hang on or read without end (but the
    regular files ``named``: see :meth:`Project.must_not_read`), each also as flake8
    names it when it walks one of ``paths`` reached through a link (``/tmp`` on macOS, a
    symlinked checkout): flake8 matches the path as it walks it, unresolved."""
    excluded = [
        os.path.abspath(s.path) for s in index.skipped if not s.seen_by_flake8 and not _named_file(s.path, named)
    ]
    linked = [(path, os.path.realpath(path)) for path in paths]
    linked = [(path, real) for path, real in linked if real != path]
    aliases = [
        given + file[len(real) :]
        for file in excluded
        for given, real in linked
        if file == real or file.startswith(real.rstrip(os.sep) + os.sep)
    ]
    return [glob.escape(path) for path in sorted({*excluded, *aliases})]


def _through_links(paths: list[str], kept: Callable[[str], bool]) -> Callable[[str], bool]:
    """``kept`` (whether flake8 checks a file, by the path it walks) asked of the
    project's files, which the index names by their real paths, also as flake8 names
    them when a path it was given is reached through a link."""
    linked = [(os.path.abspath(path), real) for path, real in zip(paths, real_paths(paths), strict=True)]
    linked = [(given, real) for given, real in linked if given != real]

    def kept_here(file: str) -> bool:
        return kept(file) or any(
            (file == real or file.startswith(real.rstrip(os.sep) + os.sep)) and kept(given + file[len(real) :])
            for given, real in linked
        )

    return kept_here if linked else kept


def real_paths(paths: list[str]) -> list[str]:
    """Each of ``paths`` with the links of its directories resolved (a file's own link
    is the module flake8 names: kept), each directory resolved once: pre-commit passes
    thousands of files of a few directories."""
    resolved: dict[str, str] = {}
    found = []
    for path in paths:
        absolute = os.path.abspath(path)
        directory, name = (absolute, "") if os.path.isdir(absolute) else os.path.split(absolute)
        if directory not in resolved:
            resolved[directory] = os.path.realpath(directory)
        found.append(os.path.join(resolved[directory], name) if name else resolved[directory])
    return found


def _named_file(path: Path, named: frozenset[str]) -> bool:
    """``path`` is a regular file flake8 was given by name (no FIFO: it would hang)."""
    return os.path.abspath(path) in named and os.path.isfile(path) and not stat.S_ISFIFO(os.stat(path).st_mode)


def _shown(index: ProjectIndex, path: Path) -> str:
    return printable_path(index.root, Path(os.path.abspath(path)))


FREEZE_AFTER = 64  # modules about to be checked
_FROZEN = False


def modules_below(
    index: ProjectIndex, paths: list[str], excluded: Callable[[str], bool] = lambda path: False
) -> list[str]:
    """The modules whose files flake8 checks when given ``paths`` (see :func:`checks`)."""
    kept = checks(paths, excluded)
    return [module for file, module in index.absolute_paths().items() if kept(file)]


def checks(paths: list[str], excluded: Callable[[str], bool] = lambda path: False) -> Callable[[str], bool]:
    """Whether flake8 given ``paths`` checks a file (by absolute path): the files given,
    and the files below the directories given, but what ``excluded`` (flake8's own test
    of a path against its exclude patterns) excludes where flake8's discovery applies
    it: to a path given, to each directory below it and to each file. A file said to be
    checked and left out would show nothing of what the plugin shows there."""
    roots = [os.path.abspath(path) for path in paths if not excluded(path)]
    exact = set(roots)
    # pre-commit passes every changed file: only directories can hold others
    prefixes = tuple(root.rstrip(os.sep) + os.sep for root in roots if os.path.isdir(root))
    # (a walk's root, a directory below it) -> whether the walk skips it: it, or one
    # between it and the root, is excluded. (A directory above the root is no concern
    # of that walk.)
    directories: dict[tuple[str, str], bool] = {}

    def reached(file: str, prefix: str) -> bool:
        """Whether flake8's walk from the directory ``prefix`` names reaches ``file``."""
        directory = prefix.rstrip(os.sep)
        for part in file[len(prefix) :].split(os.sep)[:-1]:
            parent, directory = directory, os.path.join(directory, part)
            if (prefix, directory) not in directories:
                above = directories.get((prefix, parent), False)
                directories[prefix, directory] = above or excluded(directory)
            if directories[prefix, directory]:
                return False
        return not excluded(file)

    def kept(file: str) -> bool:
        # Given a directory and one below it, flake8 walks both: either may reach the file.
        return file in exact or any(reached(file, prefix) for prefix in prefixes if file.startswith(prefix))

    return kept


def load_project(config: str) -> Project:
    """The project for ``--domain-fence-config`` (a file, or a directory to search)."""
    return Project.load(real_path(config))


def project_in(directory: Path) -> Project | None:
    """The project of the configuration ``lint-imports`` would read in ``directory``;
    None when none of its files has an import-linter section (one naming
    ``importlinter`` elsewhere, in a comment or another tool's section)."""
    try:
        path = find_configuration(directory)
    except ConfigurationNotFound:
        return None
    return Project.load(path)

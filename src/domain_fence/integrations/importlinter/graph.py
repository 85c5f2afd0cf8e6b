"""Build the import graph once per run, the way lint-imports builds it, but safely.

grimp runs no project code and is fast, yet on hostile input it imports a regular
parent of a dotted root package, walks a symlink loop forever, crashes (a Rust panic,
or a stack overflow on deeply nested expressions) or stops at the first file it
cannot parse. Here the first two are refused up front, the crashes are caught or
made far less likely (see :mod:`.native`), and any failure names every file at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import grimp
from grimp import ImportGraph
from grimp.exceptions import NotATopLevelModule, SourceSyntaxError

from domain_fence.core.engine.runcache import session_section
from domain_fence.core.index.blockers import (
    Blocker,
    is_utf8,
    printable,
    printable_path,
    skipped_blockers,
    source_blockers,
    walk_blockers,
)
from domain_fence.core.index.isolation import preload
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.files import StampKey
from domain_fence.core.source.listing import sharing
from domain_fence.core.source.modules import ModuleNotFound, default_search_paths, locate_package, regular_parent

from .configuration import Configuration, ConfigurationError, project_on_path
from .native import cache_turn, native_stderr_held, with_roomy_stack

# What building the graph imports lazily (grimp's cache, ours, our lock and signal
# handling). The workers' modules are preloaded when workers are first started.
GRAPH_MODULES = (
    "fcntl",
    "signal",
    "grimp.adaptors.caching",
    "grimp.application.usecases",
    "hashlib",
    "json",
    "domain_fence.integrations.importlinter.graph_cache",
)


class GraphUnavailable(ConfigurationError):
    """The import graph cannot be built: ``blockers`` are the files at fault (none
    when grimp's failure names nothing we can find), ``reason`` grimp's own report."""

    def __init__(self, configuration: Configuration, reason: str, blockers: list[Blocker]) -> None:
        self.configuration = configuration
        self.reason = reason
        self.blockers = blockers
        if blockers:
            first = blockers[0]
            more = f" (and {len(blockers) - 1} more)" if len(blockers) > 1 else ""
            where = f"{first.path}:{first.line}: {first.reason}{more}"
        else:
            where = reason
        super().__init__(f"{configuration.path}: cannot build the import graph: {where}")


def build_graph(configuration: Configuration, cache: bool = True, index: ProjectIndex | None = None) -> ImportGraph:
    """The project's import graph (``index``: the project's files as found, when they
    were just found; else they are found now).

    Raises ConfigurationError for root packages grimp cannot use, and
    GraphUnavailable when files of the project keep the graph from being built.
    """
    search_paths = default_search_paths(configuration.root)
    refuse_regular_parents(configuration, search_paths)
    if not is_utf8(str(configuration.root)):
        raise GraphUnavailable(configuration, "the project's path is not valid UTF-8, which grimp cannot read", [])
    blockers = walk_blockers(configuration.root, _package_directories(configuration, search_paths))
    found = index if index is not None else _index(configuration)
    blockers = sorted({*blockers, *skipped_blockers(found, graph_only=True)})
    if blockers:
        raise GraphUnavailable(configuration, blockers[0].reason, blockers)
    cache = cache and configuration.graph_cache_dir is not None  # --no-cache, DOMAIN_FENCE_NO_CACHE
    try:
        return _build(configuration, cache, discovered_stamps(found, configuration.root_packages))
    except OSError as error:
        if not cache:
            raise unavailable(configuration, error) from None
    # An unwritable or unusable cache (a read-only directory, a file in its place)
    # only costs time: build without it.
    try:
        return _build(configuration, cache=False)
    except OSError as error:  # an unreadable source file
        raise unavailable(configuration, error) from None


def discovered_stamps(index: ProjectIndex, root_packages: Iterable[str]) -> dict[str, StampKey]:
    """The stamps the index's discovery took of the project's files, by absolute path,
    when it walked the listings this run's walks share (the state of the tree the run
    checks, with no link or unusual name on the way); else none."""
    listings = sharing()
    if listings is None or index.plain_in != (listings, frozenset(root_packages)):
        return {}
    paths = {module: path for path, module in index.absolute_paths().items()}
    return {paths[module]: key for module, key in index.discovered_stamps.items() if module in paths}


def _build(configuration: Configuration, cache: bool, discovered: Mapping[str, StampKey] | None = None) -> ImportGraph:
    def build() -> ImportGraph:
        return grimp.build_graph(
            *configuration.root_packages,
            include_external_packages=configuration.session_flag("include_external_packages"),
            exclude_type_checking_imports=configuration.session_flag("exclude_type_checking_imports"),
            cache_dir=str(cache_dir) if cache else None,
        )

    cache_dir = configuration.graph_cache_dir
    preload(GRAPH_MODULES)  # before the project is on sys.path
    try:
        with (
            cache_turn(cache_dir) if cache_dir is not None and cache else nullcontext(),
            served_by_bytes(discovered) if cache else nullcontext(),
            native_stderr_held(),
            project_on_path(configuration),
        ):
            return with_roomy_stack(build)
    except OSError:
        raise
    except NotATopLevelModule:
        raise ConfigurationError(
            f"{configuration.path}: {session_section(configuration.path)} root_packages: a root package is a subpackage; "
            "name its top-level package"
        ) from None
    except ValueError as error:
        if str(error).startswith("Could not find package"):  # grimp: root package not found
            raise ConfigurationError(
                f"{configuration.path}: {session_section(configuration.path)} root_packages: {printable(str(error))}"
            ) from None
        raise unavailable(configuration, error) from None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 -- a grimp panic is a BaseException
        raise unavailable(configuration, error) from None


def served_by_bytes(discovered: Mapping[str, StampKey] | None = None) -> AbstractContextManager[None]:
    """grimp's cache serving each module by its file's bytes (see :mod:`.graph_cache`;
    ``discovered``: the stamps the run took of the files, see :func:`discovered_stamps`);
    grimp's own when the installed grimp's cache is not where it is looked for."""
    try:
        from .graph_cache import content_addressed
    except ImportError:
        return nullcontext()
    return content_addressed(discovered)


def _index(configuration: Configuration) -> ProjectIndex:
    """An index of the project, to find the files grimp could not read."""
    return ProjectIndex.build(configuration.root, configuration.root_packages, cache_dir=None)


def unavailable(configuration: Configuration, error: BaseException) -> GraphUnavailable:
    """The files keeping grimp from building the graph: every one we can find, and the
    one grimp names even when Python reads it without complaint."""
    index = ProjectIndex.build(configuration.root, configuration.root_packages, cache_dir=configuration.cache_dir)
    blockers = source_blockers(index)
    named = _named_by_grimp(configuration, error, index)
    if named is not None and named.path not in {b.path for b in blockers}:
        blockers = sorted([*blockers, named])
    reason = printable(str(error) or type(error).__name__)
    return GraphUnavailable(configuration, reason, blockers)


_DECODE_FAILURE = re.compile(r"Failed to decode file (?P<path>.+?)(?: as UTF-8:| \()")


def _named_by_grimp(configuration: Configuration, error: BaseException, index: ProjectIndex) -> Blocker | None:
    if isinstance(error, SourceSyntaxError):
        path, line, reason = (
            error.filename,
            error.lineno or 1,
            f"syntax error at line {error.lineno or '?'} (grimp's parser)",
        )
    else:
        match = _DECODE_FAILURE.match(str(error))
        if match is None:
            return None
        path, line, reason = match["path"], 1, "cannot decode (grimp reads source as UTF-8 or its coding cookie)"
    module = index.module_for_path(path)
    shown = printable_path(configuration.root, _absolute(configuration, path))
    return Blocker(shown, line, reason, module or shown)


def _absolute(configuration: Configuration, path: str) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else configuration.root / candidate


def refuse_regular_parents(configuration: Configuration, search_paths: list[str]) -> None:
    """grimp locates ``a.b`` with importlib, which imports (runs) ``a`` when ``a`` is
    a regular package; and then refuses it anyway. Refuse it before that."""
    for package in configuration.root_packages:
        parent = regular_parent(package, search_paths)
        if parent is not None:
            raise ConfigurationError(
                f"{configuration.path}: {session_section(configuration.path)} root_packages: {package!r} is inside the regular "
                f"package {parent!r} (it has an __init__.py); name {parent!r} instead"
            )


def _package_directories(configuration: Configuration, search_paths: list[str]) -> Iterator[Path]:
    for package in configuration.root_packages:
        try:
            yield from locate_package(package, search_paths)
        except ModuleNotFound:
            continue  # grimp reports it, as lint-imports does

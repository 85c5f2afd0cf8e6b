"""The project index: every module of the root packages, its file, and the facts
every family reads from it (:class:`~.facts.FileFacts`).

Each file is parsed at most once per version: its facts come from memory, else from
the persistent cache (:mod:`.factcache`), else from parsing it; the tree is dropped
as soon as the facts are extracted. Keeping trees would make every collection of
Python's cyclic garbage collector walk millions of nodes. Many files to parse are
parsed in parallel, one process per core.

Every contract in a run, and flake8 across all the files of a run, share one index,
so cross-module questions (which classes derive from an event base?) are answered
without re-reading the project for each file.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

from domain_fence.core.index.collector import paused_cyclic_collection
from domain_fence.core.source.factcache import (
    FactCache,
    Stamp,
    bytes_digest,
    cache_directory,
    decode_declarations,
    decode_facts,
    decode_flows,
    encode,
)
from domain_fence.core.source.facts import (
    DeclarationFacts,
    FileFacts,
    ImportFact,
    ImportFacts,
    Walked,
    extract,
    extract_traced,
    extract_walked,
    flow_facts,
    import_facts,
    walked_flows,
)
from domain_fence.core.source.flow import ALL_CALLEES, CAPITALIZED, FlowFacts, Source, callee_names
from domain_fence.core.source.listing import listed_since, sharing
from domain_fence.core.source.modules import (
    SKIPPED_ORDER,
    ModuleFiles,
    ModuleNotFound,
    Skipped,
    default_search_paths,
    discovered,
    is_module_stem,
    locate_package,
    namespace_reason,
    shadowed_reason,
)
from domain_fence.core.source.reading import (
    Unreadable,
    decode,
    forget_read,
    load_tree,
    note_reads,
    parse_source,
    read_file,
    read_version,
)
from domain_fence.core.source.statements import statement_imports


class _FromEnvironment:
    """ProjectIndex.build's default cache: where factcache.cache_directory says."""


FROM_ENVIRONMENT = _FromEnvironment()

# Below this many files to parse, starting worker processes costs more than it saves:
# on two idle cores, 16 files take 36 ms in one process and 55 ms in two; 32-48 files
# take as long either way; 64 files 139 ms and 113 ms; 256 files 0.55 s and 0.36 s.
PARALLEL_MIN_FILES = 64
TYPICAL_FILE_BYTES = 8192  # the mean on Monty's and Django's trees: a file's weight in PARALLEL_MIN_FILES
# Tracing a file's flows costs about as much as all its other facts: fewer are worth workers.
PARALLEL_MIN_FLOWS = 16
FLOW_WEIGHT = PARALLEL_MIN_FILES // PARALLEL_MIN_FLOWS
# Reading a file's imports alone costs about two thirds of reading its facts (the parse
# is most of both): a batch of them is worth workers at about the same size.
IMPORTS_WEIGHT = 1
# Parsing fewer files than this, a hint would cost more than the files it saves reading twice.
PRIME_AFTER = 16
RECENT_TEXTS = 8  # the texts of files kept (see ProjectIndex._disk_text)
SAVE_AFTER = 16  # a prefetch that parsed this many files saves the cache at once (else: at exit)


class ProjectIndex:
    """Every module of the root packages, its file, and its facts once read."""

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    def __init__(
        self,
        root: Path,
        modules: ModuleFiles,  # dotted name -> file (or directory, for a namespace root)
        missing: dict[str, str] | None = None,
        skipped: tuple[Skipped, ...] = (),
        linked: tuple[Path, ...] = (),
        cache: FactCache | None = None,
        parallel: bool = True,
        discovered_stamps: dict[str, tuple[int, int, int, int]] | None = None,
        discovered_at: int = 0,
        plain_in: tuple[object | None, frozenset[str]] | None = None,
        by_path: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.modules = modules
        self.missing: dict[str, str] = missing if missing is not None else {}  # root package -> why not found
        self.skipped = skipped  # below the root packages and not analysed (DOM001)
        self.linked = linked  # symlinked subpackages (analysed; flake8 does not enter them)
        self.cache = cache
        self.parallel = parallel  # parse many files in worker processes
        # module -> the stamp of its file when discovered (see Discovery.stamps): read at
        # most once, by the engine that built the index, as the stamps its run began with
        self.discovered_stamps: dict[str, tuple[int, int, int, int]] = (
            discovered_stamps if discovered_stamps is not None else {}
        )
        self.discovered_at = discovered_at  # a time (ns) no stamp of the discovery is older than (see listed_since)
        # The shared listings (see listing.sharing) in which the discovery found the tree
        # below these root packages plain (see Discovery.plain); None when it did not.
        self.plain_in = plain_in
        self._facts: dict[str, FileFacts | None] = {}
        # A module's declarations, or their pickle (from the cache or a worker) until asked for.
        self._declarations: dict[str, DeclarationFacts | bytes] = {}
        self._by_path = by_path  # absolute path -> module
        self._by_real_path: dict[str, str] | None = None  # only after a miss of _by_path
        self._relative: dict[str, str] = {}  # module -> relative_path's answer
        self._buffers: dict[str, str] = {}  # module -> text checked instead of its file
        # modules no file held when their buffer was added (see add_unsaved): gone with it
        self._unsaved: set[str] = set()
        self._flows: dict[str, FlowFacts | None] = {}  # extracted when asked
        # module -> (lines, the facts of its statements there) from its file, read alone
        self._statements: dict[str, tuple[frozenset[int], list[ImportFact] | None]] = {}
        # module -> the stamp and text of its file, for the few modules read last (see _disk_text)
        self._texts: dict[str, tuple[Stamp, str]] = {}
        # see trace_when_mentioned: names, and the modules whose files they are looked for in
        self._trace: tuple[tuple[tuple[bytes, ...], Callable[[str], bool] | None], ...] = ()
        self._primers: dict[object, Callable[[], None]] = {}  # see before_parsing
        self._primed: set[object] = set()
        # module -> the imports of its file, and whether it can be analysed, for the files
        # no contract reads whole (see read_imports): their facts, once read, say it all
        self._imports_only: dict[str, ImportFacts] = {}
        # module -> the stamp of its file when its facts (or imports alone) were read: a
        # file rewritten since, unannounced (no forget), is told by it (see read_before_change)
        self._read_at: dict[str, tuple[int, int, int, int] | None] = {}
        # How often facts or imports were taken in: what a family could not tell of a module
        # without them (its view, say) stays unknown while this is unchanged.
        self.learnt = 0
        self._readers: dict[object, Callable[[str, bytes], bool]] = {}  # see read_also
        self._read_decisions: dict[tuple[object, str], bool] = {}

    @classmethod
    def build(
        cls,
        root: Path,
        root_packages: Iterable[str],
        search_paths: list[str] | None = None,
        cache_dir: Path | _FromEnvironment | None = FROM_ENVIRONMENT,
    ) -> ProjectIndex:
        """The index of ``root_packages``, caching facts in ``cache_dir`` (None: no
        persistent cache; by default where the environment says, see
        :func:`~.factcache.cache_directory`)."""
        began = listed_since()  # the files' stamps are no older than the listings they come from
        plain = search_paths is None  # else not the directories graph_refused looks in
        root = root.resolve()
        paths = search_paths if search_paths is not None else default_search_paths(root)
        files: dict[str, str] = {}  # module -> its path, as text (see ModuleFiles)
        missing: dict[str, str] = {}
        skipped: set[Skipped] = set()
        linked: set[Path] = set()
        stamps: dict[str, tuple[int, int, int, int]] = {}
        absolute: dict[str, str] = {}
        packages = sorted(root_packages)
        directory = cache_directory(root) if isinstance(cache_dir, _FromEnvironment) else cache_dir
        for package in packages:
            try:
                directories = locate_package(package, paths)
            except ModuleNotFound as error:
                missing[package] = str(error)
                continue
            discovery = discovered(package, directories, directory)
            files.update(discovery.modules.texts)
            skipped.update(discovery.skipped)
            linked.update(discovery.linked)
            stamps.update(discovery.stamps)
            absolute.update(discovery.absolute)
            plain = plain and discovery.plain
        cache = FactCache.open(directory, root) if directory is not None else None
        names = sorted(files)  # as text, not as (name, path) pairs: thousands of them
        modules = ModuleFiles(dict(zip(names, map(files.__getitem__, names), strict=True)))
        return cls(
            root=root,
            modules=modules,
            missing=missing,
            skipped=tuple(sorted(skipped, key=SKIPPED_ORDER)),
            linked=tuple(sorted(linked)),
            cache=cache,
            discovered_stamps=stamps,  # of modules found, each by the discovery that found it
            discovered_at=began,
            plain_in=(sharing(), frozenset(packages)) if plain else None,
            by_path={absolute[module]: module for module in modules},  # as absolute_paths would make it
        )

    def is_package(self, module: str) -> bool:
        path = self.modules.get(module)
        return path is not None and (path.name == "__init__.py" or (not _is_source(path) and path.is_dir()))

    def skipped_names(self) -> list[str]:
        """The module names of what the index skipped below its packages (a file too
        large, a FIFO, a directory without ``__init__.py`` inside a package, ...), as
        Python would import them: its DOM001 says why they are not analysed."""
        if not self.skipped:
            return []
        directories = {
            os.path.abspath(path.parent if path.name == "__init__.py" else path): module
            for module, path in self.modules.items()
            if self.is_package(module)
        }
        names = []
        for skipped in self.skipped:
            parts: list[str] = []
            at = os.path.abspath(skipped.path)
            while at not in directories:
                parent, name = os.path.split(at)
                if parent == at:
                    break
                parts.append(name.removesuffix(".py"))
                at = parent
            else:
                names.append(".".join([directories[at], *reversed(parts)]))
        return names

    def names_skipped(self, dotted: str) -> bool:
        """Whether ``dotted``, no module of the index, may name one it skipped, or
        something in one (see :meth:`skipped_names`): no misspelt name, then."""
        return any(
            name == dotted or name.startswith(dotted + ".") or dotted.startswith(name + ".")
            for name in self.skipped_names()
        )

    def module_for_path(self, path: Path | str) -> str | None:
        """The module whose source is ``path``, or None when it is outside the project."""
        module = self.absolute_paths().get(os.path.abspath(path))  # no symbolic link on the way: the usual case
        if module is not None:
            return module
        if self._by_real_path is None:  # resolving every file's links costs a system call per directory
            self._by_real_path = {os.path.realpath(p): m for m, p in self.modules.texts.items()}
        return self._by_real_path.get(os.path.realpath(path))

    def place_new_file(self, path: Path | str) -> tuple[str, Path] | Skipped | None:
        """Where the discovery (:func:`~..source.modules.discover_modules`) would find a
        ``.py`` file at ``path`` that the index does not hold (an editor's new module,
        not saved yet; flake8's stdin): its module and its file, as the index would name
        them; the :class:`Skipped` the discovery would report instead (below a directory
        without ``__init__.py`` inside a package, or shadowed by a package of its
        name); None outside the root packages or for a name no module can have. A new
        package is its ``__init__.py`` in a new directory of a package."""
        path = Path(os.path.abspath(path))
        if not path.name.endswith(".py") or not is_module_stem(path.name[:-3]):
            return None
        is_init = path.name == "__init__.py"
        holder = path.parent.parent if is_init else path.parent  # the package's directory
        name = path.parent.name if is_init else path.name[:-3]
        package = self._package_at(holder)
        if package is not None:
            if is_init and not name.isidentifier():
                return None  # grimp enters no directory so named
            module = f"{package[0]}.{name}"
            if module not in self.modules:
                return module, self._package_directory(package[0]) / path.relative_to(holder)
            if not is_init and self.is_package(module):
                return Skipped(path, shadowed_reason(name), blocks_graph=True, seen_by_flake8=True)
            return None  # a new package over a module of that name: read once saved
        # Not right inside a package: below a directory without __init__.py inside one?
        for directory in (holder, *holder.parents):
            package = self._package_at(directory.parent)
            if package is not None:
                regular = package[1]  # a namespace root's plain directories are not walked
                if regular and directory.name.isidentifier():
                    return Skipped(path, namespace_reason(directory.name), seen_by_flake8=True)
                return None
            if directory.parent == directory:
                break
        return None

    def _package_at(self, directory: Path) -> tuple[str, bool] | None:
        """The package whose directory is ``directory``, and whether it is a regular one
        (with an ``__init__.py``, else a namespace root); None when no package is."""
        module = self.module_for_path(directory / "__init__.py")
        if module is not None:
            return module, True
        module = self.module_for_path(directory)
        return (module, False) if module is not None and self.is_package(module) else None

    def _package_directory(self, package: str) -> Path:
        path = self.modules[package]
        return path.parent if path.name == "__init__.py" else path

    def add_unsaved(self, module: str, path: Path, text: str) -> None:
        """Hold ``module``, at ``path`` where no file holds it yet (see
        :meth:`place_new_file`), checked from ``text`` until :meth:`drop_buffer`."""
        self.modules = ModuleFiles(dict(sorted({**self.modules.texts, module: os.fspath(path)}.items())))
        self._by_path = self._by_real_path = None
        self._relative.clear()
        self._unsaved.add(module)
        self.use_buffer(module, text)

    def is_unsaved(self, module: str | None) -> bool:
        """Whether ``module`` was added from a buffer (:meth:`add_unsaved`)."""
        return module in self._unsaved

    def absolute_paths(self) -> dict[str, str]:
        """Each module's file (or directory), as an absolute path, and the module, in
        module order."""
        if self._by_path is None:
            self._by_path = {os.path.abspath(p): m for m, p in self.modules.texts.items()}
        return self._by_path

    def file_facts(self, module: str) -> FileFacts | None:
        """What ``module``'s file says; None for a namespace directory or an unknown module."""
        if module not in self._facts:
            self.prefetch((module,))
        return self._facts[module]

    def defines_method(self, module: str, qualname: str) -> bool:
        """Whether ``module`` defines the method ``qualname`` (``Class.name``) with a
        ``def`` in a class defined outside any function."""
        facts = self.file_facts(module)
        return facts is not None and any(method.qualname == qualname for method in facts.methods)

    def defines_property(self, module: str, qualname: str) -> bool:
        """Whether the method ``qualname`` (``Class.name``) that ``module`` defines is a
        property (``@property``, ``@functools.cached_property``)."""
        facts = self.file_facts(module)
        return facts is not None and qualname in facts.names.properties

    def known_facts(self, module: str) -> FileFacts | None:
        """``module``'s facts if they are in memory already; None rather than read them."""
        return self._facts.get(module)

    def declarations(self, module: str) -> DeclarationFacts | None:
        """The names ``module`` declares; None for a namespace directory or an unknown module."""
        if self.file_facts(module) is None:
            return None
        stored = self._declarations[module]
        if not isinstance(stored, bytes):
            return stored
        declarations = decode_declarations(stored, module)
        if declarations is None:  # a damaged pickle: read the file again
            path = self.modules[module]
            declarations = extract(module, self.is_package(module), load_tree(path))[1]
        self._declarations[module] = declarations
        return declarations

    def flows(self, module: str, needs: Iterable[str] = ALL_CALLEES) -> FlowFacts | None:
        """Where the values ``module`` passes come from (:func:`~.facts.flow_facts`),
        the keywords of the calls to ``needs`` traced at least (:meth:`FlowFacts.covers`);
        None for a module without facts or one that cannot be read. Extracted only when
        first asked for (DOM105 asks for the modules that may build an event, and the
        helpers they call), then found in memory or in the fact cache like any fact."""
        needs = callee_names(needs)
        known = self._flows.get(module)
        if module not in self._flows or (known is not None and not known.covers(needs)):
            self._flows[module] = self._find_flows(module, needs=needs)
        return self._flows[module]

    def function_returns(self, module: str, qualname: str) -> tuple[Source, ...] | None:
        """What the return values of the function or method ``qualname`` of ``module``
        are derived from; None when nothing is, or there is no such function. A module's
        flow facts hold the return values of the helpers its own sinks call; the first
        time another is asked for, every return value of the module is traced."""
        if module not in self._flows:  # a helper's module: traced whole, unless known already
            self._flows[module] = self._find_flows(module, every_return=True, needs=())
        flows = self._flows[module]
        found = flows.function_returns(qualname) if flows is not None else None
        if found == () and flows is not None:  # not traced
            flows = self._flows[module] = self._find_flows(
                module, every_return=True, partial=False, needs=flows.callees
            )
            found = flows.function_returns(qualname) if flows is not None else None
        return found

    def prefetch_flows(
        self,
        modules: Iterable[str],
        every_return: bool = False,
        wanted: Mapping[str, Iterable[str]] | None = None,
        needs: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """Make the flow facts of ``modules`` ready, tracing together (in parallel when
        there are many) those neither in memory nor in the cache: asked for one by one,
        they would be traced one by one. With ``every_return`` (helpers' modules) every
        return value of those traced now is; ``wanted`` (module -> qualnames of its
        functions a check will look up): those whose flow facts lack one are traced again,
        whole, with the others rather than alone when it is looked up. ``needs``: module
        -> the callees whose keywords must be traced (:meth:`flows`), none for a module
        it leaves out; every callee's without it."""
        modules = list(dict.fromkeys(modules))
        wanted = wanted or {}

        def needed(module: str) -> tuple[str, ...]:
            return ALL_CALLEES if needs is None else callee_names(needs.get(module, ()))

        # A module not read yet is parsed once for its facts and its flows together.
        fresh = (m for m in modules if m not in self._facts and m not in self._flows)
        self.prefetch(fresh, trace_all=True, every_return=every_return, callees=needed)
        jobs = []
        for module in modules:
            if module in self._buffers:
                continue
            lookups, callees = wanted.get(module, ()), needed(module)
            if module in self._flows:
                before = self._flows[module]
                if not _lacks(before, lookups) and (before is None or before.covers(callees)):
                    continue
                job = self._flow_job(module)
                known = self._known_flows(job) if job is not None else None
                if known is not None and _serves(known, lookups, callees):  # traced since, elsewhere
                    self._flows[module] = known
                    continue
            else:
                job = self._flow_job(module)
                before = self._known_flows(job) if job is not None else None
                if job is None or (before is not None and _serves(before, lookups, callees)):
                    self.flows(module, callees)
                    continue
            if job is not None:  # traced whole if it was traced in part before
                traced = callee_names((*callees, *(before.callees if before is not None else ())))
                jobs.append(job._replace(every_return=every_return or before is not None, callees=traced))
        if len(jobs) < PARALLEL_MIN_FLOWS or not self.parallel:
            return  # traced when asked for
        for job, (found, digest) in zip(jobs, _extract_all_flows(jobs), strict=True):
            self._flows[job.module] = self._keep_flows(job, found, digest)

    def _find_flows(
        self, module: str, every_return: bool = False, partial: bool = True, needs: tuple[str, ...] = ALL_CALLEES
    ) -> FlowFacts | None:
        """The module's flow facts, tracing ``every_return`` if they must be traced, and
        the keywords of the calls to ``needs`` at least; known ones whose return values
        are traced only in part will do if ``partial``."""
        job = self._flow_job(module)
        if job is None:
            return None
        if module in self._buffers:  # the text checked: its flows go when it does
            tree = parse_source(self._buffers[module], str(job.path))
            return flow_facts(module, job.is_package, tree, every_return)
        found = self._known_flows(job)
        if found is None or not (partial or found.every_return) or not found.covers(needs):
            # What was traced before is traced again, with what is needed now.
            traced = callee_names((*needs, *(found.callees if found is not None else ())))
            return self._keep_flows(job, *_extract_flows(job._replace(callees=traced), every_return))
        if job.stamp:
            _FLOWS[job.key] = found
        return found

    def _flow_job(self, module: str, every_return: bool = False) -> _Job | None:
        facts = self.file_facts(module)
        if facts is None or facts.unreadable is not None:
            return None
        path = self.modules[module]
        return _Job(module, facts.is_package, path, Stamp.of(path), every_return=every_return)

    def _known_flows(self, job: _Job) -> FlowFacts | None:
        found = _FLOWS.get(job.key) if job.stamp else None
        if found is None and job.stamp and self.cache:
            found = self.cache.load_flows(job.stamp, job.module, job.is_package)
        return found

    def _keep_flows(self, job: _Job, found: FlowFacts, digest: bytes | None) -> FlowFacts:
        if self.cache and job.stamp and digest is not None:
            self.cache.store_flows(job.stamp, digest, encode(found), job.module, job.is_package)
        if job.stamp:
            _FLOWS[job.key] = found
        return found

    def trace_when_mentioned(self, names: Iterable[str], among: Callable[[str], bool] | None = None) -> None:
        """A file parsed from now on whose bytes mention one of ``names`` (an event
        base's), of a module ``among`` accepts (any, by default), is likely to be asked
        for its flow facts: they are extracted at once, from the same tree. Only a
        hint: :meth:`flows` gives the same flow facts."""
        encoded = tuple(sorted({name.encode("utf-8") for name in names if name}))
        if encoded and (encoded, among) not in self._trace:
            self._trace = (*self._trace, (encoded, among))

    def before_parsing(self, key: object, primer: Callable[[], None]) -> None:
        """Run ``primer`` (once per ``key``) before many files are first parsed together:
        it may tell :meth:`trace_when_mentioned` what it learns from a few files. A run
        that parses nothing, or only a few files (every other fact cached), never runs it."""
        if key not in self._primed:
            self._primed.add(key)
            self._primers[key] = primer

    def _names_to_trace(
        self, module: str, extra: tuple[bytes, ...], among: Callable[[str], bool] | None
    ) -> tuple[bytes, ...]:
        names = {name for names, accepts in self._trace if accepts is None or accepts(module) for name in names}
        if extra and (among is None or among(module)):
            names.update(extra)
        return tuple(sorted(names))

    def prefetch(
        self,
        modules: Iterable[str],
        *,
        trace_all: bool = False,
        every_return: bool = False,
        mentioning: Iterable[str] = (),
        among: Callable[[str], bool] | None = None,
        callees: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        """Make the facts of ``modules`` ready, parsing those neither in memory nor in
        the cache, in parallel when there are many. Their flow facts are extracted from
        the same trees for the files that mention a name of :meth:`trace_when_mentioned`
        or of ``mentioning`` (in a module ``among`` accepts), tracing the keywords given
        to those names; or for every file with ``trace_all`` (tracing every return value
        with ``every_return``, and the keywords given to the ``callees`` of the module,
        every call's without it)."""
        extra = tuple(name.encode("utf-8") for name in mentioning if name)
        modules = list(modules)
        with paused_cyclic_collection():
            jobs: list[_Job] = []
            for module in modules:
                if module in self._facts or module in self._buffers:
                    continue
                path = self.modules.get(module)
                if path is None or not _is_source(path):
                    self._facts[module] = None
                    continue
                trace = (b"",) if trace_all else self._names_to_trace(module, extra, among)
                # The keywords traced: those of the calls to the names that led here (an
                # emit function's), and to any class (the event classes are not known yet).
                names = (
                    callees(module)
                    if trace_all and callees
                    else callee_names((CAPITALIZED, *(name.decode() for name in trace)))
                )
                job = _Job(module, self.is_package(module), path, Stamp.of(path), trace, every_return, names)
                found = _MEMORY.get(job.key) if job.stamp else None
                if found is None and job.stamp and self.cache:
                    found = self.cache.load(job.stamp, module, job.is_package)
                if found is None:
                    self._facts[module] = None  # a placeholder, so a module listed twice is one job
                    jobs.append(job)
                else:
                    self._keep(job, found)
            if self._primers and sum(map(_weight, jobs)) >= PRIME_AFTER:  # many files to parse: the hints first
                for job in jobs:
                    del self._facts[job.module]
                primers, self._primers = self._primers, {}
                for primer in primers.values():
                    primer()
                self.prefetch(
                    modules,
                    trace_all=trace_all,
                    every_return=every_return,
                    mentioning=mentioning,
                    among=among,
                    callees=callees,
                )
                return
            for job, (facts, pickled, declarations, traced) in zip(
                jobs, _extract_all(jobs, self.parallel), strict=True
            ):
                self._keep(job, (facts, declarations))
                flows = _traced_flows(traced)
                if flows is not None and job.stamp:
                    _FLOWS[job.key] = flows
                # An unsettled file's facts are not kept (FactCache.store): not pickled for nothing.
                if self.cache and job.stamp and job.stamp.settled and facts.unreadable is None:
                    pickled = pickled or encode(facts)
                    encoded = declarations if isinstance(declarations, bytes) else encode(declarations)
                    self.cache.store(job.stamp, pickled, encoded, job.module, job.is_package)
                    if traced is not None and flows is not None:
                        pickled_flows = traced[0] if isinstance(traced[0], bytes) else encode(flows)
                        self.cache.store_flows(job.stamp, traced[1], pickled_flows, job.module, job.is_package)
            if self.cache and len(jobs) >= SAVE_AFTER:
                self.cache.save()

    def save(self) -> None:
        """Write the facts parsed so far to the persistent cache (else done at exit)."""
        if self.cache is not None:
            self.cache.save()

    def _keep(self, job: _Job, found: tuple[FileFacts, DeclarationFacts | bytes]) -> None:
        if job.stamp is not None:
            _MEMORY[job.key] = found
        self._facts[job.module], self._declarations[job.module] = found
        self._read_at[job.module] = job.stamp.key if job.stamp is not None else None
        self.learnt += 1

    def use_buffer(self, module: str, text: str) -> bool:
        """Check ``module`` from ``text`` (an editor's buffer, flake8's stdin) instead of
        its file, until :meth:`drop_buffer`; True when that changes what is known."""
        text = text.removeprefix("\ufeff")  # a byte order mark an editor kept, as decoding drops it
        if self._buffers.get(module) == text:
            return False
        saved = module not in self._buffers and module not in self._unsaved and text == self._disk_text(module)
        if saved and not self.read_before_change(module):
            return False  # the saved file: its facts (and the caches) serve as they are
        self._buffers[module] = text
        self._forget_decisions(module)
        tree = parse_source(text, str(self.modules[module]))
        self._facts[module], self._declarations[module] = extract(module, self.is_package(module), tree)
        self.learnt += 1
        self._flows.pop(module, None)
        return True

    def has_buffer(self, module: str) -> bool:
        return module in self._buffers

    def has_any_buffer(self) -> bool:
        """Whether a module of the project is checked from a buffer (:meth:`has_buffer`)."""
        return not self._buffers.keys().isdisjoint(self.modules)

    def drop_buffer(self, module: str) -> bool:
        """Check ``module`` from its file again; True when it was checked from a buffer.
        A module added from its buffer (:meth:`add_unsaved`) whose file was never saved
        is forgotten: the index no longer holds it."""
        if self._buffers.pop(module, None) is None:
            return False
        self.forget(module)
        if module in self._unsaved:
            self._unsaved.discard(module)
            if not self.modules[module].is_file():
                del self.modules[module]
                self._by_path = self._by_real_path = None
                self._relative.clear()
                self._facts.pop(module, None)
                self._declarations.pop(module, None)
                self._flows.pop(module, None)
                self._statements.pop(module, None)
        return True

    def read_before_change(self, module: str) -> bool:
        """Whether ``module``'s file changed on disk since what is known of it (its facts,
        or its imports alone) was read from it, and no one said so (:meth:`forget`): an
        editor reloading a buffer from a file `git checkout` rewrote, say."""
        if module in self._buffers or module not in self._read_at:
            return False
        stamp = Stamp.of(self.modules[module])
        return stamp is None or stamp.key != self._read_at[module]

    def forget(self, module: str) -> None:
        """Read ``module`` again when next asked (its file changed on disk)."""
        self._imports_only.pop(module, None)
        self._read_at.pop(module, None)
        self._forget_decisions(module)
        if module not in self._buffers:
            self._facts.pop(module, None)
            self._declarations.pop(module, None)
            self._flows.pop(module, None)
            self._statements.pop(module, None)
        self._texts.pop(module, None)
        forget_read()
        # The process's memories are by the file's stamp, and a file rewritten within
        # one tick of a coarse clock, at its size, keeps it: whatever they hold of the
        # module is dropped too (one pass over them, once per change a client tells of).
        for memory in (_MEMORY, _FLOWS, _WALKED):
            for key in [key for key in memory if key[1] == module]:
                del memory[key]

    def read_also(self, key: object, reads: Callable[[str, bytes], bool]) -> None:
        """Note (once per ``key``) which modules a contract will read, by their bytes:
        another that reads the project's files in batches reads those with its own, so
        that the files are parsed together and none is checked alone for nothing."""
        self._readers.setdefault(key, reads)

    def read_by_others(self, module: str, data: bytes) -> bool:
        """Whether a contract noted with :meth:`read_also` will read ``module``."""
        return any(self.read_by(key, module, data) for key in self._readers)

    def read_by(self, key: object, module: str, data: bytes | None = None) -> bool:
        """Whether the contract noted as ``key`` will read ``module`` (its bytes are
        ``data``, else read), decided once while the module is unchanged."""
        decided = self._read_decisions.get((key, module))
        if decided is None:
            if data is None:
                data = self.source_bytes(module)
            decided = True if data is None else self._readers[key](module, data)
            self._read_decisions[(key, module)] = decided
        return decided

    def _forget_decisions(self, module: str) -> None:
        if self._read_decisions:
            for key in self._readers:
                self._read_decisions.pop((key, module), None)

    def source_bytes(self, module: str) -> bytes | None:
        """The bytes ``module`` is checked from (its buffer, encoded, else its file);
        None for a namespace directory or a file that cannot be read."""
        if module in self._buffers:
            return self._buffers[module].encode("utf-8", "surrogatepass")
        path = self.modules.get(module)
        if path is None or not _is_source(path):
            return None
        try:
            return read_file(path)
        except OSError:
            return None

    def unreadable(self, module: str) -> Unreadable | None:
        """Why ``module`` cannot be analysed (DOM001), or None, from its facts when they
        are read, else from its imports alone (:meth:`read_imports`)."""
        facts = self.known_imports(module) if module not in self._buffers else self.file_facts(module)
        if facts is None:
            self.read_imports((module,))
            facts = self.known_imports(module)
        return facts.unreadable if facts is not None else None

    def known_imports(self, module: str) -> FileFacts | ImportFacts | None:
        """``module``'s facts, or its imports alone, if in memory; None rather than read them."""
        return self._facts.get(module) or self._imports_only.get(module)

    def read_imports(self, modules: Iterable[str]) -> None:
        """Read the imports of the files of ``modules`` whose facts are not read, and
        whether they can be analysed, in parallel when there are many: for the files
        a contract passes over (see ``families.vocabulary.prefilter``) but must still
        report as DOM001 when Python cannot parse them, and whose imports other
        contracts' stored results are kept by (see :meth:`known_imports`)."""
        jobs = []
        for module in modules:
            if module in self._facts or module in self._buffers or module in self._imports_only:
                continue
            path = self.modules.get(module)
            if path is None or not _is_source(path):
                continue
            job = _Job(module, self.is_package(module), path, Stamp.of(path))
            found = _MEMORY.get(job.key) if job.stamp else None
            if found is not None:
                self._keep(job, found)
                continue
            if not job.stamp or not self.cache:
                jobs.append(job)
                continue
            whole = self.cache.load(job.stamp, module, job.is_package)
            if whole is not None:  # read whole before (for another configuration): kept so
                self._keep(job, whole)
                continue
            cached = self.cache.load_imports(job.stamp, module, job.is_package)
            if isinstance(cached, ImportFacts):
                self._imports_only[module] = cached
                self._read_at[module] = job.stamp.key
                self.learnt += 1
            else:
                jobs.append(job)
        weight = sum(map(_weight, jobs)) // IMPORTS_WEIGHT
        workers = _workers(weight) if self.parallel and weight >= PARALLEL_MIN_FILES else 1
        read = _in_workers(jobs, workers, 2, _imports_of)
        for job, facts in zip(jobs, read if read is not None else _imports_of(jobs), strict=True):
            self._imports_only[job.module] = facts
            self._read_at[job.module] = job.stamp.key if job.stamp is not None else None
            self.learnt += 1
            if self.cache and job.stamp and job.stamp.settled and facts.unreadable is None:
                self.cache.store_imports(job.stamp, encode(facts), job.module, job.is_package)

    def statement_imports(self, module: str, lines: Iterable[int]) -> list[ImportFact] | None:
        """The facts of the import statements starting on ``lines`` of ``module``'s file,
        each parsed alone (:mod:`~..source.statements`), or from the file's facts when
        they are read already; None when the file must be read whole."""
        if module in self._buffers:
            return None
        wanted = set(lines)
        known = self._facts.get(module)
        if known is not None and known.unreadable is None:
            return [f for f in known.imports if f.line in wanted]
        # Unread, or a file Python cannot parse whole (whose statements may parse alone,
        # as grimp's parser read them): each statement alone, whichever was read first.
        lines_read, found = self._statements.get(module, (frozenset(), None))
        if lines_read != wanted:
            text = self._disk_text(module)
            found = None if text is None else statement_imports(module, self.is_package(module), text, wanted)
            self._statements[module] = (frozenset(wanted), found)
        return found

    def text(self, module: str) -> str | None:
        """The text ``module`` is checked from (its buffer, else its file); None when
        it cannot be read or decoded."""
        if module in self._buffers:
            return self._buffers[module]
        return self._disk_text(module)

    def disk_text(self, module: str) -> str | None:
        """The text of ``module``'s file (whatever buffer it is checked from)."""
        return self._disk_text(module)

    def _disk_text(self, module: str) -> str | None:
        path = self.modules.get(module)
        if path is None or not _is_source(path):
            return None
        # A module checked is asked for its text several times in a row (its statements,
        # its columns, its noqa comments): while its stamp is the same, it is read and
        # decoded once (even unsettled, as its facts are kept in _MEMORY: see read_version).
        stamp = Stamp.of(path)
        kept = self._texts.get(module)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            text = decode(read_version(path, stamp.key if stamp is not None else None))
        except OSError:
            return None
        if isinstance(text, Unreadable):
            return None
        if stamp is not None:
            if len(self._texts) >= RECENT_TEXTS:
                del self._texts[next(iter(self._texts))]
            self._texts[module] = (stamp, text)
        return text

    def relative_path(self, module: str) -> str:
        """The module's file relative to the project root, as posix (absolute if outside).
        A symbolic link on the way is not resolved: the file is shown where the project
        has it, not where its target lies. Asked for the module of every finding, by
        every contract: found once."""
        found = self._relative.get(module)
        if found is None:
            path = Path(os.path.abspath(self.modules.texts[module]))
            try:
                found = path.relative_to(self.root).as_posix()
            except ValueError:
                found = path.as_posix()
            self._relative[module] = found
        return found


def _is_source(path: Path) -> bool:
    return path.name.endswith(".py")


class _Job(NamedTuple):
    """One file to read: its module, where it is, and what to extract of it."""

    module: str
    is_package: bool
    path: Path
    stamp: Stamp | None  # None when the file cannot be stat'ed: parsed (to say why), not cached
    trace: tuple[bytes, ...] = ()  # extract the flow facts too when the bytes mention one of these
    every_return: bool = False  # the flow facts extracted trace every function's return value
    callees: tuple[str, ...] = ALL_CALLEES  # and the keywords given to these (FlowFacts.callees)

    @property
    def key(self) -> tuple[Stamp | None, str, bool]:
        return (self.stamp, self.module, self.is_package)


# Facts by file version, shared by every index of the process: lint-imports builds an
# index per contract, and each then finds the files the others parsed.
_MEMORY: dict[tuple[Stamp | None, str, bool], tuple[FileFacts, DeclarationFacts | bytes]] = {}
# Flow facts by file version, extracted when asked for (see ProjectIndex.flows).
_FLOWS: dict[tuple[Stamp | None, str, bool], FlowFacts] = {}
# The walk of the last file parsed alone (an edited one, say), with its bytes, by file
# version, until its flow facts are asked for: one file to parse primes no hint (see
# ProjectIndex.before_parsing), so they were not traced with its facts, and DOM105
# asks for those of a module it checks.
_WALKED: dict[tuple[Stamp | None, str, bool], tuple[Walked, bytes]] = {}
# The facts, pickled too when they came from a worker, the declarations (pickled when
# they came from a worker, see ProjectIndex.declarations), and the flow facts extracted
# with them (pickled from a worker) with the digest of the bytes they are of, or None.
Traced = tuple["FlowFacts | bytes", bytes]
Extracted = tuple[FileFacts, "bytes | None", "DeclarationFacts | bytes", "Traced | None"]
Result = TypeVar("Result")  # what a worker returns for one job


def _extract(job: _Job, keep_walk: bool = False) -> tuple[FileFacts, DeclarationFacts, tuple[FlowFacts, bytes] | None]:
    """The job's facts, and its flow facts when it traces a name its bytes mention;
    ``keep_walk``: else its walk is kept for them (see _WALKED)."""
    if not job.trace and not keep_walk:
        return (*extract(job.module, job.is_package, load_tree(job.path)), None)
    data, tree = _read_tree(job.path, job.stamp)
    if not isinstance(data, bytes) or isinstance(tree, Unreadable):
        return (*extract(job.module, job.is_package, tree), None)
    if job.trace and _may_build(job.trace, data):
        facts, declarations, flows = extract_traced(job.module, job.is_package, tree, job.every_return, job.callees)
        return facts, declarations, (flows, bytes_digest(data))
    if not (keep_walk and job.stamp):
        return (*extract(job.module, job.is_package, tree), None)
    facts, declarations, walked = extract_walked(job.module, job.is_package, tree)
    _WALKED.clear()
    _WALKED[job.key] = (walked, data)
    return facts, declarations, None


def _lacks(flows: FlowFacts | None, qualnames: Iterable[str]) -> bool:
    """Whether ``flows`` cannot tell what one of the functions ``qualnames`` returns."""
    return flows is not None and any(flows.function_returns(qualname) == () for qualname in qualnames)


def _serves(flows: FlowFacts, qualnames: Iterable[str], callees: tuple[str, ...]) -> bool:
    """Whether ``flows`` tell what the functions ``qualnames`` return and trace the
    keywords given to ``callees``."""
    return not _lacks(flows, qualnames) and flows.covers(callees)


def _may_build(names: tuple[bytes, ...], data: bytes) -> bool:
    """Whether ``data`` names one of ``names`` where a class can be built or derived
    from: a callee given a keyword (``CharField(max_length=3``, ``emit_event(kind=``)
    or a class's base.
    A file that mentions one only elsewhere (a docstring, an ``isinstance``) is
    rarely asked for its flow facts; when it is, they are traced then."""
    if b"" in names:
        return True
    mentioned = tuple(name for name in names if name in data)
    if not mentioned:
        return False
    # One regular expression over the alternatives tries them at every byte: looking
    # only where a name occurs is several times faster on a large file.
    called_with_a_keyword, class_bases = _keyword_call_and_class_bases()
    for name in mentioned:
        at = data.find(name)
        while at >= 0:
            if called_with_a_keyword.match(data, at + len(name)):
                return True
            at = data.find(name, at + 1)
    return any(name in base[1] for base in class_bases.finditer(data) for name in mentioned)


@functools.cache  # compiled when first needed: a run reusing its facts reads no file for them
def _keyword_call_and_class_bases() -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """What may follow a callee's name (the rest of the name, and a keyword argument
    before any nested parenthesis), and a class statement's bases (up to the first colon)."""
    return (re.compile(rb"\w*\s*\([^()]*?\b[A-Za-z_]\w*\s*=(?!=)"), re.compile(rb"\bclass\s+\w+\s*\(([^:]*)"))


def _traced_flows(traced: Traced | None) -> FlowFacts | None:
    if traced is None:
        return None
    return decode_flows(traced[0]) if isinstance(traced[0], bytes) else traced[0]


def _read_tree(path: Path, stamp: Stamp | None) -> tuple[bytes | None, ast.Module | Unreadable]:
    """The file's bytes (None when unreadable) and its tree, as :func:`load_tree` reads it."""
    try:
        data = read_version(path, stamp.key if stamp is not None else None)
    except OSError:
        return None, load_tree(path)  # says why
    text = decode(data)
    return data, text if isinstance(text, Unreadable) else parse_source(text, str(path))


def _extract_flows(job: _Job, every_return: bool = False) -> tuple[FlowFacts, bytes | None]:
    """The flow facts of the job's file, and the digest of the bytes they are of (None
    when it cannot be read: such flows are never cached)."""
    kept = _WALKED.pop(job.key, None) if job.stamp else None
    if kept is not None:
        walked, walked_bytes = kept
        with paused_cyclic_collection():
            return walked_flows(walked, every_return, job.callees), bytes_digest(walked_bytes)
    data, tree = _read_tree(job.path, job.stamp)
    with paused_cyclic_collection():
        flows = flow_facts(job.module, job.is_package, tree, every_return, job.callees)
    return flows, bytes_digest(data) if data is not None else None


def _extract_flows_pickled(jobs: list[_Job]) -> list[tuple[bytes, bytes | None]]:
    """In a worker: the flow facts pickled, and the digest of the bytes they are of."""
    return [(encode(found), digest) for found, digest in (_extract_flows(job, job.every_return) for job in jobs)]


def _extract_all_flows(jobs: list[_Job]) -> list[tuple[FlowFacts, bytes | None]]:
    done = _in_workers(jobs, _workers(len(jobs) * FLOW_WEIGHT), 1, _extract_flows_pickled)
    if done is None:
        return [_extract_flows(job, job.every_return) for job in jobs]
    traced = []
    for job, (pickled, digest) in zip(jobs, done, strict=True):
        found = decode_flows(pickled)
        traced.append((found, digest) if found is not None else _extract_flows(job, job.every_return))
    return traced


def _imports_of(jobs: list[_Job]) -> list[ImportFacts]:
    with paused_cyclic_collection():
        return [import_facts(job.module, job.is_package, load_tree(job.path)) for job in jobs]


def _extract_chunk(jobs: list[_Job]) -> list[Extracted]:
    """The jobs' facts, in this process; the walk of a file parsed alone is kept (see _WALKED)."""
    alone = len(jobs) == 1
    with paused_cyclic_collection():
        return [
            (facts, None, declarations, traced)
            for facts, declarations, traced in (_extract(job, alone) for job in jobs)
        ]


def _extract_pickled(jobs: list[_Job]) -> list[tuple[bytes, bytes, tuple[bytes, bytes] | None]]:
    """In a worker: the facts pickled, as the parent caches them (and the declarations
    stay pickled until a contract asks for them)."""
    with paused_cyclic_collection():
        return [
            (encode(facts), encode(declarations), (encode(traced[0]), traced[1]) if traced else None)
            for facts, declarations, traced in map(_extract, jobs)
        ]


def _extract_all(jobs: list[_Job], parallel: bool) -> list[Extracted]:
    weight = sum(_weight(job) for job in jobs)
    workers = _workers(weight) if parallel and weight >= PARALLEL_MIN_FILES else 1
    done = _in_workers(jobs, workers, 4, _extract_pickled)
    if done is None:
        return _extract_chunk(jobs)
    extracted = []
    for job, (pickled, declarations, traced) in zip(jobs, done, strict=True):
        facts = decode_facts(pickled)
        extracted.append((facts, pickled, declarations, traced) if facts else _extract_chunk([job])[0])
    return extracted


def _in_workers(
    jobs: list[_Job], workers: int, chunks_per_worker: int, work: Callable[[list[_Job]], list[Result]]
) -> list[Result] | None:
    """``work``'s result for each job, in the jobs' order, from ``workers`` processes;
    None when one is not worth it or processes cannot be started (a sandbox, a daemon)."""
    if workers <= 1:
        return None
    # Only now (after _workers preloaded what it needs): most runs start no worker.
    from domain_fence.core.index.workers import map_in_workers

    chunks = [jobs[start :: workers * chunks_per_worker] for start in range(workers * chunks_per_worker)]
    note_reads(job.path for job in jobs)  # the workers read them: the run vouches for them
    try:
        with paused_cyclic_collection():
            done = map_in_workers(workers, work, chunks)
    except Exception:  # noqa: BLE001 -- no processes here: the caller works in this one
        return None
    by_job = {
        id(job): result
        for chunk, results in zip(chunks, done, strict=True)
        for job, result in zip(chunk, results, strict=True)
    }
    return [by_job[id(job)] for job in jobs]


def _weight(job: _Job) -> int:
    """A file counts as many typical files as its size holds: a few large ones (a
    project's models) are worth the workers as many small ones are."""
    return max(1, job.stamp.size // TYPICAL_FILE_BYTES) if job.stamp else 1


def _workers(files: int) -> int:
    from domain_fence.core.index.isolation import WORKER_MODULES, preload  # only now: most runs start no worker

    preload(WORKER_MODULES)  # from the interpreter, whatever the project holds
    import multiprocessing

    if files < PARALLEL_MIN_FILES or multiprocessing.current_process().daemon:
        return 1  # a daemon process (a flake8 or multiprocessing worker) may not start others
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, files // (PARALLEL_MIN_FILES // 2)))

"""A contract's findings kept module by module: after an edit, only the modules that
changed are checked again, not the project.

A module's findings depend on its own bytes, on the contract's configuration, on the
tool's code, on the project's modules (where each is), and on what the check read
of other modules: class bases, aliases, re-exports, what a helper returns, which
definitions match a pattern. That last part is the module's *view*, as the family
defines it (:meth:`~domain_fence.core.families.base.Reusable.module_view`): two
versions of a module with equal views leave every other module's findings, and the
project-wide answers, as they were.

So a stored result holds, for every module of the project, the digest of its bytes
and a digest of its view (or that no check read it: then nothing can have depended
on it), and for every covered module its findings. A later run with the same key
reuses the findings of every unchanged module when every changed module's view is
as it was; it checks the changed ones again, and everything when a view changed. An
unchanged module's view is never recomputed, so a reuse run decodes the facts of the
changed modules only. A module whose findings include DOM001 (it could not be
analysed: perhaps unreadable for a moment) is always checked again.

A family whose findings depend on the views alone (the boundary: its views are the
modules' imports, which make the import graph) keeps every module's findings while no
view changed, the changed modules' too, with what its report shows besides findings
(chains, domains: :func:`plain_extra`); there a view not recorded is unknown, and a
changed module with one is a full check. Views the run could not give when the
contract was checked (facts that later contracts read) are recorded when the run ends.
The key of such a result holds the version of grimp, which reads the sources.

Each file's digest is taken once per version: the size, modification and change
times and inode recorded with it (when the file had settled before the run began)
stand for it next time (as in :class:`~..source.factcache.Stamp`). The module table
(names, stamps, digests) is the same for every contract a run stores, so it is kept
once, in a file named by the digest of its bytes, which each contract's results name
(with their views beside it). Every file is written to a temporary file then moved in
place, so concurrent runs never read half of one; a missing, damaged or foreign
entry or table is a full check, never an error and never a wrong answer. They hold
plain data only, read by an unpickler that builds no object of any class.
"""

from __future__ import annotations

import hashlib
import io
import operator
import os
import pickle
import re
import sys
import time
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, fields, is_dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Domains, Link
from domain_fence.core.source.cachedir import write_atomically
from domain_fence.core.source.factcache import hash_ahead, stamped_digest

FORMAT = "domain-fence module results 4"
RACY_WINDOW_NS = 2_000_000_000  # a file this recent may change again within its timestamp's tick
_FINDING_FIELDS = tuple(f.name for f in fields(Finding))
_FINDING_TYPES = (str, int, int, str, str, str, str, str, tuple, int, int, tuple)
_finding_values = operator.attrgetter(*_FINDING_FIELDS)

StampKey = tuple[int, int, int, int]


@dataclass
class ModuleEntry:
    """What is known of one module's file: the stamp its digest was taken under (None:
    hash the file again), the digest (None: unknown, the module counts as changed),
    and the digest of its view (None: no check read it)."""

    stamp: StampKey | None
    digest: bytes | None
    view: bytes | None


@dataclass
class StoredResults:
    modules: dict[str, ModuleEntry]
    covered: list[str]
    findings: dict[str, list[Finding]]  # covered module -> its findings
    warnings: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    answers: Any = None  # the family's project-wide answers, as plain data
    # file -> its noqa comments (line, codes or None for all), for the files with findings
    noqa: dict[str, tuple[tuple[int, tuple[str, ...] | None], ...]] = field(default_factory=dict)
    extra: Any = None  # what a report shows besides findings (see plain_extra); None: not kept


def view_digest(view: object) -> bytes:
    """A digest of a view: plain data (tuples, strings, numbers), whose text is the
    same in every process."""
    return hashlib.blake2b(repr(view).encode("utf-8", "surrogateescape"), digest_size=16).digest()


def stable(value: object) -> object:
    """``value`` as plain tuples whose text is the same in every process (sets sorted)."""
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *((f.name, stable(getattr(value, f.name))) for f in fields(value)))
    if isinstance(value, (set, frozenset)):
        return ("set", *sorted((stable(item) for item in value), key=repr))
    if isinstance(value, Mapping):
        return ("map", *sorted(((stable(k), stable(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return tuple(stable(item) for item in value)
    if isinstance(value, (str, int, float, bool, bytes, type(None))):
        return value
    if isinstance(value, Path):
        return ("path", value.as_posix())
    return repr(value)


_TOOL: str | None = None


def tool_digest() -> str:
    """The code that turns sources into findings: every file of domain-fence, and the
    Python version. An edited checkout never reuses what older code found."""
    global _TOOL
    if _TOOL is None:
        import domain_fence

        digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0".encode())
        top = Path(domain_fence.__file__).parent
        for path in sorted(top.rglob("*.py")):
            digest.update(path.relative_to(top).as_posix().encode("utf-8", "surrogateescape") + b"\0")
            try:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
        _TOOL = digest.hexdigest()
    return _TOOL


_GRAPH_BUILDER: str | None = None


def graph_builder_version() -> str:
    """The installed grimp's version (grimp is not imported): another version may read
    the sources into another import graph."""
    global _GRAPH_BUILDER
    if _GRAPH_BUILDER is None:
        _GRAPH_BUILDER = installed_version("grimp")
    return _GRAPH_BUILDER


def installed_version(distribution: str) -> str:
    """The version the installer recorded for ``distribution``, a top-level package of
    the same name: read from the name of the one ``.dist-info`` directory beside the
    package (importlib.metadata costs a new process 25 ms to import and search every
    path), else from importlib.metadata; "unknown" when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(distribution)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if len(locations) == 1:
        prefix, suffix = f"{distribution}-", ".dist-info"
        try:
            beside = [n for n in os.listdir(Path(locations[0]).parent) if n.startswith(prefix) and n.endswith(suffix)]
        except OSError:
            beside = []
        if len(beside) == 1:
            return beside[0][len(prefix) : -len(suffix)]
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def results_key(contract: str, family: str, config: object, session: object, paths: Mapping[str, str]) -> str:
    """What every stored finding depends on besides the sources: the contract, the
    tool, and every module of the project with its file (``paths``: file -> module)."""
    digest = hashlib.sha256(tool_digest().encode())
    digest.update(repr((contract, family, stable(config), stable(session))).encode("utf-8", "surrogateescape"))
    digest.update(_paths_digest(paths))
    return digest.hexdigest()


_PATHS: list[tuple[Mapping[str, str], bytes]] = []  # the last paths digested (every contract asks)


def _paths_digest(paths: Mapping[str, str]) -> bytes:
    if _PATHS and _PATHS[0][0] is paths:
        return _PATHS[0][1]
    digest = hashlib.sha256()
    for path, module in sorted(paths.items()):
        digest.update(f"{module}\0{path}\1".encode("utf-8", "surrogateescape"))
    _PATHS[:] = [(paths, digest.digest())]
    return _PATHS[0][1]


class ResultStore:
    """One contract's stored results for the project at ``root``, under ``directory``."""

    def __init__(self, directory: Path, root: Path, contract: str, key: str) -> None:
        name = hashlib.sha256(f"{root}\0{contract}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
        self.directory = Path(directory) / "results"
        self.path = self.directory / f"{name}.pickle"
        self.key = key

    def load(self) -> StoredResults | None:
        try:
            data = _PlainUnpickler(io.BytesIO(self.path.read_bytes())).load()
            return _parse(data, self.key, self.directory)
        except Exception:  # noqa: BLE001 -- missing, unreadable, damaged or foreign: a full check
            return None

    def save(self, stored: StoredResults) -> None:
        names, stamps, digests, views = _module_columns(stored.modules)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            table = _save_table(self.directory, (names, stamps, digests))
            data = (
                FORMAT,
                self.key,
                table,
                views,
                list(stored.covered),
                {m: [_finding_values(f) for f in found] for m, found in stored.findings.items()},
                tuple(stored.warnings),
                tuple(stored.failures),
                stored.answers,
                stored.noqa,
                stored.extra,
            )
            write_atomically(self.path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:  # noqa: BLE001 -- unwritable or full: the next run checks everything
            return


def _parse(data: object, key: str, directory: Path) -> StoredResults | None:
    if not (isinstance(data, tuple) and len(data) == 11 and data[:2] == (FORMAT, key)):
        return None
    table, views, covered, raw_findings, warnings, failures, answers, noqa, extra = data[2:]
    columns = _load_table(directory, table)
    if columns is None:
        return None
    names, stamps, digests = columns
    if not (type(views) is tuple and len(views) == len(names) and _only(views, bytes, type(None))):
        return None
    modules = dict(zip(names, map(ModuleEntry, stamps, digests, views), strict=True))
    findings = {module: [_finding(item) for item in found] for module, found in raw_findings.items()}
    if not all(isinstance(m, str) for m in covered) or not all(m in findings for m in covered):
        return None
    if not all(isinstance(w, str) for w in (*warnings, *failures)):
        return None
    for path, lines in noqa.items():
        for line, codes in lines:
            if not (isinstance(path, str) and isinstance(line, int) and (codes is None or _strings(codes))):
                return None
    if extra is not None:
        extra_of(extra)  # raises when it is not what plain_extra writes
    return StoredResults(modules, list(covered), findings, tuple(warnings), tuple(failures), answers, noqa, extra)


def _module_columns(modules: Mapping[str, ModuleEntry]) -> tuple[tuple[Any, ...], ...]:
    """The module table as four columns (names, stamps, digests, views): read back with
    one check per column rather than a few per module, and thousands of tuples fewer."""
    entries = list(modules.values())
    return (
        tuple(modules),
        tuple(entry.stamp for entry in entries),
        tuple(entry.digest for entry in entries),
        tuple(entry.view for entry in entries),
    )


# The module table (names, stamps, digests) is the same for every contract a run
# stores: written once, in a file named by the digest of its bytes, which each
# contract's results name. The tables last written or read are kept (a run touches
# the one it reads), so that runs storing other contracts (another configuration in
# the same cache directory) do not take each other's table away unless eight runs
# on changed files come between.
TABLE_FORMAT = "domain-fence module table 1"
KEPT_TABLES = 8
_TABLE_NAME = re.compile(r"[0-9a-f]{32}\Z")
# Tables this process read (their bytes checked) or wrote, by file: the last few only,
# as a language server writes one after each edit.
_tables: dict[Path, tuple[tuple[Any, ...], ...]] = {}
_last_table: list[tuple[tuple[tuple[Any, ...], ...], Path, str]] = []  # columns, directory, name


def _save_table(directory: Path, columns: tuple[tuple[Any, ...], ...]) -> str:
    """The name of the table holding ``columns`` in ``directory``, written unless this
    process has read it (its bytes checked) or written it."""
    if _last_table and _last_table[0][1] == directory and _last_table[0][0] == columns:
        name = _last_table[0][2]
        path = directory / f"modules-{name}.pickle"
        if path in _tables and _touched(path):
            return name
    encoded = pickle.dumps((TABLE_FORMAT, columns), protocol=pickle.HIGHEST_PROTOCOL)
    name = hashlib.blake2b(encoded, digest_size=16).hexdigest()  # of the very bytes written
    path = directory / f"modules-{name}.pickle"
    if not (path in _tables and _touched(path)):
        write_atomically(path, encoded)
        _forget_old_tables(directory, path)
        _remember_table(path, columns)
    _last_table[:] = [(columns, directory, name)]
    return name


def _touched(path: Path) -> bool:
    """Made the newest of the tables (so the last to be forgotten); False when gone.
    A table that cannot be touched (a read-only cache) is there all the same."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _remember_table(path: Path, columns: tuple[tuple[Any, ...], ...]) -> None:
    _tables.pop(path, None)
    _tables[path] = columns
    while len(_tables) > KEPT_TABLES:
        del _tables[next(iter(_tables))]


def _forget_old_tables(directory: Path, new: Path) -> None:
    """Forget all but the newest tables (and ``new``, whatever its time's tick)."""
    tables = sorted((path for path in directory.glob("modules-*.pickle") if path != new), key=_modified, reverse=True)
    for old in tables[KEPT_TABLES - 1 :]:
        with suppress(OSError):
            old.unlink()


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # gone meanwhile: another process forgot it
        return 0


def _load_table(directory: Path, name: object) -> tuple[tuple[Any, ...], ...] | None:
    """The columns (names, stamps, digests) of the table ``name``; None when it is not
    there, or its bytes are not those it is named after, or it is no table."""
    if not (isinstance(name, str) and _TABLE_NAME.match(name)):
        return None
    path = directory / f"modules-{name}.pickle"
    if path in _tables:
        return _tables[path] if _touched(path) else None
    encoded = path.read_bytes()
    if hashlib.blake2b(encoded, digest_size=16).hexdigest() != name:
        return None
    data = _PlainUnpickler(io.BytesIO(encoded)).load()
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == TABLE_FORMAT):
        return None
    columns = _table_of_columns(data[1])
    if columns is None:
        return None
    _touched(path)
    _remember_table(path, columns)
    return columns


def _table_of_columns(columns: object) -> tuple[tuple[Any, ...], ...] | None:
    """A table's columns (names, stamps, digests) as written; None when they are not."""
    if not (isinstance(columns, tuple) and len(columns) == 3 and all(type(c) is tuple for c in columns)):
        return None
    names, stamps, digests = columns
    if not len(names) == len(stamps) == len(digests):
        return None
    if not (_only(names, str) and _only(digests, bytes, type(None))):
        return None
    if len(set(names)) != len(names):
        return None
    known = [stamp for stamp in stamps if stamp is not None]
    if not (_only(known, tuple) and set(map(len, known)) <= {4} and _only(chain.from_iterable(known), int)):
        return None
    return (names, stamps, digests)


def _only(values: Iterable[object], *kinds: type) -> bool:
    """Every value is exactly of one of ``kinds`` (a bool is no int here)."""
    return set(map(type, values)) <= set(kinds)


def plain_extra(extra: Mapping[str, Any]) -> object:
    """What a report shows besides findings (a boundary's chains and domains) as plain
    data; None when it holds anything else, which is then not kept."""
    if set(extra) - {"chains", "domains"}:
        return None
    chains = tuple(
        (fingerprint, tuple((link.importer, link.imported, tuple(link.line_numbers)) for link in chain))
        for fingerprint, chain in sorted(extra.get("chains", {}).items())
    )
    domains = extra.get("domains")
    return (chains, None if domains is None else (tuple(domains.sources), tuple(domains.forbidden)))


def extra_of(plain: object) -> dict[str, Any]:
    """:func:`plain_extra`'s data read back (ValueError when it is not)."""
    if not (isinstance(plain, tuple) and len(plain) == 2 and isinstance(plain[0], tuple)):
        raise ValueError("not a report's extra")
    chains: dict[str, tuple[Link, ...]] = {}
    for item in plain[0]:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and item[1]):
            raise ValueError("not a chain")
        chains[item[0]] = tuple(_link(link) for link in item[1])
    extra: dict[str, Any] = {"chains": chains}
    domains = plain[1]
    if domains is not None:
        if not (isinstance(domains, tuple) and len(domains) == 2 and all(map(_strings, domains))):
            raise ValueError("not domains")
        extra["domains"] = Domains(domains[0], domains[1])
    return extra


def _link(item: object) -> Link:
    if not (isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str) and isinstance(item[1], str)):
        raise ValueError("not a link")
    lines = item[2]
    if not (isinstance(lines, tuple) and all(type(line) is int for line in lines)):
        raise ValueError("not a link")
    return Link(item[0], item[1], lines)


def _strings(values: object) -> bool:
    return isinstance(values, tuple) and all(isinstance(value, str) for value in values)


def _finding(item: tuple[Any, ...]) -> Finding:
    if len(item) != len(_FINDING_TYPES) or not all(map(isinstance, item, _FINDING_TYPES)):
        raise ValueError("not a finding")
    details, pairs = item[8], item[11]
    if not all(isinstance(line, str) for line in details) or not all(
        isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in pairs
    ):
        raise ValueError("not a finding")
    return Finding(*item)


class _PlainUnpickler(pickle.Unpickler):
    """Plain containers, strings, bytes and numbers only: a planted entry runs nothing."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")


class Digests:
    """The digests of the project's files, each taken once per run, against the
    stamps seen when the run began (so that a file changing while it runs is never
    recorded as the version its findings were computed from)."""

    def __init__(self, paths: Mapping[str, str], began: int | None = None) -> None:
        self.began = time.time_ns() if began is None else began  # before the first stamp was taken
        self._modules = {module: path for path, module in paths.items()}
        self._stamps: dict[str, StampKey | None] = {}
        self._settled: set[str] = set()  # modules whose file had settled when the run began
        self._digests: dict[str, bytes | None] = {}

    def snapshot(self, modules: Iterable[str], taken: Mapping[str, StampKey] | None = None) -> None:
        """The stamp of each module's file now, before anything reads it; ``taken``: the
        stamps of some, taken a moment ago and since read by nothing (the discovery's)."""
        taken = taken or {}
        for module in modules:
            if module not in self._stamps:
                path = self._modules.get(module)
                stamp = taken.get(module)
                if stamp is None and path is not None and path.endswith(".py"):
                    stamp = _stamp(path)
                self._stamps[module] = stamp
                if stamp is not None and self.began - max(stamp[1], stamp[2]) > RACY_WINDOW_NS:
                    self._settled.add(module)

    def hash_ahead(self, modules: Iterable[str], known: Mapping[str, ModuleEntry]) -> None:
        """Hash at once the files :meth:`digest` would hash one by one: those whose stamp
        is not the one ``known`` recorded (after a checkout, every file)."""
        modules = [module for module in modules if module not in self._digests]
        self.snapshot(modules)
        files = []
        for module in modules:
            stamp, path, entry = self._stamps[module], self._modules.get(module), known.get(module)
            if stamp is None or path is None or not path.endswith(".py"):
                continue
            if entry is None or entry.stamp != stamp or entry.digest is None:
                files.append((path, stamp))
        hash_ahead(files)

    def digest(self, module: str, known: ModuleEntry | None) -> bytes | None:
        """The digest of ``module``'s bytes (``known``'s when its stamp is the one recorded
        there); a namespace directory has the empty digest; None when unreadable."""
        if module not in self._digests:
            self.snapshot((module,))
            stamp = self._stamps[module]
            path = self._modules.get(module)
            if path is None:
                found: bytes | None = None
            elif not path.endswith(".py"):
                found = b""
            elif stamp is None:
                found = None
            elif known is not None and known.stamp == stamp and known.digest is not None:
                found = known.digest
            else:
                found = stamped_digest(path, stamp)
            self._digests[module] = found
        return self._digests[module]

    def entry(self, module: str, digest: bytes | None, view: bytes | None) -> ModuleEntry:
        """What to record of ``module`` after the run: its stamp only when its file had
        settled before the run began (else its digest is taken again next time)."""
        return ModuleEntry(self._stamps.get(module) if module in self._settled else None, digest, view)

    def unchanged(self) -> bool:
        """Every file is as it was when the run began: what was found is of these versions."""
        for module, before in self._stamps.items():
            path = self._modules.get(module)
            if before is not None and path is not None and _stamp(path) != before:
                return False
        return True


def _stamp(path: str) -> StampKey | None:
    """What identifies one version of a file without reading it (see :class:`Stamp`)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)

"""grimp's import cache, trusted by each file's bytes rather than its modification time.

grimp keeps each module's imports in its cache directory (``<package>.meta.json`` maps
every module to the modification time it was read at, ``<hash>.data.json`` holds the
imports) and serves a module while its modification time is unchanged. So a fresh
checkout (every file a new time) reads everything again, and a file swapped for
another with the same time keeps its old imports. :class:`DigestCache` plugs into
grimp's cache port instead, for our own graph builds only: beside grimp's files it
keeps, per module, the stamp (size, modification and change times, inode) and digest
of the bytes the cached imports were read from, and the time grimp recorded for them.
A module is served when grimp's record is the one we saw written and the file's bytes
are those (hashed only when the stamp differs); anything else is read again. grimp's
files stay grimp's, in its own format: a later ``lint-imports`` reads them as usual,
and finds them corrected where we read a file again.

grimp caches imports already resolved against the project's other modules (``from pkg
import name`` is ``pkg.name`` only while that module exists; a relative import reads
differently from ``x.py`` and ``x/__init__.py``). So the records hold the project's
shape, each module's name and whether it is a package: when a module is added, removed
or made a package, no record is served and every module is read again.

Anything wrong with these files (missing, damaged, foreign, written by another version)
is a miss, never an error. When the installed grimp's internals are not the ones this
builds on, grimp's own cache is used unchanged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from grimp.adaptors.caching import Cache, CacheFileNamer
from grimp.application.config import settings
from grimp.application.ports.caching import CacheMiss
from grimp.application.ports.filesystem import BasicFileSystem
from grimp.application.ports.modulefinder import FoundPackage, ModuleFile
from grimp.domain.valueobjects import DirectImport, Module

from domain_fence.core.source.cachedir import write_atomically
from domain_fence.core.source.factcache import Stamp, hash_ahead, hash_behind, stamped_digest
from domain_fence.core.source.files import StampKey, file_stamp

DIGESTS_FORMAT = "domain-fence grimp digests 2"
# A record: grimp's time for the module, the file's stamp key (None while the file had
# not settled: hashed every time), the hex digest of its bytes.
Record = tuple[float, StampKey | None, str]


class DigestCache(Cache):
    """grimp's cache, a module served only while its file holds the bytes its cached
    imports were read from."""

    @classmethod
    def setup(
        cls,
        file_system: BasicFileSystem,
        found_packages: set[FoundPackage],
        include_external_packages: bool,
        exclude_type_checking_imports: bool = False,
        cache_dir: str | None = None,
        namer: type[CacheFileNamer] = CacheFileNamer,
    ) -> DigestCache:
        try:
            cache = super().setup(
                file_system=file_system,
                found_packages=found_packages,
                include_external_packages=include_external_packages,
                exclude_type_checking_imports=exclude_type_checking_imports,
                cache_dir=cache_dir,
                namer=namer,
            )
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 -- grimp's files damaged in a way grimp trips on: start empty
            cache = cls(
                file_system=file_system,
                found_packages=found_packages,
                include_external_packages=include_external_packages,
                exclude_type_checking_imports=exclude_type_checking_imports,
                cache_dir=cls.cache_dir_or_default(cache_dir),
                namer=namer,
            )
        assert isinstance(cache, DigestCache)
        cache._start()
        return cache

    def _start(self) -> None:
        with _LOCK:  # another build's stamps may be older than what its grimp saw: none then
            discovered = _DISCOVERED[0] if len(_DISCOVERED) == 1 else {}
        self._stamps = _module_stamps(self.found_packages, discovered)
        self._shape = _shape(self.found_packages, self._stamps)
        self._digests_path = os.path.join(self.cache_dir, _digests_name(self))
        self._recorded_shape, self._records = _read_records(self._digests_path)
        if self._recorded_shape != self._shape:  # the imports grimp resolved may now resolve elsewhere
            self._records = {}
        # A checkout or a restored cache: every file whose stamp is not the recorded one
        # is hashed by read_imports; all at once is faster.
        hash_ahead(
            (stamp.path, stamp.key)
            for name, stamp in self._stamps.items()
            if (record := self._records.get(name)) is not None and record[1] != stamp.key
        )
        # The files no record knows (a cold build) are read by grimp, then hashed by
        # write: a helper hashes them meanwhile, beside grimp's parsing.
        self._hashed_behind = hash_behind(
            (stamp.path, stamp.key) for name, stamp in self._stamps.items() if name not in self._records
        )
        self._served: dict[str, Record] = {}  # what read_imports served, as it knows it now
        self._missed: dict[str, Stamp | None] = {}  # read again: the stamp before grimp read it

    def read_imports(self, module_file: ModuleFile) -> set[DirectImport]:
        name = module_file.module.name
        stamp = self._stamps.get(name)
        record = self._records.get(name)
        if stamp is None or record is None:
            self._missed[name] = stamp
            raise CacheMiss
        grimp_time, key, digest = record
        if key != stamp.key:  # a checkout, a restored cache, a rewrite: the bytes decide
            found = stamped_digest(stamp.path, stamp.key)
            if found is None or found.hex() != digest:
                self._missed[name] = stamp
                raise CacheMiss
        try:  # grimp's own record for the module must be the one written with ours
            imports = super().read_imports(dataclasses.replace(module_file, mtime=grimp_time))
        except CacheMiss:
            self._missed[name] = stamp
            raise
        self._served[name] = (module_file.mtime, stamp.key if stamp.settled else None, digest)
        return imports

    def write(self, imports_by_module: dict[Module, set[DirectImport]]) -> None:
        super().write(imports_by_module)
        times = {f.module.name: f.mtime for package in self.found_packages for f in package.module_files}
        records = dict(self._served)
        self._hashed_behind()
        hash_ahead((before.path, before.key) for before in self._missed.values() if before is not None)
        for name, before in self._missed.items():
            record = _record_of_read(before, times.get(name))
            if record is not None:
                records[name] = record
        if records != self._records or self._shape != self._recorded_shape:
            _write_records(self._digests_path, self._shape, records)


def _record_of_read(before: Stamp | None, grimp_time: float | None) -> Record | None:
    """The record of a module grimp has just read, when its bytes are surely
    those it read: settled, and with the stamp it had before."""
    if before is None or grimp_time is None or not before.settled:
        return None
    key = before.key
    digest = stamped_digest(before.path, key)
    if digest is None or file_stamp(before.path) != key:
        return None
    return (grimp_time, key, digest.hex())


def _module_stamps(found_packages: set[FoundPackage], discovered: Mapping[str, StampKey]) -> dict[str, Stamp]:
    """The stamp of each module's file, as grimp is about to read it; none for a name
    two files claim (``a/b.py`` beside ``a/b/__init__.py``), which is then never served.
    ``discovered``: stamps the run took a moment before (see :func:`content_addressed`)."""
    stamps: dict[str, Stamp | None] = {}
    for package in found_packages:
        skipped = len(package.name.split("."))
        for module_file in package.module_files:
            name = module_file.module.name
            base = os.sep.join([package.directory, *name.split(".")[skipped:]])
            known = _discovered_stamp(base, module_file.mtime, discovered)
            if known is not None and name not in stamps:
                stamps[name] = known
                continue
            found = [s for s in (Stamp.of(base + ".py"), Stamp.of(base + os.sep + "__init__.py")) if s is not None]
            stamps[name] = found[0] if len(found) == 1 and name not in stamps else None
    return {name: stamp for name, stamp in stamps.items() if stamp is not None}


def _discovered_stamp(base: str, grimp_time: float, discovered: Mapping[str, StampKey]) -> Stamp | None:
    """The discovered stamp of the module's file (``base`` with ``.py``, or its package's
    ``__init__.py``) while grimp's modification time is that stamp's, as ``os.stat``
    gives it: else the file may have changed since, and is stamped again."""
    for path in (base + ".py", base + os.sep + "__init__.py"):
        key = discovered.get(path)
        if key is not None:
            seconds, nanoseconds = divmod(key[1], 1_000_000_000)
            return Stamp(path, *key) if seconds + nanoseconds * 1e-9 == grimp_time else None
    return None


def _shape(found_packages: set[FoundPackage], stamps: dict[str, Stamp]) -> str:
    """A digest of the project's modules: each name, and whether its file is a package's
    ``__init__.py`` (``?`` for a name two files claim)."""
    lines = []
    for name in sorted(f.module.name for package in found_packages for f in package.module_files):
        stamp = stamps.get(name)
        kind = "?" if stamp is None else "p" if os.path.basename(stamp.path) == "__init__.py" else "m"
        lines.append(f"{name} {kind}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _digests_name(cache: Cache) -> str:
    """Named after grimp's data file: one per set of root packages and options."""
    data = CacheFileNamer.make_data_file_name(
        found_packages=cache.found_packages,
        include_external_packages=cache.include_external_packages,
        exclude_type_checking_imports=cache.exclude_type_checking_imports,
    )
    return "domain-fence-" + data.removesuffix(".data.json") + ".digests.json"


def _read_records(path: str) -> tuple[str, dict[str, Record]]:
    """The project's shape the records were written for, and the records."""
    try:
        with open(path, "rb") as stream:
            content = json.load(stream)
    except (OSError, ValueError):  # missing, unreadable, not JSON: nothing known
        return "", {}
    if not (isinstance(content, dict) and content.get("format") == DIGESTS_FORMAT):
        return "", {}
    shape, modules = content.get("shape"), content.get("modules")
    if not isinstance(shape, str) or not isinstance(modules, dict):
        return "", {}
    return shape, {name: record for name, raw in modules.items() if (record := _record(raw)) is not None}


def _record(raw: object) -> Record | None:
    """A record read back, or None when it is not one we write."""
    if not (isinstance(raw, list) and len(raw) == 3):
        return None
    grimp_time, key, digest = raw
    if not (isinstance(grimp_time, (int, float)) and not isinstance(grimp_time, bool) and isinstance(digest, str)):
        return None
    if key is None:
        return (grimp_time, None, digest)
    if not (isinstance(key, list) and len(key) == 4 and all(type(part) is int for part in key)):
        return None
    return (grimp_time, (key[0], key[1], key[2], key[3]), digest)


def _write_records(path: str, shape: str, records: dict[str, Record]) -> None:
    """Write the records whole (a reader never sees half a file); when they cannot be
    written, the next build reads the modules concerned again, nothing worse."""
    content = {"format": DIGESTS_FORMAT, "shape": shape, "modules": {name: records[name] for name in sorted(records)}}
    with suppress(OSError):
        write_atomically(Path(path), json.dumps(content).encode("utf-8"))


def _supported() -> bool:
    """Whether the installed grimp is the one DigestCache builds on: its own cache class
    configured, its cache and module file shaped as in the grimp 3 series."""
    try:
        configured = settings.CACHE_CLASS
        setup = inspect.signature(Cache.setup).parameters
        fields = {field.name for field in dataclasses.fields(ModuleFile)}
        package_fields = {field.name for field in dataclasses.fields(FoundPackage)}
    except Exception:  # noqa: BLE001 -- anything unexpected: grimp's own cache
        return False
    return (
        configured is Cache
        and {"file_system", "found_packages", "include_external_packages", "cache_dir", "namer"} <= set(setup)
        and fields == {"module", "mtime"}
        and {"name", "directory", "module_files"} <= package_fields
        and callable(getattr(CacheFileNamer, "make_data_file_name", None))
    )


_LOCK = threading.Lock()
_USERS = [0]
# Of each build with DigestCache under way, the stamps its run's discovery took (absolute
# path -> stamp): a file stamped there is not stamped again.
_DISCOVERED: list[Mapping[str, StampKey]] = []


def serves_by_bytes() -> bool:
    """Whether :func:`content_addressed` builds with :class:`DigestCache` here."""
    with _LOCK:
        return _USERS[0] > 0 or _supported()


@contextmanager
def content_addressed(discovered: Mapping[str, StampKey] | None = None) -> Iterator[None]:
    """grimp builds with :class:`DigestCache` while the block runs (when the installed
    grimp allows; else with its own cache), and its setting is restored afterwards.
    ``discovered``: the stamps of the project's files (by absolute path) that the run
    took before grimp looked at them, in the state of the tree the run checks."""
    stamps = discovered if discovered is not None else {}
    with _LOCK:
        if _USERS[0] == 0 and not _supported():
            swapped = False
        else:
            swapped = True
            _USERS[0] += 1
            settings.configure(CACHE_CLASS=DigestCache)
            _DISCOVERED.append(stamps)
    try:
        yield
    finally:
        if swapped:
            with _LOCK:
                _USERS[0] -= 1
                _DISCOVERED.remove(stamps)
                if _USERS[0] == 0:
                    settings.configure(CACHE_CLASS=Cache)

"""The persistent fact cache: the facts of every file parsed so far, reused while the
file holds the same bytes (its stamp stands for them; a new stamp, as a checkout gives
every file, is settled by the digest of the bytes).

One pack file per project holds every entry, each pickled on its own behind an index
(:mod:`.factpack`), so that a run reads the index and only the pickles of the entries
it asks for (creating a file per entry would cost more than parsing a small one on
some file systems). What later runs add goes to a second, small file beside it, the
journal (read whole), so that an edit of one file does not rewrite the pack of
thousands; when the journal holds an eighth as many entries as the pack, both are
merged into a new pack. Each is rewritten whole, with what other processes added
meanwhile, under a lock, to a temporary file then moved in place with
``os.replace``: parallel processes (pre-commit runs hooks side by side) never see
half of one. Where there is no lock (no ``fcntl``), when two write at once the last
one wins and the other's new entries are parsed again next time. Anything wrong with
the cache (a missing, unreadable, unwritable, corrupt or foreign pack or entry) only
costs the time to parse again: it is never an error and never a wrong answer.

Packs and entries are pickles read by an unpickler that can build nothing but plain
containers and the fact classes, so a planted cache file cannot run code. The pack
records the key it was written under (the extractor's version and source, the Python
version); each entry the file's stamp, the digest of its bytes and the module name it
was read as. A mismatch in the key or the module, or in the bytes, is a miss. An entry's flow facts (DOM105's,
extracted only for the modules that need them, see :func:`.facts.flow_facts`) join
it when first extracted, and only when they are of the same bytes.

The facts do not depend on the configuration (every contract reads what it needs
from the same facts), so the configuration is not part of the key.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from pkgutil import iter_modules
from typing import TYPE_CHECKING, Any, NamedTuple

from domain_fence.core.source.cachedir import CACHE_DIR_ENV as CACHE_DIR_ENV
from domain_fence.core.source.cachedir import DEFAULT_DIRECTORY as DEFAULT_DIRECTORY
from domain_fence.core.source.cachedir import NO_CACHE_ENV as NO_CACHE_ENV
from domain_fence.core.source.cachedir import cache_directory as cache_directory
from domain_fence.core.source.cachedir import make_cache_directory, write_atomically
from domain_fence.core.source.factpack import PACK_FORMAT as PACK_FORMAT
from domain_fence.core.source.factpack import Entry, Pack, pack_bytes, read_pack
from domain_fence.core.source.reading import READ_CHUNK, note_reads, read_version

if TYPE_CHECKING:
    from domain_fence.core.source.facts import DeclarationFacts, FileFacts, ImportFacts
    from domain_fence.core.source.flow import FlowFacts

FACTS_VERSION = 34  # bump when the meaning of a fact changes without its code changing
# A file modified this recently may be modified again within the same clock tick
# without its size changing; its facts are not kept until it has settled.
RACY_WINDOW_NS = 2_000_000_000
JOURNAL_SHARE = 8  # the journal is merged into the pack when it holds an eighth as many entries
HASHING_THREADS = 2  # this one and a helper: more only contend for the interpreter lock
HASHED_PER_THREAD = 256  # fewer files are hashed faster than threads start


class Stamp(NamedTuple):
    """What identifies one version of a source file without reading it: size,
    modification and change times, inode. A file rewritten in place keeps none of
    the last two, however its modification time is set back; a checkout gives every
    file new ones, and then the digest of the bytes decides (see FactCache.load)."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int = 0
    ino: int = 0

    @classmethod
    def of(cls, path: Path | str) -> Stamp | None:
        try:
            status = os.stat(path)
        except OSError:
            return None
        return cls(str(path), status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.size, self.mtime_ns, self.ctime_ns, self.ino)

    @property
    def settled(self) -> bool:
        return time.time_ns() - self.mtime_ns > RACY_WINDOW_NS


def file_digest(path: str) -> bytes | None:
    """A digest of the file's bytes (BLAKE2b: fast, and a collision is no concern here).
    Read through the descriptor, unbuffered: a cold run hashes thousands of small
    files, and a buffered file object costs more than the hashing (0.06 s against
    0.10 s for 3,000 files)."""
    note_reads((path,))
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        digest = hashlib.blake2b()
        while chunk := os.read(descriptor, READ_CHUNK):
            digest.update(chunk)
        return digest.digest()
    except OSError:
        return None
    finally:
        with suppress(OSError):
            os.close(descriptor)


# path -> (stamp key, digest) of settled files hashed in this process
_SETTLED_DIGESTS: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}


def stamped_digest(path: str, key: tuple[int, int, int, int]) -> bytes | None:
    """:func:`file_digest` of the file at ``path``, whose stamp key (see :class:`Stamp`)
    was ``key`` before it is read. A settled file is read once per process for one
    stamp: the import graph's cache and the stored results of a cold run both ask. An
    unsettled one (just edited) is read as :func:`~.reading.read_version` reads it: the
    stored results, the cached facts and their flows ask for its digest, its parse for
    its bytes."""
    known = _SETTLED_DIGESTS.get(path)
    if known is not None and known[0] == key:
        return known[1]
    before = time.time_ns()  # settled before it was read: no rewrite hides in its time's tick
    if before - max(key[1], key[2]) <= RACY_WINDOW_NS:
        try:
            return bytes_digest(read_version(path, key))
        except OSError:
            return None
    digest = file_digest(path)
    if digest is not None:
        _SETTLED_DIGESTS[path] = (key, digest)
    return digest


def hash_ahead(files: Iterable[tuple[str, tuple[int, int, int, int]]]) -> None:
    """:func:`stamped_digest` of many files (path, stamp key) at once, in two threads
    where there are enough to be worth it: reading a file, and hashing more than a
    couple of kilobytes, let go of the interpreter lock, so a second thread hashes a
    cold run's thousands of files while this one does. Only settled files are hashed
    ahead: only their digests are kept for :func:`stamped_digest` to answer with (a
    digest a thread failed to take is taken again when asked for)."""
    pending = _to_hash(files)
    threads = min(HASHING_THREADS, len(pending) // HASHED_PER_THREAD)
    if threads <= 1:
        _hash_share(pending)
        return
    shares = [pending[start::threads] for start in range(threads)]
    # Plain threads: nothing to import lazily while the project may be on sys.path.
    helpers = [
        threading.Thread(target=_hash_share, args=(share,), name="domain-fence-hash", daemon=True)
        for share in shares[1:]
    ]
    for helper in helpers:
        helper.start()
    _hash_share(shares[0])
    for helper in helpers:
        helper.join()


def hash_behind(files: Iterable[tuple[str, tuple[int, int, int, int]]]) -> Callable[[], None]:
    """Start :func:`stamped_digest` of many files (path, stamp key) in a helper thread,
    while this one goes on (grimp parsing them, say, on one core of several); the
    function returned waits for it. As with :func:`hash_ahead`, only settled files."""
    pending = _to_hash(files)
    if not pending:
        return lambda: None
    helper = threading.Thread(target=_hash_share, args=(pending,), name="domain-fence-hash", daemon=True)
    helper.start()
    return helper.join


def _to_hash(files: Iterable[tuple[str, tuple[int, int, int, int]]]) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The settled files among ``files`` whose digest under that stamp is not known yet."""
    now = time.time_ns()
    return [
        (path, key)
        for path, key in files
        if _SETTLED_DIGESTS.get(path, (None,))[0] != key and now - max(key[1], key[2]) > RACY_WINDOW_NS
    ]


def _hash_share(share: list[tuple[str, tuple[int, int, int, int]]]) -> None:
    for path, key in share:
        stamped_digest(path, key)


def bytes_digest(data: bytes) -> bytes:
    """:func:`file_digest` of a file holding ``data``."""
    return hashlib.blake2b(data).digest()


_OPEN: dict[tuple[str, str], FactCache] = {}


class FactCache:
    """The facts of the project at ``root``, in one pack under ``directory``."""

    @classmethod
    def open(cls, directory: Path, root: Path) -> FactCache:
        """The process's cache for this project: every index of a run shares it, and
        the pack is read once."""
        key = (str(directory), str(root))
        if key not in _OPEN:
            _OPEN[key] = cls(directory, root)
        return _OPEN[key]

    def __init__(self, directory: Path, root: Path) -> None:
        self.directory = Path(directory)
        name = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        self.path = self.directory / f"facts-{name}.pickle"
        self.journal = self.directory / f"journal-{name}.pickle"  # entries newer than the pack's
        self._pack: Pack | None = None  # read when first needed
        # Entries read whole, over the pack's: the journal's (after a merge, the new pack's).
        self._journaled: dict[str, Entry] | None = None
        self._new: dict[str, Entry] = {}  # stored since the last save
        self._at_exit = False

    def load(self, stamp: Stamp, module: str, is_package: bool) -> tuple[FileFacts, bytes] | None:
        """The facts of the file at ``stamp`` and its declarations, still pickled
        (see :func:`decode_declarations`); None when the cache has no such entry."""
        from domain_fence.core.source.facts import FileFacts

        entry = self._entry(stamp, module, is_package)
        if entry is None:
            return None
        facts, declarations = _decode(entry[4]), entry[5]
        if not (isinstance(facts, FileFacts) and facts.module == module and facts.is_package == is_package):
            return None
        return (facts, declarations) if isinstance(declarations, bytes) else None

    def load_flows(self, stamp: Stamp, module: str, is_package: bool) -> FlowFacts | None:
        """The flow facts of the file at ``stamp``; None when they were never stored."""
        entry = self._entry(stamp, module, is_package)
        return decode_flows(entry[6]) if entry is not None else None

    def _entry(self, stamp: Stamp, module: str, is_package: bool) -> Entry | None:
        entry = self._known(stamp.path, module, is_package)
        if entry is not None and entry[0] != stamp.key:
            # A new stamp (a checkout, a restored cache, a rewrite): the bytes decide.
            digest = stamped_digest(stamp.path, stamp.key)
            if digest is None or digest != entry[1]:
                return None
            if stamp.settled:  # the same bytes: known under the new stamp from now on
                entry = self._new[stamp.path] = (stamp.key, *entry[1:])
                self._save_at_exit()
        return entry

    def _known(self, path: str, module: str, is_package: bool) -> Entry | None:
        """The entry of ``path`` read as ``module``, whatever its stamp."""
        entry = self._new.get(path) or self._journal_entries().get(path) or self._pack_read().get(path)
        if isinstance(entry, tuple) and len(entry) == 7 and entry[2:4] == (module, is_package):
            return entry
        return None

    def store(self, stamp: Stamp, facts: bytes, declarations: bytes, module: str, is_package: bool) -> None:
        """Keep the (pickled, see :func:`encode`) facts of the file at ``stamp`` until
        the next :meth:`save`, which happens at exit at the latest."""
        if not stamp.settled:
            return
        digest = stamped_digest(stamp.path, stamp.key)
        if digest is None or Stamp.of(stamp.path) != stamp:
            return  # changed since it was parsed: these facts may not be of these bytes
        known = self._known(stamp.path, module, is_package)
        flows = known[6] if known is not None and known[1] == digest else None  # of the same bytes: still true
        self._new[stamp.path] = (stamp.key, digest, module, is_package, facts, declarations, flows)
        self._save_at_exit()

    def load_imports(self, stamp: Stamp, module: str, is_package: bool) -> FileFacts | ImportFacts | None:
        """The facts of the file at ``stamp``, or its imports alone when only those were
        stored (see :meth:`store_imports`); None when the cache has neither."""
        from domain_fence.core.source.facts import FileFacts, ImportFacts

        entry = self._entry(stamp, module, is_package)
        found = _decode(entry[4]) if entry is not None else None
        return found if isinstance(found, (FileFacts, ImportFacts)) and found.module == module else None

    def store_imports(self, stamp: Stamp, imports: bytes, module: str, is_package: bool) -> None:
        """Keep the (pickled) imports alone of the file at ``stamp``, read for a contract
        that passes over it; never in place of its whole facts of the same bytes."""
        known = self._known(stamp.path, module, is_package)
        if known is not None and known[0] == stamp.key and known[5]:
            return
        self.store(stamp, imports, b"", module, is_package)

    def store_flows(self, stamp: Stamp, digest: bytes, flows: bytes, module: str, is_package: bool) -> None:
        """Keep the (pickled) flow facts of the file at ``stamp``, extracted from bytes
        whose :func:`bytes_digest` is ``digest``, beside its other facts: only when those
        are stored already, and are of the same bytes."""
        known = self._known(stamp.path, module, is_package)
        if known is None or known[1] != digest:
            return
        self._new[stamp.path] = (*known[:6], flows)
        self._save_at_exit()

    def _save_at_exit(self) -> None:
        if not self._at_exit:
            atexit.register(self.save)
            # A multiprocessing worker (flake8's) leaves without running atexit, but runs
            # these; a process that never imported multiprocessing is no such worker.
            if "multiprocessing" in sys.modules:
                from multiprocessing.util import Finalize

                Finalize(self, self.save, exitpriority=10)
            self._at_exit = True

    def save(self) -> None:
        """Write the pack with the entries stored since the last save, keeping those
        other processes wrote meanwhile and dropping those of changed or gone files."""
        if not self._new:
            return
        new, self._new = self._new, {}
        key = cache_key()
        try:
            self._prepare()
            with _locked(self.directory / ".facts.lock"):  # so that no process drops another's entries
                packed = read_pack(self.path, key, _FactUnpickler)  # its index: another may have merged
                journal = {**read_pack(self.journal, key, _FactUnpickler).entries(), **new}
                if len(journal) * JOURNAL_SHARE < len(packed):
                    write_atomically(self.journal, pack_bytes(key, journal))
                    self._pack, self._journaled = packed, journal  # as they are on disk now
                    return
                # Merged into a new pack, without the entries of files now gone.
                entries = {path: e for path, e in {**packed.entries(), **journal}.items() if Stamp.of(path) is not None}
                write_atomically(self.path, pack_bytes(key, entries))
                with suppress(FileNotFoundError):
                    os.unlink(self.journal)
        except Exception:  # noqa: BLE001 -- unwritable or full: not cached
            return
        self._pack = self._journaled = None  # read again when asked: the pickles stay on disk

    def _pack_read(self) -> Pack:
        if self._pack is None:
            self._pack = read_pack(self.path, cache_key(), _FactUnpickler)
        return self._pack

    def _journal_entries(self) -> dict[str, Entry]:
        if self._journaled is None:
            self._journaled = read_pack(self.journal, cache_key(), _FactUnpickler).entries()
        return self._journaled

    def _prepare(self) -> None:
        make_cache_directory(self.directory)


def encode(facts: FileFacts | DeclarationFacts | FlowFacts | ImportFacts) -> bytes:
    return pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)


def decode_facts(data: bytes) -> FileFacts | None:
    """Facts pickled by :func:`encode`; None when ``data`` is not such facts."""
    from domain_fence.core.source.facts import FileFacts

    facts = _decode(data)
    return facts if isinstance(facts, FileFacts) else None


def decode_declarations(data: bytes, module: str) -> DeclarationFacts | None:
    """Declarations pickled by :func:`encode`; None when ``data`` is not the
    declarations of ``module``."""
    from domain_fence.core.source.facts import DeclarationFacts

    declarations = _decode(data)
    return declarations if isinstance(declarations, DeclarationFacts) and declarations.module == module else None


def decode_flows(data: object) -> FlowFacts | None:
    """Flow facts pickled by :func:`encode`; None when ``data`` is not such facts."""
    from domain_fence.core.source.flow import FlowFacts

    flows = _decode(data)
    return flows if isinstance(flows, FlowFacts) else None


def _decode(data: object) -> object:
    if not isinstance(data, bytes):
        return None
    try:
        return _FactUnpickler(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 -- a corrupt entry is a miss, whatever unpickling raises
        return None


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` where the platform has one (else none: a writer
    may then drop another's new entries, which costs a parse, never a wrong answer)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


_KEY: str | None = None


def cache_key() -> str:
    """The extractor's identity: facts written by another version are misses. It
    hashes the extractor's own source, so an edited checkout never reads stale facts."""
    global _KEY
    if _KEY is None:
        from domain_fence import __version__
        from domain_fence.core.source import facts, flow, keys, modules, reading

        digest = hashlib.sha256(f"{FACTS_VERSION}:{__version__}:{sys.version}".encode())
        # Every module of the facts and flow packages, not their ``__init__`` alone, in
        # order, read as files: a run whose flow facts all come from the cache imports
        # no tracer (see facts.extraction).
        files = [Path(module.__file__ or "") for module in (facts, flow, keys, reading, modules, sys.modules[__name__])]
        files[2:2] = sorted(
            Path(parent.__path__[0], f"{found.name}.py")
            for parent in (facts, flow)
            for found in iter_modules(parent.__path__)
        )
        for file in files:
            try:
                digest.update(file.read_bytes())
            except OSError:
                digest.update(str(file).encode("utf-8", "surrogateescape"))
        _KEY = digest.hexdigest()
    return _KEY


# What a pack may hold besides builtin containers, strings, bytes and numbers.
_FACT_CLASSES = {
    ("domain_fence.core.source.facts.records", name)
    for name in (
        "Text",
        "AttributeFact",
        "ClassFact",
        "CallFact",
        "ConstructionFact",
        "AttributeSetFact",
        "ReceiverStringFact",
        "PositionalFact",
        "EmitterFact",
        "ModuleFacts",
        "DefinitionFact",
        "MemberFact",
        "DeclarationFacts",
        "TopLevelDefinition",
        "MethodDefinition",
        "NestedClassDefinition",
        "BoundName",
        "ImportFact",
        "ImportFacts",
        "FileFacts",
    )
} | {("domain_fence.core.source.reading", "Unreadable")}
_FACT_CLASSES |= {("domain_fence.core.source.flow.records", name) for name in ("FlowFacts", "Sink", "Source", "Given")}


class _FactUnpickler(pickle.Unpickler):
    """Builds fact classes only: a planted pack cannot name a function to call."""

    def find_class(self, module: str, name: str) -> Any:
        found = _FOUND_CLASSES.get((module, name))
        if found is not None:  # asked once per class and pickle: thousands of times a run
            return found
        if (module, name) in _FACT_CLASSES:
            found = _FOUND_CLASSES[module, name] = super().find_class(module, name)
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a fact class")


_FOUND_CLASSES: dict[tuple[str, str], Any] = {}

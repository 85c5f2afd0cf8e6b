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
(with their views beside it); after an edit, only the rows that differ from a table
written before are (see :func:`_save_table`). Every file is written to a temporary
file then moved in place, and before any file naming it, so concurrent runs never
read half of one; a missing, damaged or foreign entry, body or table is a full check,
never an error and never a wrong answer. They hold plain data only, read by an
unpickler that builds no object of any class.

A run reads and writes the table as columns, never module by module: which modules
changed is found once for every contract that stored the same table, and so is the
table the run stores (:class:`Digests`). A contract keeps the findings of the modules
that have any.

All a contract stores but its key and its table's name (views, findings, noqa comments,
answers, ...) is one pickle of its own, the body, in a file of its own named by the
digest of its bytes; the contract's file holds its key and the names of its table and
of its body. After an edit that leaves the body as it was, only the table's name
differs: the small file is written again, the body read is neither converted, pickled
nor written again. Each contract keeps its last two bodies (a concurrent run may have
read the file naming the one before), older ones are forgotten.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import pickle
import struct
import sys
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, fields, is_dataclass
from itertools import accumulate, chain, compress, filterfalse, repeat
from pathlib import Path
from typing import Any, TypeVar

from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Domains, Link
from domain_fence.core.source.cachedir import make_cache_directory, write_atomically
from domain_fence.core.source.factcache import hash_ahead, stamped_digest
from domain_fence.core.source.files import StampKey, file_stamp, packable
from domain_fence.core.source.listing import COMPILED_DIRECTORY, listed_since, listing
from domain_fence.core.source.plainpickle import plain_loads
from domain_fence.core.source.reading import ReadLedger

# 9: the covered modules as a mask of the table's, equal messages once, files named by their
# SHA-256 (a table named by its BLAKE2b, as before, reads as damaged); 8: findings a field at a time
FORMAT = "domain-fence module results 9"
RACY_WINDOW_NS = 2_000_000_000  # a file this recent may change again within its timestamp's tick
_FINDING_FIELDS = tuple(f.name for f in fields(Finding))
_finding_values = operator.attrgetter(*_FINDING_FIELDS)
# A stored finding's values by field, each of one type (a bool is no int here).
_FINDING_COLUMNS = (str, int, int, str, str, str, str, str, tuple, int, int, tuple)
_SHARED_COLUMNS = (4, 8, 11)  # messages, details and fields: equal ones recur

# What is known of every module's file, as three columns: the names, the stamp each
# digest was taken under (None: hash the file again) and the digest (None: unknown,
# the module counts as changed).
Table = tuple[tuple[str, ...], tuple[StampKey | None, ...], tuple[bytes | None, ...]]


@dataclass
class StoredResults:
    """A contract's results as the last run stored them, module by module."""

    table: Table
    views: tuple[bytes | None, ...]  # by the table's modules: the digest of each view (None: no check read it)
    covered: list[str]
    findings: dict[str, list[Finding]]  # covered module -> its findings, for the modules that have any
    warnings: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    answers: Any = None  # the family's project-wide answers, as plain data
    # file -> its noqa comments (line, codes or None for all), for the files with findings
    noqa: dict[str, tuple[tuple[int, tuple[str, ...] | None], ...]] = field(default_factory=dict)
    extra: Any = None  # what a report shows besides findings (see plain_extra); None: not kept
    # ``extra`` read back (extra_of), once it has been to check it
    decoded_extra: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    body: str | None = field(default=None, compare=False, repr=False)  # the name of the body read

    def view(self, module: str) -> bytes | None:
        """The digest of ``module``'s view (None: no check read it, or not in the table)."""
        at = positions(self.table[0]).get(module)
        return None if at is None else self.views[at]


# The table last asked for, and each name's position in it: every contract asks of the same one.
_POSITIONS: list[tuple[tuple[str, ...], dict[str, int]]] = []


def positions(names: tuple[str, ...]) -> dict[str, int]:
    """Each of ``names``'s position."""
    if not (_POSITIONS and _POSITIONS[0][0] is names):
        _POSITIONS[:] = [(names, {name: at for at, name in enumerate(names)})]
    return _POSITIONS[0][1]


def view_digest(view: object) -> bytes:
    """A digest of a view: plain data (tuples, strings, numbers), whose text is the
    same in every process."""
    return hashlib.blake2b(repr(view).encode("utf-8", "surrogateescape"), digest_size=16).digest()


_PLAIN = frozenset({str, int, float, bool, bytes, type(None)})  # exactly: a subclass is checked below
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # a record's fields, by class (a key holds hundreds of values)


def stable(value: object) -> object:
    """``value`` as plain tuples whose text is the same in every process (sets sorted);
    a record (a dataclass or a named tuple) named with its class and fields."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is None and is_dataclass(kind):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(kind))
    elif names is None and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        names = _FIELD_NAMES[kind] = kind._fields
    if names is not None:
        return (kind.__name__, *((name, stable(getattr(value, name))) for name in names))
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
TOOL_FORMAT = "domain-fence tool digest 1"


def tool_digest(directory: Path | None = None) -> str:
    """The code that turns sources into findings: every file of domain-fence, and the
    Python version. An edited checkout never reuses what older code found.

    Reading and hashing them costs a run after an edit more than checking the edited
    module does: with a cache ``directory``, the digest is kept there under the files'
    stamps (size, modification and change times, inode), which stand for their bytes
    next time, as a source file's do (a file that had not settled is never kept)."""
    global _TOOL
    if _TOOL is None:
        import domain_fence

        _TOOL = code_digest(os.path.dirname(domain_fence.__file__), directory)
    return _TOOL


def code_digest(top: str, directory: Path | None = None) -> str:
    """The digest :func:`tool_digest` takes of the code below ``top``."""
    files = _python_files(top)
    stamps = _tool_stamps(files) if directory is not None else None
    kept = _kept_tool_digest(directory, stamps) if directory is not None and stamps is not None else None
    if kept is not None:
        return kept
    digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0".encode())
    for name, entry in files:
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            with open(entry.path, "rb") as file:
                digest.update(hashlib.sha256(file.read()).digest())
        except OSError:
            digest.update(b"unreadable")
    found = digest.hexdigest()
    if directory is not None and stamps is not None:
        _keep_tool_digest(directory, stamps, found)
    return found


def _tool_stamps(files: list[tuple[str, os.DirEntry[str]]]) -> str | None:
    """A digest of the tool files' names and stamps, and of the Python version; None
    when one cannot be stat'ed or had changed a moment before it was listed (it may
    change again unseen)."""
    digest = hashlib.sha256(f"{TOOL_FORMAT}\0{FORMAT}\0{sys.version}\0".encode())
    settled_before = listed_since() - RACY_WINDOW_NS
    for name, entry in files:
        try:
            status = entry.stat()
        except OSError:
            return None
        if max(status.st_mtime_ns, status.st_ctime_ns) >= settled_before:
            return None
        stamp = f"{name}\0{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} {status.st_ino}\1"
        digest.update(stamp.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _tool_file(directory: Path) -> Path:
    return Path(directory) / "results" / "tool.json"


def _kept_tool_digest(directory: Path, stamps: str) -> str | None:
    """The digest kept under ``stamps``; None when there is none (or it is damaged)."""
    try:
        entry = json.loads(_tool_file(directory).read_bytes())
    except Exception:  # noqa: BLE001 -- missing, unreadable or damaged: the files are read
        return None
    if not (isinstance(entry, dict) and entry.get("format") == TOOL_FORMAT and entry.get("stamps") == stamps):
        return None
    digest = entry.get("digest")
    return digest if _hex_digits(digest, 64) else None


def _keep_tool_digest(directory: Path, stamps: str, digest: str) -> None:
    path = _tool_file(directory)
    try:
        make_cache_directory(directory)  # never a cache directory without its markers
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, json.dumps({"format": TOOL_FORMAT, "stamps": stamps, "digest": digest}).encode())
    except OSError:  # an unwritable cache: the files are read again next time
        return


def _hex_digits(text: object, count: int) -> bool:
    """Whether ``text`` is ``count`` lowercase hex digits (a digest as written): told
    without a regular expression, which a run would compile first."""
    return isinstance(text, str) and len(text) == count and not text.strip("0123456789abcdef")


def _python_files(top: str) -> list[tuple[str, os.DirEntry[str]]]:
    """The ``.py`` files below ``top`` as ``Path.rglob`` finds them (not through a linked
    directory), but in Python's compiled caches (``__pycache__``, unless made a package,
    as every walk), relative and in ``/``-separated form, with their directory entries,
    in the order of their paths' parts. Listed as the run's other walks list
    (:func:`~..source.listing.listing`): in a check, the run cache has listed the tool's
    directories and taken the stamps of its files already."""
    found = []
    pending = [(top, "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = listing(directory)
        except OSError:  # as os.walk, which rglob follows: an unreadable directory has no files
            continue
        for entry in entries:
            try:
                is_directory = entry.is_dir()
            except OSError:
                is_directory = False
            if not is_directory:
                if entry.name.endswith(".py"):
                    found.append((prefix + entry.name, entry))
            elif not entry.is_symlink() and (entry.name != COMPILED_DIRECTORY or _is_package(entry.path)):
                pending.append((entry.path, f"{prefix}{entry.name}/"))
    return sorted(found, key=lambda item: item[0].split("/"))


def _is_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


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


def results_key(
    contract: str,
    family: str,
    config: object,
    session: object,
    paths: Mapping[str, str],
    directory: Path | None = None,
) -> str:
    """What every stored finding depends on besides the sources: the contract, the
    tool, and every module of the project with its file (``paths``: file -> module);
    ``directory``: the cache, where the tool's digest is kept (see :func:`tool_digest`)."""
    digest = hashlib.sha256(tool_digest(directory).encode())
    digest.update(repr((contract, family, stable(config), stable(session))).encode("utf-8", "surrogateescape"))
    digest.update(_paths_digest(paths))
    return digest.hexdigest()


_PATHS: list[tuple[Mapping[str, str], bytes]] = []  # the last paths digested (every contract asks)


def _paths_digest(paths: Mapping[str, str]) -> bytes:
    if _PATHS and _PATHS[0][0] is paths:
        return _PATHS[0][1]
    # The files sorted as text (not as pairs) and encoded at once: thousands of them.
    text = "".join([f"{paths[path]}\0{path}\1" for path in sorted(paths)])
    _PATHS[:] = [(paths, hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest())]
    return _PATHS[0][1]


KEPT_BODIES = 2  # of each contract: the one its file names, and the last (a concurrent run may be reading it)


class ResultStore:
    """One contract's stored results for the project at ``root``, under ``directory``."""

    def __init__(self, directory: Path, root: Path, contract: str, key: str) -> None:
        self.name = hashlib.sha256(f"{root}\0{contract}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
        self.directory = Path(directory) / "results"
        self.path = self.directory / f"{self.name}.pickle"
        self.key = key

    def body_path(self, name: str) -> Path:
        """The file of the body named ``name`` (the digest of its bytes)."""
        return self.directory / f"body-{self.name}-{name}.pickle"

    def load(self) -> StoredResults | None:
        try:
            data = plain_loads(self.path.read_bytes())
            return _parse(data, self)
        except Exception:  # noqa: BLE001 -- missing, unreadable, damaged or foreign: a full check
            return None

    def save(self, stored: StoredResults, loaded: StoredResults | None = None) -> None:
        """Store ``stored``; ``loaded``: what :meth:`load` read, whose body is kept, not
        written again, when ``stored`` holds the same (:func:`same_body`)."""
        try:
            make_cache_directory(self.directory.parent)  # never a cache directory without its markers
            self.directory.mkdir(exist_ok=True)
            table = _save_table(self.directory, stored.table)
            body = loaded.body if loaded is not None and self._kept(stored, loaded) else self._save_body(stored)
            write_atomically(self.path, pickle.dumps((FORMAT, self.key, table, body), protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:  # noqa: BLE001 -- unwritable or full: the next run checks everything
            return

    def _kept(self, stored: StoredResults, loaded: StoredResults) -> bool:
        """Whether ``loaded``'s body holds ``stored`` and is still there (made the newest)."""
        return loaded.body is not None and same_body(stored, loaded) and _touched(self.body_path(loaded.body))

    def _save_body(self, stored: StoredResults) -> str:
        """The name of ``stored``'s body, written; the contract's older bodies but the
        last forgotten."""
        encoded = _body(stored)
        name = content_name(encoded)
        path = self.body_path(name)
        write_atomically(path, encoded)
        _forget_all_but_newest(self.directory.glob(f"body-{self.name}-*.pickle"), path, KEPT_BODIES)
        return name


def _body(stored: StoredResults) -> bytes:
    """All of ``stored`` but its table, as plain data, pickled."""
    data = (
        tuple(stored.views),
        _covered_as_written(stored.covered, stored.table[0]),
        _finding_columns(stored.findings),
        tuple(stored.warnings),
        tuple(stored.failures),
        stored.answers,
        stored.noqa,
        stored.extra,
    )
    return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)


def _covered_as_written(covered: list[str], names: tuple[str, ...]) -> bytes | list[str]:
    """The covered modules as stored: when they are modules of the table in its order (as
    a family covers them), a byte for each of its modules, 1 for a covered one (read back
    without decoding thousands of names again); else their names."""
    at = positions(names)
    found = [at.get(module, -1) for module in covered]  # -1: not in the table
    if -1 in found or found != sorted(set(found)):
        return list(covered)
    mask = bytearray(len(names))
    for position in found:
        mask[position] = 1
    return bytes(mask)


def _covered_read(written: object, names: tuple[str, ...]) -> list[str] | None:
    """The covered modules :func:`_covered_as_written` wrote; None when they are not."""
    if type(written) is bytes:
        if len(written) != len(names) or written.translate(None, b"\0\1"):
            return None
        return list(compress(names, written))
    return written if type(written) is list and _only(written, str) else None


def same_body(stored: StoredResults, loaded: StoredResults) -> bool:
    """Whether ``stored`` holds what ``loaded``'s body does: the findings the same
    objects (kept) or equal ones (found again), the rest equal."""
    return (
        stored.views == loaded.views
        and stored.covered == loaded.covered
        and stored.warnings == loaded.warnings
        and stored.failures == loaded.failures
        and stored.findings == {m: found for m, found in loaded.findings.items() if found}
        and stored.noqa == loaded.noqa
        and stored.extra == loaded.extra
        and stored.answers == loaded.answers
    )


def _parse(data: object, store: ResultStore) -> StoredResults | None:
    if not (isinstance(data, tuple) and len(data) == 4 and data[:2] == (FORMAT, store.key)):
        return None
    table_name, body = data[2:]
    if not _hex_digits(body, 32):
        return None
    table = _load_table(store.directory, table_name)
    if table is None:
        return None
    encoded = store.body_path(body).read_bytes()
    if content_name(encoded) != body:  # not the bytes it was written with
        return None
    contents = plain_loads(encoded)
    if not (type(contents) is tuple and len(contents) == 8):
        return None
    views, written_covered, raw_findings, warnings, failures, answers, noqa, extra = contents
    if not (type(views) is tuple and len(views) == len(table[0]) and _only(views, bytes, type(None))):
        return None
    covered = _covered_read(written_covered, table[0])
    if covered is None:
        return None
    findings = _findings(raw_findings, covered)
    if findings is None:
        return None
    if not all(isinstance(w, str) for w in (*warnings, *failures)):
        return None
    if not _noqa_comments(noqa):
        return None
    decoded = None if extra is None else extra_of(extra)  # raises when it is not what plain_extra writes
    return StoredResults(
        table, views, covered, findings, tuple(warnings), tuple(failures), answers, noqa, extra, decoded, body
    )


def _noqa_comments(noqa: object) -> bool:
    """Whether ``noqa`` holds noqa comments as :meth:`ResultStore.save` writes them (file
    -> its lines, each a number and its codes or None), checked a column at a time."""
    if not (type(noqa) is dict and _only(noqa, str) and _only(noqa.values(), tuple)):
        return False
    lines = list(chain.from_iterable(noqa.values()))
    if not (_only(lines, tuple) and set(map(len, lines)) <= {2}):
        return False
    numbers, codes = zip(*lines, strict=True) if lines else ((), ())
    listed = list(compress(codes, map(operator.is_not, codes, repeat(None))))
    return _only(numbers, int) and _only(listed, tuple) and _only(chain.from_iterable(listed), str)


def _finding_columns(findings: dict[str, list[Finding]]) -> tuple[tuple[str, ...], tuple[int, ...], tuple[Any, ...]]:
    """``findings`` as stored: the modules that have any, how many each has, and every
    finding's values a field at a time, in the modules' order. Equal details and
    fields (a word's, a chain's links) are made one object here: pickled once."""
    listed = tuple(module for module, found in findings.items() if found)
    every = list(chain.from_iterable(map(findings.__getitem__, listed)))
    columns = list(zip(*map(_finding_values, every), strict=True)) or [()] * len(_FINDING_COLUMNS)
    shared: dict[object, object] = {}
    for at in _SHARED_COLUMNS:
        columns[at] = tuple(map(shared.setdefault, columns[at], columns[at]))
    return listed, tuple(map(len, map(findings.__getitem__, listed))), tuple(columns)


def _findings(raw: object, covered: list[str]) -> dict[str, list[Finding]] | None:
    """The stored findings (:func:`_finding_columns`) as findings by covered module; None
    when they are not what :meth:`ResultStore.save` writes. Checked a column at a time
    (one look at the types of every finding's paths, of their lines, ...)."""
    if not (type(raw) is tuple and len(raw) == 3 and all(type(part) is tuple for part in raw)):
        return None
    modules, counts, columns = raw
    if not (_only(modules, str) and len(set(modules)) == len(modules) and set(modules) <= set(covered)):
        return None
    if not (len(counts) == len(modules) and _only(counts, int) and min(counts, default=1) > 0):
        return None
    if not (
        len(columns) == len(_FINDING_COLUMNS) and _only(columns, tuple) and set(map(len, columns)) <= {sum(counts)}
    ):
        return None
    if not all(_only(column, kind) for column, kind in zip(columns, _FINDING_COLUMNS, strict=True)):
        return None
    # Equal details and fields are one object (see _finding_columns): each looked at once.
    details, pairs = chain.from_iterable(_distinct(columns[8])), list(chain.from_iterable(_distinct(columns[11])))
    if not (_only(details, str) and _only(pairs, tuple) and set(map(len, pairs)) <= {2}):
        return None
    if not _only(chain.from_iterable(pairs), str):
        return None
    # Built as the unpickler rebuilds an object, its attributes set at once: thousands
    # are read back, and a frozen class's ``__init__`` sets each field through
    # ``object.__setattr__``.
    found: list[Finding] = list(map(_new, repeat(Finding, sum(counts))))
    deque(map(_set, found, repeat("__dict__"), map(_attributes, *columns)), maxlen=0)
    bounds = list(accumulate(counts, initial=0))  # where each module's findings begin, then their end
    return dict(zip(modules, map(found.__getitem__, map(slice, bounds, bounds[1:])), strict=True))


_Value = TypeVar("_Value")


def _distinct(values: Sequence[_Value]) -> Iterable[_Value]:
    """Each object of ``values`` once (not each equal value: told apart in C, by identity)."""
    return dict(zip(map(id, values), values, strict=True)).values()


_new = object.__new__
_set = object.__setattr__


def _attributes(
    path: str,
    line: int,
    col: int,
    code: str,
    message: str,
    symbol: str,
    fingerprint: str,
    contract: str,
    details: tuple[str, ...],
    end_line: int,
    end_col: int,
    fields: tuple[tuple[str, str], ...],
) -> dict[str, Any]:
    """A finding's attributes from its values, by name: a display of the names, which
    builds the dictionary in one step (``dict(zip(...))`` costs it twice as much).
    The names are Finding's fields in order (a test holds them so)."""
    return {
        "path": path,
        "line": line,
        "col": col,
        "code": code,
        "message": message,
        "symbol": symbol,
        "fingerprint": fingerprint,
        "contract": contract,
        "details": details,
        "end_line": end_line,
        "end_col": end_col,
        "fields": fields,
    }


# The module table (names, stamps, digests) is the same for every contract a run
# stores: written once, in a file named by the digest of its bytes, which each
# contract's results name. It is written whole, or as the name of a whole table (its
# base) and the rows that differ from it (after an edit, the edited files' rows): a
# table on a base is never the base of another. The tables last written or read are
# kept (a run touches the one it reads, and its base), so that runs storing other
# contracts (another configuration in the same cache directory) do not take each
# other's tables away unless fourteen runs on changed files come between.
TABLE_FORMAT = "domain-fence module table 3"  # 3: stamps packed; 2: a table may be written on a base
KEPT_TABLES = 16
ROWS_ON_BASE = 16  # a table is written on its base while at most one row in this many differs


def content_name(data: bytes) -> str:
    """The name of a file holding ``data``: a digest of its bytes, as 32 hex digits.
    SHA-256's: where the processor has SHA instructions (AMD since 2017, Intel since
    2019, ARMv8) it takes half BLAKE2b's time; elsewhere about twice it, under a
    millisecond either way for the 450 kB table an edited run checks."""
    return hashlib.sha256(data).hexdigest()[:32]


# Tables this process read (their bytes checked) or wrote, by file, with their base's
# file (None: whole): the last few only, as a language server writes one after each edit.
_tables: dict[Path, tuple[Table, Path | None]] = {}
_last_table: list[Path] = []  # the file of the table this process last read or wrote

# The rows of a table that differ from its base's: their positions, stamps and digests.
Rows = tuple[tuple[int, ...], tuple[StampKey | None, ...], tuple[bytes | None, ...]]
# A stamp as written: size, modification and change times, inode. Thousands of them
# are read back as numbers made in C, which need no look at each one's type.
_STAMP = struct.Struct("<QqqQ")
_NO_STAMP = bytes(_STAMP.size)


def _save_table(directory: Path, columns: Table) -> str:
    """The name of the table holding ``columns`` in ``directory``, written unless this
    process has read it (its bytes checked) or written it: on the base of the table it
    last read or wrote there when few rows differ from the base's, else whole."""
    last = _last_table_in(directory)
    if last is not None and _tables[last][0] == columns and _still_there(last):
        return _table_name(last)
    on_base = _on_base(directory, columns)
    data: tuple[str, str | None, object]
    if on_base is None:
        base, data = None, (TABLE_FORMAT, None, _written(columns))
    else:
        base, rows = on_base
        data = (TABLE_FORMAT, _table_name(base), _written(rows))
    encoded = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    name = content_name(encoded)  # of the very bytes written
    path = directory / f"modules-{name}.pickle"
    if not _still_there(path):
        write_atomically(path, encoded)
        _forget_all_but_newest(directory.glob("modules-*.pickle"), path, KEPT_TABLES, base)
        _remember_table(path, columns, base)
    _last_table[:] = [path]
    return name


def _on_base(directory: Path, columns: Table) -> tuple[Path, Rows] | None:
    """The base to write ``columns`` on (that of the table this process last read or
    wrote in ``directory``, still there) and the rows that differ from it; None when
    there is none, or it has other modules, or too many rows differ."""
    last = _last_table_in(directory)
    if last is None:
        return None
    base = _tables[last][1] or last
    if base not in _tables:
        return None
    whole = _tables[base][0]
    names, stamps, digests = columns
    if names != whole[0]:
        return None
    # Compared in C: thousands of rows, a few of which differ.
    differing = map(operator.or_, map(operator.ne, stamps, whole[1]), map(operator.ne, digests, whole[2]))
    at = tuple(compress(range(len(names)), differing))
    if len(at) * ROWS_ON_BASE > len(names) or not _touched(base):
        return None
    return base, (at, tuple(map(stamps.__getitem__, at)), tuple(map(digests.__getitem__, at)))


def _last_table_in(directory: Path) -> Path | None:
    """The table this process last read or wrote, when in ``directory`` and remembered."""
    last = _last_table[0] if _last_table else None
    return last if last is not None and last.parent == directory and last in _tables else None


def _table_name(path: Path) -> str:
    return path.name[len("modules-") : -len(".pickle")]


def _still_there(path: Path) -> bool:
    """``path`` is a table this process read or wrote, still there with its base: both
    made the newest."""
    known = _tables.get(path)
    return known is not None and _touched(path) and (known[1] is None or _touched(known[1]))


def _touched(path: Path) -> bool:
    """Made the newest of its kind (so the last to be forgotten); False when gone. A file
    that cannot be touched (a read-only cache) is there all the same."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _remember_table(path: Path, columns: Table, base: Path | None) -> None:
    if base in _tables:  # remembered as long as the table on it
        _tables[base] = _tables.pop(base)
    _tables.pop(path, None)
    _tables[path] = (columns, base)
    while len(_tables) > KEPT_TABLES:
        del _tables[next(iter(_tables))]


def _forget_all_but_newest(paths: Iterable[Path], new: Path, kept: int, base: Path | None = None) -> None:
    """Forget all but the ``kept`` newest of ``paths`` (``new``, one of them, and the
    base it is written on, whatever their times' ticks: a cache whose files cannot be
    touched keeps a base's first time)."""
    older = sorted((path for path in paths if path not in (new, base)), key=_modified, reverse=True)
    for old in older[kept - 1 - (base is not None) :]:
        with suppress(OSError):
            old.unlink()


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # gone meanwhile: another process forgot it
        return 0


def _load_table(directory: Path, name: object, whole: bool = False) -> Table | None:
    """The columns (names, stamps, digests) of the table ``name``; None when it is not
    there, or its bytes are not those it is named after, or it is no table, or it is
    written on a base that is not there or not a whole table (or ``whole`` is asked)."""
    if not _hex_digits(name, 32):
        return None
    path = directory / f"modules-{name}.pickle"
    if path in _tables:
        columns, base = _tables[path]
        return columns if not (whole and base) and _still_there(path) else None
    encoded = path.read_bytes()
    if content_name(encoded) != name:
        return None
    data = plain_loads(encoded)
    if not (isinstance(data, tuple) and len(data) == 3 and data[0] == TABLE_FORMAT):
        return None
    base_name, rows = data[1:]
    if base_name is None:
        found, base = _table_of_columns(rows), None
    elif whole:
        return None
    else:
        on = _load_table(directory, base_name, whole=True)
        found = None if on is None else _table_on(on, rows)
        base = directory / f"modules-{base_name}.pickle"
    if found is None:
        return None
    _touched(path)
    _remember_table(path, found, base)
    _last_table[:] = [path]
    return found


def _table_of_columns(columns: object) -> Table | None:
    """A table's columns (names, stamps, digests) as written; None when they are not."""
    if not (isinstance(columns, tuple) and len(columns) == 3 and all(type(c) is tuple for c in columns)):
        return None
    names, packed, digests = columns
    stamps = _read_stamps(packed, len(names))
    if stamps is None or len(digests) != len(names):
        return None
    if not (_only(names, str) and _only(digests, bytes, type(None))):
        return None
    if len(set(names)) != len(names):
        return None
    return (names, stamps, digests)


def _table_on(base: Table, rows: object) -> Table | None:
    """``base``'s columns with ``rows`` (positions, stamps, digests) put in; None when
    they are not rows of it as written."""
    if not (isinstance(rows, tuple) and len(rows) == 3 and all(type(c) is tuple for c in rows)):
        return None
    at, packed, digests = rows
    stamps = _read_stamps(packed, len(at))
    if not (stamps is not None and len(at) == len(digests) and _only(at, int) and _only(digests, bytes, type(None))):
        return None
    if not (len(set(at)) == len(at) and all(0 <= position < len(base[0]) for position in at)):
        return None
    new_stamps, new_digests = list(base[1]), list(base[2])
    for position, stamp, digest in zip(at, stamps, digests, strict=True):
        new_stamps[position], new_digests[position] = stamp, digest
    return (base[0], tuple(new_stamps), tuple(new_digests))


def _written(columns: Table | Rows) -> tuple[tuple[Any, ...], tuple[bytes, tuple[int, ...]], tuple[bytes | None, ...]]:
    """A table's columns, or rows, as written: the stamps packed (:func:`_read_stamps`)."""
    first, stamps, digests = columns
    try:
        packed = _packed_stamps(stamps)
    except struct.error:  # a stamp the numbers cannot hold is kept as none: its digest decides
        stamps = tuple(stamp if stamp is None or packable(stamp) else None for stamp in stamps)
        packed = _packed_stamps(stamps)
    unstamped = tuple(compress(range(len(stamps)), map(operator.is_, stamps, repeat(None))))
    return first, (packed, unstamped), digests


def _packed_stamps(stamps: Sequence[StampKey | None]) -> bytes:
    return b"".join([_NO_STAMP if stamp is None else _STAMP.pack(*stamp) for stamp in stamps])


def _read_stamps(written: object, count: int) -> tuple[StampKey | None, ...] | None:
    """``count`` stamps as :func:`_written` packs them (the positions of those that are
    None beside them); None when they are not."""
    if not (type(written) is tuple and len(written) == 2 and type(written[0]) is bytes):
        return None
    packed, unstamped = written
    if not (len(packed) == count * _STAMP.size and type(unstamped) is tuple and _only(unstamped, int)):
        return None
    if not all(0 <= at < count for at in unstamped):
        return None
    stamps: list[StampKey | None] = list(_STAMP.iter_unpack(packed))
    for at in unstamped:
        stamps[at] = None
    return tuple(stamps)


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


_new_tuple = tuple.__new__


def extra_of(plain: object) -> dict[str, Any]:
    """:func:`plain_extra`'s data read back (ValueError when it is not), checked a
    column at a time: a boundary keeps hundreds of chains."""
    if not (isinstance(plain, tuple) and len(plain) == 2 and isinstance(plain[0], tuple)):
        raise ValueError("not a report's extra")
    items = plain[0]
    if not (_only(items, tuple) and set(map(len, items)) <= {2}):
        raise ValueError("not a chain")
    shown, links_of = zip(*items, strict=True) if items else ((), ())
    if not (_only(shown, str) and _only(links_of, tuple) and all(links_of)):
        raise ValueError("not a chain")
    links = list(chain.from_iterable(links_of))
    if not (_only(links, tuple) and set(map(len, links)) <= {3}):
        raise ValueError("not a link")
    importers, imported, lines = zip(*links, strict=True) if links else ((), (), ())
    if not (_only(importers, str) and _only(imported, str) and _only(lines, tuple)):
        raise ValueError("not a link")
    if not _only(chain.from_iterable(lines), int):
        raise ValueError("not a link")
    # Each link's values are a Link's fields, in order: made as a tuple is, in C.
    chains = {fingerprint: tuple(map(_new_tuple, repeat(Link), found)) for fingerprint, found in items}
    extra: dict[str, Any] = {"chains": chains}
    domains = plain[1]
    if domains is not None:
        if not (isinstance(domains, tuple) and len(domains) == 2 and all(map(_strings, domains))):
            raise ValueError("not domains")
        extra["domains"] = Domains(domains[0], domains[1])
    return extra


def _strings(values: object) -> bool:
    return isinstance(values, tuple) and all(isinstance(value, str) for value in values)


class Digests:
    """The digests of the project's files, each taken once per run, against the
    stamps seen when the run began (so that a file changing while it runs is never
    recorded as the version its findings were computed from)."""

    def __init__(self, paths: Mapping[str, str], began: int | None = None) -> None:
        self.began = time.time_ns() if began is None else began  # before the first stamp was taken
        self.read = ReadLedger()  # opened before anything reads a file for this run
        self._paths = paths
        self._modules = {module: path for path, module in paths.items()}
        self._stamps: dict[str, StampKey | None] = {}
        self._settled: dict[str, StampKey] = {}  # the stamps of the files that had settled when the run began
        self._digests: dict[str, bytes | None] = {}
        self._changed: list[tuple[Table, frozenset[str]]] = []  # the last table asked of, and its answer
        self._table: Table | None = None  # the last table made (see :meth:`table`)

    def snapshot(self, modules: Iterable[str], taken: Mapping[str, StampKey] | None = None) -> None:
        """The stamp of each module's file now, before anything reads it; ``taken``: the
        stamps of some, taken a moment ago and since read by nothing (the discovery's)."""
        taken = taken or {}
        stamps, paths = self._stamps, self._modules
        settled_before = self.began - RACY_WINDOW_NS  # a file last changed before it had settled
        for module in modules:
            if module in stamps:
                continue
            stamp = taken.get(module)
            if stamp is None:
                path = paths.get(module)
                if path is not None and path.endswith(".py"):
                    stamp = file_stamp(path)
            stamps[module] = stamp
            if stamp is not None and stamp[1] < settled_before and stamp[2] < settled_before:
                self._settled[module] = stamp

    def changed(self, known: Table) -> frozenset[str]:
        """The modules of ``known`` whose file's bytes are not the digest it records
        (or are unknown): asked by every contract of the table they share, answered once."""
        if self._changed and self._changed[0][0] is known:
            return self._changed[0][1]
        names, stamps, digests = known
        self._digest_all(names, stamps, digests)
        # Found in C, not module by module: thousands of them.
        differing = compress(names, map(operator.ne, map(self._digests.__getitem__, names), digests))
        found = frozenset(chain(differing, compress(names, map(operator.is_, digests, repeat(None)))))
        self._changed[:] = [(known, found)]
        return found

    def table(self, modules: Iterable[str], known: Table | None) -> Table:
        """What to record of ``modules`` after the run: each one's digest, and its stamp
        only when its file had settled before the run began (else its digest is taken
        again next time); ``known``: the table an earlier run recorded, whose digests
        stand for the files whose stamps are the ones it records."""
        names = tuple(modules)
        if self._table is not None and self._table[0] == names:
            return self._table
        if known is not None:
            self._digest_all(*known)
        self._digest_all(names)
        self._table = (names, tuple(map(self._settled.get, names)), tuple(map(self._digests.__getitem__, names)))
        return self._table

    def _digest_all(
        self,
        names: tuple[str, ...],
        stamps: tuple[StampKey | None, ...] | None = None,
        digests: tuple[bytes | None, ...] | None = None,
    ) -> None:
        """Take the digest of each of ``names`` not digested yet: the one recorded in
        ``digests`` where its stamp is the one recorded in ``stamps``, else from the
        file's bytes (all hashed at once, see :func:`~..source.factcache.hash_ahead`);
        a namespace directory has the empty digest, a file that cannot be read None."""
        todo = [at for at, name in enumerate(names) if name not in self._digests]
        self.snapshot(filterfalse(self._stamps.__contains__, map(names.__getitem__, todo)))  # most stamped already
        now, files = self._stamps, []
        for at in todo:
            name = names[at]
            stamp = now[name]
            if stamp is None:  # no file, or one that cannot be read (only a .py file is stamped)
                path = self._modules.get(name)
                self._digests[name] = b"" if path is not None and not path.endswith(".py") else None
            elif stamps is not None and digests is not None and stamp == stamps[at] and digests[at] is not None:
                self._digests[name] = digests[at]
            else:
                files.append((name, stamp))
        hash_ahead((self._modules[name], stamp) for name, stamp in files)
        for name, stamp in files:
            self._digests[name] = stamped_digest(self._modules[name], stamp)

    def unchanged(self) -> bool:
        """Every file the run read is as it was when the run began: what was found is of
        these versions. The files it did not read were known by the digests their stamps
        stand for, and everything about them came from what is kept under those digests;
        when the graph builder read files of its own, or a file was read by a name that is
        not a module's, every file is looked at."""
        paths = self._modules
        checked: Iterable[tuple[str, StampKey | None]] = self._stamps.items()
        if not self.read.unseen:
            # Copied at once (in C): a hashing thread of a graph build that failed may
            # still be noting what it reads.
            read = [self._paths.get(os.path.abspath(path)) for path in tuple(self.read.paths)]
            if None not in read:
                checked = [(module, self._stamps.get(module)) for module in read if module is not None]
        for module, before in checked:
            if before is None or module not in paths:
                continue
            try:  # as file_stamp, inline: once per file of the project
                status = os.stat(paths[module])
            except OSError:
                return False
            if (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino) != before:
                return False
        return True

"""The run cache: ``domain-fence check`` run again on unchanged inputs prints the
report it printed last time, without reading the configuration, the sources or the
import graph.

Replaying is only right when *every* input is unchanged, so the key holds them all:

- what was asked: the directory, ``--config`` as given, the format and the render
  options (including the ``GITHUB_WORKSPACE`` they depend on, and for SARIF the git
  checkout's top), and the file size limit (``DOMAIN_FENCE_MAX_FILE_SIZE``);
- the configuration: the bytes of every file ``lint-imports`` would look at to find
  it (or that it is absent), and of every baseline file the contracts name (once it
  has settled, its size, modification and change times and inode stand for them, as
  a Python file's do: a baseline of thousands of entries costs a run more to hash
  than the tree costs to walk);
- the code: every entry below the root packages' directories (a new file, a removed
  one, a renamed one), and the size, modification and change times and inode of every
  ``.py`` file;
- the tools: the size and modification time of every file of domain-fence,
  import-linter, grimp and rich (an upgrade, or an edit of a checkout), and the
  Python version.

A run is stored under the key its inputs had before it ran: a file changed while it
ran has another stamp since (a new change time, which no tool sets back), so the
next run's key differs and the report is never replayed. A run is stored only when
no file is so recent that it could change again unseen within the same clock tick,
when every contract type is one of import-linter's or ours (a
third-party contract may read anything), and when no symlinked directory is in the
tree (its target could change without the tree showing it). Entries are JSON: a
planted one can at worst print a wrong report, and only with a matching key.

Beside the report, a run records the settings it read from the configuration
(:mod:`.recorded`) under a key of its own, the *setup*: the Python version, the
configuration's files and the tools. A run that cannot be replayed because sources
changed, while its setup is as recorded, starts from those settings without reading
the configuration again. A tree's names and kinds are digested apart from its stamps, and
that digest is left beside the listings the walk shares: the discovery of the modules
reuses what the last run found while it is the same (see
:func:`~..source.modules.discovered`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import struct
import sys
from collections.abc import Iterable
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from domain_fence.core.source.cachedir import make_cache_directory, sealed, unsealed, write_atomically
from domain_fence.core.source.files import StampKey, file_stamp, read_regular_file, real_path, stamp_of
from domain_fence.core.source.listing import COMPILED_DIRECTORY, listed_since, listing, walked
from domain_fence.core.source.packages import ModuleNotFound, default_search_paths, locate_package

RUN_CACHE_VERSION = 6  # 6: a tree's stamps digested together, after its listings
CONFIG_FILES = ("setup.cfg", ".importlinter", "pyproject.toml")  # what lint-imports looks at, in order
TOOLS = ("domain_fence", "importlinter", "grimp", "rich")
KEPT_RUNS = 32  # reports kept, one per invocation (directory, options); the oldest go first
RACY_WINDOW_NS = 2_000_000_000  # a file this recent may change again within its mtime tick


def session_section(config_path: Path) -> str:
    """The section of a configuration file that holds import-linter's session options,
    as the file writes it: messages name the one the user sees."""
    return "[tool.importlinter]" if config_path.suffix == ".toml" else "[importlinter]"


# Named tuples rather than dataclasses: a replay creates these classes in every run,
# and a named tuple costs a fraction of a frozen dataclass to create.


class Invocation(NamedTuple):
    """What was asked: two runs with equal invocations and inputs print the same."""

    directory: str  # the current directory
    config: str | None  # --config, as given
    format: str
    options: tuple[tuple[str, str], ...]  # the render options, as text

    @property
    def project_root(self) -> Path:
        """The configuration's directory, found without reading it."""
        if self.config is None:
            return Path(self.directory)
        given = Path(self.directory, self.config)
        return given if given.is_dir() else given.parent

    def config_candidates(self) -> list[str]:
        """The files whose content decides which configuration is read, and how."""
        # Links resolved as far as they resolve: a loop is the configuration's reading to report.
        if self.config is not None and not Path(self.directory, self.config).is_dir():
            return [str(real_path(Path(self.directory, self.config)))]
        root = real_path(self.project_root)
        return [str(root / name) for name in CONFIG_FILES]

    def file_name(self) -> str:
        text = json.dumps(self._asdict(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json"


class Inputs(NamedTuple):
    """What a run read, named so that a later run can check it is unchanged."""

    config_candidates: tuple[str, ...]
    baselines: tuple[str, ...]  # as the configuration writes them (not resolved)
    root_packages: tuple[str, ...]
    project_root: str


class Replay(NamedTuple):
    text: str
    status: int
    inputs: Inputs  # what the run replayed read


class InputDigest(NamedTuple):
    """Digests of a run's inputs, each None when they cannot be vouched for (a file
    modified a moment ago, a symlinked directory)."""

    setup: str | None  # the Python version, the configuration's files, the tools
    whole: str | None  # the setup, the baselines and the code: every input
    configuration: bytes = b""  # the configuration's files alone (configuration_digest)


class RunCache:
    """Reports of earlier runs, under ``directory``/runs, one per invocation."""

    def __init__(self, directory: Path, invocation: Invocation) -> None:
        self.path = Path(directory) / "runs" / invocation.file_name()
        self.invocation = invocation
        # The inputs a replay looked at and their digest then: a run that follows the
        # miss, reading the same inputs, starts from it instead of walking them again.
        self.looked_at: tuple[Inputs, InputDigest] | None = None
        # The settings the missed run recorded, when its setup is unchanged (see
        # :mod:`.recorded`): JSON as stored, read by whoever asks.
        self.recorded: object = None

    def replay(self) -> Replay | None:
        """The stored report, when every input is as it was; else None."""
        try:
            entry = json.loads(unsealed(self.path.read_bytes()) or b"")
            inputs = Inputs(
                tuple(entry["inputs"]["config_candidates"]),
                tuple(entry["inputs"]["baselines"]),
                tuple(entry["inputs"]["root_packages"]),
                entry["inputs"]["project_root"],
            )
            fields = (entry["version"], entry["invocation"], entry["digest"], entry["text"], entry["status"])
            setup, recorded = entry.get("setup"), entry.get("settings")
        except Exception:  # noqa: BLE001 -- missing, unreadable or malformed: a miss
            return None
        version, invocation, digest, text, status = fields
        if version != RUN_CACHE_VERSION or invocation != _as_json(self.invocation):
            return None
        # (No digest: a report that could not be vouched for, kept for its settings.)
        if not (isinstance(text, str) and isinstance(status, int) and isinstance(digest, str | None)):
            return None
        if not all(isinstance(item, str) for group in inputs for item in _items(group)):
            return None
        current = input_digest(inputs)
        self.looked_at = (inputs, current)
        if current.whole is not None and current.whole == digest:
            return Replay(text, status, inputs)
        if current.setup is not None and current.setup == setup:
            self.recorded = recorded
        return None

    def store(
        self, inputs: Inputs, digest: InputDigest, text: str, status: int, settings: dict[str, Any] | None = None
    ) -> None:
        """Keep the report of a run whose inputs had ``digest`` before it ran, with
        the settings it read (see :mod:`.recorded`)."""
        entry = {
            "version": RUN_CACHE_VERSION,
            "invocation": _as_json(self.invocation),
            "inputs": _as_json(inputs),
            "digest": digest.whole,
            "text": text,
            "status": status,
            "setup": digest.setup,
            "settings": settings,
        }
        try:
            make_cache_directory(self.path.parent.parent)  # never a cache directory without its markers
            self.path.parent.mkdir(exist_ok=True)
            write_atomically(self.path, sealed(json.dumps(entry).encode("utf-8")))
            self._forget_old_runs()
        except Exception:  # noqa: BLE001 -- an unwritable cache only costs the next run its speed
            return

    def _forget_old_runs(self) -> None:
        stored = sorted(self.path.parent.glob("*.json"), key=lambda path: path.stat().st_mtime_ns, reverse=True)
        for old in stored[KEPT_RUNS:]:
            old.unlink(missing_ok=True)


def input_digest(inputs: Inputs) -> InputDigest:
    """Digests of everything ``inputs`` names, and of the tools: the setup alone, and
    all of it (see :class:`InputDigest`)."""
    configuration = configuration_digest(inputs.config_candidates)
    setup = hashlib.sha256(f"{RUN_CACHE_VERSION}\0{sys.version}\0".encode() + configuration)
    tools: list[Path] = []
    for name in TOOLS:
        spec = importlib.util.find_spec(name) if name not in sys.modules else sys.modules[name].__spec__
        tools += [Path(location) for location in (spec.submodule_search_locations or [])] if spec else []
    setup_digest = _trees_digest(tools, setup)
    if setup_digest is None:
        return InputDigest(None, None, configuration)
    whole = hashlib.sha256(f"setup {setup_digest}\0".encode())
    for path in inputs.baselines:  # as written: the file read, and where a link sends it
        whole.update(_baseline_digest(path))
        whole.update(f"resolved {os.path.realpath(path)}\0".encode("utf-8", "surrogateescape"))
    root = Path(inputs.project_root)
    search_paths = default_search_paths(root)
    directories: list[Path] = []
    for package in inputs.root_packages:
        try:
            found = locate_package(package, search_paths)
        except ModuleNotFound:
            whole.update(f"missing {package}\0".encode())
            continue
        directories += found
    return InputDigest(setup_digest, _trees_digest(directories, whole), configuration)


def configuration_state(config_candidates: Iterable[str]) -> tuple[bytes, tuple[StampKey | None, ...]]:
    """The configuration's files' :func:`configuration_digest` and stamps: equal before
    and after a read, that read saw this version (a change and its undoing meanwhile
    leave new stamps)."""
    candidates = tuple(config_candidates)
    return configuration_digest(candidates), tuple(map(file_stamp, candidates))


def configuration_digest(config_candidates: Iterable[str]) -> bytes:
    """A digest of the bytes of the configuration's files (or why each cannot be read):
    a run that read the configuration after its inputs' digest was taken checks it
    read what that digest stands for."""
    digest = hashlib.sha256()
    for path in config_candidates:
        digest.update(_file_content(path))
    return digest.digest()


def _trees_digest(directories: list[Path], digest: hashlib._Hash) -> str | None:
    """``digest`` fed every entry below ``directories``; None when they hold a symlinked
    directory or a file modified a moment ago."""
    newest = 0
    for directory in directories:
        digest.update(f"tree {directory}\0".encode("utf-8", "surrogateescape"))
        walked = _walk(directory, digest)
        if walked is None:
            return None
        newest = max(newest, walked)
    if listed_since() - newest < RACY_WINDOW_NS:  # as old as the listings it read
        return None
    return digest.hexdigest()


def _walk(top: Path, digest: hashlib._Hash) -> int | None:
    """Feed every entry below ``top`` to ``digest``: names, kinds, and the size,
    modification and change times and inode of Python files. The newest modification
    time, or None when a symlinked directory is met. The names and kinds are digested on
    their own, and that digest is kept in the shared listings with the entries stamped
    (see :func:`~..source.listing.walked`)."""
    names = hashlib.sha256()
    stamped: list[os.DirEntry[str]] = []  # in the walk's order, each status kept by its entry
    pending = [str(top)]
    while pending:
        directory = pending.pop()
        # In the listing's order (by name): the records need no sorting to be the same
        # for the same tree.
        records, below = [directory], []
        record = records.append  # bound once per directory, called for each of thousands of entries
        compiled = directory.endswith(_IN_COMPILED)  # walked only where grimp walks it
        try:
            for entry in listing(directory):
                name = entry.name
                # grimp passes a __pycache__ by inside a package, unless it holds an
                # __init__.py of any kind (a broken link say); elsewhere it looks for modules.
                if (
                    name == COMPILED_DIRECTORY
                    and _holds_init(records)
                    and not os.path.lexists(os.path.join(entry.path, "__init__.py"))
                ):
                    continue
                if compiled and name.endswith(".pyc"):
                    continue  # written whenever Python compiles: no module, and no change of the tree
                # A link is asked first: for any other entry, is_dir() (no keyword to
                # parse) tells what is_dir(follow_symlinks=False) would.
                linked = entry.is_symlink()
                if not linked and entry.is_dir():
                    record("d " + name)
                    below.append(entry.path)
                    continue
                # Following a link may fail (a link to nothing, a loop of links): the
                # entry is recorded with its error, and the entries after it still count.
                try:
                    if linked and entry.is_dir():
                        return None  # its target may change while the tree does not
                    if name.endswith(_STAMPED):
                        entry.stat()
                        record("p " + name)
                        stamped.append(entry)
                    else:
                        record("f " + name)
                except OSError as error:
                    record(f"x {name} {error.errno}")
        except OSError as error:
            records.append(f"unreadable {error.errno}")
        pending += reversed(below)  # depth first, in name order
        listed = "\0".join(records).encode("utf-8", "surrogateescape")
        names.update(len(listed).to_bytes(8, "little") + listed)
    # The stamps of the whole tree at once, in C (the names tell which directory holds
    # each). The change time and inode too: a file rewritten with its size and
    # modification time kept (or set back) is a change all the same.
    statuses = list(map(os.DirEntry.stat, stamped))
    digest.update(_packed(list(chain.from_iterable(map(stamp_of, statuses)))))
    names_below = names.hexdigest()
    digest.update(names_below.encode())
    walked()[str(top)] = (names_below, stamped)
    return max(map(_MODIFIED, statuses), default=0)


_MODIFIED = attrgetter("st_mtime_ns")
_IN_COMPILED = os.sep + COMPILED_DIRECTORY  # the end of a __pycache__'s path


def _holds_init(records: list[str]) -> bool:
    """Whether the directory whose entries ``records`` are so far (in name order,
    ``__init__.py`` before ``__pycache__``) holds an ``__init__.py`` that is no directory."""
    return "p __init__.py" in records or any(record.startswith("x __init__.py ") for record in records)


_STAMPED = (".py", ".so", ".pyd")  # the files whose stamps are digested, not only their names


def _packed(numbers: list[int]) -> bytes:
    """``numbers`` as bytes, after their count: eight bytes each (written out in decimal,
    they cost a walk of thousands of files a third of its time), or in decimal when one
    does not fit in them."""
    try:
        packed = struct.pack(f"<{len(numbers)}q", *numbers)
    except struct.error:
        packed = " ".join(map(str, numbers)).encode()
    return len(packed).to_bytes(8, "little") + packed


def _baseline_digest(path: str) -> bytes:
    """What stands for the bytes of the baseline at ``path``: its stamp once it has
    settled (a rewrite shows in its change time or inode), else its bytes (it may
    change again unseen within its times' tick; and a system that gives no inode may
    give no change time either)."""
    try:
        status = os.stat(path)
    except OSError:
        return _file_content(path)
    settled_before = listed_since() - RACY_WINDOW_NS
    if not (
        stat.S_ISREG(status.st_mode) and status.st_ino and max(status.st_mtime_ns, status.st_ctime_ns) < settled_before
    ):
        return _file_content(path)
    stamp = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
    return f"stamp {path} ".encode("utf-8", "surrogateescape") + _packed(list(stamp))


def _file_content(path: str) -> bytes:
    try:
        data = read_regular_file(path)  # a FIFO would block
    except FileNotFoundError:
        return f"absent {path}\0".encode("utf-8", "surrogateescape")
    except OSError as error:
        return f"unreadable {path} {error.errno}\0".encode("utf-8", "surrogateescape")
    return f"file {path} ".encode("utf-8", "surrogateescape") + hashlib.sha256(data).digest()


def _as_json(value: Invocation | Inputs) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(value._asdict()))
    return loaded


def _items(group: object) -> list[object] | tuple[object, ...]:
    return group if isinstance(group, (list, tuple)) else [group]

"""The baseline: a ratchet of accepted violations.

One JSON file, sorted and stable, may hold entries of every contract. Each entry is a
contract id, a line-independent fingerprint and a human description. A finding whose
fingerprint is recorded for its contract passes; an entry matching nothing is stale.

A large baseline costs a check more to parse than to use, and rarely changes: with a
cache directory, its entries are kept there as plain columns under the digest of the
file's bytes (:func:`load_baseline`), and read back instead while the bytes are the same.
"""

import hashlib
import json
import os
import pickle
import re
import stat
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice, repeat, starmap
from operator import itemgetter, lt
from pathlib import Path
from typing import Any, NamedTuple

from domain_fence.core.model.findings import FINDING_ORDER, Finding
from domain_fence.core.model.text import one_line, without_line_references
from domain_fence.core.source.cachedir import sealed, unsealed, write_atomically
from domain_fence.core.source.files import StampKey, file_stamp, read_regular_file
from domain_fence.core.source.plainpickle import plain_loads

FORMAT = "domain-fence-baseline"
VERSION = 1
# The entries parse_baseline makes of a file, as the cache keeps them: bump when they change.
PARSED_FORMAT = "domain-fence parsed baseline 1"
RACY_WINDOW_NS = 2_000_000_000  # a file this recent may change again within its timestamp's tick


class BaselineError(Exception):
    """The baseline file cannot be used; the message is one line naming the file."""


class BaselineEntry(NamedTuple):
    """One recorded finding: its contract, its fingerprint and its description."""

    contract: str
    fingerprint: str
    description: str = ""


def entry_of(contract: str, finding: Finding) -> BaselineEntry:
    """The entry recording ``finding``. Its description is the finding's code and message
    without the lines the message names (DOM105's ``self.target (l.40)``): like the
    fingerprint it stays true when a line is inserted above, so the file is not
    rewritten, nor do two branches conflict, over a line number."""
    return BaselineEntry(contract, finding.fingerprint, f"{finding.code} {without_line_references(finding.message)}")


_new_tuple = tuple.__new__


@dataclass(frozen=True)
class Baseline:
    """A contract's baseline file and the entries it records."""

    path: Path
    entries: tuple[BaselineEntry, ...] = ()
    # (contract, fingerprint) of the entries the file held more than once (a merge that
    # kept both sides, a hand edit): known when the file is parsed, as recording reads it.
    repeated: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False)
    # contract -> its fingerprints: asked once per file checked (flake8, the editor)
    _by_contract: dict[str, frozenset[str]] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        by_contract: dict[str, set[str]] = {}
        for entry in self.entries:
            by_contract.setdefault(entry.contract, set()).add(entry.fingerprint)
        object.__setattr__(self, "_by_contract", {c: frozenset(f) for c, f in by_contract.items()})

    def fingerprints(self, contract: str) -> frozenset[str]:
        return self._by_contract.get(contract, frozenset())

    def contracts(self) -> frozenset[str]:
        """The contracts it records entries of."""
        return frozenset(self._by_contract)

    def replace_contract(self, contract: str, entries: Iterable[BaselineEntry]) -> "Baseline":
        """A baseline whose entries for ``contract`` are exactly ``entries``."""
        kept = [e for e in self.entries if e.contract != contract]
        return Baseline(self.path, tuple(sorted(set(kept) | set(entries))))


def load_baseline(path: Path, cache: Path | None = None) -> Baseline:
    """Read ``path``; a missing file is an empty baseline, anything unusable an error.
    With a ``cache`` directory, the entries parsed from the same bytes before are read
    back from it (see :func:`_kept_baseline`), and those parsed now kept there, when
    it is a directory already (made, and marked as one, by the facts' cache)."""
    kept_at = _parsed_file(cache, path) if cache is not None and cache.is_dir() else None
    kept = _kept_baseline(kept_at) if kept_at is not None else None
    stamp = file_stamp(path) if kept_at is not None else None
    if kept is not None and stamp is not None and kept[1] == stamp:
        return Baseline(path, kept[2])
    began = time.time_ns()
    try:
        data = read_regular_file(path)
    except FileNotFoundError:
        return Baseline(path)
    except OSError as error:
        raise BaselineError(f"{path}: cannot read baseline: {error.strerror or error}") from None
    if kept_at is None:
        return parse_baseline(data, path)
    digest = hashlib.blake2b(data, digest_size=16).digest()
    entries = kept[2] if kept is not None and kept[0] == digest else parse_baseline(data, path).entries
    # A system that gives no inode may give no change time either: there the bytes decide.
    settled = stamp is not None and stamp[3] != 0 and max(stamp[1], stamp[2]) < began - RACY_WINDOW_NS
    now = (digest, stamp if settled else None, entries)
    if kept is None or kept[:2] != now[:2]:
        _keep_baseline(kept_at, now)
    return Baseline(path, entries)


def parse_baseline(data: bytes, path: Path) -> Baseline:
    """The baseline held in ``data`` (the bytes of ``path``, wherever they were read)."""
    try:
        text = data.decode("utf-8-sig")  # an editor may have added a BOM
        conflict = re.search(_CONFLICT_MARKER, text) if _may_hold_conflict_markers(text) else None
        if conflict is not None:
            line = text.count("\n", 0, conflict.start()) + 1
            raise BaselineError(
                f"{path}:{line}: baseline holds merge conflict markers; keep the entries of both "
                "sides (each entry is one object), then run 'domain-fence baseline --prune'"
            )
        # Two keys of one object (a merge that kept both sides' line) would lose one silently.
        document = json.loads(text, object_pairs_hook=_without_repeated_keys)
    except (UnicodeDecodeError, ValueError) as error:  # ValueError: also an integer too long to convert
        raise BaselineError(f"{path}: baseline is not valid JSON ({one_line(error)})") from None
    except RecursionError:
        raise BaselineError(f"{path}: baseline is not valid JSON (nested too deeply)") from None
    return Baseline(path, *_entries_from(document, path))


# What git writes into a file it could not merge, at the start of a line (compiled by
# re's cache when a baseline may hold one: most runs read none).
_CONFLICT_MARKER = r"(?m)^(?:<{7}|>{7}|={7})(?: |$)"


def _may_hold_conflict_markers(text: str) -> bool:
    """Whether ``text`` spells a marker anywhere: found by a substring search, many times
    faster than the expression's, which tries every position of a large baseline."""
    return "<" * 7 in text or ">" * 7 in text or "=" * 7 in text


def _without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):  # asked of every entry: which key repeats, only when one does
        keys = [key for key, _ in pairs]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        raise ValueError(f"an object repeats the key {repeated[0]!r}: was a merge resolved by keeping both sides?")
    return found


def _entries_from(document: object, path: Path) -> tuple[tuple[BaselineEntry, ...], tuple[tuple[str, str], ...]]:
    """The file's entries, sorted and apart, and the (contract, fingerprint) it repeats."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BaselineError(f'{path}: not a domain-fence baseline (missing "format": "{FORMAT}")')
    version = document.get("version")
    if type(version) is not int or version != VERSION:  # neither true nor 1.0, which equal 1
        raise BaselineError(
            f"{path}: baseline format version {version!r} is not supported (expected {VERSION}); "
            "regenerate it with 'domain-fence baseline'"
        )
    raw_entries = document.get("entries")
    if not isinstance(raw_entries, list):
        raise BaselineError(f'{path}: "entries" must be a list')
    values = _entry_values(raw_entries)
    if values is None:  # an entry at a time, to name the first that is not one
        values = []
        for number, raw in enumerate(raw_entries, start=1):
            if not (
                isinstance(raw, dict)
                and isinstance(raw.get("contract"), str)
                and isinstance(raw.get("fingerprint"), str)
                and isinstance(raw.get("description", ""), str)
            ):
                raise BaselineError(f'{path}: entry {number} needs string "contract" and "fingerprint" fields')
            values.append((raw["contract"], raw["fingerprint"], raw.get("description", "")))
    # An empty name matches nothing and names nothing a message could show.
    if not (all(map(itemgetter(0), values)) and all(map(itemgetter(1), values))):
        number, (contract, _, _) = next((n, v) for n, v in enumerate(values, start=1) if not (v[0] and v[1]))
        raise BaselineError(f'{path}: entry {number} has an empty "{"fingerprint" if contract else "contract"}"')
    # One entry per contract and fingerprint, sorted as values, which compare as the
    # entries made of them do. A file ``render`` wrote holds them so already, which one
    # comparison of each key with the next tells: a fraction of sorting them.
    repeated: tuple[tuple[str, str], ...] = ()
    keys = list(map(itemgetter(0, 1), values))
    if not all(map(lt, keys, islice(keys, 1, None))):
        counts = Counter(keys)
        repeated = tuple(sorted(key for key, count in counts.items() if count > 1))
        # Of one key written twice (two descriptions), the first as sorted is kept.
        kept: dict[tuple[str, str], tuple[str, str, str]] = {}
        for value in sorted(set(values)):
            kept.setdefault(value[:2], value)
        values = list(kept.values())
    return tuple(starmap(BaselineEntry, values)), repeated


def _entry_values(raw_entries: list[object]) -> list[tuple[str, str, str]] | None:
    """Each entry's (contract, fingerprint, description); None when one is not an
    object of strings. Checked a field at a time over every entry (JSON's objects and
    strings are exactly dicts and strings), not an entry at a time."""
    if not {type(raw) for raw in raw_entries} <= {dict}:
        return None
    entries: list[dict[str, object]] = raw_entries  # type: ignore[assignment]
    contracts = [raw.get("contract") for raw in entries]
    prints = [raw.get("fingerprint") for raw in entries]
    descriptions = [raw.get("description", "") for raw in entries]
    if not {*map(type, contracts), *map(type, prints), *map(type, descriptions)} <= {str}:
        return None
    return list(zip(contracts, prints, descriptions, strict=True))  # type: ignore[arg-type]


# What a baseline's entries are kept under: the digest of the file's bytes, and the
# stamp of the file (size, modification and change times, inode) that stands for them
# without reading it, when the file had settled before it was read (as with the tool's
# digest in :mod:`.resultcache`): a file rewritten within its time's tick is read again.
Kept = tuple[bytes, StampKey | None, tuple[BaselineEntry, ...]]  # digest, stamp, entries


def _parsed_file(cache: Path, path: Path) -> Path:
    """Where the entries parsed from the baseline at ``path`` are kept: one file for each
    baseline, replaced when its bytes change."""
    name = hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache / "baselines" / f"{name}.pickle"


def _kept_baseline(kept_at: Path) -> Kept | None:
    """What :func:`_keep_baseline` kept; None when there is nothing, or it is not what it
    writes (damaged, foreign, or of another parser)."""
    try:
        kept = plain_loads(unsealed(kept_at.read_bytes()) or b"")
    except Exception:  # noqa: BLE001 -- missing, unreadable or damaged: the file is parsed
        return None
    if not (type(kept) is tuple and len(kept) == 6 and kept[0] == PARSED_FORMAT and type(kept[1]) is bytes):
        return None
    digest, stamp, columns = kept[1], kept[2], kept[3:]
    if not (stamp is None or (type(stamp) is tuple and len(stamp) == 4 and {*map(type, stamp)} <= {int})):
        return None
    if not all(type(column) is tuple and {*map(type, column)} <= {str} for column in columns):
        return None
    if len({*map(len, columns)}) != 1:
        return None
    # Each entry's values are a BaselineEntry's fields, in order: made as a tuple is, in C.
    entries = tuple(map(_new_tuple, repeat(BaselineEntry), zip(*columns, strict=True)))
    if not all(map(lt, entries, islice(entries, 1, None))):  # as parse_baseline leaves them: sorted, apart
        return None
    return (digest, stamp, entries)


def _keep_baseline(kept_at: Path, kept: Kept) -> None:
    digest, stamp, entries = kept
    columns = tuple(zip(*((e.contract, e.fingerprint, e.description) for e in entries), strict=True)) or ((), (), ())
    data = pickle.dumps((PARSED_FORMAT, digest, stamp, *columns), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        kept_at.parent.mkdir(exist_ok=True)  # never a cache directory without its markers
        write_atomically(kept_at, sealed(data))
    except OSError:  # an unwritable cache: the file is parsed again next time
        return


def one_each(entries: Iterable[BaselineEntry]) -> tuple[BaselineEntry, ...]:
    """``entries`` with one per contract and fingerprint, the first in their order (an
    entry recorded twice, whatever its descriptions, is one entry)."""
    first: dict[tuple[str, str], BaselineEntry] = {}
    for entry in sorted(entries):
        first.setdefault((entry.contract, entry.fingerprint), entry)
    return tuple(first.values())


def render(baseline: Baseline) -> bytes:
    """The file's bytes: sorted, two-space indented, one trailing newline."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "entries": [
            {"contract": e.contract, "fingerprint": e.fingerprint, "description": e.description}
            for e in sorted(set(baseline.entries))
        ],
    }
    return (json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode()


def write_baseline(baseline: Baseline) -> bool:
    """Write atomically; return False (and leave the file alone) when nothing changed.

    A temporary file in the same directory is renamed over the target, so a parallel
    reader (pre-commit runs hooks in parallel) sees the old or the new file, never half.
    """
    import tempfile  # only when a baseline is written: a check never writes one

    data = render(baseline)
    try:
        if read_regular_file(baseline.path) == data:
            return False
    except OSError:
        pass
    target = Path(os.path.realpath(baseline.path))  # through a symbolic link, which stays one
    directory = target.parent
    temporary = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".baseline-", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, _file_mode(target))  # mkstemp's is 0600
        os.replace(temporary, target)
    except OSError as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise BaselineError(f"{baseline.path}: cannot write baseline: {error.strerror or error}") from None
    return True


def _file_mode(path: Path) -> int:
    """The mode the baseline keeps: its current one, else what the umask gives."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class Ratchet(NamedTuple):
    """Findings split by the baseline of one contract."""

    new: tuple[Finding, ...]
    baselined: tuple[Finding, ...]
    stale: tuple[str, ...]  # fingerprints recorded but matched by nothing


def apply_baseline(findings: Iterable[Finding], recorded: frozenset[str]) -> Ratchet:
    """Split ``findings`` against ``recorded``."""
    ordered = sorted(findings, key=FINDING_ORDER)
    seen = {f.fingerprint for f in ordered}
    return Ratchet(
        new=tuple(f for f in ordered if f.fingerprint not in recorded),
        baselined=tuple(f for f in ordered if f.fingerprint in recorded),
        stale=tuple(sorted(recorded - seen)),
    )

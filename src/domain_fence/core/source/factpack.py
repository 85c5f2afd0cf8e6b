"""The fact cache's files (the pack and its journal): an index of every file's entry,
then the entries' pickles, so that a run reads the index and only the pickles it
asks for (after one file is edited, a check needs the facts of a few files of
thousands, not a pack of megabytes).

The index is a pickle of ``(PACK_FORMAT, key, {path: row})``, each row an entry's
module, digest, and the rest packed (:data:`INDEX_ROW`): its stamp key, whether it
is a package, the place of each of its pickles after the index, and a checksum of
them (CRC-32), so that a pickle whose bytes changed since they were written (a bit
flipped on disk) is a missing entry, never other facts.
Reading the index with :class:`pickle.Unpickler` stops at its end, where the pickles
begin. Anything wrong (a short file, a foreign or damaged index, a place out of
bounds) is an empty pack or a missing entry: the cache's only answer to damage is to
parse again.
"""

from __future__ import annotations

import os
import pickle
import struct
import weakref
import zlib
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import IO

from domain_fence.core.source.files import packable

PACK_FORMAT = "domain-fence facts 4"  # 4: each entry's checksum
# A row's stamp key (size, mtime, ctime, inode), is_package, then (offset, length) of its
# facts, declarations and flows (of length -1 while not extracted), and the CRC-32 of
# those pickles, one after the other. Packed, a row is three objects to unpickle instead
# of about fifteen: a check after one edit reads the index of every file of the
# project, for the facts of a few.
INDEX_ROW = struct.Struct("<QqqQ?QQQQQqI")

# An entry: (stamp key, digest of the bytes, module, is_package, pickled FileFacts,
# pickled DeclarationFacts, pickled FlowFacts or None while not extracted); of a file read
# for its imports alone: pickled ImportFacts, and empty bytes for its declarations
Entry = tuple[tuple[int, int, int, int], bytes, str, bool, bytes, bytes, bytes | None]
Span = tuple[int, int]  # where a pickle is: (offset after the index, length)


def pack_bytes(key: str, entries: Mapping[str, Entry]) -> bytes:
    """The file holding ``entries``, written under ``key``."""
    index: dict[str, tuple[str, bytes, bytes]] = {}
    pickles: list[bytes] = []
    offset = 0
    for path, (stamp, digest, module, is_package, *blobs) in entries.items():
        if not packable(stamp):
            continue  # not kept: read again next time, the others kept all the same
        places: list[int] = []
        checksum = 0
        for blob in blobs:
            places += (offset, -1) if blob is None else (offset, len(blob))
            if blob is not None:
                pickles.append(blob)
                offset += len(blob)
                checksum = zlib.crc32(blob, checksum)
        index[path] = (module, digest, INDEX_ROW.pack(*stamp, is_package, *places, checksum))
    return pickle.dumps((PACK_FORMAT, key, index), protocol=pickle.HIGHEST_PROTOCOL) + b"".join(pickles)


class Pack:
    """A pack as read: its index, and each entry, read when first asked for."""

    def __init__(
        self, index: Mapping[str, object] | None = None, read: Callable[[int, int], bytes] | None = None, size: int = 0
    ):
        self._index: Mapping[str, object] = index or {}
        self._read = read
        self._size = size  # of the pickles: no place beyond it is read
        self._entries: dict[str, Entry | None] = {}

    def __len__(self) -> int:
        return len(self._index)

    def get(self, path: str) -> Entry | None:
        """The entry of ``path``; None when the pack has none or it is damaged."""
        if path not in self._entries:
            self._entries[path] = self._entry(self._index.get(path))
        return self._entries[path]

    def entries(self) -> dict[str, Entry]:
        """Every whole entry."""
        found = {path: self.get(path) for path in self._index}
        return {path: entry for path, entry in found.items() if entry is not None}

    def _entry(self, row: object) -> Entry | None:
        if not (isinstance(row, tuple) and len(row) == 3):
            return None
        module, digest, packed = row
        if not (isinstance(module, str) and isinstance(digest, bytes) and isinstance(packed, bytes)):
            return None
        if len(packed) != INDEX_ROW.size:
            return None
        size, mtime, ctime, inode, is_package, *places, checksum = INDEX_ROW.unpack(packed)
        spans: list[Span] = [(places[0], places[1]), (places[2], places[3])]
        if places[5] >= 0:
            spans.append((places[4], places[5]))
        try:
            facts, declarations, *flows = blobs = list(map(self._pickle, spans))
        except (OSError, ValueError):
            return None
        found = 0
        for blob in blobs:
            found = zlib.crc32(blob, found)
        if found != checksum:
            return None
        # An entry's pickles lie one after the other, as written: a damaged index that
        # sends one of them to another entry's is no entry.
        if [start + length for start, length in spans[:-1]] != [start for start, _ in spans[1:]]:
            return None
        return (
            (size, mtime, ctime, inode),
            digest,
            module,
            is_package,
            facts,
            declarations,
            flows[0] if flows else None,
        )

    def _pickle(self, span: Span) -> bytes:
        if span[0] + span[1] > self._size or self._read is None:
            raise ValueError("beyond the end of the pack")
        data = self._read(span[0], span[1])
        if len(data) != span[1]:
            raise ValueError("a pack cut short")
        return data


def read_pack(path: Path, key: str, unpickler: type[pickle.Unpickler]) -> Pack:
    """The pack at ``path`` written under ``key``, its index read by ``unpickler``
    (which must build nothing a planted file could turn into a call: the fact cache's
    builds containers and fact classes only); an empty pack when there is none, or it
    is damaged or foreign.

    The file stays open while the pack is used (its pickles are read from it): a
    writer replaces the file, never rewrites it, so what is read is of one pack.
    Where a file cannot be replaced while open (Windows), it is read whole instead.
    """
    try:
        file = open(path, "rb")  # noqa: SIM115 -- kept open for the pack's lifetime
    except OSError:
        return Pack()
    try:
        head = unpickler(file).load()
        start = file.tell()
        if not (isinstance(head, tuple) and len(head) == 3 and head[:2] == (PACK_FORMAT, key)):
            raise ValueError("a foreign pack")
        index = head[2]
        if not isinstance(index, dict):
            raise ValueError("a damaged pack")
        size = os.fstat(file.fileno()).st_size - start
        read = _reader(file, start)
    except Exception:  # noqa: BLE001 -- unreadable, short, damaged or foreign: empty
        file.close()
        return Pack()
    pack = Pack(index, read, size)
    if not file.closed:
        weakref.finalize(pack, file.close)
    return pack


def _reader(file: IO[bytes], start: int) -> Callable[[int, int], bytes]:
    pread = getattr(os, "pread", None)
    if pread is not None and os.name != "nt":
        # By position, never by the shared offset: forked workers (flake8's) inherit it.
        return lambda offset, length: pread(file.fileno(), length, start + offset)
    data = file.read()
    with suppress(OSError):
        file.close()
    return lambda offset, length: data[offset : offset + length]

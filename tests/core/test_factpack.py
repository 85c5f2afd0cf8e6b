"""The fact cache's pack files: an index, then each entry's pickles, read when asked for."""

from __future__ import annotations

import io
import os
import pickle

import pytest

from domain_fence.core.source import factpack
from domain_fence.core.source.factcache import _FactUnpickler
from domain_fence.core.source.factpack import pack_bytes, read_pack

KEY = "key"


def entries(count: int) -> dict:
    return {
        f"/project/m{n}.py": (
            (n, n + 1, n + 2, n + 3),
            bytes([n]) * 64,
            f"pkg.m{n}",
            n % 2 == 0,
            pickle.dumps(("facts", n)),
            pickle.dumps(("declarations", n)),
            pickle.dumps(("flows", n)) if n % 3 else None,
        )
        for n in range(count)
    }


def test_a_pack_gives_back_every_entry_as_written(tmp_path):
    path = tmp_path / "pack"
    written = entries(40)
    path.write_bytes(pack_bytes(KEY, written))
    pack = read_pack(path, KEY, _FactUnpickler)
    assert len(pack) == 40
    assert pack.entries() == written
    assert pack.get("/project/absent.py") is None


@pytest.mark.parametrize("stamp", [(1, 2, 3, 2**64 + 7), (1, -(2**63) - 1, 3, 4), (-1, 2, 3, 4)])
def test_an_entry_whose_stamp_eight_bytes_cannot_hold_is_left_out_and_the_others_kept(tmp_path, stamp):
    path = tmp_path / "pack"
    written = entries(5)
    odd = "/project/m2.py"
    path.write_bytes(pack_bytes(KEY, {**written, odd: (stamp, *written[odd][1:])}))
    pack = read_pack(path, KEY, _FactUnpickler)
    assert pack.entries() == {p: e for p, e in written.items() if p != odd}


def test_a_pack_written_under_another_key_is_empty(tmp_path):
    path = tmp_path / "pack"
    path.write_bytes(pack_bytes("another key", entries(3)))
    assert len(read_pack(path, KEY, _FactUnpickler)) == 0
    assert len(read_pack(tmp_path / "absent", KEY, _FactUnpickler)) == 0


@pytest.mark.skipif(not hasattr(os, "pread") or os.name == "nt", reason="read by position where it can be")
def test_only_the_pickles_of_the_entries_asked_for_are_read(tmp_path, monkeypatch):
    path = tmp_path / "pack"
    written = entries(200)
    path.write_bytes(pack_bytes(KEY, written))
    reads: list[int] = []
    pread = os.pread

    def counted(descriptor: int, length: int, offset: int) -> bytes:
        reads.append(length)
        return pread(descriptor, length, offset)

    monkeypatch.setattr(os, "pread", counted)
    pack = read_pack(path, KEY, _FactUnpickler)
    assert reads == []  # the index alone
    wanted = "/project/m7.py"
    assert pack.get(wanted) == written[wanted]
    assert pack.get(wanted) == written[wanted]  # read once
    assert sum(reads) == sum(len(blob) for blob in written[wanted][4:] if blob)
    assert sum(reads) * 50 < path.stat().st_size


def test_a_pack_replaced_while_read_is_read_as_it_was(tmp_path):
    path = tmp_path / "pack"
    before, after = entries(5), entries(9)
    path.write_bytes(pack_bytes(KEY, before))
    pack = read_pack(path, KEY, _FactUnpickler)
    replacement = tmp_path / "replacement"
    replacement.write_bytes(pack_bytes(KEY, {p: (*e[:4], b"other", b"other", None) for p, e in after.items()}))
    os.replace(replacement, path)  # as a writer replaces it: never rewritten in place
    assert pack.entries() == before


def test_an_index_that_sends_an_entry_to_another_entrys_pickle_gives_no_entry(tmp_path):
    written = entries(6)
    data = pack_bytes(KEY, written)
    stream = io.BytesIO(data)
    kind, key, index = pickle.load(stream)
    pickles = data[stream.tell() :]
    first, second = "/project/m1.py", "/project/m2.py"
    first_fields = list(factpack.INDEX_ROW.unpack(index[first][2]))
    second_fields = factpack.INDEX_ROW.unpack(index[second][2])
    assert first_fields[10] >= 0 and second_fields[10] >= 0  # both have flows
    first_fields[9:11] = second_fields[9:11]  # m1's flows are m2's
    index[first] = (*index[first][:2], factpack.INDEX_ROW.pack(*first_fields))
    path = tmp_path / "pack"
    path.write_bytes(pickle.dumps((kind, key, index), protocol=pickle.HIGHEST_PROTOCOL) + pickles)
    pack = read_pack(path, KEY, _FactUnpickler)
    assert pack.get(first) is None
    assert pack.get(second) == written[second]


def test_where_a_file_cannot_be_replaced_while_open_the_pack_is_read_whole_and_closed(tmp_path, monkeypatch):
    path = tmp_path / "pack"
    written = entries(12)
    path.write_bytes(pack_bytes(KEY, written))
    opened = []
    real_open = open

    def tracked(*args, **kwargs):
        file = real_open(*args, **kwargs)
        opened.append(file)
        return file

    monkeypatch.setattr(factpack, "open", tracked, raising=False)
    monkeypatch.setattr(os, "name", "nt")  # Windows: no os.replace over an open file
    pack = read_pack(path, KEY, _FactUnpickler)
    assert [file.closed for file in opened] == [True]  # read whole, then let go
    assert pack.entries() == written

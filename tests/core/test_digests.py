"""File digests: what every content-addressed cache trusts instead of a modification time."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from domain_fence.core.source import factcache
from domain_fence.core.source.factcache import Stamp, file_digest, hash_ahead, stamped_digest


def test_a_file_digest_is_blake2b_of_its_bytes_whatever_its_size(tmp_path):
    for size in (0, 1, factcache.READ_CHUNK - 1, factcache.READ_CHUNK, 2 * factcache.READ_CHUNK + 3):
        path = tmp_path / f"f{size}.py"
        data = os.urandom(size)
        path.write_bytes(data)
        assert file_digest(str(path)) == hashlib.blake2b(data).digest()
    assert file_digest(str(tmp_path / "missing.py")) is None
    assert file_digest(str(tmp_path)) is None  # a directory cannot be read as a file


def _settled_files(tmp_path, monkeypatch, count):
    # A change time cannot be set back: the window is closed instead of waiting it out.
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", -1)
    monkeypatch.setattr(factcache, "_SETTLED_DIGESTS", {})
    files = []
    for number in range(count):
        path = tmp_path / f"m{number}.py"
        path.write_text(f"VALUE = {number}\n")
        stamp = Stamp.of(path)
        assert stamp is not None
        files.append((str(path), stamp.key))
    return files


def test_hashing_ahead_in_threads_gives_each_file_its_own_digest(tmp_path, monkeypatch):
    files = _settled_files(tmp_path, monkeypatch, 3 * factcache.HASHED_PER_THREAD)
    hashed, threads = [], set()
    real = factcache.file_digest

    def counted(path):
        hashed.append(path)
        threads.add(threading.get_ident())
        return real(path)

    monkeypatch.setattr(factcache, "file_digest", counted)
    hash_ahead(files)
    assert sorted(hashed) == sorted(path for path, _ in files)  # each once
    assert len(threads) == factcache.HASHING_THREADS
    for path, key in files:  # known now: not read again
        assert stamped_digest(path, key) == hashlib.blake2b(Path(path).read_bytes()).digest()
    assert len(hashed) == len(files)


def test_a_file_not_settled_is_not_hashed_ahead(tmp_path, monkeypatch):
    path = tmp_path / "fresh.py"
    path.write_text("VALUE = 1\n")  # modified just now: may change again unseen
    stamp = Stamp.of(path)
    assert stamp is not None
    hashed = []
    monkeypatch.setattr(factcache, "_SETTLED_DIGESTS", {})
    monkeypatch.setattr(factcache, "file_digest", lambda p: hashed.append(p))
    hash_ahead([(str(path), stamp.key)])
    assert hashed == []


def test_hashing_behind_hashes_in_a_helper_while_this_thread_goes_on(tmp_path, monkeypatch):
    files = _settled_files(tmp_path, monkeypatch, 20)
    hashed, threads = [], set()
    real = factcache.file_digest
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", 600 * 10**9)  # modified within ten minutes: none settled
    monkeypatch.setattr(factcache, "file_digest", lambda path: hashed.append(path))
    factcache.hash_behind(files)()
    assert hashed == []
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", -1)
    release = threading.Event()

    def held(path):
        release.wait(timeout=10)  # until this thread has gone on
        hashed.append(path)
        threads.add(threading.get_ident())
        return real(path)

    monkeypatch.setattr(factcache, "file_digest", held)
    wait = factcache.hash_behind(files)
    assert hashed == []  # this thread is not held up
    release.set()
    wait()
    assert sorted(hashed) == sorted(path for path, _ in files)
    assert threads and threading.get_ident() not in threads
    for path, key in files:  # known now: not read again
        assert stamped_digest(path, key) == hashlib.blake2b(Path(path).read_bytes()).digest()
    assert len(hashed) == len(files)

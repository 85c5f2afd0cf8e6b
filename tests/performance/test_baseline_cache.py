"""A baseline's entries kept in the cache: an unchanged file is not parsed again (not
even read, while its stamp stands for its bytes), an edited one is, and what is read
back is what parsing gives; a damaged, foreign or planted entry is parsed over."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from perf_support import SETTLED, edit, leaky_project

from domain_fence.core.engine import baseline as baseline_module
from domain_fence.core.engine.baseline import Baseline, BaselineEntry, BaselineError, load_baseline, render
from domain_fence.integrations.cli import main

ENTRIES = (
    BaselineEntry("a", "DOM101:pkg.one:X", "DOM101 first"),
    BaselineEntry("a", "DOM101:pkg.two:Y", "DOM101 second"),
    BaselineEntry("b", "DOM201:pkg.one->pkg.two", "DOM201 crossing"),
)


@pytest.fixture
def cache(tmp_path) -> Path:
    directory = tmp_path / "cache"
    directory.mkdir()  # the facts' cache makes it, marked as one
    return directory


@pytest.fixture
def baseline_file(tmp_path) -> Path:
    path = tmp_path / "baseline.json"
    path.write_bytes(render(Baseline(path, ENTRIES)))
    edit(path)  # settled: its stamp may stand for its bytes
    return path


@pytest.fixture
def settled_at_once(monkeypatch) -> None:
    """A file counts as settled as soon as it is written: its change time cannot be
    set back (its modification time is, by :func:`edit`)."""
    monkeypatch.setattr(baseline_module, "RACY_WINDOW_NS", 0)


@pytest.fixture
def parses(monkeypatch) -> list[Path]:
    """The path of every baseline parsed from now on."""
    parsed: list[Path] = []
    real = baseline_module.parse_baseline

    def counting(data: bytes, path: Path) -> Baseline:
        parsed.append(path)
        return real(data, path)

    monkeypatch.setattr(baseline_module, "parse_baseline", counting)
    return parsed


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """The path of every baseline read from now on."""
    read: list[Path] = []
    real = baseline_module.read_regular_file

    def counting(path: Path) -> bytes:
        read.append(path)
        return real(path)

    monkeypatch.setattr(baseline_module, "read_regular_file", counting)
    return read


def kept_files(cache: Path) -> list[Path]:
    return sorted((cache / "baselines").glob("*.pickle"))


def test_an_unchanged_baseline_is_not_parsed_nor_read_again(cache, baseline_file, parses, reads, settled_at_once):
    first = load_baseline(baseline_file, cache)
    assert (first.entries, parses, reads) == (ENTRIES, [baseline_file], [baseline_file])
    again = load_baseline(baseline_file, cache)
    assert again == first and all(type(e) is BaselineEntry for e in again.entries)
    assert again.fingerprints("a") == frozenset({"DOM101:pkg.one:X", "DOM101:pkg.two:Y"})
    assert (parses, reads) == ([baseline_file], [baseline_file])


def test_a_baseline_touched_is_read_again_not_parsed(cache, baseline_file, parses, reads, settled_at_once):
    load_baseline(baseline_file, cache)
    edit(baseline_file, when=SETTLED + 120)  # the same bytes, another stamp
    assert load_baseline(baseline_file, cache).entries == ENTRIES
    assert (len(parses), len(reads)) == (1, 2)
    assert load_baseline(baseline_file, cache).entries == ENTRIES  # the new stamp kept
    assert (len(parses), len(reads)) == (1, 2)


def test_without_an_inode_a_baseline_is_read_every_time(
    cache, baseline_file, parses, reads, settled_at_once, monkeypatch
):
    """A system that gives no inode may give no change time either (a creation time
    instead): a rewrite with its size and modification time kept would not show in the
    stamp, so the bytes decide, as in the run cache."""
    real = baseline_module.file_stamp
    monkeypatch.setattr(baseline_module, "file_stamp", lambda path: (*real(path)[:3], 0))
    for _ in range(3):
        assert load_baseline(baseline_file, cache).entries == ENTRIES
    assert (len(parses), len(reads)) == (1, 3)


def test_a_baseline_just_written_is_read_every_time_until_it_settles(cache, baseline_file, parses, reads):
    baseline_file.write_bytes(baseline_file.read_bytes())  # changed now: it may change again unseen
    for _ in range(2):
        assert load_baseline(baseline_file, cache).entries == ENTRIES
    assert (len(parses), len(reads)) == (1, 2)


def test_an_edited_baseline_is_parsed_again(cache, baseline_file, parses):
    load_baseline(baseline_file, cache)
    document = json.loads(baseline_file.read_text())
    document["entries"] = document["entries"][1:]
    edit(baseline_file, json.dumps(document))  # the same modification time as before
    assert load_baseline(baseline_file, cache).entries == ENTRIES[1:]
    assert parses == [baseline_file, baseline_file]
    assert load_baseline(baseline_file, cache).entries == ENTRIES[1:]
    assert len(parses) == 2


def test_a_baseline_that_cannot_be_used_is_an_error_every_time(cache, baseline_file):
    load_baseline(baseline_file, cache)
    edit(baseline_file, '{"format": "domain-fence-baseline", "version": 1, "entries": [1]}')
    for _ in range(2):
        with pytest.raises(BaselineError, match="entry 1 needs string"):
            load_baseline(baseline_file, cache)
    baseline_file.unlink()
    assert load_baseline(baseline_file, cache).entries == ()


class Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch planted",))


def kept_as(cache: Path, baseline_file: Path, *values: object) -> None:
    """The kept entry of ``baseline_file`` replaced by the pickle of ``values``."""
    load_baseline(baseline_file, cache)
    [kept] = kept_files(cache)
    kept.write_bytes(pickle.dumps(values))


def stamp(path: Path) -> tuple[int, int, int, int]:
    status = path.stat()
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def forged(path: Path, *columns: tuple[object, ...]) -> tuple[object, ...]:
    """An entry of the current format under the file's own stamp: it would be believed."""
    return (baseline_module.PARSED_FORMAT, b"0" * 16, stamp(path), *columns)


@pytest.mark.parametrize(
    "values",
    [
        pytest.param(lambda path: ("damaged",), id="damaged"),
        pytest.param(lambda path: ("domain-fence parsed baseline 0", *forged(path, (), (), ())[1:]), id="foreign"),
        pytest.param(lambda path: forged(path, ("a",), ("x",), (1,)), id="not strings"),
        pytest.param(lambda path: forged(path, ("a", "a"), ("y", "x"), ("", "")), id="not sorted"),
        pytest.param(lambda path: forged(path, ("a", "a"), ("x", "x"), ("", "")), id="repeated"),
        pytest.param(lambda path: forged(path, ("a",), ("x", "y"), ("",)), id="columns apart"),
        pytest.param(lambda path: forged(path, [("a", "x", "")]), id="not columns"),
        pytest.param(lambda path: (*forged(path, (), (), ())[:2], (1, 2), (), (), ()), id="not a stamp"),
        pytest.param(lambda path: (*forged(path, (), (), ())[:3], Planted(), (), ()), id="planted"),
    ],
)
def test_a_kept_entry_not_as_written_is_parsed_over(cache, baseline_file, parses, tmp_path, monkeypatch, values):
    monkeypatch.chdir(tmp_path)
    kept_as(cache, baseline_file, *values(baseline_file))
    assert load_baseline(baseline_file, cache).entries == ENTRIES
    assert len(parses) == 2
    assert not (tmp_path / "planted").exists()
    assert load_baseline(baseline_file, cache).entries == ENTRIES  # kept again, as written
    assert len(parses) == 2


def test_an_entry_of_other_bytes_is_not_taken(cache, baseline_file, parses):
    kept_as(cache, baseline_file, *forged(baseline_file, ("a",), ("x",), ("",))[:2], None, ("a",), ("x",), ("",))
    assert load_baseline(baseline_file, cache).entries == ENTRIES
    assert len(parses) == 2


def test_nothing_is_kept_without_a_cache_directory_or_where_none_is_made(tmp_path, baseline_file, parses):
    assert load_baseline(baseline_file).entries == ENTRIES
    missing = tmp_path / "no-cache"
    assert load_baseline(baseline_file, missing).entries == ENTRIES
    assert not missing.exists()  # a cache directory without its markers is never made
    assert len(parses) == 2


def test_a_check_parses_an_unchanged_baseline_once(tmp_path, parses, monkeypatch):
    root = leaky_project(tmp_path)
    monkeypatch.chdir(root)
    recorded = CliRunner().invoke(main, ["baseline"])
    assert recorded.exit_code == 0, recorded.output
    baseline_file = root / ".domain-fence-baseline.json"
    edit(baseline_file)
    del parses[:]

    def check() -> tuple[int, str]:
        shutil.rmtree(root / ".domain_fence_cache" / "runs", ignore_errors=True)  # checked, not replayed
        done = CliRunner().invoke(main, ["check", "--format", "json"])
        return done.exit_code, done.output

    first = check()
    assert check() == first
    assert len(parses) == 1
    edit(baseline_file, baseline_file.read_text().replace("DOM", "DOX", 1))
    assert check() != first
    assert len(parses) == 2

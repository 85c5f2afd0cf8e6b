"""The project index maps the paths flake8 hands the plugin back to modules, however
they are spelled."""

from __future__ import annotations

import hashlib
import io
import os
import sys
from pathlib import Path

import pytest

from domain_fence.core.index import blockers
from domain_fence.core.index.blockers import graph_refused
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.factcache import Stamp, stamped_digest
from domain_fence.core.source.listing import shared_listings


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("app/__init__.py", "app/runtime/__init__.py", "app/runtime/loop.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "outside.py").write_text("", encoding="utf-8")
    return tmp_path


def index_of(root: Path) -> ProjectIndex:
    return ProjectIndex.build(root, ["app"], search_paths=[str(root)], cache_dir=None)


def test_a_file_is_found_however_its_path_is_spelled(project, monkeypatch):
    index = index_of(project)
    monkeypatch.chdir(project)
    assert index.module_for_path(project / "app/runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("app/runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("./app/runtime/../runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("app/__init__.py") == "app"
    assert index.module_for_path("outside.py") is None
    assert index.module_for_path("app/runtime/missing.py") is None


def test_a_file_reached_through_a_symbolic_link_is_found(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    link = elsewhere / "checkout"
    os.symlink(project, link, target_is_directory=True)
    # the index was built through the link; flake8 names the real file, and the other way round
    assert index_of(link).module_for_path(project / "app/runtime/loop.py") == "app.runtime.loop"
    assert index_of(project).module_for_path(link / "app/runtime/loop.py") == "app.runtime.loop"
    assert index_of(project).module_for_path(link / "outside.py") is None


def test_a_file_just_edited_is_read_once_for_its_facts_digest_and_text_until_forgotten(project, monkeypatch):
    path = project / "app/runtime/loop.py"
    path.write_text("class Loop:\n    steps = 'many'\n", encoding="utf-8")  # just written: not settled
    index = index_of(project)
    digest = hashlib.blake2b(path.read_bytes()).digest()
    reads: list[str] = []

    def counted(real_open):  # every way a file is opened here: a descriptor, a file object
        def opening(file, *args, **options):
            reads.append(os.fspath(file))
            return real_open(file, *args, **options)

        return opening

    monkeypatch.setattr(os, "open", counted(os.open))
    monkeypatch.setattr(io, "open", counted(io.open))
    assert index.file_facts("app.runtime.loop").names.classes["Loop"].qualname == "Loop"
    stamp = Stamp.of(index.modules["app.runtime.loop"])
    assert stamp is not None and not stamp.settled
    assert stamped_digest(stamp.path, stamp.key) == digest
    assert index.text("app.runtime.loop") == "class Loop:\n    steps = 'many'\n"
    assert reads == [stamp.path]
    index.forget("app.runtime.loop")  # told it changed, within its stamp's tick as far as the index knows
    assert index.text("app.runtime.loop") == "class Loop:\n    steps = 'many'\n"
    assert reads == [stamp.path, stamp.path]


def test_a_file_rewritten_within_its_stamp_is_read_again_once_forgotten(project, monkeypatch):
    # A coarse clock gives a file rewritten at its size within one tick its old stamp:
    # told it changed (as a language server is), the index forgets what the process
    # remembered of it by that stamp, and reads the new version.
    path = project / "app/runtime/loop.py"
    path.write_text("class Loop:\n    steps = 'many'\n", encoding="utf-8")
    index = index_of(project)
    assert "Loop" in index.file_facts("app.runtime.loop").names.classes
    kept = Stamp.of(index.modules["app.runtime.loop"])
    stamp_of = Stamp.of
    monkeypatch.setattr(Stamp, "of", classmethod(lambda cls, at: kept if os.fspath(at) == kept.path else stamp_of(at)))
    path.write_text("class Pool:\n    steps = 'many'\n", encoding="utf-8")
    index.forget("app.runtime.loop")
    assert list(index.file_facts("app.runtime.loop").names.classes) == ["Pool"]


def test_the_index_built_looks_files_up_by_the_paths_abspath_gives(project, monkeypatch):
    monkeypatch.chdir(project)
    index = ProjectIndex.build(Path("."), ["app"], search_paths=["."], cache_dir=None)
    expected = {os.path.abspath(path): module for module, path in index.modules.items()}
    assert list(index.absolute_paths().items()) == list(expected.items())  # in module order too


def test_an_index_built_again_holds_the_modules_added_and_not_those_removed(project):
    """Within the listings of one run and across runs, as the tree is when it is walked."""
    with shared_listings():
        before = index_of(project)
    (project / "app/runtime/loop.py").unlink()
    (project / "app/runtime/added.py").write_text("", encoding="utf-8")
    with shared_listings():
        after = index_of(project)
    assert list(before.modules) == ["app", "app.runtime", "app.runtime.loop"]
    assert list(after.modules) == ["app", "app.runtime", "app.runtime.added"]
    assert after.modules["app.runtime.added"] == project.resolve() / "app/runtime/added.py"
    assert after.relative_path("app.runtime.added") == "app/runtime/added.py"
    assert after.module_for_path(project / "app/runtime/loop.py") is None


def test_the_index_tells_whether_any_module_is_checked_from_a_buffer(project):
    index = index_of(project)
    assert not index.has_any_buffer()
    assert not index.use_buffer("app.runtime.loop", "")  # the saved file: no buffer
    assert not index.has_any_buffer()
    assert index.use_buffer("app.runtime.loop", "x = 1\n")
    assert index.has_any_buffer() and index.has_buffer("app.runtime.loop")
    assert index.drop_buffer("app.runtime.loop")
    assert not index.has_any_buffer()


# -- what keeps the import graph from being built, seen by discovery ----------------------

NOT_UTF8 = os.fsdecode(b"caf\xe9.py")


def _tree(root: Path, extra: str) -> Path:
    """A namespace root ``ns`` holding a package ``ns.app``, and what ``extra`` names."""
    for name in ("ns/app/__init__.py", "ns/app/runtime/__init__.py", "ns/app/runtime/loop.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("", encoding="utf-8")
    if extra == "a symlink loop in a package":
        os.symlink("..", root / "ns/app/runtime/again")
    elif extra == "a symlink to a package":
        os.symlink(root / "ns/app/runtime", root / "ns/app/elsewhere")
    elif extra == "a name not UTF-8 in a package":
        (root / "ns/app/runtime" / NOT_UTF8).write_text("", encoding="utf-8")
    elif extra == "a name not UTF-8 in a plain directory of the namespace root":  # discovery does not enter it
        (root / "ns/docs").mkdir()
        (root / "ns/docs" / NOT_UTF8).write_text("", encoding="utf-8")
    elif extra == "a directory named like a file, not UTF-8":
        (root / "ns/app/runtime" / NOT_UTF8).mkdir()
    return root


BLOCKED = [
    "a symlink loop in a package",
    "a name not UTF-8 in a package",
    "a name not UTF-8 in a plain directory of the namespace root",
    "a directory named like a file, not UTF-8",
]


@pytest.mark.parametrize("extra", BLOCKED)
def test_a_blocker_discovery_does_not_vouch_against_is_found_within_the_same_listings(tmp_path, extra):
    """graph_refused takes discovery's word that nothing is below (see Discovery.plain)
    only for what it saw: each of these trees keeps the graph from being built."""
    if "UTF-8" in extra and sys.platform != "linux":
        pytest.skip("file names are bytes on Linux only")
    root = _tree(tmp_path, extra)
    with shared_listings():
        index = ProjectIndex.build(root, ["ns"], cache_dir=None)
        assert index.plain_in is None
        assert graph_refused(index, ["ns"])


def test_within_the_listings_it_walked_a_plain_discovery_spares_the_blockers_walk(tmp_path, monkeypatch):
    root = _tree(tmp_path, "nothing")
    walks = recorded_walks(monkeypatch)
    with shared_listings():
        index = ProjectIndex.build(root, ["ns"], cache_dir=None)
        assert not graph_refused(index, ["ns"])
        assert walks == []
        assert graph_refused(index, ["ns", "other"])  # not the packages discovery walked: missing
    # Outside those listings the tree may have changed since: walked again.
    os.symlink("..", root / "ns/app/runtime/again")
    assert graph_refused(index, ["ns"])
    with shared_listings():  # other listings than discovery's
        assert graph_refused(index, ["ns"])
    assert len(walks) == 2


def test_a_symlinked_package_is_walked_for_blockers(tmp_path, monkeypatch):
    root = _tree(tmp_path, "a symlink to a package")
    walks = recorded_walks(monkeypatch)
    with shared_listings():
        index = ProjectIndex.build(root, ["ns"], cache_dir=None)
        assert not graph_refused(index, ["ns"])
    assert len(walks) == 1


def recorded_walks(monkeypatch) -> list[object]:
    walks: list[object] = []
    real = blockers.walk_blockers

    def walking(root, directories):
        walks.append(root)
        return real(root, directories)

    monkeypatch.setattr(blockers, "walk_blockers", walking)
    return walks

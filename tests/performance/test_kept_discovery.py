"""The discovery of a root package's modules, kept between runs: a run whose listings
hold the same names and kinds as the last one's (only contents changed, as after an
edit) starts from what that run found, and finds exactly what a discovery now would."""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from perf_support import edit, leaky_project, settle
from support import keep_bytes, kept_bytes

from domain_fence.core.engine import runcache
from domain_fence.core.engine.runcache import Inputs, input_digest
from domain_fence.core.source import modules
from domain_fence.core.source.listing import shared_listings
from domain_fence.core.source.modules import SKIPPED_ORDER, Discovery, discover_modules, discovered
from domain_fence.integrations.cli import main


def tree(root: Path) -> Path:
    for path, text in {
        "pkg/__init__.py": "",
        "pkg/a.py": "import pkg.b\n",
        "pkg/b.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "",
        "pkg/data/notes.txt": "not a package",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / "cache").mkdir()
    settle(root)
    return root


def as_found(discovery: Discovery) -> tuple[object, ...]:
    return (
        discovery.modules.texts,
        list(discovery.modules.texts),
        discovery.absolute,
        discovery.stamps,
        discovery.plain,
        sorted(discovery.skipped, key=SKIPPED_ORDER),
        discovery.linked,
    )


def discovery_now(root: Path) -> Discovery:
    discovery = Discovery()
    discover_modules("pkg", [root / "pkg"], discovery)
    return discovery


@pytest.fixture(autouse=True)
def _tools_not_digested(monkeypatch):
    # The run cache walks nothing while a tool's file is a moment old (just edited):
    # these tests are about the project's tree, not about that.
    monkeypatch.setattr(runcache, "TOOLS", ())


@pytest.fixture
def found_anew(monkeypatch) -> list[str]:
    """The root packages discovered by walking their directories from now on."""
    packages: list[str] = []

    def discovering(package: str, *args):
        packages.append(package)
        return discover_modules(package, *args)

    monkeypatch.setattr(modules, "discover_modules", discovering)
    return packages


def discovery_after_the_run_cache_s_walk(root: Path) -> Discovery:
    """The discovery a check makes: after the run cache's walk, in the same listings."""
    with shared_listings():
        input_digest(Inputs((), (), ("pkg",), str(root)))
        return discovered("pkg", [root / "pkg"], root / "cache")


def test_a_run_after_an_edit_reuses_what_the_last_run_found(tmp_path, found_anew):
    root = tree(tmp_path)
    first = discovery_after_the_run_cache_s_walk(root)
    assert found_anew == ["pkg"]
    assert as_found(first) == as_found(discovery_now(root))
    edit(root / "pkg" / "a.py", "import pkg.sub.c\n")
    again = discovery_after_the_run_cache_s_walk(root)
    assert found_anew == ["pkg"]  # not walked again
    assert as_found(again) == as_found(discovery_now(root))
    assert again.stamps["pkg.a"] != first.stamps["pkg.a"]  # the stamps the walk took now


def test_another_python_finds_anew(tmp_path, monkeypatch, found_anew):
    # Which file names are identifiers, and so modules, follows Python's Unicode tables.
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    monkeypatch.setattr(sys, "version_info", (sys.version_info[0], sys.version_info[1] + 1, 0, "final", 0))
    discovery_after_the_run_cache_s_walk(root)
    assert found_anew == ["pkg", "pkg"]


def test_without_the_run_cache_s_walk_nothing_is_reused(tmp_path, found_anew):
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    with shared_listings():
        alone = discovered("pkg", [root / "pkg"], root / "cache")
    assert found_anew == ["pkg", "pkg"]
    assert as_found(alone) == as_found(discovery_now(root))


def make_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


CHANGES: dict[str, Callable[[Path], object]] = {
    "a module renamed": lambda root: (root / "pkg" / "b.py").rename(root / "pkg" / "bb.py"),
    "a module added": lambda root: edit(root / "pkg" / "sub" / "d.py", ""),
    "a module removed": lambda root: (root / "pkg" / "b.py").unlink(),
    "a package renamed": lambda root: (root / "pkg" / "sub").rename(root / "pkg" / "other"),
    "a directory made a package": lambda root: edit(root / "pkg" / "data" / "__init__.py", ""),
    "a package made a directory": lambda root: (root / "pkg" / "sub" / "__init__.py").unlink(),
    "a module in a directory that is no package": lambda root: edit(root / "pkg" / "data" / "x.py", ""),
    "a module shadowed by a package": lambda root: edit(root / "pkg" / "sub.py", ""),
    "a module made a FIFO": lambda root: make_fifo(root / "pkg" / "b.py"),
    # The run cache's walk enters a __pycache__ only when it is a package.
    "a __pycache__ made a package": lambda root: edit(root / "pkg" / "__pycache__" / "__init__.py", ""),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_what_a_change_of_the_tree_changes_is_found(tmp_path, change):
    root = tree(tmp_path)
    (root / "pkg" / "__pycache__").mkdir()
    settle(root)
    discovery_after_the_run_cache_s_walk(root)
    discovery_after_the_run_cache_s_walk(root)  # reused
    before = as_found(discovery_now(root))
    CHANGES[change](root)
    now = as_found(discovery_now(root))
    assert now != before
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == now
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == now  # and what is kept of it


def test_a_root_package_s_init_made_a_regular_file_makes_it_a_regular_package(tmp_path):
    root = tree(tmp_path)
    make_fifo(root / "pkg" / "__init__.py")
    discovery_after_the_run_cache_s_walk(root)
    assert discovery_after_the_run_cache_s_walk(root).modules.texts["pkg"] == str(root / "pkg")  # a namespace root
    (root / "pkg" / "__init__.py").unlink()
    edit(root / "pkg" / "__init__.py", "")
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == as_found(discovery_now(root))


def test_a_module_grown_beyond_the_size_limit_is_skipped(tmp_path, monkeypatch):
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    edit(root / "pkg" / "b.py", "x = 1\n" * 100)
    monkeypatch.setenv("DOMAIN_FENCE_MAX_FILE_SIZE", "100")
    reused = discovery_after_the_run_cache_s_walk(root)
    assert "pkg.b" not in reused.modules
    assert as_found(reused) == as_found(discovery_now(root))


def test_a_directory_that_is_no_package_is_looked_at_again(tmp_path, monkeypatch, found_anew):
    """Whether it can be read is no name: it is asked again of a reused discovery."""
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    data = str(root / "pkg" / "data")
    allowed = os.access
    monkeypatch.setattr(modules.os, "access", lambda path, mode: path != data and allowed(path, mode))
    reused = discovery_after_the_run_cache_s_walk(root)
    assert found_anew == ["pkg"]
    assert [skipped.path for skipped in reused.skipped] == [Path(data)]
    assert as_found(reused) == as_found(discovery_now(root))


def test_a_symlinked_directory_turns_reuse_off(tmp_path, found_anew):
    root = tree(tmp_path)
    (root / "pkg" / "linked").symlink_to(root / "pkg" / "sub")
    discovery_after_the_run_cache_s_walk(root)
    reused = discovery_after_the_run_cache_s_walk(root)
    assert found_anew == ["pkg", "pkg"]
    assert as_found(reused) == as_found(discovery_now(root))


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x05N."])
def test_a_damaged_kept_discovery_is_found_anew(tmp_path, found_anew, damage):
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    (kept,) = (root / "cache").glob("discovery-*.pickle")
    kept.write_bytes(damage)
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == as_found(discovery_now(root))
    assert found_anew == ["pkg", "pkg"]


def test_a_discovery_kept_in_an_older_form_is_found_anew(tmp_path, found_anew):
    # Kept before each module's file was kept as its place among the walk's entries.
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    (kept,) = (root / "cache").glob("discovery-*.pickle")
    keep_bytes(kept, pickle.dumps(pickle.loads(kept_bytes(kept))[:-1]))
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == as_found(discovery_now(root))
    assert found_anew == ["pkg", "pkg"]


@pytest.mark.parametrize("planted", ["swapped", "negative"])
def test_a_kept_discovery_whose_places_are_not_its_files_is_found_anew(tmp_path, found_anew, planted):
    # Each module's file is kept as its place among the walk's entries: a place that is
    # not that file's (a damaged or planted file) must not lend a module another's stamp.
    root = tree(tmp_path)
    discovery_after_the_run_cache_s_walk(root)
    (kept,) = (root / "cache").glob("discovery-*.pickle")
    *rest, places = pickle.loads(kept_bytes(kept))
    places = [*places[1:], places[0]] if planted == "swapped" else [place - len(places) for place in places]
    keep_bytes(kept, pickle.dumps((*rest, places)))
    assert as_found(discovery_after_the_run_cache_s_walk(root)) == as_found(discovery_now(root))
    assert found_anew == ["pkg", "pkg"]


def test_a_check_after_an_edit_reports_as_a_fresh_one(tmp_path, monkeypatch, found_anew):
    root = leaky_project(tmp_path)
    with contextlib.chdir(root):
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
        model = root / "leaky" / "runtime" / "model.py"
        edit(model, model.read_text() + "\nimport leaky.experiment.runner\n")
        found_anew.clear()
        edited = CliRunner().invoke(main, ["check"])
        assert found_anew == []
        (root / "leaky" / "runtime" / "helper.py").rename(root / "leaky" / "runtime" / "helping.py")
        renamed = CliRunner().invoke(main, ["check"])
        assert found_anew == ["leaky"]
        fresh = CliRunner().invoke(main, ["check", "--no-cache"])
    assert "leaky.runtime.helping" in renamed.output
    assert (renamed.exit_code, renamed.output) == (fresh.exit_code, fresh.output) != (edited.exit_code, edited.output)

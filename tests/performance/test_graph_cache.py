"""grimp's import cache as our graph builds use it: a module is served by its bytes, so
a cache restored onto a fresh checkout reads no unchanged file again, a file swapped
under the same size and modification time is read again, and a damaged cache is a miss."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from grimp.adaptors.caching import Cache
from grimp.application import usecases
from grimp.application.config import settings
from grimp.application.ports.modulefinder import FoundPackage, ModuleFile
from grimp.domain.valueobjects import Module
from perf_support import SETTLED, edit, leaky_project, recorded, settle
from support import run_tool

from domain_fence.core.index import project as index_module
from domain_fence.core.source import factcache
from domain_fence.integrations.importlinter import graph_cache
from domain_fence.integrations.importlinter.graph import served_by_bytes

FLAKE8_CONFIG = "[flake8]\nselect = DOM\n"
MODULES = sorted(
    [
        "leaky",
        "leaky.experiment",
        "leaky.experiment.modes",
        "leaky.experiment.runner",
        "leaky.runtime",
        "leaky.runtime.helper",
        "leaky.runtime.legacy",
        "leaky.runtime.model",
        "leaky.runtime.setup",
        "leaky.runtime.telemetry",
        "leaky.shared",
    ]
)
NEW_FINDING = "leaky/runtime/setup.py:1:8: DOM301 leaky.runtime.setup imports forbidden leaky.experiment.modes"


@pytest.fixture
def scanned(monkeypatch) -> list[str]:
    """The modules grimp reads from source (rather than from its cache), per build."""
    modules: list[str] = []
    real = usecases.scan_imports

    def recording(module_files, **options):
        modules.extend(sorted(module_file.module.name for module_file in module_files))
        return real(module_files, **options)

    monkeypatch.setattr(usecases, "scan_imports", recording)
    return modules


def check_in_process(root: Path, monkeypatch) -> tuple[int, str]:
    """``domain-fence check`` as a new process runs it, in this one (so that what grimp
    scans can be counted)."""
    from domain_fence.integrations.cli import main

    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(factcache, "_OPEN", {})
    monkeypatch.setattr(factcache, "_SETTLED_DIGESTS", {})
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check"], catch_exceptions=False)
    return result.exit_code, result.stdout


def grimp_cache(root: Path) -> Path:
    return root / ".import_linter_cache"


def swap_in_forbidden_import(path: Path) -> None:
    """Replace ``path`` by a file of the same size and modification time whose first
    line imports the experiment (its change time and bytes differ, as after ``mv``)."""
    status = os.stat(path)
    first, rest = path.read_text(encoding="utf-8").split("\n", 1)
    line = "import leaky.experiment.modes  # "
    assert len(line) < len(first)
    path.write_text(line.ljust(len(first), "x") + "\n" + rest, encoding="utf-8")
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (status.st_size, status.st_mtime_ns)


def test_a_cache_restored_onto_a_fresh_checkout_reads_only_the_edited_file(tmp_path, monkeypatch, scanned):
    root = leaky_project(tmp_path)
    status, first = check_in_process(root, monkeypatch)
    assert status == 1
    assert scanned == MODULES
    # CI: the caches restored, the repository checked out anew (new times and inodes).
    saved = tmp_path / "saved"
    shutil.move(root, saved)
    shutil.copytree(saved, root, copy_function=shutil.copy)
    settle(root, SETTLED + 600)
    model = root / "leaky" / "runtime" / "model.py"
    edit(model, model.read_text() + "\nimport leaky.experiment.runner\n", when=SETTLED + 700)
    scanned.clear()
    status, again = check_in_process(root, monkeypatch)
    assert status == 1
    assert scanned == ["leaky.runtime.model"]  # every other module served by its bytes
    assert "DOM301 leaky.runtime.model imports forbidden leaky.experiment.runner" in again
    assert "DOM301 leaky.runtime.model imports forbidden leaky.experiment.runner" not in first
    # ...and what was read again is served from then on, under its new times.
    scanned.clear()
    shutil.rmtree(root / ".domain_fence_cache" / "runs")  # no replay: the graph is built
    assert check_in_process(root, monkeypatch) == (1, again)
    assert scanned == []


def test_a_file_touched_with_unchanged_bytes_is_not_read_again(tmp_path, monkeypatch, scanned):
    root = leaky_project(tmp_path)
    check_in_process(root, monkeypatch)
    edit(root / "leaky" / "shared.py")  # a new modification time, the same bytes
    edit(root / "leaky" / "runtime" / "setup.py", "def init_telemetry(config):\n    return config\n")
    scanned.clear()
    check_in_process(root, monkeypatch)
    assert scanned == ["leaky.runtime.setup"]


@pytest.mark.parametrize(
    "command",
    [("domain-fence", "check"), ("flake8", "--jobs", "1", "leaky")],
    ids=["check", "flake8"],
)
def test_a_file_swapped_under_the_same_size_and_time_is_read_again(tmp_path, command):
    root = leaky_project(tmp_path)
    (root / ".flake8").write_text(FLAKE8_CONFIG)
    before = run_tool(*command, cwd=root)
    assert before.returncode == 1, before.output
    assert NEW_FINDING not in before.stdout
    swap_in_forbidden_import(root / "leaky" / "runtime" / "setup.py")
    after = run_tool(*command, cwd=root)
    assert after.returncode == 1, after.output
    assert NEW_FINDING in after.stdout


def test_domain_fence_lint_imports_reads_a_swapped_file_again_for_every_contract(tmp_path):
    root = leaky_project(tmp_path)
    assert run_tool("domain-fence-lint-imports", cwd=root).returncode == 1
    swap_in_forbidden_import(root / "leaky" / "runtime" / "setup.py")
    after = run_tool("domain-fence-lint-imports", cwd=root)
    assert after.returncode == 1, after.output
    assert NEW_FINDING in after.stdout  # our boundary contract
    assert "- leaky.runtime.setup -> leaky.experiment.modes (l.1)" in after.stdout  # import-linter's layers


def test_lint_imports_reads_a_swapped_file_afresh_once_check_has_seen_it(tmp_path):
    # lint-imports builds its graph with grimp's own cache before any contract of ours
    # is imported: alone, it keeps a swapped file's old imports (grimp trusts the time).
    # A check sharing its cache reads the file again and corrects grimp's entry.
    root = leaky_project(tmp_path)
    assert run_tool("lint-imports", cwd=root).returncode == 1
    swap_in_forbidden_import(root / "leaky" / "runtime" / "setup.py")
    stale = run_tool("lint-imports", cwd=root)
    assert "leaky.runtime.setup" not in stale.stdout
    assert NEW_FINDING in run_tool("domain-fence", "check", cwd=root).stdout
    fresh = run_tool("lint-imports", cwd=root)
    assert NEW_FINDING in fresh.stdout
    assert "- leaky.runtime.setup -> leaky.experiment.modes (l.1)" in fresh.stdout


def _digests(root: Path) -> Path:
    (found,) = grimp_cache(root).glob("domain-fence-*.digests.json")
    return found


def _grimp_file(suffix: str):
    def find(root: Path) -> Path:
        (found,) = (p for p in grimp_cache(root).glob(f"*{suffix}") if not p.name.startswith("domain-fence-"))
        return found

    return find


DAMAGES = {
    "digests not JSON": (_digests, "{not json"),
    "digests of another format": (_digests, json.dumps({"format": "other", "modules": {}})),
    "digests with malformed records": (
        _digests,
        json.dumps({"format": graph_cache.DIGESTS_FORMAT, "modules": {m: [True, "key", 3] for m in MODULES}}),
    ),
    "digests naming other bytes": (
        _digests,
        json.dumps({"format": graph_cache.DIGESTS_FORMAT, "modules": {m: [0.0, None, "00"] for m in MODULES}}),
    ),
    "grimp's meta file not a mapping": (_grimp_file(".meta.json"), '"x"'),  # grimp itself raises on it
    "grimp's data file not JSON": (_grimp_file(".data.json"), "garbage"),
    "grimp's data file emptied": (_grimp_file(".data.json"), ""),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_cache_is_a_miss_never_an_error(tmp_path, monkeypatch, scanned, damage):
    root = leaky_project(tmp_path)
    first = check_in_process(root, monkeypatch)
    locate, content = DAMAGES[damage]
    locate(root).write_text(content)
    shutil.rmtree(root / ".domain_fence_cache")  # no replay, no facts: the graph is built
    scanned.clear()
    assert check_in_process(root, monkeypatch) == first
    assert scanned == MODULES
    shutil.rmtree(root / ".domain_fence_cache")
    scanned.clear()
    assert check_in_process(root, monkeypatch) == first  # rewritten whole
    assert scanned == []


def test_grimp_is_configured_only_while_our_graph_is_built(tmp_path, monkeypatch):
    assert settings.CACHE_CLASS is Cache
    with graph_cache.content_addressed():
        assert settings.CACHE_CLASS is graph_cache.DigestCache
        with graph_cache.content_addressed():
            assert settings.CACHE_CLASS is graph_cache.DigestCache
        assert settings.CACHE_CLASS is graph_cache.DigestCache
    assert settings.CACHE_CLASS is Cache


def test_a_grimp_configured_otherwise_keeps_its_own_cache(monkeypatch):
    class Elsewhere(Cache):
        pass

    monkeypatch.setattr(settings, "_config", {**settings._config, "CACHE_CLASS": Elsewhere})
    with graph_cache.content_addressed():
        assert settings.CACHE_CLASS is Elsewhere
    assert settings.CACHE_CLASS is Elsewhere


def test_a_grimp_whose_module_files_differ_keeps_its_own_cache(monkeypatch):
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class ModuleFile:  # as a later grimp might shape it
        module: object
        mtime: float
        size: int

    monkeypatch.setattr(graph_cache, "ModuleFile", ModuleFile)
    with graph_cache.content_addressed():
        assert settings.CACHE_CLASS is Cache


def test_digests_that_cannot_be_written_cost_a_read_not_a_second_build(tmp_path, monkeypatch, scanned):
    root = leaky_project(tmp_path)
    first = check_in_process(root, monkeypatch)
    digests = _digests(root)
    digests.unlink()
    digests.mkdir()  # in the way of the file
    shutil.rmtree(root / ".domain_fence_cache")
    scanned.clear()
    assert check_in_process(root, monkeypatch) == first
    assert scanned == MODULES  # read once, the graph built once


def test_a_grimp_without_these_internals_builds_with_its_own_cache(tmp_path, monkeypatch, scanned):
    root = leaky_project(tmp_path)
    expected = check_in_process(root, monkeypatch)
    monkeypatch.setitem(sys.modules, "domain_fence.integrations.importlinter.graph_cache", None)  # unimportable
    with served_by_bytes():
        assert settings.CACHE_CLASS is Cache
    shutil.rmtree(root / ".domain_fence_cache")
    edit(root / "leaky" / "shared.py")  # same bytes, a new time: grimp's own cache reads it again
    scanned.clear()
    assert check_in_process(root, monkeypatch) == expected
    assert scanned == ["leaky.shared"]


def test_a_cold_check_reads_each_file_once_for_its_digest(tmp_path, monkeypatch):
    """The graph's cache, the fact cache and the stored results all record each
    file's digest."""
    root = leaky_project(tmp_path)
    # Settling set every modification time back, which sets every change time to now.
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", 0)
    hashed = recorded(monkeypatch, factcache, "file_digest")
    assert check_in_process(root, monkeypatch)[0] == 1
    sources = sorted(str(path) for path in (root / "leaky").rglob("*.py"))
    assert sorted(path for path, _ in hashed) == sources


def test_a_check_finds_the_project_s_files_once(tmp_path, monkeypatch):
    """The graph is built from the files the engine found as the run started (a walk
    of 3,000 files takes 40 ms), not from a walk of its own."""
    root = leaky_project(tmp_path)
    built = []
    real = index_module.ProjectIndex.build
    monkeypatch.setattr(
        index_module.ProjectIndex,
        "build",
        classmethod(lambda cls, *args, **kwargs: built.append(args) or real(*args, **kwargs)),
    )
    assert check_in_process(root, monkeypatch)[0] == 1
    assert len(built) == 1


def test_a_check_stamps_no_file_again_for_the_graph_s_cache(tmp_path, monkeypatch):
    """The discovery has just stamped every file, in the listings the run's walks share:
    grimp's cache takes those stamps (on 3,000 files, 3,000 stat calls fewer, and as
    many more that fail, for a package's other file name)."""
    root = leaky_project(tmp_path)
    stamped: list[str] = []

    class Counted(factcache.Stamp):
        @classmethod
        def of(cls, path: Path | str) -> factcache.Stamp | None:
            stamped.append(str(path))
            return super().of(path)

    monkeypatch.setattr(graph_cache, "Stamp", Counted)
    assert check_in_process(root, monkeypatch)[0] == 1
    assert stamped == []
    digests = next(grimp_cache(root).glob("domain-fence-*.digests.json"))
    assert sorted(json.loads(digests.read_text())["modules"]) == MODULES


def test_a_file_grimp_sees_another_time_of_is_stamped_again(tmp_path):
    """A discovered stamp stands for the file only while grimp's modification time is
    the stamp's: else the file changed in between, and its stamp is taken anew."""
    path = tmp_path / "pkg" / "module.py"
    path.parent.mkdir()
    path.write_text("A = 1\n")
    stamp = factcache.Stamp.of(path)
    assert stamp is not None
    size, mtime_ns, ctime_ns, inode = stamp.key
    module_file = ModuleFile(module=Module("pkg.module"), mtime=os.path.getmtime(path))
    found = {FoundPackage(name="pkg", directory=str(path.parent), module_files=frozenset({module_file}))}
    earlier = (size - 1, mtime_ns, ctime_ns - 1, inode)  # what grimp cannot tell: the discovery's
    assert graph_cache._module_stamps(found, {str(path): earlier}) == {"pkg.module": (str(path), *earlier)}
    older = (size, mtime_ns - 1_000, ctime_ns, inode)
    assert graph_cache._module_stamps(found, {str(path): older}) == {"pkg.module": stamp}


@pytest.mark.parametrize("alone", [True, False], ids=["alone", "beside-another-build"])
def test_a_build_takes_the_stamps_of_its_own_run_only(tmp_path, monkeypatch, alone):
    """Two builds under way at once (threads of one process): either's stamps may be
    older than what the other's grimp saw, so neither takes any."""
    import grimp

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "module.py").write_text("import pkg\n")
    settle(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(factcache, "_SETTLED_DIGESTS", {})
    path = str(package / "module.py")
    stamp = factcache.Stamp.of(path)
    assert stamp is not None
    # grimp's time, another size: taken as the file's stamp, no record is kept by it.
    planted = {path: (stamp.size + 1, stamp.mtime_ns, stamp.ctime_ns, stamp.ino)}
    cache = tmp_path / "cache"
    with contextlib.ExitStack() as builds:
        if not alone:
            builds.enter_context(graph_cache.content_addressed({}))
        builds.enter_context(graph_cache.content_addressed(planted))
        grimp.build_graph("pkg", cache_dir=str(cache))
    digests = next(cache.glob("domain-fence-*.digests.json"))
    recorded = sorted(json.loads(digests.read_text())["modules"])
    assert recorded == (["pkg"] if alone else ["pkg", "pkg.module"])


def test_a_digest_is_kept_only_for_a_file_whose_times_had_settled_before_it_was_read(tmp_path, monkeypatch):
    """A file rewritten within its time's tick keeps its stamp: only a digest taken
    after both its modification and change times settled may stand for it."""
    monkeypatch.setattr(factcache, "_SETTLED_DIGESTS", {})
    path = tmp_path / "module.py"
    path.write_text("A = 1\n")
    settle(tmp_path)  # its modification time an hour ago, its change time now
    stamp = factcache.Stamp.of(path)
    assert stamp is not None
    factcache.stamped_digest(str(path), stamp.key)
    assert factcache._SETTLED_DIGESTS == {}
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", 0)
    digest = factcache.stamped_digest(str(path), stamp.key)
    kept = dict(factcache._SETTLED_DIGESTS)
    assert kept == {str(path): (stamp.key, digest)}


@pytest.mark.parametrize(
    "arguments, directory",
    [
        ([], ".import_linter_cache"),
        (["--verbose", "--cache-dir", "/tmp/grimp"], "/tmp/grimp"),
        (["--cache-dir=here"], "here"),
        (["--no-cache"], None),
    ],
)
def test_domain_fence_lint_imports_takes_turns_on_the_cache_grimp_writes(arguments, directory):
    # lint-imports beside check (pre-commit runs hooks side by side): both lock grimp's directory.
    from domain_fence.integrations.lint_imports import grimp_cache_dir

    assert grimp_cache_dir(arguments) == (Path(directory) if directory else None)

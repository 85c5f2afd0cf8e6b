"""Findings kept module by module between runs: after an edit, a run checks again
only the modules it must, and reports exactly what a run without any cache reports.

Every edit of :data:`reuse_project.EDITS` moves findings across modules (a base
class, a re-export, a mixin, a helper one call deep, a placement match elsewhere)
or changes what every module is checked against; each is checked through
``domain-fence check`` and through ``lint-imports`` against a run with no cache at
all. Which modules were checked again is read from the engine's counter."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from reuse_project import (
    EDITS,
    append,
    assert_same_as_uncached,
    changed,
    check,
    checked_engine,
    replace,
    rewrite_stored,
    stored_body,
    write_project,
)
from support import run_tool

from domain_fence.core.engine import resultcache
from domain_fence.core.engine.resultcache import FORMAT
from domain_fence.integrations.cli import main
from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

CONTRACTS = (
    "runtime-knows-no-experiment",
    "events-speak-runtime",
    "declarations-speak-runtime",
    "experiment-owns-its-machinery",
)
REUSABLE = CONTRACTS  # boundary's whole result, while no module's imports changed
BOUNDARY, MODULE_BY_MODULE = CONTRACTS[0], CONTRACTS[1:]


def stored_results(root: Path) -> list[Path]:
    """Each contract's stored results (not the module table they share, nor their bodies)."""
    directory = root / ".domain_fence_cache" / "results"
    found = sorted(directory.glob("*.pickle")) if directory.is_dir() else []
    return [path for path in found if not path.name.startswith(("modules-", "body-"))]


def module_tables(root: Path) -> list[Path]:
    return sorted((root / ".domain_fence_cache" / "results").glob("modules-*.pickle"))


@pytest.fixture
def project(tmp_path) -> Path:
    root = write_project(tmp_path / "project")
    with contextlib.chdir(root):  # the first run, in this process: spares a start-up per test
        first = CliRunner().invoke(main, ["check", "--format", "json"])
    assert first.exit_code == 1, first.output
    assert len(stored_results(root)) == len(REUSABLE)
    return root


@pytest.mark.parametrize("change", sorted(EDITS))
def test_a_run_after_an_edit_reports_what_a_run_without_cache_reports(project, change):
    # (A run from what a reusing run stored: the edits in turn, below.)
    EDITS[change](project)
    assert_same_as_uncached(project)


def test_every_edit_in_turn_reports_what_a_run_without_cache_reports(project):
    unreadable = "a module made unreadable"
    for change in [*sorted(set(EDITS) - {unreadable}), unreadable]:
        EDITS[change](project)
        assert_same_as_uncached(project)
    replace(project, "shop/runtime/leaf.py", "def broken(:", "def mended():\n    pass")
    assert_same_as_uncached(project)


def test_a_baseline_recorded_and_edited_is_applied_to_reused_findings(project):
    recorded = run_tool("domain-fence", "baseline", cwd=project)
    assert recorded.returncode == 0, recorded.output
    append(project, "shop/runtime/leaf.py", "\n\ndef _added(value):\n    return value\n")
    assert_same_as_uncached(project)
    assert check(project).returncode == 0  # every finding baselined
    baseline = project / ".domain-fence-baseline.json"
    entries = json.loads(baseline.read_text())
    changed(baseline, json.dumps({**entries, "entries": entries["entries"][1:]}, indent=2))
    assert_same_as_uncached(project)
    assert check(project).returncode == 1


def test_lint_imports_reports_what_it_reports_without_cache(project):
    def lint_imports(*args: str) -> tuple[int, list[str]]:
        done = run_tool("lint-imports", "--no-logo", *args, cwd=project)
        # grimp's cache counts a deleted file among those analysed: not ours to judge.
        lines = [line for line in done.stdout.splitlines() if not re.fullmatch(r"Analyzed .*|-+", line)]
        return done.returncode, lines

    assert lint_imports()[0] == 1
    for change in ("a leaf edited", "an event subclass added elsewhere takes a mixin", "a module deleted"):
        EDITS[change](project)
        assert lint_imports() == lint_imports("--no-cache")


def checked_modules(root: Path, cache: bool = True) -> dict[str, list[str]]:
    """Check every contract as ``domain-fence check`` does; which modules each checked."""
    return checked_engine(root, cache).checked


def test_after_a_leaf_is_edited_only_that_module_is_checked_again(project):
    covered = checked_modules(project, cache=False)
    assert all("shop.runtime.leaf" in covered[contract] and len(covered[contract]) > 5 for contract in CONTRACTS)

    def only(*modules: str) -> dict[str, list[str]]:
        # The leaf's imports are as they were: the boundary's whole result is kept.
        return {**{contract: list(modules) for contract in MODULE_BY_MODULE}, BOUNDARY: []}

    assert checked_modules(project) == only()
    append(project, "shop/runtime/leaf.py", "\n\ndef _added(value):\n    return value\n")
    assert checked_modules(project) == only("shop.runtime.leaf")
    assert checked_modules(project) == only()


def test_what_other_modules_read_changing_checks_everything_again(project):
    covered = checked_modules(project, cache=False)["events-speak-runtime"]
    replace(project, "shop/runtime/helpers.py", "state.episode_index", "state.step_index")
    assert checked_modules(project)["events-speak-runtime"] == covered
    # A function nobody calls is added to the same module: only it is checked again.
    append(project, "shop/runtime/helpers.py", "\n\ndef unused(state):\n    return state.episode_count\n")
    assert checked_modules(project)["events-speak-runtime"] == ["shop.runtime.helpers"]
    # A class's bases changed: every module is checked again.
    replace(project, "shop/runtime/other.py", "class Quiet:", "class Quiet(StepEvent):")
    assert checked_modules(project)["events-speak-runtime"] == covered


def test_a_module_that_could_not_be_analysed_is_checked_again_every_time(project):
    append(project, "shop/runtime/leaf.py", "\ndef broken(:\n")
    checked_modules(project)
    append(project, "shop/runtime/setup.py", "\n# unrelated\n")
    checked = checked_modules(project)["events-speak-runtime"]
    assert checked == ["shop.runtime.leaf", "shop.runtime.setup"]


def test_findings_of_unchanged_modules_come_from_the_store(project):
    """A stored finding altered by hand is reported as stored: proof it was reused
    (the run cache, which would replay the whole report, misses after the edit)."""

    def altered(parts: list[Any]) -> None:
        modules, counts, columns = parts[2]
        messages = tuple("STORED " + message for message in columns[4])
        parts[2] = (modules, counts, (*columns[:4], messages, *columns[5:]))

    for path in stored_results(project):
        assert pickle.loads(path.read_bytes())[0] == FORMAT
        rewrite_stored(path, altered)
    append(project, "shop/runtime/leaf.py", "\n# edited\n")
    report = json.loads(check(project).stdout)
    messages = [f["message"] for c in report["contracts"] if c["id"] in REUSABLE for f in c["findings"]]
    assert messages and all(message.startswith("STORED ") for message in messages)


def test_views_kept_while_the_answers_stay_are_those_taken_module_by_module(project):
    """While the answers are as they were, the views recorded are found at once, not
    module by module: the same, those of the changed module and of the modules read
    since none was recorded taken again."""
    append(project, "shop/runtime/leaf.py", "\n# edited\n")
    engine = engine_for(load_configuration(project / ".importlinter"))
    engine.validate()
    engine.check()
    read_since = ("shop.runtime.events", "shop.runtime.mixins")
    for module in read_since:
        engine.index.file_facts(module)
    assert engine._unsaved
    for results in engine._unsaved:
        stored = results.stored
        assert stored is not None and results.digests.changed(stored.table) == {"shop.runtime.leaf"}
        names = stored.table[0]
        recorded = dict(zip(names, stored.views, strict=True))
        recorded.update({"shop.runtime.leaf": b"before the edit", **dict.fromkeys(read_since)})
        before = dataclasses.replace(stored, views=tuple(recorded.values()))
        at_once = results._views_since(before)
        assert at_once == results._views_each(names, before, before.answers)
        taken = {name for name, view, was in zip(names, at_once, before.views, strict=True) if view != was}
        assert "shop.runtime.leaf" in taken
        assert taken - {"shop.runtime.leaf"} <= set(read_since)


def stored_bodies(root: Path) -> dict[str, tuple[str, str, int]]:
    """Each contract's stored results (by file): the names of their table and body, and
    the body file's inode (a new one when it is written)."""
    return {
        path.name: (*pickle.loads(path.read_bytes())[2:], stored_body(path).stat().st_ino)
        for path in stored_results(root)
    }


@pytest.fixture
def encoded(monkeypatch) -> list[object]:
    """Every body of stored results encoded from now on (not written back as read)."""
    found: list[object] = []
    real = resultcache._body

    def counting(stored: resultcache.StoredResults) -> bytes:
        found.append(stored)
        return real(stored)

    monkeypatch.setattr(resultcache, "_body", counting)
    return found


def test_results_an_edit_left_as_they_were_keep_their_body_as_read(project, encoded):
    before = stored_bodies(project)
    append(project, "shop/runtime/leaf.py", "\n\ndef _added(value):\n    return value\n")
    checked_modules(project)
    after = stored_bodies(project)
    assert not encoded
    assert after.keys() == before.keys()
    assert all(after[name][1:] == before[name][1:] for name in before)  # the same body, not written again
    assert all(after[name][0] != before[name][0] for name in before)  # a new table: leaf.py's digest
    assert_same_as_uncached(project)


def test_results_an_edit_changed_are_encoded_again_and_reused_next_time(project, encoded):
    before = stored_bodies(project)
    EDITS["a noqa comment added"](project)  # a finding of events.py silenced: its comments stored anew
    checked_modules(project)
    after = stored_bodies(project)
    assert encoded
    assert [name for name in before if after[name][1] != before[name][1]]
    append(project, "shop/runtime/leaf.py", "\n# edited\n")
    assert_same_as_uncached(project)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not a pickle"),
        lambda path: path.write_bytes(pickle.dumps(("another format", "key"))),
        lambda path: path.write_bytes(b"\x80\x05cos\nsystem\n."),  # names a function: refused
        lambda path: path.write_bytes(path.read_bytes()[:100]),
        lambda path: stored_body(path).write_bytes(b"\x80\x05cos\nsystem\n."),
        lambda path: stored_body(path).unlink(),
        lambda path: rewrite_stored(path, lambda parts: parts.pop()),
        lambda path: rewrite_stored(path, lambda parts: parts.__setitem__(6, {"shop/runtime/leaf.py": ((1, 2),)})),
    ],
    ids=[
        "garbage",
        "foreign",
        "planted",
        "truncated",
        "planted body",
        "body gone",
        "body of another shape",
        "noqa damaged",
    ],
)
def test_a_damaged_store_costs_a_full_check_never_a_wrong_answer(project, damage):
    for path in stored_results(project):
        damage(path)
    append(project, "shop/runtime/leaf.py", "\n# edited\n")
    assert_same_as_uncached(project)
    assert len(stored_results(project)) == len(REUSABLE)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not a pickle"),
        lambda path: path.write_bytes(
            path.read_bytes().replace(b"shop.", b"shoq.", 1)
        ),  # not the bytes it is named after
        lambda path: path.unlink(),
    ],
    ids=["garbage", "altered", "gone"],
)
def test_a_damaged_module_table_costs_a_full_check_never_a_wrong_answer(project, damage):
    [table] = module_tables(project)  # one, shared by every contract's results
    damage(table)
    append(project, "shop/runtime/leaf.py", "\n# edited\n")
    assert_same_as_uncached(project)
    assert len(stored_results(project)) == len(REUSABLE) and len(module_tables(project)) >= 1


def test_without_a_cache_nothing_is_stored(tmp_path):
    root = write_project(tmp_path / "project")
    environment = {"DOMAIN_FENCE_NO_CACHE": "1"}
    assert run_tool("domain-fence", "check", cwd=root, env=environment).returncode == 1
    assert not stored_results(root)
    assert not os.path.exists(root / ".domain_fence_cache")


def test_a_long_lived_engine_told_of_a_change_reuses_nothing_stale(project):
    """The language server keeps one engine: a file changed on disk is checked anew."""
    engine = engine_for(load_configuration(project / ".importlinter"))
    engine.validate()
    engine.check()
    replace(project, "shop/runtime/helpers.py", "state.episode_index", "state.step_index")
    engine.file_changed(project / "shop/runtime/helpers.py")
    after = engine.check()
    fresh_configuration = load_configuration(project / ".importlinter")
    fresh_configuration.cache_dir = None
    fresh = engine_for(fresh_configuration)
    fresh.validate()
    assert after == fresh.check()
    assert not any(f.code == "DOM105" for result in after for f in result.findings)


def test_an_edited_allowed_module_the_placement_scan_never_read_keeps_its_findings(project):
    # The runner is parsed by other contracts in a full run (the boundary reads every
    # module) but never by the placement scan (its pattern is matched elsewhere): its
    # view is what its bytes may define, whoever parsed it, so editing its body checks
    # it alone, on a run where no other contract parses it first.
    checked_modules(project, cache=False)
    checked_modules(project)
    for edit_number in range(2):
        append(project, "shop/experiment/runner.py", f"\n\ndef _helper_{edit_number}():\n    return None\n")
        assert checked_modules(project)["experiment-owns-its-machinery"] == ["shop.experiment.runner"]


def test_one_look_at_the_files_read_vouches_for_every_contract_stored(tmp_path, monkeypatch):
    from domain_fence.core.engine.resultcache import Digests

    root = write_project(tmp_path / "project")
    looks = []
    real = Digests.unchanged
    monkeypatch.setattr(Digests, "unchanged", lambda self: looks.append(self) or real(self))
    with contextlib.chdir(root):
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
    assert len(looks) == 1
    assert len(stored_results(root)) == len(REUSABLE)


def test_a_file_changed_while_the_run_reads_keeps_every_contract_from_storing(tmp_path, monkeypatch):
    from domain_fence.core.engine.reuse import ModuleResults

    root = write_project(tmp_path / "project")
    real = ModuleResults.save

    def save_then_edit(self, *args, **kwargs):
        real(self, *args, **kwargs)
        append(root, "shop/runtime/leaf.py", "\n# edited while the run reads\n")

    monkeypatch.setattr(ModuleResults, "save", save_then_edit)
    with contextlib.chdir(root):
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
    assert stored_results(root) == []
    monkeypatch.undo()
    assert_same_as_uncached(root)


def test_the_stamps_a_run_begins_with_are_the_ones_its_discovery_took(tmp_path, monkeypatch):
    from domain_fence.core.engine import resultcache

    root = write_project(tmp_path / "project")
    stamped = []
    real = resultcache.file_stamp
    monkeypatch.setattr(resultcache, "file_stamp", lambda path: stamped.append(path) or real(path))
    configuration = load_configuration(root / ".importlinter")
    engine = engine_for(configuration)
    # None taken when the run begins: discovery took every file's, packages' __init__.py too.
    assert stamped == []
    files = {module for module, path in engine.index.modules.items() if path.name.endswith(".py")}
    assert files and engine.index.discovered_stamps.keys() == files


def test_a_file_changed_between_its_discovery_and_its_reading_keeps_every_contract_from_storing(tmp_path, monkeypatch):
    from domain_fence.core.index.project import ProjectIndex

    root = write_project(tmp_path / "project")
    real = ProjectIndex.build.__func__

    def build_then_edit(cls, *args, **kwargs):
        index = real(cls, *args, **kwargs)
        append(root, "shop/runtime/leaf.py", "\n# edited once discovered\n")
        return index

    monkeypatch.setattr(ProjectIndex, "build", classmethod(build_then_edit))
    with contextlib.chdir(root):
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
    assert stored_results(root) == []
    monkeypatch.undo()
    assert_same_as_uncached(root)

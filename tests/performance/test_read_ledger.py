"""What a run stores is vouched for by the files it read, looked at once more when it
ends: a file it did not read was known by the digest its stamp stands for, and all
it found of that file came from what is kept under that digest.

Every source file a run opens (seen through Python's ``open`` audit event, whoever
opens it) must be one its ledger names, or the ledger must say that files were read
it cannot name (grimp's build of the graph): else a file changed while it was read
could leave results stored under a digest that is not theirs."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from reuse_project import EDITS, append, assert_same_as_uncached, replace, write_project

from domain_fence.core.engine import resultcache
from domain_fence.core.engine.reuse import ModuleResults
from domain_fence.core.source import factcache
from domain_fence.integrations.cli import main

LEAF = "shop/runtime/leaf.py"

# Audit hooks cannot be removed: one for the session, recording only while a test asks.
_OPENED: list[list[str]] = []


def _record_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _OPENED and isinstance(args[0], str | os.PathLike):
        _OPENED[-1].append(os.path.abspath(os.fspath(args[0])))


sys.addaudithook(_record_opens)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    # A file is settled once written (its change time cannot be set back as its
    # modification time is): else the files of a project written a moment ago are all
    # hashed again by every run, and vouched for.
    monkeypatch.setattr(factcache, "RACY_WINDOW_NS", 0)
    monkeypatch.setattr(resultcache, "RACY_WINDOW_NS", 0)
    root = write_project(tmp_path / "project")
    with contextlib.chdir(root):
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
    return root


def run_recording(root: Path) -> tuple[set[str], list[tuple[set[str], bool]]]:
    """Check ``root`` in this process: the source files opened, and each ledger the
    run's end looked at (the paths it names, whether files were read unseen)."""
    from domain_fence.core.engine.resultcache import Digests

    ledgers: list[tuple[set[str], bool]] = []
    real = Digests.unchanged

    def looked_at(self: Digests) -> bool:
        ledgers.append(({os.path.abspath(path) for path in self.read.paths}, self.read.unseen))
        return real(self)

    _OPENED.append([])
    try:
        with pytest.MonkeyPatch.context() as patched, contextlib.chdir(root):
            patched.setattr(Digests, "unchanged", looked_at)
            assert CliRunner().invoke(main, ["check"]).exit_code == 1
    finally:
        opened = _OPENED.pop()
    sources = str(root / "shop") + os.sep
    return {path for path in opened if path.startswith(sources) and path.endswith(".py")}, ledgers


@pytest.mark.parametrize("change", sorted(EDITS))
def test_every_source_file_a_run_opens_is_named_by_its_ledger(project, change):
    EDITS[change](project)
    opened, ledgers = run_recording(project)
    assert len(ledgers) == 1
    named, unseen = ledgers[0]
    assert unseen or opened <= named, sorted(opened - named)


def test_a_leaf_edited_is_the_one_file_its_run_vouches_for(project):
    append(project, LEAF, "\n\ndef _added(value):\n    return value\n")
    opened, ledgers = run_recording(project)
    assert ledgers == [({str(project / LEAF)}, False)]
    assert opened == {str(project / LEAF)}


def test_an_import_edited_builds_the_graph_and_every_file_is_looked_at(project):
    replace(project, LEAF, "\n", "\nimport shop.runtime.other\n")
    _, ledgers = run_recording(project)
    assert [unseen for _, unseen in ledgers] == [True]


def stored(root: Path) -> dict[str, bytes]:
    directory = root / ".domain_fence_cache" / "results"
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def check_editing(root: Path, path: Path, change: Callable[[str], str]) -> None:
    """Check ``root``, changing ``path`` once the first contract's results are made,
    while the run goes on."""
    real = ModuleResults.save
    edited: list[Path] = []

    def save_then_edit(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if not edited:
            edited.append(path)
            path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")

    with pytest.MonkeyPatch.context() as patched, contextlib.chdir(root):
        patched.setattr(ModuleResults, "save", save_then_edit)
        assert CliRunner().invoke(main, ["check"]).exit_code == 1
    assert edited


def test_a_file_the_run_read_changed_while_it_reads_keeps_every_contract_from_storing(project):
    append(project, LEAF, "\n\ndef _added(value):\n    return value\n")
    before = stored(project)
    check_editing(project, project / LEAF, lambda text: text + "\n# edited while the run reads\n")
    assert stored(project) == before
    assert_same_as_uncached(project)


def test_a_file_the_run_did_not_read_changing_while_it_reads_leaves_what_it_stored_true(project):
    append(project, LEAF, "\n\ndef _added(value):\n    return value\n")
    before = stored(project)
    # A finding of the helpers goes, after the run took their digest from its records.
    helpers = project / "shop/runtime/helpers.py"
    check_editing(project, helpers, lambda text: text.replace("state.episode_index", "state.step_index"))
    assert stored(project) != before  # stored: what the run found, of the versions it read
    report = assert_same_as_uncached(project)  # and the next run sees the helpers' change
    assert "episode_index" not in str(report)


def test_files_read_by_worker_processes_are_named_by_the_ledger(project, monkeypatch):
    from domain_fence.core.index import project as index_module
    from domain_fence.core.index import workers

    # What a new process starts from, with no facts kept: every module checked again
    # is parsed, by worker processes, though no file changed.
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(index_module, "_FLOWS", {})
    monkeypatch.setattr(factcache, "_OPEN", {})
    monkeypatch.setattr(index_module, "PARALLEL_MIN_FILES", 2)
    for facts in (project / ".domain_fence_cache").glob("facts-*"):
        facts.unlink()
    sent: list[str] = []
    real = workers.map_in_workers

    def recording(count, work, chunks):
        sent.extend(os.path.abspath(job.path) for chunk in chunks for job in chunk)
        return real(count, work, chunks)

    monkeypatch.setattr(workers, "map_in_workers", recording)
    EDITS["the configuration changed"](project)
    _, ledgers = run_recording(project)
    assert len(sent) > 5
    [(named, unseen)] = ledgers
    assert not unseen
    assert set(sent) <= named


def test_every_open_ledger_is_told_and_a_dropped_one_is_forgotten():
    import gc

    from domain_fence.core.source import reading

    first, second = reading.ReadLedger(), reading.ReadLedger()
    reading.note_reads([Path("a.py")])
    reading.note_unseen_reads()
    assert first.paths == second.paths == {"a.py"} and first.unseen and second.unseen
    del first
    gc.collect()
    third = reading.ReadLedger()
    assert all(reference() is not None for reference in reading._LEDGERS)
    reading.note_reads(["b.py"])
    assert second.paths == {"a.py", "b.py"} and third.paths == {"b.py"} and not third.unseen


def test_reads_noted_by_a_thread_while_ledgers_open_and_are_looked_at_lose_nothing():
    import threading

    from domain_fence.core.engine.resultcache import Digests
    from domain_fence.core.source import reading

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # a thread switch between almost any two bytecodes
    done = threading.Event()
    failures: list[BaseException] = []

    def noting() -> None:
        try:
            count = 0
            while not done.is_set():
                reading.note_reads([f"/nowhere/{count % 500}.py"])
                count += 1
        except BaseException as error:  # noqa: BLE001 -- reported by the test
            failures.append(error)

    helper = threading.Thread(target=noting)
    helper.start()
    try:
        kept = []
        for _ in range(300):
            digests = Digests({"/nowhere/x.py": "x"})
            kept.append(digests)
            assert digests.unchanged()
    finally:
        done.set()
        helper.join()
        sys.setswitchinterval(interval)
    assert failures == []
    reading.note_reads(["/nowhere/last.py"])  # every ledger opened is still told
    assert all("/nowhere/last.py" in digests.read.paths for digests in kept)


def test_the_files_handed_to_worker_processes_are_noted_before_they_go(monkeypatch):
    from domain_fence.core.index import project as index_module
    from domain_fence.core.index import workers
    from domain_fence.core.source import reading

    ledger = reading.ReadLedger()
    handed: list[set[str]] = []

    def as_if_in_workers(count, work, chunks):
        handed.append(set(ledger.paths))  # what the ledger named when the workers started
        return [[None] * len(chunk) for chunk in chunks]

    monkeypatch.setattr(workers, "map_in_workers", as_if_in_workers)
    jobs = [index_module._Job(f"shop.m{n}", False, Path(f"/nowhere/m{n}.py"), None) for n in range(6)]
    assert index_module._in_workers(jobs, 2, 1, lambda chunk: chunk) == [None] * 6
    assert handed == [{f"/nowhere/m{n}.py" for n in range(6)}]

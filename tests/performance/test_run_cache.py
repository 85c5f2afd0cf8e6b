"""The run cache: ``domain-fence check`` on unchanged inputs replays its last report,
and any change to any input runs the check again.

A stored report is replaced by a marker text: seeing the marker proves a replay, not
seeing it after a change proves the change was noticed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from perf_support import SETTLED, among, edit, imports_of_a_check, leaky_project, python, recorded, settle
from support import keep_json, kept_json, run_tool

from domain_fence.core.engine import runcache
from domain_fence.core.engine.engine import Engine
from domain_fence.core.engine.runcache import Inputs, input_digest
from domain_fence.core.source.cachedir import sealed
from domain_fence.integrations.cli import main

MARKER = "REPLAYED FROM THE RUN CACHE\n"
SETTLED_NS = int(SETTLED * 1e9)


def check(root: Path, *args: str, env: dict[str, str] | None = None):
    return run_tool("domain-fence", "check", *args, cwd=root, env=env)


def runs(root: Path) -> list[Path]:
    directory = root / ".domain_fence_cache" / "runs"
    return sorted(directory.glob("*.json")) if directory.is_dir() else []


def replayable(root: Path) -> list[Path]:
    """The stored reports that may be replayed: a report whose inputs could not be
    vouched for is kept without a digest, for the settings it read."""
    return [path for path in runs(root) if kept_json(path)["digest"] is not None]


def mark_stored_reports(root: Path) -> None:
    for path in runs(root):
        entry = kept_json(path)
        entry["text"] = MARKER
        keep_json(path, entry)


def check_here(root: Path, *args: str):
    """``domain-fence check`` in this process: the command's run, without the start-up
    of one (what a test then asserts runs as a user runs it)."""
    with contextlib.chdir(root):
        return CliRunner().invoke(main, ["check", *args])


@pytest.fixture
def project(tmp_path) -> Path:
    root = leaky_project(tmp_path)
    first = check_here(root)
    assert first.exit_code == 1, first.output
    assert len(runs(root)) == 1
    mark_stored_reports(root)
    return root


def test_an_unchanged_project_replays_the_last_report(project):
    replayed = check(project)
    assert (replayed.returncode, replayed.stdout) == (1, MARKER)
    into_file = check(project, "--output", "report.txt")
    assert into_file.returncode == 1 and (project / "report.txt").read_text() == MARKER


# What a replay needs none of: the analysis, the fact cache, init's planning, the
# contract types and the libraries a full check runs. (Of the index, only the pause of
# the cyclic collector, which the command line's own imports run under.)
NOT_IMPORTED_BY_A_REPLAY = (
    "domain_fence.core.engine.baseline",
    "domain_fence.core.engine.engine",
    "domain_fence.core.families",
    "domain_fence.core.index.blockers",
    "domain_fence.core.index.isolation",
    "domain_fence.core.index.project",
    "domain_fence.core.index.workers",
    "domain_fence.core.model.text",
    "domain_fence.core.setup.helpers",
    "domain_fence.core.setup.layout",
    "domain_fence.core.setup.presets",
    "domain_fence.core.source.factcache",
    "domain_fence.core.source.modules",
    "domain_fence.core.source.facts",
    "domain_fence.integrations.importlinter",
    "grimp",
    "importlinter",
    "rich",
)


def test_a_replay_imports_neither_the_analysis_nor_the_libraries_of_a_check(project):
    replayed, status, modules = imports_of_a_check("check", cwd=project)
    assert replayed.stdout == MARKER, replayed.stderr
    assert status == 1
    assert among(modules, NOT_IMPORTED_BY_A_REPLAY) == []
    # Into a file, nor to learn that the file is none the run reads.
    replayed, status, modules = imports_of_a_check("check", "--output", "report.txt", cwd=project)
    assert (project / "report.txt").read_text() == MARKER, replayed.stderr
    assert among(modules, NOT_IMPORTED_BY_A_REPLAY) == []


@pytest.mark.parametrize("output", [".importlinter", ".domain-fence-baseline.json"])
def test_a_replayed_report_is_never_written_over_what_the_run_read(project, output):
    before = (project / output).read_bytes() if (project / output).exists() else None
    refused = check(project, "--output", output)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.startswith(f"domain-fence: error: --output {output}: is "), refused.stderr
    assert ((project / output).read_bytes() if (project / output).exists() else None) == before
    assert check(project).stdout == MARKER  # refused on the replay's own inputs: still replayed


THE_CONSOLE_SCRIPT_WATCHED_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print(f"frozen at exit: {gc.get_freeze_count() > 0}", file=sys.stderr))
from domain_fence.integrations.cli import run
sys.argv[0] = "domain-fence"
run()
"""


def test_the_console_script_leaves_what_is_alive_out_of_the_collections_at_exit(project):
    ended = python(THE_CONSOLE_SCRIPT_WATCHED_AT_EXIT, "check", cwd=project)
    # The exit handlers still run, after the report and with its status.
    assert (ended.returncode, ended.stdout, ended.stderr) == (1, MARKER, "frozen at exit: True\n")


THE_MODULE_RUN_WATCHED_AT_EXIT = """
import atexit, gc, runpy, sys
atexit.register(lambda: print(f"frozen at exit: {gc.get_freeze_count() > 0}", file=sys.stderr))
sys.argv[0] = "domain-fence"
runpy.run_module("domain_fence.integrations.cli", run_name="__main__", alter_sys=True)  # python -m
"""


def test_python_dash_m_runs_the_command_as_the_console_script_does(project):
    ended = python(THE_MODULE_RUN_WATCHED_AT_EXIT, "check", cwd=project)
    assert (ended.returncode, ended.stdout, ended.stderr) == (1, MARKER, "frozen at exit: True\n")


def test_the_report_replayed_is_the_report_of_a_full_run(tmp_path):
    root = leaky_project(tmp_path)
    full = check(root)
    replayed = check(root)
    fresh = check(root, "--no-cache")
    assert full.stdout == replayed.stdout == fresh.stdout
    assert full.returncode == replayed.returncode == fresh.returncode == 1


def grow(path: Path) -> None:
    edit(path, path.read_text() + "\n# grown\n")


def rewrite(path: Path, old: str, new: str) -> None:
    edit(path, path.read_text().replace(old, new))


def add_package(directory: Path) -> None:
    directory.mkdir()
    edit(directory / "__init__.py", "")


CHANGES = {
    "a module touched": lambda root: edit(root / "leaky" / "shared.py"),
    "a module grown": lambda root: grow(root / "leaky" / "runtime" / "model.py"),
    "a module added": lambda root: edit(root / "leaky" / "runtime" / "new.py", "import leaky.experiment\n"),
    "a module removed": lambda root: (root / "leaky" / "runtime" / "legacy.py").unlink(),
    "a module renamed": lambda root: (root / "leaky" / "shared.py").rename(root / "leaky" / "common.py"),
    "another file in a package": lambda root: edit(root / "leaky" / "runtime" / "notes.txt", "x"),
    "a subpackage added": lambda root: add_package(root / "leaky" / "extra"),
    "the configuration edited": lambda root: rewrite(root / ".importlinter", "  episode\n", "  episode\n    step\n"),
    "the configuration touched only": None,  # same bytes: no change, replayed
    "the baseline edited": lambda root: rewrite(root / ".domain-fence-baseline.json", "\n", "\n\n"),
    "the baseline removed": lambda root: (root / ".domain-fence-baseline.json").unlink(),
    "another configuration file appears": lambda root: edit(root / "setup.cfg", "[flake8]\nselect = DOM\n"),
}


@pytest.mark.parametrize("change", sorted(name for name, change in CHANGES.items() if change))
def test_any_change_to_an_input_runs_the_check_again(project, change):
    CHANGES[change](project)
    rerun = check(project)
    assert rerun.stdout != MARKER
    assert "Traceback" not in rerun.output
    replayed = check(project)  # the new report, stored
    assert (replayed.returncode, replayed.stdout, replayed.stderr) == (rerun.returncode, rerun.stdout, rerun.stderr)
    if change != "a module renamed":  # grimp's own cache keeps imports of the old name: see the report
        fresh = check(project, "--no-cache")
        assert (rerun.returncode, rerun.stdout) == (fresh.returncode, fresh.stdout)


def test_a_configuration_touched_but_unchanged_is_still_replayed(project):
    edit(project / ".importlinter")
    assert check(project).stdout == MARKER


@pytest.mark.parametrize(
    "args",
    [("--format", "json"), ("--quiet",), ("--verbose",), ("--config", ".importlinter"), ("--config", ".")],
)
def test_other_options_are_another_invocation(project, args):
    assert check(project, *args).stdout != MARKER


def test_the_github_workspace_is_an_input_of_the_report(project, tmp_path):
    assert check(project, env={"GITHUB_WORKSPACE": str(tmp_path)}).stdout != MARKER
    assert check(project).stdout == MARKER


def test_a_run_from_another_directory_is_another_invocation(project):
    assert check(project / "leaky", "--config", str(project)).stdout != MARKER


def test_no_cache_neither_replays_nor_stores(project):
    assert check(project, "--no-cache").stdout != MARKER
    os.remove(runs(project)[0])
    check(project, "--no-cache")
    assert runs(project) == []


def test_a_damaged_run_entry_is_ignored(project):
    [entry] = runs(project)
    stored = entry.read_bytes()
    flipped = bytearray(stored)
    flipped[stored.index(b"REPLAYED")] ^= 1  # a bit of the report flipped on disk: still JSON
    as_written = [b"", b"{", stored[4:], bytes(flipped)]
    shaped = ["[]", '{"version": 1}', json.dumps({**kept_json(entry), "status": "1"})]
    for damage in [*as_written, *(sealed(text.encode()) for text in shaped)]:
        entry.write_bytes(damage)
        rerun = check(project)
        replayed = "EPLAYED FROM THE RUN CACHE" in rerun.stdout  # as written, or as damaged
        assert rerun.returncode == 1 and not replayed and "Traceback" not in rerun.output


def test_fresh_files_are_not_replayed_until_they_settle(tmp_path):
    root = leaky_project(tmp_path)
    os.utime(root / "leaky" / "shared.py")  # modified just now: may change again unseen
    check(root)
    assert replayable(root) == []
    settle(root)
    check(root)
    assert len(replayable(root)) == 1


def test_an_edit_after_a_link_that_loops_is_not_replayed_away(tmp_path):
    """A link to itself sorted before the package's files: the edit that removes a
    forbidden import is seen by the next check, as by one without any cache."""
    root = leaky_project(tmp_path)
    (root / "leaky" / "aaa").symlink_to("aaa")
    first = check(root)
    assert "leaky/runtime/model.py" in first.stdout and len(runs(root)) == 1
    edit(root / "leaky" / "runtime" / "model.py", '"""A model."""\n\nimport math\n')
    assert check(root).stdout == check(root, "--no-cache").stdout != first.stdout


def test_a_symlinked_directory_turns_replay_off(tmp_path):
    root = leaky_project(tmp_path)
    (tmp_path / "outside").mkdir()
    (root / "leaky" / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    check(root)
    assert replayable(root) == []


CUSTOM_CONTRACT = '''
from importlinter import Contract, ContractCheck


class Anything(Contract):
    """A contract that could read anything at all."""

    def check(self, graph, verbose):
        return ContractCheck(kept=True)

    def render_broken_contract(self, check):
        pass
'''


def test_a_third_party_contract_type_turns_replay_off(tmp_path):
    root = leaky_project(tmp_path)
    (root / "custom_contract.py").write_text(CUSTOM_CONTRACT)
    config = root / ".importlinter"
    text = config.read_text().replace(
        "    placement: domain_fence.integrations.importlinter.PlacementContract\n",
        "    placement: domain_fence.integrations.importlinter.PlacementContract\n"
        "    anything: custom_contract.Anything\n",
    )
    config.write_text(text + "\n[importlinter:contract:anything]\nname = Anything\ntype = anything\n")
    settle(root)
    first = check(root, env={"PYTHONPATH": str(root)})
    assert "Anything" in first.stdout, first.output
    assert runs(root) == []


# -- the digest: the tools and the interpreter are inputs too ----------------------------


def test_a_change_to_a_tool_changes_the_digest(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    tool = tmp_path / "site" / "some_tool"
    tool.mkdir(parents=True)
    (tool / "__init__.py").write_text("VERSION = 1\n")
    settle(tool.parent)
    monkeypatch.syspath_prepend(str(tool.parent))
    monkeypatch.setattr(runcache, "TOOLS", (*runcache.TOOLS, "some_tool"))
    inputs = Inputs((str(root / ".importlinter"),), (), ("leaky",), str(root))
    before = input_digest(inputs)
    assert None not in before and input_digest(inputs) == before
    edit(tool / "__init__.py", "VERSION = 2\n")
    changed = input_digest(inputs)
    assert None not in changed and changed.setup != before.setup and changed.whole != before.whole
    edit(tool / "_native.so", "binary")
    again = input_digest(inputs)
    assert None not in again and again.setup not in (before.setup, changed.setup)


def test_the_interpreter_is_an_input(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    inputs = Inputs((str(root / ".importlinter"),), (), ("leaky",), str(root))
    before = input_digest(inputs)
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert input_digest(inputs).setup != before.setup  # settings recorded under another are not used


def test_a_missing_root_package_is_part_of_the_digest(tmp_path):
    root = leaky_project(tmp_path)
    present = Inputs((), (), ("leaky",), str(root))
    missing = Inputs((), (), ("leaky", "not_here_at_all"), str(root))
    assert input_digest(present) != input_digest(missing)
    assert os.stat(root / ".importlinter").st_mtime + 1 > SETTLED


def test_a_run_after_a_missed_replay_walks_the_inputs_once(project, monkeypatch):
    edit(project / "leaky" / "shared.py", (project / "leaky" / "shared.py").read_text() + "\nX = 1\n")
    walked = recorded(monkeypatch, runcache, "input_digest", "domain_fence.integrations.cli.input_digest")
    result = check_here(project)
    assert result.exit_code == 1 and result.stdout != MARKER
    # The replay's look only: the run starts from it, and stores its report under it.
    assert len(walked) == 1
    replayed = check(project)  # ...and the report it stored is replayed
    assert (replayed.returncode, replayed.stdout) == (1, result.stdout)


@pytest.mark.skipif(os.name == "nt", reason="Windows gives no inode, and a creation time for the change time")
def test_a_file_changed_while_the_check_runs_is_never_replayed_as_it_was(project, monkeypatch):
    """The report is stored under the inputs' digest before the check: a file rewritten
    meanwhile (same size, its modification time set back) has a new change time, so
    the next run's digest differs."""
    edit(project / "leaky" / "shared.py", (project / "leaky" / "shared.py").read_text() + "\nX = 1\n")
    model = project / "leaky" / "runtime" / "telemetry.py"
    before = model.stat()
    text = model.read_text()
    rewritten = text.replace("episode", "epilogs", 1)
    assert rewritten != text and len(rewritten) == len(text)
    real = Engine.check_contract

    def rewriting(self, spec):
        if model.read_text() == text:
            model.write_text(rewritten)
            os.utime(model, ns=(before.st_atime_ns, before.st_mtime_ns))
        return real(self, spec)

    monkeypatch.setattr(Engine, "check_contract", rewriting)
    assert check_here(project).exit_code == 1
    monkeypatch.undo()
    mark_stored_reports(project)
    rerun = check(project)
    assert rerun.stdout != MARKER
    fresh = check(project, "--no-cache")
    assert (rerun.returncode, rerun.stdout) == (fresh.returncode, fresh.stdout)


def test_a_run_right_after_an_edit_walks_the_inputs_once(project, monkeypatch):
    shared = project / "leaky" / "shared.py"
    shared.write_text(shared.read_text() + "\nX = 1\n")  # modified now: within the racy window
    walked = recorded(monkeypatch, runcache, "input_digest", "domain_fence.integrations.cli.input_digest")
    result = check_here(project)
    assert result.exit_code == 1 and result.stdout != MARKER
    # The replay could not vouch for a file this recent, nor could a walk after it: the
    # run neither walks again nor stores a report it cannot vouch for.
    assert [digest.whole for _, digest in walked] == [None]
    assert check(project).stdout == result.stdout


def baseline_behind_a_link(root: Path) -> tuple[Path, Path]:
    """The project's baseline made a symbolic link to ``bl/a.json`` (as recorded), beside
    ``bl/b.json`` (empty): the two report differently."""
    baseline = root / ".domain-fence-baseline.json"
    (root / "bl").mkdir()
    first, second = root / "bl" / "a.json", root / "bl" / "b.json"
    first.write_text(baseline.read_text())
    entries = json.loads(baseline.read_text())
    second.write_text(json.dumps({**entries, "entries": []}, indent=2) + "\n")
    baseline.unlink()
    baseline.symlink_to(first)
    settle(root)
    return first, second


def retarget(link: Path, target: Path) -> None:
    link.unlink()
    link.symlink_to(target)


def test_a_baseline_link_sent_to_another_file_is_a_change(tmp_path):
    root = leaky_project(tmp_path)
    _, second = baseline_behind_a_link(root)
    first_report = check_here(root)
    retarget(root / ".domain-fence-baseline.json", second)
    rerun = check_here(root)
    fresh = check_here(root, "--no-cache")
    assert rerun.stdout != first_report.stdout
    assert (rerun.exit_code, rerun.stdout) == (fresh.exit_code, fresh.stdout)


def _tree_digest(top: Path) -> str:
    digest = hashlib.sha256()
    assert runcache._walk(top, digest) is not None
    return digest.hexdigest()


def test_every_python_file_s_stamp_is_in_the_tree_s_digest(tmp_path):
    """A Python file's stamps are fed as numbers, in its name's order: each file's
    modification time, size and inode count, and swapping two files' stamps too."""
    for name in ("a.py", "b.py", "notes.txt"):
        (tmp_path / name).write_text("x = 1\n")
    os.utime(tmp_path / "a.py", ns=(SETTLED_NS, SETTLED_NS))
    os.utime(tmp_path / "b.py", ns=(SETTLED_NS + 1, SETTLED_NS + 1))
    first = _tree_digest(tmp_path)
    assert _tree_digest(tmp_path) == first
    os.utime(tmp_path / "a.py", ns=(SETTLED_NS + 1, SETTLED_NS + 1))
    os.utime(tmp_path / "b.py", ns=(SETTLED_NS, SETTLED_NS))  # the two times swapped
    swapped = _tree_digest(tmp_path)
    assert swapped != first
    (tmp_path / "b.py").write_text("x = 22\n")  # another size
    os.utime(tmp_path / "b.py", ns=(SETTLED_NS, SETTLED_NS))
    assert _tree_digest(tmp_path) not in (first, swapped)


def test_a_python_file_that_cannot_be_stat_ed_leaves_its_neighbours_in_the_digest(tmp_path):
    """A link to nothing named like a module is recorded with its error: the files after
    it in the directory still count (they were once left out, and a change to them
    replayed the report of the files before)."""
    (tmp_path / "a.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "b.py").write_text("x = 1\n")
    first = _tree_digest(tmp_path)
    edit(tmp_path / "b.py", "x = 22\n")
    grown = _tree_digest(tmp_path)
    edit(tmp_path / "c.py", "")
    assert len({first, grown, _tree_digest(tmp_path)}) == 3
    (tmp_path / "nowhere.py").write_text("")  # the link now leads to a file
    assert _tree_digest(tmp_path) not in (first, grown)


@pytest.mark.parametrize("name", ["aaa", "aaa.py"])
def test_a_link_that_loops_leaves_its_neighbours_in_the_digest(tmp_path, name):
    """Following a link to itself fails (too many levels of links): it is recorded with
    its error, and the entries after it, files and directories below, still count (they
    were once left out: an edit below the package replayed the report of before it)."""
    (tmp_path / name).symlink_to(name)
    (tmp_path / "b.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.py").write_text("y = 1\n")
    first = _tree_digest(tmp_path)
    edit(tmp_path / "b.py", "x = 22\n")
    grown = _tree_digest(tmp_path)
    edit(tmp_path / "sub" / "c.py", "y = 22\n")
    assert len({first, grown, _tree_digest(tmp_path)}) == 3


def test_a_stamp_too_large_for_eight_bytes_is_written_out():
    assert (
        runcache._packed([1, 2**63]) == len(b"1 9223372036854775808").to_bytes(8, "little") + b"1 9223372036854775808"
    )
    assert runcache._packed([1, 2]) != runcache._packed([1, 2, 0])


def _baseline_inputs(root: Path) -> Inputs:
    return Inputs((), (str(root / ".domain-fence-baseline.json"),), ("leaky",), str(root))


def test_a_settled_baseline_stands_by_its_stamp_a_fresh_one_by_its_bytes(tmp_path, monkeypatch):
    """Hashing a baseline of thousands of entries costs a run more than walking the tree:
    once it has settled, its stamp is digested, as a Python file's is."""
    root = leaky_project(tmp_path)
    baseline = root / ".domain-fence-baseline.json"
    read = recorded(monkeypatch, runcache, "read_regular_file")
    with monkeypatch.context() as settling:  # the copy's change time is now: as if it had settled
        settling.setattr(runcache, "RACY_WINDOW_NS", 0)
        settled = input_digest(_baseline_inputs(root))
    assert settled.whole is not None and [path for path, _ in read] == []
    os.utime(baseline)  # the same bytes, modified just now: they may change again unseen
    fresh = input_digest(_baseline_inputs(root))
    assert [path for path, _ in read] == [str(baseline)]
    assert fresh.whole not in (None, settled.whole)


@pytest.mark.skipif(os.name == "nt", reason="Windows gives no inode, and a creation time for the change time")
def test_a_baseline_rewritten_with_its_size_and_times_kept_is_a_change(tmp_path, monkeypatch):
    """Digested by its stamp (every file taken as settled), the rewrite shows in it."""
    monkeypatch.setattr(runcache, "RACY_WINDOW_NS", 0)
    read = recorded(monkeypatch, runcache, "read_regular_file")
    root = leaky_project(tmp_path)
    baseline = root / ".domain-fence-baseline.json"
    before = input_digest(_baseline_inputs(root))
    status = baseline.stat()
    text = baseline.read_text()
    rewritten = text.replace("DOM", "MOD", 1)
    assert rewritten != text and len(rewritten) == len(text)
    baseline.write_text(rewritten)
    os.utime(baseline, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert baseline.stat().st_ctime_ns != status.st_ctime_ns or baseline.stat().st_ino != status.st_ino
    assert input_digest(_baseline_inputs(root)).whole != before.whole
    assert read == []

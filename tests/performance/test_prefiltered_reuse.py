"""The vocabulary contracts pass over the files that cannot hold a finding
(``families.vocabulary.prefilter``), and their results are still kept between runs
exactly: after every edit, ``domain-fence check`` with its caches reports what a run
without any cache reports, whether the edit makes a passed-over file matter, changes a
file read only through another's names, or leaves a passed-over file as irrelevant as
it was (then nothing else is checked again, and no import graph is built)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from perf_support import settle
from reuse_project import EDITS, append, assert_same_as_uncached, check, checked_engine, create, replace, write_project

import domain_fence.integrations.importlinter.results as results
from domain_fence.core.source.facts import ImportFacts
from domain_fence.integrations.cli import main
from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

# Files that mention no event name and no word, enough for the filter to pay.
FILLERS = {f"shop/runtime/filler_{n:02}.py": f"def area_{n}(width):\n    return width\n" for n in range(24)}
MORE = {
    **FILLERS,
    # A class outside the contract, constructed by a module that names only it.
    "shop/experiment/thing.py": "class Thing:\n    pass\n",
    "shop/runtime/maker.py": "from shop.experiment.thing import Thing\n\n\ndef make():\n    return Thing(episode=1)\n",
    # A module alias read through a module that names no event.
    "shop/runtime/aliasing.py": "import shop.runtime.base as basemod\n",
    "shop/runtime/viaalias.py": (
        "from shop.runtime.aliasing import basemod\n\n\nclass Rec(basemod.Event):\n    episode_mark: int = 0\n"
    ),
    # A function that builds no event from its keywords yet, called by a module that
    # names no event: no emit function, until it builds one (its imports unchanged).
    "shop/runtime/relay.py": (
        "from shop.runtime.events import StepEvent\n\n\ndef relay(**fields):\n    return dict(**fields)\n\n\n"
        "KNOWN = StepEvent\n"
    ),
    "shop/runtime/relaying.py": "from shop.runtime.relay import relay\n\n\ndef go():\n    return relay(episode=1)\n",
}
PASSED_OVER_EDITS = {
    "a passed-over class becomes an event": lambda root: create(
        root, "shop/experiment/thing.py", "from shop.runtime.base import Event\n\n\nclass Thing(Event):\n    pass\n"
    ),
    "a module alias read through a passed-over module changes": lambda root: replace(
        root, "shop/runtime/aliasing.py", "shop.runtime.base", "shop.runtime.middle"
    ),
    "a passed-over module edited": lambda root: append(root, "shop/runtime/filler_03.py", "\n# edited\n"),
    "a passed-over module names a word": lambda root: append(
        root, "shop/runtime/filler_04.py", "\n\ndef count(episode_total):\n    return episode_total\n"
    ),
    "a passed-over module cannot be parsed": lambda root: append(root, "shop/runtime/filler_05.py", "\ndef (:\n"),
    "a function a passed-over module calls now builds an event from its keywords": lambda root: replace(
        root, "shop/runtime/relay.py", "dict(**fields)", "StepEvent(**fields)"
    ),
}


def project_at(root: Path) -> Path:
    write_project(root)
    for name, text in MORE.items():
        create(root, name, text)
    settle(root)  # every file as old as the project's: its facts are cached
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    root = project_at(tmp_path / "project")
    assert check(root).returncode == 1
    return root


def codes(report: dict, path: str) -> list[str]:
    return sorted(f["code"] for c in report["contracts"] for f in c["findings"] if f["path"] == path)


def test_every_edit_in_turn_reports_what_a_run_without_cache_reports(project):
    for change, edit in [*PASSED_OVER_EDITS.items(), *sorted(EDITS.items())]:
        edit(project)
        report = assert_same_as_uncached(project)
        if change == "a passed-over class becomes an event":
            assert "DOM104" in codes(report, "shop/runtime/maker.py")
        if change == "a module alias read through a passed-over module changes":
            assert "DOM101" not in codes(report, "shop/runtime/viaalias.py")
        if change == "a passed-over module cannot be parsed":
            assert "DOM001" in codes(report, "shop/runtime/filler_05.py")
        if change == "a function a passed-over module calls now builds an event from its keywords":
            assert "DOM104" in codes(report, "shop/runtime/relaying.py")


def test_a_file_that_can_hold_no_finding_is_read_for_its_imports_alone(tmp_path):
    index = checked_engine(project_at(tmp_path), cache=False).index
    assert index.known_facts("shop.runtime.filler_00") is None
    assert isinstance(index.known_imports("shop.runtime.filler_00"), ImportFacts)
    assert index.known_facts("shop.runtime.events") is not None  # it defines an event
    assert index.known_facts("shop.runtime.viaalias") is not None  # it names Event
    assert index.known_facts("shop.runtime.aliasing") is not None  # resolution read it


def test_an_edit_to_a_passed_over_file_checks_it_alone_and_builds_no_graph(project, monkeypatch):
    built: list[int] = []
    build = results.build_graph
    monkeypatch.setattr(results, "build_graph", lambda *a, **k: built.append(1) or build(*a, **k))
    PASSED_OVER_EDITS["a passed-over module edited"](project)
    checked = checked_engine(project).checked
    assert checked["events-speak-runtime"] == ["shop.runtime.filler_03"]
    assert checked["declarations-speak-runtime"] == ["shop.runtime.filler_03"]
    assert checked["runtime-knows-no-experiment"] == []  # its imports are as they were
    assert built == []


def test_when_most_files_name_an_event_every_covered_file_is_read(tmp_path):
    root = write_project(tmp_path / "project")
    for n in range(12):  # Django's fields: nearly every model module names one
        create(
            root,
            f"shop/runtime/model_{n:02}.py",
            f"from shop.runtime.base import Event\n\n\nclass M{n}(Event):\n    pass\n",
        )
    checking = checked_engine(root, cache=False)
    checker = next(
        value[1]
        for key, value in checking.context.memo.items()
        if key[0] == "vocabulary-checker-of" and value[1].config.contract == "events-speak-runtime"
    )
    assert checker.prefilter is not None and checker.prefilter.everything
    runtime = [m for m in checking.index.modules if m.startswith("shop.runtime.")]
    assert all(checking.index.known_facts(m) is not None for m in runtime)


def test_a_full_check_with_the_facts_cached_parses_no_passed_over_file(project, monkeypatch):
    from domain_fence.core.index import project as index_module

    parsed: list[str] = []
    imports_of = index_module._imports_of
    monkeypatch.setattr(
        index_module, "_imports_of", lambda jobs: parsed.extend(j.module for j in jobs) or imports_of(jobs)
    )
    # A new word no file holds: every stored result is of another configuration, no
    # fact is, and the same files are passed over.
    replace(project, ".importlinter", "words =\n    episode\n", "words =\n    episode\n    zeppelin\n")
    with contextlib.chdir(project):
        CliRunner().invoke(main, ["check"])
    assert parsed == []
    checking = checked_engine(project)
    assert checking.index.known_facts("shop.runtime.filler_00") is None  # passed over, as before


def test_an_editor_buffer_that_changes_what_a_base_resolves_to_is_seen_by_passed_over_files(tmp_path):
    """The language server's engine keeps its checker across keystrokes: one that makes
    the configured base name another class must let the files naming that class be read."""
    root = project_at(tmp_path / "project")
    create(root, "shop/runtime/other_base.py", "class OtherBase:\n    pass\n")
    create(
        root,
        "shop/runtime/uses_other.py",
        "from shop.runtime.other_base import OtherBase\n\n\nclass Step(OtherBase):\n    episode_id: int = 0\n",
    )
    configuration = load_configuration(root / ".importlinter")
    configuration.cache_dir = None
    editor = engine_for(configuration)
    uses_other = root / "shop/runtime/uses_other.py"
    assert "DOM101" not in [f.code for f in editor.findings_in(uses_other).reported]
    # The base the contract names (shop.runtime.base.Event) is now another class.
    edited = "from shop.runtime.other_base import OtherBase as Event\n"
    editor.findings_in(root / "shop/runtime/base.py", edited)
    (root / "shop/runtime/base.py").write_text(edited)
    fresh = engine_for(configuration)
    assert [f.code for f in editor.findings_in(uses_other).reported] == [
        f.code for f in fresh.findings_in(uses_other).reported
    ]
    assert "DOM101" in [f.code for f in fresh.findings_in(uses_other).reported]

"""flake8 takes what ``domain-fence check`` takes. Run on the whole project, the
plugin checks each contract once, as ``check`` does (reusing and saving the results
kept between runs), and each file's findings are its share; run on a few files, it
takes the results an earlier run kept and checks again only the modules changed
since. Either way its report is ``check``'s, after every edit that moves findings
across modules: compared in this process for each edit, and through the real
``flake8`` for one. Which modules were checked one by one is read from a counter."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from reuse_project import EDITS, append, write_project
from support import run_tool

from domain_fence.integrations import flake8 as plugin
from domain_fence.integrations.cli import main

Located = tuple[str, int, int, str]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "project")


def python_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "shop").rglob("*.py"))


def uncached(root: Path) -> set[Located]:
    """What ``check`` reports reading every file afresh, at Python files."""
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache"])
    report = json.loads(result.stdout)
    return {
        (f["path"], f["line"], f["column"], f["code"])
        for contract in report["contracts"]
        for f in contract["findings"]
        if f["path"].endswith(".py")
    }


@contextlib.contextmanager
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every module a family checks on its own, from now on."""
    checked: list[str] = []
    for family in {spec.family for spec in _specs()}:
        real = type(family).check_module

        def spy(self, config, context, module, real=real):
            checked.append(module)
            return real(self, config, context, module)

        monkeypatch.setattr(type(family), "check_module", spy)
    yield checked


def _specs():
    project = plugin.project_for(None)
    assert project is not None
    return project.engine.contracts


def plugin_run(root: Path, monkeypatch: pytest.MonkeyPatch, paths: list[str]) -> tuple[set[Located], list[str]]:
    """The plugin's findings at ``paths``, as one flake8 run over ``paths`` gives them
    (a new process: a new project), and the modules checked one by one meanwhile."""
    monkeypatch.chdir(root)
    monkeypatch.setattr(plugin, "_PROJECTS", {})
    project = plugin.project_for(None)
    assert project is not None
    with counted(monkeypatch) as checked:
        project.prepare(paths)
        before = len(checked)
        files = [p for p in python_files(root) if any(p == q or p.startswith(q.rstrip("/") + "/") for q in paths)]
        found = {
            (file, finding.line, finding.col + 1, finding.code)  # flake8 shows columns from 1
            for file in files
            for finding in project.findings(file, (root / file).read_text(encoding="utf-8"))
        }
        one_by_one = checked[before:]
    return found, one_by_one


@pytest.mark.parametrize("name", list(EDITS))
def test_after_an_edit_the_whole_project_run_reports_what_check_reports(project, monkeypatch, name):
    plugin_run(project, monkeypatch, ["shop"])  # keeps every contract's results
    EDITS[name](project)
    found, one_by_one = plugin_run(project, monkeypatch, ["shop"])
    assert found == uncached(project)
    assert one_by_one == []  # each file's findings are its share of the contracts'


@pytest.mark.parametrize("name", list(EDITS))
def test_after_an_edit_a_run_on_the_edited_files_reports_what_check_reports_there(project, monkeypatch, name):
    plugin_run(project, monkeypatch, ["shop"])
    before = {path: path.read_bytes() for path in project.rglob("*.py")}
    EDITS[name](project)
    edited = sorted(
        p.relative_to(project).as_posix()
        for p in project.rglob("*.py")
        if p.read_bytes() != before.get(p) and p.is_relative_to(project / "shop")
    )
    found, _ = plugin_run(project, monkeypatch, edited or ["shop/runtime/leaf.py"])
    expected = {f for f in uncached(project) if f[0] in (edited or ["shop/runtime/leaf.py"])}
    assert found == expected


def test_a_run_on_one_edited_file_checks_only_that_module(project, monkeypatch):
    plugin_run(project, monkeypatch, ["shop"])
    append(project, "shop/runtime/leaf.py", "\n\ndef scaled(episode_size):\n    return episode_size\n")
    found, one_by_one = plugin_run(project, monkeypatch, ["shop/runtime/leaf.py"])
    assert ("shop/runtime/leaf.py", 5, 12, "DOM112") in found
    # Each contract that covers it checks it again; every other module is taken as kept.
    assert set(one_by_one) == {"shop.runtime.leaf"}
    engine = plugin.project_for(None).engine
    assert engine.context._graph is None  # its imports did not change: no graph built


def test_without_kept_results_a_few_files_are_checked_one_by_one(project, monkeypatch):
    found, one_by_one = plugin_run(project, monkeypatch, ["shop/runtime/emit.py"])
    assert found == {f for f in uncached(project) if f[0] == "shop/runtime/emit.py"}
    assert "shop.runtime.emit" in one_by_one


def test_the_real_flake8_reports_what_check_reports_after_a_cross_module_edit(project):
    def flake8() -> set[Located]:
        result = run_tool("flake8", "--select", "DOM", "shop", cwd=project)
        assert result.stderr == "", result.stderr
        return {
            (path.removeprefix("./"), int(line), int(col), message.split()[0])
            for path, line, col, message in (row.split(":", 3) for row in result.stdout.splitlines())
        }

    assert flake8() == uncached(project)
    assert (project / ".domain_fence_cache" / "results").is_dir()  # the whole run kept them
    EDITS["a helper's return value changed"](project)  # DOM105 in emit.py goes
    assert flake8() == uncached(project)
    EDITS["a base class in another module now derives from an event"](project)  # Later becomes an event
    assert flake8() == uncached(project)

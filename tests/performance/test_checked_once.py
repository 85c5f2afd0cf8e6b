"""What a whole check computes once though two steps read it: a module's crossing imports
(its boundary findings and the outcome's chains), the placement scan (the project's
findings and each module's), a file's text (its statements, columns and noqa
comments), the lines of a file split no further than the statements read."""

from __future__ import annotations

import collections
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from perf_support import edit, leaky_project

from domain_fence.core.families import boundary
from domain_fence.core.families.placement import definitions
from domain_fence.core.index import project as index_module
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source import factcache, statements


def check_in_process(root: Path, monkeypatch: Any) -> dict[str, dict[str, Any]]:
    """``domain-fence check --no-cache --format json`` as a new process runs it, in
    this one: each contract's report, by type."""
    from domain_fence.integrations.cli import main

    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(factcache, "_OPEN", {})
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 1  # every family broken
    return {contract["type"]: contract for contract in json.loads(result.stdout)["contracts"]}


def counted(monkeypatch: Any, owner: object, name: str, key: Any) -> collections.Counter[Any]:
    """How often ``owner.name`` is called, by ``key`` of its arguments (it still runs)."""
    calls: collections.Counter[Any] = collections.Counter()
    real = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[key(*args)] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_a_module_s_crossing_imports_are_found_once_for_its_findings_and_the_chains(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    crossings = counted(monkeypatch, boundary, "_crossings", lambda config, context, graph, routes, module: module)
    report = check_in_process(root, monkeypatch)["boundary"]
    assert report["findings"] and report["dependencies"]  # the chains, made from the crossing imports
    assert crossings, "the boundary contract checked no module"
    assert max(crossings.values()) == 1, crossings


def test_the_boundary_asks_the_graph_for_importers_of_the_routes_not_for_each_module_s_imports(tmp_path, monkeypatch):
    """Which source modules may cross is known from the search for routes, which asks for
    the importers of each module a route leaves from: no source module's imports are
    asked for, crossing or not."""
    from grimp import ImportGraph

    root = leaky_project(tmp_path)
    imports_of = counted(monkeypatch, ImportGraph, "find_modules_directly_imported_by", lambda graph, module: module)
    importers_of = counted(monkeypatch, ImportGraph, "find_modules_that_directly_import", lambda graph, module: module)
    report = check_in_process(root, monkeypatch)["boundary"]
    assert report["findings"], "the boundary contract found no crossing import"
    assert not imports_of, imports_of
    assert importers_of and max(importers_of.values()) == 1, importers_of


def test_a_check_of_the_boundary_alone_takes_each_module_s_view_once(tmp_path, monkeypatch):
    """The views the boundary could not give when it was checked are taken again when the
    run ends only if facts were read since (by later contracts): alone, nothing was."""
    from domain_fence.integrations.cli import main

    root = leaky_project(tmp_path)
    config = (root / ".importlinter").read_text(encoding="utf-8")
    (root / ".importlinter").write_text(config.split("[importlinter:contract:runtime-events")[0], encoding="utf-8")
    views = counted(
        monkeypatch, boundary.BoundaryFamily, "module_view", lambda family, config, context, module, read: module
    )
    monkeypatch.setattr(index_module, "_MEMORY", {})
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check", "--format", "json"], catch_exceptions=False)
    assert json.loads(result.stdout)["contracts"][0]["findings"]
    assert views and max(views.values()) == 1, views


def test_a_placement_check_scans_the_project_once(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    scans = counted(monkeypatch, definitions, "_scan", lambda index, modules, *rest: len(list(modules)))
    report = check_in_process(root, monkeypatch)["placement"]
    assert any(finding["code"] == "DOM201" for finding in report["findings"])
    assert sum(scans.values()) == 1, scans  # not once more per module outside the allowed ones


def test_a_file_s_text_is_read_again_once_its_stamp_changed(tmp_path):
    root = leaky_project(tmp_path)
    index = ProjectIndex.build(root, ["leaky"], cache_dir=None)
    module = "leaky.shared"
    before = index.text(module)
    assert before is not None and index.text(module) == before
    edit(index.modules[module], before + "ADDED = 1\n")
    assert index.text(module) == before + "ADDED = 1\n"


def _all_lines(text: str) -> list[str]:
    """The physical lines as the statements' reader numbered them, split whole."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


@pytest.mark.parametrize(
    "text",
    ["", "\n", "a", "a\n", "a\nb", "a\r\nb\rc\n", "\f\n\n", "x = (1,\n 2)\n" * 100, "line\n" * 300 + "last"],
)
@pytest.mark.parametrize("wanted", [0, 1, 2, 65, 400])
def test_the_lines_of_a_file_are_split_as_far_as_asked_as_they_would_be_whole(text, wanted):
    lines = statements._PhysicalLines(text)
    whole = _all_lines(text)
    count = lines.count(wanted)
    assert count >= min(wanted, len(whole))
    assert lines.lines == whole[:count]
    assert list(lines.starting(max(wanted, 1))) == whole[max(wanted, 1) - 1 :]
    assert lines.lines == whole


def test_a_whole_check_of_the_boundary_asks_only_the_modules_that_may_cross(tmp_path, monkeypatch):
    """Which source modules import a module with a route to a forbidden one is known for
    all at once: the others are not checked one by one (thousands, on a large project)."""
    root = leaky_project(tmp_path)
    checked = counted(
        monkeypatch, boundary.BoundaryFamily, "check_module", lambda family, config, context, module: module
    )
    report = check_in_process(root, monkeypatch)["boundary"]
    crossing = {finding["symbol"] for finding in report["findings"] + report["baselined"] + report["suppressed"]}
    assert crossing and set(checked) == crossing, (checked, crossing)

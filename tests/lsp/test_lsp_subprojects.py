"""A workspace folder whose projects lie in subdirectories (a repository opened at its
root, its import-linter configuration in ``pkg/``; a monorepo): each file is served by
the nearest configuration from its directory upward, no higher than the folder."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lsp_support import (
    BROKEN,
    Editor,
    assert_a_buffer_closed_unsaved_no_longer_counts,
    codes,
    copy_station,
    initialize,
    watched_change,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from domain_fence.integrations.cli import main

pytestmark = pytest.mark.asyncio

FORBIDDEN_IMPORT = "from station.experiment.runner import MODE\n"
FIELDS = "    episode: int\n    epoch: int\n"


def repository(tmp_path: Path, *projects: str) -> Path:
    """A repository's root holding a copy of the station project in each of ``projects``
    (subdirectories), and no configuration of its own."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for name in projects:
        copy_station(root, name)
    return root


def checked_in(project: Path) -> dict[str, list[tuple[int, int, str]]]:
    """What ``domain-fence check`` run in ``project`` reports, per file: (0-based line,
    0-based column, code), as the server places its diagnostics."""
    with contextlib.chdir(project):
        result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    found: dict[str, list[tuple[int, int, str]]] = {}
    for contract in json.loads(result.stdout)["contracts"]:
        for finding in contract["findings"]:
            found.setdefault(finding["path"], []).append((finding["line"] - 1, finding["column"] - 1, finding["code"]))
    return {path: sorted(set(places)) for path, places in found.items()}


async def test_a_project_in_a_subdirectory_is_served_as_check_serves_it_there(client: LanguageClient, tmp_path: Path):
    root = repository(tmp_path, "pkg")
    pkg = root / "pkg"
    for name, text in BROKEN.items():
        (pkg / name).write_text(text)
    await initialize(client, root)
    served = {}
    for name in (*BROKEN, "station/runtime/legacy.py", "station/experiment/runner.py"):
        served[name] = codes(await Editor(client, pkg / name).open())
    expected = checked_in(pkg)
    assert served == {name: expected.get(name, []) for name in served}
    # the forbidden import, the event field, the misplaced function, the event built with
    # the word; the noqa'd import and field, and the baselined legacy field, hidden
    expected_model = [(0, 38, "DOM301"), (7, 4, "DOM101"), (11, 0, "DOM201"), (12, 19, "DOM104")]
    assert served["station/runtime/model.py"] == expected_model
    assert served["station/runtime/legacy.py"] == []
    logged = [m.message for m in client.log_messages if "configuration" in m.message]
    assert logged == [f"domain-fence: {pkg / '.importlinter'}: the configuration of the files below {pkg}"]


async def test_two_projects_in_one_folder_each_get_their_own(client: LanguageClient, tmp_path: Path):
    root = repository(tmp_path, "pkg", "other")
    config = root / "other" / ".importlinter"
    config.write_text(config.read_text().replace("    episode\n", "    epoch\n"))
    script = root / "scripts" / "tool.py"  # under no configuration
    script.parent.mkdir()
    script.write_text(FORBIDDEN_IMPORT)
    await initialize(client, root)
    found = {}
    for name in ("pkg", "other"):
        editor = Editor(client, root / name / "station/runtime/model.py")
        await editor.open()
        found[name] = [d.message.split("'")[1] for d in await editor.replace(editor.text + FIELDS)]
    assert found == {"pkg": ["episode"], "other": ["epoch"]}
    assert await Editor(client, script).open() == []


async def test_a_subprojects_baseline_and_configuration_are_watched(client: LanguageClient, tmp_path: Path):
    root = repository(tmp_path, "pkg")
    pkg = root / "pkg"
    await initialize(client, root)
    legacy = Editor(client, pkg / "station/runtime/legacy.py")
    assert await legacy.open() == []
    baseline = pkg / ".domain-fence-baseline.json"
    baseline.write_text('{"format": "domain-fence-baseline", "version": 1, "entries": []}\n')
    diagnostics = await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(baseline)))
    assert codes(diagnostics) == [(4, 4, "DOM101")]

    # Broken, the configuration shows why on its file, as a workspace folder's does.
    config = pkg / ".importlinter"
    good = config.read_text()
    config.write_text(good.replace("    station.experiment\nbaseline", "    station.experimnt\nbaseline"))
    assert await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(config))) == []
    (problem,) = client.diagnostics[config.as_uri()]
    assert problem.severity == types.DiagnosticSeverity.Error
    assert problem.range.start.line == 8  # [importlinter:contract:runtime-knows-no-experiment]
    assert "forbidden_modules: module 'station.experimnt' does not exist" in problem.message

    config.write_text(good)
    diagnostics = await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(config)))
    assert codes(diagnostics) == [(4, 4, "DOM101")]
    assert list(client.diagnostics[config.as_uri()]) == []

    # Deleted, its files are served from further up: here, by nothing.
    config.unlink()
    change = watched_change(config, types.FileChangeType.Deleted)
    assert await legacy.after(lambda: client.workspace_did_change_watched_files(change)) == []
    assert list(client.diagnostics[config.as_uri()]) == []  # no problem shown on a file gone
    assert codes(await legacy.replace(FORBIDDEN_IMPORT + legacy.text)) == []


async def test_a_configuration_created_in_a_subdirectory_is_used(client: LanguageClient, tmp_path: Path):
    root = repository(tmp_path, "pkg")
    config = root / "pkg" / ".importlinter"
    text = config.read_text()
    config.unlink()
    await initialize(client, root)
    editor = Editor(client, root / "pkg/station/runtime/model.py")
    assert await editor.open() == []
    config.write_text(text)
    change = watched_change(config, types.FileChangeType.Created)
    assert await editor.after(lambda: client.workspace_did_change_watched_files(change)) == []
    assert codes(await editor.replace(FORBIDDEN_IMPORT + editor.text)) == [(0, 38, "DOM301")]


async def test_the_nearest_configuration_serves_a_file_below_the_folders_own(client: LanguageClient, tmp_path: Path):
    """A project inside a project served from the folder's root (a vendored copy, a
    fixture): its files are checked against its own configuration, as ``check`` run
    there checks them; the others against the folder's."""
    station = copy_station(tmp_path)
    nested = copy_station(station, "vendored")
    config = nested / ".importlinter"
    config.write_text(config.read_text().replace("    episode\n", "    epoch\n"))
    await initialize(client, station)
    found = {}
    for project in (station, nested):
        editor = Editor(client, project / "station/runtime/model.py")
        await editor.open()
        found[project.name] = [d.message.split("'")[1] for d in await editor.replace(editor.text + FIELDS)]
    assert found == {"station": ["episode"], "vendored": ["epoch"]}


PLAIN = """[importlinter]
root_packages = station

[importlinter:contract:layers]
name = layers
type = layers
layers =
    station.runtime.model
    station.runtime.telemetry
"""


async def test_a_configuration_of_import_linter_alone_serves_no_file(client: LanguageClient, tmp_path: Path):
    """A configuration below the folder's that registers no domain-fence contract type
    is import-linter's alone (here one domain-fence would refuse, its root packages on
    one line): the folder's configuration still serves the files below it."""
    station = copy_station(tmp_path)
    (station / "station/runtime/setup.cfg").write_text(PLAIN, encoding="utf-8")
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    assert [d.message.split("'")[1] for d in await editor.replace(editor.text + FIELDS)] == ["episode"]


async def test_a_buffer_of_a_subproject_closed_unsaved_no_longer_counts(client: LanguageClient, tmp_path: Path):
    root = repository(tmp_path, "pkg")
    pkg = root / "pkg"
    await initialize(client, root)
    await assert_a_buffer_closed_unsaved_no_longer_counts(client, pkg)

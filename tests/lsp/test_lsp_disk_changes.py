"""What changes on disk under the server: a file rewritten behind the editor's back, a
baseline that cannot be read, a baseline wherever the configuration puts it, a package
directory moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import Editor, codes, initialize, until, watched_change
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

FORBIDDEN_IMPORT = "from station.experiment.runner import MODE\n"
EPISODE_FIELD = "    episode: int\n"
EMPTY_BASELINE = '{"format": "domain-fence-baseline", "version": 1, "entries": []}\n'
LEGACY_ENTRY = (
    '{"format": "domain-fence-baseline", "version": 1, "entries": [{"contract": "runtime-events-speak-runtime",'
    ' "fingerprint": "DOM101:station.runtime.legacy:LegacyStats.episode", "description": "recorded"}]}\n'
)


async def test_a_buffer_reloaded_from_a_file_changed_on_disk_is_checked_as_the_new_file(
    client: LanguageClient, station: Path
):
    """`git checkout` (or another editor) rewrites an open file, and the editor reloads
    the buffer from it: no save, and no watched-file event before the reload."""
    await initialize(client, station)
    target = station / "station/runtime/model.py"
    clean = target.read_text()
    model = Editor(client, target)
    assert await model.open() == []

    broken = FORBIDDEN_IMPORT + clean + EPISODE_FIELD
    target.write_text(broken)
    assert codes(await model.replace(broken)) == [(0, 38, "DOM301"), (6, 4, "DOM101")]

    target.write_text(clean)  # and back: the findings fixed on disk are gone
    assert await model.replace(clean) == []


async def test_a_baseline_that_cannot_be_read_is_shown_on_it_from_the_first_check(
    client: LanguageClient, station: Path
):
    """The baseline is first read by the first file's check, before the project is
    validated: its problem is the baseline's, not an internal error of every file."""
    baseline = station / ".domain-fence-baseline.json"
    baseline.write_text('{"format": "domain-fence-baseline", "version": 1, "entries": [\n<<<<<<< HEAD\n]}\n')
    await initialize(client, station)
    assert await Editor(client, station / "station/runtime/legacy.py").open() == []
    (problem,) = client.diagnostics[baseline.as_uri()]  # published before the file's
    assert problem.range.start.line == 1
    assert problem.message.startswith("configuration cannot be used: baseline holds merge conflict markers")
    assert not [m.message for m in client.log_messages if "internal error" in m.message]


def _baseline_at(station: Path, baseline: str) -> None:
    config = station / ".importlinter"
    config.write_text(config.read_text().replace("baseline = .domain-fence-baseline.json", f"baseline = {baseline}"))


def _watchers(registrations: list[types.RegistrationParams]) -> list:
    return [
        w["globPattern"]
        for params in registrations
        for r in params.registrations
        for w in r.register_options["watchers"]
    ]


@pytest.mark.parametrize("relative", [True, False], ids=["relative-patterns", "plain-patterns"])
async def test_a_baseline_of_any_name_is_watched(client: LanguageClient, station: Path, relative: bool):
    _baseline_at(station, "lint/fence-baseline")
    registrations: list[types.RegistrationParams] = []
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: registrations.append(params))
    await initialize(client, station, watch=True, relative=relative)
    baseline = station / "lint/fence-baseline"
    relative_pattern = {"baseUri": baseline.parent.as_uri(), "pattern": baseline.name}
    expected = relative_pattern if relative else "**/lint/fence-baseline"  # below the folder
    await until(lambda: expected in _watchers(registrations))


async def test_a_baseline_outside_the_folder_is_watched_and_read_again(
    client: LanguageClient, tmp_path: Path, station: Path
):
    outside = tmp_path / "records" / "fence-baseline"
    outside.parent.mkdir()
    outside.write_text(EMPTY_BASELINE)
    _baseline_at(station, str(outside))
    registrations: list[types.RegistrationParams] = []
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: registrations.append(params))
    await initialize(client, station, watch=True, relative=True)
    legacy = Editor(client, station / "station/runtime/legacy.py")
    assert codes(await legacy.open()) == [(4, 4, "DOM101")]

    outside.write_text(LEGACY_ENTRY)  # `domain-fence baseline` in a terminal
    assert await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(outside))) == []
    assert {"baseUri": outside.parent.as_uri(), "pattern": outside.name} in _watchers(registrations)


async def test_a_baseline_moved_by_the_configuration_is_watched_instead(client: LanguageClient, station: Path):
    _baseline_at(station, "lint/fence-baseline")
    registrations: list[types.RegistrationParams] = []
    unregistered: list[types.UnregistrationParams] = []
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: registrations.append(params))
    client.feature(types.CLIENT_UNREGISTER_CAPABILITY)(lambda params: unregistered.append(params))
    await initialize(client, station, watch=True, relative=True)
    legacy = Editor(client, station / "station/runtime/legacy.py")
    assert codes(await legacy.open()) == [(4, 4, "DOM101")]
    await until(
        lambda: {"baseUri": (station / "lint").as_uri(), "pattern": "fence-baseline"} in _watchers(registrations)
    )
    (first,) = [r.id for params in registrations for r in params.registrations if r.id != "domain-fence-watch"]

    config = station / ".importlinter"
    config.write_text(config.read_text().replace("lint/fence-baseline", "records/fence-baseline"))
    await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(config)))
    moved = {"baseUri": (station / "records").as_uri(), "pattern": "fence-baseline"}
    await until(lambda: moved in _watchers(registrations[-1:]))
    assert [u.id for params in unregistered for u in params.unregisterations] == [first]


async def test_a_package_directory_moved_is_read_again(client: LanguageClient, station: Path):
    """Many clients tell of a folder moved or deleted with one event for the folder,
    none for the files in it."""
    package = station / "station/runtime/kinds"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n"
    )
    journal = station / "station/runtime/journal.py"
    journal.write_text(journal.read_text().replace("station.runtime.records", "station.runtime.kinds"))
    await initialize(client, station)
    editor = Editor(client, journal)
    assert codes(await editor.open()) == [(4, 4, "DOM101")]

    package.rename(station / "station/runtime/kinds2")  # Record is no event journal can name
    events = types.DidChangeWatchedFilesParams(
        changes=[
            types.FileEvent(uri=package.as_uri(), type=types.FileChangeType.Deleted),
            types.FileEvent(uri=(station / "station/runtime/kinds2").as_uri(), type=types.FileChangeType.Created),
        ]
    )
    assert await editor.after(lambda: client.workspace_did_change_watched_files(events)) == []

    (station / "station/runtime/kinds2").rename(package)  # and back, a created folder alone
    change = watched_change(package, types.FileChangeType.Created)
    assert codes(await editor.after(lambda: client.workspace_did_change_watched_files(change))) == [(4, 4, "DOM101")]

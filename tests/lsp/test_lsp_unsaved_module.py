"""A module not saved yet (a new file, a new package) is checked as you type, as the
module it will be once saved: the findings `domain-fence check` reports then, at the
same lines and columns. Closed without being saved, it is forgotten."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lsp_support import SERVER_COMMAND, Editor, codes, initialize
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

# Every contract of the station breaks in it: a forbidden import (DOM301), an event
# field and keyword with an experiment word (DOM101, DOM104), a definition that
# belongs under experiment (DOM201).
FRESH = (
    "from station.experiment.runner import MODE\n"
    "from station.runtime.telemetry import Event\n\n\n"
    "class Fresh(Event):\n"
    "    episode: int\n\n\n"
    "def init_telemetry():\n"
    "    return Fresh(episode=1) if MODE else None\n"
)
FOUND = [(0, 38, "DOM301"), (5, 4, "DOM101"), (8, 0, "DOM201"), (9, 17, "DOM104")]
# A class of the new module made an event: journal.py's Entry derives from it.
FRESH_EVENT = "from station.runtime.telemetry import Event\n\n\nclass Fresh(Event):\n    pass\n"
JOURNAL = "from station.runtime.fresh import Fresh\n\n\nclass Entry(Fresh):\n    episode: int\n"


def checked(station: Path, path: Path) -> list[tuple[int, int, str]]:
    """What `domain-fence check` reports at ``path`` (saved), 0-based as the editor counts."""
    completed = subprocess.run(
        [SERVER_COMMAND[0], "check", "--format", "json", "--no-cache"],
        cwd=station,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(completed.stdout)
    shown = path.relative_to(station).as_posix()
    return sorted(  # once for the file, however many contracts report it (DOM001)
        {
            (f["line"] - 1, f["column"] - 1, f["code"])
            for contract in report["contracts"]
            for f in contract["findings"]
            if f["path"] == shown
        }
    )


# A module, one named like no identifier (grimp's module all the same), a package.
@pytest.mark.parametrize(
    "name", ["station/runtime/fresh.py", "station/runtime/my-fresh.py", "station/runtime/motion/__init__.py"]
)
async def test_a_new_module_is_checked_as_you_type_as_check_reports_it_once_saved(
    client: LanguageClient, station: Path, name: str
):
    await initialize(client, station)
    fresh = Editor(client, station / name, FRESH)
    assert codes(await fresh.open()) == FOUND
    assert codes(await fresh.replace(FRESH.replace("episode", "step"))) == [(0, 38, "DOM301"), (8, 0, "DOM201")]
    assert codes(await fresh.replace(FRESH)) == FOUND
    assert not fresh.path.exists()
    fresh.save()
    assert checked(station, fresh.path) == FOUND


async def test_a_new_module_in_a_directory_without_init_is_reported_as_check_reports_it(
    client: LanguageClient, station: Path
):
    await initialize(client, station)
    fresh = Editor(client, station / "station/runtime/motion/fresh.py", FRESH)
    diagnostics = await fresh.open()
    assert codes(diagnostics) == [(0, 0, "DOM001")]
    assert "not analysed: motion/ has no __init__.py" in diagnostics[0].message
    fresh.save()
    assert checked(station, fresh.path) == [(0, 0, "DOM001")]


@pytest.mark.parametrize("name", ["tools/fresh.py", "fresh.py", "station/runtime/fresh.txt"])
async def test_a_new_file_outside_the_root_packages_gets_nothing(client: LanguageClient, station: Path, name: str):
    await initialize(client, station)
    await Editor(client, station / "station/runtime/model.py").open()  # the project is loaded
    assert await Editor(client, station / name, FRESH).open() == []


async def test_a_new_module_closed_unsaved_is_forgotten(client: LanguageClient, station: Path):
    await initialize(client, station)
    fresh = Editor(client, station / "station/runtime/fresh.py", FRESH_EVENT + FRESH.splitlines(keepends=True)[0])
    assert codes(await fresh.open()) == [(5, 38, "DOM301")]
    journal = Editor(client, station / "station/runtime/journal.py")
    await journal.open()
    assert codes(await journal.replace(JOURNAL)) == [(4, 4, "DOM101")]  # Entry derives from an event

    # Closed: its findings are gone, and the other open files no longer see it.
    assert await journal.after(fresh.close) == []
    assert list(fresh.diagnostics) == []
    assert await journal.replace(JOURNAL + "# typed\n") == []
    assert not fresh.path.exists()


async def test_a_new_module_saved_stays_a_module_of_the_project(client: LanguageClient, station: Path):
    await initialize(client, station)
    fresh = Editor(client, station / "station/runtime/fresh.py", FRESH_EVENT)
    assert await fresh.open() == []
    journal = Editor(client, station / "station/runtime/journal.py")
    await journal.open()
    assert codes(await journal.replace(JOURNAL)) == [(4, 4, "DOM101")]
    assert codes(await journal.after(fresh.save)) == [(4, 4, "DOM101")]
    fresh.close()  # saved: the module stays, read from its file
    assert codes(await journal.replace(JOURNAL + "# typed\n")) == [(4, 4, "DOM101")]

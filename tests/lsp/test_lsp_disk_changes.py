"""What changes on disk under the server: a file rewritten behind the editor's back, a
baseline that cannot be read, a baseline wherever the configuration puts it, a package
directory moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import Editor, codes, initialize
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

FORBIDDEN_IMPORT = "from station.experiment.runner import MODE\n"
EPISODE_FIELD = "    episode: int\n"


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

"""Helpers for the language server tests: a real client over stdio (pytest-lsp), the
fixture project copied to a temporary directory, and waiting for what the server sends."""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = Path(__file__).resolve().parents[2]
STATION = REPO / "tests" / "fixtures" / "lsp" / "station"
# A line as the protocol counts them: broken at \n, \r\n and \r only (not at a form feed
# or U+2028, where str.splitlines breaks too), with its break.
_PROTOCOL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
SERVER_COMMAND = [str(Path(sys.executable).parent / "domain-fence"), "lsp"]
WAIT_SECONDS = 30.0  # a safety net for a server that never answers, not a speed requirement
POLL_SECONDS = 0.01


# Two files of the station breaking every family, two findings silenced by noqa.
BROKEN = {
    "station/runtime/model.py": (
        "from station.experiment.runner import MODE\n"
        "from station.experiment import runner  # noqa: DOM301\n"
        "from station.runtime.telemetry import Event\n\n\n"
        "class Reading(Event):\n"
        "    value: float\n"
        "    episode: int\n"
        "    ground_episode: str  # noqa\n\n\n"
        "def init_telemetry():\n"
        "    return Reading(episode=1)\n"
    ),
    "station/runtime/journal.py": (
        "from station.runtime.model import Reading\n\n\nclass Entry(Reading):\n    episode_id: int\n"
    ),
}


def make_client() -> LanguageClient:
    """pytest-lsp's client, also counting the publications for each file (a new
    publication may equal the last one: two empty lists are even the same object) and
    keeping the version each was for."""
    client = LanguageClient(converter_factory=default_converter)
    client.publications = {}  # type: ignore[attr-defined]
    client.versions = {}  # type: ignore[attr-defined]  # uri -> the version last published for

    def publish_diagnostics(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.publications[params.uri] = client.publications.get(params.uri, 0) + 1  # type: ignore[attr-defined]
        client.versions[params.uri] = params.version  # type: ignore[attr-defined]

    register_lsp_features(
        client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish_diagnostics}
    )
    return client


def copy_station(destination: Path, name: str = "station") -> Path:
    target = destination / name
    shutil.copytree(STATION, target, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    return target


async def initialize(client: LanguageClient, *folders: Path, watch: bool = False, relative: bool = False) -> None:
    """``watch``: the client watches the files the server asks it to; ``relative``: it
    takes patterns relative to a directory of the server's choice too."""
    workspace = types.WorkspaceClientCapabilities(
        workspace_folders=True,
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
            dynamic_registration=watch, relative_pattern_support=relative
        ),
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(workspace=workspace),
            root_uri=folders[0].as_uri() if folders else None,
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
        )
    )


class Editor:
    """The client's side of one open file: open, edit, save, and what it was last told."""

    def __init__(self, client: LanguageClient, path: Path, text: str | None = None) -> None:
        """``text``: the buffer of a file not saved yet (else the file's)."""
        self.client = client
        self.path = path
        self.uri = path.as_uri()
        self.version = 0
        self.text = path.read_text(encoding="utf-8") if text is None else text

    async def open(self) -> list[types.Diagnostic]:
        return await self.after(
            lambda: self.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=self.uri, language_id="python", version=self.version, text=self.text
                    )
                )
            )
        )

    async def replace(self, text: str) -> list[types.Diagnostic]:
        """Replace the whole buffer without saving."""
        self.version += 1
        self.text = text
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        return await self.after(
            lambda: self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                    content_changes=[change],
                )
            )
        )

    def save(self) -> None:
        """Write the buffer to its file and say so, as the editor saves."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.text, encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri))
        )

    def close(self) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri))
        )

    async def actions(self, diagnostic: types.Diagnostic) -> list[types.CodeAction | types.Command]:
        """The code actions the server offers for ``diagnostic`` of this file."""
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        return list(found or [])

    async def apply(self, edit: types.WorkspaceEdit) -> list[types.Diagnostic]:
        """Apply the server's edit to the buffer, as the editor does with a code action."""
        assert edit.changes is not None
        lines = _PROTOCOL_LINE.findall(self.text)
        for text_edit in sorted(edit.changes[self.uri], key=lambda e: (e.range.start.line, e.range.start.character)):
            start, end = text_edit.range.start, text_edit.range.end
            assert start.line == end.line  # the server's edits stay on one line
            line = lines[start.line]
            lines[start.line] = line[: start.character] + text_edit.new_text + line[end.character :]
        return await self.replace("".join(lines))

    async def after(self, send) -> list[types.Diagnostic]:
        """Send a notification and wait for the diagnostics the server publishes next."""
        return await published(self.client, self.uri, send)

    @property
    def diagnostics(self) -> list[types.Diagnostic]:
        return self.client.diagnostics.get(self.uri, [])


async def assert_a_buffer_closed_unsaved_no_longer_counts(client: LanguageClient, project: Path) -> None:
    """In the station copy at ``project``: a class made an event in an unsaved buffer
    makes its subclass in another open file one; closed without saving, that file is
    told at once that it is not."""
    journal = Editor(client, project / "station/runtime/journal.py")
    assert await journal.open() == []  # Entry(Record): no event
    records = Editor(client, project / "station/runtime/records.py")
    await records.open()
    await records.replace("from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n")
    assert codes(await journal.replace(journal.text + "\n")) == [(4, 4, "DOM101")]  # Entry is an event now
    # Closed without saving: Record is as its file has it, and journal.py is told at once.
    assert await journal.after(records.close) == []


async def published(client: LanguageClient, uri: str, send) -> list[types.Diagnostic]:
    """What the server publishes for ``uri`` after ``send()`` (a new publication, even
    one equal to the last)."""
    before = client.publications.get(uri, 0)
    send()
    await until(lambda: client.publications.get(uri, 0) > before)
    return list(client.diagnostics[uri])


async def until(condition) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("the server did not send what was expected")
        await asyncio.sleep(POLL_SECONDS)


def codes(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[int, int, str]]:
    """(0-based line, character, code) of each diagnostic, sorted."""
    return sorted((d.range.start.line, d.range.start.character, str(d.code)) for d in diagnostics)


def watched_change(path: Path, kind: types.FileChangeType = types.FileChangeType.Changed):
    return types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)])

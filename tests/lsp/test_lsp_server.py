"""`domain-fence lsp` end to end: a real client talks to the server over stdio."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_support import (
    Editor,
    assert_a_buffer_closed_unsaved_no_longer_counts,
    codes,
    copy_station,
    initialize,
    until,
    watched_change,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

FORBIDDEN_IMPORT = "from station.experiment.runner import MODE\n"
EPISODE_FIELD = "    episode: int\n"


async def test_open_file_receives_its_findings_at_their_place(client: LanguageClient, station: Path):
    target = station / "station/runtime/model.py"
    target.write_text(FORBIDDEN_IMPORT + target.read_text())  # on disk before opening
    await initialize(client, station)
    diagnostics = await Editor(client, target).open()
    assert codes(diagnostics) == [(0, 38, "DOM301")]
    (found,) = diagnostics
    assert found.message == "station.runtime.model imports forbidden station.experiment.runner"
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.source == "domain-fence"


@pytest.mark.parametrize("place", ["a space in the project's path", "a non-ASCII file name"])
async def test_a_uri_the_client_percent_encodes_gets_its_findings(client: LanguageClient, tmp_path: Path, place):
    # The client sends and expects "sp%20ace", "%C3%A9v%C3%A9nement.py"; pygls keeps open
    # documents under the URI decoded.
    station = copy_station(tmp_path / "sp ace") if "space" in place else copy_station(tmp_path)
    target = station / "station/runtime" / ("model.py" if "space" in place else "évènement.py")
    target.write_text(FORBIDDEN_IMPORT, encoding="utf-8")
    await initialize(client, station)
    editor = Editor(client, target)
    assert "%" in editor.uri
    assert codes(await editor.open()) == [(0, 38, "DOM301")]
    assert codes(await editor.replace("x = 1\n" + FORBIDDEN_IMPORT)) == [(1, 38, "DOM301")]  # unsaved
    assert await editor.replace("") == []


async def test_files_parsed_in_worker_processes_while_the_server_waits_for_a_message(
    client: LanguageClient, station: Path
):
    # Once journal.py's buffer makes Journal an event class, the vocabulary contract reads
    # the 70 modules that mention it, in worker processes forked while a thread of the
    # server waits for the next message on stdin: a worker must not wait for that thread.
    for number in range(70):
        user = station / f"station/runtime/user{number:02d}.py"
        user.write_text(f"from station.runtime.journal import Journal\n\n\nclass Use{number}(Journal):\n    pass\n")
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/journal.py")
    await editor.open()
    await asyncio.sleep(0.5)  # the server idle, its reader in readline
    event = "from station.runtime.telemetry import Event\n\n\nclass Journal(Event):\n    episode: int\n"
    assert codes(await editor.replace(event)) == [(4, 4, "DOM101")]


async def test_a_buffer_closed_unsaved_no_longer_counts_in_the_other_open_files(client: LanguageClient, station: Path):
    await initialize(client, station)
    await assert_a_buffer_closed_unsaved_no_longer_counts(client, station)


async def test_unsaved_edits_are_checked_and_cleared(client: LanguageClient, station: Path):
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    clean = editor.text
    assert await editor.open() == []

    dirty = FORBIDDEN_IMPORT + clean + EPISODE_FIELD
    diagnostics = await editor.replace(dirty)
    assert codes(diagnostics) == [(0, 38, "DOM301"), (6, 4, "DOM101")]
    field = next(d for d in diagnostics if d.code == "DOM101")
    assert (field.range.end.line, field.range.end.character) == (6, 11)  # the name `episode`
    assert field.message == "event field 'episode': experiment vocabulary 'episode'"
    assert (station / "station/runtime/model.py").read_text() == clean  # nothing was saved

    assert await editor.replace(clean) == []


async def test_a_buffer_that_starts_naming_an_event_class_is_read_whole(client: LanguageClient, station: Path):
    # journal.py names no event class: the vocabulary contract never reads it whole
    # until the buffer, through a module alias, defines and builds one.
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/journal.py")
    assert await editor.open() == []
    diagnostics = await editor.replace(
        "from station.runtime import telemetry as wire\n\n\n"
        "class Stepped(wire.Event):\n    episode: int\n\n\n"
        "def emitted(clock):\n    return Stepped(label=clock.episode)\n"
    )
    assert codes(diagnostics) == [(4, 4, "DOM101"), (8, 19, "DOM105")]
    assert diagnostics[1].message == (
        "value of 'label' constructing Stepped comes from clock.episode (l.9): experiment vocabulary 'episode'"
    )
    assert await editor.replace(editor.text.replace("episode", "step")) == []


async def test_baselined_and_noqa_findings_are_hidden(client: LanguageClient, station: Path):
    await initialize(client, station)
    legacy = Editor(client, station / "station/runtime/legacy.py")
    assert await legacy.open() == []  # its finding is in the baseline

    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    diagnostics = await editor.replace(editor.text + "    episode: int  # noqa: DOM101\n    ground: int  # noqa\n")
    assert diagnostics == []
    diagnostics = await editor.replace(editor.text.replace("# noqa: DOM101", "# noqa: DOM301"))
    assert codes(diagnostics) == [(5, 4, "DOM101")]
    assert await editor.replace("# flake8: noqa\n" + editor.text) == []  # the whole file, as flake8 does


async def test_noqa_code_action_hides_the_finding(client: LanguageClient, station: Path):
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    (diagnostic,) = await editor.replace(editor.text + "    episode: int  # a comment\n")

    actions = await editor.actions(diagnostic)
    titles = [action.title for action in actions]
    assert titles == ["Ignore DOM101 on this line (# noqa: DOM101)", "Explain DOM101 (experiment-word-in-event-field)"]
    assert await editor.apply(actions[0].edit) == []
    assert editor.text.splitlines()[5] == "    episode: int  # a comment  # noqa: DOM101"

    explanation = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=actions[1].command, arguments=actions[1].arguments)
    )
    assert explanation.startswith("DOM101 experiment-word-in-event-field (vocabulary)")
    assert "Why: Runtime events carry only what the runtime may know." in explanation

    # No noqa comment silences DOM001: none is offered.
    (unanalysable,) = await editor.replace(editor.text + "def broken(:\n")
    actions = await editor.actions(unanalysable)
    assert [action.title for action in actions] == ["Explain DOM001 (unanalysable-file)"]


async def test_explain_with_wrong_arguments_says_so(client: LanguageClient, station: Path):
    await initialize(client, station)
    for arguments in (["DOM999"], [1], [], None, ["DOM101", "DOM102"]):
        params = types.ExecuteCommandParams(command="domain-fence.explain", arguments=arguments)
        assert await client.workspace_execute_command_async(params) is None, arguments
        shown = client.messages[-1]
        assert shown.type == types.MessageType.Error, arguments
        assert shown.message.startswith("domain-fence.explain takes one rule code (DOM001 ... DOM303), not ")


async def test_a_code_action_for_a_document_not_open_offers_no_edit(client: LanguageClient, station: Path):
    # Nothing to edit: the file on disk is not the client's, and here it does not exist.
    await initialize(client, station)
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)),
        message="event field 'episode': experiment vocabulary 'episode'",
        code="DOM101",
        source="domain-fence",
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=(station / "gone.py").as_uri()),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert [action.title for action in actions] == ["Explain DOM101 (experiment-word-in-event-field)"]


async def test_noqa_action_extends_an_existing_noqa_list(client: LanguageClient, station: Path):
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    diagnostics = await editor.replace(FORBIDDEN_IMPORT.rstrip("\n") + "  # noqa: E402\n" + editor.text)
    (diagnostic,) = diagnostics
    actions = await editor.actions(diagnostic)
    assert await editor.apply(actions[0].edit) == []
    assert editor.text.splitlines()[0] == "from station.experiment.runner import MODE  # noqa: E402,DOM301"


async def test_hover_shows_the_rule_documentation(client: LanguageClient, station: Path):
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    (diagnostic,) = await editor.replace(editor.text + EPISODE_FIELD)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=editor.uri), position=diagnostic.range.start)
    )
    assert hover is not None
    assert hover.contents.value.startswith("#### DOM101 experiment-word-in-event-field")
    elsewhere = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri), position=types.Position(line=0, character=0)
        )
    )
    assert elsewhere is None


async def test_a_change_on_disk_updates_the_open_files(client: LanguageClient, station: Path):
    """journal.Entry derives from records.Record: once Record derives from the event
    base on disk, Entry's `episode` field is an event field."""
    await initialize(client, station)
    journal = Editor(client, station / "station/runtime/journal.py")
    assert await journal.open() == []

    records = station / "station/runtime/records.py"
    records.write_text("from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n")
    diagnostics = await journal.after(lambda: client.workspace_did_change_watched_files(watched_change(records)))
    assert codes(diagnostics) == [(4, 4, "DOM101")]


async def test_what_keeps_the_import_graph_from_being_built_is_shown_in_the_open_files(
    client: LanguageClient, station: Path
):
    # A symlink loop is no file an editor opens, and the boundary cannot run with it:
    # else the forbidden import would pass in silence.
    loop = station / "station/runtime/loop"
    loop.symlink_to("..")
    target = station / "station/runtime/model.py"
    target.write_text(FORBIDDEN_IMPORT + target.read_text())
    await initialize(client, station)
    model = Editor(client, target)
    (shown,) = await model.open()
    assert (shown.range.start.line, shown.code) == (0, "DOM001")
    assert shown.message == "skipped: station/runtime/loop: symlink loop: leads back to station"
    loop.unlink()
    diagnostics = await model.after(lambda: client.workspace_did_change_watched_files(watched_change(loop)))
    assert codes(diagnostics) == [(0, 38, "DOM301")]


async def test_a_file_over_the_size_limit_is_shown_at_itself_and_in_the_other_open_files(
    client: LanguageClient, station: Path
):
    # As check and flake8 show it: at the file, opened (never read: its buffer is not
    # checked), and, since the boundary cannot run without it, in every other module.
    big = station / "station/runtime/big.py"
    with big.open("wb") as written:  # sparse: over the default limit (64 MiB), no disk spent
        written.write(FORBIDDEN_IMPORT.encode())
        written.truncate(64 * 1024 * 1024 + 1)
    reason = f"larger than {64 * 1024 * 1024} bytes (see DOMAIN_FENCE_MAX_FILE_SIZE)"
    await initialize(client, station)
    (own,) = await Editor(client, big, FORBIDDEN_IMPORT).open()
    assert ((own.range.start.line, own.code), own.message) == ((0, "DOM001"), f"skipped: {reason}")
    (shown,) = await Editor(client, station / "station/runtime/journal.py").open()
    assert ((shown.range.start.line, shown.code), shown.message) == (
        (0, "DOM001"),
        f"skipped: station/runtime/big.py: {reason}",
    )


async def test_saving_a_file_updates_the_open_files_that_depend_on_it(client: LanguageClient, station: Path):
    await initialize(client, station)
    journal = Editor(client, station / "station/runtime/journal.py")
    assert await journal.open() == []
    records = Editor(client, station / "station/runtime/records.py")
    await records.open()
    saved = "from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n"
    await records.replace(saved)
    records.path.write_text(saved)  # the editor saves, then says so
    save = types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=records.uri))
    diagnostics = await journal.after(lambda: client.text_document_did_save(save))
    assert codes(diagnostics) == [(4, 4, "DOM101")]


async def test_an_unsaved_event_base_in_another_buffer_reaches_the_next_check(client: LanguageClient, station: Path):
    """An edit of records.py making Record an event, unsaved, changes what journal.py's
    next edit (inside nothing but a comment) is checked against."""
    await initialize(client, station)
    journal = Editor(client, station / "station/runtime/journal.py")
    clean = journal.text
    assert await journal.open() == []
    records = Editor(client, station / "station/runtime/records.py")
    await records.open()
    await records.replace("from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n")
    assert codes(await journal.replace(clean + "# typed\n")) == [(4, 4, "DOM101")]
    await records.replace("class Record:\n    pass\n")
    assert await journal.replace(clean) == []


async def test_a_burst_of_changes_ends_with_the_diagnostics_of_its_last(client: LanguageClient, station: Path):
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    clean = editor.text
    await editor.open()
    for version, text in enumerate([FORBIDDEN_IMPORT + clean, clean + EPISODE_FIELD, clean + EPISODE_FIELD * 2], 1):
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=editor.uri, version=version),
                content_changes=[change],
            )
        )
    await until(lambda: client.publications.get(editor.uri, 0) >= 2 and client.versions.get(editor.uri) == 3)
    assert codes(editor.diagnostics) == [(5, 4, "DOM101"), (6, 4, "DOM101")]


async def test_a_changed_baseline_is_read_again(client: LanguageClient, station: Path):
    await initialize(client, station)
    legacy = Editor(client, station / "station/runtime/legacy.py")
    assert await legacy.open() == []
    baseline = station / ".domain-fence-baseline.json"
    baseline.write_text('{"format": "domain-fence-baseline", "version": 1, "entries": []}\n')
    diagnostics = await legacy.after(lambda: client.workspace_did_change_watched_files(watched_change(baseline)))
    assert codes(diagnostics) == [(4, 4, "DOM101")]

    # A baseline that cannot be read: its problem is shown in it, at the line it names.
    baseline.write_text('{"format": "domain-fence-baseline", "version": 1, "entries": [\n<<<<<<< HEAD\n]}\n')
    client.workspace_did_change_watched_files(watched_change(baseline))
    await until(lambda: bool(client.diagnostics.get(baseline.as_uri())))
    (problem,) = client.diagnostics[baseline.as_uri()]
    assert problem.range.start.line == 1
    assert problem.message.startswith("configuration cannot be used: baseline holds merge conflict markers")
    assert not client.diagnostics.get((station / ".importlinter").as_uri())


@pytest.mark.parametrize("configuration", ["none", "import-linter's alone"])
async def test_without_configuration_no_diagnostics_and_one_log_line(
    client: LanguageClient, tmp_path: Path, configuration: str
):
    project = copy_station(tmp_path)
    (project / ".importlinter").unlink()
    if configuration != "none":  # one domain-fence would refuse: root packages on one line
        (project / "setup.cfg").write_text(
            "[importlinter]\nroot_packages = station\n\n[importlinter:contract:f]\nname = f\ntype = forbidden\n"
        )
    await initialize(client, project)
    editor = Editor(client, project / "station/runtime/model.py")
    assert await editor.open() == []
    assert await editor.replace(FORBIDDEN_IMPORT + editor.text) == []
    logged = [m.message for m in client.log_messages if "configuration" in m.message]
    assert logged == [
        f"domain-fence: {project}: no import-linter configuration naming domain_fence; no diagnostics in this folder"
    ]
    assert client.messages == []  # no pop-up


async def test_broken_configuration_is_one_diagnostic_and_the_server_goes_on(client: LanguageClient, station: Path):
    config = station / ".importlinter"
    good = config.read_text()
    config.write_text(good.replace("    station.experiment\nbaseline", "    station.experimnt\nbaseline"))
    config_uri = config.as_uri()
    await initialize(client, station)
    await until(lambda: config_uri in client.diagnostics)
    (problem,) = client.diagnostics[config_uri]
    assert problem.severity == types.DiagnosticSeverity.Error
    assert problem.range.start.line == 8  # [importlinter:contract:runtime-knows-no-experiment]
    assert "forbidden_modules: module 'station.experimnt' does not exist" in problem.message
    assert any("configuration cannot be used" in m.message for m in client.log_messages)
    item = types.TextDocumentItem(uri=config_uri, language_id="ini", version=0, text=config.read_text())
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    hover = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=config_uri), position=problem.range.start)
    await client.text_document_hover_async(hover)  # answered once the opening is handled
    assert len(client.diagnostics[config_uri]) == 1  # opening it in the editor keeps its diagnostic

    editor = Editor(client, station / "station/runtime/model.py")
    assert await editor.open() == []
    config.write_text(good)
    # The server clears the configuration's diagnostic, then checks the open files again.
    await editor.after(lambda: client.workspace_did_change_watched_files(watched_change(config)))
    assert list(client.diagnostics[config_uri]) == []
    assert codes(await editor.replace(FORBIDDEN_IMPORT + editor.text)) == [(0, 38, "DOM301")]


async def test_a_contract_named_twice_is_one_diagnostic(client: LanguageClient, station: Path):
    # import-linter would run both contracts under one id; the engine refuses, as `check` does.
    config = station / ".importlinter"
    text = config.read_text()
    first = text.index("[importlinter:contract:")
    again = text[first : text.index("[importlinter:contract:", first + 1)]
    config.write_text(text + "\n" + again)
    await initialize(client, station)
    await until(lambda: config.as_uri() in client.diagnostics)
    (problem,) = client.diagnostics[config.as_uri()]
    assert "section 'importlinter:contract:runtime-knows-no-experiment' already exists" in problem.message
    lines = config.read_text().splitlines()
    assert lines[problem.range.start.line] == "[importlinter:contract:runtime-knows-no-experiment]"
    assert problem.range.start.line > text.count("\n")  # at the second one, where the fix goes
    assert any("configuration cannot be used" in m.message for m in client.log_messages)


async def test_a_pyproject_contract_problem_is_shown_at_its_table(client: LanguageClient, station: Path):
    (station / ".importlinter").unlink()
    (station / "pyproject.toml").write_text(
        "[tool.importlinter]\n"
        'root_packages = ["station"]\n'
        'contract_types = ["boundary: domain_fence.integrations.importlinter.BoundaryContract"]\n'
        "\n[[tool.importlinter.contracts]]  # kept\n"
        'name = "Runtime knows no experiment"\ntype = "boundary"\n'
        'source_modules = ["station.runtime"]\nforbidden_modules = ["station.experiment"]\n'
        "\n[[ tool.importlinter.contracts ]]  # added today\n"
        'name = "Runtime knows no setup"\ntype = "boundary"\n'
        'source_modules = ["station.runtime"]\nforbidden_modules = ["station.experimnt"]\n'
    )
    config_uri = (station / "pyproject.toml").as_uri()
    await initialize(client, station)
    await until(lambda: config_uri in client.diagnostics)
    (problem,) = client.diagnostics[config_uri]
    assert problem.range.start.line == 10  # the second table's header: where the fix goes
    assert problem.message == (
        "configuration cannot be used: [[tool.importlinter.contracts]] 'Runtime knows no setup' "
        "forbidden_modules: module 'station.experimnt' does not exist"
    )


async def test_each_workspace_folder_uses_its_own_configuration(client: LanguageClient, tmp_path: Path):
    episodes = copy_station(tmp_path, "episodes")
    epochs = copy_station(tmp_path, "epochs")
    config = epochs / ".importlinter"
    config.write_text(config.read_text().replace("    episode\n", "    epoch\n"))
    bare = copy_station(tmp_path, "bare")
    (bare / ".importlinter").unlink()
    await initialize(client, episodes, epochs, bare)

    fields = "    episode: int\n    epoch: int\n"
    found = {}
    for folder in (episodes, epochs, bare):
        editor = Editor(client, folder / "station/runtime/model.py")
        await editor.open()
        found[folder.name] = [d.message.split("'")[1] for d in await editor.replace(editor.text + fields)]
    assert found == {"episodes": ["episode"], "epochs": ["epoch"], "bare": []}


async def test_server_registers_its_file_watchers(client: LanguageClient, station: Path):
    registrations: list[types.RegistrationParams] = []
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: registrations.append(params))
    await initialize(client, station, watch=True)
    await until(lambda: registrations)
    (registration,) = registrations[0].registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    patterns = {w["globPattern"] for w in registration.register_options["watchers"]}
    assert {"**/*.py", "**/.importlinter", "**/*.json"} <= patterns


async def test_columns_are_counted_in_the_clients_units(client: LanguageClient, station: Path):
    """The AST counts UTF-8 bytes, the protocol UTF-16 code units (by default)."""
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    (diagnostic,) = await editor.replace('X = "\N{GRINNING FACE}"; import station.experiment.runner\n' + editor.text)
    # `station.experiment.runner` starts after 16 characters, 19 bytes, 17 UTF-16 units
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (0, 17)
    assert diagnostic.range.end.character == 17 + len("station.experiment.runner")


async def test_a_form_feed_or_a_line_separator_breaks_no_line(client: LanguageClient, station: Path):
    """Python and the protocol break lines at \\n, \\r\\n and \\r only: a docstring holding a
    U+2028 (pasted from a citation) or a form feed moves no finding, and the quick fix
    goes at the end of the finding's own line rather than into the middle of another."""
    await initialize(client, station)
    editor = Editor(client, station / "station/runtime/model.py")
    await editor.open()
    docstring = '    """Seen in Hawkins et al.,\u2028 2019.\x0c"""\n'
    (diagnostic,) = await editor.replace(editor.text + docstring + "    episode: int\n")
    assert (diagnostic.range.start.line, diagnostic.range.start.character, diagnostic.code) == (6, 4, "DOM101")
    assert diagnostic.range.end.character == 4 + len("episode")
    (fix, _explain) = await editor.actions(diagnostic)
    assert await editor.apply(fix.edit) == []
    assert editor.text.endswith(docstring + "    episode: int  # noqa: DOM101\n")


async def test_a_folder_added_later_is_checked(client: LanguageClient, tmp_path: Path):
    first, added = copy_station(tmp_path, "first"), copy_station(tmp_path, "added")
    await initialize(client, first)
    editor = Editor(client, added / "station/runtime/model.py")
    assert await editor.open() == []  # outside every folder
    event = types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(uri=added.as_uri(), name="added")], removed=[]
    )
    diagnostics = await editor.after(
        lambda: client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=event))
    )
    assert diagnostics == []
    assert codes(await editor.replace(FORBIDDEN_IMPORT + editor.text)) == [(0, 38, "DOM301")]


async def test_a_module_created_on_disk_is_checked(client: LanguageClient, station: Path):
    await initialize(client, station)
    await Editor(client, station / "station/runtime/model.py").open()  # the project is loaded
    created = station / "station/runtime/fresh/__init__.py"
    created.parent.mkdir()
    created.write_text("from station.runtime.telemetry import Event\n\n\nclass Fresh(Event):\n    episode: int\n")
    editor = Editor(client, created)
    # Not a module of the project the server knows yet: checked as the module it will be.
    assert codes(await editor.open()) == [(4, 4, "DOM101")]
    change = watched_change(created, types.FileChangeType.Created)
    diagnostics = await editor.after(lambda: client.workspace_did_change_watched_files(change))
    assert codes(diagnostics) == [(4, 4, "DOM101")]

"""The language server: ``domain-fence lsp``, over stdio.

A thin front end: it keeps one :class:`~.analysis.Analysis` per project, asks it for
the findings of each open buffer, and only translates them to the protocol. A file is
served by the nearest configuration from its directory upward, no higher than its
workspace folder (nor than a repository's root, as the flake8 plugin looks): a
project in a subdirectory (``pkg/.importlinter``, a monorepo's) is loaded the first
time one of its files is checked, and checked as ``domain-fence check`` run in that
directory checks it; else the configuration at the folder's root, as ``check`` there:

- diagnostics on open, on change (at once after a pause in typing, else when a
  burst of keystrokes pauses) and on save, from the buffer, so unsaved edits are
  checked; code, severity and the rule's
  documentation on hover;
- code actions: a ``# noqa: DOMxxx`` for the line, and the rule's explanation;
- files changed on disk (``workspace/didChangeWatchedFiles``, or a save), the
  configuration and the baselines re-read, and every open buffer checked again; the
  client asked to watch the baselines wherever the configuration puts them.

A file under no configuration gets no diagnostics (the folder, one log message); a
broken configuration gets one diagnostic on the configuration file and a log message,
and the server goes on. A failure while analysing one file is logged and shown as DOM001
on that file. Nothing of the project is imported or run.
"""

from __future__ import annotations

import asyncio
import gc
import io
import itertools
import logging
import math
import os
import re
import signal
import sys
import threading
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from flake8.defaults import NOQA_INLINE_REGEXP
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import ServerTextPosition, ServerTextRange, TextDocument

from domain_fence.core.engine.noqa import comment_line
from domain_fence.core.engine.runcache import CONFIG_FILES
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.fingerprints import STALE, UNANALYSABLE
from domain_fence.core.model.ruledocs import explain, rule_markdown
from domain_fence.core.model.rules import RULES, get_rule
from domain_fence.core.model.text import one_line
from domain_fence.core.model.tokens import token_end
from domain_fence.core.source.files import read_regular_file, real_path
from domain_fence.integrations.configsearch import may_hold_configuration, nearest_directory
from domain_fence.integrations.importlinter.configuration import (
    ConfigurationError,
    ConfigurationNotFound,
    find_configuration,
    holds_configuration,
)

from .analysis import Analysis, AnalysisError
from .problems import editor_lines, problem_row

SOURCE = "domain-fence"
EXPLAIN_COMMAND = "domain-fence.explain"
# A change this soon after the last one is part of a burst of keystrokes: the burst is
# checked once, this long after its last change. Long enough to let a burst through as
# one check, short enough not to be felt. A change after a pause is checked at once.
DEBOUNCE_SECONDS = 0.05
VALIDATE_SECONDS = 0.5  # after loading a folder, when no file of it was opened meanwhile
SETTLE_SECONDS = 1.0  # after loading a project: a full collection then costs the first diagnostics nothing
WATCHED = ("**/*.py", *(f"**/{name}" for name in CONFIG_FILES), "**/*.json")
WATCHED_SUFFIXES = (".py", ".json")  # what WATCHED covers in a folder, besides CONFIG_FILES


log = logging.getLogger(__name__)
_REGISTRATIONS = itertools.count(1)  # each registration of the inputs' watchers has an id of its own


@dataclass(eq=False)  # a holder never compared: no __eq__ compiled on import
class Folder:
    """One workspace folder, or one project in a subdirectory of it (the directory of its
    configuration), and what its configuration gives."""

    root: Path
    analysis: Analysis | None = None
    config: Path | None = None  # the configuration file, when one was found
    problem: str | None = None  # why the configuration cannot be used
    validated: bool = False  # the questions about the whole project asked (Analysis.validate)
    workspace: Path | None = None  # a project in a subdirectory: the workspace folder it lies in
    told: bool = False  # a workspace folder without configuration: said in the log

    def contains(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def inputs(self) -> frozenset[Path]:
        """The files besides the sources whose change means reloading, inside the folder
        or not: its configuration's and baselines', or the file its problem is in."""
        if self.analysis is not None:
            return self.analysis.inputs()
        if self.problem is not None and self.config is not None:
            return frozenset({self.config, problem_file(self.config, self.problem)})
        return frozenset()

    def concerns(self, path: Path) -> bool:
        """Whether a change of ``path`` may change this folder's diagnostics."""
        return self.contains(path) or path in self.inputs()


class DomainFenceServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            SOURCE, version("domain-fence"), text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.folders: dict[Path, Folder] = {}  # the workspace folders and the projects found in them
        self.served: dict[str, Path] = {}  # uri -> the folder (its root) that last checked it
        self._nearest: dict[Path, Path | None] = {}  # directory -> the project below its workspace folder it lies in
        self.shown: dict[str, list[types.Diagnostic]] = {}  # uri -> what was published last
        self.broken: set[str] = set()  # configuration files showing a diagnostic
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._changed: dict[str, float] = {}  # uri -> when it last changed, by the event loop's clock
        self._settling: asyncio.TimerHandle | None = None
        # Watching the inputs WATCHED misses: None when the client cannot be asked to, else
        # whether it takes patterns relative to a directory (a baseline outside the folders).
        self.relative_patterns: bool | None = None
        self._inputs_watched: tuple[str, list[types.FileSystemWatcher]] | None = None  # registration id, watchers

    # -- folders and their configuration ------------------------------------------

    def open_folders(self, roots: list[Path]) -> None:
        self._nearest.clear()  # a folder inside another bounds the search anew
        for root in roots:
            self.folders[root] = self.load_folder(root)
        self.show_configuration_problems()
        self.watch_inputs()
        self.settle_soon()

    def close_folders(self, roots: list[Path]) -> None:
        self._nearest.clear()
        for root in roots:
            self.folders.pop(root, None)
        for root, folder in list(self.folders.items()):
            if folder.workspace in roots:  # its projects in subdirectories go with it
                del self.folders[root]
        self.show_configuration_problems()
        self.watch_inputs()

    def load_folder(self, root: Path, workspace: Path | None = None) -> Folder:
        """The folder at ``root``: a workspace folder, or (``workspace`` given) the project
        whose configuration lies in ``root``, a subdirectory of that workspace folder."""
        try:
            config = find_configuration(root)
        except ConfigurationNotFound:
            return Folder(root, workspace=workspace)  # said when a file of it is checked
        except ConfigurationError as error:
            return self.broken_folder(root, _named_file(root, str(error)), str(error), workspace)
        if not may_hold_configuration(root):
            # import-linter's alone (no domain-fence contract type): none of ours, as for
            # flake8, rather than a problem shown on a file written for another tool.
            return Folder(root, workspace=workspace)
        if workspace is not None:
            self.log(types.MessageType.Info, f"{config}: the configuration of the files below {root}")
        try:
            folder = Folder(root, Analysis(config, validate=False), config, workspace=workspace)
        except AnalysisError as error:
            return self.broken_folder(root, config, str(error), workspace)
        except Exception as error:  # a failure of ours: the other folders are still served
            log.exception("loading %s failed", config)
            return self.broken_folder(root, config, f"{config}: internal error: {_described(error)}", workspace)
        # Validating reads the whole project: after the first file is checked (see check()),
        # or a moment after loading when the editor opens none.
        asyncio.get_running_loop().call_later(VALIDATE_SECONDS, self.validate, folder)
        return folder

    def validate(self, folder: Folder) -> None:
        if folder.analysis is None or folder.validated or self.folders.get(folder.root) is not folder:
            return  # done, or replaced meanwhile
        folder.validated = True
        try:
            folder.analysis.validate()
        except AnalysisError as error:
            self.folders[folder.root] = self.broken_folder(folder.root, folder.config, str(error), folder.workspace)
        except Exception as error:  # a failure of ours: the other folders are still served
            log.exception("validating %s failed", folder.config)
            problem = f"{folder.config}: internal error: {_described(error)}"
            self.folders[folder.root] = self.broken_folder(folder.root, folder.config, problem, folder.workspace)
        else:
            self.settle_soon()  # validating read the facts of the covered modules
            return
        self.show_configuration_problems()
        self.watch_inputs()
        self.check_open_documents()

    def broken_folder(self, root: Path, config: Path | None, problem: str, workspace: Path | None = None) -> Folder:
        lines = problem.splitlines()
        self.log(
            types.MessageType.Error, f"configuration cannot be used, no diagnostics in {root}: " + "; ".join(lines)
        )
        return Folder(root, None, config, problem, workspace=workspace)

    def show_configuration_problems(self) -> None:
        """One diagnostic on each broken configuration file; cleared once it is fixed."""
        now: dict[str, list[types.Diagnostic]] = {}
        for folder in self.folders.values():
            if folder.problem is not None and folder.config is not None:
                at = problem_file(folder.config, folder.problem)  # a baseline's problem: in it
                uri = from_fs_path(str(at)) or at.as_uri()
                now[uri] = [configuration_diagnostic(at, folder.problem)]
        for uri in self.broken - now.keys():
            self.publish(uri, [])
        for uri, diagnostics in now.items():
            self.publish(uri, diagnostics)
        self.broken = set(now)

    def watch_inputs(self) -> None:
        """Ask the client to watch the configurations' inputs WATCHED misses (a baseline
        not named ``*.json``, or outside every folder), again whenever they change."""
        if self.relative_patterns is None:
            return
        paths = sorted({path for folder in self.folders.values() for path in folder.inputs()})
        watchers = [
            types.FileSystemWatcher(glob_pattern=pattern)
            for pattern in (self.watch_pattern(path) for path in paths)
            if pattern is not None
        ]
        if self._inputs_watched is not None:
            if self._inputs_watched[1] == watchers:
                return
            unregistration = types.Unregistration(
                id=self._inputs_watched[0], method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES
            )
            self.client_unregister_capability(types.UnregistrationParams(unregisterations=[unregistration]))
            self._inputs_watched = None
        if watchers:
            self._inputs_watched = (f"domain-fence-inputs-{next(_REGISTRATIONS)}", watchers)
            self.register_watchers(self._inputs_watched[0], watchers)

    def watch_pattern(self, path: Path) -> str | types.RelativePattern | None:
        """The pattern naming ``path`` (None: WATCHED covers it): relative to its
        directory where the client takes that, else the path below the folder holding
        it (or the whole path, which some clients match)."""
        folder = self.workspace_for(path)
        if folder is not None and (path.suffix in WATCHED_SUFFIXES or path.name in CONFIG_FILES):
            return None
        if self.relative_patterns:
            return types.RelativePattern(
                base_uri=from_fs_path(str(path.parent)) or path.parent.as_uri(), pattern=path.name
            )
        return f"**/{path.relative_to(folder.root).as_posix()}" if folder is not None else path.as_posix()

    def register_watchers(self, registration_id: str, watchers: list[types.FileSystemWatcher]) -> None:
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
        registration = types.Registration(
            id=registration_id, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
        )
        self.client_register_capability(types.RegistrationParams(registrations=[registration]))

    def workspace_for(self, path: Path) -> Folder | None:
        """The innermost workspace folder holding ``path``."""
        holding = [folder for folder in self.folders.values() if folder.workspace is None and folder.contains(path)]
        return max(holding, key=lambda folder: len(folder.root.parts), default=None)

    def folder_for(self, path: Path) -> Folder | None:
        """The folder serving the file at ``path``: the project of the nearest configuration
        from its directory upward, strictly below its workspace folder (loaded the first
        time one of its files asks), else the workspace folder itself. Looked for as the
        flake8 plugin looks (not above a repository's root), and remembered per directory
        until a file that is no module changes."""
        workspace = self.workspace_for(path)
        if workspace is None:
            return None
        directory = nearest_directory(path.parent, holds_configuration, self._nearest, below=workspace.root)
        if directory is None:
            return workspace
        folder = self.folders.get(directory)
        if folder is None:
            folder = self.load_folder(directory, workspace.root)
            if folder.analysis is None and folder.problem is None:
                return workspace  # gone since it was found
            self.folders[directory] = folder
            self.show_configuration_problems()
            self.watch_inputs()
            self.settle_soon()
        return folder

    def files_changed(self, paths: list[Path]) -> None:
        """Re-read what changed on disk, then check every open buffer again."""
        if any(path.suffix != ".py" for path in paths):
            self._nearest.clear()  # a configuration created, deleted or changed; a directory moved
        for root, folder in list(self.folders.items()):
            mine = [path for path in paths if folder.concerns(path)]
            if not mine:
                continue
            moved = any(path.suffix != ".py" for path in mine)
            if folder.workspace is not None and moved and not holds_configuration(root):
                del self.folders[root]  # its files are served from further up
                continue
            if folder.analysis is None:
                if any(path.name in CONFIG_FILES or path == folder.config for path in mine) or folder.problem:
                    self.folders[root] = self.load_folder(root, folder.workspace)
                continue
            try:
                folder.analysis.refresh(mine)
            except AnalysisError as error:
                self.folders[root] = self.broken_folder(root, folder.config, str(error), folder.workspace)
        self.show_configuration_problems()
        self.watch_inputs()
        self.settle_soon()
        self.check_open_documents()

    def settle_soon(self) -> None:
        """Settle the heap once the files opened with the project have been checked."""
        if self._settling is not None:
            self._settling.cancel()
        self._settling = asyncio.get_running_loop().call_later(SETTLE_SECONDS, settle_heap)

    # -- diagnostics ----------------------------------------------------------------

    def check_open_documents(self) -> None:
        for document in list(self.workspace.text_documents.values()):
            self.check(document.uri)  # as the client wrote it: pygls keys them decoded

    def check_later(self, uri: str) -> None:
        loop = asyncio.get_running_loop()
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        now = loop.time()
        burst = pending is not None or now - self._changed.get(uri, -math.inf) < DEBOUNCE_SECONDS
        self._changed[uri] = now
        self._pending[uri] = loop.call_later(DEBOUNCE_SECONDS if burst else 0, self.check, uri)

    def check(self, uri: str) -> None:
        self._pending.pop(uri, None)
        document = self.open_document(uri)
        if document is None:
            return  # closed meanwhile
        path = real_path(document.path)
        if uri in self.broken or not (path.suffix == ".py" or document.language_id == "python"):
            return  # a configuration file keeps its diagnostic; other files are not ours
        folder = self.folder_for(path)
        self.served_by(uri, path, folder)
        analysis = folder.analysis if folder else None
        if folder is not None and analysis is None and folder.problem is None and not folder.told:
            folder.told = True
            if not any(other.workspace == folder.root for other in self.folders.values()):
                self.log(
                    types.MessageType.Info,
                    f"{folder.root}: no import-linter configuration naming domain_fence; no diagnostics in this folder",
                )
        try:
            diagnostics = [] if analysis is None else diagnostics_for(analysis, path, document, self.log)
        except AnalysisError as error:  # a baseline first read by this check: shown on it
            assert folder is not None
            self.folders[folder.root] = self.broken_folder(folder.root, folder.config, str(error), folder.workspace)
            self.show_configuration_problems()
            self.watch_inputs()
            asyncio.get_running_loop().call_soon(self.check_open_documents)  # theirs are gone too
            diagnostics = []
        self.publish(uri, diagnostics, document.version)  # even none: the client may wait for it
        if folder is not None and not folder.validated:
            asyncio.get_running_loop().call_soon(self.validate, folder)

    def served_by(self, uri: str, path: Path, folder: Folder | None) -> None:
        """Note that ``folder`` serves ``uri`` now: the project that served it before (a
        configuration created or deleted between them) forgets its buffer."""
        before = self.served.pop(uri, None)
        if folder is not None:
            self.served[uri] = folder.root
        if before is None or (folder is not None and before == folder.root):
            return
        previous = self.folders.get(before)
        if previous is not None and previous.analysis is not None and previous.analysis.close(path):
            asyncio.get_running_loop().call_soon(self.check_open_documents)  # its other files saw the buffer

    def open_document(self, uri: str) -> TextDocument | None:
        """The open document at ``uri``: pygls keeps them under the URI percent-decoded
        (a space, a non-ASCII name), the client sends and expects it encoded."""
        document: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return document

    def forget(self, uri: str) -> None:
        self._changed.pop(uri, None)
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        path = _paths([uri])
        served = self.served.pop(uri, None)
        folder = self.folders.get(served) if served is not None else None
        forgotten = bool(path) and folder is not None and folder.analysis is not None and folder.analysis.close(path[0])
        if self.shown.get(uri) and uri not in self.broken:
            self.publish(uri, [])
        if forgotten:  # closed unsaved: the files that saw its buffer no longer do
            self.check_open_documents()

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        self.shown[uri] = diagnostics
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def log(self, kind: types.MessageType, message: str) -> None:
        log.log(logging.ERROR if kind == types.MessageType.Error else logging.INFO, message)
        self.window_log_message(types.LogMessageParams(type=kind, message=f"domain-fence: {message}"))

    # -- code actions and hover ----------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
        # Only an open document is edited: another one is the file on disk, which may be gone.
        document = self.open_document(params.text_document.uri)
        actions: list[types.CodeAction | types.Command] = []
        explained = set()
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE or not isinstance(diagnostic.code, str) or diagnostic.code not in RULES:
                continue
            code = diagnostic.code
            # No noqa comment silences DOM001 (the file may hide anything), and DOM002 is
            # at an entry of a baseline file, which holds no comments.
            silenced = document is not None and code not in UNSILENCEABLE
            edit = noqa_edit(document, diagnostic.range.start.line, code) if document and silenced else None
            if edit is not None:
                actions.append(
                    types.CodeAction(
                        title=f"Ignore {code} on this line (# noqa: {code})",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=types.WorkspaceEdit(changes={params.text_document.uri: [edit]}),
                    )
                )
            if code not in explained:
                explained.add(code)
                # A bare command: a code action holding one reads, to some clients, as a command.
                title = f"Explain {code} ({RULES[code].name})"
                actions.append(types.Command(title=title, command=EXPLAIN_COMMAND, arguments=[code]))
        return actions

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        position = params.position
        codes = sorted(
            {
                str(d.code)
                for d in self.shown.get(params.text_document.uri, [])
                if d.code in RULES and _within(position, d.range)
            }
        )
        if not codes:
            return None
        text = "\n\n---\n\n".join(rule_markdown(RULES[code], heading="####") for code in codes)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def settle_heap() -> None:
    """Move what is loaded out of the cyclic garbage collector's sight. The facts of a
    whole project live as long as the server and hold no cycles, yet every full
    collection would walk them all: on 3,000 files, 0.1-0.2 s in the middle of an edit
    (refreshes free the old facts all the same: reference counting is not affected)."""
    gc.collect()
    gc.freeze()


def diagnostics_for(analysis: Analysis, path: Path, document: TextDocument, log_to: Any) -> list[types.Diagnostic]:
    """The diagnostics of one buffer; a failure of the analysis is logged and shown as
    one DOM001 diagnostic, so the other files are still checked (an :class:`AnalysisError`,
    the configuration's problem, is raised)."""
    try:
        findings = analysis.findings(path, document.source)
    except AnalysisError:
        raise
    except Exception as error:  # one file's failure must not take the server down
        log.exception("analysis of %s failed", path)
        reason = f"internal error: {_described(error)}"
        log_to(types.MessageType.Error, f"{path}: {reason}")
        start = types.Position(line=0, character=0)
        return [
            types.Diagnostic(
                range=types.Range(start=start, end=start),
                message=get_rule("DOM001").format(reason=reason),
                severity=types.DiagnosticSeverity.Error,
                code="DOM001",
                source=SOURCE,
            )
        ]
    lines = editor_lines(document.source)
    return [diagnostic(finding, document, lines) for finding in findings]


def diagnostic(finding: Finding, document: TextDocument, lines: Sequence[str] | None = None) -> types.Diagnostic:
    """``finding`` as the client shows it; ``lines``: the document's :func:`editor_lines`
    (pygls's ``lines`` also break at a form feed or U+2028, as Python and the protocol do
    not: every position after one would be off, and a quick fix would split a statement)."""
    lines = editor_lines(document.source) if lines is None else lines
    start = _server_position(lines, finding.line, finding.col)
    end = _server_position(lines, finding.end_line, finding.end_col) if finding.end_line else start
    if (end.line, end.character) <= (start.line, start.character):
        # Unknown: the token starting there (a name, a definition, a string).
        text = lines[start.line].rstrip("\r\n") if start.line < len(lines) else ""
        end = ServerTextPosition(start.line, max(token_end(text, start.character), start.character + 1))
    rule = RULES.get(finding.code)
    return types.Diagnostic(
        range=document.position_codec.range_to_client_units(lines, ServerTextRange(start, end)),
        message=finding.message,
        severity=severity(finding.code),
        code=finding.code,
        source=SOURCE,
        data={"symbol": finding.symbol, "fingerprint": finding.fingerprint, "rule": rule.name if rule else ""},
    )


UNSILENCEABLE = frozenset({UNANALYSABLE, STALE})  # codes no noqa comment can silence


def severity(code: str) -> types.DiagnosticSeverity:
    """Errors break a contract; a file that cannot be analysed is a warning."""
    if code not in RULES or code == UNANALYSABLE:
        return types.DiagnosticSeverity.Warning
    return types.DiagnosticSeverity.Error


def _server_position(lines: Any, line: int, col: int) -> ServerTextPosition:
    """Findings and the server both count columns in characters (the client's units are
    converted on the way out)."""
    index = max(line - 1, 0)
    text = lines[index].rstrip("\r\n") if index < len(lines) else ""
    return ServerTextPosition(index, min(col, len(text)))


def noqa_edit(document: TextDocument, line: int, code: str) -> types.TextEdit | None:
    """The edit adding ``code`` to the line's ``noqa`` comment, or adding one (on the last
    line of a statement continued by a backslash or a string over several lines)."""
    lines = editor_lines(document.source)
    if line >= len(lines):
        return None
    line = comment_line(document.source, line + 1) - 1
    text = lines[line]
    match = NOQA_INLINE_REGEXP.search(text)
    if match is not None and match.group("codes") is None:
        return None  # a noqa comment without codes hides everything already
    if match is not None and not _in_comment(document.source, line, match.start()):
        # flake8 reads the first noqa comment of the line, here inside a string: only editing
        # the string (the program's data) would change what it silences.
        return None
    if match is not None:
        at, insert = match.end("codes"), f",{code}"
        while at > 0 and text[at - 1] in ", ":  # after the last code, before a trailing separator
            at -= 1
    else:
        at, insert = len(text), f"{'  ' if text.strip() else ''}# noqa: {code}"
    position = document.position_codec.position_to_client_units(lines, ServerTextPosition(line, at))
    return types.TextEdit(range=types.Range(start=position, end=position), new_text=insert)


def _in_comment(source: str, line: int, column: int) -> bool:
    """Whether character ``column`` of 0-based ``line`` lies in a comment of ``source``
    (a source that does not tokenize is given the benefit of the doubt)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.start[0] > line + 1:
                return False
            if token.type == tokenize.COMMENT and token.start[0] == line + 1:
                return token.start[1] <= column
    except (tokenize.TokenError, SyntaxError):
        return True
    return False


def problem_file(config: Path, problem: str) -> Path:
    """The file a problem of the configuration is about: another file its first line
    names (``/project/.domain-fence-baseline.json:3: ...``, a baseline that cannot be
    read), else the configuration file."""
    named = _NAMED_FILE.match(problem)
    if named is None:
        return config
    path = Path(named["path"])
    return path if path.is_absolute() and path != config and path.is_file() else config


_NAMED_FILE = re.compile(r"(?P<path>[^\n]+?)(?::(?P<line>\d+))?: ")


def configuration_diagnostic(config: Path, problem: str) -> types.Diagnostic:
    """One diagnostic for every problem of the configuration (or of the file the first
    one names, see :func:`problem_file`), at the line the first one is about: the line
    it names, else :func:`.problems.problem_row`'s."""
    named = re.match(re.escape(str(config)) + r":(\d+): ", problem)
    prefix = named.group() if named is not None else f"{config}: "
    lines = [line.removeprefix(prefix) for line in problem.splitlines()]
    try:
        text = read_regular_file(config).decode("utf-8-sig")  # as the configuration is read; a FIFO would block
    except (OSError, UnicodeDecodeError):
        text = ""
    row = problem_row(text, lines[0], toml=config.suffix == ".toml") if lines else 0
    if named is not None:
        row = max(int(named.group(1)) - 1, 0) if len(named.group(1)) < 10 else 0
    shown = editor_lines(text)
    start = types.Position(line=row, character=0)
    end = types.Position(line=row, character=len(shown[row]) if row < len(shown) else 0)
    return types.Diagnostic(
        range=types.Range(start=start, end=end),
        message="configuration cannot be used: " + "\n".join(lines),
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
    )


def _named_file(root: Path, problem: str) -> Path | None:
    """The configuration file an error message of ``find_configuration`` names."""
    return next((root / name for name in CONFIG_FILES if problem.startswith(f"{root / name}:")), None)


def _described(error: BaseException) -> str:
    return f"{type(error).__name__}: {one_line(error)}"


def _within(position: types.Position, span: types.Range) -> bool:
    after_start = (position.line, position.character) >= (span.start.line, span.start.character)
    return after_start and (position.line, position.character) <= (span.end.line, span.end.character)


def _paths(uris: list[str]) -> list[Path]:
    return [real_path(path) for path in (to_fs_path(uri) for uri in uris) if path]


def build_server() -> DomainFenceServer:
    server = DomainFenceServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: DomainFenceServer, params: types.InitializedParams) -> None:
        watch = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watch and watch.dynamic_registration:
            ls.register_watchers("domain-fence-watch", [types.FileSystemWatcher(glob_pattern=p) for p in WATCHED])
            ls.relative_patterns = bool(watch.relative_pattern_support)  # the rest once the folders are loaded
        folders = [folder.uri for folder in ls.workspace.folders.values()]
        if not folders and ls.workspace.root_uri:
            folders = [ls.workspace.root_uri]
        ls.open_folders(_paths(folders))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: DomainFenceServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.close_folders(_paths([folder.uri for folder in params.event.removed]))
        ls.open_folders(_paths([folder.uri for folder in params.event.added]))
        ls.check_open_documents()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DomainFenceServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DomainFenceServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.check_later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DomainFenceServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.files_changed(_paths([params.text_document.uri]))  # others may depend on what was saved

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DomainFenceServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: DomainFenceServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed(_paths([change.uri for change in params.changes]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: DomainFenceServer, params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
        return ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DomainFenceServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params)

    @server.command(EXPLAIN_COMMAND)
    def explain_rule(ls: DomainFenceServer, *arguments: object) -> str | None:
        # Any client may send any arguments: a wrong one is told, not a traceback.
        if len(arguments) != 1 or not isinstance(arguments[0], str) or arguments[0] not in RULES:
            given = ", ".join(map(repr, arguments)) or "nothing"
            problem = f"{EXPLAIN_COMMAND} takes one rule code (DOM001 ... DOM303), not {given}"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=problem))
            return None
        text = explain(get_rule(arguments[0]))
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))
        return text

    return server


def serve() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="domain-fence lsp: %(levelname)s: %(message)s")
    # A thread waits for the next message in sys.stdin's readline, holding its lock; a
    # worker forked meanwhile (parsing many files at once) closes sys.stdin as it starts
    # (multiprocessing does) and would wait for that lock forever, and the server for it.
    messages = sys.stdin.buffer  # (sys.__stdin__ keeps it open)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 -- open for the process's life
    # An editor stops a server with SIGTERM, its pipes still open: the console script takes
    # one as a Ctrl-C, which pygls swallows while a thread waits on stdin. It ends the
    # server, as it ends any process.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    build_server().start_io(stdin=messages, stdout=sys.stdout.buffer)

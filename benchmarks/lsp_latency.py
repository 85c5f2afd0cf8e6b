"""How long the language server makes an editor wait, on Monty-sized trees.

For each tree (Monty 0.55's source, and 20 renamed copies of it side by side in one
project), configured by ``domain-fence init --preset monty`` and baselined:

- **edit latency**: from sending ``textDocument/didChange`` to receiving the
  ``publishDiagnostics`` of that version, after warm-up edits, p50 and p95. Each
  edit toggles a line holding an experiment-vocabulary event field and a forbidden
  import, so every publication differs from the last: a new class and new imports,
  edits that change what other modules may depend on. Each edit is sent once the
  last one's diagnostics came: after a pause in typing, which the server checks at
  once (its debounce, ``DEBOUNCE_SECONDS``, holds back only a change following the
  last within that time). The edits start after a pause
  of ``IDLE_SECONDS`` once the file is open, in which the server validates the project
  and settles its heap, as it would while one reads the file;
- **typing latency**: the same, for edits that type a statement into a function's
  body (the module's classes, bindings and definitions as they were), as most
  keystrokes do;
- **first diagnostics**: from starting the server process (and from sending
  ``initialize``) to the first diagnostics of a file opened at once, with the fact
  cache warm, against a warm ``domain-fence check`` of the same tree (median of runs):
  one replaying its last report, and one after the edited file changed;
- **save**: from ``didSave`` to the open file's diagnostics, the saved module read again.

    python benchmarks/lsp_latency.py --source /path/to/tbp_monty-0.55.0/src
    python benchmarks/lsp_latency.py --source ... --scales 1 --edits 30

Trees are built in ``benchmarks/.work/lsp/`` and reused. Run it with the
interpreter domain-fence is installed in (with its ``lsp`` extra); it needs the
real Monty source (``pip download --no-binary :all: --no-deps tbp-monty==0.55.0``).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from domain_fence.integrations.lsp.server import DEBOUNCE_SECONDS

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "lsp"
BIN = Path(sys.executable).parent
EDITED = "tbp/monty/frameworks/models/evidence_matching/learning_module.py"
# Appended to the edited module: a forbidden import (DOM301) and an event with an
# experiment word (DOM101), both new, so each edit changes what is published.
DIRTY_TAIL = (
    "\n\nfrom tbp.monty.frameworks.experiments import monty_experiment\n"
    "from tbp.monty.telemetry.schemas import TelemetrySchema\n\n\n"
    "class EditedEvent(TelemetrySchema):\n    episode: int\n"
)
SAVES = 5
IDLE_SECONDS = 3.0  # after the first diagnostics, before the first edit
TOP = re.compile(r"\btbp\.monty\b")


def build_tree(source: Path, scale: int) -> Path:
    """``scale`` copies of the Monty source (``tbp.monty``, ``tbp.monty02``, ...), one
    project configured by ``init --preset monty`` for the first copy, then widened to all."""
    root = WORK / f"monty-x{scale}"
    stamp = root / ".built"
    if stamp.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    src = root / "src" / "tbp"
    for copy in range(1, scale + 1):
        name = _package(copy)
        shutil.copytree(source / "tbp" / "monty", src / name, ignore=shutil.ignore_patterns("__pycache__"))
        if copy > 1:
            for file in (src / name).rglob("*.py"):
                text = file.read_text(encoding="utf-8")
                file.write_text(TOP.sub(f"tbp.{name}", text), encoding="utf-8")
    _run(["domain-fence", "init", "--preset", "monty"], root)
    config = root / ".importlinter"
    config.write_text(_widened(config.read_text(encoding="utf-8"), scale), encoding="utf-8")
    _run(["domain-fence", "baseline"], root)
    stamp.write_text("")
    return root


def _package(copy: int) -> str:
    return "monty" if copy == 1 else f"monty{copy:02d}"


def _widened(config: str, scale: int) -> str:
    """The configuration of one copy made to cover them all: every module (or event
    base pattern) a value names, named in each copy. (import-linter accepts no ``**``
    after a ``*``, so one pattern cannot stand for a module and its descendants in
    every copy.)"""
    lines = []
    for line in config.splitlines():
        if line.startswith("    tbp.monty"):
            lines += [TOP.sub(f"tbp.{_package(copy)}", line) for copy in range(1, scale + 1)]
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def _run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} in {cwd} failed:\n{result.stderr}")
    return elapsed


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("lsp-latency", "1")
        self.published: dict[str, asyncio.Queue[tuple[float, types.PublishDiagnosticsParams]]] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.queue(params.uri).put_nowait((time.perf_counter(), params))

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            if params.type == types.MessageType.Error:
                raise SystemExit(f"the server cannot check the tree: {params.message}")

    def queue(self, uri: str) -> asyncio.Queue[tuple[float, types.PublishDiagnosticsParams]]:
        return self.published.setdefault(uri, asyncio.Queue())

    async def next_version(self, uri: str, version: int) -> tuple[float, types.PublishDiagnosticsParams]:
        while True:
            at, params = await asyncio.wait_for(self.queue(uri).get(), timeout=120)
            if params.version == version:
                return at, params


async def measure_server(root: Path, edits: int, warmup: int) -> dict[str, object]:
    target = root / "src" / EDITED
    uri, clean = target.as_uri(), target.read_text(encoding="utf-8")
    client = Client()
    started = time.perf_counter()
    await client.start_io(str(BIN / "domain-fence"), "lsp", cwd=str(root))
    sent_initialize = time.perf_counter()
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    client.initialized(types.InitializedParams())
    item = types.TextDocumentItem(uri=uri, language_id="python", version=0, text=clean)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    first_at, first = await client.next_version(uri, 0)
    await asyncio.sleep(IDLE_SECONDS)  # a reader's pause: the server validates and settles meanwhile
    latencies, counts = [], set()

    async def edit(version: int, text: str) -> float:
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        at, params = await client.next_version(uri, version)
        counts.add(len(params.diagnostics))
        return at - sent

    for version in range(1, warmup + edits + 1):
        elapsed = await edit(version, clean + DIRTY_TAIL if version % 2 else clean)
        if version > warmup:
            latencies.append(elapsed)
    typing = []
    last = 2 * (warmup + edits)
    for version in range(warmup + edits + 1, last + 1):
        elapsed = await edit(version, typed(clean, version))
        if version > last - edits:
            typing.append(elapsed)
    saves = []
    saved = typed(clean, last)  # the buffer as it is: an editor writes it, then says so
    try:
        for _ in range(SAVES):  # the saved module is read again, what depends on it computed again
            target.write_text(saved, encoding="utf-8")
            sent = time.perf_counter()
            client.text_document_did_save(
                types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            at, _params = await client.next_version(uri, last)
            saves.append(at - sent)
    finally:
        target.write_text(clean, encoding="utf-8")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    if counts == {0}:
        raise SystemExit("the edits produced no diagnostics: nothing was measured")
    latencies.sort()
    typing.sort()
    return {
        "first_from_start": first_at - started,
        "first_from_initialize": first_at - sent_initialize,
        "first_count": len(first.diagnostics),
        "p50": statistics.median(latencies),
        "p95": _p95(latencies),
        "max": latencies[-1],
        "typing_p50": statistics.median(typing),
        "typing_p95": _p95(typing),
        "typing_max": typing[-1],
        "counts": sorted(counts),
        "save": statistics.median(saves),
    }


def _p95(sorted_times: list[float]) -> float:
    return sorted_times[min(len(sorted_times) - 1, round(0.95 * (len(sorted_times) - 1)))]


def typed(clean: str, version: int) -> str:
    """``clean`` with a statement typed at the start of its first function's body: its
    classes, bindings and definitions are as they were."""
    function = next(node for node in ast.walk(ast.parse(clean)) if isinstance(node, ast.FunctionDef))
    first = function.body[0]
    lines = clean.splitlines(keepends=True)
    lines.insert(first.lineno - 1, f"{' ' * first.col_offset}typed = {version}\n")
    return "".join(lines)


def edited_check(root: Path, runs: int) -> float:
    """A warm check after the edited file changed: its report cannot be replayed, the
    other files' facts come from the cache."""
    target = root / "src" / EDITED
    clean = target.read_text(encoding="utf-8")
    try:
        times = []
        for run in range(runs):
            target.write_text(clean + f"# edit {run}\n", encoding="utf-8")
            times.append(_run(["domain-fence", "check"], root))
    finally:
        target.write_text(clean, encoding="utf-8")
    return statistics.median(times)


def python_files(root: Path) -> int:
    return sum(1 for _ in (root / "src").rglob("*.py"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="Monty's src/ directory (holding tbp/monty)")
    parser.add_argument("--scales", default="1,20", help="copies of Monty per tree (default: 1,20)")
    parser.add_argument("--edits", type=int, default=60, help="timed edits per tree")
    parser.add_argument("--warmup", type=int, default=6, help="edits before timing")
    parser.add_argument("--check-runs", type=int, default=5, help="timed runs of the warm check")
    arguments = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    for scale in (int(s) for s in arguments.scales.split(",")):
        root = build_tree(arguments.source.resolve(), scale)
        _run(["domain-fence", "check"], root)  # warms the fact and run caches
        check = statistics.median(_run(["domain-fence", "check"], root) for _ in range(arguments.check_runs))
        edited = edited_check(root, arguments.check_runs)
        result = asyncio.run(measure_server(root, arguments.edits, arguments.warmup))
        print(
            f"monty-x{scale} ({python_files(root)} files): edit -> diagnostics p50 {result['p50'] * 1000:.0f} ms, "
            f"p95 {result['p95'] * 1000:.0f} ms, max {result['max'] * 1000:.0f} ms "
            f"({arguments.edits} edits after {arguments.warmup}, each after the last one's diagnostics; "
            f"debounce {DEBOUNCE_SECONDS * 1000:.0f} ms within a burst; "
            f"diagnostics per publication {result['counts']})"
        )
        print(
            f"  typing in a function's body -> diagnostics p50 {result['typing_p50'] * 1000:.0f} ms, "
            f"p95 {result['typing_p95'] * 1000:.0f} ms, max {result['typing_max'] * 1000:.0f} ms"
        )
        print(
            f"  first diagnostics: {result['first_from_start'] * 1000:.0f} ms from process start, "
            f"{result['first_from_initialize'] * 1000:.0f} ms from initialize; "
            f"warm `domain-fence check`: {check * 1000:.0f} ms, after a file changed {edited * 1000:.0f} ms "
            f"(medians of {arguments.check_runs})"
        )
        print(
            f"  save -> diagnostics of the open file (the saved module read again): {result['save'] * 1000:.0f} ms "
            f"(median of {SAVES})"
        )
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()

"""Signals: Ctrl-C (or SIGTERM, taken as one) ends ``domain-fence`` with one line and
status 130, from its start (while the command line is imported) to its end (never
SIGABRT or SIGSEGV from grimp's native threads while the import graph is built), and a
``kill -9`` during the parallel parse leaves no worker process behind.

No timing is asserted: each run waits for a sign that the moment has come (grimp's
cache lock appears as the build starts; worker processes appear as the parse starts)
and only then sends the signal, after a delay that varies from run to run to sample
the window.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import BIN, project

# Slow: each sends a signal to running console scripts and waits for them to go.
pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="reads /proc"), pytest.mark.slow]

BODY = "".join(f"VALUE_{n} = [{n}, {n + 1}, {{'k': ({n}, {n})}}]\n" for n in range(300))


def many_modules(tmp_path: Path, count: int) -> Path:
    """A project whose graph build and parse take a while: ``count`` event modules."""
    files = {
        f"app/runtime/m{n}.py": f"from app.runtime.events import Event\n\n\nclass E{n}(Event):\n    size: int\n\n{BODY}"
        for n in range(count)
    }
    return project(tmp_path, files)


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}


def wait_for(condition, what: str, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.002)


def children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(p) for p in text.split()}


def started(root: Path, *args: str, output: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """``domain-fence`` started in ``root`` as a user would: with Ctrl-C's default
    disposition, whatever this process inherited (a shell starts a background job, a CI
    run say, with SIGINT ignored, and a child would inherit that)."""
    return subprocess.Popen(
        [str(BIN / "domain-fence"), *args],
        cwd=root,
        env=environment(),
        stdout=output,
        stderr=output,
        preexec_fn=_default_interrupt,  # only resets one signal, before exec
    )


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_workers(process: subprocess.Popen[bytes], count: int) -> set[int]:
    """The process's parsing workers once ``count`` are seen (none if it ended first)."""
    wait_for(lambda: len(children(process.pid)) >= count or process.poll() is not None, "the workers start")
    return children(process.pid)


def leave_nothing_behind(process: subprocess.Popen[bytes], workers: set[int]) -> None:
    for pid in workers:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    if process.poll() is None:
        process.kill()
        process.communicate()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended; only its parent's wait is missing


def test_ctrl_c_while_the_command_line_is_imported_exits_130_with_one_line(tmp_path):
    # The signal comes as click is imported (a module of that name, first on the path,
    # sends it): before the command line could handle it. (domain-fence-lint-imports
    # imports its hosts from the interpreter's own directories alone: see
    # tests/cli/test_console.py.)
    root = project(tmp_path)
    shadow = tmp_path / "shadow" / "click"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("import os, signal\n\nos.kill(os.getpid(), signal.SIGINT)\n")
    done = subprocess.run(
        [str(BIN / "domain-fence")],
        cwd=root,
        env={**environment(), "PYTHONPATH": str(shadow.parent)},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_default_interrupt,
    )
    assert (done.returncode, done.stderr) == (130, "domain-fence: interrupted\n"), done.stdout


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_while_the_graph_is_built_exits_130_with_one_line(tmp_path, delay, sent):
    root = many_modules(tmp_path, 600)
    lock = root / ".import_linter_cache" / "domain-fence.lock"
    process = started(root, "check", "--quiet")
    try:
        wait_for(lambda: lock.exists() or process.poll() is not None, "the graph build start")
        time.sleep(delay)
        process.send_signal(sent)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        leave_nothing_behind(process, set())
    if process.returncode in (0, 1):
        pytest.skip("the run ended before the signal came")  # a fast machine: nothing to see
    assert (process.returncode, stderr.decode()) == (130, "domain-fence: interrupted\n"), stdout


@pytest.mark.parametrize("command", [["check", "--no-cache"], ["baseline", "--no-cache"]])
def test_kill_9_during_the_parallel_parse_leaves_no_worker(tmp_path, command):
    root = many_modules(tmp_path, 1500)
    process = started(root, *command, output=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        workers = wait_for_workers(process, 2)
        process.kill()
        process.wait(timeout=60)
        assert workers, "the parse ended before the workers were seen"
        deadline = time.monotonic() + 60
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if alive(pid)] == []
    finally:
        leave_nothing_behind(process, workers)  # even when the test fails
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("workers_seen", [1, 2])
@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_while_the_workers_start_or_work_exits_130_with_one_line_and_leaves_no_worker(
    tmp_path, workers_seen, sent
):
    # Raised inside fork's own handlers, a Ctrl-C was lost (the run went on to exit 0) or
    # left a worker the pool did not know of, which the parent then waited for at exit.
    root = many_modules(tmp_path, 200)  # enough for two workers
    sampled = 0
    for _ in range(6):  # each run samples the moment anew, until two have seen it
        process = started(root, "check", "--no-cache", "--quiet")
        workers: set[int] = set()
        try:
            workers = wait_for_workers(process, workers_seen)
            process.send_signal(sent)
            working = any(alive(pid) for pid in workers)  # then they were when it came
            stdout, stderr = process.communicate(timeout=60)
        finally:
            leave_nothing_behind(process, workers)
        if not working:
            # The parse ended before the signal came (on a busy machine this process may
            # be descheduled between seeing the workers and signalling): nothing to see.
            continue
        assert (process.returncode, stderr.decode()) == (130, "domain-fence: interrupted\n"), stdout
        assert [pid for pid in workers if alive(pid)] == []
        sampled += 1
        if sampled == 2:
            return
    if not sampled:
        pytest.skip("every run ended before the signal came")


def test_sigterm_ends_the_language_server_while_its_pipes_are_open(tmp_path):
    # An editor stops its server so (Neovim's forced stop): taken as a Ctrl-C, pygls
    # swallowed it while a thread waited on stdin, and the server went on.
    root = project(tmp_path)
    process = subprocess.Popen(
        [str(BIN / "domain-fence"), "lsp"],
        cwd=root,
        env=environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_default_interrupt,
    )
    try:
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}'
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        process.stdin.flush()
        assert process.stdout.readline().startswith(b"Content-Length")  # it serves: the moment has come
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == -signal.SIGTERM
    finally:
        leave_nothing_behind(process, set())

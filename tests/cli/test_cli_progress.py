"""The spinner ``check`` shows on stderr while contracts run: only when stderr is a
terminal (a tty), whatever the environment says of colours; where it is none, rich is
not asked (that a check then imports no rich is asserted in
tests/performance/test_recorded_settings.py)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import threading
from contextlib import suppress

import pytest
from cli_support import BIN, copy_fixture, run

from domain_fence.integrations.cli import Progress

# What makes rich take any stream for a terminal: FORCE_COLOR is set in many CI jobs.
TERMINAL_ENVIRONMENT = ["FORCE_COLOR", "TTY_COMPATIBLE"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


@pytest.fixture
def plain_environment(monkeypatch):
    for name in TERMINAL_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("variable", TERMINAL_ENVIRONMENT)
def test_a_check_piped_in_ci_with_forced_colours_writes_nothing_on_stderr(tmp_path, variable):
    # A CI job's log is a pipe: the spinner's escape codes would fill it.
    root = copy_fixture("leaky", tmp_path)
    checked = run("domain-fence", "check", "--no-cache", cwd=root, env={variable: "1"})
    assert (checked.returncode, checked.stderr) == (1, "")


def test_a_check_on_a_terminal_shows_the_spinner(tmp_path, plain_environment):
    root = copy_fixture("leaky", tmp_path)
    controller, terminal = pty.openpty()
    shown = bytearray()

    def read_all() -> None:  # as it comes: a full terminal would block the check
        with suppress(OSError):  # the other end closed: all is read
            while chunk := os.read(controller, 65536):
                shown.extend(chunk)

    reader = threading.Thread(target=read_all)
    reader.start()
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    try:
        done = subprocess.run(
            [str(BIN / "domain-fence"), "check", "--no-cache"],
            cwd=root,
            env={**environment, "TERM": "xterm"},
            stdout=subprocess.PIPE,
            stderr=terminal,
            timeout=300,
        )
    finally:
        os.close(terminal)
        reader.join(timeout=60)
        os.close(controller)
    assert done.returncode == 1
    assert b"\x1b[?25l" in shown  # rich hides the cursor while the spinner turns


def test_a_stream_that_is_no_tty_gets_no_spinner(plain_environment, monkeypatch):
    for stream in (io.StringIO(), Closed(), object()):
        monkeypatch.setattr("sys.stderr", stream)
        assert Progress(enabled=True).enabled is False
    for variable in TERMINAL_ENVIRONMENT:
        monkeypatch.setenv(variable, "1")
        assert Progress(enabled=True).enabled is False
    monkeypatch.setattr("sys.stderr", Terminal())
    assert Progress(enabled=False).enabled is False
    with Progress(enabled=False).running() as update:
        update("Checking a contract")  # a no-op, never an error

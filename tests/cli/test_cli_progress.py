"""The spinner ``check`` shows on stderr while contracts run: only on a terminal, as
rich decides it; where rich would say there is none, it is not asked (that a check
then imports no rich is asserted in tests/performance/test_recorded_settings.py)."""

from __future__ import annotations

import io

import pytest

from domain_fence.integrations.cli import Progress, _may_be_a_terminal


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


@pytest.fixture
def plain_environment(monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)


def test_a_stream_that_is_no_tty_is_no_terminal(plain_environment):
    assert _may_be_a_terminal(io.StringIO()) is False
    assert _may_be_a_terminal(Closed()) is False
    assert _may_be_a_terminal(object()) is False  # type: ignore[arg-type]  # no isatty at all
    assert _may_be_a_terminal(Terminal()) is True


@pytest.mark.parametrize("variable", ["FORCE_COLOR", "TTY_COMPATIBLE"])
def test_what_makes_rich_treat_a_stream_as_a_terminal_leaves_the_question_to_rich(monkeypatch, variable):
    monkeypatch.setenv(variable, "1")
    assert _may_be_a_terminal(io.StringIO()) is True


def test_the_spinner_is_off_when_stderr_is_no_terminal_or_the_run_is_quiet(plain_environment, monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert Progress(enabled=True).enabled is False
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats stderr as a terminal
    assert Progress(enabled=True).enabled is True
    assert Progress(enabled=False).enabled is False
    with Progress(enabled=False).running() as update:
        update("Checking a contract")  # a no-op, never an error

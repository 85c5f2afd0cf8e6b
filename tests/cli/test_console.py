"""The console scripts' entry points: a Ctrl-C, or a SIGTERM taken as one, that comes
before the command line can handle it (while it is imported) is one line and status
130 too; the subprocess case is in tests/reliability/test_signals.py."""

from __future__ import annotations

import signal
import sys
import types

import pytest

from domain_fence.integrations import console


@pytest.fixture
def sigterm():
    """The process's SIGTERM handling, as it was once the test is over."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def interrupted_on_import(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """``name`` raises KeyboardInterrupt as it is imported, as a Ctrl-C then would."""

    class Interrupting(types.ModuleType):
        def __getattr__(self, attribute: str) -> object:
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, name, Interrupting(name))


@pytest.mark.parametrize(
    ("entry", "module"),
    [
        (console.domain_fence, "domain_fence.integrations.cli"),
        (console.lint_imports, "domain_fence.integrations.lint_imports"),
    ],
    ids=["domain-fence", "domain-fence-lint-imports"],
)
def test_an_interrupt_while_the_command_line_is_imported_is_one_line_and_130(
    monkeypatch, capsys, sigterm, entry, module
):
    interrupted_on_import(monkeypatch, module)
    with pytest.raises(SystemExit) as ended:
        entry()
    assert ended.value.code == 130
    assert capsys.readouterr() == ("", "domain-fence: interrupted\n")


def test_sigterm_is_taken_as_a_ctrl_c(monkeypatch, capsys, sigterm):
    interrupted_on_import(monkeypatch, "domain_fence.integrations.cli")
    with pytest.raises(SystemExit):
        console.domain_fence()
    with pytest.raises(KeyboardInterrupt):
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)  # type: ignore[operator]

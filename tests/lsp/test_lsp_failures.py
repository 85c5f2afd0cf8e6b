"""What the language server does when the analysis fails, or cannot start."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from lsprotocol import types
from pygls.workspace import TextDocument

from domain_fence.integrations.cli import main
from domain_fence.integrations.lsp.server import configuration_diagnostic, diagnostics_for


class FailingAnalysis:
    def findings(self, path: Path, text: str) -> list:
        raise RecursionError("maximum recursion depth exceeded\nwhile resolving a base")


def test_a_failing_analysis_is_logged_and_shown_as_dom001(tmp_path: Path):
    logged: list[tuple[types.MessageType, str]] = []
    path = tmp_path / "module.py"
    document = TextDocument(path.as_uri(), "x = 1\n")
    (diagnostic,) = diagnostics_for(FailingAnalysis(), path, document, lambda kind, text: logged.append((kind, text)))
    assert diagnostic.code == "DOM001"
    assert diagnostic.message == "skipped: internal error: RecursionError: maximum recursion depth exceeded"
    assert logged == [
        (types.MessageType.Error, f"{path}: internal error: RecursionError: maximum recursion depth exceeded")
    ]


def test_lsp_without_pygls_is_one_line_and_status_2(monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def without_pygls(name, *args, **kwargs):
        if name.startswith("pygls"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "domain_fence.integrations.lsp.server", raising=False)
    monkeypatch.setattr(builtins, "__import__", without_pygls)
    result = CliRunner().invoke(main, ["lsp"])
    assert result.exit_code == 2
    assert result.output == "domain-fence: error: the language server needs pygls: pip install 'domain-fence[lsp]'\n"


@pytest.mark.parametrize(
    ("name", "text", "problem", "row"),
    [
        (
            ".importlinter",
            "[importlinter]\nroot_package = a\n\n[importlinter:contract:x]\nname = X\n\n[importlinter:contract:x]\n",
            "cannot read configuration: While reading from '<string>' [line 7]: section "
            "'importlinter:contract:x' already exists",
            6,
        ),
        (
            "pyproject.toml",
            '[tool.importlinter]\nroot_packages = ["a"\n\n[[tool.importlinter.contracts]]\n',
            "cannot read configuration: Unclosed array (at line 4, column 1)",
            3,
        ),
        (
            ".importlinter",
            "[importlinter]\nroot_package = a\n\n[importlinter:contract:x]\nname = X\n",
            "[importlinter:contract:x] forbidden_modules: module 'a.b' does not exist",
            3,
        ),
        (".importlinter", "[importlinter]\n", "cannot read configuration: [line 99]: beyond the end", 0),
    ],
)
def test_a_configuration_problem_is_shown_where_the_reader_stopped(
    tmp_path: Path, name: str, text: str, problem: str, row: int
):
    config = tmp_path / name
    config.write_text(text)
    diagnostic = configuration_diagnostic(config, f"{config}: {problem}")
    assert diagnostic.range.start.line == diagnostic.range.end.line == row
    assert diagnostic.message == f"configuration cannot be used: {problem}"

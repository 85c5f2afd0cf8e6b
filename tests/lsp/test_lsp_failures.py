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
from domain_fence.integrations.lsp.server import diagnostics_for


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

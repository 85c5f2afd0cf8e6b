"""domain-fence holds itself and its reference codebase to its own rules."""

from __future__ import annotations

from support import REPO, run_tool


def test_lint_imports_passes_at_the_repository_root():
    result = run_tool("lint-imports", "--no-logo", cwd=REPO)
    assert result.returncode == 0, result.output
    assert "broken" in result.stdout and " 0 broken" in result.stdout

"""Exit statuses, front end by front end: 0 clean, 1 findings, 2 error (the README's
table). ``lint-imports`` has only 0 and 1; pytest reports a bad configuration as a
usage error (4), as it does for its own options.
"""

from __future__ import annotations

import pytest
from reliability_support import cli, edit_config, flake8, lint_imports, project, run

LEAK = {"app/runtime/leak.py": "from app.experiment import setup\n"}
BAD_OPTION = (
    "    app.experiment\n\n[importlinter:contract:vocabulary]",
    "    app.experiment\nforbidden_module = x\n\n[importlinter:contract:vocabulary]",
)
ERROR = "error"  # a project whose configuration is unusable


def make(tmp_path, state: str):
    root = project(tmp_path, LEAK if state == "findings" else None)
    if state == ERROR:
        edit_config(root, *BAD_OPTION)
    return root


@pytest.mark.parametrize(
    "state, args, status",
    [
        ("clean", ["check"], 0),
        ("findings", ["check"], 1),
        ("findings", ["check", "--format", "sarif"], 1),
        (ERROR, ["check"], 2),
        ("clean", ["check", "--format", "xml"], 2),  # a usage error
        ("findings", ["baseline"], 0),  # recording is not failing
        ("findings", ["baseline", "--prune"], 0),
        (ERROR, ["baseline"], 2),
        ("clean", ["init", "--force"], 0),
        ("clean", ["init"], 2),  # .importlinter exists
        ("clean", ["explain", "DOM101"], 0),
        ("clean", ["explain", "DOM999"], 2),
    ],
)
def test_domain_fence(tmp_path, state, args, status):
    root = make(tmp_path, state)
    result = cli(*args, cwd=root)
    assert result.status == status, result
    if status == 2:
        [line] = result.stderr.splitlines()
        assert line.startswith("domain-fence: error: ")


def test_domain_fence_console_script(tmp_path):
    # The real process, not click's runner: statuses survive the console script.
    statuses = [
        run("domain-fence", "check", "--quiet", cwd=make(tmp_path / s, s)).status for s in ("clean", "findings", ERROR)
    ]
    assert statuses == [0, 1, 2]


def test_lint_imports_with_our_contracts(tmp_path):
    statuses = [lint_imports(cwd=make(tmp_path / s, s)).status for s in ("clean", "findings", ERROR)]
    assert statuses == [0, 1, 1]  # import-linter does not tell a bad configuration apart


def test_flake8_with_the_plugin(tmp_path):
    results = [flake8("app", cwd=make(tmp_path / s, s)) for s in ("clean", "findings", ERROR)]
    assert [r.status for r in results] == [0, 1, 2]
    assert results[2].stderr.startswith("flake8: domain-fence: error: ")


def test_pytest_with_the_plugin(tmp_path):
    statuses = [
        run("pytest", "--domain-fence", "-p", "no:cacheprovider", "-q", cwd=make(tmp_path / s, s)).status
        for s in ("clean", "findings", ERROR)
    ]
    assert statuses == [0, 1, 4]  # 4: pytest's usage error

"""`domain-fence init` in a project linted with ruff: flake8 is configured for the DOM
codes only, so its pycodestyle and pyflakes defaults never contradict ruff."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import copy_fixture, domain_fence, run
from test_cli_init import FLAKE8_PLUGIN_INSTALLED

from domain_fence.core.setup.layout import LayoutError, ruff_configuration

PYPROJECT_WITH_RUFF = '[project]\nname = "tbp.monty"\n\n[tool.ruff]\nline-length = 100\n'
# A runtime module breaking pycodestyle (E501), pyflakes (F401) and the boundary (DOM301).
OFFENDING = f"import os\nfrom tbp.monty.experiment import telemetry\n\nDESCRIPTION = '{'a long line ' * 10}'\n"


@pytest.fixture
def monty(tmp_path: Path) -> Path:
    return copy_fixture("monty", tmp_path)


@pytest.mark.parametrize(
    ("name", "content"), [("ruff.toml", "line-length = 100\n"), ("pyproject.toml", PYPROJECT_WITH_RUFF)]
)
def test_in_a_ruff_project_flake8_reports_only_dom_codes(monty, name, content):
    (monty / name).write_text(content)
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"wrote .flake8: select = DOM (ruff lints this project, see {name}: flake8 reports only DOM codes)" in lines
    assert "  vim.lsp.config('domain_fence', { cmd = { 'domain-fence', 'lsp' }, filetypes = { 'python' }," in lines
    flake8_config = (monty / ".flake8").read_text()
    assert "select = DOM\n" in flake8_config and "extend-select" not in flake8_config

    if FLAKE8_PLUGIN_INSTALLED:
        (monty / "src/tbp/monty/frameworks/models/offending.py").write_text(OFFENDING)
        flake8 = run("flake8", "src", cwd=monty)
        assert flake8.returncode == 1, flake8.stderr
        reported = [line.split(": ", 1)[1].split()[0] for line in flake8.stdout.splitlines()]
        assert reported == ["DOM301"], flake8.stdout


def test_without_ruff_init_keeps_flake8_defaults_and_prints_no_editor_recipe(monty):
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert "wrote .flake8: extend-select = DOM" in result.stdout.splitlines()
    assert "vim.lsp" not in result.stdout


def test_a_ruff_project_configuring_flake8_is_left_alone(monty):
    (monty / "ruff.toml").write_text("line-length = 100\n")
    (monty / "tox.ini").write_text("[flake8]\nmax-line-length = 100\n")
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 0, result.stderr
    assert "kept tox.ini: it configures flake8 already" in result.stdout
    assert (monty / "tox.ini").read_text() == "[flake8]\nmax-line-length = 100\n"
    assert not (monty / ".flake8").exists()


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"ruff.toml": ""}, "ruff.toml"),
        ({".ruff.toml": ""}, ".ruff.toml"),
        ({"pyproject.toml": PYPROJECT_WITH_RUFF}, "pyproject.toml"),
        ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['E']\n"}, "pyproject.toml"),
        ({"pyproject.toml": '[project]\nname = "x"\n\n[tool.black]\n'}, None),
        ({"setup.cfg": "[flake8]\n"}, None),
    ],
)
def test_ruff_configuration_is_found_where_ruff_looks(tmp_path, files, found):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    assert ruff_configuration(tmp_path) == (tmp_path / found if found else None)


@pytest.mark.parametrize(
    "text",
    ["[tool.ruff\n", "[tool.ruff]\nline-length = " + "9" * 5000 + "\n"],  # the second: tomllib's ValueError
    ids=["syntax", "integer too long"],
)
def test_an_unreadable_pyproject_is_one_line_and_status_2(monty, text):
    (monty / "pyproject.toml").write_text(text)
    with pytest.raises(LayoutError, match=r"pyproject.toml: cannot read: "):
        ruff_configuration(monty)
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 2
    assert result.stderr.startswith("domain-fence: error: ") and len(result.stderr.splitlines()) == 1
    assert not (monty / ".importlinter").exists()

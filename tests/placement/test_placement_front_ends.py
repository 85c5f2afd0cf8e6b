"""Annotated placement fixtures through the front ends users run: `domain-fence check`
and flake8 must report exactly the findings written beside the lines."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import expectations, reported
from support import FIXTURES, flake8_in_process, placement_config

PROJECT = FIXTURES / "placement" / "monty"
CONFIG = placement_config("tbp.monty")
FILES = [
    "src/tbp/monty/frameworks/telemetry/annotated.py",
    "src/tbp/monty/frameworks/telemetry/type_checking_aliases.py",
    "src/tbp/monty/frameworks/telemetry/joined.py",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "monty"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    (root / ".importlinter").write_text(CONFIG, encoding="utf-8")
    return root


def planted(path: Path) -> set[tuple[int, int, str]]:
    """(line, 1-based column, code) of each annotation: at the line's indentation
    unless it names a column."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return {
        (e.line, (e.col if e.col is not None else len(lines[e.line - 1]) - len(lines[e.line - 1].lstrip())) + 1, e.code)
        for e in expectations(path)
    }


def located(output: str, relative: str) -> set[tuple[int, int, str]]:
    """(line, 1-based column, code) of the findings ``output`` prints at ``relative``
    (`check` indents them under their contract)."""
    flush = "\n".join(line.strip() for line in output.splitlines())
    return {(line, col, code) for path, line, col, code, _ in reported(flush) if path == relative}


@pytest.mark.parametrize("relative", FILES)
def test_check_and_flake8_report_the_planted_findings(project, relative):
    expected = planted(project / relative)
    assert expected
    from click.testing import CliRunner

    from domain_fence.integrations.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        checked = CliRunner().invoke(main, ["check"], catch_exceptions=False)
    assert checked.exit_code == 1, checked.output
    assert located(checked.stdout, relative) == expected
    flaked = flake8_in_process("--select", "DOM", "--jobs", "1", relative, cwd=project)
    assert located(flaked.stdout, relative) == expected, flaked.output

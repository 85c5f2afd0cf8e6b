"""flake8 on stdin, as editors run it, on a module that is not saved yet: it is checked
as the module it will be, with the findings `domain-fence check` reports once the file
is saved, at the same lines and columns."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from support import FIXTURES, flake8_stdin, run_tool

PARITY = FIXTURES / "parity"
LOCATED = re.compile(r"^(?P<path>[\w./-]+):(?P<line>\d+):(?P<col>\d+): (?P<code>DOM\d{3}) ", re.MULTILINE)
# Every contract of the project breaks in it: a forbidden import (DOM301), one through
# a module outside the runtime (DOM302), an event field and keyword with an experiment
# word (DOM101, DOM104), a definition that belongs under experiment (DOM201).
FRESH = (
    "from app.experiment import modes\n"
    "from app.shared import helpers\n"
    "from app.runtime.events import Event\n\n\n"
    "class Fresh(Event):\n"
    "    episode: int\n\n\n"
    "def init_telemetry():\n"
    "    return Fresh(episode=1) if modes and helpers else None\n"
)

Located = tuple[str, int, int, str]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(PARITY, root)
    return root


def located(text: str) -> set[Located]:
    return {(m["path"].removeprefix("./"), int(m["line"]), int(m["col"]), m["code"]) for m in LOCATED.finditer(text)}


def saved_and_checked(project: Path, path: str, text: str) -> set[Located]:
    """What `domain-fence check` reports at ``path`` once ``text`` is saved there."""
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(text, encoding="utf-8")
    report = json.loads(run_tool("domain-fence", "check", "--format", "json", "--no-cache", cwd=project).stdout)
    return {
        (f["path"], f["line"], f["column"], f["code"])
        for contract in report["contracts"]
        for f in contract["findings"]
        if f["path"] == path
    }


# A module, one named like no identifier (grimp's module all the same), a package.
@pytest.mark.parametrize("path", ["app/runtime/fresh.py", "app/runtime/my-fresh.py", "app/runtime/motion/__init__.py"])
def test_a_module_not_saved_yet_gets_what_check_reports_once_it_is(project: Path, path: str):
    completed = flake8_stdin(project, path, FRESH)
    assert completed.stderr == ""
    assert completed.returncode == 1, completed.stdout
    unsaved = located(completed.stdout)
    assert not (project / path).exists()
    assert {code for *_, code in unsaved} == {"DOM101", "DOM104", "DOM201", "DOM301", "DOM302"}
    assert unsaved == saved_and_checked(project, path, FRESH)


def test_a_new_directory_without_init_is_reported_as_check_reports_its_files(project: Path):
    path = "app/runtime/motion/fresh.py"  # motion/ would have no __init__.py: not analysed
    completed = flake8_stdin(project, path, FRESH)
    assert completed.stderr == ""
    assert located(completed.stdout) == {(path, 1, 1, "DOM001")}
    assert "not analysed: motion/ has no __init__.py" in completed.stdout
    assert located(completed.stdout) == saved_and_checked(project, path, FRESH)


@pytest.mark.parametrize("path", ["tools/fresh.py", "fresh.py", "app/runtime/fresh.txt", "app/runtime/some.fresh.py"])
def test_a_file_outside_the_root_packages_gets_nothing(project: Path, path: str):
    completed = flake8_stdin(project, path, FRESH)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")

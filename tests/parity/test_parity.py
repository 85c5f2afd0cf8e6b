"""Every front end reports the same findings, at the same line and column.

On a fixture tree where every rule fires (one of them after a non-ASCII character), with noqa comments (one for a whole file, some inside strings), a baseline (one entry
still matching, one stale), a chain through a module outside the runtime and a file
Python cannot parse, the set of ``(path, line, column, code)`` is identical from:
``domain-fence check --format json``, ``flake8`` (on the files, and on each file
through stdin as editors run it), ``lint-imports``, ``pytest --domain-fence`` and
the language server's analysis.

What only some front ends can see is compared where it can be: flake8 never runs
plugins on a file it cannot parse itself (it reports E999 there), and never lints the
baseline file that holds a stale entry (DOM002).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from support import (
    FIXTURES,
    NEWER_SYNTAX_LINE,
    PARSES_NEWER_SYNTAX,
    flake8_in_process,
    flake8_stdin,
    run_tool,
)

PARITY = FIXTURES / "parity"
UNPARSABLE = "app/runtime/newer_syntax.py"  # grimp's parser reads it, Python before 3.14 does not
LOCATED = re.compile(r"^(?P<path>[\w./-]+):(?P<line>\d+):(?P<col>\d+): (?P<code>DOM\d{3}) ", re.MULTILINE)

Located = tuple[str, int, int, str]

EXPECTED: set[Located] = {
    ("app/runtime/model.py", 1, 28, "DOM301"),
    ("app/runtime/model.py", 2, 24, "DOM302"),
    ("app/runtime/model.py", 8, 32, "DOM104"),
    ("app/runtime/model.py", 14, 23, "DOM103"),  # a kind given at construction
    ("app/runtime/model.py", 18, 47, "DOM104"),  # an event built by Stats.model_construct(...)
    ("app/runtime/model.py", 22, 33, "DOM104"),  # a key of a local dict, unpacked into Stats(**payload)
    ("app/runtime/model.py", 27, 12, "DOM103"),  # a kind a local variable holds, at its literal
    ("app/runtime/model.py", 33, 11, "DOM104"),  # an attribute set on a local holding an event
    ("app/runtime/model.py", 38, 33, "DOM105"),  # a mapping unpacked into Stats(**...), from experiment knowledge
    ("app/runtime/model.py", 42, 23, "DOM103"),  # a kind another module's constant holds
    ("app/runtime/model.py", 50, 29, "DOM105"),  # through an emit function the module defines
    ("app/runtime/model.py", 51, 21, "DOM103"),  # a kind given to an emit function
    ("app/runtime/model.py", 51, 35, "DOM104"),  # a keyword given to an emit function
    ("app/runtime/model.py", 55, 38, "DOM104"),  # a key in a keyword's dict, given to an emit function
    ("app/runtime/model.py", 56, 64, "DOM104"),  # a key nested in a JSON literal's field, Stats.model_validate_json
    ("app/runtime/model.py", 61, 30, "DOM104"),  # an event built through a local alias of its class
    ("app/runtime/model.py", 67, 21, "DOM103"),  # an Enum member's .value, given to an emit function
    ("app/runtime/model.py", 68, 21, "DOM103"),  # str.format on a literal, another module's constant
    ("app/runtime/model.py", 69, 21, "DOM103"),  # % on a literal, another module's constant
    ("app/runtime/model.py", 70, 23, "DOM103"),  # another module's constant folded into an f-string
    ("app/runtime/model.py", 79, 40, "DOM104"),  # a key of a display on a side of |, unpacked into an emit function
    ("app/runtime/model.py", 80, 31, "DOM105"),  # through a property read on self
    ("app/runtime/model.py", 82, 5, "DOM201"),  # a class nested in a class body
    ("app/runtime/model.py", 90, 18, "DOM104"),  # a key merged with |= into a local dict, unpacked
    ("app/runtime/model.py", 91, 23, "DOM103"),  # an entry of another module's table of kind strings
    ("app/runtime/model.py", 100, 22, "DOM104"),  # an event built by a module-level name bound to a partial of it
    ("app/runtime/model.py", 105, 31, "DOM105"),  # an attribute read by getattr and a literal name
    ("app/runtime/positional.py", 14, 16, "DOM103"),  # a kind given by position to an emit function
    ("app/runtime/positional.py", 15, 27, "DOM105"),  # a value given by position to a dataclass event
    ("app/runtime/crossing.py", 10, 12, "DOM103"),  # a class's kind folded from another module's constant
    ("app/runtime/crossing.py", 18, 25, "DOM103"),  # a kind given by position to an emit method on self
    ("app/runtime/crossing.py", 19, 30, "DOM103"),  # .value of an Enum whose base is in another module
    # an emit function no configuration names: it builds an event from its own **fields
    ("app/runtime/reaching.py", 9, 28, "DOM103"),  # a kind given to it by keyword, in its module
    ("app/runtime/reached.py", 5, 16, "DOM103"),  # by position, through an import, where it is passed on as the kind
    ("app/runtime/reached.py", 5, 30, "DOM104"),  # a keyword given to it
    ("app/runtime/reached.py", 5, 41, "DOM105"),  # a value given to it, from experiment knowledge
    # an emit method no configuration names, called on its class's own instance
    ("app/runtime/publishing.py", 9, 23, "DOM103"),  # a kind given to it by position
    ("app/runtime/publishing.py", 9, 37, "DOM104"),  # a keyword given to it
    ("app/runtime/publishing.py", 9, 48, "DOM105"),  # a value given to it, from experiment knowledge
    ("app/runtime/publishing.py", 12, 23, "DOM103"),  # a kind by position alone, no keyword
    ("app/runtime/computed.py", 13, 9, "DOM101"),  # a computed field (beside ClassVars: no fields)
    ("app/runtime/accents.py", 3, 31, "DOM104"),  # in characters: 32 in UTF-8 bytes
    ("app/runtime/described.py", 14, 5, "DOM101"),  # a noqa inside its string names another code
    ("app/runtime/events.py", 6, 12, "DOM103"),
    ("app/runtime/events.py", 7, 5, "DOM101"),
    ("app/runtime/events.py", 16, 1, "DOM102"),
    ("app/runtime/events.py", 17, 53, "DOM103"),  # a kind a method sets on its instance
    ("app/runtime/events.py", 23, 20, "DOM103"),  # one a class method sets on its class
    ("app/runtime/events.py", 26, 16, "DOM103"),  # one a method sets through a local, at its literal
    ("app/runtime/census.py", 2, 24, "DOM112"),
    ("app/runtime/census.py", 3, 9, "DOM111"),
    ("app/runtime/census.py", 10, 1, "DOM201"),
    ("app/runtime/census.py", 15, 18, "DOM111"),  # a slot, at its string
    ("app/runtime/census.py", 18, 28, "DOM111"),  # with ... as self.train_log
    ("app/runtime/census.py", 20, 23, "DOM111"),  # setattr(self, "primary_target_id", ...)
    ("app/runtime/census.py", 23, 15, "DOM112"),  # a parameter of a lambda bound at module level
    ("app/runtime/census.py", 27, 5, "DOM201"),  # a definition by assignment, in a class body
    ("app/runtime/census.py", 28, 5, "DOM113"),  # one the census counts too (a method-like value)
    ("app/runtime/census.py", 31, 36, "DOM201"),  # a helper imported under the reserved name
    ("app/runtime/census.py", 34, 7, "DOM201"),  # a function attached to a class from outside its body
    ("app/runtime/census.py", 35, 14, "DOM201"),  # by setattr, at the name it is given
    ("app/runtime/shapes.py", 5, 33, "DOM301"),
    ("app/runtime/shapes.py", 9, 1, "DOM101"),  # a field of a mixin experiment code lends, at the class inheriting it
    ("app/runtime/shapes.py", 14, 20, "DOM103"),  # a kind in a string annotation, where it is written
    ("app/runtime/shapes.py", 19, 22, "DOM105"),  # a value an assignment expression binds in a comprehension
    ("app/runtime/validated.py", 12, 16, "DOM105"),  # a validator's value, where it returns it
    ("app/runtime/aliased.py", 7, 5, "DOM101"),  # a field's name and its alias both use words:
    ("app/runtime/aliased.py", 7, 42, "DOM101"),  # each reported where it is written
    (".domain-fence-baseline.json", 12, 1, "DOM002"),
}
# flake8 reports the file it cannot parse itself (E999), not as DOM001.
UNPARSED: set[Located] = set() if PARSES_NEWER_SYNTAX else {(UNPARSABLE, NEWER_SYNTAX_LINE, 1, "DOM001")}
EXPECTED |= UNPARSED


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parity") / "project"
    shutil.copytree(PARITY, root)
    return root


def located(text: str) -> set[Located]:
    return {(m["path"].removeprefix("./"), int(m["line"]), int(m["col"]), m["code"]) for m in LOCATED.finditer(text)}


def python_files(found: set[Located]) -> set[Located]:
    return {item for item in found if item[0].endswith(".py")}


def test_check_reports_every_rule(tree: Path):
    result = run_tool("domain-fence", "check", "--format", "json", "--no-cache", cwd=tree)
    assert result.returncode == 1, result.output
    report = json.loads(result.stdout)
    found = {
        (f["path"], f["line"], f["column"], f["code"])
        for contract in report["contracts"]
        for f in [*contract["findings"], *contract["stale"]]
    }
    assert found == EXPECTED


def test_noqa_and_the_baseline_are_applied_by_the_engine(tree: Path):
    report = json.loads(run_tool("domain-fence", "check", "--format", "json", "--no-cache", cwd=tree).stdout)
    by_id = {contract["id"]: contract for contract in report["contracts"]}
    suppressed = {(f["path"], f["line"], f["code"]) for c in report["contracts"] for f in c["suppressed"]}
    assert suppressed == {
        ("app/runtime/model.py", 3, "DOM301"),
        ("app/runtime/model.py", 9, "DOM104"),
        ("app/runtime/events.py", 8, "DOM101"),
        ("app/runtime/events.py", 12, "DOM102"),  # bare noqa
        ("app/runtime/census.py", 6, "DOM113"),
        ("app/runtime/skipped.py", 6, "DOM101"),  # a file-wide flake8 noqa comment
        # what a noqa written inside a string silences, as flake8 reads it: on a middle line
        # of a string over lines (read with every line of it), an f-string's too, and on one line
        ("app/runtime/described.py", 7, "DOM101"),
        ("app/runtime/described.py", 10, "DOM101"),
        ("app/runtime/described.py", 13, "DOM101"),
    }
    assert [(f["path"], f["code"]) for f in by_id["boundary"]["baselined"]] == [("app/runtime/legacy.py", "DOM301")]


def test_lint_imports_reports_the_same(tree: Path):
    result = run_tool("lint-imports", "--no-logo", "--no-cache", cwd=tree)
    assert result.returncode == 1, result.output
    assert located(result.stdout) == EXPECTED  # the stale entry at its line of the baseline too


def test_pytest_reports_the_same(tree: Path, pytester: pytest.Pytester):
    shutil.copytree(tree, pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(failed=4)
    assert located("\n".join(result.outlines)) == EXPECTED  # the stale entry at its line of the baseline too


def test_flake8_on_the_files_reports_the_same(tree: Path):
    result = run_tool("flake8", "--select", "DOM", "app", cwd=tree)
    assert result.returncode == 1, result.output
    assert located(result.stdout) == python_files(EXPECTED) - UNPARSED


@pytest.mark.parametrize(
    "path",
    [
        "app/runtime/model.py",
        "app/runtime/events.py",
        "app/runtime/census.py",
        "app/runtime/legacy.py",
        "app/runtime/accents.py",
        "app/runtime/described.py",
        "app/runtime/validated.py",
        "app/runtime/aliased.py",
    ],
)
def test_flake8_on_stdin_reports_the_same(tree: Path, path: str):
    source = (tree / path).read_text(encoding="utf-8")
    completed = flake8_stdin(tree, path, source)
    assert completed.stderr == ""
    assert located(completed.stdout) == {item for item in EXPECTED if item[0] == path}


@pytest.mark.parametrize(
    ("directory", "paths"),
    [("app/runtime", ["."]), ("app", ["runtime/model.py", "runtime/legacy.py"])],
)
def test_flake8_from_a_subdirectory_reports_the_same(tree: Path, directory: str, paths: list[str]):
    """As an editor runs it, from the directory of the file it shows: the configuration
    (and the baseline it names) is the project's, found upward; the findings are printed
    at the paths flake8 prints its own at, relative to where it runs."""
    result = flake8_in_process("--select", "DOM,E9", "--jobs", "1", *paths, cwd=tree / directory)
    assert result.stderr == ""
    named = [os.path.normpath(os.path.join(directory, path)) for path in paths]
    expected = {
        (os.path.relpath(path, directory), line, col, code)
        for path, line, col, code in python_files(EXPECTED) - UNPARSED
        if any(path == name or path.startswith(name + "/") for name in named)
    }
    assert len(expected) > 1
    assert located(result.stdout) == expected
    if paths == ["."]:  # flake8's own finding (the file it cannot parse) is printed alike
        assert all(line.startswith("./") for line in result.stdout.splitlines())
        assert PARSES_NEWER_SYNTAX or ("./newer_syntax.py:" in result.stdout and " E999 " in result.stdout)


def test_flake8_on_stdin_from_a_subdirectory_reports_the_same(tree: Path):
    source = (tree / "app/runtime/model.py").read_text(encoding="utf-8")
    completed = flake8_stdin(tree / "app" / "runtime", "model.py", source)
    assert completed.stderr == ""
    assert located(completed.stdout) == {
        ("model.py", line, col, code) for path, line, col, code in EXPECTED if path == "app/runtime/model.py"
    }


def test_flake8_checks_the_unsaved_buffer_not_the_saved_file(tree: Path, tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(tree, project)
    path = "app/runtime/legacy.py"
    # An editor's buffer: a new forbidden import above the saved (baselined) one.
    buffer = "from app.shared import helpers\n" + (project / path).read_text(encoding="utf-8")
    completed = flake8_stdin(project, path, buffer)
    # The new chain is reported at the buffer's line 1; the recorded import, now on
    # line 2, stays baselined: the file on disk was not read.
    assert located(completed.stdout) == {(path, 1, 24, "DOM302")}, completed.stdout + completed.stderr


def test_the_language_server_reports_the_same(tree: Path):
    # The server's analysis of each open file (the buffer as saved): what it publishes
    # as diagnostics, before their conversion to ranges (tests/lsp covers that).
    from domain_fence.integrations.lsp.analysis import Analysis

    analysis = Analysis(tree / ".importlinter")
    served = {
        (finding.path, finding.line, finding.col + 1, finding.code)
        for path in sorted((tree / "app").rglob("*.py"))
        for finding in analysis.findings(path, path.read_text(encoding="utf-8"))
    }
    assert served == python_files(EXPECTED)

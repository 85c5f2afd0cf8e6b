"""Hostile text in the output: a line feed, a carriage return or an escape sequence in
a kind string (or any text a message quotes) never splits a finding's line, forges a
GitHub workflow command or reaches the terminal raw, in any format of any front end;
configuration text that every report prints may hold none; SARIF locations are URIs.
"""

from __future__ import annotations

import json
import shutil

import pytest
from reliability_support import Result, cli, edit_config, flake8, lint_imports, project

CONFIG = ".importlinter"
FORGED = "::error file=evil.py,line=1::forged"
# A kind string with a line feed, a carriage return and an escape sequence.
HOSTILE = {
    "app/runtime/done.py": (
        "from app.runtime.events import Event\n\n\nclass Done(Event):\n"
        f'    KIND = "post_episode\\n{FORGED}\\r\\x1b[31mred"\n'
    )
}
DOM103 = (
    "app/runtime/done.py:5:12: DOM103 event kind "
    f"'post_episode\\n{FORGED}\\r\\x1b[31mred': experiment vocabulary 'episode'"
)


def assert_printable(text: str) -> None:
    for line in text.splitlines():
        assert line.isprintable() or "\t" in line, repr(line)
        assert not line.startswith("::error file=evil"), line


@pytest.mark.parametrize("args", [["check"], ["check", "--quiet"], ["check", "--verbose"]], ids=["text", "-q", "-v"])
def test_a_control_character_in_a_kind_string_is_escaped_in_text(tmp_path, args):
    root = project(tmp_path, HOSTILE)
    result = cli(*args, cwd=root)
    assert result.status == 1 and result.stderr == ""
    assert_printable(result.stdout)
    assert DOM103 in [line.strip() for line in result.lines]


def test_a_control_character_cannot_forge_a_github_workflow_command(tmp_path):
    root = project(tmp_path, HOSTILE)
    result = cli("check", "--format", "github", cwd=root)
    commands = [line for line in result.lines if line.startswith("::")]
    assert commands == [
        "::error file=app/runtime/done.py,line=5,col=12,title=DOM103::event kind "
        f"'post_episode\\n{FORGED}\\r\\x1b[31mred': experiment vocabulary 'episode'"
    ]
    assert_printable(result.stdout)


def test_a_control_character_is_escaped_in_markdown_json_and_sarif(tmp_path):
    root = project(tmp_path, HOSTILE)
    markdown = cli("check", "--format", "markdown", cwd=root).stdout
    assert_printable(markdown)
    [row] = [line for line in markdown.splitlines() if "DOM103" in line]
    assert row.startswith("| `app/runtime/done.py:5:12` | DOM103 | ") and row.count(" | ") == 3
    for format_ in ("json", "sarif"):
        text = cli("check", "--format", format_, cwd=root).stdout
        assert f"post_episode\\\\n{FORGED}" in text  # the escape itself, JSON-encoded
        json.loads(text)


def test_a_control_character_is_escaped_by_flake8_lint_imports_and_pytest(pytester, tmp_path):
    root = project(tmp_path, HOSTILE)
    linted = flake8("app", cwd=root)
    assert linted == Result(1, DOM103 + "\n", "")
    imports = lint_imports(cwd=root)
    assert_printable(imports.stdout)
    assert DOM103 in imports.stdout.replace("\n", "")
    for entry in root.iterdir():
        (shutil.copytree if entry.is_dir() else shutil.copy)(entry, pytester.path / entry.name)
    tested = pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", "-rf")
    assert_printable(tested.stdout.str())
    assert DOM103 in tested.stdout.lines


@pytest.mark.parametrize(
    "old, new, where",
    [
        (
            "name = Runtime does not import experiment",
            "name = Runtime\rdoes not import experiment",
            "[importlinter:contract:boundary] name: holds a control character (\\r)",
        ),
        (
            "    terminal state -> recognized state\n",
            "    terminal state -> recognized\x1b[31m state\n",
            "[importlinter:contract:vocabulary] words: holds a control character (\\x1b)",
        ),
    ],
    ids=["contract name", "word replacement"],
)
def test_configuration_text_with_a_control_character_is_refused(tmp_path, old, new, where):
    root = project(tmp_path)
    edit_config(root, old, new)
    message = f"{root / CONFIG}: {where}; use printable text"
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", f"domain-fence: error: {message}\n"), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: domain-fence: error: {message}\n")


def test_a_toml_contract_name_with_a_line_feed_is_refused(tmp_path):
    root = project(tmp_path)
    (root / CONFIG).unlink()
    (root / "pyproject.toml").write_text(
        "[tool.importlinter]\nroot_packages = ['app']\n"
        "contract_types = ['boundary: domain_fence.integrations.importlinter.BoundaryContract']\n\n"
        "[[tool.importlinter.contracts]]\nid = 'boundary'\nname = \"One\\n::error file=evil.py::forged\"\n"
        "type = 'boundary'\nsource_modules = ['app.runtime']\nforbidden_modules = ['app.experiment']\n",
        encoding="utf-8",
    )
    message = (
        f"{root / 'pyproject.toml'}: [[tool.importlinter.contracts]] 'One\\n::error file=evil.py::forged' name: "
        "holds a control character (\\n); use printable text"
    )
    assert cli("check", cwd=root) == Result(2, "", f"domain-fence: error: {message}\n")


def test_sarif_locations_are_percent_encoded(tmp_path):
    # A baseline file named with characters a URI reference must encode, holding an
    # entry that matches nothing: its DOM002 is located in that file.
    name = "we,ird:na%me #1.json"
    root = project(tmp_path)
    edit_config(
        root,
        "    app.experiment\n\n[importlinter:contract:vocabulary]",
        f"    app.experiment\nbaseline = {name}\n\n[importlinter:contract:vocabulary]",
    )
    entry = {"contract": "boundary", "fingerprint": "boundary:app.runtime.gone->app.experiment.setup"}
    (root / name).write_text(json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": [entry]}))
    sarif = json.loads(cli("check", "--format", "sarif", cwd=root).stdout)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for run in sarif["runs"]
        for result in run["results"]
        for location in result["locations"]
    }
    assert uris == {"we%2Cird%3Ana%25me%20%231.json"}

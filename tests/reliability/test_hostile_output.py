"""Hostile text in the output: a line feed, a carriage return or an escape sequence in
a kind string (or any text a message quotes) never splits a finding's line, forges a
GitHub workflow command or reaches the terminal raw, in any format of any front end;
configuration text that every report prints may hold none; SARIF locations are URIs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from reliability_support import BIN, Result, cli, edit_config, flake8, lint_imports, project

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


# A field named beyond latin-1 (Ω) and beyond the BMP (\U00010428), and one latin-1 holds (é).
NON_ASCII = {
    "app/runtime/wide.py": (
        "from app.runtime.events import Event\n\n\nclass Wide(Event):\n"
        "    episode_\u03a9: int = 0\n    episode_\U00010428: int = 0\n    episode_\u00e9: int = 0\n"
    )
}


def cli_encoded(*args: str, cwd: Path, encoding: str) -> tuple[int, bytes, str]:
    """``domain-fence ARGS`` in this process onto a stdout in ``encoding`` (a latin-1
    locale, a Windows pipe in cp1252): its status, the bytes written and stderr."""
    from domain_fence.integrations.cli import main

    with contextlib.chdir(cwd):
        result = CliRunner(charset=encoding).invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout_bytes, result.stderr


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])  # click writes UTF-8 for an ASCII stdout
@pytest.mark.parametrize("format_", ["text", "github", "markdown"])
def test_a_stdout_that_cannot_encode_a_character_gets_it_backslash_escaped(tmp_path, encoding, format_):
    root = project(tmp_path, NON_ASCII)
    status, written, stderr = cli_encoded("check", "--no-cache", "--format", format_, cwd=root, encoding=encoding)
    assert (status, stderr) == (1, "")
    text = written.decode(encoding)  # strict: every byte is the encoding's own
    expected = cli("check", "--no-cache", "--format", format_, cwd=root).stdout
    assert text == expected.encode(encoding, "backslashreplace").decode(encoding)
    assert "episode_\\u03a9" in text and "episode_\\U00010428" in text
    assert "episode_\u00e9" in text


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "ascii"])
@pytest.mark.parametrize("format_", ["json", "sarif"])
def test_a_stdout_in_no_unicode_encoding_gets_json_and_sarif_in_ascii(tmp_path, encoding, format_):
    root = project(tmp_path, NON_ASCII)
    status, written, stderr = cli_encoded("check", "--no-cache", "--format", format_, cwd=root, encoding=encoding)
    assert (status, stderr) == (1, "")
    assert written.isascii()  # é too: the same bytes whatever the encoding, valid UTF-8
    expected = cli("check", "--no-cache", "--format", format_, cwd=root).stdout
    assert json.loads(written) == json.loads(expected)
    assert "episode_\\u03a9" in written.decode() and "episode_\\ud801\\udc28" in written.decode()


def test_a_replayed_report_and_an_output_file_are_written_alike(tmp_path):
    root = project(tmp_path, NON_ASCII)
    first = cli_encoded("check", "--format", "json", cwd=root, encoding="latin-1")
    replayed = cli_encoded("check", "--format", "json", cwd=root, encoding="latin-1")
    assert first == replayed and first[0] == 1
    assert first[1].isascii() and b"episode_\\u03a9" in first[1]
    status, written, _ = cli_encoded("check", "--output", "report.txt", cwd=root, encoding="latin-1")
    assert (status, written) == (1, b"")
    assert "episode_\u03a9" in (root / "report.txt").read_text(encoding="utf-8")  # a file is UTF-8


def test_a_latin1_stdout_gets_the_report_from_the_console_script(tmp_path):
    root = project(tmp_path, NON_ASCII)
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    environment["PYTHONIOENCODING"] = "latin-1"
    for format_ in ("text", "json"):
        done = subprocess.run(
            [str(BIN / "domain-fence"), "check", "--no-cache", "--format", format_],
            cwd=root,
            env=environment,
            capture_output=True,
            timeout=120,
        )
        assert (done.returncode, done.stderr) == (1, b""), format_
        assert b"episode_\\u03a9" in done.stdout


def test_baseline_prints_what_it_recorded_onto_a_latin1_stdout(tmp_path):
    root = project(tmp_path, NON_ASCII)
    status, written, stderr = cli_encoded("baseline", "--no-cache", cwd=root, encoding="latin-1")
    assert (status, stderr) == (0, "")
    assert "episode_\\u03a9" in written.decode("latin-1")

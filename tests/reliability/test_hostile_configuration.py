"""Hostile configuration values: every one is one line and exit status 2 naming the
file and the key, through every front end that reads the configuration itself
(``domain-fence check`` and ``baseline``, flake8, ``pytest --domain-fence``), and
``lint-imports`` where our contract types can tell."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from reliability_support import BIN, Result, cli, edit_config, flake8, lint_imports, project

CONFIG = ".importlinter"
LEAK = {"app/runtime/leak.py": "from app.experiment import setup\n"}
LEAK_LINE = "app/runtime/leak.py:1:28: DOM301 app.runtime.leak imports forbidden app.experiment.setup"

PYPROJECT = """\
[tool.importlinter]
root_packages = ["app"]
contract_types = [
    "boundary: domain_fence.integrations.importlinter.BoundaryContract",
    "vocabulary: domain_fence.integrations.importlinter.VocabularyContract",
]

[[tool.importlinter.contracts]]
id = "boundary"
name = "Runtime does not import experiment"
type = "boundary"
source_modules = ["app.runtime"]
forbidden_modules = ["app.experiment"]
baseline = "boundary-baseline.json"

[[tool.importlinter.contracts]]
id = "vocabulary"
name = "Runtime events speak runtime"
type = "vocabulary"
modules = ["app.runtime"]
event_bases = ["app.runtime.events.Event"]
words = ["episode"]
"""


def toml_project(tmp_path, old: str = "", new: str = "", *more: str):
    """The project configured in pyproject.toml, with ``old`` replaced by ``new`` (and
    so on for each further pair)."""
    root = project(tmp_path, LEAK)
    (root / CONFIG).unlink()
    text = PYPROJECT
    replacements = (old, new, *more)
    for old, new in zip(replacements[::2], replacements[1::2], strict=False):
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    return root


def assert_refused_everywhere(pytester, root, message: str) -> None:
    """check, baseline, flake8 and pytest --domain-fence: one line, the same message."""
    expected = f"domain-fence: error: {message}\n"
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", expected), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: {expected}")
    for entry in root.iterdir():
        target = pytester.path / entry.name
        (shutil.copytree if entry.is_dir() else shutil.copy)(entry, target)
    tested = pytester.runpytest("--domain-fence", "-p", "no:cacheprovider")
    assert tested.ret == pytest.ExitCode.USAGE_ERROR
    assert tested.errlines == [f"ERROR: {message.replace(str(root), str(pytester.path))}", ""]


# -- INI: values read raw ------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new",
    [
        ("name = Runtime does not import experiment", "name = 100% of the runtime"),
        ("name = Runtime does not import experiment", "name = %(here)s runtime"),
        ("    terminal state -> recognized state\n", "    terminal state -> recognized state %\n"),
    ],
    ids=["percent", "interpolation syntax", "percent in a word entry"],
)
def test_a_percent_sign_in_an_ini_value_is_text(tmp_path, old, new):
    root = project(tmp_path, LEAK)
    edit_config(root, old, new)
    result = cli("check", "--quiet", cwd=root)
    assert (result.status, result.stderr) == (1, "")
    assert LEAK_LINE in result.lines
    assert flake8("app", cwd=root) == Result(1, LEAK_LINE + "\n", "")


def test_a_percent_sign_in_the_name_reaches_the_report_unchanged(tmp_path):
    root = project(tmp_path, LEAK)
    edit_config(root, "name = Runtime does not import experiment", "name = 100% runtime")
    assert cli("check", cwd=root).lines[0] == "100% runtime [boundary: boundary] BROKEN"
    assert cli("baseline", cwd=root).status == 0


def test_a_percent_sign_under_pytest(pytester, tmp_path):
    root = project(tmp_path, LEAK)
    edit_config(root, "name = Runtime does not import experiment", "name = 100% runtime")
    for entry in root.iterdir():
        (shutil.copytree if entry.is_dir() else shutil.copy)(entry, pytester.path / entry.name)
    tested = pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", "-rf")
    tested.assert_outcomes(passed=2, failed=2)
    tested.stdout.fnmatch_lines(["FAILED .importlinter::boundary - 100% runtime BROKEN"])
    assert "INTERNALERROR" not in tested.stdout.str()


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf"], ids=["utf-8 BOM"])
def test_a_configuration_with_a_byte_order_mark_is_read(tmp_path, bom):
    root = project(tmp_path, LEAK)
    (root / CONFIG).write_bytes(bom + (root / CONFIG).read_bytes())
    assert LEAK_LINE in cli("check", "--quiet", cwd=root).lines
    assert flake8("app", cwd=root) == Result(1, LEAK_LINE + "\n", "")


def test_a_pyproject_with_a_byte_order_mark_is_read(tmp_path):
    root = toml_project(tmp_path)
    (root / "pyproject.toml").write_bytes(b"\xef\xbb\xbf" + (root / "pyproject.toml").read_bytes())
    assert cli("check", "--quiet", cwd=root) == Result(1, LEAK_LINE + "\n", "")


@pytest.mark.parametrize(
    "before, message",
    [
        ("# the project's lint settings\n\nstray\n", "File contains no section headers. [line 3]: 'stray\\n'"),
        (
            "[flake8]\nmax-line-length = 100\nextend-ignore\n\n",
            "Source contains parsing errors: '<string>' [line  3]: 'extend-ignore\\n'",
        ),
    ],
    ids=["text before any section", "a line that is no option"],
)
def test_an_ini_file_configparser_cannot_read_is_refused_naming_the_line(pytester, tmp_path, before, message):
    # configparser names the line on its message's second line: kept on the one line printed.
    root = project(tmp_path)
    config = root / CONFIG
    config.write_text(before + config.read_text(encoding="utf-8"), encoding="utf-8")
    assert_refused_everywhere(pytester, root, f"{config}: cannot read configuration: {message}")


def test_a_multi_line_root_package_is_refused(pytester, tmp_path):
    root = project(tmp_path)
    edit_config(root, "root_package = app", "root_package =\n    app\n    app.runtime")
    assert_refused_everywhere(
        pytester,
        root,
        f"{root / CONFIG}: [importlinter] root_package: one value expected, on the same line as the key",
    )


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("root_package = app", "root_pakage = app", "root_pakage: Unrecognized option. Did you mean 'root_package'?"),
        ("contract_types =", "contract_type =", "contract_type: Unrecognized option. Did you mean 'contract_types'?"),
        (
            "root_package = app",
            "root_package = app\nexclude_type_checking_import = true",
            "exclude_type_checking_import: Unrecognized option. Did you mean 'exclude_type_checking_imports'?",
        ),
        ("root_package = app", "root_package = app\ncolour = blue", "colour: Unrecognized option."),
    ],
    ids=["root_package", "contract_types", "a flag", "nothing close"],
)
def test_a_misspelt_session_option_is_refused_naming_it(pytester, tmp_path, old, new, message):
    # lint-imports passes over it in silence: the setting meant would be lost unseen.
    root = project(tmp_path, LEAK)
    edit_config(root, old, new)
    assert_refused_everywhere(pytester, root, f"{root / CONFIG}: [importlinter] {message}")


def test_a_misspelt_session_option_in_pyproject_is_refused(tmp_path):
    root = toml_project(tmp_path, 'root_packages = ["app"]', 'root_packages = ["app"]\nroot_pakages = ["app"]')
    message = "[tool.importlinter] root_pakages: Unrecognized option. Did you mean 'root_packages'?"
    assert cli("check", cwd=root) == Result(2, "", f"domain-fence: error: {root / 'pyproject.toml'}: {message}\n")


def test_comma_separated_modules_are_read_alike_by_every_front_end(pytester, tmp_path):
    # import-linter reads one module expression per line: so do we, everywhere.
    root = project(tmp_path, LEAK)
    edit_config(root, "source_modules =\n    app.runtime\n", "source_modules = app.runtime, app.model\n")
    message = (
        f"{root / CONFIG}: [importlinter:contract:boundary] source_modules: "
        "invalid module expression 'app.runtime, app.model'"
    )
    assert_refused_everywhere(pytester, root, message)
    linted = lint_imports(cwd=root)
    assert linted.status == 1 and "invalid module expression 'app.runtime, app.model'" in linted.stdout


# -- TOML: value types ----------------------------------------------------------------

TOML_SECTION = "[[tool.importlinter.contracts]] 'Runtime events speak runtime'"
TOML_ERRORS = {
    "words a boolean": (
        'words = ["episode"]',
        "words = true",
        f"{TOML_SECTION} words: expected a string or a list of strings, not a boolean (True)",
    ),
    "words a number": (
        'words = ["episode"]',
        "words = 3",
        f"{TOML_SECTION} words: expected a string or a list of strings, not a number (3)",
    ),
    "words a table": (
        'words = ["episode"]',
        "words = {episode = 1}",
        f"{TOML_SECTION} words: expected a string or a list of strings, not a table ({{'episode': 1}})",
    ),
    "a word a number": (
        'words = ["episode"]',
        'words = ["episode", 2]',
        f"{TOML_SECTION} words: expected a list of strings, not one holding a number (2)",
    ),
    "a flag a number": (
        'words = ["episode"]',
        'words = ["episode"]\nscope = 1.5',
        f"{TOML_SECTION} scope: expected a string or a list of strings, not a number (1.5)",
    ),
    "root_packages of numbers": (
        'root_packages = ["app"]',
        "root_packages = [1]",
        "[tool.importlinter] root_packages: expected a list of strings, not one holding a number (1)",
    ),
    "root_package an array": (
        'root_packages = ["app"]',
        'root_package = ["app"]',
        "[tool.importlinter] root_package: expected a string, not an array (['app'])",
    ),
    "source_modules a table": (
        'source_modules = ["app.runtime"]',
        "source_modules = {a = 1}",
        "[[tool.importlinter.contracts]] 'Runtime does not import experiment' source_modules: "
        "expected a string or a list of strings, not a table ({'a': 1})",
    ),
    "ignore_imports of numbers": (
        'forbidden_modules = ["app.experiment"]',
        'forbidden_modules = ["app.experiment"]\nignore_imports = [1]',
        "[[tool.importlinter.contracts]] 'Runtime does not import experiment' ignore_imports: "
        "expected a list of strings, not one holding a number (1)",
    ),
    "contracts a table": (
        '[[tool.importlinter.contracts]]\nid = "boundary"',
        '[tool.importlinter.contracts]\nid = "boundary"',
        '[[tool.importlinter.contracts]]\nid = "vocabulary"',
        '[tool.importlinter.contracts.other]\nid = "vocabulary"',
        "[tool.importlinter] contracts: expected an array of tables ([[tool.importlinter.contracts]])",
    ),
    "a flag of the session a number": (
        'root_packages = ["app"]',
        'root_packages = ["app"]\ninclude_external_packages = 1',
        "[tool.importlinter] include_external_packages: expected true or false, not a number (1)",
    ),
    "duplicate contract ids": (
        'id = "vocabulary"',
        'id = "boundary"',
        f"{TOML_SECTION} id: more than one contract has the id 'boundary'; ids must be unique",
    ),
    "contract_types a string": (
        'contract_types = [\n    "boundary: domain_fence.integrations.importlinter.BoundaryContract",\n'
        '    "vocabulary: domain_fence.integrations.importlinter.VocabularyContract",\n]',
        'contract_types = "boundary: domain_fence.integrations.importlinter.BoundaryContract"',
        '[tool.importlinter] contract_types: give a list, contract_types = ["name: dotted.path.Class"]',
    ),
    "contract_types without the space": (
        '"boundary: domain_fence',
        '"boundary:domain_fence',
        "[tool.importlinter] contract_types: 'boundary:domain_fence.integrations.importlinter.BoundaryContract' "
        "is not 'name: dotted.path.Class' (one per line, a space after the colon)",
    ),
    "a contract named by a number too long to show": (  # TOML reads hexadecimal integers of any length
        'name = "Runtime does not import experiment"',
        "name = 0x" + "f" * 4000,
        "[[tool.importlinter.contracts]] a number too long to show name: expected a string, not a number "
        "(a number too long to show)",
    ),
    "root_packages a string": (
        'root_packages = ["app"]',
        'root_packages = "app"',
        '[tool.importlinter] root_packages: give a list, root_packages = ["a", "b"], or use root_package '
        "for a single one",
    ),
    "root_packages missing": (
        'root_packages = ["app"]\n',
        "",
        "[tool.importlinter] root_packages: This is a required field.",
    ),
    # Found against the project, by the engine and by the graph's builder: the section
    # still named as a pyproject writes it.
    "a root package that cannot be found": (
        'root_packages = ["app"]',
        'root_packages = ["nowhere"]',
        "[tool.importlinter] root_packages: cannot find nowhere (looked in {root}, its src/ and sys.path)",
    ),
    "a root package inside a regular package": (
        'root_packages = ["app"]',
        'root_packages = ["app.runtime"]',
        "[tool.importlinter] root_packages: 'app.runtime' is inside the regular package 'app' (it has an "
        "__init__.py); name 'app' instead",
    ),
}


@pytest.mark.parametrize("case", sorted(TOML_ERRORS))
def test_a_toml_value_of_the_wrong_type_is_refused_naming_the_key(pytester, tmp_path, case):
    *replacements, message = TOML_ERRORS[case]
    root = toml_project(tmp_path, *replacements)
    assert_refused_everywhere(pytester, root, f"{root / 'pyproject.toml'}: {message.replace('{root}', str(root))}")


def test_a_toml_integer_too_long_to_read_is_refused(tmp_path):
    # tomllib raises ValueError, not TOMLDecodeError. pytest itself reads pyproject.toml,
    # and fails on it with a traceback before any plugin runs: not a host to test here.
    root = toml_project(tmp_path, 'root_packages = ["app"]', 'root_packages = ["app"]\nlimit = ' + "9" * 5000)
    expected = (
        f"domain-fence: error: {root / 'pyproject.toml'}: cannot read configuration: Exceeds the limit (4300 "
        "digits) for integer string conversion: value has 5000 digits; use sys.set_int_max_str_digits() to "
        "increase the limit\n"
    )
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", expected), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: {expected}")


def test_a_toml_nested_deeper_than_python_reads_is_refused(tmp_path):
    # tomllib raises RecursionError; pytest reads pyproject.toml itself and fails first.
    root = toml_project(tmp_path, 'root_packages = ["app"]', 'root_packages = ["app"]\nx = ' + "[" * 3000 + "]" * 3000)
    expected = (
        f"domain-fence: error: {root / 'pyproject.toml'}: cannot read configuration: arrays or tables nested "
        "too deeply to read\n"
    )
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", expected), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: {expected}")


def test_two_contracts_of_one_id_are_refused_naming_the_second(pytester, tmp_path):
    # TOML refuses two explicit ids alike; two contracts named alike without ids would
    # share their baseline entries and findings: one contract checked twice, the other never.
    root = toml_project(
        tmp_path,
        'id = "boundary"\n',
        "",
        'id = "vocabulary"\n',
        "",
        'name = "Runtime events speak runtime"',
        'name = "Runtime does not import experiment"',
    )
    section = "[[tool.importlinter.contracts]] 'Runtime does not import experiment'"
    message = (
        f"{root / 'pyproject.toml'}: {section} id: 'Runtime does not import experiment' is already the id (or name) "
        "of another contract; give each contract an id of its own"
    )
    assert_refused_everywhere(pytester, root, message)


def test_a_contract_broken_without_a_finding_is_shown_in_every_format(tmp_path):
    # An ignore_imports entry matching no import breaks the contract (as in import-linter)
    # without any line to put a finding on: every report says so, not only the text.
    root = project(tmp_path)
    edit_config(
        root,
        "    app.experiment\n\n[importlinter:contract:vocabulary]",
        "    app.experiment\nignore_imports =\n    app.runtime.gone -> app.experiment\n\n[importlinter:contract:vocabulary]",
    )
    failure = "No matches for ignored import app.runtime.gone -> app.experiment."
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{CONFIG}: boundary: {failure}\n", "")
    github = cli("check", "--format", "github", cwd=root)
    assert github.status == 1
    assert github.lines[0] == f"::error file={CONFIG},title=boundary::{failure}"
    markdown = cli("check", "--format", "markdown", cwd=root)
    assert f"### Failures (in `{CONFIG}`)\n\n- `boundary`: {failure.replace('>', '&gt;')}\n" in markdown.stdout
    sarif = json.loads(cli("check", "--format", "sarif", cwd=root).stdout)
    schema = Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json"
    jsonschema.validate(sarif, json.loads(schema.read_text(encoding="utf-8")))
    (notification,) = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notification["level"] == "error" and notification["message"]["text"] == f"boundary: {failure}"
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == CONFIG
    assert json.loads(cli("check", "--format", "json", cwd=root).stdout)["contracts"][0]["failures"] == [failure]


def test_a_configuration_kept_away_from_its_packages_says_where_they_are(tmp_path):
    # lint-imports looks in the current directory; the root here is the configuration's.
    root = project(tmp_path, LEAK)
    (root / "lint").mkdir()
    (root / CONFIG).rename(root / "lint" / "contracts.ini")
    message = (
        f"domain-fence: error: {root / 'lint' / 'contracts.ini'}: [importlinter] root_packages: cannot find app "
        f"(looked in {root / 'lint'}, its src/ and sys.path); {root} holds it: the configuration's directory is "
        "the project's root, put the configuration there\n"
    )
    assert cli("check", "--config", "lint/contracts.ini", cwd=root) == Result(2, "", message)
    alone = message.split("; ")[0] + "\n"  # from where nothing holds it: no hint to give
    assert cli("check", "--config", "contracts.ini", cwd=root / "lint") == Result(2, "", alone)


def from_a_removed_directory(tmp_path, *command: str) -> tuple[int, str, str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    completed = subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        cwd=gone,
        preexec_fn=lambda: os.rmdir(gone),
        capture_output=True,
        text=True,
    )
    return completed.returncode, completed.stdout, completed.stderr


def test_a_configuration_checked_from_a_removed_directory_says_what_is_missing(tmp_path):
    root = project(tmp_path, LEAK)
    edit_config(root, "root_package = app", "root_package = nopkg")
    message = (
        f"{root / CONFIG}: [importlinter] root_packages: cannot find nopkg (looked in {root}, its src/ and sys.path)"
    )
    for cached in ([], ["--no-cache"]):
        checked = from_a_removed_directory(tmp_path, "domain-fence", "check", "--config", str(root / CONFIG), *cached)
        assert checked == (2, "", f"domain-fence: error: {message}\n")
    linted = from_a_removed_directory(tmp_path, "domain-fence-lint-imports", "--config", str(root / CONFIG))
    assert linted == (2, "", "domain-fence-lint-imports: error: the current directory: No such file or directory\n")


def test_contracts_lint_imports_runs_though_check_refuses_them_call_no_entry_stale(tmp_path):
    # Two contracts of one id (the second's given, the first's its name): check refuses
    # the configuration, lint-imports runs both. Which contract reads which entries
    # cannot be told then, and neither calls the other's stale (each did, before).
    root = toml_project(tmp_path, 'baseline = "boundary-baseline.json"\n', "")  # one baseline file
    (root / "app/runtime/stats.py").write_text(
        "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n", encoding="utf-8"
    )
    assert cli("baseline", cwd=root).status == 0
    config = root / "pyproject.toml"
    text = config.read_text(encoding="utf-8").replace('id = "boundary"\n', "")
    config.write_text(text.replace('id = "vocabulary"', 'id = "Runtime does not import experiment"'), encoding="utf-8")
    assert cli("check", cwd=root).status == 2
    linted = lint_imports("--no-logo", cwd=root)
    assert "DOM101" in linted.stdout and "DOM002" not in linted.stdout, linted

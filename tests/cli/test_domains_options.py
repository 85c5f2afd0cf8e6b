"""The options that make contracts describe domains: ``exclude_modules``,
``unclassified_modules_alerting``, event base patterns and method placement, through
``domain-fence check``, ``lint-imports`` and ``flake8``; bad values are one-line
errors with exit status 2."""

from __future__ import annotations

import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from cli_support import domain_fence, run

FLAKE8_PLUGIN_INSTALLED = any(ep.name == "DOM" for ep in entry_points(group="flake8.extension"))

HEAD = """\
[importlinter]
root_packages =
    app
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract
    placement: domain_fence.integrations.importlinter.PlacementContract
"""

BOUNDARY = """
[importlinter:contract:runtime]
name = Runtime does not import experiment
type = boundary
source_modules =
    {source}
forbidden_modules =
    app.experiment
{extra}"""

PLACEMENT = """
[importlinter:contract:machinery]
name = Experiment machinery lives under experiment
type = placement
symbols =
{symbols}
allowed_modules =
    app.experiment
{extra}"""

FILES = {
    "app/__init__.py": "",
    "app/runtime/__init__.py": "",
    "app/runtime/model.py": """\
        class Model:
            def step(self):
                pass

            def post_episode(self):
                pass
        """,
    "app/conf/__init__.py": "",
    "app/conf/settings.py": "import app.experiment.runner\n",
    "app/experiment/__init__.py": "",
    "app/experiment/runner.py": """\
        class MontyExperiment:
            def init_telemetry(self):
                pass

            def post_episode(self):
                pass
        """,
}


def write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, FILES)
    return tmp_path


def configure(project: Path, *sections: str) -> None:
    (project / ".importlinter").write_text(HEAD + "".join(sections))


def assert_one_line_error(result, expected: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("domain-fence: error: ") and expected in line, line


def test_the_source_less_forbidden_and_excluded_modules(project):
    configure(project, BOUNDARY.format(source="app", extra=""))
    broken = domain_fence("check", cwd=project)
    assert broken.returncode == 1
    assert "app/conf/settings.py:1:8: DOM301 app.conf.settings imports forbidden app.experiment.runner" in broken.stdout
    assert run("lint-imports", "--no-logo", cwd=project).returncode == 1

    configure(project, BOUNDARY.format(source="app", extra="exclude_modules =\n    app.conf\n"))
    kept = domain_fence("check", cwd=project)
    assert kept.returncode == 0, kept.stdout
    lint = run("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == 0, lint.stdout
    if FLAKE8_PLUGIN_INSTALLED:
        assert run("flake8", "--select", "DOM", "app", cwd=project).returncode == 0


def test_a_chain_through_an_excluded_module_is_the_importers(project):
    # An excluded module is outside the source: its own import is no finding, but the
    # source module reaching the experiment through it is, as through any other module.
    write(project, {"app/runtime/loader.py": "from app.conf import settings\n"})
    configure(project, BOUNDARY.format(source="app", extra="exclude_modules =\n    app.conf\n"))
    finding = (
        "app/runtime/loader.py:1:22: DOM302 app.runtime.loader imports forbidden app.experiment.runner"
        " through app.conf.settings"
    )
    check = domain_fence("check", cwd=project)
    assert check.returncode == 1
    assert [line.strip() for line in check.stdout.splitlines() if "DOM3" in line] == [finding]
    lint = run("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == 1
    assert [line for line in lint.stdout.splitlines() if "DOM3" in line] == [finding]
    if FLAKE8_PLUGIN_INSTALLED:
        flake8 = run("flake8", "--select", "DOM", "app", cwd=project)
        assert flake8.returncode == 1
        assert flake8.stdout.splitlines() == [finding]


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        (
            BOUNDARY.format(source="app.runtime", extra="exclude_modules =\n    app.conf\n"),
            "exclude_modules: 'app.conf' not inside source_modules (app.runtime).",
        ),
        (
            BOUNDARY.format(source="app", extra="unclassified_modules_alerting = loud\n"),
            "unclassified_modules_alerting: Expected one of error, warn, none, not 'loud'.",
        ),
        (
            "\n[importlinter:contract:events]\nname = Events\ntype = vocabulary\nmodules =\n    app.runtime\n"
            "exclude_modules =\n    app.experiment\nevent_bases =\n    app.**.telemetry:*Event\nwords =\n    episode\n",
            "exclude_modules: 'app.experiment' not inside modules (app.runtime).",
        ),
        (
            PLACEMENT.format(symbols="    MontyExperiment..init_telemetry", extra=""),
            "symbols: 'MontyExperiment..init_telemetry' is not a name pattern",
        ),
    ],
    ids=["exclude outside the source", "unclassified alerting", "vocabulary exclude", "qualified symbol"],
)
def test_bad_options_are_one_line_errors(project, section, expected):
    configure(project, section)
    assert_one_line_error(domain_fence("check", cwd=project), expected)
    lint = run("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == 1 and expected.split(": ", 1)[1] in lint.stdout, lint.stdout


def test_a_bad_event_base_pattern_is_reported_with_the_other_errors(project):
    configure(
        project,
        "\n[importlinter:contract:events]\nname = Events\ntype = vocabulary\nmodules =\n    app\n"
        "event_bases =\n    app.**.telemetry:\n    Schema\nwords =\n    episode\n",
    )
    result = domain_fence("check", cwd=project)
    assert result.returncode == 2
    assert "'app.**.telemetry:' is not of the form 'module.expression:ClassPattern'" in result.stderr
    assert "'Schema' is not a dotted class path" in result.stderr


@pytest.mark.parametrize("level", ["warn", "error"])
def test_unclassified_modules_of_explicit_lists_are_reported(project, level):
    extra = f"unclassified_modules_alerting = {level}\n"
    configure(project, BOUNDARY.format(source="app.runtime", extra=extra))
    check = domain_fence("check", cwd=project)
    message = (
        "unclassified_modules_alerting: 'app.conf' is on neither side; "
        "add it to source_modules, forbidden_modules or exclude_modules"
    )
    if level == "warn":
        assert check.returncode == 0 and message in check.stdout, check.stdout
    else:  # a configuration problem, as in every front end: exit 2, one line naming it
        assert check.returncode == 2 and message in check.stderr, check.stderr
    lint = run("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == (0 if level == "warn" else 1)
    assert message in " ".join(lint.stdout.split())  # rich may wrap a warning
    if FLAKE8_PLUGIN_INSTALLED:  # per file, only an error can be seen: before any file
        flake8 = run("flake8", "--select", "DOM", "app", cwd=project)
        assert flake8.returncode == (0 if level == "warn" else 2), flake8.stdout + flake8.stderr
        if level == "error":
            assert message in flake8.stderr

    configure(
        project, BOUNDARY.format(source="app.runtime", extra=extra + "exclude_modules =\n    app.runtime.model\n")
    )
    excluded = domain_fence("check", cwd=project)
    assert "'app.conf' is on neither side" in excluded.stdout + excluded.stderr  # an exclude classifies itself


def test_the_complement_leaves_nothing_unclassified(project):
    configure(project, BOUNDARY.format(source="app", extra="unclassified_modules_alerting = error\n"))
    assert "unclassified_modules_alerting" not in domain_fence("check", cwd=project).stdout


def test_methods_are_placed_by_bare_and_qualified_name(project):
    symbols = "    init_telemetry\n    *.post_episode\n    Nowhere.init_telemetry"
    configure(project, PLACEMENT.format(symbols=symbols, extra=""))
    misplaced = (
        "app/runtime/model.py:5:5: DOM201 method Model.post_episode is defined outside app.experiment; move it there"
    )
    unmatched = "symbols: 'Nowhere.init_telemetry' matches no method or class-level binding; is it misspelt?"
    check = domain_fence("check", cwd=project)
    assert check.returncode == 1
    assert "  " + misplaced in check.stdout.splitlines()
    assert "MontyExperiment" not in check.stdout  # accepted under app.experiment
    assert unmatched in check.stdout
    lint = run("lint-imports", "--no-logo", cwd=project)
    assert lint.returncode == 1
    assert misplaced in lint.stdout.splitlines()
    if FLAKE8_PLUGIN_INSTALLED:
        flake8 = run("flake8", "--select", "DOM", "app", cwd=project)
        assert flake8.stdout.splitlines() == [misplaced]

    accepted = "    MontyExperiment.init_telemetry\n    Nowhere.init_telemetry"
    configure(project, PLACEMENT.format(symbols=accepted, extra="require_match = true\n"))
    strict = domain_fence("check", cwd=project)
    assert strict.returncode == 1 and unmatched + " (require_match = true)" in strict.stdout

    configure(project, PLACEMENT.format(symbols=accepted, extra="unmatched_symbols_alerting = error\n"))
    failing = domain_fence("check", cwd=project)
    assert failing.returncode == 1 and unmatched + " (unmatched_symbols_alerting = error)" in failing.stdout
    configure(project, PLACEMENT.format(symbols=accepted, extra="unmatched_symbols_alerting = none\n"))
    quiet = domain_fence("check", cwd=project)
    assert quiet.returncode == 0 and "matches no" not in quiet.stdout, quiet.stdout

    configure(project, PLACEMENT.format(symbols="    *.post_episode", extra="kinds =\n    function\n    class\n"))
    assert "DOM201" not in domain_fence("check", cwd=project).stdout  # kinds without method

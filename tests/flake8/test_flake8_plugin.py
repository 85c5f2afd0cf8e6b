"""The flake8 plugin and the vocabulary contract, end to end on a leaky copy of the
reference codebase: real `flake8` and `lint-imports` in subprocesses must report
exactly the annotated findings, and agree with each other."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import annotated, reported
from flake8.exceptions import PluginExecutionFailed
from support import FIXTURES, REPO, flake8_in_process, flake8_stdin, run_tool

from domain_fence.core.families.vocabulary import VocabularyFamily
from domain_fence.integrations import flake8 as plugin
from domain_fence.integrations.flake8.project import modules_below

LEAKY = FIXTURES / "vocabulary" / "leaky"
SCHEMAS = "minimonty/frameworks/telemetry/schemas.py"
EXTENSIONS = "minimonty/frameworks/telemetry/extensions.py"
MODEL = "minimonty/frameworks/models/learning_module.py"


@pytest.fixture
def leaky(minimonty_copy: Path) -> Path:
    shutil.copytree(LEAKY, minimonty_copy, dirs_exist_ok=True)
    return minimonty_copy


def flake8(project: Path, *args: str):
    return run_tool("flake8", "--select", "DOM", *args, "minimonty", cwd=project)


def test_the_annotations_cover_every_code():
    assert {code for *_, code in annotated(LEAKY)} == {"DOM101", "DOM102", "DOM103", "DOM104", "DOM301"}


def test_flake8_reports_exactly_the_planted_findings(leaky):
    result = flake8(leaky)
    assert result.returncode == 1, result.output
    found = reported(result.stdout)
    assert {r[:4] for r in found} == annotated(LEAKY)
    assert len(found) == len(annotated(LEAKY)), result.stdout
    assert result.stderr == ""


def test_lint_imports_reports_the_same_findings(leaky):
    linted = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert linted.returncode == 1, linted.output
    assert "Runtime events carry no experiment vocabulary BROKEN" in linted.stdout
    assert sorted(reported(linted.stdout)) == sorted(reported(flake8(leaky).stdout))


def test_flake8_columns_are_zero_based_and_lines_exact(leaky):
    lines = flake8(leaky).stdout.splitlines()
    assert f"{EXTENSIONS}:18:5: DOM101 event field 'epoch': experiment vocabulary 'epoch'" in lines
    assert f"{SCHEMAS}:98:27: DOM103 event kind 'post_episode': experiment vocabulary 'post episode'" in lines
    assert f"{SCHEMAS}:95:1: DOM102 event class PostEpisodeStats: experiment vocabulary 'post episode'" in lines
    assert (
        f"{MODEL}:81:17: DOM104 keyword 'episode' constructing PossibleMatches: experiment vocabulary 'episode'"
        in lines
    )
    assert (
        f"{MODEL}:17:40: DOM301 minimonty.frameworks.models.learning_module imports forbidden minimonty.experiment.world"
        in lines
    )


def test_the_reference_codebase_is_clean(minimonty_copy):
    shutil.copy(LEAKY / ".importlinter", minimonty_copy)
    result = flake8(minimonty_copy)
    assert (result.returncode, result.output) == (0, "")
    assert run_tool("lint-imports", "--no-logo", cwd=minimonty_copy).returncode == 0


def test_noqa_and_per_file_ignores(leaky):
    schemas = leaky / SCHEMAS
    schemas.write_text(schemas.read_text().replace("    mode: str  # DOM101:4", "    mode: str  # noqa: DOM101"))
    found = {(r[0], r[1]) for r in reported(flake8(leaky, f"--per-file-ignores={EXTENSIONS}:DOM101").stdout)}
    assert (SCHEMAS, 68) not in found and (SCHEMAS, 67) in found
    assert not any(path == EXTENSIONS for path, _ in found)
    # --disable-noqa shows what the comments suppress, as for flake8's own checks.
    shown = {(r[0], r[1]) for r in reported(flake8(leaky, "--disable-noqa").stdout)}
    assert (SCHEMAS, 68) in shown and (SCHEMAS, 67) in shown


def test_baselined_findings_are_not_reported(leaky):
    recorded = run_tool("domain-fence", "baseline", cwd=leaky)
    assert recorded.returncode == 0, recorded.output
    assert run_tool("lint-imports", "--no-logo", cwd=leaky).returncode == 0
    assert (flake8(leaky).returncode, flake8(leaky).stdout) == (0, "")

    model = leaky / MODEL
    model.write_text(model.read_text().replace("episode=self.episode", "num_epochs=self.episode"))
    new = reported(flake8(leaky).stdout)
    assert [(r[0], r[3], r[4]) for r in new] == [
        (MODEL, "DOM104", "keyword 'num_epochs' constructing PossibleMatches: experiment vocabulary 'epoch'")
    ]
    stale = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert stale.returncode == 1
    assert (
        "DOM002 baseline entry matches nothing: "
        "DOM104:minimonty.frameworks.models.learning_module:EvidenceLM.step:PossibleMatches(episode)"
    ) in stale.stdout


def test_a_module_expression_matching_nothing_breaks_the_contract(leaky):
    config = leaky / ".importlinter"
    config.write_text(config.read_text().replace("    minimonty.frameworks.**\n", "    minimonty.framework\n"))
    result = run_tool("lint-imports", "--no-logo", cwd=leaky)
    assert result.returncode == 1
    assert "modules: 'minimonty.framework' matches no module of the root packages; is it misspelt?" in result.stdout


def test_type_checking_imports_follow_the_session_option(leaky):
    model = leaky / MODEL
    model.write_text(
        model.read_text().replace(
            "from minimonty.experiment.world import DEFAULT_WORLD  # DOM301:39\n",
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from minimonty.experiment.world import ToyWorld\nDEFAULT_WORLD = None\n",
        )
    )
    assert [r[1] for r in reported(flake8(leaky).stdout) if r[3] == "DOM301"] == [20]
    config = leaky / ".importlinter"
    config.write_text(
        config.read_text().replace("[importlinter]\n", "[importlinter]\nexclude_type_checking_imports = True\n")
    )
    assert [r for r in reported(flake8(leaky).stdout) if r[3] == "DOM301"] == []


def test_the_configuration_can_be_named(leaky, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = leaky / ".importlinter"
    result = run_tool(
        "flake8", "--select", "DOM", f"--domain-fence-config={config}", str(leaky / EXTENSIONS), cwd=elsewhere
    )
    assert [(r[1], r[3]) for r in reported(result.stdout.replace(str(leaky) + "/", ""))] == [(18, "DOM101")]


def test_without_a_configuration_the_plugin_has_nothing_to_check(tmp_path):
    (tmp_path / "module.py").write_text("class PostEpisodeStats:\n    episode = 1\n")
    result = run_tool("flake8", "--select", "DOM", "module.py", cwd=tmp_path)
    assert (result.returncode, result.output) == (0, "")


@pytest.fixture
def parity(tmp_path: Path) -> Path:
    """A copy of the parity tree, for flake8 in this process: its root package is none
    the test process imports (grimp would find an imported one, as ``minimonty`` is)."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "parity", root)
    return root


RUNTIME = "app/runtime"


def test_from_a_subdirectory_the_nearest_configuration_upward_is_read(parity):
    """An editor runs flake8 from the directory of the file it shows: flake8 finds the
    project's configuration above it, and so does the plugin. A file of a directory on
    the way that names ``importlinter`` without holding its section is passed over."""
    (parity / "app/pyproject.toml").write_text("[tool.mypy]\nplugins = []  # not importlinter\n", encoding="utf-8")
    (parity / "setup.cfg").write_text("[flake8]\nselect = DOM,F\n", encoding="utf-8")  # flake8's, beside it
    from_root = flake8_in_process("--jobs", "1", f"{RUNTIME}/model.py", cwd=parity)
    from_here = flake8_in_process("--jobs", "1", "model.py", cwd=parity / RUNTIME)
    assert from_root.returncode == from_here.returncode == 1
    assert from_here.stderr == ""
    assert from_here.stdout.replace("model.py:", f"{RUNTIME}/model.py:") == from_root.stdout
    codes = {"DOM301", "DOM302", "DOM103", "DOM104", "DOM105", "DOM201"}  # the graph's too
    assert {r[3] for r in reported(from_root.stdout)} == codes


def test_a_configuration_below_the_current_directory_is_found_from_the_files_given(parity):
    """pre-commit runs flake8 at the repository's root: a project whose configuration
    lies in a subdirectory is checked against it, the files given and stdin alike (found
    upward from them), rather than pass in silence; files under two are refused."""
    repository = parity.parent / "repository"
    (repository / ".git").mkdir(parents=True)
    project = parity.rename(repository / "pkg")
    model = f"pkg/{RUNTIME}/model.py"
    from_project = flake8_in_process("--select", "DOM", "--jobs", "1", f"{RUNTIME}/model.py", cwd=project)
    assert from_project.returncode == 1 and from_project.stdout
    expected = from_project.stdout.replace(f"{RUNTIME}/model.py:", f"{model}:")
    given = run_tool("flake8", "--select", "DOM", model, cwd=repository)
    assert (given.returncode, given.stdout, given.stderr) == (1, expected, "")
    source = (repository / model).read_text(encoding="utf-8")
    piped = flake8_stdin(repository, model, source)
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, expected, "")
    shutil.copytree(project, repository / "other")
    both = flake8_in_process("--select", "DOM", "--jobs", "1", model, f"other/{RUNTIME}/model.py", cwd=repository)
    assert (both.returncode, both.stdout) == (2, "")
    assert both.stderr == (
        f"flake8: domain-fence: error: the files given lie under two configurations ({repository.resolve() / 'other'}, "
        f"{repository.resolve() / 'pkg'}): name one with --domain-fence-config, or run flake8 in each project\n"
    )


PLAIN = "[importlinter]\nroot_packages = app\n\n[importlinter:contract:f]\nname = f\ntype = forbidden\n"


def test_a_configuration_of_import_linter_alone_is_none_of_the_plugins(parity, tmp_path):
    """Only a configuration registering domain-fence's contract types is the plugin's:
    projects checked with import-linter alone (here with a configuration domain-fence
    would refuse, its root packages on one line) neither stop flake8 nor hide, at the
    repository's root, a project of ours below it; nor does a project flake8 excludes."""
    repository = tmp_path / "repository"
    (repository / ".git").mkdir(parents=True)
    for plain in ("a", "b"):
        (repository / plain / "src").mkdir(parents=True)
        (repository / plain / ".importlinter").write_text(PLAIN.replace("app", plain), encoding="utf-8")
        (repository / plain / "src/mod.py").write_text("import os\n", encoding="utf-8")
    plains = flake8_in_process("--jobs", "1", "a/src/mod.py", "b/src/mod.py", cwd=repository)
    assert (plains.returncode, plains.stderr) == (1, "")
    assert [line.split()[1] for line in plains.stdout.splitlines()] == ["F401", "F401"]
    (repository / ".importlinter").write_text(PLAIN, encoding="utf-8")  # the root's, import-linter's alone
    project = parity.rename(repository / "pkg")
    shutil.copytree(project, repository / "pkg/vendored")
    (repository / ".flake8").write_text("[flake8]\nextend-exclude = */vendored/*\n", encoding="utf-8")
    model = f"pkg/{RUNTIME}/model.py"
    given = flake8_in_process(
        "--select", "DOM", "--jobs", "1", model, f"pkg/vendored/{RUNTIME}/model.py", cwd=repository
    )
    from_project = flake8_in_process("--select", "DOM", "--jobs", "1", f"{RUNTIME}/model.py", cwd=project)
    assert from_project.returncode == 1
    assert (given.returncode, given.stderr) == (1, ""), given.stderr
    assert given.stdout == from_project.stdout.replace(f"{RUNTIME}/model.py:", f"{model}:")


def test_a_broken_configuration_found_upward_is_one_line(parity):
    config = parity / ".importlinter"
    config.write_text(config.read_text().replace("    post episode\n", "    post episode\nallow_everything = yes\n"))
    result = flake8_in_process("--select", "DOM", "--jobs", "1", "model.py", cwd=parity / RUNTIME)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"flake8: domain-fence: error: {config.resolve()}: "
        "[importlinter:contract:events] allow_everything: Unrecognized option.\n"
    )


def test_the_configuration_named_in_a_flake8_file_is_relative_to_that_file(parity, monkeypatch):
    """flake8 reads ``--domain-fence-config`` from its configuration file relative to
    that file's directory, not to where it runs (as every path option of flake8's: one
    holding a slash; a bare name is left to the current directory)."""
    monkeypatch.setattr(plugin.DomainFenceChecker, "config", None)  # flake8 sets it for the process
    (parity / ".importlinter").rename(parity / "contracts.ini")  # a name lint-imports does not look for
    (parity / ".flake8").write_text("[flake8]\nselect = DOM\ndomain-fence-config = ./contracts.ini\n")
    result = flake8_in_process("--jobs", "1", "events.py", cwd=parity / RUNTIME)
    assert [(r[1], r[3]) for r in reported(result.stdout)] == [
        (6, "DOM103"),
        (7, "DOM101"),
        (16, "DOM102"),
        (17, "DOM103"),
        (23, "DOM103"),
        (26, "DOM103"),
    ], result.stderr


def test_where_the_configuration_is_looked_for(tmp_path, monkeypatch):
    """From the current directory upward: as flake8 looks for its own, not in the home
    directory (unless it is the current one), and not above a repository's root."""
    below = tmp_path / "home" / "repository" / "src" / "package"
    below.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    looked = list(plugin.configuration_directories(below))
    assert looked[:3] == [below, below.parent, below.parent.parent]
    assert looked[3:] == []  # home: not looked in
    assert list(plugin.configuration_directories(tmp_path / "home"))[:2] == [tmp_path / "home", tmp_path]
    (below.parent.parent / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert list(plugin.configuration_directories(below)) == [below, below.parent, below.parent.parent]
    (below.parent / ".git").mkdir()
    assert list(plugin.configuration_directories(below)) == [below, below.parent]
    monkeypatch.setenv("HOME", "/nonexistent")
    assert list(plugin.configuration_directories(tmp_path))[-1] == Path("/")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("    mode\n", "    mode\nallow_everything = yes\n"),
            "[importlinter:contract:runtime-events-speak-runtime] allow_everything: Unrecognized option.",
        ),
        (
            ("event_bases =\n    minimonty.frameworks.telemetry.schemas.TelemetrySchema\n", ""),
            "[importlinter:contract:runtime-events-speak-runtime] event_bases: This is a required field.",
        ),
    ],
)
def test_a_broken_configuration_is_one_line_per_problem(leaky, change, message):
    config = leaky / ".importlinter"
    config.write_text(config.read_text().replace(*change))
    result = flake8(leaky)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"flake8: domain-fence: error: {config.resolve()}: {message}\n"


def test_a_missing_named_configuration_is_an_error(tmp_path):
    result = run_tool("flake8", "--select", "DOM", "--domain-fence-config=nowhere.ini", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "configuration file not found" in result.stderr
    assert "Traceback" not in result.output


def test_the_repository_configuration_runs_the_plugin_on_the_reference_codebase():
    result = run_tool("flake8", "examples/minimonty/src", cwd=REPO)  # setup.cfg selects DOM
    assert (result.returncode, result.output) == (0, "")


def test_errors_while_iterating_are_wrapped_for_flake8(leaky, monkeypatch):
    monkeypatch.chdir(leaky)
    monkeypatch.setattr(plugin, "_PROJECTS", {})
    project = plugin.project_for(None)

    def broken(self, config, context, module):
        raise RuntimeError("boom")

    assert project is not None
    monkeypatch.setattr(VocabularyFamily, "check_module", broken)
    checker = plugin.DomainFenceChecker(tree=None, filename=EXTENSIONS)
    with pytest.raises(PluginExecutionFailed, match="boom"):
        list(checker.run())


def test_one_index_per_process_is_shared_by_every_file(leaky, monkeypatch):
    monkeypatch.chdir(leaky)
    monkeypatch.setattr(plugin, "_PROJECTS", {})
    first = list(plugin.DomainFenceChecker(None, EXTENSIONS).run())
    index = plugin.project_for(None).index
    second = list(plugin.DomainFenceChecker(None, SCHEMAS).run())
    assert plugin.project_for(None).index is index
    assert [line for line, *_ in first] == [18]
    assert [(line, col) for line, col, *_ in second] == [(67, 4), (68, 4), (69, 4), (95, 0), (98, 26)]


def test_the_configuration_is_found_once_per_directory_not_once_per_file(leaky, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(plugin, "_PROJECTS", {})
    looked_in = []
    real = plugin.may_hold_configuration

    def finding(directory):
        looked_in.append(directory)
        return real(directory)

    monkeypatch.setattr(plugin, "may_hold_configuration", finding)
    monkeypatch.chdir(leaky)
    for filename in (EXTENSIONS, SCHEMAS, MODEL, EXTENSIONS):
        list(plugin.DomainFenceChecker(None, filename).run())
    assert looked_in == [leaky]
    elsewhere = tmp_path_factory.mktemp("no-configuration")
    (elsewhere / ".git").mkdir()  # a repository's root: not looked above
    monkeypatch.chdir(elsewhere)
    assert plugin.project_for(None) is None and plugin.project_for(None) is None
    assert looked_in == [leaky, elsewhere]  # "nothing to check" is remembered too
    monkeypatch.chdir(leaky)
    assert plugin.project_for(None).configuration.root == leaky.resolve()
    assert len(looked_in) == 2


def test_the_plugin_reads_ahead_the_modules_below_the_paths_flake8_checks(tmp_path):
    from domain_fence.core.index.project import ProjectIndex

    for name in ("app/__init__.py", "app/runtime/__init__.py", "app/runtime/loop.py", "app/running.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    index = ProjectIndex.build(tmp_path, ["app"], search_paths=[str(tmp_path)], cache_dir=None)
    runtime = str(tmp_path / "app" / "runtime")
    assert modules_below(index, [runtime]) == ["app.runtime", "app.runtime.loop"]
    assert modules_below(index, [runtime + "/"]) == ["app.runtime", "app.runtime.loop"]
    assert modules_below(index, [str(tmp_path / "app/runtime/loop.py")]) == ["app.runtime.loop"]
    assert modules_below(index, [str(tmp_path / "app/run")]) == []  # a prefix of a name is no directory
    assert modules_below(index, [str(tmp_path)]) == ["app", "app.running", "app.runtime", "app.runtime.loop"]


LOADED_MODULES = """
import sys
from flake8.main.cli import main
try:
    main(["--select", "DOM", "module.py"])
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.split(".")[0] in ("importlinter", "grimp", "domain_fence")))
"""


def test_a_project_without_a_configuration_pays_nothing_for_the_plugin(leaky, tmp_path_factory):
    """flake8 imports every installed plugin on every run, in every project: ours
    imports the engine and import-linter only where a configuration may be."""
    import ast
    import sys

    elsewhere = tmp_path_factory.mktemp("no-configuration")  # not below leaky's configuration
    (elsewhere / "module.py").write_text("VALUE = 1\n", encoding="utf-8")
    (elsewhere / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n", encoding="utf-8")
    (leaky / "module.py").write_text("VALUE = 1\n", encoding="utf-8")
    loaded = {}
    for where in (elsewhere, leaky):
        result = run_tool(sys.executable, "-c", LOADED_MODULES, cwd=where)
        loaded[where] = set(ast.literal_eval(result.stdout.splitlines()[-1]))
    assert "domain_fence.integrations.flake8" in loaded[elsewhere]  # the plugin was loaded...
    heavy = ("importlinter", "grimp", "domain_fence.core.engine.engine", "domain_fence.integrations.flake8.project")
    assert {m for m in loaded[elsewhere] if m.startswith(heavy)} == set()
    assert {"importlinter", "domain_fence.integrations.flake8.project"} <= loaded[leaky]  # ...and works where asked

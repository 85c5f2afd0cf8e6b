"""`domain-fence init`: a working configuration from a project's layout, checked with
the real lint-imports, flake8 and domain-fence on a Monty-shaped fixture."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from cli_support import copy_fixture, domain_fence, run

FLAKE8_PLUGIN_INSTALLED = any(ep.name == "DOM" for ep in entry_points(group="flake8.extension"))
SRC = {"PYTHONPATH": "src"}  # lint-imports needs a src layout on the path (or installed)


@pytest.fixture
def monty(tmp_path: Path) -> Path:
    return copy_fixture("monty", tmp_path)


def test_monty_preset_writes_a_working_configuration(monty):
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "wrote .importlinter: root package tbp.monty (preset monty); boundary runtime-knows-no-experiment, "
        "vocabulary runtime-events-speak-runtime, vocabulary runtime-holds-no-experiment-knowledge, "
        "placement experiment-owns-its-machinery",
        "  runtime: tbp.monty but the experiment modules (now tbp.monty.frameworks.environments, "
        "tbp.monty.frameworks.models, tbp.monty.frameworks.telemetry, tbp.monty.frameworks.utils)",
        "  experiment: tbp.monty.experiment, tbp.monty.frameworks.experiments, tbp.monty.frameworks.loggers, "
        "tbp.monty.frameworks.run, tbp.monty.frameworks.run_parallel",
        "  event bases: tbp.monty.telemetry:*Event, tbp.monty.telemetry:*Schema, "
        "tbp.monty.**.telemetry:*Event, tbp.monty.**.telemetry:*Schema",
    ]
    assert lines[4] == (
        "  only experiment code imports: tbp.monty.frameworks.models.graph_matching; "
        "--experiment-helpers classifies them as experiment"
    )
    assert lines[5] == "  left out (not in this project): tbp.monty.conf, tbp.monty.hydra"
    assert "wrote .flake8: extend-select = DOM" in lines
    assert ".domain-fence-baseline.json: 10 recorded (10 added, 0 pruned, 0 still present); written" in lines

    config = (monty / ".importlinter").read_text()
    assert "contract_types =\n    boundary: domain_fence.integrations.importlinter.BoundaryContract\n" in config
    assert "type = boundary\nsource_modules =\n    tbp.monty\nforbidden_modules =\n    tbp.monty.experiment\n" in config
    assert "    terminal state -> recognized state\n" in config
    assert "symbols =\n    init_telemetry\n    *PostEpisode*\n    *post_episode*\n    *ExperimentStats*\n" in config
    recorded = json.loads((monty / ".domain-fence-baseline.json").read_text())["entries"]
    assert sorted({e["contract"] for e in recorded}) == [
        "experiment-owns-its-machinery",
        "runtime-events-speak-runtime",
        "runtime-holds-no-experiment-knowledge",
        "runtime-knows-no-experiment",
    ]

    assert_front_ends(monty, passing=True)
    (monty / "src/tbp/monty/frameworks/models/leak.py").write_text("from tbp.monty.experiment import telemetry\n")
    assert_front_ends(monty, passing=False)


def assert_front_ends(project: Path, passing: bool) -> None:
    expected = 0 if passing else 1
    lint = run("lint-imports", "--no-logo", cwd=project, env=SRC)
    assert lint.returncode == expected, lint.stdout + lint.stderr
    check = domain_fence("check", cwd=project)
    assert check.returncode == expected, check.stdout + check.stderr
    if not passing:
        leak = "src/tbp/monty/frameworks/models/leak.py:1:34: DOM301 tbp.monty.frameworks.models.leak imports forbidden"
        assert leak in check.stdout
    if FLAKE8_PLUGIN_INSTALLED:
        flake8 = run("flake8", "--select", "DOM", "src", cwd=project)
        assert flake8.returncode == expected, flake8.stdout + flake8.stderr
        if not passing:
            assert "src/tbp/monty/frameworks/models/leak.py:1:34: DOM301 " in flake8.stdout


CENSUS_CONTRACT = """\
[importlinter:contract:runtime-holds-no-experiment-knowledge]
name = Runtime attributes and parameters carry no experiment vocabulary
type = vocabulary
modules =
    tbp.monty
exclude_modules =
    tbp.monty.experiment
    tbp.monty.frameworks.experiments
    tbp.monty.frameworks.loggers
    tbp.monty.frameworks.run
    tbp.monty.frameworks.run_parallel
scope =
    attributes
    parameters
words =
    episode
    epoch
    experiment
    mode
    train
    eval
    label
    primary target
    target object
    stepwise target
    graph id to target
    target to graph id
    graph to target
    target to graph
    ground truth
    post episode
    terminal state -> recognized state
baseline = .domain-fence-baseline.json
"""


def test_monty_preset_baselines_the_experiment_knowledge_its_runtime_holds(monty):
    assert domain_fence("init", "--preset", "monty", cwd=monty).returncode == 0
    assert CENSUS_CONTRACT in (monty / ".importlinter").read_text()
    recorded = json.loads((monty / ".domain-fence-baseline.json").read_text())["entries"]
    assert sorted(e["fingerprint"] for e in recorded if e["contract"] == "runtime-holds-no-experiment-knowledge") == [
        "DOM111:tbp.monty.frameworks.models.learning_module:LearningModule.min_train_steps",
        "DOM111:tbp.monty.frameworks.models.learning_module:LearningModule.primary_target",
        "DOM111:tbp.monty.frameworks.models.learning_module:LearningModule.stepwise_target_object",
        "DOM111:tbp.monty.frameworks.telemetry.schemas:MatchStats.primary_target",
        "DOM112:tbp.monty.frameworks.models.learning_module:LearningModule.__init__(min_train_steps)",
    ]
    clean = domain_fence("check", cwd=monty)
    assert clean.returncode == 0, clean.stdout
    assert "    baseline: 5 recorded, 5 still present, 0 fixed since recording, 0 new" in clean.stdout.splitlines()

    evidence = monty / "src/tbp/monty/frameworks/models/evidence.py"
    evidence.write_text(
        evidence.read_text().replace(
            "class EvidenceLM:\n", "class EvidenceLM:\n    def __init__(self):\n        self.primary_target = None\n\n"
        )
    )
    leak = (
        "src/tbp/monty/frameworks/models/evidence.py:8:9: DOM111 attribute EvidenceLM.primary_target: "
        "experiment vocabulary 'primary target'"
    )
    check = domain_fence("check", cwd=monty)
    assert check.returncode == 1
    assert "  " + leak in check.stdout.splitlines()
    assert "    baseline: 5 recorded, 5 still present, 0 fixed since recording, 1 new" in check.stdout.splitlines()
    lint = run("lint-imports", "--no-logo", cwd=monty, env=SRC)
    assert lint.returncode == 1
    assert leak in lint.stdout.splitlines()
    assert "Runtime attributes and parameters carry no experiment vocabulary BROKEN" in lint.stdout
    if FLAKE8_PLUGIN_INSTALLED:  # the configuration's scope decides, in the editor too
        editor = run("flake8", "--select", "DOM", "src", cwd=monty)
        assert editor.returncode == 1 and editor.stdout.splitlines() == [leak]
        # flake8's own selection can still remove a code.
        assert run("flake8", "--select", "DOM", "--extend-ignore", "DOM111", "src", cwd=monty).returncode == 0


def test_refuses_to_overwrite_without_force(monty):
    assert domain_fence("init", "--preset", "monty", cwd=monty).returncode == 0
    (monty / ".importlinter").write_text("# edited by hand\n" + (monty / ".importlinter").read_text())
    refused = domain_fence("init", "--preset", "monty", cwd=monty)
    assert refused.returncode == 2 and refused.stdout == ""
    assert (
        refused.stderr
        == f"domain-fence: error: {monty.resolve()}/.importlinter: already exists; pass --force to replace it\n"
    )
    assert (monty / ".importlinter").read_text().startswith("# edited by hand")

    forced = domain_fence("init", "--preset", "monty", "--force", cwd=monty)
    assert forced.returncode == 0, forced.stderr
    assert not (monty / ".importlinter").read_text().startswith("# edited by hand")
    assert "kept .flake8: it configures flake8 already" in forced.stdout
    assert ".domain-fence-baseline.json: 10 recorded (0 added, 0 pruned, 10 still present); unchanged" in forced.stdout


def test_never_edits_a_configuration_held_in_setup_cfg(monty):
    (monty / "setup.cfg").write_text("[importlinter]\nroot_package = tbp.monty\n")
    result = domain_fence("init", "--preset", "monty", "--force", cwd=monty)
    assert result.returncode == 2
    assert "setup.cfg: already holds the import-linter configuration" in result.stderr
    assert not (monty / ".importlinter").exists()


def test_leaves_an_existing_flake8_configuration_alone(monty):
    (monty / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 0, result.stderr
    assert "kept setup.cfg: it configures flake8 already" in result.stdout
    assert not (monty / ".flake8").exists()
    assert (monty / "setup.cfg").read_text() == "[flake8]\nmax-line-length = 100\n"


def test_without_a_preset_experiment_packages_are_found_by_name(minimonty_copy):
    result = domain_fence("init", cwd=minimonty_copy)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:4] == [
        "  runtime: minimonty but the experiment modules (now minimonty.frameworks)",
        "  experiment: minimonty.experiment",
        "  event bases: minimonty.frameworks.telemetry.schemas.TelemetrySchema",
    ]
    assert "(detected)" in result.stdout.splitlines()[0]
    assert domain_fence("check", cwd=minimonty_copy).returncode == 0
    assert run("lint-imports", "--no-logo", cwd=minimonty_copy).returncode == 0


def test_without_a_preset_a_project_with_no_experiment_package_is_refused(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "__init__.py").write_text("")
    (tmp_path / "plain" / "core.py").write_text("")
    result = domain_fence("init", cwd=tmp_path)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert "no experiment package (named experiment or experiments) in plain; pass --preset" in line
    assert not (tmp_path / ".importlinter").exists()


def test_monty_preset_needs_tbp_monty(minimonty_copy):
    result = domain_fence("init", "--preset", "monty", cwd=minimonty_copy)
    assert result.returncode == 2
    assert "preset monty needs root package tbp.monty; found minimonty" in result.stderr


def test_a_project_that_cannot_be_checked_is_left_as_it_was(monty):
    (monty / "src/tbp/monty/frameworks/models/broken.py").write_text("def broken(:\n")
    result = domain_fence("init", "--preset", "monty", cwd=monty)
    assert result.returncode == 2
    assert "cannot build the import graph" in result.stderr and "broken.py:1: syntax error at line 1" in result.stderr
    assert not (monty / ".importlinter").exists() and not (monty / ".flake8").exists()


def test_experiment_only_helpers_are_listed_and_classified_on_request(monty):
    utils = monty / "src/tbp/monty/frameworks/utils"
    (utils / "plot_utils.py").write_text("def plot_episode(episode, primary_target):\n    pass\n")
    (utils / "plot_utils_dev.py").write_text("from tbp.monty.frameworks.utils.plot_utils import plot_episode\n")
    stats = monty / "src/tbp/monty/frameworks/experiments/stats.py"
    stats.write_text("from tbp.monty.frameworks.utils import plot_utils_dev\n" + stats.read_text())

    listed = domain_fence("init", "--preset", "monty", cwd=monty)
    assert listed.returncode == 0, listed.stderr
    helpers = "tbp.monty.frameworks.models.graph_matching, tbp.monty.frameworks.utils.plot_utils, "
    helpers += "tbp.monty.frameworks.utils.plot_utils_dev"
    assert f"  only experiment code imports: {helpers}; --experiment-helpers classifies them as experiment" in (
        listed.stdout.splitlines()
    )
    recorded = json.loads((monty / ".domain-fence-baseline.json").read_text())["entries"]
    assert "DOM112:tbp.monty.frameworks.utils.plot_utils:plot_episode(episode)" in {e["fingerprint"] for e in recorded}

    classified = domain_fence("init", "--preset", "monty", "--experiment-helpers", "--force", cwd=monty)
    assert classified.returncode == 0, classified.stderr
    assert f"  classified as experiment (only experiment code imports them): {helpers}" in classified.stdout
    config = (monty / ".importlinter").read_text()
    assert config.startswith("# Written by `domain-fence init --preset monty --experiment-helpers`")
    assert config.count("    tbp.monty.frameworks.utils.plot_utils\n") == 4  # forbidden, 2 excludes, allowed
    recorded = json.loads((monty / ".domain-fence-baseline.json").read_text())["entries"]
    assert not [e for e in recorded if "plot_utils" in e["fingerprint"] or "graph_matching" in e["fingerprint"]]
    assert domain_fence("check", cwd=monty).returncode == 0

    # The boundary agrees with the census: runtime code may not import a helper now.
    (monty / "src/tbp/monty/frameworks/models/uses_plots.py").write_text(
        "from tbp.monty.frameworks.utils import plot_utils\n"
    )
    check = domain_fence("check", cwd=monty)
    assert check.returncode == 1
    assert (
        "src/tbp/monty/frameworks/models/uses_plots.py:1:40: DOM301 tbp.monty.frameworks.models.uses_plots imports "
        "forbidden tbp.monty.frameworks.utils.plot_utils"
    ) in check.stdout

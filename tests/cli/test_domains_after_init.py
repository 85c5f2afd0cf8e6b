"""A configuration made by ``init --preset monty`` before the runtime had telemetry
catches the telemetry package added afterwards, with no configuration change: in
``domain-fence check``, ``lint-imports``, ``flake8`` and ``pytest --domain-fence``,
each finding at the line where the fix goes."""

from __future__ import annotations

import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from cli_support import domain_fence, run

FLAKE8_PLUGIN_INSTALLED = any(ep.name == "DOM" for ep in entry_points(group="flake8.extension"))

BEFORE = {
    "tbp/monty/__init__.py": "",
    "tbp/monty/frameworks/__init__.py": "",
    "tbp/monty/frameworks/models/__init__.py": "",
    "tbp/monty/frameworks/models/graph_matching.py": """\
        class GraphLM:
            def matching_step(self, observation):
                return observation
        """,
    "tbp/monty/frameworks/experiments/__init__.py": "",
    "tbp/monty/frameworks/experiments/mode.py": """\
        import enum


        class ExperimentMode(enum.Enum):
            TRAIN = "train"
        """,
    "tbp/monty/frameworks/experiments/monty_experiment.py": """\
        class MontyExperiment:
            def init_telemetry(self):  # a method, where it belongs
                pass

            def post_episode(self, steps):
                pass
        """,
    "tbp/monty/experiment/__init__.py": "",
}

# The telemetry branch: every line the fix goes to is marked.
TELEMETRY = {
    "tbp/monty/frameworks/telemetry/__init__.py": "",
    "tbp/monty/frameworks/telemetry/schemas.py": """\
        from pydantic import BaseModel
        from tbp.monty.frameworks.experiments.mode import ExperimentMode


        class TelemetrySchema(BaseModel):
            kind: str = ""


        class ContextMixin(BaseModel):
            mode: ExperimentMode


        class MatchEvent(TelemetrySchema, ContextMixin):
            episode: int
            location: tuple
        """,
    "tbp/monty/frameworks/telemetry/handlers.py": """\
        class StatsHandler:
            def post_episode(self, event):
                pass

            def post_episode_hook(self, event):
                pass


        def on_post_episode(stats):
            return stats
        """,
    "tbp/monty/frameworks/models/graph_matching.py": """\
        from tbp.monty.frameworks.telemetry.schemas import MatchEvent


        class GraphLM:
            def matching_step(self, observation):
                return MatchEvent(location=observation)

            def init_telemetry(self):
                pass
        """,
}

EXPECTED = [
    "tbp/monty/frameworks/telemetry/schemas.py:2:51: DOM301 tbp.monty.frameworks.telemetry.schemas imports "
    "forbidden tbp.monty.frameworks.experiments.mode",
    "tbp/monty/frameworks/telemetry/schemas.py:10:5: DOM101 event field 'mode' (inherited by MatchEvent): "
    "experiment vocabulary 'mode'",
    "tbp/monty/frameworks/telemetry/schemas.py:14:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    "tbp/monty/frameworks/telemetry/handlers.py:2:5: DOM201 method StatsHandler.post_episode is defined outside",
    "tbp/monty/frameworks/telemetry/handlers.py:5:5: DOM201 method StatsHandler.post_episode_hook is defined outside",
    "tbp/monty/frameworks/telemetry/handlers.py:9:1: DOM201 function on_post_episode is defined outside",
    "tbp/monty/frameworks/models/graph_matching.py:8:5: DOM201 method GraphLM.init_telemetry is defined outside",
]


def write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def initialised(directory: Path) -> str:
    write(directory, BEFORE)
    result = domain_fence("init", "--preset", "monty", cwd=directory)
    assert result.returncode == 0, result.stderr
    assert domain_fence("check", cwd=directory).returncode == 0
    config = (directory / ".importlinter").read_text()
    write(directory, TELEMETRY)
    return config


def assert_reported(output: str) -> None:
    for line in EXPECTED:
        assert any(reported.strip().startswith(line) for reported in output.splitlines()), (line, output)


def test_a_telemetry_package_added_after_init_fails_check_lint_imports_and_flake8(tmp_path):
    config = initialised(tmp_path)
    assert "tbp.monty.**.telemetry:*Schema" in config

    check = domain_fence("check", cwd=tmp_path)
    assert check.returncode == 1, check.stdout + check.stderr
    assert_reported(check.stdout)
    assert "graph_matching.py:1:1: DOM30" not in check.stdout  # the importer of telemetry is not blamed

    lint = run("lint-imports", "--no-logo", cwd=tmp_path)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert_reported(lint.stdout)

    if FLAKE8_PLUGIN_INSTALLED:
        flake8 = run("flake8", "--select", "DOM", "tbp", cwd=tmp_path)
        assert flake8.returncode == 1, flake8.stdout + flake8.stderr
        assert_reported(flake8.stdout)
    assert (tmp_path / ".importlinter").read_text() == config


def test_a_telemetry_package_added_after_init_fails_pytest(pytester: pytest.Pytester):
    initialised(pytester.path)
    result = pytester.runpytest("--domain-fence", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=4)  # the census too: ContextMixin.mode, MatchEvent.episode
    assert_reported(result.stdout.str())


def test_methods_are_accepted_where_they_belong(tmp_path):
    """``MontyExperiment.init_telemetry`` and its ``post_episode`` sit under the
    experiment package: a project without misplaced methods passes."""
    initialised(tmp_path)
    (tmp_path / "tbp/monty/frameworks/telemetry/handlers.py").unlink()
    write(
        tmp_path,
        {"tbp/monty/frameworks/models/graph_matching.py": BEFORE["tbp/monty/frameworks/models/graph_matching.py"]},
    )
    check = domain_fence("check", cwd=tmp_path)
    assert "DOM201" not in check.stdout
    assert "symbols: 'init_telemetry' matches no" not in check.stdout
    assert "Experiment machinery is defined only under the experiment packages" in check.stdout

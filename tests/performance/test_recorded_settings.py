"""A check after sources changed starts from the settings the last run recorded, when
the configuration's files and the tools are as they were: it reports what reading the
configuration again would report, without importing import-linter (unless the import
graph must be built), and reads the configuration again as soon as it changed."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from perf_support import edit, imports_of_a_check, leaky_project, settle
from support import keep_json, kept_json
from test_run_cache import runs

from domain_fence.core.engine.recorded import RECORD_VERSION, settings_from_record, settings_record
from domain_fence.core.engine.runcache import Inputs, input_digest
from domain_fence.core.families.vocabulary import VocabularyFamily
from domain_fence.integrations import cli
from domain_fence.integrations.cli import main

BUILT_IN_CONTRACTS = "\n[importlinter:contract:experiment-above-runtime]"


def fence_only(root: Path) -> Path:
    """The leaky project with its import-linter contracts (layers, forbidden) dropped:
    only domain-fence contracts, whose settings a run records."""
    config = root / ".importlinter"
    text = config.read_text()
    edit(config, text[: text.index(BUILT_IN_CONTRACTS)])
    return root


def check_here(root: Path, *args: str):
    with contextlib.chdir(root):
        return CliRunner().invoke(main, ["check", *args])


def recorded_entry(root: Path) -> dict:
    [path] = runs(root)
    return kept_json(path)


@pytest.fixture
def project(tmp_path) -> Path:
    root = fence_only(leaky_project(tmp_path))
    first = check_here(root)
    assert first.exit_code == 1, first.output
    assert recorded_entry(root)["settings"] is not None
    return root


NEW_FIELD = "    epoch: int\n"  # an experiment word the contract does not list: no finding
NEW_EVENT = "\n\nclass Restarted(TelemetrySchema):\n    episode_count: int\n"  # a new DOM101


def with_new_event(root: Path) -> None:
    telemetry = root / "leaky" / "runtime" / "telemetry.py"
    edit(telemetry, telemetry.read_text() + NEW_EVENT)


# What reading the configuration imports; and rich, which the spinner needs only where
# stderr may be a terminal (here a pipe, nothing in the environment saying otherwise).
FROM_THE_CONFIGURATION = ("importlinter", "grimp", "domain_fence.integrations.importlinter", "rich")


def fresh_interpreter(root: Path, *args: str) -> tuple[str, int, list[str]]:
    """``check`` in a new interpreter: its report, status and the modules it imported."""
    started, status, modules = imports_of_a_check("check", *args, cwd=root)
    return started.stdout, status, modules


def spy_on_recorded_checks(monkeypatch) -> list[object]:
    """Each run that starts from recorded settings, from now on (they still run)."""
    taken: list[object] = []
    real = cli.check_recorded
    monkeypatch.setattr(cli, "check_recorded", lambda recorded, *rest: taken.append(recorded) or real(recorded, *rest))
    return taken


def uncached(root: Path, *args: str) -> tuple[int, str]:
    result = check_here(root, *args, "--no-cache")
    return result.exit_code, result.stdout


def test_a_check_after_an_edit_reads_no_configuration_and_imports_no_import_linter(project):
    with_new_event(project)
    report, status, modules = fresh_interpreter(project)
    assert "episode_count" in report and status == 1
    assert [m for m in modules if m.startswith(FROM_THE_CONFIGURATION)] == []
    assert (status, report) == uncached(project)


@pytest.mark.parametrize("format_", ["text", "json", "sarif"])
def test_the_report_is_the_report_of_a_check_that_reads_the_configuration(project, format_, monkeypatch):
    check_here(project, "--format", format_)
    with_new_event(project)
    taken = spy_on_recorded_checks(monkeypatch)
    from_record = check_here(project, "--format", format_)
    assert len(taken) == 1
    assert (from_record.exit_code, from_record.stdout) == uncached(project, "--format", format_)
    assert "episode_count" in from_record.stdout


def test_an_edit_of_imports_builds_the_graph_from_the_configuration_read_then(project, monkeypatch):
    taken = spy_on_recorded_checks(monkeypatch)
    model = project / "leaky" / "runtime" / "setup.py"
    edit(model, model.read_text() + "\nimport leaky.experiment.runner\n")
    result = check_here(project)
    assert len(taken) == 1
    assert "leaky.runtime.setup" in result.stdout
    assert (result.exit_code, result.stdout) == uncached(project)


def test_a_changed_configuration_is_read_again(project, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("started from settings recorded for another configuration")

    monkeypatch.setattr(cli, "check_recorded", refused)
    config = project / ".importlinter"
    edit(config, config.read_text().replace("    episode\n", "    episode\n    epoch\n"))
    telemetry = project / "leaky" / "runtime" / "telemetry.py"
    edit(telemetry, telemetry.read_text() + NEW_FIELD)
    result = check_here(project)
    assert result.exit_code == 1 and "'epoch'" in result.output, result.output


def test_settings_read_a_moment_after_an_edit_are_recorded_for_the_checks_that_follow(project, monkeypatch):
    # The configuration changed (or the tools were upgraded), then each check runs a
    # moment after a file is saved: no report can be vouched for, the settings can.
    config = project / ".importlinter"
    edit(config, config.read_text().replace("    episode\n", "    episode\n    epoch\n"))
    telemetry = project / "leaky" / "runtime" / "telemetry.py"
    telemetry.write_text(telemetry.read_text() + NEW_FIELD)  # modified now
    assert check_here(project).exit_code == 1
    stored = recorded_entry(project)
    assert stored["digest"] is None and stored["settings"] is not None
    taken = spy_on_recorded_checks(monkeypatch)
    telemetry.write_text(telemetry.read_text() + NEW_EVENT)
    second = check_here(project)
    assert len(taken) == 1
    assert "telemetry.py" in second.stdout
    assert (second.exit_code, second.stdout) == uncached(project)
    assert recorded_entry(project) == stored  # recorded already: not written again


def test_a_configuration_with_import_linter_contracts_records_no_settings(tmp_path):
    root = leaky_project(tmp_path)
    assert check_here(root).exit_code == 1
    [entry] = runs(root)
    assert kept_json(entry)["settings"] is None
    stored = entry.read_bytes()
    with_new_event(root)
    os.utime(root / "leaky" / "runtime" / "telemetry.py")  # modified now: no report kept
    assert check_here(root).exit_code == 1
    assert entry.read_bytes() == stored  # nor an entry holding no settings


@pytest.mark.parametrize("when", ["before it is read", "after it is read", "and undone while it is read"])
def test_a_configuration_edited_while_it_is_read_is_neither_recorded_nor_replayed(project, monkeypatch, when):
    from domain_fence.integrations.importlinter import configuration as configuration_module

    config = project / ".importlinter"
    original = config.read_text()
    edited = original.replace("    episode\n", "    unused\n")
    real = configuration_module.load_configuration
    before_read = when != "after it is read"

    def read_while_edited(path):
        if before_read:
            edit(config, edited)
        read = real(path)
        if not before_read:
            edit(config, edited)
        elif when == "and undone while it is read":
            config.write_text(original)  # the digest's bytes again, not its stamps
        return read

    [entry] = runs(project)
    if before_read:  # the replay's digest, of the configuration before, records no settings
        keep_json(entry, {**kept_json(entry), "setup": "another"})
        stored: bytes | None = entry.read_bytes()
    else:  # no entry: the digest is taken once the configuration is read
        entry.unlink()
        stored = None
    with_new_event(project)
    with monkeypatch.context() as patched:
        patched.setattr(configuration_module, "load_configuration", read_while_edited)
        assert check_here(project).exit_code == 1
    assert (entry.read_bytes() if entry.exists() else None) == stored
    # The configuration as a digest stored then would have stood for: never the settings read.
    edit(config, original if before_read else edited)
    telemetry = project / "leaky" / "runtime" / "telemetry.py"
    edit(telemetry, telemetry.read_text() + "\n# edited again\n")
    result = check_here(project)
    assert (result.exit_code, result.stdout) == uncached(project)


def test_an_unusable_baseline_is_one_line_and_status_2_as_when_the_configuration_is_read(project, monkeypatch):
    taken = spy_on_recorded_checks(monkeypatch)
    edit(project / ".domain-fence-baseline.json", "{ not json")
    from_record = check_here(project)
    fresh = check_here(project, "--no-cache")
    assert len(taken) == 1
    assert from_record.exit_code == fresh.exit_code == 2
    assert from_record.output == fresh.output and from_record.output.count("\n") == 1
    assert "Traceback" not in from_record.output


def test_a_contract_that_raises_is_one_line_and_status_2_as_when_the_configuration_is_read(project, monkeypatch):
    def raising(self, config, context, module):
        raise RuntimeError("the family broke")

    taken = spy_on_recorded_checks(monkeypatch)
    monkeypatch.setattr(VocabularyFamily, "check_module", raising)
    with_new_event(project)  # the vocabulary contract checks the edited module again
    from_record = check_here(project)
    fresh = check_here(project, "--no-cache")
    assert len(taken) == 1
    assert from_record.exit_code == fresh.exit_code == 2
    assert from_record.output == fresh.output
    assert from_record.output.count("\n") == 1 and "the family broke" in from_record.output
    assert "[importlinter:contract:runtime-events-speak-runtime]" in from_record.output


# -- the record itself --------------------------------------------------------------------


def test_the_setup_is_the_configuration_and_the_tools_not_the_sources_nor_the_baseline(project):
    baseline = project / ".domain-fence-baseline.json"
    inputs = Inputs((str(project / ".importlinter"),), (str(baseline),), ("leaky",), str(project))
    before = input_digest(inputs)
    with_new_event(project)
    edit(baseline, baseline.read_text() + "\n")
    after = input_digest(inputs)
    assert after.setup == before.setup and after.whole != before.whole
    config = project / ".importlinter"
    edit(config, config.read_text() + "\n")
    assert input_digest(inputs).setup != before.setup


def settings_of(root: Path):
    from domain_fence.integrations.importlinter.configuration import load_configuration
    from domain_fence.integrations.importlinter.session import settings_of as settings

    configuration = load_configuration(root / ".importlinter")
    return settings(configuration, configuration.fence_contracts())


def test_a_record_reads_back_as_the_settings_it_records(tmp_path):
    settings = settings_of(fence_only(leaky_project(tmp_path)))
    record = settings_record(settings, True)
    assert record is not None and json.loads(json.dumps(record)) == record
    read = settings_from_record(record, settings.cache_dir)
    assert read is not None and read.settings == settings and read.graph_from_bytes is True


def test_settings_that_would_not_read_back_equal_are_not_recorded(tmp_path):
    from dataclasses import replace

    settings = settings_of(fence_only(leaky_project(tmp_path)))
    tupled = settings._replace(session={**settings.session, "root_packages": ("leaky",)})  # JSON makes it a list
    assert settings_record(tupled, False) is None
    spec = settings.contracts[0]
    unwritable = replace(spec, options={**spec.options, "extra": object()})
    assert settings_record(settings._replace(contracts=(unwritable,)), False) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda record: None,
        lambda record: [],
        lambda record: {**record, "version": RECORD_VERSION + 1},
        lambda record: {key: value for key, value in record.items() if key != "contracts"},
        lambda record: {**record, "contracts": [{**record["contracts"][0], "family": "no-such-family"}]},
        lambda record: {**record, "contracts": [{**record["contracts"][0], "options": ["not", "a", "mapping"]}]},
        lambda record: {**record, "contracts": [{**record["contracts"][0], "options": {"type": "boundary"}}]},
    ],
    ids=["none", "a list", "another version", "no contracts", "unknown family", "options not a mapping", "refused"],
)
def test_a_damaged_or_planted_record_is_not_used(tmp_path, damage):
    root = fence_only(leaky_project(tmp_path))
    record = settings_record(settings_of(root), False)
    assert settings_from_record(damage(record), None) is None


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "a moment after an edit"])
def test_a_damaged_record_in_the_run_cache_means_reading_the_configuration(project, monkeypatch, settled):
    taken = spy_on_recorded_checks(monkeypatch)
    [path] = runs(project)
    entry = kept_json(path)
    entry["settings"]["contracts"][0]["family"] = "no-such-family"
    keep_json(path, entry)
    with_new_event(project)
    if settled:
        settle(project / "leaky")
    else:
        os.utime(project / "leaky" / "runtime" / "telemetry.py")  # modified now: no report kept
    result = check_here(project)
    assert taken == []
    assert result.exit_code == 1 and "episode_count" in result.stdout and "Traceback" not in result.output
    assert recorded_entry(project)["settings"]["contracts"][0]["family"] == "boundary"  # recorded anew


def test_a_baseline_link_sent_elsewhere_with_a_source_edit_is_read_there_and_watched_there(project, monkeypatch):
    from test_run_cache import baseline_behind_a_link, retarget

    taken = spy_on_recorded_checks(monkeypatch)
    for cache in runs(project):
        cache.unlink()
    _, second = baseline_behind_a_link(project)
    assert check_here(project).exit_code == 1
    retarget(project / ".domain-fence-baseline.json", second)
    with_new_event(project)
    from_record = check_here(project)
    assert (from_record.exit_code, from_record.stdout) == uncached(project)
    assert len(taken) == 1
    edit(second, second.read_text() + "\n")  # the file the link sends to now: watched
    again = check_here(project)
    assert again.stdout == from_record.stdout and len(taken) == 2

"""The engine pauses Python's cyclic garbage collector while it checks, whatever the
front end: lint-imports and pytest keep their collector on, and with thousands of
files' facts alive each collection walked them all again (Monty x20 through
lint-imports, cold: 3 to 6 seconds of its run). The collector is on again afterwards,
for the host's own work, even when the check raised."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from perf_support import lint_imports_here
from support import write_tree

from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

FILES = {
    ".importlinter": """\
[importlinter]
root_packages =
    pkg
contract_types =
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract

[importlinter:contract:census]
name = No experiment words
type = vocabulary
modules =
    pkg
scope =
    attributes
words =
    episode
""",
    "pkg/__init__.py": "",
    "pkg/counts.py": "class Counter:\n    episode_count = 0\n",
}


@pytest.fixture
def engine(tmp_path: Path):
    write_tree(tmp_path, FILES)
    return engine_for(load_configuration(tmp_path / ".importlinter"))


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_while_a_contract_is_checked_and_on_after(engine, collector_on, monkeypatch):
    spec = engine.contracts[0]
    seen: list[bool] = []
    real = spec.family.check_module

    def watching(config, context, module):
        seen.append(gc.isenabled())
        return real(config, context, module)

    monkeypatch.setattr(spec.family, "check_module", watching)

    [result] = engine.check()

    assert [f.code for f in result.findings] == ["DOM111"]
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_collector_is_on_again_when_the_check_raises(engine, collector_on, monkeypatch):
    spec = engine.contracts[0]

    def failing(config, context, module):
        raise RuntimeError("a family's defect")

    monkeypatch.setattr(spec.family, "check_module", failing)

    with pytest.raises(RuntimeError):
        engine.check()
    assert gc.isenabled()


def test_a_collector_the_host_turned_off_stays_off(engine):
    was = gc.isenabled()
    gc.disable()
    try:
        engine.check()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_lint_imports_freezes_what_the_check_read_and_resumes_the_collector(tmp_path, collector_on, monkeypatch):
    """lint-imports exits after its check: what the engine read is frozen before the
    collector resumes, so its next collections do not walk it all again."""
    from importlinter.cli import lint_imports

    lint_imports_here(tmp_path, FILES, monkeypatch)
    gc.unfreeze()
    try:
        status = lint_imports(no_cache=True)
        frozen = gc.get_freeze_count()
        assert gc.isenabled()
    finally:
        gc.unfreeze()
    assert status == 1  # Counter.episode_count
    assert frozen > 0


# Whether a collection ran while click and the run cache were imported (the last import of
# the paused ones is the reporters' options), and whether the collector is on afterwards.
COLLECTIONS_AS_THE_COMMAND_LINE_IS_IMPORTED = """
import gc, sys
paused = []
gc.callbacks.append(lambda phase, info: phase == "start" and paused.append(
    "click" in sys.modules and "domain_fence.integrations.reporters.options" not in sys.modules))
import domain_fence.integrations.cli
print(any(paused), gc.isenabled())
"""


def test_the_command_line_imports_click_and_the_run_cache_with_the_collector_paused():
    """What these imports create lives as long as a command's process: no collection walks
    it while it is made. An importer's collector is on again afterwards."""
    ran = subprocess.run(
        [sys.executable, "-c", COLLECTIONS_AS_THE_COMMAND_LINE_IS_IMPORTED], capture_output=True, text=True, timeout=60
    )
    assert (ran.returncode, ran.stdout) == (0, "False True\n")

"""lint-imports checks one contract at a time; the contracts of its run still read each
file once, as ``check`` does: announced before the first is checked, every contract's
files are parsed in the first batch, whole where one of them needs it whole."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from importlinter.cli import lint_imports
from perf_support import lint_imports_here

from domain_fence.core.index import project as index_module
from domain_fence.integrations.importlinter import session

CONFIG = """\
[importlinter]
root_packages =
    pkg
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract

[importlinter:contract:boundary]
name = Runtime does not import experiment code
type = boundary
source_modules =
    pkg.runtime
forbidden_modules =
    pkg.experiment

[importlinter:contract:events]
name = Runtime events carry no experiment vocabulary
type = vocabulary
modules =
    pkg.runtime
event_bases =
    pkg.events.Event
words =
    episode

[importlinter:contract:census]
name = Runtime attributes carry no experiment vocabulary
type = vocabulary
modules =
    pkg.runtime
scope =
    attributes
words =
    episode
"""

FILES = {
    ".importlinter": CONFIG,
    "pkg/__init__.py": "",
    "pkg/events.py": "class Event:\n    pass\n",
    "pkg/experiment.py": "",
    "pkg/runtime/__init__.py": "",
    "pkg/runtime/emits.py": "from pkg.events import Event\n\nEvent(step=1)\n",
    # Read whole by the census only: its words, no event name.
    "pkg/runtime/counts.py": "class Counter:\n    def __init__(self):\n        self.episode_count = 0\n",
    # Most covered modules name no event class: the events contract reads only their imports.
    **{f"pkg/runtime/plain{n}.py": "def add(a, b):\n    return a + b\n" for n in range(4)},
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return lint_imports_here(tmp_path, FILES, monkeypatch)


def test_each_file_is_parsed_once_across_the_contracts(project, monkeypatch):
    parsed: collections.Counter[str] = collections.Counter()
    for name in ("load_tree", "_read_tree"):
        real = getattr(index_module, name)

        def counting(path, *stamp, _real=real):
            parsed[Path(path).relative_to(project).as_posix()] += 1
            return _real(path, *stamp)

        monkeypatch.setattr(index_module, name, counting)

    status = lint_imports(no_cache=True)

    assert status == 1  # the census finds Counter.episode_count
    assert parsed["pkg/runtime/counts.py"] == 1
    assert [path for path, times in parsed.items() if times > 1] == []


def test_contracts_of_another_file_are_not_announced(project):
    """``lint-imports other.ini``: the configuration found in the directory is not the
    run's, and its contracts are not asked for anything."""
    events_only = CONFIG.split("[importlinter:contract:census]")[0].replace(
        "[importlinter:contract:boundary]", "[importlinter:contract:other-boundary]"
    )
    (project / "other.ini").write_text(events_only, encoding="utf-8")

    status = lint_imports(config_filename="other.ini", no_cache=True)

    assert status == 0
    [index] = session._INDEXES.values()
    announced = {key[1] for key in index._readers}
    assert "census" not in announced

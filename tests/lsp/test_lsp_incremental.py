"""An edit in an editor's buffer costs the edited module, not the project: what the
families computed for the whole project is kept when the edit leaves the module's
classes, bases, bindings and definitions as they were, and only what depends on
them is found again when it does not. Either way the findings are those of an
analysis started afresh on the same buffers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from lsp_support import copy_station

from domain_fence.core.families import boundary
from domain_fence.core.families.vocabulary import events
from domain_fence.integrations.lsp.analysis import Analysis

MODEL = "station/runtime/model.py"
RECORDS = "station/runtime/records.py"
JOURNAL = "station/runtime/journal.py"
INIT = "station/runtime/__init__.py"
TELEMETRY = "station/runtime/telemetry.py"
RUNNER = "station/experiment/runner.py"
MODEL_WITH_HELPER = (
    "from station.runtime.telemetry import Event\n\n\n"
    "class Reading(Event):\n    value: float\n\n\n"
    "def reading():\n    return Reading(value=1.0)\n"
)
RECORD_AS_EVENT = "from station.runtime.telemetry import Event\n\n\nclass Record(Event):\n    pass\n"


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often the project-wide answers are computed: the mixins of the events (which
    classify every class of the covered modules) and the routes to forbidden modules."""
    counts: Counter[str] = Counter()
    find_mixins = events.find_mixins
    routes = boundary.RoutesToForbidden

    def counted_mixins(*args, **kwargs):
        counts["mixins"] += 1
        return find_mixins(*args, **kwargs)

    class CountedRoutes(routes):
        def __init__(self, *args, **kwargs):
            counts["routes"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(events, "find_mixins", counted_mixins)
    monkeypatch.setattr(boundary, "RoutesToForbidden", CountedRoutes)
    return counts


def codes(analysis: Analysis, path: Path, text: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.col, f.code) for f in analysis.findings(path, text)]


def test_an_edit_inside_a_function_keeps_the_project_wide_answers(station: Path, computed: Counter[str]):
    analysis = Analysis(station / ".importlinter")
    model = station / MODEL
    assert codes(analysis, model, MODEL_WITH_HELPER) == []
    assert computed == {"mixins": 1, "routes": 1}

    computed.clear()
    assert codes(analysis, model, MODEL_WITH_HELPER.replace("value=1.0", "episode=1")) == [(9, 19, "DOM104")]
    assert codes(analysis, model, MODEL_WITH_HELPER.replace("value=1.0", "value=2.0")) == []
    assert computed == {}


def test_a_new_class_or_import_finds_the_event_hierarchy_again_on_the_same_graph(station: Path, computed: Counter[str]):
    analysis = Analysis(station / ".importlinter")
    model = station / MODEL
    assert codes(analysis, model, MODEL_WITH_HELPER) == []

    computed.clear()
    new_event = MODEL_WITH_HELPER + "\n\nclass Step(Reading):\n    episode: int\n"
    assert codes(analysis, model, new_event) == [(13, 4, "DOM101")]
    forbidden = "from station.experiment.runner import MODE\n" + MODEL_WITH_HELPER
    assert codes(analysis, model, forbidden) == [(1, 38, "DOM301")]
    # The routes come from the import graph, built from the files: a buffer leaves it as it is.
    assert computed == {"mixins": 2}


def test_a_class_made_an_event_in_another_buffer_reaches_the_modules_deriving_from_it(station: Path):
    analysis = Analysis(station / ".importlinter")
    journal, records = station / JOURNAL, station / RECORDS
    journal_text, records_text = journal.read_text(), records.read_text()
    assert codes(analysis, journal, journal_text) == []
    assert codes(analysis, records, RECORD_AS_EVENT) == []
    assert codes(analysis, journal, journal_text + "# typed\n") == [(5, 4, "DOM101")]
    assert codes(analysis, records, records_text) == []
    assert codes(analysis, journal, journal_text) == []


def test_fields_reordered_in_another_buffer_reach_the_kinds_given_by_position(station: Path):
    analysis = Analysis(station / ".importlinter")
    records, journal = station / RECORDS, station / JOURNAL
    fields = "    kind: str\n    note: str = ''\n"
    record = (
        "from dataclasses import dataclass\n\nfrom station.runtime.telemetry import Event\n\n\n"
        f"@dataclass\nclass Record(Event):\n{fields}"
    )
    built = "from station.runtime.records import Record\n\n\ndef noted():\n    return Record('EpisodeEnd')\n"
    assert codes(analysis, records, record) == []
    assert codes(analysis, journal, built) == [(5, 18, "DOM103")]
    # The string now binds ``note``: the journal's finding goes, though the journal is unchanged.
    assert codes(analysis, records, record.replace(fields, "    note: str\n    kind: str = ''\n")) == []
    assert codes(analysis, journal, built) == []


# An edit in one buffer that changes what another, unchanged, reads of it: (the module
# edited, its text before, its text after, the reader's text, the reader's findings
# before, and after).
_LENT = "class Tagged:\n    label: str = ''\n"
_KINDS = 'from enum import Enum\n\nDONE = "StepDone"\n\n\nclass Kinds(str, Enum):\n    RESET = "Reset"\n'
_STR_KINDS = "from enum import Enum\n\n\nclass StrKinds(str, Enum):\n    pass\n"
_TABLE = 'KINDS = {"done": "EpisodeDone", "step": "Step"}\n'
_IMPORTED = [(1, 38, "DOM301")]
REACHING_EDITS = {
    # The field is reported where the reader's class inherits it.
    "a field added to a mixin experiment code lends": (
        RUNNER,
        _LENT,
        _LENT + "    episode: int = 0\n",
        "from station.experiment.runner import Tagged\nfrom station.runtime.telemetry import Event\n\n\n"
        "class Entry(Event, Tagged):\n    pass\n",
        _IMPORTED,
        [*_IMPORTED, (5, 0, "DOM101")],
    ),
    # The reader's findings follow the strings the constants now hold.
    "constants given as kinds changed": (
        RECORDS,
        _KINDS,
        _KINDS.replace("StepDone", "EpisodeDone").replace('"Reset"', '"EpisodeReset"'),
        "from station.runtime.records import DONE, Kinds\nfrom station.runtime.telemetry import Event\n\n\n"
        "def noted():\n    return Event(kind=DONE), Event(kind=Kinds.RESET)\n",
        [],
        [(6, 22, "DOM103"), (6, 40, "DOM103")],
    ),
    # The base's ``__new__`` now decides what the members hold.
    "a hook added to an enumeration's base": (
        RECORDS,
        _STR_KINDS,
        _STR_KINDS.replace("pass", "def __new__(cls, value):\n        return str.__new__(cls, value.lower())"),
        "from station.runtime.records import StrKinds\nfrom station.runtime.telemetry import Event\n\n\n"
        'class Kinds(StrKinds):\n    DONE = "EpisodeDone"\n\n\n'
        "def noted():\n    return Event(kind=Kinds.DONE.value), Event(kind=Kinds.DONE)\n",
        [(10, 22, "DOM103"), (10, 52, "DOM103")],
        [],
    ),
    # The finding goes once the table's module changes the entry.
    "an entry of a table of kinds changed": (
        RECORDS,
        _TABLE,
        _TABLE + 'KINDS["done"] = "Done"\n',
        "from station.runtime.records import KINDS\nfrom station.runtime.telemetry import Event\n\n\n"
        'def noted():\n    return Event(kind=KINDS["done"])\n',
        [(6, 22, "DOM103")],
        [],
    ),
}


@pytest.mark.parametrize("edit", sorted(REACHING_EDITS))
def test_an_edit_in_another_buffer_reaches_the_findings_read_from_it(station: Path, edit: str):
    edited, before, after, read, found, found_after = REACHING_EDITS[edit]
    analysis = Analysis(station / ".importlinter")
    # The reader's buffer is never edited.
    for version, expected in ((before, found), (after, found_after), (before, found)):
        assert codes(analysis, station / edited, version) == []
        assert codes(analysis, station / JOURNAL, read) == expected


def test_a_function_made_to_build_an_event_in_another_buffer_reaches_its_callers(station: Path):
    analysis = Analysis(station / ".importlinter")
    records, journal = station / RECORDS, station / JOURNAL
    helper = (
        "from station.runtime.telemetry import Event\n\n\n"
        "def record(**fields):\n    return dict(**fields)\n\n\nKNOWN = Event\n"
    )
    called = "from station.runtime.records import record\n\n\ndef noted(n):\n    return record(episode=n)\n"
    assert codes(analysis, records, helper) == []
    assert codes(analysis, journal, called) == []
    # The journal is unchanged: record now emits an event, its keywords are the event's fields.
    assert codes(analysis, records, helper.replace("dict(**fields)", "Event(**fields)")) == []
    assert codes(analysis, journal, called) == [(5, 18, "DOM104")]
    assert codes(analysis, records, helper) == []
    assert codes(analysis, journal, called) == []


EDITS = [  # (file, its buffer's text): classes, bases and imports changed, and bodies only
    (MODEL, MODEL_WITH_HELPER),
    (RECORDS, RECORD_AS_EVENT),
    (JOURNAL, "from station.runtime.records import Record\n\n\nclass Entry(Record):\n    episode: int\n"),
    (MODEL, MODEL_WITH_HELPER.replace("value=1.0", "episode=1")),
    (MODEL, "from station.experiment.runner import MODE\n" + MODEL_WITH_HELPER),
    (RECORDS, "class Record:\n    pass\n"),
    (JOURNAL, "from station.runtime.model import Reading\n\n\nclass Entry(Reading):\n    episode_id: int\n"),
    (MODEL, MODEL_WITH_HELPER + "\n\nclass Mixin:\n    episode: int\n\n\nclass Step(Reading, Mixin):\n    pass\n"),
    (MODEL, MODEL_WITH_HELPER + "\n\nclass Mixin:\n    episodes: int\n\n\nclass Step(Reading, Mixin):\n    pass\n"),
    (RECORDS, RECORD_AS_EVENT.replace("pass", "terminal_state: bool")),
    # through a package's star import, then its binding, then neither
    (JOURNAL, "from station.runtime import Event as Base\n\n\nclass Entry(Base):\n    episode: int\n"),
    (INIT, "from station.runtime.telemetry import *\n"),
    (INIT, "from station.runtime.telemetry import Event\n"),
    (INIT, "from station.runtime.records import Record as Event\n"),
    (INIT, ""),
    # the event base itself named elsewhere, then back
    (TELEMETRY, "from station.runtime.records import Record as Event\n"),
    (JOURNAL, "from station.runtime.telemetry import Event\n\n\nclass Entry(Event):\n    episode: int\n"),
    (TELEMETRY, 'class Event:\n    """Base of the runtime\'s telemetry events."""\n'),
]


# A chain across modules: zeta.Leaf derives from alpha.Middle, which derives from
# records.Record; alpha's answer is found first (modules are checked in name order),
# and zeta's rests on it.
CHAIN = {
    "station/runtime/alpha.py": "from station.runtime.records import Record\n\n\nclass Middle(Record):\n    pass\n",
    "station/runtime/zeta.py": "from station.runtime.alpha import Middle\n\n\nclass Leaf(Middle):\n    episode: int\n",
}
CHAIN_EDITS = [
    (RECORDS, RECORD_AS_EVENT),
    (MODEL, MODEL_WITH_HELPER + "\n\nclass Step(Reading):\n    pass\n"),
    (RECORDS, "class Record:\n    pass\n"),
    (MODEL, MODEL_WITH_HELPER),
    (RECORDS, RECORD_AS_EVENT),
]
# The event base named through a re-export: moving the re-export moves the base.
REEXPORTED = {INIT: "from station.runtime.telemetry import Event\n"}
REEXPORTED_EDITS = [
    (JOURNAL, "from station.runtime.records import Record\n\n\nclass Entry(Record):\n    episode: int\n"),
    (INIT, "from station.runtime.records import Record as Event\n"),
    (MODEL, MODEL_WITH_HELPER + "\n\nclass Step(Reading):\n    episode: int\n"),
    (INIT, "from station.runtime.telemetry import Event\n"),
]


@pytest.mark.parametrize(
    ("files", "event_base", "edits"),
    [
        ({}, "station.runtime.telemetry.Event", EDITS),
        (CHAIN, "station.runtime.telemetry.Event", CHAIN_EDITS),
        (REEXPORTED, "station.runtime.Event", REEXPORTED_EDITS),
    ],
    ids=["edits", "chain", "reexported-base"],
)
def test_after_each_edit_the_findings_are_those_of_a_fresh_analysis_of_the_files(
    tmp_path: Path, files: dict[str, str], event_base: str, edits: list[tuple[str, str]]
):
    def project(name: str, buffers: dict[str, str]) -> Path:
        root = copy_station(tmp_path, name)
        config = root / ".importlinter"
        config.write_text(config.read_text().replace("station.runtime.telemetry.Event", event_base))
        for file, text in buffers.items():
            (root / file).write_text(text)
        return root

    station = project("station", files)
    kept = Analysis(station / ".importlinter")
    names = sorted(path.relative_to(station).as_posix() for path in (station / "station").rglob("*.py"))
    buffers = {name: (station / name).read_text() for name in names}
    counts = []
    for step, (edited, text) in enumerate(edits):
        buffers[edited] = text
        kept.findings(station / edited, text)
        saved = project(f"saved-{step}", buffers)  # the buffers written to files
        fresh = Analysis(saved / ".importlinter")
        found = 0
        for name in names:
            served = kept.findings(station / name, buffers[name])
            assert served == fresh.findings(saved / name, buffers[name]), (step, name)
            found += len(served)
        counts.append(found)
    assert len(set(counts)) > 1  # the edits change what is found


def test_closing_a_buffer_checks_the_others_against_the_file_again(station: Path):
    analysis = Analysis(station / ".importlinter")
    journal, records = station / JOURNAL, station / RECORDS
    journal_text = journal.read_text()
    assert codes(analysis, records, RECORD_AS_EVENT) == []
    assert codes(analysis, journal, journal_text) == [(5, 4, "DOM101")]
    analysis.close(records)
    assert codes(analysis, journal, journal_text + "# typed\n") == []


def test_a_file_changed_on_disk_is_read_again(station: Path, computed: Counter[str]):
    analysis = Analysis(station / ".importlinter")
    journal, records = station / JOURNAL, station / RECORDS
    journal_text = journal.read_text()
    assert codes(analysis, journal, journal_text) == []

    computed.clear()
    records.write_text(RECORD_AS_EVENT)
    analysis.refresh([records])
    assert codes(analysis, journal, journal_text) == [(5, 4, "DOM101")]
    assert computed == {"mixins": 1, "routes": 1}  # its imports changed: a new graph too


def test_a_saved_forbidden_import_is_reported_once_the_buffer_is_closed(station: Path, computed: Counter[str]):
    # The import graph was built before the save: the file's new imports need a new one.
    analysis = Analysis(station / ".importlinter")
    records = station / RECORDS
    saved = "import station.experiment.runner\n" + records.read_text()
    assert codes(analysis, records, records.read_text()) == []
    assert codes(analysis, records, saved) == [(1, 7, "DOM301")]  # from the buffer's imports
    records.write_text(saved)
    analysis.refresh([records])
    analysis.close(records)
    assert [(f.line, f.code) for f in analysis.engine.findings_in(records).reported] == [(1, "DOM301")]


def test_a_file_whose_imports_changed_on_disk_gets_a_new_graph(station: Path, computed: Counter[str]):
    analysis = Analysis(station / ".importlinter")
    journal, records = station / JOURNAL, station / RECORDS
    assert codes(analysis, journal, journal.read_text()) == []
    computed.clear()
    records.write_text(records.read_text() + "\n# a comment changes no import\n")
    analysis.refresh([records])
    assert [(f.line, f.code) for f in analysis.engine.findings_in(records).reported] == []
    assert computed["routes"] == 0  # the same graph
    records.write_text("import station.experiment.runner\n" + records.read_text())
    analysis.refresh([records])
    assert [(f.line, f.code) for f in analysis.engine.findings_in(records).reported] == [(1, "DOM301")]
    assert computed["routes"] == 1


@pytest.mark.parametrize("directory", ["__pycache__", "notes", "new_package"])
def test_a_directory_created_in_a_package_reads_the_project_again_only_when_it_may_be_one(
    station: Path, directory: str
):
    # A cache or a folder of notes makes no module: the engine is kept. A package with
    # a module in it may hold new findings: the project is read again.
    analysis = Analysis(station / ".importlinter")
    engine = analysis.engine
    created = station / "station/runtime" / directory
    created.mkdir()
    (created / ("model.cpython-311.pyc" if directory == "__pycache__" else "README.md")).write_text("")
    if directory == "new_package":
        (created / "__init__.py").write_text("")
    analysis.refresh([created])
    assert (analysis.engine is engine) is (directory != "new_package")

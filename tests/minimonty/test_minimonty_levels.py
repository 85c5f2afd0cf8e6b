"""Per-module levels and independent snapshot switching via init_telemetry."""

from __future__ import annotations

import logging

import pytest
from minimonty.experiment import DEFAULT_LEARNED_OBJECTS, DEFAULT_WORLD, init_telemetry
from minimonty.frameworks.models import EvidenceLM
from minimonty.frameworks.telemetry import getTelemetry
from minimonty.frameworks.telemetry.schemas import (
    LearningModuleSnapshot,
    ObjectRecognized,
    PossibleMatches,
)
from minimonty.frameworks.telemetry.subscribers import RecordingSubscriber

MODELS = "minimonty.frameworks.models"
OTHER = "minimonty.frameworks.sensors"  # a second runtime module, simulated here


def run_learning_module() -> None:
    lm = EvidenceLM("lm_0", DEFAULT_WORLD.subset(DEFAULT_LEARNED_OBJECTS))
    for feature in ("ceramic", "handle"):
        lm.step(feature)


def emit_from_other_module() -> None:
    getTelemetry(f"{OTHER}.camera").emit(PossibleMatches(lm_id="other", step=0, possible_object_ids=()))


def test_one_module_collected_another_filtered_out() -> None:
    recorder = RecordingSubscriber()
    config = {"telemetry": {MODELS: "INFO", OTHER: "WARNING"}}
    with init_telemetry(config, telemetry_handlers=[recorder]):
        run_learning_module()
        emit_from_other_module()

    kinds = [type(e) for e in recorder.events]
    assert kinds == [PossibleMatches, PossibleMatches, ObjectRecognized]
    assert {e.lm_id for e in recorder.events} == {"lm_0"}


def test_unconfigured_module_inherits_default_and_is_filtered() -> None:
    recorder = RecordingSubscriber()
    with init_telemetry({"telemetry": {MODELS: "INFO"}}, telemetry_handlers=[recorder]):
        emit_from_other_module()
    assert recorder.events == []


def test_more_specific_module_overrides_parent() -> None:
    recorder = RecordingSubscriber()
    config = {"telemetry": {"": "INFO", f"{MODELS}.learning_module": "ERROR"}}
    with init_telemetry(config, telemetry_handlers=[recorder]):
        run_learning_module()
        emit_from_other_module()
    assert [e.lm_id for e in recorder.events] == ["other"]


def test_uninstall_restores_levels_and_handlers() -> None:
    recorder = RecordingSubscriber()
    module_logger = logging.getLogger(f"telemetry.{MODELS}")
    before = module_logger.level
    installation = init_telemetry({"telemetry": {MODELS: "INFO"}}, telemetry_handlers=[recorder])
    assert recorder in logging.getLogger("telemetry").handlers
    installation.uninstall()
    assert module_logger.level == before
    assert recorder not in logging.getLogger("telemetry").handlers


def test_bad_config_is_rejected_before_changing_anything() -> None:
    with pytest.raises(ValueError):
        init_telemetry({"telemetry": {MODELS: "LOUD"}})
    with pytest.raises(ValueError):
        init_telemetry({"metrics": {MODELS: "INFO"}})
    assert logging.getLogger(f"telemetry.{MODELS}").level == logging.NOTSET


def test_snapshots_on_while_events_off() -> None:
    events, snapshots = RecordingSubscriber(), RecordingSubscriber()
    config = {"telemetry": {MODELS: "WARNING"}, "snapshots": {MODELS: "DEBUG"}}
    with init_telemetry(config, telemetry_handlers=[events], snapshot_handlers=[snapshots]):
        run_learning_module()

    assert events.events == []
    assert snapshots.events == [
        LearningModuleSnapshot(lm_id="lm_0", step=0, num_possible_matches=2),
        LearningModuleSnapshot(lm_id="lm_0", step=1, num_possible_matches=1),
    ]


def test_events_on_while_snapshots_off() -> None:
    events, snapshots = RecordingSubscriber(), RecordingSubscriber()
    config = {"telemetry": {MODELS: "INFO"}, "snapshots": {MODELS: "INFO"}}
    with init_telemetry(config, telemetry_handlers=[events], snapshot_handlers=[snapshots]):
        assert not getTelemetry(f"{MODELS}.learning_module").wants_snapshot(LearningModuleSnapshot)
        run_learning_module()

    assert len(events.events) == 3
    assert snapshots.events == []

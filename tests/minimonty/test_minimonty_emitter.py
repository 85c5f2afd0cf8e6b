"""getTelemetry behaves like logging.getLogger; schemas are well-formed."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from minimonty.frameworks.telemetry import TelemetryEmitter, getTelemetry
from minimonty.frameworks.telemetry.schemas import (
    LearningModuleSnapshot,
    ObjectRecognized,
    PossibleMatches,
    TelemetryEvent,
    TelemetrySchema,
    TelemetrySnapshot,
)
from minimonty.frameworks.telemetry.subscribers import RecordingSubscriber, schema_of


def test_same_name_returns_same_emitter() -> None:
    first = getTelemetry("tests.minimonty.same")
    assert getTelemetry("tests.minimonty.same") is first
    assert getTelemetry("tests.minimonty.other") is not first
    assert isinstance(first, TelemetryEmitter)


def test_emitter_writes_through_two_module_loggers() -> None:
    emitter = getTelemetry("tests.minimonty.loggers")
    assert emitter.telemetry_logger is logging.getLogger("telemetry.tests.minimonty.loggers")
    assert emitter.snapshot_logger is logging.getLogger("snapshots.tests.minimonty.loggers")


def test_empty_name_is_rejected() -> None:
    with pytest.raises(ValueError):
        getTelemetry("")


def test_top_loggers_do_not_propagate_and_have_null_handler() -> None:
    for name in ("telemetry", "snapshots"):
        logger = logging.getLogger(name)
        assert logger.propagate is False
        assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)


def test_schema_is_the_record_msg_at_its_level() -> None:
    emitter = getTelemetry("tests.minimonty.record")
    records: list[logging.LogRecord] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    emitter.telemetry_logger.setLevel(logging.INFO)
    emitter.telemetry_logger.addHandler(Capture())
    event = ObjectRecognized(lm_id="lm_0", step=2, object_id="mug")
    emitter.emit(event)

    (record,) = records
    assert record.msg is event
    assert schema_of(record) is event
    assert record.levelno == ObjectRecognized.LEVEL == logging.INFO
    assert record.funcName == "test_schema_is_the_record_msg_at_its_level"


def test_emit_and_snapshot_reject_the_wrong_schema_family() -> None:
    emitter = getTelemetry("tests.minimonty.types")
    with pytest.raises(TypeError):
        emitter.emit(LearningModuleSnapshot(lm_id="lm_0", step=0, num_possible_matches=1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emitter.snapshot(ObjectRecognized(lm_id="lm_0", step=0, object_id="mug"))  # type: ignore[arg-type]


def test_schemas_have_kind_and_level_and_are_frozen() -> None:
    event = PossibleMatches(lm_id="lm_0", step=0, possible_object_ids=("bowl", "mug"))
    assert event.to_dict() == {
        "kind": "possible_matches",
        "lm_id": "lm_0",
        "step": 0,
        "possible_object_ids": ("bowl", "mug"),
    }
    assert issubclass(PossibleMatches, TelemetryEvent)
    assert issubclass(LearningModuleSnapshot, TelemetrySnapshot)
    assert TelemetryEvent.LEVEL == logging.INFO
    assert TelemetrySnapshot.LEVEL == logging.DEBUG
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.step = 1  # type: ignore[misc]


def test_abstract_schemas_cannot_be_instantiated() -> None:
    for abstract in (TelemetrySchema, TelemetryEvent, TelemetrySnapshot):
        with pytest.raises(TypeError):
            abstract()


def test_subscriber_ignores_plain_log_records() -> None:
    recorder = RecordingSubscriber()
    logger = logging.getLogger("telemetry.tests.minimonty.plain")
    logger.setLevel(logging.INFO)
    logger.addHandler(recorder)
    logger.info("not a schema")
    assert recorder.events == []

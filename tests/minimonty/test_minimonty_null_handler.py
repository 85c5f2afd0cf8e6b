"""Unsubscribed telemetry is dropped silently instead of hitting lastResort."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import ClassVar

import pytest
from minimonty.frameworks.telemetry import getTelemetry
from minimonty.frameworks.telemetry.schemas import TelemetryEvent, TelemetrySnapshot


class LastResortSpy(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass(frozen=True)
class AlarmRaised(TelemetryEvent):
    KIND: ClassVar[str] = "alarm_raised"
    LEVEL: ClassVar[int] = logging.CRITICAL


@dataclass(frozen=True)
class AlarmState(TelemetrySnapshot):
    KIND: ClassVar[str] = "alarm_state"
    LEVEL: ClassVar[int] = logging.CRITICAL


@pytest.fixture
def last_resort(monkeypatch: pytest.MonkeyPatch) -> LastResortSpy:
    """Replace lastResort with a spy, and leave the top loggers with only the
    handlers minimonty installs (pytest adds capture handlers to them)."""
    for name in ("telemetry", "snapshots"):
        top = logging.getLogger(name)
        top.handlers[:] = [h for h in top.handlers if type(h) is logging.NullHandler]
        assert top.handlers, f"{name} lost its NullHandler"
    spy = LastResortSpy()
    monkeypatch.setattr(logging, "lastResort", spy)
    return spy


def test_high_level_event_without_subscribers_skips_last_resort(
    last_resort: LastResortSpy, capfd: pytest.CaptureFixture[str]
) -> None:
    emitter = getTelemetry("tests.minimonty.unhandled")
    emitter.emit(AlarmRaised())
    emitter.snapshot(AlarmState())

    assert last_resort.records == []
    assert capfd.readouterr().err == ""


def test_spy_does_catch_a_logger_without_null_handler(last_resort: LastResortSpy) -> None:
    # Control: the same setup minus the NullHandler does reach lastResort.
    top = logging.getLogger("telemetry")
    top.handlers[:] = []
    getTelemetry("tests.minimonty.unhandled").emit(AlarmRaised())
    assert len(last_resort.records) == 1


def test_telemetry_never_reaches_root_handlers() -> None:
    spy = LastResortSpy()
    root = logging.getLogger()
    root.addHandler(spy)
    root.setLevel(logging.DEBUG)
    getTelemetry("tests.minimonty.rooted").emit(AlarmRaised())
    assert spy.records == []

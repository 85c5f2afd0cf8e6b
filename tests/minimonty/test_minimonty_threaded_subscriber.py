"""ThreadedSubscriber: consumes off-thread, stop() drains, joins, is idempotent."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from minimonty.frameworks.telemetry import getTelemetry
from minimonty.frameworks.telemetry.schemas import PossibleMatches, TelemetrySchema
from minimonty.frameworks.telemetry.subscribers import ThreadedSubscriber

MODULE = "tests.minimonty.threaded"


class SlowCollector(ThreadedSubscriber):
    """Collects schemas on the worker; sleeps a little so a backlog builds up."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__()
        self.delay = delay
        self.consumed: list[object] = []
        self.consumer_threads: set[str] = set()

    def consume(self, event: TelemetrySchema) -> None:
        if self.delay:
            time.sleep(self.delay)
        self.consumer_threads.add(threading.current_thread().name)
        self.consumed.append(event)


def event(step: int) -> PossibleMatches:
    return PossibleMatches(lm_id="lm_0", step=step, possible_object_ids=("mug",))


@pytest.fixture
def emitter():
    telemetry = getTelemetry(MODULE)
    telemetry.telemetry_logger.setLevel(logging.INFO)
    return telemetry


def attach(emitter, subscriber: ThreadedSubscriber) -> ThreadedSubscriber:
    emitter.telemetry_logger.addHandler(subscriber)
    return subscriber


def test_stop_consumes_everything_emitted_before_it(emitter) -> None:
    subscriber = attach(emitter, SlowCollector(delay=0.0005))
    for step in range(200):
        emitter.emit(event(step))
    subscriber.stop()

    assert subscriber.consumed == [event(step) for step in range(200)]
    assert all(isinstance(item, PossibleMatches) for item in subscriber.consumed)
    assert not subscriber.is_running
    assert subscriber.consumer_threads == {"SlowCollector-worker"}


def test_stop_is_idempotent_and_later_events_are_dropped(emitter) -> None:
    subscriber = attach(emitter, SlowCollector())
    emitter.emit(event(0))
    subscriber.stop()
    subscriber.stop()
    emitter.emit(event(1))
    subscriber.close()  # close() after stop() is fine too

    assert subscriber.consumed == [event(0)]
    assert not subscriber.is_running


def test_events_from_several_threads_all_arrive(emitter) -> None:
    subscriber = attach(emitter, SlowCollector())
    per_thread = 100

    def produce(offset: int) -> None:
        for step in range(per_thread):
            emitter.emit(event(offset + step))

    producers = [threading.Thread(target=produce, args=(i * per_thread,)) for i in range(4)]
    for producer in producers:
        producer.start()
    for producer in producers:
        producer.join()
    subscriber.stop()

    steps = sorted(item.step for item in subscriber.consumed)  # type: ignore[attr-defined]
    assert steps == list(range(4 * per_thread))


def test_flush_waits_for_backlog_without_stopping(emitter) -> None:
    subscriber = attach(emitter, SlowCollector(delay=0.001))
    for step in range(20):
        emitter.emit(event(step))
    subscriber.flush()
    assert len(subscriber.consumed) == 20
    assert subscriber.is_running
    subscriber.stop()


def test_failing_consume_is_reported_and_worker_keeps_going(emitter, monkeypatch: pytest.MonkeyPatch) -> None:
    class Picky(SlowCollector):
        def consume(self, event: TelemetrySchema) -> None:
            if getattr(event, "step", None) == 1:
                raise RuntimeError("boom")
            super().consume(event)

    subscriber = Picky()
    reported: list[logging.LogRecord] = []
    monkeypatch.setattr(subscriber, "handleError", reported.append)
    attach(emitter, subscriber)
    for step in range(3):
        emitter.emit(event(step))
    subscriber.stop()

    assert [item.step for item in subscriber.consumed] == [0, 2]  # type: ignore[attr-defined]
    assert [record.msg for record in reported] == [event(1)]

"""Subscribers: logging handlers that consume telemetry schemas.

Why handlers: attaching a subscriber is then plain logging configuration
(``logger.addHandler``, handler levels, dictConfig), and the logger
hierarchy decides which modules' telemetry reaches it. A subscriber reads
the schema from ``record.msg`` and hands it to ``consume()``; records that
carry no schema (ordinary log lines) are ignored.
"""

from __future__ import annotations

import logging
import queue
import threading
from abc import ABC, abstractmethod
from typing import cast

from minimonty.frameworks.telemetry.schemas import TelemetrySchema


def schema_of(record: logging.LogRecord) -> TelemetrySchema | None:
    """The schema carried by ``record``, or None for a non-telemetry record."""
    msg = record.msg
    return msg if isinstance(msg, TelemetrySchema) else None


class TelemetrySubscriber(logging.Handler, ABC):
    """Base subscriber: consumes schemas synchronously, on the emitting thread.

    Subclasses implement ``consume(event)``. An exception raised there is
    reported through ``Handler.handleError`` like any handler failure, so a
    faulty subscriber never breaks the code that emitted the event.
    """

    def emit(self, record: logging.LogRecord) -> None:
        self._deliver(record)

    @abstractmethod
    def consume(self, event: TelemetrySchema) -> None:
        """Handle one telemetry schema (an event or a snapshot)."""

    def _deliver(self, record: logging.LogRecord) -> None:
        event = schema_of(record)
        if event is None:
            return
        try:
            self.consume(event)
        except Exception:  # noqa: BLE001 -- logging's contract: a failing handler reports, never raises
            self.handleError(record)


class RecordingSubscriber(TelemetrySubscriber):
    """Keeps every schema it receives, in order. Handy in tests and notebooks."""

    def __init__(self, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self.events: list[TelemetrySchema] = []

    def consume(self, event: TelemetrySchema) -> None:
        self.events.append(event)


# Private marker that tells the worker to finish. It is compared by identity
# and never handed to consume(), so consumers only ever see real schemas.
_STOP = object()


class ThreadedSubscriber(TelemetrySubscriber):
    """Consumes schemas on a worker thread so slow consumers don't slow emitters.

    ``emit()`` only puts the record on a queue. ``stop()`` finishes the
    worker: every record emitted before ``stop()`` is still consumed, then
    the thread is joined. ``stop()`` is idempotent; records emitted after it
    are dropped. ``close()`` (also called by ``logging.shutdown`` at exit)
    stops the subscriber too.
    """

    def __init__(self, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._queue: queue.Queue[object] = queue.Queue()
        self._stopped = False
        # Positional arguments: (group, function to run, thread name).
        self._worker = threading.Thread(None, self._drain, f"{type(self).__name__}-worker", daemon=True)
        self._worker.start()

    @property
    def is_running(self) -> bool:
        return self._worker.is_alive()

    def emit(self, record: logging.LogRecord) -> None:
        # The handler lock orders emit() against stop(): a record is either
        # queued before the stop marker or dropped, never lost in between.
        self.acquire()
        try:
            if not self._stopped:
                self._queue.put(record)
        finally:
            self.release()

    def stop(self) -> None:
        """Consume everything already queued, then join the worker. Idempotent."""
        self.acquire()
        try:
            if not self._stopped:
                self._stopped = True
                self._queue.put(_STOP)
        finally:
            self.release()
        if threading.current_thread() is not self._worker:
            self._worker.join()

    def flush(self) -> None:
        """Wait until every queued record has been consumed."""
        if threading.current_thread() is not self._worker:
            self._queue.join()

    def close(self) -> None:
        self.stop()
        super().close()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self._deliver(cast(logging.LogRecord, item))
            finally:
                self._queue.task_done()

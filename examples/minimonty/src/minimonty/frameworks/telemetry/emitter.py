"""Telemetry emitters, summoned per module the way loggers are.

Why ride on ``logging``: Python already has a per-module, hierarchical,
thread-safe switchboard with levels, handlers and file/dict configuration.
``getTelemetry(__name__)`` gives a module an emitter that writes through two
loggers::

    telemetry.<module>   <- emit(event)        TelemetryEvent schemas
    snapshots.<module>   <- snapshot(snapshot)  TelemetrySnapshot schemas

so events and snapshots are switched on and off independently, per module,
with ordinary logging configuration. The schema object itself is the log
record's ``msg`` (``record.msg``); subscribers read it from there and never
parse text. Plain logging handlers still work: they print the schema's repr.

The two top loggers, ``telemetry`` and ``snapshots``, do not propagate to
the root logger (telemetry is data, not diagnostics) and each carries a
``NullHandler``. Without that handler a record that found no handler would
be printed to stderr by ``logging.lastResort``; with it, an event nobody
subscribed to is dropped silently.

Levels are not set here: until configured, loggers inherit the root
logger's level (WARNING by default), so INFO events and DEBUG snapshots are
off unless someone asks for them.
"""

from __future__ import annotations

import logging
import threading

from minimonty.frameworks.telemetry.schemas import (
    TelemetryEvent,
    TelemetrySchema,
    TelemetrySnapshot,
)

TELEMETRY_LOGGER_NAME = "telemetry"
SNAPSHOTS_LOGGER_NAME = "snapshots"


def _prepare_top_logger(name: str) -> logging.Logger:
    """Stop propagation to root and install a NullHandler (idempotent)."""
    logger = logging.getLogger(name)
    logger.propagate = False
    if not any(isinstance(handler, logging.NullHandler) for handler in logger.handlers):
        logger.addHandler(logging.NullHandler())
    return logger


_prepare_top_logger(TELEMETRY_LOGGER_NAME)
_prepare_top_logger(SNAPSHOTS_LOGGER_NAME)


class TelemetryEmitter:
    """Writes one module's telemetry schemas to its two loggers.

    Do not construct directly; use ``getTelemetry(name)`` so every caller
    with the same name shares one emitter.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.telemetry_logger = logging.getLogger(f"{TELEMETRY_LOGGER_NAME}.{name}")
        self.snapshot_logger = logging.getLogger(f"{SNAPSHOTS_LOGGER_NAME}.{name}")

    def __repr__(self) -> str:
        return f"<TelemetryEmitter {self.name}>"

    def emit(self, event: TelemetryEvent) -> None:
        """Send ``event`` at ``event.LEVEL`` through ``telemetry.<module>``."""
        if not isinstance(event, TelemetryEvent):
            raise TypeError(f"emit() takes a TelemetryEvent, got {type(event).__name__}")
        self._log(self.telemetry_logger, event)

    def snapshot(self, snapshot: TelemetrySnapshot) -> None:
        """Send ``snapshot`` at ``snapshot.LEVEL`` through ``snapshots.<module>``."""
        if not isinstance(snapshot, TelemetrySnapshot):
            raise TypeError(f"snapshot() takes a TelemetrySnapshot, got {type(snapshot).__name__}")
        self._log(self.snapshot_logger, snapshot)

    def wants_event(self, schema: type[TelemetryEvent]) -> bool:
        """True if an event of this type would currently be collected."""
        return self.telemetry_logger.isEnabledFor(schema.LEVEL)

    def wants_snapshot(self, schema: type[TelemetrySnapshot]) -> bool:
        """True if a snapshot of this type would currently be collected.

        Check this before building a costly snapshot.
        """
        return self.snapshot_logger.isEnabledFor(schema.LEVEL)

    @staticmethod
    def _log(logger: logging.Logger, schema: TelemetrySchema) -> None:
        # stacklevel=3 attributes the record to the caller of emit()/snapshot().
        logger.log(schema.LEVEL, schema, stacklevel=3)


_emitters: dict[str, TelemetryEmitter] = {}
_emitters_lock = threading.Lock()


def getTelemetry(name: str) -> TelemetryEmitter:
    """Return the emitter for ``name`` (usually ``__name__``), creating it once.

    Like ``logging.getLogger``: the same name always yields the same object.
    """
    if not name:
        raise ValueError("getTelemetry() needs a module name, e.g. getTelemetry(__name__)")
    with _emitters_lock:
        emitter = _emitters.get(name)
        if emitter is None:
            emitter = _emitters[name] = TelemetryEmitter(name)
        return emitter

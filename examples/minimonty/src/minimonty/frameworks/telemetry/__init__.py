"""Runtime telemetry: structured schemas routed through ``logging``.

Usage in a runtime module::

    from minimonty.frameworks.telemetry import getTelemetry
    from minimonty.frameworks.telemetry.schemas import PossibleMatches

    telemetry = getTelemetry(__name__)
    telemetry.emit(PossibleMatches(lm_id="lm_0", step=3, possible_object_ids=("mug",)))

Emitting code states facts about itself and nothing more. Collecting,
filtering and interpreting those facts is the job of whoever configures
the ``telemetry.*`` and ``snapshots.*`` loggers and attaches subscribers.
"""

from minimonty.frameworks.telemetry.emitter import (
    SNAPSHOTS_LOGGER_NAME,
    TELEMETRY_LOGGER_NAME,
    TelemetryEmitter,
    getTelemetry,
)

__all__ = [
    "SNAPSHOTS_LOGGER_NAME",
    "TELEMETRY_LOGGER_NAME",
    "TelemetryEmitter",
    "getTelemetry",
]

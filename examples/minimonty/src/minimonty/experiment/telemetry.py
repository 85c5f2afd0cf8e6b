"""Telemetry configuration for experiments.

Why the experiment configures telemetry: the runtime only emits; deciding
which modules' events and snapshots are collected, and by whom, is a
property of a particular run. ``init_telemetry`` sets per-module levels on
the ``telemetry.<module>`` and ``snapshots.<module>`` loggers and attaches
subscribers to the two top loggers, where every module's records arrive.

Config shape (level names or ints; module prefixes apply to submodules,
and ``""`` means every module)::

    {
        "telemetry": {"minimonty.frameworks.models": "INFO"},
        "snapshots": {"minimonty.frameworks.models.learning_module": "DEBUG"},
    }
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from types import TracebackType

from minimonty.frameworks.telemetry import SNAPSHOTS_LOGGER_NAME, TELEMETRY_LOGGER_NAME

TelemetryConfig = Mapping[str, Mapping[str, str | int]]

DEFAULT_TELEMETRY_CONFIG: TelemetryConfig = {
    "telemetry": {"minimonty.frameworks.models": "INFO"},
    "snapshots": {},
}

_TOP_LOGGERS = {"telemetry": TELEMETRY_LOGGER_NAME, "snapshots": SNAPSHOTS_LOGGER_NAME}


def _level(value: str | int) -> int:
    if isinstance(value, int):
        return value
    levels = logging.getLevelNamesMapping()
    try:
        return levels[value.upper()]
    except KeyError:
        raise ValueError(f"unknown logging level {value!r}") from None


def _logger_for(top: str, module: str) -> logging.Logger:
    return logging.getLogger(f"{top}.{module}" if module else top)


class TelemetryInstallation:
    """What ``init_telemetry`` changed, so it can be undone with ``uninstall()``."""

    def __init__(self) -> None:
        self._previous_levels: list[tuple[logging.Logger, int]] = []
        self._added_handlers: list[tuple[logging.Logger, logging.Handler]] = []

    def set_level(self, logger: logging.Logger, level: int) -> None:
        self._previous_levels.append((logger, logger.level))
        logger.setLevel(level)

    def add_handler(self, logger: logging.Logger, handler: logging.Handler) -> None:
        logger.addHandler(handler)
        self._added_handlers.append((logger, handler))

    def uninstall(self) -> None:
        """Detach handlers and restore levels (handlers are not closed)."""
        for logger, handler in reversed(self._added_handlers):
            logger.removeHandler(handler)
        for logger, level in reversed(self._previous_levels):
            logger.setLevel(level)
        self._added_handlers.clear()
        self._previous_levels.clear()

    def __enter__(self) -> TelemetryInstallation:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.uninstall()


def init_telemetry(
    config: TelemetryConfig = DEFAULT_TELEMETRY_CONFIG,
    *,
    telemetry_handlers: Iterable[logging.Handler] = (),
    snapshot_handlers: Iterable[logging.Handler] = (),
) -> TelemetryInstallation:
    """Install per-module levels from ``config`` and attach handlers.

    ``telemetry_handlers`` receive events and ``snapshot_handlers`` receive
    snapshots from every module whose level lets them through.
    """
    unknown = set(config) - set(_TOP_LOGGERS)
    if unknown:
        raise ValueError(f"unknown telemetry config sections: {sorted(unknown)}")
    # Validate every level before touching logging state.
    levels = {
        section: {module: _level(level) for module, level in config.get(section, {}).items()}
        for section in _TOP_LOGGERS
    }

    installation = TelemetryInstallation()
    for section, top in _TOP_LOGGERS.items():
        for module, level in levels[section].items():
            installation.set_level(_logger_for(top, module), level)
    for handler in telemetry_handlers:
        installation.add_handler(logging.getLogger(TELEMETRY_LOGGER_NAME), handler)
    for handler in snapshot_handlers:
        installation.add_handler(logging.getLogger(SNAPSHOTS_LOGGER_NAME), handler)
    return installation

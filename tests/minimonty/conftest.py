"""Fixtures for the minimonty tests.

Every test here runs with ``restore_telemetry_logging``: levels, propagation
and handlers changed on the ``telemetry``/``snapshots`` logger trees and on
the root logger are put back afterwards.

pytest attaches its own capture handlers to the root logger and to every
non-propagating logger (our two top loggers) for each test phase, and
removes them itself; the fixture leaves those alone.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import minimonty.frameworks.telemetry  # noqa: F401 - prepares the top loggers
import pytest

_TOP_NAMES = ("telemetry", "snapshots")


def _is_telemetry_logger(name: str) -> bool:
    return any(name == top or name.startswith(top + ".") for top in _TOP_NAMES)


def _is_pytest_handler(handler: logging.Handler) -> bool:
    return type(handler).__module__.startswith("_pytest")


def _telemetry_loggers() -> dict[str, logging.Logger]:
    return {
        name: logger
        for name, logger in list(logging.Logger.manager.loggerDict.items())
        if isinstance(logger, logging.Logger) and _is_telemetry_logger(name)
    }


def _restore_handlers(logger: logging.Logger, saved: list[logging.Handler]) -> None:
    for handler in list(logger.handlers):
        if handler not in saved and not _is_pytest_handler(handler):
            logger.removeHandler(handler)
    for handler in saved:
        if handler not in logger.handlers and not _is_pytest_handler(handler):
            logger.addHandler(handler)


@pytest.fixture(autouse=True)
def restore_telemetry_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved = {
        name: (logger.level, logger.propagate, list(logger.handlers), logger.disabled)
        for name, logger in _telemetry_loggers().items()
    }
    saved_root = (root.level, list(root.handlers))
    yield
    for name, logger in _telemetry_loggers().items():
        # Loggers created during the test go back to logging's defaults.
        level, propagate, handlers, disabled = saved.get(name, (logging.NOTSET, True, [], False))
        logger.setLevel(level)
        logger.propagate = propagate
        logger.disabled = disabled
        _restore_handlers(logger, handlers)
    root.setLevel(saved_root[0])
    _restore_handlers(root, saved_root[1])

"""The reliability tests run many projects in one process: each test gets back the
``sys.path`` it started with (our graph builder puts each project on it, as
lint-imports does), so one project's package never shadows the next one's."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.fixture(autouse=True)
def restored_sys_path():
    saved = list(sys.path)
    yield
    sys.path[:] = saved
    importlib.invalidate_caches()

"""Downstream sinks for per-episode statistics.

``JsonLinesSink`` stands in for an experiment tracker such as wandb: it
records each statistics record as it arrives and aggregates nothing, so any
summary is computed later from the raw records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol


class StatsSink(Protocol):
    """Anything that accepts one statistics record at a time."""

    def write(self, record: Mapping[str, Any]) -> None: ...


class JsonLinesSink:
    """Writes one JSON object per line; flushes after each record."""

    def __init__(self, path: str | Path, *, append: bool = False) -> None:
        self.path = Path(path)
        self._file = self.path.open("a" if append else "w", encoding="utf-8")

    def write(self, record: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(dict(record), sort_keys=True) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> JsonLinesSink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

"""Telemetry schemas: the only things runtime code is allowed to report.

Why schemas instead of free-form log messages: a subscriber should be able
to consume a fact without parsing text, and a reviewer should be able to see
in one file everything the runtime can say. Each schema carries only what
the emitting component itself knows (its own id, its own step counter, its
own state). Context that lives outside the runtime is added, if at all, by
the subscriber that receives the event.

Every concrete schema declares two class attributes:

* ``KIND`` -- a stable string naming the schema (used in serialized output).
* ``LEVEL`` -- the ``logging`` level it is emitted at, so ordinary per-logger
  level configuration decides whether it is collected.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class TelemetrySchema:
    """Base of all telemetry. Abstract: only subclasses with a ``KIND`` exist."""

    KIND: ClassVar[str] = ""
    LEVEL: ClassVar[int] = logging.INFO

    def __post_init__(self) -> None:
        if not type(self).KIND:
            raise TypeError(f"{type(self).__name__} declares no KIND; it cannot be instantiated")

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON friendly), tagged with the schema's ``KIND``."""
        return {"kind": self.KIND, **asdict(self)}


@dataclass(frozen=True, kw_only=True)
class TelemetryEvent(TelemetrySchema):
    """Something that happened. Sent through ``TelemetryEmitter.emit``."""

    LEVEL: ClassVar[int] = logging.INFO


@dataclass(frozen=True, kw_only=True)
class TelemetrySnapshot(TelemetrySchema):
    """A (possibly costly) picture of internal state. Sent through
    ``TelemetryEmitter.snapshot`` and switched on separately from events."""

    LEVEL: ClassVar[int] = logging.DEBUG


@dataclass(frozen=True, kw_only=True)
class PossibleMatches(TelemetryEvent):
    """The objects a learning module still considers possible after a step."""

    KIND: ClassVar[str] = "possible_matches"

    lm_id: str
    step: int
    possible_object_ids: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class ObjectRecognized(TelemetryEvent):
    """A learning module narrowed its candidates down to exactly one object."""

    KIND: ClassVar[str] = "object_recognized"

    lm_id: str
    step: int
    object_id: str


@dataclass(frozen=True, kw_only=True)
class LearningModuleSnapshot(TelemetrySnapshot):
    """Internal state of a learning module after a step."""

    KIND: ClassVar[str] = "learning_module_snapshot"

    lm_id: str
    step: int
    num_possible_matches: int

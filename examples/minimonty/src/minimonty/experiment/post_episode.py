"""Per-episode statistics, computed on the experiment side of the boundary.

Why here and not in the learning module: whether an answer is correct
depends on the primary target, which only the experiment knows. The
learning module emits plain facts (possible matches, the object it
recognized); ``PostEpisodeStatsHandler`` listens to them during an episode
and, when the experiment calls ``post_episode(primary_target)``, joins them
with the target, writes one record per learning module to a sink and
resets for the next episode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from minimonty.experiment.sinks import StatsSink
from minimonty.frameworks.telemetry.schemas import (
    ObjectRecognized,
    PossibleMatches,
    TelemetrySchema,
)
from minimonty.frameworks.telemetry.subscribers import TelemetrySubscriber


class Outcome(StrEnum):
    CORRECT = "correct"  # recognized the primary target
    CONFUSED = "confused"  # recognized some other object
    NO_MATCH = "no_match"  # possible matches became empty, nothing recognized
    TIME_OUT = "time_out"  # ran out of steps without recognizing anything


@dataclass(frozen=True)
class EpisodeStats:
    """One learning module's result for one episode."""

    episode: int
    lm_id: str
    primary_target: str
    outcome: Outcome
    recognized_object_id: str | None
    num_steps: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode": self.episode,
            "lm_id": self.lm_id,
            "primary_target": self.primary_target,
            "outcome": self.outcome.value,
            "recognized_object_id": self.recognized_object_id,
            "num_steps": self.num_steps,
        }


@dataclass
class _LearningModuleRecord:
    """What one learning module reported during the current episode."""

    num_steps: int = 0
    recognized_object_id: str | None = None
    ran_out_of_matches: bool = False

    def outcome(self, primary_target: str) -> Outcome:
        if self.recognized_object_id is not None:
            if self.recognized_object_id == primary_target:
                return Outcome.CORRECT
            return Outcome.CONFUSED
        if self.ran_out_of_matches:
            return Outcome.NO_MATCH
        return Outcome.TIME_OUT


class PostEpisodeStatsHandler(TelemetrySubscriber):
    """Collects learning-module events; emits per-episode stats on demand.

    Attach it where it receives ``PossibleMatches`` and ``ObjectRecognized``
    (see ``init_telemetry``); other schemas are ignored. It consumes
    synchronously, so every event emitted before ``post_episode`` is counted.
    A learning module that emitted nothing during an episode gets no record.
    """

    def __init__(self, sink: StatsSink, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._sink = sink
        self._episode = 0
        self._records: dict[str, _LearningModuleRecord] = {}

    def consume(self, event: TelemetrySchema) -> None:
        match event:
            case PossibleMatches(lm_id=lm_id, step=step, possible_object_ids=possible):
                record = self._records.setdefault(lm_id, _LearningModuleRecord())
                record.num_steps = max(record.num_steps, step + 1)
                if not possible:
                    record.ran_out_of_matches = True
            case ObjectRecognized(lm_id=lm_id, step=step, object_id=object_id):
                record = self._records.setdefault(lm_id, _LearningModuleRecord())
                record.num_steps = max(record.num_steps, step + 1)
                if record.recognized_object_id is None:
                    record.recognized_object_id = object_id

    def post_episode(self, primary_target: str) -> list[EpisodeStats]:
        """Write this episode's stats to the sink, reset, and return them."""
        self.acquire()  # consume() runs under the same handler lock
        try:
            records, self._records = self._records, {}
            episode, self._episode = self._episode, self._episode + 1
        finally:
            self.release()
        stats = [
            EpisodeStats(
                episode=episode,
                lm_id=lm_id,
                primary_target=primary_target,
                outcome=record.outcome(primary_target),
                recognized_object_id=record.recognized_object_id,
                num_steps=record.num_steps,
            )
            for lm_id, record in sorted(records.items())
        ]
        for episode_stats in stats:
            self._sink.write(episode_stats.to_dict())
        return stats

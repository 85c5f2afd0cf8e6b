"""The experiment harness: everything that knows about episodes and targets.

This package may import ``minimonty.frameworks``; the runtime must never
import this package. Statistics that need the primary target are computed
here, from telemetry the runtime emits.
"""

from minimonty.experiment.experiment import DEFAULT_EPISODES, EpisodeSpec, Experiment
from minimonty.experiment.post_episode import EpisodeStats, Outcome, PostEpisodeStatsHandler
from minimonty.experiment.sinks import JsonLinesSink, StatsSink
from minimonty.experiment.telemetry import (
    DEFAULT_TELEMETRY_CONFIG,
    TelemetryInstallation,
    init_telemetry,
)
from minimonty.experiment.world import DEFAULT_LEARNED_OBJECTS, DEFAULT_WORLD, ToyWorld

__all__ = [
    "DEFAULT_EPISODES",
    "DEFAULT_LEARNED_OBJECTS",
    "DEFAULT_TELEMETRY_CONFIG",
    "DEFAULT_WORLD",
    "EpisodeSpec",
    "EpisodeStats",
    "Experiment",
    "JsonLinesSink",
    "Outcome",
    "PostEpisodeStatsHandler",
    "StatsSink",
    "TelemetryInstallation",
    "ToyWorld",
    "init_telemetry",
]

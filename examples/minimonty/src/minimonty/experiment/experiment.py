"""The experiment loop: drive a learning module against a known world.

Why the loop lives here: episodes, step budgets and the primary target are
concepts of the harness. The learning module sees one feature per step and
reports through telemetry; at the end of each episode the experiment hands
the primary target to the post-episode handler, which does the judging.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from minimonty.experiment.post_episode import EpisodeStats, PostEpisodeStatsHandler
from minimonty.experiment.world import ToyWorld
from minimonty.frameworks.models import EvidenceLM


@dataclass(frozen=True)
class EpisodeSpec:
    """Which object the sensor is on, and how many steps the module gets."""

    primary_target: str
    max_steps: int

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")


class Experiment:
    """Runs episodes and asks the post-episode handler for their statistics.

    The handler must receive the learning module's INFO events, e.g. via
    ``init_telemetry(DEFAULT_TELEMETRY_CONFIG, telemetry_handlers=[handler])``.
    """

    def __init__(
        self,
        world: ToyWorld,
        learning_module: EvidenceLM,
        post_episode_handler: PostEpisodeStatsHandler,
    ) -> None:
        self.world = world
        self.learning_module = learning_module
        self.post_episode_handler = post_episode_handler

    def run_episode(self, spec: EpisodeSpec) -> list[EpisodeStats]:
        self.learning_module.reset()
        for step in range(spec.max_steps):
            self.learning_module.step(self.world.observe(spec.primary_target, step))
            if self.learning_module.is_done:
                break
        return self.post_episode_handler.post_episode(spec.primary_target)

    def run(self, specs: Iterable[EpisodeSpec]) -> list[EpisodeStats]:
        stats: list[EpisodeStats] = []
        for spec in specs:
            stats.extend(self.run_episode(spec))
        return stats


# One episode per outcome (with the default world and learned objects).
DEFAULT_EPISODES: tuple[EpisodeSpec, ...] = (
    EpisodeSpec("mug", max_steps=5),  # correct
    EpisodeSpec("can", max_steps=5),  # correct
    EpisodeSpec("cup", max_steps=5),  # confused: cup is recognized as mug
    EpisodeSpec("spoon", max_steps=5),  # no_match: nothing learned is "long"
    EpisodeSpec("bowl", max_steps=2),  # time_out: still {bowl, mug} after 2 steps
)

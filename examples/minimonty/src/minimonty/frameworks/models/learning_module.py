"""A toy learning module that recognizes objects by elimination.

Why it looks like this: it shows the runtime side of the telemetry
contract. The module reports what it knows -- its own id, its own step
counter, which objects it still considers possible, and which object it
settled on. It does not know, and must not be told, what it is "supposed"
to be seeing; judging its answers is someone else's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from minimonty.frameworks.telemetry import getTelemetry
from minimonty.frameworks.telemetry.schemas import (
    LearningModuleSnapshot,
    ObjectRecognized,
    PossibleMatches,
)

telemetry = getTelemetry(__name__)


class EvidenceLM:
    """Narrows its known objects down using one sensed feature per step.

    ``known_objects`` maps object ids to the features the module has learned
    for them. Each ``step(feature)`` keeps only the objects that have that
    feature and emits a ``PossibleMatches`` event. The first time exactly one
    object remains it emits ``ObjectRecognized``. If no object remains, the
    module has no match; the ``PossibleMatches`` event with an empty tuple
    says so.
    """

    def __init__(self, lm_id: str, known_objects: Mapping[str, Iterable[str]]) -> None:
        self.lm_id = lm_id
        self._memory: dict[str, frozenset[str]] = {
            object_id: frozenset(features) for object_id, features in known_objects.items()
        }
        self.reset()

    def reset(self) -> None:
        """Forget the current sequence of observations; keep learned objects."""
        self._possible: set[str] = set(self._memory)
        self._steps_taken = 0
        self._recognized: str | None = None

    @property
    def possible_object_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._possible))

    @property
    def recognized_object_id(self) -> str | None:
        return self._recognized

    @property
    def is_done(self) -> bool:
        """True once an object is recognized or nothing matches any more."""
        return self._recognized is not None or not self._possible

    def step(self, feature: str) -> tuple[str, ...]:
        """Process one sensed feature; return the objects still possible."""
        step = self._steps_taken
        self._steps_taken += 1
        self._possible = {object_id for object_id in self._possible if feature in self._memory[object_id]}
        possible = self.possible_object_ids

        telemetry.emit(PossibleMatches(lm_id=self.lm_id, step=step, possible_object_ids=possible))
        if len(possible) == 1 and self._recognized is None:
            self._recognized = possible[0]
            telemetry.emit(ObjectRecognized(lm_id=self.lm_id, step=step, object_id=possible[0]))
        # Snapshots may be costly to build; only build them when collected.
        if telemetry.wants_snapshot(LearningModuleSnapshot):
            telemetry.snapshot(LearningModuleSnapshot(lm_id=self.lm_id, step=step, num_possible_matches=len(possible)))
        return possible

"""A tiny deterministic world: objects with feature sets.

The experiment owns the world, so it alone knows which object is really in
front of the sensor (the primary target). The learning module only ever
receives one feature per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class ToyWorld:
    """Objects and their features; observations cycle through sorted features.

    Sorted order makes every run reproducible without seeding anything.
    """

    objects: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frozen = {object_id: frozenset(features) for object_id, features in self.objects.items()}
        if any(not features for features in frozen.values()):
            raise ValueError("every object needs at least one feature")
        object.__setattr__(self, "objects", MappingProxyType(frozen))

    def observe(self, object_id: str, step: int) -> str:
        """The feature sensed on ``object_id`` at ``step``."""
        features = sorted(self.objects[object_id])
        return features[step % len(features)]

    def subset(self, object_ids: tuple[str, ...]) -> dict[str, frozenset[str]]:
        """Feature sets of some objects, e.g. to give a learning module as memory."""
        return {object_id: self.objects[object_id] for object_id in object_ids}


DEFAULT_WORLD = ToyWorld(
    {
        "mug": frozenset({"ceramic", "cylinder", "handle"}),
        "bowl": frozenset({"ceramic", "cylinder", "wide"}),
        "can": frozenset({"cylinder", "metal"}),
        # Not learned by the default learning module: a cup looks like a mug
        # (confusion), a spoon has a feature nothing learned has (no match).
        "cup": frozenset({"ceramic", "handle"}),
        "spoon": frozenset({"long", "metal"}),
    }
)

DEFAULT_LEARNED_OBJECTS: tuple[str, ...] = ("mug", "bowl", "can")

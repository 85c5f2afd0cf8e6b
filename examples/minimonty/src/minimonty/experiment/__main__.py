"""``python -m minimonty.experiment``: run the default episodes.

Writes one JSON line of statistics per episode to ``--output`` (default
``episode_stats.jsonl`` in the current directory) and prints a summary.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence

from minimonty.experiment.experiment import DEFAULT_EPISODES, Experiment
from minimonty.experiment.post_episode import Outcome, PostEpisodeStatsHandler
from minimonty.experiment.sinks import JsonLinesSink
from minimonty.experiment.telemetry import DEFAULT_TELEMETRY_CONFIG, init_telemetry
from minimonty.experiment.world import DEFAULT_LEARNED_OBJECTS, DEFAULT_WORLD
from minimonty.frameworks.models import EvidenceLM


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minimonty.experiment", description=__doc__)
    parser.add_argument("--output", default="episode_stats.jsonl", help="JSON-lines stats file")
    args = parser.parse_args(argv)

    learning_module = EvidenceLM("lm_0", DEFAULT_WORLD.subset(DEFAULT_LEARNED_OBJECTS))
    with JsonLinesSink(args.output) as sink:
        handler = PostEpisodeStatsHandler(sink)
        with init_telemetry(DEFAULT_TELEMETRY_CONFIG, telemetry_handlers=[handler]):
            stats = Experiment(DEFAULT_WORLD, learning_module, handler).run(DEFAULT_EPISODES)

    counts = Counter(episode_stats.outcome for episode_stats in stats)
    summary = ", ".join(f"{counts[outcome]} {outcome.value}" for outcome in Outcome)
    print(f"{len(stats)} episodes: {summary} -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

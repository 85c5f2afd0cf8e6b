"""Post-episode statistics: one raw record per episode, each outcome covered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from minimonty.experiment import (
    DEFAULT_EPISODES,
    DEFAULT_LEARNED_OBJECTS,
    DEFAULT_TELEMETRY_CONFIG,
    DEFAULT_WORLD,
    EpisodeSpec,
    Experiment,
    JsonLinesSink,
    Outcome,
    PostEpisodeStatsHandler,
    init_telemetry,
)
from minimonty.frameworks.models import EvidenceLM
from minimonty.frameworks.telemetry.schemas import ObjectRecognized, PossibleMatches


class ListSink:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: Any) -> None:
        self.records.append(dict(record))


def run(specs, sink) -> list:
    handler = PostEpisodeStatsHandler(sink)
    lm = EvidenceLM("lm_0", DEFAULT_WORLD.subset(DEFAULT_LEARNED_OBJECTS))
    with init_telemetry(DEFAULT_TELEMETRY_CONFIG, telemetry_handlers=[handler]):
        return Experiment(DEFAULT_WORLD, lm, handler).run(specs)


@pytest.mark.parametrize(
    ("spec", "outcome", "recognized", "num_steps"),
    [
        (EpisodeSpec("mug", max_steps=5), Outcome.CORRECT, "mug", 3),
        (EpisodeSpec("bowl", max_steps=5), Outcome.CORRECT, "bowl", 3),
        (EpisodeSpec("cup", max_steps=5), Outcome.CONFUSED, "mug", 2),
        (EpisodeSpec("spoon", max_steps=5), Outcome.NO_MATCH, None, 1),
        (EpisodeSpec("bowl", max_steps=2), Outcome.TIME_OUT, None, 2),
    ],
)
def test_each_outcome(spec: EpisodeSpec, outcome: Outcome, recognized, num_steps: int) -> None:
    sink = ListSink()
    (stats,) = run([spec], sink)
    assert stats.outcome is outcome
    assert sink.records == [
        {
            "episode": 0,
            "lm_id": "lm_0",
            "primary_target": spec.primary_target,
            "outcome": outcome.value,
            "recognized_object_id": recognized,
            "num_steps": num_steps,
        }
    ]


def test_default_episodes_to_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "stats.jsonl"
    with JsonLinesSink(path) as sink:
        run(DEFAULT_EPISODES, sink)

    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["episode"] for r in records] == [0, 1, 2, 3, 4]
    assert [r["outcome"] for r in records] == [
        "correct",
        "correct",
        "confused",
        "no_match",
        "time_out",
    ]
    assert [r["primary_target"] for r in records] == ["mug", "can", "cup", "spoon", "bowl"]


def test_state_resets_between_episodes() -> None:
    sink = ListSink()
    handler = PostEpisodeStatsHandler(sink)
    handler.consume(PossibleMatches(lm_id="lm_0", step=0, possible_object_ids=()))
    handler.consume(ObjectRecognized(lm_id="lm_1", step=4, object_id="mug"))
    first = handler.post_episode("mug")
    assert [(s.lm_id, s.outcome) for s in first] == [
        ("lm_0", Outcome.NO_MATCH),
        ("lm_1", Outcome.CORRECT),
    ]
    # Nothing emitted in the next episode: no stale state, no records.
    assert handler.post_episode("mug") == []
    handler.consume(PossibleMatches(lm_id="lm_0", step=0, possible_object_ids=("mug", "bowl")))
    (third,) = handler.post_episode("mug")
    assert (third.episode, third.outcome, third.num_steps) == (2, Outcome.TIME_OUT, 1)
    assert [r["episode"] for r in sink.records] == [0, 0, 2]


def test_first_recognition_wins() -> None:
    handler = PostEpisodeStatsHandler(ListSink())
    handler.consume(ObjectRecognized(lm_id="lm_0", step=1, object_id="bowl"))
    handler.consume(ObjectRecognized(lm_id="lm_0", step=2, object_id="mug"))
    (stats,) = handler.post_episode("mug")
    assert (stats.outcome, stats.recognized_object_id) == (Outcome.CONFUSED, "bowl")


def test_json_lines_sink_appends_raw_records(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonLinesSink(path) as sink:
        sink.write({"b": 1, "a": None})
    with JsonLinesSink(path, append=True) as sink:
        sink.write({"b": 2})
    assert path.read_text(encoding="utf-8") == '{"a": null, "b": 1}\n{"b": 2}\n'

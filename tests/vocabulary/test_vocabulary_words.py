"""Identifiers into words, plural folding, and matching configured entries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.families.config import WordRule, parse_vocabulary
from domain_fence.core.families.vocabulary.declarations import declared_names
from domain_fence.core.families.vocabulary.words import Vocabulary, fold, split_words, words_of
from domain_fence.core.source.facts import extract


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("num_episodes", ("num", "episodes")),
        ("PostEpisodeTelemetry", ("post", "episode", "telemetry")),
        ("primaryTargetId", ("primary", "target", "id")),
        ("LMState", ("lm", "state")),
        ("HTTPServer2D", ("http", "server", "2", "d")),
        ("episode2", ("episode", "2")),
        ("__private_epoch__", ("private", "epoch")),
        ("post-episode.v2", ("post", "episode", "v", "2")),
        ("", ()),
    ],
)
def test_split_words(identifier, words):
    assert split_words(identifier) == words


@pytest.mark.parametrize(
    ("word", "singular"),
    [
        ("episodes", "episode"),
        ("targets", "target"),
        ("epochs", "epoch"),
        ("models", "model"),
        ("modes", "mode"),
        ("entries", "entry"),
        ("matches", "match"),
        ("classes", "class"),
        ("processes", "process"),
        ("statuses", "status"),
        ("analyses", "analysis"),
        # singular words that end in s stay as they are
        ("status", "status"),
        ("class", "class"),
        ("process", "process"),
        ("analysis", "analysis"),
        ("bus", "bus"),
        ("ids", "ids"),
    ],
)
def test_fold(word, singular):
    assert fold(word) == singular


PRESET = Vocabulary.compile(
    parse_vocabulary(
        "c",
        "n",
        {
            "modules": ["pkg"],
            "event_bases": ["pkg.Event"],
            "words": [
                "episodes",  # entries are folded like identifiers
                "epoch",
                "experiment",
                "primary target",
                "ground truth",
                "post episode",
                "terminal state -> recognized state",
                "mode",
                "target",
                "train",
                "eval",
                "label",
            ],
            "allow": ["episode_agnostic"],
        },
        root=Path("."),
    ).words,
    ["episode_agnostic"],
)


@pytest.mark.parametrize(
    ("identifier", "word"),
    [
        ("episode", "episodes"),
        ("num_episodes", "episodes"),
        ("EPISODE_COUNT", "episodes"),
        ("numEpochs", "epoch"),
        ("PostEpisodeStats", "post episode"),  # the longer entry wins where both start
        ("primaryTargetId", "primary target"),
        ("primary_targets", "primary target"),
        ("target_id", "target"),
        ("train_mode", "train"),  # the leftmost entry is named
        ("eval_modes", "eval"),
        ("labels", "label"),
        ("groundTruth", "ground truth"),
        ("terminal_state", "terminal state"),
    ],
)
def test_matches(identifier, word):
    match = PRESET.match(identifier)
    assert match is not None and match.word == word


@pytest.mark.parametrize(
    "identifier",
    [
        "model",
        "models",
        "models_in_memory",
        "model_id",
        "constraint",
        "modern",
        "trainer",
        "training",
        "retrain",
        "evaluate",
        "labeller",
        "targeted",
        "primary",  # half of a phrase
        "state_terminal",  # a phrase in the wrong order
        "terminal_error_state",  # a phrase with a word between
        "episode_agnostic",  # exempted by `allow`
        "status",
        "class_",
        "process",
        "analysis",
    ],
)
def test_look_alikes_do_not_match(identifier):
    assert PRESET.match(identifier) is None


def test_replacement_hint():
    assert PRESET.match("TerminalState").hint == "; consider 'recognized state'"
    assert PRESET.match("episode").hint == ""


def test_words_of_folds_each_word():
    assert words_of("primaryTargets_numEpisodes") == ("primary", "target", "num", "episode")


def test_entries_are_split_like_identifiers():
    vocabulary = Vocabulary.compile([WordRule(("post", "episode"))])
    assert vocabulary.match("post_episodes") and vocabulary.match("PostEpisode")
    assert vocabulary.match("episode_post") is None


_NAMES = st.sampled_from(["episode", "episodes", "mode", "model", "target_id", "primary_target", "value", "Stats"])


@settings(deadline=None)
@given(
    classes=st.lists(
        st.tuples(_NAMES, st.lists(_NAMES, max_size=3), st.lists(_NAMES, max_size=3)), min_size=1, max_size=3
    ),
    allow=st.lists(st.sampled_from(["episode", "Stats.mode", "pkg.mod.value", "target_id"]), max_size=2),
)
def test_the_census_prefilter_drops_no_declaration_the_vocabulary_would_report(classes, allow):
    """The census asks the vocabulary before it builds each declaration: what it then
    reports is what it reported when it built them all."""
    lines = []
    for index, (name, attributes, parameters) in enumerate(classes):
        lines.append(f"class {name}{index}:")
        lines += [f"    {attribute} = 1" for attribute in attributes] or ["    pass"]
        lines.append(f"    def method({', '.join(['self', *dict.fromkeys(parameters)])}):")
        lines += [f"        self.{attribute} = 2" for attribute in attributes] or ["        pass"]
    lines += [f"def {name}(): pass" for name, _, _ in classes]
    declarations = extract("pkg.mod", False, ast.parse("\n".join(lines)))[1]
    vocabulary = Vocabulary.compile([rule for _, rule in PRESET.rules], allow)
    scope = ("attributes", "parameters", "definitions")

    def reported(items):
        return [item for item in items if vocabulary.match(item.where.text, _context(item.symbol, item.where.text))]

    every = list(declared_names("pkg.mod", declarations, scope))
    filtered = list(declared_names("pkg.mod", declarations, scope, may_match=vocabulary.may_match))
    assert reported(filtered) == reported(every)
    assert len(filtered) <= len(every)


def _context(symbol: str, name: str) -> str:
    """As the check gives it: what encloses the name."""
    return symbol[: -len(name) - 1] if symbol.endswith("." + name) else ""

"""Typed contract configuration: every error at once, keyed by option."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain_fence.core.families.config import ConfigError, WordRule, parse_boundary, parse_placement, parse_vocabulary

ROOT = Path("/project")


def test_vocabulary_words_and_replacements():
    config = parse_vocabulary(
        "c",
        "n",
        {
            "modules": ["pkg.runtime.**"],
            "event_bases": "pkg.telemetry.Schema",
            "words": ["episode", "primary target", "terminal state -> recognized state"],
        },
        ROOT,
    )
    assert config.words == (
        WordRule(("episode",)),
        WordRule(("primary", "target")),
        WordRule(("terminal", "state"), "recognized state"),
    )
    assert config.kind_attributes == ("KIND", "kind")
    assert config.baseline.path == ROOT / ".domain-fence-baseline.json"
    assert config.baseline.stale == "error"


@pytest.mark.parametrize(
    "written, words",
    [
        ("primaryTarget", ("primary", "target")),
        ("PostEpisode", ("post", "episode")),
        ("episode2", ("episode", "2")),
        ("LMState", ("lm", "state")),
        ("post_episode", ("post", "episode")),
    ],
)
def test_a_word_entry_is_split_as_identifiers_are(written, words):
    # Left whole, "primaryTarget" could never match: identifiers are matched word by word.
    config = parse_vocabulary("c", "n", {"modules": ["pkg"], "event_bases": "pkg.E", "words": [written]}, ROOT)
    assert config.words == (WordRule(words),)


def test_every_vocabulary_error_is_reported_together():
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary(
            "c",
            "n",
            {
                "modules": ["pkg..runtime"],
                "event_bases": ["Schema"],
                "words": ["episode ->", "-> x", "a -> b -> c"],
                "unmatched_baseline_alerting": "loud",
            },
            ROOT,
        )
    errors = raised.value.errors
    assert set(errors) == {"modules", "event_bases", "words", "unmatched_baseline_alerting"}
    assert "'episode ->': expected 'words -> replacement'" in errors["words"]
    assert "'a -> b -> c'" in errors["words"]
    assert "dotted class path" in errors["event_bases"]


def test_required_options():
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary("c", "n", {}, ROOT)
    assert raised.value.errors == {
        "event_bases": "This is a required field.",
        "modules": "This is a required field.",
        "words": "This is a required field.",
    }


def test_placement_kinds_and_flags():
    config = parse_placement(
        "c",
        "n",
        {
            "symbols": ["init_telemetry", "*PostEpisode*"],
            "allowed_modules": "pkg.experiment",
            "kinds": "function",
            "require_match": "true",
        },
        ROOT,
    )
    assert config.kinds == {"function"}
    assert config.require_match is True
    assert config.allowed_modules[0].matches("pkg.experiment.handlers")


def test_placement_errors():
    with pytest.raises(ConfigError) as raised:
        parse_placement(
            "c",
            "n",
            {"symbols": ["init telemetry"], "allowed_modules": "x", "kinds": "module", "require_match": "yes"},
            ROOT,
        )
    assert set(raised.value.errors) == {"symbols", "kinds", "require_match"}


def test_boundary_as_packages_decides_whether_descendants_match():
    packaged = parse_boundary("c", "n", {"source_modules": "a.runtime", "forbidden_modules": "a.experiment"}, ROOT)
    assert packaged.source_modules[0].matches("a.runtime.model")
    flat = parse_boundary(
        "c", "n", {"source_modules": "a.runtime", "forbidden_modules": "a.experiment", "as_packages": "False"}, ROOT
    )
    assert not flat.source_modules[0].matches("a.runtime.model")


def test_boundary_ignore_imports_must_have_an_arrow():
    with pytest.raises(ConfigError) as raised:
        parse_boundary("c", "n", {"source_modules": "a", "forbidden_modules": "b", "ignore_imports": ["a.x b.y"]}, ROOT)
    assert "'a.x b.y' is not of the form 'importer -> imported'" in raised.value.errors["ignore_imports"]


def test_placement_kinds_include_methods_and_symbols_may_be_qualified():
    config = parse_placement(
        "c", "n", {"symbols": ["MontyExperiment.init_telemetry", "*.post_episode"], "allowed_modules": "x"}, ROOT
    )
    assert config.kinds == frozenset({"function", "class", "method"})
    assert config.symbols == ("MontyExperiment.init_telemetry", "*.post_episode")
    with pytest.raises(ConfigError) as raised:
        parse_placement("c", "n", {"symbols": ["Monty..init", ".x", "x."], "allowed_modules": "x"}, ROOT)
    assert set(raised.value.errors) == {"symbols"}
    assert raised.value.errors["symbols"].count("is not a name pattern") == 3


def test_boundary_runtime_as_a_complement():
    config = parse_boundary(
        "c",
        "n",
        {"source_modules": "a", "forbidden_modules": "a.experiment", "exclude_modules": "a.conf"},
        ROOT,
    )
    assert config.in_source("a.runtime.new_package.module")
    assert not config.in_source("a.experiment.runner")
    assert not config.in_source("a.conf.settings")
    assert not config.in_source("b.runtime")


def test_an_exclude_outside_the_source_is_an_error():
    with pytest.raises(ConfigError) as raised:
        parse_boundary(
            "c",
            "n",
            {"source_modules": ["a.runtime"], "forbidden_modules": "a.experiment", "exclude_modules": "a.conf"},
            ROOT,
        )
    assert raised.value.errors == {"exclude_modules": "'a.conf' not inside source_modules (a.runtime)."}
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary(
            "c",
            "n",
            {"modules": ["a.**"], "exclude_modules": ["b.x", "a.x.**"], "words": "episode", "scope": "attributes"},
            ROOT,
        )
    assert raised.value.errors == {"exclude_modules": "'b.x' not inside modules (a.**)."}
    below_a_wildcard = {"modules": ["*.runtime"], "exclude_modules": ["app.runtime.plots", "app.runtime.*.dev"]}
    parse_vocabulary("c", "n", {**below_a_wildcard, "words": "episode", "scope": "attributes"}, ROOT)


def test_unclassified_alerting_is_validated():
    with pytest.raises(ConfigError) as raised:
        parse_boundary(
            "c", "n", {"source_modules": "a", "forbidden_modules": "b", "unclassified_modules_alerting": "loud"}, ROOT
        )
    assert set(raised.value.errors) == {"unclassified_modules_alerting"}


def test_event_bases_take_patterns_beside_dotted_classes():
    config = parse_vocabulary(
        "c",
        "n",
        {"modules": "a", "event_bases": ["a.base.Schema", "a.**.telemetry:*Event"], "words": "episode"},
        ROOT,
    )
    assert config.event_bases == ("a.base.Schema",)
    (pattern,) = config.event_base_patterns
    assert pattern.matches("a.x.telemetry", "StepEvent")
    assert pattern.matches("a.x.telemetry.schemas", "StepEvent")  # below the module too
    assert not pattern.matches("a.telemetry.schemas", "StepEvent")  # ** is one segment or more
    assert not pattern.matches("a.x.telemetry", "StepSchema")
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary(
            "c", "n", {"modules": "a", "event_bases": ["Schema", "a..b:*Event", "a.b:"], "words": "episode"}, ROOT
        )
    problems = raised.value.errors["event_bases"]
    assert "'Schema' is not a dotted class path" in problems
    assert "'a..b:*Event' is not of the form" in problems
    assert "'a.b:' is not of the form" in problems


def test_unmatched_symbols_alerting_and_require_match():
    def level(**options):
        return parse_placement("c", "n", {"symbols": "x", "allowed_modules": "a", **options}, ROOT).unmatched

    assert level() == "warn"
    assert level(unmatched_symbols_alerting="none") == "none"
    assert level(require_match="true") == "error"
    assert level(require_match="true", unmatched_symbols_alerting="error") == "error"
    with pytest.raises(ConfigError) as raised:
        level(require_match="true", unmatched_symbols_alerting="none")
    assert raised.value.errors == {"unmatched_symbols_alerting": "'none' contradicts require_match = true."}


def test_a_baseline_name_holding_a_nul_byte_is_refused_naming_the_option(tmp_path):
    with pytest.raises(ConfigError) as raised:
        parse_placement("p", "p", {"symbols": "x", "allowed_modules": "a", "baseline": "bl\x00.json"}, tmp_path)
    assert raised.value.errors == {"baseline": "'bl\\\\x00.json' is not a file name (it holds a NUL byte)."}


@pytest.mark.parametrize(
    ("classes", "qualname", "literal"),
    [
        ("*Event", "StepEvent", "Event"),
        ("Outer.*Event", "Outer.StepEvent", "Outer"),
        ("*.Step*", "Outer.StepEvent", "Step"),
        ("Foo[]_]Bars", "Foo_Bars", "Bars"),
        ("[!]a]Schema", "XSchema", "Schema"),
        ("*", "Anything", ""),
    ],
)
def test_an_event_base_patterns_literal_part_is_in_the_file_defining_what_it_matches(classes, qualname, literal):
    """The prefilter reads a module a pattern covers only when it contains this: so it
    must lie within one part of every qualname the pattern matches."""
    config = parse_vocabulary(
        "v", "v", {"modules": "app", "event_bases": [f"app.events:{classes}"], "words": ["episode"]}, Path(".")
    )
    (pattern,) = config.event_base_patterns
    assert pattern.matches("app.events", qualname)
    assert pattern.literal_part() == literal
    assert any(literal in part for part in qualname.split("."))

"""The vocabulary contract's wider `scope` (DOM111-DOM113) on annotated fixture files,
in-process through the core."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import expectations, unmet
from support import EXPERIMENT_WORDS, FIXTURES

from domain_fence.core.families.config import ConfigError, parse_vocabulary
from domain_fence.core.families.vocabulary.events import all_vocabulary_findings, vocabulary_findings
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.facts import extract

SCOPED = FIXTURES / "vocabulary" / "scope"
RUNTIME = SCOPED / "census" / "runtime"
EVERY_SCOPE = ["events", "attributes", "parameters", "definitions"]
OPTIONS = {
    "modules": ["census.runtime"],
    "event_bases": ["census.telemetry.Event"],
    "scope": EVERY_SCOPE,
    "words": EXPERIMENT_WORDS,
    "allow": ["PositioningProcedure.target"],
}


def index_of(root: Path) -> ProjectIndex:
    return ProjectIndex.build(root, ["census"], search_paths=[str(root)], cache_dir=None)


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return index_of(SCOPED)


def config(**overrides):
    return parse_vocabulary("census", "census", {**OPTIONS, **overrides}, SCOPED)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(SCOPED).with_suffix("").parts)


def fingerprints(findings) -> set[str]:
    return {f.fingerprint for f in findings}


@pytest.mark.parametrize("path", sorted(RUNTIME.glob("*.py")), ids=lambda p: p.name)
def test_findings_match_the_annotations(path: Path, index: ProjectIndex):
    findings = vocabulary_findings(config(), index, module_of(path))
    missing, unexpected = unmet(expectations(path), [(f.line, f.code, f.col) for f in findings])
    assert not missing, f"expected but not reported: {missing}"
    assert not unexpected, "reported but not expected:\n" + "\n".join(
        f.describe() for f in findings if (f.line, f.code, f.col) in unexpected
    )


def test_the_fixture_files_expect_each_code():
    codes = {e.code for path in RUNTIME.glob("*.py") for e in expectations(path)}
    assert {"DOM111", "DOM112", "DOM113"} <= codes
    assert not expectations(RUNTIME / "traps.py")


def test_the_default_scope_is_events_only(index):
    config_ = parse_vocabulary("census", "census", {k: v for k, v in OPTIONS.items() if k != "scope"}, SCOPED)
    assert config_.scope == ("events",)
    assert {f.code for f in all_vocabulary_findings(config_, index)} == {"DOM101", "DOM102", "DOM103", "DOM104"}


@pytest.mark.parametrize(
    ("scope", "codes"),
    [
        (["attributes"], {"DOM111"}),
        (["parameters"], {"DOM112"}),
        (["definitions"], {"DOM113"}),
        (["attributes", "parameters"], {"DOM111", "DOM112"}),
    ],
)
def test_each_scope_reports_its_own_code(index, scope, codes):
    assert {f.code for f in all_vocabulary_findings(config(scope=scope), index)} == codes


def test_without_events_an_event_class_is_any_class(index):
    """Only with `events` in the scope are an event's name and fields DOM102/DOM101."""
    findings = vocabulary_findings(config(scope=["attributes", "definitions"]), index, "census.runtime.events_overlap")
    assert {
        "DOM111:census.runtime.events_overlap:EpisodeFinished.episode",
        "DOM113:census.runtime.events_overlap:EpisodeFinished",
    } <= fingerprints(findings)


def test_event_bases_are_needed_only_with_the_events_scope(index):
    options = {k: v for k, v in OPTIONS.items() if k != "event_bases"}
    config_ = parse_vocabulary("census", "census", {**options, "scope": "attributes, parameters"}, SCOPED)
    assert config_.scope == ("attributes", "parameters")
    assert all_vocabulary_findings(config_, index)
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary("census", "census", {**options, "scope": ["events", "attributes"]}, SCOPED)
    assert raised.value.errors == {"event_bases": "This is a required field."}


def test_unknown_scopes_are_reported_with_the_other_errors():
    with pytest.raises(ConfigError) as raised:
        parse_vocabulary(
            "c", "n", {"modules": ["census.runtime"], "scope": ["attributes", "atributes", "locals"]}, SCOPED
        )
    assert raised.value.errors == {
        "scope": "Expected some of events, attributes, parameters, definitions, not 'atributes', 'locals'.",
        "words": "This is a required field.",
    }


def test_messages_name_the_declaration_the_word_and_the_replacement(index):
    findings = {f.fingerprint: f for f in all_vocabulary_findings(config(), index)}
    assert findings["DOM111:census.runtime.dom111_attributes:EvidenceLM.primary_target"].message == (
        "attribute EvidenceLM.primary_target: experiment vocabulary 'primary target'"
    )
    assert findings["DOM111:census.runtime.dom111_attributes:EvidenceLM.terminal_state"].message == (
        "attribute EvidenceLM.terminal_state: experiment vocabulary 'terminal state'; consider 'recognized state'"
    )
    assert findings["DOM112:census.runtime.dom112_parameters:EvidenceLM.__init__(min_train_steps)"].message == (
        "parameter 'min_train_steps' of EvidenceLM.__init__: experiment vocabulary 'train'"
    )
    assert findings["DOM113:census.runtime.dom113_definitions:ExperimentState.post_episode"].message == (
        "method ExperimentState.post_episode: experiment vocabulary 'post episode'"
    )
    assert findings["DOM113:census.runtime.dom113_definitions:pre_episode"].message == (
        "function pre_episode: experiment vocabulary 'episode'"
    )
    assert findings["DOM113:census.runtime.dom113_definitions:Constraint.EvalConfig"].message == (
        "class Constraint.EvalConfig: experiment vocabulary 'eval'"
    )
    # Declared without ``=``: a slot, and a lambda's parameter, the same shapes.
    assert findings["DOM111:census.runtime.dom111_attributes:Slotted.episode_count"].message == (
        "attribute Slotted.episode_count: experiment vocabulary 'episode'"
    )
    assert findings["DOM112:census.runtime.dom112_parameters:Schedule.on_step(eval_every)"].message == (
        "parameter 'eval_every' of Schedule.on_step: experiment vocabulary 'eval'"
    )
    # A definition by assignment: its fingerprint apart from a def of its name, as DOM201's.
    assert findings["DOM113:census.runtime.dom113_definitions:pre_episode_hook="].message == (
        "binding pre_episode_hook: experiment vocabulary 'episode'"
    )
    assert findings["DOM113:census.runtime.dom113_definitions:Hooks.on_post_episode="].message == (
        "binding Hooks.on_post_episode: experiment vocabulary 'post episode'"
    )
    assert all(len(f.message) <= 105 for f in findings.values())


def test_an_attribute_assigned_in_several_methods_is_reported_once_at_the_first(index):
    findings = vocabulary_findings(config(), index, "census.runtime.dom111_attributes")
    primary = [f for f in findings if f.symbol.endswith(".primary_target")]
    assert [(f.line, f.col, f.fingerprint) for f in primary] == [
        (16, 8, "DOM111:census.runtime.dom111_attributes:EvidenceLM.primary_target")
    ]


def test_fingerprints_survive_moving_and_reordering_code(tmp_path, index):
    shutil.copytree(SCOPED / "census", tmp_path / "census")
    model = tmp_path / "census" / "runtime" / "dom111_attributes.py"
    text = model.read_text()
    # reset() now comes first, so its assignment of primary_target is the first one.
    init_start, reset_start, bind_start = (text.index(f"    def {name}(") for name in ("__init__", "reset", "bind"))
    reordered = text[:init_start] + text[reset_start:bind_start] + text[init_start:reset_start] + text[bind_start:]
    model.write_text("\n\n# moved down\n" + reordered)
    before = all_vocabulary_findings(config(), index)
    after = all_vocabulary_findings(config(), index_of(tmp_path))
    assert sorted(fingerprints(after)) == sorted(fingerprints(before))
    first_assignment = 1 + model.read_text().splitlines().index(
        '        self.primary_target = "mug"  # assigned again: reported once, at the first assignment'
    )
    moved = {f.fingerprint: f.line for f in after}
    assert moved["DOM111:census.runtime.dom111_attributes:EvidenceLM.primary_target"] == first_assignment


def test_allow_with_dots_exempts_a_name_only_within_what_it_names(index):
    exempt = fingerprints(vocabulary_findings(config(), index, "census.runtime.positioning"))
    assert exempt == {
        "DOM111:census.runtime.positioning:GoalState.target",
        "DOM112:census.runtime.positioning:GoalState.__init__(target)",
    }
    module_wide = fingerprints(
        vocabulary_findings(config(allow=["positioning.target"]), index, "census.runtime.positioning")
    )
    assert module_wide == set()
    nothing_allowed = fingerprints(vocabulary_findings(config(allow=[]), index, "census.runtime.positioning"))
    assert "DOM112:census.runtime.positioning:PositioningProcedure.move_to(target)" in nothing_allowed
    assert "DOM111:census.runtime.positioning:PositioningProcedure.target" in nothing_allowed
    # A plain entry exempts the identifier everywhere, as for events.
    assert fingerprints(vocabulary_findings(config(allow=["target"]), index, "census.runtime.positioning")) == set()


def test_modules_outside_the_contract_are_never_checked(index):
    assert {f.path.rsplit("/", 1)[0] for f in all_vocabulary_findings(config(), index)} == {"census/runtime"}


def test_an_unparsable_file_is_reported_once_whatever_the_scope(tmp_path):
    shutil.copytree(SCOPED / "census", tmp_path / "census")
    (tmp_path / "census" / "runtime" / "broken.py").write_text("class Stats:\n    def train(self:\n")
    for scope in (["attributes"], EVERY_SCOPE):
        broken = [f for f in all_vocabulary_findings(config(scope=scope), index_of(tmp_path)) if f.code == "DOM001"]
        assert [(f.path, f.fingerprint) for f in broken] == [
            ("census/runtime/broken.py", "DOM001:census.runtime.broken")
        ]


def test_declaration_facts_are_a_pure_function_of_the_tree():
    import ast

    source = (RUNTIME / "dom111_attributes.py").read_text()
    first = extract("m", False, ast.parse(source))[1]
    assert first == extract("m", False, ast.parse(source))[1]
    assert [m.name.text for m in first.members if m.owner == "EvidenceLM"][:4] == [
        "num_epochs",
        "model_id",
        "label_count",
        "models_in_memory",
    ]
    assert extract("m", False, None)[1].definitions == ()


def test_every_vocabulary_finding_names_its_word_and_module_the_same_way(index):
    """The census (by word, by module) reads these two parts of every vocabulary finding."""
    from domain_fence.core.model.rules import rules_of_family

    assert all("experiment vocabulary '{word}'{hint}" in rule.message for rule in rules_of_family("vocabulary"))
    for finding in all_vocabulary_findings(config(), index):
        assert finding.fingerprint.split(":")[1] in index.modules
        assert "experiment vocabulary '" in finding.message


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
def test_declaration_facts_never_crash_on_valid_code():
    import ast

    import hypothesmith
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def check(source: str) -> None:
        facts = extract("m", False, ast.parse(source))[1]
        assert len({(m.owner, m.name.text) for m in facts.members}) == len(facts.members)

    check()

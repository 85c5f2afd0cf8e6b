"""DOM101-DOM104 on annotated fixture files, in-process through the core."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_expectations import expectations, unmet
from support import EXPERIMENT_WORDS, FIXTURES

from domain_fence.core.families.config import parse_vocabulary
from domain_fence.core.families.vocabulary.events import (
    all_vocabulary_findings,
    unmatched_module_expressions,
    vocabulary_findings,
)
from domain_fence.core.index.project import ProjectIndex

RULES = FIXTURES / "vocabulary" / "rules"
RUNTIME = RULES / "vocab" / "runtime"
OPTIONS = {
    "modules": ["vocab.runtime"],
    "event_bases": [
        "vocab.base.Event",
        "typing.TypedDict",
        "typing.NamedTuple",
        "collections.namedtuple",
        "pydantic.BaseModel",
    ],
    "words": EXPERIMENT_WORDS,
    "allow": ["allowed_episode_count"],
}


def index_of(root: Path) -> ProjectIndex:
    return ProjectIndex.build(root, ["vocab"], search_paths=[str(root)], cache_dir=None)


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return index_of(RULES)


def config(**overrides):
    return parse_vocabulary("fixture", "fixture", {**OPTIONS, **overrides}, RULES)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(RULES).with_suffix("").parts)


@pytest.mark.parametrize("path", sorted(RUNTIME.glob("*.py")), ids=lambda p: p.name)
def test_findings_match_the_annotations(path: Path, index: ProjectIndex):
    findings = vocabulary_findings(config(), index, module_of(path))
    missing, unexpected = unmet(expectations(path), [(f.line, f.code, f.col) for f in findings])
    assert not missing, f"expected but not reported: {missing}"
    assert not unexpected, "reported but not expected:\n" + "\n".join(
        f.describe() for f in findings if (f.line, f.code, f.col) in unexpected
    )


def test_the_fixture_files_expect_something():
    assert len(expectations(RUNTIME / "dom101_fields.py")) > 10
    assert all(not expectations(path) for path in RUNTIME.glob("traps*.py"))


def test_modules_outside_the_contract_are_never_checked(index):
    findings = all_vocabulary_findings(config(), index)
    assert findings and {f.path.rsplit("/", 1)[0] for f in findings} == {"vocab/runtime"}


def test_the_whole_contract_is_the_union_of_its_modules(index):
    per_module = sorted(
        f for path in RUNTIME.glob("*.py") for f in vocabulary_findings(config(), index, module_of(path))
    )
    assert all_vocabulary_findings(config(), index) == per_module


def test_messages_name_the_thing_the_word_and_the_replacement(index):
    findings = {f.fingerprint: f for f in all_vocabulary_findings(config(), index)}
    field = findings["DOM101:vocab.runtime.dom101_fields:Matches.terminal_state"]
    assert (
        field.message
        == "event field 'terminal_state': experiment vocabulary 'terminal state'; consider 'recognized state'"
    )
    assert findings["DOM102:vocab.runtime.dom102_names:PostEpisodeStats"].message == (
        "event class PostEpisodeStats: experiment vocabulary 'post episode'"
    )
    assert findings["DOM103:vocab.runtime.dom103_kinds:Done.KIND"].message == (
        "event kind 'post_episode': experiment vocabulary 'post episode'"
    )
    keyword = findings["DOM104:vocab.runtime.dom104_keywords:step:Matches(episode)"]
    assert keyword.message == "keyword 'episode' constructing Matches: experiment vocabulary 'episode'"
    # Built other than by calling the class by name: the message says how.
    validated = findings["DOM104:vocab.runtime.constructions:build:Sensed[model_validate](ground_truth)"]
    assert validated.message == (
        "keyword 'ground_truth' constructing Sensed (model_validate): experiment vocabulary 'ground truth'"
    )
    assert validated.symbol == "vocab.runtime.constructions.Sensed(ground_truth)"
    constant = findings["DOM103:vocab.runtime.constructions:kinds:RuntimeEvent(kind=KIND_NAME)"]
    assert constant.message == "event kind 'EpisodeEnd' (from KIND_NAME): experiment vocabulary 'episode'"
    # The keys of a local dict unpacked into a construction, at the key: the form names the local.
    unpacked = findings["DOM104:vocab.runtime.payloads:display:Matches[**payload](episode)"]
    assert unpacked.message == "keyword 'episode' constructing Matches (**payload): experiment vocabulary 'episode'"
    assert (unpacked.line, unpacked.symbol) == (36, "vocab.runtime.dom101_fields.Matches(episode)")
    # A kind given by position.
    positional = findings["DOM103:vocab.runtime.positional:positives:Stats[positional](kind='EpisodeEnd')"]
    assert positional.message == "event kind 'EpisodeEnd' (positional): experiment vocabulary 'episode'"
    # A kind a local variable holds: at the literal, the message names the local.
    held = findings["DOM103:vocab.runtime.dom103_held_kinds:settle:RuntimeEvent(kind=kind:'EpisodeEnd')"]
    assert (held.line, held.col) == (30, 11)
    assert held.message == "event kind 'EpisodeEnd' (through local kind): experiment vocabulary 'episode'"
    through = findings["DOM103:vocab.runtime.dom103_held_kinds:from_constants:RuntimeEvent(kind=kind:END_KIND)"]
    assert through.message == (
        "event kind 'EpisodeEnd' (from END_KIND, through local kind): experiment vocabulary 'episode'"
    )
    # A constant of another module (an Enum member's value too): at the name given, which
    # the fingerprint and the message name as written.
    imported = findings["DOM103:vocab.runtime.dom103_imported_kinds:settle:RuntimeEvent(kind=shared_kinds.Kinds.RESET)"]
    assert imported.message == (
        "event kind 'PostEpisodeReset' (from shared_kinds.Kinds.RESET): experiment vocabulary 'post episode'"
    )
    assert (imported.line, imported.col, imported.symbol) == (44, 27, "vocab.runtime.events.RuntimeEvent.kind")
    # An entry of a table of strings, the module's or another's: at the subscript, named
    # as written, the key quoted as repr quotes it.
    table = findings["DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent(kind=KINDS['done'])"]
    assert (table.line, table.col, table.symbol) == (52, 27, "vocab.runtime.events.RuntimeEvent.kind")
    assert table.message == "event kind 'EpochDone' (from KINDS['done']): experiment vocabulary 'epoch'"
    imported_table = findings["DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent(kind=KIND_TABLE['reset'])"]
    assert imported_table.message == (
        "event kind 'PostEpisodeReset' (from KIND_TABLE['reset']): experiment vocabulary 'post episode'"
    )
    assert findings["DOM103:vocab.runtime.dom103_table_kinds:Reset.kind"].message == (
        "event kind 'EpisodeReset' (from KINDS['reset']): experiment vocabulary 'episode'"
    )
    # A kind a method sets on its instance: at the string, the message names the method.
    set_in = findings[
        "DOM103:vocab.runtime.dom103_set_kinds:StepEvent.model_post_init:StepEvent[self](kind='EpisodeEnd')"
    ]
    assert (set_in.line, set_in.col, set_in.symbol) == (19, 20, "vocab.runtime.dom103_set_kinds.StepEvent.kind")
    assert set_in.message == "event kind 'EpisodeEnd' (set in model_post_init): experiment vocabulary 'episode'"
    set_from = findings["DOM103:vocab.runtime.dom103_set_kinds:StepEvent._kind:StepEvent[self](KIND=END_KIND)"]
    assert set_from.message == "event kind 'EpisodeEnd' (from END_KIND, set in _kind): experiment vocabulary 'episode'"
    # Set on the class by a class method, or through a local of the method: the message says so.
    on_class = findings["DOM103:vocab.runtime.dom103_set_kinds:Configured.build:Configured[class](kind='EpisodeEnd')"]
    assert on_class.message == "event kind 'EpisodeEnd' (set on cls in build): experiment vocabulary 'episode'"
    assert on_class.symbol == "vocab.runtime.dom103_set_kinds.Configured.kind"
    set_held = findings["DOM103:vocab.runtime.dom103_set_kinds:Settled.settle:Settled[self](kind=kind:'EpisodeEnd')"]
    assert (set_held.line, set_held.col) == (72, 15)  # at the literal the local is assigned
    assert set_held.message == (
        "event kind 'EpisodeEnd' (through local kind, set in settle): experiment vocabulary 'episode'"
    )
    set_through = findings["DOM103:vocab.runtime.dom103_set_kinds:Settled.fold:Settled[self](KIND=name:END_KIND)"]
    assert set_through.message == (
        "event kind 'EpisodeEnd' (from END_KIND, through local name, set in fold): experiment vocabulary 'episode'"
    )
    # Built through a local alias of the class: the form names the local.
    aliased = findings["DOM104:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event](episode)"]
    assert aliased.message == (
        "keyword 'episode' constructing RuntimeEvent (local Event): experiment vocabulary 'episode'"
    )
    assert aliased.symbol == "vocab.runtime.events.RuntimeEvent(episode)"
    # A key written in a keyword's value (to any depth), at the key: the message names the
    # keyword, the fingerprint spells the key's place in its value.
    nested = findings[
        "DOM104:vocab.runtime.dom104_nested_keys:displays:StepEvent(stats['inner']['deeper']['ground_truth'])"
    ]
    assert nested.message == "key 'ground_truth' in 'stats' given to StepEvent: experiment vocabulary 'ground truth'"
    assert (nested.line, nested.col, nested.end_col) == (35, 48, 60)
    assert nested.symbol == "vocab.runtime.dom104_nested_keys.StepEvent(stats['inner']['deeper']['ground_truth'])"
    json_key = findings[
        "DOM104:vocab.runtime.dom104_nested_keys:json_texts:StepEvent[model_validate_json](stats['epoch'])"
    ]
    assert json_key.message == (
        "key 'epoch' in 'stats' given to StepEvent (model_validate_json): experiment vocabulary 'epoch'"
    )
    assert all(len(f.message) <= 105 for f in findings.values())  # "under ~100"


def test_kinds_folded_in_a_class_body_or_read_from_another_modules_enumeration(index):
    findings = all_vocabulary_findings(config(), index)
    by_fingerprint = {f.fingerprint: f for f in findings}
    folded = "vocab.runtime.dom103_class_folded_kinds"
    # Folded from an imported name, or from the module's own constants: at the value, with
    # the class's kind's fingerprint, as a kind its body sets otherwise.
    imported = by_fingerprint[f"DOM103:{folded}:Finished.kind"]
    assert (imported.line, imported.col, imported.symbol) == (17, 11, f"{folded}.Finished.kind")
    assert imported.message == "event kind 'EpochDone': experiment vocabulary 'epoch'"
    local = by_fingerprint[f"DOM103:{folded}:LocalFolded.kind"]
    assert local.message == "event kind 'EpisodeDone': experiment vocabulary 'episode'"
    # Literal parts that already hold a word: reported once, as they were.
    spelled = [f for f in findings if f.fingerprint == f"DOM103:{folded}:Spelled.kind"]
    assert [f.message for f in spelled] == ["event kind ' _episode': experiment vocabulary 'episode'"]
    # The value of a member of an enumeration whose base is another module's: at the name,
    # which the fingerprint names as written.
    enums = "vocab.runtime.dom103_enum_bases"
    value = by_fingerprint[f"DOM103:{enums}:settle:RuntimeEvent(kind=Derived.DONE.value)"]
    assert value.message == "event kind 'EpisodeDone' (from Derived.DONE.value): experiment vocabulary 'episode'"
    assert (value.line, value.col) == (52, 27)
    assert f"DOM103:{enums}:settle:RuntimeEvent(kind=enums.Inherited.DONE.value)" in by_fingerprint
    assert by_fingerprint[f"DOM103:{enums}:Settled.kind"].message == (
        "event kind 'EpisodeDone' (from Derived.DONE.value): experiment vocabulary 'episode'"
    )


def test_fingerprints_are_line_independent(index):
    fingerprints = {f.fingerprint for f in all_vocabulary_findings(config(), index)}
    assert {
        "DOM101:vocab.runtime.dom101_fields:Matches.episode",
        "DOM101:vocab.runtime.pydantic_fields:Recognized.episode_id[episodeId]",
        "DOM101:vocab.runtime.functional:Stats.episode",
        "DOM102:vocab.runtime.dom102_names:Holder.ExperimentStarted",
        "DOM103:vocab.runtime.dom103_kinds:Finished.kind",
        # A kind given at construction, by scope, event, keyword and string.
        "DOM103:vocab.runtime.dom103_constructed_kinds:settle:RuntimeEvent(kind='EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_constructed_kinds:Learner.done:RuntimeEvent(kind='EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_constructed_kinds:<module>:RuntimeEvent(kind='epoch_finished')",
        "DOM104:vocab.runtime.dom104_keywords:Learner.step:Matches(primaryTarget)",
        "DOM104:vocab.runtime.dom104_keywords:<module>:Matches(ground_truth)",
        # Built other than by calling the class by name: the form names it too.
        "DOM104:vocab.runtime.constructions:build:Sensed[model_construct](episode)",
        "DOM104:vocab.runtime.constructions:build:Sensed[model_validate](epoch)",
        "DOM104:vocab.runtime.constructions:build:Sensed[model_copy](epoch)",
        "DOM104:vocab.runtime.constructions:build:Matches[replace](episode)",
        "DOM104:vocab.runtime.constructions:build:Matches[partial](episode)",
        "DOM104:vocab.runtime.constructions:Sensed.create:Sensed[cls](episode)",
        "DOM104:vocab.runtime.constructions:Sensed.create:Sensed[cls.model_construct](epoch)",
        "DOM104:vocab.runtime.constructions:Sensed.again:Sensed[type(self)](epoch)",
        "DOM104:vocab.runtime.constructions:Sensed.again:Sensed[self.__class__](episode)",
        # A kind given as a module-level constant: by the constant's name.
        "DOM103:vocab.runtime.constructions:kinds:RuntimeEvent(kind=KIND_NAME)",
        "DOM103:vocab.runtime.constructions:kinds:Sensed[model_construct](kind='post_episode')",
        "DOM103:vocab.runtime.constructions:Kinded.finished:Kinded[cls](kind=KIND_NAME)",
        # An entry of a table of strings: by the subscript, as a constant by its name.
        "DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent(kind=KINDS['reset'])",
        "DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent[model_construct](kind=KINDS['reset'])",
        "DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent[**payload](kind=KINDS['done'])",
        "DOM103:vocab.runtime.dom103_table_kinds:settle:RuntimeEvent(kind=STARRED_TABLE['reset'])",
        "DOM103:vocab.runtime.dom103_table_kinds:Done.KIND",
        "DOM103:vocab.runtime.dom103_table_kinds:Posted.model_post_init:Posted[self](kind=KINDS['reset'])",
        # The keys of a local dict unpacked into a construction: the form names the local.
        "DOM104:vocab.runtime.payloads:display:Matches[**payload](episode)",
        "DOM104:vocab.runtime.payloads:filled:Sensed[model_validate(values)](ground_truth)",
        "DOM104:vocab.runtime.payloads:other_forms:RuntimeEvent[partial(**payload)](episode)",
        "DOM104:vocab.runtime.payloads:Sensed.create:Sensed[cls(**payload)](epoch)",
        "DOM104:vocab.runtime.payloads:Sensed.again:Sensed[model_copy(update=update)](episode)",
        # Merged in with ``|=``: as a key put in otherwise.
        "DOM104:vocab.runtime.dom104_merged_keys:merged:Matches[**payload](episode)",
        "DOM104:vocab.runtime.dom104_merged_keys:merged:Matches[**payload](epoch)",
        "DOM104:vocab.runtime.dom104_merged_keys:given:StepEvent(stats['num_epochs'])",
        "DOM104:vocab.runtime.dom104_merged_keys:given:Matches[model_validate(validated)](mode)",
        "DOM103:vocab.runtime.dom104_merged_keys:kinds:RuntimeEvent[**payload](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.payloads:kinds:RuntimeEvent[**payload](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.payloads:kinds:RuntimeEvent[**constant](kind=KIND_NAME)",
        # A key in a keyword's value: its place in the value, as subscripts (``[]`` an item
        # of a list), whether written there or put into a local dict given as the value.
        "DOM104:vocab.runtime.dom104_nested_keys:displays:StepEvent(stats['primary_target'])",
        "DOM104:vocab.runtime.dom104_nested_keys:displays:StepEvent(rows[][]['numEpochs'])",
        "DOM104:vocab.runtime.dom104_nested_keys:StepEvent.create:StepEvent[cls](stats['epoch'])",
        "DOM104:vocab.runtime.dom104_nested_keys:other_forms:StepEvent[model_validate](stats['episode'])",
        "DOM104:vocab.runtime.dom104_nested_keys:locals_given:StepEvent(stats['ground_truth'])",
        "DOM104:vocab.runtime.dom104_nested_keys:locals_given:StepEvent[**payload](rows[]['primary_target'])",
        # The keys of a JSON object a literal holds: its own keys are fields.
        "DOM104:vocab.runtime.dom104_nested_keys:json_texts:StepEvent[model_validate_json](episode)",
        "DOM104:vocab.runtime.dom104_nested_keys:json_texts:StepEvent[model_validate_json](rows[]['numEpisodes'])",
        # A kind given by position: the field it binds names it.
        "DOM103:vocab.runtime.positional:positives:Stats[positional](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.positional:positives:Ordered[positional](KIND='epoch_done')",
        "DOM103:vocab.runtime.positional:positives:Stats[partial,positional](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.positional:Built.make:Built[cls,positional](kind='EpochEnd')",
        # A kind a local variable holds: the local and the string (or the constant) name it.
        "DOM103:vocab.runtime.dom103_held_kinds:settle:RuntimeEvent(kind=kind:'EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_held_kinds:branches:RuntimeEvent(KIND=kind:'post_episode')",
        "DOM103:vocab.runtime.dom103_held_kinds:from_constants:RuntimeEvent(kind=kind:END_KIND)",
        # Folded from module constants: a constant by its name, else the string folded;
        # what the literal parts alone spell keeps naming it when they are reported.
        "DOM103:vocab.runtime.dom103_held_kinds:folded:RuntimeEvent(kind=END_KIND)",
        "DOM103:vocab.runtime.dom103_held_kinds:folded:RuntimeEvent(kind='EpisodeStart')",
        "DOM103:vocab.runtime.dom103_held_kinds:folded:RuntimeEvent(kind=' _episode')",
        # ``super().__init__`` in the event's method; a field's default factory is its kind.
        "DOM103:vocab.runtime.dom103_held_kinds:Ended.__init__:Ended[super().__init__](kind='EpochEnd')",
        "DOM104:vocab.runtime.dom103_held_kinds:Ended.__init__:Ended[super().__init__](episode)",
        "DOM103:vocab.runtime.dom103_held_kinds:Factored.kind",
        # A kind a method sets on its instance: the method, the class, the attribute and
        # the string (or the constant), whatever the form (assigned or ``setattr``).
        "DOM103:vocab.runtime.dom103_set_kinds:StepEvent._kind:StepEvent[self](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_set_kinds:StepEvent._kind:StepEvent[self](KIND=END_KIND)",
        "DOM103:vocab.runtime.dom103_set_kinds:StepEvent._kind:StepEvent[self](kind=' _epoch')",
        "DOM103:vocab.runtime.dom103_set_kinds:StepEvent.settle.later:StepEvent[self](kind='EpochStart')",
        "DOM103:vocab.runtime.dom103_set_kinds:PostEvent.__post_init__:PostEvent[self](kind='PostEpisode')",
        "DOM103:vocab.runtime.dom103_set_kinds:PostEvent.__post_init__:PostEvent[self](KIND='epoch_done')",
        # On the class, by a class method: the form ``class``, which no construction has
        # (``cls(kind=...)`` in the same method is ``[cls]``).
        "DOM103:vocab.runtime.dom103_set_kinds:Configured.build:Configured[class](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_set_kinds:Configured.build:Configured[class](kind=END_KIND)",
        "DOM103:vocab.runtime.dom103_set_kinds:Configured.build:Configured[cls](kind='EpochEnd')",
        "DOM103:vocab.runtime.dom103_set_kinds:Configured.__init_subclass__:Configured[class](kind='PostEpisode')",
        "DOM103:vocab.runtime.dom103_set_kinds:Configured.held:Configured[class](kind=kind:'EpochStart')",
        # Through a local of the method: the local and its string (or constant), as for a construction.
        "DOM103:vocab.runtime.dom103_set_kinds:Settled.settle:Settled[self](kind=kind:'EpisodeEnd')",
        "DOM103:vocab.runtime.dom103_set_kinds:Settled.fold:Settled[self](KIND=name:END_KIND)",
        "DOM103:vocab.runtime.dom103_set_kinds:Settled.fold:Settled[self](kind=label:'EpisodeStart')",
        "DOM103:vocab.runtime.dom103_set_kinds:Settled.branches:Settled[self](kind=kind:'post_episode')",
        # Through a local alias of the class: ``local`` and the alias name the form, in
        # every construction (a call of the class by another name would be numbered
        # beside a call by its own name, and shift a baselined one's number).
        "DOM104:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event](episode)",
        "DOM103:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event](kind='EpisodeEnd')",
        "DOM103:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event](kind=KIND_NAME)",
        "DOM103:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event](kind=kind:'PostEpisode')",
        "DOM104:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event.model_construct](epoch)",
        "DOM104:vocab.runtime.dom104_aliases:report:RuntimeEvent[local Event.model_validate](epoch)",
        "DOM104:vocab.runtime.dom104_aliases:report:RuntimeEvent[partial(local Event)](num_epochs)",
        "DOM104:vocab.runtime.dom104_aliases:attribute:RuntimeEvent[local make](mode)",
        "DOM104:vocab.runtime.dom104_aliases:attribute:RuntimeEvent[local make(**payload)](episode)",
        "DOM103:vocab.runtime.dom104_aliases:positional:Stats[local Built,positional](kind='EpisodeEnd')",
        "DOM104:vocab.runtime.dom104_aliases:Learner.emitted:RuntimeEvent[local Event](episode)",
        # Through a module-level name bound to a partial of the class: ``partial`` and the
        # name (the partial's own keywords are its construction's, where it is bound).
        "DOM104:vocab.runtime.dom104_partials:resample:RuntimeEvent[partial Resampled](episode)",
        "DOM103:vocab.runtime.dom104_partials:resample:RuntimeEvent[partial Reached](kind='EpisodeEnd')",
        "DOM104:vocab.runtime.dom104_partials:resample:RuntimeEvent[partial Renamed](target_object)",
    } <= fingerprints


EMITTERS = ("vocab.runtime.emitters", "vocab.runtime.emitter_calls")


def test_a_function_building_an_event_from_its_keywords_is_an_emit_function_unconfigured(index):
    """Its callers' keywords, kinds and values are read as a configured emit function's:
    the fingerprints name it as written, with the form ``emitted``."""
    found = {f.fingerprint: f for module in EMITTERS for f in vocabulary_findings(config(), index, module)}
    assert {
        "DOM103:vocab.runtime.emitters:here:emit_reach[emitted,positional](kind='EpisodeEnd')",
        "DOM104:vocab.runtime.emitters:here:emit_reach[emitted](episode)",
        "DOM105:vocab.runtime.emitters:here:emit_reach(tag)<-target",
        "DOM103:vocab.runtime.emitters:here:emit_reach[emitted](kind='EpisodeEnd')",
        "DOM104:vocab.runtime.emitters:here:emit_validated[emitted](train_step)",
        "DOM103:vocab.runtime.emitters:here:emit_later[emitted](kind='EpochEnd')",
        "DOM103:vocab.runtime.emitter_calls:Learner.step:emitters.emit_reach[emitted,positional](kind='EpisodeEnd')",
        "DOM104:vocab.runtime.emitter_calls:Learner.step:emitters.emit_reach[emitted,**payload](num_episodes)",
        "DOM105:vocab.runtime.emitter_calls:Learner.step:emitters.emit_reach(tag)<-mode",
    } <= found.keys()
    called = found["DOM104:vocab.runtime.emitter_calls:Learner.step:emitters.emit_reach[emitted](episode)"]
    assert called.message == "keyword 'episode' given to emitters.emit_reach: experiment vocabulary 'episode'"
    assert called.symbol == "vocab.runtime.emitters.emit_reach(episode)"


def test_an_emit_function_both_inferred_and_configured_is_reported_once_alike(index):
    inferred = [f for module in EMITTERS for f in vocabulary_findings(config(), index, module)]
    named = ["vocab.runtime.emitters.emit_reach", "*.emit_validated", "*.emit_later"]
    configured = [f for module in EMITTERS for f in vocabulary_findings(config(emit_functions=named), index, module)]
    assert configured == inferred
    # Configured, a kind parameter is read by its name alone: one not passed on as the
    # event's kind (emit_logged's) is a kind all the same, as before.
    logged = config(emit_functions=["*.emit_logged"])
    added = set(vocabulary_findings(logged, index, EMITTERS[0])) - set(inferred)
    # So is the value given by position to it, which the function keeps to itself.
    assert {f.fingerprint for f in added} == {
        "DOM103:vocab.runtime.emitters:here:emit_logged[emitted,positional](kind='EpisodeEnd')",
        "DOM105:vocab.runtime.emitters:own_parameters:emit_logged[positional](1)<-target",
    }


def test_an_unconfigured_emit_function_s_own_parameters_are_no_fields(index):
    """A keyword naming a parameter of the function's own, or a value given by position
    to one, binds that parameter: it reaches the event only where the function passes
    it on (``kind=kind``). Configured, every keyword is a field, as the user said."""
    own = {
        "DOM104:vocab.runtime.emitters:own_parameters:publish_step[emitted](mode)",
        "DOM105:vocab.runtime.emitters:own_parameters:publish_step(throttle)<-target",
        "DOM105:vocab.runtime.emitters:own_parameters:emit_logged[positional](1)<-target",
    }
    inferred = {f.fingerprint for f in vocabulary_findings(config(), index, EMITTERS[0])}
    assert "DOM104:vocab.runtime.emitters:own_parameters:publish_step[emitted](epoch)" in inferred
    assert not own & inferred
    named = config(emit_functions=["*.publish_step", "*.emit_logged"])
    assert own <= {f.fingerprint for f in vocabulary_findings(named, index, EMITTERS[0])}


def test_an_emit_method_called_on_its_own_instance_is_read_as_if_configured(index):
    """``self._publish(...)`` of a method building an event from its own ``**``
    parameter: the findings a configured pattern gives those calls, the same in every
    field, so that configuring it later changes nothing. Configured, a pattern matches
    other objects' and inherited methods too, and every keyword is a field (a
    parameter's own, ``throttle``, too)."""
    module = "vocab.runtime.emit_methods"
    inferred = vocabulary_findings(config(), index, module)
    assert {f.fingerprint for f in inferred} >= {
        f"DOM103:{module}:EvidenceTelemetryMixin.step:self._publish[emitted,positional](kind='EpisodeMatch')",
        f"DOM104:{module}:EvidenceTelemetryMixin.step:self._publish[emitted](episode)",
        f"DOM105:{module}:EvidenceTelemetryMixin.step:self._publish(lm_id)<-target",
        f"DOM104:{module}:EvidenceTelemetryMixin.step:self._publish[emitted,**payload](num_episodes)",
    }
    kind = next(f for f in inferred if f.code == "DOM103" and "positional" in f.fingerprint)
    assert kind.symbol == f"{module}.EvidenceTelemetryMixin._publish(kind)"
    named = config(emit_functions=["*._publish", "*._build", "*._static", "*._cached", "*._other", "*._twice"])
    configured = vocabulary_findings(named, index, module)
    assert set(inferred) <= set(configured)
    scopes = {f.fingerprint.split(":")[2] for f in set(configured) - set(inferred)}
    assert scopes == {
        "EvidenceTelemetryMixin.step",
        "NearMisses.step",
        "factory.Local.step",
        "Inheriting.go",
        "Shadowed.step",
    }
    added = [f.fingerprint for f in set(configured) - set(inferred)]
    own = [fingerprint for fingerprint in added if fingerprint.split(":")[2] == "EvidenceTelemetryMixin.step"]
    assert own == [f"DOM105:{module}:EvidenceTelemetryMixin.step:self._publish(throttle)<-target"]


def test_fingerprints_survive_moving_code(tmp_path, index):
    shutil.copytree(RULES / "vocab", tmp_path / "vocab")
    for path in (tmp_path / "vocab" / "runtime").glob("*.py"):
        path.write_text("\n\n# moved down\n" + path.read_text())
    before = all_vocabulary_findings(config(), index)
    after = all_vocabulary_findings(config(), index_of(tmp_path))
    assert [f.fingerprint for f in after] == [f.fingerprint for f in before]
    assert [f.line for f in after] == [f.line + 3 for f in before]


def test_a_computed_field_is_reported_as_a_field_of_its_name_and_a_class_variable_is_not(tmp_path):
    """Rewriting a field as a ``@computed_field`` (or back) keeps its baseline entry;
    turning it into a class variable strikes it."""
    head = (
        "from typing import ClassVar\n\nfrom pydantic import BaseModel, computed_field\n\n\nclass Counted(BaseModel):\n"
    )
    bodies = {
        "field": "    episode_count: int = 0\n",
        "computed": "    @computed_field\n    @property\n    def episode_count(self) -> int:\n        return 0\n",
        "class variable": "    episode_count: ClassVar[int] = 0\n",
    }
    found = {}
    for shape, body in bodies.items():
        module = tmp_path / shape.replace(" ", "_") / "vocab" / "runtime" / "counted.py"
        shutil.copytree(RULES / "vocab", module.parent.parent)
        module.write_text(head + body)
        findings = vocabulary_findings(config(), index_of(module.parent.parent.parent), "vocab.runtime.counted")
        found[shape] = [(f.fingerprint, f.message, f.line, f.col, f.end_col) for f in findings]
    fingerprint = "DOM101:vocab.runtime.counted:Counted.episode_count"
    message = "event field 'episode_count': experiment vocabulary 'episode'"
    assert found["field"] == [(fingerprint, message, 7, 4, 17)]
    assert found["computed"] == [(fingerprint, message, 9, 8, 21)]  # at the method's name
    assert found["class variable"] == []


def test_kind_attributes_are_configurable(index):
    findings = vocabulary_findings(config(kind_attributes=["TAG"]), index, "vocab.runtime.dom103_kinds")
    # KIND and kind are now ordinary fields, named without experiment words.
    assert findings == []
    assert vocabulary_findings(config(kind_attributes=["TAG"]), index, "vocab.runtime.dom103_set_kinds") == []
    built = vocabulary_findings(config(kind_attributes=["TAG"]), index, "vocab.runtime.dom103_constructed_kinds")
    assert [f.code for f in built] == ["DOM104"]  # label=: kind= is an ordinary keyword now


def test_allow_exempts_exact_identifiers(index):
    fingerprint = "DOM101:vocab.runtime.dom101_fields:Matches.allowed_episode_count"
    assert fingerprint in {
        f.fingerprint for f in vocabulary_findings(config(allow=[]), index, "vocab.runtime.dom101_fields")
    }
    assert fingerprint not in {
        f.fingerprint for f in vocabulary_findings(config(), index, "vocab.runtime.dom101_fields")
    }


def test_event_bases_may_name_a_reexport(index):
    reexported = config(event_bases=["vocab.ReexportedEvent"])
    assert vocabulary_findings(reexported, index, "vocab.runtime.dom102_names") == vocabulary_findings(
        config(), index, "vocab.runtime.dom102_names"
    )


def test_module_expressions_use_import_linter_wildcards(index):
    only_functional = config(modules=["vocab.*.functional"])
    assert {f.path for f in all_vocabulary_findings(only_functional, index)} == {"vocab/runtime/functional.py"}
    assert unmatched_module_expressions(config(modules=["vocab.runtime", "vocab.runtim"]), index) == ["vocab.runtim"]


def test_an_unparsable_file_in_the_modules_is_reported(tmp_path):
    shutil.copytree(RULES / "vocab", tmp_path / "vocab")
    (tmp_path / "vocab" / "runtime" / "broken.py").write_text("class Stats(RuntimeEvent):\n    episode: int =\n")
    (tmp_path / "vocab" / "experiment" / "broken.py").write_text("def (:\n")  # outside: not ours
    findings = all_vocabulary_findings(config(), index_of(tmp_path))
    broken = [f for f in findings if f.code == "DOM001"]
    assert [(f.path, f.line, f.fingerprint) for f in broken] == [
        ("vocab/runtime/broken.py", 2, "DOM001:vocab.runtime.broken")
    ]
    assert broken[0].message.startswith("skipped: syntax error at line 2")

"""DOM105 on an annotated fixture project: in-process through the core, and end to end
through `domain-fence check`, `flake8` and `lint-imports`, which must all report
exactly the annotated findings."""

from __future__ import annotations

import configparser
import json
import shutil
from pathlib import Path

import pytest
from fixture_expectations import annotated, expectations, reported, unmet
from support import FIXTURES, run_tool

from domain_fence.core.families.config import ConfigError, parse_vocabulary
from domain_fence.core.families.vocabulary.events import all_vocabulary_findings, vocabulary_findings
from domain_fence.core.index.project import ProjectIndex

DERIVED = FIXTURES / "vocabulary" / "derived"
RUNTIME = DERIVED / "leaks" / "runtime"
CONTRACT = "runtime-events-speak-runtime"
IGNORED = shutil.ignore_patterns("__pycache__", ".domain_fence_cache", ".import_linter_cache")


def options() -> dict[str, list[str]]:
    """The contract's options as the fixture's .importlinter gives them."""
    parser = configparser.ConfigParser()
    parser.read(DERIVED / ".importlinter")
    section = parser[f"importlinter:contract:{CONTRACT}"]
    return {key: section[key].split() for key in ("modules", "event_bases", "allow", "emit_functions")} | {
        "words": [line for line in section["words"].splitlines() if line]
    }


def config(**overrides):
    return parse_vocabulary(CONTRACT, CONTRACT, {**options(), **overrides}, DERIVED)


def index_of(root: Path) -> ProjectIndex:
    return ProjectIndex.build(root, ["leaks"], search_paths=[str(root)], cache_dir=None)


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return index_of(DERIVED)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(DERIVED, root, ignore=IGNORED)
    return root


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(DERIVED).with_suffix("").parts)


def by_fingerprint(findings):
    return {f.fingerprint: f for f in findings}


@pytest.mark.parametrize("path", sorted(DERIVED.rglob("*.py")), ids=lambda p: p.relative_to(DERIVED).as_posix())
def test_findings_match_the_annotations(path: Path, index: ProjectIndex):
    findings = vocabulary_findings(config(), index, module_of(path))
    missing, unexpected = unmet(expectations(path), [(f.line, f.code, f.col) for f in findings])
    assert not missing, f"expected but not reported: {missing}"
    assert not unexpected, "reported but not expected:\n" + "\n".join(
        f.describe() for f in findings if (f.line, f.code, f.col) in unexpected
    )


def test_the_fixtures_hold_enough_cases():
    positives = [e for path in RUNTIME.glob("*.py") for e in expectations(path) if e.code == "DOM105"]
    assert len(positives) >= 25
    traps = (RUNTIME / "traps.py").read_text().count("    def ")
    assert traps >= 15 and not expectations(RUNTIME / "traps.py")
    assert not expectations(DERIVED / "leaks" / "experiment" / "episodes.py")


def test_messages_name_the_keyword_the_event_and_the_chain(index):
    findings = by_fingerprint(all_vocabulary_findings(config(), index))
    direct = findings["DOM105:leaks.runtime.learner:Learner.attribute:Recognized(object_id)<-primary_target"]
    assert direct.message == (
        "value of 'object_id' constructing Recognized comes from self.primary_target (l.22): "
        "experiment vocabulary 'primary target'"
    )
    assert direct.symbol == "leaks.runtime.events.Recognized(object_id)"
    helper = findings[
        "DOM105:leaks.runtime.learner:Learner.helper_in_another_module:Recognized(stats)<-summarize().primary_target"
    ]
    assert helper.message == (
        "value of 'stats' constructing Recognized comes from summarize() reading learner.primary_target (l.10): "
        "experiment vocabulary 'primary target'"
    )
    field = findings["DOM105:leaks.runtime.fields:Observed.count<-primary_target_ids"]
    assert field.message.startswith("value of 'count' in Observed comes from self.primary_target_ids (l.26)")
    emitted = findings["DOM105:leaks.runtime.learner:Learner.emit_function:telemetry.emit_event(label)<-primary_target"]
    assert emitted.message.startswith("value of 'label' emitted by telemetry.emit_event comes from")
    assert findings["DOM105:leaks.runtime.learner:Learner.set_after_construction:Recognized.label<-primary_target"]
    # Built other than by calling the class by name: the form is in the fingerprint and the message.
    validated = findings[
        "DOM105:leaks.runtime.constructions:Learner.validated:Recognized[model_validate](label)<-primary_target"
    ]
    assert validated.message == (
        "value of 'label' constructing Recognized (model_validate) comes from self.primary_target (l.39): "
        "experiment vocabulary 'primary target'"
    )
    assert {
        "DOM105:leaks.runtime.constructions:Sensed.from_learner:Sensed[cls](label)<-primary_target",
        "DOM105:leaks.runtime.constructions:Learner.copied:Recognized[model_copy](object_id)<-primary_target",
        "DOM105:leaks.runtime.constructions:Learner.partially:Recognized[partial](object_id)<-primary_target",
    } <= findings.keys()
    # The keys of a local dict unpacked into a call: at the key, the form naming the local.
    unpacked = findings[
        "DOM105:leaks.runtime.constructions:Learner.unpacked:Recognized[**payload](object_id)<-primary_target"
    ]
    assert unpacked.message == (
        "value of 'object_id' constructing Recognized (**payload) comes from self.primary_target (l.63): "
        "experiment vocabulary 'primary target'"
    )
    # Through a local alias of the class: the form names the alias.
    aliased = findings[
        "DOM105:leaks.runtime.constructions:Learner.aliased:Recognized[local Built](label)<-primary_target"
    ]
    assert aliased.message.startswith("value of 'label' constructing Recognized (local Built) comes from")
    assert {
        "DOM105:leaks.runtime.constructions:Learner.aliased:Recognized[local Built(**payload)](object_id)<-ground_truth",
        "DOM105:leaks.runtime.constructions:Learner.filled:Recognized[model_validate(values)](label)<-ground_truth",
        "DOM105:leaks.runtime.constructions:Learner.emitted:telemetry.emit_event[**payload](label)<-primary_target",
        # Merged into with ``|=``: traced whole where it is given, as before its keys were read.
        "DOM105:leaks.runtime.constructions:Learner.merged:Recognized(**)<-primary_target",
    } <= findings.keys()
    inherited = findings[
        "DOM105:leaks.runtime.overrides:Child.report:Recognized(object_id)<-super().summary().primary_target"
    ]
    assert inherited.message == (
        "value of 'object_id' constructing Recognized comes from super().summary() reading self.primary_target (l.14): "
        "experiment vocabulary 'primary target'"
    )


def test_a_mapping_whose_keys_are_not_known_is_named_by_its_spread(index):
    """Unpacked into a construction (or given as its fields), the mapping is traced whole
    and reported at the mapping, as ``**`` and the mapping as written; the fingerprint
    names ``**`` where a keyword's name would be, which no keyword can be."""
    findings = by_fingerprint(all_vocabulary_findings(config(), index))
    spread = findings["DOM105:leaks.runtime.spreads:Learner.spread_local:Recognized(**)<-get_graph_lm_episode_stats"]
    assert spread.message == (
        "value of '**stats' constructing Recognized comes from get_graph_lm_episode_stats() (l.28): "
        "experiment vocabulary 'episode'"
    )
    assert spread.symbol == "leaks.runtime.events.Recognized(**)"
    # Named shortened: the reports take the token at the mapping (``stats``), as for a kind.
    assert (spread.line, spread.col, spread.end_line, spread.end_col) == (29, 44, 0, 0)
    validated = findings[
        "DOM105:leaks.runtime.spreads:Learner.validated:Recognized[model_validate](**)<-get_graph_lm_episode_stats"
    ]
    assert validated.message.startswith("value of '**stats' constructing Recognized (model_validate) comes from")
    # Put into a local dict whose keys are read: where it is put in, the form naming the local.
    updated = findings[
        "DOM105:leaks.runtime.spreads:Learner.updated:Recognized[**payload](**)<-get_graph_lm_episode_stats"
    ]
    assert updated.message.startswith(
        "value of '**get_graph_lm_episode_stats()' constructing Recognized (**payload) comes from"
    )
    assert {
        "DOM105:leaks.runtime.spreads:Learner.spread_dataclass:Recognized(**)<-episode_info",
        "DOM105:leaks.runtime.spreads:Learner.through_a_helper:Recognized(**)<-summarize().primary_target",
        "DOM105:leaks.runtime.spreads:Counted.from_learner:Counted[cls](**)<-epoch_totals",
        "DOM105:leaks.runtime.spreads:Learner.emitted:telemetry.emit_event(**)<-primary_target_stats",
        "DOM105:leaks.runtime.spreads:Learner.emitted_from_a_local:telemetry.emit_event[**payload](**)"
        "<-ground_truth_stats",
    } <= findings.keys()
    # The spread is no keyword: nothing of DOM104's, whatever the mapping is written as.
    assert not [f for f in findings.values() if f.code == "DOM104" and "(**" in f.fingerprint]


def test_fingerprints_survive_moving_code(tmp_path, index):
    shutil.copytree(DERIVED / "leaks", tmp_path / "leaks", ignore=IGNORED)
    for path in (tmp_path / "leaks").rglob("*.py"):
        path.write_text("\n\n# moved down\n" + path.read_text())
    before = all_vocabulary_findings(config(), index)
    after = all_vocabulary_findings(config(), index_of(tmp_path))
    assert [f.fingerprint for f in after] == [f.fingerprint for f in before]
    assert [f.line for f in after] == [f.line + 3 for f in before]


def test_a_fingerprint_names_the_same_source_whatever_the_order_of_the_statements(tmp_path):
    """Of several sources using the vocabulary, the fingerprint names the first by
    identifier: swapping two assignments (a refactoring) keeps the baseline's entry."""
    module = tmp_path / "leaks" / "runtime" / "reordered.py"
    shutil.copytree(DERIVED / "leaks", tmp_path / "leaks", ignore=IGNORED)
    first, second = "        a = self.primary_target\n", "        b = self.episode_count\n"
    head = "from leaks.runtime.events import Recognized\n\n\nclass L:\n    def report(self):\n"
    fingerprints = []
    for order in ((first, second), (second, first)):
        module.write_text(head + "".join(order) + "        return Recognized(label=a + b)\n")
        found = all_vocabulary_findings(config(), index_of(tmp_path))
        fingerprints.append([f.fingerprint for f in found if f.path.endswith("reordered.py")])
    assert (
        fingerprints[0]
        == fingerprints[1]
        == ["DOM105:leaks.runtime.reordered:L.report:Recognized(label)<-episode_count"]
    )


def test_a_call_of_a_name_bound_to_a_partial_of_the_class_is_a_construction(index):
    """``Labelled = partial(Recognized, ...)`` at module level: ``Labelled(label=...)``
    builds a Recognized, the form ``partial`` and the name."""
    findings = by_fingerprint(all_vocabulary_findings(config(), index))
    bound = findings[
        "DOM105:leaks.runtime.constructions:Learner.bound:Recognized[partial Labelled](label)<-primary_target"
    ]
    assert bound.message.startswith("value of 'label' constructing Recognized (partial Labelled) comes from")
    assert not [f for f in findings.values() if "[partial Unrelated]" in f.fingerprint]


def test_an_attribute_read_by_getattr_and_a_literal_name_is_read_as_the_attribute(index):
    """``getattr(self.lm, "primary_target", None)`` reads ``self.lm.primary_target``: the
    fingerprint and the message are the plain read's. Of several sources, it is named
    only where no other is (a finding reported before keeps its fingerprint)."""
    every = all_vocabulary_findings(config(), index)
    findings = by_fingerprint(every)
    read = "DOM105:leaks.runtime.constructions:Learner.read_by_name:Recognized"
    named = [f for f in every if f.fingerprint == f"{read}(label)<-primary_target"]
    assert sorted((f.line, f.message) for f in named) == [
        (
            129,
            "value of 'label' constructing Recognized comes from self.lm.primary_target (l.129): "
            "experiment vocabulary 'primary target'",
        ),
        # ``episode_label`` (read by getattr) would come first by name: the other is named.
        (
            134,
            "value of 'label' constructing Recognized comes from self.primary_target (l.134): "
            "experiment vocabulary 'primary target'",
        ),
    ]
    assert f"{read}(object_id)<-ground_truth" in findings
    assert f"{read}(label)<-episode_label" not in findings
    assert not [f for f in findings.values() if ".rebound_getattr:" in f.fingerprint]


def test_a_key_read_by_get_is_named_as_a_subscript_key_where_nothing_else_is(index):
    """``self.history.get("epoch")`` reads the key ``epoch``, as ``self.history["epoch"]``
    does; of several sources it is named only where no other is, as getattr's read is (a
    finding reported before such keys were read keeps its fingerprint)."""
    findings = by_fingerprint(all_vocabulary_findings(config(), index))
    scope = "DOM105:leaks.runtime.learner:Learner"
    assert f"{scope}.read_with_get:Recognized(stats)<-epoch" in findings
    assert "self.history['epoch']" in findings[f"{scope}.read_with_get:Recognized(stats)<-epoch"].message
    assert f"{scope}.got_beside_another_source:Recognized(stats)<-primary_target_map" in findings
    assert f"{scope}.got_beside_another_source:Recognized(stats)<-episode_counts" not in findings


def test_a_property_read_is_followed_as_a_call_and_named_as_one(index):
    """``self.expected`` where ``expected`` is a property: the chain names the property
    as read, the fingerprint as ``self.expected()`` would (a method made a property
    keeps its baseline entry)."""
    findings = by_fingerprint(all_vocabulary_findings(config(), index))
    read = findings["DOM105:leaks.runtime.properties:Matching.publish:Recognized(label)<-expected().primary_target"]
    assert read.message == (
        "value of 'label' constructing Recognized comes from self.expected reading self.primary_target (l.21): "
        "experiment vocabulary 'primary target'"
    )
    inherited = findings[
        "DOM105:leaks.runtime.properties:Watcher.publish:Recognized(label)<-watched().ground_truth_object"
    ]
    assert "self.watched reading self.ground_truth_object" in inherited.message
    assert not [f for f in findings.values() if ".properties:Elsewhere." in f.fingerprint]


PARAMETER = "DOM105:leaks.runtime.learner:Learner.parameter:Recognized(label)<-episode_label"


def test_a_parameter_the_census_reports_is_left_to_it(index):
    assert PARAMETER in by_fingerprint(all_vocabulary_findings(config(), index))
    with_census = by_fingerprint(all_vocabulary_findings(config(scope=["events", "parameters"]), index))
    assert PARAMETER not in with_census
    assert "DOM112:leaks.runtime.learner:Learner.parameter(episode_label)" in with_census
    # Other values are still reported.
    assert "DOM105:leaks.runtime.learner:Learner.attribute:Recognized(object_id)<-primary_target" in with_census


def test_allow_and_emit_functions_are_what_the_contract_says(index):
    allowed = "DOM105:leaks.runtime.traps:Calm.allowed:Recognized(object_id)<-target_position"
    words = [*options()["words"], "target"]
    assert allowed not in by_fingerprint(all_vocabulary_findings(config(words=words), index))
    assert allowed in by_fingerprint(all_vocabulary_findings(config(words=words, allow=[]), index))
    emitted = "DOM105:leaks.runtime.learner:Learner.emit_function:telemetry.emit_event(label)<-primary_target"
    assert emitted not in by_fingerprint(all_vocabulary_findings(config(emit_functions=[]), index))
    sent = "DOM105:leaks.runtime.traps:Calm.emitted_by_a_function_not_configured:telemetry.send(label)<-primary_target"
    assert sent in by_fingerprint(all_vocabulary_findings(config(emit_functions=["*.send"]), index))


HERE = "DOM105:leaks.runtime.emitters:emitted_here:emit_event(label)<-primary_target"
UNPACKED_HERE = "DOM105:leaks.runtime.emitters:unpacked_here:emit_event[**payload](label)<-primary_target"


@pytest.mark.parametrize("pattern", ["*.emit_event", "leaks.runtime.emitters.emit_event", "emit_event"])
def test_an_emit_function_called_in_its_own_module_is_matched_as_it_is_named(index, pattern):
    """``emit_event`` defined and called in one module is ``leaks.runtime.emitters.emit_event``
    to a pattern, as it is when another module imports it; the fingerprint shows the call
    as written, as before (a bare pattern matched it already)."""
    findings = by_fingerprint(all_vocabulary_findings(config(emit_functions=[pattern]), index))
    assert {HERE, UNPACKED_HERE} <= findings.keys()
    here = findings[HERE]
    assert here.message.startswith("value of 'label' emitted by emit_event comes from lm.primary_target (l.16)")
    assert here.symbol == "leaks.runtime.emitters.emit_event(label)"
    assert findings[UNPACKED_HERE].symbol == "leaks.runtime.emitters.emit_event(label)"


def test_a_function_of_the_same_name_elsewhere_is_not_the_emit_function(index):
    findings = by_fingerprint(all_vocabulary_findings(config(emit_functions=["leaks.runtime.other.emit_event"]), index))
    assert not [f for f in findings if f.startswith("DOM105:leaks.runtime.emitters:")]


EMITTED_NAMES = "leaks.runtime.emitted_names"


def test_the_keywords_and_kinds_given_to_an_emit_function_are_read_as_a_construction_s(index):
    """DOM104 and DOM103 for an emit function's keywords: the messages name the function,
    the fingerprints name it as DOM105's do, with a form no construction has."""
    findings = by_fingerprint(vocabulary_findings(config(), index, EMITTED_NAMES))
    keyword = findings[f"DOM104:{EMITTED_NAMES}:keywords:emit_event[emitted](episode)"]
    assert keyword.message == "keyword 'episode' given to emit_event: experiment vocabulary 'episode'"
    assert (keyword.line, keyword.col, keyword.symbol) == (22, 26, f"{EMITTED_NAMES}.emit_event(episode)")
    imported = findings[f"DOM104:{EMITTED_NAMES}:keywords:emitters.emit_event[emitted](epoch)"]
    assert imported.symbol == "leaks.runtime.emitters.emit_event(epoch)"  # where it is defined
    unpacked = findings[f"DOM104:{EMITTED_NAMES}:payload_keys:emit_event[emitted,**payload](episode)"]
    assert unpacked.message == "keyword 'episode' given to emit_event (**payload): experiment vocabulary 'episode'"
    kind = findings[f"DOM103:{EMITTED_NAMES}:kinds_given:emit_event[emitted](kind='EpisodeEnd')"]
    assert kind.message == "event kind 'EpisodeEnd' (given to emit_event): experiment vocabulary 'episode'"
    assert kind.symbol == f"{EMITTED_NAMES}.emit_event(kind)"
    constant = findings[f"DOM103:{EMITTED_NAMES}:kinds_given:emit_event[emitted](kind=END_KIND)"]
    assert (
        constant.message
        == "event kind 'EpisodeEnd' (from END_KIND, given to emit_event): experiment vocabulary 'episode'"
    )
    assert f"DOM103:{EMITTED_NAMES}:kinds_given:emit_event[emitted](kind=Kinds.RESET)" in findings
    # An entry of a table of kind strings; a key merged into a local dict with ``|=``.
    table = findings[f"DOM103:{EMITTED_NAMES}:tables_and_merges:emit_event[emitted](kind=KIND_TABLE['end'])"]
    assert table.message == (
        "event kind 'EpisodeEnd' (from KIND_TABLE['end'], given to emit_event): experiment vocabulary 'episode'"
    )
    assert f"DOM104:{EMITTED_NAMES}:tables_and_merges:emit_event[emitted,**payload](num_epochs)" in findings
    held = findings[f"DOM103:{EMITTED_NAMES}:kinds_given:emit_event[emitted](kind=kind:'EpisodeEnd')"]
    assert held.message.startswith("event kind 'EpisodeEnd' (through local kind, given to emit_event)")
    method = findings[f"DOM103:{EMITTED_NAMES}:Relay.forward:telemetry.emit_event[emitted](kind='EpisodeEnd')"]
    assert method.message.startswith("event kind 'EpisodeEnd' (given to telemetry.emit_event)")
    # The keys written in a keyword's value, or put into a local dict: the keyword names them.
    nested = findings[f"DOM104:{EMITTED_NAMES}:nested_keys:emit_event[emitted](stats['rows'][]['num_episodes'])"]
    assert nested.message == "key 'num_episodes' in 'stats' given to emit_event: experiment vocabulary 'episode'"
    assert f"DOM104:{EMITTED_NAMES}:nested_keys:emit_event[emitted](stats['train_step'])" in findings
    assert f"DOM104:{EMITTED_NAMES}:nested_keys:emit_event[emitted,**payload](stats['episode'])" in findings
    # Only an emit function's keywords (the look-alike's, once a pattern names it), only a
    # kind keyword's strings.
    names = vocabulary_findings(config(emit_functions=["*.send_event"]), index, EMITTED_NAMES)
    assert sorted((f.line, f.code, dict(f.fields).get("owner")) for f in names if f.code != "DOM105") == [
        (63, "DOM103", None),
        (63, "DOM104", "send_event"),
        (64, "DOM104", "send_event"),
        (65, "DOM104", "send_event"),  # a key nested in a keyword's value
    ]
    kinds = by_fingerprint(vocabulary_findings(config(kind_attributes=["TAG"]), index, EMITTED_NAMES))
    assert not [f for f in kinds.values() if f.code == "DOM103"]
    assert {f for f in kinds if f.startswith("DOM104:")} == {f for f in findings if f.startswith("DOM104:")}


POSITIONAL = "leaks.runtime.positional"


def test_a_value_given_by_position_is_named_by_its_field_or_its_place(index):
    """DOM105 for a value given by position names the field it binds where the order of
    the fields is certain (a dataclass), else its place from 1; the fingerprint has the
    form ``positional``, which no keyword's has. DOM103 for a kind given by position to
    an emit function names the parameter its definition binds there."""
    findings = by_fingerprint(vocabulary_findings(config(), index, POSITIONAL))
    field = findings[f"DOM105:{POSITIONAL}:Learner.by_field:MatchEvent[positional](object_id)<-primary_target"]
    assert field.message == (
        "value of 'object_id' constructing MatchEvent (positional) comes from self.primary_target (l.49): "
        "experiment vocabulary 'primary target'"
    )
    assert (field.symbol, field.end_line, field.end_col) == (f"{POSITIONAL}.MatchEvent(object_id)", 0, 0)
    place = findings[f"DOM105:{POSITIONAL}:Learner.by_place:Recognized[positional](1)<-ground_truth"]
    assert place.message.startswith("value of 'argument 1' constructing Recognized (positional) comes from")
    assert {
        f"DOM105:{POSITIONAL}:MatchEvent.from_learner:MatchEvent[cls,positional](object_id)<-primary_target",
        f"DOM105:{POSITIONAL}:Learner.partially:MatchEvent[partial,positional](object_id)<-primary_target",
        f"DOM105:{POSITIONAL}:Learner.through_a_helper:Recognized[positional](4)<-get_graph_lm_episode_stats",
    } <= findings.keys()
    emitted = findings[
        f"DOM105:{POSITIONAL}:Learner.emitted:telemetry.emit_event[positional](2)<-get_graph_lm_episode_stats"
    ]
    assert emitted.message.startswith("value of 'argument 2' emitted by telemetry.emit_event (positional) comes from")
    kind = findings[f"DOM103:{POSITIONAL}:Learner.kinds_by_position:emit_event[emitted,positional](kind='EpisodeEnd')"]
    assert kind.message == "event kind 'EpisodeEnd' (positional, given to emit_event): experiment vocabulary 'episode'"
    assert kind.symbol == f"{POSITIONAL}.emit_event(kind)"
    imported = findings[
        f"DOM103:{POSITIONAL}:Learner.kinds_by_position:emitters.emit_event[emitted,positional](kind='PostEpisode')"
    ]
    assert imported.symbol == "leaks.runtime.emitters.emit_event(kind)"  # its definition's first parameter
    # The same call by keyword is fingerprinted apart: its keyword's, a kind keyword's.
    assert not [f for f in findings if "positional" in f and f.startswith("DOM104:")]
    # Only a kind: another kind attribute, no parameter of that name.
    kinds = vocabulary_findings(config(kind_attributes=["TAG"]), index, POSITIONAL)
    assert not [f for f in kinds if f.code == "DOM103"]


METHODS = "leaks.runtime.emitting_methods"


def test_a_kind_given_by_position_to_an_emit_method_on_self_names_the_method(index):
    """DOM103 for a kind given by position to a method a class calls on its own
    instance: the parameter the class's own definition binds there, ``self`` aside; the
    fingerprint has the function's forms, the callee as written."""
    findings = by_fingerprint(vocabulary_findings(config(), index, METHODS))
    kind = findings[f"DOM103:{METHODS}:Reporter.done:self._emit[emitted,positional](kind='EpisodeEnd')"]
    assert kind.message == "event kind 'EpisodeEnd' (positional, given to self._emit): experiment vocabulary 'episode'"
    assert (kind.line, kind.col, kind.symbol) == (15, 19, f"{METHODS}.Reporter._emit(kind)")
    second = findings[f"DOM103:{METHODS}:Sources.seen:self._emit[emitted,positional](kind='EpochEnd')"]
    assert second.symbol == f"{METHODS}.Sources._emit(kind)"  # its second parameter after self
    assert f"DOM103:{METHODS}:Reporter.nested.inner:self._emit[emitted,positional](kind='PostEpisode')" in findings
    # The same call by keyword keeps its own fingerprint.
    assert f"DOM103:{METHODS}:Reporter.by_keyword:self._emit[emitted](kind='EpisodeEnd')" in findings
    # Only a kind parameter, only an emit method.
    assert not [f for f in vocabulary_findings(config(kind_attributes=["TAG"]), index, METHODS) if f.code == "DOM103"]
    unmatched = vocabulary_findings(config(emit_functions=["*.emit_event"]), index, METHODS)
    assert not [f for f in unmatched if f.code == "DOM103"]


def test_the_words_decide_at_check_time(index):
    # The same facts, another vocabulary: nothing about epochs is reported any more.
    words = [w for w in options()["words"] if w != "epoch"]
    findings = all_vocabulary_findings(config(words=words), index)
    assert findings and not any("'epoch'" in f.message for f in findings)


def test_bad_emit_functions_are_configuration_errors():
    with pytest.raises(ConfigError) as error:
        config(emit_functions=["telemetry.emit()", "*.emit"])
    assert error.value.errors == {
        "emit_functions": "'telemetry.emit()' is not a dotted callee such as 'pkg.telemetry.emit' or '*.emit'"
    }


def test_a_bad_emit_function_exits_2_with_one_line(project):
    text = (project / ".importlinter").read_text()
    (project / ".importlinter").write_text(text.replace("*.emit_event", "emit event"))
    result = run_tool("domain-fence", "check", cwd=project)
    assert result.returncode == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "emit_functions" in lines[0] and "'emit event'" in lines[0], result.output
    assert "Traceback" not in result.output


def test_domain_fence_check_reports_exactly_the_annotations(project):
    result = run_tool("domain-fence", "check", "-q", cwd=project)
    assert result.returncode == 1, result.output
    found = reported(result.stdout)
    assert {r[:4] for r in found} == annotated(project) and len(found) == len(annotated(project))
    # A warm run reads the facts from the cache and reports the same.
    again = run_tool("domain-fence", "check", "-q", cwd=project)
    assert (project / ".domain_fence_cache").is_dir()
    assert again.stdout == result.stdout


def test_an_override_added_in_another_module_is_seen_by_a_warm_run(project):
    runtime = project / "leaks" / "runtime"
    (runtime / "middle.py").write_text(
        "from leaks.runtime.helpers import Tracker\n\n\nclass Middle(Tracker):\n    pass\n"
    )
    (runtime / "watcher.py").write_text(
        "from leaks.runtime.events import Recognized\n"
        "from leaks.runtime.middle import Middle\n\n\n"
        "class Watcher(Middle):\n"
        "    def report(self):\n"
        "        return Recognized(object_id=self.current_object())\n"
    )
    watched = [r for r in reported(run_tool("domain-fence", "check", "-q", cwd=project).stdout) if "watcher" in r[0]]
    assert [r[4] for r in watched] == [
        "value of 'object_id' constructing Recognized comes from self.current_object() reading "
        "self.ground_truth_object (l.24): experiment vocabulary 'ground truth'"
    ]
    # Middle now overrides Tracker's method: the nearest definition returns nothing derived.
    (runtime / "middle.py").write_text(
        "from leaks.runtime.helpers import Tracker\n\n\n"
        "class Middle(Tracker):\n"
        "    def current_object(self):\n"
        "        return 0\n"
    )
    warm = run_tool("domain-fence", "check", "-q", cwd=project)
    assert not [r for r in reported(warm.stdout) if "watcher" in r[0]]
    assert warm.stdout == run_tool("domain-fence", "check", "-q", "--no-cache", cwd=project).stdout


def test_flake8_and_lint_imports_report_the_same(project):
    flake8 = run_tool("flake8", "--select", "DOM", "leaks", cwd=project)
    assert flake8.returncode == 1 and flake8.stderr == "", flake8.output
    found = reported(flake8.stdout)
    assert {r[:4] for r in found} == annotated(project) and len(found) == len(annotated(project))
    linted = run_tool("lint-imports", "--no-logo", cwd=project)
    assert linted.returncode == 1, linted.output
    assert "Runtime events carry no experiment knowledge BROKEN" in linted.stdout
    assert sorted(reported(linted.stdout)) == sorted(found)


def test_noqa_and_the_baseline(project):
    learner = project / "leaks" / "runtime" / "learner.py"
    text = learner.read_text()
    line = "        emit(Recognized(object_id=self.primary_target, lm_id=self.lm_id))  # DOM105:24\n"
    assert line in text
    learner.write_text(text.replace(line, line.replace("# DOM105:24", "# noqa: DOM105")))
    flake8 = run_tool("flake8", "--select", "DOM", "leaks", cwd=project)
    assert not any("self.primary_target (l.22)" in r[4] for r in reported(flake8.stdout))
    assert reported(flake8.stdout)

    assert run_tool("domain-fence", "baseline", cwd=project).returncode == 0
    learner.write_text("# moved down\n" + learner.read_text())
    assert run_tool("domain-fence", "check", cwd=project).returncode == 0
    assert run_tool("lint-imports", "--no-logo", cwd=project).returncode == 0


def test_a_validator_s_value_is_reported_and_silenced_where_it_is_returned(project):
    # The fix goes where the validator returns the value: so do the finding and its noqa
    # comment. The fingerprint names the field and the source, not the place: an entry
    # recorded when the finding was at the ``def`` still matches it.
    fields = project / "leaks" / "runtime" / "fields.py"
    returned = "        return value or cls.ground_truth_fallback  # DOM105:15\n"
    text = fields.read_text()
    assert returned in text
    fields.write_text(text.replace(returned, returned.replace("# DOM105:15", "# noqa: DOM105")))
    report = json.loads(run_tool("domain-fence", "check", "--format", "json", cwd=project).stdout)
    (contract,) = report["contracts"]
    fingerprint = "DOM105:leaks.runtime.fields:Observed.label<-ground_truth_fallback"
    assert [(f["line"], f["column"]) for f in contract["suppressed"] if f["fingerprint"] == fingerprint] == [(32, 16)]
    assert not [f for f in contract["findings"] if f["fingerprint"] == fingerprint]
    flake8 = run_tool("flake8", "--select", "DOM", "leaks/runtime/fields.py", cwd=project)
    assert not any("ground_truth_fallback" in r[4] for r in reported(flake8.stdout)), flake8.stdout


def test_a_line_inserted_above_leaves_the_recorded_baseline_as_it_is(project):
    # A DOM105 message names the line its value is read at; the recorded description
    # leaves it out, as the fingerprint does, so re-recording changes nothing.
    assert run_tool("domain-fence", "baseline", cwd=project).returncode == 0
    baseline = project / ".domain-fence-baseline.json"
    recorded = baseline.read_bytes()
    assert b"DOM105 value of 'object_id'" in recorded and b"(l." not in recorded
    learner = project / "leaks" / "runtime" / "learner.py"
    learner.write_text("# moved down\n" + learner.read_text())
    again = run_tool("domain-fence", "baseline", cwd=project)
    assert again.stdout.splitlines()[0].endswith("; unchanged"), again.stdout
    assert baseline.read_bytes() == recorded


def test_the_pytest_plugin_reports_the_same(pytester: pytest.Pytester):
    shutil.copytree(DERIVED, pytester.path, ignore=IGNORED, dirs_exist_ok=True)
    result = pytester.runpytest("--domain-fence", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    found = reported(result.stdout.str())
    assert {r[:4] for r in found} == annotated(pytester.path) and len(found) == len(annotated(pytester.path))

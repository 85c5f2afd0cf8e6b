"""The vocabulary census: a pure function of a contract's findings and its recorded
fingerprints, whose counts always add up and never depend on input order."""

from __future__ import annotations

import random
import string
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.model import census, fingerprints
from domain_fence.core.model.census import CENSUS_CODES, Census, Movement, Tally, take_census, vocabulary_word
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.rules import get_rule, rules_of_family

MODELS = "pkg.runtime.models"


def attribute(module: str, owner: str, name: str, word: str, line: int = 3) -> Finding:
    return Finding(
        path=module.replace(".", "/") + ".py",
        line=line,
        col=8,
        code="DOM111",
        message=get_rule("DOM111").format(owner=owner, name=name, word=word, hint=""),
        symbol=f"{module}.{owner}.{name}",
        fingerprint=f"DOM111:{module}:{owner}.{name}",
        contract="census",
        fields=(("name", name), ("owner", owner), ("word", word)),
    )


def parameter(module: str, owner: str, name: str, word: str) -> Finding:
    return Finding(
        path=module.replace(".", "/") + ".py",
        line=2,
        col=20,
        code="DOM112",
        message=get_rule("DOM112").format(owner=owner, name=name, word=word, hint=""),
        symbol=f"{module}.{owner}.{name}",
        fingerprint=f"DOM112:{module}:{owner}({name})",
        contract="census",
        fields=(("name", name), ("owner", owner), ("word", word)),
    )


PRIMARY = attribute(MODELS, "LM", "primary_target", "primary target")
STEPWISE = attribute(MODELS, "LM", "stepwise_target", "target")
TRAIN = parameter(MODELS, "LM.__init__", "min_train_steps", "train")
TRACKER = attribute("pkg.runtime.tracker", "Tracker", "primary_target", "primary target")


def test_counts_by_module_and_by_word_with_the_baseline_movement():
    recorded = {PRIMARY.fingerprint, TRAIN.fingerprint, STEPWISE.fingerprint}  # stepwise since fixed
    census = take_census([TRACKER, PRIMARY, TRAIN], recorded)
    assert census == Census(
        findings=3,
        modules=(Tally(MODELS, 2), Tally("pkg.runtime.tracker", 1)),
        words=(Tally("primary target", 2), Tally("train", 1)),
        baseline=Movement(recorded=3, still_present=2, fixed=1, new=1),
    )
    assert census.describe() == "3 findings in 2 modules"
    assert census.baseline.describe() == "3 recorded, 2 still present, 1 fixed since recording, 1 new"


def test_ties_are_broken_by_name():
    found = [
        attribute("b.mod", "C", "epoch_count", "epoch"),
        attribute("a.mod", "C", "train_steps", "train"),
        attribute("c.mod", "C", "episode", "episode"),
        attribute("c.mod", "D", "episode", "episode"),
    ]
    census = take_census(found, ())
    assert [t.name for t in census.modules] == ["c.mod", "a.mod", "b.mod"]
    assert [t.name for t in census.words] == ["episode", "epoch", "train"]


def test_nothing_found_and_nothing_recorded_is_no_census():
    assert take_census([], []) is None


def test_everything_fixed_is_a_census_of_no_findings():
    census = take_census([], [PRIMARY.fingerprint, TRAIN.fingerprint])
    assert census == Census(0, (), (), Movement(recorded=2, still_present=0, fixed=2, new=0))
    assert census.describe() == "no findings"


def test_only_leaks_are_counted():
    unreadable = Finding(
        "pkg/runtime/broken.py",
        1,
        0,
        "DOM001",
        "skipped: syntax error at line 1",
        "pkg.runtime.broken",
        "DOM001:pkg.runtime.broken",
    )
    stale = Finding(
        ".domain-fence-baseline.json", 9, 0, "DOM002", "baseline entry matches nothing: x", "x", "DOM002:c:x"
    )
    census = take_census([unreadable, stale, PRIMARY], [unreadable.fingerprint, PRIMARY.fingerprint])
    # A recorded DOM001 (a file unreadable when the baseline was written) is no leak either.
    assert census.findings == 1
    assert census.baseline == Movement(recorded=1, still_present=1, fixed=0, new=0)


def test_a_fingerprint_found_twice_is_one_leak():
    # An event built twice in one function with the same keyword: one baseline entry.
    twice = [PRIMARY, attribute(MODELS, "LM", "primary_target", "primary target", line=30)]
    census = take_census(twice, [])
    assert (census.findings, census.modules, census.baseline.new) == (1, (Tally(MODELS, 1),), 1)


def test_a_fingerprint_two_findings_share_is_counted_under_the_word_of_the_first_in_report_order():
    later = attribute(MODELS, "LM", "primary_target", "target", line=30)
    shared = replace(later, line=PRIMARY.line, fingerprint=PRIMARY.fingerprint)  # same place, another word
    first, second = sorted([PRIMARY, replace(shared, line=PRIMARY.line + 1)])
    for found in ([first, second], [second, first]):
        census = take_census(found, [])
        assert census.words == (Tally(dict(first.fields)["word"], 1),)


def test_the_word_is_the_field_every_vocabulary_rule_renders():
    for rule in rules_of_family("vocabulary"):
        names = {name for _, name, _, _ in string.Formatter().parse(rule.message) if name}
        assert "word" in names, rule.code  # the census counts by it
        finding = Finding("m.py", 1, 0, rule.code, "message", "s", f"{rule.code}:m:s", fields=(("word", "epoch"),))
        assert vocabulary_word(finding) == "epoch", rule.code
    placed = Finding("m.py", 1, 0, "DOM201", "m", "s", "f", fields=(("word", "x"),))
    assert vocabulary_word(placed) is None


LEAK = st.tuples(
    st.sampled_from(["DOM101", "DOM104", "DOM111", "DOM112", "DOM113"]),
    st.sampled_from(["a.x", "a.y", "b"]),
    st.sampled_from(["episode", "mode", "primary target", "train"]),
    st.integers(0, 5),
)


def leak(code: str, module: str, word: str, number: int) -> Finding:
    message = f"name{number}: experiment vocabulary '{word}'"
    fingerprint = f"{code}:{module}:n{number}:{word}"
    return Finding(
        module.replace(".", "/") + ".py",
        number + 1,
        0,
        code,
        message,
        f"{module}.n{number}",
        fingerprint,
        fields=(("word", word),),
    )


@settings(max_examples=200, deadline=None)
@given(
    found=st.lists(LEAK, max_size=12),
    fixed=st.lists(LEAK, max_size=6),
    recorded_share=st.floats(0, 1),
    seed=st.integers(0, 1000),
)
def test_the_counts_always_add_up_whatever_the_order(found, fixed, recorded_share, seed):
    findings = [leak(*item) for item in found]
    present = {f.fingerprint for f in findings[: int(len(findings) * recorded_share)]}
    gone = {leak(*item).fingerprint for item in fixed} - {f.fingerprint for f in findings}
    recorded = present | gone
    census = take_census(findings, recorded)
    if not findings and not recorded:
        assert census is None
        return
    movement = census.baseline
    assert movement.recorded == movement.still_present + movement.fixed == len(recorded)
    assert census.findings == movement.still_present + movement.new == len({f.fingerprint for f in findings})
    assert movement.fixed == len(gone)
    assert sum(t.count for t in census.modules) == sum(t.count for t in census.words) == census.findings
    for tallies in (census.modules, census.words):
        assert list(tallies) == sorted(tallies, key=lambda t: (-t.count, t.name))
    shuffled = findings[:]
    random.Random(seed).shuffle(shuffled)
    assert take_census(shuffled, sorted(recorded, reverse=True)) == census


@pytest.mark.parametrize("count, text", [(1, "1 finding in 1 module"), (2, "2 findings in 1 module")])
def test_describe_is_singular_for_one(count, text):
    found = [attribute("m", "C", f"train_{n}", "train") for n in range(count)]
    assert take_census(found, []).describe() == text


_FINGERPRINT_PARTS = st.sampled_from(
    ["DOM101", "DOM112", "DOM001", "boundary", "pkg.mod", "A.b", "->", ":", "#2", "", "x"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_FINGERPRINT_PARTS, max_size=6).map("".join))
def test_a_fingerprint_read_in_part_is_read_as_parse_reads_it(fingerprint):
    parsed = fingerprints.parse(fingerprint)
    assert fingerprints.module_of(fingerprint) == parsed.module
    leak = parsed.code in CENSUS_CODES and bool(parsed.rest)  # a located vocabulary fingerprint
    assert census._leak_fingerprints([fingerprint]) == ({fingerprint} if leak else set())

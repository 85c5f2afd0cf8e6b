"""The order of findings and baseline entries: a finding's sort key gives the order its
class defines; entries sort by their fields in turn."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.engine.baseline import BaselineEntry
from domain_fence.core.model.findings import FINDING_ORDER, Finding, sorted_findings

# Few distinct values, so that findings tie on their first fields and later ones decide.
texts = st.sampled_from(["", "a", "b", "pkg/a.py", "DOM101", "DOM112"])
numbers = st.integers(min_value=0, max_value=3)
findings = st.builds(
    Finding,
    texts,
    numbers,
    numbers,
    texts,
    texts,
    texts,
    texts,
    texts,
    st.tuples(texts) | st.just(()),
    numbers,
    numbers,
    st.tuples(st.tuples(texts, texts)) | st.just(()),
)


@settings(deadline=None)
@given(st.lists(findings, max_size=30))
def test_findings_sorted_by_key_are_in_their_class_order(found):
    assert sorted(found, key=FINDING_ORDER) == sorted(found)
    assert sorted_findings(found) == sorted(set(found))
    # In order already (taken as it is), or in order with repeats (sorted): the same findings.
    assert sorted_findings(sorted(set(found))) == sorted(set(found))
    assert sorted_findings(sorted(found + found)) == sorted(set(found))


@settings(deadline=None)
@given(st.lists(st.builds(BaselineEntry, texts, texts, texts), max_size=30))
def test_baseline_entries_sort_by_contract_then_fingerprint_then_description(entries):
    assert sorted(entries) == sorted(entries, key=lambda e: (e.contract, e.fingerprint, e.description))


BASE = Finding("pkg/a.py", 3, 4, "DOM101", "message", "pkg.a.E", "DOM101:pkg.a:E", "c", ("d",), 3, 9, (("w", "x"),))
LOWER = {str: "", int: 0, tuple: ()}


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Finding)])
def test_each_field_of_a_finding_decides_its_order_where_those_before_it_tie(field):
    """Two findings equal up to ``field``, lower at it and higher after it: the key must
    look at ``field`` before the ones after it, as the class's order does."""
    names = [f.name for f in dataclasses.fields(Finding)]
    at = names.index(field)
    lower = dataclasses.replace(BASE, **{field: LOWER[type(getattr(BASE, field))]})
    if at + 1 < len(names):
        later = names[at + 1]
        lower = dataclasses.replace(lower, **{later: _higher(getattr(BASE, later))})
    assert lower < BASE
    assert sorted([BASE, lower], key=FINDING_ORDER) == [lower, BASE]


def _higher(value: object) -> object:
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, int):
        return value + 1
    return (*value, ("~", "~")) if value and isinstance(value[0], tuple) else (*value, "~")

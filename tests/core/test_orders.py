"""The sort keys of findings and baseline entries give the order their classes define."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.engine.baseline import ENTRY_ORDER, BaselineEntry
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


@settings(deadline=None)
@given(st.lists(st.builds(BaselineEntry, texts, texts, texts), max_size=30))
def test_baseline_entries_sorted_by_key_are_in_their_class_order(entries):
    assert sorted(entries, key=ENTRY_ORDER) == sorted(entries)

"""The baseline file: stable bytes, atomic writes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.engine.baseline import (
    Baseline,
    BaselineEntry,
    BaselineError,
    apply_baseline,
    load_baseline,
    parse_baseline,
    render,
    write_baseline,
)
from domain_fence.core.model.findings import Finding


def entry(contract: str, fingerprint: str) -> BaselineEntry:
    return BaselineEntry(contract, fingerprint, f"about {fingerprint}")


def test_missing_file_is_an_empty_baseline(tmp_path):
    assert load_baseline(tmp_path / "absent.json").entries == ()


def test_round_trip_is_sorted_and_deduplicated(tmp_path):
    path = tmp_path / "b.json"
    entries = (entry("z", "DOM101:m:A.b"), entry("a", "boundary:x->y"), entry("a", "boundary:x->y"))
    write_baseline(Baseline(path, entries))
    loaded = load_baseline(path)
    assert loaded.entries == (entry("a", "boundary:x->y"), entry("z", "DOM101:m:A.b"))
    assert path.read_bytes() == render(loaded)
    assert path.read_bytes().endswith(b"]\n}\n")


def test_a_file_written_by_hand_is_read_sorted_and_deduplicated(tmp_path):
    path = tmp_path / "b.json"
    raw = [
        {"contract": "z", "fingerprint": "f", "description": "about f"},
        {"contract": "a", "fingerprint": "g"},  # no description
        {"contract": "z", "fingerprint": "f", "description": "about f"},
        {"contract": "a", "fingerprint": "f", "description": "b"},
        {"contract": "a", "fingerprint": "f", "description": "a"},
    ]
    path.write_text(json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": raw}))
    # One entry per contract and fingerprint: of two descriptions, the first as sorted.
    loaded = load_baseline(path)
    assert loaded.entries == (
        BaselineEntry("a", "f", "a"),
        BaselineEntry("a", "g", ""),
        BaselineEntry("z", "f", "about f"),
    )
    assert loaded.repeated == (("a", "f"), ("z", "f"))


_VALUES = st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["f", "g", "f#2"]), st.sampled_from(["", "x"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALUES, max_size=8), st.booleans())
def test_entries_are_read_sorted_and_distinct_whether_the_file_holds_them_so_or_not(values, in_order):
    """A file ``render`` wrote is in order already (taken as it is); any other is sorted,
    its repeats dropped (one entry per contract and fingerprint, the first as sorted):
    the same entries either way."""
    written = sorted(set(values)) if in_order else values
    raw = [{"contract": c, "fingerprint": f, "description": d} for c, f, d in written]
    data = json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": raw}).encode()
    entries = parse_baseline(data, Path("b.json")).entries
    first: dict[tuple[str, str], tuple[str, str, str]] = {}
    for value in sorted(set(values)):
        first.setdefault(value[:2], value)
    assert entries == tuple(BaselineEntry(*value) for value in first.values())


def test_render_does_not_depend_on_entry_order(tmp_path):
    a, b = entry("c", "f1"), entry("c", "f2")
    assert render(Baseline(tmp_path, (a, b))) == render(Baseline(tmp_path, (b, a)))


def test_unchanged_content_is_not_rewritten(tmp_path):
    baseline = Baseline(tmp_path / "b.json", (entry("c", "f"),))
    assert write_baseline(baseline) is True
    assert write_baseline(baseline) is False


def test_replace_contract_keeps_other_contracts(tmp_path):
    baseline = Baseline(tmp_path, (entry("one", "f1"), entry("two", "f2")))
    replaced = baseline.replace_contract("one", [entry("one", "f3")])
    assert replaced.entries == (entry("one", "f3"), entry("two", "f2"))
    assert replaced.fingerprints("one") == {"f3"}


def test_each_contract_s_fingerprints_whatever_the_entries_order(tmp_path):
    entries = (entry("two", "f2"), entry("one", "f1"), entry("two", "f3"), entry("one", "f2"))
    baseline = Baseline(tmp_path, entries)
    assert baseline.fingerprints("one") == {"f1", "f2"} and baseline.fingerprints("two") == {"f2", "f3"}
    assert baseline.fingerprints("three") == frozenset()
    assert baseline.contracts() == {"one", "two"} and Baseline(tmp_path).contracts() == frozenset()


OK = {"contract": "c", "fingerprint": "f", "description": "d"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "baseline is not valid JSON"),
        (b"\xff\xfe", "baseline is not valid JSON"),
        (b"[]", "not a domain-fence baseline"),
        (
            json.dumps({"format": "domain-fence-baseline", "version": 99, "entries": []}).encode(),
            "version 99 is not supported (expected 1)",
        ),
        (
            json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": {}}).encode(),
            '"entries" must be a list',
        ),
        (
            json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": [{"contract": 1}]}).encode(),
            "entry 1 needs string",
        ),
        *(
            (
                json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": [*[OK] * 2, bad]}).encode(),
                "entry 3 needs string",
            )
            for bad in (
                "an entry",
                ["c", "f"],
                {"contract": "c", "fingerprint": 1},
                {"contract": "c"},
                {"contract": "c", "fingerprint": "f", "description": None},
            )
        ),
    ],
)
def test_unusable_files_give_one_line_naming_the_file(tmp_path, content, message):
    path = tmp_path / "b.json"
    path.write_bytes(content)
    with pytest.raises(BaselineError) as raised:
        load_baseline(path)
    text = str(raised.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_apply_baseline_splits_new_baselined_and_stale():
    def finding(fingerprint: str, line: int) -> Finding:
        return Finding("a.py", line, 0, "DOM101", "m", "s", fingerprint)

    old, new = finding("DOM101:a:A.episode", 3), finding("DOM101:a:A.epoch", 4)
    ratchet = apply_baseline([new, old], frozenset({"DOM101:a:A.episode", "DOM101:a:gone"}))
    assert ratchet.new == (new,)
    assert ratchet.baselined == (old,)
    assert ratchet.stale == ("DOM101:a:gone",)


def test_write_error_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(BaselineError, match="cannot write baseline"):
        write_baseline(Baseline(blocker / "b.json", (entry("c", "f"),)))

"""`domain-fence baseline [--prune]` on the leaky fixture: every family recorded, counts
printed, unchanged files left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import copy_fixture, domain_fence, run
from support import NEWER_SYNTAX, PARSES_NEWER_SYNTAX

BASELINE = ".domain-fence-baseline.json"


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    return copy_fixture("leaky", tmp_path)


def entries(project: Path) -> list[tuple[str, str]]:
    document = json.loads((project / BASELINE).read_text(encoding="utf-8"))
    return [(e["contract"], e["fingerprint"]) for e in document["entries"]]


def test_records_every_family_and_strikes_stale_entries(leaky):
    result = domain_fence("baseline", cwd=leaky)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{BASELINE}: 5 recorded (4 added, 1 pruned, 1 still present); written",
        "  added experiment-owns-its-telemetry DOM201:leaky.runtime.setup:init_telemetry",
        "  added runtime-events-speak-runtime DOM101:leaky.runtime.telemetry:Matched.episode",
        "  added runtime-knows-no-experiment boundary:leaky.runtime.helper->leaky.shared",
        "  added runtime-knows-no-experiment boundary:leaky.runtime.model->leaky.experiment.modes",
        "  pruned runtime-knows-no-experiment boundary:leaky.runtime.gone->leaky.experiment",
    ]
    assert entries(leaky) == [
        ("experiment-owns-its-telemetry", "DOM201:leaky.runtime.setup:init_telemetry"),
        ("runtime-events-speak-runtime", "DOM101:leaky.runtime.telemetry:Matched.episode"),
        ("runtime-knows-no-experiment", "boundary:leaky.runtime.helper->leaky.shared"),
        ("runtime-knows-no-experiment", "boundary:leaky.runtime.legacy->leaky.experiment.runner"),
        ("runtime-knows-no-experiment", "boundary:leaky.runtime.model->leaky.experiment.modes"),
    ]
    report = json.loads(domain_fence("check", "--format", "json", cwd=leaky).stdout)
    kept = {c["id"]: c["kept"] for c in report["contracts"]}
    assert kept == {
        "runtime-knows-no-experiment": True,
        "runtime-events-speak-runtime": True,
        "experiment-owns-its-telemetry": True,
        "experiment-above-runtime": False,  # import-linter's own types have no baseline
        "experiment-needs-no-shared": True,
    }


def test_an_unchanged_baseline_is_not_rewritten(leaky):
    domain_fence("baseline", cwd=leaky)
    path = leaky / BASELINE
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    again = domain_fence("baseline", cwd=leaky)
    assert again.stdout == f"{BASELINE}: 5 recorded (0 added, 0 pruned, 5 still present); unchanged\n"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_prune_only_strikes_stale_entries(leaky):
    result = domain_fence("baseline", "--prune", cwd=leaky)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{BASELINE}: 1 recorded (0 added, 1 pruned, 1 still present); written",
        "  pruned runtime-knows-no-experiment boundary:leaky.runtime.gone->leaky.experiment",
    ]
    assert entries(leaky) == [("runtime-knows-no-experiment", "boundary:leaky.runtime.legacy->leaky.experiment.runner")]


def test_entries_of_contracts_no_longer_configured_are_pruned(leaky):
    path = leaky / BASELINE
    document = json.loads(path.read_text())
    document["entries"].append({"contract": "renamed-long-ago", "fingerprint": "boundary:a->b", "description": ""})
    path.write_text(json.dumps(document))
    result = domain_fence("baseline", "--prune", cwd=leaky)
    assert result.stdout.splitlines() == [
        f"{BASELINE}: 1 recorded (0 added, 2 pruned, 1 still present); written",
        "  pruned renamed-long-ago boundary:a->b",
        "  pruned runtime-knows-no-experiment boundary:leaky.runtime.gone->leaky.experiment",
    ]


@pytest.mark.parametrize("description", ["same", "other", "other, in order"])
@pytest.mark.parametrize("prune", [True, False])
def test_an_entry_written_twice_is_kept_once_and_said(leaky, description, prune):
    domain_fence("baseline", cwd=leaky)
    path = leaky / BASELINE
    document = json.loads(path.read_text())
    first = dict(document["entries"][0])
    if description == "same":
        document["entries"].append(first)
    elif description == "other":
        document["entries"].append({**first, "description": "edited by hand"})
    else:  # where sorting puts it: the entries still read as sorted, but for their keys
        document["entries"].insert(0, {**first, "description": "A description sorting first"})
    path.write_text(json.dumps(document, indent=2))
    result = domain_fence("baseline", *(["--prune"] if prune else []), cwd=leaky)
    assert result.stdout.splitlines() == [
        f"{BASELINE}: 5 recorded (0 added, 0 pruned, 1 duplicate removed, 5 still present); written",
        f"  removed a duplicate of {first['contract']} {first['fingerprint']}",
    ]
    assert len(entries(leaky)) == len(set(entries(leaky))) == 5
    again = domain_fence("baseline", *(["--prune"] if prune else []), cwd=leaky)
    assert again.stdout == f"{BASELINE}: 5 recorded (0 added, 0 pruned, 5 still present); unchanged\n"


@pytest.mark.parametrize("field", ["fingerprint", "contract"])
def test_an_entry_with_an_empty_name_is_a_one_line_error(leaky, field):
    domain_fence("baseline", cwd=leaky)
    path = leaky / BASELINE
    document = json.loads(path.read_text())
    document["entries"][2][field] = ""
    path.write_text(json.dumps(document, indent=2))
    for args in (("check",), ("baseline", "--prune")):
        result = domain_fence(*args, cwd=leaky)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == f'domain-fence: error: {path}: entry 3 has an empty "{field}"\n'


def test_a_stale_entry_written_on_one_line_is_reported_at_its_line(leaky):
    domain_fence("baseline", cwd=leaky)
    recorded = json.loads((leaky / BASELINE).read_text())["entries"]
    stale = {"contract": "runtime-events-speak-runtime", "fingerprint": "DOM101:leaky.runtime.telemetry:Gone.epoch"}
    lines = [json.dumps(entry) for entry in [*recorded[:2], stale, *recorded[2:]]]
    (leaky / BASELINE).write_text(
        '{"format": "domain-fence-baseline", "version": 1,\n"entries": [\n' + ",\n".join(lines) + "\n]}\n"
    )
    checked = domain_fence("check", "--quiet", cwd=leaky)
    assert [line for line in checked.stdout.splitlines() if "DOM002" in line] == [
        f"{BASELINE}:5:1: DOM002 baseline entry matches nothing: {stale['fingerprint']}; "
        "run 'domain-fence baseline --prune'"
    ]


def test_corrupt_baseline_is_a_one_line_error(leaky):
    (leaky / BASELINE).write_text('{"format": "something else"}')
    result = domain_fence("baseline", cwd=leaky)
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("domain-fence: error: ") and "not a domain-fence baseline" in line


REPORT = """\
from leaky.runtime.telemetry import Matched


def report(step, count):
    first = Matched(step=step, episode=count)
{more}    return first
"""
SECOND = "    second = Matched(step=step, episode=count)\n"


def flake8_dom(project: Path, target: str) -> list[str]:
    return run("flake8", "--select", "DOM", target, cwd=project).stdout.splitlines()


def test_a_copy_of_a_baselined_leak_added_beside_it_is_new(leaky):
    report = leaky / "leaky" / "runtime" / "report.py"
    report.write_text(REPORT.format(more=""))
    domain_fence("baseline", cwd=leaky)
    recorded = ("runtime-events-speak-runtime", "DOM104:leaky.runtime.report:report:Matched(episode)")
    assert recorded in entries(leaky)
    assert domain_fence("check", cwd=leaky).returncode == 1  # the layers contract: its own, unbaselined

    # The same keyword in the same function, one line below: the same place but for
    # its line, which a fingerprint leaves out, and still a new leak.
    report.write_text(REPORT.format(more=SECOND))
    new = "leaky/runtime/report.py:6:33: DOM104 "
    result = domain_fence("check", "--format", "json", cwd=leaky)
    vocabulary = {c["id"]: c for c in json.loads(result.stdout)["contracts"]}["runtime-events-speak-runtime"]
    assert [(f["line"], f["fingerprint"]) for f in vocabulary["findings"]] == [(6, f"{recorded[1]}#2")]
    assert (5, recorded[1]) in [(f["line"], f["fingerprint"]) for f in vocabulary["baselined"]]
    assert [line for line in domain_fence("check", cwd=leaky).stdout.splitlines() if line.strip().startswith(new)]
    assert [line[: len(new)] for line in flake8_dom(leaky, "leaky/runtime/report.py")] == [new]

    # Recorded, both are; a copy added above them and silenced by noqa leaves them as
    # recorded (it counts for nothing); fixing the first leaves the second one's entry stale.
    domain_fence("baseline", cwd=leaky)
    assert {recorded, (recorded[0], f"{recorded[1]}#2")} <= set(entries(leaky))
    silenced = "    zeroth = Matched(step=step, episode=count)  # noqa: DOM104\n"
    report.write_text(REPORT.format(more=SECOND).replace("    first =", silenced + "    first =", 1))
    vocabulary = {
        c["id"]: c for c in json.loads(domain_fence("check", "--format", "json", cwd=leaky).stdout)["contracts"]
    }
    assert vocabulary["runtime-events-speak-runtime"]["findings"] == []
    assert flake8_dom(leaky, "leaky/runtime/report.py") == []
    report.write_text(REPORT.format(more="").replace("episode=count", "step_count=count"))
    report.write_text(report.read_text() + SECOND.replace("second", "kept"))
    pruned = domain_fence("baseline", "--prune", cwd=leaky)
    assert f"  pruned runtime-events-speak-runtime {recorded[1]}#2" in pruned.stdout.splitlines()


@pytest.mark.parametrize("copies", [1, 2])
def test_a_recorded_finding_a_noqa_comment_silences_no_longer_holds_its_entry(leaky, copies):
    """A finding a noqa comment silences is not reported, nor counted for the baseline: the
    entry that recorded it (with two copies, the last copy's: the copies left are numbered
    again) is stale in the verdict, the summary and the census alike, and --prune strikes it."""
    report = leaky / "leaky" / "runtime" / "report.py"
    report.write_text(REPORT.format(more=SECOND if copies == 2 else ""))
    domain_fence("baseline", cwd=leaky)
    recorded = "DOM104:leaky.runtime.report:report:Matched(episode)"
    last = recorded if copies == 1 else f"{recorded}#2"
    assert ("runtime-events-speak-runtime", last) in entries(leaky)
    report.write_text(report.read_text().replace("episode=count)\n", "episode=count)  # noqa: DOM104\n", 1))

    checked = json.loads(domain_fence("check", "--format", "json", cwd=leaky).stdout)
    vocabulary = {c["id"]: c for c in checked["contracts"]}["runtime-events-speak-runtime"]
    assert [f["code"] for f in vocabulary["suppressed"]] == ["DOM104"]
    assert [f["symbol"] for f in vocabulary["stale"]] == [last]
    assert vocabulary["census"]["baseline"]["fixed"] == 1
    assert not vocabulary["kept"]

    pruned = domain_fence("baseline", "--prune", cwd=leaky)
    assert f"  pruned runtime-events-speak-runtime {last}" in pruned.stdout.splitlines()
    assert domain_fence("baseline", cwd=leaky).stdout.endswith("; unchanged\n")  # recording agrees
    checked = json.loads(domain_fence("check", "--format", "json", cwd=leaky).stdout)
    assert {c["id"]: c for c in checked["contracts"]}["runtime-events-speak-runtime"]["kept"]


@pytest.mark.skipif(PARSES_NEWER_SYNTAX, reason="this Python parses every syntax grimp's parser reads")
def test_the_entries_of_a_file_that_cannot_be_analysed_are_kept(leaky):
    """DOM001 may hide anything: a file Python cannot parse (here newer syntax, which
    the import graph's parser reads) leaves its entries neither stale nor pruned, by
    ``--prune`` or by recording, and they match again once it parses."""
    assert domain_fence("baseline", cwd=leaky).returncode == 0
    before, checked = entries(leaky), domain_fence("check", cwd=leaky).stdout
    telemetry = leaky / "leaky" / "runtime" / "telemetry.py"
    source = telemetry.read_text()
    telemetry.write_text(source + "\n\n" + NEWER_SYNTAX)
    check = domain_fence("check", cwd=leaky)
    assert "DOM001" in check.stdout and "DOM002" not in check.stdout, check.stdout
    for args in (("baseline", "--prune"), ("baseline",)):
        result = domain_fence(*args, cwd=leaky)
        assert result.returncode == 0, result.stderr
        assert "0 pruned" in result.stdout and entries(leaky) == before, result.stdout
    telemetry.write_text(source)
    assert domain_fence("check", cwd=leaky).stdout == checked

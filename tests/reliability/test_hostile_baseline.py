"""Hostile baselines: one file named by several spellings is one baseline (no contract
overwrites another's entries), a symlinked baseline is written through and stays a
link, and a version that only compares equal to 1 is refused."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from reliability_support import Result, cli, edit_config, flake8, lint_imports, project

CONFIG = ".importlinter"
FILES = {
    "app/runtime/leak.py": "from app.experiment import setup\n",
    "app/runtime/stats.py": "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n",
}
BOUNDARY_END = "    app.experiment\n\n[importlinter:contract:vocabulary]"
VOCABULARY_END = "    terminal state -> recognized state\n"


def with_baselines(root, boundary: str, vocabulary: str) -> None:
    edit_config(root, BOUNDARY_END, f"    app.experiment\nbaseline = {boundary}\n\n[importlinter:contract:vocabulary]")
    edit_config(root, VOCABULARY_END, f"{VOCABULARY_END}baseline = {vocabulary}\n")


def recorded(path) -> list[tuple[str, str]]:
    return [(e["contract"], e["fingerprint"]) for e in json.loads(path.read_text(encoding="utf-8"))["entries"]]


ENTRIES = [
    ("boundary", "boundary:app.runtime.leak->app.experiment.setup"),
    ("vocabulary", "DOM101:app.runtime.stats:Stats.episode"),
]


@pytest.mark.parametrize(
    "boundary, vocabulary",
    [("sub/../bl.json", "bl.json"), ("bl.json", "link.json")],
    ids=["dot-dot", "symlink"],
)
def test_one_file_under_two_spellings_is_one_baseline(tmp_path, boundary, vocabulary):
    root = project(tmp_path, FILES)
    (root / "sub").mkdir()
    os.symlink("bl.json", root / "link.json")
    with_baselines(root, boundary, vocabulary)
    for _ in range(2):  # recorded, then unchanged: nothing pruned on the way
        result = cli("baseline", cwd=root)
        # placement writes the default baseline; boundary and vocabulary one file together.
        assert result.status == 0, result
        summaries = [line for line in result.lines if not line.startswith("  ")]  # below: each entry added
        assert [line.split(":")[0] for line in summaries] == [".domain-fence-baseline.json", "bl.json"], result
        assert summaries[1].startswith("bl.json: 2 recorded (") and "0 pruned" in summaries[1], result
    assert recorded(root / "bl.json") == ENTRIES
    assert (root / "link.json").is_symlink()
    # Both contracts find their entries: only layers (import-linter's own) fails.
    checked = cli("check", "--quiet", cwd=root)
    assert [line.split(" DOM")[1][:3] for line in checked.lines] == ["303"], checked
    assert flake8("app", cwd=root) == Result(0, "", "")


def test_a_symlinked_baseline_is_written_through_and_stays_a_link(tmp_path):
    root = project(tmp_path, FILES)
    (root / "records").mkdir()
    (root / "records/real.json").write_text('{"format": "domain-fence-baseline", "version": 1, "entries": []}')
    os.symlink("records/real.json", root / ".domain-fence-baseline.json")
    assert cli("baseline", cwd=root).status == 0
    assert (root / ".domain-fence-baseline.json").is_symlink()
    assert recorded(root / "records/real.json") == ENTRIES
    assert sorted(p.name for p in (root / "records").iterdir()) == ["real.json"]  # no temporary left


@pytest.mark.parametrize("version", ["true", "1.0"])
def test_a_version_that_only_equals_1_is_refused(tmp_path, version):
    root = project(tmp_path)
    path = root / ".domain-fence-baseline.json"
    path.write_text(f'{{"format": "domain-fence-baseline", "version": {version}, "entries": []}}')
    shown = {"true": "True", "1.0": "1.0"}[version]
    message = (
        f"{path}: baseline format version {shown} is not supported (expected 1); "
        "regenerate it with 'domain-fence baseline'"
    )
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", f"domain-fence: error: {message}\n"), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: domain-fence: error: {message}\n")


def test_a_baseline_outside_the_project_is_named_from_the_checkout(tmp_path, monkeypatch):
    # The project sits in "sub dir%" of a checkout and shares a baseline one level up:
    # every report names that file as the checkout does, never by its absolute path.
    checkout = tmp_path / "checkout"
    root = project(checkout)
    root = root.rename(checkout / "sub dir%")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(checkout))
    entries = [{"contract": "boundary", "fingerprint": "boundary:app.runtime.gone->app.experiment"}]
    (checkout / "shared.json").write_text(
        json.dumps({"format": "domain-fence-baseline", "version": 1, "entries": entries}), encoding="utf-8"
    )
    with_baselines(root, "../shared.json", "../shared.json")
    stale = "DOM002 baseline entry matches nothing: boundary:app.runtime.gone->app.experiment"
    assert [line for line in cli("check", "--quiet", cwd=root).lines if "DOM002" in line] == [
        f"../shared.json:1:1: {stale}; run 'domain-fence baseline --prune'"
    ]
    github = cli("check", "--format", "github", cwd=root)
    assert any(line.startswith("::error file=shared.json,line=1,col=1,title=DOM002::") for line in github.lines), github
    sarif = json.loads(cli("check", "--format", "sarif", cwd=root).stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "shared.json" in uris, uris


def test_an_entry_of_a_contract_the_configuration_lacks_is_stale(tmp_path):
    # A contract renamed or removed leaves its entries behind: nothing can match them,
    # so they fail as any stale entry does until `baseline --prune` strikes them.
    root = project(tmp_path)
    assert cli("baseline", cwd=root).status == 0
    path = root / ".domain-fence-baseline.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["entries"].append({"contract": "ghost", "fingerprint": "boundary:app.a->app.b"})
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    stale = (
        ".domain-fence-baseline.json:7:1: DOM002 baseline entry matches nothing: boundary:app.a->app.b (of contract "
        "'ghost', not in the configuration); run 'domain-fence baseline --prune'"
    )
    # lint-imports checks one contract at a time: the first using the file reports it, once.
    assert_stale_once(root, stale)
    assert "pruned ghost boundary:app.a->app.b" in cli("baseline", "--prune", cwd=root).stdout
    assert cli("check", "--quiet", cwd=root) == Result(0, "", "")


def assert_stale_once(root, stale: str) -> None:
    """``stale``, the only finding of check, is reported once by lint-imports too: by the
    first contract using the baseline file."""
    assert cli("check", "--quiet", cwd=root) == Result(1, stale + "\n", "")
    linted = lint_imports("--no-logo", cwd=root)
    assert linted.status == 1 and linted.stdout.count(stale) == 1, linted
    assert "Contracts: 3 kept, 1 broken." in linted.stdout, linted


def test_an_entry_left_in_a_file_its_contract_no_longer_reads_is_stale(tmp_path):
    # The vocabulary contract given a file of its own: the entries it left in the shared
    # file match nothing there, reported once, by the first contract using that file.
    root = project(tmp_path, {"app/runtime/stats.py": FILES["app/runtime/stats.py"]})
    assert cli("baseline", cwd=root).status == 0
    shared = root / ".domain-fence-baseline.json"
    edit_config(root, VOCABULARY_END, f"{VOCABULARY_END}baseline = census.json\n")
    (root / "census.json").write_bytes(shared.read_bytes())  # copied, not moved
    stale = (
        ".domain-fence-baseline.json:7:1: DOM002 baseline entry matches nothing: DOM101:app.runtime.stats:Stats.episode "
        "(of contract 'vocabulary', whose baseline is census.json); run 'domain-fence baseline --prune'"
    )
    assert_stale_once(root, stale)
    pruned = cli("baseline", "--prune", cwd=root)
    assert "  pruned vocabulary DOM101:app.runtime.stats:Stats.episode" in pruned.stdout.splitlines(), pruned
    assert recorded(shared) == [] and recorded(root / "census.json") == ENTRIES[1:]
    assert cli("check", "--quiet", cwd=root) == Result(0, "", "")

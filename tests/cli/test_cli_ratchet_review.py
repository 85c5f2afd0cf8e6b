"""The ratchet in review: `check --ratchet-since REV` on a git checkout where a branch
re-records its baseline (red), only prunes it (green), or renames a module and a
package (their entries carried, green); and `baseline` listing what it changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from cli_support import REPO, domain_fence, git, write_tree

BASELINE = ".domain-fence-baseline.json"
CONTRACT = "runtime-knows-no-experiment"

CONFIG = f"""\
[importlinter]
root_package = app
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract

[importlinter:contract:{CONTRACT}]
name = Runtime does not import experiment code
type = boundary
source_modules =
    app.runtime
forbidden_modules =
    app.experiment
"""

FILES = {
    ".importlinter": CONFIG,
    "app/__init__.py": "",
    "app/experiment/__init__.py": "",
    "app/experiment/modes.py": "TRAIN = True\n",
    "app/runtime/__init__.py": "",
    "app/runtime/model.py": "VALUE = 1\n",
    "app/runtime/legacy.py": '"""Old code."""\n\nfrom app.experiment import modes\n\nFLAG = modes.TRAIN\n',
    "app/runtime/oldpkg/__init__.py": "",
    "app/runtime/oldpkg/worker.py": '"""A worker."""\n\nfrom app.experiment.modes import TRAIN\n\nFLAG = TRAIN\n',
}
LEAK = "from app.experiment import modes\n\nVALUE = modes.TRAIN\n"
LEAKED = "boundary:app.runtime.model->app.experiment.modes"


def fingerprints(project: Path) -> list[str]:
    document = json.loads((project / BASELINE).read_text(encoding="utf-8"))
    return [e["fingerprint"] for e in document["entries"]]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A checkout whose main branch records two violations, on a branch of its own."""
    root = tmp_path / "checkout"
    write_tree(root, FILES)
    git("init", "-q", "-b", "main", cwd=root)
    recorded = domain_fence("baseline", cwd=root)
    assert recorded.returncode == 0, recorded.stderr
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "baseline", cwd=root)
    git("checkout", "-q", "-b", "feature", cwd=root)
    return root


def commit(root: Path, message: str) -> None:
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", message, cwd=root)


def test_a_branch_that_re_records_its_baseline_fails_the_ratchet(project):
    (project / "app/runtime/model.py").write_text(LEAK)
    assert domain_fence("check", cwd=project).returncode == 1
    recorded = domain_fence("baseline", cwd=project)
    assert f"  added {CONTRACT} boundary:app.runtime.model->app.experiment.modes" in recorded.stdout.splitlines()
    commit(project, "accept the leak")
    assert domain_fence("check", cwd=project).returncode == 0  # the baseline alone cannot tell

    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=project)
    assert reviewed.returncode == 1, reviewed.stderr
    line = next(n for n, text in enumerate((project / BASELINE).read_text().splitlines(), 1) if "runtime.model" in text)
    assert reviewed.stderr.splitlines() == [
        f"{BASELINE}:{line}: baseline entry added since main: {CONTRACT} {LEAKED}",
        "domain-fence: 1 baseline entry added since main: fix the new findings instead of recording them",
    ]
    assert "kept" in reviewed.stdout  # the report itself is unchanged


def test_the_ratchet_annotates_the_baseline_in_github_format(project):
    (project / "app/runtime/model.py").write_text(LEAK)
    domain_fence("baseline", cwd=project)
    reviewed = domain_fence("check", "--format", "github", "--ratchet-since", "main", cwd=project)
    assert reviewed.returncode == 1
    [annotation] = [line for line in reviewed.stdout.splitlines() if line.startswith("::error file=.domain")]
    assert annotation.startswith(f"::error file={BASELINE},line=")
    assert annotation.endswith(
        f"::baseline entry added since main: {CONTRACT} boundary:app.runtime.model->app.experiment.modes"
    )


ADDED = f"baseline entry added since main: {CONTRACT} {LEAKED}"
SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def entry_line(project: Path, fingerprint: str) -> int:
    lines = (project / BASELINE).read_text().splitlines()
    return next(n for n, text in enumerate(lines, 1) if f'"fingerprint": "{fingerprint}"' in text)


@pytest.fixture
def grown(project: Path) -> Path:
    """The branch records a new leak in its baseline: every contract kept, the ratchet fails."""
    (project / "app/runtime/model.py").write_text(LEAK)
    assert domain_fence("baseline", cwd=project).returncode == 0
    return project


def test_every_format_says_why_the_ratchet_failed(grown):
    line = entry_line(grown, LEAKED)

    markdown = domain_fence("check", "--format", "markdown", "--ratchet-since", "main", cwd=grown)
    assert (markdown.returncode, markdown.stderr) == (1, "")
    assert markdown.stdout.startswith("## domain-fence: ❌ 1 baseline entry added since `main`; all 1 contracts kept\n")
    section = markdown.stdout.split("### Baseline entries added since `main`\n", 1)[1].split("\n### ", 1)[0]
    assert f"| `{BASELINE}:{line}:1` | DOM003 | {ADDED.replace('>', '&gt;')} | {CONTRACT} |" in section

    document = json.loads(domain_fence("check", "--format", "json", "--ratchet-since", "main", cwd=grown).stdout)
    assert document["ratchet"] == {
        "since": "main",
        "added": [
            {
                "path": BASELINE,
                "line": line,
                "column": 1,
                "code": "DOM003",
                "message": ADDED,
                "symbol": LEAKED,
                "fingerprint": f"DOM003:{CONTRACT}:{LEAKED}",
                "contract": CONTRACT,
                "details": [],
            }
        ],
    }
    assert (document["summary"]["kept"], document["summary"]["ratchet_added"], document["summary"]["passed"]) == (
        1,
        1,
        False,
    )

    sarif = json.loads(domain_fence("check", "--format", "sarif", "--ratchet-since", "main", cwd=grown).stdout)
    jsonschema.validate(sarif, SARIF_SCHEMA)
    [result] = sarif["runs"][0]["results"]
    assert (result["ruleId"], result["message"]["text"], result["baselineState"]) == ("DOM003", ADDED, "new")
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == BASELINE
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (line, 1)


def test_the_output_file_holds_the_ratchet_in_every_format(grown, tmp_path):
    for format_ in ("text", "github", "markdown", "json", "sarif"):
        written = tmp_path / f"report.{format_}"
        result = domain_fence(
            "check", "--format", format_, "--ratchet-since", "main", "--output", str(written), cwd=grown
        )
        assert (result.returncode, result.stdout, result.stderr) == (1, "", ""), format_
        assert (ADDED.replace(">", "&gt;") if format_ == "markdown" else ADDED) in written.read_text(), format_
    assert (
        (tmp_path / "report.text")
        .read_text()
        .endswith(
            f"{BASELINE}:{entry_line(grown, LEAKED)}: {ADDED}\n"
            "domain-fence: 1 baseline entry added since main: fix the new findings instead of recording them\n"
        )
    )


def test_a_replayed_report_is_that_of_the_same_ratchet(grown):
    commit(grown, "accept the leak")
    since_main = domain_fence("check", "--format", "json", "--ratchet-since", "main", cwd=grown)
    since_head = domain_fence("check", "--format", "json", "--ratchet-since", "HEAD", cwd=grown)
    # The inputs are the same, the ratchets are not: each run reports its own.
    assert (since_main.returncode, since_head.returncode) == (1, 0)
    assert json.loads(since_head.stdout)["ratchet"] == {"since": "HEAD", "added": []}
    assert json.loads(since_head.stdout)["summary"]["passed"] is True
    assert domain_fence("check", "--format", "json", cwd=grown).stdout == since_head.stdout.replace(
        '"ratchet": {\n    "since": "HEAD",\n    "added": []\n  }', '"ratchet": null'
    )
    again = domain_fence("check", "--format", "json", "--ratchet-since", "main", cwd=grown)
    assert again == since_main
    replayed = domain_fence("check", "--ratchet-since", "main", cwd=grown)
    assert (replayed.returncode, replayed.stderr.splitlines()[0]) == (
        1,
        f"{BASELINE}:{entry_line(grown, LEAKED)}: {ADDED}",
    )


def test_a_branch_that_fixes_and_prunes_passes_the_ratchet(project):
    (project / "app/runtime/legacy.py").write_text('"""Old code, fixed."""\n')
    assert domain_fence("check", cwd=project).returncode == 1  # a stale entry
    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert pruned.stdout.splitlines()[1:] == [f"  pruned {CONTRACT} boundary:app.runtime.legacy->app.experiment.modes"]
    commit(project, "fix legacy")
    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=project)
    assert (reviewed.returncode, reviewed.stderr) == (0, "")


def test_renaming_a_module_and_a_package_carries_their_entries(project):
    git("mv", "app/runtime/legacy.py", "app/runtime/heritage.py", cwd=project)
    git("mv", "app/runtime/oldpkg", "app/runtime/newpkg", cwd=project)
    assert domain_fence("check", cwd=project).returncode == 1  # two stale entries, two new findings

    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.splitlines() == [
        f"{BASELINE}: 2 recorded (0 added, 0 pruned, 2 re-keyed, 0 still present); written",
        f"  re-keyed {CONTRACT} boundary:app.runtime.legacy->app.experiment.modes, "
        "now boundary:app.runtime.heritage->app.experiment.modes",
        f"  re-keyed {CONTRACT} boundary:app.runtime.oldpkg.worker->app.experiment.modes, "
        "now boundary:app.runtime.newpkg.worker->app.experiment.modes",
    ]
    assert fingerprints(project) == [
        "boundary:app.runtime.heritage->app.experiment.modes",
        "boundary:app.runtime.newpkg.worker->app.experiment.modes",
    ]
    assert domain_fence("check", cwd=project).returncode == 0
    commit(project, "rename")
    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=project)
    assert (reviewed.returncode, reviewed.stderr) == (0, "")


@pytest.mark.parametrize("helper", ["", "util.py"], ids=["its __init__ alone", "with a helper"])
def test_a_module_edited_as_its_package_is_renamed_keeps_its_entry(project, helper):
    # git pairs no file edited past its rename detection (the worker's import of its
    # package's new name): it moved with the rest of the package all the same.
    if helper:
        (project / "app/runtime/oldpkg" / helper).write_text('"""Helpers of the worker."""\n\nSTEP = 1\n')
        commit(project, "a helper")
    git("mv", "app/runtime/oldpkg", "app/runtime/newpkg", cwd=project)
    (project / "app/runtime/newpkg/worker.py").write_text(
        '"""The worker, moved."""\n\nfrom app.experiment.modes import TRAIN\nfrom app.runtime import model\n\n'
        "FLAG = TRAIN and model.VALUE\n"
    )
    git("add", "-A", cwd=project)
    moved = git("diff", "--cached", "-M", "--name-status", "main", cwd=project).splitlines()
    assert "D\tapp/runtime/oldpkg/worker.py" in moved  # not paired by git
    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert (
        f"  re-keyed {CONTRACT} boundary:app.runtime.oldpkg.worker->app.experiment.modes, "
        "now boundary:app.runtime.newpkg.worker->app.experiment.modes" in pruned.stdout.splitlines()
    ), pruned.stdout
    assert domain_fence("check", cwd=project).returncode == 0
    commit(project, "rename")
    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=project)
    assert (reviewed.returncode, reviewed.stderr) == (0, "")


def test_a_rename_not_staged_yet_carries_its_entries_in_review(project):
    # A plain mv: git's index knows neither new name until `git add`.
    (project / "app/runtime/legacy.py").rename(project / "app/runtime/heritage.py")
    (project / "app/runtime/oldpkg").rename(project / "app/runtime/newpkg")
    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert "2 re-keyed" in pruned.stdout, pruned.stdout
    reviewed = domain_fence("check", "--ratchet-since", "HEAD", cwd=project)
    assert (reviewed.returncode, reviewed.stderr) == (0, "")
    assert "?? app/runtime/heritage.py" in git("status", "--porcelain", cwd=project)  # still not staged


def test_a_rename_does_not_carry_an_entry_to_a_violation_elsewhere(project):
    # legacy fixed and a new module leaking the same way: not a rename (legacy still exists).
    (project / "app/runtime/legacy.py").write_text('"""Old code, fixed."""\n')
    (project / "app/runtime/fresh.py").write_text("from app.experiment import modes\n")
    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert "re-keyed" not in pruned.stdout
    assert domain_fence("check", cwd=project).returncode == 1


def test_a_deleted_module_does_not_carry_its_entry_to_an_unrelated_new_one(project):
    # git sees legacy deleted and another module added, no rename: the same import in
    # fresh.py is a new violation, and pruning strikes legacy's entry without carrying it.
    git("rm", "-q", "app/runtime/legacy.py", cwd=project)
    (project / "app/runtime/fresh.py").write_text(
        '"""Sampling."""\n\nimport random\n\nfrom app.experiment import modes\n\n\n'
        "def draw():\n    return random.random() if modes.TRAIN else 0.0\n"
    )
    assert "re-keyed" not in domain_fence("baseline", "--prune", cwd=project).stdout
    assert fingerprints(project) == ["boundary:app.runtime.oldpkg.worker->app.experiment.modes"]
    checked = domain_fence("check", cwd=project)
    assert checked.returncode == 1
    assert (
        "app/runtime/fresh.py:5:28: DOM301 app.runtime.fresh imports forbidden app.experiment.modes" in checked.stdout
    )


def test_a_rename_git_does_not_see_is_carried_outside_a_checkout(project):
    # Without git's history, an unambiguous pairing of fingerprints is all there is.
    shutil.rmtree(project / ".git")
    (project / "app/runtime/legacy.py").unlink()
    (project / "app/runtime/fresh.py").write_text("from app.experiment import modes\n")
    pruned = domain_fence("baseline", "--prune", cwd=project)
    assert pruned.stdout.splitlines()[1:] == [
        f"  re-keyed {CONTRACT} boundary:app.runtime.legacy->app.experiment.modes, "
        "now boundary:app.runtime.fresh->app.experiment.modes"
    ]


def test_an_unknown_revision_is_one_line_and_status_2(project):
    reviewed = domain_fence("check", "--ratchet-since", "no-such-branch", cwd=project)
    assert reviewed.returncode == 2
    assert reviewed.stdout == ""
    [line] = reviewed.stderr.splitlines()
    assert line.startswith("domain-fence: error: 'no-such-branch' is not a commit of the repository at ")


def test_outside_a_git_checkout_is_one_line_and_status_2(tmp_path):
    root = tmp_path / "plain"
    write_tree(root, FILES)
    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=root)
    assert reviewed.returncode == 2
    [line] = reviewed.stderr.splitlines()
    configuration = root.resolve() / ".importlinter"
    assert line == f"domain-fence: error: {configuration}: comparing baselines with 'main' needs a git checkout"


def test_a_baseline_new_since_the_revision_counts_every_entry_as_added(project):
    (project / BASELINE).rename(project / "recorded.json")
    git("rm", "-q", "--cached", BASELINE, cwd=project)
    commit(project, "drop the baseline")
    first = git("rev-parse", "HEAD", cwd=project)
    (project / "recorded.json").rename(project / BASELINE)
    reviewed = domain_fence("check", "--ratchet-since", first, cwd=project)
    assert reviewed.returncode == 1
    assert f"domain-fence: 2 baseline entries added since {first}:" in reviewed.stderr


def test_a_corrupt_baseline_at_the_revision_is_one_line_and_status_2(project):
    (project / BASELINE).write_text("{not json")
    commit(project, "break the baseline")
    broken = git("rev-parse", "HEAD", cwd=project)
    recorded = domain_fence("baseline", cwd=project)
    assert recorded.returncode == 2  # the working tree's is unusable too
    git("checkout", "-q", "main", "--", BASELINE, cwd=project)
    reviewed = domain_fence("check", "--ratchet-since", broken, cwd=project)
    assert reviewed.returncode == 2
    [line] = reviewed.stderr.splitlines()
    assert line.startswith(f"domain-fence: error: {broken}:{BASELINE}: baseline is not valid JSON")


def test_a_baseline_outside_the_checkout_is_one_line_and_status_2(project):
    config = (
        (project / ".importlinter")
        .read_text()
        .replace("    app.experiment\n", "    app.experiment\nbaseline = ../outside.json\n")
    )
    (project / ".importlinter").write_text(config)
    reviewed = domain_fence("check", "--ratchet-since", "main", cwd=project)
    assert reviewed.returncode == 2
    [line] = reviewed.stderr.splitlines()
    assert line.endswith(f"outside.json: the baseline is outside the git checkout at {project.resolve()}")

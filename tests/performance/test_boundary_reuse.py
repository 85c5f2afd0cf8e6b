"""The boundary's whole result kept between runs: while every module's imports are as
they were, ``check`` reports from the store and builds no import graph; any other
change is a full check. Every run is compared, byte for byte, with a run that has no
cache at all; whether the graph was built is read from a counting builder."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from reuse_project import append, changed, create, delete, replace, rewrite_stored, stored_body, write_project
from support import run_tool

import domain_fence.integrations.importlinter.results as results
from domain_fence.core.engine.resultcache import ResultStore
from domain_fence.integrations.cli import main

BOUNDARY = "runtime-knows-no-experiment"

# Beside the project of reuse_project: a crossing import with a chain behind it (the
# report shows it), and a forbidden module importing another.
MORE = {
    "shop/adapters/__init__.py": "",
    "shop/adapters/bridge.py": "from shop.experiment import runner\n",
    "shop/runtime/via.py": "import os\n\nfrom shop.adapters import bridge\n\n\ndef run():\n    return bridge\n",
    "shop/experiment/report.py": "from shop.experiment import runner\n",
}


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """One entry per import graph built in this process."""
    built: list[int] = []
    build = results.build_graph

    def counting(*args, **kwargs):
        built.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(results, "build_graph", counting)
    return built


def run(root: Path, *args: str) -> tuple[int, str]:
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout


def fresh(root: Path, *args: str) -> tuple[int, str]:
    return run(root, *args, "--no-cache")


@pytest.fixture
def project(tmp_path, builds) -> Path:
    """The project, checked once: its results are stored."""
    root = write_project(tmp_path / "project")
    for name, text in MORE.items():
        create(root, name, text)
    code, report = run(root, "--format", "json")
    assert code == 1, report
    assert builds == [1]
    boundary = next(c for c in json.loads(report)["contracts"] if c["id"] == BOUNDARY)
    assert {f["code"] for f in boundary["findings"]} == {"DOM301", "DOM302"}
    builds.clear()
    return root


def boundary_store(root: Path) -> Path:
    return ResultStore(root / ".domain_fence_cache", root.resolve(), BOUNDARY, "").path


def a_leaf_edited(root: Path) -> None:
    append(root, "shop/runtime/leaf.py", "\n\ndef _added(value):\n    return value\n")


def a_body_edited(root: Path) -> None:
    append(root, "shop/runtime/bad.py", "\n\ndef later():\n    return VALUE\n")


def test_an_edit_that_keeps_every_import_builds_no_graph(project, builds):
    # A module the boundary check did not read (its view recorded once later contracts
    # had read it), then one with a crossing import, then again from what that stored.
    for edit in (a_leaf_edited, a_body_edited, a_body_edited):
        edit(project)
        assert run(project) == fresh(project)
        assert len(builds) == 1  # the uncached run's
        builds.clear()


def test_the_kept_result_is_the_stored_one(project, builds):
    """A stored message altered by hand is reported: proof the result was kept."""

    def altered(parts: list[Any]) -> None:
        modules, counts, columns = parts[2]
        messages = tuple("STORED " + message for message in columns[4])
        parts[2] = (modules, counts, (*columns[:4], messages, *columns[5:]))

    rewrite_stored(boundary_store(project), altered)
    a_body_edited(project)
    report = json.loads(run(project, "--format", "json")[1])
    boundary = next(c for c in report["contracts"] if c["id"] == BOUNDARY)
    assert boundary["findings"] and all(f["message"].startswith("STORED ") for f in boundary["findings"])
    assert not builds


@pytest.mark.parametrize("format_", ["text", "json", "sarif", "github", "markdown"])
def test_a_kept_result_is_reported_as_a_fresh_one_in_every_format(project, builds, format_):
    a_body_edited(project)
    kept = run(project, "--format", format_, "--verbose")
    assert not builds
    assert kept == fresh(project, "--format", format_, "--verbose")
    if format_ in ("json", "sarif"):
        assert "shop.adapters.bridge" in kept[1]  # the chain behind the crossing import


def a_forbidden_module_imports_more(root: Path) -> None:
    append(root, "shop/experiment/report.py", "from shop.runtime import leaf\nimport json\n")


def a_plain_module_imports_more(root: Path) -> None:
    append(root, "shop/runtime/leaf.py", "\nimport os\n")


# Edits after which the import graph is built again: what it holds may differ.
RECOMPUTED: dict[str, Callable[[Path], None]] = {
    "a forbidden import added": lambda root: append(
        root, "shop/runtime/leaf.py", "\nfrom shop.experiment import runner\n"
    ),
    "a forbidden import removed": lambda root: replace(
        root, "shop/runtime/bad.py", "from shop.experiment import runner\n\nVALUE = runner\n", "VALUE = 1\n"
    ),
    "an import moved to another line": lambda root: replace(
        root, "shop/runtime/bad.py", "from shop.experiment", "# moved down\nfrom shop.experiment"
    ),
    "an import line's text changed": lambda root: replace(
        root, "shop/runtime/bad.py", "import runner\n", "import runner  # the runner\n"
    ),
    "an import's column changed": lambda root: replace(root, "shop/runtime/via.py", "import bridge", "import  bridge"),
    "an import moved under TYPE_CHECKING": lambda root: replace(
        root,
        "shop/runtime/via.py",
        "import os\n\nfrom shop.adapters import bridge\n",
        "import os\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shop.adapters import bridge\n",
    ),
    "an import added to a module on a route": lambda root: append(
        root, "shop/adapters/bridge.py", "from shop.experiment import report\n"
    ),
    "an import added where no route passes": a_plain_module_imports_more,
    "a module added": lambda root: create(root, "shop/runtime/added.py", "from shop.experiment import runner\n"),
    "a module added without imports": lambda root: create(root, "shop/runtime/quiet.py", "VALUE = 1\n"),
    "a module deleted": lambda root: delete(root, "shop/runtime/bad.py"),
    "a module renamed": lambda root: (root / "shop/runtime/bad.py").rename(root / "shop/runtime/worse.py"),
    "a syntax error": lambda root: append(root, "shop/runtime/leaf.py", "\ndef broken(:\n"),
    "a syntax error in a forbidden module": lambda root: append(root, "shop/experiment/report.py", "\ndef broken(:\n"),
    "a relative import above the top-level package": lambda root: append(
        root, "shop/experiment/report.py", "from ... import beyond\n"
    ),
    "a symlink loop": lambda root: os.symlink("..", root / "shop/runtime/loop"),
    "the configuration changed": lambda root: replace(
        root, ".importlinter", "forbidden_modules =\n    shop.experiment\n", "forbidden_modules =\n    shop.adapters\n"
    ),
    "the store damaged": lambda root: boundary_store(root).write_bytes(b"not a pickle"),
    "the store truncated": lambda root: _truncate(boundary_store(root)),
    "the store's body truncated": lambda root: _truncate(stored_body(boundary_store(root))),
    "the store's chains damaged": lambda root: _damage_extra(boundary_store(root)),
}


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _damage_extra(path: Path) -> None:
    rewrite_stored(path, lambda parts: parts.__setitem__(7, ((("a fingerprint", ("not", "a", "chain")),), None)))


@pytest.mark.parametrize("change", sorted(RECOMPUTED))
def test_an_edit_that_may_change_the_graph_is_a_full_check(project, builds, change):
    a_body_edited(project)
    RECOMPUTED[change](project)
    reported = run(project, "--format", "json")
    if change != "the configuration changed":  # a new key: every contract is checked whole
        assert builds, "the import graph was not built"
    assert reported == fresh(project, "--format", "json")
    assert run(project) == fresh(project)  # and from what that run stored


def test_a_forbidden_module_s_imports_are_read_by_nothing(project, builds):
    """No route goes on from a forbidden module: its imports change nothing reported."""
    a_forbidden_module_imports_more(project)
    assert run(project) == fresh(project)
    assert len(builds) == 1  # the uncached run's


def test_an_ignored_import_from_a_forbidden_module_counts(project, builds):
    """An ``ignore_imports`` entry from a forbidden module matches its imports (and is
    reported when it matches none): then its imports are read."""
    replace(
        project,
        ".importlinter",
        "forbidden_modules =\n    shop.experiment\n",
        "forbidden_modules =\n    shop.experiment\nignore_imports =\n    shop.experiment.report -> shop.runtime.leaf\n",
    )
    assert run(project) == fresh(project)  # the ignored import matches nothing yet
    builds.clear()
    a_forbidden_module_imports_more(project)
    assert run(project) == fresh(project)
    assert len(builds) == 2


def test_a_baseline_recorded_and_edited_is_applied_to_a_kept_result(project, builds):
    with contextlib.chdir(project):
        recorded = CliRunner().invoke(main, ["baseline"])
    assert recorded.exit_code == 0, recorded.output
    a_body_edited(project)
    builds.clear()
    assert run(project) == fresh(project)
    assert run(project)[0] == 0  # every finding baselined
    baseline = project / ".domain-fence-baseline.json"
    entries = json.loads(baseline.read_text())
    kept = [e for e in entries["entries"] if not e["fingerprint"].startswith("boundary:shop.runtime.bad")]
    assert len(kept) < len(entries["entries"])
    changed(baseline, json.dumps({**entries, "entries": kept}, indent=2))
    assert run(project, "--format", "json") == fresh(project, "--format", "json")
    assert run(project)[0] == 1
    assert len(builds) == 2  # the uncached runs'


def test_a_noqa_comment_added_to_a_crossing_import_is_honoured(project, builds):
    replace(project, "shop/runtime/bad.py", "import runner\n", "import runner  # noqa: DOM301\n")
    assert run(project, "--format", "json") == fresh(project, "--format", "json")
    assert "DOM301" not in run(project, "--quiet")[1]


def test_a_changed_file_s_noqa_comments_are_read_again(project, builds):
    """Its imports as they were keep its findings, not its comments: here a comment on
    a line that imports nothing (noqa comments count a form feed as a line break)."""
    replace(project, "shop/runtime/bad.py", "from shop.experiment", "\fHEAD = 1\nfrom shop.experiment")
    assert run(project) == fresh(project)
    builds.clear()
    replace(project, "shop/runtime/bad.py", "HEAD = 1\n", "HEAD = 1  # noqa: DOM301\n")
    assert run(project, "--format", "json") == fresh(project, "--format", "json")
    assert len(builds) == 1  # the uncached run's


def test_lint_imports_keeps_no_boundary_result(tmp_path):
    """lint-imports builds the graph it hands our contracts with grimp's own cache,
    which trusts modification times: a result computed from it is never kept."""
    root = write_project(tmp_path / "project")
    assert run_tool("lint-imports", "--no-logo", cwd=root).returncode == 1
    assert (root / ".domain_fence_cache" / "results").is_dir()  # the other contracts'
    assert not boundary_store(root).exists()

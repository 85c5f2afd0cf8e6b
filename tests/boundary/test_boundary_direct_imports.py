"""DOM301, the per-file view of a boundary contract, on annotated fixture files."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest
from fixture_expectations import expectations, unmet
from support import FIXTURES

from domain_fence.core.families import Context
from domain_fence.core.families.boundary import BOUNDARY
from domain_fence.core.families.config import parse_boundary
from domain_fence.core.index.project import ProjectIndex

ROOT = FIXTURES / "direct_imports"
RUNTIME = ROOT / "fenced" / "runtime"
OPTIONS = {
    "source_modules": ["fenced.runtime"],
    "forbidden_modules": ["fenced.experiment", "json"],
    "ignore_imports": ["fenced.runtime.ignored -> fenced.experiment.modes"],
}


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return ProjectIndex.build(ROOT, ["fenced"], search_paths=[str(ROOT)], cache_dir=None)


def direct_import_findings(config, index, module, exclude_type_checking=False, graph=None):
    """The boundary family's findings in one module, from the graph grimp builds."""
    session = {"exclude_type_checking_imports": "true"} if exclude_type_checking else {}
    context = Context(ROOT, ("fenced",), index, build_graph=lambda: _graph(exclude_type_checking), session=session)
    return BOUNDARY.check_module(config, context, module)


_GRAPHS: dict[bool, grimp.ImportGraph] = {}


def _graph(exclude_type_checking: bool) -> grimp.ImportGraph:
    if exclude_type_checking not in _GRAPHS:
        import sys

        sys.path.insert(0, str(ROOT))
        try:
            _GRAPHS[exclude_type_checking] = grimp.build_graph(
                "fenced",
                include_external_packages=True,
                exclude_type_checking_imports=exclude_type_checking,
                cache_dir=None,
            )
        finally:
            sys.path.remove(str(ROOT))
    return _GRAPHS[exclude_type_checking]


def config(**overrides):
    return parse_boundary("fence", "fence", {**OPTIONS, **overrides}, ROOT)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def found(findings):
    return [(f.line, f.code, f.col) for f in findings]


@pytest.mark.parametrize("path", sorted(RUNTIME.glob("*.py")), ids=lambda p: p.name)
def test_findings_match_the_annotations(path: Path, index: ProjectIndex):
    findings = direct_import_findings(config(), index, module_of(path))
    missing, unexpected = unmet(expectations(path), found(findings))
    assert not missing and not unexpected, (missing, [f.describe() for f in findings])


def test_imports_are_named_as_grimp_names_them(index):
    findings = direct_import_findings(config(), index, "fenced.runtime.absolute")
    assert [(f.line, f.message, f.fingerprint) for f in findings[:2]] == [
        (
            1,
            "fenced.runtime.absolute imports forbidden fenced.experiment",
            "boundary:fenced.runtime.absolute->fenced.experiment",
        ),
        (
            2,
            "fenced.runtime.absolute imports forbidden fenced.experiment.modes",
            "boundary:fenced.runtime.absolute->fenced.experiment.modes",
        ),
    ]
    by_line = {f.line: f.fingerprint.rsplit("->", 1)[1] for f in findings}
    assert by_line[4] == "json"  # outside the project: its top-level package
    assert by_line[9] == "fenced.experiment"  # `from x import name`, name not a module
    assert by_line[10] == "fenced.experiment"  # the longest prefix that exists
    assert all(f.contract == "fence" and f.path == "fenced/runtime/absolute.py" for f in findings)


def test_type_checking_imports_can_be_excluded(index):
    places = [
        (f.line, f.col)
        for f in direct_import_findings(config(), index, "fenced.runtime.type_checking", exclude_type_checking=True)
    ]
    # The `else:` branch and the plain import still count, and so does one under another
    # name of TYPE_CHECKING, as in the graph lint-imports checks: at its name, as ever.
    assert places == [(9, 34), (11, 36), (16, 34)]


def test_ignore_imports_use_import_linter_expressions(index):
    everything = direct_import_findings(config(ignore_imports=[]), index, "fenced.runtime.ignored")
    assert [f.line for f in everything] == [1, 2]
    wildcard = config(ignore_imports=["fenced.*.ignored -> fenced.experiment.*"])
    assert direct_import_findings(wildcard, index, "fenced.runtime.ignored") == []


def test_modules_outside_the_sources_are_not_checked(index):
    assert direct_import_findings(config(), index, "fenced.experiment.uses_runtime") == []
    assert (
        direct_import_findings(
            config(source_modules=["fenced.experiment"], forbidden_modules=["fenced.runtime"]),
            index,
            "fenced.experiment.uses_runtime",
        )
        != []
    )


def test_no_file_is_read_whole_for_the_columns():
    # Columns come from the import statements the graph names, each parsed alone: a
    # boundary-only run parses no whole file, and places each finding as the file's
    # facts would.
    index = ProjectIndex.build(ROOT, ["fenced"], search_paths=[str(ROOT)], cache_dir=None)
    context = Context(ROOT, ("fenced",), index, build_graph=lambda: _graph(False), session={})
    modules = sorted(m for m in index.modules if m.startswith("fenced.runtime"))
    BOUNDARY.prepare(config(), context, modules)
    found = {m: BOUNDARY.check_module(config(), context, m) for m in modules}
    assert any(found.values())
    assert not any(m in index._facts for m in modules)
    whole = ProjectIndex.build(ROOT, ["fenced"], search_paths=[str(ROOT)], cache_dir=None)
    whole.prefetch(modules)  # the facts known: they give the places
    known = Context(ROOT, ("fenced",), whole, build_graph=lambda: _graph(False), session={})
    assert {m: BOUNDARY.check_module(config(), known, m) for m in modules} == found


def test_only_the_modules_with_a_crossing_import_are_read_to_leave_out_type_checking_imports():
    # Which imports are under ``if TYPE_CHECKING:`` takes the whole file: read for the
    # modules the graph shows with a crossing import only.
    index = ProjectIndex.build(ROOT, ["fenced"], search_paths=[str(ROOT)], cache_dir=None)
    session = {"exclude_type_checking_imports": "True"}
    context = Context(ROOT, ("fenced",), index, build_graph=lambda: _graph(True), session=session)
    modules = sorted(m for m in index.modules if m.startswith("fenced.runtime"))
    BOUNDARY.prepare(config(), context, modules)
    found = {m for m in modules for f in BOUNDARY.check_module(config(), context, m)}
    read = {m for m in modules if m in index._facts}
    assert found and read == found, (read, found)
    assert len(read) < len(modules)

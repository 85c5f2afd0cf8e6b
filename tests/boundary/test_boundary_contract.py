"""The boundary contract on hand-built graphs: forbidden semantics plus the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import grimp
import importlinter.api  # noqa: F401  (configures import-linter's settings, e.g. its timer)
import pytest
from importlinter.domain.contract import InvalidContractOptions

from domain_fence.core.engine.baseline import Baseline, BaselineEntry, write_baseline
from domain_fence.integrations.importlinter import BoundaryContract
from domain_fence.integrations.importlinter.base import project_root

RUNTIME_MODEL = "pkg.runtime.model"
RUNTIME_HELPER = "pkg.runtime.helper"
EXPERIMENT_MODE = "pkg.experiment.mode"


def make_graph(*imports: tuple[str, str, int]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for module in (
        "pkg",
        "pkg.runtime",
        "pkg.experiment",
        RUNTIME_MODEL,
        RUNTIME_HELPER,
        EXPERIMENT_MODE,
        "pkg.shared",
    ):
        graph.add_module(module)
    for importer, imported, line in imports:
        graph.add_import(importer=importer, imported=imported, line_number=line, line_contents=f"import {imported}")
    return graph


@pytest.fixture
def root(tmp_path: Path):
    token = project_root.set(tmp_path)
    yield tmp_path
    project_root.reset(token)


def make_contract(**options) -> BoundaryContract:
    contract_options = {
        "id": "runtime-knows-no-experiment",
        "name": "Runtime does not import experiment",
        "type": "boundary",
        "source_modules": ["pkg.runtime"],
        "forbidden_modules": ["pkg.experiment"],
        **options,
    }
    return BoundaryContract(
        name=contract_options["name"],
        session_options={"root_packages": ["pkg"]},
        contract_options=contract_options,
    )


def record(root: Path, *fingerprints: str) -> None:
    entries = [BaselineEntry("runtime-knows-no-experiment", f, "") for f in fingerprints]
    write_baseline(Baseline(root / ".domain-fence-baseline.json", tuple(entries)))


def test_kept_when_runtime_does_not_reach_experiment(root):
    check = make_contract().check(make_graph((EXPERIMENT_MODE, RUNTIME_MODEL, 3)), verbose=False)
    assert check.kept


def test_direct_import_breaks_the_contract_with_its_line(root):
    check = make_contract().check(make_graph((RUNTIME_MODEL, EXPERIMENT_MODE, 7)), verbose=False)
    assert not check.kept
    [finding] = check.metadata["findings"]
    assert (finding["code"], finding["line"], finding["symbol"]) == ("DOM301", 7, RUNTIME_MODEL)
    assert finding["fingerprint"] == f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}"
    assert finding["details"] == [f"{RUNTIME_MODEL} -> {EXPERIMENT_MODE} (l.7)"]


def test_indirect_chain_is_reported_with_every_link(root):
    graph = make_graph((RUNTIME_MODEL, "pkg.shared", 2), ("pkg.shared", EXPERIMENT_MODE, 9))
    [finding] = make_contract().check(graph, verbose=False).metadata["findings"]
    assert finding["code"] == "DOM302"
    assert finding["details"] == [
        f"{RUNTIME_MODEL} -> pkg.shared (l.2)",
        f"pkg.shared -> {EXPERIMENT_MODE} (l.9)",
    ]


def test_allow_indirect_imports_keeps_its_forbidden_meaning(root):
    graph = make_graph((RUNTIME_MODEL, "pkg.shared", 2), ("pkg.shared", EXPERIMENT_MODE, 9))
    assert make_contract(allow_indirect_imports="true").check(graph, verbose=False).kept


def test_ignore_imports_keeps_its_forbidden_meaning(root):
    graph = make_graph((RUNTIME_MODEL, EXPERIMENT_MODE, 7))
    contract = make_contract(ignore_imports=[f"{RUNTIME_MODEL} -> {EXPERIMENT_MODE}"])
    assert contract.check(graph, verbose=False).kept


def test_baselined_edge_passes_and_so_do_chains_through_it(root):
    record(root, f"boundary:{RUNTIME_MODEL}->pkg.shared")
    graph = make_graph((RUNTIME_MODEL, "pkg.shared", 2), ("pkg.shared", EXPERIMENT_MODE, 9))
    check = make_contract().check(graph, verbose=False)
    assert check.kept
    assert check.metadata["baselined_edges"] == [f"boundary:{RUNTIME_MODEL}->pkg.shared"]


def test_a_new_violation_fails_despite_the_baseline(root):
    record(root, f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}")
    graph = make_graph((RUNTIME_MODEL, EXPERIMENT_MODE, 7), (RUNTIME_HELPER, EXPERIMENT_MODE, 4))
    check = make_contract().check(graph, verbose=False)
    assert [f["symbol"] for f in check.metadata["findings"]] == [RUNTIME_HELPER]


def test_stale_entry_fails_by_default(root):
    record(root, f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}")
    check = make_contract().check(make_graph(), verbose=False)
    assert not check.kept
    assert check.metadata["stale"] == [f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}"]


@pytest.mark.parametrize(("level", "warnings"), [("warn", 1), ("none", 0)])
def test_stale_entry_alerting_can_be_relaxed(root, level, warnings):
    record(root, f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}")
    check = make_contract(unmatched_baseline_alerting=level).check(make_graph(), verbose=False)
    assert check.kept
    assert len(check.warnings) == warnings


def test_entries_of_other_contracts_are_not_stale_here(root):
    write_baseline(Baseline(root / ".domain-fence-baseline.json", (BaselineEntry("other", "boundary:a->b", ""),)))
    assert make_contract().check(make_graph(), verbose=False).kept


def test_violations_cover_every_chain_until_the_contract_passes(root):
    # Two routes to the experiment: setting aside the shortest leaves the longer one.
    graph = make_graph(
        (RUNTIME_MODEL, EXPERIMENT_MODE, 1),
        (RUNTIME_MODEL, "pkg.shared", 2),
        ("pkg.shared", EXPERIMENT_MODE, 3),
    )
    contract = make_contract()
    entries = contract.violations(graph)
    assert [e.fingerprint for e in entries] == [
        f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}",
        f"boundary:{RUNTIME_MODEL}->pkg.shared",
    ]
    record(root, *(e.fingerprint for e in entries))
    assert contract.check(graph, verbose=False).kept


def test_invalid_options_are_reported_together(root):
    with pytest.raises(InvalidContractOptions) as raised:
        make_contract(unmatched_baseline_alerting="loud", as_packages="yes", sources="pkg")
    assert set(raised.value.errors) == {"unmatched_baseline_alerting", "as_packages", "sources"}


def test_baseline_path_is_relative_to_the_project_root(root):
    (root / "custom").mkdir()
    write_baseline(
        Baseline(
            root / "custom" / "b.json",
            (BaselineEntry("runtime-knows-no-experiment", f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}", ""),),
        )
    )
    check = make_contract(baseline="custom/b.json").check(
        make_graph((RUNTIME_MODEL, EXPERIMENT_MODE, 7)), verbose=False
    )
    assert check.kept
    assert json.loads((root / "custom" / "b.json").read_text())["version"] == 1


def test_a_chain_is_reported_where_it_leaves_the_source_modules(root):
    # model -> helper are both runtime: the violation is helper's import of the experiment.
    graph = make_graph((RUNTIME_MODEL, RUNTIME_HELPER, 2), (RUNTIME_HELPER, EXPERIMENT_MODE, 5))
    [finding] = make_contract().check(graph, verbose=False).metadata["findings"]
    assert (finding["code"], finding["symbol"], finding["line"]) == ("DOM301", RUNTIME_HELPER, 5)
    assert finding["fingerprint"] == f"boundary:{RUNTIME_HELPER}->{EXPERIMENT_MODE}"
    assert make_contract().violations(graph)[0].fingerprint == finding["fingerprint"]


def test_an_entry_whose_import_remains_but_leads_nowhere_forbidden_is_stale(root):
    record(root, f"boundary:{RUNTIME_MODEL}->pkg.shared")
    # shared no longer imports the experiment: the recorded import is harmless now.
    check = make_contract().check(make_graph((RUNTIME_MODEL, "pkg.shared", 2)), verbose=False)
    assert not check.kept
    assert check.metadata["stale"] == [f"boundary:{RUNTIME_MODEL}->pkg.shared"]


def test_findings_do_not_depend_on_how_ties_between_chains_are_broken(root):
    # Two equally short routes from model to the experiment, and two from shared:
    # each crossing import is one finding, and routes tie-break by module name.
    imports = [
        (RUNTIME_MODEL, "pkg.shared", 2),
        (RUNTIME_MODEL, EXPERIMENT_MODE, 3),
        ("pkg.shared", "pkg.experiment", 4),
        ("pkg.shared", EXPERIMENT_MODE, 5),
    ]
    results = set()
    for order in (imports, imports[::-1], imports[1:] + imports[:1]):
        check = make_contract().check(make_graph(*order), verbose=False)
        results.add(tuple((f["fingerprint"], tuple(f["details"])) for f in check.metadata["findings"]))
    assert results == {
        (
            (
                f"boundary:{RUNTIME_MODEL}->pkg.shared",
                (f"{RUNTIME_MODEL} -> pkg.shared (l.2)", "pkg.shared -> pkg.experiment (l.4)"),
            ),
            (f"boundary:{RUNTIME_MODEL}->{EXPERIMENT_MODE}", (f"{RUNTIME_MODEL} -> {EXPERIMENT_MODE} (l.3)",)),
        )
    }

"""The reporters on hand-built reports, and the command in-process with click's CliRunner."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import jsonschema
import pytest
from cli_support import REPO, copy_fixture
from click.testing import CliRunner

from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import (
    ContractResult,
    Dependency,
    Domains,
    Link,
    Ratchet,
    Report,
    added_finding,
    baseline_entry_lines,
)
from domain_fence.integrations.cli import main
from domain_fence.integrations.reporters import RenderOptions, render
from domain_fence.integrations.reporters.github import escape_data, escape_property, workspace_prefix
from domain_fence.integrations.reporters.markdown import cell

SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

LINK = Link("app.runtime.model", "app.experiment.mode", (4,))
NEW = Finding(
    path="app/runtime/model.py",
    line=4,
    col=0,
    code="DOM301",
    message="app.runtime.model imports forbidden app.experiment.mode",
    symbol="app.runtime.model",
    fingerprint="boundary:app.runtime.model->app.experiment.mode",
    contract="fence",
    details=(LINK.describe(),),
)
OLD = Finding(
    path="app/runtime/old.py",
    line=2,
    col=0,
    code="DOM301",
    message="app.runtime.old imports forbidden app.experiment",
    symbol="app.runtime.old",
    fingerprint="boundary:app.runtime.old->app.experiment",
    contract="fence",
)
FIELD = Finding(
    path="app/runtime/events.py",
    line=9,
    col=4,
    code="DOM101",
    message="event field 'episode': experiment vocabulary 'episode'",
    symbol="app.runtime.events.Stats.episode",
    fingerprint="DOM101:app.runtime.events:Stats.episode",
    contract="words",
)


def report() -> Report:
    return Report(
        root="/project",
        config=".importlinter",
        contracts=(
            ContractResult(
                id="fence",
                name="Runtime does not import experiment",
                type="boundary",
                kept=False,
                findings=(NEW,),
                baselined=(OLD,),
                dependencies=(Dependency("app.runtime", "app.experiment", ((LINK,),)),),
                domains=Domains(("app.runtime",), ("app.experiment",)),
                baselined_edges=(("app.runtime.old", "app.experiment"),),
                baseline=".domain-fence-baseline.json",
            ),
            ContractResult(
                id="words",
                name="Events | speak runtime",
                type="vocabulary",
                kept=False,
                findings=(FIELD,),
                warnings=("modules: 'app.gone' matches nothing",),
            ),
        ),
    )


def test_text_report():
    assert render(report(), "text").splitlines() == [
        "Runtime does not import experiment [fence: boundary] BROKEN",
        "  app/runtime/model.py:4:1: DOM301 app.runtime.model imports forbidden app.experiment.mode",
        "      app.runtime.model -> app.experiment.mode (l.4)",
        "  1 baselined finding passes (--verbose lists them)",
        "Events | speak runtime [words: vocabulary] BROKEN",
        "  app/runtime/events.py:9:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
        "  warning: modules: 'app.gone' matches nothing",
        "",
        "2 contracts: 0 kept, 2 broken; 2 findings, 0 stale baseline entries, 1 baselined",
    ]


def test_text_quiet_and_verbose():
    assert render(report(), "text", RenderOptions(quiet=True)).splitlines() == [
        FIELD.describe(),
        NEW.describe(),
    ]  # by path
    verbose = render(report(), "text", RenderOptions(verbose=True))
    assert "  baselined: app/runtime/old.py:2:1: DOM301 app.runtime.old imports forbidden app.experiment\n" in verbose


def test_sarif_of_a_hand_built_report_validates():
    sarif = json.loads(render(report(), "sarif", RenderOptions(verbose=True)))
    jsonschema.validate(sarif, SARIF_SCHEMA)
    run = sarif["runs"][0]
    assert run["originalUriBaseIds"] == {"SRCROOT": {"uri": "file:///project/"}}
    states = [(r["ruleId"], r["baselineState"], "suppressions" in r) for r in run["results"]]
    # What fails first, by path (each once however many contracts report it), then what is baselined.
    assert states == [("DOM101", "new", False), ("DOM301", "new", False), ("DOM301", "unchanged", True)]
    # The source cannot be read: no columns rather than columns counted wrong.
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 9}
    [notification] = run["invocations"][0]["toolExecutionNotifications"]
    assert notification == {"level": "warning", "message": {"text": "words: modules: 'app.gone' matches nothing"}}
    default = json.loads(render(report(), "sarif"))
    assert [r["baselineState"] for r in default["runs"][0]["results"]] == ["new", "new"]


def test_json_report_is_sorted_and_complete():
    document = json.loads(render(report(), "json"))
    assert list(document) == ["schema", "version", "config", "contracts", "ratchet", "summary"]
    fence = document["contracts"][0]
    assert fence["dependencies"] == [
        {
            "importer": "app.runtime",
            "imported": "app.experiment",
            "chains": [[{"importer": "app.runtime.model", "imported": "app.experiment.mode", "line_numbers": [4]}]],
        }
    ]
    assert document["contracts"][1]["domains"] is None


def test_github_escaping():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    finding = Finding("dir,with:odd/file.py", 3, 0, "DOM201", "50% wrong\nsecond", "s", "f", "c")
    text = render(Report("/p", ".importlinter", (ContractResult("c", "C", "placement", False, (finding,)),)), "github")
    assert (
        text.splitlines()[0] == "::error file=dir%2Cwith%3Aodd/file.py,line=3,col=1,title=DOM201::50%25 wrong%0Asecond"
    )


def test_github_workspace_prefix():
    assert workspace_prefix("/w/repo/sub", "/w/repo") == "sub/"
    assert workspace_prefix("/w/repo", "/w/repo") == ""
    assert workspace_prefix("/elsewhere", "/w/repo") == ""
    assert workspace_prefix("/w/repo", None) == ""


def test_markdown_escapes_cells_and_draws_new_and_baselined_edges():
    text = render(report(), "markdown")
    assert "| Events \\| speak runtime (`words`) | vocabulary | ❌ broken | 1 | 0 | 0 |" in text
    assert cell("a <b> | c\nd") == "a &lt;b&gt; \\| c d"
    graph = text[text.index("```mermaid") :].splitlines()
    assert graph[:3] == ["```mermaid", "graph LR", '  subgraph runtime_domain["runtime"]']
    assert '  n1 -->|"1 new"| n2' in graph
    assert '  n1 -.->|"1 baselined"| n2' in graph
    assert "  linkStyle 0 stroke:#cf222e,stroke-width:3px" in graph


def test_markdown_of_a_clean_report_has_no_findings_section():
    clean = Report("/p", ".importlinter", (ContractResult("c", "C", "layers", True),))
    text = render(clean, "markdown")
    assert text.startswith("## domain-fence: all 1 contracts kept\n")
    assert "### Findings" not in text and "mermaid" not in text


def test_baseline_entry_lines():
    text = (REPO / "tests" / "fixtures" / "cli" / "leaky" / ".domain-fence-baseline.json").read_text()
    assert baseline_entry_lines(text) == {
        ("runtime-knows-no-experiment", "boundary:leaky.runtime.gone->leaky.experiment"): 7,
        ("runtime-knows-no-experiment", "boundary:leaky.runtime.legacy->leaky.experiment.runner"): 12,
    }


@pytest.fixture
def in_process(monkeypatch, tmp_path) -> Path:
    """The leaky project as the current directory, with sys.path restored afterwards
    (the command puts the project on it, as lint-imports does)."""
    project = copy_fixture("leaky", tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(project)
    return project


def test_check_in_process(in_process):
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["summary"]["broken"] == 4


def test_explain_in_process():
    result = CliRunner().invoke(main, ["explain", "dom301"])
    assert result.exit_code == 0
    assert result.stdout.startswith("DOM301 forbidden-direct-import (boundary)\n")
    listing = CliRunner().invoke(main, ["explain"])
    assert "DOM101  experiment-word-in-event-field: " in listing.stdout


def test_unknown_rule_code_is_a_usage_error():
    result = CliRunner().invoke(main, ["explain", "DOM999"])
    assert result.exit_code == 2
    assert result.stderr.startswith("domain-fence: error: unknown rule code 'DOM999'; known codes: DOM001")


def test_unknown_command_is_one_line():
    result = CliRunner().invoke(main, ["chek"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "No such command 'chek'" in result.stderr


def documented_keys(section: str) -> list[str]:
    """The keys of the table under ``## section`` in docs/json-schema.md."""
    text = (REPO / "docs" / "json-schema.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [line.split("`")[1] for line in body.splitlines() if line.startswith("| `")]


def test_the_json_schema_document_lists_every_key():
    document = json.loads(render(report(), "json"))
    fence = document["contracts"][0]
    assert documented_keys("Top level") == list(document)
    assert documented_keys("contract") == list(fence)
    assert documented_keys("finding") == list(fence["findings"][0])
    assert documented_keys("dependency") == list(fence["dependencies"][0])
    assert documented_keys("summary") == list(document["summary"])
    added = added_finding("fence", "boundary:a->b", ".domain-fence-baseline.json", 3, "main")
    ratchet = json.loads(render(report()._replace(ratchet=Ratchet("main", (added,))), "json"))["ratchet"]
    assert documented_keys("ratchet") == list(ratchet)
    assert list(ratchet["added"][0]) == documented_keys("finding")


# The published OASIS schema (Schemata/sarif-schema-2.1.0.json of oasis-tcs/sarif-spec),
# vendored: the tests validate against it offline, and an edit to it shows here.
SARIF_SCHEMA_SHA256 = "80cd7ffb9b62a4162d541aa9170862dd264f6cce0f04c57f1ac9f2337b808958"


def test_the_vendored_sarif_schema_is_the_published_one_and_rejects_bad_logs():
    data = (REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_SCHEMA_SHA256
    jsonschema.Draft7Validator.check_schema(SARIF_SCHEMA)
    assert SARIF_SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]
    sarif = json.loads(render(report(), "sarif"))
    jsonschema.validate(sarif, SARIF_SCHEMA)
    # The schema has teeth: a log our reporter could plausibly get wrong is refused.
    broken_logs = [
        {**sarif, "version": "2.0.0"},
        {**sarif, "runs": [{**sarif["runs"][0], "results": [{"ruleId": "DOM301"}]}]},  # no message
        {**sarif, "runs": [{"results": []}]},  # no tool
    ]
    for broken in broken_logs:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, SARIF_SCHEMA)


def test_a_finding_several_contracts_report_alike_is_shown_once():
    from dataclasses import replace

    unreadable = Finding(
        "app/runtime/broken.py",
        4,
        0,
        "DOM001",
        "skipped: syntax error",
        "app.runtime.broken",
        "DOM001:app.runtime.broken",
    )
    contracts = tuple(
        ContractResult(
            id=name, name=name, type="vocabulary", kept=False, findings=(replace(unreadable, contract=name),)
        )
        for name in ("events", "census")
    )
    both = Report(root="/project", config=".importlinter", contracts=contracts)
    line = "app/runtime/broken.py:4:1: DOM001 skipped: syntax error"
    assert render(both, "text", RenderOptions(quiet=True)) == line + "\n"
    assert render(both, "github").count("::error ") == 1
    assert [r["ruleId"] for r in json.loads(render(both, "sarif"))["runs"][0]["results"]] == ["DOM001"]
    rows = [row for row in render(both, "markdown").splitlines() if row.startswith("| `app/")]
    assert rows == ["| `app/runtime/broken.py:4:1` | DOM001 | skipped: syntax error | events, census |"]
    # The text report lists it under each contract, as each is broken by it.
    assert render(both, "text").count(line) == 2
